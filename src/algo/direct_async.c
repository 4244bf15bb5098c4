/* direct-async: post every receive, then pack and send each message, copy the self part,
 * and unpack each message as soon as it arrives.
 *
 * [LBP96] §2 (Walker et al.'s "unsynchronized scheme") and [TCR96] §3 (asynchronous
 * receive: unpack in arrival order). One round; each rank sends its m_s messages and
 * receives its m_r, all in flight at once. Cost: the first message pays T_d and each further
 * one the smaller per-message cost of messages that overlap, M = max(m_s, m_r):
 *   h (T_d + (M - 1) t_msg) + the moves of the transport (redist__cost_moves: self part,
 *   packing or datatype pieces, bytes),
 * h = 2 through the shared-memory window (a notification, then an acknowledgement, per
 * message: exec/shm.c), else 1.
 * Buffers: the whole send and receive volume, allocated at plan time; in bounded mode
 * (max_buffer_bytes, or buffers that would not fit) the strip engine runs instead (strip.c).
 * With threads (options.threads >= 2), a blocking wait overlaps: the self copy and the
 * unpacking of arrived messages run on the team while the calling thread waits in MPI for
 * the others (exec/overlap.c); the self copy is then left from start to that wait.
 * Device memory: every pack is queued on the GPU at once, and each message is sent as soon
 * as its copy off the device is done, while the next one's runs (exec/staging.c); arrived
 * messages' copies onto the device and the self copy run on while the others arrive.
 */
#include "algo/algo.h"
#include "exec/engine.h"

#include <stdlib.h>

typedef struct state {
    /* Receive chunks [0, nrecv_reqs), send chunks, then acknowledgement receives and sends
       of the shared-memory transport ([ack_first, ack_first + nacks)). */
    MPI_Request *reqs;
    int *msg_of_req;  /* receive message of each receive request */
    int *chunks_left; /* per receive message */
    int *indices;     /* scratch for MPI_Waitsome */
    int nrecv_reqs, nsend_reqs, ack_first, nacks;
    int recvs_left;           /* receive messages not yet unpacked */
    redist__overlap *overlap; /* threads >= 2 (else NULL) */
    int *arrived;             /* the overlap's messages, for their acknowledgements */
    int self_pending;         /* start left the self copy to progress (SELF_*) */
    int *ready, nready;       /* one-copy messages arrived, not yet copied (onecopy.c) */
    int local_left;           /* receive messages from node peers not yet arrived */
} state;

/* Why start left the self copy: the overlap's team copies it while the calling thread
   waits, or it is copied together with the node peers' messages that are copied once. */
enum { SELF_DONE, SELF_OVERLAP, SELF_WITH_COPIES };

void redist__direct_async_destroy(struct redist_plan_s *p)
{
    if (p->bounded) {
        redist__strip_destroy(p);
        return;
    }
    state *s = p->algo_state;
    if (s == NULL)
        return;
    redist__free(s->reqs);
    redist__free(s->msg_of_req);
    redist__free(s->chunks_left);
    redist__free(s->indices);
    redist__free(s->arrived);
    redist__free(s->ready);
    redist__overlap_free(&s->overlap);
    redist__free(s);
    p->algo_state = NULL;
}

int redist__direct_async_setup(struct redist_plan_s *p)
{
    if (p->bounded)
        return redist__strip_setup(p);
    state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int64_t nr = redist__side_requests(p, 0), ns = redist__side_requests(p, 1);
    int64_t nacks = p->shm ? p->send.nmsgs + p->recv.nmsgs : 0;
    if (nr + ns + nacks > INT32_MAX)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "too many requests");
    s->nrecv_reqs = (int)nr;
    s->nsend_reqs = (int)ns;
    s->ack_first = (int)(nr + ns);
    s->reqs = redist__malloc((size_t)(nr + ns + nacks + 1) * sizeof *s->reqs);
    s->msg_of_req = redist__malloc((size_t)(nr + 1) * sizeof *s->msg_of_req);
    s->chunks_left = redist__malloc((size_t)(p->recv.nmsgs + 1) * sizeof *s->chunks_left);
    s->indices = redist__malloc((size_t)(nr + 1) * sizeof *s->indices);
    s->arrived = redist__malloc((size_t)(p->recv.nmsgs + 1) * sizeof *s->arrived);
    s->ready = redist__malloc((size_t)(p->recv.nmsgs + 1) * sizeof *s->ready);
    if (!s->reqs || !s->msg_of_req || !s->chunks_left || !s->indices || !s->arrived || !s->ready)
        return REDIST_ERR_NOMEM;
    return redist__overlap_create(p, &s->overlap);
}

