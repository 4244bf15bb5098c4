/* Packet exchange of the index-computing algorithms ([TCR96]'s general, ky-to-y, x-to-kx):
 * one packet per peer, data only, in the order both ends enumerate the pair's elements. The
 * packets are the pattern's messages (sizes, peers, offsets in the plan's pack buffers),
 * plus a self packet. The algorithm fills them (pack) and empties them (unpack) through the
 * cursors below; this code posts, waits and calls it back.
 *
 * Receive methods ([TCR96] §3): synchronous (option synchronous_receive: every packet
 * first, then one unpack_all) or asynchronous (the default: unpack_one for each packet as
 * it arrives, the self packet first).
 */
#ifndef REDIST_ALGO_PACKETS_H
#define REDIST_ALGO_PACKETS_H

#include "exec/engine.h"

enum { REDIST__SELF_SLOT = -1 }; /* the slot of the self packet; others: message indices */

typedef struct redist__packet_ops {
    void (*pack)(struct redist_plan_s *p, void *algo);                 /* every packet */
    void (*unpack_one)(struct redist_plan_s *p, void *algo, int slot); /* one received packet */
    void (*unpack_all)(struct redist_plan_s *p, void *algo);           /* after all arrived */
} redist__packet_ops;

typedef struct redist__packets {
    const redist__packet_ops *ops;
    void *algo;        /* passed to ops */
    int sync;          /* the synchronous receive method */
    char *selfbuf;     /* the self packet */
    char **out;        /* [1 + send messages] write cursor of each packet (self first) */
    const char **in;   /* [1 + receive messages] read cursor of each packet (self first) */
    MPI_Request *reqs; /* receive chunks [0, nrecv), then send chunks */
    int *msg_of_req;   /* receive message of each receive request */
    int *chunks_left;  /* per receive message */
    int nrecv, nreqs, recvs_left, self_done, unpacked;
} redist__packets;

/* Allocates the cursors, requests and self packet of plan p. */
int redist__packets_setup(struct redist_plan_s *p, redist__packets *pk,
                          const redist__packet_ops *ops, void *algo);
void redist__packets_free(redist__packets *pk);
/* Posts every receive, packs (unless dry), posts every send. */
int redist__packets_start(struct redist_plan_s *p, redist__packets *pk);
int redist__packets_progress(struct redist_plan_s *p, redist__packets *pk, int blocking, int *done);
/* The next `bytes` of the packet for send message `slot` (or the self packet), to fill;
   of the received packet `slot` (or the self packet), to read. */
static inline char *redist__packet_append(redist__packets *pk, int slot, size_t bytes)
{
    char *at = pk->out[slot + 1];
    pk->out[slot + 1] = at + bytes;
    return at;
}
static inline const char *redist__packet_next(redist__packets *pk, int slot, size_t bytes)
{
    const char *at = pk->in[slot + 1];
    pk->in[slot + 1] = at + bytes;
    return at;
}
/* The message with `peer` on a side (sorted by peer), or -1. */
int redist__msg_index(const redist__side *side, int peer);

#endif
