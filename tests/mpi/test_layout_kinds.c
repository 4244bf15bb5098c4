/* nodes: 3:2 4:3 5:2 7:4 8:2 */
/* threads: 3 */
/* device: 3 */
/* shared: 2 3 4 5 7 8 */
/* Layout kinds beyond block-cyclic, checked element by element against an oracle written
 * here: boxes (redist_layout_create_boxes), replicated grid dimensions (first =
 * REDIST_REPLICATED) and GEN_BLOCK, between each other and block-cyclic grids.
 *
 * Random cases: 1-3 dimensions of extents 0..14 (up to 60 in 1-D). A side is a grid (cyclic
 * or irregular blocks along each dimension, some dimensions replicated, a random grid over a
 * random subset of the ranks in random order), or boxes: a partition of the array into cells
 * (random cuts per dimension) given to random ranks, some cells to two ranks (replicas), some
 * ranks an empty box, ranks past nboxes nothing; a destination may also be random boxes that
 * overlap in any way (every holder receives) provided the source covers them (sources here
 * always cover the array). An axis permutation in a third of the cases, partial sums
 * (options.reduce) in a quarter, scaling (small integer alpha and beta) in a fifth. Every algorithm
 * the library lists (and auto, bounded, both transports) runs the plan by execute and by start +
 * test; a forced algorithm may say REDIST_ERR_NOT_APPLICABLE, the same on every rank. Every
 * element of every destination holder must hold its source element's value; a rank that
 * holds nothing passes NULL. Two groups (an intercommunicator: row slabs as boxes on one,
 * the matrix replicated on the other) and a batch of two arrays (boxes -> replicated and
 * back) are checked the same way. Bad input: partly overlapping source boxes
 * (REDIST_ERR_UNSUPPORTED), a destination element that no source box holds, corners out of
 * range (REDIST_ERR_ARG): the same code on every rank, nothing written.
 *
 * Options: --seed S, --cases C, --case K. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mdevice.h"
#include "support/mtest.h"
#include "support/mvariants.h"

#define MAXD 3
#define MAXP 64

enum { GRID, BOXES };

typedef struct {
    int kind;
    int64_t extent[MAXD], block[MAXD];
    int64_t sizes[MAXD][MAXP];
    int gen[MAXD], rep[MAXD], grid[MAXD], first[MAXD], ranks[MAXP], nprocs, order;
    int nboxes;
    int64_t lo[MAXP][MAXD], hi[MAXP][MAXD];
    /* Boxes may be a window (redist_layout_create_window) of boxes over a larger root array:
       corners lo/hi in the root's indices, the window [off, off + extent) of it, each rank's
       array its root box padded to ld[k] + its extent along k where pad (ld is rank-local). */
    int window, pad;
    int64_t root[MAXD], off[MAXD], ld_extra[MAXD];
    int64_t outer[MAXD]; /* the window taken in two steps: from outer[k] <= off[k] first */
} side_t;

typedef struct {
    int ndims, permuted, perm[MAXD];
    int partial; /* options.reduce = MPI_SUM: every source holder holds a part */
    int scaled;  /* alpha and beta: dst = beta dst + alpha (the sum of the parts) */
    double alpha, beta;
    side_t src, dst;
} case_t;

static int me, nranks, errs, plans_run;
static uint64_t rng;

static int64_t rnd(int64_t lo, int64_t hi)
{
    return mtest_rand(&rng, lo, hi);
}

/* ---- the oracle ------------------------------------------------------------------------ */

/* Grid side: whether coordinate c holds global index g along k, and its local index. */
static int grid_holds(const side_t *s, int k, int c, int64_t g, int64_t *local)
{
    if (s->rep[k]) {
        *local = g;
        return 1;
    }
    if (s->gen[k]) {
        int64_t start = 0;
        for (int i = 0; i < s->grid[k]; i++) {
            if (g < start + s->sizes[k][i]) {
                *local = g - start;
                return (i + s->first[k]) % s->grid[k] == c;
            }
            start += s->sizes[k][i];
        }
        return 0;
    }
    int64_t b = s->block[k];
    *local = g / (b * s->grid[k]) * b + g % b;
    return (int)((g / b + s->first[k]) % s->grid[k]) == c;
}

static int64_t grid_count(const side_t *s, int k, int c)
{
    int64_t n = 0, l;
    for (int64_t g = 0; g < s->extent[k]; g++)
        n += grid_holds(s, k, c, g, &l);
    return n;
}

static int box_empty(const side_t *s, int r, int nd)
{
    for (int k = 0; k < nd; k++)
        if (s->hi[r][k] <= s->lo[r][k])
            return 1;
    return 0;
}

