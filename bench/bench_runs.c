/* bench_runs: what the access pattern of a 2-D re-block costs by itself, without MPI, a
 * library or any synchronisation (docs/dev/one-copy.md, "Why the 2-D cases stay above the
 * floor"). All P x P source arrays and P x P destination arrays live in one process; every
 * element is copied once, in runs, by T OpenMP threads:
 *
 *   pull  each destination array's runs in its own order, read from the source arrays (what
 *         one copy on a node does: a rank copies its destination out of its peers' sources)
 *   pairs each destination array's runs one source array after the other (a message at a
 *         time, as a plan walks a receive message), each message in destination order
 *   parts as pairs, but each message cut into parts of 256 KiB of dst in all and part k of
 *         every message copied before part k + 1 of any (what a plan does: onecopy.c's copy
 *         together; runs are not split, a run goes to the part where it starts)
 *   push  each source array's runs in its own order, written into the destination arrays
 *   memcpy  every source array onto its destination array whole (the floor)
 *   pull, non-temporal stores  pull with SSE2 streaming stores (where the compiler has SSE2);
 *         parts and memcpy the same (memcpy: the whole array, streamed)
 *
 *     build/bench_runs [--n N] [--grid P] [--from B] [--to B] [--threads T] [--reps R]
 *     build/bench_runs --gaps BYTES [--n N]   (half-dense reads alone: run_gaps)
 *
 * Global N x N doubles, blocks B x B on a P x P grid (column-major local arrays, as ScaLAPACK
 * stores them) -> blocks B' x B' on the same grid (defaults: 8000, 36 -> 128, 4 x 4). Threads
 * take whole arrays (array k by thread k mod T), so T = P x P is one thread per rank, as 16
 * ranks of one thread are. memcpy copies the elements each destination holds. Every
 * destination element is checked after pull and after push. Prints the median of R (default 5) of
 * each, in ms, and pull / memcpy, push / memcpy. Exit status 1 on a wrong element.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_common.h"

#if defined(__SSE2__)
#include <emmintrin.h>
/* n doubles with non-temporal stores (no read of the destination's lines for ownership) */
static void copy_streaming(double *d, const double *s, int64_t n)
{
    int64_t i = 0;
    for (; i < n && ((uintptr_t)(d + i) & 15) != 0; i++)
        _mm_stream_si64((long long *)(d + i), *(const long long *)(s + i));
    for (; i + 2 <= n; i += 2)
        _mm_stream_pd(d + i, _mm_loadu_pd(s + i));
    for (; i < n; i++)
        _mm_stream_si64((long long *)(d + i), *(const long long *)(s + i));
}
#define HAVE_STREAMING 1
#else
#define HAVE_STREAMING 0
#endif

typedef struct run {
    int64_t src_at, dst_at; /* element offsets in their arrays */
    int src, dst;           /* array numbers (grid position r * P + c) */
    int64_t len;
    int64_t part; /* parts order: the part of its message it starts in */
} run;

typedef struct runs {
    run *r;
    int64_t n, cap;
} runs;

static int64_t N = 8000, B_FROM = 36, B_TO = 128;
static int P = 4, T = 1, REPS = 5;
static int64_t GAPS; /* --gaps B: the half-dense reads alone (run_gaps) */

static int64_t extent(int64_t b, int coord)
{
    int64_t nblocks = N / b, e = (nblocks / P) * b, extra = nblocks % P;
    return e + (coord < extra ? b : coord == extra ? N % b : 0);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void add(runs *rs, run r)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 1 << 16;
        rs->r = realloc(rs->r, (size_t)rs->cap * sizeof *rs->r);
        if (rs->r == NULL) {
            fprintf(stderr, "bench_runs: out of memory\n");
            exit(2);
        }
    }
    rs->r[rs->n++] = r;
}

/* Local index of global g along a cyclic(b) dimension, and its coordinate. */
static int64_t local_of(int64_t g, int64_t b, int *coord)
{
    *coord = (int)((g / b) % P);
    return (g / (b * P)) * b + g % b;
}

/* Destination array d's runs in its column-major order: a column at a time, each column
   cut where either block size ends. */
