/* general: the enumerative method, [TCR96] §5.1 and [SD96] §3, the baseline both papers
 * improve on. It applies to every pair: any number of dimensions, grids, first coordinates
 * and rank lists, disjoint or overlapping process sets (and so intercommunicators).
 *
 * Send: for every local source element, in the lexicographic order of its local indices, the
 * global index per dimension (Table 1), then the destination coordinate along each dimension
 * and so the destination rank; append the element to that rank's packet. Receive: for every
 * local destination element, the source rank the same way; read the element from that
 * rank's packet. Both sides walk a pair's elements in increasing global (row-major) order
 * (local indices grow with global ones along each dimension), so the packets need no
 * indices: data only, one packet per pair. Synchronous receive (option synchronous_receive):
 * every packet first, then one scan; asynchronous (the default): each packet placed when it
 * arrives, by scanning the local array for the elements that come from its sender (the
 * array is scanned once per sender, as [TCR96] notes). The per-element owner lookups use one
 * table per dimension of the other layout's coordinate of each local index, built at plan
 * time (O(local extents) memory).
 *
 * Packets are the pattern's messages (their sizes and order), sent from and received into the
 * plan's pack buffers. Cost: the transport's moves, one start-up, a message cost per peer, and
 * the index work of every local element (about 2 ns each here):
 *   T_d + M t_msg + the moves of the transport + 2e-9 N_local.
 */
#include "algo/algo.h"
#include "algo/p001.h"
#include "exec/engine.h"

#include <stdlib.h>
#include <string.h>

/* One side's walk: the local shape and storage strides, and per dimension the other
   layout's coordinate of each local index. */
typedef struct walk {
    int ndims, in_layout;
    int64_t *shape, *stride, *idx;      /* [ndims]; idx: the walk's current local index */
    int *coords;                        /* [ndims]: scratch, the peer layout's coordinates */
    int **other;                        /* [k][l]: the peer's coordinate along k of local index l */
    const struct redist_layout_s *peer; /* the other layout: coordinates -> ranks */
} walk;

typedef struct state {
    walk out, in;  /* the source side's walk (to destination ranks) and the receiving one */
    int64_t *fill; /* [send msgs] elements packed so far */
    int64_t *read; /* [recv msgs] elements read so far */
    char *selfbuf; /* the self packet */
    int64_t self_fill, self_read;
    MPI_Request *reqs; /* receive chunks [0, nrecv), then send chunks */
    int *msg_of_req;   /* receive message of each receive request */
    int *chunks_left;  /* per receive message */
    int nrecv, nreqs, recvs_left, self_done, unpacked;
} state;

static void free_walk(walk *w)
{
    for (int k = 0; w->other != NULL && k < w->ndims; k++)
        free(w->other[k]);
    free(w->other);
    free(w->shape);
    free(w->stride);
    free(w->idx);
    free(w->coords);
}

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    free_walk(&s->out);
    free_walk(&s->in);
    free(s->fill);
    free(s->read);
    free(s->selfbuf);
    free(s->reqs);
    free(s->msg_of_req);
    free(s->chunks_left);
    free(s);
    p->algo_state = NULL;
}

/* The walk of `mine` (this rank's side) against `peer`: the global index of each local index
   along each dimension, and the peer layout's coordinate that owns it. */
static int make_walk(const struct redist_layout_s *mine, const struct redist_layout_s *peer,
                     int rank, walk *w)
{
    size_t d = (size_t)mine->ndims;
    w->ndims = mine->ndims;
    w->peer = peer;
    w->shape = malloc(d * sizeof *w->shape);
    w->stride = malloc(d * sizeof *w->stride);
    w->idx = malloc(d * sizeof *w->idx);
    w->coords = malloc(d * sizeof *w->coords);
    w->other = calloc(d, sizeof *w->other);
    if (!w->shape || !w->stride || !w->idx || !w->coords || !w->other)
        return REDIST_ERR_NOMEM;
    int pos = redist__layout_position(mine, rank);
    w->in_layout = pos >= 0;
    if (!w->in_layout)
        return REDIST_SUCCESS;
    redist__layout_coords_of(mine, pos, w->coords);
    for (size_t k = 0; k < d; k++)
        w->shape[k] = redist__local_extent(mine, (int)k, w->coords[k]);
    redist__local_strides(mine, w->shape, w->stride);
    for (size_t k = 0; k < d; k++) {
        int64_t b = mine->block[k], P = mine->grid[k];
        int64_t rel = ((int64_t)w->coords[k] - mine->first[k] + P) % P;
        if ((w->other[k] = malloc((size_t)(w->shape[k] + 1) * sizeof(int))) == NULL)
            return REDIST_ERR_NOMEM;
        for (int64_t l = 0; l < w->shape[k]; l++) /* Table 1: the global index, its owner */
            w->other[k][l] = redist__owner(peer, (int)k, (l / b * P + rel) * b + l % b);
    }
    return REDIST_SUCCESS;
}

