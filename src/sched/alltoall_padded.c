/* alltoall-padded: the MPI_Alltoall baseline of paper 000 §5 (Fig. 18). Every message is
 * padded to the largest message of the redistribution (over all ranks), so that one
 * MPI_Alltoall (nonblocking: MPI_Ialltoall) with equal counts moves everything, dummy data
 * included; the self part is copied directly. One collective step; each rank sends P - 1
 * messages of the padded size whatever the pattern. NOT_APPLICABLE when the padded message
 * exceeds INT_MAX bytes.
 */
#include "common.h"

#include <stdlib.h>

typedef struct state {
    int64_t slot; /* bytes per peer */
    char *sendbuf, *recvbuf;
    MPI_Request req;
} state;

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    free(s->sendbuf);
    free(s->recvbuf);
    free(s);
    p->algo_state = NULL;
}

static int64_t slot_bytes(const redist__summary *s)
{
    return s->max_count * (int64_t)s->elsize;
}

static int applicable(const redist__summary *s)
{
    return slot_bytes(s) <= REDIST__MAX_INT_COUNT ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static int setup(struct redist_plan_s *p)
{
    state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->slot = slot_bytes(&p->summary);
    s->sendbuf = malloc((size_t)(s->slot * p->size) + 1);
    s->recvbuf = malloc((size_t)(s->slot * p->size) + 1);
    s->req = MPI_REQUEST_NULL;
    return s->sendbuf && s->recvbuf ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    for (int i = 0; !p->dry && i < p->send.nmsgs; i++) {
        const redist__msg *m = &p->send.msgs[i];
        redist__pack(m, p->cur_src, s->sendbuf + m->peer * s->slot, p->elsize);
    }
    redist__copy_self(p);
    if (MPI_Ialltoall(s->sendbuf, (int)s->slot, MPI_BYTE, s->recvbuf, (int)s->slot, MPI_BYTE,
                      p->comm, &s->req) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Ialltoall failed");
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    int err = redist__progress_request(&s->req, blocking, done, "MPI_Ialltoall");
    for (int i = 0; err == REDIST_SUCCESS && *done && !p->dry && i < p->recv.nmsgs; i++) {
        const redist__msg *m = &p->recv.msgs[i];
        redist__unpack(m, s->recvbuf + m->peer * s->slot, p->cur_dst, p->elsize);
    }
    return err;
}

/* Every rank sends a padded message to every other rank. */
static void local_stats(const struct redist_plan_s *p, redist_stats *st)
{
    const state *s = p->algo_state;
    st->messages_sent = st->messages_received = p->size - 1;
    st->bytes_sent = st->bytes_received = (p->size - 1) * s->slot;
}

static int explain(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                   const redist__summary *s, int64_t out[4])
{
    (void)src, (void)dst;
    int64_t P = s->comm_size;
    out[0] = P - 1;
    out[1] = (P - 1) * slot_bytes(s);
    out[2] = P * (P - 1);
    out[3] = P * out[1];
    return REDIST_SUCCESS;
}

const redist__algorithm redist__algo_alltoall_padded = {
    .name = "alltoall-padded",
    .applicable = applicable,
    .steps = redist__one_step,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .local_stats = local_stats,
    .explain = explain,
};
