/* Helpers shared by the point-to-point schedules: chunked posting, pack-and-send, the
 * self copy, unpacking. A "dry" execution (this rank passed bad buffers) still posts every
 * message so that no peer hangs, but reads and writes no user memory. */
#include "common.h"

static int post(struct redist_plan_s *p, const redist__msg *m, MPI_Request reqs[], int send)
{
    char *base = (send ? p->sendbuf : p->recvbuf) + m->offset * (int64_t)p->elsize;
    int64_t bytes = m->nelems * (int64_t)p->elsize, n = redist__chunks(bytes);
    for (int64_t c = 0; c < n; c++) {
        int64_t len = bytes - c * REDIST__CHUNK_BYTES;
        int count = (int)(len < REDIST__CHUNK_BYTES ? len : REDIST__CHUNK_BYTES);
        char *at = base + c * REDIST__CHUNK_BYTES;
        int rc = send ? MPI_Isend(at, count, MPI_BYTE, m->peer, REDIST__TAG, p->comm, &reqs[c])
                      : MPI_Irecv(at, count, MPI_BYTE, m->peer, REDIST__TAG, p->comm, &reqs[c]);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "%s to/from rank %d failed",
                                send ? "MPI_Isend" : "MPI_Irecv", m->peer);
    }
    return (int)n;
}

int redist__post_recv(struct redist_plan_s *p, const redist__msg *m, MPI_Request reqs[])
{
    return post(p, m, reqs, 0);
}

int redist__post_send(struct redist_plan_s *p, const redist__msg *m, MPI_Request reqs[])
{
    return post(p, m, reqs, 1);
}

int redist__pack_and_send(struct redist_plan_s *p, int i, MPI_Request reqs[])
{
    const redist__msg *m = &p->send.msgs[i];
    if (!p->dry)
        redist__pack(m, p->cur_src, p->sendbuf + m->offset * (int64_t)p->elsize, p->elsize);
    return redist__post_send(p, m, reqs);
}

void redist__copy_self(struct redist_plan_s *p)
{
    if (p->self != NULL && !p->dry)
        redist__copy(p->self, p->cur_src, p->cur_dst, p->elsize);
}

void redist__unpack_recv(struct redist_plan_s *p, int i)
{
    const redist__msg *m = &p->recv.msgs[i];
    if (!p->dry)
        redist__unpack(m, p->recvbuf + m->offset * (int64_t)p->elsize, p->cur_dst, p->elsize);
}

int64_t redist__side_requests(const struct redist_plan_s *p, const redist__side *s)
{
    int64_t n = 0;
    for (int i = 0; i < s->nmsgs; i++)
        n += redist__chunks(s->msgs[i].nelems * (int64_t)p->elsize);
    return n;
}

int redist__always_applicable(const redist__summary *s)
{
    (void)s;
    return REDIST_SUCCESS;
}

int redist__one_step(const redist__summary *s) { return s->max_messages > 0 ? 1 : 0; }
