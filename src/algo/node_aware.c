/* node-aware: the messages between nodes combined per pair of nodes, the pairs spread over
 * each node's ranks (locality-aware all-to-all(v): Bienz et al.; MPICH's multi-leader and
 * Open MPI's han all-to-all follow the same idea).
 *
 * A flat schedule sends each of a rank's messages on its own: with k ranks per node, up to
 * k^2 messages cross between each pair of nodes, each paying the network's start-up. Here
 * the traffic from node A to node B takes three steps:
 *   gather   every rank of A sends its blocks for B's ranks, in one message per rank that
 *            carries pairs for it, to the pair's sender s(A, B), a rank of A;
 *   network  s(A, B) sends the pair's blocks as one message to the pair's receiver r(A, B),
 *            a rank of B, laid out destination by destination;
 *   scatter  r(A, B) hands each rank of B its slice (its blocks from every rank of A, in
 *            rank order, as its receive messages lie in its pack buffer).
 * The pairs of a node are spread over its ranks (model/nodes.c: its k-th other node falls to
 * its rank k mod size), so no one rank carries the node's traffic; with fewer other nodes
 * than ranks a node, a pair has several lanes, each with its own sender and receiver, and a
 * rank's blocks for B take the lane of its place (at 2 nodes every rank sends its own
 * blocks for the other node as one message). What a receiver gets is its channel (source
 * node, lane); a destination's blocks from one channel lie together. Messages between ranks of
 * one node go directly. Every block is packed once from src and unpacked once into dst, as
 * in direct-async; the sender of a pair copies its blocks once, from what it gathered into
 * the pair's message (per block, no per-element work).
 *
 * Cost (the plan's node terms, model/nodes.c): the pattern's packing and unpacking, two
 * on-node rounds T_d + G t_msg with the G on-node messages and the bytes a rank moves on its
 * node (sent through MPI and copied once), and over the network P_r remote start-ups for the
 * pairs a rank carries plus the busiest node's off-node bytes through its link:
 *   moves + 2 T_d + G t_msg + B_g (tau_fresh + c) + P_r T_remote + B_node tau_remote.
 * A flat schedule pays a remote start-up per off-node message instead (redist__cost_network),
 * so node-aware wins when messages between ranks are small and many, and loses by its extra
 * on-node copies when they are large.
 *
 * Buffers: the pattern's pack buffers (re-laid out: the blocks for one gathering rank, and
 * those from one source node, lie together), what a rank gathers, the pairs it sends and
 * receives; all made at plan time, nothing at execute. Messages of one step between two
 * ranks are unique but for the scatter, which a receiver forwards in the order of the source
 * nodes, as its destinations post them (MPI's order between two ranks keeps them apart).
 */
#include "algo/algo.h"
#include "exec/engine.h"
#include "exec/shared.h"

#include <stdlib.h>
#include <string.h>

/* A contiguous message: the peer and where it lies in one of the buffers. */
typedef struct span {
    int peer;
    int64_t off, bytes;
} span;

/* One block the pair sender copies into a pair's message (byte offsets). */
typedef struct block_copy {
    int64_t from, to, bytes;
    int pair;
} block_copy;

/* What a receive request belongs to. */
enum { R_DIRECT, R_GATHER, R_PAIR, R_SCATTER };
typedef struct recv_item {
    int kind, index, chunks;
} recv_item;

typedef struct state {
    /* the pattern's messages between ranks of this node (indices of send / recv msgs) */
    int *direct_send, ndirect_send, *direct_recv, ndirect_recv;
    /* gather: ranges of sendbuf to this node's pair senders; what they send here */
    span *gather_out, *gather_in;
    int ngather_out, ngather_in;
    block_copy *copies; /* this rank's own blocks first (own_copies), then per gather_in */
    int ncopies, own_copies, *copies_first; /* [ngather_in + 1] after the own ones */
    /* network: the pairs this rank sends (pairbuf) and receives (relaybuf, by source node) */
    span *pair_out, *pair_in;
    int npair_out, npair_in, *pending; /* gathers still due per pair sent (this execute) */
    int *pending_init;                 /* ... at the start of an execute */
    int *pair_channel;                 /* the channel (source node, lane) of each pair in */
    /* scatter: per pair received, its slices (peer this rank: unpacked here) */
    span *slices;
    int *slices_first; /* [npair_in + 1] */
    /* received slices: per channel with a receiver elsewhere, the recvbuf range */
    span *scatter_in;
    int nscatter_in, *scatter_channel;
    /* the receive messages of each channel (source node, lane: model/nodes.c), in recvbuf
       order */
    int *group_first, *group_msgs, *group_of_channel; /* [nodes * lanes]: -1 none */
    char *gatherbuf, *pairbuf, *relaybuf;
    /* requests */
    recv_item *items;
    int nitems, *item_of_req, nrecv_reqs, *indices, *chunks_left;
    MPI_Request *recv_reqs, *send_reqs;
    int nsend_reqs, send_cap;
    int items_left, next_forward, *pair_arrived;
    int64_t sent_messages, sent_bytes, off_messages, off_bytes; /* stats */
} state;

static int applicable(const redist__case *c)
{
    return c->t.n.nodes >= 2 ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static int steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    (void)m, (void)opt;
    return c->t.n.max_pair_messages > 0 ? 3 : c->t.max_messages > 0;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt, (void)transport;
    const redist__traffic *t = &c->t;
    const redist__node_traffic *n = &t->n;
    double fresh = redist__fresh_per_byte(m);
    double moves = m->copy_per_byte * (double)(t->max_copy_bytes + 2 * t->max_bytes) +
                   m->copy_per_run * (double)(t->max_self_runs + t->max_runs);
    double on_node = n->max_gather_messages > 0
                         ? 2.0 * m->startup + m->per_message * (double)n->max_gather_messages
                         : 0.0;
    on_node += (fresh + m->copy_per_byte) * (double)n->max_gather_bytes;
    double network = n->max_pair_messages > 0 ? m->remote_startup * (double)n->max_pair_messages +
                                                    m->remote_per_byte * (double)n->max_node_bytes +
                                                    fresh * (double)n->max_pair_bytes
                                              : 0.0;
    return moves + on_node + network;
}

