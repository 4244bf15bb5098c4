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
 * Threads (options.threads): each walk is cut into one part per thread, a range of its
 * elements in walk order; where each part starts in each packet (the elements of that packet
 * in the parts before it) is counted once at plan time, by a walk that moves no data. Each
 * thread then packs or places its parts' elements at their own packet positions: the same
 * bytes, in the same order, as one thread walking the whole array.
 *
 * Packets are the pattern's messages (their sizes and order), sent from and received into the
 * plan's pack buffers. Cost: the transport's moves, one start-up, a message cost per peer, and
 * the index work of every local element on both sides (the machine's per_index, 10 ns by
 * default: `redist bench` measured 8-30 ns here):
 *   T_d + M t_msg + the moves of the transport + 2 N_local per_index,
 * the index work divided among threads as the moves are (redist__machine_threads).
 */
#include "algo/algo.h"
#include "algo/packets.h"
#include "algo/tcr96.h"

#include <stdlib.h>
#include <string.h>

/* Where a part of a walk stands in one packet: while counting at plan time, the elements it
   put there; while packing or placing, the next byte it writes or reads. */
typedef union packet_pos {
    int64_t n;
    char *out;
    const char *in;
} packet_pos;

/* One side's walk: the local shape and storage strides, and per dimension the other
   layout's coordinate of each local index; cut into parts (threads), each with its own
   scratch row, rows a cache line apart (threads write them at every element). A slot is a
   packet: 0 the self packet, 1 + i message i of the side. */
