/* One copy between device arrays on a node (exec.h, "one copy between device arrays").
 *
 * A device plan stages each message between two ranks of a node through host memory: the
 * sender's kernel packs, the GPU copies the message off into the shared window, the receiver
 * copies it onto its GPU and unpacks: four copies and two trips over PCIe. Where the
 * driver lets processes map each other's device memory (device.h's inter-process memory),
 * the receiver's kernel reads the sender's src where it lies and writes its own dst: one copy,
 * on the GPUs, with the protocol of the host one copy (onecopy.c): the sender does not pack,
 * its notification says where its src is, the receiver pulls and acknowledges (below: how
 * the sender's src stays intact until the pulls are done).
 *
 * Where its src is: the sender's allocation travels as a handle, which does not fit a
 * notification (64 bytes, notes are 3 int64), so each rank has one slot of a small
 * node-shared board (an MPI shared window made with the plan): the sender writes its src's
 * handle there before its first offer of an execute, and the note says {-1 (device), its rank
 * on the node, its src's byte offset from the start of its allocation}. The receiver opens
 * the handle once and keeps it open (one per peer, replaced when the peer's src moves to
 * another allocation, closed with the plan).
 *
 * Who can read whom is probed with the plan (collective over the node): each rank shares a
 * page of device memory, each tries to open every other's, and the verdicts are gathered, so
 * that a sender offers only to a peer that can map its memory (another GPU without peer
 * access, an MPS limit: that pair stays staged).
 *
 * Order without host waits: each rank has two events other processes open (made with the
 * plan, their handles on its slot, every peer's opened once). The sender records `ready` on
 * the plan's stream before its first offer of an execute (what the stream wrote to src is
 * done there); the receiver's stream waits for the sender's `ready` before its pull, and the
 * receiver records `done` after its pulls, then acknowledges; at the execute's end the
 * sender's stream waits for the `done` of every peer that pulled from it (src stays as it is
 * until they have read it). So an execute that only pulls never waits for the GPU on the host
 * (with options.stream, its completion is the stream's: staging.c). Where some rank of the
 * node cannot make or open such events, host waits take their places: the sender waits for
 * its stream before its first offer, the receiver for its pulls before acknowledging.
 */
#include "exec/exec.h"
#include "exec/shared.h"

#include "device/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A node rank's slot of the board: its src's allocation (written before its first offer of
   an execute), and its two events between processes (written at plan creation; blank where
   it has none): `ready`, recorded on its stream before it offers src (what the stream wrote
   to src is done), and `done`, recorded after it pulled its peers' messages. */
typedef struct board_slot {
    redist__ipc_handle mem, ready, done;
} board_slot;

struct redist__onecopy_device {
    redist__device *dev;
    MPI_Win board;                      /* a slot per node rank */
    board_slot *mine;                   /* this rank's slot */
    int events;                         /* 1: the pulls are ordered by the events, not host waits */
    redist__device_event *ready, *done; /* this rank's */
    redist__device_event **ready_of;    /* [n]: each node peer's, opened here */
    redist__device_event **done_of;     /* [n] */
    uint64_t *offered;                  /* [n]: the last execute this rank offered to j in */
    int n, me;                          /* node ranks; this rank's */
    int *node_rank_of;                  /* [size]: plan rank -> node rank (-1: another node) */
    char *readable;                     /* [n]: node rank j can map this rank's device memory */
    char *can_read;                     /* [n]: this rank can map node rank j's */
    int policy;                         /* REDIST__IPC_KEEP or _PER_EXECUTE (device.h) */
    redist__ipc_handle *open_h;         /* [n]: the peer allocation open here, per node rank */
    void **open_base;                   /* [n]: NULL: none */
    redist__device_msg **from_dm;       /* [nrecv]: the sender's lists of each local receive */
    int nrecv;
    uint64_t offered_at; /* the execute whose offers are set up (1-based; 0: none) */
    int offer_ok;
    int64_t src_offset; /* that execute's src, from the start of its allocation */
};

