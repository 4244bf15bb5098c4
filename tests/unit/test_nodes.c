/* Nodes and the node terms of the traffic (src/model/nodes.c), no MPI.
 *
 * - Maps: nodes of k consecutive ranks (the last one smaller), and nodes given by each
 *   rank's first rank, interleaved (ranks 0 2 4 on one node, 1 3 6 on another, 5 alone):
 *   nodes numbered by their first rank, members in increasing order, places on the node.
 * - The pairs of nodes spread over a node's ranks: each lane's sender is on the source node,
 *   its receiver on the destination node, the lanes of a pair are min(sizes) / (nodes - 1)
 *   (at least 1), each rank's traffic to a node takes the lane of its place, and over all
 *   lanes no rank carries more than one above another of its node (sending or receiving).
 * - The node terms of random patterns (random rank pairs with random sizes, on uniform and
 *   interleaved maps of 1 to 12 ranks, nodes of 1 to 4) against an oracle that lists the
 *   node-aware schedule's messages step by step as sets (gathering: (sender, lane sender);
 *   network: lanes of node pairs; handing out: (lane receiver, destination, channel); direct:
 *   pairs on one node) and counts what each rank sends and receives, and the plain off-node
 *   and on-node traffic; the terms are the maxima over ranks the case keeps (traffic_finish).
 */
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

enum { MAXP = 12 };

static void check_map(const redist__node_map *m, const int *want_node, int size)
{
    CHECK(m->size == size, "size %d", m->size);
    for (int r = 0; r < size; r++) {
        CHECK(m->node_of[r] == want_node[r], "rank %d on node %d, not %d", r, m->node_of[r],
              want_node[r]);
        int a = m->node_of[r];
        CHECK(m->members[m->first[a] + m->local_of[r]] == r, "rank %d's place %d", r,
              m->local_of[r]);
    }
    for (int a = 0; a < m->nodes; a++)
        for (int j = m->first[a] + 1; j < m->first[a + 1]; j++)
            CHECK(m->members[j - 1] < m->members[j], "node %d's members in order", a);
}

static void maps(void)
{
    redist__node_map m;
    int uniform[7] = {0, 0, 0, 1, 1, 1, 2};
    CHECK(redist__node_map_uniform(7, 3, &m) == REDIST_SUCCESS, "uniform");
    CHECK(m.nodes == 3 && m.max_ranks == 3 && redist__node_size(&m, 2) == 1, "3 nodes: %d %d",
          m.nodes, m.max_ranks);
    check_map(&m, uniform, 7);
    redist__node_map_free(&m);
    int firsts[7] = {0, 1, 0, 1, 0, 5, 1}, interleaved[7] = {0, 1, 0, 1, 0, 2, 1};
    CHECK(redist__node_map_from_firsts(7, firsts, &m) == REDIST_SUCCESS, "from firsts");
    CHECK(m.nodes == 3 && m.max_ranks == 3, "interleaved: %d nodes", m.nodes);
    check_map(&m, interleaved, 7);
    redist__node_map copy;
    CHECK(redist__node_map_copy(&m, &copy) == REDIST_SUCCESS, "copy");
    check_map(&copy, interleaved, 7);
    redist__node_map_free(&copy);
    redist__node_map_free(&m);
    CHECK(redist__node_map_uniform(4, 0, &m) == REDIST_ERR_ARG, "0 ranks per node refused");
}

static void spread(const redist__node_map *m)
{
    int sends[MAXP] = {0}, receives[MAXP] = {0};
    for (int a = 0; a < m->nodes; a++)
        for (int b = 0; b < m->nodes; b++) {
            if (a == b)
                continue;
            int sa = redist__node_size(m, a), sb = redist__node_size(m, b);
            int want = (sa < sb ? sa : sb) / (m->nodes - 1), lanes = redist__pair_lanes(m, a, b);
            CHECK(lanes == (want > 1 ? want : 1) && lanes <= m->lanes &&
                      lanes == redist__pair_lanes(m, b, a),
                  "pair %d->%d: %d lanes", a, b, lanes);
            CHECK(redist__pair_sender(m, a, b) == redist__lane_sender(m, a, b, 0) &&
                      redist__pair_receiver(m, a, b) == redist__lane_receiver(m, a, b, 0),
                  "pair %d->%d: lane 0", a, b);
            for (int i = 0; i < lanes; i++) {
                int g = redist__lane_sender(m, a, b, i), r = redist__lane_receiver(m, a, b, i);
                CHECK(m->node_of[g] == a && m->node_of[r] == b, "pair %d->%d lane %d: %d, %d", a, b,
                      i, g, r);
                sends[g]++;
                receives[r]++;
            }
            for (int j = m->first[a]; j < m->first[a + 1]; j++) {
                int x = m->members[j];
                CHECK(redist__lane_of(m, x, b) == m->local_of[x] % lanes, "rank %d's lane", x);
            }
        }
    for (int a = 0; a < m->nodes; a++)
        for (int i = m->first[a]; i < m->first[a + 1]; i++)
            for (int j = m->first[a]; j < m->first[a + 1]; j++) {
                int x = m->members[i], y = m->members[j];
                CHECK(sends[x] <= sends[y] + 1 && receives[x] <= receives[y] + 1,
                      "node %d: ranks %d and %d carry %d/%d and %d/%d pairs", a, x, y, sends[x],
                      receives[x], sends[y], receives[y]);
            }
}

