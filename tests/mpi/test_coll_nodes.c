/* The node-aware algorithms of redist_alltoall, redist_allgather and redist_reduce_scatter on
 * several nodes: the machine split into virtual nodes of k = 1, 2, 3 and 4 consecutive ranks
 * (REDIST_RANKS_PER_NODE, read at a communicator's first call: one fresh duplicate of
 * MPI_COMM_WORLD per k; the last node smaller where k does not divide p), the real node(s)
 * (unset), and nodes whose ranks interleave (rank r on node r mod n, as a cyclic placement
 * over real nodes gives; set through the library's test hook). For each: the map the library
 * found (nodes, each rank's node) against the test's own split, then "node-aware" and "auto"
 * at counts 0, 1, 7 and 1000 with MPI_INT, MPI_DOUBLE and a contiguous type of 3 doubles,
 * distinct buffers and MPI_IN_PLACE, every element of every result checked against a formula
 * of (source rank, destination rank, element); reduce_scatter with MPI_SUM and a
 * non-commutative user op (2 x 2 matrix product), which node-aware keeps in rank order on
 * nodes of consecutive ranks and refuses (REDIST_ERR_NOT_APPLICABLE on every rank) on
 * interleaved ones, where auto picks an order-keeping algorithm. auto's choice, made from the
 * agreed nodes, is the same on every rank, and never node-aware on one node.
 * Output: " No Errors" on success, else one line per failed check and " Found N errors".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;
static MPI_Datatype triple; /* 3 doubles */
static MPI_Op matop;

static const int64_t counts[] = {0, 1, 7, 1000};
static const char *const algos[] = {"node-aware", "auto"};
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum { T_INT, T_DOUBLE, T_TRIPLE, NTYPES };
static const char *const type_names[] = {"int", "double", "3 doubles"};

static MPI_Datatype type_of(int t)
{
    return t == T_INT ? MPI_INT : t == T_DOUBLE ? MPI_DOUBLE : triple;
}
/* Scalars (ints or doubles) per element. */
static int64_t scalars(int t)
{
    return t == T_TRIPLE ? 3 : 1;
}

/* The value of scalar e of the block from rank `from` for rank `to` (small whole numbers:
   sums of them are exact in any order). */
static long value(int from, int to, int64_t e)
{
    return (long)((from * 37 + to * 11 + e * 7) % 1009) - 400;
}

static void put(void *buf, int t, int64_t i, long v)
{
    if (t == T_INT)
        ((int *)buf)[i] = (int)v;
    else
        ((double *)buf)[i] = (double)v;
}
static long get(const void *buf, int t, int64_t i)
{
    return t == T_INT ? ((const int *)buf)[i] : (long)((const double *)buf)[i];
}

/* The same code on every rank, and equal to want; 1 if it is REDIST_SUCCESS there. */
static int expect(const char *what, int rc, int want)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi || rc != want) {
        printf("[rank %d] %s: rc %d (%s), want %d; min %d max %d\n", rank, what, rc,
               redist_error_name(rc), want, lo, hi);
        errs++;
    }
    return lo == hi && rc == REDIST_SUCCESS;
}

/* Counts the elements where got differs from want(i), printing the first. */
static void check(const char *what, const void *got, int t, int64_t n,
                  long (*want)(int64_t, void *), void *arg)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++) {
        long g = get(got, t, i), w = want(i, arg);
        if (g != w && bad++ == 0)
            printf("[rank %d] %s: scalar %lld is %ld, want %ld\n", rank, what, (long long)i, g, w);
    }
    if (bad > 0) {
        printf("[rank %d] %s: %lld wrong scalars of %lld\n", rank, what, (long long)bad,
               (long long)n);
        errs++;
    }
}

typedef struct {
    int64_t per; /* scalars per block */
} layout;

/* alltoall: scalar i of recvbuf is scalar e of the block from rank i / per. */
static long want_alltoall(int64_t i, void *arg)
{
    int64_t per = ((layout *)arg)->per;
    return value((int)(i / per), rank, i % per);
}
/* allgather: block j is rank j's (its block "for" rank -1). */
static long want_allgather(int64_t i, void *arg)
{
    int64_t per = ((layout *)arg)->per;
    return value((int)(i / per), -1, i % per);
}
/* reduce_scatter with MPI_SUM: the sum over the ranks of their block for this rank. */
static long want_sum(int64_t e, void *arg)
{
    (void)arg;
    long s = 0;
    for (int from = 0; from < size; from++)
        s += value(from, rank, e);
    return s;
}

