/* Internal (not installed): the GDM model of [LBP96] evaluated for R_x(K, P) without MPI
 * (`redist simulate`). */
#ifndef REDIST_SIMULATE_H
#define REDIST_SIMULATE_H

#include <stdint.h>

/* One schedule's prediction: steps from the real schedule builders (rowsched.c), time from
   Corollary 2 of [LBP96] with the given T_d (s per message) and tau_d (s per byte). */
typedef struct redist__sim_row {
    const char *name;
    int steps;
    int d; /* hybrid: the degree used; -1 otherwise */
    double seconds;
} redist__sim_row;

/* P is at most an MPI communicator's size (an int); then every step count fits an int and
   the evaluation takes O(sqrt K) time (factoring K for multiphase) and no memory. */
enum { REDIST__SIM_ROWS = 6, REDIST__SIM_MAX_P = 2147483647 };

/* N elements of b bytes, cyclic(x) -> cyclic(Kx) on P processors, 1 <= K <= P <=
   REDIST__SIM_MAX_P, N >= 0, b > 0, T_d, tau_d >= 0 (all finite). hybrid_d < 0: the d with
   the smallest prediction; hybrid_d above the largest useful d (redist__simulate_max_degree)
   is that d. Fills rows[REDIST__SIM_ROWS] (direct, indirect, hybrid, multiphase,
   alltoall-padded, direct-async) and returns 0, or -1 for bad arguments. */
int redist__simulate_rx(int64_t K, int64_t P, double N, double b, double T_d, double tau_d,
                        int hybrid_d, redist__sim_row rows[REDIST__SIM_ROWS]);

/* The N at which direct and indirect are predicted equal (direct wins above it), or a
   negative value if one always wins (or the arguments are bad, or that N is not finite). */
double redist__simulate_crossover(int64_t K, int64_t P, double b, double T_d, double tau_d);

/* The largest useful hybrid degree for R_x(K, P): indirect's shift steps, ceil(log2 K') +
   ceil(log2 G). -1 for bad arguments. */
int redist__simulate_max_degree(int64_t K, int64_t P);

#endif
