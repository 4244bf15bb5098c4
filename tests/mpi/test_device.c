/* Device memory's rules (docs/api.md, "Device memory"), on whatever backend this
 * process has: make check runs it three times, with REDIST_DEVICE_BACKEND=emulated, unset
 * (the CUDA driver: none on CI, so every CUDA plan is refused) and =bogus.
 *
 *  1. options.memory outside 0 .. 2, and device memory with the datatype transport (CUDA;
 *     AUTO where a backend loads, else a host plan): REDIST_ERR_ARG on every rank.
 *  2. Ranks that disagree on memory: REDIST_ERR_MISMATCH on every rank.
 *  3. Without a backend: a CUDA plan is REDIST_ERR_UNSUPPORTED (or REDIST_ERR_ARG for a bogus
 *     REDIST_DEVICE_BACKEND) on every rank, with the reason; an AUTO plan runs on host
 *     arrays, every element checked.
 *  4. With one: a forced algorithm that cannot move device memory is NOT_APPLICABLE and says
 *     why; BMMC plans are UNSUPPORTED; a batch of device arrays runs, and given a host array
 *     fails its execute with REDIST_ERR_ARG on every rank; a CUDA plan given a host array fails its
 *     execute with REDIST_ERR_ARG on every rank and then runs on device arrays, every element
 *     checked; an AUTO plan runs every mix of host and device arrays; device arrays at any
 *     byte address (an 8-byte type at odd addresses, doubles scaled 4 bytes off alignment);
 *     indirect and hybrid on their lcm route (two phases, a middle array) with device
 *     arrays and every mix of host and device arrays.
 * The random cases with device memory are those of test_random_layouts, test_batch and
 * test_inter (REDIST_TEST_MEMORY). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;
static redist__device *dev; /* NULL: no backend in this process */

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

static void same_everywhere(const char *what, int rc, int want)
{
    int lo = rc, hi = rc;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi || rc != want)
        fail(what, "returned %d (%s; min %d, max %d over ranks), expected %s", rc,
             redist_error_name(rc), lo, hi, redist_error_name(want));
}

/* A 2-D pair: 30 x 17 doubles, 3 x 4 blocks on a 1 x P grid -> 5 x 2 blocks on P x 1. */
static void pair(redist_layout *s, redist_layout *d)
{
    int64_t n[2] = {30, 17}, b1[2] = {3, 4}, b2[2] = {5, 2};
    int g1[2] = {1, size}, g2[2] = {size, 1};
    redist_layout_create(2, n, b1, g1, NULL, NULL, REDIST_ROW_MAJOR, s);
    redist_layout_create(2, n, b2, g2, NULL, NULL, REDIST_COL_MAJOR, d);
}

static int create(int memory, const char *algorithm, redist_plan *plan)
{
    redist_layout s, d;
    pair(&s, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = memory;
    opt.algorithm = algorithm;
    int rc = redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &opt, plan);
    redist_layout_free(&s);
    redist_layout_free(&d);
    return rc;
}

/* A batch of the pair alone (its layouts made and freed here too, for ns/nd: *ns, *nd). */
static int create_batch(int memory, redist_plan *plan, int64_t *ns, int64_t *nd)
{
    redist_layout s, d;
    pair(&s, &d);
    redist_layout_local_size(s, rank, ns);
    redist_layout_local_size(d, rank, nd);
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = memory;
    redist_layout srcs[1] = {s}, dsts[1] = {d};
    MPI_Datatype types[1] = {MPI_DOUBLE};
    int rc = redist_plan_create_batch(1, srcs, dsts, types, MPI_COMM_WORLD, &opt, plan);
    redist_layout_free(&s);
    redist_layout_free(&d);
    return rc;
}