/* What all ranks send in its three steps (the case's node terms; the totals where explain
   computed them). */
static int explain(const redist__case *c, const redist__machine *m, const redist_options *opt,
                   redist__traffic_summary *out)
{
    (void)m, (void)opt;
    const redist__node_traffic *n = &c->t.n;
    if (n->nodes < 2)
        return REDIST_ERR_NOT_APPLICABLE;
    *out = (redist__traffic_summary){n->max_aware_sent_messages, n->max_aware_sent_bytes,
                                     n->aware_total_messages, n->aware_total_bytes};
    return REDIST_SUCCESS;
}

/* ---- set-up ------------------------------------------------------------------------------ */

typedef struct keyed {
    int64_t k1, k2;
    int idx;
} keyed;

static int compare_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The rank of this node that carries message msg of a side off node (send: its pair's sender;
   receive: its pair's receiver, in the lanes of model/nodes.c), or -1 for a message on the
   node. */
static int via_of(const struct redist_plan_s *p, int is_send, const redist__msg *msg)
{
    return redist__node_carrier(p->nodes, p->rank, msg->peer, is_send);
}

/* The side's messages in a new pack-buffer order: those on the node first, then by (place
   of the rank that carries them (sends) or channel (receives), node, peer); their offsets
   re-laid in that order. The order is returned (n entries), NULL without memory. */
static int *relayout(struct redist_plan_s *p, redist__side *side, int is_send)
{
    const redist__node_map *m = p->nodes;
    keyed *k = redist__malloc(((size_t)side->nmsgs + 1) * sizeof *k);
    int *order = redist__malloc(((size_t)side->nmsgs + 1) * sizeof *order);
    if (k == NULL || order == NULL) {
        redist__free(k);
        redist__free(order);
        return NULL;
    }
    for (int i = 0; i < side->nmsgs; i++) {
        int via = via_of(p, is_send, &side->msgs[i]);
        int node = m->node_of[side->msgs[i].peer];
        /* sends: grouped by the rank that gathers them; receives: by channel */
        k[i] = (keyed){via < 0   ? -1
                       : is_send ? m->local_of[via]
                                 : redist__node_channel(m, side->msgs[i].peer, m->node_of[p->rank]),
                       (int64_t)node * m->size + side->msgs[i].peer, i};
    }
    qsort(k, (size_t)side->nmsgs, sizeof *k, compare_keyed);
    int64_t off = 0;
    for (int i = 0; i < side->nmsgs; i++) {
        order[i] = k[i].idx;
        side->msgs[k[i].idx].offset = off;
        off += side->msgs[k[i].idx].nelems;
    }
    redist__free(k);
    return order;
}

/* Whether every rank of the node is still fine (MIN over the node); a failed rank stops all
   of them at the same point, so that none waits in a collective the others left. */
static int node_ok(MPI_Comm node, int ok)
{
    int all = 0;
    return MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, node) == MPI_SUCCESS && all;
}

/* An all-to-all of int64 lists over the node (n ranks): counts_out[j] entries of out for the
   node's rank j, in order; *in receives counts_in[j] entries from each j, in order. Every
   rank of the node calls it; a NULL counts_out or counts_in (a rank that failed) fails it on
   all of them. */
static int node_exchange(MPI_Comm node, int n, const int *counts_out, const int64_t *out,
                         int *counts_in, int64_t **in)
{
    int *sd = redist__calloc((size_t)n + 1, sizeof *sd),
        *rd = redist__calloc((size_t)n + 1, sizeof *rd);
    *in = NULL;
    int ok = node_ok(node, sd != NULL && rd != NULL && counts_out != NULL && counts_in != NULL) &&
             MPI_Alltoall(counts_out, 1, MPI_INT, counts_in, 1, MPI_INT, node) == MPI_SUCCESS;
    for (int j = 0; ok && j < n; j++) {
        sd[j + 1] = sd[j] + counts_out[j];
        rd[j + 1] = rd[j] + counts_in[j];
    }
    ok = ok && node_ok(node, (*in = redist__malloc(((size_t)(ok ? rd[n] : 0) + 1) * sizeof **in)) !=
                                 NULL);
    ok = ok && MPI_Alltoallv(out, counts_out, sd, MPI_INT64_T, *in, counts_in, rd, MPI_INT64_T,
                             node) == MPI_SUCCESS;
    redist__free(sd);
    redist__free(rd);
    return ok ? REDIST_SUCCESS
              : redist__fail(REDIST_ERR_NOMEM, "node-aware set-up: the exchange of block sizes");
}

/* What this rank tells the node's other ranks: (destination, elements) per block it gives a
   pair sender (gather lists), and (channel, elements) per pair receiver that hands it blocks
   (slice lists). Lists for the node's rank j are entries [first[j], first[j + 1]) of
   data, two int64 each. */
typedef struct lists {
    int *count; /* [n]: int64 entries for rank j */
    int64_t *data;
} lists;

static void lists_free(lists *l)
{
    redist__free(l->count);
    redist__free(l->data);
}