/* Along k: rank's local extent (of its root box in a window), and whether it holds g (its
   local index). */
static int64_t extent_of(const side_t *s, int nd, int k, const int c[])
{
    if (s->kind == BOXES)
        return box_empty(s, me, nd) ? 0 : s->hi[me][k] - s->lo[me][k];
    return grid_count(s, k, c[k]);
}

/* A box holds window index g along k where the root index g + off lies in it. */
static int box_holds(const side_t *s, int r, int k, int64_t g)
{
    int64_t at = g + (s->window ? s->off[k] : 0);
    return at >= s->lo[r][k] && at < s->hi[r][k];
}

static int holds(const side_t *s, int k, const int c[], int64_t g, int64_t *local)
{
    if (s->kind == BOXES) {
        *local = g + (s->window ? s->off[k] : 0) - s->lo[me][k];
        return box_holds(s, me, k, g);
    }
    return grid_holds(s, k, c[k], g, local);
}

/* The allocated extent along k (ld where padded; the slowest dimension's is never padded). */
static int64_t alloc_of(const side_t *s, int nd, int k, const int c[], int slowest)
{
    int64_t e = extent_of(s, nd, k, c);
    return s->pad && !slowest ? e + s->ld_extra[k] : e;
}

/* Whether this rank is on side s; its coordinates (grid: the user's, replicas' own). */
static int member(const side_t *s, int nd, int c[])
{
    if (s->kind == BOXES)
        return me < s->nboxes;
    return mtest_coords_of(s->ranks, s->nprocs, s->grid, nd, me, c);
}

/* This rank's array on side s: its strides and elements (with padding: ld), and in *shape
   the elements redist_layout_local_size counts (without it). */
static int64_t local_shape(const side_t *s, int nd, int64_t stride[], int c[], int64_t *shape)
{
    *shape = 0;
    if (!member(s, nd, c))
        return 0;
    int64_t n = 1;
    *shape = 1;
    for (int i = 0; i < nd; i++) {
        int k = s->order == REDIST_COL_MAJOR ? i : nd - 1 - i;
        stride[k] = n;
        n *= alloc_of(s, nd, k, c, i == nd - 1);
        *shape *= extent_of(s, nd, k, c);
    }
    return n;
}

/* The oracle's locate for one side (mtest_oracle_walk): this rank's coordinates. */
typedef struct where {
    const side_t *s;
    int c[MAXD];
    const case_t *cs;
    int is_dst;
} where;

/* Whether rank r of side s holds global index g (every dimension). */
static int rank_holds(const side_t *s, int nd, int r, const int64_t g[])
{
    if (s->kind == BOXES) {
        if (r >= s->nboxes)
            return 0;
        for (int k = 0; k < nd; k++)
            if (!box_holds(s, r, k, g[k]))
                return 0;
        return 1;
    }
    int c[MAXD];
    if (!mtest_coords_of(s->ranks, s->nprocs, s->grid, nd, r, c))
        return 0;
    for (int k = 0; k < nd; k++) {
        int64_t l;
        if (!grid_holds(s, k, c[k], g[k], &l))
            return 0;
    }
    return 1;
}

/* Partial sums: rank r holds (r + 1) times an element's value; a destination element is the
   sum over the source's holders of its source index g. */
static double weight(const void *ctx, const int64_t g[])
{
    const where *w = ctx;
    double alpha = w->is_dst && w->cs->scaled ? w->cs->alpha : 1.0;
    if (!w->cs->partial)
        return alpha;
    if (!w->is_dst)
        return (double)(me + 1);
    double sum = 0;
    for (int r = 0; r < nranks; r++)
        sum += rank_holds(&w->cs->src, w->cs->ndims, r, g) ? (double)(r + 1) : 0.0;
    return alpha * sum;
}

static int locate(const void *ctx, int k, int64_t g, int64_t *local)
{
    const where *w = ctx;
    return holds(w->s, k, w->c, g, local);
}

/* Fill (check = 0) or count the wrong elements of side s's local array on this rank. */
static int64_t walk(const case_t *cs, const side_t *s, int is_dst, double *a, int check)
{
    int64_t stride[MAXD], shape;
    where w = {s, {0}, cs, is_dst};
    if (local_shape(s, cs->ndims, stride, w.c, &shape) == 0)
        return 0;
    double shift = is_dst && cs->scaled ? -cs->beta : 0.0; /* dst holds -1 before */
    return mtest_oracle_walk_weighted(cs->ndims, s->extent, stride, locate, weight, shift, &w,
                                      is_dst && cs->permuted ? cs->perm : NULL, a, check);
}

