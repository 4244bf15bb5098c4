/* The copy engine: moves the elements of one message between a local array and a
 * contiguous buffer (pack, unpack) or between the two local arrays (the self part).
 *
 * Work is per run, never per element where the run is contiguous: the innermost level
 * copies whole runs with memcpy (or a fixed-size move for runs of 4, 8 or 16 bytes, which
 * the compiler turns into single loads and stores). Only when the two storage orders differ
 * does the innermost level move element by element (a transpose).
 */
#include "index/index.h"
#include "index/scale.h"

#include <string.h>

typedef struct walker {
    const redist__level *levels;
    int nlevels;
    size_t es;
    const redist__scale *sc; /* unpack and copy: scaling into the destination, or NULL */
    const char *a;           /* source side: structured array, or the stream cursor */
    char *b;                 /* destination side: structured array, or the stream cursor */
    int a_stream, b_stream;
} walker;

/* count runs of nbytes each; run j at s + j*sstep goes to d + j*dstep. */
static void copy_runs(char *d, int64_t dstep, const char *s, int64_t sstep, size_t nbytes,
                      int64_t count)
{
    if (count == 1) {
        memcpy(d, s, nbytes);
        return;
    }
    switch (nbytes) {
    case 4:
        for (int64_t j = 0; j < count; j++, d += dstep, s += sstep)
            memcpy(d, s, 4);
        return;
    case 8:
        for (int64_t j = 0; j < count; j++, d += dstep, s += sstep)
            memcpy(d, s, 8);
        return;
    case 16:
        for (int64_t j = 0; j < count; j++, d += dstep, s += sstep)
            memcpy(d, s, 16);
        return;
    default:
        for (int64_t j = 0; j < count; j++, d += dstep, s += sstep)
            memcpy(d, s, nbytes);
    }
}

/* copy_runs, or with scaling into the destination: count runs of nbytes (contiguous), or
   count single elements when nbytes is one element (strided). */
static void put_runs(const walker *w, char *d, int64_t dstep, const char *s, int64_t sstep,
                     size_t nbytes, int64_t count)
{
    if (w->sc == NULL) {
        copy_runs(d, dstep, s, sstep, nbytes, count);
        return;
    }
    int64_t es = (int64_t)w->es, n = (int64_t)nbytes / es;
    if (n == 1) {
        redist__scale_move(w->sc, d, dstep, s, sstep, count);
        return;
    }
    for (int64_t j = 0; j < count; j++)
        redist__scale_move(w->sc, d + j * dstep, es, s + j * sstep, es, n);
}

/* The innermost level in tiles of periods, when it has several run groups that repeat: the
   natural order (run group by run group, each through every period) strides through the
   whole array once per run group, touching a few bytes of each period, so every cache line
   comes in once per run group (cyclic(2) -> cyclic(64): 16 times). Tile by tile, all run
   groups of a few periods move while those periods are in cache. The stream side keeps its
   order (run group by run group): tile t of run group r sits at that group's start plus t's
   first period. Returns 0 where the natural order is as good (one group, no repeats, a
   transposing level, too many groups for the stack). */
enum { TILE_BYTES = 32 * 1024, TILE_MAX_RUNS = 64 };

/* The most replicas of L's run groups when walk_innermost_tiled's order applies to L, else 0. */
static int64_t tiled_replicas(const walker *w, const redist__level *L)
{
    int64_t maxcount = 0;
    if (L->nruns < 2 || L->nruns > TILE_MAX_RUNS || (!w->a_stream && L->src_stride != 1) ||
        (!w->b_stream && L->dst_stride != 1))
        return 0;
    for (int64_t r = 0; r < L->nruns; r++)
        maxcount = L->runs[r].count > maxcount ? L->runs[r].count : maxcount;
    int64_t span = (w->a_stream ? 0 : L->src_period) + (w->b_stream ? 0 : L->dst_period);
    return maxcount >= 2 && span > 0 ? maxcount : 0;
}

/* Replicas [jlo, jhi) of every run group of L, tile by tile (tiled_replicas(w, L) > 0). The
   stream sides start at the level's first element and are left past its last. */
