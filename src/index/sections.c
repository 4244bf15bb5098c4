/* Regular sections ([SD96] §4, Fig. 1) for a dimension along which one layout gives each
 * coordinate a single contiguous interval of the global indices: one block per coordinate
 * (b P >= n: Block(K) in [SD96]'s terms, its n = 0) or one coordinate (P = 1).
 *
 * The periodic pattern (pattern.c) repeats every L = lcm(b P, b' P') elements; a Block(K)
 * layout has L >= n, so its period is the whole extent and its run groups grow with the
 * number of the other side's blocks in the interval (Block -> Cyclic(1): one run per
 * element). [SD96] instead fixes the block index n (or n') to zero in equation (2) and
 * enumerates I(p, p') as a regular section first : last : stride: the other layout's blocks
 * of coordinate p' inside p's interval, every P' K' global elements (Fig. 1, rows 2-3; rows
 * 1 and 2-3 with both sides blocks give a single run). That is at most three run groups per
 * pair (a clipped first block, the full blocks as one group of `count` replicas, a clipped
 * last block), computed from the distribution parameters in constant time per pair: plan
 * time O(peers), whatever n.
 *
 * The runs of a pair list its indices in increasing global order, and both ends of a pair
 * compute the same list (the choice of builder depends on the two layouts only), so sender
 * and receiver agree on the message layout.
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

int redist__interval_dim(const struct redist_layout_s *l, int k)
{
    int64_t n = l->extent[k], P = l->grid[k];
    if (l->gen != NULL && l->gen[k] != NULL)
        return n > 0;
    return n > 0 && (P == 1 || l->block[k] >= n / P + (n % P != 0));
}

unsigned redist__sections_cases(const struct redist_layout_s *src,
                                const struct redist_layout_s *dst)
{
    unsigned all = REDIST__SD_BLOCK_BLOCK | REDIST__SD_BLOCK_CYCLIC | REDIST__SD_CYCLIC_BLOCK |
                   REDIST__SD_TK_K | REDIST__SD_K_TK;
    if (!src->plain || !dst->plain) /* a window's phase: not [SD96]'s cases */
        return 0;
    for (int k = 0; k < src->ndims; k++) {
        if (src->extent[k] == 0)
            continue;
        int is = redist__interval_dim(src, k), id = redist__interval_dim(dst, k);
        int64_t x = src->block[k], y = dst->block[k];
        unsigned here = (is && id ? REDIST__SD_BLOCK_BLOCK : 0u) |
                        (is ? REDIST__SD_BLOCK_CYCLIC : 0u) | (id ? REDIST__SD_CYCLIC_BLOCK : 0u) |
                        (x % y == 0 ? REDIST__SD_TK_K : 0u) | (y % x == 0 ? REDIST__SD_K_TK : 0u);
        all &= here;
    }
    return all;
}

/* The interval layout A and the other layout B of a section pair; a coordinate of each. */
typedef struct pair_geometry {
    const struct redist_layout_s *A, *B;
    int k, a_is_src;
} pair_geometry;

static int is_gen(const struct redist_layout_s *l, int k)
{
    return l->gen != NULL && l->gen[k] != NULL;
}

/* Coordinate c's interval [*lo, *hi) of an irregular dimension k of l. */
static void gen_interval(const struct redist_layout_s *l, int k, int c, int64_t *lo, int64_t *hi)
{
    int64_t P = l->grid[k], i = ((int64_t)c - l->first[k] + P) % P;
    *lo = l->gen[k][i];
    *hi = l->gen[k][i + 1];
}

/* Coordinate a's interval [*lo, *hi) of A (empty when lo >= hi). */
static void interval_of(const pair_geometry *g, int a, int64_t *lo, int64_t *hi)
{
    const struct redist_layout_s *A = g->A;
    int64_t n = A->extent[g->k], P = A->grid[g->k], b = A->block[g->k];
    if (is_gen(A, g->k)) {
        gen_interval(A, g->k, a, lo, hi);
        return;
    }
    if (P == 1) {
        *lo = 0;
        *hi = n;
        return;
    }
    int64_t r = ((int64_t)a - A->first[g->k] + P) % P;
    *lo = r > 0 && b > n / r ? n : r * b; /* r * b > n: the coordinate holds nothing */
    *hi = n - *lo < b ? n : *lo + b;
}

/* The blocks t0 .. t1 (t-th block of coordinate d: global block j = j_d + t P_B) of B's
   coordinate d that meet [lo, hi); returns 0 if none. */
