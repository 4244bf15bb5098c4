/* Shared-memory transport for messages between ranks of one node.
 *
 * Through MPI, a packed message costs three copies: our pack, MPI's copy (one, or two
 * through its shared-memory fragments) and our unpack. Here the send pack buffer is an
 * MPI-3 shared-memory window (MPI_Win_allocate_shared on the node's communicator): the
 * sender packs into it and sends a zero-byte notification, the receiver unpacks straight
 * from the sender's window and answers with a zero-byte acknowledgement, after which the
 * sender may reuse its buffer. Two copies, whatever the MPI library does. Visibility follows
 * the MPI-3 "separate" model recipe: a passive-target epoch (MPI_Win_lock_all) for the
 * plan's life, MPI_Win_sync on both sides around each notification.
 *
 * Messages to ranks on other nodes still go through MPI from the same buffer. In bounded
 * mode the window holds the strip engine's send slots instead (strip.c).
 *
 * Device plans (staging.c) copy off the GPU into their own segment and onto it from their
 * peers' segments, so each rank pins (page-locks) its own segment and the segments it reads:
 * a GPU copies unpinned memory synchronously through the driver's bounce buffers, several
 * times slower (measured on an H200: device plans at 3-6x the staging floor until then).
 */
#include "exec/exec.h"
#include "exec/shared.h"

#include <stdlib.h>
#include <string.h>

void redist__shm_free(struct redist_plan_s *p)
{
    redist__shm *s = p->shm;
    if (s == NULL)
        return;
    redist__onecopy_free(p);
    redist__free(s->note_out);
    redist__free(s->note_in);
    MPI_Win_unlock_all(s->win);
    MPI_Win_free(&s->win); /* frees the segment that p->sendbuf pointed to */
    MPI_Comm_free(&s->node);
    redist__free(s->send_local);
    redist__free(s->recv_local);
    redist__free(s->recv_at);
    redist__free(s);
    p->shm = NULL;
    p->sendbuf = NULL;
}

/* Each sender tells each receiver where its message sits in the sender's window (bounded
   mode: 0, the chunks' offsets travel with each chunk). */
static int exchange_offsets(struct redist_plan_s *p, int64_t *theirs)
{
    if (p->bounded) {
        for (int r = 0; r < p->size; r++)
            theirs[r] = 0;
        return REDIST_SUCCESS;
    }
    for (int r = 0; r < p->size; r++) /* in place: no allocation, which could fail on one
                                          rank and leave the others in the MPI_Alltoall */
        theirs[r] = -1;
    for (int i = 0; i < p->send.nmsgs; i++)
        theirs[p->send.msgs[i].peer] = p->send.msgs[i].offset * (int64_t)p->elsize;
    int rc = MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT64_T, theirs, 1, MPI_INT64_T, p->comm);
    return rc == MPI_SUCCESS ? REDIST_SUCCESS : REDIST_ERR_MPI;
}

static int locate_messages(struct redist_plan_s *p, const int *node_rank, const int64_t *offs)
{
    redist__shm *s = p->shm;
    s->send_local = redist__calloc((size_t)p->send.nmsgs + 1, sizeof *s->send_local);
    s->recv_local = redist__calloc((size_t)p->recv.nmsgs + 1, sizeof *s->recv_local);
    s->recv_at = redist__calloc((size_t)p->recv.nmsgs + 1, sizeof *s->recv_at);
    s->note_out = redist__calloc((size_t)p->send.nmsgs + 1, sizeof *s->note_out);
    s->note_in = redist__calloc((size_t)p->recv.nmsgs + 1, sizeof *s->note_in);
    if (!s->send_local || !s->recv_local || !s->recv_at || !s->note_out || !s->note_in)
        return REDIST_ERR_NOMEM;
    for (int i = 0; i < p->send.nmsgs; i++)
        s->send_local[i] = node_rank[p->send.msgs[i].peer] >= 0;
    for (int i = 0; i < p->recv.nmsgs; i++) {
        int nr = node_rank[p->recv.msgs[i].peer];
        if (nr < 0)
            continue;
        MPI_Aint size = 0;
        int disp = 0;
        char *base = NULL;
        if (MPI_Win_shared_query(s->win, nr, &size, &disp, &base) != MPI_SUCCESS)
            return REDIST_ERR_MPI;
        s->recv_local[i] = 1;
        s->recv_at[i] = base + offs[p->recv.msgs[i].peer];
        /* device plans copy straight from the peer's segment onto the GPU: pinned in this
           process too, or the copy is a GPU's slow synchronous pageable one (one message
           per peer, so each segment is pinned once) */
        redist__staging_pin(p, base, (size_t)size);
    }
    return REDIST_SUCCESS;
}

