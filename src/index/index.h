/* Internal (not installed): the index layer, no MPI. Layouts and their index math, the
 * patterns two layouts make (who sends which runs to whom, in closed form per period), and
 * how the papers classify a pair (its shape). Above core; below the model. [LBP96]'s
 * tables and schedules are in circulant.h and rowsched.h, [TCR96]'s processor sequences
 * in tcr96_sequences.h.
 */
#ifndef REDIST_INDEX_H
#define REDIST_INDEX_H

#include "core/core.h"
#include "index/circulant.h"
#include "index/scale.h"

/* ---- layouts (layout.c): pure index math, no MPI --------------------------------------- */
struct redist_layout_s {
    int ndims;
    int order;       /* REDIST_ROW_MAJOR or REDIST_COL_MAJOR */
    int nprocs;      /* product of grid */
    int max_rank;    /* largest rank in ranks[] */
    int64_t *extent; /* [ndims] */
    int64_t *block;  /* [ndims] */
    int *grid;       /* [ndims] */
    int *first;      /* [ndims] */
    int *ranks;      /* [nprocs] grid position (row-major) -> rank; never NULL */
    int *by_rank;    /* [nprocs] positions sorted by rank, for rank -> position lookup */
    /* Windows and padded storage (window.c). The array is a window of a parent array (its
       root: the layout made by redist_layout_create), stored in the parent's local arrays.
       Along k, element g is element g + phase[k] of the "extended window", which starts at
       the parent's element start[k], a multiple of block[k]; so the extended window is an
       ordinary block-cyclic array with block 0 on coordinate first[k] (first is folded), and
       phase[k] < block[k] elements of its first block lie before the window. A whole array
       has phase = start = 0 and root_extent = extent. */
    int64_t *phase;       /* [ndims] */
    int64_t *start;       /* [ndims] */
    int64_t *root_extent; /* [ndims] the parent's extents */
    int *root_first;      /* [ndims] the parent's first */
    int64_t *ld;          /* [ndims] this rank's allocated local extents (ScaLAPACK's LLD); 0 =
                             dense. Rank-local: never part of the agreement. */
    int *storage;         /* [ndims] the dimensions from slowest to fastest in local storage:
                             0..d-1 for row-major, d-1..0 for column-major, any order for a
                             plan's axis-permuted view of its destination (permute.c) */
    /* Irregular blocks (HPF 2's GEN_BLOCK, gen_block.c) along dimension k when gen[k] is not
       NULL: grid[k] + 1 prefix sums, block i = [gen[k][i], gen[k][i + 1]) on coordinate
       (first[k] + i) mod grid[k], one block per coordinate; block[k] is then the largest
       (at least 1), so that the dimension is an interval dimension (sections.c). */
    int64_t **gen; /* [ndims], NULL when no dimension is irregular */
    /* Replicated dimensions (first = REDIST_REPLICATED, replicas.c): along such a dimension
       every process of the user's grid holds the whole extent. The index math sees it as a
       grid of 1 (grid[k] = 1, block[k] = the root extent, at least 1, first[k] = 0), and the
       positions count its processes as replicas: pgrid[k] is the user's grid along k, the
       number of positions along it (pgrid[k] = grid[k] along the other dimensions), and
       nprocs the product of pgrid. rep is NULL without replicated dimensions. */
    int *pgrid;    /* [ndims] */
    int *rep;      /* NULL or [ndims]: 1 where dimension k is replicated */
    int nreplicas; /* positions that hold the same elements: the product of pgrid over the
                      replicated dimensions (1 without them) */
    /* Boxes (boxes.c): position p (rank ranks[p]) holds the box [box[p][0][k],
       box[p][1][k]) along each dimension k, stored densely; box is NULL for the grid
       layouts. The grid fields then mean nothing to the index math (grid[k] = nprocs, block
       1, first 0): the coordinates of position p are p along every dimension, and the
       functions below that take a coordinate read the box. */
    int *box_refs;       /* the box arrays below are shared by a layout's copies (a plan's):
                            their count, the arrays freed with the last */
    int64_t *box;        /* [nprocs][2][ndims] */
    int *box_class;      /* [nprocs] the first position with the same box (a replica class) */
    int *box_by_lo;      /* [ndims][nonempty] positions of the nonempty boxes by lower corner */
    int64_t *box_maxlen; /* [ndims] the longest box along each dimension */
    int box_nonempty;    /* boxes with elements */
    int *box_members;    /* [nprocs] positions grouped by class, increasing within a class */
    int *box_member_at;  /* [nprocs] for a class's base: where its members start there */
    int *box_nmembers;   /* [nprocs] for a class's base: its members (replicas) */
    int64_t *box_root;   /* NULL, or a window's (box_layout.c): [nprocs][2][ndims] the root
                            layout's boxes, whose dense (or ld-padded) arrays hold the window's
                            elements; start[k] is the window's offset from the root and box
                            the root's boxes clipped to the window, in its indices */
    int *node_of;        /* NULL, or a plan's source with replicas: the node of every rank of the
                            plan's communicator (max_rank + 1 entries at least), so that a
                            destination takes a replica's elements from its own node */
    int partial; /* a plan's source with options.reduce: its replicas hold partial values, so
                    every replica sends (to be reduced) instead of one */
    int plain;   /* no phase along any dimension and no irregular blocks: every
                    algorithm applies */
    int dense;   /* a whole array with no ld: the local array holds exactly the
                    rank's elements */
};

