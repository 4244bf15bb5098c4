/* nprocs: 1 2 3 4 5 6 7 8 */
/* redist_bcast, redist_reduce, redist_allreduce and redist_scan ([GGKK03]) against MPI's own
 * collectives: every algorithm name (plus NULL and "auto") x every root x counts 0, 1, 7 and
 * 10000, MPI_INT / MPI_DOUBLE with MPI_SUM / MPI_MAX, and a user-defined non-commutative op
 * (2 x 2 matrix product mod 256, packed in one int) whose result depends on rank order.
 * Plus error cases: the same negative code on every rank.
 * Output: " No Errors" on success, else one line per failed check and " Found N errors".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;

enum { T_INT_SUM, T_INT_MAX, T_DBL_SUM, T_DBL_MAX, T_MATMUL, NCASES };
static MPI_Op matop;

static void setup(int cs, MPI_Datatype *t, MPI_Op *op, size_t *es, const char **name)
{
    static const char *names[] = {"int sum", "int max", "double sum", "double max", "matmul"};
    *name = names[cs];
    *t = (cs == T_DBL_SUM || cs == T_DBL_MAX) ? MPI_DOUBLE : MPI_INT;
    *es = *t == MPI_DOUBLE ? sizeof(double) : sizeof(int);
    *op = cs == T_MATMUL ? matop : (cs == T_INT_MAX || cs == T_DBL_MAX) ? MPI_MAX : MPI_SUM;
}

static void fill(void *buf, int cs, int64_t n, int who, int salt)
{
    for (int64_t i = 0; i < n; i++) {
        int v = (int)((who * 37 + i * 11 + salt * 5) % 1000) - 300;
        if (cs == T_DBL_SUM || cs == T_DBL_MAX)
            ((double *)buf)[i] = v;
        else if (cs == T_MATMUL) {
            unsigned m00 = (unsigned)(who + i) & 255, m01 = (unsigned)(who * 3 + 1) & 255;
            unsigned m10 = (unsigned)(i * 5 + who + salt) & 255,
                     m11 = ((unsigned)(who ^ i) & 255) | 1;
            ((unsigned *)buf)[i] = m00 | m01 << 8 | m10 << 16 | m11 << 24;
        } else
            ((int *)buf)[i] = v;
    }
}

static void check(const char *what, const char *algo, int cs, int64_t n, int root, int rc,
                  const void *got, const void *want, size_t bytes)
{
    const char *cname;
    MPI_Datatype t;
    MPI_Op op;
    size_t es;
    setup(cs, &t, &op, &es, &cname);
    if (rc != REDIST_SUCCESS) {
        printf("[rank %d] %s %s %s n=%lld root=%d: rc %d (%s)\n", rank, what, algo ? algo : "NULL",
               cname, (long long)n, root, rc, redist_strerror(rc));
        errs++;
    } else if (bytes > 0 && memcmp(got, want, bytes) != 0) {
        printf("[rank %d] %s %s %s n=%lld root=%d: wrong data\n", rank, what, algo ? algo : "NULL",
               cname, (long long)n, root);
        errs++;
    }
}

static const int64_t counts[] = {0, 1, 7, 10000};
#define NCOUNTS 4

static void test_bcast(void *a, void *b)
{
    const char *algos[] = {"tree", "ring", "mesh", "scatter-allgather", NULL, "auto"};
    for (int cs = T_INT_SUM; cs <= T_DBL_SUM; cs += 2)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ai = 0; ai < 6; ai++)
                for (int root = 0; root < size; root++) {
                    const char *cname;
                    MPI_Datatype t;
                    MPI_Op op;
                    size_t es;
                    setup(cs, &t, &op, &es, &cname);
                    int64_t n = counts[ci];
                    fill(a, cs, n, rank == root ? 1000 + root : rank, ai);
                    fill(b, cs, n, rank == root ? 1000 + root : rank, ai);
                    int rc = redist_bcast(a, n, t, root, MPI_COMM_WORLD, algos[ai]);
                    MPI_Bcast(b, (int)n, t, root, MPI_COMM_WORLD);
                    check("bcast", algos[ai], cs, n, root, rc, a, b, (size_t)n * es);
                }
}

static void test_reduce(void *s, void *a, void *b)
{
    const char *algos[] = {"tree", "ring", "reduce_scatter-gather", NULL, "auto"};
    for (int cs = 0; cs < NCASES; cs++)
        for (int ci = 0; ci < NCOUNTS; ci++)
            for (int ai = 0; ai < 5; ai++)
                for (int root = 0; root < size; root++) {
                    const char *cname;
                    MPI_Datatype t;
                    MPI_Op op;
                    size_t es;
                    setup(cs, &t, &op, &es, &cname);
                    int64_t n = counts[ci];
                    fill(s, cs, n, rank, root + ai);
                    memset(a, 0, (size_t)n * es);
                    memset(b, 0, (size_t)n * es);
                    int rc = redist_reduce(s, a, n, t, op, root, MPI_COMM_WORLD, algos[ai]);
                    MPI_Reduce(s, b, (int)n, t, op, root, MPI_COMM_WORLD);
                    check("reduce", algos[ai], cs, n, root, rc, a, b,
                          rank == root ? (size_t)n * es : 0);
                }
}

static void test_allreduce_scan(void *s, void *a, void *b)
{
    const char *aalgos[] = {"hypercube", "reduce-bcast", "reduce_scatter-allgather", NULL, "auto"};
    const char *salgos[] = {"hypercube", "ring", NULL, "auto"};
    for (int cs = 0; cs < NCASES; cs++)
        for (int ci = 0; ci < NCOUNTS; ci++) {
            const char *cname;
            MPI_Datatype t;
            MPI_Op op;
            size_t es;
            setup(cs, &t, &op, &es, &cname);
            int64_t n = counts[ci];
            for (int ai = 0; ai < 5; ai++) {
                fill(s, cs, n, rank, ai);
                memset(a, 0, (size_t)n * es);
                int rc = redist_allreduce(s, a, n, t, op, MPI_COMM_WORLD, aalgos[ai]);
                MPI_Allreduce(s, b, (int)n, t, op, MPI_COMM_WORLD);
                check("allreduce", aalgos[ai], cs, n, -1, rc, a, b, (size_t)n * es);
            }
            for (int ai = 0; ai < 4; ai++) {
                fill(s, cs, n, rank, ai + 7);
                memset(a, 0, (size_t)n * es);
                int rc = redist_scan(s, a, n, t, op, MPI_COMM_WORLD, salgos[ai]);
                MPI_Scan(s, b, (int)n, t, op, MPI_COMM_WORLD);
                check("scan", salgos[ai], cs, n, -1, rc, a, b, (size_t)n * es);
            }
        }
    /* MPI_IN_PLACE for allreduce and scan. */
    fill(a, T_MATMUL, 7, rank, 3);
    fill(s, T_MATMUL, 7, rank, 3);
    int rc = redist_allreduce(MPI_IN_PLACE, a, 7, MPI_INT, matop, MPI_COMM_WORLD, NULL);
    MPI_Allreduce(s, b, 7, MPI_INT, matop, MPI_COMM_WORLD);
    check("allreduce in place", NULL, T_MATMUL, 7, -1, rc, a, b, 7 * sizeof(int));
    fill(a, T_INT_SUM, 7, rank, 4);
    rc = redist_scan(MPI_IN_PLACE, a, 7, MPI_INT, MPI_SUM, MPI_COMM_WORLD, "ring");
    fill(s, T_INT_SUM, 7, rank, 4);
    MPI_Scan(s, b, 7, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check("scan in place", "ring", T_INT_SUM, 7, -1, rc, a, b, 7 * sizeof(int));
}

