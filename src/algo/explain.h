/* Internal (not installed): what a plan would do, computed without MPI, for `redist
 * explain`: any communicator size, no MPI launch. The per-rank traffic and the pair's case
 * are model.h's (redist__rank_traffic_compute, redist__member_ranks, redist__pair_case).
 */
#ifndef REDIST_EXPLAIN_H
#define REDIST_EXPLAIN_H

#include "model/model.h"

/* The plan summary for one algorithm over a communicator of comm_size ranks.
   Returns REDIST_ERR_NOT_APPLICABLE if the algorithm cannot do this pair (with `why_not`),
   REDIST_ERR_UNKNOWN_ALGORITHM for an unknown name. For "auto", `chosen` names the choice. */
typedef struct redist__explanation {
    const char *chosen;  /* algorithm name (static string) */
    const char *why_not; /* REDIST_ERR_NOT_APPLICABLE: the planner's reason (static string:
                            the rule broken, "needs ...", or "no algorithm applies"); else NULL */
    int steps;           /* communication rounds */
    int64_t max_messages_per_rank;
    int64_t max_bytes_per_rank; /* max over ranks of bytes sent */
    int64_t total_messages;
    int64_t total_bytes;
    double predicted_seconds; /* staging_seconds included */
    double staging_seconds;   /* device memory: the copies off and onto the GPUs and the
                                 launches (redist__cost_staging); 0 for host memory */
    int device_ipc;           /* device memory: its messages on the node are pulled by the
                                 receivers' kernels from the senders' device arrays
                                 (inter-process memory), not staged */
    int device_mpi;           /* device memory: its messages through MPI go from and to
                                 device buffers (a GPU-aware MPI), not staged */
    int transport;            /* REDIST_TRANSPORT_PACK or _DATATYPE */
    int bounded;           /* bounded mode: asked for, or taken because the buffers would not fit */
    int64_t buffer_bytes;  /* the most pack-buffer bytes a rank holds in this mode */
    int64_t default_bytes; /* the default mode's (bounded or not): send + receive volume */
    int64_t chunk_bytes;   /* bounded mode: bytes per chunk */
} redist__explanation;
int redist__explain(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                    const char *algorithm, redist__explanation *out);
/* The same with the options' max_buffer_bytes (0: the default mode), transport and memory
   (device memory: only the algorithms that pack apply, kernels move the arrays, staging costs
   added; REDIST_MEMORY_AUTO is device memory where this process loads a device backend, else
   host memory, exactly as a plan whose ranks load none; NULL options: the defaults), every rank
   moving its local data with `threads` threads (the model's local moves sped up as a plan's are:
   redist__machine_threads). */
/* With options.reduce set, a copy of src whose replicas all send (partial values), as a
   plan's source is (planner.c); else *partial = NULL. Free it with redist_layout_free. */
int redist__partial_source(redist_layout src, const redist_options *opt,
                           struct redist_layout_s **partial);
int redist__explain_with(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                         const char *algorithm, const redist_options *opt, int threads,
                         redist__explanation *out);

/* ---- The whole report (explain_report.c): redist_explain's JSON, the tool's text ---------- */

/* The ranks per node explain assumes: REDIST_RANKS_PER_NODE's, as a plan splits nodes by it
   (the tool's --ranks-per-node sets it); 0 (also for a malformed value): one node. */
int redist__explain_ranks_per_node(void);

/* The pattern itself, whatever the schedule: every rank's traffic. */
typedef struct redist__pattern_summary {
    int64_t max_sent_messages, max_sent_bytes, max_received_messages, max_received_bytes;
    int64_t max_peers, total_messages, total_bytes, bytes_copied;
    redist__node_traffic nodes; /* on REDIST_RANKS_PER_NODE's nodes (one node: nodes = 1) */
} redist__pattern_summary;

typedef struct redist__explain_row {
    const char *name; /* the algorithm (static) */
    int rc;           /* its explanation's code */
    redist__explanation e;
} redist__explain_row;

typedef struct redist__explain_report {
    int procs, threads;
    int cores;  /* the CPUs the rank described may run on: the model counts at most these
                   threads (redist__model_threads) */
    int memory; /* options.memory as this process serves it (redist__memory_served) */
    int64_t elsize, elements;
    const char *requested;  /* options.algorithm, or "auto" (the caller's string) */
    int npermute;           /* options.permutation's length (0: none) */
    const int *permutation; /* the caller's (NULL: none) */
    redist__pattern_summary pattern;
    redist__explain_row *rows; /* one per algorithm of the registry */
    int count;
    const redist__explain_row *head; /* the requested algorithm's row */
} redist__explain_report;

/* What redist_plan_create would plan for src -> dst (dst as the caller gives it: permuted
   here by options.permutation) with elements of elsize bytes on comm_size ranks, each rank
   able to run on `cores` CPUs (0: this process's, redist__cores), the arguments already
   checked (api/explain.c: redist__explain_checked): every algorithm's row, the pattern. The
   requested algorithm's failure is returned with its own detail (REDIST_ERR_NOT_APPLICABLE,
   ...); the report then holds every row all the same. Free it with redist__explain_report_free
   whatever the result. */
int redist__explain_report_make(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                                const redist_options *opt, int cores, redist__explain_report *r);
void redist__explain_report_free(redist__explain_report *r);
/* The report as one JSON object (docs/api.md, "redist_explain"). */
void redist__explain_report_json(const redist__explain_report *r, redist__text *t);

#endif
