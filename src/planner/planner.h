/* Internal (not installed): the planner layer, below the algorithms (src/algo/) and above the
 * basic operations (src/coll/) and the execution layer. It makes plans: the one constructor
 * every plan starts from (construct.c), phase 3 of a layout plan and the child plans of an
 * algorithm with phases (planner.c), and the rules that choose an algorithm, its transport
 * and its mode for a case (rules.c).
 *
 * Like FFTW's planner (kernel/planner.c), it knows the algorithms only through the table
 * handed to it: the api layer passes the registry's (algo/registry.c), every plan keeps the
 * table it was planned from, and an algorithm that needs child plans calls down here with its
 * own plan as the parent. No file of this layer depends on an algorithm's file.
 */
#ifndef REDIST_PLANNER_H
#define REDIST_PLANNER_H

#include "exec/exec.h"

/* The algorithms a planner chooses from (the registry's list, "auto" excluded). */
struct redist__algorithm_table {
    const redist__algorithm *const *entries;
    int count;
};
typedef struct redist__algorithm_table redist__algorithm_table;

/* ---- the plan constructor (construct.c) ------------------------------------------------ */
/* What every plan is made from. */
typedef struct redist__plan_basis {
    MPI_Comm comm;             /* duplicated: the plan's own communicator, with MPI_ERRORS_RETURN */
    MPI_Datatype type;         /* duplicated and committed; MPI_DATATYPE_NULL: none (a batch) */
    size_t elsize;             /* the size of one element of type */
    const redist_options *opt; /* kept by the plan (NULL: the defaults) */
    /* A child plan's parent, whose node it shares (same ranks); NULL: the node is measured. */
    const struct redist_plan_s *parent;
} redist__plan_basis;
/* The one plan constructor, for layout plans, their children, BMMC plans and batches.
   Collective over basis->comm. local_err is this rank's status so far and fp the arguments
   every rank must pass alike (NULL: none): they are agreed first, on the plan's duplicate of
   the communicator (a public constructor's phase 2). Then the set-up every plan shares: its
   rank and size, the type's committed duplicate, this process's machine parameters, the node's
   ranks and load, the kept options; a last agreement. On success *plan holds them (the
   algorithm's part still to do: redist__plan_destroy frees what it has); on failure *plan is
   NULL, nothing is left, and every rank returns the same code. */
int redist__plan_new(const redist__plan_basis *basis, int local_err, const redist__fingerprints *fp,
                     struct redist_plan_s **plan);
/* The ranks of comm on the caller's node (collective: MPI_Comm_split_type), who share its
   memory; comm's size if MPI cannot tell. */
int redist__node_ranks(MPI_Comm comm);
/* The maxima over the ranks of the stats' messages_sent and bytes_sent (collective):
   REDIST_ERR_MPI if the reduction fails. */
int redist__stats_maxima(struct redist_plan_s *p);

/* ---- layout plans (planner.c) ----------------------------------------------------------- */
/* Phase 3 of a layout plan (collective), p from redist__plan_new on every rank: builds the
   messages from src to dst, agrees on the case, chooses the algorithm (`algorithm`, or the
   table's cheapest for NULL and "auto"), its transport, mode and buffers, and runs its setup.
   The plan keeps the table for its children. On success *plan = p; on failure p is freed and
   every rank returns the same code. */
int redist__plan_layouts(struct redist_plan_s *p, const redist__algorithm_table *algorithms,
                         redist_layout src, redist_layout dst, const char *algorithm,
                         redist_plan *plan);
/* A child plan (phases: multiphase, gcd, lcm, indirect/hybrid through cyclic(lcm)) from the
   layouts `from` to `to` on the parent's communicator, type and table of algorithms, with
   options opt (check_arguments off: the parent agrees on buffers). Collective: every rank
   calls it, also a rank that failed to make its layouts (local_err, or a NULL layout), and
   every rank then returns the same code. The parent's arguments are already agreed, so the
   public prologue (argument checks, fingerprints) is skipped. */
int redist__plan_create_child(const struct redist_plan_s *parent, redist_layout from,
                              redist_layout to, const redist_options *opt, int local_err,
                              redist_plan *child);

/* ---- choosing (rules.c) ----------------------------------------------------------------- */
/* The algorithm of the table called `name`, or NULL (also for "auto"). */
const redist__algorithm *redist__table_find(const redist__algorithm_table *t, const char *name);
/* Whether algorithm a may move case c's messages as derived datatypes: it has the transport,
   the options ask no scaling (MPI would unpack), and every count fits MPI's int. */
int redist__can_datatype(const redist__algorithm *a, const redist__case *c,
                         const redist_options *opt);
/* The transport a uses when the user asks for `requested` (REDIST_TRANSPORT_AUTO: the one
   with the smaller prediction); one it has, and datatypes only if every run fits in int. */
int redist__choose_transport(const redist__algorithm *a, const redist__case *c,
                             const redist__machine *m, const redist_options *opt, int requested);
