/* redist_allgather (all-to-all broadcast, [GGKK03]): every rank contributes
 * one block of m bytes, every rank receives all p blocks in rank order.
 *
 * Algorithms:
 *   "ring": p - 1 steps; at step k each rank sends to its right neighbour the block it
 *       received at step k - 1 (its own at step 0), i.e. block (rank - k) mod p, and receives
 *       block (rank - k - 1) mod p from its left one. Cost (t_s + t_w m)(p - 1).
 *   "mesh": p = rows x cols, the most square factorization (rows <= cols; a prime p is a
 *       1 x p mesh, i.e. the ring). Rank r is at (r / cols, r % cols). Phase 1: ring
 *       all-to-all broadcast in each row (cols - 1 steps of m); the row's blocks are then
 *       contiguous in recvbuf. Phase 2: ring in each column on messages of cols * m
 *       (rows - 1 steps). Cost t_s (rows + cols - 2) + t_w m (p - 1), i.e.
 *       2 t_s (sqrt p - 1) + t_w m (p - 1) for a square mesh.
 *   "hypercube": for p a power of two, recursive doubling: at step k = 1, 2, 4, ...
 *       exchange the k blocks held (the aligned group containing the rank) with partner
 *       rank ^ k. For any other p, Bruck's generalization (as MPI libraries do): at step
 *       k = 1, 2, 4, ... send the first min(k, p - k) blocks gathered so far (own block
 *       first, then those of rank + 1, rank + 2, ...) to rank - k and receive as many from
 *       rank + k; a final local rotation puts the blocks in rank order (p blocks of
 *       workspace). Both take ceil(log2 p) steps:
 *       cost t_s ceil(log p) + t_w m (p - 1).
 *   "node-aware": on the ranks' nodes (redist__coll_nodes; N nodes, at most q ranks on one,
 *       h = ceil((N - 1) / fewest ranks on a node) pairs of nodes per rank at most), each
 *       node's contribution crosses to each other node once, and a node's pairs are spread
 *       over its ranks (redist__pair_sender / _receiver, as alltoall's node-aware):
 *       1. ring all-gather on the node: every rank holds its node's s blocks;
 *       2. between nodes, N - 1 steps (node A sends to A + k, receives from A - k): the rank
 *          that carries the pair (A, B) sends A's blocks to B's carrier and receives B's;
 *       3. ring all-gather on the node of what each rank received (pieces of any size);
 *       4. a local copy into rank order (the blocks in the node's order, one memcpy per node
 *          where its ranks are consecutive).
 *       Cost (q - 1)(t_s + t_w m), and where N > 1 also
 *       h (t_s + t_s') + t_w m h q + (q - 1)(t_s + t_w m h q) + t_w' m (N - 1) q,
 *       t_s' and t_w' the network's start-up per message between nodes and time per byte
 *       through a node's link (which carries the node's q blocks to each other node once,
 *       where the flat algorithms send a block across a link once per receiving rank). On
 *       one node it is the ring; "auto" weighs it only where the ranks span several nodes.
 *
 * On several nodes the flat algorithms also pay the network (coll.h, redist__coll_net_*):
 * t_s' for each step whose messages cross nodes, t_w' for the bytes the node's crossing ranks
 * put through its link.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

/* Unlike the all-to-all reduction's, this hypercube works for every p; on one node its cost
   is that of the scatter/gather hypercube, t_s ceil(log p) + t_w m (p - 1). Step k sends k
   blocks to rank XOR k (recursive doubling), or Bruck's min(k, p - k) to rank - k. */
static double cost_hypercube(const redist__coll_shape *s, double m)
{
    int p = s->p, pow2 = (p & (p - 1)) == 0;
    double t = redist__coll_hypercube_sg.cost(s, m);
    for (int k = 1; k < p; k <<= 1)
        t += pow2 ? redist__coll_net_xor(s, k, k * m)
                  : redist__coll_net_shift(s, k, (k < p - k ? k : p - k) * m);
    return t;
}

/* The file's header. */
static double cost_node_aware(const redist__coll_shape *s, double m)
{
    double q = s->most, h = redist__coll_shape_pairs(s);
    double t = (q - 1) * (s->ts + s->tw * m);
    if (s->nodes > 1)
        t += h * (s->ts + s->rts) + s->tw * m * h * q + (q - 1) * (s->ts + s->tw * m * h * q) +
             s->rtw * m * (s->nodes - 1) * q;
    return t;
}

