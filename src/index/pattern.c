/* Patterns: the intersection of two block-cyclic layouts, in closed form (no MPI).
 *
 * Along one dimension, the source distribution repeats every b*P elements and the
 * destination every b'*P', so who-sends-what repeats with period L = lcm(b*P, b'*P') ([LBP96]
 * §3.1: the "superblock"; [SD96]: the diophantine solution set is periodic). Within
 * one period each source block splits at destination block boundaries into segments; each
 * segment is one run that recurs every L global elements, i.e. every L/P local elements on
 * the source side and every L/P' on the destination side. So a dimension's pattern is a list
 * of run groups (offset, length, count) computed from the blocks of one period: plan time and
 * memory grow with blocks per period, never with the number of elements.
 *
 * A dimension along which either layout gives each coordinate one contiguous interval (one
 * block per coordinate: the period would be the whole extent) takes [SD96]'s regular
 * sections instead (sections.c): at most three run groups per peer.
 *
 * N-D messages are Cartesian products of per-dimension run groups ([TCR96] §2: dimension
 * by dimension). A message's elements are ordered by the nesting of the source storage order
 * (slowest dimension outside), run group by run group, replica by replica; sender and
 * receiver compute identical run lists, so they agree on the order without sending indices.
 */
#include "index/index.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* lcm(a, b) if it is <= limit, else -1 (no overflow). */
static int64_t lcm_up_to(int64_t a, int64_t b, int64_t limit)
{
    int64_t q = a / redist__gcd64(a, b);
    if (q > limit / b)
        return -1;
    int64_t l = q * b;
    return l <= limit ? l : -1;
}

/* b * p if <= limit, else -1. */
static int64_t mul_up_to(int64_t b, int64_t p, int64_t limit)
{
    return b > limit / p ? -1 : b * p;
}

typedef struct segment {
    int64_t g, len;
    int other; /* coordinate of the other side */
} segment;

/* The period along dimension k: L = lcm(b P, b' P') when L <= n, else 0 (no repetition
   within the extent: the window is the whole extent). */
static int64_t dim_period(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                          int k)
{
    int64_t n = src->extent[k];
    int64_t a = mul_up_to(src->block[k], src->grid[k], n);
    int64_t b = mul_up_to(dst->block[k], dst->grid[k], n);
    if (a < 0 || b < 0)
        return 0;
    int64_t l = lcm_up_to(a, b, n);
    return l < 0 ? 0 : l;
}

/* Whether dimension k of l has irregular blocks (gen_block.c). */
static int gen_dim(const struct redist_layout_s *l, int k)
{
    return l->gen != NULL && l->gen[k] != NULL;
}

/* The first block index of coordinate `coord` of layout a along k (blocks of the extended
   window, window.c), and the number of blocks that meet [0, window) of the window. */
static int64_t first_block(const struct redist_layout_s *a, int k, int coord)
{
    int64_t i0 = ((int64_t)coord - a->first[k]) % a->grid[k];
    return i0 < 0 ? i0 + a->grid[k] : i0;
}
static int64_t blocks_in(const struct redist_layout_s *a, int k, int64_t window)
{
    return window == 0 ? 0 : (window + a->phase[k] - 1) / a->block[k] + 1;
}

/* Calls emit(g, len, other_coord) for the segments of coordinate `coord` of layout A within
   [0, window), split at the block boundaries of layout B, in increasing g. Block i of A's
   extended window covers [i ba - phase, (i + 1) ba - phase) of the window. Every sum stays
   below window + phase + window <= 2^63 whatever the blocks (up to INT64_MAX). An irregular
   side (never a window, so no phase) reaches here only against a window with a phase, which
   the sections do not handle: its blocks are its intervals (gen_block.c). */
