/* Fuzz target: layouts from random parameters (redist_layout_create, _create_gen_block,
 * _create_window, the HPF index functions), through the public API, checked against the
 * model of oracle.h.
 *
 * Creation succeeds exactly when the parameters keep redist.h's contract (else
 * REDIST_ERR_ARG, or REDIST_ERR_UNSUPPORTED for a window of irregular blocks, and the output
 * NULL). On success: the accessors, local shapes and sizes, redist__check_ld's verdict and
 * redist__storage_span's count and bounds are the model's on every rank; along every
 * dimension each window index has the model's owner and a local index whose global index is
 * it again (all indices up to 2^16 per dimension, else samples: both ends, block boundaries,
 * powers of two and values from the input); and every element's (rank, element offset) is
 * the model's, inside the rank's span, all distinct (every element of arrays of up to 2^14
 * elements, else samples). The HPF functions agree with Table 1 of [TCR96] and with the
 * layout redist_hpf_layout builds, and refuse bad arguments.
 */
#include "fuzz.h"
#include "index/index.h"
#include "oracle.h"

#include <string.h>

enum {
    MAX_NPROCS = 4096,      /* larger grids are only created when they are refused */
    MAX_GEN_GRID = 64,      /* irregular dimensions: at most this many blocks */
    DIM_EXHAUSTIVE = 65536, /* per dimension: every index up to this extent */
    ND_EXHAUSTIVE = 16384,  /* every element of arrays up to this size */
    NSAMPLES = 48
};

FZ_ASAN_OPTIONS("allocator_may_return_null=1:max_allocation_size_mb=64")

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* ---- the contract, restated ----------------------------------------------------------- */

typedef struct params {
    int ndims, order, nranks_given;
    int64_t extent[FZ_MAX_DIMS], block[FZ_MAX_DIMS];
    int grid[FZ_MAX_DIMS], first[FZ_MAX_DIMS];
    int block_null, first_null;
    int *ranks; /* NULL: 0, 1, ... */
    int64_t *sizes[FZ_MAX_DIMS];
    int any_sizes;
} params;

/* Grid dimension k replicated: first[k] = REDIST_REPLICATED; its block and sizes are not
   read. */
static int replicated(const params *p, int k)
{
    return !p->first_null && p->first[k] == REDIST_REPLICATED;
}

/* Irregular sizes that the library reads (those of replicated dimensions it does not). */
static const int64_t *read_sizes(const params *p, int k)
{
    return replicated(p, k) ? NULL : p->sizes[k];
}

/* Whether redist_layout_create(_gen_block) must accept p; *nprocs: the grid's product. */
static int valid_layout(const params *p, int64_t *nprocs)
{
    fz_i128 elements = 1, np = 1;
    if (p->ndims < 1 || (p->order != REDIST_ROW_MAJOR && p->order != REDIST_COL_MAJOR))
        return 0;
    for (int k = 0; k < p->ndims; k++) {
        if (p->extent[k] < 0 || p->extent[k] > REDIST_MAX_EXTENT)
            return 0;
        elements *= p->extent[k] > 0 ? p->extent[k] : 1;
        if (elements > REDIST_MAX_EXTENT)
            return 0;
        const int64_t *sizes = read_sizes(p, k);
        if (sizes == NULL && !replicated(p, k) && (p->block_null || p->block[k] < 1))
            return 0;
        if (p->grid[k] < 1)
            return 0;
        if (!p->first_null && !replicated(p, k) && (p->first[k] < 0 || p->first[k] >= p->grid[k]))
            return 0;
        np *= p->grid[k];
        if (np > INT32_MAX)
            return 0;
        if (sizes != NULL) {
            fz_i128 sum = 0;
            for (int c = 0; c < p->grid[k]; c++) {
                if (sizes[c] < 0 || sizes[c] > REDIST_MAX_EXTENT)
                    return 0;
                sum += sizes[c];
            }
            if (sum != p->extent[k])
                return 0;
        }
    }
    *nprocs = (int64_t)np;
    if (p->ranks != NULL) {
        for (int i = 0; i < (int)np; i++) {
            if (p->ranks[i] < 0)
                return 0;
            for (int j = 0; j < i; j++)
                if (p->ranks[j] == p->ranks[i])
                    return 0;
        }
    }
    return 1;
}

