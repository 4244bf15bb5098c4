/* Packet exchange of the index-computing algorithms (packets.h). */
#include "algo/packets.h"

#include <stdlib.h>
#include <string.h>

int redist__msg_index(const redist__side *side, int peer)
{
    int lo = 0, hi = side->nmsgs - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (side->msgs[mid].peer == peer)
            return mid;
        if (side->msgs[mid].peer < peer)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

void redist__packets_free(redist__packets *pk)
{
    redist__free(pk->out);
    redist__free(pk->in);
    redist__free(pk->selfbuf);
    redist__free(pk->reqs);
    redist__free(pk->msg_of_req);
    redist__free(pk->chunks_left);
    memset(pk, 0, sizeof *pk);
}

int redist__packets_setup(struct redist_plan_s *p, redist__packets *pk,
                          const redist__packet_ops *ops, void *algo)
{
    memset(pk, 0, sizeof *pk);
    pk->ops = ops;
    pk->algo = algo;
    pk->sync = p->opt.synchronous_receive;
    int64_t nrecv = redist__side_requests(p, 0), nsend = redist__side_requests(p, 1);
    if (nrecv + nsend > INT32_MAX)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "too many requests");
    int64_t self = p->self ? p->self->nelems : 0;
    pk->out = redist__calloc((size_t)p->send.nmsgs + 1, sizeof *pk->out);
    pk->in = redist__calloc((size_t)p->recv.nmsgs + 1, sizeof *pk->in);
    pk->reqs = redist__malloc((size_t)(nrecv + nsend + 1) * sizeof *pk->reqs);
    pk->msg_of_req = redist__malloc((size_t)(nrecv + 1) * sizeof *pk->msg_of_req);
    pk->chunks_left = redist__malloc(((size_t)p->recv.nmsgs + 1) * sizeof *pk->chunks_left);
    pk->selfbuf = redist__plan_buffer(p, (size_t)self * p->elsize + 1);
    if (!pk->out || !pk->in || !pk->reqs || !pk->msg_of_req || !pk->chunks_left || !pk->selfbuf)
        return REDIST_ERR_NOMEM;
    return REDIST_SUCCESS;
}

int redist__packets_start(struct redist_plan_s *p, redist__packets *pk)
{
    int64_t es = (int64_t)p->elsize;
    pk->out[0] = pk->selfbuf;
    pk->in[0] = pk->selfbuf;
    for (int i = 0; i < p->send.nmsgs; i++)
        pk->out[i + 1] = p->sendbuf + p->send.msgs[i].offset * es;
    for (int i = 0; i < p->recv.nmsgs; i++)
        pk->in[i + 1] = p->recvbuf + p->recv.msgs[i].offset * es;
    pk->nreqs = 0;
    for (int i = 0; i < p->recv.nmsgs; i++) {
        int n = redist__post_recv(p, i, pk->reqs + pk->nreqs);
        if (n < 0) { /* the receives already posted are cancelled (as for the sends below) */
            redist__abandon_requests(pk->reqs, pk->nreqs, NULL, 0);
            pk->nreqs = 0;
            return n;
        }
        for (int c = 0; c < n; c++)
            pk->msg_of_req[pk->nreqs + c] = i;
        pk->chunks_left[i] = n;
        pk->nreqs += n;
    }
    pk->nrecv = pk->nreqs;
    pk->recvs_left = p->recv.nmsgs;
    pk->self_done = pk->unpacked = 0;
    if (!p->dry)
        pk->ops->pack(p, pk->algo);
    for (int i = 0; i < p->send.nmsgs; i++) {
        int n = redist__post_send(p, i, pk->reqs + pk->nreqs);
        if (n < 0) {
            redist__abandon_requests(pk->reqs, pk->nrecv, pk->reqs + pk->nrecv,
                                     pk->nreqs - pk->nrecv);
            pk->nreqs = 0;
            return n;
        }
        pk->nreqs += n;
    }
    return REDIST_SUCCESS;
}

/* The synchronous method: every packet first, then one unpack_all. */
static int receive_all(struct redist_plan_s *p, redist__packets *pk, int blocking)
{
    int all = 1;
    int rc = blocking ? MPI_Waitall(pk->nrecv, pk->reqs, MPI_STATUSES_IGNORE)
                      : MPI_Testall(pk->nrecv, pk->reqs, &all, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "%s: waiting for packets failed", p->algo->name);
    if (all && !pk->unpacked && !p->dry)
        pk->ops->unpack_all(p, pk->algo);
    pk->unpacked |= all;
    if (all)
        pk->recvs_left = 0;
    return REDIST_SUCCESS;
}

/* The asynchronous method: each packet placed when all its chunks are in. */
static int receive_each(struct redist_plan_s *p, redist__packets *pk, int blocking)
{
    if (!pk->self_done && p->self != NULL && !p->dry)
        pk->ops->unpack_one(p, pk->algo, REDIST__SELF_SLOT);
    pk->self_done = 1;
    while (pk->recvs_left > 0) {
        int idx = MPI_UNDEFINED, flag = 1;
        int rc = blocking ? MPI_Waitany(pk->nrecv, pk->reqs, &idx, MPI_STATUS_IGNORE)
                          : MPI_Testany(pk->nrecv, pk->reqs, &idx, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "%s: waiting for a packet failed", p->algo->name);
        if (!flag || idx == MPI_UNDEFINED)
            return REDIST_SUCCESS;
        int i = pk->msg_of_req[idx];
        if (--pk->chunks_left[i] > 0)
            continue;
        if (!p->dry)
            pk->ops->unpack_one(p, pk->algo, i);
        pk->recvs_left--;
    }
    return REDIST_SUCCESS;
}

int redist__packets_progress(struct redist_plan_s *p, redist__packets *pk, int blocking, int *done)
{
    *done = 0;
    int err = pk->sync ? receive_all(p, pk, blocking) : receive_each(p, pk, blocking);
    if (err != REDIST_SUCCESS || pk->recvs_left > 0)
        return err;
    int sent = 1, n = pk->nreqs - pk->nrecv;
    int rc = blocking ? MPI_Waitall(n, pk->reqs + pk->nrecv, MPI_STATUSES_IGNORE)
                      : MPI_Testall(n, pk->reqs + pk->nrecv, &sent, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "%s: waiting for sends failed", p->algo->name);
    *done = sent;
    return REDIST_SUCCESS;
}
