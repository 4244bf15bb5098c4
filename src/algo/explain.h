/* Internal (not installed): what a plan would do, computed without MPI.
 *
 * Used by `redist explain` and `redist simulate`, which must work for communicator sizes in
 * the thousands without launching MPI. Everything here is pure code over layouts.
 */
#ifndef REDIST_EXPLAIN_H
#define REDIST_EXPLAIN_H

#include "redist.h"

/* One rank's traffic for one execute of src -> dst (self part excluded from messages). */
typedef struct redist__rank_traffic {
    int64_t messages_sent, bytes_sent;
    int64_t messages_received, bytes_received;
    int64_t bytes_copied; /* the self part, copied locally */
    int64_t peers_max;    /* max(messages_sent, messages_received) */
} redist__rank_traffic;

/* Traffic of comm rank `rank` (0 <= rank < comm_size) for elements of elsize bytes. */
int redist__rank_traffic_compute(redist_layout src, redist_layout dst, int rank, int64_t elsize,
                                 redist__rank_traffic *out);

/* The ranks that hold a coordinate in src or dst, increasing, without repeats: the only ranks
   with any traffic (the others of a communicator, however many, have none). *ranks is
   malloc'ed (free it); returns REDIST_SUCCESS or REDIST_ERR_NOMEM. */
int redist__member_ranks(redist_layout src, redist_layout dst, int **ranks, int *count);

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
