/* Helpers shared by the point-to-point schedules: chunked posting, pack-and-send, the
 * shared-memory notifications (shm.c), the self copy, unpacking. A "dry" execution (this
 * rank passed bad buffers) still posts every message so that no peer hangs, but reads and
 * writes no user memory. */
#include "exec/engine.h"

int64_t redist__msg_requests(const struct redist_plan_s *p, int is_send, int i)
{
    const redist__side *side = is_send ? &p->send : &p->recv;
    if (redist__shm_local(p, is_send, i) || p->transport == REDIST_TRANSPORT_DATATYPE)
        return 1;
    return redist__chunks(side->msgs[i].nelems * (int64_t)p->elsize);
}

int64_t redist__side_requests(const struct redist_plan_s *p, int is_send)
{
    int64_t n = 0;
    for (int i = 0; i < (is_send ? p->send.nmsgs : p->recv.nmsgs); i++)
        n += redist__msg_requests(p, is_send, i);
    return n;
}

/* The datatype transport: one message, MPI reads the source array and writes the
   destination array itself. */
static int post_datatype(struct redist_plan_s *p, int is_send, int i, MPI_Request *req)
{
    const redist__msg *m = is_send ? &p->send.msgs[i] : &p->recv.msgs[i];
    int rc = is_send ? MPI_Isend(p->cur_src, 1, p->datatypes->send[i], m->peer, REDIST__TAG_DATA,
                                 p->comm, req)
                     : MPI_Irecv(p->cur_dst, 1, p->datatypes->recv[i], m->peer, REDIST__TAG_DATA,
                                 p->comm, req);
    return rc == MPI_SUCCESS ? 1
                             : redist__fail(REDIST_ERR_MPI, "%s with rank %d failed",
                                            is_send ? "MPI_Isend" : "MPI_Irecv", m->peer);
}

static int post(struct redist_plan_s *p, int is_send, int i, MPI_Request reqs[])
{
    const redist__msg *m = is_send ? &p->send.msgs[i] : &p->recv.msgs[i];
    if (p->transport == REDIST_TRANSPORT_DATATYPE)
        return post_datatype(p, is_send, i, reqs);
    if (redist__shm_local(p, is_send, i)) { /* the data is in shared memory: notify only,
                                               saying where (onecopy.c) */
        int rc = is_send ? MPI_Isend(p->shm->note_out[i], 3, MPI_INT64_T, m->peer, REDIST__TAG_DATA,
                                     p->comm, reqs)
                         : MPI_Irecv(p->shm->note_in[i], 3, MPI_INT64_T, m->peer, REDIST__TAG_DATA,
                                     p->comm, reqs);
        return rc == MPI_SUCCESS ? 1 : redist__fail(REDIST_ERR_MPI, "notification failed");
    }
    /* a GPU-aware MPI reads and writes the device buffers (gpu_mpi.c) */
    return redist__post_bytes(redist__msg_buffer(p, is_send, i), m->nelems * (int64_t)p->elsize,
                              m->peer, is_send, p->comm, reqs);
}

int redist__post_bytes(char *base, int64_t bytes, int peer, int is_send, MPI_Comm comm,
                       MPI_Request reqs[])
{
    return redist__post_bytes_tagged(base, bytes, peer, is_send, REDIST__TAG_DATA, comm, reqs);
}

int redist__post_bytes_tagged(char *base, int64_t bytes, int peer, int is_send, int tag,
                              MPI_Comm comm, MPI_Request reqs[])
{
    int64_t n = redist__chunks(bytes);
    for (int64_t c = 0; c < n; c++) {
        int64_t len = bytes - c * REDIST__CHUNK_BYTES;
        int count = (int)(len < REDIST__CHUNK_BYTES ? len : REDIST__CHUNK_BYTES);
        char *at = base + c * REDIST__CHUNK_BYTES;
        int rc = is_send ? MPI_Isend(at, count, MPI_BYTE, peer, tag, comm, &reqs[c])
                         : MPI_Irecv(at, count, MPI_BYTE, peer, tag, comm, &reqs[c]);
        if (rc != MPI_SUCCESS) { /* this message's chunks already posted are taken back */
            reqs[c] = MPI_REQUEST_NULL;
            if (is_send)
                redist__abandon_requests(NULL, 0, reqs, (int)c);
            else
                redist__abandon_requests(reqs, (int)c, NULL, 0);
            return redist__fail(REDIST_ERR_MPI, "%s with rank %d failed",
                                is_send ? "MPI_Isend" : "MPI_Irecv", peer);
        }
    }
    return (int)n;
}