typedef void (*emit_fn)(void *ctx, int64_t g, int64_t len, int other);
static void split_at_b(const struct redist_layout_s *b, int k, int64_t g, int64_t end, emit_fn emit,
                       void *ctx)
{
    int64_t bb = b->block[k], pb = b->grid[k], fb = b->phase[k];
    while (g < end) {
        int64_t e, other;
        if (gen_dim(b, k)) {
            int64_t j = redist__gen_block_of(b, k, g);
            e = b->gen[k][j + 1] < end ? b->gen[k][j + 1] : end;
            other = (j + b->first[k]) % pb;
        } else {
            int64_t to_boundary = bb - (g + fb) % bb;
            e = to_boundary < end - g ? g + to_boundary : end;
            other = ((g + fb) / bb + b->first[k]) % pb;
        }
        emit(ctx, g, e - g, (int)other);
        g = e;
    }
}
static void walk_segments(const struct redist_layout_s *a, const struct redist_layout_s *b, int k,
                          int coord, int64_t window, emit_fn emit, void *ctx)
{
    int64_t ba = a->block[k], pa = a->grid[k];
    int64_t fa = a->phase[k];
    if (gen_dim(a, k)) {
        int64_t i = first_block(a, k, coord), lo = a->gen[k][i], hi = a->gen[k][i + 1];
        split_at_b(b, k, lo < window ? lo : window, hi < window ? hi : window, emit, ctx);
        return;
    }
    int64_t nblocks = blocks_in(a, k, window);
    for (int64_t i = first_block(a, k, coord); i < nblocks; i += pa) {
        int64_t from = i * ba, left = window + fa - from; /* extended-window indices */
        int64_t g = from > fa ? from - fa : 0, end = (ba < left ? from + ba : window + fa) - fa;
        split_at_b(b, k, g, end, emit, ctx);
    }
}

/* An upper bound on the segments walk_segments emits, computed without walking: the
   coordinate's blocks, each cut at most ba/bb + 1 times, and at most one cut per block of B.
   An irregular A: its one interval; an irregular B: any of its blocks may cut. */
static double segments_bound(const struct redist_layout_s *a, const struct redist_layout_s *b,
                             int k, int coord, int64_t window)
{
    double mine, cuts_per_block;
    if (gen_dim(a, k)) {
        int64_t i = first_block(a, k, coord), lo = a->gen[k][i], hi = a->gen[k][i + 1];
        int64_t len = (hi < window ? hi : window) - (lo < window ? lo : window);
        mine = len > 0 ? 1.0 : 0.0;
        cuts_per_block = (double)(len / b->block[k]) + 2.0;
    } else {
        int64_t nblocks = blocks_in(a, k, window), i0 = first_block(a, k, coord);
        mine = i0 < nblocks ? (double)((nblocks - 1 - i0) / a->grid[k] + 1) : 0.0;
        cuts_per_block = (double)(a->block[k] / b->block[k]) + 2.0;
    }
    double b_blocks = gen_dim(b, k) ? (double)b->grid[k] : (double)blocks_in(b, k, window);
    double cuts = gen_dim(b, k) ? b_blocks : mine * cuts_per_block;
    return mine + (cuts < b_blocks ? cuts : b_blocks);
}

/* Bytes of plan per segment: the segment itself and up to two run groups. */
#define BYTES_PER_SEGMENT ((double)(sizeof(segment) + 2 * sizeof(redist__run)))

/* A pattern that could not fit in this machine's memory is refused before it is walked, so
   planning time stays bounded whatever the extents and blocks. */
static int check_pattern_size(const struct redist_layout_s *a, const struct redist_layout_s *b,
                              int k, int coord, int64_t window)
{
    double bytes = segments_bound(a, b, k, coord, window) * BYTES_PER_SEGMENT;
    double limit = redist__memory_limit();
    if (bytes <= limit)
        return REDIST_SUCCESS;
    return redist__fail(
        REDIST_ERR_NOMEM,
        "the pattern along dimension %d would take up to %.3g GB for one rank (block %lld -> %lld over %lld elements); this machine has %.3g GB",
        k, bytes / 1e9, (long long)a->block[k], (long long)b->block[k], (long long)window,
        limit / 1e9);
}

typedef struct segment_list {
    int64_t n;
    segment *segs; /* NULL: count only */
} segment_list;

static void collect_segment(void *ctx, int64_t g, int64_t len, int other)
{
    segment_list *l = ctx;
    if (l->segs != NULL)
        l->segs[l->n] = (segment){g, len, other};
    l->n++;
}

/* By peer, then by global index: each peer's segments in increasing g, the order sender and
   receiver share. */
static int compare_segments(const void *pa, const void *pb)
{
    const segment *a = pa, *b = pb;
    if (a->other != b->other)
        return (a->other > b->other) - (a->other < b->other);
    return (a->g > b->g) - (a->g < b->g);
}

/* Orders segs (emitted in increasing g) by peer, keeping g increasing within a peer: a
   counting sort over the npeer coordinates when that array is no larger than the segments
   (linear time), else a comparison sort (independent of the number of processes). */