/* Grid position (row-major linear coordinate) of rank, or -1 if rank is not in the layout. */
int redist__layout_position(const struct redist_layout_s *l, int rank);
/* Coordinates of a grid position, as the index math takes them: 0 along a replicated
   dimension (its one coordinate), the position itself along every dimension of boxes. */
void redist__layout_coords_of(const struct redist_layout_s *l, int position, int coords[]);
/* The position's coordinates in the user's grid (replicated dimensions: the replica). */
void redist__layout_pcoords_of(const struct redist_layout_s *l, int position, int coords[]);

/* ---- replicas (replicas.c) and boxes (boxes.c) ------------------------------------------ */
/* The first position of position's replica class (its base), the positions of a class
   (replica j of R = redist__replica_count, 0 = the base) and which source rank sends a
   class's elements to destination rank dst_rank (replicas.c: the destination itself if it
   is a replica, else one spread evenly over the replicas). */
int redist__base_position(const struct redist_layout_s *l, int position);
int redist__replica_count(const struct redist_layout_s *l, int base);
int redist__replica_position(const struct redist_layout_s *l, int base, int j);
int redist__source_holder(const struct redist_layout_s *src, int base, int dst_rank);
/* The most replicas of a class among which the holder is chosen by node (src->node_of). */
enum { REDIST__NODE_CHOICE_MAX = 64 };
/* Whether some element of src has several holders (replicated dimensions, identical boxes). */
int redist__has_replicas(const struct redist_layout_s *src);
/* Whether some element of l has several holders that a plan can see without its sweep:
   replicas, or boxes whose volumes add up to more than the array (overlapping boxes). */
int redist__shared_elements(const struct redist_layout_s *l);
/* Whether the layout describes a pair the papers' grid algorithms know: no boxes, no
   replicated dimension. */
static inline int redist__grid_only(const struct redist_layout_s *l)
{
    return l->box == NULL && l->rep == NULL;
}
/* Box of position p: its lower and upper corners ([ndims] each), its extent along k. */
static inline const int64_t *redist__box_lower(const struct redist_layout_s *l, int p)
{
    return l->box + (size_t)p * 2 * (size_t)l->ndims;
}
static inline const int64_t *redist__box_upper(const struct redist_layout_s *l, int p)
{
    return l->box + ((size_t)p * 2 + 1) * (size_t)l->ndims;
}
/* Extent along k of box p of corners `box` ([nprocs][2][ndims]): an empty box holds nothing
   along every dimension. */
