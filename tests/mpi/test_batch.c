/* threads: 3 1 4 */
/* device: 3 2 */
/* shared: 2 3 5 8 */
/* Batches (redist_plan_create_batch): several arrays, one message per peer pair, checked
 * element by element.
 *
 * Random batches of 1-4 arrays, each with its own 1-2-D layouts (random extents, blocks,
 * grids on random subsets of the ranks in random order, first coordinates, storage orders)
 * and element type (char, int, double, double complex), sometimes with an axis permutation
 * (2-D arrays, all of them) or scaling (then every array is double or double complex).
 * Each batch runs by redist_execute_batch and by redist_start_batch + redist_test; every
 * element of every destination must hold the formula's value (a rank holding nothing of an
 * array passes NULL for it). A third of the cases store the 2-D arrays padded, each rank
 * with its own ld (a window over the whole array), whose padding must stay untouched. The
 * batch sends at most one message to each peer: its messages_sent is the number of distinct
 * peers of the arrays' own plans, never more than their sum. Hostile calls: counts that differ
 * between ranks (REDIST_ERR_MISMATCH on every rank), a forced algorithm other than direct-async
 * (NOT_APPLICABLE), redist_execute on a batch plan (REDIST_ERR_ARG), a NULL destination where one
 * is needed (REDIST_ERR_ARG on every rank, no hang). REDIST_TEST_MEMORY=cuda or auto
 * (support/mdevice.h): the arrays in device memory (with auto, each array's source and destination
 * in device or host memory in turn, so that one batch mixes them). REDIST_TEST_SHARED=all or mixed
 * (support/mtest.h): the host arrays from redist_alloc, or a mix, so that pairs on the node copy
 * once.
 *
 * Options: --seed S, --cases C, --case K. */
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mdevice.h"
#include "support/mtest.h"

#define MAXA 4
#define MAXP 64

typedef struct {
    int ndims;
    int64_t n[2], block[2];
    int grid[2], first[2], ranks[MAXP], nprocs, order;
    int64_t pad; /* this rank's: 2-D local arrays stored with ld = fast extent + pad */
} side_t;

typedef struct {
    side_t src, dst;
    int type; /* 0 char, 1 int, 2 double, 3 double complex */
} array_t;

typedef struct {
    int count, permuted, scaled, padded;
    array_t a[MAXA];
} case_t;

static int me, nranks, errs, batches_run;
static uint64_t rng;
static const size_t type_size[4] = {1, 4, 8, 16};

static int64_t rnd(int64_t lo, int64_t hi)
{
    return mtest_rand(&rng, lo, hi);
}

static MPI_Datatype mpi_type(int t)
{
    return t == 0 ? MPI_CHAR : t == 1 ? MPI_INT : t == 2 ? MPI_DOUBLE : MPI_C_DOUBLE_COMPLEX;
}

/* The value of source element g in type t, as bytes (scaled: alpha = 2, beta = -1 on a
   destination that starts at 3 + 0i: 2 x - 3). */
static void value_of(int t, int64_t g, int scaled, unsigned char *out)
{
    switch (t) {
    case 0: {
        unsigned char c = (unsigned char)(g % 251);
        memcpy(out, &c, 1);
        break;
    }
    case 1: {
        int v = (int)(g % 1000003);
        memcpy(out, &v, 4);
        break;
    }
    case 2: {
        double v = scaled ? 2.0 * (double)g - 3.0 : (double)g;
        memcpy(out, &v, 8);
        break;
    }
    default: {
        double v[2] = {(double)g, -(double)g - 0.5};
        if (scaled) /* 2 (x) - 1 (3 + 0i) */
            v[0] = 2 * v[0] - 3, v[1] = 2 * v[1];
        memcpy(out, v, 16);
        break;
    }
    }
}

static int64_t local_shape(const side_t *s, int rank, int64_t shape[2], int coords[2])
{
    shape[0] = shape[1] = 0;
    if (!mtest_coords_of(s->ranks, s->nprocs, s->grid, s->ndims, rank, coords))
        return 0;
    int64_t n = 1;
    for (int k = 0; k < s->ndims; k++) {
        int64_t c = 0;
        for (int64_t g = 0; g < s->n[k]; g++)
            c += (g / s->block[k] + s->first[k]) % s->grid[k] == coords[k];
        shape[k] = c;
        n *= c;
    }
    return n;
}

