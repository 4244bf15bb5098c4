/* bench_layouts: the layouts beyond block-cyclic against the MPI collective or the plan that
 * does the same move, measured in the same run.
 *
 *   mpiexec -n P build/bench_layouts [--n N] [--reps R] [--cube C]
 *
 * An N x N matrix of doubles (default 2048) on P ranks, row blocks ("Shard": block rows,
 * grid P x 1) or replicated over the P ranks ("Replicate": first = REDIST_REPLICATED along
 * rows, every rank the whole matrix); with options.reduce = MPI_SUM a replicated source is
 * "Partial" (each rank a part of every element):
 *   Replicate -> Shard     a local copy: against memcpy of the shard (the floor)
 *   Shard -> Replicate     against MPI_Allgather of the shards
 *   Partial -> Shard       against MPI_Reduce_scatter_block
 *   Partial -> Replicate   against MPI_Allreduce
 * and a 3-D pencil transpose of C^3 complex doubles (default 128): x-pencils -> y-pencils
 * described as boxes against the same move described as block distributions (both redist
 * plans, auto). Each line: the median over R executes (default 20) of the slowest rank, the
 * ratio to the peer, the algorithm auto chose, and the most bytes a rank sent over the mean
 * (redist_plan_stats: a replicated source shares the sending evenly when it is about 1). The
 * data are checked once per case against values computed from the global index.
 */
#include <redist.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static int rank, P, reps = 20;

/* The slowest rank's time of fn, median over reps. */
static double timed(int (*fn)(void *), void *ctx)
{
    double *t = malloc((size_t)reps * sizeof *t), worst = 0;
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (fn(ctx) != 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[i] = worst;
    }
    double m = bench_median(t, reps);
    free(t);
    return m;
}

typedef struct exec_ctx {
    redist_plan plan;
    const void *src;
    void *dst;
} exec_ctx;
static int run_plan(void *c)
{
    exec_ctx *e = c;
    return redist_execute(e->plan, e->src, e->dst);
}

typedef struct peer_ctx {
    int kind;
    double *in, *out;
    int64_t count; /* doubles of one shard */
} peer_ctx;
enum { PEER_MEMCPY, PEER_ALLGATHER, PEER_REDUCE_SCATTER, PEER_ALLREDUCE };
static int run_peer(void *c)
{
    peer_ctx *q = c;
    int n = (int)q->count;
    switch (q->kind) {
    case PEER_MEMCPY:
        memcpy(q->out, q->in + (size_t)rank * (size_t)q->count, (size_t)q->count * sizeof(double));
        return 0;
    case PEER_ALLGATHER:
        return MPI_Allgather(q->in, n, MPI_DOUBLE, q->out, n, MPI_DOUBLE, MPI_COMM_WORLD);
    case PEER_REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(q->in, q->out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    default:
        return MPI_Allreduce(q->in, q->out, n * P, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
}

/* The most bytes a rank sent over the mean of the ranks that sent any. */
static double send_balance(redist_plan plan)
{
    redist_stats st;
    redist_plan_stats(plan, &st);
    double mine = (double)st.bytes_sent, most = 0, sum = 0, senders = 0, one = mine > 0;
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&one, &senders, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return senders > 0 && sum > 0 ? most / (sum / senders) : 1.0;
}

/* A 2-D N x N layout: row blocks over P ranks, or replicated along rows. */
static redist_layout matrix(int64_t n, int replicated)
{
    int64_t extent[2] = {n, n}, block[2] = {(n + P - 1) / P, n};
    int grid[2] = {P, 1}, first[2] = {replicated ? REDIST_REPLICATED : 0, 0};
    redist_layout l = NULL;
    redist_layout_create(2, extent, block, grid, first, NULL, REDIST_ROW_MAJOR, &l);
    return l;
}

/* A local array's element (i, j) of the matrix: (i n + j) times weight, written (check = 0)
   or compared (check = 1: returns the wrong elements). */
static int64_t walk(double *a, redist_layout l, int64_t n, double weight, int check)
{
    int64_t shape[2], bad = 0;
    int c[2];
    redist_layout_local_shape(l, rank, shape);
    redist_layout_coords(l, rank, c);
    int64_t row0 = shape[0] == n ? 0 : c[0] * ((n + P - 1) / P);
    for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < n; j++) {
            double want = (double)((row0 + i) * n + j) * weight;
            if (!check)
                a[i * n + j] = want;
            else
                bad += a[i * n + j] != want;
        }
    return bad;
}

static void matrix_case(const char *name, int64_t n, int src_rep, int dst_rep, int partial,
                        int peer)
{
    redist_layout src = matrix(n, src_rep), dst = matrix(n, dst_rep);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &nd);
    double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(nd + 1) * sizeof *b);
    redist_options opt;
    redist_options_init(&opt);
    if (partial)
        opt.reduce = MPI_SUM;
    exec_ctx e = {NULL, a, b};
    int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &e.plan);
    if (rc != REDIST_SUCCESS) {
        if (rank == 0)
            printf("  %-22s plan: %s (%s)\n", name, redist_error_name(rc),
                   redist_last_error_detail());
        return;
    }
    walk(a, src, n, partial ? (double)(rank + 1) : 1.0, 0);
    redist_execute(e.plan, a, b);
    int64_t bad = walk(b, dst, n, partial ? (double)P * (P + 1) / 2.0 : 1.0, 1), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    double t = timed(run_plan, &e), balance = send_balance(e.plan);
    /* the peer on the same bytes: one shard of n / P rows per rank */
    int64_t shard = (n / P) * n;
    double *pin = malloc((size_t)(shard * P + 1) * sizeof *pin);
    double *pout = malloc((size_t)(shard * P + 1) * sizeof *pout);
    for (int64_t i = 0; i < shard * P; i++)
        pin[i] = (double)i;
    peer_ctx q = {peer, pin, pout, shard};
    double tp = timed(run_peer, &q);
    const char *peers[] = {"memcpy", "MPI_Allgather", "MPI_Reduce_scatter_block", "MPI_Allreduce"};
    if (rank == 0)
        printf("  %-22s %10.1f us  x%5.2f of %-25s auto -> %-17s send balance %.2f%s\n", name,
               t * 1e6, t / tp, peers[peer], redist_plan_algorithm(e.plan), balance,
               all ? "  WRONG ELEMENTS" : "");
    redist_plan_free(&e.plan);
    redist_layout_free(&src);
    redist_layout_free(&dst);
    free(a);
    free(b);
    free(pin);
    free(pout);
}

