/* link: redist */
/* Serial test: `redist simulate --nodes` (algo/simulate.c).
 *
 * - The all-to-all's closed forms: the described case (every traffic term, the node terms,
 *   the shape) equals redist__pair_case_on_nodes on real layouts built here, a P x P matrix of
 *   m-byte elements by rows -> by columns, on nodes of k ranks for nodes = 2, 3, 5, 7 and
 *   k = 1 .. 7 (nodes - 1 below, equal to and above k; 1 to 7 lanes a pair, some of unequal
 *   width); with b x b blocks of smaller elements (the same m per rank pair, more runs) the
 *   node terms and the messages and bytes still do. A few terms by hand from the node-aware
 *   schedule (model/nodes.c: node A's j-th other node falls to its place j mod k, and with
 *   few nodes a pair has k / (nodes - 1) lanes).
 * - cyclic: the case is the real layouts' (built here), at most 3 peers per rank.
 * - Predictions, by the algorithms' own models on the default machine: what the network adds
 *   (remote_startup, remote_per_byte against none) is, for direct-async and node-aware, the
 *   start-ups and link bytes counted here by hand, and the argument agreement's rounds; node-aware
 * at least 2x faster than the faster flat algorithm at 32 nodes x 64 ranks with 64-byte messages,
 * the flat ones faster at 2 nodes with 1 MiB; auto within 15% of the best prediction on every row
 * of a grid.
 */
#include "algo/algo.h"
#include "algo/simulate.h"

#include <math.h>
#include <string.h>

#include "support/check.h"

/* The P x P transpose of b x b blocks: block row r on rank r -> block column s on rank s. */
static void transpose_layouts(int P, int64_t b, redist_layout *src, redist_layout *dst)
{
    int64_t extent[2] = {P * b, P * b}, rows[2] = {b, P * b}, columns[2] = {P * b, b};
    int by_rows[2] = {P, 1}, by_columns[2] = {1, P};
    CHECK(redist_layout_create(2, extent, rows, by_rows, NULL, NULL, REDIST_ROW_MAJOR, src) == 0,
          "rows layout");
    CHECK(redist_layout_create(2, extent, columns, by_columns, NULL, NULL, REDIST_COL_MAJOR, dst) ==
              0,
          "columns layout");
}

#define SAME(field, what)                                                                          \
    CHECK((int64_t)(got->field) == (int64_t)(want->field), "%s: %s %lld, real %lld", what, #field, \
          (long long)(got->field), (long long)(want->field))

static void same_nodes(const redist__node_traffic *got, const redist__node_traffic *want,
                       const char *what)
{
    SAME(nodes, what);
    SAME(ranks_per_node, what);
    SAME(max_remote_messages, what);
    SAME(max_remote_bytes, what);
    SAME(max_remote_sent_messages, what);
    SAME(max_remote_sent_bytes, what);
    SAME(max_local_messages, what);
    SAME(max_node_bytes, what);
    SAME(max_pair_messages, what);
    SAME(max_pair_bytes, what);
    SAME(max_gather_messages, what);
    SAME(max_gather_bytes, what);
}

/* The messages and bytes, whatever the runs. */
static void same_volume(const redist__traffic *got, const redist__traffic *want, const char *what)
{
    SAME(comm_size, what);
    SAME(max_messages, what);
    SAME(max_bytes, what);
    SAME(max_sent_messages, what);
    SAME(max_sent_bytes, what);
    SAME(max_copy_bytes, what);
    SAME(max_local_bytes, what);
    SAME(shift_steps, what);
    same_nodes(&got->n, &want->n, what);
}

static void same_traffic(const redist__traffic *got, const redist__traffic *want, const char *what)
{
    same_volume(got, want, what);
    SAME(elsize, what);
    SAME(max_count, what);
    SAME(max_buffer, what);
    SAME(max_packed, what);
    SAME(max_run_value, what);
    SAME(max_pieces, what);
    SAME(max_runs, what);
    SAME(max_self_runs, what);
}

static void same_shape(const redist__shape *got, const redist__shape *want, const char *what)
{
    SAME(same_line, what);
    SAME(P, what);
    SAME(x, what);
    SAME(y, what);
    SAME(ratio_K, what);
    SAME(table, what);
    SAME(lcm, what);
    SAME(tcr96, what);
    SAME(sections, what);
    SAME(beyond_grid, what);
    SAME(reduce, what);
    SAME(dst_shared, what);
    SAME(bpc, what);
}