/* ---- decoding ------------------------------------------------------------------------- */

/* sizes summing to extent (any extent): the cut points from the input, sorted; or raw values
   (mostly refused). */
static void decode_sizes(fz_reader *r, int64_t extent, int grid, int64_t *sizes)
{
    unsigned mode = fz_u8(r) % 8;
    if (mode == 0) {
        for (int c = 0; c < grid; c++)
            sizes[c] = fz_value(r, 12);
        return;
    }
    int64_t cut[MAX_GEN_GRID + 1];
    cut[0] = 0;
    for (int c = 1; c < grid; c++) {
        uint64_t v = fz_bytes(r, mode < 4 ? 1 : 8);
        cut[c] = extent < 0 ? 0 : (int64_t)(v % ((uint64_t)extent + 1));
        if (mode < 4 && extent > 255)
            cut[c] = (int64_t)((fz_i128)extent * (int64_t)v / 255);
    }
    for (int i = 1; i < grid; i++) /* insertion sort of the cuts */
        for (int j = i; j > 1 && cut[j] < cut[j - 1]; j--) {
            int64_t t = cut[j];
            cut[j] = cut[j - 1];
            cut[j - 1] = t;
        }
    cut[grid] = extent;
    for (int c = 0; c < grid; c++)
        sizes[c] = cut[c + 1] - cut[c];
}

/* Returns 0 when the case is skipped (a grid too large to create). */
static int decode_layout(fz_reader *r, params *p, int64_t sizes_store[][MAX_GEN_GRID],
                         int *ranks_store)
{
    memset(p, 0, sizeof *p);
    unsigned nd = fz_u8(r);
    p->ndims = nd < 240 ? 1 + (int)(nd % 4) : nd < 250 ? 5 + (int)(nd % 6) : (int)(nd % 3) - 1;
    unsigned o = fz_u8(r) % 32;
    p->order = o < 15 ? 0 : o < 30 ? 1 : o == 30 ? 2 : -1;
    int d = p->ndims > 0 ? p->ndims : 0;
    for (int k = 0; k < d; k++) {
        p->extent[k] = fz_value(r, 40);
        p->block[k] = fz_u8(r) % 4 ? 1 + fz_range(r, 0, 15) : fz_value(r, 64);
        p->grid[k] = fz_grid(r, 5);
        unsigned f = fz_u8(r);
        p->first[k] = p->grid[k] >= 1 && f < 232 ? (int)(f % (unsigned)p->grid[k])
                      : f < 250 || f % 3 == 0    ? REDIST_REPLICATED
                      : f % 3 == 1               ? p->grid[k]
                                                 : INT32_MAX;
    }
    p->first_null = fz_u8(r) % 4 == 0;
    fz_i128 np = 1;
    int all_pos = 1;
    for (int k = 0; k < d; k++) {
        all_pos &= p->grid[k] >= 1;
        if (p->grid[k] >= 1 && np <= INT32_MAX)
            np *= p->grid[k];
    }
    if (all_pos && np > MAX_NPROCS && np <= INT32_MAX)
        return 0; /* a valid grid too large to allocate here */
    for (int k = 0; k < d; k++) {
        if (p->grid[k] >= 1 && p->grid[k] <= MAX_GEN_GRID && fz_u8(r) % 4 == 0) {
            p->sizes[k] = sizes_store[k];
            decode_sizes(r, p->extent[k], p->grid[k], p->sizes[k]);
            p->any_sizes = 1;
        }
    }
    int all_gen = p->any_sizes;
    for (int k = 0; k < d; k++)
        all_gen &= p->sizes[k] != NULL;
    p->block_null = all_gen && fz_u8(r) % 2;
    unsigned rk = fz_u8(r) % 8;
    if (all_pos && np <= MAX_NPROCS && rk >= 4) {
        int n = (int)np, base = (int)fz_u8(r);
        if (rk < 7) { /* distinct ranks in a shuffled order */
            for (int i = 0; i < n; i++)
                ranks_store[i] = base + i;
            for (int i = n - 1; i > 0; i--) {
                int j = (int)(fz_bytes(r, 2) % (unsigned)(i + 1)), t = ranks_store[i];
                ranks_store[i] = ranks_store[j];
                ranks_store[j] = t;
            }
        } else { /* any values: duplicates and negatives are refused */
            for (int i = 0; i < n; i++) {
                int v = (int)(int8_t)fz_u8(r); /* one read per statement: a fixed order */
                ranks_store[i] = v + (int)(fz_u8(r) % 3) * 1000;
            }
        }
        p->ranks = ranks_store;
    }
    return 1;
}

