/* Overlap inside a rank: while the calling thread waits in MPI for the
 * next message, the other threads of the plan's team unpack the messages that have
 * arrived, and copy the self part.
 *
 * Without it, a threaded rank does one thing at a time: the team copies the self part, then
 * every thread waits while the calling thread sits in MPI_Waitsome, then the team unpacks
 * the message that came, then waits again. Whatever MPI spends on a message (the wire, or
 * on one node the MPI library's own single-threaded copy) is time in which the rank's other
 * threads have nothing to do. Here one team lives through the whole receive: thread 0 (the
 * calling thread, the only one that calls MPI) waits for arrivals and publishes each
 * arrived message as parts; the others take parts as they are published; thread 0 joins
 * them when nothing is left to receive. With one team for the whole receive, a message
 * costs no team start either.
 *
 * Work is handed over through a list of items written by thread 0 only and published by an
 * atomic count (release/acquire): an item is (message, part, parts), index/copy.c's parts,
 * disjoint destination bytes. Items are claimed by compare-and-swap on a second count, so
 * each is done exactly once. Nothing is allocated during an execute: the list has room for
 * every message's parts (setup). A team of one (inside the user's own parallel region, where
 * nested parallelism is inactive) does the same work in the same order, alone. */
#include "exec/engine.h"

#include <sched.h>
#include <stdatomic.h>

#ifdef _OPENMP
#include <omp.h>
#endif

enum { SELF = -1 }; /* an item's message: the self part */

typedef struct item {
    int msg; /* receive message index, or SELF */
    int part, parts;
} item;

struct redist__overlap {
    item *items;
    int capacity;
    int nitems;           /* written by thread 0 only */
    atomic_int published; /* items [0, published) may be taken */
    atomic_int next;      /* the next item not taken */
    atomic_int closed;    /* 1: nothing more will be published */
};

int redist__overlap_create(const struct redist_plan_s *p, redist__overlap **out)
{
    *out = NULL;
    if (p->threads < 2 || p->transport != REDIST_TRANSPORT_PACK || p->device != NULL)
        return REDIST_SUCCESS;
    redist__overlap *o = redist__calloc(1, sizeof *o);
    if (o == NULL)
        return REDIST_ERR_NOMEM;
    *out = o;
    int64_t cap = ((int64_t)p->recv.nmsgs + 1) * p->threads;
    if (cap > INT32_MAX)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "too many messages to overlap");
    o->capacity = (int)cap;
    o->items = redist__malloc((size_t)cap * sizeof *o->items);
    return o->items != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

void redist__overlap_free(redist__overlap **o)
{
    if (*o == NULL)
        return;
    redist__free((*o)->items);
    redist__free(*o);
    *o = NULL;
}

int redist__overlap_usable(const struct redist_plan_s *p, const redist__overlap *o)
{
    /* o exists only with threads >= 2, so with OpenMP; one-copy messages (onecopy.c) are
       read by the calling thread in finish_recv, not split into the team's parts */
    return o != NULL && !p->dry && (p->shm == NULL || p->shm->one == NULL);
}

/* Thread 0: the parts of one move, published at once. */
static void publish(const struct redist_plan_s *p, redist__overlap *o, int msg)
{
    const redist__msg *m = msg == SELF ? p->self : &p->recv.msgs[msg];
    int parts = redist__team_size(p, m->nelems * (int64_t)p->elsize);
    for (int k = 0; k < parts; k++) /* room: parts <= threads (setup) */
        o->items[o->nitems++] = (item){msg, k, parts};
    atomic_store_explicit(&o->published, o->nitems, memory_order_release);
}

static void do_item(const struct redist_plan_s *p, item it)
{
    if (it.msg == SELF) {
        redist__move_part(p->self, REDIST__COPY, p->cur_src, p->cur_dst, p->elsize, p->scale,
                          it.part, it.parts);
        return;
    }
    const redist__msg *m = &p->recv.msgs[it.msg];
    const char *data = redist__shm_local(p, 0, it.msg)
                           ? p->shm->recv_at[it.msg]
                           : p->recvbuf + m->offset * (int64_t)p->elsize;
    redist__move_part(m, REDIST__UNPACK, data, p->cur_dst, p->elsize, p->scale, it.part, it.parts);
}

/* Takes and does published items until the list is closed and empty. */
static void work(const struct redist_plan_s *p, redist__overlap *o)
{
    for (;;) {
        int k = atomic_load_explicit(&o->next, memory_order_relaxed);
        if (k < atomic_load_explicit(&o->published, memory_order_acquire)) {
            if (atomic_compare_exchange_weak(&o->next, &k, k + 1))
                do_item(p, o->items[k]);
            continue;
        }
        if (atomic_load_explicit(&o->closed, memory_order_acquire) &&
            k >= atomic_load_explicit(&o->published, memory_order_acquire))
            return;
        sched_yield(); /* more threads than cores (tests): let thread 0 and MPI run */
    }
}

/* Thread 0: waits for the receive requests, publishing each message whose chunks have all
   arrived; returns the first MPI error (the list is closed either way). */
static int receive(struct redist_plan_s *p, redist__overlap *o, redist__arrivals *a)
{
    int err = REDIST_SUCCESS;
    while (*a->recvs_left > 0) {
        int count = 0;
        if (MPI_Waitsome(a->nreqs, a->reqs, &count, a->indices, MPI_STATUSES_IGNORE) !=
            MPI_SUCCESS) {
            err = redist__fail(REDIST_ERR_MPI, "waiting for receives failed");
            break;
        }
        if (count == MPI_UNDEFINED)
            break;
        for (int j = 0; j < count; j++) {
            int m = a->msg_of_req[a->indices[j]];
            if (--a->chunks_left[m] > 0)
                continue;
            if (redist__shm_local(p, 0, m))
                redist__shm_sync(p); /* the peer's packed data is visible */
            publish(p, o, m);
            a->arrived[a->narrived++] = m;
            (*a->recvs_left)--;
        }
    }
    atomic_store_explicit(&o->closed, 1, memory_order_release);
    return err;
}

int redist__overlap_receive(struct redist_plan_s *p, redist__overlap *o, int with_self,
                            redist__arrivals *a)
{
    o->nitems = 0;
    atomic_store(&o->published, 0);
    atomic_store(&o->next, 0);
    atomic_store(&o->closed, 0);
    if (with_self && p->self != NULL)
        publish(p, o, SELF);
    int err = REDIST_SUCCESS;
#ifdef _OPENMP
#pragma omp parallel num_threads(p->threads)
    {
        if (omp_get_thread_num() == 0)
            err = receive(p, o, a);
        work(p, o);
    }
#else
    err = receive(p, o, a);
    work(p, o);
#endif
    return err;
}