void redist__onecopy_device_free(struct redist_plan_s *p, struct redist__onecopy_device *d)
{
    (void)p;
    if (d == NULL)
        return;
    for (int j = 0; d->open_base != NULL && j < d->n; j++)
        redist__device_ipc_close(d->dev, d->open_base[j]);
    for (int j = 0; d->ready_of != NULL && d->done_of != NULL && j < d->n; j++) {
        redist__device_event_destroy(d->dev, d->ready_of[j]);
        redist__device_event_destroy(d->dev, d->done_of[j]);
    }
    redist__device_event_destroy(d->dev, d->ready);
    redist__device_event_destroy(d->dev, d->done);
    redist__free(d->ready_of);
    redist__free(d->done_of);
    redist__free(d->offered);
    for (int i = 0; d->from_dm != NULL && i < d->nrecv; i++)
        redist__device_forget(d->dev, d->from_dm[i]);
    if (d->board != MPI_WIN_NULL) {
        MPI_Win_unlock_all(d->board);
        MPI_Win_free(&d->board);
    }
    redist__free(d->node_rank_of);
    redist__free(d->readable);
    redist__free(d->can_read);
    redist__free(d->open_h);
    redist__free(d->open_base);
    redist__free(d->from_dm);
    redist__free(d);
}

/* Node rank j's slot of the board, in this process. */
static const board_slot *slot(const struct redist__onecopy_device *d, int j)
{
    MPI_Aint size = 0;
    int disp = 0;
    board_slot *at = NULL;
    if (MPI_Win_shared_query(d->board, j, &size, &disp, &at) != MPI_SUCCESS ||
        size < (MPI_Aint)sizeof *at)
        return NULL;
    return at;
}

/* 1 if h holds no handle (all zeros: its rank could not share its memory). */
static int blank(const redist__ipc_handle *h)
{
    for (size_t b = 0; b < sizeof h->bytes; b++)
        if (h->bytes[b] != 0)
            return 0;
    return 1;
}

/* This rank's events between processes, their handles on its slot (blank where the backend
   has none, or they cannot be made: the pulls are then ordered by host waits). */
static void make_events(struct redist__onecopy_device *d)
{
    memset(&d->mine->ready, 0, sizeof d->mine->ready);
    memset(&d->mine->done, 0, sizeof d->mine->done);
    if (!redist__device_has_ipc_events(d->dev))
        return;
    redist__kept_detail kept; /* no events is an answer: host waits */
    redist__detail_keep(&kept);
    if (redist__device_ipc_event_create(d->dev, &d->ready, &d->mine->ready) != REDIST_SUCCESS ||
        redist__device_ipc_event_create(d->dev, &d->done, &d->mine->done) != REDIST_SUCCESS) {
        memset(&d->mine->ready, 0, sizeof d->mine->ready);
        memset(&d->mine->done, 0, sizeof d->mine->done);
    }
    redist__detail_restore(&kept);
}

/* Collective over the node, after the probe (every slot written): each peer's events opened
   here; events order the pulls only where every rank of the node has all of them. */
static int open_events(struct redist_plan_s *p, struct redist__onecopy_device *d)
{
    int ok = redist__device_has_ipc_events(d->dev) && d->ready != NULL && d->done != NULL;
    redist__kept_detail kept;
    redist__detail_keep(&kept);
    for (int j = 0; ok && j < d->n; j++) {
        const board_slot *s = j != d->me ? slot(d, j) : NULL;
        ok = j == d->me ||
             (s != NULL && !blank(&s->ready) && !blank(&s->done) &&
              redist__device_ipc_event_open(d->dev, &s->ready, &d->ready_of[j]) == REDIST_SUCCESS &&
              redist__device_ipc_event_open(d->dev, &s->done, &d->done_of[j]) == REDIST_SUCCESS);
    }
    redist__detail_restore(&kept);
    int all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, p->shm->node) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "device one copy: agreeing on the node's events");
    d->events = all;
    return REDIST_SUCCESS;
}

/* Collective over the node: which peers can map this rank's device memory (readable). Every
   rank makes every call whatever failed; a rank that cannot share its page offers nothing. */
