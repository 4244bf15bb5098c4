/* All-to-all personalized communication (total exchange; [GGKK03]).
 *
 * redist_alltoall has MPI_Alltoall semantics: sendbuf holds p blocks of `count` elements, block
 * j for rank j; recvbuf receives p blocks, block i from rank i. Point-to-point messages on the
 * private communicator only. In the costs m is the size of one block in bytes, p the number of
 * ranks, t_s the start-up time and t_w the time per byte.
 *
 *   ring       p-1 steps on a ring. Each rank starts with its p-1 blocks for the others as one
 *              consolidated message to its right neighbour; at step k it receives p-k blocks
 *              from its left neighbour, keeps the first (the one addressed to it, originated
 *              by rank - k) and forwards the other p-k-1 at the next step.
 *              T = sum_{i=1}^{p-1} (t_s + t_w m (p-i)) = (t_s + t_w m p/2)(p-1)   (4)
 *   mesh       the most square factorization rows x cols = p (rows <= cols; a prime p gives
 *              1 x p, i.e. the ring). Phase 1: a ring all-to-all in each row whose blocks are
 *              the rows-block groups bound for one column; local regrouping; phase 2: a ring
 *              all-to-all in each column with cols-block groups. For a sqrt(p) x sqrt(p) mesh
 *              T = (2 t_s + t_w m p)(sqrt(p) - 1)                                   (5)
 *              (in general (t_s + t_w m p/2)(cols - 1) + (t_s + t_w m p/2)(rows - 1)).
 *   hypercube  log-step exchange, p/2 blocks per step. For every p (a power of two or not) it
 *              is Bruck's algorithm: a local rotation, ceil(log2 p) steps where step 2^k sends
 *              the blocks whose (rotated) index has bit k set to rank + 2^k and receives from
 *              rank - 2^k, and a final local inverse rotation. For p = 2^d this moves the
 *              same data as the paper's hypercube algorithm (mp/2 per dimension):
 *              T = (t_s + t_w m p/2) log p
 *   pairwise   p-1 steps of direct exchanges of one block. For p a power of two, step k
 *              exchanges with rank XOR k (the paper's optimal ALL_TO_ALL_PERSONAL, without
 *              congestion on a hypercube); otherwise step k sends to (rank + k) mod p and
 *              receives from (rank - k) mod p.
 *              T = (t_s + t_w m)(p - 1)                                             (7)
 *   node-aware locality-aware all-to-all (Bienz et al.; MPICH's multi-leader) on the ranks'
 *              nodes (redist__coll_nodes): N nodes, at most q ranks on one, h =
 *              ceil((N - 1) / fewest ranks on a node) pairs of nodes per rank at most. The
 *              blocks between nodes A and B travel as ONE message, between the rank of A
 *              that carries the pair (A, B) and the rank of B that carries (B, A)
 *              (redist__pair_sender / _receiver: A's other nodes spread over its ranks):
 *              1. on the node, pairwise (q - 1 steps): each rank sends each other rank t of
 *                 its node its block for t and its blocks for the ranks of the nodes t
 *                 carries (1 + h q blocks at most);
 *              2. between nodes, N - 1 steps (node A sends to A + k, receives from A - k):
 *                 the carrier sends the s_A x s_B blocks of A's ranks for B's as one message
 *                 and receives B's for A's;
 *              3. on the node, pairwise again: each carrier hands each rank of its node the
 *                 blocks that came for it (h q at most).
 *              T = (q - 1)(t_s + t_w m (1 + h q)), and where N > 1 also
 *                  h (t_s + t_s') + t_w m h q^2 + (q - 1)(t_s + t_w m h q) + t_w' m q (p - q)
 *              (t_s', t_w': the network's start-up per message between nodes and per byte
 *              through a node's link, which carries its q ranks' p - q blocks each once). On
 *              one node it is pairwise's exchange; "auto" weighs it only where the ranks span
 *              several nodes. Blocks are copied whole (memcpy), four times for a block
 *              between nodes (packed, grouped, handed out, put in place).
 *
 * On several nodes the flat algorithms above also pay the network: each step whose messages
 * cross nodes t_s', and t_w' for the bytes the node's crossing ranks put through its link
 * (redist__coll_net_shift, nodes taken as blocks of q consecutive ranks).
 *
 * Errors (count < 0, invalid type, NULL buffer with count > 0, unknown algorithm, out of
 * memory for the workspace) are agreed so that every rank returns the same code.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *sbuf;
    char *rbuf;
    int64_t b; /* bytes per block */
    int rank, p;
    char *ws; /* workspace, see workspace() */
    MPI_Comm c;
} a2a;

