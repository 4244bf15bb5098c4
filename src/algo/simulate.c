/* The simulator (`redist simulate`): [LBP96]'s table case R_x(K, P), N elements of b bytes,
 * costed by the algorithms' own predictions (their files state each formula) for any P and
 * K, without MPI and without building layouts or tables.
 *
 * The case is described rather than computed: the shape of R_x(K, P) (rowsched.h and
 * circulant.h give every step count in closed form), and the traffic of a rank: N/P b bytes
 * held, split into K equal rows of which the moving rows of P_s travel, the largest message
 * ceil(N/(PK)) b. The machine is [LBP96]'s GDM one: every message, synchronised or not, costs
 * T_d; every byte that travels tau_d; local copies are free and there is no shared memory.
 * Under it direct costs about K T_d + N/P b tau_d and indirect (L + 1) T_d +
 * (L N/(2P) + N/P) b tau_d (Corollary 2), hybrid in between, as the paper finds.
 *
 * Traffic is integer bytes; for arrays beyond 2^52 bytes it is counted in units of `scale`
 * bytes and tau_d scaled to match, so that every prediction stays exact to double precision.
 */
#include "algo/simulate.h"

#include "algo/algo.h"
#include "index/rowsched.h"

#include <math.h>
#include <string.h>

/* 1 <= K <= P <= REDIST__SIM_MAX_P; fills *rx. */
static int rx_ok(int64_t K, int64_t P, redist__rx *rx)
{
    return K >= 1 && K <= P && P <= REDIST__SIM_MAX_P && redist__rx_init(K, P, rx) == 0;
}

int redist__simulate_max_degree(int64_t K, int64_t P)
{
    redist__rx rx;
    return rx_ok(K, P, &rx) ? redist__rowsched_max_degree(&rx) : -1;
}

/* The case of R_x(K, P) with N elements of b bytes, and the GDM machine, in units of `scale`
   bytes. */
static void describe(const redist__rx *rx, double N, double b, double T_d, double tau_d,
                     redist__case *c, redist__machine *m)
{
    double bytes = N * b, scale = bytes > 0x1p52 ? bytes / 0x1p52 : 1.0;
    double local = bytes / (double)rx->P / scale, moving = (double)redist__rx_moving_rows(rx);
    memset(c, 0, sizeof *c);
    c->t.comm_size = (int)rx->P;
    c->t.elsize = 1; /* counts are in units */
    c->t.max_messages = c->t.max_sent_messages = (int64_t)moving;
    c->t.max_bytes = c->t.max_sent_bytes = llround(local * moving / (double)rx->K);
    c->t.max_copy_bytes = llround(local - local * moving / (double)rx->K);
    c->t.max_local_bytes = c->t.max_buffer = llround(local);
    c->t.max_count = llround(ceil(N / ((double)rx->P * (double)rx->K)) * b / scale);
    c->s.same_line = 1;
    c->s.tcr96 = REDIST__TCR96_SAME_GRID | REDIST__TCR96_XK | REDIST__TCR96_LCM;
    c->s.P = rx->P;
    c->s.x = 1;
    c->s.y = rx->K;
    c->s.ratio_K = rx->K;
    c->s.table = 1;
    c->s.tc = (redist__table_case){*rx, 0, 0, (int64_t)N, 1, 0};
    *m = (redist__machine){.startup = T_d, .per_message = T_d, .per_byte = tau_d * scale};
}

static redist__sim_row row(const char *name, const redist__case *c, const redist__machine *m,
                           const redist_options *opt)
{
    const redist__algorithm *a = redist__algorithm_by_name(name);
    return (redist__sim_row){name, a->steps(c, m, opt), opt->hybrid_degree,
                             redist__predict(a, c, m, opt)};
}

int redist__simulate_rx(int64_t K, int64_t P, double N, double b, double T_d, double tau_d,
                        int hybrid_d, redist__sim_row rows[REDIST__SIM_ROWS])
{
    redist__rx rx;
    if (!rx_ok(K, P, &rx) || !(N >= 0 && b > 0 && T_d >= 0 && tau_d >= 0) ||
        !isfinite(N * b + T_d + tau_d))
        return -1;
    redist__case c;
    redist__machine m;
    describe(&rx, N, b, T_d, tau_d, &c, &m);
    redist_options opt;
    redist_options_init(&opt);
    rows[0] = row("direct", &c, &m, &opt);
    rows[1] = row("indirect", &c, &m, &opt);
    int L = redist__rowsched_max_degree(&rx);
    for (int d = hybrid_d < 0 ? 0 : hybrid_d; d <= (hybrid_d < 0 ? L : hybrid_d); d++) {
        opt.hybrid_degree = d < L ? d : L;
        redist__sim_row r = row("hybrid", &c, &m, &opt);
        if (hybrid_d >= 0 || d == 0 || r.seconds < rows[2].seconds)
            rows[2] = r;
    }
    opt.hybrid_degree = -1;
    rows[0].d = rows[1].d = -1;
    rows[3] = row("multiphase", &c, &m, &opt);
    rows[4] = row("alltoall-padded", &c, &m, &opt);
    rows[5] = row("direct-async", &c, &m, &opt);
    rows[3].d = rows[4].d = rows[5].d = -1;
    return 0;
}

/* Both predictions are affine in N (start-ups plus bytes): evaluated at two sizes, the lines
   meet at the crossover. */
double redist__simulate_crossover(int64_t K, int64_t P, double b, double T_d, double tau_d)
{
    redist__sim_row r0[REDIST__SIM_ROWS], r1[REDIST__SIM_ROWS];
    double N1 = 0x1p40;
    if (redist__simulate_rx(K, P, 0, b, T_d, tau_d, -1, r0) != 0 ||
        redist__simulate_rx(K, P, N1, b, T_d, tau_d, -1, r1) != 0)
        return -1;
    double a_direct = r0[0].seconds, a_indirect = r0[1].seconds;
    double s_direct = (r1[0].seconds - a_direct) / N1,
           s_indirect = (r1[1].seconds - a_indirect) / N1;
    if (!(s_indirect > s_direct) || !(a_direct > a_indirect))
        return -1; /* one of them wins at every size */
    double n = (a_direct - a_indirect) / (s_indirect - s_direct);
    return isfinite(n) && n >= 0 ? n : -1;
}
