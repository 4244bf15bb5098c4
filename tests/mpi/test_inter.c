/* nodes: 3:1 4:2 5:3 7:2 8:4 */
/* nprocs: 2 3 4 5 7 8 */
/* threads: 3 4 */
/* device: 3 2 */
/* Redistributions between two groups joined by an intercommunicator ([SD96]'s separate
 * tasks): MPI_COMM_WORLD split into a source group (the first k ranks) and a destination
 * group (the rest), joined with MPI_Intercomm_create, for every split k. Each pair of layouts
 * (1-D and 2-D, blocks and grids of several shapes, ranks in reverse order, a group member
 * holding nothing) runs with every algorithm: those that apply to disjoint sets must run and
 * give every element right, through execute and through start + test; the others must say
 * REDIST_ERR_NOT_APPLICABLE on every rank of both groups. Then errors agreed across both
 * groups: both groups claiming the source side, a layout rank beyond its group, a mismatch.
 * REDIST_TEST_MEMORY=cuda or auto (support/mdevice.h): the arrays in device memory (auto: in
 * device or host memory by turns); algorithms that read arrays on the host must then say
 * NOT_APPLICABLE.
 */
#include <redist.h>

#include "support/mdevice.h"
#include "support/mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, world_rank;
#define fail(...) mtest_fail(&errs, world_rank, __VA_ARGS__)

typedef struct side {
    int nd;
    int64_t n[2], block[2];
    int grid[2], reverse; /* reverse: grid positions take the group's ranks in reverse */
} side;

static redist_layout make_layout(const side *s, int group_size)
{
    int np = s->grid[0] * (s->nd > 1 ? s->grid[1] : 1), ranks[64];
    for (int i = 0; i < np; i++)
        ranks[i] = s->reverse ? group_size - 1 - i : i;
    redist_layout l = NULL;
    if (redist_layout_create(s->nd, s->n, s->block, s->grid, NULL, ranks, REDIST_ROW_MAJOR, &l))
        fail("layout", "%s", redist_last_error_detail());
    return l;
}

/* value = row-major global index; filled or checked on this rank's local array */
static int64_t walk(redist_layout l, const side *s, int rank, double *a, int check)
{
    int64_t shape[2] = {1, 1}, count = 0, bad = 0;
    int coords[2] = {0, 0};
    redist_layout_local_size(l, rank, &count);
    if (redist_layout_coords(l, rank, coords) != 1)
        return 0;
    redist_layout_local_shape(l, rank, shape);
    for (int64_t idx = 0; idx < count; idx++) {
        int64_t li[2] = {s->nd > 1 ? idx / shape[1] : idx, s->nd > 1 ? idx % shape[1] : 0};
        int64_t g = 0;
        for (int k = 0; k < s->nd; k++)
            g = g * s->n[k] + mtest_global_of(li[k], s->block[k], s->grid[k], 0, coords[k]);
        if (check)
            bad += a[idx] != (double)g;
        else
            a[idx] = (double)g;
    }
    return bad;
}

/* The groups' ranks, merged as a plan merges them, span nodes: node-aware applies. */
static int several_nodes;

/* The algorithms that must apply to a pair on disjoint process sets (docs/algorithms.md). */
static int must_apply(const char *name, const side *s, const side *d)
{
    if (!strcmp(name, "node-aware"))
        return several_nodes;
    int sections = mtest_sections_apply(name, s->nd, s->n, s->block, s->grid, d->block, d->grid);
    if (sections >= 0)
        return sections;
    static const char *const same_set_only[] = {
        "ky-to-y",          "x-to-kx",          "gcd", "lcm", "multiphase", "bmmc", "reduce-direct",
        "reduce-allgather", "scatter-allgather"}; /* and shared destinations or partial sums only */
    for (size_t i = 0; i < sizeof same_set_only / sizeof *same_set_only; i++)
        if (!strcmp(name, same_set_only[i]))
            return 0;
    return 1;
}