static void runs_of_dst(int d, runs *rs)
{
    int dr = d / P, dc = d % P;
    int64_t lr = extent(B_TO, dr), lc = extent(B_TO, dc), slr[64];
    for (int c = 0; c < P; c++)
        slr[c] = extent(B_FROM, c);
    for (int64_t lj = 0; lj < lc; lj++) {
        int64_t gj = (lj / B_TO) * B_TO * P + (int64_t)dc * B_TO + lj % B_TO;
        int sc;
        int64_t slj = local_of(gj, B_FROM, &sc);
        for (int64_t li = 0; li < lr;) {
            int64_t gi = (li / B_TO) * B_TO * P + (int64_t)dr * B_TO + li % B_TO;
            int sr;
            int64_t sli = local_of(gi, B_FROM, &sr);
            int64_t len = B_TO - li % B_TO, left = B_FROM - gi % B_FROM;
            len = len < left ? len : left;
            len = len < lr - li ? len : lr - li;
            add(rs, (run){sli + slj * slr[sr], li + lj * lr, sr * P + sc, d, len, 0});
            li += len;
        }
    }
}

static int by_pair(const void *a, const void *b)
{
    const run *x = a, *y = b;
    if (x->dst != y->dst)
        return x->dst - y->dst;
    if (x->src != y->src)
        return x->src - y->src;
    return (x->dst_at > y->dst_at) - (x->dst_at < y->dst_at);
}

static int by_part(const void *a, const void *b)
{
    const run *x = a, *y = b;
    if (x->part != y->part)
        return (x->part > y->part) - (x->part < y->part);
    if (x->src != y->src)
        return x->src - y->src;
    return (x->dst_at > y->dst_at) - (x->dst_at < y->dst_at);
}

/* A destination array's runs (in pairs order: message by message, each in dst order) put
   in parts order: message m's run starting at element e of its nm goes to part e K / nm. */
static void order_parts(runs *rs, int64_t count)
{
    int64_t parts = count * 8 / (256 << 10);
    parts = parts > 0 ? parts : 1;
    for (int64_t k = 0; k < rs->n;) {
        int64_t end = k, nm = 0, e = 0;
        while (end < rs->n && rs->r[end].src == rs->r[k].src)
            nm += rs->r[end++].len;
        for (; k < end; k++) {
            rs->r[k].part = e * parts / nm;
            e += rs->r[k].len;
        }
    }
    qsort(rs->r, (size_t)rs->n, sizeof *rs->r, by_part);
}

static int by_source(const void *a, const void *b)
{
    const run *x = a, *y = b;
    if (x->src != y->src)
        return x->src - y->src;
    return (x->src_at > y->src_at) - (x->src_at < y->src_at);
}

/* Copies the runs [lo, hi) of each array's list (one list per array), thread k taking arrays
   k, k + T, ... */
static int streaming; /* the lists' runs with non-temporal stores */

static void copy_lists(runs *lists, double **src, double **dst)
{
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) schedule(static, 1)
#endif
    for (int a = 0; a < P * P; a++)
        for (int64_t k = 0; k < lists[a].n; k++) {
            const run *r = &lists[a].r[k];
#if HAVE_STREAMING
            if (streaming) {
                copy_streaming(dst[r->dst] + r->dst_at, src[r->src] + r->src_at, r->len);
                continue;
            }
#endif
            memcpy(dst[r->dst] + r->dst_at, src[r->src] + r->src_at, (size_t)r->len * 8);
        }
#if HAVE_STREAMING
    _mm_sfence();
#endif
}

static void copy_whole(double **src, double **dst, const int64_t *count)
{
#ifdef _OPENMP
#pragma omp parallel for num_threads(T) schedule(static, 1)
#endif
    for (int a = 0; a < P * P; a++) {
#if HAVE_STREAMING
        if (streaming) {
            copy_streaming(dst[a], src[a], count[a]);
            continue;
        }
#endif
        memcpy(dst[a], src[a], (size_t)count[a] * 8);
    }
#if HAVE_STREAMING
    _mm_sfence();
#endif
}

/* value of global (i, j): i + j N, written through each source array's local indices */
static void fill(double **src)
{
    for (int a = 0; a < P * P; a++) {
        int r = a / P, c = a % P;
        int64_t lr = extent(B_FROM, r), lc = extent(B_FROM, c);
        for (int64_t lj = 0; lj < lc; lj++)
            for (int64_t li = 0; li < lr; li++)
                src[a][li + lj * lr] =
                    (double)((li / B_FROM) * B_FROM * P + r * B_FROM + li % B_FROM +
                             ((lj / B_FROM) * B_FROM * P + c * B_FROM + lj % B_FROM) * N);
    }
}

static int64_t check(double **dst)
{
    int64_t bad = 0;
    for (int a = 0; a < P * P; a++) {
        int r = a / P, c = a % P;
        int64_t lr = extent(B_TO, r), lc = extent(B_TO, c);
        for (int64_t lj = 0; lj < lc; lj++)
            for (int64_t li = 0; li < lr; li++) {
                int64_t i = (li / B_TO) * B_TO * P + r * B_TO + li % B_TO;
                int64_t j = (lj / B_TO) * B_TO * P + c * B_TO + lj % B_TO;
                bad += dst[a][li + lj * lr] != (double)(i + j * N);
            }
    }
    return bad;
}

