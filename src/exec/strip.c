/* Bounded mode: the pattern's messages moved in chunks through at most `bound` bytes of
 * buffers per rank, [SD96]'s strip mining (§4: "at each redistribution step, p creates one
 * message and sends it"; computation and communication overlap). See engine.h.
 *
 * Every rank cuts every message into chunks of the same number of elements (a function of the
 * bound and the element size only, so both ends know each chunk's size) and keeps a few
 * chunk-sized slots per direction. A sender packs chunk i + 1 into a free slot while chunk i
 * is in flight; a receiver keeps receives posted, in the order the chunks come, and unpacks
 * each in turn into the destination array.
 *
 * With the shared-memory transport (shm.c) the send slots live in the node's window: for a
 * peer on the node the sender packs into a slot and sends only the slot's offset; the
 * receiver unpacks straight from the sender's slot and acknowledges, which frees it. Two
 * copies per element, as in the default mode; the receiver needs no data slot for such
 * peers. Peers on other nodes get the chunk through MPI from the same slot. One copy on a
 * node (onecopy.c): where the sender's src lies in an allocation the peer maps, the chunk's
 * note says so instead (-1, then where src is) and the receiver copies the chunk's elements
 * straight from it; the slot is taken and freed as for a packed chunk, so the flow of
 * chunks, and the order argument below, do not change.
 *
 * Order, and why it cannot deadlock: each side handles its messages in the order of the shift
 * schedule, peer (rank + r) mod P for sends and (rank - r) mod P for receives, r = 1 .. P-1
 * (both ends of a pair see the same r). A receiver posts the chunks of its current message
 * first, and the next message's only once all of the current one's are posted. Take the
 * side (send or receive, of any rank) whose current step r is the smallest: its partner is at
 * step r too (a partner past r has finished their message), so the chunks it waits for are
 * being posted at the other end and its slots are freed as the other end consumes them: it
 * advances. The self part is copied straight from the source array to the destination.
 */
#include "exec/engine.h"

#include <stdlib.h>
#include <string.h>

enum { NOTE = 4 }; /* a chunk's note: offset, or -1 and the offer's 3 (exec.h's note_out) */

typedef struct strip_side {
    int n;             /* messages, in schedule order */
    int *order;        /* message indices */
    int cur;           /* send: message being packed; receive: message being unpacked */
    int64_t cur_done;  /* its elements packed (send) or unpacked (receive) */
    int post;          /* receive: message whose chunks are being posted */
    int64_t post_done; /* its elements posted */
    redist__cursor cursor;
    int64_t *scratch; /* the cursors' levels */
    int levels;       /* the most levels of a message */
    int nslots;
    size_t slot_bytes;
    char *slots;         /* nslots * slot_bytes: data slots (the window's part for sends) */
    int64_t *slot_elems; /* [nslots] elements of the chunk in each slot */
    int64_t *note;       /* [nslots][NOTE] a chunk's note: its offset in the sender's window
                            (shared memory), or -1 and where the sender's src is (one copy) */
    int head, used;      /* receive: FIFO ring of posted slots */
    /* Any-order mode (one node): every message's own progress. */
    redist__cursor *cursors; /* [n] */
    int64_t *done;           /* [n] elements packed or unpacked */
    int64_t *notes;          /* [n][NOTE] receive: the note of the chunk that arrived */
    char *offered;           /* send: [p->send.nmsgs] this execute copies it once (its peer) */
    int next;                /* send: the message the next free slot serves (rotating) */
} strip_side;

typedef struct strip {
    int64_t chunk; /* elements per chunk (the same on every rank) */
    int anyorder;  /* every rank on one node: receivers take chunks in any order */
    strip_side send, recv;
    /* Requests: the receives [0, R) (R slots; any-order mode: one per message), send slots
       [R, R + S), the send slots' acknowledgement receives [R + S, R + 2S), the receives'
       acknowledgement sends [R + 2S, 2R + 2S). */
    MPI_Request *reqs;
    int nrecv, nreqs;
} strip;

/* The receives' acknowledgement sends. */
static MPI_Request *recv_acks(strip *s)
{
    return s->reqs + s->nrecv + 2 * s->send.nslots;
}

