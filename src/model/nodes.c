/* Nodes, as the model and the node-aware schedule see them (model.h): which node each rank
 * is on, which rank of a node carries the traffic of each pair of nodes, and the terms of a
 * rank's traffic that the network changes: its messages and bytes on and off its node, the
 * off-node bytes of its whole node (what the node's link carries), and what the node-aware
 * schedule (algo/node_aware.c) would make it send and receive.
 *
 * The node-aware schedule moves the traffic from node A to node B in three steps: every
 * rank of A sends its blocks for B's ranks to the sender of the pair (A, B) (on node A),
 * which sends them to the pair's receiver (on node B) as one message, which hands each of
 * B's ranks its blocks. The pairs are spread over the ranks of a node, so that no one rank
 * carries a node's traffic: node A's k-th other node (k = (B - A - 1) mod nodes) falls to
 * its rank k mod size(A), and B receives from its k'-th other node (k' = (A - B - 1) mod
 * nodes) on its rank k' mod size(B). No MPI here: the planner gathers a node's sums over
 * MPI, the simulator (pair.c) adds them up rank by rank; both call the same functions.
 */
#include "model/model.h"

#include <stdlib.h>
#include <string.h>

void redist__node_map_free(redist__node_map *m)
{
    if (m == NULL)
        return;
    redist__free(m->node_of);
    redist__free(m->local_of);
    redist__free(m->first);
    redist__free(m->members);
    memset(m, 0, sizeof *m);
}

static int map_alloc(int size, int nodes, redist__node_map *m)
{
    memset(m, 0, sizeof *m);
    m->size = size;
    m->nodes = nodes;
    m->node_of = redist__malloc(((size_t)size + 1) * sizeof *m->node_of);
    m->local_of = redist__malloc(((size_t)size + 1) * sizeof *m->local_of);
    m->first = redist__calloc((size_t)nodes + 2, sizeof *m->first);
    m->members = redist__malloc(((size_t)size + 1) * sizeof *m->members);
    if (m->node_of && m->local_of && m->first && m->members)
        return REDIST_SUCCESS;
    redist__node_map_free(m);
    return redist__fail(REDIST_ERR_NOMEM, "the map of nodes");
}

/* members grouped by node (counting sort: ranks increase within each node), their places on
   their nodes, and the largest node; node_of is set. */
static int map_finish(redist__node_map *m)
{
    int *fill = redist__calloc((size_t)m->nodes + 1, sizeof *fill);
    if (fill == NULL) {
        redist__node_map_free(m);
        return redist__fail(REDIST_ERR_NOMEM, "the map of nodes");
    }
    for (int r = 0; r < m->size; r++)
        m->first[m->node_of[r] + 1]++;
    m->max_ranks = 0;
    for (int a = 0; a < m->nodes; a++) {
        m->max_ranks = m->first[a + 1] > m->max_ranks ? m->first[a + 1] : m->max_ranks;
        m->first[a + 1] += m->first[a];
    }
    for (int r = 0; r < m->size; r++) {
        int a = m->node_of[r];
        m->local_of[r] = fill[a];
        m->members[m->first[a] + fill[a]++] = r;
    }
    redist__free(fill);
    return REDIST_SUCCESS;
}

int redist__node_map_from_firsts(int size, const int *first_of, redist__node_map *m)
{
    int err = map_alloc(size, size, m); /* at most size nodes */
    if (err != REDIST_SUCCESS)
        return err;
    int nodes = 0;
    for (int r = 0; r < size; r++) { /* a rank whose first is not a first starts its own node */
        int f = first_of[r];
        int starts = f == r || f < 0 || f > r || first_of[f] != f;
        m->node_of[r] = starts ? nodes++ : m->node_of[f];
    }
    m->nodes = nodes;
    return map_finish(m);
}

int redist__node_map_uniform(int size, int per_node, redist__node_map *m)
{
    if (size < 1 || per_node < 1)
        return redist__fail(REDIST_ERR_ARG, "nodes: %d ranks, %d per node", size, per_node);
    int err = map_alloc(size, (size - 1) / per_node + 1, m);
    if (err != REDIST_SUCCESS)
        return err;
    for (int r = 0; r < size; r++)
        m->node_of[r] = r / per_node;
    return map_finish(m);
}

