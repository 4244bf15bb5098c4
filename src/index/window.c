/* Windows and padded local arrays (no MPI): ScaLAPACK's sub-matrices (ia, ja) and leading
 * dimensions (LLD), for any number of dimensions.
 *
 * A window takes count[k] elements from offset[k] on along each dimension of a parent
 * array; its elements stay where the parent puts them, in the parent's local arrays. Write
 * the offset as start + phase, start the largest multiple of the block not above it. The
 * elements from `start` on form an ordinary block-cyclic array, the "extended window",
 * whose block 0 lies on coordinate (first + start / block) mod grid. So a window is that
 * array with its first `phase` elements left out (phase < block), and, on every rank, its
 * local array begins a fixed number of root elements into the parent's: along k, the
 * elements of the rank's coordinate before `start` (window.c's storage base). Every index
 * formula of layout.c applies at g + phase; a plan only adds the base to the user's pointer.
 *
 * When every phase is 0 (the window starts on block boundaries), the window is an ordinary
 * layout up to that base and to its storage strides, and every algorithm applies. Otherwise
 * the pattern (pattern.c) and the enumerative algorithm handle the phase, and the papers'
 * special cases (shape.c) do not apply.
 *
 * ld[k] is the allocated extent of this rank's local array of the root along k (ScaLAPACK's
 * LLD for a column-major matrix): strides come from it instead of the local extents, and the
 * elements in between are never touched. It is the rank's own; the ranks do not agree on it.
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

struct redist_layout_s *redist__layout_copy(const struct redist_layout_s *l)
{
    if (l->box != NULL)
        return redist__boxes_copy(l, NULL);
    struct redist_layout_s *c = NULL;
    size_t d = (size_t)l->ndims;
    int *first = redist__malloc(d * sizeof *first); /* the user's: replicated dimensions -1 */
    if (first == NULL)
        return NULL;
    for (size_t k = 0; k < d; k++)
        first[k] = l->rep != NULL && l->rep[k] ? REDIST_REPLICATED : l->first[k];
    int err = redist_layout_create(l->ndims, l->extent, l->block, l->pgrid, first, l->ranks,
                                   l->order, &c);
    redist__free(first);
    if (err != REDIST_SUCCESS)
        return NULL;
    memcpy(c->block, l->block, d * sizeof *l->block); /* a replicated one: the root extent */
    memcpy(c->phase, l->phase, d * sizeof *l->phase);
    memcpy(c->start, l->start, d * sizeof *l->start);
    memcpy(c->root_extent, l->root_extent, d * sizeof *l->root_extent);
    memcpy(c->root_first, l->root_first, d * sizeof *l->root_first);
    memcpy(c->ld, l->ld, d * sizeof *l->ld);
    memcpy(c->storage, l->storage, d * sizeof *l->storage);
    c->plain = l->plain;
    c->dense = l->dense;
    if (redist__gen_copy(c, l, NULL) != REDIST_SUCCESS)
        redist_layout_free(&c);
    return c;
}

/* The dimension that varies slowest in storage: its allocated extent never matters. */
static int slowest_dim(const struct redist_layout_s *l)
{
    return l->storage[0];
}

void redist__storage_strides(const struct redist_layout_s *l, const int coords[], int64_t stride[])
{
    int64_t s = 1;
    for (int i = 0; i < l->ndims; i++) {
        int k = l->storage[l->ndims - 1 - i];
        int64_t n = redist__storage_extent(l, k, coords[k]);
        stride[k] = s;
        if (i + 1 < l->ndims) /* not the slowest: its extent is never needed, its ld ignored */
            s *= l->ld[k] > n ? l->ld[k] : n;
    }
}

int64_t redist__storage_base(const struct redist_layout_s *l, const int coords[],
                             const int64_t stride[])
{
    int64_t base = 0;
    if (l->box != NULL) {
        int p = coords[0]; /* a box's coordinates: its position along every dimension */
        if (l->box_root == NULL || redist__box_extent(l, p, 0) == 0)
            return 0; /* a whole array begins with its box; an empty one holds nothing */
        const int64_t *root_lower = l->box_root + (size_t)p * 2 * (size_t)l->ndims;
        for (int k = 0; k < l->ndims; k++) /* where the window's box begins in the root's */
            base += (redist__box_lower(l, p)[k] + l->start[k] - root_lower[k]) * stride[k];
        return base;
    }
    for (int k = 0; k < l->ndims; k++)
        base += redist__numroc(l->start[k], l->block[k], l->grid[k], l->root_first[k], coords[k]) *
                stride[k];
    return base;
}

int redist__storage_span(const struct redist_layout_s *l, int rank, int64_t *count, int64_t *lo,
                         int64_t *hi, int64_t *base)
{
    *count = *lo = *hi = *base = 0;
    int pos = redist__layout_position(l, rank);
    if (pos < 0)
        return REDIST_SUCCESS;
    int *coords = redist__malloc((size_t)l->ndims * sizeof *coords);
    int64_t *stride = redist__malloc((size_t)l->ndims * sizeof *stride);
    if (coords == NULL || stride == NULL) {
        redist__free(coords);
        redist__free(stride);
        return redist__fail(REDIST_ERR_NOMEM, "storage span");
    }
    redist__layout_coords_of(l, pos, coords);
    redist__storage_strides(l, coords, stride);
    int64_t n = 1, first = 0, last = 0;
    for (int k = 0; k < l->ndims; k++) {
        int64_t e = redist__local_extent(l, k, coords[k]), f = redist__local_first(l, k, coords[k]);
        n *= e;
        first += f * stride[k];
        last += (f + e - 1) * stride[k];
    }
    if (n > 0) {
        *base = redist__storage_base(l, coords, stride);
        *count = n;
        *lo = *base + first;
        *hi = *base + last + 1;
    }
    redist__free(coords);
    redist__free(stride);
    return REDIST_SUCCESS;
}

