/* options.memory = REDIST_MEMORY_AUTO and the ranks' device backends (docs/api.md, "Device
 * memory"). With more than one rank, rank 0 loads the emulated device
 * (REDIST_DEVICE_BACKEND=emulated, set before the library first looks) and the others none
 * (where a CUDA driver loads on them, part 1 is skipped, saying so).
 *
 *  1. Where no rank loads a backend (every rank at 1 rank; ranks 1.. otherwise, on a split
 *     communicator), an AUTO plan is the HOST plan: for auto and every forced algorithm, with
 *     the automatic and the datatype transport, the same code, algorithm and statistics (the
 *     prediction to the bit); batches and BMMC plans alike; AUTO with the datatype transport
 *     moves every element; redist_explain's JSON is HOST's, byte for byte.
 *  2. Where only rank 0 loads one, every rank makes the device plan (the ranks choose
 *     alike): the same algorithm and prediction on every rank, alltoallw NOT_APPLICABLE and
 *     the datatype transport REDIST_ERR_ARG on every rank; indirect and hybrid on their lcm
 *     route (their phases are plans of their own) move every element with rank 0's arrays
 *     in device memory and the others' in host memory. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

/* The same code on every rank of comm, and the one expected. */
static void same_on(MPI_Comm comm, const char *what, int rc, int want)
{
    int lo = rc, hi = rc;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm);
    if (lo != hi || rc != want)
        fail(what, "returned %s (%s; min %d, max %d over ranks), expected %s",
             redist_error_name(rc), redist_last_error_detail(), lo, hi, redist_error_name(want));
}

/* The pairs: 200 x 200 doubles, 10 x 10 blocks on a P x 1 grid -> 7 x 7 blocks on 1 x P; an
   8 x 6 array, 1 x 1 -> 2 x 3 blocks (the grids likewise); 1-D n = 1009, cyclic(4) ->
   cyclic(6) (the lcm route of indirect and hybrid at 3 ranks or more). */
enum { NPAIRS = 3 };
static void make_pair(int which, int p, redist_layout *s, redist_layout *d)
{
    if (which == 2) {
        int64_t n[1] = {1009}, b1[1] = {4}, b2[1] = {6};
        int g[1] = {p};
        redist_layout_create(1, n, b1, g, NULL, NULL, REDIST_ROW_MAJOR, s);
        redist_layout_create(1, n, b2, g, NULL, NULL, REDIST_ROW_MAJOR, d);
        return;
    }
    int64_t n[2][2] = {{200, 200}, {8, 6}}, b1[2][2] = {{10, 10}, {1, 1}},
            b2[2][2] = {{7, 7}, {2, 3}};
    int g1[2] = {p, 1}, g2[2] = {1, p};
    redist_layout_create(2, n[which], b1[which], g1, NULL, NULL, REDIST_ROW_MAJOR, s);
    redist_layout_create(2, n[which], b2[which], g2, NULL, NULL, REDIST_ROW_MAJOR, d);
}

static int same_stats(const redist_stats *a, const redist_stats *b)
{
    return a->steps == b->steps && a->messages_sent == b->messages_sent &&
           a->bytes_sent == b->bytes_sent && a->predicted_seconds == b->predicted_seconds &&
           a->messages_received == b->messages_received && a->bytes_received == b->bytes_received &&
           a->bytes_copied == b->bytes_copied &&
           a->max_messages_per_rank == b->max_messages_per_rank &&
           a->max_bytes_per_rank == b->max_bytes_per_rank &&
           a->runs_per_period == b->runs_per_period && a->transport == b->transport &&
           a->shared_memory == b->shared_memory && a->bounded == b->bounded &&
           a->buffer_bytes == b->buffer_bytes;
}