static int order_by_peer(segment *segs, int64_t n, int npeer)
{
    if (n < 2)
        return REDIST_SUCCESS;
    if ((int64_t)npeer > n) {
        qsort(segs, (size_t)n, sizeof *segs, compare_segments);
        return REDIST_SUCCESS;
    }
    int64_t *start = redist__calloc((size_t)npeer + 1, sizeof *start);
    segment *sorted = redist__malloc((size_t)n * sizeof *sorted);
    if (start == NULL || sorted == NULL) {
        redist__free(start);
        redist__free(sorted);
        return REDIST_ERR_NOMEM;
    }
    for (int64_t s = 0; s < n; s++)
        start[segs[s].other + 1]++;
    for (int q = 0; q < npeer; q++)
        start[q + 1] += start[q];
    for (int64_t s = 0; s < n; s++) /* stable: g stays increasing within a peer */
        sorted[start[segs[s].other]++] = segs[s];
    memcpy(segs, sorted, (size_t)n * sizeof *segs);
    redist__free(start);
    redist__free(sorted);
    return REDIST_SUCCESS;
}

/* Appends run r to the runs of one peer, merging with the previous run when the two are
   adjacent on both sides (so sender and receiver, applying the same rule to the same list,
   get the same result). */
static void append_run(redist__run *runs, int64_t *n, redist__run r, int64_t sp, int64_t dp)
{
    if (r.count > 1 && r.len == sp && r.len == dp) { /* replicas abut on both sides */
        r.len *= r.count;
        r.count = 1;
    }
    if (*n > 0) {
        redist__run *p = &runs[*n - 1];
        if (p->count == r.count && p->src_off + p->len == r.src_off &&
            p->dst_off + p->len == r.dst_off) {
            p->len += r.len;
            return;
        }
    }
    runs[(*n)++] = r;
}

/* Turns the segments of one period into run groups: each recurs `full` times with the
   period, and a last truncated replica may remain at the end of the extent. */
static void segments_to_runs(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                             int k, int64_t period, const segment *segs, int64_t nsegs,
                             redist__run *runs, int64_t *nruns, int64_t *elems)
{
    int64_t n = src->extent[k];
    int64_t sp = period ? period / src->grid[k] : 0, dp = period ? period / dst->grid[k] : 0;
    *nruns = 0;
    *elems = 0;
    for (int64_t s = 0; s < nsegs; s++) {
        int64_t g = segs[s].g, len = segs[s].len;
        int64_t full = period ? (n - g - len) / period + 1 : 1;
        redist__run r = {redist__local_index(src, k, g), redist__local_index(dst, k, g), len, full};
        append_run(runs, nruns, r, sp, dp);
        *elems += len * full;
        int64_t tail = g + full * period;
        if (period && tail < n) {
            redist__run t = {r.src_off + full * sp, r.dst_off + full * dp,
                             n - tail < len ? n - tail : len, 1};
            append_run(runs, nruns, t, sp, dp);
            *elems += t.len;
        }
    }
}

void redist__dim_pattern_free(redist__dim_pattern *p)
{
    if (p == NULL)
        return;
    redist__free(p->peer);
    redist__free(p->first_run);
    redist__free(p->elems);
    redist__free(p->runs);
    memset(p, 0, sizeof *p);
}

/* Runs that lie back to back on both sides are one run: the replicas of a run group when the
   period advances one run on each side (a block that stays with its coordinate, as between
   identical layouts), and a peer's consecutive single runs (such a group and the partial
   block after it). Rows then move with one memcpy each, and contiguous levels merge
   (redist__merge_levels), so that a kept local array moves with one memcpy, with the
   streaming stores memcpy uses for large copies, instead of one per block. */
static void fold_back_to_back(redist__dim_pattern *p)
{
    int64_t out = 0;
    for (int i = 0; i < p->npeers; i++) {
        int64_t first = out;
        for (int64_t r = p->first_run[i]; r < p->first_run[i + 1]; r++) {
            redist__run run = p->runs[r];
            if (run.count > 1 && run.len == p->src_period && run.len == p->dst_period) {
                run.len *= run.count;
                run.count = 1;
            }
            redist__run *last = out > first ? &p->runs[out - 1] : NULL;
            if (last != NULL && last->count == 1 && run.count == 1 &&
                run.src_off == last->src_off + last->len &&
                run.dst_off == last->dst_off + last->len)
                last->len += run.len;
            else
                p->runs[out++] = run;
        }
        p->first_run[i] = first;
    }
    p->first_run[p->npeers] = out;
}

