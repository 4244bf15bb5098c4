/* Bounded mode: the pattern's messages moved in chunks through at most `bound` bytes of
 * buffers per rank, [SD96]'s strip mining (§4: "at each redistribution step, p creates one
 * message and sends it"; computation and communication overlap). See engine.h.
 *
 * Every rank cuts every message into chunks of the same number of elements (a function of the
 * bound and the element size only, so both ends know each chunk's size) and keeps a few
 * chunk-sized slots per direction. A sender packs chunk i + 1 into a free slot while chunk i
 * is in flight; a receiver keeps receives posted in its slots, in the order the chunks come,
 * and unpacks each in turn into the destination array.
 *
 * Order, and why it cannot deadlock: each side handles its messages in the order of the shift
 * schedule, peer (rank + r) mod P for sends and (rank - r) mod P for receives, r = 1 .. P-1
 * (both ends of a pair see the same r). A receiver posts the chunks of its current message
 * first, and the next message's only once all of the current one's are posted. Take the
 * side (send or receive, of any rank) whose current step r is the smallest: its partner is at
 * step r too (a partner past r has finished their message), so the chunks it waits for are
 * being posted at the other end, and it advances. The self part is copied straight from the
 * source array to the destination, with no buffer.
 */
#include "exec/engine.h"

#include <stdlib.h>
#include <string.h>

typedef struct strip_side {
    int n;             /* messages, in schedule order */
    int *order;        /* message indices */
    int cur;           /* send: message being packed; receive: message being unpacked */
    int64_t cur_done;  /* its elements packed (send) or unpacked (receive) */
    int post;          /* receive: message whose chunks are being posted */
    int64_t post_done; /* its elements posted */
    redist__cursor cursor;
    int64_t *scratch; /* the cursor's levels */
    int nslots;
    char **slot;         /* [nslots] chunk buffers */
    int64_t *slot_elems; /* [nslots] elements of the chunk in each slot */
    int head, used;      /* receive: FIFO ring of posted slots */
    int *complete;       /* receive: slot's request completed (seen by Waitany) */
} strip_side;

typedef struct strip {
    int64_t chunk; /* elements per chunk (the same on every rank) */
    strip_side send, recv;
    MPI_Request *reqs; /* receive slots, then send slots */
} strip;

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
        if (side->msgs[m].nelems > 0)
            order[count++] = m;
    }
    return count;
}

static int setup_side(struct redist_plan_s *p, strip *s, strip_side *d, const redist__side *side,
                      int is_send, int64_t budget)
{
    d->order = malloc(((size_t)side->nmsgs + 1) * sizeof *d->order);
    if (d->order == NULL)
        return REDIST_ERR_NOMEM;
    d->n = schedule_order(p, side, is_send, d->order);
    int levels = 1;
    for (int i = 0; i < side->nmsgs; i++)
        levels = side->msgs[i].nlevels > levels ? side->msgs[i].nlevels : levels;
    d->scratch = malloc(3 * (size_t)levels * sizeof *d->scratch);
    /* No more slots than chunks to move, none larger than the largest message. */
    int64_t need = 0, largest = 0;
    for (int i = 0; i < d->n; i++) {
        int64_t e = side->msgs[d->order[i]].nelems;
        need += (e + s->chunk - 1) / s->chunk;
        largest = e > largest ? e : largest;
    }
    size_t bytes = (size_t)(largest < s->chunk ? largest : s->chunk) * p->elsize;
    int64_t most = bytes > 0 ? budget / (int64_t)bytes : 0;
    most = most < need ? most : need;
    d->nslots = d->n == 0 ? 0 : (int)(most < 1 ? 1 : most > 64 ? 64 : most);
    d->slot = calloc((size_t)d->nslots + 1, sizeof *d->slot);
    d->slot_elems = calloc((size_t)d->nslots + 1, sizeof *d->slot_elems);
    d->complete = calloc((size_t)d->nslots + 1, sizeof *d->complete);
    if (!d->scratch || !d->slot || !d->slot_elems || !d->complete)
        return REDIST_ERR_NOMEM;
    for (int i = 0; i < d->nslots; i++)
        if ((d->slot[i] = redist__plan_buffer(p, bytes)) == NULL)
            return REDIST_ERR_NOMEM;
    return REDIST_SUCCESS;
}

static void free_side(strip_side *d)
{
    for (int i = 0; d->slot != NULL && i < d->nslots; i++)
        free(d->slot[i]);
    free(d->slot);
    free(d->slot_elems);
    free(d->complete);
    free(d->order);
    free(d->scratch);
}

void redist__strip_destroy(struct redist_plan_s *p)
{
    strip *s = p->algo_state;
    if (s == NULL)
        return;
    free_side(&s->send);
    free_side(&s->recv);
    free(s->reqs);
    free(s);
    p->algo_state = NULL;
}