static void alltoall_closed_forms(void)
{
    static const int node_counts[] = {2, 3, 5, 7};
    static const int64_t pair_bytes[] = {8, 24, 1000};
    for (int i = 0; i < 4; i++) /* k = 5 on 3 nodes: 2 lanes of 3 and 2 places */
        for (int k = 1; k <= 7; k++)
            for (int j = 0; j < 3; j++) {
                int nodes = node_counts[i], P = nodes * k;
                int64_t m = pair_bytes[j];
                char what[96];
                snprintf(what, sizeof what, "alltoall, %d nodes of %d, m = %lld", nodes, k,
                         (long long)m);
                redist__case described, real;
                CHECK(redist__simulate_nodes_case(REDIST__SIM_ALLTOALL, nodes, k, m, &described) ==
                          REDIST_SUCCESS,
                      "%s: described", what);
                /* elements of m bytes: the very case */
                redist_layout src = NULL, dst = NULL;
                transpose_layouts(P, 1, &src, &dst);
                CHECK(redist__pair_case_on_nodes(src, dst, P, k, m, &real, NULL, NULL) ==
                          REDIST_SUCCESS,
                      "%s: real", what);
                same_traffic(&described.t, &real.t, what);
                same_shape(&described.s, &real.s, what);
                redist_layout_free(&src);
                redist_layout_free(&dst);
                /* 2 x 2 blocks of m / 4-byte elements: more runs, the same volume */
                if (m % 4 == 0) {
                    transpose_layouts(P, 2, &src, &dst);
                    CHECK(redist__pair_case_on_nodes(src, dst, P, k, m / 4, &real, NULL, NULL) ==
                              REDIST_SUCCESS,
                          "%s: real, blocks", what);
                    same_volume(&described.t, &real.t, what);
                    redist_layout_free(&src);
                    redist_layout_free(&dst);
                }
            }
}

/* Terms counted by hand. 5 nodes of 3 ranks, 8 bytes: a node's 4 other nodes fall to its
   places 0, 1, 2, 0, so place 0 carries 2 pairs each way, each 3 x 3 blocks (144 bytes). On
   its node it sends its 2 direct messages, one gathering message to each of places 1 and 2,
   and a slice of each of its 2 received pairs to each of the 2 others: 8. Bytes: direct
   2 x 8, its blocks for the 2 pairs others carry 2 x 3 x 8, and of its own 2 pairs all but its
   own blocks, 2 x (9 - 3) x 8: 16 + 48 + 96 = 160. The node's link: 3 ranks x 12 off-node peers
   x 8 = 288. 1024 nodes of 64 ranks: place l carries the other nodes j = l, l + 64, ...: 16
   pairs at place 0, which sends 63 direct messages, 63 gathering ones and 16 x 63 slices:
   1134 (place 63 receives as many: 63 direct, 63 gathered, and 1023 - 15 slices). 2 nodes of
   64 ranks, 64 bytes: 64 lanes, each rank the sender of its own (64 x 64 bytes, nothing
   gathered) and the receiver of one, whose 63 slices it hands out: 63 direct + 63 slices
   each way, 2 x 63 x 64 bytes. */
