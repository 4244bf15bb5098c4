/* The bad-input catalogue (tests/mpi/test_catalogue.c): the calls made outside MPI's lifetime,
 * before MPI_Init and after MPI_Finalize. */
#include "catalogue.h"

/* ---- outside MPI's lifetime: before MPI_Init, after MPI_Finalize ------------------------- */

/* Every collective entry point returns REDIST_ERR_MPI, at once, without calling MPI (which
   would be erroneous); local ones work. The calls go through MPI_COMM_WORLD and MPI_INT,
   whose handles are constants. */
enum {
    OUT_BCAST,
    OUT_ALLREDUCE,
    OUT_REDUCE,
    OUT_SET_CHECKING,
    OUT_RELABEL,
    OUT_PLAN,
    OUT_BATCH,
    OUT_INTER,
    OUT_BMMC,
    OUT_EXECUTE_NULL,
    OUT_FREE_NULL_HANDLE,
    OUT_LAYOUT
};
_Static_assert(OUT_LAYOUT + 1 == NOUT, "catalogue.h's NOUT counts the calls");
static const struct {
    const char *what;
    int want;
} outside[NOUT] = {
    {"redist_bcast", REDIST_ERR_MPI},
    {"redist_allreduce", REDIST_ERR_MPI},
    {"redist_reduce", REDIST_ERR_MPI},
    {"redist_coll_set_checking", REDIST_ERR_MPI},
    {"redist_relabel", REDIST_ERR_MPI},
    {"redist_plan_create", REDIST_ERR_MPI},
    {"redist_plan_create_batch", REDIST_ERR_MPI},
    {"redist_plan_create_inter", REDIST_ERR_MPI},
    {"redist_plan_create_bmmc", REDIST_ERR_MPI},
    {"redist_execute(NULL plan)", REDIST_ERR_ARG},
    {"redist_plan_free(&NULL handle)", REDIST_SUCCESS},
    {"redist_layout_create, _local_size, _free (local)", REDIST_SUCCESS},
};

void outside_mpi(int rc[NOUT], int handles_set[NOUT])
{
    int64_t n = 16, b = 2, count = 0;
    int grid = 1, buf[4] = {0}, out[1];
    uint64_t cols[4];
    redist_bmmc_identity(4, cols);
    redist_layout l = NULL;
    redist_layout_create(1, &n, &b, &grid, NULL, NULL, REDIST_ROW_MAJOR, &l);
    MPI_Datatype types[1] = {MPI_INT};
    for (int i = 0; i < NOUT; i++) {
        redist_plan plan = garbage();
        handles_set[i] = 0;
        switch (i) {
        case OUT_BCAST:
            rc[i] = redist_bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL);
            break;
        case OUT_ALLREDUCE:
            rc[i] = redist_allreduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL);
            break;
        case OUT_REDUCE:
            rc[i] = redist_reduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, NULL);
            break;
        case OUT_SET_CHECKING:
            rc[i] = redist_coll_set_checking(MPI_COMM_WORLD, 1);
            break;
        case OUT_RELABEL:
            rc[i] = redist_relabel(l, l, MPI_COMM_WORLD, out, NULL, NULL);
            break;
        case OUT_PLAN:
            rc[i] = redist_plan_create(l, l, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_BATCH:
            rc[i] = redist_plan_create_batch(1, &l, &l, types, MPI_COMM_WORLD, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_INTER:
            rc[i] = redist_plan_create_inter(l, l, MPI_INT, MPI_COMM_WORLD, 1, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_BMMC:
            rc[i] = redist_plan_create_bmmc(4, 0, cols, 0, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_EXECUTE_NULL:
            rc[i] = redist_execute(NULL, buf, buf + 1);
            break;
        case OUT_FREE_NULL_HANDLE:
            plan = NULL;
            rc[i] = redist_plan_free(&plan);
            break;
        case OUT_LAYOUT:
            rc[i] = l == NULL ? REDIST_ERR_ARG : redist_layout_local_size(l, 0, &count);
            if (rc[i] == REDIST_SUCCESS && count != 16)
                rc[i] = NOT_AS_DOCUMENTED;
            break;
        }
    }
    redist_layout_free(&l);
}

/* Returns the number of calls that did not do as documented (printed, with `when`). */
int report_outside(const char *when, const int rc[NOUT], const int handles_set[NOUT])
{
    int bad = 0;
    for (int i = 0; i < NOUT; i++) {
        if (rc[i] != outside[i].want || handles_set[i]) {
            printf("[rank %d] %s: %s returned %s (expected %s)%s\n", rank, when, outside[i].what,
                   redist_error_name(rc[i]), redist_error_name(outside[i].want),
                   handles_set[i] ? ", and *plan is not NULL" : "");
            bad++;
        }
    }
    fflush(stdout);
    return bad;
}
