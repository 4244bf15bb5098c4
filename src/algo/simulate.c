/* The simulator (`redist simulate`): [LBP96]'s table case R_x(K, P), N elements of b bytes,
 * costed by the algorithms' own predictions (their files state each formula) for any P and
 * K, without MPI and without building layouts or tables.
 *
 * The case is described rather than computed: the shape of R_x(K, P) (rowsched.h and
 * circulant.h give every step count in closed form), and the traffic of a rank: N/P b bytes
 * held, split into K equal rows of which the moving rows of P_s travel, the largest message
 * ceil(N/(PK)) b. The machine is [LBP96]'s GDM one: every message, synchronised or not, costs
 * T_d; every byte that travels tau_d; local copies are free and there is no shared memory.
 * Under it direct costs about K T_d + N/P b tau_d and indirect (L + 1) T_d +
 * (L N/(2P) + N/P) b tau_d (Corollary 2), hybrid in between, as the paper finds.
 *
 * Traffic is integer bytes; for arrays beyond 2^52 bytes it is counted in units of `scale`
 * bytes and tau_d scaled to match, so that every prediction stays exact to double precision.
 */
#include "algo/simulate.h"

#include "algo/algo.h"
#include "index/rowsched.h"

#include <math.h>
#include <string.h>

/* 1 <= K <= P <= REDIST__SIM_MAX_P; fills *rx. */
static int rx_ok(int64_t K, int64_t P, redist__rx *rx)
{
    return K >= 1 && K <= P && P <= REDIST__SIM_MAX_P && redist__rx_init(K, P, rx) == 0;
}

int redist__simulate_max_degree(int64_t K, int64_t P)
{
    redist__rx rx;
    return rx_ok(K, P, &rx) ? redist__rowsched_max_degree(&rx) : -1;
}

/* The case of R_x(K, P) with N elements of b bytes, and the GDM machine, in units of `scale`
   bytes. */
static void describe(const redist__rx *rx, double N, double b, double T_d, double tau_d,
                     redist__case *c, redist__machine *m)
{
    double bytes = N * b, scale = bytes > 0x1p52 ? bytes / 0x1p52 : 1.0;
    double local = bytes / (double)rx->P / scale, moving = (double)redist__rx_moving_rows(rx);
    memset(c, 0, sizeof *c);
    c->t.comm_size = (int)rx->P;
    c->t.elsize = 1; /* counts are in units */
    c->t.max_messages = c->t.max_sent_messages = (int64_t)moving;
    c->t.max_bytes = c->t.max_sent_bytes = llround(local * moving / (double)rx->K);
    c->t.max_copy_bytes = llround(local - local * moving / (double)rx->K);
    c->t.max_local_bytes = c->t.max_buffer = llround(local);
    c->t.max_count = llround(ceil(N / ((double)rx->P * (double)rx->K)) * b / scale);
    c->s.same_line = 1;
    c->s.tcr96 = REDIST__TCR96_SAME_GRID | REDIST__TCR96_XK | REDIST__TCR96_LCM;
    c->s.P = rx->P;
    c->s.x = 1;
    c->s.y = rx->K;
    c->s.ratio_K = rx->K;
    c->s.table = 1;
    c->s.tc = (redist__table_case){*rx, 0, 0, (int64_t)N, 1, 0};
    *m = (redist__machine){.startup = T_d, .per_message = T_d, .per_byte = tau_d * scale};
}

static redist__sim_row row(const char *name, const redist__case *c, const redist__machine *m,
                           const redist_options *opt)
{
    const redist__algorithm *a = redist__algorithm_by_name(name);
    return (redist__sim_row){name, a->steps(c, m, opt), opt->hybrid_degree,
                             redist__predict(a, c, m, opt)};
}