/* The local array's values: the global row-major index of each element (mtest's oracle). */
static int64_t local_globals(int which, double *vals)
{
    int64_t n[2] = {30, 17}, b1[2] = {3, 4}, b2[2] = {5, 2}, shape[2];
    int g1[2] = {1, size}, g2[2] = {size, 1}, coords[2] = {which ? rank : 0, which ? 0 : rank};
    const int64_t *b = which ? b2 : b1;
    const int *g = which ? g2 : g1;
    int order = which ? REDIST_COL_MAJOR : REDIST_ROW_MAJOR;
    redist_layout s, d;
    pair(&s, &d);
    redist_layout_local_shape(which ? d : s, rank, shape); /* the layout test checks these */
    redist_layout_free(&s);
    redist_layout_free(&d);
    int64_t count = shape[0] * shape[1];
    for (int64_t i = 0; i < count; i++)
        vals[i] = (double)mtest_global_linear(2, n, b, g, NULL, order, shape, coords, i);
    return count;
}

/* Runs plan once with the arrays on the device or not, each device array `offset` bytes past
   an allocation's start (misaligned for offsets that are not multiples of 8); checks every
   destination element against factor times the source's (a plan scaling by alpha). */
static void run_at(const char *what, redist_plan plan, int src_dev, int dst_dev, size_t offset,
                   double factor)
{
    double *src = malloc(30 * 17 * sizeof *src), *want = malloc(30 * 17 * sizeof *want);
    double *got = malloc(30 * 17 * sizeof *got);
    int64_t ns = local_globals(0, src), nd = local_globals(1, want);
    void *sp = src, *dp = got, *sdev = NULL, *ddev = NULL;
    for (int64_t i = 0; i < nd; i++)
        got[i] = -1;
    if (src_dev) {
        redist__device_alloc(dev, (size_t)(ns + 2) * sizeof(double), &sdev);
        sp = (char *)sdev + offset;
        redist__device_from_host(dev, sp, src, (size_t)ns * sizeof(double), NULL);
        redist__device_sync(dev, NULL);
    }
    if (dst_dev) {
        redist__device_alloc(dev, (size_t)(nd + 2) * sizeof(double), &ddev);
        dp = (char *)ddev + offset;
        redist__device_from_host(dev, dp, got, (size_t)nd * sizeof(double), NULL);
        redist__device_sync(dev, NULL);
    }
    uint64_t pageable = redist__device_emulated_pageable_copies(); /* 0 on other backends */
    same_everywhere(what, redist_execute(plan, ns ? sp : NULL, nd ? dp : NULL), REDIST_SUCCESS);
    /* every copy the plan makes between host and device goes through pinned memory: its
       own buffers, the shared-memory window's segments (its own and its peers'), the
       staging buffer (a GPU runs a copy from pageable memory synchronously, at a fraction of
       the link's rate: device/floor was 3 to 6 on an H200 until the window was pinned) */
    if (redist__device_emulated_pageable_copies() != pageable)
        fail(what, "%llu copies between the device and pageable host memory",
             (unsigned long long)(redist__device_emulated_pageable_copies() - pageable));
    if (dst_dev) {
        redist__device_to_host(dev, got, dp, (size_t)nd * sizeof(double), NULL);
        redist__device_sync(dev, NULL);
    }
    for (int64_t i = 0; i < nd; i++)
        if (got[i] != factor * want[i]) {
            fail(what, "dst[%lld] = %g, expected %g", (long long)i, got[i], factor * want[i]);
            break;
        }
    if (dev != NULL) {
        redist__device_free(dev, sdev);
        redist__device_free(dev, ddev);
    }
    free(src);
    free(want);
    free(got);
}

static void run_checked(const char *what, redist_plan plan, int src_dev, int dst_dev)
{
    run_at(what, plan, src_dev, dst_dev, 0, 1.0);
}

/* Device arrays at any byte address: an 8-byte MPI type moved, and doubles scaled, from
   and to arrays 1 and 4 bytes past 8-byte alignment (a GPU kernel's word access there would
   fail: the kernels fall back to bytes). */
