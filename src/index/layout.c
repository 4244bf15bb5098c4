/* Layouts: pure index math for one block-cyclic distribution (no MPI).
 *
 * Along dimension k, global index g lives in global block g / b, on coordinate
 * (g / b + first) mod P, at local index (g / (b P)) b + g mod b ([TCR96], Table 1, made
 * 0-based; [LBP96] §3.1). Grid coordinates map to ranks row-major (last fastest). Along an
 * irregular dimension (HPF 2's GEN_BLOCK, made by gen_block.c), block i is the interval
 * [gen[i], gen[i + 1]) on coordinate (i + first) mod P, at local index g - gen[i].
 */
#include "index/index.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int positive_mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return (int)(r < 0 ? r + m : r);
}

/* Along k, an element's index in the extended window (window.c): g + phase. */
int redist__owner(const struct redist_layout_s *l, int k, int64_t g)
{
    if (l->gen != NULL && l->gen[k] != NULL)
        return positive_mod(redist__gen_block_of(l, k, g) + l->first[k], l->grid[k]);
    return positive_mod((g + l->phase[k]) / l->block[k] + l->first[k], l->grid[k]);
}

int64_t redist__local_index(const struct redist_layout_s *l, int k, int64_t g)
{
    if (l->gen != NULL && l->gen[k] != NULL)
        return g - l->gen[k][redist__gen_block_of(l, k, g)];
    int64_t b = l->block[k];
    g += l->phase[k];
    return (g / b / l->grid[k]) * b + g % b;
}

/* Elements of coordinate c among the first n of a cyclic(b) distribution over p
   coordinates with block 0 on `first` (ScaLAPACK's NUMROC). */
int64_t redist__numroc(int64_t n, int64_t b, int64_t p, int64_t first, int64_t c)
{
    if (n == 0)
        return 0;
    int64_t nblocks = (n - 1) / b + 1;
    int64_t rel = positive_mod(c - first, p); /* block rel is c's first */
    if (rel >= nblocks)
        return 0;
    int64_t mine = (nblocks - 1 - rel) / p + 1; /* blocks rel, rel+p, ... < nblocks */
    int64_t last = n - (nblocks - 1) * b;       /* length of the last, maybe partial, block */
    return (mine - 1) * b + ((nblocks - 1) % p == rel ? last : b);
}

int64_t redist__local_first(const struct redist_layout_s *l, int k, int c)
{
    return l->box == NULL && l->extent[k] > 0 && c == l->first[k] ? l->phase[k] : 0;
}

int64_t redist__local_extent(const struct redist_layout_s *l, int k, int c)
{
    if (l->box != NULL)
        return redist__box_extent(l, c, k);
    if (l->extent[k] == 0)
        return 0;
    if (l->gen != NULL && l->gen[k] != NULL) {
        int i = positive_mod((int64_t)c - l->first[k], l->grid[k]);
        return l->gen[k][i + 1] - l->gen[k][i];
    }
    return redist__numroc(l->extent[k] + l->phase[k], l->block[k], l->grid[k], l->first[k], c) -
           redist__local_first(l, k, c);
}

/* ---- irregular blocks --------------------------------------------------------------- */