static int blocks_meeting(const pair_geometry *g, int d, int64_t lo, int64_t hi, int64_t *t0,
                          int64_t *t1)
{
    const struct redist_layout_s *B = g->B;
    int64_t bb = B->block[g->k], pb = B->grid[g->k];
    int64_t jd = ((int64_t)d - B->first[g->k] + pb) % pb;
    if (lo >= hi)
        return 0;
    int64_t jlo = lo / bb, jhi = (hi - 1) / bb;
    *t0 = jlo <= jd ? 0 : (jlo - jd + pb - 1) / pb;
    if (jhi < jd)
        return 0;
    *t1 = (jhi - jd) / pb;
    return *t0 <= *t1;
}

/* Appends run (a_off on A, b_off on B) in the pattern's (src, dst) orientation. */
static void add_run(const pair_geometry *g, redist__run *runs, int64_t *n, int64_t a_off,
                    int64_t b_off, int64_t len, int64_t count)
{
    if (len <= 0 || count <= 0)
        return;
    runs[(*n)++] = g->a_is_src ? (redist__run){a_off, b_off, len, count}
                               : (redist__run){b_off, a_off, len, count};
}

/* Both irregular: the one run where the two intervals overlap. */
static int64_t overlap_run(const pair_geometry *g, int a, int d, redist__run *runs, int64_t *nruns)
{
    int64_t alo, ahi, blo, bhi;
    interval_of(g, a, &alo, &ahi);
    gen_interval(g->B, g->k, d, &blo, &bhi);
    int64_t from = alo > blo ? alo : blo, to = ahi < bhi ? ahi : bhi;
    *nruns = 0;
    add_run(g, runs, nruns, from - alo, from - blo, to - from, 1);
    return to > from ? to - from : 0;
}

/* The runs of pair (A coordinate a, B coordinate d): at most three. Returns the elements. */
static int64_t pair_runs(const pair_geometry *g, int a, int d, redist__run *runs, int64_t *nruns)
{
    if (is_gen(g->B, g->k))
        return overlap_run(g, a, d, runs, nruns);
    const struct redist_layout_s *B = g->B;
    int64_t bb = B->block[g->k], pb = B->grid[g->k];
    int64_t jd = ((int64_t)d - B->first[g->k] + pb) % pb;
    int64_t lo, hi, t0, t1, elems = 0;
    *nruns = 0;
    interval_of(g, a, &lo, &hi);
    if (!blocks_meeting(g, d, lo, hi, &t0, &t1))
        return 0;
    for (int64_t t = t0; t <= t1;) {
        int64_t s = (jd + t * pb) * bb; /* block start: < hi <= n, no overflow */
        int64_t e = hi - s < bb ? hi : s + bb, from = s < lo ? lo : s;
        int full = from == s && e == s + bb;
        /* Full blocks after this one, up to the last (which may be clipped at hi). */
        int64_t count = 1;
        if (full) {
            int64_t last = t1;
            int64_t last_s = (jd + last * pb) * bb;
            if (hi - last_s < bb)
                last--; /* the last block is clipped */
            count = last >= t ? last - t + 1 : 1;
        }
        add_run(g, runs, nruns, from - lo, t * bb + (from - s), e - from, count);
        elems += (e - from) * count;
        t += count;
    }
    return elems;
}

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The peer lists below are written twice: counted first (out NULL), then stored in an array
   of that size. One rank's pattern then takes memory in proportion to its peers, never to
   the other side's grid (explain builds every rank's; a plan over 2^20 ranks builds one). */
static void put(int *out, int n, int64_t coord)
{
    if (out != NULL)
        out[n] = (int)coord;
}

/* The coordinates of l's irregular dimension k whose blocks meet [lo, hi) (lo < hi), in
   block order: a binary search and one entry per block. */
static int gen_coords_meeting(const struct redist_layout_s *l, int k, int64_t lo, int64_t hi,
                              int *out)
{
    int64_t i0 = redist__gen_block_of(l, k, lo), i1 = redist__gen_block_of(l, k, hi - 1);
    int n = 0;
    for (int64_t i = i0; i <= i1; i++)
        put(out, n++, (i + l->first[k]) % l->grid[k]);
    return n;
}

/* Candidate peers of A coordinate a: the B coordinates owning blocks in a's interval. */
static int peers_of_a(const pair_geometry *g, int a, int *out)
{
    const struct redist_layout_s *B = g->B;
    int64_t bb = B->block[g->k], pb = B->grid[g->k], lo, hi;
    interval_of(g, a, &lo, &hi);
    if (lo >= hi)
        return 0;
    if (is_gen(B, g->k))
        return gen_coords_meeting(B, g->k, lo, hi, out);
    int64_t jlo = lo / bb, jhi = (hi - 1) / bb, nblocks = jhi - jlo + 1;
    int n = 0;
    for (int64_t j = jlo; j < jlo + (nblocks < pb ? nblocks : pb); j++)
        put(out, n++, (j + B->first[g->k]) % pb);
    return n;
}