static const redist__coll_algo algo_hypercube = {"hypercube", redist__coll_always, cost_hypercube,
                                                 0};
static const redist__coll_algo algo_node_aware = {"node-aware", redist__coll_always,
                                                  cost_node_aware, 1};
static const redist__coll_algo *const table[] = {&algo_hypercube, &redist__coll_mesh_all,
                                                 &redist__coll_ring_all, &algo_node_aware};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_allgather = {"allgather", table,
                                                         (int)(sizeof table / sizeof table[0])};
#define NALGO ((int)(sizeof table / sizeof table[0]))

/* Ring all-to-all broadcast among n members, member j being rank base + j * stride, this
   rank member `me`; slot j of buf (bytes each, stride bytes apart) is member j's block. */
static int ring(char *buf, int64_t bytes, int n, int me, int base, int stride, MPI_Comm c)
{
    int right = base + ((me + 1) % n) * stride, left = base + ((me - 1 + n) % n) * stride;
    for (int k = 0; k < n - 1; k++) {
        int s = (me - k + n) % n, r = (me - k - 1 + 2 * n) % n;
        int err = redist__coll_sendrecv(buf + (int64_t)s * bytes, bytes, right,
                                        buf + (int64_t)r * bytes, bytes, left, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* Recursive doubling (p a power of two); out holds this rank's block in place. */
static int recursive_doubling(char *out, int64_t bytes, int rank, int p, MPI_Comm c)
{
    for (int k = 1; k < p; k <<= 1) {
        int partner = rank ^ k;
        int mine = rank & ~(k - 1), theirs = partner & ~(k - 1);
        int err = redist__coll_sendrecv(out + (int64_t)mine * bytes, k * bytes, partner,
                                        out + (int64_t)theirs * bytes, k * bytes, partner, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* Bruck's allgather for any p: tmp[i] gathers the block of rank + i, then rotates into out. */
static int bruck(const void *mine, char *out, int64_t bytes, int rank, int p, char *tmp, MPI_Comm c)
{
    memcpy(tmp, mine, (size_t)bytes);
    for (int k = 1; k < p; k <<= 1) {
        int64_t n = k < p - k ? k : p - k;
        int err = redist__coll_sendrecv(tmp, n * bytes, (rank - k + p) % p,
                                        tmp + (int64_t)k * bytes, n * bytes, (rank + k) % p, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    for (int i = 0; i < p; i++)
        memcpy(out + (int64_t)((rank + i) % p) * bytes, tmp + (int64_t)i * bytes, (size_t)bytes);
    return REDIST_SUCCESS;
}

/* Whether algorithm i runs Bruck's allgather for p ranks (the only one with workspace: p
   blocks). */
static int is_bruck(int i, int p)
{
    return table[i] == &algo_hypercube && (p & (p - 1)) != 0;
}

/* node-aware's workspace (the file's header): the blocks and pairs each rank of the node
   carries, the offsets of the two rings' pieces, and the p blocks in the node's order. */
static int64_t na_workspace(const redist__node_map *m, int rank, int64_t bytes)
{
    int64_t s = redist__node_size(m, m->node_of[rank]);
    return (4 * s + 2) * (int64_t)sizeof(int64_t) + (int64_t)m->size * bytes;
}

static int run_node_aware(const char *mine, char *out, int64_t bytes, int rank,
                          const redist__node_map *m, char *ws, MPI_Comm c)
{
    int a = m->node_of[rank], s = redist__node_size(m, a), l = m->local_of[rank];
    const int *mem = m->members + m->first[a];
    int64_t *carried = (int64_t *)(void *)ws, *pairs = carried + s, *one = pairs + s,
            *piece = one + s + 1;
    /* all: this node's s blocks, then piece t = the blocks of the nodes whose pairs local
       rank t carries (its list's order) */
    char *all = (char *)(piece + s + 1);
    redist__coll_carried_all(m, a, carried, pairs);
    piece[0] = s * bytes;
    for (int t = 0; t <= s; t++) {
        one[t] = t * bytes;
        if (t < s)
            piece[t + 1] = piece[t] + carried[t] * bytes;
    }
    memcpy(all + l * bytes, mine, (size_t)bytes);
    int err = redist__coll_ringv(all, one, s, l, mem, c); /* 1. */
    int64_t in_at = piece[l + 1]; /* 2. receives in the reverse of the list's order */
    for (int k = 1; err == REDIST_SUCCESS && k < m->nodes; k++) {
        int to, to_rank, from, from_rank;
        redist__coll_pair_step(m, rank, k, &to, &to_rank, &from, &from_rank);
        int64_t rn = from >= 0 ? redist__node_size(m, from) * bytes : 0;
        in_at -= rn;
        err = redist__coll_sendrecv_pair(all, to >= 0 ? s * bytes : 0, to_rank, all + in_at, rn,
                                         from_rank, c);
    }
    if (err == REDIST_SUCCESS)
        err = redist__coll_ringv(all, piece, s, l, mem, c); /* 3. */
    if (err != REDIST_SUCCESS)
        return err;
    redist__coll_node_blocks(m, a, all, out, bytes, 0); /* 4. */
    for (int t = 0; t < s; t++) {
        const char *at = all + piece[t];
        for (int n = redist__coll_next_pair(m, mem[t], a); n >= 0;
             n = redist__coll_next_pair(m, mem[t], n)) {
            redist__coll_node_blocks(m, n, at, out, bytes, 0);
            at += redist__node_size(m, n) * bytes;
        }
    }
    return REDIST_SUCCESS;
}

static int run(int i, const void *sendbuf, char *out, int64_t bytes, int rank, int p, char *tmp,
               MPI_Comm c)
{
    if (is_bruck(i, p))
        return bruck(sendbuf, out, bytes, rank, p, tmp, c);
    memcpy(out + (int64_t)rank * bytes, sendbuf, (size_t)bytes);
    if (table[i] == &algo_hypercube)
        return recursive_doubling(out, bytes, rank, p, c);
    if (table[i] == &redist__coll_ring_all)
        return ring(out, bytes, p, rank, 0, 1, c);
    int rows, cols;
    redist__coll_mesh(p, &rows, &cols);
    int row = rank / cols, col = rank % cols;
    int err = ring(out + (int64_t)row * cols * bytes, bytes, cols, col, row * cols, 1, c);
    if (err == REDIST_SUCCESS)
        err = ring(out, (int64_t)cols * bytes, rows, row, col, cols, c);
    return err;
}

int redist_allgather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Comm comm, const char *algorithm)
{
    size_t elsize = 0;
    int err = redist__coll_check_common(count, type, comm, &elsize);
    if (err == REDIST_SUCCESS)
        err = redist__coll_no_in_place(recvbuf, "recvbuf");
    if (err == REDIST_SUCCESS && count > 0 && (sendbuf == NULL || recvbuf == NULL))
        err = redist__fail(REDIST_ERR_ARG, "%s is NULL", sendbuf == NULL ? "sendbuf" : "recvbuf");
    /* Every rank, whatever its arguments: collective at the first call on comm. */
    const redist__node_map *nodes = NULL;
    int nerr = redist__coll_nodes(comm, &nodes);
    if (err == REDIST_SUCCESS)
        err = nerr;
    int64_t bytes = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    /* Choose and allocate before the agreement, so that these errors are agreed too. */
    int rank = 0, p = 1;
    redist__coll_local(comm, &rank, &p);
    redist__coll_shape shape = redist__coll_shape_of(nodes, p);
    int i = err == REDIST_SUCCESS
                ? redist__coll_pick_shape(table, NALGO, algorithm, &shape, (double)bytes, &err)
                : -1;
    /* The algorithm's workspace, then for MPI_IN_PLACE a copy of this rank's block (already at
       its place in recvbuf). */
    int64_t need = i < 0 || bytes == 0            ? 0
                   : table[i] == &algo_node_aware ? na_workspace(nodes, rank, bytes)
                   : is_bruck(i, p)               ? p * bytes
                                                  : 0;
    int64_t own = sendbuf == MPI_IN_PLACE ? bytes : 0;
    char *ws = redist__coll_workspace(need + own, &err);
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, bytes, -1, algorithm);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err == REDIST_SUCCESS && bytes > 0) {
        char *w = ws + need;
        const void *src = redist__coll_source(sendbuf, (char *)recvbuf + rank * bytes, bytes, &w);
        err = table[i] == &algo_node_aware ? run_node_aware(src, recvbuf, bytes, rank, nodes, ws, c)
                                           : run(i, src, recvbuf, bytes, rank, p, ws, c);
    }
    redist__free(ws);
    return err;
}