int redist__dim_pattern_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                               int k, int side, int coord, redist__dim_pattern *out)
{
    if ((redist__interval_dim(src, k) || redist__interval_dim(dst, k)) && src->phase[k] == 0 &&
        dst->phase[k] == 0) {
        int err = redist__dim_sections_create(src, dst, k, side, coord, out);
        if (err == REDIST_SUCCESS)
            fold_back_to_back(out);
        return err;
    }
    const struct redist_layout_s *a = side == REDIST__SIDE_SRC ? src : dst;
    const struct redist_layout_s *b = side == REDIST__SIDE_SRC ? dst : src;
    int64_t period = dim_period(src, dst, k);
    int64_t window = period ? period : src->extent[k];
    memset(out, 0, sizeof *out);
    out->src_period = period ? period / src->grid[k] : 0;
    out->dst_period = period ? period / dst->grid[k] : 0;

    /* The segments, then ordered by peer (order_by_peer: no work proportional to the other
       side's grid when it is larger than the pattern; explain builds every rank's). */
    int err = check_pattern_size(a, b, k, coord, window);
    if (err != REDIST_SUCCESS)
        return err;
    segment_list list = {0, NULL};
    walk_segments(a, b, k, coord, window, collect_segment, &list);
    int64_t nsegs = list.n;
    list = (segment_list){0, redist__malloc((size_t)(nsegs ? nsegs : 1) * sizeof *list.segs)};
    if (list.segs != NULL)
        walk_segments(a, b, k, coord, window, collect_segment, &list);
    if (list.segs != NULL && order_by_peer(list.segs, nsegs, b->grid[k]) != REDIST_SUCCESS) {
        redist__free(list.segs);
        list.segs = NULL;
    }
    for (int64_t s = 0; list.segs != NULL && s < nsegs; s++)
        out->npeers += s == 0 || list.segs[s].other != list.segs[s - 1].other;
    /* Each segment gives at most a full group and a tail. */
    out->runs = redist__malloc((size_t)(2 * nsegs + 1) * sizeof *out->runs);
    out->peer = redist__malloc((size_t)(out->npeers + 1) * sizeof *out->peer);
    out->elems = redist__malloc((size_t)(out->npeers + 1) * sizeof *out->elems);
    out->first_run = redist__malloc((size_t)(out->npeers + 1) * sizeof *out->first_run);
    err = REDIST_ERR_NOMEM;
    if (!list.segs || !out->runs || !out->peer || !out->elems || !out->first_run)
        goto done;
    int64_t nruns = 0;
    int i = 0;
    for (int64_t s = 0, e; s < nsegs; s = e) {
        for (e = s + 1; e < nsegs && list.segs[e].other == list.segs[s].other;)
            e++;
        int64_t n = 0;
        segments_to_runs(src, dst, k, period, list.segs + s, e - s, out->runs + nruns, &n,
                         &out->elems[i]);
        out->peer[i] = list.segs[s].other;
        out->first_run[i] = nruns;
        nruns += n;
        i++;
    }
    out->first_run[i] = nruns;
    fold_back_to_back(out);
    err = REDIST_SUCCESS;
done:
    redist__free(list.segs);
    if (err != REDIST_SUCCESS) {
        redist__dim_pattern_free(out);
        return redist__fail_context(err, "pattern of dimension %d", k);
    }
    return REDIST_SUCCESS;
}

/* ---- N-D messages ---------------------------------------------------------------------- */

void redist__side_free(redist__side *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->nmsgs; i++)
        redist__msg_free(&s->msgs[i]);
    redist__free(s->msgs);
    for (int k = 0; s->dims != NULL && k < s->ndims; k++)
        redist__dim_pattern_free(&s->dims[k]);
    redist__free(s->dims);
    memset(s, 0, sizeof *s);
}

int64_t redist__side_runs(const redist__side *s)
{
    int64_t n = 0;
    for (int k = 0; s->dims != NULL && k < s->ndims; k++)
        n += s->dims[k].first_run ? s->dims[k].first_run[s->dims[k].npeers] : 0;
    return n;
}