/* The gather lists: the send messages in pack order (grouped by pair sender already). */
static int gather_lists(const struct redist_plan_s *p, const int *order, int n, lists *l)
{
    l->count = redist__calloc((size_t)n + 1, sizeof *l->count);
    l->data = redist__malloc(2 * ((size_t)p->send.nmsgs + 1) * sizeof *l->data);
    if (l->count == NULL || l->data == NULL)
        return REDIST_ERR_NOMEM;
    int64_t at = 0;
    for (int x = 0; x < p->send.nmsgs; x++) {
        const redist__msg *msg = &p->send.msgs[order[x]];
        int via = via_of(p, 1, msg);
        if (via < 0 || via == p->rank)
            continue;
        l->count[p->nodes->local_of[via]] += 2;
        l->data[at++] = msg->peer;
        l->data[at++] = msg->nelems;
    }
    return REDIST_SUCCESS;
}

/* The channel's receiver on this node. */
static int receiver_of(const redist__node_map *m, int here, int channel)
{
    return redist__lane_receiver(m, channel / m->lanes, here, channel % m->lanes);
}

/* The slice lists: per channel whose receiver is another rank, the elements it sends here;
   grouped by receiver (counted first, then placed). */
static int slice_lists(const struct redist_plan_s *p, state *s, int n, lists *l)
{
    const redist__node_map *m = p->nodes;
    int here = m->node_of[p->rank], ngroups = 0, nchannels = m->nodes * m->lanes;
    for (int c = 0; c < nchannels; c++)
        ngroups += s->group_of_channel[c] >= 0;
    l->count = redist__calloc((size_t)n + 1, sizeof *l->count);
    l->data = redist__malloc(2 * ((size_t)ngroups + 1) * sizeof *l->data);
    int *at = redist__calloc((size_t)n + 1, sizeof *at);
    int err = l->count && l->data && at ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    for (int pass = 0; err == REDIST_SUCCESS && pass < 2; pass++) {
        for (int c = 0; c < nchannels; c++) {
            int g = s->group_of_channel[c];
            int r = g >= 0 ? receiver_of(m, here, c) : p->rank;
            if (r == p->rank)
                continue;
            int j = m->local_of[r];
            if (pass == 0) {
                l->count[j] += 2;
                continue;
            }
            int64_t elems = 0;
            for (int x = s->group_first[g]; x < s->group_first[g + 1]; x++)
                elems += p->recv.msgs[s->group_msgs[x]].nelems;
            l->data[at[j]++] = c;
            l->data[at[j]++] = elems;
        }
        for (int j = 0; pass == 0 && j < n; j++)
            at[j + 1] = at[j] + l->count[j];
    }
    redist__free(at);
    return err;
}

/* The receive messages grouped by channel, in recvbuf order (order: relayout's); the
   messages on this node are not grouped (direct). */
static int make_groups(const struct redist_plan_s *p, state *s, const int *order)
{
    const redist__node_map *m = p->nodes;
    int here = m->node_of[p->rank], n = p->recv.nmsgs, nchannels = m->nodes * m->lanes;
    s->group_of_channel = redist__malloc(((size_t)nchannels + 1) * sizeof *s->group_of_channel);
    s->group_first = redist__malloc(((size_t)n + 2) * sizeof *s->group_first);
    s->group_msgs = redist__malloc(((size_t)n + 1) * sizeof *s->group_msgs);
    if (!s->group_of_channel || !s->group_first || !s->group_msgs)
        return REDIST_ERR_NOMEM;
    for (int c = 0; c < nchannels; c++)
        s->group_of_channel[c] = -1;
    int groups = 0, k = 0;
    for (int x = 0; x < n; x++) {
        int i = order[x], peer = p->recv.msgs[i].peer;
        if (m->node_of[peer] == here)
            continue;
        int c = redist__node_channel(m, peer, here);
        if (s->group_of_channel[c] < 0) {
            s->group_of_channel[c] = groups;
            s->group_first[groups++] = k;
        }
        s->group_msgs[k++] = i;
    }
    s->group_first[groups] = k;
    return REDIST_SUCCESS;
}

/* A block of a pair this rank sends: from which rank to which, its elements, where it lies
   here (gatherbuf, or sendbuf for its own) and where it goes in pairbuf. */
typedef struct entry {
    int from_rank, to_rank, own, pair;
    int64_t elems, at, place;
} entry;

/* The entries sorted by (k1, k2): an index order (NULL without memory). */
static int *sorted_entries(const entry *e, int64_t k, const redist__node_map *m, int by_pair)
{
    keyed *key = redist__malloc(((size_t)k + 1) * sizeof *key);
    int *order = redist__malloc(((size_t)k + 1) * sizeof *order);
    if (key == NULL || order == NULL) {
        redist__free(key);
        redist__free(order);
        return NULL;
    }
    for (int64_t x = 0; x < k; x++) /* pairs: by destination node, rank, then source rank;
                                       else by source (own first), in its list's order */
        key[x] = by_pair ? (keyed){(int64_t)m->node_of[e[x].to_rank] * m->size + e[x].to_rank,
                                   e[x].from_rank, (int)x}
                         : (keyed){e[x].own ? -1 : e[x].from_rank, e[x].at, (int)x};
    qsort(key, (size_t)k, sizeof *key, compare_keyed);
    for (int64_t x = 0; x < k; x++)
        order[x] = key[x].idx;
    redist__free(key);
    return order;
}

/* The blocks this rank sends as a pair sender: its own, then the node's others' from the
   gather lists it received (counts_in[j] int64 from node rank j), with gather_in. */
