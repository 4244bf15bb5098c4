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
 * the index work of every local element on both sides (the machine's per_index, 10 ns by
 * default: `redist bench` measured 8-30 ns here):
 *   T_d + M t_msg + the moves of the transport + 2 N_local per_index.
 */
#include "algo/algo.h"
#include "algo/packets.h"
#include "algo/tcr96.h"

#include <stdlib.h>
#include <string.h>

/* One side's walk: the local shape and storage strides, and per dimension the other
   layout's coordinate of each local index. */
typedef struct walk {
    int ndims, in_layout;
    int64_t *shape, *stride, *idx; /* [ndims]; idx: the walk's current local index */
    int64_t origin; /* element offset of the rank's first element (a window's phase) */
    int *coords;    /* [ndims]: scratch, the peer layout's coordinates */
    int **other;    /* [k][l]: the peer's coordinate along k of local index l */
    const struct redist_layout_s *peer; /* the other layout: coordinates -> ranks */
} walk;

typedef struct state {
    redist__packets pk;
    walk out, in; /* the source side's walk (to destination ranks) and the receiving one */
    int only;     /* unpacking: the one slot to place, or every slot (-2) */
} state;

static void free_walk(walk *w)
{
    for (int k = 0; w->other != NULL && k < w->ndims; k++)
        redist__free(w->other[k]);
    redist__free(w->other);
    redist__free(w->shape);
    redist__free(w->stride);
    redist__free(w->idx);
    redist__free(w->coords);
}

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    free_walk(&s->out);
    free_walk(&s->in);
    redist__packets_free(&s->pk);
    redist__free(s);
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
    w->shape = redist__malloc(d * sizeof *w->shape);
    w->stride = redist__malloc(d * sizeof *w->stride);
    w->idx = redist__malloc(d * sizeof *w->idx);
    w->coords = redist__malloc(d * sizeof *w->coords);
    w->other = redist__calloc(d, sizeof *w->other);
    if (!w->shape || !w->stride || !w->idx || !w->coords || !w->other)
        return REDIST_ERR_NOMEM;
    int pos = redist__layout_position(mine, rank);
    w->in_layout = pos >= 0;
    if (!w->in_layout)
        return REDIST_SUCCESS;
    redist__layout_coords_of(mine, pos, w->coords);
    redist__storage_strides(mine, w->coords, w->stride);
    w->origin = 0;
    for (size_t k = 0; k < d; k++) {
        int64_t lo = redist__local_first(mine, (int)k, w->coords[k]);
        w->shape[k] = redist__local_extent(mine, (int)k, w->coords[k]);
        w->origin += lo * w->stride[k];
        if ((w->other[k] = redist__malloc((size_t)(w->shape[k] + 1) * sizeof(int))) == NULL)
            return REDIST_ERR_NOMEM;
        for (int64_t i = 0; i < w->shape[k]; i++) { /* Table 1: the global index, its owner */
            int64_t g = redist__global_index(mine, (int)k, w->coords[k], lo + i);
            w->other[k][i] = redist__owner(peer, (int)k, g);
        }
    }
    return REDIST_SUCCESS;
}

/* Calls visit(p, s, offset, rank) for every local element in lexicographic order of its
   local indices: its offset in the local array and the other layout's rank that owns it. */
typedef void (*visit_fn)(struct redist_plan_s *p, state *s, int64_t offset, int rank);
static void walk_elements(struct redist_plan_s *p, state *s, walk *w, visit_fn visit)
{
    int d = w->ndims;
    int64_t count = w->in_layout;
    if (!w->in_layout) /* shape, stride and other are not set (make_walk) */
        return;
    for (int k = 0; k < d; k++) {
        count *= w->shape[k];
        w->idx[k] = 0;
    }
    for (int64_t e = 0; e < count; e++) {
        int64_t offset = w->origin;
        for (int k = 0; k < d; k++) {
            offset += w->idx[k] * w->stride[k];
            w->coords[k] = w->other[k][w->idx[k]];
        }
        visit(p, s, offset, w->peer->ranks[redist__layout_position_of(w->peer, w->coords)]);
        for (int k = d - 1; k >= 0 && ++w->idx[k] == w->shape[k]; k--) /* last index fastest */
            w->idx[k] = 0;
    }
}

static void pack_one(struct redist_plan_s *p, state *s, int64_t offset, int rank)
{
    int slot = rank == p->rank ? REDIST__SELF_SLOT : redist__msg_index(&p->send, rank);
    memcpy(redist__packet_append(&s->pk, slot, p->elsize), p->cur_src + offset * (int64_t)p->elsize,
           p->elsize);
}

static void unpack_one(struct redist_plan_s *p, state *s, int64_t offset, int rank)
{
    int slot = rank == p->rank ? REDIST__SELF_SLOT : redist__msg_index(&p->recv, rank);
    if (s->only != -2 && slot != s->only)
        return;
    redist__put(p->scale, p->cur_dst + offset * (int64_t)p->elsize, (int64_t)p->elsize,
                redist__packet_next(&s->pk, slot, p->elsize), (int64_t)p->elsize, 1, p->elsize);
}

static void pack(struct redist_plan_s *p, void *algo)
{
    state *s = algo;
    walk_elements(p, s, &s->out, pack_one);
}

/* The asynchronous method: the whole local array scanned for one sender's elements. */
static void place_one(struct redist_plan_s *p, void *algo, int slot)
{
    state *s = algo;
    s->only = slot;
    walk_elements(p, s, &s->in, unpack_one);
}

static void place_all(struct redist_plan_s *p, void *algo)
{
    place_one(p, algo, -2);
}

static const redist__packet_ops ops = {pack, place_one, place_all};

static int setup(struct redist_plan_s *p)
{
    state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int err = make_walk(p->src, p->dst, p->rank, &s->out);
    if (err == REDIST_SUCCESS)
        err = make_walk(p->dst, p->src, p->rank, &s->in);
    int err2 = redist__packets_setup(p, &s->pk, &ops, s);
    return err != REDIST_SUCCESS ? err : err2;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    return redist__packets_start(p, &s->pk);
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    return redist__packets_progress(p, &s->pk, blocking, done);
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt;
    return redist__cost_moves(c, m, transport) + m->startup +
           m->per_message * (double)c->t.max_messages +
           2.0 * m->per_index * (double)c->t.max_local_bytes / (double)c->t.elsize;
}

const redist__algorithm redist__algo_general = {
    .name = "general",
    .applicable = redist__always_applicable,
    .steps = redist__one_step,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .check_options = redist__tcr96_check_options,
    .fingerprint_options = redist__tcr96_fingerprint_options,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .packs = 1,
};
