/* One copy in the destination's order, row by row (docs/dev/one-copy.md, "Pulled by rows").
 * Pure index code: no MPI, no threads.
 *
 * A rank that copies its node peers' messages straight from their src (exec/onecopy.c)
 * fills dst from several messages at once. A 2-D re-block's messages each cover every P-th
 * run of a dst column (or row): copied one message after the other, the writes into dst and
 * the reads from each sender skip through memory at that density. bench/bench_runs measures
 * that access pattern alone: "pull", every run in dst's order, is the cheapest (1.1-1.6x a
 * memcpy of the same bytes where a message at a time costs 2.0-2.7x).
 *
 * Here a "row" of a message is one position of its levels above the innermost (a dst
 * column of a column-major 2-D array); the innermost level is a fixed list of runs, the
 * same for every row. Messages whose levels above the innermost describe the same dst
 * positions (same run groups on the dst side: the peers in one grid row of the source,
 * say) fill the same rows; as a group, their innermost runs are merged once into one list in
 * dst order, and each row is copied by walking that list: every run of the row in turn,
 * each from its own sender's src at that sender's row. So dst is written once, in order,
 * and each row is finished before the next begins.
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define HAVE_STREAMING 1
#else
#define HAVE_STREAMING 0
#endif

int redist__pull_fits(const redist__msg *m)
{
    if (m->nlevels < 2 || m->tiles != NULL || m->nelems == 0)
        return 0;
    const redist__level *L = &m->levels[m->nlevels - 1];
    return L->src_stride == 1 && L->dst_stride == 1;
}

int redist__pull_same_rows(const redist__msg *a, const redist__msg *b)
{
    if (a->nlevels != b->nlevels)
        return 0;
    for (int l = 0; l < a->nlevels - 1; l++) {
        const redist__level *x = &a->levels[l], *y = &b->levels[l];
        if (x->nruns != y->nruns || x->dst_period != y->dst_period ||
            x->dst_stride != y->dst_stride)
            return 0;
        for (int64_t r = 0; r < x->nruns; r++)
            if (x->runs[r].dst_off != y->runs[r].dst_off || x->runs[r].len != y->runs[r].len ||
                x->runs[r].count != y->runs[r].count)
                return 0;
    }
    return 1;
}

int64_t redist__pull_rows_of(const redist__msg *m)
{
    int64_t inner = redist__level_elems(&m->levels[m->nlevels - 1]);
    return inner > 0 ? m->nelems / inner : 0;
}

static int by_dst(const void *a, const void *b)
{
    const redist__pull_run *x = a, *y = b;
    return (x->dst_at > y->dst_at) - (x->dst_at < y->dst_at);
}

int64_t redist__pull_merge(const redist__msg *const *members, int g, redist__pull_run *out,
                           int64_t cap)
{
    int64_t n = 0;
    for (int k = 0; k < g; k++) {
        const redist__level *L = &members[k]->levels[members[k]->nlevels - 1];
        for (int64_t r = 0; r < L->nruns; r++)
            for (int64_t j = 0; j < L->runs[r].count; j++) {
                if (n == cap)
                    return -1;
                out[n++] =
                    (redist__pull_run){k, L->runs[r].src_off + j * L->src_period,
                                       L->runs[r].dst_off + j * L->dst_period, L->runs[r].len};
            }
    }
    qsort(out, (size_t)n, sizeof *out, by_dst);
    int64_t kept = 0; /* runs that continue the previous one on both sides: one run */
    for (int64_t i = 0; i < n; i++) {
        redist__pull_run *last = kept > 0 ? &out[kept - 1] : NULL;
        if (last != NULL && last->member == out[i].member &&
            last->dst_at + last->len == out[i].dst_at && last->src_at + last->len == out[i].src_at)
            last->len += out[i].len;
        else
            out[kept++] = out[i];
    }
    return kept;
}

