/* consumer.c: a user program built against an INSTALLED redist (tests/consumer/README.md).
   A 2-D array of 45 x 38 doubles, 4 x 3 blocks on a P x 1 grid (column-major local arrays),
   goes to 5 x 7 blocks on a 1 x P grid whose first block column sits on the last process
   (row-major local arrays), once with the algorithm auto picks and once with `direct`.
   Every destination element is checked against the value its global index gives; rank 0
   prints "consumer (C): N elements checked, W wrong, ...". Exit status 0 only if W == 0 and
   every call succeeded.

   mpicc consumer.c $(pkg-config --cflags --libs redist) -o consumer && mpirun -n 3 ./consumer */
#include <redist.h>

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { M = 45, N = 38 };

/* Global index along one dimension of local index l on grid coordinate c. */
static int64_t global_of(int64_t l, int64_t block, int grid, int first, int c)
{
    int64_t rel = ((c - first) % grid + grid) % grid;
    return ((l / block) * grid + rel) * block + l % block;
}

static double value_of(int64_t i, int64_t j)
{
    return (double)i + 1000.0 * (double)j;
}

static int ok(int err, const char *what, int rank)
{
    if (err != REDIST_SUCCESS)
        fprintf(stderr, "consumer (C), rank %d: %s: %s: %s (%s)\n", rank, what,
                redist_error_name(err), redist_strerror(err), redist_last_error_detail());
    return err == REDIST_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int64_t extent[2] = {M, N}, ablock[2] = {4, 3}, bblock[2] = {5, 7};
    const int agrid[2] = {size, 1}, bgrid[2] = {1, size}, bfirst[2] = {0, size - 1};
    redist_layout la = NULL, lb = NULL;
    int good =
        ok(redist_layout_create(2, extent, ablock, agrid, NULL, NULL, REDIST_COL_MAJOR, &la),
           "source layout", rank) &&
        ok(redist_layout_create(2, extent, bblock, bgrid, bfirst, NULL, REDIST_ROW_MAJOR, &lb),
           "destination layout", rank);
    int64_t as[2] = {0, 0}, bs[2] = {0, 0}, na = 0, nb = 0;
    int ac[2] = {0, 0}, bc[2] = {0, 0};
    good = good && ok(redist_layout_local_shape(la, rank, as), "local shape", rank) &&
           ok(redist_layout_local_shape(lb, rank, bs), "local shape", rank) &&
           ok(redist_layout_local_size(la, rank, &na), "local size", rank) &&
           ok(redist_layout_local_size(lb, rank, &nb), "local size", rank) &&
           redist_layout_coords(la, rank, ac) == 1 && redist_layout_coords(lb, rank, bc) == 1;
    double *a = malloc((size_t)(na > 0 ? na : 1) * sizeof *a);
    double *b = malloc((size_t)(nb > 0 ? nb : 1) * sizeof *b);
    if (a == NULL || b == NULL)
        good = 0;
    for (int64_t j = 0; good && j < as[1]; j++) /* column-major source */
        for (int64_t i = 0; i < as[0]; i++)
            a[i + j * as[0]] = value_of(global_of(i, ablock[0], agrid[0], 0, ac[0]),
                                        global_of(j, ablock[1], agrid[1], 0, ac[1]));

    const char *algorithms[2] = {NULL, "direct"};
    int64_t checked = 0, wrong = 0;
    const char *used[2] = {"", ""};
    for (int k = 0; k < 2; k++) {
        int mine = good, all;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (!all) {
            good = 0;
            break;
        }
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = algorithms[k];
        redist_plan plan = NULL;
        if (!ok(redist_plan_create(la, lb, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan), "plan",
                rank)) {
            good = 0;
            break;
        }
        used[k] = redist_plan_algorithm(plan);
        for (int64_t e = 0; e < nb; e++)
            b[e] = -1.0;
        good = ok(redist_execute(plan, a, b), "execute", rank) && good;
        for (int64_t i = 0; good && i < bs[0]; i++) /* row-major destination */
            for (int64_t j = 0; j < bs[1]; j++) {
                int64_t gi = global_of(i, bblock[0], bgrid[0], bfirst[0], bc[0]);
                int64_t gj = global_of(j, bblock[1], bgrid[1], bfirst[1], bc[1]);
                checked++;
                wrong += b[i * bs[1] + j] != value_of(gi, gj);
            }
        good = ok(redist_plan_free(&plan), "plan free", rank) && good;
    }
    int mine = good, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &checked, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("consumer (C): %lld elements checked, %lld wrong, on %d ranks (auto chose %s, "
               "then %s)\n",
               (long long)checked, (long long)wrong, size, used[0], used[1]);
    redist_layout_free(&la);
    redist_layout_free(&lb);
    free(a);
    free(b);
    MPI_Finalize();
    return all && wrong == 0 && checked == 2 * (int64_t)M * N ? 0 : 1;
}