/* MPI_IN_PLACE with every algorithm of reduce (at each root), allreduce and scan: the copy
   of recvbuf and the algorithm's buffers share one workspace, allocated before the
   agreement; an order-sensitive op and counts 7 and 10000 check that they do not overlap. */
static void test_in_place(void *s, void *a, void *b)
{
    const char *ralgos[] = {"tree", "ring", "reduce_scatter-gather"};
    const char *aalgos[] = {"hypercube", "reduce-bcast", "reduce_scatter-allgather"};
    const char *salgos[] = {"hypercube", "ring"};
    for (int ci = 2; ci < NCOUNTS; ci++) {
        int64_t n = counts[ci];
        size_t bytes = (size_t)n * sizeof(int);
        for (int ai = 0; ai < 3; ai++)
            for (int root = 0; root < size; root++) {
                fill(s, T_MATMUL, n, rank, root + 5 * ai);
                memcpy(a, s, bytes);
                int rc = redist_reduce(rank == root ? MPI_IN_PLACE : s, a, n, MPI_INT, matop, root,
                                       MPI_COMM_WORLD, ralgos[ai]);
                MPI_Reduce(s, b, (int)n, MPI_INT, matop, root, MPI_COMM_WORLD);
                check("reduce in place", ralgos[ai], T_MATMUL, n, root, rc, a, b,
                      rank == root ? bytes : 0);
            }
        for (int ai = 0; ai < 3; ai++) {
            fill(s, T_MATMUL, n, rank, 11 + ai);
            memcpy(a, s, bytes);
            int rc =
                redist_allreduce(MPI_IN_PLACE, a, n, MPI_INT, matop, MPI_COMM_WORLD, aalgos[ai]);
            MPI_Allreduce(s, b, (int)n, MPI_INT, matop, MPI_COMM_WORLD);
            check("allreduce in place", aalgos[ai], T_MATMUL, n, -1, rc, a, b, bytes);
        }
        for (int ai = 0; ai < 2; ai++) {
            fill(s, T_MATMUL, n, rank, 17 + ai);
            memcpy(a, s, bytes);
            int rc = redist_scan(MPI_IN_PLACE, a, n, MPI_INT, matop, MPI_COMM_WORLD, salgos[ai]);
            MPI_Scan(s, b, (int)n, MPI_INT, matop, MPI_COMM_WORLD);
            check("scan in place", salgos[ai], T_MATMUL, n, -1, rc, a, b, bytes);
        }
    }
}