/* Calls visit(ctx, offset, rank) for every local element in lexicographic order of its local
   indices: its offset in the local array and the other layout's rank that owns it. */
typedef void (*visit_fn)(void *ctx, int64_t offset, int rank);
static void walk_elements(walk *w, visit_fn visit, void *ctx)
{
    int d = w->ndims;
    int64_t count = w->in_layout;
    for (int k = 0; k < d; k++) {
        count *= w->shape[k];
        w->idx[k] = 0;
    }
    for (int64_t e = 0; e < count; e++) {
        int64_t offset = 0;
        for (int k = 0; k < d; k++) {
            offset += w->idx[k] * w->stride[k];
            w->coords[k] = w->other[k][w->idx[k]];
        }
        visit(ctx, offset, w->peer->ranks[redist__layout_position_of(w->peer, w->coords)]);
        for (int k = d - 1; k >= 0 && ++w->idx[k] == w->shape[k]; k--) /* last index fastest */
            w->idx[k] = 0;
    }
}

/* The message with `peer` on a side (sorted by peer), or -1. */
static int msg_of(const redist__side *side, int peer)
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

typedef struct copy_ctx {
    struct redist_plan_s *p;
    state *s;
    int only; /* unpacking: the one sender to place (-2: every sender) */
} copy_ctx;

static void pack_one(void *vctx, int64_t offset, int rank)
{
    copy_ctx *c = vctx;
    struct redist_plan_s *p = c->p;
    size_t es = p->elsize;
    const char *from = p->cur_src + offset * (int64_t)es;
    if (rank == p->rank) {
        memcpy(c->s->selfbuf + c->s->self_fill++ * (int64_t)es, from, es);
        return;
    }
    int i = msg_of(&p->send, rank);
    memcpy(p->sendbuf + (p->send.msgs[i].offset + c->s->fill[i]++) * (int64_t)es, from, es);
}

static void unpack_one(void *vctx, int64_t offset, int rank)
{
    copy_ctx *c = vctx;
    struct redist_plan_s *p = c->p;
    if (c->only != -2 && rank != c->only)
        return;
    size_t es = p->elsize;
    char *to = p->cur_dst + offset * (int64_t)es;
    if (rank == p->rank) {
        memcpy(to, c->s->selfbuf + c->s->self_read++ * (int64_t)es, es);
        return;
    }
    int i = msg_of(&p->recv, rank);
    memcpy(to, p->recvbuf + (p->recv.msgs[i].offset + c->s->read[i]++) * (int64_t)es, es);
}

