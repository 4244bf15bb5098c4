/* ky-to-y: [TCR96]'s KY_TO_Y algorithm (§3, Fig. 2) for cyclic(x) -> cyclic(y), x = k y,
 * and N-D arrays dimension by dimension (§2) where every dimension's source block is a
 * multiple of its destination block, on the same ranks, grid and first coordinates.
 *
 * Send: processor p sends sub-block i (size y) of every local block of size x to
 * (k p + i) mod P: a sequence of k destinations computed once and reused. Receive: local
 * block i of size y comes from ((i P + p) / k) mod P, which repeats every k blocks (the
 * paper's stored sequence p/k + (i mod k)(P/k) when P mod k = 0; tabulated here for any k,
 * so both receive methods always apply). Synchronous (all packets, then one scan) or
 * asynchronous (each packet placed on arrival, its blocks with stride x), the plan option
 * synchronous_receive. Index work is per block of y (per box of pieces in N-D, tcr96.h), not
 * per element. One step.
 */
#include "algo/tcr96.h"

static int applicable(const redist__case *c)
{
    return c->s.tcr96 & REDIST__TCR96_KY ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static int setup(struct redist_plan_s *p)
{
    return redist__tcr96_ratio_setup(p, redist__ky_dest, redist__ky_source);
}

const redist__algorithm redist__algo_ky_to_y = {
    .name = "ky-to-y",
    .applicable = applicable,
    .why_not = REDIST__TCR96_SAME_GRID_WHY
    ", and along every dimension the source block a multiple of the destination block",
    .setup = setup,
    REDIST__TCR96_RATIO_HOOKS,
};