int redist__simulate_rx(int64_t K, int64_t P, double N, double b, double T_d, double tau_d,
                        int hybrid_d, redist__sim_row rows[REDIST__SIM_ROWS])
{
    redist__rx rx;
    if (!rx_ok(K, P, &rx) || !(N >= 0 && b > 0 && T_d >= 0 && tau_d >= 0) ||
        !isfinite(N * b + T_d + tau_d))
        return -1;
    redist__case c;
    redist__machine m;
    describe(&rx, N, b, T_d, tau_d, &c, &m);
    redist_options opt;
    redist_options_init(&opt);
    rows[0] = row("direct", &c, &m, &opt);
    rows[1] = row("indirect", &c, &m, &opt);
    int L = redist__rowsched_max_degree(&rx);
    for (int d = hybrid_d < 0 ? 0 : hybrid_d; d <= (hybrid_d < 0 ? L : hybrid_d); d++) {
        opt.hybrid_degree = d < L ? d : L;
        redist__sim_row r = row("hybrid", &c, &m, &opt);
        if (hybrid_d >= 0 || d == 0 || r.seconds < rows[2].seconds)
            rows[2] = r;
    }
    opt.hybrid_degree = -1;
    rows[0].d = rows[1].d = -1;
    rows[3] = row("multiphase", &c, &m, &opt);
    rows[4] = row("alltoall-padded", &c, &m, &opt);
    rows[5] = row("direct-async", &c, &m, &opt);
    rows[3].d = rows[4].d = rows[5].d = -1;
    return 0;
}

/* Both predictions are affine in N (start-ups plus bytes): evaluated at two sizes, the lines
   meet at the crossover. */
double redist__simulate_crossover(int64_t K, int64_t P, double b, double T_d, double tau_d)
{
    redist__sim_row r0[REDIST__SIM_ROWS], r1[REDIST__SIM_ROWS];
    double N1 = 0x1p40;
    if (redist__simulate_rx(K, P, 0, b, T_d, tau_d, -1, r0) != 0 ||
        redist__simulate_rx(K, P, N1, b, T_d, tau_d, -1, r1) != 0)
        return -1;
    double a_direct = r0[0].seconds, a_indirect = r0[1].seconds;
    double s_direct = (r1[0].seconds - a_direct) / N1,
           s_indirect = (r1[1].seconds - a_indirect) / N1;
    if (!(s_indirect > s_direct) || !(a_direct > a_indirect))
        return -1; /* one of them wins at every size */
    double n = (a_direct - a_indirect) / (s_indirect - s_direct);
    return isfinite(n) && n >= 0 ? n : -1;
}

/* ---- many nodes ------------------------------------------------------------------------------
 * P = nodes k ranks on nodes of k consecutive ranks; every rank pair that talks moves m bytes.
 * The machine is a plan's on several nodes: off-node messages pay remote_startup and the bytes
 * of a node's link remote_per_byte (redist__cost_network, node-aware's own terms).
 *
 * The all-to-all is described, not enumerated (P^2 messages: 4 10^9 at 65536 ranks). Its
 * layouts: a P x P matrix of m-byte elements, row r on rank r -> column s on rank s. A rank
 * sends one element (one run, m bytes) to each of the P - 1 others and receives one from
 * each, keeps its diagonal element (one run, m bytes), holds P m bytes on either side; it
 * uses every nonzero shift. Of its messages k - 1 stay on its node and P - k leave it, and
 * its node's link carries k (P - k) m bytes each way.
 *
 * The node-aware terms follow model/nodes.c's definitions (redist__node_terms), place by
 * place on a node, the maxima over the places. A pair of nodes has L = k / (nodes - 1) lanes
 * (at least 1).
 *
 * One lane (nodes - 1 >= k / 2 + 1): node A's j-th other node (j = 0 .. nodes - 2) falls to
 * its place j mod k: place l carries c_l = #{j <= nodes - 2 : j mod k = l} pairs each way,
 * each of n k m bytes with n = k (k ranks' blocks for k ranks), place 0 the most; the first
 * s = min(nodes - 1, k) places carry pairs, and a place that carries pairs has its own blocks
 * in each (own = c_l).
 *
 * L >= 2 lanes: place l < L (nodes - 1) carries one lane each way (c_l = 1), lane
 * i = l / (nodes - 1) of its pair, which holds the blocks of the n = ceil((k - i) / L) places
 * congruent to i mod L; a rank's blocks for the nodes - 1 other nodes go through nodes - 1
 * distinct places (s = nodes - 1), its own among them when l mod L = i (own = c_l then).
 *
 * Messages on its node, sent: its k - 1 direct ones, one gathering message to each of the s
 * places that carry its blocks but itself (s - [it carries its own]), and from each lane it
 * receives a slice to each of the k - 1 others; received: its k - 1 direct ones, a gathering
 * message from each other place whose blocks it carries ([c_l > 0] (n - [own lane])), and a slice
 * per channel (source node, lane) whose receiver is another place ((nodes - 1) L - c_l).
 * Bytes sent: its direct (k - 1) m, its blocks that others carry (nodes - 1 - own) k m, and
 * what it hands out of the lanes it receives but its own, c_l n (k - 1) m; received: its
 * direct (k - 1) m, its off-node blocks that others hand it ((nodes - 1) k - c_l n) m, and
 * what it gathers for the lanes it sends but its own blocks (c_l n k - own k) m.
 */