static double median_of(void (*fn)(void *), void *arg)
{
    double t[64];
    fn(arg);
    for (int i = 0; i < REPS; i++) {
        double t0 = now();
        fn(arg);
        t[i] = now() - t0;
    }
    return bench_median(t, REPS);
}

typedef struct job {
    runs *lists;
    double **src, **dst;
    int64_t *count;
} job;

static void do_lists(void *j)
{
    job *x = j;
    copy_lists(x->lists, x->src, x->dst);
}

static void do_whole(void *j)
{
    job *x = j;
    copy_whole(x->src, x->dst, x->count);
}

/* --gaps B: what reading half densely costs alone (the grid case's pull, one-copy.md): S
   bytes copied whole, and the same S bytes read as every other B bytes of 2 S (written
   densely), each with ordinary and with streaming stores, in one thread. */
typedef struct gaps_job {
    char *src, *dst;
    int64_t bytes, piece;
    int half, stream;
} gaps_job;

static void do_gaps(void *arg)
{
    const gaps_job *g = arg;
    int64_t step = g->half ? 2 * g->piece : g->piece;
    for (int64_t k = 0; k < g->bytes / g->piece; k++) {
#if HAVE_STREAMING
        if (g->stream) {
            copy_streaming((double *)(void *)(g->dst + k * g->piece),
                           (const double *)(const void *)(g->src + k * step), g->piece / 8);
            continue;
        }
#endif
        memcpy(g->dst + k * g->piece, g->src + k * step, (size_t)g->piece);
    }
#if HAVE_STREAMING
    _mm_sfence();
#endif
}

static int run_gaps(int64_t piece)
{
    int64_t bytes = (int64_t)(N * N / 2) * 8 / piece * piece; /* half the array, in pieces */
    gaps_job g = {malloc((size_t)(2 * bytes)), malloc((size_t)bytes), bytes, piece, 0, 0};
    if (g.src == NULL || g.dst == NULL || piece % 8 != 0) {
        fprintf(stderr, "bench_runs: --gaps needs a multiple of 8 bytes, and memory\n");
        return 2;
    }
    memset(g.src, 1, (size_t)(2 * bytes));
    memset(g.dst, 2, (size_t)bytes);
    double t[4];
    for (int k = 0; k < 4; k++) {
        g.half = k >= 2, g.stream = k % 2;
        t[k] = median_of(do_gaps, &g);
    }
    printf("bench_runs --gaps %lld: %.1f MB in pieces of %lld B, median of %d\n"
           "  memcpy                      %8.2f ms\n"
           "  memcpy, streaming stores    %8.2f ms  %5.2f x memcpy\n"
           "  every other piece read      %8.2f ms  %5.2f x memcpy  %5.2f x streaming memcpy\n"
           "  the same, streaming stores  %8.2f ms  %5.2f x memcpy  %5.2f x streaming memcpy\n",
           (long long)piece, (double)bytes / 1e6, (long long)piece, REPS, t[0] * 1e3, t[1] * 1e3,
           t[1] / t[0], t[2] * 1e3, t[2] / t[0], t[2] / t[1], t[3] * 1e3, t[3] / t[0], t[3] / t[1]);
    free(g.src);
    free(g.dst);
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        long long v = atoll(argv[i + 1]);
        if (!strcmp(argv[i], "--n"))
            N = v;
        else if (!strcmp(argv[i], "--grid"))
            P = (int)v;
        else if (!strcmp(argv[i], "--from"))
            B_FROM = v;
        else if (!strcmp(argv[i], "--to"))
            B_TO = v;
        else if (!strcmp(argv[i], "--gaps"))
            GAPS = v;
        else if (!strcmp(argv[i], "--threads"))
            T = (int)v;
        else if (!strcmp(argv[i], "--reps"))
            REPS = (int)v;
        else
            N = -1;
    }
    if (argc % 2 == 0 || N < 1 || P < 1 || P > 64 || B_FROM < 1 || B_TO < 1 || T < 1 || REPS < 1 ||
        REPS > 64) {
        fprintf(stderr, "usage: bench_runs [--n N] [--grid P (1..64)] [--from B] [--to B] "
                        "[--threads T] [--reps R (1..64)] [--gaps BYTES]\n");
        return 2;
    }
    if (GAPS > 0)
        return run_gaps(GAPS);
    int na = P * P;
    double **src = calloc((size_t)na, sizeof *src), **dst = calloc((size_t)na, sizeof *dst);
    int64_t *count = calloc((size_t)na, sizeof *count);
    runs *pull = calloc((size_t)na, sizeof *pull), *push = calloc((size_t)na, sizeof *push);
    runs *pairs = calloc((size_t)na, sizeof *pairs), *inparts = calloc((size_t)na, sizeof *inparts);
    runs all = {0};
    for (int a = 0; a < na; a++) {
        int64_t sn = extent(B_FROM, a / P) * extent(B_FROM, a % P), room;
        count[a] = extent(B_TO, a / P) * extent(B_TO, a % P);
        room = (sn > count[a] ? sn : count[a]) + 1; /* memcpy reads count[a] of the source */
        src[a] = malloc((size_t)room * 8);
        dst[a] = malloc((size_t)room * 8);
        if (src[a] == NULL || dst[a] == NULL) {
            fprintf(stderr, "bench_runs: out of memory\n");
            return 2;
        }
        memset(dst[a], 0, (size_t)count[a] * 8);
        runs_of_dst(a, &pull[a]);
        runs_of_dst(a, &pairs[a]);
        qsort(pairs[a].r, (size_t)pairs[a].n, sizeof *pairs[a].r, by_pair);
        for (int64_t k = 0; k < pairs[a].n; k++)
            add(&inparts[a], pairs[a].r[k]);
        order_parts(&inparts[a], count[a]);
        for (int64_t k = 0; k < pull[a].n; k++)
            add(&all, pull[a].r[k]);
    }
    qsort(all.r, (size_t)all.n, sizeof *all.r, by_source);
    for (int64_t k = 0; k < all.n; k++)
        add(&push[all.r[k].src], all.r[k]);
    fill(src);
    job jp = {pull, src, dst, count}, js = {push, src, dst, count}, jm = {NULL, src, dst, count};
    job jq = {pairs, src, dst, count}, jk = {inparts, src, dst, count};
    double t_pull = median_of(do_lists, &jp);
    int64_t bad = check(dst);
    for (int a = 0; a < na; a++)
        memset(dst[a], 0, (size_t)count[a] * 8);
    double t_pairs = median_of(do_lists, &jq);
    bad += check(dst);
    for (int a = 0; a < na; a++)
        memset(dst[a], 0, (size_t)count[a] * 8);
    double t_parts = median_of(do_lists, &jk);
    bad += check(dst);
    for (int a = 0; a < na; a++)
        memset(dst[a], 0, (size_t)count[a] * 8);
    double t_push = median_of(do_lists, &js);
    bad += check(dst);
    double t_mem = median_of(do_whole, &jm), t_nt = -1, t_nt_parts = -1, t_nt_mem = -1;