int redist__check_ld(const struct redist_layout_s *l, int rank)
{
    int pos = redist__layout_position(l, rank);
    if (pos < 0)
        return REDIST_SUCCESS;
    int stack_coords[8];
    int *coords = l->ndims <= 8 ? stack_coords : redist__malloc((size_t)l->ndims * sizeof *coords);
    if (coords == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "ld check");
    redist__layout_coords_of(l, pos, coords); /* the index math's (replicas: coordinate 0) */
    int err = REDIST_SUCCESS;
    int64_t elements = 1; /* of the padded local array: every offset must fit */
    for (int k = l->ndims - 1; k >= 0 && err == REDIST_SUCCESS; k--) {
        int64_t n = redist__storage_extent(l, k, coords[k]);
        int64_t alloc = k != slowest_dim(l) && l->ld[k] > n ? l->ld[k] : n;
        if (k != slowest_dim(l) && l->ld[k] != 0 && l->ld[k] < n)
            err = redist__fail(REDIST_ERR_ARG,
                               "ld[%d] = %lld is less than this rank's local extent %lld", k,
                               (long long)l->ld[k], (long long)n);
        else if (alloc > 0 && elements > REDIST_MAX_EXTENT / alloc)
            err = redist__fail(REDIST_ERR_ARG,
                               "ld makes this rank's local array 2^62 elements or more");
        else
            elements *= alloc > 0 ? alloc : 1;
    }
    if (coords != stack_coords)
        redist__free(coords);
    return err;
}

/* Checks the window's arguments against its parent. */
static int check_window(const struct redist_layout_s *parent, const int64_t offset[],
                        const int64_t count[], const int64_t ld[])
{
    for (int k = 0; k < parent->ndims; k++) {
        int64_t o = offset ? offset[k] : 0;
        if (o < 0 || o > parent->extent[k])
            return redist__fail(REDIST_ERR_ARG, "offset[%d] = %lld must be in [0, %lld]", k,
                                (long long)o, (long long)parent->extent[k]);
        int64_t n = count ? count[k] : parent->extent[k] - o;
        if (n < 0 || n > parent->extent[k] - o)
            return redist__fail(REDIST_ERR_ARG,
                                "count[%d] = %lld: the window [%lld, %lld + count) must lie in "
                                "[0, %lld]",
                                k, (long long)n, (long long)o, (long long)o,
                                (long long)parent->extent[k]);
        if (ld != NULL && ld[k] < 0)
            return redist__fail(REDIST_ERR_ARG, "ld[%d] = %lld must be >= 0", k, (long long)ld[k]);
    }
    return REDIST_SUCCESS;
}

int redist_layout_create_window(redist_layout parent, const int64_t offset[], const int64_t count[],
                                const int64_t ld[], redist_layout *window)
{
    if (window == NULL)
        return redist__fail(REDIST_ERR_ARG, "window: NULL output pointer");
    *window = NULL;
    if (parent == NULL)
        return redist__fail(REDIST_ERR_ARG, "parent layout is NULL");
    if (parent->gen != NULL)
        for (int k = 0; k < parent->ndims; k++)
            if (parent->gen[k] != NULL)
                return redist__fail(REDIST_ERR_UNSUPPORTED,
                                    "windows of layouts with irregular blocks (dimension %d) are "
                                    "not supported",
                                    k);
    int err = check_window(parent, offset, count, ld);
    if (err != REDIST_SUCCESS)
        return err;
    if (parent->box != NULL)
        return redist__boxes_window(parent, offset, count, ld, window);
    struct redist_layout_s *w = redist__layout_copy(parent);
    if (w == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "window layout");
    w->plain = parent->rep == NULL;
    for (int k = 0; k < w->ndims; k++) {
        int64_t o = offset ? offset[k] : 0, b = w->block[k];
        /* The offset from the root: the parent's own (start + phase) plus this one. */
        int64_t from_root = parent->start[k] + parent->phase[k] + o;
        w->extent[k] = count ? count[k] : parent->extent[k] - o;
        w->start[k] = from_root - from_root % b;
        w->phase[k] = from_root % b;
        w->first[k] = (int)((w->root_first[k] + (w->start[k] / b) % w->grid[k]) % w->grid[k]);
        if (ld != NULL)
            w->ld[k] = ld[k];
        w->plain &= w->phase[k] == 0;
    }
    w->dense = 1;
    for (int k = 0; k < w->ndims; k++)
        w->dense &= w->start[k] == 0 && w->extent[k] == w->root_extent[k] && w->ld[k] == 0;
    *window = w;
    return REDIST_SUCCESS;
}