int64_t redist__gen_block_of(const struct redist_layout_s *l, int k, int64_t g)
{
    const int64_t *s = l->gen[k];
    int lo = 0, hi = l->grid[k]; /* s[lo] <= g < s[hi]: the last i with s[i] <= g */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (s[mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int64_t redist__global_index(const struct redist_layout_s *l, int k, int c, int64_t local)
{
    if (l->box != NULL)
        return redist__box_lower(l, c)[k] + local;
    int64_t P = l->grid[k], rel = ((int64_t)c - l->first[k] + P) % P;
    if (l->gen != NULL && l->gen[k] != NULL)
        return l->gen[k][rel] + local;
    int64_t b = l->block[k]; /* [TCR96] Table 1, in the extended window (window.c) */
    return (local / b * P + rel) * b + local % b - l->phase[k];
}

void redist__gen_free(struct redist_layout_s *l)
{
    for (int k = 0; l->gen != NULL && k < l->ndims; k++)
        redist__free(l->gen[k]);
    redist__free(l->gen);
    l->gen = NULL;
}

int redist__gen_copy(struct redist_layout_s *to, const struct redist_layout_s *from,
                     const int *perm)
{
    if (from->gen == NULL)
        return REDIST_SUCCESS;
    if ((to->gen = redist__calloc((size_t)from->ndims, sizeof *to->gen)) == NULL)
        return REDIST_ERR_NOMEM;
    for (int j = 0; j < from->ndims; j++) {
        if (from->gen[j] == NULL)
            continue;
        size_t n = ((size_t)from->grid[j] + 1) * sizeof *from->gen[j];
        int64_t *s = redist__malloc(n);
        if (s == NULL)
            return REDIST_ERR_NOMEM; /* to->gen freed with the layout */
        memcpy(s, from->gen[j], n);
        to->gen[perm != NULL ? perm[j] : j] = s;
        to->plain = 0;
    }
    return REDIST_SUCCESS;
}

/* Sorts grid positions by their rank (qsort has no context argument in C11). */
static void sort_positions(int *pos, int n, const int *ranks, int *tmp)
{
    if (n < 2)
        return;
    int h = n / 2;
    sort_positions(pos, h, ranks, tmp);
    sort_positions(pos + h, n - h, ranks, tmp);
    int i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = ranks[pos[j]] < ranks[pos[i]] ? pos[j++] : pos[i++];
    while (i < h)
        tmp[o++] = pos[i++];
    while (j < n)
        tmp[o++] = pos[j++];
    memcpy(pos, tmp, (size_t)n * sizeof *pos);
}

int redist__layout_position(const struct redist_layout_s *l, int rank)
{
    int lo = 0, hi = l->nprocs - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, r = l->ranks[l->by_rank[mid]];
        if (r == rank)
            return l->by_rank[mid];
        if (r < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

void redist__layout_coords_of(const struct redist_layout_s *l, int position, int coords[])
{
    for (int k = l->ndims - 1; k >= 0; k--) {
        if (l->box != NULL) {
            coords[k] = position;
            continue;
        }
        coords[k] = l->rep != NULL && l->rep[k] ? 0 : position % l->pgrid[k];
        position /= l->pgrid[k];
    }
}

void redist__layout_pcoords_of(const struct redist_layout_s *l, int position, int coords[])
{
    for (int k = l->ndims - 1; k >= 0; k--) {
        coords[k] = l->box != NULL ? position : position % l->pgrid[k];
        position /= l->box != NULL ? 1 : l->pgrid[k];
    }
}

int redist__layout_position_of(const struct redist_layout_s *l, const int coords[])
{
    if (l->box != NULL)
        return coords[0];
    int pos = 0;
    for (int k = 0; k < l->ndims; k++)
        pos = pos * l->pgrid[k] + coords[k];
    return pos;
}

uint64_t redist__layout_hash(const struct redist_layout_s *l, uint64_t h)
{
    size_t d = (size_t)l->ndims;
    h = redist__hash_bytes(h, &l->ndims, sizeof l->ndims);
    h = redist__hash_bytes(h, l->storage, d * sizeof *l->storage);
    h = redist__hash_bytes(h, l->extent, d * sizeof *l->extent);
    h = redist__hash_bytes(h, l->block, d * sizeof *l->block);
    h = redist__hash_bytes(h, l->grid, d * sizeof *l->grid);
    h = redist__hash_bytes(h, l->first, d * sizeof *l->first);
    h = redist__hash_bytes(h, l->phase, d * sizeof *l->phase);
    h = redist__hash_bytes(h, l->pgrid, d * sizeof *l->pgrid);
    h = redist__hash_bytes(h, &l->partial, sizeof l->partial);
    if (l->box != NULL)
        h = redist__hash_bytes(h, l->box, 2 * d * (size_t)l->nprocs * sizeof *l->box);
    for (size_t k = 0; l->gen != NULL && k < d; k++)
        if (l->gen[k] != NULL)
            h = redist__hash_bytes(h, l->gen[k], ((size_t)l->grid[k] + 1) * sizeof *l->gen[k]);
    return redist__hash_bytes(h, l->ranks, (size_t)l->nprocs * sizeof *l->ranks);
}

int redist__check_array_bytes(const struct redist_layout_s *l, size_t elsize)
{
    int64_t elements = 1;
    for (int k = 0; k < l->ndims; k++)
        elements *= l->extent[k]; /* <= 2^62: checked at creation */
    if (elsize > 0 && elements > INT64_MAX / (int64_t)elsize)
        return redist__fail(REDIST_ERR_ARG,
                            "the array has %lld elements of %zu bytes: 2^63 bytes or more",
                            (long long)elements, elsize);
    return REDIST_SUCCESS;
}

int redist__same_global_shape(const struct redist_layout_s *a, const struct redist_layout_s *b)
{
    if (a->ndims != b->ndims)
        return 0;
    for (int k = 0; k < a->ndims; k++)
        if (a->extent[k] != b->extent[k])
            return 0;
    return 1;
}

/* Checks every argument and records the first problem; no early return so that the
   message names the first bad field in dimension order. */
static int validate(int ndims, const int64_t extent[], const int64_t block[], const int grid[],
                    const int first[], int order, redist_layout *layout, int64_t *nprocs)
{
    if (layout == NULL)
        return redist__fail(REDIST_ERR_ARG, "layout: NULL output pointer");
    *layout = NULL; /* also on failure, as plans do */
    if (ndims < 1)
        return redist__fail(REDIST_ERR_ARG, "ndims = %d must be >= 1", ndims);
    int all_replicated = first != NULL; /* then block is never read: it may be NULL */
    for (int k = 0; all_replicated && k < ndims; k++)
        all_replicated = first[k] == REDIST_REPLICATED;
    if (extent == NULL || (block == NULL && !all_replicated) || grid == NULL)
        return redist__fail(REDIST_ERR_ARG, "%s: NULL array",
                            extent == NULL                     ? "extent"
                            : block == NULL && !all_replicated ? "block"
                                                               : "grid");
    if (order != REDIST_ROW_MAJOR && order != REDIST_COL_MAJOR)
        return redist__fail(REDIST_ERR_ARG,
                            "order = %d must be REDIST_ROW_MAJOR or REDIST_COL_MAJOR", order);
    *nprocs = 1;
    int64_t elements = 1; /* product of the nonzero extents */
    for (int k = 0; k < ndims; k++) {
        if (extent[k] < 0 || extent[k] > REDIST_MAX_EXTENT)
            return redist__fail(REDIST_ERR_ARG, "extent[%d] = %lld must be in [0, 2^62]", k,
                                (long long)extent[k]);
        if (extent[k] > 0 && elements > REDIST_MAX_EXTENT / extent[k])
            return redist__fail(REDIST_ERR_ARG,
                                "extent[%d] = %lld makes the array larger than 2^62 elements", k,
                                (long long)extent[k]);
        elements *= extent[k] > 0 ? extent[k] : 1;
        int replicated = all_replicated || (first != NULL && first[k] == REDIST_REPLICATED);
        if (!replicated && block[k] < 1)
            return redist__fail(REDIST_ERR_ARG, "block[%d] = %lld must be >= 1", k,
                                (long long)block[k]);
        if (grid[k] < 1)
            return redist__fail(REDIST_ERR_ARG, "grid[%d] = %d must be >= 1", k, grid[k]);
        if (first != NULL && !replicated && (first[k] < 0 || first[k] >= grid[k]))
            return redist__fail(REDIST_ERR_ARG,
                                "first[%d] = %d must be in [0, grid[%d] = %d) or "
                                "REDIST_REPLICATED (-1)",
                                k, first[k], k, grid[k]);
        *nprocs *= grid[k];
        if (*nprocs > INT_MAX)
            return redist__fail(REDIST_ERR_ARG, "the grid has more than INT_MAX processes");
    }
    return REDIST_SUCCESS;
}

static void boxes_free(struct redist_layout_s *l)
{
    if (l->box_refs != NULL && __atomic_sub_fetch(l->box_refs, 1, __ATOMIC_ACQ_REL) > 0) {
        l->box = NULL; /* another copy still holds the arrays */
        return;
    }
    redist__free(l->box_refs);
    redist__free(l->box);
    redist__free(l->box_class);
    redist__free(l->box_members);
    redist__free(l->box_member_at);
    redist__free(l->box_nmembers);
    redist__free(l->box_by_lo);
    redist__free(l->box_maxlen);
    redist__free(l->box_root);
    l->box = NULL;
}

/* Replicated dimensions (replicas.c): the index math sees a grid of one coordinate. */
static int replicas_init(struct redist_layout_s *l)
{
    for (int k = 0; k < l->ndims; k++) {
        if (l->first[k] != REDIST_REPLICATED)
            continue;
        if (l->rep == NULL && (l->rep = redist__calloc((size_t)l->ndims, sizeof *l->rep)) == NULL)
            return REDIST_ERR_NOMEM;
        l->rep[k] = 1;
        l->grid[k] = 1;
        l->block[k] = l->extent[k] > 0 ? l->extent[k] : 1;
        l->first[k] = 0;
        l->nreplicas *= l->pgrid[k];
    }
    return REDIST_SUCCESS;
}

/* The window fields (window.c) of a whole array, and their release. */
void redist__window_free(struct redist_layout_s *l)
{
    redist__free(l->phase);
    redist__free(l->start);
    redist__free(l->root_extent);
    redist__free(l->root_first);
    redist__free(l->ld);
    redist__free(l->storage);
    redist__gen_free(l);
}

int redist__window_init(struct redist_layout_s *l)
{
    size_t d = (size_t)l->ndims;
    l->phase = redist__calloc(d, sizeof *l->phase);
    l->start = redist__calloc(d, sizeof *l->start);
    l->root_extent = redist__malloc(d * sizeof *l->root_extent);
    l->root_first = redist__malloc(d * sizeof *l->root_first);
    l->ld = redist__calloc(d, sizeof *l->ld);
    l->storage = redist__malloc(d * sizeof *l->storage);
    if (!l->phase || !l->start || !l->root_extent || !l->root_first || !l->ld || !l->storage)
        return redist__fail(REDIST_ERR_NOMEM, "layout");
    for (int i = 0; i < l->ndims; i++)
        l->storage[i] = l->order == REDIST_COL_MAJOR ? l->ndims - 1 - i : i;
    memcpy(l->root_extent, l->extent, d * sizeof *l->extent);
    memcpy(l->root_first, l->first, d * sizeof *l->first);
    l->plain = 1;
    l->dense = 1;
    return REDIST_SUCCESS;
}

int redist_layout_free(redist_layout *layout)
{
    if (layout == NULL)
        return redist__fail(REDIST_ERR_ARG, "layout: NULL pointer");
    struct redist_layout_s *l = *layout;
    if (l != NULL) {
        redist__free(l->extent);
        redist__free(l->block);
        redist__free(l->grid);
        redist__free(l->first);
        redist__free(l->ranks);
        redist__free(l->by_rank);
        redist__free(l->pgrid);
        redist__free(l->rep);
        redist__free(l->node_of);
        boxes_free(l);
        redist__window_free(l);
        redist__free(l);
    }
    *layout = NULL;
    return REDIST_SUCCESS;
}

static int check_ranks(struct redist_layout_s *l)
{
    for (int i = 0; i < l->nprocs; i++)
        if (l->ranks[i] < 0)
            return redist__fail(REDIST_ERR_ARG, "ranks[%d] = %d must be >= 0", i, l->ranks[i]);
    int increasing = 1; /* the usual ranks 0, 1, 2, ...: no sort needed */
    for (int i = 0; i < l->nprocs; i++) {
        l->by_rank[i] = i;
        increasing &= i == 0 || l->ranks[i] > l->ranks[i - 1];
    }
    if (!increasing) {
        int *tmp = redist__malloc((size_t)l->nprocs * sizeof *tmp);
        if (tmp == NULL)
            return redist__fail(REDIST_ERR_NOMEM, "layout rank index");
        sort_positions(l->by_rank, l->nprocs, l->ranks, tmp);
        redist__free(tmp);
    }
    l->max_rank = l->ranks[l->by_rank[l->nprocs - 1]];
    for (int i = 1; i < l->nprocs; i++) {
        int a = l->by_rank[i - 1], b = l->by_rank[i];
        if (l->ranks[a] == l->ranks[b])
            return redist__fail(REDIST_ERR_ARG,
                                "ranks[%d] and ranks[%d] are both %d: ranks must be distinct",
                                a < b ? a : b, a < b ? b : a, l->ranks[a]);
    }
    return REDIST_SUCCESS;
}

int redist_layout_create(int ndims, const int64_t extent[], const int64_t block[], const int grid[],
                         const int first[], const int ranks[], int order, redist_layout *layout)
{
    int64_t nprocs = 0;
    int err = validate(ndims, extent, block, grid, first, order, layout, &nprocs);
    if (err != REDIST_SUCCESS)
        return err;
    *layout = NULL;
    struct redist_layout_s *l = redist__calloc(1, sizeof *l);
    if (l == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "layout");
    size_t d = (size_t)ndims, np = (size_t)nprocs;
    l->ndims = ndims;
    l->order = order;
    l->nprocs = (int)nprocs;
    l->extent = redist__malloc(d * sizeof *l->extent);
    l->block = redist__malloc(d * sizeof *l->block);
    l->grid = redist__malloc(d * sizeof *l->grid);
    l->first = redist__calloc(d, sizeof *l->first);
    l->ranks = redist__malloc(np * sizeof *l->ranks);
    l->by_rank = redist__malloc(np * sizeof *l->by_rank);
    l->pgrid = redist__malloc(d * sizeof *l->pgrid);
    if (!l->extent || !l->block || !l->grid || !l->first || !l->ranks || !l->by_rank || !l->pgrid) {
        redist_layout_free(&l);
        return redist__fail(REDIST_ERR_NOMEM, "layout");
    }
    memcpy(l->extent, extent, d * sizeof *extent);
    for (size_t k = 0; k < d; k++)
        l->block[k] = block != NULL ? block[k] : 1; /* NULL: every dimension replicated */
    memcpy(l->grid, grid, d * sizeof *grid);
    memcpy(l->pgrid, grid, d * sizeof *grid);
    if (first != NULL)
        memcpy(l->first, first, d * sizeof *first);
    l->nreplicas = 1;
    if (replicas_init(l) != REDIST_SUCCESS) {
        redist_layout_free(&l);
        return redist__fail(REDIST_ERR_NOMEM, "layout");
    }
    for (size_t i = 0; i < np; i++)
        l->ranks[i] = ranks != NULL ? ranks[i] : (int)i;
    err = redist__window_init(l);
    l->plain = l->rep == NULL; /* the papers' grid cases know no replicated dimension */
    if (err == REDIST_SUCCESS)
        err = check_ranks(l);
    if (err != REDIST_SUCCESS) {
        redist_layout_free(&l);
        return err;
    }
    *layout = l;
    return REDIST_SUCCESS;
}

int redist_layout_coords(redist_layout layout, int rank, int coords[])
{
    if (layout == NULL || coords == NULL)
        return redist__fail(REDIST_ERR_ARG, "layout_coords: NULL argument");
    int pos = rank < 0 ? -1 : redist__layout_position(layout, rank);
    if (pos < 0)
        return 0;
    redist__layout_pcoords_of(layout, pos, coords);
    return 1;
}

int64_t redist__storage_extent(const struct redist_layout_s *l, int k, int c)
{
    if (l->box != NULL && l->box_root != NULL) /* a window of boxes: its root's box */
        return redist__corners_extent(l->box_root, l->ndims, c, k);
    if (l->box != NULL || (l->gen != NULL && l->gen[k] != NULL)) /* a whole array */
        return redist__local_extent(l, k, c);
    return redist__numroc(l->root_extent[k], l->block[k], l->grid[k], l->root_first[k], c);
}

int redist_layout_local_shape(redist_layout layout, int rank, int64_t shape[])
{
    if (layout == NULL || shape == NULL)
        return redist__fail(REDIST_ERR_ARG, "layout_local_shape: NULL argument");
    if (rank < 0)
        return redist__fail(REDIST_ERR_ARG, "rank = %d must be >= 0", rank);
    int pos = redist__layout_position(layout, rank);
    if (pos < 0) {
        for (int k = 0; k < layout->ndims; k++)
            shape[k] = 0;
        return REDIST_SUCCESS;
    }
    int stack_coords[8];
    int *coords =
        layout->ndims <= 8 ? stack_coords : redist__malloc((size_t)layout->ndims * sizeof *coords);
    if (coords == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "layout_local_shape");
    redist__layout_coords_of(layout, pos, coords);
    for (int k = 0; k < layout->ndims; k++)
        shape[k] = redist__storage_extent(layout, k, coords[k]);
    if (coords != stack_coords)
        redist__free(coords);
    return REDIST_SUCCESS;
}

int redist_layout_local_size(redist_layout layout, int rank, int64_t *count)
{
    if (layout == NULL || count == NULL)
        return redist__fail(REDIST_ERR_ARG, "layout_local_size: NULL argument");
    int64_t stack_shape[8];
    int64_t *shape =
        layout->ndims <= 8 ? stack_shape : redist__malloc((size_t)layout->ndims * sizeof *shape);
    if (shape == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "layout_local_size");
    int err = redist_layout_local_shape(layout, rank, shape);
    int64_t n = 1;
    for (int k = 0; err == REDIST_SUCCESS && k < layout->ndims; k++)
        n *= shape[k];
    if (shape != stack_shape)
        redist__free(shape);
    if (err == REDIST_SUCCESS)
        *count = n;
    return err;
}

int redist_layout_ndims(redist_layout layout)
{
    return layout ? layout->ndims : redist__fail(REDIST_ERR_ARG, "layout_ndims: layout is NULL");
}

int redist_layout_nprocs(redist_layout layout)
{
    return layout ? layout->nprocs : redist__fail(REDIST_ERR_ARG, "layout_nprocs: layout is NULL");
}