static void alltoall_by_hand(void)
{
    redist__case c;
    CHECK(redist__simulate_nodes_case(REDIST__SIM_ALLTOALL, 5, 3, 8, &c) == REDIST_SUCCESS,
          "5 x 3");
    CHECK(c.t.n.max_pair_messages == 2 && c.t.n.max_pair_bytes == 144,
          "5 x 3: pairs %lld of %lld bytes", (long long)c.t.n.max_pair_messages,
          (long long)c.t.n.max_pair_bytes);
    CHECK(c.t.n.max_gather_messages == 8 && c.t.n.max_gather_bytes == 160,
          "5 x 3: gather %lld messages, %lld bytes", (long long)c.t.n.max_gather_messages,
          (long long)c.t.n.max_gather_bytes);
    CHECK(c.t.n.max_node_bytes == 288 && c.t.n.max_remote_messages == 12, "5 x 3: link %lld",
          (long long)c.t.n.max_node_bytes);
    CHECK(redist__simulate_nodes_case(REDIST__SIM_ALLTOALL, 1024, 64, 64, &c) == REDIST_SUCCESS,
          "1024 x 64");
    CHECK(c.t.comm_size == 65536 && c.t.max_messages == 65535 && c.t.n.max_pair_messages == 16 &&
              c.t.n.max_gather_messages == 1134 && c.t.n.max_remote_messages == 65472,
          "1024 x 64: %d ranks, %lld messages, %lld pairs, %lld on the node", c.t.comm_size,
          (long long)c.t.max_messages, (long long)c.t.n.max_pair_messages,
          (long long)c.t.n.max_gather_messages);
    redist__case two;
    CHECK(redist__simulate_nodes_case(REDIST__SIM_ALLTOALL, 2, 64, 64, &two) == REDIST_SUCCESS &&
              two.t.n.max_pair_messages == 1 && two.t.n.max_pair_bytes == 64 * 64 &&
              two.t.n.max_gather_messages == 126 && two.t.n.max_gather_bytes == 2 * 63 * 64,
          "2 x 64: %lld lanes of %lld bytes, %lld messages (%lld bytes) on the node",
          (long long)two.t.n.max_pair_messages, (long long)two.t.n.max_pair_bytes,
          (long long)two.t.n.max_gather_messages, (long long)two.t.n.max_gather_bytes);
    CHECK(c.t.n.max_node_bytes == INT64_C(64) * 65472 * 64, "1024 x 64: link %lld",
          (long long)c.t.n.max_node_bytes);
    /* outside the limits */
    CHECK(redist__simulate_nodes_case(REDIST__SIM_ALLTOALL, 1, 64, 64, &c) == REDIST_ERR_ARG,
          "one node");
    CHECK(redist__simulate_nodes_case(REDIST__SIM_ALLTOALL, 2, 64, 0, &c) == REDIST_ERR_ARG,
          "m = 0");
    CHECK(redist__simulate_nodes_case(REDIST__SIM_CYCLIC, 4096, 64, 8, &c) == REDIST_ERR_ARG,
          "cyclic beyond its work");
}

static void cyclic_is_real(void)
{
    static const int cases[][2] = {{2, 1}, {3, 2}, {5, 3}, {4, 4}, {64, 64}};
    for (int i = 0; i < 5; i++) {
        int nodes = cases[i][0], k = cases[i][1], P = nodes * k;
        char what[64];
        snprintf(what, sizeof what, "cyclic, %d nodes of %d", nodes, k);
        int64_t extent[1] = {3 * (int64_t)P}, one[1] = {1}, three[1] = {3};
        int grid[1] = {P};
        redist_layout src = NULL, dst = NULL;
        CHECK(redist_layout_create(1, extent, one, grid, NULL, NULL, REDIST_ROW_MAJOR, &src) == 0 &&
                  redist_layout_create(1, extent, three, grid, NULL, NULL, REDIST_ROW_MAJOR,
                                       &dst) == 0,
              "%s: layouts", what);
        redist__case real, c;
        CHECK(redist__pair_case_on_nodes(src, dst, P, k, 40, &real, NULL, NULL) == REDIST_SUCCESS,
              "%s: real", what);
        CHECK(redist__simulate_nodes_case(REDIST__SIM_CYCLIC, nodes, k, 40, &c) == REDIST_SUCCESS,
              "%s: simulated", what);
        same_traffic(&c.t, &real.t, what);
        same_shape(&c.s, &real.s, what);
        CHECK(c.t.max_messages <= 3 && c.t.max_bytes <= 3 * 40, "%s: %lld messages", what,
              (long long)c.t.max_messages);
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
}

static redist__machine network(double startup, double per_byte)
{
    redist__machine base = *redist__machine_default(), m;
    base.remote_startup = startup;
    base.remote_per_byte = per_byte;
    redist__simulate_nodes_machine(&base, &m);
    return m;
}

static double flat(const redist__sim_nodes_row *r)
{
    return r->direct_async < r->alltoallv ? r->direct_async : r->alltoallv;
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b);
}