static entry *collect_entries(const struct redist_plan_s *p, state *s, const int *counts_in,
                              const int64_t *in, int64_t *count)
{
    const redist__node_map *m = p->nodes;
    int here = m->node_of[p->rank], n = redist__node_size(m, here);
    int64_t es = (int64_t)p->elsize, total = 0, k = 0, gathered = 0;
    for (int j = 0; j < n; j++)
        total += counts_in[j] / 2;
    for (int i = 0; i < p->send.nmsgs; i++)
        total += via_of(p, 1, &p->send.msgs[i]) == p->rank;
    entry *e = redist__malloc(((size_t)total + 1) * sizeof *e);
    s->gather_in = redist__malloc(((size_t)n + 1) * sizeof *s->gather_in);
    if (e == NULL || s->gather_in == NULL) {
        redist__free(e);
        return NULL;
    }
    for (int i = 0; i < p->send.nmsgs; i++)
        if (via_of(p, 1, &p->send.msgs[i]) == p->rank)
            e[k++] = (entry){p->rank, p->send.msgs[i].peer,   1,
                             -1,      p->send.msgs[i].nelems, p->send.msgs[i].offset * es,
                             0};
    for (int j = 0, x = 0; j < n; j++) {
        int from = m->members[m->first[here] + j];
        int64_t bytes = 0;
        for (int c = 0; c < counts_in[j]; c += 2, x += 2) {
            e[k++] = (entry){from, (int)in[x], 0, -1, in[x + 1], gathered + bytes, 0};
            bytes += in[x + 1] * es;
        }
        if (bytes > 0)
            s->gather_in[s->ngather_in++] = (span){from, gathered, bytes};
        gathered += bytes;
    }
    *count = k;
    return e;
}

/* As a pair sender: the pairs' layout in pairbuf (by destination, then source), the block
   copies into it (own first, then per gathered message in its order) and how many gathered
   messages each pair waits for. */
static int make_pairs_out(const struct redist_plan_s *p, state *s, const int *counts_in,
                          const int64_t *in)
{
    const redist__node_map *m = p->nodes;
    int here = m->node_of[p->rank];
    int64_t es = (int64_t)p->elsize, k = 0;
    entry *e = collect_entries(p, s, counts_in, in, &k);
    int *by_pair = e ? sorted_entries(e, k, m, 1) : NULL;
    s->copies = redist__malloc(((size_t)k + 1) * sizeof *s->copies);
    s->copies_first = redist__malloc(((size_t)s->ngather_in + 2) * sizeof *s->copies_first);
    s->pair_out = redist__malloc(((size_t)m->nodes + 1) * sizeof *s->pair_out);
    s->pending_init = redist__calloc((size_t)m->nodes + 1, sizeof *s->pending_init);
    s->pending = redist__calloc((size_t)m->nodes + 1, sizeof *s->pending);
    int err =
        e && by_pair && s->copies && s->copies_first && s->pair_out && s->pending_init && s->pending
            ? REDIST_SUCCESS
            : REDIST_ERR_NOMEM;
    int64_t off = 0;
    for (int64_t x = 0; err == REDIST_SUCCESS && x < k; x++) {
        entry *b = &e[by_pair[x]];
        int node = m->node_of[b->to_rank]; /* every block of it is in the lane this rank sends */
        int to = redist__lane_receiver(m, here, node, redist__lane_of(m, b->from_rank, node));
        if (s->npair_out == 0 || s->pair_out[s->npair_out - 1].peer != to)
            s->pair_out[s->npair_out++] = (span){to, off, 0};
        b->pair = s->npair_out - 1;
        b->place = off;
        s->pair_out[b->pair].bytes += b->elems * es;
        off += b->elems * es;
    }
    redist__free(by_pair);
    int *by_source = err == REDIST_SUCCESS ? sorted_entries(e, k, m, 0) : NULL;
    if (err == REDIST_SUCCESS && by_source == NULL)
        err = REDIST_ERR_NOMEM;
    int g = -1;
    for (int64_t x = 0; err == REDIST_SUCCESS && x < k; x++) {
        const entry *b = &e[by_source[x]];
        if (!b->own && (g < 0 || s->gather_in[g].peer != b->from_rank))
            s->copies_first[++g] = (int)x; /* a new gathered message */
        s->own_copies += b->own;
        s->copies[s->ncopies++] = (block_copy){b->at, b->place, b->elems * es, b->pair};
        int first_of_run = x == 0 || b->own || s->copies[x - 1].pair != b->pair ||
                           e[by_source[x - 1]].own || e[by_source[x - 1]].from_rank != b->from_rank;
        if (!b->own && first_of_run)
            s->pending_init[b->pair]++;
    }
    if (err == REDIST_SUCCESS)
        s->copies_first[g + 1] = (int)k;
    redist__free(by_source);
    redist__free(e);
    return err;
}

/* As a pair receiver: the pairs it receives (by channel: at most one lane of each source
   node) and their slices (by destination rank), from the slice lists it received
   (counts_in[j] int64 from node rank j) and its own groups. */
