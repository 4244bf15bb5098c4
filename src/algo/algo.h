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
   entry), or NULL; with opt->max_buffer_bytes > 0 only among those that run bounded. */
const redist__algorithm *redist__choose(const redist__case *c, const redist__machine *m,
                                        const redist_options *opt);
/* Whether the algorithm `a`, asked for by name, can run this case with these options: it
   applies, it scales if opt asks for scaling, it runs bounded if opt asks for a bound. A
   REDIST_ERR_NOT_APPLICABLE naming the first rule it breaks, else REDIST_SUCCESS. The plan
   (api/plan.c) and explain (explain.c) both ask here, so that they refuse alike. */
int redist__admit_forced(const redist__algorithm *a, const redist__case *c,
                         const redist_options *opt);
/* Bounded mode's bound: at least two elements of elsize bytes (one chunk each way), else
   REDIST_ERR_ARG saying so. Shared by the plan and explain, as above. */
int redist__check_bound(int64_t bound, size_t elsize);

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
   (sections.c): buffers and requests; post every receive, then pack and send the messages
   starting with message `first` (in rotation), copy the self part; unpack on arrival. In
   bounded mode (p->bounded) they run the strip engine (engine.h). */
int redist__direct_async_setup(struct redist_plan_s *p);
int redist__direct_async_start_from(struct redist_plan_s *p, int first);
int redist__direct_async_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__direct_async_destroy(struct redist_plan_s *p);
/* Its cost: all messages in flight, or the strip engine's with opt->max_buffer_bytes > 0. */
double redist__direct_async_predict(const redist__case *c, const redist__machine *m,
                                    const redist_options *opt, int transport);

/* Memory of a's execute per rank (the most any rank holds): the default mode's pack
   buffers, the send and receive volume (0 with the datatype transport or for an algorithm
   that does not pack). Relays and phases hold more: see their stats. */
int64_t redist__default_buffer_bytes(const redist__case *c, const redist__algorithm *a,
                                     int transport);
/* The bound a plan takes by itself when its default pack buffers would not fit in a rank's
   share of its node's memory (redist__memory_share: the node's memory over node_ranks, the
   plan's ranks on that node): min(64 MiB, share / 16); 0 when they fit or a does not pack
   with `transport`. */
int64_t redist__fallback_bound(const redist__case *c, const redist__algorithm *a, int transport,
                               int node_ranks);
/* REDIST_ERR_NOMEM, with its detail, for a fallback bound below two elements. */
int redist__fail_no_room(int64_t bound);

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
