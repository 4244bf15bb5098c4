/* redist_reduce_scatter (all-to-all reduction, [GGKK03]): every rank has p
 * blocks of count elements; rank i receives op over all ranks of their block i, in rank
 * order 0 .. p-1 (b_0 op b_1 op ... op b_{p-1}) for non-commutative ops.
 *
 * Algorithms (m = bytes per block):
 *   "ring": the dual of the ring all-to-all broadcast, p - 1 steps: at step k each rank
 *       sends its partial result of block (rank - k - 1) mod p to the right neighbour and
 *       adds into its partial of block (rank - k - 2) mod p the one received from the left;
 *       after step p - 2 it holds block rank. Cost (t_s + t_w m)(p - 1) (+ t_c m (p - 1)).
 *       The operands of block j are combined starting at rank j + 1 cyclically, so for a
 *       non-commutative op "ring" is REDIST_ERR_NOT_APPLICABLE.
 *   "mesh": p = rows x cols, the most square factorization (a prime p is 1 x p: the ring).
 *       Phase 1: ring reduce-scatter down each column on super-blocks of cols blocks
 *       (rows - 1 steps of cols * m), rank (a, b) then holds its column's sum of row a's
 *       blocks; phase 2: ring reduce-scatter along each row (cols - 1 steps of m).
 *       Cost t_s (rows + cols - 2) + t_w m (p - 1), i.e. 2 t_s (sqrt p - 1) + t_w m (p - 1).
 *       Not order keeping: NOT_APPLICABLE for non-commutative ops.
 *   "hypercube": recursive halving, the dual of recursive doubling: at step k = 1, 2, 4, ...
 *       the rank keeps the blocks j with bit k of j equal to its own and sends the others
 *       (p / 2k blocks) to partner rank ^ k, which reduces them. After step k a rank's partials
 *       cover the aligned group of 2k consecutive ranks, and the partner's group is wholly
 *       below or above, so the rank order is kept (non-commutative ops are fine). Only for p a
 *       power of two, otherwise NOT_APPLICABLE on every rank. Cost t_s log p + t_w m (p - 1).
 *   "pairwise": direct exchange, p - 1 steps: at step k send block (rank + k) mod p to its
 *       owner and receive block rank from (rank - k) mod p; then reduce the p operands in rank
 *       order. Any p, any op (this is the order-keeping choice of "auto" for a non-commutative
 *       op when p is not a power of two). Cost (t_s + t_w m)(p - 1), p m bytes of memory.
 *
 * Workspace (allocated before the agreement, see workspace()): pairwise p m bytes (the p
 * operands); the others p m (the partial blocks) plus the ring's m, the mesh's cols m (m for
 * a 1 x p mesh), the hypercube's 2 (p/2) m (packed and received halves).
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

/* pairwise costs what the ring costs: p - 1 messages of m bytes per rank. */
static double cost_pairwise(int p, double m, double ts, double tw)
{
    return redist__coll_ring_all.cost(p, m, ts, tw);
}

static const redist__coll_algo algo_pairwise = {"pairwise", redist__coll_always, cost_pairwise};
static const redist__coll_algo *const table[] = {
    &redist__coll_hypercube_all, &redist__coll_mesh_all, &redist__coll_ring_all, &algo_pairwise};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_reduce_scatter = {
    "reduce_scatter", table, (int)(sizeof table / sizeof table[0])};
/* The order-keeping ones, for non-commutative ops. */
static const redist__coll_algo *const ordered[] = {&redist__coll_hypercube_all, &algo_pairwise};

typedef struct {
    MPI_Datatype type;
    MPI_Op op;
    int64_t count; /* the reducer's elements per block */
    int64_t bytes; /* bytes per block */
    MPI_Comm c;
} ctx;

/* inout = in op inout on n blocks. */
static int reduce(const ctx *x, const void *in, void *inout, int64_t nblocks)
{
    return redist__coll_reduce_local(in, inout, nblocks * x->count, x->type, x->op);
}