int64_t redist__strip_chunk_elems(int64_t bound, size_t elsize)
{
    int64_t es = (int64_t)elsize, bytes = bound / 8; /* several chunks in flight each way */
    if (bytes > ((int64_t)4 << 20))
        bytes = (int64_t)4 << 20;
    return bytes / es > 0 ? bytes / es : 1;
}

/* The messages of one side that carry data, in the shift schedule's order: shift
   (peer - rank) mod size increasing for sends, (rank - peer) mod size for receives. Messages
   are sorted by peer, so this is a rotation (backwards for receives). Returns the count. */
static int schedule_order(const struct redist_plan_s *p, const redist__side *side, int is_send,
                          int *order)
{
    int n = side->nmsgs, first = 0, count = 0;
    while (first < n && side->msgs[first].peer < p->rank)
        first++;
    for (int i = 0; i < n; i++) {
        int m = is_send ? (first + i) % n : (first - 1 - i + 2 * n) % n;
        if (order != NULL && side->msgs[m].nelems > 0)
            order[count] = m;
        count += side->msgs[m].nelems > 0;
    }
    return count;
}

/* Slots of one side within `budget` bytes: no more than chunks to move, none larger than
   the largest message, at least one if anything moves, at most 64. */
static void slot_shape(const struct redist_plan_s *p, const redist__side *side, int64_t chunk,
                       int64_t budget, int *nslots, size_t *slot_bytes)
{
    int64_t need = 0, largest = 0;
    for (int i = 0; i < side->nmsgs; i++) {
        int64_t e = side->msgs[i].nelems;
        need += (e + chunk - 1) / chunk;
        largest = e > largest ? e : largest;
    }
    *slot_bytes = (size_t)(largest < chunk ? largest : chunk) * p->elsize;
    int64_t most = *slot_bytes > 0 ? budget / (int64_t)*slot_bytes : 0;
    most = most < need ? most : need;
    *nslots = need == 0 ? 0 : (int)(most < 1 ? 1 : most > 64 ? 64 : most);
}

/* The budget of each side: half the bound each when the rank both sends and receives. */
static int64_t side_budget(const struct redist_plan_s *p)
{
    return p->send.total_elems > 0 && p->recv.total_elems > 0 ? p->bound / 2 : p->bound;
}

int64_t redist__strip_send_bytes(const struct redist_plan_s *p)
{
    int n = 0;
    size_t bytes = 0;
    slot_shape(p, &p->send, redist__strip_chunk_elems(p->bound, p->elsize), side_budget(p), &n,
               &bytes);
    return (int64_t)n * (int64_t)bytes;
}

static int setup_side(struct redist_plan_s *p, strip *s, strip_side *d, const redist__side *side,
                      int is_send)
{
    d->order = redist__malloc(((size_t)side->nmsgs + 1) * sizeof *d->order);
    if (d->order == NULL)
        return REDIST_ERR_NOMEM;
    d->n = schedule_order(p, side, is_send, d->order);
    int levels = 1, remote = 0;
    for (int i = 0; i < side->nmsgs; i++) {
        levels = side->msgs[i].nlevels > levels ? side->msgs[i].nlevels : levels;
        remote |= !redist__shm_local(p, is_send, i);
    }
    slot_shape(p, side, s->chunk, side_budget(p), &d->nslots, &d->slot_bytes);
    d->levels = levels;
    size_t per = 3 * (size_t)levels, count = s->anyorder ? (size_t)d->n + 1 : 1;
    d->scratch = redist__malloc(per * count * sizeof *d->scratch);
    d->cursors = redist__calloc(count, sizeof *d->cursors);
    d->done = redist__calloc(count, sizeof *d->done);
    d->notes = redist__calloc(count * NOTE, sizeof *d->notes);
    d->offered = redist__calloc((size_t)(is_send ? p->send.nmsgs : 0) + 1, 1);
    if (!d->cursors || !d->done || !d->notes || !d->offered)
        return REDIST_ERR_NOMEM;
    d->slot_elems = redist__calloc((size_t)d->nslots + 1, sizeof *d->slot_elems);
    d->note = redist__calloc(((size_t)d->nslots + 1) * NOTE, sizeof *d->note);
    if (!d->scratch || !d->slot_elems || !d->note)
        return REDIST_ERR_NOMEM;
    size_t total = (size_t)d->nslots * d->slot_bytes;
    if (is_send && p->shm != NULL) /* the window, sized by redist__strip_send_bytes */
        d->slots = p->sendbuf;
    else if ((is_send || remote) && total > 0) /* receivers: data slots for other nodes only */
        d->slots = redist__plan_buffer(p, total);
    return d->slots != NULL || total == 0 || (!is_send && !remote) ? REDIST_SUCCESS
                                                                   : REDIST_ERR_NOMEM;
}

