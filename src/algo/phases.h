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