int redist__simulate_nodes_ok(redist__sim_pattern pattern, int64_t nodes, int64_t k, int64_t m)
{
    if (nodes < 2 || k < 1 || k > REDIST__SIM_NODES_MAX_RANKS ||
        nodes > REDIST__SIM_NODES_MAX_RANKS / k || m < 1 || m > REDIST__SIM_NODES_MAX_BYTES)
        return 0;
    int64_t P = nodes * k; /* <= 2^20 */
    if (pattern == REDIST__SIM_CYCLIC)
        return nodes <= REDIST__SIM_CYCLIC_MAX_WORK / P; /* 3 P m < 2^52 */
    return pattern == REDIST__SIM_ALLTOALL && m <= INT64_MAX / P / P;
}

int redist__simulate_layouts(redist__sim_pattern pattern, int P, redist_layout *src,
                             redist_layout *dst)
{
    *src = *dst = NULL;
    int err = REDIST_ERR_ARG;
    if (pattern == REDIST__SIM_ALLTOALL) {
        int64_t extent[2] = {P, P}, rows[2] = {1, P}, columns[2] = {P, 1};
        int by_rows[2] = {P, 1}, by_columns[2] = {1, P};
        err = redist_layout_create(2, extent, rows, by_rows, NULL, NULL, REDIST_ROW_MAJOR, src);
        if (err == REDIST_SUCCESS)
            err = redist_layout_create(2, extent, columns, by_columns, NULL, NULL, REDIST_ROW_MAJOR,
                                       dst);
    } else if (pattern == REDIST__SIM_CYCLIC) {
        int64_t extent[1] = {3 * (int64_t)P}, one[1] = {1}, three[1] = {3};
        int grid[1] = {P};
        err = redist_layout_create(1, extent, one, grid, NULL, NULL, REDIST_ROW_MAJOR, src);
        if (err == REDIST_SUCCESS)
            err = redist_layout_create(1, extent, three, grid, NULL, NULL, REDIST_ROW_MAJOR, dst);
    }
    if (err != REDIST_SUCCESS) {
        redist_layout_free(src);
        redist_layout_free(dst);
    }
    return err;
}

/* The all-to-all's traffic (the comment above derives each term). */
static void describe_alltoall(int64_t nodes, int64_t k, int64_t m, redist__traffic *t)
{
    int64_t P = nodes * k;
    memset(t, 0, sizeof *t);
    t->comm_size = (int)P;
    t->elsize = (size_t)m;
    t->max_messages = t->max_sent_messages = t->max_pieces = t->max_buffer = P - 1;
    t->max_bytes = t->max_sent_bytes = (P - 1) * m;
    t->max_copy_bytes = m;
    t->max_local_bytes = P * m;
    t->max_count = t->max_run_value = t->max_self_runs = 1;
    t->max_packed = t->max_runs = 2 * (P - 1);
    t->shift_steps = (int)(P - 1);
    redist__node_traffic *n = &t->n;
    n->nodes = (int)nodes;
    n->ranks_per_node = (int)k;
    n->max_remote_messages = n->max_remote_sent_messages = P - k;
    n->max_remote_bytes = n->max_remote_sent_bytes = (P - k) * m;
    n->max_local_messages = k - 1;
    n->max_node_bytes = k * (P - k) * m;
    /* lanes, and the places a rank's blocks for other nodes go through */
    int64_t L = k / (nodes - 1) > 1 ? k / (nodes - 1) : 1, s = nodes - 1 < k ? nodes - 1 : k;
    for (int64_t l = 0; l < k; l++) {
        int64_t c, held, own; /* held: the places whose blocks a lane holds */
        if (L == 1) {
            c = l <= nodes - 2 ? (nodes - 2 - l) / k + 1 : 0;
            held = k;
            own = c;
        } else {
            int64_t i = l / (nodes - 1);
            c = l < L * (nodes - 1);
            held = (k - i + L - 1) / L;
            own = c && l % L == i;
        }
        int64_t carries_own = own > 0;
        int64_t sent = (k - 1) + (s - carries_own) + c * (k - 1),
                received = (k - 1) + (c > 0) * (held - carries_own) + ((nodes - 1) * L - c);
        int64_t sent_bytes = ((k - 1) + (nodes - 1 - own) * k + c * held * (k - 1)) * m,
                received_bytes =
                    ((k - 1) + ((nodes - 1) * k - c * held) + (c * held * k - own * k)) * m;
        int64_t messages = sent > received ? sent : received,
                bytes = sent_bytes > received_bytes ? sent_bytes : received_bytes;
        n->max_pair_messages = c > n->max_pair_messages ? c : n->max_pair_messages;
        n->max_pair_bytes =
            c * held * k * m > n->max_pair_bytes ? c * held * k * m : n->max_pair_bytes;
        n->max_gather_messages =
            messages > n->max_gather_messages ? messages : n->max_gather_messages;
        n->max_gather_bytes = bytes > n->max_gather_bytes ? bytes : n->max_gather_bytes;
    }
}

