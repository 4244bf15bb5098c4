/* gcd: [TCR96]'s GCD method (§5.2, Fig. 8): cyclic(x) -> cyclic(m) with KY_TO_Y, then
 * cyclic(m) -> cyclic(y) with X_TO_KX, m = gcd(x, y). Two phases (phases.c); the
 * intermediate block m is the smallest of the three, so its index work is the finest (m = 1
 * is as fine as the general method). Any blocks, N-D dimension by dimension, on the same
 * ranks, grid and first coordinates.
 */
#include "algo/tcr96.h"

static int setup(struct redist_plan_s *p)
{
    return redist__tcr96_two_phases(p, 0, "ky-to-y", "x-to-kx");
}

static int applicable(const redist__case *c)
{
    return c->s.tcr96 & REDIST__TCR96_SAME_GRID ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

const redist__algorithm redist__algo_gcd = {
    .name = "gcd",
    .applicable = applicable,
    .why_not = REDIST__TCR96_SAME_GRID_WHY,
    .setup = setup,
    .predict = redist__tcr96_predict_gcd,
    REDIST__TCR96_PHASES_HOOKS,
};