/* Candidate peers of B coordinate d: the A coordinates whose interval meets a block of d.
   Walks d's blocks when that is cheaper than testing every A coordinate. */
static int peers_of_b(const pair_geometry *g, int d, int *out)
{
    const struct redist_layout_s *A = g->A, *B = g->B;
    int64_t pa = A->grid[g->k], ba = A->block[g->k], n = A->extent[g->k];
    int64_t bb = B->block[g->k], pb = B->grid[g->k];
    int64_t jd = ((int64_t)d - B->first[g->k] + pb) % pb;
    if (pa == 1) {
        put(out, 0, 0);
        return 1;
    }
    if (is_gen(B, g->k)) { /* both irregular: A's blocks meeting d's interval */
        int64_t lo, hi;
        gen_interval(B, g->k, d, &lo, &hi);
        return lo < hi ? gen_coords_meeting(A, g->k, lo, hi, out) : 0;
    }
    int64_t nblocks = (n - 1) / bb + 1, mine = jd < nblocks ? (nblocks - 1 - jd) / pb + 1 : 0;
    int cnt = 0;
    if ((double)mine * ((double)(bb / ba) + 2.0) < (double)pa) {
        int64_t prev = -1;
        for (int64_t t = 0; t < mine; t++) {
            int64_t s = (jd + t * pb) * bb, e = n - s < bb ? n : s + bb;
            int64_t r0 = is_gen(A, g->k) ? redist__gen_block_of(A, g->k, s) : s / ba;
            int64_t r1 = is_gen(A, g->k) ? redist__gen_block_of(A, g->k, e - 1) : (e - 1) / ba;
            for (int64_t r = r0; r <= r1 && r < pa; r++)
                if (r != prev) {
                    put(out, cnt++, (r + A->first[g->k]) % pa);
                    prev = r;
                }
        }
        return cnt;
    }
    for (int64_t c = 0; c < pa; c++) {
        int64_t lo, hi, t0, t1;
        interval_of(g, (int)c, &lo, &hi);
        if (blocks_meeting(g, d, lo, hi, &t0, &t1))
            put(out, cnt++, c);
    }
    return cnt;
}

int redist__dim_sections_create(const struct redist_layout_s *src,
                                const struct redist_layout_s *dst, int k, int side, int coord,
                                redist__dim_pattern *out)
{
    pair_geometry g = {src, dst, k, 1};
    if (!redist__interval_dim(src, k) || (is_gen(dst, k) && !is_gen(src, k)))
        g = (pair_geometry){dst, src, k, 0}; /* A: an irregular side if there is one */
    int mine_is_a = (side == REDIST__SIDE_SRC) == g.a_is_src;
    int64_t pb = g.B->grid[k], bb = g.B->block[k], n = src->extent[k];
    int64_t a_period = bb <= n / pb ? pb * bb : 0; /* 0: no block of B recurs in an interval */
    memset(out, 0, sizeof *out);
    out->src_period = g.a_is_src ? a_period : bb;
    out->dst_period = g.a_is_src ? bb : a_period;
    int (*peers_of)(const pair_geometry *, int, int *) = mine_is_a ? peers_of_a : peers_of_b;
    size_t most = (size_t)peers_of(&g, coord, NULL); /* candidates: at most the other grid */
    int *peers = redist__malloc((most + 1) * sizeof *peers);
    out->peer = redist__malloc((most + 1) * sizeof *out->peer);
    out->elems = redist__malloc((most + 1) * sizeof *out->elems);
    out->first_run = redist__malloc((most + 1) * sizeof *out->first_run);
    out->runs = redist__malloc((3 * most + 1) * sizeof *out->runs);
    if (!peers || !out->peer || !out->elems || !out->first_run || !out->runs) {
        redist__free(peers);
        redist__free(out->peer);
        redist__free(out->elems);
        redist__free(out->first_run);
        redist__free(out->runs);
        memset(out, 0, sizeof *out);
        return redist__fail(REDIST_ERR_NOMEM, "sections of dimension %d", k);
    }
    int np = peers_of(&g, coord, peers);
    qsort(peers, (size_t)np, sizeof *peers, compare_int);
    int64_t nruns = 0;
    for (int i = 0; i < np; i++) {
        int64_t added = 0;
        int64_t elems = mine_is_a ? pair_runs(&g, coord, peers[i], out->runs + nruns, &added)
                                  : pair_runs(&g, peers[i], coord, out->runs + nruns, &added);
        if (elems == 0)
            continue;
        out->peer[out->npeers] = peers[i];
        out->elems[out->npeers] = elems;
        out->first_run[out->npeers++] = nruns;
        nruns += added;
    }
    out->first_run[out->npeers] = nruns;
    redist__free(peers);
    return REDIST_SUCCESS;
}