/* The local extent along side s's fastest dimension in storage (2-D arrays; 0 otherwise:
   no padding then), and where local element i (in storage order) lies with the padding. */
static int64_t fast_extent(const side_t *s, const int64_t shape[2])
{
    return s->ndims == 2 ? shape[s->order == REDIST_ROW_MAJOR ? 1 : 0] : 0;
}

static int64_t stored_at(const side_t *s, const int64_t shape[2], int64_t i)
{
    int64_t f = fast_extent(s, shape);
    return f == 0 || s->pad == 0 ? i : i / f * (f + s->pad) + i % f;
}

/* Elements of this rank's storage of side s: its local elements with the padding. */
static int64_t stored_count(const side_t *s, int rank)
{
    int64_t shape[2];
    int coords[2];
    int64_t n = local_shape(s, rank, shape, coords);
    return n == 0 ? 0 : stored_at(s, shape, n - 1) + 1;
}

enum { PAD_BYTE = 0xEE }; /* the padding's bytes, which no plan may read into dst or write */

/* Fills (check = 0) or checks this rank's local array of side s of array a: element i holds
   the value of the source element it comes from, the padding PAD_BYTE. Returns the wrong
   ones (a destination's padding that changed counts as one). */
static int64_t walk(const case_t *cs, const array_t *a, const side_t *s, int is_dst,
                    unsigned char *buf, int check)
{
    int64_t shape[2], n;
    int coords[2];
    n = local_shape(s, me, shape, coords);
    size_t es = type_size[a->type];
    int64_t bad = 0, f = fast_extent(s, shape), total = stored_count(s, me);
    if (!check && total > 0)
        memset(buf, PAD_BYTE, (size_t)total * es);
    for (int64_t t = 0; check && s->pad > 0 && f > 0 && t < total; t++)
        if (t % (f + s->pad) >= f)
            for (size_t b = 0; b < es; b++)
                if (buf[t * (int64_t)es + (int64_t)b] != PAD_BYTE) {
                    bad++;
                    t = total, b = es; /* one is enough */
                }
    for (int64_t i = 0; i < n; i++) {
        int64_t h = mtest_global_linear(s->ndims, s->n, s->block, s->grid, s->first, s->order,
                                        shape, coords, i);
        int64_t g = h;
        unsigned char *at = buf + stored_at(s, shape, i) * (int64_t)es;
        if (is_dst && cs->permuted) { /* (h0, h1) of dst is (h1, h0) of src */
            int64_t h0 = h / s->n[1], h1 = h % s->n[1];
            g = h1 * a->src.n[1] + h0;
        }
        unsigned char want[16];
        value_of(a->type, g, is_dst && cs->scaled, want);
        if (!check) {
            if (is_dst) { /* the destination's start: 3 (scaled cases read it) */
                double three[2] = {3.0, 0.0};
                memcpy(at, three, es < 16 ? es : 16);
            } else {
                memcpy(at, want, es);
            }
        } else if (memcmp(at, want, es) != 0) {
            bad++;
        }
    }
    return bad;
}

/* Side s's layout, a window with an ld where this rank pads its storage (ranks differ). */
static redist_layout make_layout(const side_t *s)
{
    redist_layout l = NULL, w = NULL;
    redist_layout_create(s->ndims, s->n, s->block, s->grid, s->first, s->ranks, s->order, &l);
    int64_t shape[2], ld[2] = {0, 0};
    int coords[2];
    local_shape(s, me, shape, coords);
    if (l == NULL || s->ndims != 2 || s->pad == 0)
        return l;
    int fast = s->order == REDIST_ROW_MAJOR ? 1 : 0;
    ld[fast] = shape[fast] + s->pad;
    redist_layout_create_window(l, NULL, NULL, ld, &w);
    redist_layout_free(&l);
    return w;
}

static void random_side(side_t *s, int nd, const int64_t n[2])
{
    s->ndims = nd;
    s->nprocs = mtest_random_grid(&rng, nranks, MAXP, nd, s->ranks, s->grid);
    s->order = rnd(0, 1) ? REDIST_COL_MAJOR : REDIST_ROW_MAJOR;
    for (int k = 0; k < nd; k++) {
        s->n[k] = n[k];
        s->block[k] = rnd(1, 6);
        s->first[k] = (int)rnd(0, s->grid[k] - 1);
    }
}