static int make_pairs_in(const struct redist_plan_s *p, state *s, const int *counts_in,
                         const int64_t *in)
{
    const redist__node_map *m = p->nodes;
    int here = m->node_of[p->rank], n = redist__node_size(m, here);
    int64_t es = (int64_t)p->elsize, total = 0, k = 0;
    int nchannels = m->nodes * m->lanes;
    for (int j = 0; j < n; j++)
        total += counts_in[j] / 2;
    for (int c = 0; c < nchannels; c++)
        total += s->group_of_channel[c] >= 0 && receiver_of(m, here, c) == p->rank;
    entry *e = redist__malloc(((size_t)total + 1) * sizeof *e);
    keyed *key = redist__malloc(((size_t)total + 1) * sizeof *key);
    s->slices = redist__malloc(((size_t)total + 1) * sizeof *s->slices);
    s->pair_in = redist__malloc(((size_t)m->nodes + 1) * sizeof *s->pair_in);
    s->pair_channel = redist__malloc(((size_t)m->nodes + 1) * sizeof *s->pair_channel);
    s->slices_first = redist__malloc(((size_t)m->nodes + 2) * sizeof *s->slices_first);
    s->pair_arrived = redist__calloc((size_t)m->nodes + 1, sizeof *s->pair_arrived);
    int err =
        e && key && s->slices && s->pair_in && s->pair_channel && s->slices_first && s->pair_arrived
            ? REDIST_SUCCESS
            : REDIST_ERR_NOMEM;
    for (int c = 0; err == REDIST_SUCCESS && c < nchannels; c++) { /* own slices: (channel, me) */
        int g = s->group_of_channel[c];
        if (g < 0 || receiver_of(m, here, c) != p->rank)
            continue;
        int64_t elems = 0;
        for (int x = s->group_first[g]; x < s->group_first[g + 1]; x++)
            elems += p->recv.msgs[s->group_msgs[x]].nelems;
        e[k++] = (entry){c, p->rank, 1, -1, elems, 0, 0};
    }
    for (int j = 0, x = 0; err == REDIST_SUCCESS && j < n; j++)
        for (int c = 0; c < counts_in[j]; c += 2, x += 2)
            e[k++] = (entry){(int)in[x], m->members[m->first[here] + j], 0, -1, in[x + 1], 0, 0};
    for (int64_t x = 0; err == REDIST_SUCCESS && x < k; x++) /* by channel, destination */
        key[x] = (keyed){e[x].from_rank, e[x].to_rank, (int)x};
    if (err == REDIST_SUCCESS)
        qsort(key, (size_t)k, sizeof *key, compare_keyed);
    int64_t off = 0;
    for (int64_t x = 0; err == REDIST_SUCCESS && x < k; x++) {
        const entry *b = &e[key[x].idx];
        int c = b->from_rank; /* the channel, in the entries of this side */
        if (s->npair_in == 0 || s->pair_channel[s->npair_in - 1] != c) {
            s->slices_first[s->npair_in] = (int)x;
            s->pair_channel[s->npair_in] = c;
            s->pair_in[s->npair_in++] =
                (span){redist__lane_sender(m, c / m->lanes, here, c % m->lanes), off, 0};
        }
        s->slices[x] = (span){b->to_rank, off, b->elems * es};
        s->pair_in[s->npair_in - 1].bytes += b->elems * es;
        off += b->elems * es;
    }
    if (err == REDIST_SUCCESS)
        s->slices_first[s->npair_in] = (int)k;
    redist__free(key);
    redist__free(e);
    return err;
}

/* As a sender of blocks and their destination: the ranges of sendbuf for the node's pair
   senders (gather_out), of recvbuf from its pair receivers (scatter_in), and the pattern's
   messages on the node (direct). order: the send side's pack order. */
static int make_local(const struct redist_plan_s *p, state *s, const int *send_order)
{
    const redist__node_map *m = p->nodes;
    int here = m->node_of[p->rank], n = redist__node_size(m, here);
    int64_t es = (int64_t)p->elsize;
    s->gather_out = redist__malloc(((size_t)n + 1) * sizeof *s->gather_out);
    int nchannels = m->nodes * m->lanes;
    s->scatter_in = redist__malloc(((size_t)nchannels + 1) * sizeof *s->scatter_in);
    s->scatter_channel = redist__malloc(((size_t)nchannels + 1) * sizeof *s->scatter_channel);
    s->direct_send = redist__malloc(((size_t)p->send.nmsgs + 1) * sizeof *s->direct_send);
    s->direct_recv = redist__malloc(((size_t)p->recv.nmsgs + 1) * sizeof *s->direct_recv);
    if (!s->gather_out || !s->scatter_in || !s->scatter_channel || !s->direct_send ||
        !s->direct_recv)
        return REDIST_ERR_NOMEM;
    for (int x = 0; x < p->send.nmsgs; x++) {
        const redist__msg *msg = &p->send.msgs[send_order[x]];
        int via = via_of(p, 1, msg);
        if (via < 0) {
            s->direct_send[s->ndirect_send++] = send_order[x];
            continue;
        }
        if (via == p->rank)
            continue;
        span *last = s->ngather_out > 0 ? &s->gather_out[s->ngather_out - 1] : NULL;
        if (last == NULL || last->peer != via)
            s->gather_out[s->ngather_out++] = (span){via, msg->offset * es, 0};
        s->gather_out[s->ngather_out - 1].bytes += msg->nelems * es;
    }
    for (int i = 0; i < p->recv.nmsgs; i++)
        if (m->node_of[p->recv.msgs[i].peer] == here)
            s->direct_recv[s->ndirect_recv++] = i;
    for (int c = 0; c < nchannels; c++) {
        int g = s->group_of_channel[c];
        if (g < 0 || receiver_of(m, here, c) == p->rank)
            continue;
        const redist__msg *first = &p->recv.msgs[s->group_msgs[s->group_first[g]]];
        int64_t bytes = 0;
        for (int x = s->group_first[g]; x < s->group_first[g + 1]; x++)
            bytes += p->recv.msgs[s->group_msgs[x]].nelems * es;
        s->scatter_channel[s->nscatter_in] = c;
        s->scatter_in[s->nscatter_in++] =
            (span){receiver_of(m, here, c), first->offset * es, bytes};
    }
    return REDIST_SUCCESS;
}

