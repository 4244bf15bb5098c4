/* The cost of one execute called from C, for the Python package's overhead
 * (python/bench/overhead.py runs this program and reports both): a tiny 8 x 8 re-blocking of
 * doubles ((2, 2) -> (4, 4) blocks) on one rank, the plan made once; 20000 executes per
 * round, the median of 5 rounds, printed as microseconds per execute.
 *
 *   build/bench_call [executes per round]      (no mpiexec needed: one rank)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"
#include "redist.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    if (n < 1)
        n = 20000;
    int64_t extent[2] = {8, 8}, b1[2] = {2, 2}, b2[2] = {4, 4};
    int grid[2] = {1, 1};
    redist_layout src = NULL, dst = NULL;
    redist_plan plan = NULL;
    double a[64], b[64], rounds[5];
    for (int i = 0; i < 64; i++)
        a[i] = i;
    int rc = redist_layout_create(2, extent, b1, grid, NULL, NULL, REDIST_ROW_MAJOR, &src);
    if (rc == REDIST_SUCCESS)
        rc = redist_layout_create(2, extent, b2, grid, NULL, NULL, REDIST_ROW_MAJOR, &dst);
    if (rc == REDIST_SUCCESS)
        rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_SELF, NULL, &plan);
    for (int r = 0; rc == REDIST_SUCCESS && r < 5; r++) {
        double t = MPI_Wtime();
        for (int i = 0; i < n && rc == REDIST_SUCCESS; i++)
            rc = redist_execute(plan, a, b);
        rounds[r] = (MPI_Wtime() - t) / n;
    }
    if (rc != REDIST_SUCCESS)
        fprintf(stderr, "bench_call: %s (%s)\n", redist_strerror(rc), redist_last_error_detail());
    else
        printf("redist_execute from C: %.3f us per execute (8 x 8 doubles, median of 5 rounds of "
               "%d)\n",
               bench_median(rounds, 5) * 1e6, n);
    redist_plan_free(&plan);
    redist_layout_free(&src);
    redist_layout_free(&dst);
    MPI_Finalize();
    return rc != REDIST_SUCCESS;
}
