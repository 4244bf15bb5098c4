/* threads: 3 1 4 */
/* device: 3 2 */
/* [SD96]'s section algorithms (block-to-block, block-to-cyclic, cyclic-to-block, tk-to-k,
 * k-to-tk) and the enumerative baseline (general) between a source on P and a destination on
 * P' processes, P and P' in 1..5, on identical, nested, overlapping and disjoint process sets
 * (as the world allows), 1-D and 2-D (each dimension in the case), first coordinates not 0.
 * Every case is built in one of the five shapes; every section algorithm must apply exactly
 * when its case holds (mtest_sections_apply, worked out independently of the library), and
 * every plan that exists must deliver every element: the source holds its global row-major
 * index, each destination element is checked. Ranks holding nothing pass NULL.
 * REDIST_TEST_MEMORY=cuda or auto (support/mdevice.h): the arrays in device memory (auto:
 * source and destination in device or host memory by turns), copied back to the host to be
 * checked; general, which reads the arrays on the host, must then say NOT_APPLICABLE.
 */
#include "redist.h"
#include "support/mdevice.h"
#include "support/mtest.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, world_rank, world_size, plans_run;
static int nexec; /* executes so far (REDIST_TEST_MEMORY=auto: which arrays are on the device) */
#define fail(...) mtest_fail(&errs, world_rank, __VA_ARGS__)

typedef struct side {
    int64_t block[2];
    int grid[2], first[2], ranks[8], np;
} side;

enum { BB, BC, CB, TKK, KTK, NSHAPES };
static const char *const shape_names[NSHAPES] = {"Block->Block", "Block->Cyclic", "Cyclic->Block",
                                                 "Cyclic(TK')->Cyclic(K')",
                                                 "Cyclic(K)->Cyclic(TK)"};

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The blocks of one dimension in shape `shape`. */
static void shape_blocks(int shape, int64_t n, int p, int q, int64_t *x, int64_t *y)
{
    int64_t bp = ceil_div(n, p), bq = ceil_div(n, q);
    switch (shape) {
    case BB:
        *x = bp, *y = bq;
        break;
    case BC:
        *x = bp, *y = 3;
        break;
    case CB:
        *x = 2, *y = bq;
        break;
    case TKK:
        *x = 6, *y = 2;
        break;
    default:
        *x = 1, *y = 4;
        break;
    }
}

/* A 2-D grid of P processes: P x 1 for a prime, else the squarest. */
static void grid_of(int P, int nd, int grid[2])
{
    grid[0] = P, grid[1] = 1;
    if (nd == 2 && P == 4)
        grid[0] = grid[1] = 2;
}

static redist_layout make(int nd, const int64_t *n, const side *s)
{
    redist_layout l = NULL;
    if (redist_layout_create(nd, n, s->block, s->grid, s->first, s->ranks, REDIST_ROW_MAJOR, &l))
        fail("layout", "%s", redist_last_error_detail());
    return l;
}

/* Fills (check = 0) or checks this rank's local array: element = global row-major index. */
static int64_t walk(redist_layout l, int nd, const int64_t *n, const side *s, double *a, int check)
{
    int64_t count = 0, shape[2] = {1, 1}, bad = 0;
    int coords[2] = {0, 0};
    redist_layout_local_size(l, world_rank, &count);
    if (count == 0 || redist_layout_coords(l, world_rank, coords) != 1)
        return 0;
    redist_layout_local_shape(l, world_rank, shape);
    for (int64_t i = 0; i < count; i++) {
        int64_t li[2] = {nd == 2 ? i / shape[1] : i, nd == 2 ? i % shape[1] : 0}, g = 0;
        for (int k = 0; k < nd; k++)
            g = g * n[k] + mtest_global_of(li[k], s->block[k], s->grid[k], s->first[k], coords[k]);
        if (check)
            bad += a[i] != (double)g;
        else
            a[i] = (double)g;
    }
    return bad;
}

