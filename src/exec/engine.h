/* Helpers shared by the algorithms that move the pattern's messages: the point-to-point
   schedules, and those that are one MPI all-to-all collective. */
#ifndef REDIST_ENGINE_H
#define REDIST_ENGINE_H

#include "exec/exec.h"

/* Data requests of message i of the send (is_send) or receive side: one zero-byte
   notification for a peer on the node with the shared-memory transport, else one per
   chunk of at most REDIST__CHUNK_BYTES. */
int64_t redist__msg_requests(const struct redist_plan_s *p, int is_send, int i);
int64_t redist__side_requests(const struct redist_plan_s *p, int is_send);
/* bytes from base to or from peer as MPI_BYTE messages of at most REDIST__CHUNK_BYTES
   (redist__chunks(bytes) requests, one for 0 bytes); returns their number, or an error. */
int redist__post_bytes(char *base, int64_t bytes, int peer, int is_send, MPI_Comm comm,
                       MPI_Request reqs[]);
/* The same with another tag than REDIST__TAG_DATA (an algorithm's own steps). */
int redist__post_bytes_tagged(char *base, int64_t bytes, int peer, int is_send, int tag,
                              MPI_Comm comm, MPI_Request reqs[]);
/* Post receive message i; returns the number of requests written, or an error (< 0). */
int redist__post_recv(struct redist_plan_s *p, int i, MPI_Request reqs[]);
/* Send message i as it stands in the send buffer (the algorithm packed it); returns requests
   written, or an error. */
int redist__post_send(struct redist_plan_s *p, int i, MPI_Request reqs[]);
/* Pack (unless dry) and send message i; returns requests written, or an error. */
int redist__pack_and_send(struct redist_plan_s *p, int i, MPI_Request reqs[]);
/* Device plans (pipelining): every send message's pack queued on the device at once, in the
   order first, first + 1, ... (mod the count), each copy off the device marked when posted;
   returns 1, and the messages are then sent by send_packed, each once its copy is done (the
   copy of the next one runs meanwhile). Host plans, dry runs, the datatype transport: does
   nothing and returns 0 (pack_and_send packs each message just before it goes). */
int redist__pack_ahead(struct redist_plan_s *p, int first);
int redist__send_packed(struct redist_plan_s *p, int i, MPI_Request reqs[]);
/* For send message i to a node peer: post the receive of its acknowledgement (returns 1);
   else writes nothing (returns 0). */
int redist__post_ack_recv(struct redist_plan_s *p, int i, MPI_Request *req);
/* Unpack receive message i (unless dry); for a node peer also send the acknowledgement
   (returns 1, request in *ack), else 0. Negative on error. */
int redist__finish_recv(struct redist_plan_s *p, int i, MPI_Request *ack);
/* For receive message i from a node peer (whose data it has unpacked): send the
   acknowledgement that frees the peer's buffer (returns 1, request in *ack); else 0. */
int redist__send_ack(struct redist_plan_s *p, int i, MPI_Request *ack);
/* Whether arrived receive message i is copied once from its sender's src (onecopy.c). */
int redist__copies_once(const struct redist_plan_s *p, int i);
/* Receive messages msgs[0 .. n), each copied once (redist__copies_once), copied together
   in dst's order with the self part if with_self, then acknowledged; returns the
   acknowledgements posted at acks, or an error. */
int redist__finish_recvs_once(struct redist_plan_s *p, int *msgs, int n, int with_self,
                              MPI_Request *acks);

/* ---- overlap inside a rank (overlap.c): the team unpacks while thread 0 receives ---------
   For a plan with threads >= 2 and the pack transport (else *out = NULL: not used). */
