/* link: redist */
/* Serial tests of the basic operations' costs on several nodes (coll.h's shape), no MPI_Init:
 * for allgather, reduce_scatter and alltoall, over p = 1 .. 48 ranks on nodes of k = 1 .. 8
 * consecutive ranks (the last smaller) and block sizes from 0 to 4 MiB:
 * - on one node (and for redist_coll_predict, which has no nodes) auto never picks
 *   node-aware, and node-aware's one-node cost is that of a flat exchange of p - 1 steps;
 * - on several nodes auto picks node-aware exactly where it is cheaper than every flat
 *   algorithm (the flat ones first on equal cost), and it does so somewhere for each
 *   operation and not everywhere;
 * - with the network's parameters at 0 every flat algorithm costs what it costs on one node;
 * - with them, no cost is below its one-node value, and a flat algorithm's network terms grow
 *   with t_w' (its bytes through a node's link);
 * - the schedules' alltoall (alltoall-padded) never names node-aware: unknown there.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "redist.h"
#include "support/check.h"

static const redist__coll_table *const ops[] = {&redist__coll_table_allgather,
                                                &redist__coll_table_reduce_scatter,
                                                &redist__coll_table_alltoall};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))
static const double sizes[] = {0, 8, 256, 4096, 65536, 1 << 22};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
/* The defaults' figures: t_s, t_w of the machine's model, and a 200 Gb/s network's t_s' (2 us
   beyond 0.5 us per message) and t_w' (25 GB/s through a node's link). */
static const double ts = 6e-6, tw = 1.0 / 8e9, rts = 1.5e-6, rtw = 1.0 / 25e9;

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b)) + 1e-300;
}

/* p ranks on nodes of k consecutive ranks. */
static redist__coll_shape shape(int p, int k, double net_ts, double net_tw)
{
    int nodes = (p + k - 1) / k, last = p - (nodes - 1) * k;
    redist__coll_shape s = {p,      nodes, nodes > 1 ? k : p, nodes > 1 ? last : p, ts, tw,
                            net_ts, net_tw};
    return s;
}

static int node_aware(const redist__coll_table *t)
{
    for (int i = 0; i < t->n; i++)
        if (t->algos[i]->several_nodes)
            return i;
    return -1;
}

static void test_one_node(const redist__coll_table *t)
{
    int na = node_aware(t);
    CHECK(na >= 0 && strcmp(t->algos[na]->name, "node-aware") == 0, "%s has node-aware",
          t->operation);
    for (int p = 1; p <= 48; p++)
        for (int z = 0; z < NSIZES; z++) {
            double m = sizes[z];
            redist__coll_shape s = redist__coll_shape_one(p, ts, tw);
            int err = 0, i = redist__coll_pick_shape(t->algos, t->n, NULL, &s, m, &err);
            CHECK(i >= 0 && i != na, "%s p=%d m=%g one node: auto picks %d", t->operation, p, m, i);
            const char *chosen = NULL;
            double secs = -1;
            CHECK(redist_coll_predict(t->operation, NULL, p, m, ts, tw, &secs, &chosen) ==
                          REDIST_SUCCESS &&
                      chosen && strcmp(chosen, "node-aware") != 0,
                  "%s p=%d predict's auto: %s", t->operation, p, chosen ? chosen : "(none)");
            /* one node: node-aware is a flat exchange, (p - 1)(t_s + t_w m) */
            CHECK(close_to(t->algos[na]->cost(&s, m), (p - 1) * (ts + tw * m)),
                  "%s p=%d m=%g node-aware on one node: %g", t->operation, p, m,
                  t->algos[na]->cost(&s, m));
            /* virtual nodes as large as p are one node too */
            redist__coll_shape big = shape(p, p + 3, rts, rtw);
            CHECK(big.nodes == 1 &&
                      redist__coll_pick_shape(t->algos, t->n, NULL, &big, m, &err) == i,
                  "%s p=%d one node of more ranks", t->operation, p);
            /* named, it is there */
            CHECK(redist__coll_pick_shape(t->algos, t->n, "node-aware", &s, m, &err) == na,
                  "%s p=%d node-aware by name: %d", t->operation, p, err);
        }
}

