/* hybrid: [LBP96]'s hybrid schedule with degree of indirection d, for
 * cyclic(x) <-> cyclic(Kx).
 *
 * [LBP96] §3.4 (Fig. 10) and Theorem 3 (iii): the first d steps of the indirect schedule,
 * after which rows that have become identical move together in a direct schedule:
 * d + ceil(K / 2^d) steps when K' or G is a power of two (rowsched.h states the exact count
 * otherwise). d = 0 is direct, d = ceil(log K') + ceil(log G) indirect (a larger d is taken
 * as that). Where indirect runs two table schedules (through cyclic(lcm)) or Bruck's shift
 * schedule, hybrid runs the same with its d (the shift schedule's d bit-steps, then direct).
 *
 * d is the option hybrid_degree; -1 lets the model choose the d with the smallest prediction
 * (for each table separately through cyclic(lcm)). Cost ([LBP96] Corollary 2,
 * redist__relay_time): S_d T_d + (d N/(2P) + N/P) b (tau_d + 2 copies) + the gather and scatter
 * copies, S_d the steps.
 */
#include "algo/relay.h"

static int build(const redist__rx *rx, int d, redist__row_schedule *out)
{
    return redist__rowsched_hybrid(rx, d, out);
}

/* The steps with degree d of one table (rx) or, rx NULL, of the shift schedule. */
static int steps_with(const redist__case *c, const redist__rx *rx, int d)
{
    return rx ? redist__rowsched_hybrid_steps(rx, d)
              : redist__rowsched_bruck_steps(c->t.comm_size, d);
}

/* The degree for one table (or the shift schedule): the option, else the model's choice. */
static int degree_for(const redist__case *c, const redist__machine *m, const redist__rx *rx,
                      int option)
{
    if (option >= 0)
        return option;
    int top = rx ? redist__rowsched_max_degree(rx) : redist__ceil_log2(c->t.comm_size), best = 0;
    double best_time = 0;
    for (int d = 0; d <= top; d++) {
        double t = redist__relay_time(c, m, steps_with(c, rx, d), d);
        if (d == 0 || t < best_time) {
            best = d;
            best_time = t;
        }
    }
    return best;
}

/* The steps; *degree gets the d in force (through cyclic(lcm): the first table's). */
static int schedule_steps(const redist__case *c, const redist__machine *m,
                          const redist_options *opt, int *degree)
{
    redist__rx first, second;
    const redist__rx *rx = c->s.table ? &c->s.tc.rx : NULL;
    if (rx == NULL && redist__relay_lcm_tables(c, &first, &second)) {
        *degree = degree_for(c, m, &first, opt->hybrid_degree);
        return steps_with(c, &first, *degree) +
               steps_with(c, &second, degree_for(c, m, &second, opt->hybrid_degree));
    }
    *degree = degree_for(c, m, rx, opt->hybrid_degree);
    return steps_with(c, rx, *degree);
}

static int steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    int d;
    return schedule_steps(c, m, opt, &d);
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)transport;
    int d, n = schedule_steps(c, m, opt, &d);
    return redist__relay_time(c, m, n, d);
}

static int check_options(const redist_options *opt, int comm_size)
{
    (void)comm_size;
    if (opt->hybrid_degree < -1)
        return redist__fail(REDIST_ERR_ARG,
                            "hybrid_degree = %d must be -1 (the model chooses) or >= 0",
                            opt->hybrid_degree);
    return REDIST_SUCCESS;
}

static void fingerprint_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist__fp_add(fp, "options.hybrid_degree", &opt->hybrid_degree, sizeof opt->hybrid_degree);
}

static int explain(const redist__case *c, const redist__machine *m, const redist_options *opt,
                   redist__traffic_summary *out)
{
    int d;
    schedule_steps(c, m, opt, &d);
    return redist__relay_explain(c, build, redist__rowsched_bruck, d, out);
}

static int setup(struct redist_plan_s *p)
{
    int d;
    schedule_steps(&p->pair, p->machine, &p->opt, &d);
    return redist__relay_algo_setup(p, build, redist__rowsched_bruck, d);
}

const redist__algorithm redist__algo_hybrid = {
    .name = "hybrid",
    .applicable = redist__relay_applicable,
    .why_not = REDIST__RELAY_WHY_NOT,
    .steps = steps,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .check_options = check_options,
    .fingerprint_options = fingerprint_options,
    .setup = setup,
    .start = redist__relay_algo_start,
    .progress = redist__relay_algo_progress,
    .destroy = redist__relay_algo_destroy,
    .local_stats = redist__relay_algo_stats,
    .explain = explain,
    .device = 1,
};