/* HOST's plan and AUTO's, alike in everything (stats compared on the ranks that made both). */
static void compare_plans(const char *what, int rc_host, redist_plan host, int rc_auto,
                          redist_plan autop, MPI_Comm comm)
{
    same_on(comm, what, rc_auto, rc_host);
    if (rc_host != REDIST_SUCCESS || rc_auto != REDIST_SUCCESS)
        return;
    redist_stats sh, sa;
    redist_plan_stats(host, &sh);
    redist_plan_stats(autop, &sa);
    if (strcmp(redist_plan_algorithm(host), redist_plan_algorithm(autop)) != 0)
        fail(what, "AUTO chose %s, HOST %s", redist_plan_algorithm(autop),
             redist_plan_algorithm(host));
    if (!same_stats(&sh, &sa))
        fail(what,
             "AUTO's statistics differ from HOST's (predicted %g s against %g s, transport %d "
             "against %d)",
             sa.predicted_seconds, sh.predicted_seconds, sa.transport, sh.transport);
}

static int create(int which, MPI_Comm comm, int memory, const char *algorithm, int transport,
                  redist_plan *plan)
{
    int p = 0;
    MPI_Comm_size(comm, &p);
    redist_layout s, d;
    make_pair(which, p, &s, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = memory;
    opt.algorithm = algorithm;
    opt.transport = transport;
    int rc = redist_plan_create(s, d, MPI_DOUBLE, comm, &opt, plan);
    redist_layout_free(&s);
    redist_layout_free(&d);
    return rc;
}

/* Every algorithm (auto first) with both transports. */
static void plans_alike(int which, MPI_Comm comm)
{
    for (int i = -1; i < redist_algorithm_count(); i++) {
        const char *name = i < 0 ? "auto" : redist_algorithm_name(i);
        for (int t = 0; t < 2; t++) {
            int transport = t ? REDIST_TRANSPORT_DATATYPE : REDIST_TRANSPORT_AUTO;
            redist_plan host = NULL, autop = NULL;
            int rc_host = create(which, comm, REDIST_MEMORY_HOST, name, transport, &host);
            int rc_auto = create(which, comm, REDIST_MEMORY_AUTO, name, transport, &autop);
            char what[128];
            snprintf(what, sizeof what, "pair %d, %s, %s transport: AUTO as HOST", which, name,
                     t ? "datatype" : "automatic");
            compare_plans(what, rc_host, host, rc_auto, autop, comm);
            redist_plan_free(&host);
            redist_plan_free(&autop);
        }
    }
}

static void explain_alike(int which, int p)
{
    redist_layout s, d;
    make_pair(which, p, &s, &d);
    char host[1 << 15], autob[1 << 15];
    for (int t = 0; t < 2; t++) {
        redist_options opt;
        redist_options_init(&opt);
        opt.transport = t ? REDIST_TRANSPORT_DATATYPE : REDIST_TRANSPORT_AUTO;
        int rc_host = redist_explain(s, d, p, sizeof(double), &opt, host, sizeof host, NULL);
        opt.memory = REDIST_MEMORY_AUTO;
        int rc_auto = redist_explain(s, d, p, sizeof(double), &opt, autob, sizeof autob, NULL);
        if (rc_host != rc_auto || (rc_host == REDIST_SUCCESS && strcmp(host, autob) != 0))
            fail("redist_explain: AUTO as HOST", "pair %d, %s transport: %s against %s", which,
                 t ? "datatype" : "automatic", rc_auto == REDIST_SUCCESS ? autob : "(failed)",
                 rc_host == REDIST_SUCCESS ? host : "(failed)");
    }
    redist_layout_free(&s);
    redist_layout_free(&d);
}

static void batch_alike(MPI_Comm comm)
{
    int p = 0;
    MPI_Comm_size(comm, &p);
    redist_layout s, d;
    make_pair(0, p, &s, &d);
    redist_plan host = NULL, autop = NULL;
    redist_options opt;
    redist_options_init(&opt);
    MPI_Datatype types[1] = {MPI_DOUBLE};
    int rc_host = redist_plan_create_batch(1, &s, &d, types, comm, &opt, &host);
    opt.memory = REDIST_MEMORY_AUTO;
    int rc_auto = redist_plan_create_batch(1, &s, &d, types, comm, &opt, &autop);
    compare_plans("a batch: AUTO as HOST", rc_host, host, rc_auto, autop, comm);
    redist_plan_free(&host);
    redist_plan_free(&autop);
    redist_layout_free(&s);
    redist_layout_free(&d);
}

static void bmmc_alike(MPI_Comm comm)
{
    int p = 0, lg = 0;
    MPI_Comm_size(comm, &p);
    if (p & (p - 1))
        return; /* BMMC needs 2^k ranks */
    while ((1 << lg) < p)
        lg++;
    uint64_t cols[64];
    redist_bmmc_bit_reversal(lg + 3, cols);
    redist_options opt;
    redist_options_init(&opt);
    redist_plan host = NULL, autop = NULL;
    int rc_host = redist_plan_create_bmmc(lg + 3, 1, cols, 0, MPI_DOUBLE, comm, &opt, &host);
    opt.memory = REDIST_MEMORY_AUTO;
    int rc_auto = redist_plan_create_bmmc(lg + 3, 1, cols, 0, MPI_DOUBLE, comm, &opt, &autop);
    compare_plans("a BMMC plan: AUTO as HOST", rc_host, host, rc_auto, autop, comm);
    redist_plan_free(&host);
    redist_plan_free(&autop);
}

/* Pair 2 (1-D cyclic(4) -> cyclic(6) over comm) executed by plan, every element checked;
   on_device: this rank's arrays in the backend's memory. */
static void run_1d(const char *what, redist_plan plan, MPI_Comm comm, redist__device *dev,
                   int on_device)
{
    int p = 0, r = 0;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &r);
    int64_t ns = 0, nd = 0;
    redist_layout s, d;
    make_pair(2, p, &s, &d);
    redist_layout_local_size(s, r, &ns);
    redist_layout_local_size(d, r, &nd);
    redist_layout_free(&s);
    redist_layout_free(&d);
    double *src = malloc((size_t)(ns + 1) * sizeof *src),
           *dst = malloc((size_t)(nd + 1) * sizeof *dst);
    for (int64_t l = 0; l < ns; l++)
        src[l] = (double)mtest_global_of(l, 4, p, 0, r);
    for (int64_t l = 0; l < nd; l++)
        dst[l] = -1;
    void *sp = src, *dp = dst;
    if (on_device) {
        redist__device_alloc(dev, (size_t)(ns + 1) * sizeof(double), &sp);
        redist__device_alloc(dev, (size_t)(nd + 1) * sizeof(double), &dp);
        redist__device_from_host(dev, sp, src, (size_t)ns * sizeof(double), NULL);
        redist__device_from_host(dev, dp, dst, (size_t)nd * sizeof(double), NULL);
        redist__device_sync(dev, NULL);
    }
    same_on(comm, what, redist_execute(plan, ns ? sp : NULL, nd ? dp : NULL), REDIST_SUCCESS);
    if (on_device) {
        redist__device_to_host(dev, dst, dp, (size_t)nd * sizeof(double), NULL);
        redist__device_sync(dev, NULL);
        redist__device_free(dev, sp);
        redist__device_free(dev, dp);
    }
    for (int64_t l = 0; l < nd; l++)
        if (dst[l] != (double)mtest_global_of(l, 6, p, 0, r)) {
            fail(what, "dst[%lld] = %g, expected %lld", (long long)l, dst[l],
                 (long long)mtest_global_of(l, 6, p, 0, r));
            break;
        }
    free(src);
    free(dst);
}

