/* reduce-direct: partial sums (options.reduce). Every source holder of an element holds a
 * partial value (DTensor's Partial; accumulations from several process sets), and every
 * destination holder receives their reduction. Each replica of a source class sends its
 * part to each destination holder, as direct sends; a receiver gets the messages of one
 * class from its R replicas in the same element order (they hold the same elements), so it
 * reduces them in its receive buffer, contiguously, with MPI_Reduce_local on the type's
 * predefined elements (coll/reducer.c: the checks and the type the basic reductions use),
 * in MPI's operand order (replica 0 op (replica 1 op (... replica R - 1))), then unpacks the
 * result once, scaled if alpha or beta ask (they apply once, to the reduction). Its own
 * partial value, when the receiver is a replica too, is packed beside the others. Every
 * destination replica reduces in the same order, so replicas hold the same values.
 *
 * This is a reduce-scatter where the destination is sharded (Partial -> Shard: each rank
 * receives the other ranks' parts of its shard, which pairwise reduce-scatter also moves),
 * but an all-reduce by gathering where the destination is replicated (Partial -> Replicate:
 * every rank receives every other rank's whole array).
 *
 * Cost: T_d + M t_msg + the pack transport's moves + the reduction of every received byte
 * (copy_per_byte per byte, as a streaming pass), M the most messages of a rank.
 */
#include "algo/algo.h"
#include "coll/coll.h"
#include "exec/engine.h"

#include <stdlib.h>
#include <string.h>

typedef struct state {
    redist__coll_reducer reducer;
    MPI_Request *reqs; /* receives, then sends */
    int nreqs, nrecv_reqs;
    int *order;      /* receive messages by class, then by replica, decreasing */
    char *self_buf;  /* the self part's partial value, packed */
    char **partials; /* scratch: one class's partial values, highest replica first */
} state;

static int applicable(const redist__case *c)
{
    return c->s.reduce ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt;
    return m->startup + m->per_message * (double)c->t.max_messages +
           redist__cost_moves(c, m, transport) + (double)c->t.max_bytes * m->copy_per_byte;
}

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    redist__coll_reducer_free(&s->reducer);
    redist__free(s->reqs);
    redist__free(s->order);
    redist__free(s->partials);
    redist__free(s->self_buf); /* a plan buffer: its owner frees it (host memory only) */
    redist__free(s);
    p->algo_state = NULL;
}

/* A receive message's place in the reduction: its class, its replica. */
typedef struct place {
    int group, replica, msg;
} place;

static int by_class_then_replica(const void *a, const void *b)
{
    const place *x = a, *y = b;
    if (x->group != y->group)
        return (x->group > y->group) - (x->group < y->group);
    return (x->replica < y->replica) - (x->replica > y->replica);
}

static int setup(struct redist_plan_s *p)
{
    state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int err = redist__coll_reducer_make(p->type, p->elsize, p->opt.reduce, &s->reducer);
    if (err != REDIST_SUCCESS)
        return err;
    int64_t n = redist__side_requests(p, 0) + redist__side_requests(p, 1);
    s->reqs = redist__malloc((size_t)(n + 1) * sizeof *s->reqs);
    s->order = redist__malloc(((size_t)p->recv.nmsgs + 1) * sizeof *s->order);
    s->partials = redist__malloc(((size_t)p->recv.nmsgs + 2) * sizeof *s->partials);
    place *places = redist__malloc(((size_t)p->recv.nmsgs + 1) * sizeof *places);
    if (p->self != NULL)
        s->self_buf = redist__plan_buffer(p, (size_t)p->self->nelems * p->elsize + 1);
    if (s->reqs == NULL || s->order == NULL || s->partials == NULL || places == NULL ||
        (p->self != NULL && s->self_buf == NULL)) {
        redist__free(places);
        return REDIST_ERR_NOMEM;
    }
    for (int i = 0; i < p->recv.nmsgs; i++)
        places[i] = (place){p->recv.msgs[i].group, p->recv.msgs[i].replica, i};
    qsort(places, (size_t)p->recv.nmsgs, sizeof *places, by_class_then_replica);
    for (int i = 0; i < p->recv.nmsgs; i++)
        s->order[i] = places[i].msg;
    redist__free(places);
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    s->nreqs = 0;
    for (int i = 0; i < p->recv.nmsgs; i++) {
        int n = redist__post_recv(p, i, s->reqs + s->nreqs);
        if (n < 0)
            return n;
        s->nreqs += n;
    }
    s->nrecv_reqs = s->nreqs;
    for (int i = 0; i < p->send.nmsgs; i++) {
        int n = redist__pack_and_send(p, i, s->reqs + s->nreqs);
        if (n < 0) {
            redist__abandon_requests(s->reqs, s->nrecv_reqs, s->reqs + s->nrecv_reqs,
                                     s->nreqs - s->nrecv_reqs);
            return n;
        }
        s->nreqs += n;
    }
    if (p->self != NULL && !p->dry)
        redist__par_move(p, REDIST__PACK, p->self, p->cur_src, s->self_buf);
    return REDIST_SUCCESS;
}