static void fill(void *ctx, double *a)
{
    const case_t *cs = ctx;
    walk(cs, &cs->src, 0, a, 0);
}

/* The destination elements that the oracle's walk does not reach (outside the window, ld's
   padding) must hold the -1 they held before: marked NaN in a scratch array, the walk
   writes the others. */
static int64_t padding_touched(const case_t *cs, const double *b)
{
    int64_t stride[MAXD], shape;
    int c[MAXD];
    int64_t n = local_shape(&cs->dst, cs->ndims, stride, c, &shape), bad = 0;
    double *mark = malloc((size_t)(n > 0 ? n : 1) * sizeof *mark);
    if (mark == NULL)
        return n;
    for (int64_t i = 0; i < n; i++)
        mark[i] = NAN;
    walk(cs, &cs->dst, 1, mark, 0);
    for (int64_t i = 0; i < n; i++)
        bad += isnan(mark[i]) && b[i] != -1.0;
    free(mark);
    return bad;
}

static int64_t check(void *ctx, const double *b)
{
    const case_t *cs = ctx;
    return walk(cs, &cs->dst, 1, (double *)b, 1) + padding_touched(cs, b);
}

/* ---- layouts --------------------------------------------------------------------------- */

static int make_layout(const case_t *cs, const side_t *s, redist_layout *out)
{
    if (s->kind == BOXES) {
        int64_t lo[MAXP * MAXD], hi[MAXP * MAXD], ld[MAXD];
        for (int r = 0; r < s->nboxes; r++)
            for (int k = 0; k < cs->ndims; k++) {
                lo[r * cs->ndims + k] = s->lo[r][k];
                hi[r * cs->ndims + k] = s->hi[r][k];
            }
        if (!s->window)
            return redist_layout_create_boxes(cs->ndims, s->extent, s->nboxes, lo, hi, s->order,
                                              out);
        redist_layout root = NULL;
        int rc = redist_layout_create_boxes(cs->ndims, s->root, s->nboxes, lo, hi, s->order, &root);
        int c[MAXD] = {0};
        for (int k = 0; k < cs->ndims; k++) /* the slowest dimension's ld: any, ignored */
            ld[k] = me < s->nboxes ? extent_of(s, cs->ndims, k, c) + s->ld_extra[k] : 0;
        /* A window of a window: [outer, root) first, then the rest of the offset. */
        int64_t inner[MAXD];
        redist_layout outer = NULL;
        for (int k = 0; k < cs->ndims; k++)
            inner[k] = s->off[k] - s->outer[k];
        if (rc == REDIST_SUCCESS)
            rc = redist_layout_create_window(root, s->outer, NULL, NULL, &outer);
        if (rc == REDIST_SUCCESS)
            rc = redist_layout_create_window(outer, inner, s->extent, s->pad ? ld : NULL, out);
        redist_layout_free(&outer);
        redist_layout_free(&root);
        return rc;
    }
    const int64_t *sizes[MAXD];
    int first[MAXD];
    for (int k = 0; k < cs->ndims; k++) {
        sizes[k] = s->gen[k] ? s->sizes[k] : NULL;
        first[k] = s->rep[k] ? REDIST_REPLICATED : s->first[k];
    }
    return redist_layout_create_gen_block(cs->ndims, s->extent, s->block, s->grid, first, s->ranks,
                                          s->order, sizes, out);
}

static void random_grid(side_t *s, int nd)
{
    s->kind = GRID;
    s->nprocs = mtest_random_grid(&rng, nranks, MAXP, nd, s->ranks, s->grid);
    for (int k = 0; k < nd; k++) {
        s->first[k] = (int)rnd(0, s->grid[k] - 1);
        s->block[k] = rnd(1, 6);
        s->rep[k] = rnd(0, 3) == 0;
        s->gen[k] = !s->rep[k] && rnd(0, 2) == 0;
        if (!s->gen[k])
            continue;
        int64_t left = s->extent[k], P = s->grid[k];
        for (int i = 0; i < P; i++) {
            s->sizes[k][i] = i == P - 1 ? left : rnd(0, left);
            left -= s->sizes[k][i];
        }
    }
}

/* Cuts of [0, n) into q intervals (random, some empty). */
static void random_cuts(int64_t n, int q, int64_t cut[])
{
    cut[0] = 0;
    cut[q] = n;
    for (int i = 1; i < q; i++)
        cut[i] = rnd(0, n);
    for (int i = 1; i < q; i++) /* sort the inner cuts */
        for (int j = i + 1; j < q; j++)
            if (cut[j] < cut[i]) {
                int64_t t = cut[i];
                cut[i] = cut[j];
                cut[j] = t;
            }
}