static inline int64_t redist__corners_extent(const int64_t *box, int ndims, int p, int k)
{
    const int64_t *lo = box + (size_t)p * 2 * (size_t)ndims, *hi = lo + ndims;
    for (int i = 0; i < ndims; i++)
        if (hi[i] <= lo[i])
            return 0;
    return hi[k] - lo[k];
}
static inline int64_t redist__box_extent(const struct redist_layout_s *l, int p, int k)
{
    return redist__corners_extent(l->box, l->ndims, p, k);
}
int redist__box_replicas(const struct redist_layout_s *l, int base);
int redist__box_replica(const struct redist_layout_s *l, int base, int j);
/* A copy of box layout l with dimension perm[j] of the copy being l's dimension j (perm NULL:
   the identity), its ranks, order and storage order alike (NULL when out of memory). */
struct redist_layout_s *redist__boxes_copy(const struct redist_layout_s *l, const int *perm);
/* A window of box layout parent (redist_layout_create_window's arguments, checked). */
int redist__boxes_window(const struct redist_layout_s *parent, const int64_t offset[],
                         const int64_t count[], const int64_t ld[], struct redist_layout_s **out);
/* Row-major linear position of coordinates. */
int redist__layout_position_of(const struct redist_layout_s *l, const int coords[]);
/* Number of elements coordinate c holds along dimension k. */
int64_t redist__local_extent(const struct redist_layout_s *l, int k, int c);
/* Elements of coordinate c among the first n of a cyclic(b) distribution over p coordinates
   with block 0 on coordinate first (ScaLAPACK's NUMROC). */
int64_t redist__numroc(int64_t n, int64_t b, int64_t p, int64_t first, int64_t c);
/* Irregular blocks (gen_block.c): the block of global index g along an irregular dimension
   k (binary search), and the global index of local index `local` of coordinate c along any
   dimension. */
int64_t redist__gen_block_of(const struct redist_layout_s *l, int k, int64_t g);
int64_t redist__global_index(const struct redist_layout_s *l, int k, int c, int64_t local);
int redist__gen_copy(struct redist_layout_s *to, const struct redist_layout_s *from,
                     const int *perm);
void redist__gen_free(struct redist_layout_s *l);
/* Local index along k of global index g (owner implied). */
int64_t redist__local_index(const struct redist_layout_s *l, int k, int64_t g);
/* Coordinate along k that owns global index g. */
int redist__owner(const struct redist_layout_s *l, int k, int64_t g);
/* Local index along k of coordinate c's first element (phase[k] on the coordinate that holds
   the window's partial first block, else 0); its elements are the local indices
   [redist__local_first, + redist__local_extent). */
int64_t redist__local_first(const struct redist_layout_s *l, int k, int c);
/* Storage strides (elements) of the rank at `coords`: its local array of the root, with this
   rank's ld padding; local index i along k (as redist__local_index gives it) is at element
   offset redist__storage_base + sum_k i_k stride[k]. */
void redist__storage_strides(const struct redist_layout_s *l, const int coords[], int64_t stride[]);
/* Element offset of local index 0 (of the extended window) in the rank's local array of the
   root: how many root elements of its coordinate precede the extended window, along each
   dimension, times the strides. */
int64_t redist__storage_base(const struct redist_layout_s *l, const int coords[],
                             const int64_t stride[]);
/* The rank's window elements and the storage they span: *count elements, touching element
   offsets [*lo, *hi) of its local array of the root, local index 0 at offset *base (all 0
   when it holds none). */
int redist__storage_span(const struct redist_layout_s *l, int rank, int64_t *count, int64_t *lo,
                         int64_t *hi, int64_t *base);
/* Coordinate c's local extent of the root along k (the window's coordinates are the root's),
   without padding: the extent of its local array. */