static int compare_peer(const void *a, const void *b)
{
    int pa = ((const redist__msg *)a)->peer, pb = ((const redist__msg *)b)->peer;
    return (pa > pb) - (pa < pb);
}

typedef struct side_work {
    int *mine, *peer, *idx; /* [ndims] coordinates and per-dimension peer indices */
    int64_t *src_stride, *dst_stride;
    int rank; /* the rank whose side this is */
} side_work;

static int build_msg(const struct redist_layout_s *src, const struct redist_layout_s *dst, int side,
                     const redist__side *s, side_work *w, int peer, redist__msg *m)
{
    int d = s->ndims;
    m->peer = peer;
    /* This rank's strides on its side, and on the other for its self part (copied with
       them); a guess for the peer's (redist__peer_strides). */
    int self = m->peer == w->rank, src_side = side == REDIST__SIDE_SRC;
    if (src_side || self)
        redist__storage_strides(src, src_side ? w->mine : w->peer, w->src_stride);
    else
        redist__peer_strides(src, w->peer, w->src_stride);
    if (!src_side || self)
        redist__storage_strides(dst, src_side ? w->peer : w->mine, w->dst_stride);
    else
        redist__peer_strides(dst, w->peer, w->dst_stride);
    m->nlevels = d;
    m->nelems = 1;
    m->levels = redist__malloc((size_t)d * sizeof *m->levels);
    if (m->levels == NULL)
        return REDIST_ERR_NOMEM;
    for (int l = 0; l < d; l++) {
        int k = redist__level_dim(src, l);
        const redist__dim_pattern *p = &s->dims[k];
        int64_t first = p->first_run[w->idx[k]], n = p->first_run[w->idx[k] + 1] - first;
        const redist__run *runs = p->runs + first;
        m->levels[l] = (redist__level){runs,
                                       n,
                                       redist__used_period(runs, n, p->src_period),
                                       redist__used_period(runs, n, p->dst_period),
                                       w->src_stride[k],
                                       w->dst_stride[k]};
        m->nelems *= p->elems[w->idx[k]];
    }
    return redist__merge_levels(m);
}

static int alloc_work(side_work *w, int d)
{
    w->mine = redist__calloc((size_t)d, sizeof(int));
    w->peer = redist__calloc((size_t)d, sizeof(int));
    w->idx = redist__calloc((size_t)d, sizeof(int));
    w->src_stride = redist__calloc((size_t)d, sizeof(int64_t));
    w->dst_stride = redist__calloc((size_t)d, sizeof(int64_t));
    return w->mine && w->peer && w->idx && w->src_stride && w->dst_stride ? REDIST_SUCCESS
                                                                          : REDIST_ERR_NOMEM;
}

static void free_work(side_work *w)
{
    redist__free(w->mine);
    redist__free(w->peer);
    redist__free(w->idx);
    redist__free(w->src_stride);
    redist__free(w->dst_stride);
}

/* Enumerates the Cartesian product of the per-dimension peers (mixed radix). */
static int build_msgs(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                      int side, redist__side *s, side_work *w)
{
    int64_t n = 1;
    for (int k = 0; k < s->ndims; k++)
        n *= s->dims[k].npeers;
    /* Every replica of a destination receives: one message each; from a partial source,
       every replica sends. */
    int per = side == REDIST__SIDE_SRC ? dst->nreplicas : src->partial ? src->nreplicas : 1;
    n *= per;
    if (n > INT_MAX)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "more than INT_MAX messages");
    if (n == 0)
        return REDIST_SUCCESS;
    s->msgs = redist__calloc((size_t)n, sizeof *s->msgs);
    if (s->msgs == NULL)
        return REDIST_ERR_NOMEM;
    const struct redist_layout_s *other = side == REDIST__SIDE_SRC ? dst : src;
    int my_base = redist__base_position(
        side == REDIST__SIDE_SRC ? src : dst,
        redist__layout_position_of(side == REDIST__SIDE_SRC ? src : dst, w->mine));
    n /= per;
    for (int64_t i = 0; i < n; i++) {
        for (int k = 0; k < s->ndims; k++)
            w->peer[k] = s->dims[k].peer[w->idx[k]];
        int base = redist__layout_position_of(other, w->peer); /* the class's first replica */
        for (int j = 0; j < per; j++) {
            int peer = side == REDIST__SIDE_SRC ? dst->ranks[redist__replica_position(dst, base, j)]
                       : src->partial           ? src->ranks[redist__replica_position(src, base, j)]
                                                : redist__source_holder(src, base, w->rank);
            /* A replicated source: this rank sends only what falls to it (replicas.c). */
            if (side == REDIST__SIDE_SRC && src->nreplicas > 1 && !src->partial &&
                redist__source_holder(src, my_base, peer) != w->rank)
                continue;
            redist__msg *m = &s->msgs[s->nmsgs];
            int err = build_msg(src, dst, side, s, w, peer, m);
            s->nmsgs++;
            if (err != REDIST_SUCCESS)
                return err;
            m->group = src->partial && side == REDIST__SIDE_DST ? base : -1;
            m->replica = src->partial && side == REDIST__SIDE_DST ? j : 0;
            s->total_elems += s->msgs[s->nmsgs - 1].nelems;
        }
        for (int k = s->ndims - 1; k >= 0; k--) { /* next index, last dimension fastest */
            if (++w->idx[k] < s->dims[k].npeers)
                break;
            w->idx[k] = 0;
        }
    }
    qsort(s->msgs, (size_t)s->nmsgs, sizeof *s->msgs, compare_peer);
    return REDIST_SUCCESS;
}

