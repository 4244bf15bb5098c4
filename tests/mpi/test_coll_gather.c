/* nprocs: 1 2 3 4 5 6 7 8 */
/* [GGKK03] (Grama et al.): scatter, gather, allgather (all-to-all broadcast) and
 * reduce_scatter (all-to-all reduction) against MPI's own collectives, for every algorithm
 * (plus NULL and "auto"), every root, counts 0, 1, 7 and 5000, MPI_INT and MPI_DOUBLE with
 * MPI_SUM, and a non-commutative user op (2x2 integer matrix product) for reduce_scatter.
 * Algorithms that must refuse (reduce_scatter's hypercube for p not a power of two, ring / mesh
 * with a non-commutative op) must return REDIST_ERR_NOT_APPLICABLE on every rank.
 */
#include <redist.h>

#include "support/mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;
static int rank, P;

static const char *const rooted_algs[] = {NULL, "auto", "tree", "hypercube", "linear"};
static const char *const all_algs[] = {NULL, "auto", "ring", "mesh", "hypercube", "pairwise"};
static const int64_t counts[] = {0, 1, 7, 5000};

static int is_pow2(int p)
{
    return (p & (p - 1)) == 0;
}

/* Every rank must return the same code; returns it (min over ranks if they differ). */
static int agreed(int rc, const char *what, const char *alg, int64_t count)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi) {
        errs++;
        if (rank == 0)
            printf("%s %s count %lld: ranks disagree (%d vs %d)\n", what, alg ? alg : "NULL",
                   (long long)count, lo, hi);
    }
    return lo;
}

static void fill(void *buf, MPI_Datatype t, int64_t n, int seed)
{
    for (int64_t i = 0; i < n; i++) {
        if (t == MPI_INT)
            ((int *)buf)[i] = (int)((i * 7 + seed * 131) % 1000) - 300;
        else
            ((double *)buf)[i] = (double)((i * 3 + seed * 17) % 512) * 0.25 - 11.0;
    }
}

static void check(const void *got, const void *want, size_t bytes, const char *what,
                  const char *alg, int64_t count, int root, MPI_Datatype t)
{
    if (bytes > 0 && memcmp(got, want, bytes) != 0) {
        errs++;
        printf("[%d] %s %s count %lld root %d %s: wrong data\n", rank, what, alg ? alg : "NULL",
               (long long)count, root, t == MPI_INT ? "int" : "double");
    }
}

static int expect_ok(int rc, const char *what, const char *alg, int64_t count, int not_appl)
{
    rc = agreed(rc, what, alg, count);
    int want = not_appl ? REDIST_ERR_NOT_APPLICABLE : REDIST_SUCCESS;
    if (rc != want) {
        errs++;
        if (rank == 0)
            printf("%s %s count %lld: rc %d, expected %d\n", what, alg ? alg : "NULL",
                   (long long)count, rc, want);
    }
    return rc == REDIST_SUCCESS;
}

static void test_rooted(MPI_Datatype t, size_t el, int64_t count)
{
    size_t blk = (size_t)count * el, all = blk * (size_t)P;
    char *big = malloc(all + 1), *ref = malloc(all + 1), *got = malloc(all + 1);
    char *mine = malloc(blk + 1), *one = malloc(blk + 1), *ref1 = malloc(blk + 1);
    for (int root = 0; root < P; root++) {
        for (size_t a = 0; a < sizeof rooted_algs / sizeof rooted_algs[0]; a++) {
            const char *alg = rooted_algs[a];
            /* scatter */
            fill(big, t, count * P, root + 1);
            memset(one, 0x5a, blk);
            MPI_Scatter(big, (int)count, t, ref1, (int)count, t, root, MPI_COMM_WORLD);
            int rc =
                redist_scatter(rank == root ? big : NULL, one, count, t, root, MPI_COMM_WORLD, alg);
            if (expect_ok(rc, "scatter", alg, count, 0))
                check(one, ref1, blk, "scatter", alg, count, root, t);
            /* gather */
            fill(mine, t, count, rank * 5 + root);
            memset(got, 0x5a, all);
            MPI_Gather(mine, (int)count, t, ref, (int)count, t, root, MPI_COMM_WORLD);
            rc =
                redist_gather(mine, rank == root ? got : NULL, count, t, root, MPI_COMM_WORLD, alg);
            if (expect_ok(rc, "gather", alg, count, 0) && rank == root)
                check(got, ref, all, "gather", alg, count, root, t);
        }
    }
    free(big), free(ref), free(got), free(mine), free(one), free(ref1);
}

static void test_all(MPI_Datatype t, size_t el, int64_t count)
{
    size_t blk = (size_t)count * el, all = blk * (size_t)P;
    char *in = malloc(all + 1), *ref = malloc(all + 1), *got = malloc(all + 1);
    for (size_t a = 0; a < sizeof all_algs / sizeof all_algs[0]; a++) {
        const char *alg = all_algs[a];
        int na = alg && strcmp(alg, "hypercube") == 0 && !is_pow2(P);
        if (!alg || strcmp(alg, "pairwise") != 0) { /* allgather has no pairwise */
            fill(in, t, count, rank + 3);
            memset(got, 0x5a, all);
            MPI_Allgather(in, (int)count, t, ref, (int)count, t, MPI_COMM_WORLD);
            int rc = redist_allgather(in, got, count, t, MPI_COMM_WORLD, alg);
            if (expect_ok(rc, "allgather", alg, count, 0)) /* hypercube: Bruck for any p */
                check(got, ref, all, "allgather", alg, count, -1, t);
        }
        fill(in, t, count * P, rank + 9);
        memset(got, 0x5a, blk);
        MPI_Reduce_scatter_block(in, ref, (int)count, t, MPI_SUM, MPI_COMM_WORLD);
        int rc = redist_reduce_scatter(in, got, count, t, MPI_SUM, MPI_COMM_WORLD, alg);
        if (expect_ok(rc, "reduce_scatter", alg, count, na))
            check(got, ref, blk, "reduce_scatter", alg, count, -1, t);
    }
    free(in), free(ref), free(got);
}