static void misaligned(void)
{
    MPI_Datatype bytes8;
    MPI_Type_contiguous(8, MPI_BYTE, &bytes8);
    MPI_Type_commit(&bytes8);
    redist_layout s, d;
    pair(&s, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = REDIST_MEMORY_CUDA;
    redist_plan plan = NULL;
    int rc = redist_plan_create(s, d, bytes8, MPI_COMM_WORLD, &opt, &plan);
    same_everywhere("8 bytes at odd addresses", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS)
        run_at("8 bytes at odd addresses", plan, 1, 1, 1, 1.0);
    redist_plan_free(&plan);
    opt.alpha[0] = 2.0;
    rc = redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    same_everywhere("doubles scaled at addresses 4 past alignment", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS)
        run_at("doubles scaled at addresses 4 past alignment", plan, 1, 1, 4, 2.0);
    redist_plan_free(&plan);
    MPI_Type_free(&bytes8);
    redist_layout_free(&s);
    redist_layout_free(&d);
}

/* The lcm route of indirect and hybrid ([LBP96]: cyclic(x) -> cyclic(lcm) -> cyclic(y) when
   x and y are no multiple of each other and x/g, y/g <= P; here 4 and 6 on 3 or more ranks),
   whose two phases are plans of their own with a middle array: a device plan's phases are
   device plans and its middle array is device memory. Every element checked, on the device
   (CUDA) and for every mix of host and device arrays (AUTO). */
static void lcm_route(void)
{
    int64_t n[1] = {1009}, bx[1] = {4}, by[1] = {6}, count[2] = {0, 0};
    int g[1] = {size}, coords[1] = {rank};
    redist_layout s, d;
    redist_layout_create(1, n, bx, g, NULL, NULL, REDIST_ROW_MAJOR, &s);
    redist_layout_create(1, n, by, g, NULL, NULL, REDIST_ROW_MAJOR, &d);
    redist_layout_local_size(s, rank, &count[0]);
    redist_layout_local_size(d, rank, &count[1]);
    double *host[2], *want = malloc((size_t)(count[1] + 1) * sizeof *want);
    void *on_dev[2];
    for (int k = 0; k < 2; k++) {
        host[k] = malloc((size_t)(count[k] + 1) * sizeof(double));
        redist__device_alloc(dev, (size_t)(count[k] + 1) * sizeof(double), &on_dev[k]);
    }
    for (int64_t i = 0; i < count[0]; i++)
        host[0][i] =
            (double)mtest_global_linear(1, n, bx, g, NULL, REDIST_ROW_MAJOR, &count[0], coords, i);
    for (int64_t i = 0; i < count[1]; i++)
        want[i] =
            (double)mtest_global_linear(1, n, by, g, NULL, REDIST_ROW_MAJOR, &count[1], coords, i);
    const char *algs[] = {"indirect", "hybrid"};
    for (int a = 0; a < 2; a++)
        for (int mix = 3; mix < 7; mix++) { /* 3: CUDA; 4..6: AUTO with a host array */
            int src_dev = mix == 3 || mix == 5, dst_dev = mix == 3 || mix == 6;
            redist_options opt;
            redist_options_init(&opt);
            opt.memory = mix == 3 ? REDIST_MEMORY_CUDA : REDIST_MEMORY_AUTO;
            opt.algorithm = algs[a];
            char what[96];
            snprintf(what, sizeof what, "%s on the lcm route, src on the %s, dst on the %s",
                     algs[a], src_dev ? "device" : "host", dst_dev ? "device" : "host");
            redist_plan plan = NULL;
            int rc = redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
            same_everywhere(what, rc, REDIST_SUCCESS);
            if (rc != REDIST_SUCCESS)
                continue;
            redist__device_from_host(dev, on_dev[0], host[0], (size_t)count[0] * sizeof(double),
                                     NULL);
            redist__device_sync(dev, NULL);
            for (int64_t i = 0; i < count[1]; i++)
                host[1][i] = -1;
            void *sp = src_dev ? on_dev[0] : host[0], *dp = dst_dev ? on_dev[1] : host[1];
            same_everywhere(what, redist_execute(plan, count[0] ? sp : NULL, count[1] ? dp : NULL),
                            REDIST_SUCCESS);
            if (dst_dev) {
                redist__device_to_host(dev, host[1], dp, (size_t)count[1] * sizeof(double), NULL);
                redist__device_sync(dev, NULL);
            }
            for (int64_t i = 0; i < count[1]; i++)
                if (host[1][i] != want[i]) {
                    fail(what, "dst[%lld] = %g, expected %g", (long long)i, host[1][i], want[i]);
                    break;
                }
            redist_plan_free(&plan);
        }
    for (int k = 0; k < 2; k++) {
        free(host[k]);
        redist__device_free(dev, on_dev[k]);
    }
    free(want);
    redist_layout_free(&s);
    redist_layout_free(&d);
}

static void options_rules(void)
{
    redist_plan plan = NULL;
    int bad[] = {-1, 3, 1000};
    for (int i = 0; i < 3; i++)
        same_everywhere("memory out of range", create(bad[i], NULL, &plan), REDIST_ERR_ARG);
    redist_layout s, d;
    pair(&s, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = REDIST_MEMORY_CUDA;
    opt.transport = REDIST_TRANSPORT_DATATYPE;
    same_everywhere("CUDA memory with the datatype transport",
                    redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan),
                    REDIST_ERR_ARG);
    /* AUTO is host memory where no backend loads: the datatype transport is then allowed */
    opt.memory = REDIST_MEMORY_AUTO;
    same_everywhere("AUTO memory with the datatype transport",
                    redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan),
                    dev != NULL ? REDIST_ERR_ARG : REDIST_SUCCESS);
    if (plan != NULL)
        redist_plan_free(&plan);
    opt.transport = REDIST_TRANSPORT_AUTO;
    opt.memory = rank == size - 1 ? REDIST_MEMORY_AUTO : REDIST_MEMORY_HOST;
    int rc = redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    same_everywhere("memory differing between ranks", rc,
                    size > 1 ? REDIST_ERR_MISMATCH : REDIST_SUCCESS);
    if (plan != NULL)
        redist_plan_free(&plan);
    redist_layout_free(&s);
    redist_layout_free(&d);
}

