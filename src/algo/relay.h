/* The relay executor for [LBP96]'s row schedules (relay.c). */
#ifndef REDIST_ALGO_RELAY_H
#define REDIST_ALGO_RELAY_H

#include "algo/algo.h"
#include "exec/engine.h"
#include "index/rowsched.h"

/* The table case a plan is in: R_x(K, P) forward (cyclic(x) -> cyclic(Kx)) or dual, its
   extent n and small block x; table column c is grid coordinate (c + first) mod P. */
typedef struct redist__relay_table {
    redist__rx rx;
    int dual;
    int64_t K, P, first, n, x;
    redist__table_case tc; /* the table case (N-D: along tc.dim) */
    int64_t cross;         /* elements per block in the other dimensions, at this rank */
    /* The shift table (rowsched.h, Bruck): any exchange on the P ranks of the communicator;
       sizes[o * P + f] = bytes of the message from rank o to rank f. NULL for the table
       case, whose unit sizes have a closed form. */
    int64_t *sizes;
} redist__relay_table;

/* Fills *t with the shift table of a pair over comm_size ranks (pure: every rank's
   messages are computed). Free t->sizes. */
int redist__relay_shift_table(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                              int comm_size, size_t elsize, redist__relay_table *t);

/* Fills *t from a layout pair; 0 if the pair is not a table case. */
int redist__relay_table_of(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                           redist__relay_table *t);

typedef struct redist__relay redist__relay;
/* Takes ownership of *sched, in execution order (the dual's forward schedule reversed). */
int redist__relay_create(struct redist_plan_s *p, const redist__relay_table *t,
                         redist__row_schedule *sched, redist__relay **out);
void redist__relay_free(redist__relay *r);
/* Packs every unit into its slot and posts the first step. */
int redist__relay_start(struct redist_plan_s *p, const redist__relay_table *t, redist__relay *r);
/* Completes steps (all of them if blocking); at the end unpacks; *done = 1 then. */
int redist__relay_progress(struct redist_plan_s *p, redist__relay *r, int blocking, int *done);

/* The algorithm glue shared by indirect and hybrid: each supplies its schedule builders for
   the table case and for the shift table (d: the hybrid degree, -1 for indirect). */
typedef int (*redist__schedule_builder)(const redist__rx *rx, int d, redist__row_schedule *out);
typedef int (*redist__shift_builder)(int64_t P, int d, redist__row_schedule *out);
int redist__relay_applicable(const redist__case *c);
/* [LBP96] Corollary 2's cost of a relay schedule of `steps` steps of which shift_steps are
   circular shifts: each step a start-up; every shift forwards half of a rank's data and the
   last move carries all of it, each byte paying tau_d and a gather and a scatter copy; plus
   the local gather and scatter of the whole data:
     S T_d + (L D/2 + D)(tau_d + 2 c) + 2 D c,   D the most local bytes of a rank.
   Where a rank sends or receives more than it holds (a destination whose elements have
   several holders: each is a message of its own), D is that: the relays carry every copy.
   On several nodes, plus the network for the S steps' messages and the L D/2 + D bytes
   (redist__cost_network_spread). */
double redist__relay_time(const redist__case *c, const redist__machine *m, int steps,
                          int shift_steps);
/* cyclic(x) -> cyclic(lcm) -> cyclic(y) (the shape's lcm): the two tables, 1 if so. */
int redist__relay_lcm_tables(const redist__case *c, redist__rx *first, redist__rx *second);
int redist__relay_algo_setup(struct redist_plan_s *p, redist__schedule_builder build,
                             redist__shift_builder shift, int d);
int redist__relay_algo_start(struct redist_plan_s *p);
int redist__relay_algo_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__relay_algo_destroy(struct redist_plan_s *p);
void redist__relay_algo_stats(const struct redist_plan_s *p, redist_stats *st);
/* What every rank of the case's communicator sends, without MPI: the schedule of setup
   walked for every column at once (the lcm route: both phases added, an upper bound). */
int redist__relay_explain(const redist__case *c, redist__schedule_builder build,
                          redist__shift_builder shift, int d, redist__traffic_summary *out);
/* The largest communicator the shift table serves (its size table is P x P). A plain number:
   REDIST__RELAY_WHY_NOT quotes it. */
#define REDIST__SHIFT_MAX_RANKS 2048
/* What redist__relay_applicable asks, in words (indirect's and hybrid's why_not). */
/* clang-format off */ /* it would split the quoted limit across lines */
#define REDIST__RELAY_WHY_NOT                                                                      \
    "needs at most " REDIST__STRING_OF(REDIST__SHIFT_MAX_RANKS) " ranks (the shift table's "   \
    "limit), or [LBP96]'s table case (the same ranks and grid, one dimension's block a "          \
    "multiple K <= P of the other's)"
/* clang-format on */

#endif
