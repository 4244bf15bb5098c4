/* redist_allreduce ([GGKK03], "all-reduce"): every rank receives op applied
 * element-wise over all ranks' count elements, in rank order 0, 1, ..., p-1 (so a
 * non-commutative MPI_Op gives MPI's canonical result). Algorithms (any p):
 *   hypercube                 recursive doubling; non-power-of-two p folds the extra ranks
 *                             first (as MPICH does)
 *   reduce-bcast              binomial-tree reduce to rank 0, then binomial-tree broadcast
 *   reduce_scatter-allgather  (large m) pairwise reduce-scatter, then ring allgather; any
 *                             count (blocks may be empty when count < p)
 */
#include "coll/coll.h"

#include <string.h>

/* The largest power of two <= p; *rem = p - it. */
static int fold(int p, int *rem)
{
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    *rem = p - pof2;
    return pof2;
}

/* hypercube: with pof2 the largest power of two <= p and rem = p - pof2, (1) the first 2 rem
   ranks pair up, even rank 2i sends to 2i+1 which keeps (2i op 2i+1); (2) recursive doubling
   over the pof2 remaining ranks: in step k exchange with the partner across dimension k and
   combine (lower op higher), which keeps rank order; (3) odd ranks 2i+1 < 2 rem send the result
   back to 2i. Cost: (t_s + t_w m) log p (+ 2 (t_s + t_w m) when p is not a power of two).
   Workspace: the received operand tmp (m bytes), except on the even ranks < 2 rem, which
   only send, and for p = 1. */
static int allreduce_hypercube(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                               MPI_Op op, int rank, int p, char *tmp, MPI_Comm c)
{
    int64_t bytes = count * (int64_t)es;
    memcpy(dst, src, (size_t)bytes);
    int rem, pof2 = fold(p, &rem), newrank, err = REDIST_SUCCESS;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            err = redist__coll_send(dst, bytes, rank + 1, c);
            newrank = -1;
        } else {
            err = redist__coll_recv(tmp, bytes, rank - 1, c);
            if (err == REDIST_SUCCESS)
                err = redist__coll_reduce_local(tmp, dst, count, t, op); /* dst = lower op dst */
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2 && err == REDIST_SUCCESS; mask <<= 1) {
            int nd = newrank ^ mask, partner = nd < rem ? nd * 2 + 1 : nd + rem;
            err = redist__coll_sendrecv(dst, bytes, partner, tmp, bytes, partner, c);
            if (err != REDIST_SUCCESS)
                break;
            if (nd < newrank) {
                err = redist__coll_reduce_local(tmp, dst, count, t, op);
            } else {
                err = redist__coll_reduce_local(dst, tmp, count, t, op);
                memcpy(dst, tmp, (size_t)bytes);
            }
        }
    }
    if (err == REDIST_SUCCESS && rank < 2 * rem) {
        if (rank % 2)
            err = redist__coll_send(dst, bytes, rank - 1, c);
        else
            err = redist__coll_recv(dst, bytes, rank + 1, c);
    }
    return err;
}

static int64_t hypercube_ws(int64_t count, size_t es, int rank, int p)
{
    int rem;
    fold(p, &rem);
    return p == 1 || (rank < 2 * rem && rank % 2 == 0) ? 0 : count * (int64_t)es;
}

/* reduce-bcast: all-to-one reduction to rank 0 (binomial tree, order-preserving), then
   one-to-all broadcast from rank 0 (binomial tree). Cost: 2 (t_s + t_w m) ceil(log p).
   Workspace: the reduce tree's (rooted at rank 0 for any op). */
static int allreduce_rb(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                        MPI_Op op, int rank, int p, char *ws, MPI_Comm c)
{
    int err = redist__coll_reduce_tree(src, dst, count, es, t, op, 0, rank, p, ws, c);
    if (err == REDIST_SUCCESS)
        err = redist__coll_bcast_tree(dst, count * (int64_t)es, 0, rank, p, c);
    return err;
}

static int64_t rb_ws(int64_t count, size_t es, int rank, int p)
{
    return redist__coll_reduce_tree_ws(count * (int64_t)es, rank, p);
}

/* reduce_scatter-allgather (large m): (1) rank i obtains block i (about m/p bytes) of the
   result by pairwise exchange, combined in rank order; (2) ring allgather of the blocks:
   step s = 0..p-2, send block (i - s) to i + 1, receive block (i - s - 1) from i - 1.
   Cost: 2 (p-1) t_s + 2 t_w m (p-1)/p. Workspace: the reduce-scatter's (p blocks i). */
static int allreduce_rsag(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                          MPI_Op op, int rank, int p, char *ws, MPI_Comm c)
{
    int64_t e = (int64_t)es, off, len;
    char *b = dst;
    redist__coll_block(count, p, rank, &off, &len);
    int err =
        redist__coll_reduce_scatter_blocks(src, b + off * e, count, es, t, op, rank, p, ws, c);
    for (int s = 0; s < p - 1 && err == REDIST_SUCCESS; s++) {
        int sq = (rank - s + p) % p, rq = (rank - s - 1 + 2 * p) % p;
        int64_t so, sl, ro, rl;
        redist__coll_block(count, p, sq, &so, &sl);
        redist__coll_block(count, p, rq, &ro, &rl);
        err = redist__coll_sendrecv(b + so * e, sl * e, (rank + 1) % p, b + ro * e, rl * e,
                                    (rank - 1 + p) % p, c);
    }
    return err;
}

static double cost_hc(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    int fold = (p & (p - 1)) ? 2 : 0;
    return (redist__ceil_log2(p) - (fold ? 1 : 0) + fold) * (ts + tw * m);
}
static double cost_rb(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return 2.0 * redist__ceil_log2(p) * (ts + tw * m);
}
static double cost_rsag(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return 2.0 * (p - 1) * ts + 2.0 * tw * m * (p - 1) / p;
}

static const redist__coll_algo algo_hc = {"hypercube", redist__coll_always, cost_hc, 0};
static const redist__coll_algo algo_rb = {"reduce-bcast", redist__coll_always, cost_rb, 0};
static const redist__coll_algo algo_rsag = {"reduce_scatter-allgather", redist__coll_always,
                                            cost_rsag, 0};
static const redist__coll_algo *const table[] = {&algo_hc, &algo_rb, &algo_rsag};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_allreduce = {"allreduce", table,
                                                         (int)(sizeof table / sizeof table[0])};
static const redist__coll_reduction_algo algos[] = {
    {allreduce_hypercube, hypercube_ws},
    {allreduce_rb, rb_ws},
    {allreduce_rsag, redist__coll_reduce_scatter_ws}};

int redist_allreduce(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm, const char *algorithm)
{
    return redist__coll_reduction(sendbuf, recvbuf, count, type, op, comm, algorithm, table, algos,
                                  3);
}