/* Ring reduce-scatter among n members (member j = rank base + j * stride, this rank is
   `me`) on work[0..n) slots of `bytes` (blocks of x->count * factor elements); tmp has
   room for one slot. Slot me of work ends up reduced. */
static int ring(const ctx *x, char *work, char *tmp, int64_t bytes, int64_t factor, int n, int me,
                int base, int stride)
{
    int right = base + ((me + 1) % n) * stride, left = base + ((me - 1 + n) % n) * stride;
    for (int k = 0; k < n - 1; k++) {
        int s = (me - k - 1 + 2 * n) % n, r = (me - k - 2 + 2 * n) % n;
        int err =
            redist__coll_sendrecv(work + (int64_t)s * bytes, bytes, right, tmp, bytes, left, x->c);
        if (err == REDIST_SUCCESS)
            err = reduce(x, tmp, work + (int64_t)r * bytes, factor);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

static int run_hypercube(const ctx *x, char *work, char *pack, char *unpack, int rank, int p)
{
    int64_t b = x->bytes;
    for (int k = 1; k < p; k <<= 1) {
        int partner = rank ^ k, low = k - 1, n = 0;
        for (int j = 0; j < p; j++) /* the live blocks of the partner's side */
            if ((j & low) == (rank & low) && (j & k) != (rank & k))
                memcpy(pack + (int64_t)(n++) * b, work + (int64_t)j * b, (size_t)b);
        int err = redist__coll_sendrecv(pack, n * b, partner, unpack, n * b, partner, x->c);
        if (err != REDIST_SUCCESS)
            return err;
        int i = 0;
        for (int j = 0; j < p; j++) {
            if ((j & low) != (rank & low) || (j & k) != (rank & k))
                continue;
            char *w = work + (int64_t)j * b, *u = unpack + (int64_t)(i++) * b;
            if (partner < rank) {
                err = reduce(x, u, w, 1); /* w = theirs op mine */
            } else {
                err = reduce(x, w, u, 1); /* u = mine op theirs */
                memcpy(w, u, (size_t)b);
            }
            if (err != REDIST_SUCCESS)
                return err;
        }
    }
    return REDIST_SUCCESS;
}

static int run_pairwise(const ctx *x, const char *in, char *all, int rank, int p)
{
    int64_t b = x->bytes;
    memcpy(all + (int64_t)rank * b, in + (int64_t)rank * b, (size_t)b);
    for (int k = 1; k < p; k++) {
        int to = (rank + k) % p, from = (rank - k + p) % p;
        int err = redist__coll_sendrecv(in + (int64_t)to * b, b, to, all + (int64_t)from * b, b,
                                        from, x->c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    for (int j = 1; j < p; j++) { /* all[j] = all[j-1] op all[j] */
        int err = reduce(x, all + (int64_t)(j - 1) * b, all + (int64_t)j * b, 1);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* The algorithm for p ranks and m-byte blocks: for a non-commutative op, auto chooses among
   the order-keeping ones and a forced other one is NOT_APPLICABLE. NULL and *err on error. */
static const redist__coll_algo *choose(const char *algorithm, int p, int64_t m, int commute,
                                       int *err)
{
    int i = redist__coll_pick(table, (int)(sizeof table / sizeof table[0]), algorithm, p, (double)m,
                              err);
    if (i < 0)
        return NULL;
    if (commute)
        return table[i];
    if (algorithm == NULL || strcmp(algorithm, "auto") == 0) {
        i = redist__coll_pick(ordered, (int)(sizeof ordered / sizeof ordered[0]), algorithm, p,
                              (double)m, err);
        return i < 0 ? NULL : ordered[i];
    }
    if (table[i] == &redist__coll_hypercube_all || table[i] == &algo_pairwise)
        return table[i];
    *err =
        redist__fail(REDIST_ERR_NOT_APPLICABLE,
                     "%s does not keep the operand order of a non-commutative op", table[i]->name);
    return NULL;
}

/* Workspace of algorithm a for p blocks of b bytes: pairwise, the p received operands;
   the others, the p partial blocks (work) and, for the ring, one received block; for the
   mesh, one received slot of its widest ring with more than one member (cols blocks when
   rows > 1); for the hypercube, the packed and received halves (p/2 blocks each). */
static int64_t workspace(const redist__coll_algo *a, int p, int64_t b)
{
    int64_t total = (int64_t)p * b;
    if (a == &algo_pairwise)
        return total;
    if (a == &redist__coll_ring_all)
        return total + (p > 1 ? b : 0);
    if (a == &redist__coll_mesh_all) {
        int rows, cols;
        redist__coll_mesh(p, &rows, &cols);
        return total + (rows > 1 ? cols * b : cols > 1 ? b : 0);
    }
    return total + 2 * (int64_t)(p / 2) * b;
}

static int run(const redist__coll_algo *a, const ctx *x, const char *sendbuf, char *recvbuf,
               int rank, int p, char *work)
{
    int64_t b = x->bytes, total = (int64_t)p * b;
    char *tmp = work + total;
    int err;
    if (a == &algo_pairwise) {
        err = run_pairwise(x, sendbuf, work, rank, p);
        if (err == REDIST_SUCCESS)
            memcpy(recvbuf, work + (int64_t)(p - 1) * b, (size_t)b);
        return err;
    }
    memcpy(work, sendbuf, (size_t)total);
    if (a == &redist__coll_ring_all) {
        err = ring(x, work, tmp, b, 1, p, rank, 0, 1);
    } else if (a == &redist__coll_mesh_all) {
        int rows, cols;
        redist__coll_mesh(p, &rows, &cols);
        int row = rank / cols, col = rank % cols;
        err = ring(x, work, tmp, (int64_t)cols * b, cols, rows, row, col, cols);
        if (err == REDIST_SUCCESS)
            err = ring(x, work + (int64_t)row * cols * b, tmp, b, 1, cols, col, row * cols, 1);
    } else {
        err = run_hypercube(x, work, tmp, tmp + (int64_t)(p / 2) * b, rank, p);
    }
    if (err == REDIST_SUCCESS)
        memcpy(recvbuf, work + (int64_t)rank * b, (size_t)b);
    return err;
}

int redist_reduce_scatter(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, const char *algorithm)
{
    size_t elsize = 0;
    redist__coll_reducer r = {MPI_DATATYPE_NULL, 1, 0};
    int err = redist__coll_check_common(count, type, comm, &elsize);
    if (err == REDIST_SUCCESS)
        err = redist__coll_reducer_make(type, elsize, op, &r);
    if (err == REDIST_SUCCESS)
        err = redist__coll_no_in_place(recvbuf, "recvbuf");
    if (err == REDIST_SUCCESS && count > 0 && (sendbuf == NULL || recvbuf == NULL))
        err = redist__fail(REDIST_ERR_ARG, "%s is NULL", sendbuf == NULL ? "sendbuf" : "recvbuf");
    int commute = 1;
    if (err == REDIST_SUCCESS && MPI_Op_commutative(op, &commute) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_ARG, "op is not a valid MPI_Op");
    int rank = 0, p = 1;
    redist__coll_local(comm, &rank, &p);
    int64_t b = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    const redist__coll_algo *a =
        err == REDIST_SUCCESS ? choose(algorithm, p, b, commute, &err) : NULL;
    /* MPI_IN_PLACE (MPI_Reduce_scatter_block's): the p input blocks are in recvbuf. */
    int64_t input = sendbuf == MPI_IN_PLACE ? p * b : 0;
    char *ws = redist__coll_workspace(a != NULL && b > 0 ? input + workspace(a, p, b) : 0, &err);
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, b, -1, algorithm);
    redist__coll_fingerprint_op(&fp, err == REDIST_SUCCESS ? op : MPI_OP_NULL);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err == REDIST_SUCCESS && b > 0) {
        ctx x = {r.type, op, count * r.per_element, b, c};
        char *w = ws;
        const void *src = redist__coll_source(sendbuf, recvbuf, p * b, &w);
        err = run(a, &x, src, recvbuf, rank, p, w);
    }
    redist__coll_reducer_free(&r);
    redist__free(ws);
    return err;
}