/* The all-to-all's shape is that of its layouts, which depends on P only: kept per thread
   for the rows of one P. */
static _Thread_local redist__shape alltoall_shape;
static _Thread_local int64_t alltoall_shape_P;

static int shape_of_alltoall(int64_t P, redist__shape *s)
{
    if (alltoall_shape_P != P) {
        redist_layout src, dst;
        int err = redist__simulate_layouts(REDIST__SIM_ALLTOALL, (int)P, &src, &dst);
        if (err != REDIST_SUCCESS)
            return err;
        redist__shape_of(src, dst, &alltoall_shape);
        alltoall_shape_P = P;
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
    *s = alltoall_shape;
    return REDIST_SUCCESS;
}

int redist__simulate_nodes_case(redist__sim_pattern pattern, int64_t nodes, int64_t k, int64_t m,
                                redist__case *c)
{
    memset(c, 0, sizeof *c);
    if (!redist__simulate_nodes_ok(pattern, nodes, k, m))
        return REDIST_ERR_ARG;
    int64_t P = nodes * k;
    if (pattern == REDIST__SIM_ALLTOALL) {
        describe_alltoall(nodes, k, m, &c->t);
        return shape_of_alltoall(P, &c->s);
    }
    redist_layout src, dst;
    int err = redist__simulate_layouts(pattern, (int)P, &src, &dst);
    if (err == REDIST_SUCCESS)
        err = redist__pair_case_on_nodes(src, dst, (int)P, (int)k, m, c, NULL, NULL);
    c->src = c->dst = NULL; /* freed below */
    redist_layout_free(&src);
    redist_layout_free(&dst);
    return err;
}

void redist__simulate_nodes_machine(const redist__machine *base, redist__machine *m)
{
    *m = *base;
    m->shared_node = m->shared_arrays = 0;
    m->threads_speedup = 0;
}

/* Algorithm `name`'s prediction, or -1 where it is not usable. */
static double predicted(const char *name, const redist__case *c, const redist__machine *m,
                        const redist_options *opt)
{
    const redist__algorithm *a = redist__algorithm_by_name(name);
    return a != NULL && redist__algo_usable(a, c, opt, NULL) == REDIST_SUCCESS
               ? redist__predict(a, c, m, opt)
               : -1.0;
}

int redist__simulate_nodes(redist__sim_pattern pattern, int64_t nodes, int64_t k, int64_t m,
                           const redist__machine *machine, redist__sim_nodes_row *row)
{
    redist__case c;
    int err = redist__simulate_nodes_case(pattern, nodes, k, m, &c);
    if (err != REDIST_SUCCESS)
        return err;
    redist_options opt;
    redist_options_init(&opt);
    row->direct_async = predicted("direct-async", &c, machine, &opt);
    row->alltoallv = predicted("alltoallv", &c, machine, &opt);
    row->node_aware = predicted("node-aware", &c, machine, &opt);
    const redist__algorithm *chosen = redist__choose(&c, machine, &opt);
    row->chosen = chosen != NULL ? chosen->name : NULL;
    row->chosen_seconds = chosen != NULL ? redist__predict(chosen, &c, machine, &opt) : -1.0;
    /* the best by the predictions alone, apart from auto's rule */
    const redist__algorithm *const *all;
    int count = redist__algorithms(&all);
    row->best = NULL;
    row->best_seconds = -1.0;
    for (int i = 0; i < count; i++) {
        double t = predicted(all[i]->name, &c, machine, &opt);
        if (t >= 0 && (row->best == NULL || t < row->best_seconds)) {
            row->best = all[i]->name;
            row->best_seconds = t;
        }
    }
    return REDIST_SUCCESS;
}