static void gen_case(case_t *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->count = (int)rnd(1, MAXA);
    cs->permuted = rnd(0, 3) == 0;
    cs->scaled = rnd(0, 3) == 0;
    cs->padded = rnd(0, 2) == 0;
    for (int i = 0; i < cs->count; i++) {
        array_t *a = &cs->a[i];
        int nd = cs->permuted ? 2 : (int)rnd(1, 2);
        int64_t n[2] = {rnd(0, 8) == 0 ? 0 : rnd(1, nd == 1 ? 80 : 20), rnd(1, 20)}, nt[2];
        nt[0] = cs->permuted ? n[1] : n[0];
        nt[1] = cs->permuted ? n[0] : n[1];
        a->type = cs->scaled ? (int)rnd(2, 3) : (int)rnd(0, 3);
        random_side(&a->src, nd, n);
        random_side(&a->dst, nd, nt);
        if (cs->padded) { /* each rank its own ld: 0 to 2 elements of padding per line */
            a->src.pad = (me + 2 * i) % 3;
            a->dst.pad = (me + 2 * i + 1) % 3;
        }
    }
}

static void run_case(const case_t *cs, int index)
{
    redist_layout src[MAXA] = {NULL}, dst[MAXA] = {NULL};
    MPI_Datatype types[MAXA];
    unsigned char *sbuf[MAXA], *dbuf[MAXA];
    void *sdev[MAXA], *ddev[MAXA]; /* device twins (REDIST_TEST_MEMORY) */
    int64_t ns[MAXA], nd[MAXA], single_msgs = 0;
    for (int i = 0; i < cs->count; i++) {
        const array_t *a = &cs->a[i];
        src[i] = make_layout(&a->src);
        dst[i] = make_layout(&a->dst);
        types[i] = mpi_type(a->type);
        ns[i] = stored_count(&a->src, me);
        nd[i] = stored_count(&a->dst, me);
        /* node-shared with REDIST_TEST_SHARED: node pairs then copy once (a note per pair) */
        sbuf[i] = mtest_host_alloc((size_t)ns[i] * type_size[a->type], 2 * i);
        dbuf[i] = mtest_host_alloc((size_t)nd[i] * type_size[a->type], 2 * i + 1);
        sdev[i] = mtest_device_alloc((size_t)ns[i] * type_size[a->type]);
        ddev[i] = mtest_device_alloc((size_t)nd[i] * type_size[a->type]);
    }
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = mtest_test_memory();
    int perm[2] = {1, 0};
    opt.permutation = cs->permuted ? perm : NULL;
    if (cs->scaled) {
        opt.alpha[0] = 2.0;
        opt.beta[0] = -1.0;
    }
    /* The arrays' own plans: their messages, to compare. */
    for (int i = 0; i < cs->count; i++) {
        redist_plan one = NULL;
        redist_options o = opt;
        o.algorithm = "direct-async";
        o.transport = REDIST_TRANSPORT_PACK;
        o.shared_memory = 0;
        if (redist_plan_create(src[i], dst[i], types[i], MPI_COMM_WORLD, &o, &one) == 0) {
            redist_stats st;
            redist_plan_stats(one, &st);
            single_msgs += st.messages_sent;
        }
        redist_plan_free(&one);
    }
    redist_plan plan = NULL;
    int rc = redist_plan_create_batch(cs->count, src, dst, types, MPI_COMM_WORLD, &opt, &plan);
    if (rc != REDIST_SUCCESS) {
        mtest_fail(&errs, me, "batch", "case %d: %s (%s)", index, redist_strerror(rc),
                   redist_last_error_detail());
    } else {
        redist_stats st;
        redist_plan_stats(plan, &st);
        if (st.messages_sent > single_msgs || st.messages_sent > nranks - 1)
            mtest_fail(&errs, me, "batch", "case %d: %lld messages, the arrays' plans %lld", index,
                       (long long)st.messages_sent, (long long)single_msgs);
        for (int run = 0; run < 2; run++) {
            for (int i = 0; i < cs->count; i++) {
                walk(cs, &cs->a[i], &cs->a[i].src, 0, sbuf[i], 0);
                walk(cs, &cs->a[i], &cs->a[i].dst, 1, dbuf[i], 0);
            }
            const void *s[MAXA];
            void *d[MAXA];
            for (int i = 0; i < cs->count; i++) {
                size_t es = type_size[cs->a[i].type];
                s[i] = mtest_device_in(sbuf[i], sdev[i], (size_t)ns[i] * es,
                                       mtest_on_device(run + 2 * i, 0));
                d[i] = mtest_device_in(dbuf[i], ddev[i], (size_t)nd[i] * es,
                                       mtest_on_device(run + 2 * i, 1));
            }
            if (run == 0) {
                rc = redist_execute_batch(plan, s, d);
            } else {
                int done = 0;
                rc = redist_start_batch(plan, s, d);
                while (rc == REDIST_SUCCESS && !done)
                    rc = redist_test(plan, &done);
            }
            for (int i = 0; i < cs->count; i++)
                mtest_device_out(dbuf[i], ddev[i], (size_t)nd[i] * type_size[cs->a[i].type],
                                 mtest_on_device(run + 2 * i, 1));
            int64_t bad = rc != REDIST_SUCCESS;
            for (int i = 0; i < cs->count && rc == REDIST_SUCCESS; i++)
                bad += walk(cs, &cs->a[i], &cs->a[i].dst, 1, dbuf[i], 1);
            if (bad)
                mtest_fail(&errs, me, "batch", "case %d run %d: %s, %lld wrong", index, run,
                           redist_strerror(rc), (long long)bad);
        }
        batches_run++;
    }
    redist_plan_free(&plan);
    for (int i = 0; i < cs->count; i++) {
        redist_layout_free(&src[i]);
        redist_layout_free(&dst[i]);
        mtest_host_free(sbuf[i]);
        mtest_host_free(dbuf[i]);
        mtest_device_free(sdev[i]);
        mtest_device_free(ddev[i]);
    }
}