/* A pattern: elements from s to d (0: no message), never s to s. */
typedef struct pattern {
    int size;
    int64_t elems[MAXP][MAXP];
} pattern;

static redist__side side_of(const pattern *p, int rank, int is_send, redist__msg *store)
{
    redist__side s;
    memset(&s, 0, sizeof s);
    s.msgs = store;
    for (int q = 0; q < p->size; q++) {
        int64_t e = is_send ? p->elems[rank][q] : p->elems[q][rank];
        if (e == 0)
            continue;
        memset(&store[s.nmsgs], 0, sizeof store[s.nmsgs]);
        store[s.nmsgs].peer = q;
        store[s.nmsgs].nelems = e;
        s.nmsgs++;
        s.total_elems += e;
    }
    return s;
}

/* What each rank sends (0) and receives (1) in the node-aware schedule and plainly. */
typedef struct rank_count {
    int64_t gather_msgs[2], gather_bytes[2], pair_msgs[2], pair_bytes[2];
    int64_t remote_msgs[2], remote_bytes[2], local_msgs[2];
} rank_count;

static int64_t max2(const int64_t v[2])
{
    return v[0] > v[1] ? v[0] : v[1];
}

static void oracle(const redist__node_map *m, const pattern *p, int64_t es, rank_count *c,
                   int64_t *node_bytes)
{
    int P = p->size, N = m->nodes;
    memset(c, 0, sizeof *c * (size_t)P);
    static char gather_set[MAXP][MAXP], hand_set[MAXP][MAXP][MAXP];
    static int64_t pair[MAXP][MAXP][MAXP]; /* [A][B][lane] */
    memset(gather_set, 0, sizeof gather_set);
    memset(hand_set, 0, sizeof hand_set);
    memset(pair, 0, sizeof pair);
    int64_t out[MAXP] = {0}, in[MAXP] = {0};
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++) {
            int64_t b = p->elems[s][d] * es;
            if (b == 0)
                continue;
            int A = m->node_of[s], B = m->node_of[d];
            if (A == B) { /* direct */
                c[s].local_msgs[0]++, c[d].local_msgs[1]++;
                c[s].gather_msgs[0]++, c[d].gather_msgs[1]++;
                c[s].gather_bytes[0] += b, c[d].gather_bytes[1] += b;
                continue;
            }
            c[s].remote_msgs[0]++, c[d].remote_msgs[1]++;
            c[s].remote_bytes[0] += b, c[d].remote_bytes[1] += b;
            out[A] += b, in[B] += b;
            int lane = m->local_of[s] % redist__pair_lanes(m, A, B), channel = A * m->lanes + lane;
            CHECK(channel < MAXP, "channel %d", channel);
            pair[A][B][lane] += b;
            int g = redist__lane_sender(m, A, B, lane), r = redist__lane_receiver(m, A, B, lane);
            if (g != s) {
                gather_set[s][g] = 1;
                c[s].gather_bytes[0] += b, c[g].gather_bytes[1] += b;
            }
            if (r != d) {
                hand_set[r][d][channel] = 1;
                c[r].gather_bytes[0] += b, c[d].gather_bytes[1] += b;
            }
        }
    for (int x = 0; x < P; x++)
        for (int y = 0; y < P; y++) {
            c[x].gather_msgs[0] += gather_set[x][y], c[y].gather_msgs[1] += gather_set[x][y];
            for (int h = 0; h < MAXP; h++)
                c[x].gather_msgs[0] += hand_set[x][y][h], c[y].gather_msgs[1] += hand_set[x][y][h];
        }
    for (int A = 0; A < N; A++)
        for (int B = 0; B < N; B++)
            for (int i = 0; i < MAXP; i++)
                if (pair[A][B][i] > 0) {
                    int g = redist__lane_sender(m, A, B, i), r = redist__lane_receiver(m, A, B, i);
                    c[g].pair_msgs[0]++, c[r].pair_msgs[1]++;
                    c[g].pair_bytes[0] += pair[A][B][i], c[r].pair_bytes[1] += pair[A][B][i];
                }
    *node_bytes = 0;
    for (int A = 0; A < N; A++) {
        *node_bytes = out[A] > *node_bytes ? out[A] : *node_bytes;
        *node_bytes = in[A] > *node_bytes ? in[A] : *node_bytes;
    }
}

static void random_pattern(pattern *p, int size, unsigned *seed)
{
    memset(p, 0, sizeof *p);
    p->size = size;
    int dense = rand_r(seed) % 4 == 0; /* every pair, or about a third */
    for (int s = 0; s < size; s++)
        for (int d = 0; d < size; d++)
            if (s != d && (dense || rand_r(seed) % 3 == 0))
                p->elems[s][d] = 1 + rand_r(seed) % 50;
}