/* A partition of the array into cells given to random ranks; extra ranks replicate a cell
   or hold an empty box. */
static void partition_boxes(side_t *s, int nd)
{
    s->kind = BOXES;
    s->nboxes = (int)rnd(1, nranks);
    int q[MAXD], cells = 1;
    for (int k = 0; k < nd; k++)
        q[k] = 1;
    for (int tries = 0; tries < 6; tries++) {
        int k = (int)rnd(0, nd - 1);
        if (cells / q[k] * (q[k] + 1) <= s->nboxes) {
            cells = cells / q[k] * (q[k] + 1);
            q[k]++;
        }
    }
    int64_t cut[MAXD][MAXP + 1];
    for (int k = 0; k < nd; k++)
        random_cuts(s->extent[k], q[k], cut[k]);
    int owner[MAXP]; /* a random permutation of the boxes' ranks */
    for (int r = 0; r < s->nboxes; r++)
        owner[r] = r;
    for (int r = s->nboxes - 1; r > 0; r--) {
        int j = (int)rnd(0, r), t = owner[r];
        owner[r] = owner[j];
        owner[j] = t;
    }
    for (int i = 0; i < s->nboxes; i++) {
        int r = owner[i], cell = i < cells ? i : (int)rnd(0, cells - 1);
        int empty = i >= cells && rnd(0, 2) == 0;
        for (int k = nd - 1; k >= 0; k--) {
            int at = cell % q[k];
            cell /= q[k];
            s->lo[r][k] = cut[k][at];
            s->hi[r][k] = empty ? cut[k][at] : cut[k][at + 1];
        }
    }
}

/* Any boxes, overlapping in any way (a destination's). */
static void random_boxes(side_t *s, int nd)
{
    s->kind = BOXES;
    s->nboxes = (int)rnd(1, nranks);
    for (int r = 0; r < s->nboxes; r++)
        for (int k = 0; k < nd; k++) {
            int64_t a = rnd(0, s->extent[k]), b = rnd(0, s->extent[k]);
            s->lo[r][k] = a < b ? a : b;
            s->hi[r][k] = a < b ? b : a;
        }
}

static void random_side(side_t *s, int nd, const int64_t extent[], int is_dst, int kind)
{
    s->order = rnd(0, 1) ? REDIST_COL_MAJOR : REDIST_ROW_MAJOR;
    s->window = kind != 0 && rnd(0, 2) == 0; /* boxes of a larger root, this window of it */
    s->pad = s->window && rnd(0, 1);
    for (int k = 0; k < nd; k++) {
        s->root[k] = extent[k] + (s->window ? rnd(0, 3) : 0);
        s->off[k] = rnd(0, s->root[k] - extent[k]);
        s->ld_extra[k] = rnd(0, 2);
        s->outer[k] = rnd(0, 1) ? rnd(0, s->off[k]) : 0;
        s->extent[k] = s->root[k]; /* the boxes are drawn over the root */
    }
    if (kind == 0)
        random_grid(s, nd);
    else if (kind == 1 || !is_dst)
        partition_boxes(s, nd);
    else
        random_boxes(s, nd);
    for (int k = 0; k < nd; k++)
        s->extent[k] = extent[k];
}

static void gen_case(case_t *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->ndims = (int)rnd(1, MAXD);
    int64_t e[MAXD], ed[MAXD];
    for (int k = 0; k < cs->ndims; k++)
        e[k] = rnd(0, 12) == 0 ? 0 : rnd(1, cs->ndims == 1 ? 60 : 14);
    for (int k = 0; k < cs->ndims; k++)
        cs->perm[k] = k;
    cs->permuted = cs->ndims > 1 && rnd(0, 2) == 0;
    for (int k = cs->ndims - 1; cs->permuted && k > 0; k--) {
        int j = (int)rnd(0, k), t = cs->perm[k];
        cs->perm[k] = cs->perm[j];
        cs->perm[j] = t;
    }
    for (int j = 0; j < cs->ndims; j++)
        ed[j] = e[cs->perm[j]];
    /* At least one side not a plain grid: a grid with a replicated dimension or boxes. */
    int ks = (int)rnd(0, 1), kd = (int)rnd(0, 2);
    cs->partial = rnd(0, 3) == 0;
    cs->scaled = rnd(0, 4) == 0; /* small integers: the sums stay exact */
    cs->alpha = (double)rnd(-3, 3);
    cs->beta = (double)rnd(-2, 2);
    random_side(&cs->src, cs->ndims, e, 0, ks);
    random_side(&cs->dst, cs->ndims, ed, 1, kd);
}

/* ---- running a case -------------------------------------------------------------------- */