#if HAVE_STREAMING
    for (int a = 0; a < na; a++)
        memset(dst[a], 0, (size_t)count[a] * 8);
    streaming = 1;
    t_nt = median_of(do_lists, &jp);
    bad += check(dst);
    for (int a = 0; a < na; a++)
        memset(dst[a], 0, (size_t)count[a] * 8);
    t_nt_parts = median_of(do_lists, &jk);
    bad += check(dst);
    t_nt_mem = median_of(do_whole, &jm);
#endif
    printf(
        "bench_runs: %lld^2 doubles, %lldx%lld -> %lldx%lld blocks on %dx%d, %d threads, "
        "%lld runs (%.0f B average), median of %d\n"
        "  memcpy %8.2f ms\n  pull   %8.2f ms  %5.2f x memcpy\n  pairs  %8.2f ms  %5.2f x memcpy\n  parts  %8.2f ms  %5.2f x memcpy\n  push   %8.2f ms  %5.2f x "
        "memcpy\n  pull, non-temporal stores %8.2f ms  %5.2f x memcpy\n"
        "  parts, non-temporal stores %8.2f ms  %5.2f x memcpy\n"
        "  memcpy, non-temporal stores %8.2f ms  %5.2f x memcpy\n%s",
        (long long)N, (long long)B_FROM, (long long)B_FROM, (long long)B_TO, (long long)B_TO, P, P,
        T, (long long)all.n, 8.0 * (double)N * (double)N / (double)all.n, REPS, t_mem * 1e3,
        t_pull * 1e3, t_pull / t_mem, t_pairs * 1e3, t_pairs / t_mem, t_parts * 1e3,
        t_parts / t_mem, t_push * 1e3, t_push / t_mem, t_nt * 1e3, t_nt / t_mem, t_nt_parts * 1e3,
        t_nt_parts / t_mem, t_nt_mem * 1e3, t_nt_mem / t_mem, bad ? "FAIL: wrong elements\n" : "");
    return bad ? 1 : 0;
}
