/* Internal (not installed): the algo layer. The registry of redistribution algorithms (the
 * only list of them: registry.c), the table the planner (planner/planner.h) chooses from,
 * and the algorithms' options. Each algorithm is one file under src/algo/ (bmmc:
 * src/bmmc/perform.c) defining one redist__algorithm (exec.h); adding one is that file, one
 * line in registry.c's list and its entry in docs/algorithms.md. Code that needs one by
 * name uses redist__algorithm_by_name.
 */
#ifndef REDIST_ALGO_H
#define REDIST_ALGO_H

#include "planner/planner.h"

/* The registry, "auto" excluded: *table receives the array, the count is returned. */
int redist__algorithms(const redist__algorithm *const **table);
/* The algorithm called `name`, or NULL (also for "auto"). */
const redist__algorithm *redist__algorithm_by_name(const char *name);

/* The registry as the table the planner chooses from (api/plan.c hands it down). */
const redist__algorithm_table *redist__registry(void);
/* The "auto" rule over the registry (redist__choose_from): the applicable algorithm with the
   smallest prediction (ties: the earlier entry), or NULL; with opt->max_buffer_bytes > 0 only
   among those that run bounded. */
const redist__algorithm *redist__choose(const redist__case *c, const redist__machine *m,
                                        const redist_options *opt);

/* Cost rules more than one algorithm follows. All messages posted at once (direct-async;
   [TCR96]'s ky-to-y and x-to-kx): T_d for the first, t_msg for each further one, times
   `trips`, plus the transport's moves (direct_async.c). */
double redist__predict_all_in_flight(const redist__case *c, const redist__machine *m, int transport,
                                     double trips);
/* Message trips per message of an algorithm that uses the shared-memory transport: 2 where it
   applies (packed messages on one node: a notification, then an acknowledgement before the
   buffer is reused; exec/shm.c), else 1. */
double redist__shm_trips(const redist__machine *m, const redist_options *opt, int transport);

/* direct-async's engine (direct_async.c), shared by [SD96]'s section algorithms
   (sd96.c): buffers and requests; post every receive, then pack and send the messages
   starting with message `first` (in rotation), copy the self part; unpack on arrival. In
   bounded mode (p->bounded) they run the strip engine (engine.h). */
int redist__direct_async_setup(struct redist_plan_s *p);
int redist__direct_async_start_from(struct redist_plan_s *p, int first);
int redist__direct_async_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__direct_async_destroy(struct redist_plan_s *p);
/* Its cost: all messages in flight, or the strip engine's with opt->max_buffer_bytes > 0. */
double redist__direct_async_predict(const redist__case *c, const redist__machine *m,
                                    const redist_options *opt, int transport);

/* Every algorithm's options: checked (the first error), and fingerprinted for the
   agreement (every option field once). NULL options are the defaults. */
int redist__check_algorithm_options(const redist_options *opt, int comm_size);
void redist__fingerprint_algorithm_options(redist__fingerprints *fp, const redist_options *opt);

#endif