int64_t redist__storage_extent(const struct redist_layout_s *l, int k, int c);
/* REDIST_ERR_ARG unless this rank's ld (if any) covers its local extents of the root. */
int redist__check_ld(const struct redist_layout_s *l, int rank);
/* A deep copy (NULL when out of memory). */
struct redist_layout_s *redist__layout_copy(const struct redist_layout_s *l);
/* Allocates the window fields of a new layout as a whole array (layout.c). */
int redist__window_init(struct redist_layout_s *l);
void redist__window_free(struct redist_layout_s *l);
/* 64-bit FNV-1a fingerprint of a layout, folded into h. */
uint64_t redist__layout_hash(const struct redist_layout_s *l, uint64_t h);
/* REDIST_ERR_ARG unless the whole array, extents times elsize, has fewer than 2^63 bytes (so
   every byte offset and count of a plan fits in int64_t). */
int redist__check_array_bytes(const struct redist_layout_s *l, size_t elsize);
/* Same shape of global array (ndims and extents). */
int redist__same_global_shape(const struct redist_layout_s *a, const struct redist_layout_s *b);

/* ---- axis permutation (permute.c) ---------------------------------------------------- */
/* REDIST_ERR_ARG unless perm (NULL: the identity) is a permutation of 0 .. ndims - 1. */
int redist__check_permutation(int ndims, const int perm[]);
/* Whether dst's extent j is src's extent perm[j] for every j (perm NULL: the identity). */
int redist__permuted_shape_matches(const struct redist_layout_s *src,
                                   const struct redist_layout_s *dst, const int perm[]);
/* dst with its dimensions renamed to the source's (dimension perm[j] of the view is dst's
   dimension j), its ranks and storage order renamed alike (NULL when out of memory). */
struct redist_layout_s *redist__layout_permuted(const struct redist_layout_s *dst,
                                                const int perm[]);

/* ---- patterns (pattern.c): intersections of two layouts, closed form, no MPI ------------ */

/* A group of `count` runs of `len` elements along one dimension. Replica j starts at local
   index src_off + j*src_period on the source side and dst_off + j*dst_period on the
   destination side (the periods are those of the dimension, see redist__dim_pattern). */
typedef struct redist__run {
    int64_t src_off, dst_off, len, count;
} redist__run;

/* Along one dimension, for one coordinate on one side: the coordinates of the other side it
   exchanges data with and the run groups of each, in increasing global order (the same
   order on both sides, so sender and receiver agree on the message layout). */
typedef struct redist__dim_pattern {
    int npeers;
    int *peer;                      /* [npeers] coordinate on the other side, increasing */
    int64_t *first_run;             /* [npeers+1] run groups of peer i: runs[first_run[i] .. ) */
    int64_t *elems;                 /* [npeers] elements exchanged with peer i along this dim */
    redist__run *runs;              /* all run groups */
    int64_t src_period, dst_period; /* local-index advance per pattern period */
} redist__dim_pattern;

enum { REDIST__SIDE_SRC = 0, REDIST__SIDE_DST = 1 };
/* Pattern along dimension k for coordinate `coord` of side `side` (SRC: which dst coords
   receive from src coord `coord`; DST: which src coords send to dst coord `coord`).
   Cost O(blocks of `coord` in one period + grid of the other side). */
int redist__dim_pattern_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                               int k, int side, int coord, redist__dim_pattern *out);
void redist__dim_pattern_free(redist__dim_pattern *p);

/* Regular sections (sections.c, [SD96] §4): along dimension k, layout l gives each coordinate
   one contiguous interval of the global indices (one block per coordinate, or one
   coordinate). When src or dst is such a layout along k, redist__dim_pattern_create builds
   the dimension's pattern with redist__dim_sections_create: at most three run groups per
   peer, in time O(peers) whatever the extent. */
int redist__interval_dim(const struct redist_layout_s *l, int k);
int redist__dim_sections_create(const struct redist_layout_s *src,
                                const struct redist_layout_s *dst, int k, int side, int coord,
                                redist__dim_pattern *out);