/* Part 1 on comm, whose ranks load no backend. */
static void without_devices(MPI_Comm comm)
{
    int p = 0;
    MPI_Comm_size(comm, &p);
    for (int which = 0; which < NPAIRS; which++) {
        plans_alike(which, comm);
        explain_alike(which, p);
    }
    batch_alike(comm);
    bmmc_alike(comm);
    redist_plan plan = NULL;
    int rc = create(2, comm, REDIST_MEMORY_AUTO, "direct-async", REDIST_TRANSPORT_DATATYPE, &plan);
    same_on(comm, "AUTO with the datatype transport", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS)
        run_1d("AUTO with the datatype transport", plan, comm, NULL, 0);
    redist_plan_free(&plan);
}

/* Part 2 on MPI_COMM_WORLD: dev is rank 0's backend (NULL elsewhere). */
static void one_device(redist__device *dev)
{
    MPI_Comm w = MPI_COMM_WORLD;
    redist_plan plan = NULL;
    int rc = create(0, w, REDIST_MEMORY_AUTO, "auto", REDIST_TRANSPORT_AUTO, &plan);
    same_on(w, "AUTO, one rank with a device", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS) {
        char name[64] = {0};
        snprintf(name, sizeof name, "%s", redist_plan_algorithm(plan));
        char root[64];
        memcpy(root, name, sizeof root);
        MPI_Bcast(root, sizeof root, MPI_CHAR, 0, w);
        redist_stats st;
        redist_plan_stats(plan, &st);
        double lo = st.predicted_seconds, hi = st.predicted_seconds;
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, w);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, w);
        if (!mtest_all_same(strcmp(root, name) != 0) || strcmp(root, name) != 0 || lo != hi)
            fail("AUTO, one rank with a device",
                 "ranks differ: %s against rank 0's %s, "
                 "predicted %g .. %g s",
                 name, root, lo, hi);
    }
    redist_plan_free(&plan);
    rc = create(0, w, REDIST_MEMORY_AUTO, "alltoallw", REDIST_TRANSPORT_AUTO, &plan);
    same_on(w, "AUTO alltoallw, one rank with a device", rc, REDIST_ERR_NOT_APPLICABLE);
    redist_plan_free(&plan);
    rc = create(0, w, REDIST_MEMORY_AUTO, "auto", REDIST_TRANSPORT_DATATYPE, &plan);
    same_on(w, "AUTO with the datatype transport, one rank with a device", rc, REDIST_ERR_ARG);
    redist_plan_free(&plan);
    const char *routed[] = {"indirect", "hybrid"};
    for (int i = 0; i < 2; i++) {
        char what[96];
        snprintf(what, sizeof what, "AUTO %s, one rank with a device", routed[i]);
        rc = create(2, w, REDIST_MEMORY_AUTO, routed[i], REDIST_TRANSPORT_AUTO, &plan);
        same_on(w, what, rc, REDIST_SUCCESS);
        if (rc == REDIST_SUCCESS)
            run_1d(what, plan, w, dev, dev != NULL);
        redist_plan_free(&plan);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1 && rank == 0)
        setenv("REDIST_DEVICE_BACKEND", "emulated", 1);
    else
        unsetenv("REDIST_DEVICE_BACKEND"); /* the machine's own: CUDA's driver, if any */
    redist__device *dev = NULL;
    int have = redist__device_get(&dev) == REDIST_SUCCESS;
    MPI_Comm others = MPI_COMM_WORLD; /* the ranks without the emulated device */
    if (size > 1)
        MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, rank, &others);
    if (others != MPI_COMM_NULL) {
        int any = have;
        MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, others);
        if (!any)
            without_devices(others);
        else if (rank == size - 1)
            printf("test_memory_auto: a device backend loads without REDIST_DEVICE_BACKEND "
                   "(a CUDA driver): part 1 skipped\n");
        if (others != MPI_COMM_WORLD)
            MPI_Comm_free(&others);
    }
    if (size > 1)
        one_device(rank == 0 ? dev : NULL);
    return mtest_finalize(errs);
}
