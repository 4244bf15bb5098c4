/* Boxes (no MPI): one box per rank, FFT codes' pencils, slabs and bricks (heFFTe's box3d,
 * nvmath's Box), in any number of dimensions, any sizes, empty boxes anywhere, boxes that
 * need not come from one grid.
 *
 * A box is an interval along every dimension, stored densely, so the part of a box that
 * another rank holds is an interval along each dimension too (against another box), or at
 * most three run groups of that rank's blocks (against a block-cyclic or GEN_BLOCK grid:
 * a clipped first block, the full blocks as one group, a clipped last block, as [SD96] §4's
 * regular sections): a message is built per box pair or per block run, never per element.
 *
 * Which boxes meet a region is found by sort and sweep: at creation the nonempty boxes are
 * sorted by their lower corner along every dimension (a radix sort: O(B) per dimension for
 * B boxes, box_layout.c); a query bounds, by two binary searches along each dimension, the
 * boxes that start before the region ends and after its start minus the longest box, and
 * scans the dimension with the fewest candidates, checking each against the others.
 *
 * Identical boxes are replicas (replicas.c): the first position with a box is its class's
 * base. Boxes of a source may overlap only as replicas: two different source boxes sharing
 * elements would make a message that is not one box per pair (REDIST_ERR_UNSUPPORTED, said
 * at plan creation). An element that a destination box holds and no source box holds is
 * REDIST_ERR_ARG, found by counting what each destination rank receives.
 */
#include "index/index.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- which boxes meet a region (sort and sweep) ------------------------------------------ */