/* rc must be the same on every rank of the world; returns it. */
static int agreed(int rc, const char *what)
{
    int mn, mx;
    MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mn != mx)
        fail(what, "different codes on different ranks (%d .. %d)", mn, mx);
    return rc;
}

static void run_pair(MPI_Comm inter, int is_source, int group_rank, int group_size, const side *s,
                     const side *d, const char *label)
{
    int p_src = is_source ? group_size : 0, p_dst = is_source ? 0 : group_size;
    int remote = 0;
    MPI_Comm_remote_size(inter, &remote);
    if (is_source)
        p_dst = remote;
    else
        p_src = remote;
    redist_layout ls = make_layout(s, p_src), ld = make_layout(d, p_dst);
    int64_t ns = 0, nd = 0;
    if (is_source)
        redist_layout_local_size(ls, group_rank, &ns);
    else
        redist_layout_local_size(ld, group_rank, &nd);
    double *a = ns ? malloc((size_t)ns * sizeof *a) : NULL;
    double *b = nd ? malloc((size_t)nd * sizeof *b) : NULL;
    if (a)
        walk(ls, s, group_rank, a, 0);
    void *da = mtest_device_alloc((size_t)ns * sizeof *a),
         *db = mtest_device_alloc((size_t)nd * sizeof *b); /* REDIST_TEST_MEMORY's twins */
    int nexec = 0;
    MPI_Comm merged = MPI_COMM_NULL; /* source group first, as the plan merges them */
    MPI_Intercomm_merge(inter, is_source ? 0 : 1, &merged);
    several_nodes = mtest_several_nodes(merged);
    MPI_Comm_free(&merged);
    for (int i = 0; i < redist_algorithm_count(); i++) {
        const char *name = redist_algorithm_name(i);
        char what[160];
        snprintf(what, sizeof what, "%s, %s", label, name);
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = name;
        opt.memory = mtest_test_memory();
        redist_plan plan = NULL;
        int rc = agreed(redist_plan_create_inter(ls, ld, MPI_DOUBLE, inter, is_source, &opt, &plan),
                        what);
        if (rc == REDIST_ERR_NOT_APPLICABLE && !must_apply(name, s, d))
            continue;
        if (opt.memory != REDIST_MEMORY_HOST && !mtest_device_capable(name)) {
            if (rc != REDIST_ERR_NOT_APPLICABLE)
                fail(what, "device memory: %s, not NOT_APPLICABLE", redist_strerror(rc));
            redist_plan_free(&plan);
            continue;
        }
        if (rc != REDIST_SUCCESS) {
            fail(what, "plan_create_inter: %s (%s)", redist_strerror(rc),
                 redist_last_error_detail());
            continue;
        }
        if (!must_apply(name, s, d))
            fail(what, "applies to disjoint sets");
        for (int pass = 0; pass < 2; pass++) {
            for (int64_t k = 0; k < nd; k++)
                b[k] = -1;
            int on = mtest_on_device(nexec++, is_source ? 0 : 1);
            void *x = mtest_device_in(a, da, (size_t)ns * sizeof *a, on && is_source),
                 *y = mtest_device_in(b, db, (size_t)nd * sizeof *b, on && !is_source);
            if (pass == 0) {
                rc = redist_execute(plan, is_source ? x : NULL, is_source ? NULL : y);
            } else {
                rc = redist_start(plan, is_source ? x : NULL, is_source ? NULL : y);
                for (int done = 0; rc == REDIST_SUCCESS && !done;)
                    rc = redist_test(plan, &done);
            }
            mtest_device_out(b, db, (size_t)nd * sizeof *b, on && !is_source);
            agreed(rc, what);
            int64_t bad = is_source ? 0 : walk(ld, d, group_rank, b, 1);
            if (rc != REDIST_SUCCESS || bad)
                fail(what, "pass %d: rc %d, %lld wrong elements", pass, rc, (long long)bad);
        }
        if (redist_plan_free(&plan) != REDIST_SUCCESS || plan != NULL)
            fail(what, "plan_free");
    }
    free(a);
    free(b);
    mtest_device_free(da);
    mtest_device_free(db);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
}