static void run_algorithm(const char *name, int nd, const int64_t *n, const side *s, const side *d,
                          redist_layout ls, redist_layout ld, const char *label)
{
    char what[256];
    snprintf(what, sizeof what, "%s, %s", label, name);
    int64_t ns = 0, ndst = 0;
    redist_layout_local_size(ls, world_rank, &ns);
    redist_layout_local_size(ld, world_rank, &ndst);
    double *a = ns ? malloc((size_t)ns * sizeof *a) : NULL;
    double *b = ndst ? malloc((size_t)ndst * sizeof *b) : NULL;
    walk(ls, nd, n, s, a, 0);
    size_t abytes = (size_t)ns * sizeof *a, bbytes = (size_t)ndst * sizeof *b;
    void *da = mtest_device_alloc(abytes), *db = mtest_device_alloc(bbytes); /* device twins */
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = name;
    opt.memory = mtest_test_memory();
    redist_plan plan = NULL;
    int rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    int must = mtest_sections_apply(name, nd, n, s->block, s->grid, d->block, d->grid);
    if (!mtest_all_same(rc))
        fail(what, "different codes on different ranks");
    else if (opt.memory != REDIST_MEMORY_HOST && !mtest_device_capable(name)) {
        if (rc != REDIST_ERR_NOT_APPLICABLE) /* it reads the arrays on the host */
            fail(what, "a device plan: %s, not NOT_APPLICABLE", redist_strerror(rc));
        rc = REDIST_ERR_NOT_APPLICABLE; /* not run */
    } else if (must >= 0 && must != (rc != REDIST_ERR_NOT_APPLICABLE))
        fail(what, "%s, but its case %s", rc == REDIST_ERR_NOT_APPLICABLE ? "refused" : "applied",
             must ? "holds" : "does not hold");
    else if (rc != REDIST_SUCCESS && rc != REDIST_ERR_NOT_APPLICABLE)
        fail(what, "plan_create: %s (%s)", redist_strerror(rc), redist_last_error_detail());
    plans_run += rc == REDIST_SUCCESS;
    for (int pass = 0; rc == REDIST_SUCCESS && pass < 2; pass++) {
        for (int64_t i = 0; i < ndst; i++)
            b[i] = -1;
        int sd = mtest_on_device(nexec, 0), dd = mtest_on_device(nexec++, 1);
        void *x = mtest_device_in(a, da, abytes, sd), *y = mtest_device_in(b, db, bbytes, dd);
        int done = 0, e = pass == 0 ? redist_execute(plan, x, y) : redist_start(plan, x, y);
        while (pass == 1 && e == REDIST_SUCCESS && !done)
            e = redist_test(plan, &done);
        mtest_device_out(b, db, bbytes, dd);
        int64_t bad = e == REDIST_SUCCESS ? walk(ld, nd, n, d, b, 1) : -1;
        if (bad != 0)
            fail(what, "%s: rc %d, %lld elements wrong", pass ? "start/test" : "execute", e,
                 (long long)bad);
    }
    if (plan != NULL)
        redist_plan_free(&plan);
    free(a);
    free(b);
    mtest_device_free(da);
    mtest_device_free(db);
}

/* Ranks of a set: `count` ranks from `start` (reversed order if rev). */
static void set_ranks(side *s, int start, int count, int rev)
{
    s->np = count;
    for (int i = 0; i < count; i++)
        s->ranks[i] = start + (rev ? count - 1 - i : i);
}

static void run_case(int nd, int shape, int P, int Q, int src_start, int dst_start, int rev,
                     const char *sets)
{
    int64_t n[2] = {nd == 1 ? 37 : 13, 11};
    side s = {{1, 1}, {1, 1}, {0, 0}, {0}, 0}, d = s;
    grid_of(P, nd, s.grid);
    grid_of(Q, nd, d.grid);
    for (int k = 0; k < nd; k++) {
        shape_blocks(shape, n[k], s.grid[k], d.grid[k], &s.block[k], &d.block[k]);
        d.first[k] = d.grid[k] - 1;
    }
    set_ranks(&s, src_start, P, 0);
    set_ranks(&d, dst_start, Q, rev);
    redist_layout ls = make(nd, n, &s), ld = make(nd, n, &d);
    char label[160];
    snprintf(label, sizeof label, "%dD %s, %d -> %d ranks (%s)", nd, shape_names[shape], P, Q,
             sets);
    static const char *const names[] = {"block-to-block",
                                        "block-to-cyclic",
                                        "cyclic-to-block",
                                        "tk-to-k",
                                        "k-to-tk",
                                        "general",
                                        "auto"};
    for (size_t i = 0; ls && ld && i < sizeof names / sizeof *names; i++)
        run_algorithm(names[i], nd, n, &s, &d, ls, ld, label);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    mtest_test_memory();
    int cases = 0;
    for (int nd = 1; nd <= 2; nd++)
        for (int P = 1; P <= 5 && P <= world_size; P++)
            for (int Q = 1; Q <= 5 && Q <= world_size; Q++)
                for (int shape = 0; shape < NSHAPES; shape++) {
                    int big = P > Q ? P : Q, rev = (P + Q + shape) % 2;
                    if (P == Q)
                        run_case(nd, shape, P, Q, 0, 0, 0, "identical"), cases++;
                    if (P != Q) /* the smaller set inside the larger one */
                        run_case(nd, shape, P, Q, P > Q ? 0 : big - P, P > Q ? big - Q : 0, rev,
                                 "nested"),
                            cases++;
                    if (P + Q - 1 <= world_size && P > 1 && Q > 1) /* one rank shared */
                        run_case(nd, shape, P, Q, 0, P - 1, rev, "overlapping"), cases++;
                    if (P + Q <= world_size)
                        run_case(nd, shape, P, Q, 0, P, rev, "disjoint"), cases++;
                }
    if (world_rank == 0)
        printf("%d cases, 7 algorithms each: %d plans run\n", cases, plans_run);
    return mtest_finalize(errs);
}