/* The receive items and the room for every request of an execute. */
static int make_requests(const struct redist_plan_s *p, state *s)
{
    int64_t es = (int64_t)p->elsize,
            nitems = s->ndirect_recv + s->ngather_in + s->npair_in + s->nscatter_in;
    int64_t nrecv = 0, nsend = 0;
    s->items = redist__malloc(((size_t)nitems + 1) * sizeof *s->items);
    if (s->items == NULL)
        return REDIST_ERR_NOMEM;
    const struct {
        int kind, n;
        const span *spans;
    } kinds[] = {{R_GATHER, s->ngather_in, s->gather_in},
                 {R_PAIR, s->npair_in, s->pair_in},
                 {R_SCATTER, s->nscatter_in, s->scatter_in}};
    for (int x = 0; x < s->ndirect_recv; x++) {
        int64_t c = redist__chunks(p->recv.msgs[s->direct_recv[x]].nelems * es);
        s->items[s->nitems++] = (recv_item){R_DIRECT, x, (int)c};
        nrecv += c;
    }
    for (int k = 0; k < 3; k++)
        for (int x = 0; x < kinds[k].n; x++) {
            int64_t c = redist__chunks(kinds[k].spans[x].bytes);
            s->items[s->nitems++] = (recv_item){kinds[k].kind, x, (int)c};
            nrecv += c;
        }
    for (int x = 0; x < s->ndirect_send; x++)
        nsend += redist__chunks(p->send.msgs[s->direct_send[x]].nelems * es);
    for (int x = 0; x < s->ngather_out; x++)
        nsend += redist__chunks(s->gather_out[x].bytes);
    for (int x = 0; x < s->npair_out; x++)
        nsend += redist__chunks(s->pair_out[x].bytes);
    for (int x = 0; x < s->slices_first[s->npair_in]; x++)
        nsend += s->slices[x].peer != p->rank ? redist__chunks(s->slices[x].bytes) : 0;
    if (nrecv + nsend > INT32_MAX)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "too many requests");
    s->nrecv_reqs = (int)nrecv;
    s->send_cap = (int)nsend;
    s->recv_reqs = redist__malloc(((size_t)nrecv + 1) * sizeof *s->recv_reqs);
    s->send_reqs = redist__malloc(((size_t)nsend + 1) * sizeof *s->send_reqs);
    s->item_of_req = redist__malloc(((size_t)nrecv + 1) * sizeof *s->item_of_req);
    s->indices = redist__malloc(((size_t)nrecv + 1) * sizeof *s->indices);
    s->chunks_left = redist__malloc(((size_t)s->nitems + 1) * sizeof *s->chunks_left);
    return s->recv_reqs && s->send_reqs && s->item_of_req && s->indices && s->chunks_left
               ? REDIST_SUCCESS
               : REDIST_ERR_NOMEM;
}

static int64_t spans_bytes(const span *v, int n)
{
    int64_t b = 0;
    for (int x = 0; x < n; x++)
        b += v[x].bytes;
    return b;
}

/* The buffers of the steps between the pack buffers: what this rank gathers, the pairs it
   sends, the pairs it receives. */
static int make_buffers(struct redist_plan_s *p, state *s)
{
    s->gatherbuf = redist__plan_buffer(p, (size_t)spans_bytes(s->gather_in, s->ngather_in) + 1);
    s->pairbuf = redist__plan_buffer(p, (size_t)spans_bytes(s->pair_out, s->npair_out) + 1);
    s->relaybuf = redist__plan_buffer(p, (size_t)spans_bytes(s->pair_in, s->npair_in) + 1);
    return s->gatherbuf && s->pairbuf && s->relaybuf ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    void *owned[] = {
        s->direct_send,  s->direct_recv,  s->gather_out,       s->gather_in,  s->copies,
        s->copies_first, s->pair_out,     s->pair_in,          s->pending,    s->pending_init,
        s->pair_channel, s->slices,       s->slices_first,     s->scatter_in, s->scatter_channel,
        s->group_first,  s->group_msgs,   s->group_of_channel, s->gatherbuf,  s->pairbuf,
        s->relaybuf,     s->items,        s->item_of_req,      s->indices,    s->recv_reqs,
        s->send_reqs,    s->pair_arrived, s->chunks_left};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        redist__free(owned[i]);
    redist__free(s);
    p->algo_state = NULL;
}

/* Collective over the plan's communicator (every rank sets up alike): the node's ranks tell
   each other the sizes of the blocks they gather and hand over; a rank that failed before
   still takes part, with nothing to tell, and keeps its error. */
static int setup(struct redist_plan_s *p)
{
    state *s = redist__calloc(1, sizeof *s);
    p->algo_state = s;
    int err = s != NULL && p->nodes != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    int *send_order = err == REDIST_SUCCESS ? relayout(p, &p->send, 1) : NULL;
    int *recv_order = send_order != NULL ? relayout(p, &p->recv, 0) : NULL;
    if (err == REDIST_SUCCESS && recv_order == NULL)
        err = REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS)
        err = make_groups(p, s, recv_order);
    MPI_Comm node = MPI_COMM_NULL;
    int rc = redist__plan_node_comm(p->comm, &node), n = 0;
    if (rc != REDIST_SUCCESS)
        err = rc;
    else
        MPI_Comm_size(node, &n);
    lists gather = {NULL, NULL}, slice = {NULL, NULL};
    int *zeros = redist__calloc((size_t)n + 1, sizeof *zeros), *cin = NULL, *cin2 = NULL;
    if (err == REDIST_SUCCESS)
        err = gather_lists(p, send_order, n, &gather);
    if (err == REDIST_SUCCESS)
        err = slice_lists(p, s, n, &slice);
    int64_t *in = NULL, *in2 = NULL;
    if (node != MPI_COMM_NULL) {
        cin = redist__calloc((size_t)n + 1, sizeof *cin);
        cin2 = redist__calloc((size_t)n + 1, sizeof *cin2);
        int ok = err == REDIST_SUCCESS && zeros && cin && cin2;
        /* both exchanges on every rank of the node: each agrees first that all can go on */
        int e1 = node_exchange(node, n, ok ? gather.count : NULL, gather.data, cin, &in);
        int e2 = node_exchange(node, n, ok ? slice.count : NULL, slice.data, cin2, &in2);
        err = err != REDIST_SUCCESS ? err : e1 != REDIST_SUCCESS ? e1 : e2;
        MPI_Comm_free(&node);
    }
    if (err == REDIST_SUCCESS)
        err = make_pairs_out(p, s, cin, in);
    if (err == REDIST_SUCCESS)
        err = make_pairs_in(p, s, cin2, in2);
    if (err == REDIST_SUCCESS)
        err = make_local(p, s, send_order);
    if (err == REDIST_SUCCESS)
        err = make_requests(p, s);
    if (err == REDIST_SUCCESS)
        err = make_buffers(p, s);
    lists_free(&gather);
    lists_free(&slice);
    redist__free(zeros);
    redist__free(cin);
    redist__free(cin2);
    redist__free(in);
    redist__free(in2);
    redist__free(send_order);
    redist__free(recv_order);
    return err == REDIST_ERR_NOMEM ? redist__fail(err, "node-aware set-up") : err;
}