static void without_backend(const char *backend)
{
    redist_plan plan = NULL;
    int bogus = backend != NULL && strcmp(backend, "bogus") == 0;
    int rc = create(REDIST_MEMORY_CUDA, NULL, &plan);
    same_everywhere("a CUDA plan without a backend", rc,
                    bogus ? REDIST_ERR_ARG : REDIST_ERR_UNSUPPORTED);
    const char *why = redist_last_error_detail();
    if (strstr(why, bogus ? "REDIST_DEVICE_BACKEND" : "CUDA") == NULL)
        fail("a CUDA plan without a backend", "the detail does not say why: \"%s\"", why);
    if (plan != NULL)
        fail("a CUDA plan without a backend", "the plan handle was set");
    int64_t ns = 0, nd = 0;
    same_everywhere("a CUDA batch without a backend",
                    create_batch(REDIST_MEMORY_CUDA, &plan, &ns, &nd),
                    bogus ? REDIST_ERR_ARG : REDIST_ERR_UNSUPPORTED);
    if (bogus)
        return; /* AUTO reads the variable too: a bogus one is no request for host memory */
    rc = create(REDIST_MEMORY_AUTO, NULL, &plan);
    same_everywhere("an AUTO plan without a backend", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS) {
        run_checked("an AUTO plan without a backend, host arrays", plan, 0, 0);
        redist_plan_free(&plan);
    }
}

