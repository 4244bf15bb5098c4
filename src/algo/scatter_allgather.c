/* scatter-allgather: a destination whose elements have several holders (replicated grid
 * dimensions, identical or overlapping boxes) filled in two phases, as [GGKK03]'s one-to-all
 * broadcast of a large message is a scatter and an all-gather (van de Geijn's broadcast;
 * MPICH's and Open MPI's for long messages). Phase 1 sends each element once, from a source
 * holder into a middle layout that holds each element once, slabs of the longest dimension
 * spread over every rank of the plan (the best plain algorithm, auto); phase 2 sends each
 * slab to the destination's holders of its elements (direct-async), scaled there. So a
 * source rank that holds much of the array (one rank's matrix replicated over a grid, a
 * coarse source and a replicated destination) sends it once instead of once per holder:
 * every element crosses to one rank and relays from there, and each rank sends about
 * L / P + (P - 1)/P L instead of up to (P - 1) L. Where the source is already spread as
 * evenly as the slabs (Shard -> Replicate), direct sends cost one phase less, and the model
 * says so. Cost:
 *   2 (T_d + (P - 1) T_m) + (min(S, L) + (P - 1)/P L) (tau_d + 2 c) + L c,
 * L the most bytes a rank holds (a replicated destination: the whole array), S the most a
 * rank sends with direct sends (phase 1 sends at most what a rank holds). The middle arrays
 * are allocated at plan time (algo/phases.c).
 */
#include "algo/algo.h"
#include "algo/phases.h"

static int applicable(const redist__case *c)
{
    return c->s.dst_shared && !c->s.reduce ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt, (void)transport;
    double P = (double)c->t.comm_size, L = (double)c->t.max_local_bytes;
    double S = (double)c->t.max_sent_bytes, first = S < L ? S : L;
    double share = P > 1 ? (P - 1.0) / P : 0.0;
    return 2.0 * (m->startup + m->per_message * (P - 1.0)) +
           (first + share * L) * (m->per_byte + 2.0 * m->copy_per_byte) + L * m->copy_per_byte +
           redist__cost_network_spread(c, m, 2.0 * (P - 1.0), first + share * L);
}

/* The first phase's destination holds each element once, so auto never picks this
   algorithm there; the second phase is named, so it never recurses. */
static int setup(struct redist_plan_s *p)
{
    return redist__slab_phases_setup(p, "auto", "direct-async");
}

const redist__algorithm redist__algo_scatter_allgather = {
    .name = "scatter-allgather",
    .applicable = applicable,
    .why_not = "needs a destination whose elements have several holders (replicated dimensions, "
               "identical or overlapping boxes), without options.reduce",
    .predict = predict,
    .setup = setup,
    REDIST__SLAB_PHASES,
    .device = 1,
};