static int probe(struct redist_plan_s *p, struct redist__onecopy_device *d)
{
    MPI_Comm node = p->shm->node;
    void *page = NULL;
    size_t offset = 0, length = 0;
    int shares =
        redist__device_alloc(d->dev, 64, &page) == REDIST_SUCCESS &&
        redist__device_ipc_get(d->dev, page, 64, &d->mine->mem, &offset, &length) == REDIST_SUCCESS;
    if (!shares)
        memset(&d->mine->mem, 0, sizeof d->mine->mem);
    char *can = redist__calloc((size_t)d->n + 1, 1), *all = NULL;
    int err = can != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    MPI_Win_sync(d->board);
    int rc = MPI_Barrier(node); /* every slot written */
    MPI_Win_sync(d->board);
    int every = 0;
    redist__kept_detail kept; /* a refused open is an answer, not an error */
    redist__detail_keep(&kept);
    for (int j = 0; rc == MPI_SUCCESS && err == REDIST_SUCCESS && j < d->n; j++) {
        const board_slot *h = slot(d, j);
        void *base = NULL;
        if (j != d->me && h != NULL && !blank(&h->mem) &&
            redist__device_ipc_open(d->dev, &h->mem, &base) == REDIST_SUCCESS) {
            can[j] = 1;
            redist__device_ipc_close(d->dev, base);
        }
    }
    redist__detail_restore(&kept);
    /* the verdicts: row i says whom rank i can read; this rank keeps its column */
    int ok = err == REDIST_SUCCESS, ok_all = 0;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&ok, &ok_all, 1, MPI_INT, MPI_MIN, node);
    if (rc == MPI_SUCCESS && ok_all) {
        all = redist__malloc((size_t)d->n * (size_t)d->n + 1);
        every = all != NULL;
        rc = MPI_Allreduce(MPI_IN_PLACE, &every, 1, MPI_INT, MPI_MIN, node);
    }
    if (rc == MPI_SUCCESS && every)
        rc = MPI_Allgather(can, d->n, MPI_CHAR, all, d->n, MPI_CHAR, node);
    for (int i = 0; rc == MPI_SUCCESS && every && i < d->n; i++) {
        d->readable[i] = shares && all[(size_t)i * (size_t)d->n + (size_t)d->me];
        d->can_read[i] = can[i];
    }
    /* every peer has closed the page (the gathers above follow the opens) */
    redist__device_free(d->dev, page);
    redist__free(can);
    redist__free(all);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "device one copy: probing the node");
    return ok_all && every ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

/* The state's arrays; NULL without memory. */
static struct redist__onecopy_device *state_alloc(struct redist_plan_s *p, int nrecv)
{
    struct redist__onecopy_device *d = redist__calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    d->board = MPI_WIN_NULL;
    d->dev = redist__staging_dev(p);
    MPI_Comm_size(p->shm->node, &d->n);
    MPI_Comm_rank(p->shm->node, &d->me);
    d->nrecv = nrecv;
    d->node_rank_of = redist__node_ranks_of(p->comm, p->shm->node, p->size);
    d->readable = redist__calloc((size_t)d->n + 1, 1);
    d->can_read = redist__calloc((size_t)d->n + 1, 1);
    d->policy = redist__device_ipc_policy();
    d->open_h = redist__calloc((size_t)d->n + 1, sizeof *d->open_h);
    d->open_base = redist__calloc((size_t)d->n + 1, sizeof *d->open_base);
    d->from_dm = redist__calloc((size_t)nrecv + 1, sizeof *d->from_dm);
    d->ready_of = redist__calloc((size_t)d->n + 1, sizeof *d->ready_of);
    d->done_of = redist__calloc((size_t)d->n + 1, sizeof *d->done_of);
    d->offered = redist__calloc((size_t)d->n + 1, sizeof *d->offered);
    if (d->node_rank_of && d->readable && d->can_read && d->open_h && d->open_base && d->from_dm &&
        d->ready_of && d->done_of && d->offered)
        return d;
    redist__onecopy_device_free(p, d);
    return NULL;
}

