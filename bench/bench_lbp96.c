/* bench_lbp96: [LBP96]'s experiments (§5, Fig. 14-18) on this machine.
 *
 * cyclic(1) -> cyclic(K) of N doubles on all P ranks, for K = 1 .. P: the time of direct,
 * direct-async, indirect, hybrid (d = 1), multiphase and alltoall-padded, measured the
 * paper's way (Fig. 13: n1 trials of n2 executes; per trial the slowest rank's average; Tmin
 * reported, as in the paper's plots), next to the cost model's prediction. Every method's
 * first execute is verified element by element.
 *
 *   mpirun -np 8 build/bench_lbp96 [--n N] [--n1 20] [--n2 10] [--csv FILE] [--padded]
 *
 * --padded compares alltoall-padded's exchange through MPI_Ialltoall with [GGKK03]'s
 * all-to-all algorithms (option alltoall_algorithm: auto, ring, mesh, hypercube, pairwise).
 *
 * Run it over shared memory and over TCP (--mca btl self,tcp) to see start-up bound and
 * bandwidth bound behaviour; bench/run_lbp96.sh does both for a small and a large array.
 */
#include <redist.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct method {
    const char *label, *algorithm;
    int hybrid_degree;
    const char *alltoall; /* alltoall-padded: [GGKK03]'s all-to-all, NULL for MPI's */
} method;

static const method lbp96_methods[] = {
    {"direct", "direct", -1, NULL},         {"direct-async", "direct-async", -1, NULL},
    {"indirect", "indirect", -1, NULL},     {"hybrid(d=1)", "hybrid", 1, NULL},
    {"multiphase", "multiphase", -1, NULL}, {"alltoall-padded", "alltoall-padded", -1, NULL},
};
/* --padded: the padded exchange through MPI_Ialltoall and through each of [GGKK03]'s
   all-to-all algorithms (src/coll/alltoall.c), with direct-async for reference. */
static const method padded_methods[] = {
    {"direct-async", "direct-async", -1, NULL},
    {"padded/MPI", "alltoall-padded", -1, NULL},
    {"padded/auto", "alltoall-padded", -1, "auto"},
    {"padded/ring", "alltoall-padded", -1, "ring"},
    {"padded/mesh", "alltoall-padded", -1, "mesh"},
    {"padded/hcube", "alltoall-padded", -1, "hypercube"},
    {"padded/pairwise", "alltoall-padded", -1, "pairwise"},
};

static double value_of(int64_t g)
{
    return (double)g + 0.5;
}

/* Global index of local element l on rank r of cyclic(b) over P ranks (first 0). */
static int64_t global_of(int64_t l, int64_t b, int P, int r)
{
    return (l / b) * b * P + (int64_t)r * b + l % b;
}

/* Tmin over n1 trials of the slowest rank's average over n2 executes; -1 if it fails. */
static double time_method(redist_plan plan, const double *a, double *b, int n1, int n2)
{
    double best = -1;
    for (int t = 0; t < n1; t++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int k = 0; k < n2; k++)
            if (redist_execute(plan, a, b) != REDIST_SUCCESS)
                return -1;
        double mine = (MPI_Wtime() - t0) / n2, slowest;
        MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (best < 0 || slowest < best)
            best = slowest;
    }
    return best;
}

static int64_t verify(const double *b, int64_t nd, int64_t K, int P, int rank)
{
    int64_t bad = 0;
    for (int64_t l = 0; l < nd; l++)
        bad += b[l] != value_of(global_of(l, K, P, rank));
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t n = 1 << 20;
    int n1 = 20, n2 = 10, failed = 0;
    const char *csv = NULL;
    const method *methods = lbp96_methods;
    int NMETHODS = (int)(sizeof lbp96_methods / sizeof lbp96_methods[0]);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--padded")) {
            methods = padded_methods;
            NMETHODS = (int)(sizeof padded_methods / sizeof padded_methods[0]);
        }
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--padded"))
            i--; /* a flag without a value */
        else if (!strcmp(argv[i], "--n"))
            n = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--n1"))
            n1 = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n2"))
            n2 = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--csv"))
            csv = argv[i + 1];
    }
    FILE *out = rank == 0 && csv ? fopen(csv, "w") : NULL;
    if (out)
        fprintf(out, "P,N,K,method,steps,tmin_s,predicted_s\n");
    if (rank == 0) {
        printf(
            "bench_lbp96: cyclic(1) -> cyclic(K) of %lld doubles (%.2f MB) on %d ranks; Tmin of %d x %d ([LBP96] Fig. 13)\n",
            (long long)n, n * 8e-6, P, n1, n2);
        printf("%3s", "K");
        for (int m = 0; m < NMETHODS; m++)
            printf(" %15s", methods[m].label);
        printf("   (steps; Tmin in us)\n");
    }
    int64_t one = 1, ns = 0;
    redist_layout src = NULL;
    redist_layout_create(1, &n, &one, &P, NULL, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_local_size(src, rank, &ns);
    double *a = malloc((size_t)(ns + 1) * sizeof *a);
    for (int64_t l = 0; l < ns; l++)
        a[l] = value_of(global_of(l, 1, P, rank));
    for (int64_t K = 1; K <= P; K++) {
        redist_layout dst = NULL;
        int64_t nd = 0;
        redist_layout_create(1, &n, &K, &P, NULL, NULL, REDIST_ROW_MAJOR, &dst);
        redist_layout_local_size(dst, rank, &nd);
        double *b = malloc((size_t)(nd + 1) * sizeof *b);
        if (rank == 0)
            printf("%3lld", (long long)K);
        for (int m = 0; m < NMETHODS; m++) {
            redist_options opt;
            redist_options_init(&opt);
            opt.algorithm = methods[m].algorithm;
            opt.hybrid_degree = methods[m].hybrid_degree;
            opt.alltoall_algorithm = methods[m].alltoall;
            redist_plan plan = NULL;
            int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
            if (rc != REDIST_SUCCESS) {
                if (rank == 0)
                    printf(" %15s", rc == REDIST_ERR_NOT_APPLICABLE ? "n/a" : "error");
                continue;
            }
            memset(b, 0, (size_t)nd * sizeof *b);
            int64_t bad =
                redist_execute(plan, a, b) == REDIST_SUCCESS ? verify(b, nd, K, P, rank) : 1;
            MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
            double t = bad ? -1 : time_method(plan, a, b, n1, n2);
            redist_stats st;
            redist_plan_stats(plan, &st);
            failed |= bad != 0 || t < 0;
            if (rank == 0) {
                char cell[32];
                snprintf(cell, sizeof cell, "%d; %.1f", st.steps, t * 1e6);
                printf(" %15s", bad ? "WRONG" : cell);
                if (out)
                    fprintf(out, "%d,%lld,%lld,%s,%d,%.9g,%.9g\n", P, (long long)n, (long long)K,
                            methods[m].label, st.steps, t, st.predicted_seconds);
            }
            redist_plan_free(&plan);
        }
        if (rank == 0)
            printf("\n");
        free(b);
        redist_layout_free(&dst);
    }
    if (rank == 0 && failed)
        printf("bench_lbp96: FAILED (wrong elements or errors above)\n");
    if (out)
        fclose(out);
    free(a);
    redist_layout_free(&src);
    MPI_Finalize();
    return failed;
}