/* ---- checking a layout against the model ---------------------------------------------- */

typedef struct checker {
    redist_layout l;
    const fz_model *m;
    int max_rank;
    int *ld_ok;       /* [max_rank + 1] redist__check_ld accepted the rank */
    int64_t *span_n;  /* [max_rank + 1] storage span: elements, first and past-last offsets */
    int64_t *span_lo; /* and local index 0's offset */
    int64_t *span_hi; /* (valid where ld_ok) */
    int64_t *span_base;
} checker;

static fz_i128 window_elements(const fz_model *m)
{
    fz_i128 n = 1;
    for (int k = 0; k < m->ndims; k++)
        n *= m->extent[k];
    return n;
}

static void check_ranks(checker *ch)
{
    const fz_model *m = ch->m;
    redist_layout l = ch->l;
    int d = m->ndims;
    FZ_CHECK(redist_layout_ndims(l) == d, "ndims %d", redist_layout_ndims(l));
    FZ_CHECK(redist_layout_nprocs(l) == m->nprocs, "nprocs %d, expected %d",
             redist_layout_nprocs(l), m->nprocs);
    FZ_CHECK(l->max_rank == ch->max_rank, "max_rank %d, expected %d", l->max_rank, ch->max_rank);
    for (int k = 0; k < d; k++)
        FZ_CHECK(l->extent[k] == m->extent[k], "extent[%d] = %lld, expected %lld", k,
                 (long long)l->extent[k], (long long)m->extent[k]);
    fz_i128 total = 0;
    for (int r = 0; r <= ch->max_rank + 1; r++) {
        int coords[FZ_MAX_DIMS], mc[FZ_MAX_DIMS];
        int64_t shape[FZ_MAX_DIMS], count = -1;
        int pos = fz_position(m, r), in = redist_layout_coords(l, r, coords);
        FZ_CHECK(in == (pos >= 0), "rank %d: layout_coords says %d, position %d", r, in, pos);
        FZ_CHECK(redist_layout_local_shape(l, r, shape) == 0, "local_shape of rank %d", r);
        FZ_CHECK(redist_layout_local_size(l, r, &count) == 0, "local_size of rank %d", r);
        fz_i128 size = 1;
        if (pos >= 0)
            fz_coords_of(m, pos, mc);
        for (int k = 0; k < d; k++) {
            int64_t want = pos >= 0 ? fz_root_local(m, k, mc[k]) : 0;
            if (pos >= 0)
                FZ_CHECK(coords[k] == mc[k], "rank %d: coords[%d] = %d, expected %d", r, k,
                         coords[k], mc[k]);
            FZ_CHECK(shape[k] == want, "rank %d: local shape[%d] = %lld, expected %lld", r, k,
                     (long long)shape[k], (long long)want);
            size *= want;
        }
        FZ_CHECK(count == (int64_t)size, "rank %d: local size %lld, expected %lld", r,
                 (long long)count, (long long)size);
        if (r > ch->max_rank)
            continue;
        /* Padding: the rank's ld, then its span of the window. */
        fz_i128 stride[FZ_MAX_DIMS], padded;
        int ok = pos < 0 || fz_strides(m, r, mc, stride, &padded);
        int lib = redist__check_ld(l, r);
        FZ_CHECK((lib == 0) == ok, "rank %d: check_ld returns %d, the model says %s", r, lib,
                 ok ? "valid" : "invalid");
        FZ_CHECK(lib == 0 || lib == REDIST_ERR_ARG, "check_ld returns %d", lib);
        ch->ld_ok[r] = ok;
        if (!ok)
            continue;
        FZ_CHECK(redist__storage_span(l, r, &ch->span_n[r], &ch->span_lo[r], &ch->span_hi[r],
                                      &ch->span_base[r]) == 0,
                 "storage_span of rank %d", r);
        fz_i128 n = pos >= 0 ? 1 : 0, lo = 0, hi = 0;
        for (int k = 0; pos >= 0 && k < d; k++) {
            fz_i128 first = fz_count_below(m, k, mc[k], m->offset[k]);
            fz_i128 e = fz_window_local(m, k, mc[k]);
            n *= e;
            lo += first * stride[k];
            hi += (first + e - 1) * stride[k];
        }
        if (n == 0)
            lo = hi = -1;
        FZ_CHECK(ch->span_n[r] == (int64_t)n, "rank %d: span of %lld elements, expected %lld", r,
                 (long long)ch->span_n[r], (long long)n);
        if (n > 0)
            FZ_CHECK(ch->span_lo[r] == (int64_t)lo && ch->span_hi[r] == (int64_t)hi + 1,
                     "rank %d: span [%lld, %lld), expected [%lld, %lld)", r,
                     (long long)ch->span_lo[r], (long long)ch->span_hi[r], (long long)lo,
                     (long long)hi + 1);
        total += n;
    }
    int all_ok = 1;
    for (int r = 0; r <= ch->max_rank; r++)
        all_ok &= ch->ld_ok[r];
    fz_i128 replicas = 1; /* every replica holds the whole window's share */
    for (int k = 0; k < d; k++)
        replicas *= m->rep[k] ? m->grid[k] : 1;
    if (all_ok)
        FZ_CHECK(total == window_elements(m) * replicas,
                 "spans hold %lld elements, the window %lld times %lld replicas", (long long)total,
                 (long long)window_elements(m), (long long)replicas);
}