static void move_tiles_of_replicas(walker *w, const redist__level *L, int64_t ao, int64_t bo,
                                   int64_t jlo, int64_t jhi)
{
    int64_t es = (int64_t)w->es, nruns = L->nruns, span = 0;
    if (!w->a_stream)
        span = L->src_period * es;
    if (!w->b_stream && L->dst_period * es > span)
        span = L->dst_period * es;
    int64_t tile = span < TILE_BYTES ? TILE_BYTES / span : 1;
    int64_t a_at[TILE_MAX_RUNS], b_at[TILE_MAX_RUNS], stream = 0;
    for (int64_t r = 0; r < nruns; r++) { /* where run group r starts on each side */
        const redist__run *run = &L->runs[r];
        a_at[r] = w->a_stream ? stream : ao + run->src_off * es;
        b_at[r] = w->b_stream ? stream : bo + run->dst_off * es;
        stream += run->len * es * run->count;
    }
    for (int64_t j0 = jlo; j0 < jhi; j0 += tile)
        for (int64_t r = 0; r < nruns; r++) {
            const redist__run *run = &L->runs[r];
            int64_t end = run->count < jhi ? run->count : jhi, nbytes = run->len * es;
            int64_t n = end - j0 < tile ? end - j0 : tile;
            if (n <= 0)
                continue;
            int64_t astep = w->a_stream ? nbytes : L->src_period * es;
            int64_t bstep = w->b_stream ? nbytes : L->dst_period * es;
            put_runs(w, w->b + b_at[r] + j0 * bstep, bstep, w->a + a_at[r] + j0 * astep, astep,
                     (size_t)nbytes, n);
        }
    if (w->a_stream)
        w->a += stream;
    if (w->b_stream)
        w->b += stream;
}

static int walk_innermost_tiled(walker *w, const redist__level *L, int64_t ao, int64_t bo)
{
    int64_t maxcount = tiled_replicas(w, L);
    if (maxcount == 0)
        return 0;
    move_tiles_of_replicas(w, L, ao, bo, 0, maxcount);
    return 1;
}

/* `count` replicas of a run group from replica j on, elements [i0, i0 + n) of each (whole
   replicas: i0 = 0, n = len), at the structured sides' offsets ao, bo; advances the stream. */
static void move_replicas(walker *w, const redist__level *L, const redist__run *run, int64_t ao,
                          int64_t bo, int64_t j, int64_t count, int64_t i0, int64_t n)
{
    int64_t es = (int64_t)w->es, nbytes = n * es;
    int64_t a_elem = w->a_stream ? es : L->src_stride * es;
    int64_t b_elem = w->b_stream ? es : L->dst_stride * es;
    const char *a =
        w->a_stream ? w->a : w->a + ao + (run->src_off + j * L->src_period + i0) * a_elem;
    char *b = w->b_stream ? w->b : w->b + bo + (run->dst_off + j * L->dst_period + i0) * b_elem;
    int64_t astep = w->a_stream ? nbytes : L->src_period * a_elem;
    int64_t bstep = w->b_stream ? nbytes : L->dst_period * b_elem;
    if (a_elem == es && b_elem == es) {
        put_runs(w, b, bstep, a, astep, (size_t)nbytes, count);
    } else { /* storage orders differ: element by element */
        for (int64_t k = 0; k < count; k++)
            put_runs(w, b + k * bstep, b_elem, a + k * astep, a_elem, (size_t)es, n);
    }
    if (w->a_stream)
        w->a += nbytes * count;
    if (w->b_stream)
        w->b += nbytes * count;
}

/* The innermost level: each run group is `count` runs of `len` elements. */
static void walk_innermost(walker *w, const redist__level *L, int64_t ao, int64_t bo)
{
    if (walk_innermost_tiled(w, L, ao, bo))
        return;
    for (int64_t r = 0; r < L->nruns; r++)
        move_replicas(w, L, &L->runs[r], ao, bo, 0, L->runs[r].count, 0, L->runs[r].len);
}