int redist__side_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                        int side, int rank, redist__side *out)
{
    if (src->box != NULL || dst->box != NULL)
        return redist__box_side_create(src, dst, side, rank, out);
    const struct redist_layout_s *mine = side == REDIST__SIDE_SRC ? src : dst;
    memset(out, 0, sizeof *out);
    out->ndims = src->ndims;
    int pos = redist__layout_position(mine, rank);
    if (pos < 0)
        return REDIST_SUCCESS;
    out->in_layout = 1;
    side_work w = {0};
    w.rank = rank;
    int err = alloc_work(&w, src->ndims);
    out->dims = redist__calloc((size_t)src->ndims, sizeof *out->dims);
    if (err != REDIST_SUCCESS || out->dims == NULL) {
        err = REDIST_ERR_NOMEM;
        goto done;
    }
    redist__layout_coords_of(mine, pos, w.mine);
    for (int k = 0; k < src->ndims && err == REDIST_SUCCESS; k++)
        err = redist__dim_pattern_create(src, dst, k, side, w.mine[k], &out->dims[k]);
    if (err == REDIST_SUCCESS)
        err = build_msgs(src, dst, side, out, &w);
done:
    free_work(&w);
    if (err != REDIST_SUCCESS) {
        redist__side_free(out);
        return redist__fail_context(err, "building the messages of rank %d", rank);
    }
    return REDIST_SUCCESS;
}

/* Removes the message to or from `rank` itself; returns it through *self (if non-NULL). */
static void take_self(redist__side *s, int rank, redist__msg *self, int *found)
{
    *found = 0;
    for (int i = 0; i < s->nmsgs; i++) {
        if (s->msgs[i].peer != rank)
            continue;
        if (self != NULL)
            *self = s->msgs[i];
        else
            redist__msg_free(&s->msgs[i]);
        memmove(&s->msgs[i], &s->msgs[i + 1], (size_t)(s->nmsgs - i - 1) * sizeof *s->msgs);
        s->nmsgs--;
        *found = 1;
        return;
    }
}

static void assign_offsets(redist__side *s)
{
    s->total_elems = 0;
    for (int i = 0; i < s->nmsgs; i++) {
        s->msgs[i].offset = s->total_elems;
        s->total_elems += s->msgs[i].nelems;
    }
}

int redist__sides_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                         int rank, redist__side *send, redist__side *recv, redist__msg *self,
                         int *has_self)
{
    memset(recv, 0, sizeof *recv);
    int err = redist__side_create(src, dst, REDIST__SIDE_SRC, rank, send);
    if (err == REDIST_SUCCESS)
        err = redist__side_create(src, dst, REDIST__SIDE_DST, rank, recv);
    if (err != REDIST_SUCCESS) {
        redist__side_free(send);
        redist__side_free(recv);
        return err;
    }
    int found = 0;
    redist__msg received = {0};
    take_self(send, rank, self, has_self);
    take_self(recv, rank, &received, &found);
    if (*has_self && found) { /* a partial value's class and replica are the receiver's */
        self->group = received.group;
        self->replica = received.replica;
    }
    if (found)
        redist__msg_free(&received);
    assign_offsets(send);
    assign_offsets(recv);
    return REDIST_SUCCESS;
}