/* Whether the self part waits to be copied with the node peers' one-copy messages: when
   this execute's src lies in an allocation (its peers' likely do too) and peers on the node
   send to this rank. */
static int self_with_copies(const struct redist_plan_s *p, const state *s)
{
    return p->shm != NULL && p->shm->one != NULL && p->held[0] != NULL && s->local_left > 0 &&
           p->self != NULL && p->self->nelems > 0 && !p->dry;
}

static int start(struct redist_plan_s *p)
{
    return redist__direct_async_start_from(p, 0);
}

int redist__direct_async_start_from(struct redist_plan_s *p, int first)
{
    if (p->bounded) /* the shift schedule's order, whatever `first` */
        return redist__strip_start(p);
    state *s = p->algo_state;
    int k = 0;
    s->nready = s->local_left = 0;
    for (int i = 0; i < p->recv.nmsgs; i++) {
        s->local_left += redist__shm_local(p, 0, i);
        int n = redist__post_recv(p, i, s->reqs + k);
        if (n < 0)
            return n;
        s->chunks_left[i] = n;
        for (int c = 0; c < n; c++)
            s->msg_of_req[k + c] = i;
        k += n;
    }
    s->recvs_left = p->recv.nmsgs;
    s->nacks = 0;
    for (int i = 0; i < p->send.nmsgs; i++) {
        int n = redist__post_ack_recv(p, i, s->reqs + s->ack_first + s->nacks);
        if (n < 0)
            return n;
        s->nacks += n;
    }
    int recv_reqs = k, ahead = redist__pack_ahead(p, first); /* device plans: pipelined */
    for (int j = 0; j < p->send.nmsgs; j++) {
        int i = (first + j) % p->send.nmsgs;
        int n = ahead ? redist__send_packed(p, i, s->reqs + k)
                      : redist__pack_and_send(p, i, s->reqs + k);
        if (n < 0) { /* MPI failed: nothing of this execute may still write the arrays */
            redist__abandon_requests(s->reqs, recv_reqs, s->reqs + recv_reqs, k - recv_reqs);
            redist__abandon_requests(s->reqs + s->ack_first, s->nacks, NULL, 0); /* receives */
            return n;
        }
        k += n;
    }
    s->self_pending = self_with_copies(p, s) ? SELF_WITH_COPIES
                      : s->overlap != NULL   ? SELF_OVERLAP
                                             : SELF_DONE;
    if (s->self_pending == SELF_DONE)
        redist__copy_self(p);
    return REDIST_SUCCESS;
}

/* The node peers' messages copied once so far, together (and the self part, if it waits for
   them); their acknowledgements posted. */
static int copy_ready(struct redist_plan_s *p, state *s)
{
    int with_self = s->self_pending == SELF_WITH_COPIES;
    int n = redist__finish_recvs_once(p, s->ready, s->nready, with_self,
                                      s->reqs + s->ack_first + s->nacks);
    if (n < 0)
        return n;
    s->nacks += n;
    s->nready = 0;
    if (with_self)
        s->self_pending = SELF_DONE;
    return REDIST_SUCCESS;
}

static int unpack_arrivals(struct redist_plan_s *p, state *s, int count)
{
    for (int j = 0; j < count; j++) {
        int m = s->msg_of_req[s->indices[j]];
        if (--s->chunks_left[m] > 0)
            continue;
        s->local_left -= redist__shm_local(p, 0, m);
        if (redist__copies_once(p, m)) { /* copied with the others that come (copy_ready) */
            s->ready[s->nready++] = m;
            s->recvs_left--;
            continue;
        }
        int n = redist__finish_recv(p, m, s->reqs + s->ack_first + s->nacks);
        if (n < 0)
            return n;
        s->nacks += n;
        s->recvs_left--;
    }
    return REDIST_SUCCESS;
}

/* A blocking wait with threads: everything still due, unpacked by the team as it arrives
   (overlap.c); then the acknowledgements of the node's messages. */
