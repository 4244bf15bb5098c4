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
 * its place k mod size(A), and B receives from its k'-th other node (k' = (A - B - 1) mod
 * nodes) on its place k' mod size(B).
 *
 * With fewer other nodes than ranks a node, that would leave most ranks idle and put a whole
 * node's traffic to B on one rank (at 2 nodes, one rank of each carries everything). So a pair
 * has L = min(size(A), size(B)) / (nodes - 1) lanes (at least 1): lane i's sender is A's place
 * k + i (nodes - 1), its receiver B's place k' + i (nodes - 1), all distinct, and A's rank at
 * place l sends its traffic to B in lane l mod L. At 2 nodes of n ranks every rank is its own
 * lane's sender: it sends one message to the other node, whose receiver hands it out. What
 * reaches B from A's lane i is its channel A L_max + i.
 *
 * No MPI here: the planner gathers a node's sums over MPI, the simulator (pair.c) adds them
 * up rank by rank; both call the same functions.
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
    m->lanes =
        m->nodes >= 2 && m->max_ranks / (m->nodes - 1) > 1 ? m->max_ranks / (m->nodes - 1) : 1;
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
    to->lanes = from->lanes;
    return REDIST_SUCCESS;
}

int redist__pair_lanes(const redist__node_map *m, int a, int b)
{
    int sa = redist__node_size(m, a), sb = redist__node_size(m, b);
    int lanes = m->nodes >= 2 ? (sa < sb ? sa : sb) / (m->nodes - 1) : 1;
    return lanes > 1 ? lanes : 1;
}

/* The rank of `node` that carries lane `lane` of its pair with `other`. */
static int place(const redist__node_map *m, int node, int other, int lane)
{
    int k = ((other - node - 1) % m->nodes + m->nodes) % m->nodes;
    int l = (int)(((int64_t)k + (int64_t)lane * (m->nodes - 1)) % redist__node_size(m, node));
    return m->members[m->first[node] + l];
}

int redist__lane_sender(const redist__node_map *m, int from, int to, int lane)
{
    return place(m, from, to, lane);
}

int redist__lane_receiver(const redist__node_map *m, int from, int to, int lane)
{
    return place(m, to, from, lane);
}

int redist__pair_sender(const redist__node_map *m, int from, int to)
{
    return place(m, from, to, 0);
}

int redist__pair_receiver(const redist__node_map *m, int from, int to)
{
    return place(m, to, from, 0);
}

int redist__lane_of(const redist__node_map *m, int rank, int to)
{
    return m->local_of[rank] % redist__pair_lanes(m, m->node_of[rank], to);
}

int redist__node_carrier(const redist__node_map *m, int rank, int peer, int is_send)
{
    int here = m->node_of[rank], there = m->node_of[peer];
    if (here == there)
        return -1;
    return is_send ? redist__lane_sender(m, here, there, redist__lane_of(m, rank, there))
                   : redist__lane_receiver(m, there, here, redist__lane_of(m, peer, here));
}

int redist__node_channel(const redist__node_map *m, int source, int to)
{
    return m->node_of[source] * m->lanes + redist__lane_of(m, source, to);
}

static int channels(const redist__node_map *m)
{
    return m->nodes * m->lanes;
}

int redist__node_sums_length(const redist__node_map *m, int node)
{
    return 2 * channels(m) + 2 * redist__node_size(m, node);
}

/* The ranks of this node that carry a side's off-node messages, each once: sends
   (is_send) go through their lane's sender, one gathering message per distinct sender other
   than this rank, marked by its place on the node; receives come through their lane's
   receiver, one slice per distinct channel whose receiver is another rank, marked by that
   channel. Marks go in seen[] (zeroed by the caller); each is counted at its carrier's place
   in tally[] (NULL: not counted). Returns how many. */
static int64_t mark_carriers(const redist__node_map *m, int rank, const redist__side *s,
                             int is_send, int64_t *tally, unsigned char *seen)
{
    int64_t count = 0;
    for (int i = 0; i < s->nmsgs; i++) {
        int peer = s->msgs[i].peer, via = redist__node_carrier(m, rank, peer, is_send);
        if (via < 0 || via == rank)
            continue;
        int mark = is_send ? m->local_of[via] : redist__node_channel(m, peer, m->node_of[rank]);
        if (seen[mark])
            continue;
        seen[mark] = 1;
        count++;
        if (tally != NULL)
            tally[m->local_of[via]]++;
    }
    return count;
}

static size_t marks_length(const redist__node_map *m)
{
    return (size_t)(channels(m) > m->max_ranks ? channels(m) : m->max_ranks);
}

/* Scratch for the marks: one byte per channel or per rank of a node, whichever is more. */
static unsigned char *marks(const redist__node_map *m)
{
    return redist__calloc(marks_length(m) + 1, 1);
}

int redist__node_sums_add(const redist__node_map *m, int rank, const redist__side *send,
                          const redist__side *recv, int64_t elsize, int64_t *sums)
{
    int a = m->node_of[rank], n = redist__node_size(m, a);
    int64_t *row = sums, *col = sums + channels(m), *gather = col + channels(m),
            *slices = gather + n;
    for (int i = 0; i < send->nmsgs; i++) {
        int peer = send->msgs[i].peer, b = m->node_of[peer];
        if (b != a)
            row[b * m->lanes + redist__lane_of(m, rank, b)] += send->msgs[i].nelems * elsize;
    }
    for (int i = 0; i < recv->nmsgs; i++) {
        int peer = recv->msgs[i].peer;
        if (m->node_of[peer] != a)
            col[redist__node_channel(m, peer, a)] += recv->msgs[i].nelems * elsize;
    }
    unsigned char *seen = marks(m);
    if (seen == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "node sums");
    mark_carriers(m, rank, send, 1, gather, seen);
    memset(seen, 0, marks_length(m));
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
        if (redist__node_carrier(m, rank, s->msgs[i].peer, is_send) != rank)
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
    const int64_t *row = sums, *col = sums + channels(m), *gather = col + channels(m),
                  *slices = gather + n;
    side_split s = split_side(m, rank, send, elsize, 1), r = split_side(m, rank, recv, elsize, 0);
    int64_t node_out = 0, node_in = 0, pairs_out = 0, pairs_in = 0, pair_out = 0, pair_in = 0;
    for (int c = 0; c < channels(m); c++) {
        node_out += row[c];
        node_in += col[c];
    }
    /* The lanes this rank may carry, each way (the same places: sender of (a, b, i) and
       receiver of (b, a, i) are both place(a, b, i)): with more other nodes than ranks here
       every pair has one lane and the k-th other node falls to place k mod n, so only
       k = l, l + n, ... (N / n of them, not N); else every lane of every pair (at most n). */
    int few = m->nodes - 1 <= n;
    for (int k = few ? 0 : l; k < m->nodes - 1; k += few ? 1 : n) {
        int b = (a + 1 + k) % m->nodes;
        for (int i = 0; i < redist__pair_lanes(m, a, b); i++) {
            int64_t out = row[b * m->lanes + i], in = col[b * m->lanes + i];
            if (out > 0 && redist__lane_sender(m, a, b, i) == rank)
                pairs_out++, pair_out += out;
            if (in > 0 && redist__lane_receiver(m, b, a, i) == rank)
                pairs_in++, pair_in += in;
        }
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
