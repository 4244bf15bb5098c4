/* The pieces the node-aware algorithms of allgather, reduce_scatter and alltoall share
 * (coll.h): which pairs of nodes a rank carries and when it meets them, and the copies of a
 * node's blocks between rank order and the node's order.
 *
 * The pairs are the plans' (model/nodes.c, redist__pair_sender and redist__pair_receiver):
 * node a's k-th other node (a + 1 + k mod nodes) falls to its local rank k mod size(a), so a
 * node's pairs spread over its ranks, and the rank of a that sends to b is the one that
 * receives from b. A rank's pairs are listed in that order (a + 1, a + 2, ... mod nodes),
 * which is also the order in which the exchange's steps meet the nodes it sends to.
 */
#include "coll/coll.h"

#include <string.h>

int64_t redist__coll_carried(const redist__node_map *m, int a, int t, int *pairs)
{
    int me = m->members[m->first[a] + t], n = 0;
    int64_t blocks = 0;
    for (int b = redist__coll_next_pair(m, me, a); b >= 0; b = redist__coll_next_pair(m, me, b)) {
        n++;
        blocks += redist__node_size(m, b);
    }
    if (pairs != NULL)
        *pairs = n;
    return blocks;
}

void redist__coll_carried_all(const redist__node_map *m, int a, int64_t *blocks, int64_t *pairs)
{
    int s = redist__node_size(m, a);
    for (int t = 0; t < s; t++)
        blocks[t] = pairs[t] = 0;
    for (int b = 0; b < m->nodes; b++)
        if (b != a) {
            int t = m->local_of[redist__pair_sender(m, a, b)];
            blocks[t] += redist__node_size(m, b);
            pairs[t]++;
        }
}

int redist__coll_most_pairs(const redist__node_map *m, int a)
{
    int s = redist__node_size(m, a);
    return (m->nodes - 2 + s) / s; /* ceil((nodes - 1) / s) */
}

int redist__coll_next_pair(const redist__node_map *m, int me, int after)
{
    int a = m->node_of[me], n = m->nodes;
    for (int k = (after - a + n) % n + 1; k < n; k++) {
        int b = (a + k) % n;
        if (redist__pair_sender(m, a, b) == me)
            return b;
    }
    return -1;
}

void redist__coll_pair_step(const redist__node_map *m, int rank, int k, int *to, int *to_rank,
                            int *from, int *from_rank)
{
    int a = m->node_of[rank], n = m->nodes;
    int b = (a + k) % n, c = ((a - k) % n + n) % n;
    *to = redist__pair_sender(m, a, b) == rank ? b : -1;
    *to_rank = *to >= 0 ? redist__pair_receiver(m, a, b) : MPI_PROC_NULL;
    *from = redist__pair_receiver(m, c, a) == rank ? c : -1;
    *from_rank = *from >= 0 ? redist__pair_sender(m, c, a) : MPI_PROC_NULL;
}

int redist__coll_contiguous(const redist__node_map *m)
{
    for (int b = 0; b < m->nodes; b++) {
        const int *r = m->members + m->first[b];
        if (r[0] != m->first[b] || r[redist__node_size(m, b) - 1] != m->first[b + 1] - 1)
            return 0;
    }
    return 1;
}

void redist__coll_node_blocks(const redist__node_map *m, int b, const char *from, char *to,
                              int64_t bytes, int to_packed)
{
    const int *r = m->members + m->first[b];
    int n = redist__node_size(m, b);
    if (r[n - 1] - r[0] == n - 1) { /* consecutive ranks (members increase) */
        int64_t at = (int64_t)r[0] * bytes;
        memcpy(to_packed ? to : to + at, to_packed ? from + at : from, (size_t)(n * bytes));
        return;
    }
    for (int j = 0; j < n; j++) {
        int64_t at = (int64_t)r[j] * bytes, in = (int64_t)j * bytes;
        memcpy(to + (to_packed ? in : at), from + (to_packed ? at : in), (size_t)bytes);
    }
}

void redist__coll_pack_carried(const redist__node_map *m, int t, const char *blocks, char *to,
                               int64_t bytes)
{
    memcpy(to, blocks + (int64_t)t * bytes, (size_t)bytes);
    to += bytes;
    for (int n = redist__coll_next_pair(m, t, m->node_of[t]); n >= 0;
         n = redist__coll_next_pair(m, t, n)) {
        redist__coll_node_blocks(m, n, blocks, to, bytes, 1);
        to += redist__node_size(m, n) * bytes;
    }
}

int redist__coll_sendrecv_pair(const char *sbuf, int64_t sbytes, int to, char *rbuf, int64_t rbytes,
                               int from, MPI_Comm c)
{
    if (sbytes == 0)
        to = MPI_PROC_NULL;
    if (rbytes == 0)
        from = MPI_PROC_NULL;
    if (to == MPI_PROC_NULL && from == MPI_PROC_NULL)
        return REDIST_SUCCESS;
    return redist__coll_sendrecv(sbuf, sbytes, to, rbuf, rbytes, from, c);
}

int redist__coll_ringv(char *buf, const int64_t *off, int n, int me, const int *members, MPI_Comm c)
{
    int right = members[(me + 1) % n], left = members[(me - 1 + n) % n];
    for (int k = 0; k < n - 1; k++) {
        int s = (me - k + n) % n, r = (me - k - 1 + 2 * n) % n;
        int err = redist__coll_sendrecv_pair(buf + off[s], off[s + 1] - off[s], right, buf + off[r],
                                             off[r + 1] - off[r], left, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}
