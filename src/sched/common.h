/* Helpers shared by the point-to-point schedules. */
#ifndef REDIST_SCHED_COMMON_H
#define REDIST_SCHED_COMMON_H

#include "../internal.h"

#define REDIST__TAG 7713

/* Posts the receive (or send) of message m in chunks of at most REDIST__CHUNK_BYTES;
   returns the number of requests written to reqs[], or a negative error code. */
int redist__post_recv(struct redist_plan_s *p, const redist__msg *m, MPI_Request reqs[]);
int redist__post_send(struct redist_plan_s *p, const redist__msg *m, MPI_Request reqs[]);
/* Packs (unless this execution is dry) and sends message i of the send side. */
int redist__pack_and_send(struct redist_plan_s *p, int i, MPI_Request reqs[]);
/* Copies the self part (unless dry). */
void redist__copy_self(struct redist_plan_s *p);
/* Unpacks receive message i (unless dry). */
void redist__unpack_recv(struct redist_plan_s *p, int i);
/* Requests needed by all chunks of a side's messages. */
int64_t redist__side_requests(const struct redist_plan_s *p, const redist__side *s);
int redist__always_applicable(const redist__summary *s);
int redist__one_step(const redist__summary *s);

#endif