/* 2x2 integer matrix product (mod 1009 to stay small): inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len / 4; i++, a += 4, b += 4) {
        int c0 = (a[0] * b[0] + a[1] * b[2]) % 1009, c1 = (a[0] * b[1] + a[1] * b[3]) % 1009;
        int c2 = (a[2] * b[0] + a[3] * b[2]) % 1009, c3 = (a[2] * b[1] + a[3] * b[3]) % 1009;
        b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
    }
}

static void test_noncommutative(void)
{
    MPI_Op op;
    MPI_Op_create(matmul, 0, &op);
    static const int64_t nc_counts[] = {0, 4, 28, 5000};
    for (size_t ci = 0; ci < sizeof nc_counts / sizeof nc_counts[0]; ci++) {
        int64_t count = nc_counts[ci];
        size_t blk = (size_t)count * sizeof(int), all = blk * (size_t)P;
        int *in = malloc(all + 1), *ref = malloc(blk + 1), *got = malloc(blk + 1);
        for (int64_t i = 0; i < count * P; i++)
            in[i] = (int)((i * 13 + rank * 101 + 7) % 97);
        MPI_Reduce_scatter_block(in, ref, (int)count, MPI_INT, op, MPI_COMM_WORLD);
        for (size_t a = 0; a < sizeof all_algs / sizeof all_algs[0]; a++) {
            const char *alg = all_algs[a];
            /* ring / mesh refuse a non-commutative op at every p (even p = 1) */
            int na = alg && (strcmp(alg, "ring") == 0 || strcmp(alg, "mesh") == 0);
            if (alg && strcmp(alg, "hypercube") == 0 && !is_pow2(P))
                na = 1;
            memset(got, 0x5a, blk);
            int rc = redist_reduce_scatter(in, got, count, MPI_INT, op, MPI_COMM_WORLD, alg);
            if (expect_ok(rc, "reduce_scatter(matmul)", alg, count, na))
                check(got, ref, blk, "reduce_scatter(matmul)", alg, count, -1, MPI_INT);
        }
        free(in), free(ref), free(got);
    }
    MPI_Op_free(&op);
}

static void expect_code(int rc, int want, const char *what)
{
    rc = agreed(rc, what, NULL, 0);
    if (rc != want) {
        errs++;
        if (rank == 0)
            printf("%s: rc %d, expected %d\n", what, rc, want);
    }
}

static void test_errors(void)
{
    int buf[64] = {0}, out[64];
    expect_code(redist_scatter(buf, out, 1, MPI_INT, P, MPI_COMM_WORLD, NULL), REDIST_ERR_ARG,
                "scatter root = P");
    expect_code(redist_gather(buf, out, 1, MPI_INT, rank == 0 ? -1 : 0, MPI_COMM_WORLD, NULL),
                REDIST_ERR_ARG, "gather root = -1 on rank 0 only");
    expect_code(redist_allgather(buf, out, -1, MPI_INT, MPI_COMM_WORLD, "ring"), REDIST_ERR_ARG,
                "allgather count < 0");
    expect_code(redist_reduce_scatter(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, NULL),
                REDIST_ERR_ARG, "reduce_scatter MPI_OP_NULL");
    expect_code(redist_allgather(buf, out, 1, MPI_INT, MPI_COMM_WORLD, "bogus"),
                REDIST_ERR_UNKNOWN_ALGORITHM, "allgather unknown algorithm");
    expect_code(
        redist_scatter(buf, rank == P - 1 ? NULL : out, 1, MPI_INT, 0, MPI_COMM_WORLD, "tree"),
        REDIST_ERR_ARG, "scatter NULL recvbuf on one rank");
    expect_code(redist_gather(buf, out, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD, NULL),
                REDIST_ERR_ARG, "gather MPI_DATATYPE_NULL");
    /* The algorithm is chosen before the agreement: a name unknown on one rank only is agreed
       (rather than that rank returning while the others wait for its messages). */
    const char *bogus = rank == P - 1 ? "bogus" : NULL;
    expect_code(redist_scatter(buf, out, 1, MPI_INT, 0, MPI_COMM_WORLD, bogus),
                REDIST_ERR_UNKNOWN_ALGORITHM, "scatter unknown algorithm on the last rank");
    expect_code(redist_gather(buf, out, 1, MPI_INT, 0, MPI_COMM_WORLD, bogus),
                REDIST_ERR_UNKNOWN_ALGORITHM, "gather unknown algorithm on the last rank");
    expect_code(redist_reduce_scatter(buf, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, bogus),
                REDIST_ERR_UNKNOWN_ALGORITHM, "reduce_scatter unknown algorithm on the last rank");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        test_rooted(MPI_INT, sizeof(int), counts[ci]);
        test_rooted(MPI_DOUBLE, sizeof(double), counts[ci]);
        test_all(MPI_INT, sizeof(int), counts[ci]);
        test_all(MPI_DOUBLE, sizeof(double), counts[ci]);
    }
    test_noncommutative();
    test_errors();
    return mtest_finalize(errs);
}