static int is_pow2(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

/* Ring all-to-all among the n members base + i*stride (i = 0..n-1) of c, this rank being
   member idx. src: n groups of sb bytes, group i for member i; dst: n groups, group i from
   member i. w: 2 (n-1) sb bytes of workspace. */
static int ring_group(const char *src, char *dst, int64_t sb, int n, int idx, int base, int stride,
                      char *w, MPI_Comm c)
{
    memcpy(dst + idx * sb, src + idx * sb, (size_t)sb);
    if (n == 1)
        return REDIST_SUCCESS;
    char *x = w, *y = w + (int64_t)(n - 1) * sb;
    for (int d = 1; d < n; d++) /* blocks for idx+1, idx+2, ..., idx+n-1 */
        memcpy(x + (d - 1) * sb, src + ((idx + d) % n) * sb, (size_t)sb);
    const char *sp = x;
    int right = base + ((idx + 1) % n) * stride, left = base + ((idx + n - 1) % n) * stride;
    for (int k = 1; k < n; k++) {
        int64_t nb = (int64_t)(n - k) * sb;
        int err = redist__coll_sendrecv(sp, nb, right, y, nb, left, c);
        if (err != REDIST_SUCCESS)
            return err;
        memcpy(dst + ((idx - k + n) % n) * sb, y, (size_t)sb); /* from member idx - k */
        sp = y + sb;
        char *t = x;
        x = y;
        y = t;
    }
    return REDIST_SUCCESS;
}

static int run_ring(const a2a *a)
{
    return ring_group(a->sbuf, a->rbuf, a->b, a->p, a->rank, 0, 1, a->ws, a->c);
}

static double cost_ring(const redist__coll_shape *s, double m)
{
    int p = s->p;
    return (s->ts + s->tw * m * p / 2.0) * (p - 1) +
           (p - 1) * redist__coll_net_shift(s, 1, m * p / 2.0);
}

static int run_mesh(const a2a *a)
{
    int R, C;
    redist__coll_mesh(a->p, &R, &C);
    int row = a->rank / C, col = a->rank % C;
    int64_t b = a->b, pb = (int64_t)a->p * b;
    char *t1 = a->ws, *t2 = a->ws + pb, *w = a->ws + 2 * pb;
    /* Phase 1 groups: t1[c'][r'] = block for rank r'*C + c'. */
    for (int cc = 0; cc < C; cc++)
        for (int rr = 0; rr < R; rr++)
            memcpy(t1 + ((int64_t)cc * R + rr) * b, a->sbuf + ((int64_t)rr * C + cc) * b,
                   (size_t)b);
    int err = ring_group(t1, t2, (int64_t)R * b, C, col, row * C, 1, w, a->c);
    if (err != REDIST_SUCCESS)
        return err;
    /* t2[cs][r'] came from (row, cs), bound for (r', col). Regroup: t1[r'][cs]. */
    for (int rr = 0; rr < R; rr++)
        for (int cs = 0; cs < C; cs++)
            memcpy(t1 + ((int64_t)rr * C + cs) * b, t2 + ((int64_t)cs * R + rr) * b, (size_t)b);
    /* Phase 2: group from row rs holds the blocks of sources rs*C + cs, cs = 0..C-1, which is
       exactly recvbuf's order. */
    return ring_group(t1, a->rbuf, (int64_t)C * b, R, row, col, C, w, a->c);
}

static double cost_mesh(const redist__coll_shape *s, double m)
{
    int R, C;
    double g = m * s->p / 2.0; /* the bytes of a ring phase's average step */
    redist__coll_mesh(s->p, &R, &C);
    return (s->ts + s->tw * g) * (C - 1) + (s->ts + s->tw * g) * (R - 1) +
           redist__coll_net_mesh(s, C - 1, g, R - 1, g);
}

static int run_hypercube(const a2a *a)
{
    int p = a->p, r = a->rank;
    int64_t b = a->b, pb = (int64_t)p * b;
    char *t = a->ws, *pk = a->ws + pb, *rk = pk + (int64_t)(p / 2) * b;
    for (int i = 0; i < p; i++) /* t[i]: this rank's block for rank + i */
        memcpy(t + i * b, a->sbuf + ((r + i) % p) * b, (size_t)b);
    for (int k = 1; k < p; k <<= 1) {
        int64_t n = 0;
        for (int i = 0; i < p; i++)
            if (i & k)
                memcpy(pk + (n++) * b, t + i * b, (size_t)b);
        int err = redist__coll_sendrecv(pk, n * b, (r + k) % p, rk, n * b, (r - k + p) % p, a->c);
        if (err != REDIST_SUCCESS)
            return err;
        n = 0;
        for (int i = 0; i < p; i++)
            if (i & k)
                memcpy(t + i * b, rk + (n++) * b, (size_t)b);
    }
    for (int i = 0; i < p; i++) /* t[i] came from rank - i */
        memcpy(a->rbuf + ((r - i + p) % p) * b, t + i * b, (size_t)b);
    return REDIST_SUCCESS;
}

static double cost_hypercube(const redist__coll_shape *s, double m)
{
    double t = (s->ts + s->tw * m * s->p / 2.0) * redist__ceil_log2(s->p);
    for (int k = 1; k < s->p; k <<= 1) /* step k: to rank + k */
        t += redist__coll_net_shift(s, k, m * s->p / 2.0);
    return t;
}

static int run_pairwise(const a2a *a)
{
    int p = a->p, r = a->rank;
    int64_t b = a->b;
    memcpy(a->rbuf + r * b, a->sbuf + r * b, (size_t)b);
    for (int k = 1; k < p; k++) {
        int to, from;
        if (is_pow2(p)) {
            to = from = r ^ k;
        } else {
            to = (r + k) % p;
            from = (r - k + p) % p;
        }
        int err = redist__coll_sendrecv(a->sbuf + to * b, b, to, a->rbuf + from * b, b, from, a->c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

static double cost_pairwise(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double t = (s->ts + s->tw * m) * (p - 1);
    for (int k = 1; s->nodes > 1 && k < p; k++)
        t += is_pow2(p) ? redist__coll_net_xor(s, k, m) : redist__coll_net_shift(s, k, m);
    return t;
}

/* The file's header: node-aware's cost. */
static double cost_node_aware(const redist__coll_shape *s, double m)
{
    double q = s->most, h = redist__coll_shape_pairs(s);
    double t = (q - 1) * (s->ts + s->tw * m * (1 + h * q));
    if (s->nodes > 1)
        t += h * (s->ts + s->rts) + s->tw * m * h * q * q + (q - 1) * (s->ts + s->tw * m * h * q) +
             s->rtw * m * q * (s->p - q);
    return t;
}

static const redist__coll_algo algo_ring = {"ring", redist__coll_always, cost_ring, 0};
static const redist__coll_algo algo_mesh = {"mesh", redist__coll_always, cost_mesh, 0};
static const redist__coll_algo algo_hypercube = {"hypercube", redist__coll_always, cost_hypercube,
                                                 0};
static const redist__coll_algo algo_pairwise = {"pairwise", redist__coll_always, cost_pairwise, 0};
static const redist__coll_algo algo_node_aware = {"node-aware", redist__coll_always,
                                                  cost_node_aware, 1};
/* The flat ones first: the schedules (alltoall-padded) index and run these only. */
static const redist__coll_algo *const table[] = {&algo_ring, &algo_mesh, &algo_hypercube,
                                                 &algo_pairwise, &algo_node_aware};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_alltoall = {"alltoall", table,
                                                        (int)(sizeof table / sizeof table[0])};
static int (*const runs[])(const a2a *) = {run_ring, run_mesh, run_hypercube, run_pairwise};
#define NALGO ((int)(sizeof table / sizeof table[0]))
#define NFLAT ((int)(sizeof runs / sizeof runs[0]))
#define NODE_AWARE NFLAT

/* Workspace bytes of algorithm i for p blocks of b bytes. */
static int64_t workspace(int i, int p, int64_t b)
{
    int R, C;
    switch (i) {
    case 0:
        return 2 * (int64_t)(p - 1) * b; /* two ring buffers of p-1 blocks */
    case 1: /* two regrouping buffers of p blocks, then the ring buffers of the wider ring
               phase: 2 (C-1) groups of R blocks (>= 2 groups of C, as R <= C) */
        redist__coll_mesh(p, &R, &C);
        return (2 * (int64_t)p + 2 * (int64_t)(C - 1) * R) * b;
    case 2: /* the rotated copy (p blocks), packed send and receive (p/2 blocks each: the
               indices below p with bit k set) */
        return ((int64_t)p + 2 * (int64_t)(p / 2)) * b;
    default:
        return 0;
    }
}

int redist__coll_alltoall_pick(const char *name, int p, double m, int *err)
{
    if (name != NULL && strcmp(name, algo_node_aware.name) == 0) {
        *err =
            redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM,
                         "node-aware is redist_alltoall's only (a plan's exchange has no nodes)");
        return -1;
    }
    return redist__coll_pick(table, NFLAT, name, p, m, err);
}

int64_t redist__coll_alltoall_workspace(int idx, int p, int64_t b)
{
    return workspace(idx, p, b);
}

double redist__coll_alltoall_cost(int idx, int p, double m, double ts, double tw)
{
    redist__coll_shape s = redist__coll_shape_one(p, ts, tw);
    return table[idx]->cost(&s, m);
}

/* A ring all-to-all among n members on groups of gb bytes: n - 1 messages, the k-th
   carrying n - k groups. */
static void ring_traffic(int n, int64_t gb, int64_t *msgs, int64_t *bytes)
{
    *msgs += n - 1;
    *bytes += (int64_t)n * (n - 1) / 2 * gb;
}

void redist__coll_alltoall_traffic(int idx, int p, int64_t b, int64_t *msgs, int64_t *bytes)
{
    *msgs = *bytes = 0;
    if (p == 1)
        return;
    if (runs[idx] == run_ring) {
        ring_traffic(p, b, msgs, bytes);
    } else if (runs[idx] == run_mesh) {
        int R, C;
        redist__coll_mesh(p, &R, &C);
        ring_traffic(C, (int64_t)R * b, msgs, bytes);
        ring_traffic(R, (int64_t)C * b, msgs, bytes);
    } else if (runs[idx] == run_hypercube) {
        for (int k = 1; k < p; k <<= 1) { /* the indices below p with bit k set */
            int64_t n = (int64_t)(p / (2 * k)) * k + (p % (2 * k) > k ? p % (2 * k) - k : 0);
            *msgs += 1;
            *bytes += n * b;
        }
    } else {
        *msgs = p - 1;
        *bytes = (int64_t)(p - 1) * b;
    }
}

/* node-aware's workspace on `rank` (file header): the blocks and pairs each rank of its node
   carries, two staging slots of the largest message on the node (at most 1 + h q blocks) and
   the blocks of its pairs out and in (s x W each, W the blocks of the nodes it carries). */
static int64_t na_workspace(const redist__node_map *m, int rank, int64_t b)
{
    int a = m->node_of[rank], s = redist__node_size(m, a);
    int64_t w = redist__coll_carried(m, a, m->local_of[rank], NULL);
    int64_t most = (int64_t)redist__coll_most_pairs(m, a) * m->max_ranks;
    return 2 * (int64_t)s * (int64_t)sizeof(int64_t) + (2 * (1 + most) + 2 * (int64_t)s * w) * b;
}

static int run_node_aware(const a2a *x, const redist__node_map *m)
{
    int r = x->rank, a = m->node_of[r], s = redist__node_size(m, a), l = m->local_of[r];
    const int *mem = m->members + m->first[a];
    int64_t b = x->b, *carried = (int64_t *)(void *)x->ws, *pairs = carried + s;
    redist__coll_carried_all(m, a, carried, pairs);
    int64_t w = carried[l], most = (int64_t)redist__coll_most_pairs(m, a) * m->max_ranks;
    char *send = (char *)(pairs + s), *recv = send + (1 + most) * b, *out = recv + (1 + most) * b,
         *in = out + (int64_t)s * w * b;
    /* out: for each node n of this rank's pairs (its list's order), s x s_n blocks, row i the
       blocks of the node's local rank i for n's ranks; this rank's own row first. */
    memcpy(x->rbuf + (int64_t)r * b, x->sbuf + (int64_t)r * b, (size_t)b);
    int64_t at = 0;
    for (int n = redist__coll_next_pair(m, r, a); n >= 0; n = redist__coll_next_pair(m, r, n)) {
        int sn = redist__node_size(m, n);
        redist__coll_node_blocks(m, n, x->sbuf, out + (at + (int64_t)l * sn) * b, b, 1);
        at += (int64_t)s * sn;
    }
    int err = REDIST_SUCCESS;
    /* 1. On the node: the blocks each rank carries, and the ones for itself. */
    for (int k = 1; err == REDIST_SUCCESS && k < s; k++) {
        int to = (l + k) % s, from = (l - k + s) % s;
        redist__coll_pack_carried(m, mem[to], x->sbuf, send, b);
        err = redist__coll_sendrecv(send, (1 + carried[to]) * b, mem[to], recv, (1 + w) * b,
                                    mem[from], x->c);
        memcpy(x->rbuf + (int64_t)mem[from] * b, recv, (size_t)b);
        const char *u = recv + b;
        at = 0;
        for (int n = redist__coll_next_pair(m, r, a); n >= 0; n = redist__coll_next_pair(m, r, n)) {
            int sn = redist__node_size(m, n);
            memcpy(out + (at + (int64_t)from * sn) * b, u, (size_t)(sn * b));
            u += sn * b;
            at += (int64_t)s * sn;
        }
    }
    /* 2. Between nodes: one message per pair each way; in: s_n x s blocks per node n of its
       pairs (its list's order: the receives come in the reverse one), row i from n's local
       rank i. */
    int64_t out_at = 0, in_at = (int64_t)s * w;
    for (int k = 1; err == REDIST_SUCCESS && k < m->nodes; k++) {
        int to, to_rank, from, from_rank;
        redist__coll_pair_step(m, r, k, &to, &to_rank, &from, &from_rank);
        int64_t sn = to >= 0 ? (int64_t)s * redist__node_size(m, to) : 0,
                rn = from >= 0 ? (int64_t)s * redist__node_size(m, from) : 0;
        in_at -= rn;
        err = redist__coll_sendrecv_pair(out + out_at * b, sn * b, to_rank, in + in_at * b, rn * b,
                                         from_rank, x->c);
        out_at += sn;
    }
    /* 3. On the node: each carrier hands each rank the blocks that came for it. */
    for (int k = 1; err == REDIST_SUCCESS && k < s; k++) {
        int to = (l + k) % s, from = (l - k + s) % s;
        char *q = send;
        at = 0;
        for (int n = redist__coll_next_pair(m, r, a); n >= 0; n = redist__coll_next_pair(m, r, n)) {
            int sn = redist__node_size(m, n);
            for (int i = 0; i < sn; i++, q += b)
                memcpy(q, in + (at + (int64_t)i * s + to) * b, (size_t)b);
            at += (int64_t)s * sn;
        }
        err = redist__coll_sendrecv_pair(send, w * b, mem[to], recv, carried[from] * b, mem[from],
                                         x->c);
        const char *u = recv;
        for (int n = redist__coll_next_pair(m, mem[from], a); err == REDIST_SUCCESS && n >= 0;
             n = redist__coll_next_pair(m, mem[from], n)) {
            redist__coll_node_blocks(m, n, u, x->rbuf, b, 0);
            u += redist__node_size(m, n) * b;
        }
    }
    at = 0; /* the blocks that came for this rank itself */
    for (int n = redist__coll_next_pair(m, r, a); err == REDIST_SUCCESS && n >= 0;
         n = redist__coll_next_pair(m, r, n)) {
        int sn = redist__node_size(m, n);
        const int *there = m->members + m->first[n];
        for (int i = 0; i < sn; i++)
            memcpy(x->rbuf + (int64_t)there[i] * b, in + (at + (int64_t)i * s + l) * b, (size_t)b);
        at += (int64_t)s * sn;
    }
    return err;
}

int redist__coll_alltoall_run(int idx, const void *sendbuf, void *recvbuf, int64_t b, int rank,
                              int p, void *ws, MPI_Comm c)
{
    a2a a = {(const char *)sendbuf, (char *)recvbuf, b, rank, p, ws, c};
    return b > 0 ? runs[idx](&a) : REDIST_SUCCESS;
}

int redist_alltoall(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                    MPI_Comm comm, const char *algorithm)
{
    size_t elsize = 0;
    int err = redist__coll_check_common(count, type, comm, &elsize);
    if (err == REDIST_SUCCESS)
        err = redist__coll_no_in_place(recvbuf, "recvbuf");
    if (err == REDIST_SUCCESS && count > 0 && (sendbuf == NULL || recvbuf == NULL))
        err = redist__fail(REDIST_ERR_ARG, "NULL buffer with count = %lld", (long long)count);
    /* Every rank, whatever its arguments: collective at the first call on comm. */
    const redist__node_map *nodes = NULL;
    int nerr = redist__coll_nodes(comm, &nodes);
    if (err == REDIST_SUCCESS)
        err = nerr;
    int64_t b = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    /* Choose and allocate before the agreement, so that these errors are agreed too. */
    int rank = 0, size = 1;
    redist__coll_local(comm, &rank, &size);
    redist__coll_shape shape = redist__coll_shape_of(nodes, size);
    int idx = err == REDIST_SUCCESS
                  ? redist__coll_pick_shape(table, NALGO, algorithm, &shape, (double)b, &err)
                  : -1;
    /* The algorithm's workspace, then for MPI_IN_PLACE a copy of the p blocks to send. */
    int64_t need = idx < 0 || b == 0   ? 0
                   : idx == NODE_AWARE ? na_workspace(nodes, rank, b)
                                       : workspace(idx, size, b);
    int64_t input = sendbuf == MPI_IN_PLACE ? size * b : 0;
    char *ws = redist__coll_workspace(need + input, &err);
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, b, -1, algorithm);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &size);
    if (err == REDIST_SUCCESS && b > 0) {
        char *w = ws + need;
        const void *src = redist__coll_source(sendbuf, recvbuf, size * b, &w);
        a2a a = {(const char *)src, (char *)recvbuf, b, rank, size, ws, c};
        err = idx == NODE_AWARE ? run_node_aware(&a, nodes) : runs[idx](&a);
    }
    redist__free(ws);
    return err;
}