static void test_nodes(const redist__coll_table *t)
{
    int na = node_aware(t), picked = 0, not_picked = 0;
    for (int p = 2; p <= 48; p++)
        for (int k = 1; k < p; k++)
            for (int z = 0; z < NSIZES; z++) {
                double m = sizes[z];
                redist__coll_shape s = shape(p, k, rts, rtw), flat = shape(p, k, 0, 0),
                                   one = redist__coll_shape_one(p, ts, tw);
                int best = -1;
                double best_cost = 0;
                for (int i = 0; i < t->n; i++) {
                    if (t->algos[i]->applicable(p) != REDIST_SUCCESS)
                        continue;
                    double c = t->algos[i]->cost(&s, m), c1 = t->algos[i]->cost(&one, m);
                    if (i != na) {
                        CHECK(close_to(t->algos[i]->cost(&flat, m), c1),
                              "%s %s p=%d k=%d m=%g: no network, %g vs one node %g", t->operation,
                              t->algos[i]->name, p, k, m, t->algos[i]->cost(&flat, m), c1);
                        CHECK(c >= c1 * (1 - 1e-12), "%s %s p=%d k=%d: %g below one node's %g",
                              t->operation, t->algos[i]->name, p, k, c, c1);
                        redist__coll_shape more = shape(p, k, rts, 2 * rtw);
                        CHECK(m == 0 || t->algos[i]->cost(&more, m) > c,
                              "%s %s p=%d k=%d m=%g: the link's bytes cost nothing", t->operation,
                              t->algos[i]->name, p, k, m);
                    }
                    if (best < 0 || c < best_cost) {
                        best = i;
                        best_cost = c;
                    }
                }
                int err = 0, i = redist__coll_pick_shape(t->algos, t->n, NULL, &s, m, &err);
                CHECK(i == best, "%s p=%d k=%d m=%g: auto %d, cheapest %d", t->operation, p, k, m,
                      i, best);
                if (i == na) { /* strictly below every flat one */
                    picked++;
                    for (int j = 0; j < t->n; j++)
                        if (j != na && t->algos[j]->applicable(p) == REDIST_SUCCESS)
                            CHECK(t->algos[na]->cost(&s, m) < t->algos[j]->cost(&s, m),
                                  "%s p=%d k=%d: node-aware picked, %s no dearer", t->operation, p,
                                  k, t->algos[j]->name);
                } else {
                    not_picked++;
                }
            }
    CHECK(picked > 0 && not_picked > 0, "%s on several nodes: node-aware picked %d times, not %d",
          t->operation, picked, not_picked);
    printf("%s: node-aware picked in %d of %d cases on several nodes\n", t->operation, picked,
           picked + not_picked);
}

static void test_schedules(void)
{
    int err = 0;
    CHECK(redist__coll_alltoall_pick("node-aware", 8, 64, &err) < 0 &&
              err == REDIST_ERR_UNKNOWN_ALGORITHM,
          "alltoall-padded's exchange: node-aware must be unknown (err %d)", err);
    for (int p = 1; p <= 48; p++)
        for (int z = 0; z < NSIZES; z++) {
            int i = redist__coll_alltoall_pick(NULL, p, sizes[z], &err);
            CHECK(i >= 0 && strcmp(redist_coll_algorithm_name("alltoall", i), "node-aware") != 0,
                  "alltoall-padded's auto p=%d: %d", p, i);
        }
}

int main(void)
{
    for (int o = 0; o < NOPS; o++) {
        test_one_node(ops[o]);
        test_nodes(ops[o]);
    }
    test_schedules();
    if (failures) {
        fprintf(stderr, "test_coll_nodes_cost: %ld failures\n", failures);
        return 1;
    }
    printf("test_coll_nodes_cost: OK\n");
    return 0;
}