static void run_case(const case_t *cs, int index)
{
    redist_layout src = NULL, dst = NULL;
    int rc = make_layout(cs, &cs->src, &src);
    if (rc == REDIST_SUCCESS)
        rc = make_layout(cs, &cs->dst, &dst);
    if (rc != REDIST_SUCCESS) {
        mtest_fail(&errs, me, "layouts", "case %d: %s (%s)", index, redist_strerror(rc),
                   redist_last_error_detail());
        redist_layout_free(&src);
        return;
    }
    int64_t st[MAXD], shape_s, shape_d;
    int c[MAXD];
    int64_t ns = local_shape(&cs->src, cs->ndims, st, c, &shape_s),
            nd = local_shape(&cs->dst, cs->ndims, st, c, &shape_d);
    int64_t want_ns = 0, want_nd = 0;
    redist_layout_local_size(src, me, &want_ns);
    redist_layout_local_size(dst, me, &want_nd);
    if (want_ns != shape_s || want_nd != shape_d)
        mtest_fail(&errs, me, "local size",
                   "case %d: the library says %lld and %lld, the oracle "
                   "%lld and %lld",
                   index, (long long)want_ns, (long long)want_nd, (long long)shape_s,
                   (long long)shape_d);
    double *a = mtest_host_alloc((size_t)ns * sizeof *a, 0); /* node-shared in turn */
    double *b = mtest_host_alloc((size_t)nd * sizeof *b, 1);
    mtest_case_io io = {a,
                        b,
                        ns,
                        nd,
                        cs->permuted ? cs->perm : NULL,
                        fill,
                        check,
                        (void *)cs,
                        cs->partial ? MPI_SUM : MPI_OP_NULL,
                        cs->scaled,
                        cs->alpha,
                        cs->beta};
    plans_run += mtest_every_variant(src, dst, &io, index, &errs);
    mtest_host_free(a);
    mtest_host_free(b);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

/* ---- two groups and batches ----------------------------------------------------------- */

/* An R x C matrix, element (i, j) = i C + j + 1 (times `weight`). */
enum { R_ROWS = 9, C_COLS = 7 };

/* Row slabs of the matrix as boxes over n ranks (lo, hi: their corners, n x 2), and the
   matrix replicated over a grid of q x 1 processes. */
static int row_slabs(int n, int64_t lo[], int64_t hi[], redist_layout *boxes)
{
    int64_t extent[2] = {R_ROWS, C_COLS};
    for (int r = 0; r < n; r++) {
        lo[2 * r] = (int64_t)R_ROWS * r / n, hi[2 * r] = (int64_t)R_ROWS * (r + 1) / n;
        lo[2 * r + 1] = 0, hi[2 * r + 1] = C_COLS;
    }
    return redist_layout_create_boxes(2, extent, n, lo, hi, REDIST_ROW_MAJOR, boxes);
}
static int replicated_rows(int q, int order, redist_layout *rep)
{
    int64_t extent[2] = {R_ROWS, C_COLS};
    int grid[2] = {q, 1}, first[2] = {REDIST_REPLICATED, REDIST_REPLICATED};
    return redist_layout_create(2, extent, NULL, grid, first, NULL, order, rep);
}

/* Two programs' groups: the first (nranks + 1) / 2 ranks hold row slabs as boxes, the
   others receive the whole matrix, replicated over their grid (first = REDIST_REPLICATED). */
static void inter_boxes_to_replicated(void)
{
    if (nranks < 2)
        return;
    int ga = (nranks + 1) / 2, gb = nranks - ga, is_source = me < ga;
    MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, is_source, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, is_source ? ga : 0, 7, &inter);
    int64_t lo[2 * MAXP], hi[2 * MAXP];
    redist_layout src = NULL, dst = NULL;
    int rc = row_slabs(ga, lo, hi, &src);
    if (rc == REDIST_SUCCESS)
        rc = replicated_rows(gb, REDIST_COL_MAJOR, &dst);
    int lr = 0;
    MPI_Comm_rank(local, &lr);
    double a[R_ROWS * C_COLS], b[R_ROWS * C_COLS];
    for (int64_t i = is_source ? lo[2 * lr] : 0; is_source && i < hi[2 * lr]; i++)
        for (int j = 0; j < C_COLS; j++)
            a[(i - lo[2 * lr]) * C_COLS + j] = (double)(i * C_COLS + j + 1);
    for (int i = 0; i < R_ROWS * C_COLS; i++)
        b[i] = -1.0;
    redist_plan plan = NULL;
    if (rc == REDIST_SUCCESS)
        rc = redist_plan_create_inter(src, dst, MPI_DOUBLE, inter, is_source, NULL, &plan);
    if (rc == REDIST_SUCCESS)
        rc = redist_execute(plan, is_source ? a : NULL, is_source ? NULL : b);
    int64_t bad = rc != REDIST_SUCCESS;
    for (int i = 0; !is_source && rc == REDIST_SUCCESS && i < R_ROWS; i++)
        for (int j = 0; j < C_COLS; j++) /* column-major, the whole matrix */
            bad += b[j * R_ROWS + i] != (double)(i * C_COLS + j + 1);
    if (bad)
        mtest_fail(&errs, me, "intercommunicator", "boxes -> replicated: %s, %lld wrong",
                   redist_error_name(rc), (long long)bad);
    redist_plan_free(&plan);
    redist_layout_free(&src);
    redist_layout_free(&dst);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* One batch of two arrays: row slabs as boxes (one per rank, some empty past 9 ranks) -> the
   matrix replicated on every rank, and back, with different values, checked on every
   holder. */
static void batch_of_kinds(void)
{
    int64_t lo[2 * MAXP], hi[2 * MAXP];
    redist_layout boxes = NULL, rep = NULL;
    int rc = row_slabs(nranks, lo, hi, &boxes);
    if (rc == REDIST_SUCCESS)
        rc = replicated_rows(nranks, REDIST_ROW_MAJOR, &rep);
    int64_t mine = (hi[2 * me] - lo[2 * me]) * C_COLS;
    double box_in[R_ROWS * C_COLS], box_out[R_ROWS * C_COLS], rep_in[R_ROWS * C_COLS],
        rep_out[R_ROWS * C_COLS];
    for (int64_t i = 0; i < mine; i++) {
        box_in[i] = (double)(lo[2 * me] * C_COLS + i + 1);
        box_out[i] = -1.0;
    }
    for (int i = 0; i < R_ROWS * C_COLS; i++) {
        rep_in[i] = 2.0 * (i + 1);
        rep_out[i] = -1.0;
    }
    redist_layout srcs[2] = {boxes, rep}, dsts[2] = {rep, boxes};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
    const void *in[2] = {mine ? box_in : NULL, rep_in};
    void *out[2] = {rep_out, mine ? box_out : NULL};
    redist_plan plan = NULL;
    if (rc == REDIST_SUCCESS)
        rc = redist_plan_create_batch(2, srcs, dsts, types, MPI_COMM_WORLD, NULL, &plan);
    if (rc == REDIST_SUCCESS)
        rc = redist_execute_batch(plan, in, out);
    int64_t bad = rc != REDIST_SUCCESS;
    for (int i = 0; rc == REDIST_SUCCESS && i < R_ROWS * C_COLS; i++)
        bad += rep_out[i] != (double)(i + 1);
    for (int64_t i = 0; rc == REDIST_SUCCESS && i < mine; i++)
        bad += box_out[i] != 2.0 * (double)(lo[2 * me] * C_COLS + i + 1);
    if (bad)
        mtest_fail(&errs, me, "batch", "boxes <-> replicated: %s, %lld wrong",
                   redist_error_name(rc), (long long)bad);
    redist_plan_free(&plan);
    redist_layout_free(&boxes);
    redist_layout_free(&rep);
}

/* scatter-allgather must apply where a destination element has several holders (a matrix
   replicated on every rank, boxes that overlap without being identical) and nowhere else;
   where it applies, every element of every holder is checked. */
static void run_scatter_allgather(const char *what, redist_layout src, redist_layout dst,
                                  int64_t ns, const int64_t *src_lo, int64_t nd,
                                  const int64_t *dst_lo, int want, int reduce)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = "scatter-allgather";
    if (reduce)
        opt.reduce = MPI_SUM;
    double a[R_ROWS * C_COLS], b[R_ROWS * C_COLS];
    for (int64_t i = 0; i < ns; i++) /* row-major rows from src_lo on */
        a[i] = (double)(*src_lo * C_COLS + i + 1);
    for (int64_t i = 0; i < nd; i++)
        b[i] = -1.0;
    redist_plan plan = NULL;
    int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    if (rc != want || !mtest_all_same(rc))
        mtest_fail(&errs, me, what, "scatter-allgather: %s, want %s on every rank (%s)",
                   redist_error_name(rc), redist_error_name(want), redist_last_error_detail());
    if (rc == REDIST_SUCCESS)
        rc = redist_execute(plan, ns ? a : NULL, nd ? b : NULL);
    int64_t bad = 0;
    for (int64_t i = 0; want == REDIST_SUCCESS && i < nd; i++)
        bad += b[i] != (double)(*dst_lo * C_COLS + i + 1);
    if (rc != want || bad)
        mtest_fail(&errs, me, what, "scatter-allgather: %s, %lld wrong", redist_error_name(rc),
                   (long long)bad);
    redist_plan_free(&plan);
}