int redist__strip_setup(struct redist_plan_s *p)
{
    strip *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->chunk = redist__strip_chunk_elems(p->bound, p->elsize);
    int both = p->send.nmsgs > 0 && p->recv.nmsgs > 0;
    int64_t half = both ? p->bound / 2 : p->bound;
    int err = setup_side(p, s, &s->send, &p->send, 1, half);
    if (err == REDIST_SUCCESS)
        err = setup_side(p, s, &s->recv, &p->recv, 0, half);
    if (err != REDIST_SUCCESS)
        return err;
    s->reqs = malloc(((size_t)s->recv.nslots + (size_t)s->send.nslots + 1) * sizeof *s->reqs);
    return s->reqs != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

int redist__strip_start(struct redist_plan_s *p)
{
    strip *s = p->algo_state;
    for (int i = 0; i < s->recv.nslots + s->send.nslots; i++)
        s->reqs[i] = MPI_REQUEST_NULL;
    s->send.cur = s->recv.cur = s->recv.post = 0;
    s->send.cur_done = s->recv.cur_done = s->recv.post_done = 0;
    s->recv.head = s->recv.used = 0;
    if (s->send.n > 0)
        redist__cursor_init(&s->send.cursor, &p->send.msgs[s->send.order[0]], s->send.scratch);
    if (s->recv.n > 0)
        redist__cursor_init(&s->recv.cursor, &p->recv.msgs[s->recv.order[0]], s->recv.scratch);
    redist__copy_self(p);
    return REDIST_SUCCESS;
}

/* Receive side: post chunks into free slots, the current message's first. */
static int post_receives(struct redist_plan_s *p, strip *s, int *moved)
{
    strip_side *d = &s->recv;
    while (d->used < d->nslots && d->post < d->n) {
        const redist__msg *m = &p->recv.msgs[d->order[d->post]];
        if (d->post_done == m->nelems) {
            d->post++;
            d->post_done = 0;
            continue;
        }
        int64_t n = m->nelems - d->post_done < s->chunk ? m->nelems - d->post_done : s->chunk;
        int at = (d->head + d->used) % d->nslots;
        d->slot_elems[at] = n;
        d->complete[at] = 0;
        if (MPI_Irecv(d->slot[at], (int)(n * (int64_t)p->elsize), MPI_BYTE, m->peer,
                      REDIST__TAG_DATA, p->comm, &s->reqs[at]) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Irecv from rank %d failed", m->peer);
        d->post_done += n;
        d->used++;
        *moved = 1;
    }
    return REDIST_SUCCESS;
}

/* Receive side: unpack completed chunks in order. */
static int unpack_arrived(struct redist_plan_s *p, strip *s, int *moved)
{
    strip_side *d = &s->recv;
    while (d->used > 0) {
        int at = d->head, flag = d->complete[at];
        if (!flag && MPI_Test(&s->reqs[at], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "receive completion failed");
        if (!flag)
            return REDIST_SUCCESS;
        const redist__msg *m = &p->recv.msgs[d->order[d->cur]];
        if (!p->dry)
            redist__cursor_unpack(&d->cursor, d->slot[at], p->cur_dst, d->slot_elems[at],
                                  p->elsize);
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

/* Send side: pack the next chunks into free slots and send them. */
static int send_chunks(struct redist_plan_s *p, strip *s, int *moved)
{
    strip_side *d = &s->send;
    MPI_Request *reqs = s->reqs + s->recv.nslots;
    for (int at = 0; at < d->nslots && d->cur < d->n; at++) {
        int flag = 1;
        if (reqs[at] != MPI_REQUEST_NULL &&
            MPI_Test(&reqs[at], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "send completion failed");
        if (!flag)
            continue;
        const redist__msg *m = &p->send.msgs[d->order[d->cur]];
        int64_t n = m->nelems - d->cur_done < s->chunk ? m->nelems - d->cur_done : s->chunk;
        if (!p->dry)
            redist__cursor_pack(&d->cursor, p->cur_src, d->slot[at], n, p->elsize);
        if (MPI_Isend(d->slot[at], (int)(n * (int64_t)p->elsize), MPI_BYTE, m->peer,
                      REDIST__TAG_DATA, p->comm, &reqs[at]) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Isend to rank %d failed", m->peer);
        *moved = 1;
        if ((d->cur_done += n) == m->nelems && ++d->cur < d->n) {
            d->cur_done = 0;
            redist__cursor_init(&d->cursor, &p->send.msgs[d->order[d->cur]], d->scratch);
        }
    }
    return REDIST_SUCCESS;
}

/* Waits for any request; a receive that completes out of order is remembered. */
static int wait_any(strip *s)
{
    int n = s->recv.nslots + s->send.nslots, idx = MPI_UNDEFINED;
    if (MPI_Waitany(n, s->reqs, &idx, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "waiting for a chunk failed");
    if (idx != MPI_UNDEFINED && idx < s->recv.nslots)
        s->recv.complete[idx] = 1;
    return REDIST_SUCCESS;
}

int redist__strip_progress(struct redist_plan_s *p, int blocking, int *done)
{
    strip *s = p->algo_state;
    for (;;) {
        int moved = 0;
        int err = unpack_arrived(p, s, &moved);
        if (err == REDIST_SUCCESS)
            err = post_receives(p, s, &moved);
        if (err == REDIST_SUCCESS)
            err = send_chunks(p, s, &moved);
        if (err != REDIST_SUCCESS)
            return err;
        if (s->recv.cur == s->recv.n && s->send.cur == s->send.n) { /* the last sends */
            int all = 1, n = s->send.nslots;
            MPI_Request *reqs = s->reqs + s->recv.nslots;
            int rc = blocking ? MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE)
                              : MPI_Testall(n, reqs, &all, MPI_STATUSES_IGNORE);
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
        if ((err = wait_any(s)) != REDIST_SUCCESS)
            return err;
    }
}

double redist__strip_predict(const redist__case *c, const redist__machine *m, int64_t bound)
{
    double chunk = (double)redist__strip_chunk_elems(bound, c->t.elsize) * (double)c->t.elsize;
    double chunks = (double)c->t.max_bytes / chunk + (double)c->t.max_messages;
    return redist__cost_moves(c, m, REDIST_TRANSPORT_PACK) +
           m->startup * (double)c->t.max_messages + m->per_message * chunks;
}