/* One level of a message: a dimension's run groups with the local strides (in elements)
   of that dimension in the source and destination arrays. Levels go from the slowest to
   the fastest dimension of the source's storage order; the message buffer holds the
   elements in that nested order. */
typedef struct redist__level {
    const redist__run *runs;
    int64_t nruns;
    int64_t src_period, dst_period; /* local-index advance per period */
    int64_t src_stride, dst_stride; /* element stride of this dimension in the local arrays */
} redist__level;

/* A message's cache-blocked transpose (transpose.c): when the destination's unit-stride
   dimension is level `level` rather than the innermost, that level and the innermost move as
   2-D tiles. Element offsets (index times stride) of every index of the two levels on each
   side, and each level's stride in the message buffer. */
typedef struct redist__tiles {
    int level;
    int64_t nf, ni;                         /* indices of level `level` and of the innermost */
    int64_t *src_f, *dst_f, *src_i, *dst_i; /* [nf], [nf], [ni], [ni] (one allocation) */
    int64_t *buf_stride;                    /* [nlevels] */
} redist__tiles;

typedef struct redist__msg {
    int peer; /* comm rank of the other side */
    int nlevels;
    int64_t nelems; /* elements in the message */
    int64_t offset; /* element offset of the message in the plan's pack buffer */
    redist__level *levels;
    redist__run *owned_runs; /* runs of merged levels, owned by the message */
    redist__tiles *tiles;    /* NULL unless unpacking transposes (transpose.c) */
    /* A received partial value (a partial source, options.reduce): the source replica class
       (its base position) and the replica it came from; the messages of one class fill the
       same elements in the same order. group = -1 otherwise. */
    int group, replica;
} redist__msg;

/* The messages of one rank: built from the per-dimension patterns of its source coordinate
   (sends) or its destination coordinate (receives). */
typedef struct redist__side {
    int ndims;
    int in_layout;             /* the rank holds a coordinate on this side */
    redist__dim_pattern *dims; /* [ndims] */
    int nmsgs;
    redist__msg *msgs; /* sorted by peer rank */
    int64_t total_elems;
} redist__side;

/* Builds the send (side SRC) or receive (side DST) messages of `rank`. */
int redist__side_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                        int side, int rank, redist__side *out);
void redist__side_free(redist__side *s);
/* The sides of a pair where either layout is boxes (boxes.c), as redist__side_create. */
int redist__box_side_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                            int side, int rank, redist__side *out);
/* One dimension's runs of one message, with the dimension's periods (boxes.c builds them). */
typedef struct redist__dim_runs {
    redist__run runs[3];
    int64_t nruns, src_period, dst_period;
} redist__dim_runs;
/* A message between the source position src_pos and the destination position dst_pos (peer:
   the other side's rank) from the runs of each dimension (dims[k], k in the array's order),
   its levels in the source's storage order, owning its runs. */
int redist__msg_from_runs(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                          int side, int rank, int peer, int src_pos, int dst_pos,
                          const redist__dim_runs *dims, redist__msg *m);
/* Both sides of `rank`, with the part it sends to itself taken out of both into *self
   (*has_self says whether there is one) and message offsets assigned in the pack buffers. */
int redist__sides_create(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                         int rank, redist__side *send, redist__side *recv, redist__msg *self,
                         int *has_self);
void redist__msg_free(redist__msg *m);
/* Pieces of a message (message.c): the dimension of level l (the source's storage order,
   slowest first), contiguous levels merged into one, the peer's strides (a guess: its ld is
   its own), a level's period as its runs use it (0 when none repeats). */
int redist__level_dim(const struct redist_layout_s *src, int level);
int redist__merge_levels(redist__msg *m);
void redist__peer_strides(const struct redist_layout_s *l, const int coords[], int64_t stride[]);
int64_t redist__used_period(const redist__run *runs, int64_t nruns, int64_t period);
/* Run groups stored by a side (the plan's size; grows with blocks per period, not with
   elements). */
