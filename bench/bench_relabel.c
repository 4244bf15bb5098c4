/* bench_relabel: the volume a redistribution moves between ranks with the destination's own
 * labelling and with redist_relabel's (docs/performance.md), on the benchmark cases.
 *
 *     mpirun -np 4 build/bench_relabel
 *
 * For each case: elements that cross between ranks with the given destination ranks (from a
 * plan's statistics, summed over the ranks) and with the relabelled ones (redist_relabel's
 * `moved`, checked against a plan on the relabelled layout), and the time relabelling takes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"

static int np, me;

/* Elements this plan moves between ranks, summed over all ranks. */
static int64_t moved_by_plan(redist_layout src, redist_layout dst)
{
    redist_plan plan = NULL;
    redist_stats st;
    int64_t mine = 0, all = 0;
    if (redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan) == REDIST_SUCCESS &&
        redist_plan_stats(plan, &st) == REDIST_SUCCESS)
        mine = st.bytes_sent / (int64_t)sizeof(double);
    redist_plan_free(&plan);
    MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

static void one_case(const char *name, int nd, const int64_t *n, const int64_t *bs, const int *gs,
                     const int *fs, const int64_t *bd, const int *gd, const int *fd)
{
    redist_layout src = NULL, dst = NULL, relabelled = NULL;
    redist_layout_create(nd, n, bs, gs, fs, NULL, REDIST_COL_MAJOR, &src);
    redist_layout_create(nd, n, bd, gd, fd, NULL, REDIST_COL_MAJOR, &dst);
    int q = redist_layout_nprocs(dst), *ranks = malloc((size_t)q * sizeof *ranks);
    int64_t kept = 0, moved = 0, total = 1;
    for (int k = 0; k < nd; k++)
        total *= n[k];
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    int rc = redist_relabel(src, dst, MPI_COMM_WORLD, ranks, &kept, &moved);
    t = MPI_Wtime() - t;
    int64_t before = moved_by_plan(src, dst), after = -1;
    if (rc == REDIST_SUCCESS) {
        redist_layout_create(nd, n, bd, gd, fd, ranks, REDIST_COL_MAJOR, &relabelled);
        after = moved_by_plan(src, relabelled);
    }
    if (me == 0)
        printf("%-34s %14lld %14lld %7.1f%% %9.3f ms%s\n", name, (long long)before,
               (long long)after, total ? 100.0 * (double)after / (double)total : 0.0, t * 1e3,
               rc != REDIST_SUCCESS || after != moved ? "  MISMATCH" : "");
    redist_layout_free(&src);
    redist_layout_free(&dst);
    redist_layout_free(&relabelled);
    free(ranks);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int r = 1;
    for (int d = 1; d * d <= np; d++)
        if (np % d == 0)
            r = d;
    int c = np / r;
    if (me == 0)
        printf("bench_relabel: %d ranks; elements moved between ranks\n%-34s %14s %14s %8s %12s\n",
               np, "case", "given labels", "relabelled", "of all", "relabel time");
    int64_t n2[2] = {6000, 6000}, n1[1] = {1 << 22};
    one_case("36x36 -> 128x128, same grid", 2, n2, (int64_t[]){36, 36}, (int[]){r, c}, NULL,
             (int64_t[]){128, 128}, (int[]){r, c}, NULL);
    one_case("64x64 on r x c -> 100x100 on c x r", 2, n2, (int64_t[]){64, 64}, (int[]){r, c}, NULL,
             (int64_t[]){100, 100}, (int[]){c, r}, NULL);
    one_case("block rows -> block columns", 2, n2, (int64_t[]){6000 / np + 1, 6000}, (int[]){np, 1},
             NULL, (int64_t[]){6000, 6000 / np + 1}, (int[]){1, np}, NULL);
    one_case("1-D cyclic(1) -> cyclic(3)", 1, n1, (int64_t[]){1}, (int[]){np}, NULL, (int64_t[]){3},
             (int[]){np}, NULL);
    one_case("1-D block, first 0 -> first 1", 1, n1, (int64_t[]){(1 << 22) / np + 1}, (int[]){np},
             NULL, (int64_t[]){(1 << 22) / np + 1}, (int[]){np}, (int[]){1});
    one_case("128x128 on r x c, first (1,1)", 2, n2, (int64_t[]){128, 128}, (int[]){r, c}, NULL,
             (int64_t[]){128, 128}, (int[]){r, c}, (int[]){1 % r, 1 % c});
    one_case("cyclic(64) -> block columns", 2, n2, (int64_t[]){64, 64}, (int[]){r, c}, NULL,
             (int64_t[]){6000, 6000 / np + 1}, (int[]){1, np}, NULL);
    MPI_Finalize();
    return 0;
}
