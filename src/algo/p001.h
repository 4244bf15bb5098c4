/* Shared machinery of [TCR96]'s algorithms (Thakur, Choudhary, Ramanujam): general,
 * ky-to-y, x-to-kx (gcd and lcm are phases of the latter two).
 *
 * [TCR96] computes who gets what by index arithmetic while packing (per element for the
 * general method, per block with stored processor sequences for KY_TO_Y and X_TO_KX) and
 * writes one packet per destination in increasing global order; the receiver reads packets
 * back in its own local order. Packet sizes are those of the pattern's messages (the same
 * element sets), so buffers are allocated at plan time. Applies to 1-D pairs on the same P
 * ranks with the same first coordinate ([TCR96] §2 assumes one processor set); the paper's
 * processor p is grid coordinate (p + first) mod P.
 */
#ifndef REDIST_ALGO_P001_H
#define REDIST_ALGO_P001_H

#include "exec/engine.h"
#include "index/p001_seq.h"

struct redist__p001;
typedef struct redist__p001 {
    int64_t P, x, y, n; /* processors, source and destination blocks, extent */
    int64_t me;         /* this rank's paper processor number, -1 if not in the layouts */
    int first;
    int sync;                  /* synchronous receive (wait for every packet, then one scan) */
    char **out, **in;          /* [P] packet of each paper processor: to send, received */
    int64_t *out_len, *in_len; /* [P] elements */
    int64_t *out_fill;         /* [P] elements packed so far (pack-time cursor) */
    int64_t *in_read;          /* [P] elements read so far (synchronous unpack cursor) */
    char *selfbuf;
    MPI_Request *reqs; /* receives first (nrecv), then sends */
    int64_t *req_peer; /* paper processor of each receive */
    int nrecv, nsend, recvs_left;
    int self_done, unpacked; /* this execution: self packet placed, synchronous scan done */
    /* The algorithm's index arithmetic: pack every packet; place one arrived packet (the
       asynchronous method); place everything after all packets (the synchronous method). */
    void (*pack)(struct redist_plan_s *p);
    void (*unpack_one)(struct redist_plan_s *p, struct redist__p001 *st, int64_t q);
    void (*unpack_all)(struct redist_plan_s *p, struct redist__p001 *st);
} redist__p001;

typedef void (*redist__p001_unpack_fn)(struct redist_plan_s *p, redist__p001 *st, int64_t q);

/* start / progress / destroy of every [TCR96] algorithm, whose state begins with a
   redist__p001 (p->algo_state points at it). */
int redist__p001_start(struct redist_plan_s *p);
int redist__p001_algo_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__p001_destroy(struct redist_plan_s *p);

/* The rules the [TCR96] algorithms share (pure). Applicable: 1-D, same ranks, grid and
   first coordinate on both sides. Option synchronous_receive (0 or 1), read by all five.
   gcd and lcm: two steps (phases) if anything moves; each phase costs a ratio algorithm's
   messages, its start-up and a message cost per peer ([TCR96] §5.2-5.3):
     2 (T_d + M t_msg + the moves of the transport).
   ky-to-y and x-to-kx: one step, every packet in flight at once (as direct-async). */
int redist__p001_applicable(const redist__case *c);
int redist__p001_check_options(const redist_options *opt, int comm_size);
void redist__p001_fingerprint_options(redist__fingerprints *fp, const redist_options *opt);
int redist__p001_two_steps(const redist__case *c, const redist__machine *m,
                           const redist_options *opt);
double redist__p001_predict_two_phases(const redist__case *c, const redist__machine *m,
                                       const redist_options *opt, int transport);
double redist__p001_predict_ratio(const redist__case *c, const redist__machine *m,
                                  const redist_options *opt, int transport);
/* Maps the plan's messages to paper processors and allocates the request arrays. */
int redist__p001_setup(struct redist_plan_s *p, redist__p001 *st);
void redist__p001_free(redist__p001 *st);

/* Allocates p->algo_state, `size` bytes beginning with a redist__p001, with the algorithm's
   index arithmetic and sync = the option, then redist__p001_setup. */
int redist__p001_create(struct redist_plan_s *p, size_t size, void (*pack)(struct redist_plan_s *),
                        redist__p001_unpack_fn unpack_one,
                        void (*unpack_all)(struct redist_plan_s *, redist__p001 *));

/* The state of ky-to-y and x-to-kx: blocks in the ratio k = max(x, y) / min(x, y); when
   k <= P and P mod k = 0 a processor sequence repeats every k blocks and is stored. */
typedef struct redist__p001_ratio {
    redist__p001 st;
    int64_t k;
    int stored;
} redist__p001_ratio;
/* redist__p001_create of a redist__p001_ratio, then k and stored. */
int redist__p001_ratio_setup(struct redist_plan_s *p, void (*pack)(struct redist_plan_s *),
                             redist__p001_unpack_fn unpack_one,
                             void (*unpack_all)(struct redist_plan_s *, redist__p001 *));
/* Posts the receives, then (after the algorithm packed every packet) the sends. */
int redist__p001_post_receives(struct redist_plan_s *p, redist__p001 *st);
int redist__p001_post_sends(struct redist_plan_s *p, redist__p001 *st);
/* Appends len elements from src to the packet for paper processor q. */
void redist__p001_append(redist__p001 *st, int64_t q, const char *src, int64_t len, size_t es);
/* Reads the next len elements of the packet from paper processor q into dst. */
void redist__p001_read(redist__p001 *st, int64_t q, char *dst, int64_t len, size_t es);
/* Waits for packets: with sync, all of them; else one at a time, calling unpack_one(q)
   for each arrived packet (the asynchronous method). Sends complete at the end. */
int redist__p001_progress(struct redist_plan_s *p, redist__p001 *st, int blocking, int *done,
                          redist__p001_unpack_fn unpack_one,
                          void (*unpack_all)(struct redist_plan_s *, redist__p001 *));

/* gcd and lcm: two phases through cyclic(m) with the named algorithms (phases.c). */
int redist__p001_two_phases(struct redist_plan_s *p, int64_t m, const char *first,
                            const char *second);
int redist__p001_phases_start(struct redist_plan_s *p);
int redist__p001_phases_progress(struct redist_plan_s *p, int blocking, int *done);
void redist__p001_phases_destroy(struct redist_plan_s *p);
void redist__p001_phases_stats(const struct redist_plan_s *p, redist_stats *st);

#endif