static void predictions(void)
{
    const redist__machine *d = redist__machine_default();
    redist__machine m = network(d->remote_startup, d->remote_per_byte), none = network(0, 0);
    CHECK(m.shared_node == 0 && m.shared_arrays == 0, "several nodes: no shared memory");
    /* what the network adds, 32 nodes x 64 ranks, m = 64: every rank has P - k = 1984
       off-node messages, each node's link carries 64 x 1984 x 64 bytes; node-aware sends
       ceil(31 / 64) = 1 pair a rank over the network */
    redist__sim_nodes_row r, r0;
    CHECK(redist__simulate_nodes(REDIST__SIM_ALLTOALL, 32, 64, 64, &m, &r) == REDIST_SUCCESS &&
              redist__simulate_nodes(REDIST__SIM_ALLTOALL, 32, 64, 64, &none, &r0) ==
                  REDIST_SUCCESS,
          "32 x 64");
    double link = d->remote_per_byte * 64.0 * 1984.0 * 64.0;
    /* and every execute's argument agreement: log2 2048 = 11 rounds across the network */
    double agree = d->remote_startup * 11.0;
    double flat_net = (d->remote_startup - d->per_message) * 1984.0 + link + agree;
    CHECK(near(r.direct_async - r0.direct_async, flat_net), "direct-async's network %g, want %g",
          r.direct_async - r0.direct_async, flat_net);
    CHECK(near(r.alltoallv - r0.alltoallv, flat_net), "alltoallv's network %g, want %g",
          r.alltoallv - r0.alltoallv, flat_net);
    CHECK(near(r.node_aware - r0.node_aware, d->remote_startup + link + agree),
          "node-aware's network %g, want %g", r.node_aware - r0.node_aware,
          d->remote_startup + link + agree);
    redist__case c32;
    CHECK(redist__simulate_nodes_case(REDIST__SIM_ALLTOALL, 32, 64, 64, &c32) == REDIST_SUCCESS &&
              near(redist__cost_agreement(&c32, &m, 1), agree) &&
              near(redist__cost_agreement(&c32, &m, 2), 2.0 * agree) &&
              redist__cost_agreement(&c32, &m, 0) == 0.0,
          "the agreement: %g with check_arguments (%g for a device plan's two), none without",
          redist__cost_agreement(&c32, &m, 1), redist__cost_agreement(&c32, &m, 2));
    c32.t.n.nodes = 1;
    CHECK(redist__cost_agreement(&c32, &m, 1) == 0.0, "the agreement on one node: not counted");
    /* the target where messages are small and many */
    CHECK(r.node_aware > 0 && flat(&r) >= 2.0 * r.node_aware,
          "32 x 64, 64 B: flat %g, node-aware %g (want 2x)", flat(&r), r.node_aware);
    /* 2 nodes, 1 MiB: each rank sends its own blocks in its lane, but its lane's receiver
       hands 63 MiB out on the node, which costs more than the start-ups it saves */
    CHECK(redist__simulate_nodes(REDIST__SIM_ALLTOALL, 2, 64, 1 << 20, &m, &r) == REDIST_SUCCESS,
          "2 x 64");
    CHECK(flat(&r) < r.node_aware, "2 x 64, 1 MiB: flat %g, node-aware %g", flat(&r), r.node_aware);
    /* auto against the best prediction, over a grid of both patterns */
    for (int pat = 0; pat < 2; pat++)
        for (int64_t nodes = 2; nodes <= (pat == 0 ? 1024 : 64); nodes *= 2)
            for (int64_t bytes = 64; bytes <= (1 << 20); bytes *= 8) {
                CHECK(redist__simulate_nodes((redist__sim_pattern)pat, nodes, 64, bytes, &m, &r) ==
                          REDIST_SUCCESS,
                      "row %d %lld %lld", pat, (long long)nodes, (long long)bytes);
                CHECK(r.chosen != NULL && r.best != NULL &&
                          r.chosen_seconds <= 1.15 * r.best_seconds,
                      "pattern %d, %lld nodes, %lld B: auto %s %g, best %s %g", pat,
                      (long long)nodes, (long long)bytes, r.chosen ? r.chosen : "none",
                      r.chosen_seconds, r.best ? r.best : "none", r.best_seconds);
                CHECK(r.node_aware > 0 && r.direct_async > 0, "node-aware and direct-async apply");
            }
}

int main(void)
{
    alltoall_closed_forms();
    alltoall_by_hand();
    cyclic_is_real();
    predictions();
    if (failures)
        fprintf(stderr, "test_simulate_nodes: %ld failures\n", failures);
    else
        printf("test_simulate_nodes: ok\n");
    return failures != 0;
}