int redist__onecopy_device_setup(struct redist_plan_s *p, const redist__msg *const *from, int ready,
                                 int nrecv, struct redist__onecopy_device **out)
{
    *out = NULL;
    struct redist__onecopy_device *d = ready ? state_alloc(p, nrecv) : NULL;
    int ok = d != NULL, all_ok = 0; /* every rank of the node, or none, goes on */
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, p->shm->node) != MPI_SUCCESS || !all_ok) {
        redist__onecopy_device_free(p, d);
        return ready ? REDIST_ERR_NOMEM : REDIST_SUCCESS; /* not ready: the caller's error */
    }
    int rc = MPI_Win_allocate_shared((MPI_Aint)sizeof(board_slot), 1, MPI_INFO_NULL, p->shm->node,
                                     &d->mine, &d->board);
    if (rc != MPI_SUCCESS) {
        d->board = MPI_WIN_NULL;
        redist__onecopy_device_free(p, d);
        return redist__fail(REDIST_ERR_MPI, "device one copy: the node's board of handles");
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, d->board);
    make_events(d); /* on the board before the probe's barrier */
    int err = probe(p, d);
    if (err == REDIST_SUCCESS)
        err = open_events(p, d);
    for (int i = 0; err == REDIST_SUCCESS && i < nrecv; i++)
        if (from[i] != NULL)
            err = redist__device_upload(d->dev, from[i], &d->from_dm[i]);
    if (err != REDIST_SUCCESS) {
        redist__onecopy_device_free(p, d);
        return err;
    }
    *out = d;
    return REDIST_SUCCESS;
}

/* Once per execute, before the first offer: this execute's src on the board, and the plan's
   stream done with it. 0 if src cannot be shared (host memory under AUTO, an allocation the
   driver will not share). */
static int set_up_offers(struct redist_plan_s *p, struct redist__onecopy_device *d)
{
    if (d->offered_at == p->executes)
        return d->offer_ok;
    d->offered_at = p->executes;
    d->offer_ok = 0;
    int err = REDIST_SUCCESS;
    if (!redist__staging_src_on_device(p))
        return 0;
    int64_t es = (int64_t)p->elsize;
    const char *lo = p->cur_src + (p->src_lo - p->src_base) * es;
    size_t offset = 0, length = 0;
    redist__kept_detail kept; /* a refusal is an answer (the message is staged) */
    redist__detail_keep(&kept);
    int shared = redist__device_ipc_get(d->dev, lo, (size_t)((p->src_hi - p->src_lo) * es),
                                        &d->mine->mem, &offset, &length) == REDIST_SUCCESS;
    redist__detail_restore(&kept);
    if (!shared)
        return 0;
    MPI_Win_sync(d->board); /* the slot before the notifications */
    if (d->events)          /* src as the stream leaves it: the peers' streams wait for this mark */
        err = redist__device_event_record(d->dev, d->ready, p->opt.stream);
    else /* src as the stream leaves it, before a peer's kernel reads it */
        redist__staging_wait(p);
    if (err != REDIST_SUCCESS) { /* staged instead */
        redist__detail_restore(&kept);
        return 0;
    }
    d->src_offset = (int64_t)offset - (lo - p->cur_src);
    d->offer_ok = 1;
    return 1;
}

int redist__onecopy_device_offer(struct redist_plan_s *p, struct redist__onecopy_device *d, int i,
                                 int64_t note[3])
{
    note[0] = note[1] = note[2] = 0;
    int peer = d->node_rank_of[p->send.msgs[i].peer];
    if (p->dry || p->bounded || peer < 0 || !d->readable[peer] || !set_up_offers(p, d))
        return 0;
    note[0] = -1;
    note[1] = d->me;
    note[2] = d->src_offset;
    d->offered[peer] = p->executes;
    return 1;
}

/* The sender's src (its local index 0) of an offered receive, in this process: its
   allocation opened here once. NULL where it cannot be (the allocation is gone). */