/* rc must be `want` on every rank. */
static void expect(const char *what, int rc, int want)
{
    int lo, hi;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi || rc != want) {
        printf("[rank %d] %s: rc %d (min %d max %d), want %d\n", rank, what, rc, lo, hi, want);
        errs++;
    }
}

static void test_errors(int *s, int *a)
{
    expect("bcast root = size", redist_bcast(a, 4, MPI_INT, size, MPI_COMM_WORLD, NULL),
           REDIST_ERR_ARG);
    expect("bcast root -1 on rank 0 only",
           redist_bcast(a, 4, MPI_INT, rank == 0 ? -1 : 0, MPI_COMM_WORLD, NULL), REDIST_ERR_ARG);
    expect("reduce root = size",
           redist_reduce(s, a, 4, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD, "tree"), REDIST_ERR_ARG);
    expect("reduce MPI_OP_NULL",
           redist_reduce(s, a, 4, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD, NULL), REDIST_ERR_ARG);
    expect(
        "allreduce count -1 on last rank",
        redist_allreduce(s, a, rank == size - 1 ? -1 : 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL),
        REDIST_ERR_ARG);
    expect("allreduce NULL recvbuf",
           redist_allreduce(s, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), REDIST_ERR_ARG);
    expect("scan MPI_DATATYPE_NULL",
           redist_scan(s, a, 4, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD, NULL), REDIST_ERR_ARG);
    expect("bcast unknown algorithm", redist_bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD, "bogus"),
           REDIST_ERR_UNKNOWN_ALGORITHM);
    expect("reduce unknown algorithm",
           redist_reduce(s, a, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, "hypercube"),
           REDIST_ERR_UNKNOWN_ALGORITHM);
    expect("allreduce unknown algorithm",
           redist_allreduce(s, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, "mesh"),
           REDIST_ERR_UNKNOWN_ALGORITHM);
    expect("scan unknown algorithm", redist_scan(s, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, "tree"),
           REDIST_ERR_UNKNOWN_ALGORITHM);
    expect("bcast comm null", redist_bcast(a, 4, MPI_INT, 0, MPI_COMM_NULL, NULL), REDIST_ERR_ARG);
    /* The algorithm is chosen before the agreement: a name unknown on one rank only is agreed
       (rather than that rank returning while the others wait for its messages). */
    const char *bogus = rank == size - 1 ? "bogus" : NULL;
    expect("bcast unknown algorithm on the last rank",
           redist_bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD, bogus), REDIST_ERR_UNKNOWN_ALGORITHM);
    expect("reduce unknown algorithm on the last rank",
           redist_reduce(s, a, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, bogus),
           REDIST_ERR_UNKNOWN_ALGORITHM);
    expect("allreduce unknown algorithm on the last rank",
           redist_allreduce(s, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, bogus),
           REDIST_ERR_UNKNOWN_ALGORITHM);
    expect("scan unknown algorithm on the last rank",
           redist_scan(s, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, bogus),
           REDIST_ERR_UNKNOWN_ALGORITHM);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op_create(mtest_matmul_fn, 0, &matop);
    size_t max = 10000 * sizeof(double);
    void *s = malloc(max), *a = malloc(max), *b = malloc(max);
    test_bcast(a, b);
    test_reduce(s, a, b);
    test_allreduce_scan(s, a, b);
    test_in_place(s, a, b);
    test_errors(s, a);
    free(s);
    free(a);
    free(b);
    MPI_Op_free(&matop);
    return mtest_finalize(errs);
}
