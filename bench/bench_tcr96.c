/* bench_tcr96: [TCR96]'s comparisons (§3-§5, Figs. 3-7 and 9-11) on this machine.
 *
 *   mpirun -np P build/bench_tcr96 [--n N] [--x X --y Y] [--n1 10] [--n2 5] [--csv F]
 *
 * For cyclic(x) -> cyclic(y) of N ints on all ranks it times (Tmin and Tmed of n1 trials of
 * n2 executes, slowest rank; [LBP96]'s Fig. 13 method) the paper's algorithms with the
 * synchronous and the asynchronous receive method, next to the closed-form direct-async:
 * KY_TO_Y or X_TO_KX where one block divides the other, and general, gcd and lcm always.
 * Every method's first execute is verified element by element. bench/run_tcr96.sh runs the
 * paper's cases: cyclic(4) -> cyclic(2) and cyclic(2) -> cyclic(4) (Figs. 3-7),
 * cyclic(15) -> cyclic(10) and cyclic(11) -> cyclic(3) (Figs. 9-11).
 */
#include <redist.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct method {
    const char *label, *algorithm;
    int sync;
} method;

static const method methods[] = {
    {"ky-to-y/sync", "ky-to-y", 1},
    {"ky-to-y/async", "ky-to-y", 0},
    {"x-to-kx/sync", "x-to-kx", 1},
    {"x-to-kx/async", "x-to-kx", 0},
    {"general/sync", "general", 1},
    {"general/async", "general", 0},
    {"gcd", "gcd", 0},
    {"lcm", "lcm", 0},
    {"direct-async", "direct-async", 0},
};
#define NMETHODS ((int)(sizeof methods / sizeof methods[0]))

static int64_t global_of(int64_t l, int64_t b, int P, int r)
{
    return (l / b) * b * P + (int64_t)r * b + l % b;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t n = 1 << 20, x = 4, y = 2;
    int n1 = 10, n2 = 5, failed = 0;
    const char *csv = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--x"))
            x = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--y"))
            y = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--n1"))
            n1 = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n2"))
            n2 = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--csv"))
            csv = argv[i + 1];
    }
    FILE *out = rank == 0 && csv ? fopen(csv, "a") : NULL;
    redist_layout src = NULL, dst = NULL;
    redist_layout_create(1, &n, &x, &P, NULL, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, &n, &y, &P, NULL, NULL, REDIST_ROW_MAJOR, &dst);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &nd);
    int *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(nd + 1) * sizeof *b);
    for (int64_t l = 0; l < ns; l++)
        a[l] = (int)global_of(l, x, P, rank);
    double *t = malloc((size_t)n1 * sizeof *t);
    if (rank == 0)
        printf("cyclic(%lld) -> cyclic(%lld), %lld ints on %d ranks (Tmin / Tmed in ms)\n",
               (long long)x, (long long)y, (long long)n, P);
    for (int m = 0; m < NMETHODS; m++) {
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = methods[m].algorithm;
        opt.synchronous_receive = methods[m].sync;
        redist_plan plan = NULL;
        if (redist_plan_create(src, dst, MPI_INT, MPI_COMM_WORLD, &opt, &plan) != 0)
            continue; /* not applicable to this pair */
        memset(b, 0, (size_t)nd * sizeof *b);
        int64_t bad = redist_execute(plan, a, b) == REDIST_SUCCESS ? 0 : 1;
        for (int64_t l = 0; l < nd; l++)
            bad += b[l] != (int)global_of(l, y, P, rank);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        failed |= bad != 0;
        for (int i = 0; i < n1 && !bad; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int k = 0; k < n2; k++)
                redist_execute(plan, a, b);
            double mine = (MPI_Wtime() - t0) / n2;
            MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        }
        qsort(t, (size_t)n1, sizeof *t, cmp);
        if (rank == 0) {
            if (bad)
                printf("  %-15s WRONG (%lld elements)\n", methods[m].label, (long long)bad);
            else
                printf("  %-15s %9.3f %9.3f\n", methods[m].label, t[0] * 1e3, t[n1 / 2] * 1e3);
            if (out && !bad)
                fprintf(out, "%d,%lld,%lld,%lld,%s,%.9g,%.9g\n", P, (long long)n, (long long)x,
                        (long long)y, methods[m].label, t[0], t[n1 / 2]);
        }
        redist_plan_free(&plan);
    }
    if (out)
        fclose(out);
    free(a);
    free(b);
    free(t);
    redist_layout_free(&src);
    redist_layout_free(&dst);
    MPI_Finalize();
    return failed;
}
