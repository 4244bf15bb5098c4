/* bench_batch: K arrays moved by one batch plan (one message per peer pair) against K plans
 * executed one after the other, on the same data in the same run (docs/performance.md,
 * "Batches").
 *
 *     mpirun -np 4 build/bench_batch [--reps R] [--k K] [--arrays malloc|shared]
 *
 * --arrays shared: the local arrays from redist_alloc (node-shared memory): on one node the
 * plans and the batch copy each message once.
 *
 * For each size n (n x n doubles, cyclic(4) x cyclic(4) on a 2-D grid of the processes to
 * cyclic(16) x cyclic(16) on the transposed grid, row-major) and K arrays (default 8): the K
 * arrays' own plans (auto's choice each) executed in turn; the same K plans started together
 * and then waited for; the batch (one message per peer pair). Every element of every
 * destination is checked against its global index after the warm-up of each method (exit
 * status 1 otherwise); each repetition is a barrier, the moves and the slowest rank's time;
 * medians of R (default 21) in microseconds, and the messages each rank sends per move (the
 * K plans' sum; the batch's).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "redist.h"

enum { MAXK = 64 };
static int me, np, reps = 21, wrong, shared_arrays;

/* A row-major n x n layout, cyclic(b) both ways on grid g (ranks row-major from 0). */
static redist_layout layout(int64_t n, int64_t b, const int g[2])
{
    int64_t ext[2] = {n, n}, blk[2] = {b, b};
    redist_layout l = NULL;
    redist_layout_create(2, ext, blk, g, NULL, NULL, REDIST_ROW_MAJOR, &l);
    return l;
}

/* Element (i, j) of this rank's local array of layout (n, b, g) holds, or must hold,
   k * n^2 + its global row-major index (fill: check = 0; else counts the wrong ones). */
static void walk(int64_t n, int64_t b, const int g[2], int k, double *a, int check)
{
    int c[2] = {me / g[1], me % g[1]};
    int64_t loc[2];
    for (int d = 0; d < 2; d++) {
        int64_t full = n / (b * g[d]) * b, rest = n % (b * g[d]) - c[d] * b;
        loc[d] = full + (rest < 0 ? 0 : rest > b ? b : rest);
    }
    for (int64_t i = 0; i < loc[0]; i++)
        for (int64_t j = 0; j < loc[1]; j++) {
            int64_t g0 = i / b * b * g[0] + c[0] * b + i % b,
                    g1 = j / b * b * g[1] + c[1] * b + j % b;
            double v = (double)k * (double)(n * n) + (double)(g0 * n + g1);
            if (!check)
                a[i * loc[1] + j] = v;
            else if (a[i * loc[1] + j] != v)
                wrong++;
        }
}

static void one_size(int64_t n, int K)
{
    int gs[2], gd[2];
    gs[0] = 1;
    for (int d = 1; d * d <= np; d++)
        if (np % d == 0)
            gs[0] = d;
    gs[1] = np / gs[0];
    gd[0] = gs[1];
    gd[1] = gs[0];
    redist_layout src[MAXK], dst[MAXK];
    MPI_Datatype types[MAXK];
    double *a[MAXK], *c[MAXK];
    redist_plan single[MAXK], batch = NULL;
    int64_t ns = 0, nd = 0, msgs = 0;
    for (int k = 0; k < K; k++) {
        src[k] = layout(n, 4, gs);
        dst[k] = layout(n, 16, gd);
        types[k] = MPI_DOUBLE;
        redist_layout_local_size(src[k], me, &ns);
        redist_layout_local_size(dst[k], me, &nd);
        a[k] = bench_doubles(shared_arrays, ns);
        c[k] = bench_doubles(shared_arrays, nd);
        walk(n, 4, gs, k, a[k], 0);
        redist_plan_create(src[k], dst[k], MPI_DOUBLE, MPI_COMM_WORLD, NULL, &single[k]);
        redist_stats st;
        redist_plan_stats(single[k], &st);
        msgs += st.messages_sent;
    }
    redist_plan_create_batch(K, src, dst, types, MPI_COMM_WORLD, NULL, &batch);
    redist_stats bst;
    redist_plan_stats(batch, &bst);
    enum { M = 3 };
    double *t = malloc((size_t)(M * reps) * sizeof *t);
    for (int r = -1; r < reps; r++) { /* r = -1: the verified warm-up of each */
        for (int m = 0; m < M; m++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (m == 0)
                for (int k = 0; k < K; k++)
                    redist_execute(single[k], a[k], c[k]);
            if (m == 1) {
                for (int k = 0; k < K; k++)
                    redist_start(single[k], a[k], c[k]);
                for (int k = 0; k < K; k++)
                    redist_wait(single[k]);
            }
            if (m == 2)
                redist_execute_batch(batch, (const void *const *)a, (void *const *)c);
            t0 = MPI_Wtime() - t0;
            double worst = 0;
            MPI_Allreduce(&t0, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r >= 0)
                t[m * reps + r] = worst;
            for (int k = 0; r < 0 && k < K; k++) {
                walk(n, 16, gd, k, c[k], 1);
                memset(c[k], 0, (size_t)(nd + 1) * sizeof **c);
            }
        }
    }
    int64_t most[2] = {msgs, bst.messages_sent};
    MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    double ms[M];
    for (int m = 0; m < M; m++)
        ms[m] = bench_median(t + m * reps, reps) * 1e6;
    if (me == 0)
        printf("%6lld %4d %10.1f %10.1f %10.1f %8.2f %8.2f %8lld %8lld\n", (long long)n, K, ms[0],
               ms[1], ms[2], ms[0] / ms[2], ms[1] / ms[2], (long long)most[0], (long long)most[1]);
    for (int k = 0; k < K; k++) {
        redist_plan_free(&single[k]);
        redist_layout_free(&src[k]);
        redist_layout_free(&dst[k]);
    }
    for (int k = K - 1; k >= 0; k--) { /* redist_free: every rank in the same order */
        bench_free_doubles(shared_arrays, c[k]);
        bench_free_doubles(shared_arrays, a[k]);
    }
    redist_plan_free(&batch);
    free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int K = 8;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--k"))
            K = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--arrays"))
            shared_arrays = !strcmp(argv[i + 1], "shared");
    }
    if (reps < 1 || K < 1 || K > MAXK) {
        if (me == 0)
            fprintf(stderr, "bench_batch: --reps >= 1, 1 <= --k <= %d\n", MAXK);
        MPI_Finalize();
        return 2;
    }
    if (me == 0)
        printf("K arrays of n x n doubles (%s), cyclic(4)^2 -> cyclic(16)^2 on the transposed "
               "grid, %d ranks, median of %d (us)\n%6s %4s %10s %10s %10s %8s %8s %8s %8s\n",
               shared_arrays ? "node-shared" : "malloc'd", np, reps, "n", "K", "in turn",
               "together", "batch", "vs turn", "vs tog.", "msgs K", "batch");
    static const int64_t sizes[] = {16, 64, 256, 1024};
    for (int s = 0; s < 4; s++)
        one_size(sizes[s], K);
    int any = 0;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && me == 0)
        printf("WRONG: a destination element differs from its global index\n");
    MPI_Finalize();
    return any ? 1 : 0;
}
