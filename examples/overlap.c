/* overlap: computing while a redistribution is in flight, and one plan reused every time
 * step, for codes with a time loop whose phases want the data distributed differently (e.g.
 * by rows for one sweep, by columns for the next, as ADI solvers and spectral codes do).
 *
 * Each step, a ROWS x COLS matrix of doubles held in blocks of rows (row-major) goes to blocks
 * of columns (column-major) over the same ranks:
 *
 *     redist_start(plan, a, b)                 posts the messages and returns at once
 *     while not done:
 *         compute one chunk of other work      here: the next step's matrix, into a second
 *         redist_test(plan, &done)             buffer; test moves whatever has arrived
 *     redist_wait(plan)                        (when the work ran out first)
 *
 * Between redist_start and completion the source must stay unchanged and the destination
 * untouched, so the work goes to other memory: the two source buffers alternate. The plan is
 * created once, before the loop: creating it is the expensive part (index computation and an
 * agreement among the ranks), an execution only moves data. Step s's element (i, j) holds
 * (s ROWS + i) COLS + j, and every rank checks every element it receives, every step.
 *
 *     mpiexec -n 4 build/examples/overlap [-n ROWSxCOLS] [-s STEPS]
 */
#include <redist.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(int rc, const char *what)
{
    if (rc == REDIST_SUCCESS)
        return;
    fprintf(stderr, "overlap: %s: %s (%s)\n", what, redist_strerror(rc),
            redist_last_error_detail());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int usage(int rank, const char *prog)
{
    if (rank == 0)
        fprintf(stderr, "usage: %s [-n ROWSxCOLS] [-s STEPS]\n", prog);
    MPI_Finalize();
    return 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);

    long long rows = 200, cols = 300, steps = 20;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage(rank, argv[0]);
        if (strcmp(argv[i], "-n") == 0 && sscanf(argv[i + 1], "%lldx%lld", &rows, &cols) == 2)
            continue;
        if (strcmp(argv[i], "-s") == 0)
            steps = atoll(argv[i + 1]);
        else
            return usage(rank, argv[0]);
    }
    if (rows < 0 || cols < 0 || steps < 1)
        return usage(rank, argv[0]);

    /* Blocks of rows: grid P x 1, block ceil(ROWS / P) x COLS. Blocks of columns: grid 1 x P. */
    int64_t n[2] = {rows, cols};
    int64_t row_block = rows > 0 ? (rows + P - 1) / P : 1;
    int64_t col_block = cols > 0 ? (cols + P - 1) / P : 1;
    redist_layout by_rows, by_cols;
    check(redist_layout_create(2, n, (int64_t[]){row_block, cols > 0 ? cols : 1}, (int[]){P, 1},
                               NULL, NULL, REDIST_ROW_MAJOR, &by_rows),
          "redist_layout_create");
    check(redist_layout_create(2, n, (int64_t[]){rows > 0 ? rows : 1, col_block}, (int[]){1, P},
                               NULL, NULL, REDIST_COL_MAJOR, &by_cols),
          "redist_layout_create");
    int64_t src_shape[2], dst_shape[2];
    check(redist_layout_local_shape(by_rows, rank, src_shape), "redist_layout_local_shape");
    check(redist_layout_local_shape(by_cols, rank, dst_shape), "redist_layout_local_shape");
    int64_t my_rows = src_shape[0], my_cols = dst_shape[1];
    int64_t first_row = rank * row_block, first_col = rank * col_block; /* block distribution */

    double *a[2], *b;
    a[0] = malloc((size_t)(my_rows * cols + 1) * sizeof(double));
    a[1] = malloc((size_t)(my_rows * cols + 1) * sizeof(double));
    b = malloc((size_t)(rows * my_cols + 1) * sizeof(double));
    if (a[0] == NULL || a[1] == NULL || b == NULL)
        check(REDIST_ERR_NOMEM, "malloc");

    /* Plan once. */
    double t = MPI_Wtime();
    redist_plan plan;
    check(redist_plan_create(by_rows, by_cols, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan),
          "redist_plan_create");
    double t_plan = MPI_Wtime() - t;

    /* Step 0's matrix; in the loop each step's is made while the previous one moves. */
    for (int64_t i = 0; i < my_rows; i++)
        for (int64_t j = 0; j < cols; j++)
            a[0][i * cols + j] = (double)((first_row + i) * cols + j);

    int64_t wrong = 0, chunks_overlapped = 0, chunks = 0;
    t = MPI_Wtime();
    for (long long s = 0; s < steps; s++) {
        const double *src = a[s % 2];
        double *next = a[(s + 1) % 2];
        check(redist_start(plan, src, b), "redist_start");

        /* The work: step s + 1's matrix, one local row per chunk. After each chunk,
           redist_test lets the library progress (and tells us when it is done). */
        int done = 0;
        for (int64_t i = 0; i < my_rows; i++) {
            for (int64_t j = 0; j < cols; j++)
                next[i * cols + j] = (double)(((s + 1) * rows + first_row + i) * cols + j);
            chunks++;
            if (!done) {
                chunks_overlapped++;
                check(redist_test(plan, &done), "redist_test");
            }
        }
        check(redist_wait(plan), "redist_wait"); /* returns at once if already done */

        /* b: this rank's columns, column-major: element (i, j) at b[j * rows + i]. */
        for (int64_t j = 0; j < my_cols; j++)
            for (int64_t i = 0; i < rows; i++)
                wrong += b[j * rows + i] != (double)((s * rows + i) * cols + first_col + j);
    }
    double t_step = (MPI_Wtime() - t) / (double)steps;

    double times[2] = {t_plan, t_step};
    MPI_Allreduce(MPI_IN_PLACE, times, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int64_t counts[3] = {wrong, chunks_overlapped, chunks};
    MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("overlap: %lld x %lld doubles, rows -> columns on %d rank(s), %lld steps with "
               "one plan (%s)\n",
               rows, cols, P, steps, redist_plan_algorithm(plan));
        printf("  plan %.1f us once, %.1f us per step; %lld of %lld chunks of work ran while "
               "data was in flight\n",
               times[0] * 1e6, times[1] * 1e6, (long long)counts[1], (long long)counts[2]);
        if (counts[0] == 0)
            printf("overlap: verified: every element right in every step (%lld elements per "
                   "step)\n",
                   rows * cols);
        else
            printf("overlap: FAILED: %lld wrong elements\n", (long long)counts[0]);
    }

    check(redist_plan_free(&plan), "redist_plan_free");
    redist_layout_free(&by_rows);
    redist_layout_free(&by_cols);
    free(a[0]);
    free(a[1]);
    free(b);
    MPI_Finalize();
    return counts[0] == 0 ? 0 : 1;
}
