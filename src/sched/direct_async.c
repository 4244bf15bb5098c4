/* direct-async: post every receive, then pack and send each message, copy the self part,
 * and unpack each message as soon as it arrives.
 *
 * Paper 000 §2 (Walker et al.'s "unsynchronized scheme") and paper 001 §3.2 (asynchronous
 * receive: unpack in arrival order). One round; each rank sends its m_s messages and
 * receives its m_r. Cost (GDM): max(m_s, m_r) T_d + max bytes tau_d, plus one pack and one
 * unpack copy of each byte. Buffers: the whole send and receive volume, allocated at plan
 * time.
 */
#include "common.h"

#include <stdlib.h>

typedef struct state {
    MPI_Request *reqs;   /* receive chunks first, then send chunks */
    int *msg_of_req;     /* receive message of each receive request */
    int *chunks_left;    /* per receive message */
    int *indices;        /* scratch for MPI_Waitsome */
    int nrecv_reqs, nsend_reqs;
    int recvs_left;      /* receive messages not yet unpacked */
} state;

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    free(s->reqs);
    free(s->msg_of_req);
    free(s->chunks_left);
    free(s->indices);
    free(s);
    p->algo_state = NULL;
}

static int setup(struct redist_plan_s *p)
{
    state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int64_t nr = redist__side_requests(p, &p->recv), ns = redist__side_requests(p, &p->send);
    if (nr + ns > INT32_MAX)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "too many requests");
    s->nrecv_reqs = (int)nr;
    s->nsend_reqs = (int)ns;
    s->reqs = malloc((size_t)(nr + ns + 1) * sizeof *s->reqs);
    s->msg_of_req = malloc((size_t)(nr + 1) * sizeof *s->msg_of_req);
    s->chunks_left = malloc((size_t)(p->recv.nmsgs + 1) * sizeof *s->chunks_left);
    s->indices = malloc((size_t)(nr + 1) * sizeof *s->indices);
    if (!s->reqs || !s->msg_of_req || !s->chunks_left || !s->indices)
        return REDIST_ERR_NOMEM;
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    int k = 0;
    for (int i = 0; i < p->recv.nmsgs; i++) {
        int n = redist__post_recv(p, &p->recv.msgs[i], s->reqs + k);
        if (n < 0)
            return n;
        s->chunks_left[i] = n;
        for (int c = 0; c < n; c++)
            s->msg_of_req[k + c] = i;
        k += n;
    }
    s->recvs_left = p->recv.nmsgs;
    for (int i = 0; i < p->send.nmsgs; i++) {
        int n = redist__pack_and_send(p, i, s->reqs + k);
        if (n < 0)
            return n;
        k += n;
    }
    redist__copy_self(p);
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    while (s->recvs_left > 0) {
        int count = 0, rc;
        if (blocking)
            rc = MPI_Waitsome(s->nrecv_reqs, s->reqs, &count, s->indices, MPI_STATUSES_IGNORE);
        else
            rc = MPI_Testsome(s->nrecv_reqs, s->reqs, &count, s->indices, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "waiting for receives failed");
        if (count == MPI_UNDEFINED || count == 0) {
            if (!blocking || count == MPI_UNDEFINED)
                break;
            continue;
        }
        for (int j = 0; j < count; j++) {
            int m = s->msg_of_req[s->indices[j]];
            if (--s->chunks_left[m] == 0) {
                redist__unpack_recv(p, m);
                s->recvs_left--;
            }
        }
    }
    int sends_done = 1;
    if (s->recvs_left == 0) {
        int rc = blocking ? MPI_Waitall(s->nsend_reqs, s->reqs + s->nrecv_reqs,
                                        MPI_STATUSES_IGNORE)
                          : MPI_Testall(s->nsend_reqs, s->reqs + s->nrecv_reqs, &sends_done,
                                        MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "waiting for sends failed");
    }
    *done = s->recvs_left == 0 && sends_done;
    return REDIST_SUCCESS;
}

const redist__algorithm redist__algo_direct_async = {
    .name = "direct-async",
    .applicable = redist__always_applicable,
    .steps = redist__one_step,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
};