int redist__post_recv(struct redist_plan_s *p, int i, MPI_Request reqs[])
{
    return post(p, 0, i, reqs);
}

int redist__post_send(struct redist_plan_s *p, int i, MPI_Request reqs[])
{
    return post(p, 1, i, reqs);
}

int redist__pack_and_send(struct redist_plan_s *p, int i, MPI_Request reqs[])
{
    const redist__msg *m = &p->send.msgs[i];
    /* a peer on the node that can read this rank's src copies it itself: no pack */
    int one_copy = redist__shm_local(p, 1, i) && redist__onecopy_offer(p, i);
    if (!p->dry && p->transport == REDIST_TRANSPORT_PACK && !one_copy)
        redist__par_move(p, REDIST__PACK, m, p->cur_src, redist__msg_buffer(p, 1, i));
    if (redist__shm_local(p, 1, i))
        redist__shm_sync(p); /* the packed data (or src) is visible before the notification */
    return post(p, 1, i, reqs);
}

int redist__pack_ahead(struct redist_plan_s *p, int first)
{
    if (p->device == NULL || p->dry || p->transport != REDIST_TRANSPORT_PACK)
        return 0;
    redist__staging_defer(p, 1);
    for (int j = 0; j < p->send.nmsgs; j++) {
        int i = (first + j) % p->send.nmsgs;
        const redist__msg *m = &p->send.msgs[i];
        /* a node peer that maps this rank's device src pulls it itself: no pack */
        if (!(redist__shm_local(p, 1, i) && redist__onecopy_offer(p, i)))
            redist__par_move(p, REDIST__PACK, m, p->cur_src, redist__msg_buffer(p, 1, i));
        redist__staging_mark_sent(p, i);
    }
    redist__staging_defer(p, 0);
    return 1;
}

int redist__send_packed(struct redist_plan_s *p, int i, MPI_Request reqs[])
{
    redist__staging_wait_sent(p, i);
    if (redist__shm_local(p, 1, i))
        redist__shm_sync(p); /* the packed data is visible before the notification */
    return post(p, 1, i, reqs);
}

int redist__post_ack_recv(struct redist_plan_s *p, int i, MPI_Request *req)
{
    if (!redist__shm_local(p, 1, i))
        return 0;
    if (MPI_Irecv(NULL, 0, MPI_BYTE, p->send.msgs[i].peer, REDIST__TAG_ACK, p->comm, req) !=
        MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "acknowledgement receive failed");
    return 1;
}

int redist__finish_recv(struct redist_plan_s *p, int i, MPI_Request *ack)
{
    const redist__msg *m = &p->recv.msgs[i];
    if (p->transport == REDIST_TRANSPORT_DATATYPE)
        return 0; /* MPI has written the destination */
    int local = redist__shm_local(p, 0, i);
    const char *data = local ? p->shm->recv_at[i] : redist__msg_buffer(p, 0, i);
    if (local)
        redist__shm_sync(p);
    if (local && redist__onecopy_offered(p, i)) { /* the sender's src, read in place */
        int err = p->dry ? REDIST_SUCCESS : redist__onecopy_copy(p, i);
        int n = redist__send_ack(p, i, ack); /* even after a failure: the sender completes */
        return err != REDIST_SUCCESS ? err : n;
    }
    /* device plans: the copy onto the device and the kernel left in flight while the next
       messages arrive (the execute's end waits), unless an acknowledgement frees the
       sender's window for its next execute */
    redist__staging_defer(p, !local);
    if (!p->dry)
        redist__par_move(p, REDIST__UNPACK, m, data, p->cur_dst);
    redist__staging_defer(p, 0);
    return redist__send_ack(p, i, ack);
}

int redist__copies_once(const struct redist_plan_s *p, int i)
{
    return p->transport == REDIST_TRANSPORT_PACK && redist__shm_local(p, 0, i) &&
           redist__onecopy_offered(p, i);
}

