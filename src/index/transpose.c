/* The cache-blocked local transpose of the copy engine (no MPI).
 *
 * A message's levels follow the source's storage order, so packing always reads whole runs.
 * When the destination stores its dimensions in another order (an axis permutation, or row-
 * against column-major), its unit-stride dimension is some outer level F, and unpacking in
 * buffer order writes one element per destination row: every element a cache miss once the
 * rows pass the cache, worst on power-of-two leading dimensions where the rows collide in
 * the same sets. Here levels F and the innermost I move as a 2-D tiled transpose: tiles of T
 * x T elements, read along I, written along F, both within the cache; the other levels are
 * walked around it.
 *
 * Per message the plan keeps, for levels F and I, the element offset of every index on each
 * side (the levels' run groups expanded): O(extent along two dimensions) of memory, built
 * only when it is at most the message's own size, and no per-element work at execute
 * beyond the move itself.
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

/* Elements of level L: its run groups' lengths times their counts (copy.c's parts too). */
int64_t redist__level_elems(const redist__level *L)
{
    int64_t n = 0;
    for (int64_t r = 0; r < L->nruns; r++)
        n += L->runs[r].len * L->runs[r].count;
    return n;
}

/* The element offsets, on the source and the destination side, of every index of level L. */
static void expand_level(const redist__level *L, int64_t *src, int64_t *dst)
{
    int64_t e = 0;
    for (int64_t r = 0; r < L->nruns; r++) {
        const redist__run *run = &L->runs[r];
        for (int64_t j = 0; j < run->count; j++)
            for (int64_t i = 0; i < run->len; i++, e++) {
                src[e] = (run->src_off + j * L->src_period + i) * L->src_stride;
                dst[e] = (run->dst_off + j * L->dst_period + i) * L->dst_stride;
            }
    }
}

void redist__tiles_free(redist__tiles *t)
{
    if (t == NULL)
        return;
    redist__free(t->src_f);
    redist__free(t->buf_stride);
    redist__free(t);
}

/* The level (not the innermost) where the destination's stride is 1, or -1. */
static int unit_level(const redist__msg *m)
{
    int last = m->nlevels - 1;
    if (m->nlevels < 2 || m->levels[last].dst_stride == 1)
        return -1;
    for (int l = 0; l < last; l++)
        if (m->levels[l].dst_stride == 1 && redist__level_elems(&m->levels[l]) >= 2)
            return l;
    return -1;
}

/* 2^22 indices: 64 MB of lists for one message, for a local array of 2^21 x 2^21. */
enum { MAX_LIST_ENTRIES = 1 << 22 };

int redist__tiles_create(redist__msg *m)
{
    m->tiles = NULL;
    int F = unit_level(m), last = m->nlevels - 1;
    if (F < 0 || m->nelems == 0)
        return REDIST_SUCCESS;
    int64_t nf = redist__level_elems(&m->levels[F]), ni = redist__level_elems(&m->levels[last]);
    /* Worth it and affordable: lists of two dimensions, a quarter of the message's elements
       at most, and at most MAX_LIST_ENTRIES. They only make the move faster: without them
       the element-by-element path moves the same data. Still, running out of memory for
       them is REDIST_ERR_NOMEM, as everywhere else in plan creation: a plan never quietly
       becomes slower than the one asked for. */
    if (ni < 2 || nf + ni > m->nelems / 4 || nf + ni > MAX_LIST_ENTRIES) /* nf, ni <= 2^61 */
        return REDIST_SUCCESS;
    redist__tiles *t = redist__calloc(1, sizeof *t);
    if (t == NULL)
        return REDIST_ERR_NOMEM;
    t->level = F;
    t->nf = nf;
    t->ni = ni;
    t->src_f = redist__malloc((size_t)(2 * (nf + ni)) * sizeof *t->src_f);
    t->buf_stride = redist__malloc((size_t)m->nlevels * sizeof *t->buf_stride);
    if (t->src_f == NULL || t->buf_stride == NULL) {
        redist__tiles_free(t);
        return REDIST_ERR_NOMEM;
    }
    t->dst_f = t->src_f + nf;
    t->src_i = t->dst_f + nf;
    t->dst_i = t->src_i + ni;
    expand_level(&m->levels[F], t->src_f, t->dst_f);
    expand_level(&m->levels[last], t->src_i, t->dst_i);
    int64_t s = 1; /* the buffer is the levels' Cartesian product, the innermost fastest */
    for (int l = last; l >= 0; l--) {
        t->buf_stride[l] = s;
        s *= redist__level_elems(&m->levels[l]);
    }
    m->tiles = t;
    return REDIST_SUCCESS;
}

int redist__side_tiles(redist__side *s)
{
    for (int i = 0; i < s->nmsgs; i++)
        if (redist__tiles_create(&s->msgs[i]) != REDIST_SUCCESS)
            return REDIST_ERR_NOMEM; /* the side's free frees the lists made so far */
    return REDIST_SUCCESS;
}

/* ---- execute ----------------------------------------------------------------------------- */

/* Tile edge: 512 bytes of elements along each side (64 doubles, 32 double complex), at most
   64 elements, in super-tiles of SUPER x SUPER tiles: measured on 4096^2 doubles, 43 ms
   against 65 ms for 32 x 32 tiles alone (docs/performance.md, "Transposes"). */
static int64_t tile_edge(size_t es)
{
    int64_t t = 512 / (int64_t)es;
    return t < 4 ? 4 : t > 64 ? 64 : t;
}

typedef struct tiled_walk {
    const redist__msg *m;
    const redist__tiles *t;
    const char *a; /* the source array, or the buffer when a_stream */
    char *b;       /* the destination array */
    int a_stream;
    size_t es;
    const redist__scale *sc; /* scaling into the destination, or NULL */
    int64_t f_lo, f_hi;      /* the indices of level F this walk moves (a thread's part) */
} tiled_walk;