/* ---- execution --------------------------------------------------------------------------- */

static int post_send(struct redist_plan_s *p, state *s, char *base, const span *x, int tag)
{
    int n = redist__post_bytes_tagged(base + x->off, x->bytes, x->peer, 1, tag, p->comm,
                                      s->send_reqs + s->nsend_reqs);
    if (n > 0)
        s->nsend_reqs += n;
    return n < 0 ? n : REDIST_SUCCESS;
}

/* Unpacks channel c's receive messages, which lie together from `data` on. */
static void unpack_group(struct redist_plan_s *p, const state *s, int c, const char *data)
{
    int g = s->group_of_channel[c];
    if (p->dry || g < 0)
        return;
    int64_t es = (int64_t)p->elsize, base = p->recv.msgs[s->group_msgs[s->group_first[g]]].offset;
    for (int x = s->group_first[g]; x < s->group_first[g + 1]; x++) {
        const redist__msg *m = &p->recv.msgs[s->group_msgs[x]];
        redist__par_move(p, REDIST__UNPACK, m, data + (m->offset - base) * es, p->cur_dst);
    }
}

/* A pair whose blocks are all in pairbuf goes to its receiver. */
static int pair_ready(struct redist_plan_s *p, state *s, int pair)
{
    return post_send(p, s, s->pairbuf, &s->pair_out[pair], REDIST__TAG_NETWORK);
}

/* Copies blocks [from, to) into pairbuf from base; each pair whose last gathered message
   this was (runs of a pair count once) goes. */
static int copy_blocks(struct redist_plan_s *p, state *s, int from, int to, const char *base,
                       int count_down)
{
    for (int x = from; x < to; x++) {
        const block_copy *c = &s->copies[x];
        memcpy(s->pairbuf + c->to, base + c->from, (size_t)c->bytes);
        int last_of_run = x + 1 == to || s->copies[x + 1].pair != c->pair;
        if (count_down && last_of_run && --s->pending[c->pair] == 0) {
            int err = pair_ready(p, s, c->pair);
            if (err != REDIST_SUCCESS)
                return err;
        }
    }
    return REDIST_SUCCESS;
}

/* The pairs received so far, forwarded in the order of their channels (the order the
   destinations post their receives from this rank in). */
static int forward_pairs(struct redist_plan_s *p, state *s)
{
    for (; s->next_forward < s->npair_in && s->pair_arrived[s->next_forward]; s->next_forward++) {
        int k = s->next_forward;
        for (int x = s->slices_first[k]; x < s->slices_first[k + 1]; x++) {
            const span *sl = &s->slices[x];
            if (sl->peer == p->rank) {
                unpack_group(p, s, s->pair_channel[k], s->relaybuf + sl->off);
                continue;
            }
            int err = post_send(p, s, s->relaybuf, sl, REDIST__TAG_SCATTER);
            if (err != REDIST_SUCCESS)
                return err;
        }
    }
    return REDIST_SUCCESS;
}

static int post_receives(struct redist_plan_s *p, state *s)
{
    int64_t es = (int64_t)p->elsize;
    int k = 0;
    for (int t = 0; t < s->nitems; t++) {
        const recv_item *it = &s->items[t];
        const redist__msg *m =
            it->kind == R_DIRECT ? &p->recv.msgs[s->direct_recv[it->index]] : NULL;
        span direct = m ? (span){m->peer, m->offset * es, m->nelems * es} : (span){0, 0, 0};
        const span *x = it->kind == R_DIRECT   ? &direct
                        : it->kind == R_GATHER ? &s->gather_in[it->index]
                        : it->kind == R_PAIR   ? &s->pair_in[it->index]
                                               : &s->scatter_in[it->index];
        char *base = it->kind == R_GATHER ? s->gatherbuf
                     : it->kind == R_PAIR ? s->relaybuf
                                          : p->recvbuf;
        int tag = it->kind == R_DIRECT   ? REDIST__TAG_DATA
                  : it->kind == R_GATHER ? REDIST__TAG_GATHER
                  : it->kind == R_PAIR   ? REDIST__TAG_NETWORK
                                         : REDIST__TAG_SCATTER;
        int n = redist__post_bytes_tagged(base + x->off, x->bytes, x->peer, 0, tag, p->comm,
                                          s->recv_reqs + k);
        if (n < 0) {
            redist__abandon_requests(s->recv_reqs, k, NULL, 0);
            return n;
        }
        for (int c = 0; c < n; c++)
            s->item_of_req[k + c] = t;
        s->chunks_left[t] = n;
        k += n;
    }
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    int64_t es = (int64_t)p->elsize;
    s->nsend_reqs = 0;
    s->next_forward = 0;
    s->items_left = s->nitems;
    memcpy(s->pending, s->pending_init, ((size_t)s->npair_out + 1) * sizeof *s->pending);
    memset(s->pair_arrived, 0, ((size_t)s->npair_in + 1) * sizeof *s->pair_arrived);
    int err = post_receives(p, s);
    if (err != REDIST_SUCCESS)
        return err;
    for (int i = 0; i < p->send.nmsgs && !p->dry; i++) /* every block packed once */
        redist__par_move(p, REDIST__PACK, &p->send.msgs[i], p->cur_src,
                         p->sendbuf + p->send.msgs[i].offset * es);
    for (int x = 0; x < s->ndirect_send && err == REDIST_SUCCESS; x++) {
        const redist__msg *m = &p->send.msgs[s->direct_send[x]];
        span d = {m->peer, m->offset * es, m->nelems * es};
        err = post_send(p, s, p->sendbuf, &d, REDIST__TAG_DATA);
    }
    for (int x = 0; x < s->ngather_out && err == REDIST_SUCCESS; x++)
        err = post_send(p, s, p->sendbuf, &s->gather_out[x], REDIST__TAG_GATHER);
    if (err == REDIST_SUCCESS) /* this rank's own blocks of the pairs it sends */
        err = copy_blocks(p, s, 0, s->own_copies, p->sendbuf, 0);
    for (int k = 0; k < s->npair_out && err == REDIST_SUCCESS; k++)
        if (s->pending[k] == 0)
            err = pair_ready(p, s, k);
    if (err != REDIST_SUCCESS) { /* MPI failed: nothing may write the arrays any more */
        redist__abandon_requests(s->recv_reqs, s->nrecv_reqs, s->send_reqs, s->nsend_reqs);
        return err;
    }
    redist__copy_self(p);
    return REDIST_SUCCESS;
}

