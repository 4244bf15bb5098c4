/* Shared machinery of [TCR96]'s algorithms (p001.h). */
#include "algo/p001.h"
#include "algo/algo.h"
#include "algo/phases.h"

#include <stdlib.h>
#include <string.h>

int redist__p001_applicable(const redist__case *c)
{
    return c->s.same_line ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

int redist__p001_check_options(const redist_options *opt, int comm_size)
{
    (void)comm_size;
    if (opt->synchronous_receive != 0 && opt->synchronous_receive != 1)
        return redist__fail(REDIST_ERR_ARG, "synchronous_receive = %d must be 0 or 1",
                            opt->synchronous_receive);
    return REDIST_SUCCESS;
}

void redist__p001_fingerprint_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist__fp_add(fp, "options.synchronous_receive", &opt->synchronous_receive,
                   sizeof opt->synchronous_receive);
}

int redist__p001_two_steps(const redist__case *c, const redist__machine *m,
                           const redist_options *opt)
{
    (void)m, (void)opt;
    return c->t.max_messages > 0 ? 2 : 0;
}

double redist__p001_predict_two_phases(const redist__case *c, const redist__machine *m,
                                       const redist_options *opt, int transport)
{
    (void)opt;
    return 2.0 * (redist__cost_moves(c, m, transport) + m->startup +
                  m->per_message * (double)c->t.max_messages);
}

double redist__p001_predict_ratio(const redist__case *c, const redist__machine *m,
                                  const redist_options *opt, int transport)
{
    (void)opt;
    return redist__predict_all_in_flight(c, m, transport);
}

void redist__p001_free(redist__p001 *st)
{
    free(st->out);
    free(st->in);
    free(st->out_len);
    free(st->in_len);
    free(st->out_fill);
    free(st->in_read);
    free(st->selfbuf);
    free(st->reqs);
    free(st->req_peer);
    memset(st, 0, sizeof *st);
}

static const redist__msg *msg_to(const redist__side *side, int rank)
{
    for (int i = 0; i < side->nmsgs; i++)
        if (side->msgs[i].peer == rank)
            return &side->msgs[i];
    return NULL;
}

int redist__p001_setup(struct redist_plan_s *p, redist__p001 *st)
{
    const struct redist_layout_s *src = p->src;
    int64_t P = src->grid[0];
    st->P = P;
    st->x = src->block[0];
    st->y = p->dst->block[0];
    st->n = src->extent[0];
    st->first = src->first[0];
    int pos = redist__layout_position(src, p->rank);
    st->me = pos < 0 ? -1 : ((pos - st->first) % P + P) % P;
    size_t np = (size_t)P;
    st->out = calloc(np, sizeof *st->out);
    st->in = calloc(np, sizeof *st->in);
    st->out_len = calloc(np, sizeof *st->out_len);
    st->in_len = calloc(np, sizeof *st->in_len);
    st->out_fill = calloc(np, sizeof *st->out_fill);
    st->in_read = calloc(np, sizeof *st->in_read);
    st->reqs = malloc((2 * np + 1) * sizeof *st->reqs);
    st->req_peer = malloc((np + 1) * sizeof *st->req_peer);
    if (!st->out || !st->in || !st->out_len || !st->in_len || !st->out_fill || !st->in_read ||
        !st->reqs || !st->req_peer)
        return REDIST_ERR_NOMEM;
    if (st->me < 0)
        return REDIST_SUCCESS;
    int64_t self = p->self ? p->self->nelems : 0;
    st->selfbuf = redist__plan_buffer(p, (size_t)self * p->elsize + 1);
    if (st->selfbuf == NULL)
        return REDIST_ERR_NOMEM;
    for (int64_t q = 0; q < P; q++) {
        int rank = src->ranks[(q + st->first) % P];
        if (rank == p->rank) {
            st->out[q] = st->in[q] = st->selfbuf;
            st->out_len[q] = st->in_len[q] = self;
            continue;
        }
        const redist__msg *s = msg_to(&p->send, rank), *r = msg_to(&p->recv, rank);
        st->out[q] = s ? p->sendbuf + s->offset * (int64_t)p->elsize : NULL;
        st->out_len[q] = s ? s->nelems : 0;
        st->in[q] = r ? p->recvbuf + r->offset * (int64_t)p->elsize : NULL;
        st->in_len[q] = r ? r->nelems : 0;
    }
    return REDIST_SUCCESS;
}

