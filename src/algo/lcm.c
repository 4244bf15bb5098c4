/* lcm: paper 001's LCM method (§5.3, Fig. 8): cyclic(x) -> cyclic(m) with X_TO_KX, then
 * cyclic(m) -> cyclic(y) with KY_TO_Y, m = lcm(x, y). Two phases (src/sched/phases.c); the
 * intermediate block is the largest of the three, so the index work is the coarsest (the
 * paper finds it always beats GCD). 1-D pairs on the same ranks only.
 */
#include "algo/p001.h"

static int two_steps(const redist__summary *s)
{
    return s->max_messages > 0 ? 2 : 0;
}

static int setup(struct redist_plan_s *p)
{
    int64_t x = p->src->block[0], y = p->dst->block[0], a = x, b = y;
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return redist__p001_two_phases(p, x / a * y, "x-to-kx", "ky-to-y");
}

const redist__algorithm redist__algo_lcm = {
    .name = "lcm",
    .applicable = redist__p001_applicable,
    .steps = two_steps,
    .setup = setup,
    .start = redist__p001_phases_start,
    .progress = redist__p001_phases_progress,
    .destroy = redist__p001_phases_destroy,
    .local_stats = redist__p001_phases_stats,
    .dry_needs_buffers = 1,
};
