/* A redistribution run as a sequence of redistributions through intermediate layouts
 * (multiphase; the two-phase route through cyclic(lcm(x, y))). Each phase is a plan of its
 * own on the plan's communicator, with the intermediate local arrays allocated at plan time. */
#ifndef REDIST_SCHED_PHASES_H
#define REDIST_SCHED_PHASES_H

#include "exec/engine.h"

#define REDIST__MAX_PHASES 64

typedef struct redist__phases redist__phases;

/* Collective: creates n phase plans src -> mid[0] -> ... -> mid[n-2] -> dst, phase i with
   algorithm names[i] and hybrid degree d (check_arguments off: the outer plan agrees on the
   buffers). Takes ownership of the mid layouts. Every rank makes every call whatever fails. */
int redist__phases_create(struct redist_plan_s *p, int n, redist_layout mid[],
                          const char *const names[], int d, int synchronous_receive,
                          redist__phases **out);
void redist__phases_free(redist__phases *ph);
int redist__phases_start(struct redist_plan_s *p, redist__phases *ph);
int redist__phases_progress(struct redist_plan_s *p, redist__phases *ph, int blocking, int *done);
/* Messages and bytes summed over the phases. */
void redist__phases_stats(const redist__phases *ph, redist_stats *st);

/* A middle layout that holds each element of an array shaped like src once, spread evenly
   over ranks 0 .. size - 1: along src's longest dimension rank r holds slab r (sizes as even
   as the extent allows), the whole extent along the others (boxes; reduce-allgather's and
   scatter-allgather's middle). */
int redist__slab_layout(const struct redist_layout_s *src, int size, redist_layout *out);

/* What the ranks of src and dst send over the phases src -> mid[0] -> ... -> dst (n phases;
   pure, for explain): the most messages and bytes one rank sends, and the totals. */
int redist__phases_traffic(redist_layout src, const redist_layout mid[], int n, redist_layout dst,
                           int64_t elsize, redist__traffic_summary *out);

/* The two-phase algorithms through redist__slab_layout (reduce-allgather, scatter-allgather):
   their steps (2), their setup (src -> slabs over the plan's ranks with algorithm `first`,
   then slabs -> dst with `second`) and what their phases send (explain). */
int redist__slab_phases_steps(const redist__case *c, const redist__machine *m,
                              const redist_options *opt);
int redist__slab_phases_setup(struct redist_plan_s *p, const char *first, const char *second);
int redist__slab_phases_explain(const redist__case *c, const redist__machine *m,
                                const redist_options *opt, redist__traffic_summary *out);
/* Their entries of redist__algorithm but for name, rules, cost and setup. */
#define REDIST__SLAB_PHASES                                                                        \
    .steps = redist__slab_phases_steps, .transports = REDIST__T_PACK, REDIST__PHASES_RUN,          \
    .explain = redist__slab_phases_explain, .dry_needs_buffers = 1

/* The run functions of an algorithm whose state (p->algo_state) is its phases: start,
   progress, destroy and statistics delegate to them (multiphase, reduce-allgather). */
int redist__phases_plan_start(struct redist_plan_s *p);
int redist__phases_plan_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__phases_plan_destroy(struct redist_plan_s *p);
void redist__phases_plan_stats(const struct redist_plan_s *p, redist_stats *st);
#define REDIST__PHASES_RUN                                                                         \
    .start = redist__phases_plan_start, .progress = redist__phases_plan_progress,                  \
    .destroy = redist__phases_plan_destroy, .local_stats = redist__phases_plan_stats

#endif
