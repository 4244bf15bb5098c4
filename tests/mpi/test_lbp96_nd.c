/* threads: 3 4 */
/* [LBP96]'s schedules dimension by dimension: 2-D and 3-D arrays on a process grid where
 * exactly one dimension goes cyclic(x) -> cyclic(Kx) (or back) and the others stay the same,
 * so every line of processes along that dimension is one R_x(K, P_dim) table. Every
 * algorithm, every element checked against its global index, both storage orders.
 */
#include <redist.h>

#include "support/mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

/* Fills (or checks) a local array: value = linear global index, row-major global order. */
static int64_t walk(redist_layout l, int nd, const int64_t *n, const int64_t *block,
                    const int *grid, const int *first, int order, int rank, double *a, int check)
{
    int64_t shape[3], count = 0, bad = 0;
    redist_layout_local_shape(l, rank, shape);
    redist_layout_local_size(l, rank, &count);
    int coords[3] = {0, 0, 0};
    if (redist_layout_coords(l, rank, coords) != 1)
        return 0;
    for (int64_t idx = 0; idx < count; idx++) {
        int64_t rem = idx, li[3], g = 0;
        if (order == REDIST_ROW_MAJOR)
            for (int k = nd - 1; k >= 0; k--) {
                li[k] = rem % shape[k];
                rem /= shape[k];
            }
        else
            for (int k = 0; k < nd; k++) {
                li[k] = rem % shape[k];
                rem /= shape[k];
            }
        for (int k = 0; k < nd; k++)
            g = g * n[k] + mtest_global_of(li[k], block[k], grid[k], first[k], coords[k]);
        if (check)
            bad += a[idx] != (double)g;
        else
            a[idx] = (double)g;
    }
    return bad;
}

/* The algorithms that must apply to a table case dimension by dimension (N-D, one dimension
   changing, K <= its grid, the same ranks, grid and first coordinates): [SD96]'s section
   algorithms where their case holds (mtest_sections_apply); [TCR96]'s dimension by dimension
   (ky-to-y where every source block is a multiple of the destination's, x-to-kx the converse,
   gcd and lcm always); all the others but the 1-D ones (multiphase, bmmc), which must not.
   Worked out here; a forced algorithm that should apply and refuses is a failure. */
static int several_nodes; /* the ranks span nodes (mtest_several_nodes): node-aware applies */

static int must_apply(const char *name, int nd, const int64_t *n, const int64_t *bs,
                      const int64_t *bd, const int *grid)
{
    int sections = mtest_sections_apply(name, nd, n, bs, grid, bd, grid);
    if (sections >= 0)
        return sections;
    int ky = 1, xk = 1;
    for (int k = 0; k < nd; k++) {
        ky &= bs[k] % bd[k] == 0;
        xk &= bd[k] % bs[k] == 0;
    }
    if (!strcmp(name, "ky-to-y"))
        return ky;
    if (!strcmp(name, "x-to-kx"))
        return xk;
    if (!strcmp(name, "node-aware")) /* ranks on several nodes only */
        return several_nodes;
    return strcmp(name, "multiphase") != 0 && strcmp(name, "bmmc") != 0 &&
           strncmp(name, "reduce-", 7) != 0 &&     /* partial sums only (options.reduce) */
           strcmp(name, "scatter-allgather") != 0; /* elements of several holders only */
}

static void run(int nd, const int64_t *n, const int *grid, const int *first, int dim, int64_t x,
                int64_t y, int order_src, int order_dst, int rank)
{
    int64_t bs[3] = {3, 2, 4}, bd[3] = {3, 2, 4};
    bs[dim] = x;
    bd[dim] = y;
    redist_layout src = NULL, dst = NULL;
    redist_layout_create(nd, n, bs, grid, first, NULL, order_src, &src);
    redist_layout_create(nd, n, bd, grid, first, NULL, order_dst, &dst);
    int64_t ns = 0, ndst = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &ndst);
    double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(ndst + 1) * sizeof *b);
    walk(src, nd, n, bs, grid, first, order_src, rank, a, 0);
    for (int i = 0; i < redist_algorithm_count(); i++) {
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = redist_algorithm_name(i);
        redist_plan plan = NULL;
        int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        int must = must_apply(opt.algorithm, nd, n, bs, bd, grid);
        if (rc == REDIST_ERR_NOT_APPLICABLE && !must)
            continue;
        if (rc != REDIST_ERR_NOT_APPLICABLE && !must) {
            errs++;
            printf("[%d] %s applies where it must not (rc %d)\n", rank, opt.algorithm, rc);
        }
        if (rc == REDIST_SUCCESS) {
            for (int64_t k = 0; k < ndst; k++)
                b[k] = -1;
            rc = redist_execute(plan, a, b);
        }
        int64_t bad =
            rc == REDIST_SUCCESS ? walk(dst, nd, n, bd, grid, first, order_dst, rank, b, 1) : -1;
        if (bad != 0) {
            errs++;
            printf("[%d] %dD dim %d: %lld -> %lld, %s: rc %d, %lld wrong\n", rank, nd, dim,
                   (long long)x, (long long)y, opt.algorithm, rc, (long long)bad);
        }
        redist_plan_free(&plan);
    }
    free(a);
    free(b);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    several_nodes = mtest_several_nodes(MPI_COMM_WORLD);
    /* Grids using the ranks: 2-D (p0 x p1) and 3-D with a trailing 1. */
    int p0 = size % 2 == 0 ? 2 : 1, p1 = size / p0;
    int grid2[2] = {p0, p1}, first2[2] = {0, p1 > 1 ? 1 : 0};
    int grid3[3] = {p0, 1, p1}, first3[3] = {p0 > 1 ? 1 : 0, 0, 0};
    int64_t n2[2] = {29, 41}, n3[3] = {7, 5, 23};
    for (int dim = 0; dim < 2; dim++)
        for (int64_t K = 1; K <= grid2[dim]; K++)
            for (int order = 0; order < 2; order++) {
                run(2, n2, grid2, first2, dim, 2, 2 * K, order, 1 - order, rank);
                run(2, n2, grid2, first2, dim, 2 * K, 2, order, order, rank);
            }
    for (int64_t K = 1; K <= grid3[2]; K++) {
        run(3, n3, grid3, first3, 2, 1, K, REDIST_ROW_MAJOR, REDIST_COL_MAJOR, rank);
        run(3, n3, grid3, first3, 2, K, 1, REDIST_COL_MAJOR, REDIST_COL_MAJOR, rank);
    }
    return mtest_finalize(errs);
}
