/* indirect: paper 000's log-step combine-and-forward schedule for cyclic(x) <-> cyclic(Kx).
 *
 * Lim, Bhat, Prasanna §3.4 (Fig. 6, 9) and Theorem 3 (ii): circular shifts align the
 * diagonals of the generalized circulant table P_s, first between submatrix rows
 * (ceil(log K') steps), then within the G-column groups (ceil(log G) steps), then one
 * permutation of whole columns: at most ceil(log K') + ceil(log G) + 1 steps instead of
 * direct's K, each a permutation of the ranks. Relay ranks combine the units they hold and
 * forward them (src/sched/relay.c). Cost (Corollary 2):
 *   (ceil(log K) + 2) T_d + ((ceil(log K) + 1) N/(2P) + N/P) b tau_d.
 * It wins when start-ups dominate (small arrays, large K). Only the table case applies
 * (1-D, same P ranks, K <= P); elsewhere REDIST_ERR_NOT_APPLICABLE.
 */
#include "algo/relay.h"

static int build(const redist__rx *rx, int d, redist__row_schedule *out)
{
    (void)d;
    return redist__rowsched_indirect(rx, out);
}

static int explain(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                   const redist__summary *s, int64_t out[4])
{
    return redist__relay_explain(src, dst, build, redist__rowsched_bruck, -1, s->comm_size,
                                 s->elsize, out);
}

static int steps(const redist__summary *s)
{
    return s->indirect_steps;
}

static int setup(struct redist_plan_s *p)
{
    return redist__relay_algo_setup(p, build, redist__rowsched_bruck, -1);
}

const redist__algorithm redist__algo_indirect = {
    .name = "indirect",
    .applicable = redist__relay_applicable,
    .steps = steps,
    .setup = setup,
    .start = redist__relay_algo_start,
    .progress = redist__relay_algo_progress,
    .destroy = redist__relay_algo_destroy,
    .local_stats = redist__relay_algo_stats,
    .explain = explain,
};