int64_t redist__side_runs(const redist__side *s);

/* ---- copy engine (copy.c): moving the runs of a message
 * -------------------------------------------------------------- */
/* Packs a message from the local source array into a contiguous buffer. */
void redist__pack(const redist__msg *m, const char *src, char *buf, size_t elsize);
/* Unpacks a contiguous buffer into the local destination array; sc: scaling (scale.h), or
   NULL for a copy. */
void redist__unpack(const redist__msg *m, const char *buf, char *dst, size_t elsize,
                    const redist__scale *sc);
/* Copies a message straight from the source array to the destination array (self part). */
void redist__copy(const redist__msg *m, const char *src, char *dst, size_t elsize,
                  const redist__scale *sc);

/* Sets m->tiles when the destination's unit stride is not on the innermost level and the
   lists are worth their memory, else NULL. REDIST_SUCCESS or REDIST_ERR_NOMEM. */
int redist__tiles_create(redist__msg *m);
/* redist__tiles_create for every message of a side (plans call it for their receive side
   and self part: the messages they unpack); REDIST_ERR_NOMEM if one failed. */
int redist__side_tiles(redist__side *s);
void redist__tiles_free(redist__tiles *t);
/* Moves message m into the destination array b (structured by the levels' dst offsets) from
   the source array a, or from the message buffer a when a_stream, by tiles; m->tiles set.
   Part `part` of nparts: the indices [nf part / nparts, nf (part + 1) / nparts) of level F
   (all of them for one part). */
void redist__tiled_move_part(const redist__msg *m, const char *a, int a_stream, char *b, size_t es,
                             const redist__scale *sc, int part, int nparts);

/* ---- parts of a move (copy.c): the same moves split for threads ----------------------------
   Part t of n of a message's pack, unpack or copy: the parts of 0 .. n - 1 together move the
   message exactly once and write disjoint destination bytes, each about 1/n of its elements
   (split by elements, not by runs: a few long runs and many short ones spread alike). Tiles
   keep their cache order within a part: a transposing move splits level F, a one-level
   message with repeating run groups splits its replicas, any other splits its elements in
   buffer order. The buffer side points at the message's element 0 (as redist__pack). */
enum { REDIST__PACK, REDIST__UNPACK, REDIST__COPY };
/* kind: REDIST__PACK (a: source array, b: buffer), REDIST__UNPACK (a: buffer, b: destination
   array) or REDIST__COPY (a: source array, b: destination array); sc only into a
   destination array. */
void redist__move_part(const redist__msg *m, int kind, const char *a, char *b, size_t elsize,
                       const redist__scale *sc, int part, int nparts);
/* Elements [lo, hi) of the message in buffer order (bounded mode's chunks split for threads;
   the buffer side points at element lo), by run groups, without tiles. */
void redist__move_range(const redist__msg *m, int kind, const char *a, char *b, size_t elsize,
                        const redist__scale *sc, int64_t lo, int64_t hi);
/* Element offset, in the source (is_src) or destination array, of levels 0 .. nlevels - 1
   of m at the position run[l], rep[l], at[l] of each (run group, replica, element). */
int64_t redist__levels_offset(const redist__msg *m, int nlevels, const int64_t *run,
                              const int64_t *rep, const int64_t *at, int is_src);
/* Elements of level L: its run groups' lengths times their counts. */
int64_t redist__level_elems(const redist__level *L);

/* A resumable walk through a message's elements in buffer order (bounded mode: chunk i + 1
   packed while chunk i travels). Initialise with redist__cursor_init (levels: scratch of
   3 * m->nlevels entries, owned by the caller); each call moves up to max elements. */
typedef struct redist__cursor {
    const redist__msg *m;
    int64_t *run, *rep, *at; /* per level: run group, replica, element within the run */
    int64_t done;            /* elements moved so far */
} redist__cursor;
void redist__cursor_init(redist__cursor *c, const redist__msg *m, int64_t *scratch);
/* Packs the next min(max, rest) elements of the message from src into buf; returns them. */
int64_t redist__cursor_pack(redist__cursor *c, const char *src, char *buf, int64_t max,
                            size_t elsize);
