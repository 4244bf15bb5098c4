/* Box layouts (no MPI): their constructor, copies and the index their sides search
 * (boxes.c). Position p (rank ranks[p]) holds one box, an interval along every dimension
 * stored densely. Identical boxes are one replica class (replicas.c), its base the first
 * position in the sorted order of equal boxes, and the nonempty boxes are sorted by their
 * lower and by their upper corner along every dimension, once, at creation (O(B log B) for
 * B boxes), for boxes.c's sort and sweep.
 */
#include "index/index.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the constructor ------------------------------------------------------------------ */

static int check_boxes(int ndims, const int64_t extent[], int nboxes, const int64_t lower[],
                       const int64_t upper[])
{
    for (int r = 0; r < nboxes; r++)
        for (int k = 0; k < ndims; k++) {
            int64_t lo = lower[(size_t)r * (size_t)ndims + (size_t)k];
            int64_t hi = upper[(size_t)r * (size_t)ndims + (size_t)k];
            if (lo < 0 || lo > extent[k])
                return redist__fail(REDIST_ERR_ARG,
                                    "lower[%d * %d + %d] = %lld (box %d) must be in [0, extent[%d] "
                                    "= %lld]",
                                    r, ndims, k, (long long)lo, r, k, (long long)extent[k]);
            if (hi < 0 || hi > extent[k])
                return redist__fail(REDIST_ERR_ARG,
                                    "upper[%d * %d + %d] = %lld (box %d) must be in [0, extent[%d] "
                                    "= %lld]",
                                    r, ndims, k, (long long)hi, r, k, (long long)extent[k]);
        }
    return REDIST_SUCCESS;
}

/* Merge sort of positions with a context (C11's qsort has none). */
typedef int (*less_fn)(const struct redist_layout_s *l, int key, int a, int b);
static void sort_by(const struct redist_layout_s *l, int key, less_fn less, int *v, int n, int *tmp)
{
    if (n < 2)
        return;
    int h = n / 2;
    sort_by(l, key, less, v, h, tmp);
    sort_by(l, key, less, v + h, n - h, tmp);
    int i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = less(l, key, v[j], v[i]) ? v[j++] : v[i++];
    while (i < h)
        tmp[o++] = v[i++];
    while (j < n)
        tmp[o++] = v[j++];
    memcpy(v, tmp, (size_t)n * sizeof *v);
}

static int less_lower(const struct redist_layout_s *l, int k, int a, int b)
{
    return redist__box_lower(l, a)[k] < redist__box_lower(l, b)[k];
}
static int less_upper(const struct redist_layout_s *l, int k, int a, int b)
{
    return redist__box_upper(l, a)[k] < redist__box_upper(l, b)[k];
}
/* Lexicographic order of (lower, upper) corners. */
static int compare_corners(const struct redist_layout_s *l, int a, int b)
{
    const int64_t *x = redist__box_lower(l, a), *y = redist__box_lower(l, b);
    for (int i = 0; i < 2 * l->ndims; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}
/* Equal boxes keep their position order (the sort is stable). */
static int less_box(const struct redist_layout_s *l, int unused, int a, int b)
{
    (void)unused;
    return compare_corners(l, a, b) < 0;
}

static int box_empty(const struct redist_layout_s *l, int p)
{
    return redist__box_extent(l, p, 0) == 0;
}

/* Replica classes (identical boxes; every empty box is its own class) and the sweep's sorted
   orders. */
static int index_boxes(struct redist_layout_s *l)
{
    int n = l->nprocs, d = l->ndims;
    int *tmp = redist__malloc((size_t)n * sizeof *tmp);
    int *order = redist__malloc((size_t)n * sizeof *order);
    l->box_class = redist__malloc((size_t)n * sizeof *l->box_class);
    l->box_members = redist__malloc((size_t)n * sizeof *l->box_members);
    l->box_member_at = redist__calloc((size_t)n, sizeof *l->box_member_at);
    l->box_nmembers = redist__calloc((size_t)n, sizeof *l->box_nmembers);
    int err = tmp && order && l->box_class && l->box_members && l->box_member_at && l->box_nmembers
                  ? REDIST_SUCCESS
                  : REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS) {
        for (int p = 0; p < n; p++)
            order[p] = p;
        sort_by(l, 0, less_box, order, n, tmp);
        for (int i = 0; i < n;) { /* runs of equal boxes: one class, its base the first */
            int j = i + 1;
            while (j < n && !box_empty(l, order[i]) && compare_corners(l, order[i], order[j]) == 0)
                j++;
            for (int m = i; m < j; m++) {
                l->box_class[order[m]] = order[i];
                l->box_members[m] = order[m];
            }
            l->box_member_at[order[i]] = i;
            l->box_nmembers[order[i]] = j - i;
            i = j;
        }
        l->box_nonempty = 0;
        for (int p = 0; p < n; p++)
            l->box_nonempty += !box_empty(l, p);
        size_t m = (size_t)l->box_nonempty;
        l->box_by_lo = redist__malloc(((size_t)d * m + 1) * sizeof *l->box_by_lo);
        l->box_by_hi = redist__malloc(((size_t)d * m + 1) * sizeof *l->box_by_hi);
        if (l->box_by_lo == NULL || l->box_by_hi == NULL)
            err = REDIST_ERR_NOMEM;
    }
    for (int k = 0; err == REDIST_SUCCESS && k < d; k++) {
        int *lo = l->box_by_lo + (size_t)k * (size_t)l->box_nonempty;
        int *hi = l->box_by_hi + (size_t)k * (size_t)l->box_nonempty;
        int m = 0;
        for (int p = 0; p < n; p++)
            if (!box_empty(l, p))
                lo[m] = hi[m] = p, m++;
        sort_by(l, k, less_lower, lo, m, tmp);
        sort_by(l, k, less_upper, hi, m, tmp);
    }
    redist__free(tmp);
    redist__free(order);
    return err;
}

