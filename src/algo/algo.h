/* Internal (not installed): the algo layer. The registry of redistribution algorithms (the
 * only list of them: registry.c) and what is decided from it: auto's choice, transports,
 * predictions, the algorithms' options. Each algorithm is one file under src/algo/ (bmmc:
 * src/bmmc/perform.c) defining one redist__algorithm (exec.h); adding one is that file, one
 * line in registry.c's list and its entry in docs/algorithms.md. Code that needs one by
 * name uses redist__algorithm_by_name.
 */
#ifndef REDIST_ALGO_H
#define REDIST_ALGO_H

#include "exec/exec.h"

/* The registry, "auto" excluded: *table receives the array, the count is returned. */
int redist__algorithms(const redist__algorithm *const **table);
/* The algorithm called `name`, or NULL (also for "auto"). */
const redist__algorithm *redist__algorithm_by_name(const char *name);

/* The transport a uses when the user asks for `requested` (REDIST_TRANSPORT_AUTO: the one
   with the smaller prediction); one it has, and datatypes only if every run fits in int. */
int redist__choose_transport(const redist__algorithm *a, const redist__case *c,
                             const redist__machine *m, const redist_options *opt, int requested);
/* a's prediction with the transport it would choose for REDIST_TRANSPORT_AUTO. */
double redist__predict(const redist__algorithm *a, const redist__case *c, const redist__machine *m,
                       const redist_options *opt);
/* The "auto" rule: the applicable algorithm with the smallest prediction (ties: the earlier
   entry), or NULL. */
const redist__algorithm *redist__choose(const redist__case *c, const redist__machine *m,
                                        const redist_options *opt);

/* Cost rules more than one algorithm follows. All messages posted at once (direct-async;
   [TCR96]'s ky-to-y and x-to-kx): T_d for the first, t_msg for each further one, plus the
   transport's moves (direct_async.c). */
double redist__predict_all_in_flight(const redist__case *c, const redist__machine *m,
                                     int transport);

/* direct-async's engine (direct_async.c), shared by [SD96]'s section algorithms
   (sections.c): buffers and requests; post every receive, then pack and send the messages
   starting with message `first` (in rotation), copy the self part; unpack on arrival. */
int redist__direct_async_setup(struct redist_plan_s *p);
int redist__direct_async_start_from(struct redist_plan_s *p, int first);
int redist__direct_async_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__direct_async_destroy(struct redist_plan_s *p);

/* Every algorithm's options: checked (the first error), and fingerprinted for the
   agreement (every option field once). NULL options are the defaults. */
int redist__check_algorithm_options(const redist_options *opt, int comm_size);
void redist__fingerprint_algorithm_options(redist__fingerprints *fp, const redist_options *opt);

/* A child plan (phases: multiphase, gcd, lcm, indirect/hybrid through cyclic(lcm)) from the
   layouts `from` to `to` on the parent's communicator, with options opt (check_arguments
   off: the parent agrees on buffers). Collective: every rank calls it, also a rank that
   failed to make its layouts (local_err, or a NULL layout), and every rank then returns the
   same code. The parent's arguments are already agreed, so the public prologue (argument
   checks, fingerprints) is skipped (api/plan.c). */
int redist__plan_create_child(const struct redist_plan_s *parent, redist_layout from,
                              redist_layout to, const redist_options *opt, int local_err,
                              redist_plan *child);

#endif