static void terms(const redist__node_map *m, const pattern *p, const char *what)
{
    int64_t es = 8, vmax[REDIST__S_NVALS] = {0}, node_bytes = 0;
    rank_count c[MAXP];
    oracle(m, p, es, c, &node_bytes);
    static redist__msg store[2][MAXP];
    for (int a = 0; a < m->nodes; a++) {
        int64_t sums[4 * MAXP + 8] = {0};
        CHECK(redist__node_sums_length(m, a) <= 4 * MAXP + 8, "sums length");
        for (int j = m->first[a]; j < m->first[a + 1]; j++) {
            int r = m->members[j];
            redist__side send = side_of(p, r, 1, store[0]), recv = side_of(p, r, 0, store[1]);
            CHECK(redist__node_sums_add(m, r, &send, &recv, es, sums) == REDIST_SUCCESS, "sums");
        }
        for (int j = m->first[a]; j < m->first[a + 1]; j++) {
            int r = m->members[j];
            redist__side send = side_of(p, r, 1, store[0]), recv = side_of(p, r, 0, store[1]);
            int64_t v[REDIST__S_NVALS] = {0};
            redist__node_terms(m, r, &send, &recv, es, sums, v);
            const rank_count *o = &c[r];
            CHECK(v[REDIST__S_REMOTE_MESSAGES] == max2(o->remote_msgs) &&
                      v[REDIST__S_REMOTE_BYTES] == max2(o->remote_bytes) &&
                      v[REDIST__S_REMOTE_SENT_MESSAGES] == o->remote_msgs[0] &&
                      v[REDIST__S_REMOTE_SENT_BYTES] == o->remote_bytes[0] &&
                      v[REDIST__S_LOCAL_MESSAGES] == max2(o->local_msgs),
                  "%s: rank %d's off-node traffic", what, r);
            CHECK(v[REDIST__S_PAIR_MESSAGES] == max2(o->pair_msgs) &&
                      v[REDIST__S_PAIR_BYTES] == max2(o->pair_bytes),
                  "%s: rank %d carries %lld pairs (%lld B), the schedule %lld (%lld B)", what, r,
                  (long long)v[REDIST__S_PAIR_MESSAGES], (long long)v[REDIST__S_PAIR_BYTES],
                  (long long)max2(o->pair_msgs), (long long)max2(o->pair_bytes));
            CHECK(v[REDIST__S_GATHER_MESSAGES] == max2(o->gather_msgs) &&
                      v[REDIST__S_GATHER_BYTES] == max2(o->gather_bytes),
                  "%s: rank %d on node: %lld messages (%lld B), the schedule %lld (%lld B)", what,
                  r, (long long)v[REDIST__S_GATHER_MESSAGES], (long long)v[REDIST__S_GATHER_BYTES],
                  (long long)max2(o->gather_msgs), (long long)max2(o->gather_bytes));
            CHECK(v[REDIST__S_AWARE_SENT_MESSAGES] == o->gather_msgs[0] + o->pair_msgs[0] &&
                      v[REDIST__S_AWARE_SENT_BYTES] == o->gather_bytes[0] + o->pair_bytes[0],
                  "%s: rank %d sends %lld messages in node-aware's steps, the schedule %lld", what,
                  r, (long long)v[REDIST__S_AWARE_SENT_MESSAGES],
                  (long long)(o->gather_msgs[0] + o->pair_msgs[0]));
            for (int i = 0; i < REDIST__S_NVALS; i++)
                vmax[i] = v[i] > vmax[i] ? v[i] : vmax[i];
        }
    }
    CHECK(vmax[REDIST__S_NODE_BYTES] == node_bytes, "%s: busiest node %lld B, not %lld", what,
          (long long)vmax[REDIST__S_NODE_BYTES], (long long)node_bytes);
    CHECK(vmax[REDIST__S_NODES] == m->nodes && vmax[REDIST__S_NODE_RANKS] == m->max_ranks,
          "%s: nodes", what);
}

int main(void)
{
    maps();
    unsigned seed = 20261129u;
    int cases = 0;
    for (int size = 1; size <= MAXP; size++)
        for (int k = 1; k <= 4; k++)
            for (int t = 0; t < 6; t++) {
                redist__node_map m;
                int firsts[MAXP];
                for (int r = 0; r < size; r++) /* interleaved: rank r on node r mod n */
                    firsts[r] = r % ((size + k - 1) / k);
                int err = t % 2 ? redist__node_map_from_firsts(size, firsts, &m)
                                : redist__node_map_uniform(size, k, &m);
                CHECK(err == REDIST_SUCCESS, "map of %d ranks", size);
                if (err != REDIST_SUCCESS)
                    continue;
                spread(&m);
                pattern p;
                random_pattern(&p, size, &seed);
                char what[128];
                snprintf(what, sizeof what, "%d ranks, %s nodes of %d, case %d", size,
                         t % 2 ? "interleaved" : "consecutive", k, t);
                terms(&m, &p, what);
                redist__node_map_free(&m);
                cases++;
            }
    printf("%d patterns on nodes checked\n", cases);
    if (failures)
        printf("%ld failures\n", failures);
    return failures != 0;
}
