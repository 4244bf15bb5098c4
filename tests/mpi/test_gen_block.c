/* threads: 3 1 4 */
/* device: 3 2 */
/* Irregular blocks (redist_layout_create_gen_block, HPF 2's GEN_BLOCK), checked element by
 * element against an oracle written here.
 *
 * Random cases: 1-3 dimensions of extents 0..40 (sometimes up to 300 in 1-D); on each side,
 * along each dimension, either cyclic(b) or irregular blocks (random sizes summing to the
 * extent, zeros included, or a PETSc-style even split), a random grid over a random subset
 * of the ranks in random order, any first coordinate, row- or column-major; in a third of the
 * cases an axis permutation too. Every algorithm the library lists (and auto) runs the plan
 * by execute and by start + test, plus auto in bounded mode and direct-async with each
 * transport; a forced algorithm may say REDIST_ERR_NOT_APPLICABLE, the same on every rank.
 * Every destination element must hold its source element's value; a rank that holds
 * nothing passes NULL. Bad sizes (negative, wrong sum) give REDIST_ERR_ARG, windows of such
 * layouts REDIST_ERR_UNSUPPORTED. REDIST_TEST_MEMORY=cuda or auto (support/mdevice.h): the
 * arrays in device memory (auto: source and destination in device or host memory by turns),
 * copied back to the host to be checked; algorithms that cannot run a device plan must say
 * NOT_APPLICABLE, and the datatype transport REDIST_ERR_ARG.
 *
 * Options: --seed S, --cases C, --case K. */
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

typedef struct {
    int64_t extent[MAXD], block[MAXD];
    int64_t sizes[MAXD][MAXP]; /* irregular dimensions: block sizes by block index */
    int gen[MAXD], grid[MAXD], first[MAXD], ranks[MAXP], nprocs, order;
} side_t;

typedef struct {
    int ndims, permuted, perm[MAXD];
    side_t src, dst;
} case_t;

static int me, nranks, errs, plans_run;
static uint64_t rng;

static int64_t rnd(int64_t lo, int64_t hi)
{
    return mtest_rand(&rng, lo, hi);
}

/* ---- the oracle: owner coordinate and local index along one dimension ----------------- */

static void locate_dim(const side_t *s, int k, int64_t g, int *coord, int64_t *local)
{
    if (s->gen[k]) {
        int64_t start = 0;
        for (int i = 0; i < s->grid[k]; i++) { /* block by block: slow and obviously right */
            if (g < start + s->sizes[k][i]) {
                *coord = (i + s->first[k]) % s->grid[k];
                *local = g - start;
                return;
            }
            start += s->sizes[k][i];
        }
    }
    int64_t b = s->block[k];
    *coord = (int)((g / b + s->first[k]) % s->grid[k]);
    *local = g / (b * s->grid[k]) * b + g % b;
}

static int64_t local_count(const side_t *s, int k, int c)
{
    int64_t n = 0;
    for (int64_t g = 0; g < s->extent[k]; g++) {
        int coord;
        int64_t l;
        locate_dim(s, k, g, &coord, &l);
        n += coord == c;
    }
    return n;
}

static int coords_of(const side_t *s, int nd, int rank, int c[])
{
    return mtest_coords_of(s->ranks, s->nprocs, s->grid, nd, rank, c);
}

/* This rank's local array size and strides (storage order `order`). */
static int64_t local_shape(const side_t *s, int nd, int rank, int64_t stride[])
{
    int c[MAXD];
    if (!coords_of(s, nd, rank, c))
        return 0;
    int64_t n = 1;
    for (int i = 0; i < nd; i++) {
        int k = s->order == REDIST_COL_MAJOR ? i : nd - 1 - i;
        stride[k] = n;
        n *= local_count(s, k, c[k]);
    }
    return n;
}

/* The oracle's locate for one side (mtest_oracle_walk): this rank's coordinates. */
typedef struct where {
    const side_t *s;
    int mine[MAXD];
} where;

static int locate(const void *ctx, int k, int64_t g, int64_t *local)
{
    const where *w = ctx;
    int c;
    locate_dim(w->s, k, g, &c, local);
    return c == w->mine[k];
}

/* Every element of side s's array on this rank: fill (check = 0) or count the wrong ones.
   The element at s-index h has the value of source index g (g = h, or g[perm[j]] = h[j]). */
static int64_t walk(const case_t *cs, const side_t *s, int is_dst, double *a, int check)
{
    int64_t stride[MAXD], n = local_shape(s, cs->ndims, me, stride);
    where w = {s, {0}};
    if (n == 0)
        return 0;
    coords_of(s, cs->ndims, me, w.mine);
    return mtest_oracle_walk(cs->ndims, s->extent, stride, locate, &w,
                             is_dst && cs->permuted ? cs->perm : NULL, a, check);
}

/* ---- cases ------------------------------------------------------------------------------ */

static void fill(void *ctx, double *a)
{
    const case_t *cs = ctx;
    walk(cs, &cs->src, 0, a, 0);
}