/* ao, bo: byte offsets of the current sub-array on each structured side. */
static void walk_level(walker *w, int l, int64_t ao, int64_t bo)
{
    const redist__level *L = &w->levels[l];
    if (l == w->nlevels - 1) {
        walk_innermost(w, L, ao, bo);
        return;
    }
    int64_t es = (int64_t)w->es;
    /* The stream side's strides are the peer's (a guess): never used, never formed. */
    int64_t a_elem = w->a_stream ? 0 : L->src_stride * es,
            b_elem = w->b_stream ? 0 : L->dst_stride * es;
    for (int64_t r = 0; r < L->nruns; r++) {
        const redist__run *run = &L->runs[r];
        for (int64_t j = 0; j < run->count; j++) {
            int64_t a0 = ao + (run->src_off + j * L->src_period) * a_elem;
            int64_t b0 = bo + (run->dst_off + j * L->dst_period) * b_elem;
            for (int64_t i = 0; i < run->len; i++)
                walk_level(w, l + 1, a0 + i * a_elem, b0 + i * b_elem);
        }
    }
}

/* ---- parts of a message (threads) --------------------------------------------------------
   A move split into parts that write disjoint destination bytes, each part per run group
   (never per element): elements [lo, hi) of the message in buffer order. Subtrees wholly
   inside the range take walk_level (tiles included); only the indices on the range's two
   edges are clipped, level by level. */

/* Elements below one index of level l. */
static int64_t index_elems(const walker *w, int l)
{
    int64_t n = 1;
    for (int k = l + 1; k < w->nlevels; k++)
        n *= redist__level_elems(&w->levels[k]);
    return n;
}

/* The innermost level, elements [s, e) of run group `run`: a partial first replica, whole
   replicas, a partial last one. */
static void clip_innermost(walker *w, const redist__level *L, const redist__run *run, int64_t ao,
                           int64_t bo, int64_t s, int64_t e)
{
    int64_t len = run->len, j = s / len, i0 = s % len;
    if (i0 > 0) {
        int64_t n = len - i0 < e - s ? len - i0 : e - s;
        move_replicas(w, L, run, ao, bo, j++, 1, i0, n);
        s += n;
    }
    int64_t whole = (e - s) / len;
    if (whole > 0)
        move_replicas(w, L, run, ao, bo, j, whole, 0, len);
    j += whole;
    s += whole * len;
    if (s < e)
        move_replicas(w, L, run, ao, bo, j, 1, 0, e - s);
}

/* Elements [lo, hi) of the sub-array at level l (offsets ao, bo on the structured sides). */
static void walk_level_range(walker *w, int l, int64_t ao, int64_t bo, int64_t lo, int64_t hi)
{
    const redist__level *L = &w->levels[l];
    int innermost = l == w->nlevels - 1;
    int64_t es = (int64_t)w->es, inner = index_elems(w, l), pos = 0;
    int64_t a_elem = w->a_stream ? 0 : L->src_stride * es,
            b_elem = w->b_stream ? 0 : L->dst_stride * es;
    for (int64_t r = 0; r < L->nruns && pos < hi; r++) {
        const redist__run *run = &L->runs[r];
        int64_t group = run->len * run->count * inner;
        int64_t s = (lo > pos ? lo : pos) - pos, e = (hi < pos + group ? hi : pos + group) - pos;
        pos += group;
        if (s >= e)
            continue;
        if (innermost) {
            clip_innermost(w, L, run, ao, bo, s, e);
            continue;
        }
        for (int64_t k = s / inner; k * inner < e; k++) { /* the indices the range touches */
            int64_t j = k / run->len, i = k % run->len;
            int64_t a0 = ao + (run->src_off + j * L->src_period + i) * a_elem;
            int64_t b0 = bo + (run->dst_off + j * L->dst_period + i) * b_elem;
            int64_t from = s - k * inner, to = e - k * inner;
            if (from <= 0 && to >= inner)
                walk_level(w, l + 1, a0, b0);
            else
                walk_level_range(w, l + 1, a0, b0, from > 0 ? from : 0, to < inner ? to : inner);
        }
    }
}

/* A message of one level whose run groups repeat (walk_innermost_tiled's case): part t of n
   takes replicas [j0, j1) of every run group, tile by tile, so that each thread keeps the
   tiles' cache order. Returns 0 when the message is not such. */
static int walk_replicas_part(walker *w, int t, int n)
{
    int64_t maxcount = w->nlevels == 1 ? tiled_replicas(w, &w->levels[0]) : 0;
    if (maxcount < 2 * (int64_t)n)
        return 0;
    move_tiles_of_replicas(w, &w->levels[0], 0, 0, maxcount * t / n, maxcount * (t + 1) / n);
    return 1;
}

