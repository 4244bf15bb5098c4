/* The bad-input catalogue (tests/mpi/test_catalogue.c): the layouts. */
#include "catalogue.h"

/* ---- layouts (local) --------------------------------------------------------------------- */

enum {
    LC_OK,
    LC_NDIMS0,
    LC_NDIMS_MIN,
    LC_NULL_EXTENT,
    LC_NULL_BLOCK,
    LC_NULL_GRID,
    LC_NULL_OUT,
    LC_EXTENT_NEG,
    LC_EXTENT_HUGE,
    LC_EXTENT_PRODUCT,
    LC_BLOCK0,
    LC_BLOCK_MIN,
    LC_BLOCK_MAX,
    LC_GRID0,
    LC_GRID_NEG,
    LC_GRID_PRODUCT,
    LC_FIRST_NEG,
    LC_FIRST_GRID,
    LC_RANKS_DUP,
    LC_RANKS_NEG,
    LC_RANKS_MAX,
    LC_ORDER
};

static int run_layout_create(int v)
{
    int64_t e[2] = {10, 7}, b[2] = {2, 3};
    int g[2] = {2, 1}, f[2] = {1, 0}, r[2] = {1, 0}, nd = 2, order = REDIST_COL_MAJOR;
    const int64_t *pe = e, *pb = b;
    const int *pg = g, *pf = f, *pr = r;
    redist_layout l = garbage(), *pl = &l;
    switch (v) {
    case LC_NDIMS0:
        nd = 0;
        break;
    case LC_NDIMS_MIN:
        nd = INT_MIN;
        break;
    case LC_NULL_EXTENT:
        pe = NULL;
        break;
    case LC_NULL_BLOCK:
        pb = NULL;
        break;
    case LC_NULL_GRID:
        pg = NULL;
        break;
    case LC_NULL_OUT:
        pl = NULL;
        break;
    case LC_EXTENT_NEG:
        e[1] = -1;
        break;
    case LC_EXTENT_HUGE:
        e[0] = REDIST_MAX_EXTENT + 1;
        break;
    case LC_EXTENT_PRODUCT: /* 2^32 x 2^32 = 2^64 elements */
        e[0] = e[1] = (int64_t)1 << 32;
        break;
    case LC_BLOCK0:
        b[1] = 0;
        break;
    case LC_BLOCK_MIN:
        b[0] = INT64_MIN;
        break;
    case LC_BLOCK_MAX: /* legal: one block */
        b[0] = INT64_MAX;
        break;
    case LC_GRID0:
        g[1] = 0;
        break;
    case LC_GRID_NEG:
        g[0] = -2;
        break;
    case LC_GRID_PRODUCT: /* 2^32 coordinates */
        g[0] = g[1] = 65536;
        pr = NULL;
        pf = NULL;
        break;
    case LC_FIRST_NEG:
        f[0] = -2; /* -1 is REDIST_REPLICATED */
        break;
    case LC_FIRST_GRID:
        f[0] = 2;
        break;
    case LC_RANKS_DUP:
        r[0] = r[1] = 3;
        break;
    case LC_RANKS_NEG:
        r[1] = -1;
        break;
    case LC_RANKS_MAX: /* legal here; a plan checks it against its communicator */
        r[0] = INT_MAX;
        break;
    case LC_ORDER:
        order = 2;
        break;
    }
    return layout_done(redist_layout_create(nd, pe, pb, pg, pf, pr, order, pl), pl);
}

enum {
    LW_OK,
    LW_OF_WINDOW,
    LW_NULL_PARENT,
    LW_NULL_OUT,
    LW_OFFSET_NEG,
    LW_OFFSET_PAST,
    LW_OFFSET_MAX,
    LW_COUNT_NEG,
    LW_COUNT_PAST,
    LW_COUNT_MAX,
    LW_LD_NEG,
    LW_GEN_PARENT
};

static int run_window(int v)
{
    int64_t off[1] = {3}, cnt[1] = {N1 - 5}, ld[1] = {0};
    redist_layout parent = Ls, w = garbage(), *pw = &w;
    switch (v) {
    case LW_OF_WINDOW:
        parent = Lw1;
        break;
    case LW_NULL_PARENT:
        parent = NULL;
        break;
    case LW_NULL_OUT:
        pw = NULL;
        break;
    case LW_OFFSET_NEG:
        off[0] = -1;
        break;
    case LW_OFFSET_PAST:
        off[0] = N1 + 1;
        break;
    case LW_OFFSET_MAX:
        off[0] = INT64_MAX;
        break;
    case LW_COUNT_NEG:
        cnt[0] = -1;
        break;
    case LW_COUNT_PAST:
        cnt[0] = N1 - 2;
        break;
    case LW_COUNT_MAX: /* offset + count overflows */
        cnt[0] = INT64_MAX;
        break;
    case LW_LD_NEG:
        ld[0] = -4;
        break;
    case LW_GEN_PARENT:
        parent = Lgen;
        break;
    }
    return layout_done(redist_layout_create_window(parent, off, cnt, ld, pw), pw);
}