int redist__node_map_copy(const redist__node_map *from, redist__node_map *to)
{
    int err = map_alloc(from->size, from->nodes, to);
    if (err != REDIST_SUCCESS)
        return err;
    size_t n = (size_t)from->size * sizeof(int);
    memcpy(to->node_of, from->node_of, n);
    memcpy(to->local_of, from->local_of, n);
    memcpy(to->members, from->members, n);
    memcpy(to->first, from->first, ((size_t)from->nodes + 1) * sizeof(int));
    to->max_ranks = from->max_ranks;
    return REDIST_SUCCESS;
}

/* The place among a node's n ranks that its k-th other node falls to. */
static int spread(const redist__node_map *m, int node, int other)
{
    int k = ((other - node - 1) % m->nodes + m->nodes) % m->nodes;
    return m->members[m->first[node] + k % redist__node_size(m, node)];
}

int redist__pair_sender(const redist__node_map *m, int from, int to)
{
    return spread(m, from, to);
}

int redist__pair_receiver(const redist__node_map *m, int from, int to)
{
    return spread(m, to, from);
}

int redist__node_sums_length(const redist__node_map *m, int node)
{
    return 2 * m->nodes + 2 * redist__node_size(m, node);
}

/* The ranks of this node that carry a side's off-node messages, each once: sends
   (is_send) go through their pair's sender, one gathering message per distinct sender other
   than this rank, marked by its place on the node; receives come through their pair's
   receiver, one slice per distinct source node whose receiver is another rank, marked by that
   node. Marks go in seen[] (zeroed by the caller); each is counted at its carrier's place in
   tally[] (NULL: not counted). Returns how many. */
static int64_t mark_carriers(const redist__node_map *m, int rank, const redist__side *s,
                             int is_send, int64_t *tally, unsigned char *seen)
{
    int here = m->node_of[rank];
    int64_t count = 0;
    for (int i = 0; i < s->nmsgs; i++) {
        int other = m->node_of[s->msgs[i].peer];
        if (other == here)
            continue;
        int via =
            is_send ? redist__pair_sender(m, here, other) : redist__pair_receiver(m, other, here);
        int mark = is_send ? m->local_of[via] : other;
        if (via == rank || seen[mark])
            continue;
        seen[mark] = 1;
        count++;
        if (tally != NULL)
            tally[m->local_of[via]]++;
    }
    return count;
}

/* Scratch for the marks: one byte per node or per rank of a node, whichever is more. */
static unsigned char *marks(const redist__node_map *m)
{
    size_t n = (size_t)(m->nodes > m->max_ranks ? m->nodes : m->max_ranks);
    return redist__calloc(n + 1, 1);
}

