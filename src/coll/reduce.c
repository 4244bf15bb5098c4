/* redist_reduce ([GGKK03], "all-to-one reduction"): every rank contributes
 * count elements, the root receives op applied element-wise in rank order 0, 1, ..., p-1.
 *
 * Reductions go through MPI_Reduce_local, so any MPI_Op works (predefined or user-defined).
 * Operand order: a commutative op may be combined in any order, so the trees are rooted at
 * the real root; a non-commutative op (MPI_Op_commutative) is combined strictly as
 * (lower rank) op (higher rank) on a tree rooted at rank 0, whose result is then sent to the
 * root (one extra message of m bytes when root != 0).
 *
 * This file also holds the helpers shared with allreduce.c/scan.c/bcast.c (declared there):
 * the argument checks, the block partition and the order-preserving reduce-scatter.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

/* Local checks (no communication). root < 0: no root. recv_needed: recvbuf must be valid. */
/* Block i of p: elements [off, off + len), the first count % p blocks one longer. */
void redist__coll_block(int64_t count, int p, int i, int64_t *off, int64_t *len)
{
    int64_t q = count / p, r = count % p;
    *len = q + (i < r ? 1 : 0);
    *off = (int64_t)i * q + (i < r ? i : r);
}

/* Order-preserving pairwise reduce-scatter: rank r ends with block r (redist__coll_block) of
   the reduction in `out`. Step s = 1..p-1: send block (r+s)%p to its owner and receive the
   contribution of rank (r-s)%p to block r into slot (r-s)%p of ws; then combine the p slots
   in rank order. Cost (p-1)(t_s + t_w m/p), the paper's ring reduce-scatter term.
   Workspace: the p slots of block r, p len_r es bytes. */
int redist__coll_reduce_scatter_blocks(const void *src, void *out, int64_t count, size_t es,
                                       MPI_Datatype t, MPI_Op op, int rank, int p, char *slots,
                                       MPI_Comm c)
{
    int64_t myoff, mylen;
    redist__coll_block(count, p, rank, &myoff, &mylen);
    int64_t mb = mylen * (int64_t)es;
    memcpy(slots + mb * rank, (const char *)src + myoff * (int64_t)es, (size_t)mb);
    int err = REDIST_SUCCESS;
    for (int s = 1; s < p && err == REDIST_SUCCESS; s++) {
        int to = (rank + s) % p, from = (rank - s + p) % p;
        int64_t toff, tlen;
        redist__coll_block(count, p, to, &toff, &tlen);
        err = redist__coll_sendrecv((const char *)src + toff * (int64_t)es, tlen * (int64_t)es, to,
                                    slots + mb * from, mb, from, c);
    }
    for (int i = 1; i < p && err == REDIST_SUCCESS; i++)
        err = redist__coll_reduce_local(slots + mb * (i - 1), slots + mb * i, mylen, t, op);
    if (err == REDIST_SUCCESS)
        memcpy(out, slots + mb * (p - 1), (size_t)mb);
    return err;
}

int64_t redist__coll_reduce_scatter_ws(int64_t count, size_t es, int rank, int p)
{
    int64_t off, len;
    redist__coll_block(count, p, rank, &off, &len);
    return (int64_t)p * len * (int64_t)es;
}

/* The rank (in [0,p)) holding the result after the tree/ring phase: the root for a
   commutative op, else 0. The result is then moved to the root if needed. */
static int virtual_root(MPI_Op op, int root)
{
    int commute = 0;
    MPI_Op_commutative(op, &commute);
    return commute ? root : 0;
}

/* Moves the result `acc` of vroot to root's dst. */
static int deliver(const void *acc, void *dst, int64_t bytes, int vroot, int root, int rank,
                   MPI_Comm c)
{
    if (vroot == root) {
        if (rank == root)
            memcpy(dst, acc, (size_t)bytes);
        return REDIST_SUCCESS;
    }
    if (rank == vroot)
        return redist__coll_send(acc, bytes, root, c);
    if (rank == root)
        return redist__coll_recv(dst, bytes, vroot, c);
    return REDIST_SUCCESS;
}

/* Receives into *tmp the partial result of rank `from` (which covers higher relative ranks),
   computes *acc op received, in that order, and swaps the buffers: *acc holds the result. */