/* One index along k: the model's owner; a local index in the coordinate's range that maps
   back to g. Returns the library's local index. */
static int64_t check_index(const checker *ch, int k, int64_t g)
{
    const fz_model *m = ch->m;
    redist_layout l = ch->l;
    int c;
    int64_t li;
    fz_locate_dim(m, k, m->offset[k] + g, &c, &li);
    int owner = redist__owner(l, k, g);
    FZ_CHECK(owner == c, "dim %d index %lld: owner %d, expected %d", k, (long long)g, owner, c);
    int64_t lib = redist__local_index(l, k, g), first = redist__local_first(l, k, c);
    int64_t n = redist__local_extent(l, k, c);
    FZ_CHECK(n == fz_window_local(m, k, c),
             "dim %d coordinate %d: local extent %lld, expected %lld", k, c, (long long)n,
             (long long)fz_window_local(m, k, c));
    FZ_CHECK(lib >= first && lib - first < n,
             "dim %d index %lld: local index %lld outside [%lld, %lld + %lld)", k, (long long)g,
             (long long)lib, (long long)first, (long long)first, (long long)n);
    int64_t back = redist__global_index(l, k, c, lib);
    FZ_CHECK(back == g, "dim %d: global_index(%d, %lld) = %lld, expected %lld", k, c,
             (long long)lib, (long long)back, (long long)g);
    /* In the root's local array the index is the model's, less the part before the window's
       extended start (window.c's storage base): the same shift for every index of c. */
    if (l->gen == NULL || l->gen[k] == NULL) {
        int64_t shift = redist__numroc(l->start[k], l->block[k], l->grid[k], l->root_first[k], c);
        FZ_CHECK(lib + shift == li, "dim %d index %lld: root local index %lld, expected %lld", k,
                 (long long)g, (long long)(lib + shift), (long long)li);
    } else {
        FZ_CHECK(lib == li, "dim %d index %lld: local index %lld, expected %lld", k, (long long)g,
                 (long long)lib, (long long)li);
    }
    return lib;
}

/* The sample indices along k: both ends, around block boundaries and powers of two, and
   pseudo-random ones from a 2-byte seed of the input (read even when n = 0). */