int redist__finish_recvs_once(struct redist_plan_s *p, int *msgs, int n, int with_self,
                              MPI_Request *acks)
{
    redist__shm_sync(p); /* the senders' src as they left it before their notifications */
    int tiled_self = with_self && p->self != NULL && p->self->tiles != NULL; /* by its tiles */
    int err = p->dry ? REDIST_SUCCESS
                     : redist__onecopy_copy_together(p, msgs, n, with_self && !tiled_self);
    if (err == REDIST_SUCCESS && tiled_self)
        redist__copy_self(p);
    int nacks = 0; /* acknowledged even after a failure: the senders complete */
    for (int x = 0; x < n; x++) {
        int k = redist__send_ack(p, msgs[x], acks + nacks);
        if (k < 0)
            return k;
        nacks += k;
    }
    return err != REDIST_SUCCESS ? err : nacks;
}

int redist__send_ack(struct redist_plan_s *p, int i, MPI_Request *ack)
{
    if (!redist__shm_local(p, 0, i))
        return 0;
    if (MPI_Isend(NULL, 0, MPI_BYTE, p->recv.msgs[i].peer, REDIST__TAG_ACK, p->comm, ack) !=
        MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "acknowledgement send failed");
    return 1;
}

void redist__copy_self(struct redist_plan_s *p)
{
    redist__staging_defer(p, 1); /* device plans: the kernel runs on while messages travel */
    if (p->self != NULL && !p->dry)
        redist__par_move(p, REDIST__COPY, p->self, p->cur_src, p->cur_dst);
    redist__staging_defer(p, 0);
}

void redist__abandon_requests(MPI_Request recvs[], int nrecvs, MPI_Request sends[], int nsends)
{
    for (int i = 0; i < nrecvs; i++)
        if (recvs[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&recvs[i]);
            MPI_Wait(&recvs[i], MPI_STATUS_IGNORE);
        }
    for (int i = 0; i < nsends; i++)
        if (sends[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&sends[i]);
}

int redist__progress_request(MPI_Request *req, int blocking, int *done, const char *what)
{
    *done = 1;
    int rc = blocking ? MPI_Wait(req, MPI_STATUS_IGNORE) : MPI_Test(req, done, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? REDIST_SUCCESS
                             : redist__fail(REDIST_ERR_MPI, "%s completion failed", what);
}

int redist__rank_arrays_alloc(redist__rank_arrays *a, int nranks, int with_types)
{
    size_t n = (size_t)nranks;
    *a = (redist__rank_arrays){0};
    a->scounts = redist__calloc(n, sizeof(int));
    a->sdispls = redist__calloc(n, sizeof(int));
    a->rcounts = redist__calloc(n, sizeof(int));
    a->rdispls = redist__calloc(n, sizeof(int));
    if (with_types) {
        a->stypes = redist__malloc(n * sizeof(MPI_Datatype));
        a->rtypes = redist__malloc(n * sizeof(MPI_Datatype));
    }
    if (!a->scounts || !a->sdispls || !a->rcounts || !a->rdispls ||
        (with_types && (!a->stypes || !a->rtypes)))
        return REDIST_ERR_NOMEM;
    for (size_t i = 0; with_types && i < n; i++)
        a->stypes[i] = a->rtypes[i] = MPI_BYTE;
    return REDIST_SUCCESS;
}

void redist__rank_arrays_free(redist__rank_arrays *a)
{
    redist__free(a->scounts);
    redist__free(a->sdispls);
    redist__free(a->rcounts);
    redist__free(a->rdispls);
    redist__free(a->stypes); /* the types themselves belong to the plan */
    redist__free(a->rtypes);
    *a = (redist__rank_arrays){0};
}

int redist__alltoall_state_create(struct redist_plan_s *p, int with_types,
                                  redist__alltoall_state **out)
{
    redist__alltoall_state *s = redist__calloc(1, sizeof *s);
    *out = s;
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->req = MPI_REQUEST_NULL;
    return redist__rank_arrays_alloc(&s->arrays, p->size, with_types);
}

void redist__alltoall_state_destroy(struct redist_plan_s *p)
{
    redist__alltoall_state *s = p->algo_state;
    if (s == NULL)
        return;
    redist__rank_arrays_free(&s->arrays);
    redist__free(s);
    p->algo_state = NULL;
}

double redist__alltoall_predict(const redist__case *c, const redist__machine *m,
                                const redist_options *opt, int transport)
{
    (void)opt;
    return redist__cost_moves(c, m, transport) + m->startup + m->per_message * (c->t.comm_size - 1);
}

int redist__always_applicable(const redist__case *c)
{
    (void)c;
    return REDIST_SUCCESS;
}

int redist__one_step(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    (void)m, (void)opt;
    return c->t.max_messages > 0 ? 1 : 0;
}