static int receive_and_combine(char **acc, char **tmp, int64_t count, size_t es, MPI_Datatype t,
                               MPI_Op op, int from, MPI_Comm c)
{
    int err = redist__coll_recv(*tmp, count * (int64_t)es, from, c);
    if (err == REDIST_SUCCESS)
        err = redist__coll_reduce_local(*acc, *tmp, count, t, op); /* tmp = acc op tmp */
    char *x = *acc;
    *acc = *tmp;
    *tmp = x;
    return err;
}

/* tree: binomial tree on ranks relative to vroot. Step k = 0..ceil(log p)-1: a node whose
   relative rank has bit k set sends its partial result to rel - 2^k and stops; a node with
   bit k clear receives from rel + 2^k (if it exists) and computes mine op theirs (theirs
   covers higher relative ranks). The dual of GENERAL_ONE_TO_ALL_BC.
   Cost: (t_s + t_w m) ceil(log p) (+ t_s + t_w m for a non-commutative op, root != 0).
   Workspace: the partial result acc (m bytes) and, on a node that receives (rel even,
   rel + 1 < p), the received one tmp (m bytes). */
int redist__coll_reduce_tree(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                             MPI_Op op, int root, int rank, int p, char *ws, MPI_Comm c)
{
    int64_t bytes = count * (int64_t)es;
    int vroot = virtual_root(op, root), rel = (rank - vroot + p) % p;
    char *acc = ws, *tmp = ws + bytes;
    int err = REDIST_SUCCESS;
    memcpy(acc, src, (size_t)bytes);
    for (int mask = 1; mask < p && err == REDIST_SUCCESS; mask <<= 1) {
        if (rel & mask) {
            err = redist__coll_send(acc, bytes, (rel - mask + vroot) % p, c);
            break;
        }
        if (rel + mask < p)
            err = receive_and_combine(&acc, &tmp, count, es, t, op, (rel + mask + vroot) % p, c);
    }
    if (err == REDIST_SUCCESS)
        err = deliver(acc, dst, bytes, vroot, root, rank, c);
    return err;
}

int64_t redist__coll_reduce_tree_ws(int64_t bytes, int rel, int p)
{
    return rel % 2 == 0 && rel + 1 < p ? 2 * bytes : bytes;
}

static int64_t tree_ws(int64_t count, size_t es, int rel, int rank, int p)
{
    (void)rank;
    return redist__coll_reduce_tree_ws(count * (int64_t)es, rel, p);
}

/* ring: linear array ending at vroot. The node at relative rank p-1 sends its data to p-2,
   which sends (own op received) to p-3, ..., down to relative rank 0.
   Cost: (p-1)(t_s + t_w m) (+ t_s + t_w m for a non-commutative op, root != 0).
   Workspace: acc (m bytes) and, on every node but relative rank p-1, tmp (m bytes). */
static int reduce_ring(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                       MPI_Op op, int root, int rank, int p, char *ws, MPI_Comm c)
{
    int64_t bytes = count * (int64_t)es;
    int vroot = virtual_root(op, root), rel = (rank - vroot + p) % p;
    char *acc = ws, *tmp = ws + bytes;
    int err = REDIST_SUCCESS;
    memcpy(acc, src, (size_t)bytes);
    if (rel < p - 1)
        err = receive_and_combine(&acc, &tmp, count, es, t, op, (rel + 1 + vroot) % p, c);
    if (err == REDIST_SUCCESS && rel > 0)
        err = redist__coll_send(acc, bytes, (rel - 1 + vroot) % p, c);
    if (err == REDIST_SUCCESS)
        err = deliver(acc, dst, bytes, vroot, root, rank, c);
    return err;
}

static int64_t ring_ws(int64_t count, size_t es, int rel, int rank, int p)
{
    (void)rank;
    return (rel < p - 1 ? 2 : 1) * count * (int64_t)es;
}

/* reduce_scatter-gather (large m): the dual of the improved broadcast. (1) reduce-scatter:
   rank i obtains block i (m/p bytes) of the result, combined in rank order (pairwise
   exchange, p-1 steps); (2) gather the p blocks at the root.
   Cost: 2 (p-1) t_s + 2 t_w m (p-1)/p.
   Workspace: this rank's block of the result (len_i es bytes), then the reduce-scatter's. */
