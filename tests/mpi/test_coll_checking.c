/* nprocs: 1 2 3 4 5 7 8 */
/* redist_coll_set_checking (redist.h): the per-call argument agreement of the basic
 * operations, switched off and on per communicator.
 *
 * 1. on = 2: REDIST_ERR_ARG on every rank; `on` differing between ranks: REDIST_ERR_MISMATCH
 *    on every rank, and checking stays on (a count that differs still gives MISMATCH).
 * 2. Checking off on a duplicate of MPI_COMM_WORLD: every operation (auto and every one of its
 *    algorithms that applies) gives MPI's result, element by element, for counts 1 and 37 of
 *    MPI_INT and every root; a bad argument passed on every rank (count -1) is still
 *    REDIST_ERR_ARG on every rank.
 * 3. The setting is per communicator: MPI_COMM_WORLD still agrees (MISMATCH for a differing
 *    count) while the duplicate does not; switched back on, the duplicate agrees again.
 * Every return code that must be the same on every rank is checked to be so.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;

static void expect_all(int rc, int want, const char *what)
{
    if (!mtest_all_same(rc))
        mtest_fail(&errs, rank, what, "codes differ between ranks");
    if (rc != want)
        mtest_fail(&errs, rank, what, "%s, want %s", redist_strerror(rc), redist_strerror(want));
}

static void same_ints(const int *got, const int *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i]) {
            mtest_fail(&errs, rank, what, "element %d is %d, want %d", i, got[i], want[i]);
            return;
        }
}

/* One call of operation op with algorithm alg on comm, count n, root; the result against
   MPI's. A NOT_APPLICABLE algorithm (on every rank) is skipped. */
static void run_op(const char *op, const char *alg, MPI_Comm comm, int n, int root)
{
    int p = size, all = n * p;
    int *send = malloc(sizeof(int) * (size_t)all), *got = malloc(sizeof(int) * (size_t)all);
    int *want = malloc(sizeof(int) * (size_t)all);
    for (int i = 0; i < all; i++)
        send[i] = 1000 * rank + i + 1;
    memset(got, 0, sizeof(int) * (size_t)all);
    memset(want, 0, sizeof(int) * (size_t)all);
    int rc = REDIST_SUCCESS, check = n; /* elements of the result to compare */
    if (!strcmp(op, "bcast")) {
        memcpy(got, send, sizeof(int) * (size_t)n);
        memcpy(want, send, sizeof(int) * (size_t)n);
        rc = redist_bcast(got, n, MPI_INT, root, comm, alg);
        MPI_Bcast(want, n, MPI_INT, root, comm);
    } else if (!strcmp(op, "reduce")) {
        rc = redist_reduce(send, got, n, MPI_INT, MPI_SUM, root, comm, alg);
        MPI_Reduce(send, want, n, MPI_INT, MPI_SUM, root, comm);
        check = rank == root ? n : 0;
    } else if (!strcmp(op, "allreduce")) {
        rc = redist_allreduce(send, got, n, MPI_INT, MPI_SUM, comm, alg);
        MPI_Allreduce(send, want, n, MPI_INT, MPI_SUM, comm);
    } else if (!strcmp(op, "scan")) {
        rc = redist_scan(send, got, n, MPI_INT, MPI_SUM, comm, alg);
        MPI_Scan(send, want, n, MPI_INT, MPI_SUM, comm);
    } else if (!strcmp(op, "scatter")) {
        rc = redist_scatter(send, got, n, MPI_INT, root, comm, alg);
        MPI_Scatter(send, n, MPI_INT, want, n, MPI_INT, root, comm);
    } else if (!strcmp(op, "gather")) {
        rc = redist_gather(send, got, n, MPI_INT, root, comm, alg);
        MPI_Gather(send, n, MPI_INT, want, n, MPI_INT, root, comm);
        check = rank == root ? all : 0;
    } else if (!strcmp(op, "allgather")) {
        rc = redist_allgather(send, got, n, MPI_INT, comm, alg);
        MPI_Allgather(send, n, MPI_INT, want, n, MPI_INT, comm);
        check = all;
    } else if (!strcmp(op, "reduce_scatter")) {
        rc = redist_reduce_scatter(send, got, n, MPI_INT, MPI_SUM, comm, alg);
        MPI_Reduce_scatter_block(send, want, n, MPI_INT, MPI_SUM, comm);
    } else if (!strcmp(op, "alltoall")) {
        rc = redist_alltoall(send, got, n, MPI_INT, comm, alg);
        MPI_Alltoall(send, n, MPI_INT, want, n, MPI_INT, comm);
        check = all;
    } else { /* shift by root + 1 */
        rc = redist_shift(send, got, n, MPI_INT, root + 1, comm, alg);
        MPI_Sendrecv(send, n, MPI_INT, (rank + root + 1) % p, 0, want, n, MPI_INT,
                     ((rank - root - 1) % p + p) % p, 0, comm, MPI_STATUS_IGNORE);
    }
    char what[96];
    snprintf(what, sizeof what, "checking off: %s %s n=%d root=%d", op, alg ? alg : "NULL", n,
             root);
    if (!mtest_all_same(rc))
        mtest_fail(&errs, rank, what, "codes differ between ranks");
    if (rc == REDIST_SUCCESS)
        same_ints(got, want, check, what);
    else if (rc != REDIST_ERR_NOT_APPLICABLE)
        mtest_fail(&errs, rank, what, "%s", redist_strerror(rc));
    free(send);
    free(got);
    free(want);
}

static const char *const ops[] = {"bcast",  "reduce",    "allreduce",      "scan",     "scatter",
                                  "gather", "allgather", "reduce_scatter", "alltoall", "shift"};

static void every_operation(MPI_Comm comm)
{
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int n = 1; n <= 37; n += 36)
            for (int root = 0; root < size; root++) {
                run_op(ops[o], NULL, comm, n, root);
                for (int i = 0; redist_coll_algorithm_name(ops[o], i) != NULL; i++)
                    run_op(ops[o], redist_coll_algorithm_name(ops[o], i), comm, n, root);
            }
}

/* A bcast whose count differs on the last rank: MISMATCH where checking is on. */
static int differing_count(MPI_Comm comm)
{
    int buf[4] = {0};
    return redist_bcast(buf, rank == size - 1 ? 3 : 2, MPI_INT, 0, comm, NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    expect_all(redist_coll_set_checking(dup, 2), REDIST_ERR_ARG, "on = 2");
    if (size > 1) {
        expect_all(redist_coll_set_checking(dup, rank == 0 ? 0 : 1), REDIST_ERR_MISMATCH,
                   "on differing between ranks");
        expect_all(differing_count(dup), REDIST_ERR_MISMATCH, "still checking after mismatch");
    }

    expect_all(redist_coll_set_checking(dup, 0), REDIST_SUCCESS, "switch off");
    every_operation(dup);
    int buf[2] = {0};
    expect_all(redist_bcast(buf, -1, MPI_INT, 0, dup, NULL), REDIST_ERR_ARG,
               "checking off: count -1 on every rank");
    if (size > 1)
        expect_all(differing_count(MPI_COMM_WORLD), REDIST_ERR_MISMATCH,
                   "MPI_COMM_WORLD still checks");

    expect_all(redist_coll_set_checking(dup, 1), REDIST_SUCCESS, "switch on");
    if (size > 1)
        expect_all(differing_count(dup), REDIST_ERR_MISMATCH, "checking again");
    every_operation(dup);

    MPI_Comm_free(&dup);
    return mtest_finalize(errs);
}