typedef struct redist__overlap redist__overlap;
int redist__overlap_create(const struct redist_plan_s *p, redist__overlap **out);
void redist__overlap_free(redist__overlap **o);
/* Whether this execute may overlap (o exists, the buffers are real). */
int redist__overlap_usable(const struct redist_plan_s *p, const redist__overlap *o);
/* The receive side of an execute in progress: its requests (chunks) and their messages. */
typedef struct redist__arrivals {
    MPI_Request *reqs;
    int nreqs;
    const int *msg_of_req;
    int *chunks_left; /* per message: chunks not yet arrived */
    int *indices;     /* scratch for MPI_Waitsome, nreqs */
    int *recvs_left;  /* messages not yet arrived */
    int *arrived;     /* out: the messages that arrived here, in order (room for all) */
    int narrived;
} redist__arrivals;
/* Blocking: receives every message still due and unpacks each (the self part first if
   with_self) with the plan's team, thread 0 in MPI while the others unpack. No
   acknowledgements are sent (the caller sends them for a->arrived). */
int redist__overlap_receive(struct redist_plan_s *p, redist__overlap *o, int with_self,
                            redist__arrivals *a);

/* Copies the self part (unless dry). */
void redist__copy_self(struct redist_plan_s *p);
/* After an MPI error in the middle of a start: cancels the receives already posted (and
   waits for the cancellation, so that MPI writes no buffer afterwards) and frees the
   sends' requests (they complete, or not, on their own). */
void redist__abandon_requests(MPI_Request recvs[], int nrecvs, MPI_Request sends[], int nsends);

/* Waits for (blocking) or tests one request; *done = 1 when it is complete. */
int redist__progress_request(MPI_Request *req, int blocking, int *done, const char *what);

/* ---- one MPI all-to-all collective (alltoallv.c, alltoallw.c; bmmc's Alltoallv method) ----
   The per-rank arrays MPI_(I)alltoallv and MPI_(I)alltoallw take: one entry per rank of the
   communicator, a zero count (and MPI_BYTE) where no message goes. */
typedef struct redist__rank_arrays {
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype *stypes, *rtypes; /* with_types only, else NULL */
} redist__rank_arrays;
/* REDIST_ERR_NOMEM if one fails (free what was allocated with redist__rank_arrays_free). */
int redist__rank_arrays_alloc(redist__rank_arrays *a, int nranks, int with_types);
void redist__rank_arrays_free(redist__rank_arrays *a);
/* The state (p->algo_state) of an algorithm that is one nonblocking all-to-all. */
typedef struct redist__alltoall_state {
    redist__rank_arrays arrays;
    MPI_Request req;
} redist__alltoall_state;
int redist__alltoall_state_create(struct redist_plan_s *p, int with_types,
                                  redist__alltoall_state **out);
void redist__alltoall_state_destroy(struct redist_plan_s *p);
/* One all-to-all step, modelled as Open MPI's default, which touches every peer:
   T_d + (P - 1) t_msg + the moves of the transport (redist__cost_moves). */
double redist__alltoall_predict(const redist__case *c, const redist__machine *m,
                                const redist_options *opt, int transport);

/* Bounded mode (strip.c): the pattern's messages in chunks of redist__strip_chunk_elems
   elements through at most p->bound bytes of slots per rank, packed while earlier chunks
   travel, in the shift schedule's order (deadlock-free); the self part copied directly. The
   run functions of every algorithm that has the `bounded` flag when p->bounded is set. */
int64_t redist__strip_chunk_elems(int64_t bound, size_t elsize);
int redist__strip_setup(struct redist_plan_s *p);
/* The bytes of the send slots, for the shared window that holds them (shm.c). */
int64_t redist__strip_send_bytes(const struct redist_plan_s *p);
int redist__strip_start(struct redist_plan_s *p);
int redist__strip_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__strip_destroy(struct redist_plan_s *p);
/* One execute in bounded mode: the moves of the pack transport, a start-up per message (one
   peer at a time) and a message cost per chunk. */
double redist__strip_predict(const redist__case *c, const redist__machine *m, int64_t bound);

#endif
