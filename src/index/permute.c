/* Axis permutation (no MPI): a plan that moves the source's element (g_0 .. g_{d-1}) to the
 * destination's element (g_perm[0] .. g_perm[d-1]) is an ordinary redistribution between the
 * source and a view of the destination whose dimensions are renamed to the source's: the
 * view's dimension perm[j] is the destination's dimension j, with its extent, block, grid,
 * first coordinate, window and ld, its grid positions renumbered so that every view position
 * names the same rank, and its storage order renamed too (which is why layouts carry a
 * storage order, not just row- or column-major). Every pattern, message and algorithm then
 * works unchanged; the runs that are contiguous in the source are strided in the view, and
 * the copy engine's tiles (copy.c) turn that into a cache-blocked local transpose.
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

int redist__check_permutation(int ndims, const int perm[])
{
    if (perm == NULL)
        return REDIST_SUCCESS;
    unsigned char *seen = redist__calloc((size_t)ndims, 1);
    if (seen == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "permutation check");
    int err = REDIST_SUCCESS;
    for (int j = 0; j < ndims && err == REDIST_SUCCESS; j++) {
        if (perm[j] < 0 || perm[j] >= ndims)
            err = redist__fail(REDIST_ERR_ARG, "permutation[%d] = %d is not in [0, %d)", j, perm[j],
                               ndims);
        else if (seen[perm[j]]++)
            err = redist__fail(REDIST_ERR_ARG,
                               "permutation[%d] = %d appears twice: not a permutation", j, perm[j]);
    }
    redist__free(seen);
    return err;
}

int redist__permuted_shape_matches(const struct redist_layout_s *src,
                                   const struct redist_layout_s *dst, const int perm[])
{
    if (src->ndims != dst->ndims)
        return 0;
    for (int j = 0; j < dst->ndims; j++)
        if (dst->extent[j] != src->extent[perm ? perm[j] : j])
            return 0;
    return 1;
}

/* view[perm[j]] = of[j], for each per-dimension array. */
#define SCATTER(view, of, perm, d)                                                                 \
    do {                                                                                           \
        for (int j_ = 0; j_ < (d); j_++)                                                           \
            (view)[(perm)[j_]] = (of)[j_];                                                         \
    } while (0)

/* The view's ranks: its position of coordinates v is the destination's position of
   coordinates c with c[j] = v[perm[j]]. */
static int permuted_ranks(const struct redist_layout_s *dst, const int perm[], const int *vgrid,
                          int *ranks)
{
    int d = dst->ndims, *v = redist__calloc((size_t)d, sizeof *v),
        *c = redist__calloc((size_t)d, sizeof *c);
    if (v == NULL || c == NULL) {
        redist__free(v);
        redist__free(c);
        return REDIST_ERR_NOMEM;
    }
    for (int pos = 0; pos < dst->nprocs; pos++) { /* v counts up, last coordinate fastest */
        for (int j = 0; j < d; j++)
            c[j] = v[perm[j]];
        ranks[pos] = dst->ranks[redist__layout_position_of(dst, c)]; /* c: positions */
        for (int k = d - 1; k >= 0 && ++v[k] == vgrid[k]; k--)
            v[k] = 0;
    }
    redist__free(v);
    redist__free(c);
    return REDIST_SUCCESS;
}

struct redist_layout_s *redist__layout_permuted(const struct redist_layout_s *dst, const int perm[])
{
    if (dst->box != NULL)
        return redist__boxes_copy(dst, perm);
    int d = dst->ndims;
    int64_t *extent = redist__malloc(2 * (size_t)d * sizeof *extent), *block = extent + d;
    int *grid = redist__malloc((2 * (size_t)d + (size_t)dst->nprocs) * sizeof *grid);
    if (extent == NULL || grid == NULL) {
        redist__free(extent);
        redist__free(grid);
        return NULL;
    }
    int *first = grid + d, *ranks = grid + 2 * d;
    SCATTER(extent, dst->extent, perm, d);
    SCATTER(block, dst->block, perm, d);
    SCATTER(grid, dst->pgrid, perm, d);
    SCATTER(first, dst->first, perm, d);
    for (int j = 0; dst->rep != NULL && j < d; j++)
        if (dst->rep[j])
            first[perm[j]] = REDIST_REPLICATED;
    struct redist_layout_s *v = NULL;
    if (permuted_ranks(dst, perm, grid, ranks) != REDIST_SUCCESS ||
        redist_layout_create(d, extent, block, grid, first, ranks, dst->order, &v) !=
            REDIST_SUCCESS)
        v = NULL;
    redist__free(extent);
    redist__free(grid);
    if (v == NULL)
        return NULL;
    SCATTER(v->block, dst->block, perm, d); /* a replicated one: the root extent */
    SCATTER(v->phase, dst->phase, perm, d);
    SCATTER(v->start, dst->start, perm, d);
    SCATTER(v->root_extent, dst->root_extent, perm, d);
    SCATTER(v->root_first, dst->root_first, perm, d);
    SCATTER(v->ld, dst->ld, perm, d);
    for (int i = 0; i < d; i++)
        v->storage[i] = perm[dst->storage[i]];
    v->plain = dst->plain;
    v->dense = dst->dense;
    if (redist__gen_copy(v, dst, perm) != REDIST_SUCCESS)
        redist_layout_free(&v);
    return v;
}
