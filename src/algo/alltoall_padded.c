/* alltoall-padded: the MPI_Alltoall baseline of paper 000 §5 (Fig. 18). Every message is
 * padded to the largest message of the redistribution (over all ranks), so that one
 * MPI_Alltoall (nonblocking: MPI_Ialltoall) with equal counts moves everything, dummy data
 * included; the self part is copied directly. One collective step; each rank sends P - 1
 * messages of the padded size whatever the pattern. NOT_APPLICABLE when the padded message
 * exceeds INT_MAX bytes.
 *
 * With the option alltoall_algorithm, the equal-count exchange is paper 002's personalized
 * all-to-all instead (src/coll/alltoall.c: ring, mesh, hypercube = Bruck, pairwise), on
 * point-to-point messages over the plan's communicator. That exchange is blocking: start
 * packs, the exchange and the unpacking run in the first redist_test/redist_wait. Its
 * messages can hold up to P - 1 blocks (ring), so it needs P x slot <= INT_MAX bytes.
 */
#include "coll/coll.h"
#include "exec/engine.h"

#include <stdlib.h>

typedef struct state {
    int64_t slot; /* bytes per peer */
    char *sendbuf, *recvbuf;
    MPI_Request req;
    int coll; /* paper 002's algorithm (coll.h index), -1 for MPI_Ialltoall */
    char *ws; /* its workspace */
} state;

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    free(s->sendbuf);
    free(s->recvbuf);
    free(s->ws);
    free(s);
    p->algo_state = NULL;
}

static int64_t slot_bytes(const redist__summary *s)
{
    return s->max_count * (int64_t)s->elsize;
}

static int applicable(const redist__summary *s)
{
    int64_t largest = slot_bytes(s) * (s->alltoall_algo < 0 ? 1 : s->comm_size);
    return largest <= REDIST__MAX_INT_COUNT ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static int setup(struct redist_plan_s *p)
{
    state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->slot = slot_bytes(&p->summary);
    s->sendbuf = redist__plan_buffer(p, (size_t)(s->slot * p->size) + 1);
    s->recvbuf = s->sendbuf ? redist__plan_buffer(p, (size_t)(s->slot * p->size) + 1) : NULL;
    s->req = MPI_REQUEST_NULL;
    s->coll = p->summary.alltoall_algo;
    int64_t ws = s->coll < 0 ? 0 : redist__coll_alltoall_workspace(s->coll, p->size, s->slot);
    s->ws = ws > 0 && s->recvbuf ? redist__plan_buffer(p, (size_t)ws) : NULL;
    return s->sendbuf && s->recvbuf && (ws == 0 || s->ws) ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    for (int i = 0; !p->dry && i < p->send.nmsgs; i++) {
        const redist__msg *m = &p->send.msgs[i];
        redist__pack(m, p->cur_src, s->sendbuf + m->peer * s->slot, p->elsize);
    }
    redist__copy_self(p);
    if (s->coll >= 0) /* paper 002's exchange runs in progress() */
        return REDIST_SUCCESS;
    if (MPI_Ialltoall(s->sendbuf, (int)s->slot, MPI_BYTE, s->recvbuf, (int)s->slot, MPI_BYTE,
                      p->comm, &s->req) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Ialltoall failed");
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    int err = REDIST_SUCCESS;
    if (s->coll >= 0) { /* skipped when no rank sends anything (an identical layout) */
        if (p->summary.max_messages > 0)
            err = redist__coll_alltoall_run(s->coll, s->sendbuf, s->recvbuf, s->slot, p->rank,
                                            p->size, s->ws, p->comm);
        *done = 1;
    } else {
        err = redist__progress_request(&s->req, blocking, done, "MPI_Ialltoall");
    }
    for (int i = 0; err == REDIST_SUCCESS && *done && !p->dry && i < p->recv.nmsgs; i++) {
        const redist__msg *m = &p->recv.msgs[i];
        redist__unpack(m, s->recvbuf + m->peer * s->slot, p->cur_dst, p->elsize);
    }
    return err;
}

/* Messages and bytes each rank sends (and receives): MPI_Ialltoall sends a padded message
   to every other rank; paper 002's algorithms combine blocks into fewer, larger messages. */
static void traffic(const redist__summary *s, int64_t *msgs, int64_t *bytes)
{
    int P = s->comm_size;
    if (s->alltoall_algo >= 0 && s->max_messages == 0) { /* nothing to exchange: skipped */
        *msgs = *bytes = 0;
        return;
    }
    if (s->alltoall_algo >= 0) {
        redist__coll_alltoall_traffic(s->alltoall_algo, P, slot_bytes(s), msgs, bytes);
        return;
    }
    *msgs = P - 1;
    *bytes = (P - 1) * slot_bytes(s);
}

/* One collective step for MPI_Ialltoall; one step per message for paper 002's exchanges. */
static int steps(const redist__summary *s)
{
    int64_t msgs, bytes;
    traffic(s, &msgs, &bytes);
    return s->alltoall_algo < 0 ? redist__one_step(s) : (int)msgs;
}

static void local_stats(const struct redist_plan_s *p, redist_stats *st)
{
    traffic(&p->summary, &st->messages_sent, &st->bytes_sent);
    st->messages_received = st->messages_sent;
    st->bytes_received = st->bytes_sent;
}

static int explain(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                   const redist__summary *s, int64_t out[4])
{
    (void)src, (void)dst;
    traffic(s, &out[0], &out[1]);
    out[2] = s->comm_size * out[0];
    out[3] = s->comm_size * out[1];
    return REDIST_SUCCESS;
}

const redist__algorithm redist__algo_alltoall_padded = {
    .name = "alltoall-padded",
    .applicable = applicable,
    .steps = steps,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .local_stats = local_stats,
    .explain = explain,
};