/* Unpacks the next min(max, rest) elements from buf into dst; returns them. */
int64_t redist__cursor_unpack(redist__cursor *c, const char *buf, char *dst, int64_t max,
                              size_t elsize, const redist__scale *sc);
/* Advances past the next min(max, rest) elements without moving them (threads moved them
   with redist__move_range); returns them. */
int64_t redist__cursor_skip(redist__cursor *c, int64_t max);

/* ---- one copy in the destination's order, row by row (pull.c) ---------------------------
   A row of a message is one position of its levels above the innermost; messages whose
   levels above the innermost are alike on the dst side fill the same rows (a group). */
/* Whether m can be copied by rows: two levels or more, no tiles, the innermost of unit
   stride on both sides. */
int redist__pull_fits(const redist__msg *m);
/* Whether a and b fill the same rows of dst (their levels above the innermost alike on the
   dst side: run groups, periods, strides). */
int redist__pull_same_rows(const redist__msg *a, const redist__msg *b);
/* The rows of m: its elements over those of its innermost level. */
int64_t redist__pull_rows_of(const redist__msg *m);
/* One run of a group's merged innermost level: member k's run, at element offsets within
   the member's row in its src and within the row in dst. */
typedef struct redist__pull_run {
    int member;
    int64_t src_at, dst_at, len;
} redist__pull_run;
/* The innermost runs of members[0 .. g) merged in dst order into out (runs that continue
   each other joined); their number, or -1 if more than cap. */
int64_t redist__pull_merge(const redist__msg *const *members, int g, redist__pull_run *out,
                           int64_t cap);
/* Rows [lo, hi) of a group copied from srcs[k] (member k's sender's local index 0) into dst,
   every run of a row in dst's order (streaming: non-temporal stores where the compiler has
   SSE2); scratch of 3 * levels + g entries. No scaling: a plain copy. */
void redist__pull_copy(const redist__msg *const *members, const char *const *srcs, int g,
                       const redist__pull_run *runs, int64_t nruns, char *dst, size_t es,
                       int64_t lo, int64_t hi, int64_t *scratch, int streaming);

/* ---- the shape of a pair (shape.c) ----------------------------------------------------- */
/* What kind of pair a redistribution is, as the papers classify pairs. The algorithms'
   rules (applicability, step counts, costs) read it; it is the same on every rank. */
typedef struct redist__shape {
    int same_line;   /* 1-D on the same ranks, grid and first coordinate ([TCR96]'s setting) */
    int64_t P;       /* 1-D: processes of the source grid */
    int64_t x, y;    /* 1-D: the source and destination blocks */
    int64_t ratio_K; /* same_line with one block a multiple of the other: the ratio (any K),
                        else 0 */
    int table;       /* [LBP96]'s table case R_x(K, P) or its dual, dimension by dimension */
    redist__table_case tc;
    int64_t lcm;       /* cyclic(x) -> cyclic(y) through cyclic(lcm) as two table cases, else 0 */
    unsigned tcr96;    /* [TCR96]'s N-D rules (REDIST__TCR96_* bits) */
    unsigned sections; /* the [SD96] §4 cases (REDIST__SD_* bits) every dimension is in */
    int beyond_grid;   /* a layout of boxes or with a replicated dimension: only the
                          algorithms that move the pattern's messages apply */
    int reduce;        /* the source holds partial values (options.reduce): the receivers reduce
                          the messages of each replica class */
    int dst_shared;    /* some destination element has several holders (redist__shared_elements) */
    int bpc;           /* a bit permutation ([Cor97]): 1-D, one process set, N, P and both blocks
                    powers of two; then lg N, lg P and the blocks' logs: */
    int bpc_n, bpc_p, bpc_f1, bpc_f2;
} redist__shape;
/* [TCR96]'s setting, N-D ("each dimension separately", §2): the same ranks, grid and first
   coordinate along every dimension (SAME_GRID), and along every dimension the source block a
   multiple of the destination block (KY: ky-to-y), or the converse (XK: x-to-kx), or their
   lcm below 2^63 (LCM). */