static void shared_destinations(void)
{
    int64_t extent[2] = {R_ROWS, C_COLS}, lo[2 * MAXP], hi[2 * MAXP], zero = 0;
    int64_t whole_lo[2] = {0, 0}, whole_hi[2] = {R_ROWS, C_COLS};
    redist_layout one = NULL, rep = NULL, slabs = NULL, tails = NULL;
    int rc = redist_layout_create_boxes(2, extent, 1, whole_lo, whole_hi, REDIST_ROW_MAJOR, &one);
    if (rc == REDIST_SUCCESS)
        rc = replicated_rows(nranks, REDIST_ROW_MAJOR, &rep);
    if (rc == REDIST_SUCCESS)
        rc = row_slabs(nranks, lo, hi, &slabs);
    /* Rank r holds rows r mod R_ROWS .. R_ROWS - 1: the boxes overlap, none the same. */
    int64_t tlo[2 * MAXP], thi[2 * MAXP];
    for (int r = 0; r < nranks; r++) {
        tlo[2 * r] = r % R_ROWS, thi[2 * r] = R_ROWS;
        tlo[2 * r + 1] = 0, thi[2 * r + 1] = C_COLS;
    }
    if (rc == REDIST_SUCCESS)
        rc = redist_layout_create_boxes(2, extent, nranks, tlo, thi, REDIST_ROW_MAJOR, &tails);
    if (rc != REDIST_SUCCESS) {
        mtest_fail(&errs, me, "shared destinations", "layouts: %s", redist_error_name(rc));
        return;
    }
    int64_t whole = R_ROWS * C_COLS, mine = (hi[2 * me] - lo[2 * me]) * C_COLS;
    int64_t tail = (R_ROWS - tlo[2 * me]) * C_COLS;
    int shared = nranks > 1 ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
    run_scatter_allgather("one rank -> replicated", one, rep, me == 0 ? whole : 0, &zero, whole,
                          &zero, shared, 0);
    run_scatter_allgather("slabs -> overlapping boxes", slabs, tails, mine, &lo[2 * me], tail,
                          &tlo[2 * me], shared, 0);
    run_scatter_allgather("slabs -> slabs", slabs, slabs, mine, &lo[2 * me], mine, &lo[2 * me],
                          REDIST_ERR_NOT_APPLICABLE, 0);
    run_scatter_allgather("partial sums", rep, rep, whole, &zero, whole, &zero,
                          REDIST_ERR_NOT_APPLICABLE, 1);
    redist_layout_free(&one);
    redist_layout_free(&rep);
    redist_layout_free(&slabs);
    redist_layout_free(&tails);
}