typedef struct walk {
    int ndims, in_layout;
    int64_t *shape, *stride; /* [ndims] */
    int64_t origin;          /* element offset of the rank's first element (a window's phase) */
    int **other;             /* [k][l]: the peer's coordinate along k of local index l */
    const struct redist_layout_s *peer; /* the other layout: coordinates -> ranks */
    const redist__side *side;           /* the messages this walk fills or empties */
    int nparts, nslots;
    int64_t *first;  /* [nparts + 1]: the element (walk order) where part t starts */
    int64_t *before; /* [nparts][nslots]: elements of each packet in the parts before t */
    char *rows;      /* [nparts] rows of row_bytes: packet_pos[nslots], idx[ndims], coords */
    size_t row_bytes;
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
    redist__free(w->first);
    redist__free(w->before);
    redist__free(w->rows);
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

static packet_pos *row_pos(const walk *w, int t)
{
    return (packet_pos *)(void *)(w->rows + (size_t)t * w->row_bytes);
}
static int64_t *row_idx(const walk *w, int t)
{
    return (int64_t *)(void *)(row_pos(w, t) + w->nslots);
}
static int *row_coords(const walk *w, int t)
{
    return (int *)(void *)(row_idx(w, t) + w->ndims);
}

/* The walk of `mine` (this rank's side) against `peer`: the global index of each local index
   along each dimension, and the peer layout's coordinate that owns it. */
static int make_walk(const struct redist_plan_s *p, const struct redist_layout_s *mine,
                     const struct redist_layout_s *peer, const redist__side *side, walk *w)
{
    size_t d = (size_t)mine->ndims, n = (size_t)p->threads;
    w->ndims = mine->ndims;
    w->peer = peer;
    w->side = side;
    w->nparts = p->threads;
    w->nslots = 1 + side->nmsgs;
    size_t used = (size_t)w->nslots * sizeof(packet_pos) + d * (sizeof(int64_t) + sizeof(int));
    w->row_bytes = (used + 63) / 64 * 64 + 64; /* malloc aligns to 16: a line more between */
    w->shape = redist__malloc(d * sizeof *w->shape);
    w->stride = redist__malloc(d * sizeof *w->stride);
    w->other = redist__calloc(d, sizeof *w->other);
    w->first = redist__calloc(n + 1, sizeof *w->first);
    w->before = redist__calloc(n * (size_t)w->nslots, sizeof *w->before);
    w->rows = redist__malloc(n * w->row_bytes);
    if (!w->shape || !w->stride || !w->other || !w->first || !w->before || !w->rows)
        return REDIST_ERR_NOMEM;
    int pos = redist__layout_position(mine, p->rank);
    w->in_layout = pos >= 0;
    if (!w->in_layout)
        return REDIST_SUCCESS;
    int *coords = row_coords(w, 0);
    redist__layout_coords_of(mine, pos, coords);
    redist__storage_strides(mine, coords, w->stride);
    w->origin = 0;
    for (size_t k = 0; k < d; k++) {
        int64_t lo = redist__local_first(mine, (int)k, coords[k]);
        w->shape[k] = redist__local_extent(mine, (int)k, coords[k]);
        w->origin += lo * w->stride[k];
        if ((w->other[k] = redist__malloc((size_t)(w->shape[k] + 1) * sizeof(int))) == NULL)
            return REDIST_ERR_NOMEM;
        for (int64_t i = 0; i < w->shape[k]; i++) { /* Table 1: the global index, its owner */
            int64_t g = redist__global_index(mine, (int)k, coords[k], lo + i);
            w->other[k][i] = redist__owner(peer, (int)k, g);
        }
    }
    return REDIST_SUCCESS;
}

enum walk_mode { COUNT, PACK, PLACE };

/* Part t's positions in the packets before its first element. */
static void begin_part(const struct redist_plan_s *p, const state *s, const walk *w, int t,
                       enum walk_mode mode)
{
    packet_pos *pos = row_pos(w, t);
    const int64_t *before = w->before + (size_t)t * (size_t)w->nslots;
    int64_t es = (int64_t)p->elsize;
    for (int i = 0; i < w->nslots; i++) {
        if (mode == COUNT)
            pos[i].n = 0;
        else if (mode == PACK)
            pos[i].out = s->pk.out[i] + before[i] * es;
        else
            pos[i].in = s->pk.in[i] + before[i] * es;
    }
}

static inline void visit(const struct redist_plan_s *p, const state *s, enum walk_mode mode,
                         int64_t offset, int slot, packet_pos *pos)
{
    size_t es = p->elsize;
    if (mode == COUNT) {
        pos[slot].n++;
    } else if (mode == PACK) {
        memcpy(pos[slot].out, p->cur_src + offset * (int64_t)es, es);
        pos[slot].out += es;
    } else if (s->only == -2 || slot == s->only + 1) {
        redist__put(p->scale, p->cur_dst + offset * (int64_t)es, (int64_t)es, pos[slot].in,
                    (int64_t)es, 1, es);
        pos[slot].in += es;
    }
}

/* Visits every local element of part t of the walk, in lexicographic order of its local
   indices: its offset in the local array and its packet (the slot of the other layout's
   rank that owns it). */
static void walk_part(const struct redist_plan_s *p, const state *s, const walk *w, int t,
                      enum walk_mode mode)
{
    if (!w->in_layout) /* shape, stride and other are not set (make_walk) */
        return;
    begin_part(p, s, w, t, mode);
    if (w->first[t] == w->first[t + 1]) /* an empty part (or a zero extent: no element) */
        return;
    /* Locals, not w's fields: the packet writes go through char pointers, which may alias
       anything, so the compiler would reload every field at every element. */
    const int d = w->ndims, me = p->rank;
    const int64_t *shape = w->shape, *stride = w->stride, origin = w->origin;
    int *const *other = w->other;
    const struct redist_layout_s *peer = w->peer;
    const redist__side *side = w->side;
    int64_t *idx = row_idx(w, t), rest = w->first[t], end = w->first[t + 1];
    int *coords = row_coords(w, t);
    packet_pos *pos = row_pos(w, t);
    for (int k = d - 1; k >= 0; k--) { /* the part's first local index, last index fastest */
        idx[k] = rest % shape[k];
        rest /= shape[k];
    }
    for (int64_t e = w->first[t]; e < end; e++) {
        int64_t offset = origin;
        for (int k = 0; k < d; k++) {
            offset += idx[k] * stride[k];
            coords[k] = other[k][idx[k]];
        }
        int rank = peer->ranks[redist__layout_position_of(peer, coords)];
        visit(p, s, mode, offset, rank == me ? 0 : 1 + redist__msg_index(side, rank), pos);
        for (int k = d - 1; k >= 0 && ++idx[k] == shape[k]; k--)
            idx[k] = 0;
    }
}

typedef struct walk_job {
    const struct redist_plan_s *p;
    const state *s;
    const walk *w;
    enum walk_mode mode;
} walk_job;

/* Thread `thread` of `threads`: the parts thread, thread + threads, ... (any team size). */
static void walk_parts(void *arg, int thread, int threads)
{
    const walk_job *j = arg;
    for (int t = thread; t < j->w->nparts; t += threads) {
        if (j->mode == PACK) /* constant modes: the compiler drops visit's other branches */
            walk_part(j->p, j->s, j->w, t, PACK);
        else
            walk_part(j->p, j->s, j->w, t, PLACE);
    }
}

static void walk_all(const struct redist_plan_s *p, const state *s, const walk *w,
                     enum walk_mode mode)
{
    walk_job job = {p, s, w, mode};
    redist__par_run(p, w->first[w->nparts] * (int64_t)p->elsize, walk_parts, &job);
}

/* Plan time: the parts (equal ranges of elements) and where each starts in each packet. */
static void cut_walk(const struct redist_plan_s *p, walk *w)
{
    if (!w->in_layout) /* no elements: every part empty (first and before are zeros) */
        return;
    int64_t count = 1;
    for (int k = 0; k < w->ndims; k++)
        count *= w->shape[k];
    for (int t = 0; t <= w->nparts; t++)
        w->first[t] = count * t / w->nparts;
    size_t ns = (size_t)w->nslots;
    for (int t = 0; t + 1 < w->nparts; t++) { /* before[t + 1] = before[t] + part t's */
        walk_part(p, NULL, w, t, COUNT);
        for (size_t i = 0; i < ns; i++)
            w->before[(size_t)(t + 1) * ns + i] =
                w->before[(size_t)t * ns + i] + row_pos(w, t)[i].n;
    }
}

static void pack(struct redist_plan_s *p, void *algo)
{
    walk_all(p, algo, &((state *)algo)->out, PACK);
}

/* The asynchronous method: the whole local array scanned for one sender's elements. */
static void place_one(struct redist_plan_s *p, void *algo, int slot)
{
    state *s = algo;
    s->only = slot;
    walk_all(p, s, &s->in, PLACE);
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
    int err = make_walk(p, p->src, p->dst, &p->send, &s->out);
    if (err == REDIST_SUCCESS)
        err = make_walk(p, p->dst, p->src, &p->recv, &s->in);
    int err2 = redist__packets_setup(p, &s->pk, &ops, s);
    if (err != REDIST_SUCCESS || err2 != REDIST_SUCCESS)
        return err != REDIST_SUCCESS ? err : err2;
    cut_walk(p, &s->out);
    cut_walk(p, &s->in);
    return REDIST_SUCCESS;
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
           2.0 * m->per_index * (double)c->t.max_local_bytes / (double)c->t.elsize /
               (m->threads_speedup > 1.0 ? m->threads_speedup : 1.0); /* threads walk parts */
}

/* The walk finds each element's one owner per dimension: grids only. */
static int applicable(const redist__case *c)
{
    return c->s.beyond_grid ? REDIST_ERR_NOT_APPLICABLE : REDIST_SUCCESS;
}

const redist__algorithm redist__algo_general = {
    .name = "general",
    .applicable = applicable,
    .why_not = "needs block-cyclic or GEN_BLOCK layouts, neither boxes nor replicated "
               "dimensions (it finds each element's one owner by its grid coordinates)",
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