/* The shared position of a group's levels above the innermost (the same shape for every
   member): per level, the run group, the replica and the element within the run. */
typedef struct {
    int levels; /* the levels above the innermost */
    int64_t *run, *rep, *at;
} row_pos;

/* Row `row` of m (0 .. rows - 1): its position, from the last level above the innermost
   (the fastest-varying) up. */
static void seek_row(const redist__msg *m, row_pos *pos, int64_t row)
{
    for (int l = pos->levels - 1; l >= 0; l--) {
        const redist__level *L = &m->levels[l];
        int64_t n = redist__level_elems(L), idx = row % n;
        row /= n;
        pos->run[l] = pos->rep[l] = pos->at[l] = 0;
        for (int64_t r = 0; r < L->nruns; r++) {
            int64_t in = L->runs[r].len * L->runs[r].count;
            if (idx < in) {
                pos->run[l] = r;
                pos->rep[l] = idx / L->runs[r].len;
                pos->at[l] = idx % L->runs[r].len;
                break;
            }
            idx -= in;
        }
    }
}

static void next_row(const redist__msg *m, row_pos *pos)
{
    for (int l = pos->levels - 1; l >= 0; l--) {
        const redist__level *L = &m->levels[l];
        const redist__run *r = &L->runs[pos->run[l]];
        if (++pos->at[l] < r->len)
            return;
        pos->at[l] = 0;
        if (++pos->rep[l] < r->count)
            return;
        pos->rep[l] = 0;
        if (++pos->run[l] < L->nruns)
            return;
        pos->run[l] = 0;
    }
}

/* Element offset of m's row at pos, on the source side (is_src) or the destination's. */
static int64_t row_offset(const redist__msg *m, const row_pos *pos, int is_src)
{
    return redist__levels_offset(m, pos->levels, pos->run, pos->rep, pos->at, is_src);
}

/* bytes from s to d with non-temporal stores where d is 16-byte aligned (the ends by memcpy:
   the lines they share with other runs are written by ordinary stores). */
static void copy_streaming(char *d, const char *s, size_t bytes)
{
#if HAVE_STREAMING
    size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (head >= bytes) {
        memcpy(d, s, bytes);
        return;
    }
    memcpy(d, s, head);
    size_t i = head;
    for (; i + 16 <= bytes; i += 16)
        _mm_stream_si128((__m128i *)(void *)(d + i),
                         _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
    memcpy(d + i, s + i, bytes - i);
#else
    memcpy(d, s, bytes);
#endif
}

void redist__pull_copy(const redist__msg *const *members, const char *const *srcs, int g,
                       const redist__pull_run *runs, int64_t nruns, char *dst, size_t es,
                       int64_t lo, int64_t hi, int64_t *scratch, int streaming)
{
    const redist__msg *m0 = members[0];
    row_pos pos = {m0->nlevels - 1, scratch, scratch + m0->nlevels, scratch + 2 * m0->nlevels};
    int64_t *src_row = scratch + 3 * m0->nlevels; /* [g] */
    if (lo >= hi)
        return;
    seek_row(m0, &pos, lo);
    for (int64_t row = lo; row < hi; row++) {
        char *d = dst + row_offset(m0, &pos, 0) * (int64_t)es;
        for (int k = 0; k < g; k++)
            src_row[k] = row_offset(members[k], &pos, 1);
        for (int64_t i = 0; i < nruns; i++) {
            const redist__pull_run *r = &runs[i];
            const char *s = srcs[r->member] + (src_row[r->member] + r->src_at) * (int64_t)es;
            if (streaming)
                copy_streaming(d + r->dst_at * (int64_t)es, s, (size_t)r->len * es);
            else
                memcpy(d + r->dst_at * (int64_t)es, s, (size_t)r->len * es);
        }
        next_row(m0, &pos);
    }
#if HAVE_STREAMING
    if (streaming)
        _mm_sfence(); /* the streamed lines reach memory before anyone is told */
#endif
}
