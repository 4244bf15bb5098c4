/* redist_scan ([GGKK03], "prefix sums"): inclusive prefix, rank k receives
 * x_0 op x_1 op ... op x_k element-wise (rank order kept, so non-commutative MPI_Ops work).
 * Algorithms (any p):
 *   hypercube  PREFIX_SUMS_HCUBE generalized to any p (partners >= p are skipped)
 *   ring       linear array: rank k receives the prefix of k-1, combines, passes it on
 */
#include "coll/coll.h"

#include <string.h>

/* hypercube (PREFIX_SUMS_HCUBE): result = msg = own data; for each dimension k, exchange msg
   with partner = rank XOR 2^k (skipped when partner >= p); if partner < rank:
   result = recv op result and msg = recv op msg, else msg = msg op recv.
   Cost: (t_s + t_w m) ceil(log p). Workspace: msg and, for p > 1, the received tmp (m bytes
   each). */
static int scan_hypercube(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                          MPI_Op op, int rank, int p, char *ws, MPI_Comm c)
{
    int64_t bytes = count * (int64_t)es;
    char *msg = ws, *tmp = ws + bytes;
    int err = REDIST_SUCCESS;
    memcpy(dst, src, (size_t)bytes);
    memcpy(msg, src, (size_t)bytes);
    for (int mask = 1; mask < p && err == REDIST_SUCCESS; mask <<= 1) {
        int partner = rank ^ mask;
        if (partner >= p)
            continue;
        err = redist__coll_sendrecv(msg, bytes, partner, tmp, bytes, partner, c);
        if (err != REDIST_SUCCESS)
            break;
        if (partner < rank) {
            err = redist__coll_reduce_local(tmp, dst, count, t, op);
            if (err == REDIST_SUCCESS)
                err = redist__coll_reduce_local(tmp, msg, count, t, op);
        } else {
            err = redist__coll_reduce_local(msg, tmp, count, t, op); /* tmp = msg op recv */
            char *x = msg;
            msg = tmp;
            tmp = x;
        }
    }
    return err;
}

static int64_t hypercube_ws(int64_t count, size_t es, int rank, int p)
{
    (void)rank;
    return (p > 1 ? 2 : 1) * count * (int64_t)es;
}

/* ring: rank 0 sends its data to 1; rank k > 0 receives the prefix of k-1, computes
   prefix op own, and sends it to k+1. Cost: (p-1)(t_s + t_w m).
   Workspace: the received prefix (m bytes) on ranks k > 0. */
static int scan_ring(const void *src, void *dst, int64_t count, size_t es, MPI_Datatype t,
                     MPI_Op op, int rank, int p, char *tmp, MPI_Comm c)
{
    int64_t bytes = count * (int64_t)es;
    int err = REDIST_SUCCESS;
    memcpy(dst, src, (size_t)bytes);
    if (rank > 0) {
        err = redist__coll_recv(tmp, bytes, rank - 1, c);
        if (err == REDIST_SUCCESS)
            err = redist__coll_reduce_local(tmp, dst, count, t, op);
    }
    if (err == REDIST_SUCCESS && rank < p - 1)
        err = redist__coll_send(dst, bytes, rank + 1, c);
    return err;
}

static int64_t ring_ws(int64_t count, size_t es, int rank, int p)
{
    (void)p;
    return rank > 0 ? count * (int64_t)es : 0;
}

static double cost_hc(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    int k = 0;
    while ((1 << k) < p)
        k++;
    return k * (ts + tw * m);
}
static double cost_ring(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return (p - 1) * (ts + tw * m);
}

static const redist__coll_algo algo_hc = {"hypercube", redist__coll_always, cost_hc, 0};
static const redist__coll_algo algo_ring = {"ring", redist__coll_always, cost_ring, 0};
static const redist__coll_algo *const table[] = {&algo_hc, &algo_ring};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_scan = {"scan", table,
                                                    (int)(sizeof table / sizeof table[0])};
static const redist__coll_reduction_algo algos[] = {{scan_hypercube, hypercube_ws},
                                                    {scan_ring, ring_ws}};

int redist_scan(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                MPI_Comm comm, const char *algorithm)
{
    return redist__coll_reduction(sendbuf, recvbuf, count, type, op, comm, algorithm, table, algos,
                                  2);
}