/* The buffer holding receive message i's partial value. */
static char *partial_of(const struct redist_plan_s *p, int i)
{
    return p->recvbuf + p->recv.msgs[i].offset * (int64_t)p->elsize;
}

/* One class: the messages order[from .. to), highest replica first, and the self part when
   it is of the class. Its partial values are reduced into the highest replica's buffer in
   MPI's operand order (acc = partial op acc, from the highest replica down: replica 0 op
   (replica 1 op ...)), then unpacked into dst once. */
static void reduce_class(struct redist_plan_s *p, const state *s, int from, int to, int with_self)
{
    int n = 0;
    for (int k = from; k < to; k++) {
        const redist__msg *m = &p->recv.msgs[s->order[k]];
        if (with_self && p->self->replica > m->replica) { /* the self part in its place */
            s->partials[n++] = s->self_buf;
            with_self = 0;
        }
        s->partials[n++] = partial_of(p, s->order[k]);
    }
    if (with_self)
        s->partials[n++] = s->self_buf;
    const redist__msg *layout = from < to ? &p->recv.msgs[s->order[from]] : p->self;
    /* MPI's counts are int: pieces of at most 2^30 of the reducer's elements */
    int64_t per = s->reducer.per_element, piece = ((int64_t)1 << 30) / per;
    for (int k = 1; k < n; k++)
        for (int64_t at = 0; at < layout->nelems; at += piece) {
            int64_t len = layout->nelems - at < piece ? layout->nelems - at : piece;
            size_t off = (size_t)at * p->elsize;
            MPI_Reduce_local(s->partials[k] + off, s->partials[0] + off, (int)(len * per),
                             s->reducer.type, p->opt.reduce);
        }
    /* any message of the class has the same buffer order and destination elements */
    redist__par_move(p, REDIST__UNPACK, s->partials[0] == s->self_buf ? p->self : layout,
                     s->partials[0], p->cur_dst);
}

static void reduce_all(struct redist_plan_s *p, const state *s)
{
    int self_done = p->self == NULL;
    for (int from = 0, to; from < p->recv.nmsgs; from = to) {
        int g = p->recv.msgs[s->order[from]].group;
        for (to = from + 1; to < p->recv.nmsgs && p->recv.msgs[s->order[to]].group == g;)
            to++;
        int with_self = !self_done && p->self->group == g;
        self_done |= with_self;
        reduce_class(p, s, from, to, with_self);
    }
    if (!self_done)
        reduce_class(p, s, 0, 0, 1); /* the self part's class has no other replica here */
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    int flag = 1;
    int rc = blocking ? MPI_Waitall(s->nreqs, s->reqs, MPI_STATUSES_IGNORE)
                      : MPI_Testall(s->nreqs, s->reqs, &flag, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "reduce-direct: MPI_Waitall failed");
    *done = flag;
    if (flag && !p->dry)
        reduce_all(p, s);
    return REDIST_SUCCESS;
}

const redist__algorithm redist__algo_reduce_direct = {
    .name = "reduce-direct",
    .applicable = applicable,
    .why_not = "needs options.reduce (partial sums)",
    .steps = redist__one_step,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .packs = 1,
    .reduces = 1,
};
