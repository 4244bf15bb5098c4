/* bench_bmmc: BMMC permutations ([Cor97]) against the alternatives, in one run.
 *
 *   mpirun -np P build/bench_bmmc [--n 22] [--reps 9]      (P a power of two)
 *
 * Bit reversal and a matrix transpose of N = 2^n 8-byte elements (processor-major layout):
 * bmmc with MPI_Sendrecv_replace, MPI_Sendrecv and MPI_Alltoallv, against a generic
 * permutation that ships (index, value) pairs through MPI_Alltoallv and places them by index.
 * Then cyclic(1) -> cyclic(2^k), a bit permutation that is also a block-cyclic
 * redistribution: bmmc against the block-cyclic plan (auto). Tmin and Tmed of the slowest
 * rank; every method verified once element by element.
 */
#include <redist.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*run_fn)(void *ctx);

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(const char *label, run_fn run, void *ctx, int reps, int rank, double *med)
{
    double *t = malloc((size_t)reps * sizeof *t);
    run(ctx); /* warm-up */
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        run(ctx);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    *med = t[reps / 2];
    if (rank == 0)
        printf("  %-28s Tmin %9.3f ms   Tmed %9.3f ms\n", label, t[0] * 1e3, t[reps / 2] * 1e3);
    free(t);
}

typedef struct plan_ctx {
    redist_plan plan;
    const void *src;
    void *dst;
} plan_ctx;

static int run_plan(void *c)
{
    plan_ctx *x = c;
    return redist_execute(x->plan, x->src, x->dst);
}

/* The generic permutation: (index, value) pairs by MPI_Alltoallv. */
typedef struct generic_ctx {
    int n, p, rank, P;
    const uint64_t *a;
    uint64_t c;
    const int64_t *src;
    int64_t *dst;
    int64_t *pairs, *rpairs;
    int *sc, *sd, *rc, *rd, *fill;
} generic_ctx;

static int run_generic(void *cv)
{
    generic_ctx *g = cv;
    int64_t local = (int64_t)1 << (g->n - g->p);
    memset(g->sc, 0, (size_t)g->P * sizeof(int));
    for (int64_t l = 0; l < local; l++) { /* processor-major: x = rank << (n-p) | l */
        uint64_t y =
            redist_bmmc_apply(g->n, g->a, g->c, ((uint64_t)g->rank << (g->n - g->p)) | (uint64_t)l);
        g->sc[y >> (g->n - g->p)] += 2;
    }
    int off = 0;
    for (int r = 0; r < g->P; r++) {
        g->sd[r] = off;
        g->fill[r] = off;
        off += g->sc[r];
    }
    for (int64_t l = 0; l < local; l++) {
        uint64_t y =
            redist_bmmc_apply(g->n, g->a, g->c, ((uint64_t)g->rank << (g->n - g->p)) | (uint64_t)l);
        int r = (int)(y >> (g->n - g->p));
        g->pairs[g->fill[r]++] = (int64_t)y;
        g->pairs[g->fill[r]++] = g->src[l];
    }
    MPI_Alltoall(g->sc, 1, MPI_INT, g->rc, 1, MPI_INT, MPI_COMM_WORLD);
    off = 0;
    for (int r = 0; r < g->P; r++) {
        g->rd[r] = off;
        off += g->rc[r];
    }
    MPI_Alltoallv(g->pairs, g->sc, g->sd, MPI_INT64_T, g->rpairs, g->rc, g->rd, MPI_INT64_T,
                  MPI_COMM_WORLD);
    for (int i = 0; i < off; i += 2)
        g->dst[g->rpairs[i] & (local - 1)] = g->rpairs[i + 1];
    return 0;
}

static int64_t check(int n, int p, int rank, const uint64_t a[], uint64_t c, const int64_t *dst)
{
    uint64_t inv[64], ci = 0;
    redist_bmmc_inverse(n, a, c, inv, &ci);
    int64_t local = (int64_t)1 << (n - p), bad = 0;
    for (int64_t l = 0; l < local; l++)
        bad += dst[l] !=
               (int64_t)redist_bmmc_apply(n, inv, ci, ((uint64_t)rank << (n - p)) | (uint64_t)l);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return bad;
}