static int samples(fz_reader *r, const fz_model *m, int k, int64_t out[NSAMPLES])
{
    int64_t n = m->extent[k], b = m->block[k];
    uint64_t seed = fz_bytes(r, 2);
    int count = 0;
    if (n == 0)
        return 0;
    int64_t cand[NSAMPLES];
    int nc = 0;
    cand[nc++] = 0;
    cand[nc++] = 1;
    cand[nc++] = n - 1;
    cand[nc++] = n - 2;
    cand[nc++] = n / 2;
    for (int i = 0; i < 4; i++) { /* block boundaries of the root, in window indices */
        fz_i128 B = ((fz_i128)m->offset[k] / b + i) * b - m->offset[k];
        if (B >= 0 && B < n) {
            cand[nc++] = (int64_t)B;
            if (B > 0)
                cand[nc++] = (int64_t)B - 1;
        }
    }
    for (int e = 31; e <= 62 && nc < NSAMPLES - 12; e += 31) {
        cand[nc++] = ((int64_t)1 << e) - 1;
        cand[nc++] = (int64_t)1 << e;
    }
    while (nc < NSAMPLES)
        cand[nc++] = (int64_t)(fz_next(&seed) % (uint64_t)n);
    for (int i = 0; i < nc; i++)
        if (cand[i] >= 0 && cand[i] < n)
            out[count++] = cand[i];
    return count;
}

