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
 *   "node-aware": reduced on the node first, so that each byte crosses the network once,
 *       reduced. On the ranks' nodes (redist__coll_nodes; N nodes, at most q ranks on one,
 *       h = ceil((N - 1) / fewest ranks on a node) pairs of nodes per rank at most; a node's
 *       pairs spread over its ranks, redist__pair_sender / _receiver, as alltoall's):
 *       1. on the node, pairwise (q - 1 steps): each rank t of the node receives from every
 *          rank of it their block for t and their blocks for the ranks of the nodes whose
 *          pairs t carries, and reduces them in rank order (the node's ranks increase);
 *       2. between nodes, N - 1 steps (node A sends to A + k, receives from A - k): the
 *          carrier of the pair (A, B) sends A's partial result of B's blocks to B's carrier
 *          and receives B's of A's;
 *       3. on the node, pairwise: each carrier hands each rank of its node the partials of
 *          its block that came from other nodes (one per pair it carries); the rank reduces
 *          its node's partial and the others in node order.
 *       Cost (q - 1)(t_s + t_w m (1 + h q)), and where N > 1 also
 *       h (t_s + t_s') + t_w m h q + (q - 1)(t_s + t_w m h) + t_w' m (N - 1) q,
 *       t_s', t_w' the network's start-up per message between nodes and time per byte through
 *       a node's link (each node sends each other node its partial once: (N - 1) q blocks at
 *       most, where pairwise sends each rank's own q (p - q)). On one node it is pairwise's
 *       exchange; "auto" weighs it only where the ranks span several nodes. Node order is
 *       rank order when every node's ranks are consecutive (REDIST_RANKS_PER_NODE's nodes,
 *       a block placement): there it keeps a non-commutative op's order; on nodes whose ranks
 *       interleave it is NOT_APPLICABLE for a non-commutative op.
 *
 * On several nodes the flat algorithms also pay the network (coll.h, redist__coll_net_*):
 * t_s' for each step whose messages cross nodes, t_w' for the bytes the node's crossing ranks
 * put through its link.
 *
 * Workspace (allocated before the agreement, see workspace()): pairwise p m bytes (the p
 * operands); the others p m (the partial blocks) plus the ring's m, the mesh's cols m (m for
 * a 1 x p mesh), the hypercube's 2 (p/2) m (packed and received halves); node-aware, see
 * na_workspace().
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

/* pairwise costs what the ring costs on one node: p - 1 messages of m bytes per rank; step k
   sends to rank + k. */
static double cost_pairwise(const redist__coll_shape *s, double m)
{
    double t = (s->ts + s->tw * m) * (s->p - 1);
    for (int k = 1; s->nodes > 1 && k < s->p; k++)
        t += redist__coll_net_shift(s, k, m);
    return t;
}

/* The file's header. */
static double cost_node_aware(const redist__coll_shape *s, double m)
{
    double q = s->most, h = redist__coll_shape_pairs(s);
    double t = (q - 1) * (s->ts + s->tw * m * (1 + h * q));
    if (s->nodes > 1)
        t += h * (s->ts + s->rts) + s->tw * m * h * q + (q - 1) * (s->ts + s->tw * m * h) +
             s->rtw * m * (s->nodes - 1) * q;
    return t;
}

static const redist__coll_algo algo_pairwise = {"pairwise", redist__coll_always, cost_pairwise, 0};
static const redist__coll_algo algo_node_aware = {"node-aware", redist__coll_always,
                                                  cost_node_aware, 1};
static const redist__coll_algo *const table[] = {&redist__coll_hypercube_all,
                                                 &redist__coll_mesh_all, &redist__coll_ring_all,
                                                 &algo_pairwise, &algo_node_aware};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_reduce_scatter = {
    "reduce_scatter", table, (int)(sizeof table / sizeof table[0])};
#define NALGO ((int)(sizeof table / sizeof table[0]))

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

/* Whether a keeps a non-commutative op's rank order on these nodes (NULL: one node). */
static int keeps_order(const redist__coll_algo *a, const redist__node_map *nodes)
{
    return a == &redist__coll_hypercube_all || a == &algo_pairwise ||
           (a == &algo_node_aware && (nodes == NULL || redist__coll_contiguous(nodes)));
}

/* The algorithm for m-byte blocks on s's ranks: for a non-commutative op, auto chooses among
   the order-keeping ones and a forced other one is NOT_APPLICABLE. NULL and *err on error. */
static const redist__coll_algo *choose(const char *algorithm, const redist__coll_shape *s,
                                       const redist__node_map *nodes, int64_t m, int commute,
                                       int *err)
{
    int i = redist__coll_pick_shape(table, NALGO, algorithm, s, (double)m, err);
    if (i < 0)
        return NULL;
    if (commute)
        return table[i];
    if (algorithm == NULL || strcmp(algorithm, "auto") == 0) {
        const redist__coll_algo *ordered[NALGO];
        int n = 0;
        for (int j = 0; j < NALGO; j++)
            if (keeps_order(table[j], nodes))
                ordered[n++] = table[j];
        i = redist__coll_pick_shape(ordered, n, algorithm, s, (double)m, err);
        return i < 0 ? NULL : ordered[i];
    }
    if (keeps_order(table[i], nodes))
        return table[i];
    *err = redist__fail(REDIST_ERR_NOT_APPLICABLE,
                        table[i] == &algo_node_aware
                            ? "%s keeps the operand order of a non-commutative op only where "
                              "every node's ranks are consecutive"
                            : "%s does not keep the operand order of a non-commutative op",
                        table[i]->name);
    return NULL;
}

/* node-aware's workspace (the file's header), in blocks of b bytes after the blocks and pairs
   each rank of the node carries: a staging slot for the largest message on the node (1 + h q
   blocks), the node's s operands of this rank's part (1 + W blocks each, W the blocks of the
   nodes whose pairs it carries), the partials of the node's blocks from the H nodes of its
   pairs (H s), the h partials received from a carrier, and one partial per node. */
static int64_t na_workspace(const redist__node_map *m, int rank, int64_t b)
{
    int a = m->node_of[rank], h = redist__coll_most_pairs(m, a), pairs = 0;
    int64_t s = redist__node_size(m, a), w = redist__coll_carried(m, a, m->local_of[rank], &pairs);
    int64_t blocks = 1 + (int64_t)h * m->max_ranks + s * (1 + w) + pairs * s + h + m->nodes;
    return 2 * s * (int64_t)sizeof(int64_t) + blocks * b;
}

static int run_node_aware(const ctx *x, const char *src, char *out, int rank,
                          const redist__node_map *m, char *ws)
{
    int a = m->node_of[rank], s = redist__node_size(m, a), l = m->local_of[rank];
    const int *mem = m->members + m->first[a];
    int64_t b = x->bytes, *carried = (int64_t *)(void *)ws, *pairs = carried + s;
    redist__coll_carried_all(m, a, carried, pairs);
    int64_t w = carried[l], h = pairs[l], most = redist__coll_most_pairs(m, a), slot = (1 + w) * b;
    char *send = (char *)(pairs + s), *ops = send + (1 + most * m->max_ranks) * b,
         *in = ops + s * slot, *got = in + h * s * b, *fin = got + most * b;
    /* 1. The node's operands of this rank's part, in the node's (rank) order, reduced. */
    redist__coll_pack_carried(m, rank, src, ops + l * slot, b);
    int err = REDIST_SUCCESS;
    for (int k = 1; err == REDIST_SUCCESS && k < s; k++) {
        int to = (l + k) % s, from = (l - k + s) % s;
        redist__coll_pack_carried(m, mem[to], src, send, b);
        err = redist__coll_sendrecv(send, (1 + carried[to]) * b, mem[to], ops + from * slot, slot,
                                    mem[from], x->c);
    }
    for (int i = 1; err == REDIST_SUCCESS && i < s; i++) /* ops[i] = ops[i-1] op ops[i] */
        err = reduce(x, ops + (i - 1) * slot, ops + i * slot, 1 + w);
    const char *part = ops + (s - 1) * slot; /* its block, then its pairs' nodes' blocks */
    /* 2. Between nodes: in gets s partials (the node's blocks) from each node of its pairs,
       in its list's order (the receives come in the reverse one). */
    int64_t out_at = 1, in_at = h * s;
    for (int k = 1; err == REDIST_SUCCESS && k < m->nodes; k++) {
        int to, to_rank, from, from_rank;
        redist__coll_pair_step(m, rank, k, &to, &to_rank, &from, &from_rank);
        int64_t sn = to >= 0 ? redist__node_size(m, to) : 0, rn = from >= 0 ? s : 0;
        in_at -= rn;
        err = redist__coll_sendrecv_pair(part + out_at * b, sn * b, to_rank, in + in_at * b, rn * b,
                                         from_rank, x->c);
        out_at += sn;
    }
    /* 3. fin[n]: node n's partial of this rank's block. Its own node's, those of its own
       pairs, then from each carrier of the node those of its pairs. */
    if (err == REDIST_SUCCESS)
        memcpy(fin + (int64_t)a * b, part, (size_t)b);
    int64_t i = 0;
    for (int n = redist__coll_next_pair(m, rank, a); err == REDIST_SUCCESS && n >= 0;
         n = redist__coll_next_pair(m, rank, n), i++)
        memcpy(fin + (int64_t)n * b, in + (i * s + l) * b, (size_t)b);
    for (int k = 1; err == REDIST_SUCCESS && k < s; k++) {
        int to = (l + k) % s, from = (l - k + s) % s;
        for (int64_t j = 0; j < h; j++)
            memcpy(send + j * b, in + (j * s + to) * b, (size_t)b);
        err =
            redist__coll_sendrecv_pair(send, h * b, mem[to], got, pairs[from] * b, mem[from], x->c);
        i = 0;
        for (int n = redist__coll_next_pair(m, mem[from], a); err == REDIST_SUCCESS && n >= 0;
             n = redist__coll_next_pair(m, mem[from], n), i++)
            memcpy(fin + (int64_t)n * b, got + i * b, (size_t)b);
    }
    for (int n = 1; err == REDIST_SUCCESS && n < m->nodes; n++) /* in node order */
        err = reduce(x, fin + (int64_t)(n - 1) * b, fin + (int64_t)n * b, 1);
    if (err == REDIST_SUCCESS)
        memcpy(out, fin + (int64_t)(m->nodes - 1) * b, (size_t)b);
    return err;
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
    /* Every rank, whatever its arguments: collective at the first call on comm. */
    const redist__node_map *nodes = NULL;
    int nerr = redist__coll_nodes(comm, &nodes);
    if (err == REDIST_SUCCESS)
        err = nerr;
    int rank = 0, p = 1;
    redist__coll_local(comm, &rank, &p);
    redist__coll_shape shape = redist__coll_shape_of(nodes, p);
    int64_t b = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    const redist__coll_algo *a =
        err == REDIST_SUCCESS ? choose(algorithm, &shape, nodes, b, commute, &err) : NULL;
    /* The algorithm's workspace, then for MPI_IN_PLACE (MPI_Reduce_scatter_block's) a copy of
       the p input blocks (in recvbuf). */
    int64_t need = a == NULL || b == 0     ? 0
                   : a == &algo_node_aware ? na_workspace(nodes, rank, b)
                                           : workspace(a, p, b);
    int64_t input = sendbuf == MPI_IN_PLACE ? p * b : 0;
    char *ws = redist__coll_workspace(need + input, &err);
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, b, -1, algorithm);
    redist__coll_fingerprint_op(&fp, err == REDIST_SUCCESS ? op : MPI_OP_NULL);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err == REDIST_SUCCESS && b > 0) {
        ctx x = {r.type, op, count * r.per_element, b, c};
        char *w = ws + need;
        const void *src = redist__coll_source(sendbuf, recvbuf, p * b, &w);
        err = a == &algo_node_aware ? run_node_aware(&x, src, recvbuf, rank, nodes, ws)
                                    : run(a, &x, src, recvbuf, rank, p, ws);
    }
    redist__coll_reducer_free(&r);
    redist__free(ws);
    return err;
}