/* Boxes whose lower corner along k is below v: a binary search of the sorted positions. */
static int count_below(const struct redist_layout_s *l, const int *sorted, int k, int64_t v)
{
    int lo = 0, hi = l->box_nonempty;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (redist__box_lower(l, sorted[mid])[k] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int box_meets(const struct redist_layout_s *l, int p, const int64_t *lo, const int64_t *hi)
{
    for (int k = 0; k < l->ndims; k++)
        if (redist__box_lower(l, p)[k] >= hi[k] || redist__box_upper(l, p)[k] <= lo[k])
            return 0;
    return 1;
}

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The positions of the nonempty boxes of l meeting the region [lo, hi) (nonempty), in
   increasing order, into *out (allocated; *n of them). Along dimension k a box meeting the
   region starts before hi[k] and after lo[k] - maxlen[k] (no box is longer): a slice of the
   boxes sorted by lower corner, bounded by two binary searches. The dimension with the
   thinnest slice is scanned, each box checked along every dimension. */
static int boxes_meeting(const struct redist_layout_s *l, const int64_t *lo, const int64_t *hi,
                         int **out, int *n)
{
    int N = l->box_nonempty, best_k = 0, best_from = 0, best_to = N;
    for (int k = 0; k < l->ndims; k++) {
        const int *by_lo = l->box_by_lo + (size_t)k * (size_t)N;
        int to = count_below(l, by_lo, k, hi[k]);
        int64_t reach = lo[k] - l->box_maxlen[k]; /* a box starting at or before this ends
                                                     at or before lo[k] */
        int from = reach < 0 ? 0 : count_below(l, by_lo, k, reach + 1);
        if (to - from < best_to - best_from)
            best_k = k, best_from = from, best_to = to;
    }
    const int *scan = l->box_by_lo + (size_t)best_k * (size_t)N;
    *n = 0;
    *out = redist__malloc(((size_t)(best_to > best_from ? best_to - best_from : 0) + 1) *
                          sizeof **out);
    if (*out == NULL)
        return REDIST_ERR_NOMEM;
    for (int i = best_from; i < best_to; i++)
        if (box_meets(l, scan[i], lo, hi))
            (*out)[(*n)++] = scan[i];
    if (*n > 1)
        qsort(*out, (size_t)*n, sizeof **out, compare_int);
    return REDIST_SUCCESS;
}

/* ---- one dimension of a message ---------------------------------------------------------- */

static void put_run(redist__dim_runs *out, int64_t grid_local, int64_t box_local, int64_t len,
                    int64_t count, int box_is_src)
{
    redist__run r = {box_is_src ? box_local : grid_local, box_is_src ? grid_local : box_local, len,
                     count};
    out->runs[out->nruns++] = r;
}

/* The elements of coordinate c of the grid layout g along k in [a, b) (global indices, a
   box's interval), as at most three run groups: local indices on the grid side and g - box_lo
   on the box side. Block j of the extended window (window.c) covers [j b - phase, (j + 1) b -
   phase) and lives on coordinate (j + first) mod P: coordinate c's blocks are j = rel, rel +
   P, ... The first block may be clipped by a, the last by b; those between are one group of
   full blocks, a period of b local indices on the grid side and P b on the box side. */
static void interval_runs(const struct redist_layout_s *g, int k, int c, int64_t a, int64_t b,
                          int64_t box_lo, int box_is_src, redist__dim_runs *out)
{
    out->nruns = 0;
    out->src_period = out->dst_period = 0;
    if (a >= b)
        return;
    int64_t P = g->grid[k], rel = (((int64_t)c - g->first[k]) % P + P) % P;
    if (g->gen != NULL && g->gen[k] != NULL) {
        int64_t lo = g->gen[k][rel], hi = g->gen[k][rel + 1];
        int64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
        if (x < y)
            put_run(out, x - lo, x - box_lo, y - x, 1, box_is_src);
        return;
    }
    int64_t bs = g->block[k], ph = g->phase[k], ea = a + ph, eb = b + ph;
    int64_t jb = ea / bs, je = (eb - 1) / bs, j0 = jb + ((rel - jb % P) % P + P) % P;
    if (j0 > je)
        return;
    int64_t start = j0 * bs, s = ea > start ? ea : start, e = bs > eb - start ? eb : start + bs;
    put_run(out, redist__local_index(g, k, s - ph), s - ph - box_lo, e - s, 1, box_is_src);
    if (je - j0 < P)
        return;
    int64_t j1 = j0 + P, full_last = eb / bs - 1, jn = j1;
    if (j1 <= full_last) {
        int64_t count = (full_last - j1) / P + 1, g0 = j1 * bs - ph;
        put_run(out, redist__local_index(g, k, g0), g0 - box_lo, bs, count, box_is_src);
        if (count > 1) {
            out->src_period = box_is_src ? P * bs : bs;
            out->dst_period = box_is_src ? bs : P * bs;
        }
        jn = j1 + count * P;
    }
    if (jn <= je) {
        int64_t g0 = jn * bs - ph;
        put_run(out, redist__local_index(g, k, g0), g0 - box_lo, eb - jn * bs, 1, box_is_src);
    }
}

/* The coordinates along k of grid layout g that hold elements of [a, b) (a < b): all of them
   when the interval spans a whole round of blocks, else those of its blocks. */
static int coords_meeting(const struct redist_layout_s *g, int k, int64_t a, int64_t b, int *out)
{
    int P = g->grid[k], n = 0;
    if (g->gen != NULL && g->gen[k] != NULL) {
        for (int64_t j = redist__gen_block_of(g, k, a); j < P && g->gen[k][j] < b; j++)
            if (g->gen[k][j + 1] > g->gen[k][j] && g->gen[k][j + 1] > a)
                out[n++] = (int)((j + g->first[k]) % P);
        return n;
    }
    int64_t bs = g->block[k], jb = (a + g->phase[k]) / bs, je = (b - 1 + g->phase[k]) / bs;
    if (je - jb + 1 >= P) {
        for (int c = 0; c < P; c++)
            out[n++] = c;
        return n;
    }
    for (int64_t j = jb; j <= je; j++)
        out[n++] = (int)((j + g->first[k]) % P);
    return n;
}

/* ---- a rank's messages ----------------------------------------------------------------- */

typedef struct box_side {
    const struct redist_layout_s *src, *dst, *mine, *other;
    int side, rank, pos, my_base;
    int *coords;            /* [ndims] this rank's index coordinates (a grid side) */
    int64_t *lo, *hi;       /* [ndims] the region this rank's elements span */
    redist__dim_runs *dims; /* [ndims] */
    redist__side *out;
    int cap;
} box_side;

static int add_msg(box_side *b, int peer, int other_pos)
{
    redist__side *s = b->out;
    if (s->nmsgs == b->cap) {
        int cap = b->cap ? 2 * b->cap : 8;
        redist__msg *m = redist__realloc(s->msgs, (size_t)cap * sizeof *m);
        if (m == NULL)
            return REDIST_ERR_NOMEM;
        s->msgs = m;
        b->cap = cap;
    }
    redist__msg *m = &s->msgs[s->nmsgs];
    memset(m, 0, sizeof *m);
    m->group = -1;
    int src_side = b->side == REDIST__SIDE_SRC;
    int err =
        redist__msg_from_runs(b->src, b->dst, b->side, b->rank, peer, src_side ? b->pos : other_pos,
                              src_side ? other_pos : b->pos, b->dims, m);
    if (err != REDIST_SUCCESS)
        return err;
    s->nmsgs++;
    s->total_elems += m->nelems;
    return REDIST_SUCCESS;
}

/* The ranks that exchange the elements of the other side's class `base` with this rank: on
   the send side every replica of the destination class (those this rank sends to, when its
   own source class has replicas), on the receive side the one source replica chosen. */
static int add_for_class(box_side *b, int base)
{
    if (b->side == REDIST__SIDE_DST && !b->src->partial)
        return add_msg(b, redist__source_holder(b->src, base, b->rank), base);
    if (b->side == REDIST__SIDE_DST) { /* partial values: every replica's, to be reduced */
        for (int j = 0; j < redist__replica_count(b->src, base); j++) {
            int p = redist__replica_position(b->src, base, j);
            int err = add_msg(b, b->src->ranks[p], base);
            if (err != REDIST_SUCCESS)
                return err;
            b->out->msgs[b->out->nmsgs - 1].group = base;
            b->out->msgs[b->out->nmsgs - 1].replica = j;
        }
        return REDIST_SUCCESS;
    }
    int R = redist__replica_count(b->dst, base);
    int mine_replicated = redist__replica_count(b->src, b->my_base) > 1 && !b->src->partial;
    for (int j = 0; j < R; j++) {
        int p = redist__replica_position(b->dst, base, j), d = b->dst->ranks[p];
        if (mine_replicated && redist__source_holder(b->src, b->my_base, d) != b->rank)
            continue;
        int err = add_msg(b, d, p);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* This rank's set along k against position q's box along k: its runs into b->dims[k]. */
static void runs_against_box(box_side *b, int k, int q)
{
    int64_t qlo = redist__box_lower(b->other, q)[k], qhi = redist__box_upper(b->other, q)[k];
    int mine_src = b->side == REDIST__SIDE_SRC;
    if (b->mine->box != NULL) { /* an interval against an interval */
        int64_t x = b->lo[k] > qlo ? b->lo[k] : qlo, y = b->hi[k] < qhi ? b->hi[k] : qhi;
        b->dims[k].nruns = 0;
        b->dims[k].src_period = b->dims[k].dst_period = 0;
        if (x < y)
            put_run(&b->dims[k], x - b->lo[k], x - qlo, y - x, 1, !mine_src);
        return;
    }
    interval_runs(b->mine, k, b->coords[k], qlo, qhi, qlo, !mine_src, &b->dims[k]);
}

/* The other side is boxes: those meeting this rank's region, each a message if it meets this
   rank's elements along every dimension. */
static int against_boxes(box_side *b)
{
    int *cand = NULL, n = 0;
    int err = boxes_meeting(b->other, b->lo, b->hi, &cand, &n);
    for (int i = 0; err == REDIST_SUCCESS && i < n; i++) {
        int q = cand[i], k = 0;
        if (b->other->box_class[q] != q)
            continue; /* a class once, from its base: add_for_class takes its replicas */
        for (k = 0; k < b->mine->ndims; k++) {
            runs_against_box(b, k, q);
            if (b->dims[k].nruns == 0)
                break;
        }
        if (k == b->mine->ndims)
            err = add_for_class(b, q);
    }
    redist__free(cand);
    return err;
}

/* The other side is a grid and this rank a box: per dimension the grid's coordinates that
   hold elements of the box, and their product (mixed radix), each a class of the grid. */
static int against_grid(box_side *b)
{
    const struct redist_layout_s *g = b->other;
    int d = g->ndims, err = REDIST_SUCCESS;
    int **lists = redist__calloc((size_t)d, sizeof *lists);
    int *count = redist__calloc((size_t)d, sizeof *count),
        *at = redist__calloc((size_t)d, sizeof *at);
    int *c = redist__calloc((size_t)d, sizeof *c);
    if (!lists || !count || !at || !c)
        err = REDIST_ERR_NOMEM;
    for (int k = 0; err == REDIST_SUCCESS && k < d; k++) {
        if ((lists[k] = redist__malloc((size_t)g->grid[k] * sizeof **lists)) == NULL)
            err = REDIST_ERR_NOMEM;
        else
            count[k] = coords_meeting(g, k, b->lo[k], b->hi[k], lists[k]);
    }
    int64_t total = 1;
    for (int k = 0; err == REDIST_SUCCESS && k < d; k++)
        total *= count[k];
    int mine_src = b->side == REDIST__SIDE_SRC;
    for (int64_t i = 0; err == REDIST_SUCCESS && i < total; i++) {
        int k = 0;
        for (k = 0; k < d; k++) {
            c[k] = lists[k][at[k]];
            interval_runs(g, k, c[k], b->lo[k], b->hi[k], b->lo[k], mine_src, &b->dims[k]);
            if (b->dims[k].nruns == 0)
                break;
        }
        if (k == d)
            err = add_for_class(b, redist__layout_position_of(g, c));
        for (k = d - 1; k >= 0 && ++at[k] == count[k]; k--)
            at[k] = 0;
    }
    for (int k = 0; lists != NULL && k < d; k++)
        redist__free(lists[k]);
    redist__free(lists);
    redist__free(count);
    redist__free(at);
    redist__free(c);
    return err;
}

/* Source boxes may overlap only as replicas (identical boxes). */
static int check_source_overlap(box_side *b)
{
    int *cand = NULL, n = 0, err = boxes_meeting(b->src, b->lo, b->hi, &cand, &n);
    for (int i = 0; err == REDIST_SUCCESS && i < n; i++)
        if (b->src->box_class[cand[i]] != b->my_base)
            err = redist__fail(REDIST_ERR_UNSUPPORTED,
                               "source boxes %d and %d share elements without being the same "
                               "box: a source's boxes may overlap only as replicas",
                               b->pos < cand[i] ? b->pos : cand[i],
                               b->pos < cand[i] ? cand[i] : b->pos);
    redist__free(cand);
    return err;
}

static int compare_msg_peer(const void *a, const void *b)
{
    int x = ((const redist__msg *)a)->peer, y = ((const redist__msg *)b)->peer;
    return (x > y) - (x < y);
}

/* This rank's region: its box, or the span of its elements along each dimension. Returns
   its elements (0: nothing to exchange). */
static int64_t my_region(box_side *b)
{
    int64_t n = 1;
    redist__layout_coords_of(b->mine, b->pos, b->coords);
    for (int k = 0; k < b->mine->ndims; k++) {
        int64_t e = redist__local_extent(b->mine, k, b->coords[k]);
        int64_t f = redist__local_first(b->mine, k, b->coords[k]);
        n *= e;
        if (e == 0)
            return 0;
        b->lo[k] = redist__global_index(b->mine, k, b->coords[k], f);
        b->hi[k] = redist__global_index(b->mine, k, b->coords[k], f + e - 1) + 1;
    }
    return n;
}

int redist__box_side_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                            int side, int rank, redist__side *out)
{
    memset(out, 0, sizeof *out);
    out->ndims = src->ndims;
    box_side b = {src,
                  dst,
                  side == REDIST__SIDE_SRC ? src : dst,
                  side == REDIST__SIDE_SRC ? dst : src,
                  side,
                  rank,
                  -1,
                  -1,
                  NULL,
                  NULL,
                  NULL,
                  NULL,
                  out,
                  0};
    b.pos = redist__layout_position(b.mine, rank);
    if (b.pos < 0)
        return REDIST_SUCCESS;
    out->in_layout = 1;
    size_t d = (size_t)src->ndims;
    b.coords = redist__malloc(d * sizeof *b.coords);
    b.lo = redist__malloc(2 * d * sizeof *b.lo);
    b.dims = redist__malloc(d * sizeof *b.dims);
    int err = b.coords && b.lo && b.dims ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    int64_t held = 0;
    if (err == REDIST_SUCCESS) {
        b.hi = b.lo + d;
        b.my_base = redist__base_position(b.mine, b.pos);
        held = my_region(&b);
    }
    if (err == REDIST_SUCCESS && held > 0 && side == REDIST__SIDE_SRC && src->box != NULL)
        err = check_source_overlap(&b);
    if (err == REDIST_SUCCESS && held > 0)
        err = b.other->box != NULL ? against_boxes(&b) : against_grid(&b);
    if (err == REDIST_SUCCESS && out->nmsgs > 1)
        qsort(out->msgs, (size_t)out->nmsgs, sizeof *out->msgs, compare_msg_peer);
    int64_t covered = 0; /* from a partial source, each element once per replica */
    for (int i = 0; err == REDIST_SUCCESS && i < out->nmsgs; i++)
        covered += out->msgs[i].replica == 0 ? out->msgs[i].nelems : 0;
    if (err == REDIST_SUCCESS && side == REDIST__SIDE_DST && covered != held)
        err = redist__fail(REDIST_ERR_ARG,
                           "rank %d's destination holds %lld elements that no source rank holds "
                           "(its region starts at element %lld of dimension 0)",
                           rank, (long long)(held - covered), (long long)b.lo[0]);
    redist__free(b.coords);
    redist__free(b.lo);
    redist__free(b.dims);
    if (err != REDIST_SUCCESS) {
        for (int i = 0; i < out->nmsgs; i++) /* a box side has messages and nothing else */
            redist__msg_free(&out->msgs[i]);
        redist__free(out->msgs);
        memset(out, 0, sizeof *out);
        return err == REDIST_ERR_NOMEM
                   ? redist__fail_context(err, "building the messages of rank %d", rank)
                   : err;
    }
    return REDIST_SUCCESS;
}
