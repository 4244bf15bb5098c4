/* indirect: [LBP96]'s log-step combine-and-forward schedule for cyclic(x) <-> cyclic(Kx).
 *
 * [LBP96] §3.4 (Fig. 6, 9) and Theorem 3 (ii): circular shifts align the diagonals of the
 * generalized circulant table P_s, first between submatrix rows (ceil(log K') steps), then
 * within the G-column groups (ceil(log G) steps), then one permutation of whole columns: at
 * most ceil(log K') + ceil(log G) + 1 steps instead of direct's K, each a permutation of the
 * ranks. Relay ranks combine the units they hold and forward them (relay.c). It wins when
 * start-ups dominate (small arrays, large K). In the table case (also N-D, dimension by
 * dimension) the schedule is [LBP96]'s; for cyclic(x) -> cyclic(y) through cyclic(lcm) two
 * such schedules run one after the other; otherwise Bruck's log-step schedule over the
 * communicator's shift table (rowsched.h), for communicators up to REDIST__SHIFT_MAX_RANKS.
 *
 * Cost ([LBP96] Corollary 2, redist__relay_time): S T_d + (L N/(2P) + N/P) b (tau_d + 2 copies)
 * + the gather and scatter copies, S the steps and L the shift steps among them.
 */
#include "algo/relay.h"

static int build(const redist__rx *rx, int d, redist__row_schedule *out)
{
    (void)d;
    return redist__rowsched_indirect(rx, out);
}

/* The steps of the schedule and, through *shifts, how many of them are circular shifts. */
static int schedule_steps(const redist__case *c, int *shifts)
{
    redist__rx first, second;
    if (c->s.table) {
        *shifts = redist__rowsched_max_degree(&c->s.tc.rx);
        return redist__rowsched_indirect_steps(&c->s.tc.rx);
    }
    if (redist__relay_lcm_tables(c, &first, &second)) {
        *shifts = redist__rowsched_max_degree(&first) + redist__rowsched_max_degree(&second);
        return redist__rowsched_indirect_steps(&first) + redist__rowsched_indirect_steps(&second);
    }
    *shifts = redist__rowsched_bruck_steps(c->t.comm_size, -1);
    return *shifts;
}

static int steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    (void)m, (void)opt;
    int shifts;
    return schedule_steps(c, &shifts);
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt, (void)transport;
    int shifts, n = schedule_steps(c, &shifts);
    return redist__relay_time(c, m, n, shifts);
}

static int explain(const redist__case *c, const redist__machine *m, const redist_options *opt,
                   redist__traffic_summary *out)
{
    (void)m, (void)opt;
    return redist__relay_explain(c, build, redist__rowsched_bruck, -1, out);
}

static int setup(struct redist_plan_s *p)
{
    return redist__relay_algo_setup(p, build, redist__rowsched_bruck, -1);
}

const redist__algorithm redist__algo_indirect = {
    .name = "indirect",
    .applicable = redist__relay_applicable,
    .why_not = REDIST__RELAY_WHY_NOT,
    .steps = steps,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .setup = setup,
    .start = redist__relay_algo_start,
    .progress = redist__relay_algo_progress,
    .destroy = redist__relay_algo_destroy,
    .local_stats = redist__relay_algo_stats,
    .explain = explain,
    .device = 1,
};
