/* x-to-kx: [TCR96]'s X_TO_KX algorithm (§4, Fig. 5) for cyclic(x) -> cyclic(y), y = k x,
 * and N-D arrays dimension by dimension (§2) where every dimension's destination block is a
 * multiple of its source block, on the same ranks, grid and first coordinates.
 *
 * Send: local block i of size x goes to ((i P + p) / k) mod P, a sequence that repeats every
 * k blocks (the paper's stored p/k + (i mod k)(P/k) when P mod k = 0; tabulated here for any
 * k). Receive: sub-block i of every local block of size y comes from (k p + i) mod P;
 * synchronous (all packets, then one scan of the local array) or asynchronous (each packet
 * placed on arrival, stride y), the plan option synchronous_receive. Index work is per block
 * of x (per box of pieces in N-D, tcr96.h). One step.
 */
#include "algo/tcr96.h"

static int applicable(const redist__case *c)
{
    return c->s.tcr96 & REDIST__TCR96_XK ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static int setup(struct redist_plan_s *p)
{
    return redist__tcr96_ratio_setup(p, redist__xk_dest, redist__xk_source);
}

const redist__algorithm redist__algo_x_to_kx = {
    .name = "x-to-kx",
    .applicable = applicable,
    .why_not = REDIST__TCR96_SAME_GRID_WHY
    ", and along every dimension the destination block a multiple of the source block",
    .setup = setup,
    REDIST__TCR96_RATIO_HOOKS,
};