int redist__node_sums_add(const redist__node_map *m, int rank, const redist__side *send,
                          const redist__side *recv, int64_t elsize, int64_t *sums)
{
    int a = m->node_of[rank], n = redist__node_size(m, a);
    int64_t *row = sums, *col = sums + m->nodes, *gather = col + m->nodes, *slices = gather + n;
    for (int i = 0; i < send->nmsgs; i++) {
        int b = m->node_of[send->msgs[i].peer];
        if (b != a)
            row[b] += send->msgs[i].nelems * elsize;
    }
    for (int i = 0; i < recv->nmsgs; i++) {
        int b = m->node_of[recv->msgs[i].peer];
        if (b != a)
            col[b] += recv->msgs[i].nelems * elsize;
    }
    unsigned char *seen = marks(m);
    if (seen == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "node sums");
    mark_carriers(m, rank, send, 1, gather, seen);
    memset(seen, 0, (size_t)(m->nodes > m->max_ranks ? m->nodes : m->max_ranks));
    mark_carriers(m, rank, recv, 0, slices, seen);
    redist__free(seen);
    return REDIST_SUCCESS;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* One side's split: messages and bytes to or from other nodes, and to or from this node's
   other ranks; the off-node bytes whose pair goes through another rank of this node
   (forwarded: they cross the node twice more), and the distinct such ranks. */
typedef struct side_split {
    int64_t remote_messages, remote_bytes, local_messages, local_bytes, forwarded_bytes;
} side_split;

static side_split split_side(const redist__node_map *m, int rank, const redist__side *s,
                             int64_t elsize, int is_send)
{
    side_split x = {0, 0, 0, 0, 0};
    int here = m->node_of[rank];
    for (int i = 0; i < s->nmsgs; i++) {
        int other = m->node_of[s->msgs[i].peer];
        int64_t bytes = s->msgs[i].nelems * elsize;
        if (other == here) {
            x.local_messages++;
            x.local_bytes += bytes;
            continue;
        }
        x.remote_messages++;
        x.remote_bytes += bytes;
        int via =
            is_send ? redist__pair_sender(m, here, other) : redist__pair_receiver(m, other, here);
        if (via != rank)
            x.forwarded_bytes += bytes;
    }
    return x;
}

/* The gathering messages a rank sends (is_send) or the slices it receives: mark_carriers' count.
   Without memory, an upper bound. */
static int64_t distinct_via(const redist__node_map *m, int rank, const redist__side *s, int is_send)
{
    unsigned char *seen = marks(m);
    int64_t count = s->nmsgs;
    if (seen != NULL)
        count = mark_carriers(m, rank, s, is_send, NULL, seen);
    redist__free(seen);
    return count;
}

void redist__node_terms(const redist__node_map *m, int rank, const redist__side *send,
                        const redist__side *recv, int64_t elsize, const int64_t *sums,
                        int64_t vals[REDIST__S_NVALS])
{
    int a = m->node_of[rank], n = redist__node_size(m, a), l = m->local_of[rank];
    const int64_t *row = sums, *col = sums + m->nodes, *gather = col + m->nodes,
                  *slices = gather + n;
    side_split s = split_side(m, rank, send, elsize, 1), r = split_side(m, rank, recv, elsize, 0);
    int64_t node_out = 0, node_in = 0, pairs_out = 0, pairs_in = 0, pair_out = 0, pair_in = 0;
    for (int b = 0; b < m->nodes; b++) {
        node_out += row[b];
        node_in += col[b];
        if (b == a)
            continue;
        if (row[b] > 0 && redist__pair_sender(m, a, b) == rank)
            pairs_out++, pair_out += row[b];
        if (col[b] > 0 && redist__pair_receiver(m, b, a) == rank)
            pairs_in++, pair_in += col[b];
    }
    /* what the pair senders and receivers of this node take from and give to this rank */
    int64_t own_out = s.remote_bytes - s.forwarded_bytes,
            own_in = r.remote_bytes - r.forwarded_bytes;
    int64_t gather_sent = s.local_messages + distinct_via(m, rank, send, 1) + slices[l],
            gather_received = r.local_messages + gather[l] + distinct_via(m, rank, recv, 0);
    int64_t gathered_bytes_sent = s.local_bytes + s.forwarded_bytes + (pair_in - own_in),
            gathered_bytes_received = r.local_bytes + r.forwarded_bytes + (pair_out - own_out);
    vals[REDIST__S_NODES] = m->nodes;
    vals[REDIST__S_NODE_RANKS] = m->max_ranks;
    vals[REDIST__S_REMOTE_MESSAGES] = max64(s.remote_messages, r.remote_messages);
    vals[REDIST__S_REMOTE_BYTES] = max64(s.remote_bytes, r.remote_bytes);
    vals[REDIST__S_REMOTE_SENT_MESSAGES] = s.remote_messages;
    vals[REDIST__S_REMOTE_SENT_BYTES] = s.remote_bytes;
    vals[REDIST__S_LOCAL_MESSAGES] = max64(s.local_messages, r.local_messages);
    vals[REDIST__S_NODE_BYTES] = max64(node_out, node_in);
    vals[REDIST__S_PAIR_MESSAGES] = max64(pairs_out, pairs_in);
    vals[REDIST__S_PAIR_BYTES] = max64(pair_out, pair_in);
    vals[REDIST__S_GATHER_MESSAGES] = max64(gather_sent, gather_received);
    vals[REDIST__S_GATHER_BYTES] = max64(gathered_bytes_sent, gathered_bytes_received);
    vals[REDIST__S_AWARE_SENT_MESSAGES] = gather_sent + pairs_out;
    vals[REDIST__S_AWARE_SENT_BYTES] = gathered_bytes_sent + pair_out;
}
