/* Internal (not installed): what a plan would do, computed without MPI, for `redist
 * explain`: any communicator size, no MPI launch. The per-rank traffic and the pair's case
 * are model.h's (redist__rank_traffic_compute, redist__member_ranks, redist__pair_case).
 */
#ifndef REDIST_EXPLAIN_H
#define REDIST_EXPLAIN_H

#include "model/model.h"

/* The plan summary for one algorithm over a communicator of comm_size ranks.
   Returns REDIST_ERR_NOT_APPLICABLE if the algorithm cannot do this pair,
   REDIST_ERR_UNKNOWN_ALGORITHM for an unknown name. For "auto", `chosen` names the choice. */
typedef struct redist__explanation {
    const char *chosen; /* algorithm name (static string) */
    int steps;          /* communication rounds */
    int64_t max_messages_per_rank;
    int64_t max_bytes_per_rank; /* max over ranks of bytes sent */
    int64_t total_messages;
    int64_t total_bytes;
    double predicted_seconds;
    int transport; /* REDIST_TRANSPORT_PACK or _DATATYPE */
} redist__explanation;
int redist__explain(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                    const char *algorithm, redist__explanation *out);

#endif
