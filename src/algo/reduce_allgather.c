/* reduce-allgather: partial sums in two phases, as an all-reduce is a reduce-scatter and an
 * all-gather (MPICH's and Open MPI's large-message all-reduce; [GGKK03]'s all-reduce). Phase
 * 1 reduces the source's partial values into a middle layout that holds each element once,
 * spread over every rank of the plan (slabs of the longest dimension: rank r holds slab r),
 * with reduce-direct; phase 2 moves the reduced middle to every destination holder with the
 * best plain algorithm (auto), alpha and beta applied there. Where the destination is
 * replicated (Partial -> Replicate), each rank then receives about (P - 1)/P of the array in
 * each phase, instead of (P - 1) partial copies of it with reduce-direct. Cost:
 *   2 (T_d + (P - 1) T_m) + 2 (P - 1)/P L (tau_d + 2 c) + L c,
 * L the most bytes a rank holds (its destination, replicated: the whole array), c a byte's
 * copy (packing, unpacking, the reduction's pass). The middle arrays are allocated at plan
 * time (algo/phases.c).
 */
#include "algo/algo.h"
#include "algo/phases.h"

static int applicable(const redist__case *c)
{
    return c->s.reduce ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt, (void)transport;
    double P = (double)c->t.comm_size, L = (double)c->t.max_local_bytes;
    double share = P > 1 ? (P - 1.0) / P : 0.0;
    return 2.0 * (m->startup + m->per_message * (P - 1.0)) +
           2.0 * share * L * (m->per_byte + 2.0 * m->copy_per_byte) + L * m->copy_per_byte +
           redist__cost_network_spread(c, m, 2.0 * (P - 1.0), 2.0 * share * L);
}

static int setup(struct redist_plan_s *p)
{
    return redist__slab_phases_setup(p, "reduce-direct", "auto");
}

const redist__algorithm redist__algo_reduce_allgather = {
    .name = "reduce-allgather",
    .applicable = applicable,
    .why_not = "needs options.reduce (partial sums)",
    .predict = predict,
    .setup = setup,
    REDIST__SLAB_PHASES,
    .reduces = 1,
};
