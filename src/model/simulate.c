/* The GDM model of paper 000 for R_x(K, P), evaluated without MPI for any P, K, N.
 *
 * Corollary 2: with N elements of b bytes on P processors, direct costs
 * K T_d + (N/P) b tau_d; indirect (L + 1) T_d + (L N/(2P) + N/P) b tau_d with L shift steps
 * (ceil(log K') + ceil(log G)); hybrid with degree d (s_d steps) s_d T_d + (d N/(2P) + N/P) b
 * tau_d. Step counts are those of the schedules rowsched.c builds (its exact closed-form
 * counts, not Theorem 3's bounds), so no table of size P or K is ever made.
 * Multiphase runs one direct redistribution per prime factor k_i of K, each moving all the
 * data: sum_i (k_i T_d + N/P b tau_d). The MPI_Alltoall baseline with padding sends P - 1
 * messages of the largest message size N/(PK) b. direct-async is the direct schedule with
 * every message in flight at once: in the GDM model (one message per processor at a time)
 * it costs what direct costs.
 */
#include "model/simulate.h"

#include "index/circulant.h"
#include "index/rowsched.h"

#include <math.h>

static double gdm(double steps, double bytes, double T_d, double tau_d)
{
    return steps * T_d + bytes * tau_d;
}

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

int redist__simulate_rx(int64_t K, int64_t P, double N, double b, double T_d, double tau_d,
                        int hybrid_d, redist__sim_row rows[REDIST__SIM_ROWS])
{
    redist__rx rx;
    if (!rx_ok(K, P, &rx) || !(N >= 0 && b > 0 && T_d >= 0 && tau_d >= 0) ||
        !isfinite(N * b + T_d + tau_d))
        return -1;
    double local = N / (double)P * b; /* N/P b */
    int direct = (int)K, L = redist__rowsched_max_degree(&rx);
    int indirect = redist__rowsched_indirect_steps(&rx);
    rows[0] = (redist__sim_row){"direct", direct, -1, gdm(direct, local, T_d, tau_d)};
    rows[1] = (redist__sim_row){"indirect", indirect, -1,
                                gdm(indirect, L * local / 2.0 + local, T_d, tau_d)};
    int best = hybrid_d;
    double best_t = 0;
    for (int d = hybrid_d < 0 ? 0 : hybrid_d; d <= (hybrid_d < 0 ? L : hybrid_d); d++) {
        int dd = d < L ? d : L;
        int s = redist__rowsched_hybrid_steps(&rx, dd);
        double t = gdm(s, dd * local / 2.0 + local, T_d, tau_d);
        if (hybrid_d >= 0 || best < 0 || t < best_t) {
            best = dd;
            best_t = t;
            rows[2] = (redist__sim_row){"hybrid", s, dd, t};
        }
    }
    int ms = 0, phases = 0;
    redist__multiphase_counts(K, P, &ms, &phases);
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
    if (!rx_ok(K, P, &rx))
        return -1;
    int L = redist__rowsched_max_degree(&rx), S = redist__rowsched_indirect_steps(&rx);
    if (L == 0 || K <= S)
        return -1;
    double n = 2.0 * (double)P * (double)(K - S) * T_d / ((double)L * b * tau_d);
    return isfinite(n) && n >= 0 ? n : -1; /* also b tau_d = 0: indirect always wins */
}