enum {
    LG_OK,
    LG_NULL_SIZES,
    LG_ALL_GEN_NULL_BLOCK,
    LG_SIZE_NEG,
    LG_SUM_SHORT,
    LG_SUM_LONG,
    LG_SUM_OVERFLOW,
    LG_NULL_OUT,
    LG_NULL_BLOCK_CYCLIC,
    LG_FIRST,
    LG_RANKS_DUP,
    LG_NDIMS0,
    LG_GRID0
};

static int run_gen_block(int v)
{
    int64_t e[2] = {10, 8}, b[2] = {2, 3}, s0[3] = {4, 0, 6}, s1[2] = {5, 3};
    int g[2] = {3, 2}, f[2] = {0, 0}, r[6] = {0, 1, 2, 3, 4, 5}, nd = 2;
    const int64_t *sizes[2] = {s0, NULL};
    const int64_t *const *psz = sizes, *pb = b;
    redist_layout l = garbage(), *pl = &l;
    switch (v) {
    case LG_NULL_SIZES:
        psz = NULL;
        break;
    case LG_ALL_GEN_NULL_BLOCK:
        sizes[1] = s1;
        pb = NULL;
        break;
    case LG_SIZE_NEG:
        s0[1] = -1;
        s0[2] = 7;
        break;
    case LG_SUM_SHORT:
        s0[2] = 5;
        break;
    case LG_SUM_LONG:
        s0[2] = 7;
        break;
    case LG_SUM_OVERFLOW:
        s0[0] = s0[1] = s0[2] = REDIST_MAX_EXTENT;
        break;
    case LG_NULL_OUT:
        pl = NULL;
        break;
    case LG_NULL_BLOCK_CYCLIC: /* dimension 1 is cyclic and needs block[1] */
        pb = NULL;
        break;
    case LG_FIRST:
        f[0] = 3;
        break;
    case LG_RANKS_DUP:
        r[5] = 0;
        break;
    case LG_NDIMS0:
        nd = 0;
        break;
    case LG_GRID0:
        g[0] = 0;
        break;
    }
    return layout_done(
        redist_layout_create_gen_block(nd, e, pb, g, f, r, REDIST_ROW_MAJOR, psz, pl), pl);
}

enum {
    LA_SHAPE_NULL_LAYOUT,
    LA_SHAPE_NULL_OUT,
    LA_SHAPE_RANK_NEG,
    LA_SHAPE_OUTSIDE,
    LA_SIZE_NULL_LAYOUT,
    LA_SIZE_NULL_OUT,
    LA_SIZE_RANK_NEG,
    LA_SIZE_OUTSIDE,
    LA_NDIMS_NULL,
    LA_NPROCS_NULL,
    LA_COORDS_NULL_LAYOUT,
    LA_COORDS_NULL_OUT,
    LA_COORDS_RANK_NEG,
    LA_COORDS_OUTSIDE,
    LA_FREE_NULL,
    LA_FREE_NULL_HANDLE
};

static int run_layout_access(int v)
{
    int64_t shape[2] = {-7, -7}, count = -7;
    int coords[2] = {-7, -7}, rc;
    redist_layout null = NULL;
    switch (v) {
    case LA_SHAPE_NULL_LAYOUT:
        return redist_layout_local_shape(NULL, 0, shape);
    case LA_SHAPE_NULL_OUT:
        return redist_layout_local_shape(L2s, 0, NULL);
    case LA_SHAPE_RANK_NEG:
        return redist_layout_local_shape(L2s, -1, shape);
    case LA_SHAPE_OUTSIDE: /* a rank outside the layout holds nothing: zeros */
        rc = redist_layout_local_shape(L2s, size + 5, shape);
        return rc == REDIST_SUCCESS && (shape[0] != 0 || shape[1] != 0) ? NOT_AS_DOCUMENTED : rc;
    case LA_SIZE_NULL_LAYOUT:
        return redist_layout_local_size(NULL, 0, &count);
    case LA_SIZE_NULL_OUT:
        return redist_layout_local_size(L2s, 0, NULL);
    case LA_SIZE_RANK_NEG:
        return redist_layout_local_size(L2s, INT_MIN, &count);
    case LA_SIZE_OUTSIDE:
        rc = redist_layout_local_size(L2s, INT_MAX, &count);
        return rc == REDIST_SUCCESS && count != 0 ? NOT_AS_DOCUMENTED : rc;
    case LA_NDIMS_NULL:
        return redist_layout_ndims(NULL);
    case LA_NPROCS_NULL:
        return redist_layout_nprocs(NULL);
    case LA_COORDS_NULL_LAYOUT:
        return redist_layout_coords(NULL, 0, coords);
    case LA_COORDS_NULL_OUT:
        return redist_layout_coords(L2s, 0, NULL);
    case LA_COORDS_RANK_NEG: /* not in the layout: 0 */
        return redist_layout_coords(L2s, -1, coords);
    case LA_COORDS_OUTSIDE:
        return redist_layout_coords(L2s, INT_MAX, coords);
    case LA_FREE_NULL:
        return redist_layout_free(NULL);
    case LA_FREE_NULL_HANDLE:
        return redist_layout_free(&null);
    }
    return NOT_AS_DOCUMENTED;
}