static void with_backend(void)
{
    redist_plan plan = NULL;
    const char *refused[] = {"alltoallw", "general"}; /* both apply to every host pair */
    for (int i = 0; i < 2; i++) {
        int rc = create(REDIST_MEMORY_CUDA, refused[i], &plan);
        same_everywhere(refused[i], rc, REDIST_ERR_NOT_APPLICABLE);
        if (strstr(redist_last_error_detail(), "device memory") == NULL)
            fail(refused[i], "the detail does not say why: \"%s\"", redist_last_error_detail());
    }
    int64_t ns = 0, nd = 0;
    int rc = create_batch(REDIST_MEMORY_CUDA, &plan, &ns, &nd);
    same_everywhere("a batch of device arrays", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS) { /* a host source where device memory was promised */
        double *host = calloc((size_t)ns + 1, sizeof *host);
        void *ddst = NULL;
        redist__device_alloc(dev, (size_t)(nd + 1) * sizeof(double), &ddst);
        const void *bs[1] = {ns ? host : NULL};
        void *bd[1] = {nd ? ddst : NULL};
        same_everywhere("a host source in a CUDA batch", redist_execute_batch(plan, bs, bd),
                        size > 1 || ns > 0 ? REDIST_ERR_ARG : REDIST_SUCCESS);
        redist__device_free(dev, ddst);
        free(host);
        redist_plan_free(&plan);
    }
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = REDIST_MEMORY_CUDA;
    uint64_t cols[64];
    int n = redist__ceil_log2(size) + 3;
    redist_bmmc_bit_reversal(n, cols);
    same_everywhere("a BMMC plan of device arrays",
                    redist_plan_create_bmmc(n, 1, cols, 0, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan),
                    size & (size - 1) ? REDIST_ERR_ARG /* BMMC needs 2^k ranks, first */
                                      : REDIST_ERR_UNSUPPORTED);

    redist_layout d;
    const char *algs[] = {"auto", "direct-async", "direct", "alltoallv", "indirect"};
    for (int i = 0; i < 5; i++) {
        rc = create(REDIST_MEMORY_CUDA, algs[i], &plan);
        same_everywhere(algs[i], rc, REDIST_SUCCESS);
        if (rc != REDIST_SUCCESS)
            continue;
        /* a host array where device memory was promised: every rank that holds elements
           passes host memory, so every rank learns it */
        int64_t count = 0;
        redist_layout l;
        pair(&l, &d);
        redist_layout_local_size(l, rank, &count);
        redist_layout_free(&l);
        redist_layout_free(&d);
        double *host = calloc((size_t)count + 1, sizeof *host);
        void *ddst = NULL;
        redist__device_alloc(dev, 30 * 17 * sizeof(double), &ddst);
        same_everywhere("a host source in a CUDA plan",
                        redist_execute(plan, count ? host : NULL, ddst), REDIST_ERR_ARG);
        redist__device_free(dev, ddst);
        free(host);
        run_checked(algs[i], plan, 1, 1);
        redist_plan_free(&plan);
    }
    rc = create(REDIST_MEMORY_AUTO, NULL, &plan);
    same_everywhere("an AUTO plan", rc, REDIST_SUCCESS);
    for (int mix = 0; rc == REDIST_SUCCESS && mix < 4; mix++) {
        char what[64];
        snprintf(what, sizeof what, "AUTO, src on the %s, dst on the %s",
                 mix & 1 ? "device" : "host", mix & 2 ? "device" : "host");
        run_checked(what, plan, mix & 1, (mix >> 1) & 1);
    }
    if (plan != NULL)
        redist_plan_free(&plan);
    misaligned();
    lcm_route();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *backend = getenv("REDIST_DEVICE_BACKEND");
    int have = redist__device_get(&dev) == REDIST_SUCCESS;
    if (rank == 0)
        printf("test_device: backend %s: %s\n", backend ? backend : "(default: cuda)",
               have ? "loaded" : redist_last_error_detail());
    options_rules();
    if (have)
        with_backend();
    else
        without_backend(backend);
    return mtest_finalize(errs);
}