static void permutation(const char *name, int n, int p, int rank, int P, const uint64_t a[],
                        int reps, int *failed)
{
    int64_t local = (int64_t)1 << (n - p);
    int64_t *src = malloc((size_t)local * sizeof *src), *dst = malloc((size_t)local * sizeof *dst);
    for (int64_t l = 0; l < local; l++)
        src[l] = ((int64_t)rank << (n - p)) | l;
    if (rank == 0)
        printf("%s of 2^%d elements (8 bytes) on %d ranks\n", name, n, P);
    static const char *const methods[] = {"bmmc Sendrecv_replace", "bmmc Sendrecv",
                                          "bmmc Alltoallv"};
    double med[4];
    for (int m = 0; m < 3; m++) {
        redist_options opt;
        redist_options_init(&opt);
        opt.bmmc_method = m;
        plan_ctx pc = {NULL, src, dst};
        redist_plan_create_bmmc(n, n - p, a, 0, MPI_INT64_T, MPI_COMM_WORLD, &opt, &pc.plan);
        memset(dst, 0, (size_t)local * sizeof *dst);
        run_plan(&pc);
        if (check(n, p, rank, a, 0, dst)) {
            *failed = 1;
            if (rank == 0)
                printf("  %s: WRONG\n", methods[m]);
        }
        measure(methods[m], run_plan, &pc, reps, rank, &med[m]);
        redist_plan_free(&pc.plan);
    }
    generic_ctx g = {n,
                     p,
                     rank,
                     P,
                     a,
                     0,
                     src,
                     dst,
                     malloc((size_t)(2 * local) * sizeof(int64_t)),
                     malloc((size_t)(2 * local) * sizeof(int64_t)),
                     calloc((size_t)P, sizeof(int)),
                     calloc((size_t)P, sizeof(int)),
                     calloc((size_t)P, sizeof(int)),
                     calloc((size_t)P, sizeof(int)),
                     calloc((size_t)P, sizeof(int))};
    memset(dst, 0, (size_t)local * sizeof *dst);
    run_generic(&g);
    if (check(n, p, rank, a, 0, dst)) {
        *failed = 1;
        if (rank == 0)
            printf("  generic: WRONG\n");
    }
    measure("generic (index, value) pairs", run_generic, &g, reps, rank, &med[3]);
    if (rank == 0)
        printf("  ratio generic / bmmc (Tmed): %.2f\n", med[3] / med[0]);
    free(g.pairs);
    free(g.rpairs);
    free(g.sc);
    free(g.sd);
    free(g.rc);
    free(g.rd);
    free(g.fill);
    free(src);
    free(dst);
}

static void block_cyclic(int n, int k, int rank, int P, int reps, int *failed)
{
    int64_t N = (int64_t)1 << n, one = 1, y = (int64_t)1 << k;
    redist_layout s = NULL, d = NULL;
    redist_layout_create(1, &N, &one, &P, NULL, NULL, REDIST_ROW_MAJOR, &s);
    redist_layout_create(1, &N, &y, &P, NULL, NULL, REDIST_ROW_MAJOR, &d);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(s, rank, &ns);
    redist_layout_local_size(d, rank, &nd);
    int64_t *src = malloc((size_t)ns * sizeof *src), *dst = malloc((size_t)nd * sizeof *dst);
    for (int64_t l = 0; l < ns; l++)
        src[l] = l * P + rank;
    if (rank == 0)
        printf("cyclic(1) -> cyclic(%lld) of 2^%d elements on %d ranks\n", (long long)y, n, P);
    const char *algs[] = {"bmmc", "auto"};
    double med[2];
    for (int i = 0; i < 2; i++) {
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = algs[i];
        plan_ctx pc = {NULL, src, dst};
        redist_plan_create(s, d, MPI_INT64_T, MPI_COMM_WORLD, &opt, &pc.plan);
        run_plan(&pc);
        int64_t bad = 0;
        for (int64_t l = 0; l < nd; l++)
            bad += dst[l] != (l / y) * y * P + rank * y + l % y;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        *failed |= bad != 0;
        char label[64];
        snprintf(label, sizeof label, "%s%s (%s)", algs[i], bad ? " WRONG" : "",
                 redist_plan_algorithm(pc.plan));
        measure(label, run_plan, &pc, reps, rank, &med[i]);
        redist_plan_free(&pc.plan);
    }
    if (rank == 0)
        printf("  ratio bmmc / block-cyclic plan (Tmed): %.2f\n", med[0] / med[1]);
    free(src);
    free(dst);
    redist_layout_free(&s);
    redist_layout_free(&d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P, p = 0, n = 22, reps = 9, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    while ((1 << p) < P)
        p++;
    if ((1 << p) != P) {
        if (rank == 0)
            printf("bench_bmmc: the number of ranks must be a power of two\n");
        MPI_Finalize();
        return 2;
    }
    uint64_t a[64];
    redist_bmmc_bit_reversal(n, a);
    permutation("bit reversal", n, p, rank, P, a, reps, &failed);
    redist_bmmc_transpose(n / 2, n - n / 2, a);
    permutation("transpose 2^11 x 2^11", n, p, rank, P, a, reps, &failed);
    block_cyclic(n, 3, rank, P, reps, &failed);
    MPI_Finalize();
    return failed;
}
