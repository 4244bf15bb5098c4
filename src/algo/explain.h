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
    int transport;            /* REDIST_TRANSPORT_PACK or _DATATYPE */
    int bounded;           /* bounded mode: asked for, or taken because the buffers would not fit */
    int64_t buffer_bytes;  /* the most pack-buffer bytes a rank holds in this mode */
    int64_t default_bytes; /* the default mode's (bounded or not): send + receive volume */
    int64_t chunk_bytes;   /* bounded mode: bytes per chunk */
} redist__explanation;
int redist__explain(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                    const char *algorithm, redist__explanation *out);
/* The same with options.max_buffer_bytes = max_buffer_bytes (0: the default mode), every rank
   moving its local data with `threads` threads (the model's local moves sped up as a plan's
   are: redist__machine_threads), and options.memory = memory (device memory: only the
   algorithms that pack apply, kernels move the arrays, staging costs added). */
int redist__explain_bounded(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                            const char *algorithm, int64_t max_buffer_bytes, int threads,
                            int memory, redist__explanation *out);

#endif