static int receive_overlapped(struct redist_plan_s *p, state *s)
{
    redist__arrivals a = {s->reqs,    s->nrecv_reqs,  s->msg_of_req, s->chunks_left,
                          s->indices, &s->recvs_left, s->arrived,    0};
    int err = redist__overlap_receive(p, s->overlap, s->self_pending, &a);
    s->self_pending = 0;
    for (int j = 0; j < a.narrived && err == REDIST_SUCCESS; j++) {
        int n = redist__send_ack(p, a.arrived[j], s->reqs + s->ack_first + s->nacks);
        if (n < 0)
            return n;
        s->nacks += n;
    }
    return err;
}

int redist__direct_async_progress(struct redist_plan_s *p, int blocking, int *done)
{
    if (p->bounded)
        return redist__strip_progress(p, blocking, done);
    state *s = p->algo_state;
    if (blocking && s->recvs_left > 0 && redist__overlap_usable(p, s->overlap)) {
        int err = receive_overlapped(p, s);
        if (err != REDIST_SUCCESS)
            return err;
    }
    if (s->self_pending == SELF_OVERLAP) { /* no overlap (nothing to receive, a test, dry) */
        redist__copy_self(p);
        s->self_pending = SELF_DONE;
    }
    while (s->recvs_left > 0) {
        int count = 0, rc;
        if (blocking)
            rc = MPI_Waitsome(s->nrecv_reqs, s->reqs, &count, s->indices, MPI_STATUSES_IGNORE);
        else
            rc = MPI_Testsome(s->nrecv_reqs, s->reqs, &count, s->indices, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "waiting for receives failed");
        if (count == MPI_UNDEFINED || (count == 0 && !blocking))
            break;
        int err = unpack_arrivals(p, s, count);
        /* a blocking wait copies once all the node's messages are in: their notifications
           come at the senders' start, whatever this rank does, so the wait cannot hang */
        if (err == REDIST_SUCCESS && s->nready > 0 && (!blocking || s->local_left == 0))
            err = copy_ready(p, s);
        if (err != REDIST_SUCCESS)
            return err;
    }
    int err = s->nready > 0 ? copy_ready(p, s) : REDIST_SUCCESS;
    if (err != REDIST_SUCCESS)
        return err;
    if (s->self_pending == SELF_WITH_COPIES && s->recvs_left == 0) { /* no peer copied once */
        redist__copy_self(p);
        s->self_pending = SELF_DONE;
    }
    int rest_done = 0;
    if (s->recvs_left == 0) { /* sends, and the acknowledgements of the shared buffers */
        int n = s->ack_first - s->nrecv_reqs + s->nacks;
        int rc = blocking
                     ? MPI_Waitall(n, s->reqs + s->nrecv_reqs, MPI_STATUSES_IGNORE)
                     : MPI_Testall(n, s->reqs + s->nrecv_reqs, &rest_done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "waiting for sends failed");
        rest_done = rest_done || blocking;
    }
    *done = s->recvs_left == 0 && rest_done;
    return REDIST_SUCCESS;
}

double redist__predict_all_in_flight(const redist__case *c, const redist__machine *m, int transport,
                                     double trips)
{
    double msgs = (double)c->t.max_messages;
    return redist__cost_moves_via(c, m, transport, trips > 1) +
           (msgs > 0 ? trips * (m->startup + m->per_message * (msgs - 1)) : 0);
}

double redist__shm_trips(const redist__machine *m, const redist_options *opt, int transport)
{
    return transport == REDIST_TRANSPORT_PACK && m->shared_node && opt->shared_memory ? 2.0 : 1.0;
}

double redist__direct_async_predict(const redist__case *c, const redist__machine *m,
                                    const redist_options *opt, int transport)
{
    if (opt->max_buffer_bytes > 0)
        return redist__strip_predict(c, m, opt->max_buffer_bytes);
    return redist__predict_all_in_flight(c, m, transport, redist__shm_trips(m, opt, transport));
}

const redist__algorithm redist__algo_direct_async = {
    .name = "direct-async",
    .applicable = redist__always_applicable,
    .steps = redist__one_step,
    .predict = redist__direct_async_predict,
    .transports = REDIST__T_PACK | REDIST__T_DATATYPE,
    .setup = redist__direct_async_setup,
    .start = start,
    .progress = redist__direct_async_progress,
    .destroy = redist__direct_async_destroy,
    .uses_shm = 1,
    .packs = 1,
    .device = 1,
    .gpu_mpi = 1,
    .bounded = 1,
};
