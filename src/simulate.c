/* The GDM model of paper 000 for R_x(K, P), evaluated without MPI for any P, K, N.
 *
 * Corollary 2: with N elements of b bytes on P processors, direct costs
 * K T_d + (N/P) b tau_d; indirect (L + 1) T_d + (L N/(2P) + N/P) b tau_d with L shift steps
 * (ceil(log K') + ceil(log G)); hybrid with degree d (s_d steps) s_d T_d + (d N/(2P) + N/P) b
 * tau_d. Step counts come from the schedules themselves (rowsched.c), not from the bounds.
 * Multiphase runs one direct redistribution per prime factor k_i of K, each moving all the
 * data: sum_i (k_i T_d + N/P b tau_d). The MPI_Alltoall baseline with padding sends P - 1
 * messages of the largest message size N/(PK) b. direct-async is the direct schedule with
 * every message in flight at once: in the GDM model (one message per processor at a time)
 * it costs what direct costs.
 */
#include "simulate.h"

#include "circulant.h"
#include "rowsched.h"

#include <math.h>

static int steps_of(int (*build)(const redist__rx *, int, redist__row_schedule *),
                    const redist__rx *rx, int d)
{
    redist__row_schedule s;
    if (build(rx, d, &s) != 0)
        return -1;
    int n = (int)s.nsteps;
    redist__rowsched_free(&s);
    return n;
}

static int indirect_builder(const redist__rx *rx, int d, redist__row_schedule *s)
{
    (void)d;
    return redist__rowsched_indirect(rx, s);
}

static double gdm(double steps, double bytes, double T_d, double tau_d)
{
    return steps * T_d + bytes * tau_d;
}

/* Sum over the prime factors k of K of the steps of R_x(k, P), and the number of factors. */
static void multiphase_steps(const redist__rx *rx, int *steps, int *phases)
{
    int64_t K = rx->K;
    *steps = 0;
    *phases = 0;
    for (int64_t d = 2; K > 1; d++) {
        if (d * d > K)
            d = K;
        while (K % d == 0) {
            redist__rx phase;
            redist__rx_init(d, rx->P, &phase);
            *steps += (int)redist__rx_moving_rows(&phase);
            (*phases)++;
            K /= d;
        }
    }
}

int redist__simulate_rx(int64_t K, int64_t P, double N, double b, double T_d, double tau_d,
                        int hybrid_d, redist__sim_row rows[REDIST__SIM_ROWS])
{
    redist__rx rx;
    if (K < 1 || K > P || N < 0 || b <= 0 || redist__rx_init(K, P, &rx) != 0)
        return -1;
    double local = N / (double)P * b; /* N/P b */
    int direct = (int)K, L = redist__rowsched_max_degree(&rx);
    int indirect = steps_of(indirect_builder, &rx, 0);
    rows[0] = (redist__sim_row){"direct", direct, -1, gdm(direct, local, T_d, tau_d)};
    rows[1] = (redist__sim_row){"indirect", indirect, -1,
                                gdm(indirect, L * local / 2.0 + local, T_d, tau_d)};
    int best = hybrid_d;
    double best_t = 0;
    for (int d = hybrid_d < 0 ? 0 : hybrid_d; d <= (hybrid_d < 0 ? L : hybrid_d); d++) {
        int dd = d < L ? d : L;
        int s = steps_of(redist__rowsched_hybrid, &rx, dd);
        double t = gdm(s, dd * local / 2.0 + local, T_d, tau_d);
        if (hybrid_d >= 0 || best < 0 || t < best_t) {
            best = dd;
            best_t = t;
            rows[2] = (redist__sim_row){"hybrid", s, dd, t};
        }
    }
    int ms = 0, phases = 0;
    multiphase_steps(&rx, &ms, &phases);
    rows[3] = (redist__sim_row){"multiphase", ms, -1, gdm(ms, phases * local, T_d, tau_d)};
    double largest = ceil(N / ((double)P * (double)K)) * b;
    rows[4] = (redist__sim_row){"alltoall-padded", 1, -1,
                                gdm((double)(P - 1), (double)(P - 1) * largest, T_d, tau_d)};
    rows[5] = (redist__sim_row){"direct-async", 1, -1, rows[0].seconds};
    return 0;
}

/* direct - indirect = (K - S) T_d - (L/2) (N/P) b tau_d, zero at N = 2 P (K - S) T_d /
   (L b tau_d), with S indirect's steps and L its shift steps. */
double redist__simulate_crossover(int64_t K, int64_t P, double b, double T_d, double tau_d)
{
    redist__rx rx;
    if (K < 1 || K > P || redist__rx_init(K, P, &rx) != 0)
        return -1;
    int L = redist__rowsched_max_degree(&rx), S = steps_of(indirect_builder, &rx, 0);
    if (L == 0 || K <= S)
        return -1;
    return 2.0 * (double)P * (double)(K - S) * T_d / ((double)L * b * tau_d);
}
