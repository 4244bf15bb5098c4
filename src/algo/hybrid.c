/* hybrid: paper 000's hybrid schedule with degree of indirection d, for
 * cyclic(x) <-> cyclic(Kx).
 *
 * Lim, Bhat, Prasanna §3.4 (Fig. 10) and Theorem 3 (iii): the first d steps of the indirect
 * schedule, after which rows that have become identical move together in a direct schedule:
 * d + ceil(K / 2^d) steps when K' or G is a power of two (src/rowsched.h states the exact
 * count otherwise). d = 0 is direct, d = ceil(log K') + ceil(log G) indirect. d is the plan
 * option hybrid_degree; -1 lets the model choose the d with the smallest predicted time.
 * Cost (Corollary 2): (d + ceil(K/2^d)) T_d + (N d/(2P) + N/P) b tau_d. Relays as in
 * indirect (src/sched/relay.c). Only the table case applies.
 */
#include "algo/relay.h"

static int build(const redist__rx *rx, int d, redist__row_schedule *out)
{
    return redist__rowsched_hybrid(rx, d, out);
}

static int explain(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                   const redist__summary *s, int64_t out[4])
{
    return redist__relay_explain(src, dst, build, redist__rowsched_bruck, s->hybrid_degree,
                                 s->comm_size, s->elsize, out);
}

static int steps(const redist__summary *s)
{
    return s->hybrid_steps;
}

static int setup(struct redist_plan_s *p)
{
    return redist__relay_algo_setup(p, build, redist__rowsched_bruck, p->summary.hybrid_degree);
}

const redist__algorithm redist__algo_hybrid = {
    .name = "hybrid",
    .applicable = redist__relay_applicable,
    .steps = steps,
    .setup = setup,
    .start = redist__relay_algo_start,
    .progress = redist__relay_algo_progress,
    .destroy = redist__relay_algo_destroy,
    .local_stats = redist__relay_algo_stats,
    .explain = explain,
};