static void walk(const redist__msg *m, const char *a, int a_stream, char *b, int b_stream,
                 size_t es, const redist__scale *sc, int part, int nparts)
{
    if (m->nelems == 0)
        return;
    if (m->tiles != NULL && !b_stream) { /* the destination transposes: by tiles */
        redist__tiled_move_part(m, a, a_stream, b, es, sc, part, nparts);
        return;
    }
    walker w = {m->levels, m->nlevels, es, sc, a, b, a_stream, b_stream};
    if (nparts == 1) {
        walk_level(&w, 0, 0, 0);
        return;
    }
    if (walk_replicas_part(&w, part, nparts))
        return;
    int64_t lo = m->nelems * part / nparts, hi = m->nelems * (part + 1) / nparts;
    if (a_stream)
        w.a += lo * (int64_t)es;
    if (b_stream)
        w.b += lo * (int64_t)es;
    if (lo < hi)
        walk_level_range(&w, 0, 0, 0, lo, hi);
}

void redist__pack(const redist__msg *m, const char *src, char *buf, size_t elsize)
{
    walk(m, src, 0, buf, 1, elsize, NULL, 0, 1);
}

void redist__unpack(const redist__msg *m, const char *buf, char *dst, size_t elsize,
                    const redist__scale *sc)
{
    walk(m, buf, 1, dst, 0, elsize, sc, 0, 1);
}

void redist__copy(const redist__msg *m, const char *src, char *dst, size_t elsize,
                  const redist__scale *sc)
{
    walk(m, src, 0, dst, 0, elsize, sc, 0, 1);
}

void redist__move_part(const redist__msg *m, int kind, const char *a, char *b, size_t elsize,
                       const redist__scale *sc, int part, int nparts)
{
    walk(m, a, kind == REDIST__UNPACK, b, kind == REDIST__PACK, elsize,
         kind == REDIST__PACK ? NULL : sc, part, nparts);
}

void redist__move_range(const redist__msg *m, int kind, const char *a, char *b, size_t elsize,
                        const redist__scale *sc, int64_t lo, int64_t hi)
{
    walker w = {m->levels,
                m->nlevels,
                elsize,
                kind == REDIST__PACK ? NULL : sc,
                a,
                b,
                kind == REDIST__UNPACK,
                kind == REDIST__PACK};
    if (lo < hi)
        walk_level_range(&w, 0, 0, 0, lo, hi);
}

/* ---- resumable walks ------------------------------------------------------------------ */

void redist__cursor_init(redist__cursor *c, const redist__msg *m, int64_t *scratch)
{
    int L = m->nlevels;
    c->m = m;
    c->run = scratch;
    c->rep = scratch + L;
    c->at = scratch + 2 * L;
    for (int l = 0; l < 3 * L; l++)
        scratch[l] = 0;
    c->done = 0;
}

/* Advances level l by one index (the levels below wrapped around); returns 0 past the end. */
static int cursor_step(redist__cursor *c, int l)
{
    for (; l >= 0; l--) {
        const redist__level *L = &c->m->levels[l];
        const redist__run *r = &L->runs[c->run[l]];
        if (++c->at[l] < r->len)
            return 1;
        c->at[l] = 0;
        if (++c->rep[l] < r->count)
            return 1;
        c->rep[l] = 0;
        if (++c->run[l] < L->nruns)
            return 1;
        c->run[l] = 0;
    }
    return 0;
}

int64_t redist__levels_offset(const redist__msg *m, int nlevels, const int64_t *run,
                              const int64_t *rep, const int64_t *at, int is_src)
{
    int64_t off = 0;
    for (int l = 0; l < nlevels; l++) {
        const redist__level *L = &m->levels[l];
        const redist__run *r = &L->runs[run[l]];
        int64_t idx =
            (is_src ? r->src_off + rep[l] * L->src_period : r->dst_off + rep[l] * L->dst_period) +
            at[l];
        off += idx * (is_src ? L->src_stride : L->dst_stride);
    }
    return off;
}

/* Element offset in the array of the current position's levels 0 .. last - 1. */
static int64_t outer_offset(const redist__cursor *c, int is_src)
{
    return redist__levels_offset(c->m, c->m->nlevels - 1, c->run, c->rep, c->at, is_src);
}

