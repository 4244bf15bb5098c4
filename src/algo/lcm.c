/* lcm: [TCR96]'s LCM method (§5.3, Fig. 8): cyclic(x) -> cyclic(m) with X_TO_KX, then
 * cyclic(m) -> cyclic(y) with KY_TO_Y, m = lcm(x, y). Two phases (phases.c); the
 * intermediate block is the largest of the three, so the index work is the coarsest (the
 * paper finds it always beats GCD). Any blocks whose lcm fits in 64 bits, N-D dimension by
 * dimension, on the same ranks, grid and first coordinates.
 */
#include "algo/tcr96.h"

static int setup(struct redist_plan_s *p)
{
    return redist__tcr96_two_phases(p, 1, "x-to-kx", "ky-to-y");
}

static int applicable(const redist__case *c)
{
    return c->s.tcr96 & REDIST__TCR96_LCM ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

const redist__algorithm redist__algo_lcm = {
    .name = "lcm",
    .applicable = applicable,
    .why_not = REDIST__TCR96_SAME_GRID_WHY
    ", and the lcm of the two blocks below 2^63 along every dimension",
    .setup = setup,
    .predict = redist__tcr96_predict_lcm,
    REDIST__TCR96_PHASES_HOOKS,
};