int redist_layout_create_boxes(int ndims, const int64_t extent[], int nboxes, const int64_t lower[],
                               const int64_t upper[], int order, redist_layout *layout)
{
    if (layout == NULL)
        return redist__fail(REDIST_ERR_ARG, "layout: NULL output pointer");
    *layout = NULL;
    if (ndims < 1)
        return redist__fail(REDIST_ERR_ARG, "ndims = %d must be >= 1", ndims);
    if (nboxes < 1)
        return redist__fail(REDIST_ERR_ARG, "nboxes = %d must be >= 1", nboxes);
    if (extent == NULL || lower == NULL || upper == NULL)
        return redist__fail(REDIST_ERR_ARG, "%s: NULL array",
                            extent == NULL  ? "extent"
                            : lower == NULL ? "lower"
                                            : "upper");
    int64_t *block = redist__malloc((size_t)ndims * sizeof *block);
    int *grid = redist__malloc((size_t)ndims * sizeof *grid);
    int err = block && grid ? REDIST_SUCCESS : redist__fail(REDIST_ERR_NOMEM, "layout");
    for (int k = 0; err == REDIST_SUCCESS && k < ndims; k++) {
        block[k] = 1;
        grid[k] = k == 0 ? nboxes : 1;
    }
    struct redist_layout_s *l = NULL;
    if (err == REDIST_SUCCESS) /* checks extents, order */
        err = redist_layout_create(ndims, extent, block, grid, NULL, NULL, order, &l);
    redist__free(block);
    redist__free(grid);
    if (err == REDIST_SUCCESS)
        err = check_boxes(ndims, extent, nboxes, lower, upper);
    size_t per = (size_t)ndims;
    if (err == REDIST_SUCCESS &&
        (l->box = redist__malloc(2 * per * (size_t)nboxes * sizeof *l->box)) == NULL)
        err = redist__fail(REDIST_ERR_NOMEM, "layout");
    for (int r = 0; err == REDIST_SUCCESS && r < nboxes; r++) {
        memcpy(l->box + (size_t)r * 2 * per, lower + (size_t)r * per, per * sizeof *lower);
        memcpy(l->box + ((size_t)r * 2 + 1) * per, upper + (size_t)r * per, per * sizeof *upper);
    }
    if (err == REDIST_SUCCESS && index_boxes(l) != REDIST_SUCCESS)
        err = redist__fail(REDIST_ERR_NOMEM, "layout: the boxes' index");
    if (err != REDIST_SUCCESS) {
        redist_layout_free(&l);
        return err;
    }
    l->plain = 0;
    *layout = l;
    return REDIST_SUCCESS;
}

struct redist_layout_s *redist__boxes_copy(const struct redist_layout_s *l, const int *perm)
{
    size_t d = (size_t)l->ndims, n = (size_t)l->nprocs;
    int64_t *extent = redist__malloc(d * sizeof *extent);
    int64_t *lo = redist__malloc(d * n * sizeof *lo), *hi = redist__malloc(d * n * sizeof *hi);
    struct redist_layout_s *c = NULL;
    if (extent != NULL && lo != NULL && hi != NULL) {
        for (size_t j = 0; j < d; j++) {
            size_t to = perm != NULL ? (size_t)perm[j] : j;
            extent[to] = l->extent[j];
            for (size_t p = 0; p < n; p++) {
                lo[p * d + to] = redist__box_lower(l, (int)p)[j];
                hi[p * d + to] = redist__box_upper(l, (int)p)[j];
            }
        }
        if (redist_layout_create_boxes(l->ndims, extent, l->nprocs, lo, hi, l->order, &c) !=
            REDIST_SUCCESS)
            c = NULL;
    }
    if (c != NULL) {
        memcpy(c->ranks, l->ranks, n * sizeof *l->ranks);
        memcpy(c->by_rank, l->by_rank, n * sizeof *l->by_rank);
        c->max_rank = l->max_rank;
        for (size_t i = 0; i < d; i++)
            c->storage[i] = perm != NULL ? perm[l->storage[i]] : l->storage[i];
    }
    redist__free(extent);
    redist__free(lo);
    redist__free(hi);
    return c;
}