/* count runs of n elements, run j at a + j * step (array, element units) and at b + j * n
   (buffer); elements stride apart in the array. */
static void move_runs(char *a, int64_t step, int64_t stride, char *b, int64_t n, int64_t count,
                      int to_buf, size_t es, const redist__scale *sc)
{
    int64_t bytes = n * (int64_t)es, astep = step * (int64_t)es;
    if (sc != NULL) { /* into the array (unpack), scaled */
        for (int64_t j = 0; j < count; j++, a += astep, b += bytes)
            redist__scale_move(sc, a, stride * (int64_t)es, b, (int64_t)es, n);
        return;
    }
    if (stride == 1 && count > 1) { /* copy_runs: fixed-size moves for 4, 8, 16 bytes */
        if (to_buf)
            copy_runs(b, bytes, a, astep, (size_t)bytes, count);
        else
            copy_runs(a, astep, b, bytes, (size_t)bytes, count);
        return;
    }
    if (stride == 1) {
        memcpy(to_buf ? b : a, to_buf ? a : b, (size_t)bytes);
        return;
    }
    for (int64_t j = 0; j < count; j++, a += astep) /* storage orders differ */
        for (int64_t i = 0; i < n; i++, b += es)
            memcpy(to_buf ? b : a + i * stride * (int64_t)es,
                   to_buf ? a + i * stride * (int64_t)es : b, es);
}

/* Moves up to max elements between the array (structured side: src offsets and strides if
   is_src, else dst's; NULL: only advance) and the contiguous buffer: whole replicas of a run group
   in one loop, the outer levels' offset recomputed only when they move. */
static int64_t cursor_move(redist__cursor *c, char *arr, int is_src, char *buf, int to_buf,
                           int64_t max, size_t es, const redist__scale *sc)
{
    const redist__msg *m = c->m;
    int64_t moved = 0, left = m->nelems - c->done;
    if (max > left)
        max = left;
    int last = m->nlevels - 1;
    const redist__level *L = &m->levels[last];
    int64_t stride = is_src ? L->src_stride : L->dst_stride;
    int64_t period = is_src ? L->src_period : L->dst_period;
    int64_t outer = max > 0 ? outer_offset(c, is_src) : 0;
    while (moved < max) {
        const redist__run *r = &L->runs[c->run[last]];
        int64_t first = (is_src ? r->src_off : r->dst_off) + c->rep[last] * period + c->at[last];
        char *a = arr != NULL ? arr + (outer + first * stride) * (int64_t)es : NULL;
        char *b = buf != NULL ? buf + moved * (int64_t)es : NULL;
        int64_t room = max - moved, n = r->len - c->at[last];
        if (c->at[last] > 0 || n > room) { /* a part of one run */
            n = n < room ? n : room;
            if (arr != NULL)
                move_runs(a, 0, stride, b, n, 1, to_buf, es, sc);
            moved += n;
            if ((c->at[last] += n) < r->len)
                break; /* max reached inside the run */
            c->at[last] = r->len - 1;
        } else { /* whole replicas */
            int64_t k = r->count - c->rep[last], fit = room / r->len;
            k = k < fit ? k : fit;
            if (arr != NULL)
                move_runs(a, period * stride, stride, b, r->len, k, to_buf, es, sc);
            moved += k * r->len;
            c->rep[last] += k - 1;
            c->at[last] = r->len - 1;
        }
        int l = last; /* past the last element moved; a carry moves the outer levels */
        if (!cursor_step(c, l))
            break;
        if (c->run[last] == 0 && c->rep[last] == 0 && c->at[last] == 0 && last > 0)
            outer = outer_offset(c, is_src);
    }
    c->done += moved;
    return moved;
}

int64_t redist__cursor_pack(redist__cursor *c, const char *src, char *buf, int64_t max,
                            size_t elsize)
{
    return cursor_move(c, (char *)src, 1, buf, 1, max, elsize, NULL);
}

int64_t redist__cursor_unpack(redist__cursor *c, const char *buf, char *dst, int64_t max,
                              size_t elsize, const redist__scale *sc)
{
    return cursor_move(c, dst, 0, (char *)buf, 0, max, elsize, sc);
}

int64_t redist__cursor_skip(redist__cursor *c, int64_t max)
{
    return cursor_move(c, NULL, 1, NULL, 1, max, 1, NULL);
}
