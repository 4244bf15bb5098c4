/* [TCR96] on real data: cyclic(x) -> cyclic(y) for every x, y in 1..12 on all P ranks,
 * with general, ky-to-y, x-to-kx, gcd and lcm, each with the synchronous and the
 * asynchronous receive method, N with partial blocks and smaller than one block, first
 * coordinate 0 or not. Every element checked; ky-to-y and x-to-kx must say NOT_APPLICABLE
 * (on every rank) exactly when x is not a multiple of y, or y of x.
 */
#include <redist.h>

#include "support/mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

static double value_of(int64_t g)
{
    return (double)g * 3.0 + 1.0;
}

static const char *const algorithms[] = {"general", "ky-to-y", "x-to-kx", "gcd", "lcm"};

static void run_case(int64_t n, int64_t x, int64_t y, int first, int rank, int P)
{
    redist_layout src = NULL, dst = NULL;
    int grid = P;
    redist_layout_create(1, &n, &x, &grid, &first, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, &n, &y, &grid, &first, NULL, REDIST_ROW_MAJOR, &dst);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &nd);
    double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(nd + 1) * sizeof *b);
    for (int64_t l = 0; l < ns; l++)
        a[l] = value_of(mtest_global_of(l, x, P, first, rank));
    for (int i = 0; i < 5; i++)
        for (int sync = 0; sync < 2; sync++) {
            redist_options opt;
            redist_options_init(&opt);
            opt.algorithm = algorithms[i];
            opt.synchronous_receive = sync;
            redist_plan plan = NULL;
            int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
            int expect_na = (i == 1 && x % y != 0) || (i == 2 && y % x != 0);
            if (expect_na != (rc == REDIST_ERR_NOT_APPLICABLE)) {
                errs++;
                printf("[%d] x=%lld y=%lld %s: plan_create %d (%s), expected %s\n", rank,
                       (long long)x, (long long)y, opt.algorithm, rc, redist_strerror(rc),
                       expect_na ? "NOT_APPLICABLE" : "success");
            }
            if (rc != REDIST_SUCCESS)
                continue;
            for (int64_t l = 0; l < nd; l++)
                b[l] = -1.0;
            if ((i + sync) % 2) {
                rc = redist_start(plan, a, b);
                int done = 0;
                while (rc == REDIST_SUCCESS && !done)
                    rc = redist_test(plan, &done);
            } else {
                rc = redist_execute(plan, a, b);
            }
            int64_t bad = 0;
            for (int64_t l = 0; l < nd; l++)
                bad += b[l] != value_of(mtest_global_of(l, y, P, first, rank));
            if (rc != REDIST_SUCCESS || bad) {
                errs++;
                printf("[%d] n=%lld x=%lld y=%lld first=%d %s sync=%d: rc %d, %lld wrong\n", rank,
                       (long long)n, (long long)x, (long long)y, first, opt.algorithm, sync, rc,
                       (long long)bad);
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
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int64_t x = 1; x <= 12; x++)
        for (int64_t y = 1; y <= 12; y++) {
            int64_t big = x * y * P * 3 + x + 1, small = (x < y ? x : y) - 1;
            run_case(big, x, y, 0, rank, P);
            run_case(small > 0 ? small : 1, x, y, P > 1 ? 1 : 0, rank, P);
        }
    return mtest_finalize(errs);
}