static void test_alltoall(MPI_Comm comm, const char *where, const char *alg, int t, int64_t count)
{
    int64_t per = count * scalars(t), n = per * size;
    size_t bytes = (size_t)n * (t == T_INT ? sizeof(int) : sizeof(double));
    char *s = malloc(bytes + 1), *r = malloc(bytes + 1), what[200];
    layout lay = {per};
    for (int in_place = 0; in_place < 2; in_place++) {
        for (int64_t i = 0; i < n; i++)
            put(in_place ? r : s, t, i, value(rank, (int)(i / per), i % per));
        if (!in_place)
            memset(r, 0x5a, bytes + 1);
        snprintf(what, sizeof what, "%s: alltoall %s count %lld %s%s", where, alg, (long long)count,
                 type_names[t], in_place ? " in place" : "");
        int rc = redist_alltoall(in_place ? MPI_IN_PLACE : s, r, count, type_of(t), comm, alg);
        if (expect(what, rc, REDIST_SUCCESS))
            check(what, r, t, n, want_alltoall, &lay);
    }
    free(s), free(r);
}

static void test_allgather(MPI_Comm comm, const char *where, const char *alg, int t, int64_t count)
{
    int64_t per = count * scalars(t), n = per * size;
    size_t es = t == T_INT ? sizeof(int) : sizeof(double), bytes = (size_t)n * es;
    char *s = malloc((size_t)per * es + 1), *r = malloc(bytes + 1), what[200];
    layout lay = {per};
    for (int in_place = 0; in_place < 2; in_place++) {
        memset(r, 0x5a, bytes + 1);
        for (int64_t e = 0; e < per; e++)
            put(in_place ? r : s, t, in_place ? rank * per + e : e, value(rank, -1, e));
        snprintf(what, sizeof what, "%s: allgather %s count %lld %s%s", where, alg,
                 (long long)count, type_names[t], in_place ? " in place" : "");
        int rc = redist_allgather(in_place ? MPI_IN_PLACE : s, r, count, type_of(t), comm, alg);
        if (expect(what, rc, REDIST_SUCCESS))
            check(what, r, t, n, want_allgather, &lay);
    }
    free(s), free(r);
}

static void test_reduce_scatter(MPI_Comm comm, const char *where, const char *alg, int t,
                                int64_t count)
{
    int64_t per = count * scalars(t), n = per * size;
    size_t es = t == T_INT ? sizeof(int) : sizeof(double);
    char *s = malloc((size_t)n * es + 1), *r = malloc((size_t)n * es + 1), what[200];
    for (int in_place = 0; in_place < 2; in_place++) {
        for (int64_t i = 0; i < n; i++)
            put(in_place ? r : s, t, i, value(rank, (int)(i / per), i % per));
        if (!in_place)
            memset(r, 0x5a, (size_t)per * es + 1);
        snprintf(what, sizeof what, "%s: reduce_scatter %s count %lld %s sum%s", where, alg,
                 (long long)count, type_names[t], in_place ? " in place" : "");
        int rc = redist_reduce_scatter(in_place ? MPI_IN_PLACE : s, r, count, type_of(t), MPI_SUM,
                                       comm, alg);
        if (expect(what, rc, REDIST_SUCCESS))
            check(what, r, t, per, want_sum, NULL);
    }
    free(s), free(r);
}

static unsigned matrix(int from, int to, int64_t e)
{
    unsigned m00 = (unsigned)(from + e) & 255, m01 = (unsigned)(from * 3 + to + 1) & 255;
    unsigned m10 = (unsigned)(e * 5 + from + to) & 255, m11 = ((unsigned)(from ^ e) & 255) | 1;
    return m00 | m01 << 8 | m10 << 16 | m11 << 24;
}

/* reduce_scatter with the matrix product: the blocks multiplied in rank order; want_na:
   what node-aware must return (NOT_APPLICABLE on interleaved nodes). */
static void test_noncommutative(MPI_Comm comm, const char *where, int want_na)
{
    for (int ci = 0; ci < N(counts); ci++) {
        int64_t count = counts[ci], n = count * size;
        unsigned *s = malloc((size_t)n * sizeof *s + 1), *r = malloc((size_t)count * sizeof *r + 1);
        for (int64_t i = 0; i < n; i++)
            s[i] = matrix(rank, (int)(i / count), i % count);
        for (int a = 0; a < N(algos); a++) {
            char what[200];
            snprintf(what, sizeof what, "%s: reduce_scatter %s count %lld matrix product", where,
                     algos[a], (long long)count);
            memset(r, 0x5a, (size_t)count * sizeof *r + 1);
            int want = a == 0 ? want_na : REDIST_SUCCESS;
            int rc = redist_reduce_scatter(s, r, count, MPI_UNSIGNED, matop, comm, algos[a]);
            if (!expect(what, rc, want))
                continue;
            int64_t bad = 0;
            for (int64_t e = 0; e < count; e++) {
                unsigned w = matrix(0, rank, e);
                for (int from = 1; from < size; from++)
                    w = mtest_matmul(w, matrix(from, rank, e));
                bad += r[e] != w;
            }
            if (bad > 0) {
                printf("[rank %d] %s: %lld wrong elements of %lld\n", rank, what, (long long)bad,
                       (long long)count);
                errs++;
            }
        }
        free(s), free(r);
    }
}