static int reduce_rsg(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                      MPI_Op op, int root, int rank, int p, char *ws, MPI_Comm c)
{
    int64_t myoff, mylen;
    redist__coll_block(count, p, rank, &myoff, &mylen);
    char *mine = ws;
    int err = redist__coll_reduce_scatter_blocks(src, mine, count, es, t, op, rank, p,
                                                 ws + mylen * (int64_t)es, c);
    if (err == REDIST_SUCCESS && rank != root)
        err = redist__coll_send(mine, mylen * (int64_t)es, root, c);
    if (err == REDIST_SUCCESS && rank == root) {
        memcpy((char *)dst + myoff * (int64_t)es, mine, (size_t)(mylen * (int64_t)es));
        for (int i = 0; i < p && err == REDIST_SUCCESS; i++) {
            int64_t off, len;
            redist__coll_block(count, p, i, &off, &len);
            if (i != root)
                err = redist__coll_recv((char *)dst + off * (int64_t)es, len * (int64_t)es, i, c);
        }
    }
    return err;
}

static int64_t rsg_ws(int64_t count, size_t es, int rel, int rank, int p)
{
    (void)rel;
    int64_t off, len;
    redist__coll_block(count, p, rank, &off, &len);
    return len * (int64_t)es + redist__coll_reduce_scatter_ws(count, es, rank, p);
}

static double cost_tree(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return redist__ceil_log2(p) * (ts + tw * m);
}
static double cost_ring(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return (p - 1) * (ts + tw * m);
}
static double cost_rsg(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return 2.0 * (p - 1) * ts + 2.0 * tw * m * (p - 1) / p;
}

static const redist__coll_algo algo_tree = {"tree", redist__coll_always, cost_tree, 0};
static const redist__coll_algo algo_ring = {"ring", redist__coll_always, cost_ring, 0};
static const redist__coll_algo algo_rsg = {"reduce_scatter-gather", redist__coll_always, cost_rsg,
                                           0};
static const redist__coll_algo *const table[] = {&algo_tree, &algo_ring, &algo_rsg};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_reduce = {"reduce", table,
                                                      (int)(sizeof table / sizeof table[0])};
typedef struct {
    int (*run)(const void *, void *, int64_t, size_t, MPI_Datatype, MPI_Op, int, int, int, char *,
               MPI_Comm);
    /* Workspace bytes on rank `rank`, relative rank rel = (rank - vroot) mod p. */
    int64_t (*workspace)(int64_t count, size_t es, int rel, int rank, int p);
} algo;
static const algo algos[] = {
    {redist__coll_reduce_tree, tree_ws}, {reduce_ring, ring_ws}, {reduce_rsg, rsg_ws}};

int redist_reduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm, const char *algorithm)
{
    size_t es = 1;
    int rank = -1, p = 1;
    redist__coll_local(comm, &rank, &p);
    redist__coll_reducer r;
    int err = redist__coll_red_args(sendbuf, recvbuf, rank == root, count, type, op, &r,
                                    root < 0 ? -2 : root, comm, &es);
    int i = err == REDIST_SUCCESS
                ? redist__coll_pick(table, 3, algorithm, p, (double)count * (double)es, &err)
                : -1;
    int64_t bytes = err == REDIST_SUCCESS ? count * (int64_t)es : 0, need = 0;
    int64_t n = count * r.per_element; /* the reducer's elements, of `unit` bytes */
    size_t unit = es / (size_t)r.per_element;
    if (i >= 0 && count > 0) { /* the MPI_IN_PLACE copy (root only, checked), the algorithm's */
        int rel = (rank - virtual_root(op, root) + p) % p;
        need = (sendbuf == MPI_IN_PLACE ? bytes : 0) + algos[i].workspace(n, unit, rel, rank, p);
    }
    char *ws = redist__coll_workspace(need, &err), *w = ws;
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, bytes, root, algorithm);
    redist__coll_fingerprint_op(&fp, err == REDIST_SUCCESS ? op : MPI_OP_NULL);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err == REDIST_SUCCESS && count > 0) {
        const void *src = redist__coll_source(sendbuf, recvbuf, bytes, &w);
        err = algos[i].run(src, recvbuf, n, unit, r.type, op, root, rank, p, w, c);
    }
    redist__coll_reducer_free(&r);
    redist__free(ws);
    return err;
}