static void free_side(const struct redist_plan_s *p, strip_side *d, int is_send)
{
    if (!(is_send && p->shm != NULL))
        redist__free(d->slots);
    redist__free(d->slot_elems);
    redist__free(d->note);
    redist__free(d->order);
    redist__free(d->scratch);
    redist__free(d->cursors);
    redist__free(d->done);
    redist__free(d->notes);
    redist__free(d->offered);
}

void redist__strip_destroy(struct redist_plan_s *p)
{
    strip *s = p->algo_state;
    if (s == NULL)
        return;
    free_side(p, &s->send, 1);
    free_side(p, &s->recv, 0);
    redist__free(s->reqs);
    redist__free(s);
    p->algo_state = NULL;
}

int redist__strip_setup(struct redist_plan_s *p)
{
    strip *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->chunk = redist__strip_chunk_elems(p->bound, p->elsize);
    s->anyorder = p->shm != NULL && p->shm->one_node;
    int err = setup_side(p, s, &s->send, &p->send, 1);
    if (err == REDIST_SUCCESS)
        err = setup_side(p, s, &s->recv, &p->recv, 0);
    if (err != REDIST_SUCCESS)
        return err;
    s->nrecv = s->anyorder ? s->recv.n : s->recv.nslots;
    s->nreqs = 2 * (s->nrecv + s->send.nslots);
    s->reqs = redist__malloc(((size_t)s->nreqs + 1) * sizeof *s->reqs);
    return s->reqs != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

static int start_anyorder(struct redist_plan_s *p, strip *s);

int redist__strip_start(struct redist_plan_s *p)
{
    strip *s = p->algo_state;
    for (int i = 0; i < s->nreqs; i++)
        s->reqs[i] = MPI_REQUEST_NULL;
    s->send.cur = s->recv.cur = s->recv.post = 0;
    s->send.cur_done = s->recv.cur_done = s->recv.post_done = 0;
    s->recv.head = s->recv.used = 0;
    for (int i = 0; i < p->send.nmsgs; i++) /* the sender decides, per execute and message */
        s->send.offered[i] = redist__shm_local(p, 1, i) && redist__onecopy_offer(p, i);
    if (s->anyorder)
        return start_anyorder(p, s);
    if (s->send.n > 0)
        redist__cursor_init(&s->send.cursor, &p->send.msgs[s->send.order[0]], s->send.scratch);
    if (s->recv.n > 0)
        redist__cursor_init(&s->recv.cursor, &p->recv.msgs[s->recv.order[0]], s->recv.scratch);
    redist__copy_self(p);
    return REDIST_SUCCESS;
}

static int64_t chunk_of(const strip *s, int64_t nelems, int64_t done)
{
    return nelems - done < s->chunk ? nelems - done : s->chunk;
}

/* Receive side: post chunks (data, or a node peer's slot offset), the current message's
   first. A slot's acknowledgement send from its previous use completes before it is
   reused. */
static int post_receives(struct redist_plan_s *p, strip *s, int *moved)
{
    strip_side *d = &s->recv;
    MPI_Request *acks = recv_acks(s);
    while (d->used < d->nslots && d->post < d->n) {
        int i = d->order[d->post];
        const redist__msg *m = &p->recv.msgs[i];
        if (d->post_done == m->nelems) {
            d->post++;
            d->post_done = 0;
            continue;
        }
        int64_t n = chunk_of(s, m->nelems, d->post_done);
        int at = (d->head + d->used) % d->nslots, rc;
        if (MPI_Wait(&acks[at], MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "acknowledgement send failed");
        d->slot_elems[at] = n;
        if (redist__shm_local(p, 0, i))
            rc = MPI_Irecv(&d->note[at * NOTE], NOTE, MPI_INT64_T, m->peer, REDIST__TAG_DATA,
                           p->comm, &s->reqs[at]);
        else
            rc = MPI_Irecv(d->slots + (size_t)at * d->slot_bytes, (int)(n * (int64_t)p->elsize),
                           MPI_BYTE, m->peer, REDIST__TAG_DATA, p->comm, &s->reqs[at]);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Irecv from rank %d failed", m->peer);
        d->post_done += n;
        d->used++;
        *moved = 1;
    }
    return REDIST_SUCCESS;
}

/* A chunk of receive message i (elements [done, done + n)) into dst: copied once from the
   sender's src when its note says so (-1), else unpacked from the sender's window slot
   (note: its offset) or from this rank's slot `slot` (note NULL: another node). */
static int take_chunk(struct redist_plan_s *p, int i, const int64_t *note, const char *slot,
                      redist__cursor *cursor, int64_t done, int64_t n)
{
    if (note != NULL && note[0] < 0) {
        redist__cursor_skip(cursor, n);
        return p->dry ? REDIST_SUCCESS : redist__onecopy_copy_range(p, i, note + 1, done, done + n);
    }
    const char *data = note != NULL ? p->shm->recv_at[i] + note[0] : slot;
    if (!p->dry)
        redist__par_cursor_move(p, REDIST__UNPACK, cursor, data, p->cur_dst, n);
    else
        redist__cursor_skip(cursor, n);
    return REDIST_SUCCESS;
}

/* Receive side: unpack arrived chunks in order (a node peer's from its window slot, then
   acknowledged). */
static int unpack_arrived(struct redist_plan_s *p, strip *s, int *moved)
{
    strip_side *d = &s->recv;
    MPI_Request *acks = recv_acks(s);
    while (d->used > 0) {
        int at = d->head, flag = 0, i = d->order[d->cur];
        if (MPI_Test(&s->reqs[at], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "receive completion failed");
        if (!flag)
            return REDIST_SUCCESS;
        const redist__msg *m = &p->recv.msgs[i];
        int local = redist__shm_local(p, 0, i);
        if (local)
            redist__shm_sync(p);
        int err = take_chunk(p, i, local ? &d->note[at * NOTE] : NULL,
                             d->slots + (size_t)at * d->slot_bytes, &d->cursor, d->cur_done,
                             d->slot_elems[at]);
        if (err != REDIST_SUCCESS)
            return err;
        if (local && MPI_Isend(NULL, 0, MPI_BYTE, m->peer, REDIST__TAG_ACK, p->comm, &acks[at]) !=
                         MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "acknowledgement send failed");
        d->cur_done += d->slot_elems[at];
        d->head = (d->head + 1) % d->nslots;
        d->used--;
        *moved = 1;
        if (d->cur_done == m->nelems && ++d->cur < d->n) {
            d->cur_done = 0;
            redist__cursor_init(&d->cursor, &p->recv.msgs[d->order[d->cur]], d->scratch);
        }
    }
    return REDIST_SUCCESS;
}

/* *is_free: the slot's send and, for a node peer, its acknowledgement have completed. */
static int slot_is_free(MPI_Request *send, MPI_Request *ack, int *is_free)
{
    MPI_Request both[2] = {*send, *ack};
    if (MPI_Testall(2, both, is_free, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "send completion failed");
    *send = both[0], *ack = both[1];
    return REDIST_SUCCESS;
}

/* A chunk packed in slot `at` of the shared window: send the node peer its offset and expect
   the acknowledgement that frees the slot. Returns an MPI error code. */
static int post_offset(struct redist_plan_s *p, strip_side *d, int at, int peer,
                       const int64_t *offer, MPI_Request *send, MPI_Request *ack)
{
    int64_t *note = &d->note[at * NOTE];
    note[0] = offer != NULL ? -1 : (int64_t)at * (int64_t)d->slot_bytes;
    for (int k = 1; k < NOTE; k++)
        note[k] = offer != NULL ? offer[k - 1] : 0;
    redist__shm_sync(p); /* the packed chunk (or src) is visible before the note */
    int rc = MPI_Irecv(NULL, 0, MPI_BYTE, peer, REDIST__TAG_ACK, p->comm, ack);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(note, NOTE, MPI_INT64_T, peer, REDIST__TAG_DATA, p->comm, send);
    return rc;
}

/* The sender's chunk of message i: packed into the slot, or (one copy) only its cursor
   advanced; returns the offer to put in the note (NULL: packed). */
static const int64_t *give_chunk(struct redist_plan_s *p, const strip_side *d, int i,
                                 redist__cursor *cursor, char *slot, int64_t n)
{
    if (d->offered[i]) {
        redist__cursor_skip(cursor, n);
        return p->shm->note_out[i];
    }
    if (!p->dry)
        redist__par_cursor_move(p, REDIST__PACK, cursor, p->cur_src, slot, n);
    else
        redist__cursor_skip(cursor, n);
    return NULL;
}

/* Send side, in schedule order: pack the next chunk into free slot `at` and send it (or its
   offset). */
static int send_in_order(struct redist_plan_s *p, strip *s, int at, MPI_Request *reqs,
                         MPI_Request *acks)
{
    strip_side *d = &s->send;
    int i = d->order[d->cur], rc;
    const redist__msg *m = &p->send.msgs[i];
    int64_t n = chunk_of(s, m->nelems, d->cur_done);
    char *slot = d->slots + (size_t)at * d->slot_bytes;
    const int64_t *offer = give_chunk(p, d, i, &d->cursor, slot, n);
    if (redist__shm_local(p, 1, i)) {
        rc = post_offset(p, d, at, m->peer, offer, &reqs[at], &acks[at]);
    } else {
        rc = MPI_Isend(slot, (int)(n * (int64_t)p->elsize), MPI_BYTE, m->peer, REDIST__TAG_DATA,
                       p->comm, &reqs[at]);
    }
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "sending a chunk to rank %d failed", m->peer);
    if ((d->cur_done += n) == m->nelems && ++d->cur < d->n) {
        d->cur_done = 0;
        redist__cursor_init(&d->cursor, &p->send.msgs[d->order[d->cur]], d->scratch);
    }
    return REDIST_SUCCESS;
}

/* ---- any-order mode: every rank on one node ---------------------------------------------
   Chunks of a node peer cost the receiver no slot (it reads the sender's window), so it keeps
   one receive posted per message and unpacks whichever chunk comes; a sender fills its free
   slots round-robin over its messages. A receiver then never waits for one sender in
   particular, so a sender's slots are always freed: no order is needed to avoid deadlock. */

static int post_note(struct redist_plan_s *p, strip *s, int j)
{
    const redist__msg *m = &p->recv.msgs[s->recv.order[j]];
    if (MPI_Irecv(&s->recv.notes[(size_t)j * NOTE], NOTE, MPI_INT64_T, m->peer, REDIST__TAG_DATA,
                  p->comm, &s->reqs[j]) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Irecv from rank %d failed", m->peer);
    return REDIST_SUCCESS;
}

static int start_anyorder(struct redist_plan_s *p, strip *s)
{
    for (int side = 0; side < 2; side++) {
        strip_side *d = side ? &s->send : &s->recv;
        const redist__side *msgs = side ? &p->send : &p->recv;
        for (int j = 0; j < d->n; j++) {
            const redist__msg *m = &msgs->msgs[d->order[j]];
            int64_t *scratch = d->scratch + (size_t)j * 3 * (size_t)d->levels;
            redist__cursor_init(&d->cursors[j], m, scratch);
            d->done[j] = 0;
        }
    }
    s->send.next = 0;
    s->recv.cur = s->send.cur = 0; /* count of finished messages */
    for (int j = 0; j < s->recv.n; j++) {
        int err = post_note(p, s, j);
        if (err != REDIST_SUCCESS)
            return err;
    }
    redist__copy_self(p);
    return REDIST_SUCCESS;
}

/* Unpacks every chunk that has come, straight from its sender's window slot. */
static int unpack_any(struct redist_plan_s *p, strip *s, int *moved)
{
    strip_side *d = &s->recv;
    MPI_Request *acks = recv_acks(s);
    for (int j = 0; j < d->n; j++) {
        int i = d->order[j], flag = 0;
        const redist__msg *m = &p->recv.msgs[i];
        if (d->done[j] == m->nelems)
            continue;
        if (MPI_Test(&s->reqs[j], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "receive completion failed");
        if (!flag)
            continue;
        int64_t n = chunk_of(s, m->nelems, d->done[j]);
        redist__shm_sync(p);
        int err =
            take_chunk(p, i, &d->notes[(size_t)j * NOTE], NULL, &d->cursors[j], d->done[j], n);
        if (err != REDIST_SUCCESS)
            return err;
        if (MPI_Wait(&acks[j], MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            MPI_Isend(NULL, 0, MPI_BYTE, m->peer, REDIST__TAG_ACK, p->comm, &acks[j]) !=
                MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "acknowledgement send failed");
        *moved = 1;
        if ((d->done[j] += n) == m->nelems)
            d->cur++;
        else if (post_note(p, s, j) != REDIST_SUCCESS)
            return REDIST_ERR_MPI;
    }
    return REDIST_SUCCESS;
}

/* Fills free slot `at` with a chunk of the next message, round-robin over those with chunks
   left. */
static int send_any(struct redist_plan_s *p, strip *s, int at, MPI_Request *reqs, MPI_Request *acks)
{
    strip_side *d = &s->send;
    int j = d->next;
    while (d->done[j] == p->send.msgs[d->order[j]].nelems) /* some message has chunks */
        j = (j + 1) % d->n;
    d->next = (j + 1) % d->n;
    const redist__msg *m = &p->send.msgs[d->order[j]];
    int64_t n = chunk_of(s, m->nelems, d->done[j]);
    char *slot = d->slots + (size_t)at * d->slot_bytes;
    const int64_t *offer = give_chunk(p, d, d->order[j], &d->cursors[j], slot, n);
    if (post_offset(p, d, at, m->peer, offer, &reqs[at], &acks[at]) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "sending a chunk to rank %d failed", m->peer);
    if ((d->done[j] += n) == m->nelems)
        d->cur++;
    return REDIST_SUCCESS;
}

/* Send side: fill every free slot (its send and, for a node peer, its acknowledgement have
   completed) with the next chunk, in the mode's order. */
static int send_chunks(struct redist_plan_s *p, strip *s, int *moved)
{
    strip_side *d = &s->send;
    MPI_Request *reqs = s->reqs + s->nrecv, *acks = reqs + d->nslots;
    for (int at = 0; at < d->nslots && d->cur < d->n; at++) {
        int flag = 1;
        if (slot_is_free(&reqs[at], &acks[at], &flag) != REDIST_SUCCESS)
            return REDIST_ERR_MPI;
        if (!flag)
            continue;
        int err =
            s->anyorder ? send_any(p, s, at, reqs, acks) : send_in_order(p, s, at, reqs, acks);
        if (err != REDIST_SUCCESS)
            return err;
        *moved = 1;
    }
    return REDIST_SUCCESS;
}

int redist__strip_progress(struct redist_plan_s *p, int blocking, int *done)
{
    strip *s = p->algo_state;
    for (;;) {
        int moved = 0, err;
        if (s->anyorder) {
            err = unpack_any(p, s, &moved);
            if (err == REDIST_SUCCESS)
                err = send_chunks(p, s, &moved);
        } else {
            err = unpack_arrived(p, s, &moved);
            if (err == REDIST_SUCCESS)
                err = post_receives(p, s, &moved);
            if (err == REDIST_SUCCESS)
                err = send_chunks(p, s, &moved);
        }
        if (err != REDIST_SUCCESS)
            return err;
        if (s->recv.cur == s->recv.n && s->send.cur == s->send.n) { /* the last requests */
            int all = 1, n = s->nreqs - s->nrecv;
            MPI_Request *rest = s->reqs + s->nrecv;
            int rc = blocking ? MPI_Waitall(n, rest, MPI_STATUSES_IGNORE)
                              : MPI_Testall(n, rest, &all, MPI_STATUSES_IGNORE);
            if (rc != MPI_SUCCESS)
                return redist__fail(REDIST_ERR_MPI, "waiting for sends failed");
            *done = all;
            return REDIST_SUCCESS;
        }
        if (moved)
            continue;
        if (!blocking) {
            *done = 0;
            return REDIST_SUCCESS;
        }
        /* Nothing to do until some request completes. A receive completed here stays
           complete: MPI_Test on its (now null) request reports it again. */
        int idx = MPI_UNDEFINED;
        if (MPI_Waitany(s->nreqs, s->reqs, &idx, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "waiting for a chunk failed");
    }
}

double redist__strip_predict(const redist__case *c, const redist__machine *m, int64_t bound)
{
    double chunk = (double)redist__strip_chunk_elems(bound, c->t.elsize) * (double)c->t.elsize;
    double chunks = (double)c->t.max_bytes / chunk + (double)c->t.max_messages;
    return redist__cost_moves(c, m, REDIST_TRANSPORT_PACK) +
           m->startup * (double)c->t.max_messages + m->per_message * chunks;
}
