/* nprocs: 1 2 3 4 5 6 7 8 */
/* redist_alltoall against MPI_Alltoall and redist_shift against the expected result, for every
 * algorithm (plus NULL and "auto"), counts 0, 1, 7, 3000, MPI_INT and MPI_DOUBLE, every shift
 * in -p-1..2p, with distinct buffers and with sendbuf == recvbuf; plus error cases whose code must
 * be the same on every rank. Output: " No Errors" on success, else one line per failed check and "
 * Found N errors".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;

static const char *const a2a_algos[] = {NULL, "auto", "ring", "mesh", "hypercube", "pairwise"};
static const char *const shift_algos[] = {NULL, "auto", "ring", "mesh", "hypercube"};
static const int counts[] = {0, 1, 7, 3000};
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *nm(const char *a)
{
    return a ? a : "NULL";
}

/* The same code on every rank, and equal to want. */
static void expect_code(const char *what, int rc, int want)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi || rc != want) {
        printf("[rank %d] %s: rc = %d (%s), want %d, min %d max %d\n", rank, what, rc,
               redist_error_name(rc), want, lo, hi);
        errs++;
    }
}

static void fill(void *buf, MPI_Datatype t, int64_t n, int64_t base)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == MPI_INT)
            ((int *)buf)[i] = (int)(base + i);
        else
            ((double *)buf)[i] = (double)(base + i) + 0.5;
    }
}

static void test_alltoall(MPI_Datatype t, size_t es)
{
    for (int ci = 0; ci < N(counts); ci++) {
        int count = counts[ci];
        int64_t n = (int64_t)count * size;
        char *s = malloc(n * es + 1), *r = malloc(n * es + 1), *ref = malloc(n * es + 1);
        fill(s, t, n, (int64_t)rank * 1000003);
        MPI_Alltoall(s, count, t, ref, count, t, MPI_COMM_WORLD);
        for (int ai = 0; ai < N(a2a_algos); ai++) {
            memset(r, 0xff, n * es + 1);
            char what[128];
            snprintf(what, sizeof what, "alltoall %s count %d %s", nm(a2a_algos[ai]), count,
                     t == MPI_INT ? "int" : "double");
            int rc = redist_alltoall(s, r, count, t, MPI_COMM_WORLD, a2a_algos[ai]);
            expect_code(what, rc, REDIST_SUCCESS);
            if (rc == REDIST_SUCCESS && memcmp(r, ref, n * es) != 0) {
                printf("[rank %d] %s: wrong data\n", rank, what);
                errs++;
            }
        }
        free(s), free(r), free(ref);
    }
}

static void test_shift(MPI_Datatype t, size_t es)
{
    for (int ci = 0; ci < N(counts); ci++) {
        int count = counts[ci];
        char *s = malloc(count * es + 1), *r = malloc(count * es + 1),
             *ref = malloc(count * es + 1);
        fill(s, t, count, (int64_t)rank * 1000003);
        for (int sh = -size - 1; sh <= 2 * size; sh++) {
            int src = (int)((((int64_t)rank - sh) % size + size) % size);
            fill(ref, t, count, (int64_t)src * 1000003);
            for (int ai = 0; ai < N(shift_algos); ai++) {
                memset(r, 0xff, count * es + 1);
                char what[128];
                snprintf(what, sizeof what, "shift %s by %d count %d %s", nm(shift_algos[ai]), sh,
                         count, t == MPI_INT ? "int" : "double");
                int rc = redist_shift(s, r, count, t, sh, MPI_COMM_WORLD, shift_algos[ai]);
                expect_code(what, rc, REDIST_SUCCESS);
                if (rc == REDIST_SUCCESS && memcmp(r, ref, count * es) != 0) {
                    printf("[rank %d] %s: wrong data\n", rank, what);
                    errs++;
                }
                /* The same buffer for both: the block is replaced in place. */
                memcpy(r, s, count * es);
                rc = redist_shift(r, r, count, t, sh, MPI_COMM_WORLD, shift_algos[ai]);
                expect_code(what, rc, REDIST_SUCCESS);
                if (rc == REDIST_SUCCESS && memcmp(r, ref, count * es) != 0) {
                    printf("[rank %d] %s, sendbuf == recvbuf: wrong data\n", rank, what);
                    errs++;
                }
            }
        }
        free(s), free(r), free(ref);
    }
}

static void test_errors(void)
{
    int s[64] = {0}, r[64];
    expect_code("alltoall count -1", redist_alltoall(s, r, -1, MPI_INT, MPI_COMM_WORLD, NULL),
                REDIST_ERR_ARG);
    expect_code("shift count -1", redist_shift(s, r, -1, MPI_INT, 1, MPI_COMM_WORLD, "ring"),
                REDIST_ERR_ARG);
    /* only rank 0 passes count -1: still the same code everywhere */
    expect_code("alltoall count -1 on rank 0",
                redist_alltoall(s, r, rank == 0 ? -1 : 1, MPI_INT, MPI_COMM_WORLD, "ring"),
                REDIST_ERR_ARG);
    expect_code(
        "shift NULL sendbuf on the last rank",
        redist_shift(rank == size - 1 ? NULL : s, r, 1, MPI_INT, 1, MPI_COMM_WORLD, "hypercube"),
        REDIST_ERR_ARG);
    expect_code("alltoall NULL recvbuf",
                redist_alltoall(s, NULL, 1, MPI_INT, MPI_COMM_WORLD, "pairwise"), REDIST_ERR_ARG);
    expect_code("alltoall invalid type",
                redist_alltoall(s, r, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, NULL), REDIST_ERR_ARG);
    expect_code("alltoall unknown algorithm",
                redist_alltoall(s, r, 1, MPI_INT, MPI_COMM_WORLD, "bogus"),
                REDIST_ERR_UNKNOWN_ALGORITHM);
    expect_code("shift unknown algorithm",
                redist_shift(s, r, 1, MPI_INT, 1, MPI_COMM_WORLD, "pairwise"),
                REDIST_ERR_UNKNOWN_ALGORITHM);
    expect_code("shift comm null", redist_shift(s, r, 1, MPI_INT, 1, MPI_COMM_NULL, NULL),
                REDIST_ERR_ARG);
    /* count 0 with NULL buffers is fine */
    expect_code("alltoall count 0 NULL",
                redist_alltoall(NULL, NULL, 0, MPI_INT, MPI_COMM_WORLD, "mesh"), REDIST_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_alltoall(MPI_INT, sizeof(int));
    test_alltoall(MPI_DOUBLE, sizeof(double));
    test_shift(MPI_INT, sizeof(int));
    test_shift(MPI_DOUBLE, sizeof(double));
    test_errors();
    return mtest_finalize(errs);
}