/* The library's nodes of comm against first_of[r], the first rank of r's node; then auto's
   choice on them, the same on every rank for each operation and size, and never node-aware
   on one node. */
static void check_nodes(MPI_Comm comm, const char *where, const int *first_of)
{
    const redist__node_map *m = NULL;
    int rc = redist__coll_nodes(comm, &m), nodes = 0, bad = 0;
    if (!expect(where, rc, REDIST_SUCCESS))
        return;
    for (int r = 0; r < size; r++) {
        nodes += first_of[r] == r;
        for (int q = 0; q < size; q++)
            bad += (m->node_of[r] == m->node_of[q]) != (first_of[r] == first_of[q]);
    }
    if (m->size != size || m->nodes != nodes || bad > 0) {
        printf("[rank %d] %s: the library's map has %d ranks on %d nodes (want %d on %d), %d "
               "pairs of ranks on the wrong side of a node's edge\n",
               rank, where, m->size, m->nodes, size, nodes, bad);
        errs++;
    }
    redist__coll_shape shape = redist__coll_shape_of(m, size);
    const redist__coll_table *ops[] = {&redist__coll_table_alltoall, &redist__coll_table_allgather,
                                       &redist__coll_table_reduce_scatter};
    const double sizes[] = {0, 8, 4096, 1 << 20};
    for (int o = 0; o < N(ops); o++)
        for (int z = 0; z < N(sizes); z++) {
            int err = 0,
                i = redist__coll_pick_shape(ops[o]->algos, ops[o]->n, NULL, &shape, sizes[z], &err);
            if (!mtest_all_same(i) || i < 0 || (nodes == 1 && ops[o]->algos[i]->several_nodes)) {
                printf("[rank %d] %s: %s auto picks %d (%s) at m = %g on %d node(s)\n", rank, where,
                       ops[o]->operation, i, i >= 0 ? ops[o]->algos[i]->name : "none", sizes[z],
                       nodes);
                errs++;
            }
        }
}

static void run_all(MPI_Comm comm, const char *where, const int *first_of, int contiguous)
{
    check_nodes(comm, where, first_of);
    for (int ci = 0; ci < N(counts); ci++)
        for (int t = 0; t < NTYPES; t++)
            for (int a = 0; a < N(algos); a++) {
                test_alltoall(comm, where, algos[a], t, counts[ci]);
                test_allgather(comm, where, algos[a], t, counts[ci]);
                test_reduce_scatter(comm, where, algos[a], t, counts[ci]);
            }
    test_noncommutative(comm, where, contiguous ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
    MPI_Type_commit(&triple);
    MPI_Op_create(mtest_matmul_fn, 0, &matop);
    /* The real nodes, as the test finds them: each rank's node's first rank. */
    int *real = malloc((size_t)size * sizeof *real),
        *first_of = malloc((size_t)size * sizeof *first_of);
    MPI_Comm shared;
    int leader = rank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    MPI_Allgather(&leader, 1, MPI_INT, real, 1, MPI_INT, MPI_COMM_WORLD);

    /* k = 0: the real nodes (REDIST_RANKS_PER_NODE unset); k > 0: k consecutive ranks within
       each real node. Nodes read at the communicator's first call: a fresh one per k. */
    for (int k = 0; k <= 4; k++) {
        char where[64], value[16];
        if (k == 0) {
            unsetenv("REDIST_RANKS_PER_NODE");
            snprintf(where, sizeof where, "real nodes");
        } else {
            snprintf(value, sizeof value, "%d", k);
            setenv("REDIST_RANKS_PER_NODE", value, 1);
            snprintf(where, sizeof where, "nodes of %d ranks", k);
        }
        for (int r = 0; r < size; r++) { /* the first rank of r's real node with r's r / k */
            first_of[r] = r;
            for (int q = r - 1; q >= 0; q--)
                if (real[q] == real[r] && (k == 0 || q / k == r / k))
                    first_of[r] = q;
        }
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        run_all(comm, where, first_of, 1);
        MPI_Comm_free(&comm);
    }
    unsetenv("REDIST_RANKS_PER_NODE");

    /* Interleaved nodes: rank r on node r mod n (n = 2, 3): nodes of 1 .. 4 ranks at 1 .. 8
       ranks, uneven where n does not divide p. */
    for (int n = 2; n <= 3; n++) {
        char where[64];
        snprintf(where, sizeof where, "interleaved nodes (r mod %d)", n);
        for (int r = 0; r < size; r++)
            first_of[r] = r % n;
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        if (expect(where, redist__coll_nodes_set(comm, first_of), REDIST_SUCCESS))
            run_all(comm, where, first_of, size <= n); /* consecutive only with one rank each */
        MPI_Comm_free(&comm);
    }
    free(real), free(first_of);
    MPI_Op_free(&matop);
    MPI_Type_free(&triple);
    return mtest_finalize(errs);
}