static int64_t check(void *ctx, const double *b)
{
    const case_t *cs = ctx;
    return walk(cs, &cs->dst, 1, (double *)b, 1);
}

static int make_layout(const case_t *cs, const side_t *s, redist_layout *out)
{
    const int64_t *sizes[MAXD];
    for (int k = 0; k < cs->ndims; k++)
        sizes[k] = s->gen[k] ? s->sizes[k] : NULL;
    return redist_layout_create_gen_block(cs->ndims, s->extent, s->block, s->grid, s->first,
                                          s->ranks, s->order, sizes, out);
}

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
    int64_t st[MAXD], ns = local_shape(&cs->src, cs->ndims, me, st),
                      nd = local_shape(&cs->dst, cs->ndims, me, st);
    double *a = ns ? malloc((size_t)ns * sizeof *a) : NULL;
    double *b = nd ? malloc((size_t)nd * sizeof *b) : NULL;
    mtest_case_io io = {a,    b,     ns,         nd,          cs->permuted ? cs->perm : NULL,
                        fill, check, (void *)cs, MPI_OP_NULL, 0,
                        1.0,  0.0};
    plans_run += mtest_every_variant(src, dst, &io, index, &errs);
    free(a);
    free(b);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

static void random_side(side_t *s, int nd, const int64_t extent[])
{
    s->nprocs = mtest_random_grid(&rng, nranks, MAXP, nd, s->ranks, s->grid);
    s->order = rnd(0, 1) ? REDIST_COL_MAJOR : REDIST_ROW_MAJOR;
    for (int k = 0; k < nd; k++) {
        s->extent[k] = extent[k];
        s->first[k] = (int)rnd(0, s->grid[k] - 1);
        s->block[k] = rnd(1, 6);
        s->gen[k] = rnd(0, 1);
        if (!s->gen[k])
            continue;
        int64_t left = extent[k], P = s->grid[k];
        int even = rnd(0, 2) == 0; /* PETSc's split: n / P, the first n % P one larger */
        for (int i = 0; i < P; i++) {
            int64_t sz = even ? extent[k] / P + (i < extent[k] % P) : rnd(0, left);
            s->sizes[k][i] = i == P - 1 ? left : sz;
            left -= s->sizes[k][i];
        }
    }
}

static void gen_case(case_t *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->ndims = (int)rnd(1, MAXD);
    int64_t e[MAXD], ed[MAXD];
    for (int k = 0; k < cs->ndims; k++)
        e[k] = rnd(0, 12) == 0 ? 0 : rnd(1, cs->ndims == 1 ? (rnd(0, 3) ? 40 : 300) : 14);
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
    random_side(&cs->src, cs->ndims, e);
    random_side(&cs->dst, cs->ndims, ed);
}

/* Bad sizes and windows: the same code on every rank (local calls, no communication). */
static void bad_cases(void)
{
    int64_t n[1] = {10}, b[1] = {2};
    int g[1] = {3};
    int64_t bad_sum[3] = {3, 3, 3}, negative[3] = {5, -1, 6}, good[3] = {3, 3, 4};
    const int64_t *s1[1] = {bad_sum}, *s2[1] = {negative}, *s3[1] = {good};
    redist_layout l = NULL, w = NULL;
    if (redist_layout_create_gen_block(1, n, b, g, NULL, NULL, 0, s1, &l) != REDIST_ERR_ARG)
        mtest_fail(&errs, me, "bad sizes", "a wrong sum is not REDIST_ERR_ARG");
    if (redist_layout_create_gen_block(1, n, b, g, NULL, NULL, 0, s2, &l) != REDIST_ERR_ARG)
        mtest_fail(&errs, me, "bad sizes", "a negative size is not REDIST_ERR_ARG");
    if (redist_layout_create_gen_block(1, n, NULL, g, NULL, NULL, 0, s3, &l) != REDIST_SUCCESS)
        mtest_fail(&errs, me, "good sizes", "%s", redist_last_error_detail());
    int64_t off[1] = {1};
    if (redist_layout_create_window(l, off, NULL, NULL, &w) != REDIST_ERR_UNSUPPORTED)
        mtest_fail(&errs, me, "window", "a window of irregular blocks is not UNSUPPORTED");
    int64_t shape[1];
    redist_layout_local_shape(l, 2, shape);
    if (nranks >= 3 && shape[0] != 4)
        mtest_fail(&errs, me, "local shape", "rank 2 holds %lld, want 4", (long long)shape[0]);
    redist_layout_free(&l);
    redist_layout_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    uint64_t seed = 20261123u;
    int cases = 120, only = -1;
    mtest_case_args(argc, argv, &seed, &cases, &only);
    mtest_test_memory();
    for (int i = 0; i < cases; i++) {
        rng = seed * 2654435761u + (uint64_t)i * 40503u + 7;
        case_t cs;
        gen_case(&cs);
        if (only < 0 || only == i)
            run_case(&cs, i);
    }
    bad_cases();
    if (me == 0)
        printf("%d plans run over %d cases of irregular and cyclic dimensions\n", plans_run, cases);
    return mtest_finalize(errs);
}