static int arrived(struct redist_plan_s *p, state *s, const recv_item *it)
{
    int64_t es = (int64_t)p->elsize;
    switch (it->kind) {
    case R_DIRECT: {
        const redist__msg *m = &p->recv.msgs[s->direct_recv[it->index]];
        if (!p->dry)
            redist__par_move(p, REDIST__UNPACK, m, p->recvbuf + m->offset * es, p->cur_dst);
        return REDIST_SUCCESS;
    }
    case R_GATHER:
        return copy_blocks(p, s, s->copies_first[it->index], s->copies_first[it->index + 1],
                           s->gatherbuf, 1);
    case R_PAIR:
        s->pair_arrived[it->index] = 1;
        return forward_pairs(p, s);
    default:
        unpack_group(p, s, s->scatter_channel[it->index],
                     p->recvbuf + s->scatter_in[it->index].off);
        return REDIST_SUCCESS;
    }
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    while (s->items_left > 0) {
        int count = 0;
        int rc = blocking ? MPI_Waitsome(s->nrecv_reqs, s->recv_reqs, &count, s->indices,
                                         MPI_STATUSES_IGNORE)
                          : MPI_Testsome(s->nrecv_reqs, s->recv_reqs, &count, s->indices,
                                         MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "node-aware: waiting for receives failed");
        if (count == MPI_UNDEFINED || (count == 0 && !blocking))
            break;
        for (int j = 0; j < count; j++) {
            int t = s->item_of_req[s->indices[j]];
            if (--s->chunks_left[t] > 0)
                continue;
            s->items_left--;
            int err = arrived(p, s, &s->items[t]);
            if (err != REDIST_SUCCESS)
                return err;
        }
    }
    int sends_done = 0;
    if (s->items_left == 0) {
        int rc = blocking
                     ? MPI_Waitall(s->nsend_reqs, s->send_reqs, MPI_STATUSES_IGNORE)
                     : MPI_Testall(s->nsend_reqs, s->send_reqs, &sends_done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "node-aware: waiting for sends failed");
        sends_done = sends_done || blocking;
    }
    *done = s->items_left == 0 && sends_done;
    return REDIST_SUCCESS;
}

/* This rank's messages and bytes, each step's, and those that leave its node. */
static void local_stats(const struct redist_plan_s *p, redist_stats *st)
{
    const state *s = p->algo_state;
    int64_t es = (int64_t)p->elsize, msgs = s->ngather_out + s->npair_out, bytes = 0, rmsgs = 0,
            rbytes = 0;
    for (int x = 0; x < s->ndirect_send; x++)
        bytes += p->send.msgs[s->direct_send[x]].nelems * es;
    for (int x = 0; x < s->ndirect_recv; x++)
        rbytes += p->recv.msgs[s->direct_recv[x]].nelems * es;
    for (int x = 0; x < s->slices_first[s->npair_in]; x++)
        if (s->slices[x].peer != p->rank)
            msgs++, bytes += s->slices[x].bytes;
    msgs += s->ndirect_send;
    bytes += spans_bytes(s->gather_out, s->ngather_out) + spans_bytes(s->pair_out, s->npair_out);
    rmsgs = s->ndirect_recv + s->ngather_in + s->npair_in + s->nscatter_in;
    rbytes += spans_bytes(s->gather_in, s->ngather_in) + spans_bytes(s->pair_in, s->npair_in) +
              spans_bytes(s->scatter_in, s->nscatter_in);
    st->messages_sent = msgs;
    st->bytes_sent = bytes;
    st->messages_received = rmsgs;
    st->bytes_received = rbytes;
    st->messages_off_node = s->npair_out;
    st->bytes_off_node = spans_bytes(s->pair_out, s->npair_out);
}

const redist__algorithm redist__algo_node_aware = {
    .name = "node-aware",
    .applicable = applicable,
    .why_not = "needs ranks on several nodes (MPI_COMM_TYPE_SHARED, or REDIST_RANKS_PER_NODE)",
    .steps = steps,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .local_stats = local_stats,
    .explain = explain,
    .packs = 1,
    .device = 1,
};
