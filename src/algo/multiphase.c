/* multiphase: Kaushik et al.'s multiphase redistribution ([LBP96] §2 and Table 1).
 *
 * K = k1 k2 ... kr (its prime factors, ascending); cyclic(x) -> cyclic(k1 x) ->
 * cyclic(k1 k2 x) -> ... -> cyclic(Kx), each phase one cyclic redistribution with the
 * direct schedule (k_i contention-free steps, [LBP96] Theorem 3 (i)). Every phase moves
 * all N elements, so it trades bandwidth for start-ups: sum_i (k_i T_d + N/P b tau_d)
 * against direct's K T_d + N/P b tau_d. When K is prime it is the direct algorithm. The dual
 * (cyclic(Kx) -> cyclic(x)) divides by the factors in the reverse order. It applies to 1-D
 * pairs on the same P ranks whose blocks divide one another, any K (a factor k_i > P makes
 * an all-to-all phase, which direct runs with its rank shifts).
 *
 * Each phase is a plan of its own (phases.c). Cost: every phase moves all the data, and its
 * direct schedule takes its steps (rowsched.h, redist__multiphase_counts):
 *   r x the moves of the transport (redist__cost_moves) + (sum_i S_i) T_d,
 * r the number of phases (1 for K = 1).
 */
#include "algo/algo.h"
#include "algo/phases.h"
#include "index/rowsched.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PHASES REDIST__MAX_PHASES

static int applicable(const redist__case *c)
{
    return c->s.ratio_K > 0 ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static int steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    (void)m, (void)opt;
    int n = 0, phases = 0;
    redist__multiphase_counts(c->s.ratio_K, c->s.P, &n, &phases);
    return n;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt;
    int n = 0, phases = 0;
    redist__multiphase_counts(c->s.ratio_K, c->s.P, &n, &phases);
    /* the phases are direct plans: through the shared-memory window where it applies */
    double trips = redist__shm_trips(m, opt, transport);
    return (phases > 0 ? phases : 1) * redist__cost_moves_via(c, m, transport, trips > 1) +
           trips * m->startup * n;
}

/* Block size after phase i (the blocks grow forward, shrink for the dual). */
static int64_t block_after(int64_t K, int dual, int64_t x, const int64_t *f, int i)
{
    int64_t b = dual ? x * K : x;
    for (int k = 0; k < i; k++)
        b = dual ? b / f[k] : b * f[k];
    return b;
}

/* The layouts between the phases (mid[0 .. n-2]); returns the number of phases n, 0 if the
   pair is not a table case, -1 if out of memory. Pure. */
static int phase_layouts(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                         redist_layout mid[MAX_PHASES])
{
    int dual = 0;
    int64_t K = redist__ratio_detect(src, dst, &dual);
    if (K == 0)
        return 0;
    int64_t f[REDIST__MAX_PRIME_FACTORS], x = dual ? dst->block[0] : src->block[0];
    int n = K > 1 ? redist__prime_factors(K, f) : 1;
    if (K == 1)
        f[0] = 1;
    if (dual) /* the reverse order, so that the dual retraces the forward phases */
        for (int a = 0, b = n - 1; a < b; a++, b--) {
            int64_t t = f[a];
            f[a] = f[b];
            f[b] = t;
        }
    for (int i = 0; i + 1 < n; i++) {
        int64_t b = block_after(K, dual, x, f, i + 1);
        if (redist_layout_create(1, src->extent, &b, src->grid, src->first, src->ranks, src->order,
                                 &mid[i]) != REDIST_SUCCESS)
            return -1;
    }
    return n;
}

/* Collective: every rank makes the same calls (the layouts are the same everywhere). */
static int setup(struct redist_plan_s *p)
{
    redist_layout mid[MAX_PHASES] = {0};
    int n = phase_layouts(p->src, p->dst, mid);
    if (n == 0)
        return REDIST_ERR_NOT_APPLICABLE;
    const char *names[MAX_PHASES];
    for (int i = 0; i < MAX_PHASES; i++)
        names[i] = "direct";
    redist__phases *ph = NULL;
    int err = redist__phases_create(p, n < 0 ? 1 : n, mid, names, -1, 0, &ph);
    p->algo_state = ph;
    return n < 0 ? REDIST_ERR_NOMEM : err;
}

/* Every rank's messages and bytes summed over the phases (pure): the maxima over ranks and
   the totals. The phases' layouts are on the source's ranks. */
static int explain(const redist__case *c, const redist__machine *m, const redist_options *opt,
                   redist__traffic_summary *out)
{
    (void)m, (void)opt;
    redist_layout src = (redist_layout)c->src, dst = (redist_layout)c->dst;
    redist_layout mid[MAX_PHASES] = {0};
    int n = phase_layouts(src, dst, mid);
    int err = n > 0 ? redist__phases_traffic(src, mid, n, dst, (int64_t)c->t.elsize, out)
                    : REDIST_ERR_NOT_APPLICABLE;
    for (int i = 0; i < MAX_PHASES; i++)
        redist_layout_free(&mid[i]);
    return err;
}

const redist__algorithm redist__algo_multiphase = {
    .name = "multiphase",
    .applicable = applicable,
    .why_not = "needs a 1-D pair on the same ranks, grid and first coordinate whose blocks "
               "divide one another " REDIST__PLAIN_WHY,
    .steps = steps,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .setup = setup,
    REDIST__PHASES_RUN,
    .explain = explain,
    .dry_needs_buffers = 1,
};
