/* Internal (not installed): the GDM model of [LBP96] evaluated for R_x(K, P) without MPI
 * (`redist simulate`), and redistributions on many nodes costed by the algorithms' own
 * predictions (`redist simulate --nodes`). */
#ifndef REDIST_SIMULATE_H
#define REDIST_SIMULATE_H

#include <stdint.h>

#include "model/model.h"

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

/* ---- many nodes (`redist simulate --nodes`) ------------------------------------------------
   Every rank pair that talks moves m bytes, on `nodes` nodes of k consecutive ranks each
   (P = nodes k ranks), costed by the registry's algorithms' own predictions. */
typedef enum redist__sim_pattern {
    /* every rank sends m bytes to every other rank: a P x P matrix of m-byte elements, row r
       on rank r -> column s on rank s (an FFT's transpose); described in closed form */
    REDIST__SIM_ALLTOALL,
    /* 1-D cyclic(1) -> cyclic(3) of 3 P elements of m bytes: at most 3 peers per rank;
       computed from the real layouts (redist__pair_case_on_nodes) */
    REDIST__SIM_CYCLIC
} redist__sim_pattern;

/* Limits: nodes >= 2, k >= 1, nodes k <= REDIST__SIM_NODES_MAX_RANKS (the layouts the shape is
   read from hold per-rank tables), 1 <= m <= REDIST__SIM_NODES_MAX_BYTES, the array below 2^63
   bytes; cyclic enumerates every rank's node terms, O(nodes P) work: nodes P <=
   REDIST__SIM_CYCLIC_MAX_WORK (about a second). */
#define REDIST__SIM_NODES_MAX_RANKS (INT64_C(1) << 20)
#define REDIST__SIM_NODES_MAX_BYTES (INT64_C(1) << 30)
#define REDIST__SIM_CYCLIC_MAX_WORK (INT64_C(1) << 27)
/* Whether (pattern, nodes, k, m) lies within the limits above. */
int redist__simulate_nodes_ok(redist__sim_pattern pattern, int64_t nodes, int64_t k, int64_t m);

/* The pattern's layouts on P ranks (elements of m bytes); free them with redist_layout_free. */
int redist__simulate_layouts(redist__sim_pattern pattern, int P, redist_layout *src,
                             redist_layout *dst);

/* The case a plan of the pattern would agree on, on nodes of k ranks: for the all-to-all the
   traffic in closed form (simulate.c derives each term from model/nodes.c's definitions;
   tests/unit/test_simulate_nodes.c checks them against redist__pair_case_on_nodes) and the
   shape of the real layouts; for cyclic redist__pair_case_on_nodes itself. REDIST_SUCCESS,
   REDIST_ERR_ARG outside the limits, or what building the layouts returned. */
int redist__simulate_nodes_case(redist__sim_pattern pattern, int64_t nodes, int64_t k, int64_t m,
                                redist__case *c);

/* The machine the predictions take: *base as a plan on several nodes sees it (no shared
   memory between its ranks: shared_node = shared_arrays = 0), one rank per core (no scaling),
   one thread. */
void redist__simulate_nodes_machine(const redist__machine *base, redist__machine *m);

/* One row: predicted seconds (redist__predict: each algorithm's cost with the transport it
   would choose), negative where the algorithm does not apply; auto's choice (redist__choose)
   and the usable algorithm with the smallest prediction. */
typedef struct redist__sim_nodes_row {
    double direct_async, alltoallv, node_aware;
    const char *chosen, *best;
    double chosen_seconds, best_seconds;
} redist__sim_nodes_row;
/* The row of (pattern, nodes, k, m) on machine m (from redist__simulate_nodes_machine). */
int redist__simulate_nodes(redist__sim_pattern pattern, int64_t nodes, int64_t k, int64_t m,
                           const redist__machine *machine, redist__sim_nodes_row *row);

#endif