/* A node's segment is the sum of its ranks' send buffers, and the MPI library maps it in
   /dev/shm: a segment larger than the space there kills the processes (SIGBUS) the first
   time they touch its end. 1 if every node's segment fits (the same answer on every rank). */
static int segments_fit(struct redist_plan_s *p, MPI_Comm node, MPI_Aint bytes)
{
    double mine = (double)bytes, node_total = 0;
    int fits = MPI_Allreduce(&mine, &node_total, 1, MPI_DOUBLE, MPI_SUM, node) == MPI_SUCCESS &&
               node_total <= redist__shm_limit();
    int all = 0;
    if (MPI_Allreduce(&fits, &all, 1, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS)
        return 0;
    return all;
}

/* Whether every rank of the plan got its window (win NULL: this one did not). If not, the
   ranks that have one free it, and node is freed: the plan goes without shared memory, as
   when the segments do not fit. A window that one rank of a node gets and another does not
   would be an MPI library's broken collective; MPI_Win_free would then wait for the rank
   without one. */
static int every_window(struct redist_plan_s *p, MPI_Comm node, MPI_Win *win)
{
    int mine = win != NULL, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS)
        all = 0;
    if (all)
        return 1;
    if (win != NULL)
        MPI_Win_free(win);
    MPI_Comm_free(&node);
    return 0;
}

/* Every rank makes every collective call whatever happened locally (a rank that runs out
   of memory still takes part), so that a failure anywhere is an error everywhere, never a
   hang. Where a node's segment would not fit, every rank returns REDIST_SUCCESS with no
   window (p->shm NULL): messages then go through MPI. */
int redist__shm_setup(struct redist_plan_s *p, int64_t window_bytes)
{
    redist__shm *s = redist__calloc(1, sizeof *s);
    int64_t *offs = redist__malloc((size_t)p->size * sizeof *offs);
    int *node_rank = NULL;
    int err = s && offs ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    MPI_Comm node = MPI_COMM_NULL;
    MPI_Win win = MPI_WIN_NULL;
    char *base = NULL;
    MPI_Aint bytes = 0;
    int rc = redist__plan_node_comm(p->comm, &node) == REDIST_SUCCESS ? MPI_SUCCESS : MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
        bytes = (MPI_Aint)window_bytes;
        if (!segments_fit(p, node, bytes)) {
            MPI_Info_free(&info);
            MPI_Comm_free(&node);
            redist__free(s);
            redist__free(offs);
            return REDIST_SUCCESS;
        }
        rc = MPI_Win_allocate_shared(bytes, 1, info, node, &base, &win);
        MPI_Info_free(&info);
        if (!every_window(p, node, rc == MPI_SUCCESS ? &win : NULL)) {
            redist__free(s);
            redist__free(offs);
            return REDIST_SUCCESS; /* no window (no room in /dev/shm?): messages go by MPI */
        }
    }
    if (rc != MPI_SUCCESS) { /* MPI failures in collectives are the same on every rank */
        if (node != MPI_COMM_NULL)
            MPI_Comm_free(&node);
        redist__free(s);
        redist__free(offs);
        return redist__fail(REDIST_ERR_MPI, "shared-memory window");
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    int all = 0;
    if (MPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS)
        all = REDIST_ERR_MPI;
    int node_size = 0, whole = 0; /* every rank of the plan on this node */
    MPI_Comm_size(node, &node_size);
    node_size = node_size == p->size;
    if (MPI_Allreduce(&node_size, &whole, 1, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS)
        all = REDIST_ERR_MPI;
    if (all == REDIST_SUCCESS) {
        s->one_node = whole;
        s->node = node;
        s->win = win;
        s->base = base;
        p->shm = s;
        p->sendbuf = base;
        s->bytes = (int64_t)bytes;
        redist__staging_pin(p, base, (size_t)bytes); /* device plans copy off the GPU into it */
        err = exchange_offsets(p, offs);
        if (err == REDIST_SUCCESS &&
            (node_rank = redist__node_ranks_of(p->comm, node, p->size)) == NULL)
            err = REDIST_ERR_NOMEM;
        if (err == REDIST_SUCCESS)
            err = locate_messages(p, node_rank, offs);
    } else {
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
        MPI_Comm_free(&node);
        redist__free(s);
        err = all;
    }
    redist__free(node_rank);
    redist__free(offs);
    return err == REDIST_SUCCESS ? err : redist__fail(err, "shared-memory transport setup");
}

void redist__shm_sync(struct redist_plan_s *p)
{
    if (p->shm != NULL)
        MPI_Win_sync(p->shm->win);
}