/* Wrong uses: the same code everywhere, nobody waits. */
static void hostile(void)
{
    int64_t n[1] = {40}, b[1] = {3};
    int g[1] = {nranks};
    redist_layout l[2] = {NULL, NULL};
    redist_layout_create(1, n, b, g, NULL, NULL, REDIST_ROW_MAJOR, &l[0]);
    redist_layout_create(1, n, b, g, NULL, NULL, REDIST_ROW_MAJOR, &l[1]);
    MPI_Datatype t[2] = {MPI_DOUBLE, MPI_DOUBLE};
    redist_plan p = NULL;
    int want = nranks > 1 ? REDIST_ERR_MISMATCH : REDIST_SUCCESS;
    int rc = redist_plan_create_batch(me == nranks - 1 ? 1 : 2, l, l, t, MPI_COMM_WORLD, NULL, &p);
    if (rc != want || !mtest_all_same(rc))
        mtest_fail(&errs, me, "hostile", "counts differ: %s", redist_strerror(rc));
    redist_plan_free(&p);
    redist_options o;
    redist_options_init(&o);
    o.algorithm = "direct";
    rc = redist_plan_create_batch(2, l, l, t, MPI_COMM_WORLD, &o, &p);
    if (rc != REDIST_ERR_NOT_APPLICABLE)
        mtest_fail(&errs, me, "hostile", "algorithm direct: %s", redist_strerror(rc));
    rc = redist_plan_create_batch(2, l, l, t, MPI_COMM_WORLD, NULL, &p);
    double a[40], c[40];
    if (rc == REDIST_SUCCESS && redist_execute(p, a, c) != REDIST_ERR_ARG)
        mtest_fail(&errs, me, "hostile", "redist_execute on a batch plan is not ARG");
    const void *s[2] = {a, a};
    void *d[2] = {c, me == 0 ? NULL : c}; /* rank 0 holds elements of array 1: NULL is wrong */
    rc = rc == REDIST_SUCCESS ? redist_execute_batch(p, s, d) : rc;
    if (rc != REDIST_ERR_ARG || !mtest_all_same(rc))
        mtest_fail(&errs, me, "hostile", "a NULL destination: %s", redist_strerror(rc));
    redist_plan_free(&p);
    redist_layout_free(&l[0]);
    redist_layout_free(&l[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    uint64_t seed = 20261123u;
    int cases = 80, only = -1;
    mtest_case_args(argc, argv, &seed, &cases, &only);
    mtest_test_memory();
    for (int i = 0; i < cases; i++) {
        rng = seed * 2654435761u + (uint64_t)i * 40503u + 11;
        case_t cs;
        gen_case(&cs);
        if (only < 0 || only == i)
            run_case(&cs, i);
    }
    if (only < 0)
        hostile();
    if (me == 0)
        printf("%d batches run over %d cases\n", batches_run, cases);
    return mtest_finalize(errs);
}