/* The reductions an execute's agreements make (redist__cost_agreement): none without
   check_arguments, 1 (the arguments), 2 for device plans (and their device failures). */
int redist__agreements(const redist_options *opt);
/* a's prediction with the transport it would choose for REDIST_TRANSPORT_AUTO. */
double redist__predict(const redist__algorithm *a, const redist__case *c, const redist__machine *m,
                       const redist_options *opt);
/* Device plans (options.memory): what staging adds to an execute of a with that transport
   (redist__cost_staging; 0 for host plans). Its messages on a node are pulled over
   inter-process memory, not staged, where a moves them through the shared-memory window
   (uses_shm, packed) and every rank can (m->device_ipc); window: the plan has its window. */
double redist__predict_staging(const redist__algorithm *a, const redist__case *c,
                               const redist__machine *m, const redist_options *opt, int transport,
                               int window);
/* Whether the options ask for device plans' pulls on a node: options.memory = CUDA (under
   AUTO a receiver's dst may be host memory), the shared-memory window, REDIST_DEVICE_IPC not
   0. A plan also needs a backend that maps other processes' memory (planner.c); explain,
   which has none, takes the options' word. */
int redist__device_ipc_asked(const redist_options *opt);
/* 1 where a device plan of a pulls its messages on the node (m->device_ipc). */
int redist__staging_pulled(const redist__algorithm *a, const redist__machine *m,
                           const redist_options *opt, int transport, int window);
/* 1 where it hands its messages through MPI to a GPU-aware MPI from device buffers
   (m->gpu_mpi, a->gpu_mpi). */
int redist__staging_gpu_mpi(const redist__algorithm *a, const redist__machine *m,
                            const redist_options *opt, int transport);
/* The share of its messages that are staged through the host: on the node (all of them on
   one node; (k - 1) / (P - 1) of a rank's peers with k ranks per node) unless pulled, or
   through MPI from device buffers where the window is not used; off the node unless handed
   to a GPU-aware MPI. */
double redist__staged_share(const redist__algorithm *a, const redist__case *c,
                            const redist__machine *m, const redist_options *opt, int transport,
                            int window);
/* The "auto" rule over the table t: the usable algorithm (redist__algo_usable) with the
   smallest prediction (ties: the earlier entry), or NULL. */
const redist__algorithm *redist__choose_from(const redist__algorithm_table *t,
                                             const redist__case *c, const redist__machine *m,
                                             const redist_options *opt);
/* The rule of use, the one place that decides whether algorithm a may run case c with the
   options opt: it applies (a->applicable), it scales if opt asks for scaling (alpha, beta,
   conjugate: a->unscaled, a->transports), it runs bounded if opt asks for a bound
   (max_buffer_bytes > 0: a->bounded). REDIST_SUCCESS, or REDIST_ERR_NOT_APPLICABLE with *why
   (why may be NULL) the first rule it breaks, in words that complete "algorithm '<name>' ...":
   a->why_not, "cannot scale ...", "cannot bound its buffers ...". Records no detail. Auto's
   choice, a forced algorithm, the memory fallback and explain's rows all ask here. */
int redist__algo_usable(const redist__algorithm *a, const redist__case *c,
                        const redist_options *opt, const char **why);
/* A forced algorithm: redist__algo_usable, with the reason recorded as the error detail
   ("algorithm 'gcd' needs ...") and set in *why (why may be NULL; NULL when usable). */
int redist__admit_forced(const redist__algorithm *a, const redist__case *c,
                         const redist_options *opt, const char **why);
/* The algorithm for case c: auto's choice from t for NULL or "auto" (REDIST_ERR_NOT_APPLICABLE
   if none is usable), else the entry called `name` if it is usable (redist__admit_forced);
   REDIST_ERR_UNKNOWN_ALGORITHM for a name t does not have. *out is NULL on failure. With
   REDIST_ERR_NOT_APPLICABLE, *why (why may be NULL) says why in a static string: the forced
   algorithm's broken rule, or "no algorithm applies"; else it is NULL. */
int redist__choose_algorithm(const redist__algorithm_table *t, const char *name,
                             const redist__case *c, const redist__machine *m,
                             const redist_options *opt, const redist__algorithm **out,
                             const char **why);
/* The memory fallback's choice, when the buffers of a plan running a must fit in `bound`
   bytes per rank: a if it is usable bounded, else auto's choice among those that are if auto
   chose a (auto_chosen), else a. *bounded: whether the result is usable bounded (if not, the
   plan takes the datatype transport or fails). */
const redist__algorithm *redist__choose_bounded(const redist__algorithm_table *t,
                                                const redist__algorithm *a, int auto_chosen,
                                                const redist__case *c, const redist__machine *m,
                                                const redist_options *opt, int64_t bound,
                                                int *bounded);
/* Bounded mode's bound: at least two elements of elsize bytes (one chunk each way), else
   REDIST_ERR_ARG saying so. Shared by the plan and explain, as above. */
int redist__check_bound(int64_t bound, size_t elsize);
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

#endif