static int setup(struct redist_plan_s *p)
{
    state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int err = make_walk(p->src, p->dst, p->rank, &s->out);
    if (err == REDIST_SUCCESS)
        err = make_walk(p->dst, p->src, p->rank, &s->in);
    int64_t nrecv = redist__side_requests(p, 0), nsend = redist__side_requests(p, 1);
    int64_t self = p->self ? p->self->nelems : 0;
    s->fill = calloc((size_t)p->send.nmsgs + 1, sizeof *s->fill);
    s->read = calloc((size_t)p->recv.nmsgs + 1, sizeof *s->read);
    s->reqs = malloc((size_t)(nrecv + nsend + 1) * sizeof *s->reqs);
    s->msg_of_req = malloc((size_t)(nrecv + 1) * sizeof *s->msg_of_req);
    s->chunks_left = malloc((size_t)p->recv.nmsgs * sizeof(int) + 1);
    s->selfbuf = redist__plan_buffer(p, (size_t)self * p->elsize + 1);
    if (!s->fill || !s->read || !s->reqs || !s->msg_of_req || !s->chunks_left || !s->selfbuf)
        return err != REDIST_SUCCESS ? err : REDIST_ERR_NOMEM;
    return err;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    memset(s->fill, 0, (size_t)p->send.nmsgs * sizeof *s->fill);
    memset(s->read, 0, (size_t)p->recv.nmsgs * sizeof *s->read);
    s->self_fill = s->self_read = 0;
    s->nreqs = 0;
    for (int i = 0; i < p->recv.nmsgs; i++) {
        int n = redist__post_recv(p, i, s->reqs + s->nreqs);
        if (n < 0)
            return n;
        for (int c = 0; c < n; c++)
            s->msg_of_req[s->nreqs + c] = i;
        s->chunks_left[i] = n;
        s->nreqs += n;
    }
    s->nrecv = s->nreqs;
    s->recvs_left = p->recv.nmsgs;
    if (!p->dry) {
        copy_ctx c = {p, s, -2};
        walk_elements(&s->out, pack_one, &c);
    }
    for (int i = 0; i < p->send.nmsgs; i++) {
        int n = redist__post_send(p, i, s->reqs + s->nreqs);
        if (n < 0)
            return n;
        s->nreqs += n;
    }
    s->self_done = s->unpacked = 0;
    return REDIST_SUCCESS;
}

/* Places every element from one sender (rank), or with rank -2 from every sender. */
static void place(struct redist_plan_s *p, state *s, int rank)
{
    if (p->dry)
        return;
    copy_ctx c = {p, s, rank};
    walk_elements(&s->in, unpack_one, &c);
}

static int receive(struct redist_plan_s *p, state *s, int blocking)
{
    if (p->opt.synchronous_receive) { /* every packet first, then one scan */
        int all = 1;
        int rc = blocking ? MPI_Waitall(s->nrecv, s->reqs, MPI_STATUSES_IGNORE)
                          : MPI_Testall(s->nrecv, s->reqs, &all, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "general: waiting for packets failed");
        if (all && !s->unpacked)
            place(p, s, -2);
        s->unpacked = all;
        s->recvs_left = all ? 0 : s->recvs_left;
        return REDIST_SUCCESS;
    }
    if (!s->self_done && p->self != NULL) /* the self packet is here already */
        place(p, s, p->rank);
    s->self_done = 1;
    while (s->recvs_left > 0) {
        int idx = MPI_UNDEFINED, flag = 1;
        int rc = blocking ? MPI_Waitany(s->nrecv, s->reqs, &idx, MPI_STATUS_IGNORE)
                          : MPI_Testany(s->nrecv, s->reqs, &idx, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "general: waiting for a packet failed");
        if (!flag || idx == MPI_UNDEFINED)
            return REDIST_SUCCESS;
        int i = s->msg_of_req[idx];
        if (--s->chunks_left[i] == 0) {
            place(p, s, p->recv.msgs[i].peer);
            s->recvs_left--;
        }
    }
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    *done = 0;
    int err = receive(p, s, blocking);
    if (err != REDIST_SUCCESS || s->recvs_left > 0)
        return err;
    int sent = 1, n = s->nreqs - s->nrecv;
    int rc = blocking ? MPI_Waitall(n, s->reqs + s->nrecv, MPI_STATUSES_IGNORE)
                      : MPI_Testall(n, s->reqs + s->nrecv, &sent, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "general: waiting for sends failed");
    *done = sent;
    return REDIST_SUCCESS;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt;
    return redist__cost_moves(c, m, transport) + m->startup +
           m->per_message * (double)c->t.max_messages +
           2e-9 * (double)c->t.max_local_bytes / (double)c->t.elsize;
}

const redist__algorithm redist__algo_general = {
    .name = "general",
    .applicable = redist__always_applicable,
    .steps = redist__one_step,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .check_options = redist__p001_check_options,
    .fingerprint_options = redist__p001_fingerprint_options,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .packs = 1,
};
