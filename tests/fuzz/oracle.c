/* The fuzz targets' layout model (oracle.h): redist.h's formulas in 128-bit arithmetic. */
#include "oracle.h"

#include <stddef.h>

int fz_position(const fz_model *m, int rank)
{
    if (m->position_of != NULL)
        return rank >= 0 && rank < m->nposition_of ? m->position_of[rank] : -1;
    for (int i = 0; i < m->nprocs; i++)
        if (m->ranks[i] == rank)
            return i;
    return -1;
}

void fz_coords_of(const fz_model *m, int position, int coords[])
{
    for (int k = m->ndims - 1; k >= 0; k--) {
        coords[k] = position % m->grid[k];
        position /= m->grid[k];
    }
}

int fz_rank_at(const fz_model *m, const int coords[])
{
    int pos = 0;
    for (int k = 0; k < m->ndims; k++)
        pos = pos * m->grid[k] + coords[k];
    return m->ranks[pos];
}

/* Coordinate c's place in the dealing order: block j of the root goes to coordinate
   (j + first) mod P, so c gets blocks rel, rel + P, ... */
static fz_i128 rel_of(const fz_model *m, int k, int c)
{
    fz_i128 P = m->grid[k];
    return (((fz_i128)c - m->first[k]) % P + P) % P;
}

fz_i128 fz_count_below(const fz_model *m, int k, int c, fz_i128 upto)
{
    if (m->rep[k]) /* every coordinate holds every element */
        return upto;
    fz_i128 rel = rel_of(m, k, c);
    if (m->sizes[k] != NULL) { /* the one block rel: [sum of sizes before it, + its size) */
        fz_i128 lo = 0;
        for (int i = 0; i < rel; i++)
            lo += m->sizes[k][i];
        fz_i128 n = upto - lo;
        return n < 0 ? 0 : n > m->sizes[k][rel] ? m->sizes[k][rel] : n;
    }
    fz_i128 b = m->block[k], course = b * m->grid[k];
    fz_i128 full = upto / course, rest = upto % course - rel * b;
    return full * b + (rest < 0 ? 0 : rest > b ? b : rest);
}

int64_t fz_root_local(const fz_model *m, int k, int c)
{
    return (int64_t)fz_count_below(m, k, c, m->root_extent[k]);
}

int64_t fz_window_local(const fz_model *m, int k, int c)
{
    return (int64_t)(fz_count_below(m, k, c, (fz_i128)m->offset[k] + m->extent[k]) -
                     fz_count_below(m, k, c, m->offset[k]));
}

void fz_locate_dim(const fz_model *m, int k, int64_t G, int *c, int64_t *li)
{
    fz_i128 P = m->grid[k];
    if (m->rep[k]) {
        *c = 0;
        *li = G;
        return;
    }
    if (m->sizes[k] != NULL) {
        fz_i128 lo = 0;
        int i = 0;
        while (i + 1 < m->grid[k] && lo + m->sizes[k][i] <= G) /* the block holding G */
            lo += m->sizes[k][i++];
        *c = (int)(((fz_i128)i + m->first[k]) % P);
        *li = (int64_t)(G - lo);
        return;
    }
    fz_i128 b = m->block[k], j = G / b;
    *c = (int)((j + m->first[k]) % P);
    *li = (int64_t)(j / P * b + G % b);
}

const int64_t *fz_ld(const fz_model *m, int rank)
{
    if (m->ld == NULL)
        return NULL;
    return m->ld_per_rank ? m->ld + (ptrdiff_t)rank * m->ndims : m->ld;
}

int fz_strides(const fz_model *m, int rank, const int coords[], fz_i128 stride[], fz_i128 *size)
{
    const int64_t *ld = fz_ld(m, rank);
    int d = m->ndims, slowest = m->order == 0 ? 0 : d - 1, ok = 1;
    fz_i128 s = 1, padded = 1;
    for (int i = d - 1; i >= 0; i--) { /* from the fastest dimension out */
        int k = m->order == 0 ? i : d - 1 - i;
        fz_i128 n = fz_root_local(m, k, coords[k]), alloc = n;
        if (ld != NULL && k != slowest && ld[k] != 0) {
            if (ld[k] < n)
                ok = 0;
            else
                alloc = ld[k];
        }
        stride[k] = s;
        s *= alloc;
        padded *= alloc > 0 ? alloc : 1;
        if (padded > ((fz_i128)1 << 62))
            ok = 0, padded = (fz_i128)1 << 63; /* stays bounded: no 128-bit overflow */
        if (s > ((fz_i128)1 << 63))
            s = (fz_i128)1 << 63;
    }
    *size = s;
    return ok;
}

void fz_locate(const fz_model *m, const int64_t g[], int *rank, fz_i128 *offset, int coords[])
{
    int c[FZ_MAX_DIMS];
    int64_t li[FZ_MAX_DIMS];
    fz_i128 stride[FZ_MAX_DIMS], size;
    for (int k = 0; k < m->ndims; k++)
        fz_locate_dim(m, k, m->offset[k] + g[k], &c[k], &li[k]);
    *rank = fz_rank_at(m, c);
    fz_strides(m, *rank, c, stride, &size);
    *offset = 0;
    for (int k = 0; k < m->ndims; k++) {
        *offset += li[k] * stride[k];
        if (coords != NULL)
            coords[k] = c[k];
    }
}