static int compare_u128(const void *a, const void *b)
{
    const fz_i128 *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* Element g[]: the model's rank and offset, also from the library's index math (base +
   local indices times strides); inside the rank's span. Returns the key rank * 2^64 + offset
   (the rank's ld accepted), else -1. */
static fz_i128 check_element(const checker *ch, const int64_t g[])
{
    const fz_model *m = ch->m;
    int rank, coords[FZ_MAX_DIMS];
    fz_i128 off;
    fz_locate(m, g, &rank, &off, coords);
    if (!ch->ld_ok[rank])
        return -1;
    int64_t stride[FZ_MAX_DIMS], lib = ch->span_base[rank];
    redist__storage_strides(ch->l, coords, stride);
    for (int k = 0; k < m->ndims; k++)
        lib += redist__local_index(ch->l, k, g[k]) * stride[k];
    FZ_CHECK(lib == (int64_t)off, "element offset %lld on rank %d, expected %lld", (long long)lib,
             rank, (long long)off);
    FZ_CHECK(lib >= ch->span_lo[rank] && lib < ch->span_hi[rank],
             "element offset %lld outside rank %d's span [%lld, %lld)", (long long)lib, rank,
             (long long)ch->span_lo[rank], (long long)ch->span_hi[rank]);
    return (fz_i128)rank << 64 | (fz_i128)(uint64_t)lib;
}

static void check_layout(fz_reader *r, redist_layout l, fz_model *m)
{
    int nr = 0;
    for (int i = 0; i < m->nprocs; i++)
        nr = m->ranks[i] > nr ? m->ranks[i] : nr;
    checker ch = {l, m, nr, NULL, NULL, NULL, NULL, NULL};
    size_t n = (size_t)nr + 1;
    int *position_of = malloc(n * sizeof *position_of); /* rank -> grid position, for speed */
    FZ_CHECK(position_of != NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        position_of[i] = -1;
    for (int i = 0; i < m->nprocs; i++)
        position_of[m->ranks[i]] = i;
    m->position_of = position_of;
    m->nposition_of = (int)n;
    ch.ld_ok = calloc(n, sizeof *ch.ld_ok);
    ch.span_n = calloc(n, sizeof(int64_t));
    ch.span_lo = calloc(n, sizeof(int64_t));
    ch.span_hi = calloc(n, sizeof(int64_t));
    ch.span_base = calloc(n, sizeof(int64_t));
    FZ_CHECK(ch.ld_ok && ch.span_n && ch.span_lo && ch.span_hi && ch.span_base, "out of memory");
    check_ranks(&ch);

    /* Along each dimension: every index, or samples. */
    int64_t smp[FZ_MAX_DIMS][NSAMPLES];
    int nsmp[FZ_MAX_DIMS];
    for (int k = 0; k < m->ndims; k++) {
        if (m->extent[k] <= DIM_EXHAUSTIVE)
            for (int64_t g = 0; g < m->extent[k]; g++)
                check_index(&ch, k, g);
        nsmp[k] = samples(r, m, k, smp[k]);
        for (int i = 0; i < nsmp[k]; i++)
            check_index(&ch, k, smp[k][i]);
    }

    /* Every element: distinct (rank, offset), as many per rank as its span says. */
    fz_i128 total = window_elements(m);
    int64_t g[FZ_MAX_DIMS] = {0};
    if (total > 0 && total <= ND_EXHAUSTIVE) {
        fz_i128 *keys = malloc((size_t)total * sizeof *keys);
        FZ_CHECK(keys != NULL, "out of memory");
        size_t nk = 0;
        for (int64_t lin = 0; lin < (int64_t)total; lin++) {
            int64_t rem = lin;
            for (int k = m->ndims - 1; k >= 0; k--) {
                g[k] = rem % m->extent[k];
                rem /= m->extent[k];
            }
            fz_i128 key = check_element(&ch, g);
            if (key >= 0)
                keys[nk++] = key;
        }
        qsort(keys, nk, sizeof *keys, compare_u128);
        for (size_t i = 1; i < nk; i++)
            FZ_CHECK(keys[i] != keys[i - 1], "two elements at rank %d offset %lld",
                     (int)(keys[i] >> 64), (long long)(int64_t)(uint64_t)keys[i]);
        free(keys);
    } else if (total > 0) { /* samples: the i-th sample of every dimension together */
        for (int i = 0; i < NSAMPLES; i++) {
            for (int k = 0; k < m->ndims; k++)
                g[k] = smp[k][(i + k * 7) % nsmp[k]];
            check_element(&ch, g);
        }
    }
    m->position_of = NULL;
    free(position_of);
    free(ch.ld_ok);
    free(ch.span_n);
    free(ch.span_lo);
    free(ch.span_hi);
    free(ch.span_base);
}

/* ---- windows -------------------------------------------------------------------------- */

/* An offset along a dimension of extent n: mostly valid, sometimes not. */
static int64_t window_offset(fz_reader *r, int64_t n)
{
    unsigned mode = fz_u8(r) % 8;
    if (mode < 3)
        return fz_range(r, 0, n < 40 ? n : 40);
    if (mode < 5)
        return n - fz_range(r, 0, n < 40 ? n : 40);
    if (mode < 7)
        return (int64_t)(fz_bytes(r, 8) % ((uint64_t)n + 1));
    return fz_boundaries[fz_u8(r) % FZ_NBOUNDARIES];
}

static void window_ld(fz_reader *r, const fz_model *m, int64_t *ld)
{
    for (int k = 0; k < m->ndims; k++) {
        unsigned mode = fz_u8(r) % 8;
        int64_t largest = 0;
        for (int c = 0; c < m->grid[k] && c < 64; c++) {
            int64_t e = fz_root_local(m, k, c);
            largest = e > largest ? e : largest;
        }
        if (mode < 3)
            ld[k] = 0;
        else if (mode < 6) /* enough for every rank, or a little short for some */
            ld[k] = largest + fz_range(r, 0, 4) - (mode == 5);
        else if (mode < 7)
            ld[k] = fz_value(r, 64);
        else
            ld[k] = fz_boundaries[fz_u8(r) % FZ_NBOUNDARIES];
    }
}

/* ---- HPF ------------------------------------------------------------------------------ */

static void fuzz_hpf(fz_reader *r)
{
    redist_hpf_dist d;
    unsigned kind = fz_u8(r);
    d.kind = kind < 250 ? (int)(kind % 3) : kind % 2 ? -1 : 3;
    d.n = fz_value(r, 50);
    d.m = fz_u8(r) % 4 ? fz_range(r, 0, 12) : fz_value(r, 64);
    d.P = fz_grid(r, 6);
    fz_i128 n = d.n, m = d.m, P = d.P;
    int rc, valid = d.kind >= 0 && d.kind <= 2 && d.n >= 0 && d.P >= 1 && d.m >= 0 &&
                    !(d.kind == REDIST_HPF_CYCLIC && d.m > 1) &&
                    !(d.kind == REDIST_HPF_CYCLIC_M && d.m == 0) &&
                    !(d.kind == REDIST_HPF_BLOCK && d.m > 0 && m * P < n);
    rc = redist_hpf_check(&d);
    FZ_CHECK(rc == (valid ? 0 : REDIST_ERR_ARG), "hpf_check(kind %d, n %lld, m %lld, P %d) = %d",
             d.kind, (long long)d.n, (long long)d.m, d.P, rc);
    if (!valid) {
        FZ_CHECK(redist_hpf_owner(&d, 0) < 0 && redist_hpf_local(&d, 0) < 0 &&
                     redist_hpf_global(&d, 0, 0) < 0 && redist_hpf_local_count(&d, 0) < 0,
                 "a bad distribution accepted by an index function");
        return;
    }
    fz_i128 b = d.kind == REDIST_HPF_CYCLIC ? 1 : m;
    if (d.kind == REDIST_HPF_BLOCK && m == 0)
        b = n == 0 ? 1 : (n + P - 1) / P;
    /* Local counts: Table 1's local index of the last element, per processor. */
    fz_i128 sum = 0;
    int lim = d.P < 4096 ? d.P : 4096;
    for (int p = 0; p < lim; p++) {
        fz_i128 course = b * P, full = n / course, rest = n % course - (fz_i128)p * b;
        fz_i128 want = full * b + (rest < 0 ? 0 : rest > b ? b : rest);
        int64_t got = redist_hpf_local_count(&d, p);
        FZ_CHECK(got == (int64_t)want, "local_count(%d) = %lld, expected %lld", p, (long long)got,
                 (long long)want);
        sum += want;
    }
    if (lim == d.P)
        FZ_CHECK(sum == n, "local counts sum to %lld, n = %lld", (long long)sum, (long long)n);
    FZ_CHECK(redist_hpf_local_count(&d, d.P) < 0 && redist_hpf_local_count(&d, -1) < 0,
             "local_count of a processor out of range");
    FZ_CHECK(redist_hpf_owner(&d, d.n) < 0 && redist_hpf_owner(&d, -1) < 0 &&
                 redist_hpf_local(&d, d.n) < 0 && redist_hpf_local(&d, -1) < 0,
             "an index out of range accepted");
    redist_layout l = NULL;
    if (d.P <= MAX_NPROCS) { /* a layout's extent is at most 2^62 */
        rc = redist_hpf_layout(&d, NULL, &l);
        FZ_CHECK(rc == (d.n <= REDIST_MAX_EXTENT ? 0 : REDIST_ERR_ARG),
                 "hpf_layout of n = %lld returns %d", (long long)d.n, rc);
    }
    int64_t count = d.n <= 4096 ? d.n : NSAMPLES;
    uint64_t seed = fz_bytes(r, 2);
    for (int64_t i = 0; i < count; i++) {
        int64_t g = d.n <= 4096 ? i : (int64_t)(fz_next(&seed) % (uint64_t)d.n);
        if (d.n > 4096 && i < 4)
            g = i < 2 ? i : d.n - (i - 1);
        int p = (int)(g / b % P);
        int64_t li = (int64_t)(g / (b * P) * b + g % b);
        FZ_CHECK(redist_hpf_owner(&d, g) == p, "owner(%lld) = %d, expected %d", (long long)g,
                 redist_hpf_owner(&d, g), p);
        FZ_CHECK(redist_hpf_local(&d, g) == li, "local(%lld) = %lld, expected %lld", (long long)g,
                 (long long)redist_hpf_local(&d, g), (long long)li);
        FZ_CHECK(redist_hpf_global(&d, p, li) == g, "global(%d, %lld) = %lld, expected %lld", p,
                 (long long)li, (long long)redist_hpf_global(&d, p, li), (long long)g);
        if (l != NULL)
            FZ_CHECK(redist__owner(l, 0, g) == p && redist__local_index(l, 0, g) == li,
                     "hpf_layout places %lld elsewhere", (long long)g);
    }
    if (d.P <= 4096) /* past a processor's last local index */
        for (int p = 0; p < d.P && p < 8; p++)
            FZ_CHECK(redist_hpf_global(&d, p, redist_hpf_local_count(&d, p)) < 0,
                     "global index past processor %d's elements accepted", p);
    redist_layout_free(&l);
}

/* ---- the target ----------------------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader rd = {data, size}, *r = &rd;
    if (fz_u8(r) % 8 == 7) {
        fuzz_hpf(r);
        return 0;
    }
    static int64_t sizes_store[FZ_MAX_DIMS][MAX_GEN_GRID];
    static int ranks_store[MAX_NPROCS];
    params p;
    if (!decode_layout(r, &p, sizes_store, ranks_store))
        return 0;
    int64_t np = 0;
    int valid = valid_layout(&p, &np);
    redist_layout l = (redist_layout)&rd; /* must be set to NULL on failure */
    const int64_t *const *sizes = (const int64_t *const *)p.sizes;
    int rc = p.any_sizes
                 ? redist_layout_create_gen_block(p.ndims, p.extent, p.block_null ? NULL : p.block,
                                                  p.grid, p.first_null ? NULL : p.first, p.ranks,
                                                  p.order, sizes, &l)
                 : redist_layout_create(p.ndims, p.extent, p.block, p.grid,
                                        p.first_null ? NULL : p.first, p.ranks, p.order, &l);
    FZ_CHECK(rc == (valid ? 0 : REDIST_ERR_ARG), "layout creation returns %d (%s), expected %s", rc,
             redist_last_error_detail(), valid ? "success" : "REDIST_ERR_ARG");
    if (!valid) {
        FZ_CHECK(l == NULL, "a failed creation left the layout set");
        return 0;
    }

    static int default_ranks[MAX_NPROCS];
    fz_model m;
    memset(&m, 0, sizeof m);
    m.ndims = p.ndims;
    m.order = p.order;
    m.nprocs = (int)np;
    for (int i = 0; p.ranks == NULL && i < m.nprocs; i++)
        default_ranks[i] = i;
    m.ranks = p.ranks != NULL ? p.ranks : default_ranks;
    int irregular = 0; /* a dimension of irregular blocks (windows refuse it) */
    for (int k = 0; k < p.ndims; k++) {
        m.root_extent[k] = m.extent[k] = p.extent[k];
        m.rep[k] = replicated(&p, k);
        m.block[k] = m.rep[k] ? (p.extent[k] > 0 ? p.extent[k] : 1) : p.sizes[k] ? 1 : p.block[k];
        m.grid[k] = p.grid[k];
        m.first[k] = p.first_null || m.rep[k] ? 0 : p.first[k];
        m.sizes[k] = read_sizes(&p, k);
        irregular |= m.sizes[k] != NULL;
    }
    check_layout(r, l, &m);

    /* Windows of windows: offsets add up, ld replaces the parent's when given. */
    int64_t ld_store[2][FZ_MAX_DIMS];
    int nwin = (int)(fz_u8(r) % 3);
    for (int w = 0; w < nwin; w++) {
        int64_t off[FZ_MAX_DIMS], cnt[FZ_MAX_DIMS];
        unsigned how = fz_u8(r);
        int use_off = how & 1, use_cnt = how & 2, use_ld = how & 4;
        int ok = 1;
        for (int k = 0; k < m.ndims; k++) {
            off[k] = use_off ? window_offset(r, m.extent[k]) : 0;
            int64_t rest = off[k] >= 0 && off[k] <= m.extent[k] ? m.extent[k] - off[k] : 0;
            cnt[k] = use_cnt ? (fz_u8(r) % 8 ? fz_range(r, 0, rest < 40 ? rest : 40)
                                             : window_offset(r, rest))
                             : rest;
            ok &= off[k] >= 0 && off[k] <= m.extent[k] && cnt[k] >= 0 && cnt[k] <= rest;
        }
        if (use_ld)
            window_ld(r, &m, ld_store[w]);
        for (int k = 0; use_ld && k < m.ndims; k++)
            ok &= ld_store[w][k] >= 0;
        redist_layout win = (redist_layout)&rd;
        rc = redist_layout_create_window(l, use_off ? off : NULL, use_cnt ? cnt : NULL,
                                         use_ld ? ld_store[w] : NULL, &win);
        /* Irregular blocks: UNSUPPORTED whatever the window's arguments. */
        int want = irregular ? REDIST_ERR_UNSUPPORTED : ok ? 0 : REDIST_ERR_ARG;
        FZ_CHECK(rc == want, "window returns %d (%s), expected %d", rc, redist_last_error_detail(),
                 want);
        if (rc != 0) {
            FZ_CHECK(win == NULL, "a failed window left the layout set");
            break;
        }
        for (int k = 0; k < m.ndims; k++) {
            m.offset[k] += off[k];
            m.extent[k] = cnt[k];
        }
        if (use_ld)
            m.ld = ld_store[w];
        redist_layout_free(&l);
        l = win;
        check_layout(r, l, &m);
    }
    redist_layout_free(&l);
    FZ_CHECK(l == NULL, "layout_free leaves the handle set");
    return 0;
}
