/* The fuzz targets' model of a layout: redist.h's contract restated in 128-bit arithmetic,
 * independently of the library's index math (src/index/layout.c, window.c, gen_block.c), to
 * check it against.
 *
 * A layout is a root array (redist_layout_create or _gen_block: extents, blocks or irregular
 * block sizes, grid, first coordinates, ranks, storage order) and possibly a window of it:
 * the layout's element g is the root's element offset + g, stored where the root puts it, in
 * the owner's local array of the root, padded along every dimension but the slowest in
 * storage to ld[k] when ld[k] is larger than the local extent.
 */
#ifndef REDIST_FUZZ_ORACLE_H
#define REDIST_FUZZ_ORACLE_H

#include <stdint.h>

#define FZ_MAX_DIMS 12

typedef __int128 fz_i128;

typedef struct fz_model {
    int ndims, order, nprocs;
    int64_t root_extent[FZ_MAX_DIMS], block[FZ_MAX_DIMS];
    int grid[FZ_MAX_DIMS], first[FZ_MAX_DIMS];
    /* rep[k]: grid dimension k is replicated (first[k] = REDIST_REPLICATED): every coordinate
       along it holds the whole extent; an element's rank (fz_locate) is then the replica at
       coordinate 0 along every replicated dimension. */
    int rep[FZ_MAX_DIMS];
    const int *ranks;                  /* [nprocs] grid position (row-major) -> rank */
    const int64_t *sizes[FZ_MAX_DIMS]; /* irregular dimension: grid[k] block sizes, else NULL */
    int64_t offset[FZ_MAX_DIMS];       /* the window: root elements offset .. offset + extent */
    int64_t extent[FZ_MAX_DIMS];
    /* ld: NULL (dense), or rows of ndims entries: row `rank` if ld_per_rank, else row 0 for
       every rank. */
    const int64_t *ld;
    int ld_per_rank;
    /* Optional: position_of[rank] for ranks below nposition_of (-1: none), else a search. */
    const int *position_of;
    int nposition_of;
} fz_model;

/* Grid position of rank, or -1. */
int fz_position(const fz_model *m, int rank);
void fz_coords_of(const fz_model *m, int position, int coords[]);
int fz_rank_at(const fz_model *m, const int coords[]);
/* Root elements below root index `upto` held by coordinate c along k (so: the local index on
   c of the first root element at or after `upto` that c holds). */
fz_i128 fz_count_below(const fz_model *m, int k, int c, fz_i128 upto);
/* Root elements on coordinate c along k: the local array's extent there. */
int64_t fz_root_local(const fz_model *m, int k, int c);
/* Window elements on coordinate c along k. */
int64_t fz_window_local(const fz_model *m, int k, int c);
/* Owner coordinate and local index (in the root's local array) of root index G along k. */
void fz_locate_dim(const fz_model *m, int k, int64_t G, int *c, int64_t *li);
/* The ld row of a rank (NULL: dense). */
const int64_t *fz_ld(const fz_model *m, int rank);
/* The storage strides of `rank`'s local array at coords (with its ld) and its size in
   elements; returns 0 where redist__check_ld must refuse the rank's ld (an ld below a local
   extent, or a padded array of more than 2^62 elements), else 1. */
int fz_strides(const fz_model *m, int rank, const int coords[], fz_i128 stride[], fz_i128 *size);
/* Rank and element offset in its local array of the root of window element g[]; the
   coordinates in coords[] (may be NULL). */
void fz_locate(const fz_model *m, const int64_t g[], int *rank, fz_i128 *offset, int coords[]);

#endif