enum {
    REDIST__TCR96_SAME_GRID = 1,
    REDIST__TCR96_KY = 2,
    REDIST__TCR96_XK = 4,
    REDIST__TCR96_LCM = 8
};
unsigned redist__tcr96_rules(const struct redist_layout_s *src, const struct redist_layout_s *dst);
/* [SD96] Fig. 1's cases, per dimension: Block(K) -> Block(K') (both sides one interval per
   coordinate), Block(K) -> Cyclic(K') (the source), Cyclic(K) -> Block(K') (the destination),
   Cyclic(TK') -> Cyclic(K') (source block a multiple of the destination's), Cyclic(K) ->
   Cyclic(TK). A dimension of extent 0 is in every case. */
enum {
    REDIST__SD_BLOCK_BLOCK = 1,
    REDIST__SD_BLOCK_CYCLIC = 2,
    REDIST__SD_CYCLIC_BLOCK = 4,
    REDIST__SD_TK_K = 8,
    REDIST__SD_K_TK = 16
};
/* The REDIST__SD_* cases that hold along every dimension (sections.c). */
unsigned redist__sections_cases(const struct redist_layout_s *src,
                                const struct redist_layout_s *dst);
/* Classifies a pair of layouts of the same array. */
void redist__shape_of(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                      redist__shape *out);
/* Parts of redist__shape_of on their own. ratio: 1-D same-line pair with one block a multiple
   of the other: the ratio K >= 1 (*dual: the destination block is the smaller), else 0.
   lcm: neither block a multiple of the other, and both cyclic(x) -> cyclic(lcm(x, y)) and
   cyclic(lcm) -> cyclic(y) are table cases (lcm/x, lcm/y <= P): lcm(x, y), else 0. */
int64_t redist__ratio_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                             int *dual);
int64_t redist__lcm_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst);
/* The bit-permutation test of redist__shape_of on its own: 1 and lg N, lg P, lg x, lg y if
   the pair is one, else 0. */
int redist__bpc_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst, int *n,
                       int *p, int *f1, int *f2);

/* ---- assignment (assign.c): process relabelling's optimisation, no MPI ------------------ */
enum { REDIST__ASSIGN_EXACT_MAX = 2048 };
/* A permutation p (candidate i -> position p[i]) of 0..n-1 maximising sum w[i][p[i]] (w: n x
   n, row-major, >= 0): exact (the Hungarian method) for n <= REDIST__ASSIGN_EXACT_MAX, else
   greedy (the heaviest pair first). Deterministic. REDIST_ERR_NOMEM. */
int redist__assign_max(int n, const int64_t *w, int *p);
/* sum w[i][p[i]]. */
int64_t redist__assignment_value(int n, const int64_t *w, const int *p);
/* Process relabelling's pieces (redist_relabel, explain --relabel). dst with rank = its grid
   position, so that a pattern's peers are positions (NULL when out of memory). */
struct redist_layout_s *redist__layout_by_position(const struct redist_layout_s *dst);
/* Adds to row[position] the elements `rank` sends to each position of `positions`. */
int redist__volume_row(const struct redist_layout_s *src, const struct redist_layout_s *positions,
                       int rank, int64_t *row);
/* From the q x q matrix w (row i: dst's rank at position i, column j: position j): the ranks
   for each position that keep the most in place, never fewer than dst's own (which it keeps
   on a tie), and the elements kept and moved (of the whole array). */
int redist__relabel_solve(const struct redist_layout_s *dst, const int64_t *w, int ranks_out[],
                          int64_t *kept, int64_t *moved);

#endif
