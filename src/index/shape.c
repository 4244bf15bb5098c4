/* The shape of a pair: how the papers classify a redistribution (index.h). Pure. */
#include "index/index.h"

/* 1-D on the same ranks, grid and first coordinate: [TCR96]'s single processor set. */
static int same_line(const struct redist_layout_s *src, const struct redist_layout_s *dst)
{
    if (!src->plain || !dst->plain || src->ndims != 1 || dst->ndims != 1 ||
        src->grid[0] != dst->grid[0] || src->first[0] != dst->first[0] ||
        !redist__same_global_shape(src, dst))
        return 0;
    for (int c = 0; c < src->nprocs; c++)
        if (src->ranks[c] != dst->ranks[c])
            return 0;
    return 1;
}

int64_t redist__ratio_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                             int *dual)
{
    if (!same_line(src, dst))
        return 0;
    int64_t x = src->block[0], y = dst->block[0];
    *dual = y < x;
    int64_t small = *dual ? y : x, large = *dual ? x : y;
    return large % small == 0 ? large / small : 0;
}

int64_t redist__lcm_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst)
{
    int dual = 0;
    if (!same_line(src, dst) || redist__ratio_detect(src, dst, &dual) != 0)
        return 0;
    int64_t x = src->block[0], y = dst->block[0], g = redist__gcd64(x, y), P = src->grid[0];
    if (x / g > P || y / g > P) /* lcm/y = x/g and lcm/x = y/g: both table cases */
        return 0;
    return x / g * y;
}

int redist__bpc_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst, int *n,
                       int *p, int *f1, int *f2)
{
    if (!same_line(src, dst) || src->first[0] != 0)
        return 0;
    *n = redist__log2_exact(src->extent[0]);
    *p = redist__log2_exact(src->grid[0]);
    *f1 = redist__log2_exact(src->block[0]);
    *f2 = redist__log2_exact(dst->block[0]);
    return *n >= 0 && *p >= 0 && *f1 >= 0 && *f2 >= 0 && *n <= 62 && *f1 + *p <= *n &&
           *f2 + *p <= *n;
}

unsigned redist__tcr96_rules(const struct redist_layout_s *src, const struct redist_layout_s *dst)
{
    if (!src->plain || !dst->plain || src->ndims != dst->ndims || src->nprocs != dst->nprocs ||
        !redist__same_global_shape(src, dst))
        return 0;
    for (int c = 0; c < src->nprocs; c++)
        if (src->ranks[c] != dst->ranks[c])
            return 0;
    unsigned rules =
        REDIST__TCR96_SAME_GRID | REDIST__TCR96_KY | REDIST__TCR96_XK | REDIST__TCR96_LCM;
    for (int k = 0; k < src->ndims; k++) {
        int64_t x = src->block[k], y = dst->block[k], g = redist__gcd64(x, y);
        if (src->grid[k] != dst->grid[k] || src->first[k] != dst->first[k])
            return 0;
        if (x % y != 0)
            rules &= ~(unsigned)REDIST__TCR96_KY;
        if (y % x != 0)
            rules &= ~(unsigned)REDIST__TCR96_XK;
        if (x / g > INT64_MAX / y)
            rules &= ~(unsigned)REDIST__TCR96_LCM;
    }
    return rules;
}

void redist__shape_of(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                      redist__shape *out)
{
    *out = (redist__shape){0};
    out->same_line = same_line(src, dst);
    out->beyond_grid = !redist__grid_only(src) || !redist__grid_only(dst);
    out->reduce = src->partial;
    out->dst_shared = redist__shared_elements(dst);
    if (src->ndims == 1) {
        out->P = src->grid[0];
        out->x = src->block[0];
        out->y = dst->block[0];
    }
    int dual = 0;
    out->ratio_K = redist__ratio_detect(src, dst, &dual);
    out->table = redist__table_detect(src, dst, &out->tc);
    out->lcm = out->table ? 0 : redist__lcm_detect(src, dst);
    out->tcr96 = redist__tcr96_rules(src, dst);
    out->sections = redist__sections_cases(src, dst);
    out->bpc = redist__bpc_detect(src, dst, &out->bpc_n, &out->bpc_p, &out->bpc_f1, &out->bpc_f2);
}