/* The entries of this file, in the catalogue's order. */
void add_layout_entries(void)
{
    const char *lc = "redist_layout_create";
    E(lc, "valid (sanity)", run_layout_create, LC_OK, OK, NULL, ANY);
    E(lc, "ndims 0", run_layout_create, LC_NDIMS0, ARG, "ndims", ANY);
    E(lc, "ndims INT_MIN", run_layout_create, LC_NDIMS_MIN, ARG, "ndims", ANY);
    E(lc, "extent NULL", run_layout_create, LC_NULL_EXTENT, ARG, "extent", ANY);
    E(lc, "block NULL", run_layout_create, LC_NULL_BLOCK, ARG, "block", ANY);
    E(lc, "grid NULL", run_layout_create, LC_NULL_GRID, ARG, "grid", ANY);
    E(lc, "layout (output) NULL", run_layout_create, LC_NULL_OUT, ARG, "NULL", ANY);
    E(lc, "extent < 0", run_layout_create, LC_EXTENT_NEG, ARG, "extent[1]", ANY);
    E(lc, "extent > 2^62", run_layout_create, LC_EXTENT_HUGE, ARG, "extent[0]", ANY);
    E(lc, "extents whose product overflows (2^32 x 2^32)", run_layout_create, LC_EXTENT_PRODUCT,
      ARG, "2^62", ANY);
    E(lc, "block 0", run_layout_create, LC_BLOCK0, ARG, "block[1]", ANY);
    E(lc, "block INT64_MIN", run_layout_create, LC_BLOCK_MIN, ARG, "block[0]", ANY);
    E(lc, "block INT64_MAX (legal)", run_layout_create, LC_BLOCK_MAX, OK, NULL, ANY);
    E(lc, "grid 0", run_layout_create, LC_GRID0, ARG, "grid[1]", ANY);
    E(lc, "grid < 0", run_layout_create, LC_GRID_NEG, ARG, "grid[0]", ANY);
    E(lc, "grid product 2^32 > INT_MAX", run_layout_create, LC_GRID_PRODUCT, ARG, "INT_MAX", ANY);
    E(lc, "first < -1", run_layout_create, LC_FIRST_NEG, ARG, "first[0]", ANY);
    E(lc, "first == grid", run_layout_create, LC_FIRST_GRID, ARG, "first[0]", ANY);
    E(lc, "ranks repeated", run_layout_create, LC_RANKS_DUP, ARG, "distinct", ANY);
    E(lc, "rank < 0", run_layout_create, LC_RANKS_NEG, ARG, "ranks[1]", ANY);
    E(lc, "rank INT_MAX (legal until a plan)", run_layout_create, LC_RANKS_MAX, OK, NULL, ANY);
    E(lc, "order 2", run_layout_create, LC_ORDER, ARG, "order", ANY);

    const char *lw = "redist_layout_create_window";
    E(lw, "valid (sanity)", run_window, LW_OK, OK, NULL, ANY);
    E(lw, "a window of a window (legal)", run_window, LW_OF_WINDOW, OK, NULL, ANY);
    E(lw, "parent NULL", run_window, LW_NULL_PARENT, ARG, "parent", ANY);
    E(lw, "window (output) NULL", run_window, LW_NULL_OUT, ARG, "NULL", ANY);
    E(lw, "offset < 0", run_window, LW_OFFSET_NEG, ARG, "offset[0]", ANY);
    E(lw, "offset > extent", run_window, LW_OFFSET_PAST, ARG, "offset[0]", ANY);
    E(lw, "offset INT64_MAX", run_window, LW_OFFSET_MAX, ARG, "offset[0]", ANY);
    E(lw, "count < 0", run_window, LW_COUNT_NEG, ARG, "count[0]", ANY);
    E(lw, "offset + count > extent", run_window, LW_COUNT_PAST, ARG, "count[0]", ANY);
    E(lw, "count INT64_MAX (offset + count overflows)", run_window, LW_COUNT_MAX, ARG, "count[0]",
      ANY);
    E(lw, "ld < 0", run_window, LW_LD_NEG, ARG, "ld[0]", ANY);
    E(lw, "a parent with irregular blocks", run_window, LW_GEN_PARENT, UNS, "irregular", ANY);

    const char *lg = "redist_layout_create_gen_block";
    E(lg, "valid (sanity)", run_gen_block, LG_OK, OK, NULL, ANY);
    E(lg, "sizes NULL (a plain layout)", run_gen_block, LG_NULL_SIZES, OK, NULL, ANY);
    E(lg, "block NULL, every dimension irregular (legal)", run_gen_block, LG_ALL_GEN_NULL_BLOCK, OK,
      NULL, ANY);
    E(lg, "a size < 0", run_gen_block, LG_SIZE_NEG, ARG, "sizes[0][1]", ANY);
    E(lg, "sizes sum to less than the extent", run_gen_block, LG_SUM_SHORT, ARG, "sum", ANY);
    E(lg, "sizes sum to more than the extent", run_gen_block, LG_SUM_LONG, ARG, "sum", ANY);
    E(lg, "sizes whose sum overflows (3 x 2^62)", run_gen_block, LG_SUM_OVERFLOW, ARG, "sum", ANY);
    E(lg, "layout (output) NULL", run_gen_block, LG_NULL_OUT, ARG, "NULL", ANY);
    E(lg, "block NULL with a cyclic dimension", run_gen_block, LG_NULL_BLOCK_CYCLIC, ARG, "block",
      ANY);
    E(lg, "first == grid", run_gen_block, LG_FIRST, ARG, "first[0]", ANY);
    E(lg, "ranks repeated", run_gen_block, LG_RANKS_DUP, ARG, "distinct", ANY);
    E(lg, "ndims 0", run_gen_block, LG_NDIMS0, ARG, "ndims", ANY);
    E(lg, "grid 0", run_gen_block, LG_GRID0, ARG, "grid[0]", ANY);

    E("redist_layout_local_shape", "layout NULL", run_layout_access, LA_SHAPE_NULL_LAYOUT, ARG,
      "NULL", ANY);
    E("redist_layout_local_shape", "shape NULL", run_layout_access, LA_SHAPE_NULL_OUT, ARG, "NULL",
      ANY);
    E("redist_layout_local_shape", "rank < 0", run_layout_access, LA_SHAPE_RANK_NEG, ARG, "rank",
      ANY);
    E("redist_layout_local_shape", "a rank outside the layout: zeros", run_layout_access,
      LA_SHAPE_OUTSIDE, OK, NULL, ANY);
    E("redist_layout_local_size", "layout NULL", run_layout_access, LA_SIZE_NULL_LAYOUT, ARG,
      "NULL", ANY);
    E("redist_layout_local_size", "count NULL", run_layout_access, LA_SIZE_NULL_OUT, ARG, "NULL",
      ANY);
    E("redist_layout_local_size", "rank INT_MIN", run_layout_access, LA_SIZE_RANK_NEG, ARG, "rank",
      ANY);
    E("redist_layout_local_size", "rank INT_MAX outside the layout: 0", run_layout_access,
      LA_SIZE_OUTSIDE, OK, NULL, ANY);
    E("redist_layout_ndims", "layout NULL", run_layout_access, LA_NDIMS_NULL, ARG, "NULL", ANY);
    E("redist_layout_nprocs", "layout NULL", run_layout_access, LA_NPROCS_NULL, ARG, "NULL", ANY);
    E("redist_layout_coords", "layout NULL", run_layout_access, LA_COORDS_NULL_LAYOUT, ARG, "NULL",
      ANY);
    E("redist_layout_coords", "coords NULL", run_layout_access, LA_COORDS_NULL_OUT, ARG, "NULL",
      ANY);
    E("redist_layout_coords", "rank < 0: not in the layout (0)", run_layout_access,
      LA_COORDS_RANK_NEG, OK, NULL, ANY);
    E("redist_layout_coords", "rank INT_MAX: not in the layout (0)", run_layout_access,
      LA_COORDS_OUTSIDE, OK, NULL, ANY);
    E("redist_layout_free", "NULL", run_layout_access, LA_FREE_NULL, ARG, "NULL", ANY);
    E("redist_layout_free", "a NULL handle (legal, like free(NULL))", run_layout_access,
      LA_FREE_NULL_HANDLE, OK, NULL, ANY);
}