/* n elements of es bytes: b + bo[f] <- a + ao[f], for each of the tile's columns. */
#define TILE_LOOP(ES)                                                                              \
    for (int64_t ii = 0; ii < ni; ii++) {                                                          \
        const char *ap = a + ai[ii];                                                               \
        char *bp = b + bi[ii];                                                                     \
        for (int64_t ff = 0; ff < nf; ff++)                                                        \
            memcpy(bp + bf[ff], ap + af[ff], (ES));                                                \
    }

static void move_tile(const char *a, const int64_t *af, const int64_t *ai, char *b,
                      const int64_t *bf, const int64_t *bi, int64_t nf, int64_t ni, size_t es)
{
    switch (es) {
    case 4:
        TILE_LOOP(4);
        break;
    case 8:
        TILE_LOOP(8);
        break;
    case 16:
        TILE_LOOP(16);
        break;
    default:
        TILE_LOOP(es);
    }
}

enum { MAX_TILE = 64, SUPER = 8 };

/* A scaled tile: the element operation of sc (scale.h) in move_tile's loop order. */
#define SCALED_TILE(ELEM)                                                                          \
    for (int64_t ii = 0; ii < ni; ii++) {                                                          \
        const char *ap = a + ai[ii];                                                               \
        char *bp = b + bi[ii];                                                                     \
        for (int64_t ff = 0; ff < nf; ff++)                                                        \
            ELEM(bp + bf[ff], ap + af[ff]);                                                        \
    }

static void scale_tile(const redist__scale *sc, const char *a, const int64_t *af, const int64_t *ai,
                       char *b, const int64_t *bf, const int64_t *bi, int64_t nf, int64_t ni)
{
    static const double zero[2] = {0, 0};
    static const int64_t none[MAX_TILE] = {0};
    if (sc->alpha_zero) { /* op(src) not referenced */
        a = (const char *)zero;
        af = ai = none;
    }
    REDIST__SCALE_DISPATCH(sc, SCALED_TILE);
}

static void transpose_block(const tiled_walk *w, int64_t ao, int64_t bo, int64_t e)
{
    const redist__tiles *t = w->t;
    int64_t es = (int64_t)w->es, T = tile_edge(w->es), B = T * SUPER;
    int64_t af[MAX_TILE], ai[MAX_TILE], bf[MAX_TILE], bi[MAX_TILE];
    const char *a = w->a_stream ? w->a + e * es : w->a + ao;
    char *b = w->b + bo;
    int64_t fstride = t->buf_stride[t->level];
    /* Super-tiles of B x B first, so that the pages and lines of a few hundred rows and
       columns stay mapped while their tiles move (two-level blocking). */
    for (int64_t F0 = w->f_lo; F0 < w->f_hi; F0 += B)
        for (int64_t I0 = 0; I0 < t->ni; I0 += B)
            for (int64_t f0 = F0; f0 < w->f_hi && f0 < F0 + B; f0 += T) {
                int64_t nf = w->f_hi - f0 < T ? w->f_hi - f0 : T;
                for (int64_t f = 0; f < nf; f++) {
                    af[f] = (w->a_stream ? (f0 + f) * fstride : t->src_f[f0 + f]) * es;
                    bf[f] = t->dst_f[f0 + f] * es;
                }
                for (int64_t i0 = I0; i0 < t->ni && i0 < I0 + B; i0 += T) {
                    int64_t ni = t->ni - i0 < T ? t->ni - i0 : T;
                    for (int64_t i = 0; i < ni; i++) {
                        ai[i] = (w->a_stream ? i0 + i : t->src_i[i0 + i]) * es;
                        bi[i] = t->dst_i[i0 + i] * es;
                    }
                    if (w->sc != NULL)
                        scale_tile(w->sc, a, af, ai, b, bf, bi, nf, ni);
                    else
                        move_tile(a, af, ai, b, bf, bi, nf, ni, w->es);
                }
            }
}

/* The levels other than F and I, in order; e is the buffer index of the current origin. */
static void tiled_level(const tiled_walk *w, int l, int64_t ao, int64_t bo, int64_t e)
{
    int last = w->m->nlevels - 1;
    if (l == w->t->level)
        l++;
    if (l == last) {
        transpose_block(w, ao, bo, e);
        return;
    }
    const redist__level *L = &w->m->levels[l];
    int64_t es = (int64_t)w->es, b_elem = L->dst_stride * es;
    int64_t a_elem = w->a_stream ? 0 : L->src_stride * es; /* a stream: the peer's, unused */
    int64_t step = w->t->buf_stride[l];
    for (int64_t r = 0; r < L->nruns; r++) {
        const redist__run *run = &L->runs[r];
        for (int64_t j = 0; j < run->count; j++) {
            int64_t a0 = ao + (run->src_off + j * L->src_period) * a_elem;
            int64_t b0 = bo + (run->dst_off + j * L->dst_period) * b_elem;
            for (int64_t i = 0; i < run->len; i++, e += step)
                tiled_level(w, l + 1, a0 + i * a_elem, b0 + i * b_elem, e);
        }
    }
}

void redist__tiled_move_part(const redist__msg *m, const char *a, int a_stream, char *b, size_t es,
                             const redist__scale *sc, int part, int nparts)
{
    int64_t nf = m->tiles->nf;
    tiled_walk w = {
        m, m->tiles, a, b, a_stream, es, sc, nf * part / nparts, nf * (part + 1) / nparts};
    if (w.f_lo < w.f_hi)
        tiled_level(&w, 0, 0, 0, 0);
}