int redist__p001_create(struct redist_plan_s *p, size_t size, void (*pack)(struct redist_plan_s *),
                        redist__p001_unpack_fn unpack_one,
                        void (*unpack_all)(struct redist_plan_s *, redist__p001 *))
{
    redist__p001 *st = calloc(1, size);
    if (st == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = st;
    st->pack = pack;
    st->unpack_one = unpack_one;
    st->unpack_all = unpack_all;
    st->sync = p->opt.synchronous_receive;
    return redist__p001_setup(p, st);
}

int redist__p001_ratio_setup(struct redist_plan_s *p, void (*pack)(struct redist_plan_s *),
                             redist__p001_unpack_fn unpack_one,
                             void (*unpack_all)(struct redist_plan_s *, redist__p001 *))
{
    int err = redist__p001_create(p, sizeof(redist__p001_ratio), pack, unpack_one, unpack_all);
    redist__p001_ratio *s = p->algo_state;
    if (s != NULL) {
        s->k = s->st.x > s->st.y ? s->st.x / s->st.y : s->st.y / s->st.x;
        s->stored = s->k <= s->st.P && s->st.P % s->k == 0;
    }
    return err;
}

int redist__p001_post_receives(struct redist_plan_s *p, redist__p001 *st)
{
    st->nrecv = st->nsend = 0;
    for (int64_t q = 0; q < st->P; q++) {
        st->out_fill[q] = st->in_read[q] = 0;
        if (st->me < 0 || q == st->me || st->in_len[q] == 0)
            continue;
        int64_t bytes = st->in_len[q] * (int64_t)p->elsize;
        if (bytes > REDIST__MAX_INT_COUNT)
            return redist__fail(REDIST_ERR_UNSUPPORTED, "paper 001 packets above 2 GiB");
        int rank = p->src->ranks[(q + st->first) % st->P];
        if (MPI_Irecv(st->in[q], (int)bytes, MPI_BYTE, rank, REDIST__TAG_P001, p->comm,
                      &st->reqs[st->nrecv]) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Irecv failed");
        st->req_peer[st->nrecv++] = q;
    }
    st->recvs_left = st->nrecv;
    st->self_done = st->unpacked = 0;
    return REDIST_SUCCESS;
}

int redist__p001_post_sends(struct redist_plan_s *p, redist__p001 *st)
{
    for (int64_t q = 0; st->me >= 0 && q < st->P; q++) {
        if (q == st->me || st->out_len[q] == 0)
            continue;
        int rank = p->src->ranks[(q + st->first) % st->P];
        int bytes = (int)(st->out_len[q] * (int64_t)p->elsize);
        if (MPI_Isend(st->out[q], bytes, MPI_BYTE, rank, REDIST__TAG_P001, p->comm,
                      &st->reqs[st->nrecv + st->nsend++]) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Isend failed");
    }
    return REDIST_SUCCESS;
}

void redist__p001_append(redist__p001 *st, int64_t q, const char *src, int64_t len, size_t es)
{
    memcpy(st->out[q] + st->out_fill[q] * (int64_t)es, src, (size_t)len * es);
    st->out_fill[q] += len;
}

void redist__p001_read(redist__p001 *st, int64_t q, char *dst, int64_t len, size_t es)
{
    memcpy(dst, st->in[q] + st->in_read[q] * (int64_t)es, (size_t)len * es);
    st->in_read[q] += len;
}

int redist__p001_progress(struct redist_plan_s *p, redist__p001 *st, int blocking, int *done,
                          redist__p001_unpack_fn unpack_one,
                          void (*unpack_all)(struct redist_plan_s *, redist__p001 *))
{
    *done = 0;
    if (st->me < 0) {
        *done = 1;
        return REDIST_SUCCESS;
    }
    if (st->sync) { /* the synchronous method: every packet first, then one scan */
        int all = 1;
        int rc = blocking ? MPI_Waitall(st->nrecv, st->reqs, MPI_STATUSES_IGNORE)
                          : MPI_Testall(st->nrecv, st->reqs, &all, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "waiting for packets failed");
        if (!all)
            return REDIST_SUCCESS;
        if (!st->unpacked && !p->dry)
            unpack_all(p, st);
        st->unpacked = 1;
        st->recvs_left = 0;
    } else { /* the asynchronous method: place each packet as it arrives */
        if (!st->self_done && !p->dry)
            unpack_one(p, st, st->me); /* the self packet is here already */
        st->self_done = 1;
        while (st->recvs_left > 0) {
            int idx = MPI_UNDEFINED, flag = 1;
            int rc = blocking ? MPI_Waitany(st->nrecv, st->reqs, &idx, MPI_STATUS_IGNORE)
                              : MPI_Testany(st->nrecv, st->reqs, &idx, &flag, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                return redist__fail(REDIST_ERR_MPI, "waiting for a packet failed");
            if (!flag || idx == MPI_UNDEFINED)
                return REDIST_SUCCESS;
            if (!p->dry)
                unpack_one(p, st, st->req_peer[idx]);
            st->recvs_left--;
        }
    }
    int sent = 1;
    int rc = blocking ? MPI_Waitall(st->nsend, st->reqs + st->nrecv, MPI_STATUSES_IGNORE)
                      : MPI_Testall(st->nsend, st->reqs + st->nrecv, &sent, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "waiting for sends failed");
    *done = sent;
    return REDIST_SUCCESS;
}

int redist__p001_start(struct redist_plan_s *p)
{
    redist__p001 *st = p->algo_state;
    int err = redist__p001_post_receives(p, st);
    if (err != REDIST_SUCCESS)
        return err;
    if (!p->dry && st->me >= 0)
        st->pack(p);
    return redist__p001_post_sends(p, st);
}

int redist__p001_algo_progress(struct redist_plan_s *p, int blocking, int *done)
{
    redist__p001 *st = p->algo_state;
    return redist__p001_progress(p, st, blocking, done, st->unpack_one, st->unpack_all);
}

void redist__p001_destroy(struct redist_plan_s *p)
{
    redist__p001 *st = p->algo_state; /* the first member of the algorithm's state */
    if (st == NULL)
        return;
    redist__p001_free(st);
    free(st);
    p->algo_state = NULL;
}

/* ---- gcd and lcm: two phases through cyclic(m) ---------------------------------------- */

int redist__p001_two_phases(struct redist_plan_s *p, int64_t m, const char *first,
                            const char *second)
{
    redist_layout mid[1] = {NULL};
    redist_layout_create(1, p->src->extent, &m, p->src->grid, p->src->first, p->src->ranks,
                         p->src->order, &mid[0]);
    const char *names[2] = {first, second};
    redist__phases *ph = NULL;
    int err = redist__phases_create(p, 2, mid, names, -1, p->opt.synchronous_receive, &ph);
    p->algo_state = ph;
    return err;
}

int redist__p001_phases_start(struct redist_plan_s *p)
{
    return redist__phases_start(p, p->algo_state);
}

int redist__p001_phases_progress(struct redist_plan_s *p, int blocking, int *done)
{
    return redist__phases_progress(p, p->algo_state, blocking, done);
}

void redist__p001_phases_destroy(struct redist_plan_s *p)
{
    redist__phases_free(p->algo_state);
    p->algo_state = NULL;
}

void redist__p001_phases_stats(const struct redist_plan_s *p, redist_stats *st)
{
    redist__phases_stats(p->algo_state, st);
}