/* x- or y-pencils of a c^3 array over a q1 x q2 grid: boxes, or the same as blocks. */
static redist_layout pencils(int64_t c, int axis, int q1, int q2, int boxes)
{
    int64_t extent[3] = {c, c, c}, block[3];
    int grid[3], other[2] = {axis == 0 ? 1 : 0, 2}, q[2] = {q1, q2};
    for (int k = 0; k < 3; k++) {
        grid[k] = 1;
        block[k] = c;
    }
    for (int i = 0; i < 2; i++) {
        grid[other[i]] = q[i];
        block[other[i]] = (c + q[i] - 1) / q[i];
    }
    redist_layout l = NULL;
    if (!boxes) {
        redist_layout_create(3, extent, block, grid, NULL, NULL, REDIST_ROW_MAJOR, &l);
        return l;
    }
    int64_t *lo = malloc((size_t)P * 3 * sizeof *lo), *hi = malloc((size_t)P * 3 * sizeof *hi);
    for (int r = 0; r < P; r++) {
        int co[3] = {0, 0, 0};
        co[other[0]] = r / q2;
        co[other[1]] = r % q2;
        for (int k = 0; k < 3; k++) {
            int64_t at = co[k] * block[k];
            lo[r * 3 + k] = at < c ? at : c;
            hi[r * 3 + k] = at + block[k] < c ? at + block[k] : c;
        }
    }
    redist_layout_create_boxes(3, extent, P, lo, hi, REDIST_ROW_MAJOR, &l);
    free(lo);
    free(hi);
    return l;
}

static double pencil_time(int64_t c, int boxes, const char **algo)
{
    int q1 = 1;
    for (int d = 1; d * d <= P; d++)
        if (P % d == 0)
            q1 = d;
    redist_layout src = pencils(c, 0, q1, P / q1, boxes), dst = pencils(c, 1, q1, P / q1, boxes);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &nd);
    size_t abytes = (size_t)(2 * ns + 1) * sizeof(double), bbytes = (size_t)(2 * nd + 1) * 8;
    double *a = malloc(abytes), *b = malloc(bbytes);
    memset(a, 0, abytes); /* touched: no first-touch page faults inside the timing */
    memset(b, 0, bbytes);
    exec_ctx e = {NULL, a, b};
    double t = NAN;
    if (redist_plan_create(src, dst, MPI_C_DOUBLE_COMPLEX, MPI_COMM_WORLD, NULL, &e.plan) ==
        REDIST_SUCCESS) {
        for (int warm = 0; warm < 3; warm++) /* caches and pages as in a program's loop */
            redist_execute(e.plan, a, b);
        t = timed(run_plan, &e);
        *algo = redist_plan_algorithm(e.plan);
    }
    redist_plan_free(&e.plan);
    redist_layout_free(&src);
    redist_layout_free(&dst);
    free(a);
    free(b);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t n = 2048, cube = 128;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cube"))
            cube = atoll(argv[i + 1]);
    }
    n -= n % P; /* whole shards, as the MPI peers need */
    if (rank == 0)
        printf("bench_layouts: %d ranks, %lld x %lld doubles, %d reps (median of the slowest "
               "rank)\n",
               P, (long long)n, (long long)n, reps);
    matrix_case("Replicate -> Shard", n, 1, 0, 0, PEER_MEMCPY);
    matrix_case("Shard -> Replicate", n, 0, 1, 0, PEER_ALLGATHER);
    matrix_case("Partial -> Shard", n, 1, 0, 1, PEER_REDUCE_SCATTER);
    matrix_case("Partial -> Replicate", n, 1, 1, 1, PEER_ALLREDUCE);
    const char *ab = "?", *ag = "?";
    /* each twice, in both orders: the first plan of a run pays the memory's warm-up */
    double tg = pencil_time(cube, 0, &ag), tb = pencil_time(cube, 1, &ab);
    double tb2 = pencil_time(cube, 1, &ab), tg2 = pencil_time(cube, 0, &ag);
    tg = tg < tg2 ? tg : tg2;
    tb = tb < tb2 ? tb : tb2;
    if (rank == 0)
        printf("  pencils x -> y %lld^3 complex: boxes %.1f us (auto -> %s), blocks %.1f us "
               "(auto -> %s): x%.2f\n",
               (long long)cube, tb * 1e6, ab, tg * 1e6, ag, tb / tg);
    MPI_Finalize();
    return 0;
}