/* ---- bad input ------------------------------------------------------------------------- */

/* A plan over two box layouts that must fail with `want` on every rank, writing nothing. */
static void expect_plan_error(const char *what, int nb_src, const int64_t *slo, const int64_t *shi,
                              int nb_dst, const int64_t *dlo, const int64_t *dhi, int want)
{
    int64_t n[1] = {12};
    redist_layout src = NULL, dst = NULL;
    redist_plan plan = NULL;
    int rc = redist_layout_create_boxes(1, n, nb_src, slo, shi, REDIST_ROW_MAJOR, &src);
    if (rc == REDIST_SUCCESS)
        rc = redist_layout_create_boxes(1, n, nb_dst, dlo, dhi, REDIST_ROW_MAJOR, &dst);
    if (rc == REDIST_SUCCESS)
        rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
    if (rc != want || plan != NULL)
        mtest_fail(&errs, me, what, "got %s, want %s (%s)", redist_error_name(rc),
                   redist_error_name(want), redist_last_error_detail());
    if (!mtest_all_same(rc))
        mtest_fail(&errs, me, what, "the ranks returned different codes");
    redist_plan_free(&plan);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

static void bad_cases(void)
{
    int64_t n[1] = {12};
    redist_layout l = NULL, w = NULL;
    int64_t lo[1] = {-1}, hi[1] = {4};
    if (redist_layout_create_boxes(1, n, 1, lo, hi, 0, &l) != REDIST_ERR_ARG || l != NULL)
        mtest_fail(&errs, me, "bad corner", "a negative corner is not REDIST_ERR_ARG");
    lo[0] = 0, hi[0] = 13;
    if (redist_layout_create_boxes(1, n, 1, lo, hi, 0, &l) != REDIST_ERR_ARG)
        mtest_fail(&errs, me, "bad corner", "a corner past the extent is not REDIST_ERR_ARG");
    if (redist_layout_create_boxes(1, n, 0, lo, hi, 0, &l) != REDIST_ERR_ARG)
        mtest_fail(&errs, me, "no boxes", "nboxes = 0 is not REDIST_ERR_ARG");
    hi[0] = 12;
    if (redist_layout_create_boxes(1, n, 1, lo, hi, 0, &l) != REDIST_SUCCESS)
        mtest_fail(&errs, me, "box", "%s", redist_last_error_detail());
    int64_t off[1] = {3}, cnt[1] = {10}, ld[1] = {-1};
    if (redist_layout_create_window(l, off, cnt, NULL, &w) != REDIST_ERR_ARG || w != NULL)
        mtest_fail(&errs, me, "window", "a window past the boxes' extent is not REDIST_ERR_ARG");
    cnt[0] = 9;
    if (redist_layout_create_window(l, off, cnt, ld, &w) != REDIST_ERR_ARG || w != NULL)
        mtest_fail(&errs, me, "window", "ld = -1 of a window of boxes is not REDIST_ERR_ARG");
    redist_layout_free(&l);
    int64_t block[1] = {2};
    int grid[1] = {2}, first[1] = {-2};
    if (redist_layout_create(1, n, block, grid, first, NULL, 0, &l) != REDIST_ERR_ARG)
        mtest_fail(&errs, me, "first", "first = -2 is not REDIST_ERR_ARG");
    int64_t shape[1] = {0};
    first[0] = REDIST_REPLICATED; /* every dimension replicated: block is not read */
    if (redist_layout_create(1, n, NULL, grid, first, NULL, 0, &l) != REDIST_SUCCESS ||
        redist_layout_local_shape(l, 1, shape) != REDIST_SUCCESS || shape[0] != 12)
        mtest_fail(&errs, me, "replicated", "block NULL: %s, rank 1 holds %lld, not 12",
                   redist_last_error_detail(), (long long)shape[0]);
    redist_layout_free(&l);
    if (nranks < 2)
        return;
    /* Rank 0 holds [0, 8), rank 1 [4, 12): they share [4, 8) without being the same box. */
    int64_t plo[2] = {0, 4}, phi[2] = {8, 12}, dlo[1] = {0}, dhi[1] = {12};
    expect_plan_error("partly overlapping sources", 2, plo, phi, 1, dlo, dhi,
                      REDIST_ERR_UNSUPPORTED);
    /* The sources hold [0, 5) and [6, 12): element 5 of the destination has no source. */
    int64_t glo[2] = {0, 6}, ghi[2] = {5, 12};
    expect_plan_error("uncovered destination", 2, glo, ghi, 1, dlo, dhi, REDIST_ERR_ARG);
    /* An op MPI does not define on the type: ARG on every rank, no plan. */
    {
        redist_layout src = NULL, dst = NULL;
        redist_plan plan = NULL;
        redist_options opt;
        redist_options_init(&opt);
        opt.reduce = MPI_BAND;
        int rc = redist_layout_create_boxes(1, n, 1, dlo, dhi, REDIST_ROW_MAJOR, &src);
        if (rc == REDIST_SUCCESS)
            rc = redist_layout_create_boxes(1, n, 1, dlo, dhi, REDIST_ROW_MAJOR, &dst);
        if (rc == REDIST_SUCCESS)
            rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        if (rc != REDIST_ERR_ARG || plan != NULL || !mtest_all_same(rc))
            mtest_fail(&errs, me, "reduce", "MPI_BAND on MPI_DOUBLE: %s, not ARG on every rank",
                       redist_error_name(rc));
        redist_plan_free(&plan);
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
    /* A box on a rank past the communicator. */
    int64_t many_lo[65] = {0}, many_hi[65] = {0};
    many_hi[nranks] = 12;
    expect_plan_error("nboxes past the communicator", nranks + 1, many_lo, many_hi, 1, dlo, dhi,
                      REDIST_ERR_ARG);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    uint64_t seed = 20261129u;
    int cases = 60, only = -1;
    mtest_case_args(argc, argv, &seed, &cases, &only);
    mtest_test_memory();
    for (int i = 0; i < cases; i++) {
        rng = seed * 2654435761u + (uint64_t)i * 40503u + 11;
        case_t cs;
        gen_case(&cs);
        if (only < 0 || only == i)
            run_case(&cs, i);
    }
    bad_cases();
    inter_boxes_to_replicated();
    batch_of_kinds();
    shared_destinations();
    if (me == 0)
        printf("%d plans run over %d cases of boxes, replicated dimensions and grids\n", plans_run,
               cases);
    return mtest_finalize(errs);
}