/* Errors must be the same on every rank of both groups. */
static void run_errors(MPI_Comm inter, int is_source, int p_src, int p_dst)
{
    side s = {1, {100, 1}, {3, 1}, {p_src, 1}, 0}, d = {1, {100, 1}, {5, 1}, {p_dst, 1}, 0};
    redist_layout ls = make_layout(&s, p_src), ld = make_layout(&d, p_dst), wide = NULL;
    redist_plan plan = (redist_plan)&plan;
    int rc = agreed(redist_plan_create_inter(ls, ld, MPI_DOUBLE, inter, 1, NULL, &plan),
                    "both groups is_source = 1");
    if (rc != REDIST_ERR_ARG || plan != NULL)
        fail("both groups is_source = 1", "rc %d, plan %p", rc, (void *)plan);
    int64_t n = 100, blk = 3;
    int g = p_src + 1;
    redist_layout_create(1, &n, &blk, &g, NULL, NULL, REDIST_ROW_MAJOR, &wide); /* one too many */
    rc = agreed(redist_plan_create_inter(wide, ld, MPI_DOUBLE, inter, is_source, NULL, &plan),
                "src layout beyond the source group");
    if (rc != REDIST_ERR_ARG)
        fail("src layout beyond the source group", "rc %d", rc);
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = is_source ? "direct" : "direct-async";
    rc = agreed(redist_plan_create_inter(ls, ld, MPI_DOUBLE, inter, is_source, &opt, &plan),
                "algorithm differs between the groups");
    if (rc != REDIST_ERR_MISMATCH)
        fail("algorithm differs between the groups", "rc %d", rc);
    rc =
        agreed(redist_plan_create_inter(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, is_source, NULL, &plan),
               "an intracommunicator");
    if (rc != REDIST_ERR_ARG)
        fail("an intracommunicator", "rc %d", rc);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
    redist_layout_free(&wide);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mtest_test_memory();
    for (int k = 1; k < size; k++) { /* source group: world ranks 0 .. k-1 */
        int is_source = world_rank < k;
        MPI_Comm group, inter;
        MPI_Comm_split(MPI_COMM_WORLD, is_source, world_rank, &group);
        MPI_Intercomm_create(group, 0, MPI_COMM_WORLD, is_source ? k : 0, 77, &inter);
        int gr, gs;
        MPI_Comm_rank(group, &gr);
        MPI_Comm_size(group, &gs);
        int p_src = k, p_dst = size - k;
        char label[96];
        snprintf(label, sizeof label, "%d -> %d ranks", p_src, p_dst);
        side s1 = {1, {1009, 1}, {7, 1}, {p_src, 1}, 0}, d1 = {1, {1009, 1}, {3, 1}, {p_dst, 1}, 1};
        run_pair(inter, is_source, gr, gs, &s1, &d1, label);
        /* a block distribution to cyclic(1), one destination rank holding nothing */
        int dg = p_dst > 1 ? p_dst - 1 : 1;
        side s2 = {1, {200, 1}, {(200 + p_src - 1) / p_src, 1}, {p_src, 1}, 1},
             d2 = {1, {200, 1}, {1, 1}, {dg, 1}, 0};
        run_pair(inter, is_source, gr, gs, &s2, &d2, label);
        /* 2-D: 1 x p_src -> p_dst x 1 grids */
        side s3 = {2, {37, 23}, {4, 3}, {1, p_src}, 0}, d3 = {2, {37, 23}, {5, 2}, {p_dst, 1}, 1};
        run_pair(inter, is_source, gr, gs, &s3, &d3, label);
        run_errors(inter, is_source, p_src, p_dst);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&group);
    }
    return mtest_finalize(errs);
}