static const char *peer_src(struct redist_plan_s *p, struct redist__onecopy_device *d,
                            const int64_t note[3])
{
    int j = (int)note[1];
    if (j < 0 || j >= d->n || j == d->me)
        return NULL;
    MPI_Win_sync(d->board);
    const board_slot *s = slot(d, j);
    if (s == NULL)
        return NULL;
    const redist__ipc_handle *h = &s->mem;
    if (d->open_base[j] == NULL || memcmp(&d->open_h[j], h, sizeof *h) != 0) {
        if (d->open_base[j] != NULL && d->events) /* its last pulls done before the unmap */
            redist__staging_wait(p);
        redist__device_ipc_close(d->dev, d->open_base[j]); /* its pulls were waited for */
        d->open_base[j] = NULL;
        redist__ipc_handle copy = *h;
        if (redist__device_ipc_open(d->dev, &copy, &d->open_base[j]) != REDIST_SUCCESS)
            return NULL;
        d->open_h[j] = copy;
    }
    return (const char *)d->open_base[j] + note[2];
}

int redist__onecopy_device_copy(struct redist_plan_s *p, struct redist__onecopy_device *d, int i)
{
    const char *src = peer_src(p, d, p->shm->note_in[i]);
    int j = (int)p->shm->note_in[i][1], err = REDIST_SUCCESS;
    if (src != NULL && d->events) /* after the sender's stream has left src as it wants it */
        err = redist__device_stream_wait(d->dev, p->opt.stream, d->ready_of[j]);
    if (err != REDIST_SUCCESS)
        redist__staging_failed(p, err);
    else if (src != NULL)
        redist__staging_pull(p, d->from_dm[i], &p->recv.msgs[i], src);
    else /* kept for the execute's end: the message is still acknowledged, so that its
            sender completes */
        redist__staging_failed(p, redist__fail_context(REDIST_ERR_STATE,
                                                       "device one copy: rank %d offered its "
                                                       "src, which this rank cannot map",
                                                       p->recv.msgs[i].peer));
    return REDIST_SUCCESS;
}

void redist__onecopy_device_done(struct redist_plan_s *p, struct redist__onecopy_device *d)
{
    int err = REDIST_SUCCESS;
    if (d->events && d->policy != REDIST__IPC_PER_EXECUTE) /* the senders' streams wait for it */
        err = redist__device_event_record(d->dev, d->done, p->opt.stream);
    else /* the pulls done before the acknowledgements free the senders' src */
        redist__staging_wait(p);
    if (err != REDIST_SUCCESS) { /* ordered by the host instead */
        redist__staging_failed(p, err);
        redist__staging_wait(p);
    }
    if (d->policy != REDIST__IPC_PER_EXECUTE)
        return;
    for (int j = 0; j < d->n; j++) { /* the pulls were waited for */
        redist__device_ipc_close(d->dev, d->open_base[j]);
        d->open_base[j] = NULL;
    }
}

void redist__onecopy_device_count(const struct redist_plan_s *p,
                                  const struct redist__onecopy_device *d, int64_t *messages,
                                  int64_t *bytes)
{
    *messages = *bytes = 0;
    for (int i = 0; d != NULL && i < p->recv.nmsgs; i++) {
        int j = d->node_rank_of[p->recv.msgs[i].peer];
        if (j >= 0 && j != d->me && d->can_read[j] && d->from_dm[i] != NULL) {
            ++*messages;
            *bytes += p->recv.msgs[i].nelems * (int64_t)p->elsize;
        }
    }
}

void redist__onecopy_device_end(struct redist_plan_s *p, struct redist__onecopy_device *d)
{
    for (int j = 0; d->events && j < d->n; j++) /* src stays until their pulls are done */
        if (d->offered[j] == p->executes) {     /* offered in this execute (1-based) */
            int err = redist__device_stream_wait(d->dev, p->opt.stream, d->done_of[j]);
            if (err != REDIST_SUCCESS) /* then the host waits (the execute fails) */
                redist__staging_failed(p, err);
        }
}
