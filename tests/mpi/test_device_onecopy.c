/* One copy between device arrays on a node (src/exec/onecopy_device.c), on the emulated
 * device (REDIST_DEVICE_BACKEND=cuda on a GPU: tests/gpu/run.sh): a device plan's on-node
 * messages are pulled by the receiver's kernel straight from the sender's device src
 * (inter-process memory), not packed, staged and sent.
 *
 * A PMPI wrapper counts every MPI_Isend and MPI_Send of more than 32 bytes the library makes
 * during an execute: with every rank on one node there is no data message (only the
 * notifications, 24 bytes, and the empty acknowledgements), and the library's count of
 * messages copied once grows by the plan's messages_received on every rank, which
 * redist_stats' messages_device_ipc predicts. Every element is checked after each execute
 * (copied back to the host). Cases, at every rank count:
 *   - 2-D re-blocking with direct-async and direct, scaled (alpha 2, beta -0.5: dst read and
 *     written), transposed (axis permutation), 1-D cyclic(1) -> cyclic(3), and through
 *     redist_start / redist_test;
 *   - src 17 doubles past the start of a larger device allocation (the offset travels);
 *   - the same plan executed twice on different src allocations, the first freed by its
 *     owner in between (the receivers' cached mappings are replaced);
 *   - the same plan executed twice on the same arrays: the second maps no peer allocation
 *     (each is mapped once; the emulated device counts its mappings);
 *   - options.shared_memory = 0: the data goes through MPI, nothing copied once;
 *   - REDIST_RANKS_PER_NODE=2: only the messages within a pair of ranks are copied once (the
 *     1-D case: exactly the message from the other rank of the pair, where it sends one), the
 *     others are staged through MPI;
 *   - in flight: a second start is BUSY on every rank, redist_device_free of src or dst BUSY
 *     until the execute completes;
 *   - a src freed by its owner after an execute and passed again: REDIST_ERR_ARG on every
 *     rank (the owner's argument check), the receivers' stale mappings untouched, then
 *     unmapped with the plan;
 *   - a sender's src freed (by an allocator no registry guards) before its receiver maps it:
 *     REDIST_ERR_STATE on every rank (the receiver's failure agreed), no hang, no fault;
 *   - REDIST_DEVICE_IPC=per-execute (mappings closed after each execute) and =0 (nothing
 *     pulled: every message staged, still right);
 *   - REDIST_GPU_AWARE_MPI=1, without the window and on nodes of 2: every data message leaves
 *     from device memory (PMPI wrappers hand MPI the emulated memory's host view, as a
 *     GPU-aware MPI reaches it), as redist_stats.messages_device_mpi says;
 *   - options.stream set (CUDA's per-thread default stream): every case again; where every
 *     message is pulled, the execute makes no host wait for the device (the events order
 *     the pulls), and dst is right after a sync.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mreblock.h"
#include "support/mtest.h"

uint64_t redist__onecopy_messages(void); /* exec.h: the library's count (internal) */
/* device.h: the backend's own allocation, which no registry of redist_device_alloc guards
   (an application's allocator, cudaMalloc) */
typedef struct redist__device redist__device;
int redist__device_get(redist__device **dev);
int redist__device_alloc(redist__device *dev, size_t bytes, void **ptr);
void redist__device_free(redist__device *dev, void *ptr);
void *redist__device_emulated_view(const void *p, size_t bytes);
uint64_t redist__device_emulated_host_waits(void);
uint64_t redist__device_emulated_ipc_opens(void);
int redist__mpi_gpu_aware(char *why, size_t len); /* exec.h */

static int rank, size, errs;
static int ipc_off;     /* REDIST_DEVICE_IPC=0: every message staged */
static int gpu_aware;   /* REDIST_GPU_AWARE_MPI=1: MPI's messages from device buffers */
static int with_stream; /* options.stream: CUDA's per-thread default stream */

/* 1 if a src allocation its receivers may still map can be freed: on the emulated device, or
   where they unmap after each execute (REDIST_DEVICE_IPC=per-execute); CUDA calls freeing an
   exported allocation that another process maps undefined (docs/api.md). */
static int may_free_mapped(void)
{
    const char *backend = getenv("REDIST_DEVICE_BACKEND"), *ipc = getenv("REDIST_DEVICE_IPC");
    return (backend != NULL && strcmp(backend, "emulated") == 0) ||
           (ipc != NULL && strcmp(ipc, "per-execute") == 0);
}
static long long data_messages; /* sends with more than 32 bytes since the last reset */
static long long data_device;   /* of them, those from device memory (a GPU-aware MPI's) */
static long long device_sends;  /* every send from device memory, of any size (a message of
                                   at most 32 bytes is one too) */

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

/* A GPU-aware MPI's view of buf: the emulated device's memory reached through its host
   view (the library's host code still cannot touch it), anything else as it is. */
static void *as_mpi_sees(const void *buf, int n, MPI_Datatype type, int *on_device)
{
    int bytes = 0;
    PMPI_Type_size(type, &bytes);
    void *view = n > 0 ? redist__device_emulated_view(buf, (size_t)n * (size_t)bytes) : NULL;
    *on_device = view != NULL;
    return view != NULL ? view : (void *)buf;
}

static void count(int n, MPI_Datatype type, int on_device)
{
    int bytes = 0;
    PMPI_Type_size(type, &bytes);
    device_sends += on_device;
    if ((long long)n * bytes > 32) {
        data_messages++;
        data_device += on_device;
    }
}

int MPI_Isend(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    int dev = 0;
    void *at = as_mpi_sees(buf, n, type, &dev);
    count(n, type, dev);
    return PMPI_Isend(at, n, type, dest, tag, comm, request);
}

int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int dev = 0;
    void *at = as_mpi_sees(buf, n, type, &dev);
    count(n, type, dev);
    return PMPI_Send(at, n, type, dest, tag, comm);
}

int MPI_Irecv(void *buf, int n, MPI_Datatype type, int src, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    int dev = 0;
    return PMPI_Irecv(as_mpi_sees(buf, n, type, &dev), n, type, src, tag, comm, request);
}

#define same_everywhere(what, rc) mtest_expect_all(&errs, rank, what, rc, REDIST_SUCCESS)

/* The cases (support/mreblock.h): an n0 x n1 array, blocks b1 and b2 on a 1 x P and a P x 1
   grid (or 1-D cyclic). */
typedef mreblock_spec spec;
typedef mreblock_pair pair;

/* The 1-D case on nodes of 2: 1 if the other rank of this rank's pair sends it elements
   (element g: on src rank g mod P, dst rank (g / b2) mod P), else 0. */
static int from_partner(const spec *c)
{
    int partner = rank ^ 1;
    for (int64_t g = 0; partner < size && g < c->n[0]; g++)
        if (g % size == partner && (g / c->b2[0]) % size == rank)
            return 1;
    return 0;
}

enum { PLAIN, OFFSET, TWICE, NO_WINDOW, PAIRS, AGAIN, NHOW };
static const char *how_names[NHOW] = {"device arrays",       "src at an offset",
                                      "two src allocations", "shared_memory = 0",
                                      "nodes of 2",          "same arrays again"};
enum { LEAD = 17 }; /* doubles before src in its allocation (OFFSET) */

static void run_case(const spec *c, int how, int nonblocking)
{
    pair p;
    mreblock_make(c, rank, size, &p);
    char what[160];
    snprintf(what, sizeof what, "%s, %s%s", c->what, how_names[how],
             nonblocking ? ", start/test" : "");
    if (how == PAIRS)
        setenv("REDIST_RANKS_PER_NODE", "2", 1);
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = c->algorithm;
    opt.memory = REDIST_MEMORY_CUDA;
    opt.shared_memory = how != NO_WINDOW;
    opt.transport = REDIST_TRANSPORT_PACK;
    opt.stream = with_stream ? (void *)0x2 : NULL; /* CU_STREAM_PER_THREAD (emulated: any) */
    int perm[2] = {1, 0};
    if (c->perm)
        opt.permutation = perm;
    if (c->scaled)
        opt.alpha[0] = 2, opt.beta[0] = -0.5;
    redist_plan plan = NULL;
    int rc = redist_plan_create(p.src, p.dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    unsetenv("REDIST_RANKS_PER_NODE");
    same_everywhere(what, rc);
    size_t lead = how == OFFSET ? LEAD : 0;
    size_t sbytes = ((size_t)p.ns + lead + 1) * sizeof(double),
           dbytes = ((size_t)p.nd + 1) * sizeof(double);
    double *a = malloc(sbytes), *b = malloc(dbytes);
    char *da[2] = {NULL, NULL};
    double *db = NULL;
    int ok = a && b && redist_device_alloc(sbytes, (void **)&da[0]) == REDIST_SUCCESS &&
             redist_device_alloc(sbytes, (void **)&da[1]) == REDIST_SUCCESS &&
             redist_device_alloc(dbytes, (void **)&db) == REDIST_SUCCESS;
    if (!mtest_all_same(ok) || !ok)
        fail(what, "device arrays");
    int rounds = how == TWICE || how == AGAIN ? 2 : 1;
    for (int round = 0; ok && rc == REDIST_SUCCESS && round < rounds; round++) {
        redist_stats st;
        redist_plan_stats(plan, &st);
        mreblock_fill(c, &p, a, round);
        for (int64_t i = 0; i < p.nd; i++)
            b[i] = 3.0;
        double *src = (double *)(void *)da[how == TWICE ? round : 0] + lead;
        redist_device_copy(src, a, (size_t)p.ns * sizeof(double));
        redist_device_copy(db, b, (size_t)p.nd * sizeof(double));
        uint64_t before = redist__onecopy_messages();
        data_messages = data_device = device_sends = 0;
        uint64_t waits_before = redist__device_emulated_host_waits(),
                 opens_before = redist__device_emulated_ipc_opens();
        if (nonblocking) {
            int done = 0;
            rc = redist_start(plan, p.ns ? src : NULL, p.nd ? db : NULL);
            while (rc == REDIST_SUCCESS && !done)
                rc = redist_test(plan, &done);
        } else
            rc = redist_execute(plan, p.ns ? src : NULL, p.nd ? db : NULL);
        long long copied = (long long)(redist__onecopy_messages() - before), data = data_messages,
                  from_device = data_device, device_msgs = device_sends;
        long long waits = (long long)(redist__device_emulated_host_waits() - waits_before),
                  opens = (long long)(redist__device_emulated_ipc_opens() - opens_before);
        /* each peer's allocation mapped once: the second execute on the same arrays maps
           nothing; a first one at most one per message pulled */
        if ((how == AGAIN && round == 1 && opens != 0) || opens > copied)
            fail(what, "%lld peer allocations mapped in execute %d (%lld messages pulled)", opens,
                 round + 1, copied);
        same_everywhere(what, rc);
        redist_device_copy(b, db, (size_t)p.nd * sizeof(double));
        if (how == TWICE && round == 0 && may_free_mapped()) { /* the owner frees it */
            redist_device_free(da[0]);
            da[0] = NULL;
        }
        double got = 0, want_v = 0;
        int64_t bad = mreblock_check(c, &p, b, 3.0, round, &got, &want_v);
        if (bad >= 0)
            fail(what, "dst[%lld] = %g, want %g", (long long)bad, got, want_v);
        long long want = how == NO_WINDOW || ipc_off ? 0 : st.messages_received;
        if (how != PAIRS && copied != want)
            fail(what, "%lld messages copied once, want %lld", copied, want);
        if (copied != st.messages_device_ipc)
            fail(what, "%lld messages copied once, redist_stats says %lld (messages_device_ipc)",
                 copied, (long long)st.messages_device_ipc);
        if (how == PAIRS && (copied > st.messages_received ||
                             (c->nd == 1 && copied != (ipc_off ? 0 : from_partner(c)))))
            fail(what, "%lld messages copied once of %lld received", copied,
                 (long long)st.messages_received);
        /* through MPI: every data message from a device buffer with a GPU-aware MPI, none
           otherwise, as the plan's stats say */
        /* with a stream, an execute whose every message is pulled leaves its work on the
           stream: no host wait (the events order the pulls); dst complete at the sync below.
           A peer's src in another allocation than last time costs one (its old mapping is
           closed once the pulls from it are done). */
        if (with_stream && how != NO_WINDOW && how != PAIRS && !ipc_off &&
            !(how == TWICE && round == 1) && waits != 0)
            fail(what, "%lld host waits for the device in a stream-ordered execute, want none",
                 waits);
        if (from_device != (gpu_aware ? data : 0) || device_msgs != st.messages_device_mpi ||
            (!gpu_aware && device_msgs != 0))
            fail(what,
                 "%lld of %lld data messages sent from device memory, %lld sends from device "
                 "memory in all (stats: %lld)%s",
                 from_device, data, device_msgs, (long long)st.messages_device_mpi,
                 gpu_aware ? "" : ", want none (no GPU-aware MPI)");
        if (how != NO_WINDOW && how != PAIRS && !ipc_off && data != 0)
            fail(what, "%lld data messages on one node, want none", data);
    }
    redist_plan_free(&plan); /* every rank's, and its mappings of our arrays, first */
    MPI_Barrier(MPI_COMM_WORLD);
    redist_device_free(da[0]);
    redist_device_free(da[1]);
    redist_device_free(db);
    free(a);
    free(b);
    mreblock_free(&p);
}

/* An execute in flight holds its arrays: a second start is BUSY on every rank, and
   redist_device_free of an allocation holding src or dst is BUSY on the rank that holds it
   (nothing freed) until the execute completes; then both succeed. */
static void in_flight_case(const spec *c)
{
    pair p;
    mreblock_make(c, rank, size, &p);
    const char *what = "in flight";
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = c->algorithm;
    opt.memory = REDIST_MEMORY_CUDA;
    redist_plan plan = NULL;
    same_everywhere(what,
                    redist_plan_create(p.src, p.dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan));
    size_t sbytes = ((size_t)p.ns + 1) * sizeof(double),
           dbytes = ((size_t)p.nd + 1) * sizeof(double);
    double *a = malloc(sbytes), *b = malloc(dbytes), *da = NULL, *db = NULL;
    int ok = a && b && redist_device_alloc(sbytes, (void **)&da) == REDIST_SUCCESS &&
             redist_device_alloc(dbytes, (void **)&db) == REDIST_SUCCESS;
    if (!mtest_all_same(ok) || !ok || plan == NULL) {
        fail(what, "device arrays");
        return;
    }
    mreblock_fill(c, &p, a, 0);
    for (int64_t i = 0; i < p.nd; i++)
        b[i] = 3.0;
    redist_device_copy(da, a, (size_t)p.ns * sizeof(double));
    redist_device_copy(db, b, (size_t)p.nd * sizeof(double));
    same_everywhere(what, redist_start(plan, da, db));
    mtest_expect_all(&errs, rank, "in flight: a second start", redist_start(plan, da, db),
                     REDIST_ERR_BUSY);
    int fs = redist_device_free(da), fd = redist_device_free(db);
    if (fs != REDIST_ERR_BUSY || fd != REDIST_ERR_BUSY)
        fail(what,
             "redist_device_free of src and dst in flight returned %s and %s, want "
             "REDIST_ERR_BUSY",
             redist_error_name(fs), redist_error_name(fd));
    same_everywhere(what, redist_wait(plan));
    redist_device_copy(b, db, (size_t)p.nd * sizeof(double));
    double got = 0, want_v = 0;
    int64_t bad = mreblock_check(c, &p, b, 3.0, 0, &got, &want_v);
    if (bad >= 0)
        fail(what, "dst[%lld] = %g, want %g", (long long)bad, got, want_v);
    fs = redist_device_free(da);
    fd = redist_device_free(db);
    if (fs != REDIST_SUCCESS || fd != REDIST_SUCCESS)
        fail(what, "redist_device_free once the execute completed returned %s and %s",
             redist_error_name(fs), redist_error_name(fd));
    free(a);
    free(b);
    redist_plan_free(&plan);
    mreblock_free(&p);
}

/* A device plan (memory = CUDA) moving each rank's m doubles to the next rank (1-D blocks of
   m, the destination's first block on rank 1: no self part where there are two ranks or
   more); NULL where it could not be made (a failure recorded). */
static redist_plan shift_plan(int64_t m, const char *what)
{
    int64_t ext[1] = {m * size}, blk[1] = {m};
    int grid[1] = {size}, first[1] = {size > 1};
    redist_layout src = NULL, dst = NULL;
    redist_layout_create(1, ext, blk, grid, NULL, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, ext, blk, grid, first, NULL, REDIST_ROW_MAJOR, &dst);
    redist_options opt;
    redist_options_init(&opt);
    opt.memory = REDIST_MEMORY_CUDA;
    redist_plan plan = NULL;
    same_everywhere(what, redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan));
    redist_layout_free(&src);
    redist_layout_free(&dst);
    return plan;
}

/* A sender whose allocation is gone before its receiver maps it (an application's own
   allocator, freed while the execute is in flight: nothing guards it): the receiver cannot
   pull, and every rank returns REDIST_ERR_STATE (agreed at the end of the execute), none
   hangs or faults. Each rank's m doubles go to the next rank (a shift: no self part), rank 0
   frees its src after its start, and the others pull only in their wait, after a barrier. */
static void freed_in_flight_case(void)
{
    const char *what = "src freed in flight";
    int64_t m = 1000;
    redist_plan plan = shift_plan(m, what);
    redist_stats st;
    redist_plan_stats(plan, &st);
    long long pulled = st.messages_device_ipc, any = 0;
    MPI_Allreduce(&pulled, &any, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    redist__device *dev = NULL;
    void *ds = NULL, *dd = NULL;
    int ok = redist__device_get(&dev) == REDIST_SUCCESS &&
             redist__device_alloc(dev, (size_t)m * sizeof(double), &ds) == REDIST_SUCCESS &&
             redist__device_alloc(dev, (size_t)m * sizeof(double), &dd) == REDIST_SUCCESS;
    if (!mtest_all_same(ok) || !ok || plan == NULL) {
        fail(what, "device arrays");
        return;
    }
    int rc = redist_start(plan, ds, dd);
    same_everywhere(what, rc);
    if (rank == 0) {
        redist__device_free(dev, ds);
        ds = NULL;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    rc = redist_wait(plan);
    mtest_expect_all(&errs, rank, what, rc, any > 0 ? REDIST_ERR_STATE : REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS || rank != 1)
        ; /* the rank that could not map says why */
    else if (strstr(redist_last_error_detail(), "cannot map") == NULL)
        fail(what, "rank 1's detail does not say why: %s", redist_last_error_detail());
    redist_plan_free(&plan);
    MPI_Barrier(MPI_COMM_WORLD);
    redist__device_free(dev, ds);
    redist__device_free(dev, dd);
}

/* A src freed by its owner after an execute (its receivers keep it mapped) and passed again:
   the owner's argument check refuses it (not device memory any more), every rank returns
   REDIST_ERR_ARG, none touches the stale mapping; freeing the plan then unmaps it. */
static void stale_src_case(void)
{
    const char *what = "src freed, then passed again";
    int64_t m = 500;
    redist_plan plan = shift_plan(m, what);
    double *ds = NULL, *dd = NULL, *h = malloc((size_t)m * sizeof(double));
    int ok = h != NULL &&
             redist_device_alloc((size_t)m * sizeof(double), (void **)&ds) == REDIST_SUCCESS &&
             redist_device_alloc((size_t)m * sizeof(double), (void **)&dd) == REDIST_SUCCESS;
    if (!mtest_all_same(ok) || !ok || plan == NULL) {
        fail(what, "device arrays");
        return;
    }
    for (int64_t i = 0; i < m; i++)
        h[i] = (double)(rank * m + i);
    redist_device_copy(ds, h, (size_t)m * sizeof(double));
    same_everywhere(what, redist_execute(plan, ds, dd));
    redist_device_copy(h, dd, (size_t)m * sizeof(double));
    int64_t from = (rank + size - 1) % size;
    for (int64_t i = 0; i < m; i++)
        if (h[i] != (double)(from * m + i)) {
            fail(what, "dst[%lld] = %g, want %g", (long long)i, h[i], (double)(from * m + i));
            break;
        }
    if (rank == 0 && redist_device_free(ds) != REDIST_SUCCESS)
        fail(what, "redist_device_free after the execute: %s", redist_last_error_detail());
    /* rank 0's ds is gone (dst is then undefined) */
    mtest_expect_all(&errs, rank, what, redist_execute(plan, ds, dd), REDIST_ERR_ARG);
    redist_plan_free(&plan);
    if (rank != 0)
        redist_device_free(ds);
    redist_device_free(dd);
    free(h);
}

int main(int argc, char **argv)
{
    setenv("REDIST_DEVICE_BACKEND", "emulated", 0); /* tests/gpu/run.sh: cuda */
    setenv("REDIST_EMULATED_MPI_VIEW", "1", 1);     /* the wrappers above hand it to MPI */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mtest_watchdog(600, rank, "test_device_onecopy");
    const spec cases[] = {
        {"2-D re-block, direct-async", 2, {37, 45}, {5, 3}, {4, 7}, 0, 0, "direct-async"},
        {"2-D re-block, direct", 2, {37, 45}, {5, 3}, {4, 7}, 0, 0, "direct"},
        {"2-D scaled", 2, {23, 31}, {3, 5}, {6, 2}, 0, 1, "direct-async"},
        {"2-D transposed", 2, {29, 17}, {4, 3}, {5, 2}, 1, 0, "direct-async"},
        {"1-D cyclic(1) -> cyclic(3)", 1, {301, 1}, {1, 1}, {3, 1}, 0, 0, "direct-async"},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    for (int k = 0; k < ncases; k++)
        for (int how = 0; how < NHOW; how++)
            run_case(&cases[k], how, 0);
    run_case(&cases[0], PLAIN, 1);
    run_case(&cases[4], OFFSET, 1);
    if (!may_free_mapped()) /* it frees its arrays before the plan */
        setenv("REDIST_DEVICE_IPC", "per-execute", 1);
    in_flight_case(&cases[0]);
    unsetenv("REDIST_DEVICE_IPC");
    if (size > 1)
        freed_in_flight_case();
    if (!may_free_mapped()) /* a real GPU: the receivers unmap after each execute */
        setenv("REDIST_DEVICE_IPC", "per-execute", 1);
    stale_src_case();
    unsetenv("REDIST_DEVICE_IPC");
    /* mappings closed at the end of each execute, and none at all (everything staged) */
    setenv("REDIST_DEVICE_IPC", "per-execute", 1);
    for (int k = 0; k < ncases; k++)
        run_case(&cases[k], TWICE, 0);
    run_case(&cases[4], PAIRS, 1);
    setenv("REDIST_DEVICE_IPC", "0", 1);
    ipc_off = 1;
    run_case(&cases[0], PLAIN, 0);
    run_case(&cases[4], PAIRS, 0);
    unsetenv("REDIST_DEVICE_IPC");
    ipc_off = 0;
    /* a GPU-aware MPI: what goes through MPI is packed into and unpacked from device buffers
       (all of it without the window; between the pairs of nodes of 2 with it). The emulated
       device's is declared (the wrappers above are what a GPU-aware MPI does); on a GPU the
       MPI library's own answer decides, and the checks follow it */
    const char *backend = getenv("REDIST_DEVICE_BACKEND");
    int emulated = backend != NULL && strcmp(backend, "emulated") == 0;
    if (emulated)
        setenv("REDIST_GPU_AWARE_MPI", "1", 1);
    gpu_aware = emulated || redist__mpi_gpu_aware(NULL, 0);
    if (rank == 0)
        printf("GPU-aware MPI: %s\n", emulated    ? "declared (emulated device)"
                                      : gpu_aware ? "the MPI library says so"
                                                  : "no (its messages are staged)");
    for (int k = 0; k < ncases; k++) {
        run_case(&cases[k], NO_WINDOW, 0);
        run_case(&cases[k], PAIRS, k == 0);
    }
    unsetenv("REDIST_GPU_AWARE_MPI");
    gpu_aware = 0;
    /* options.stream given: stream-ordered where everything is pulled, else as before */
    with_stream = 1;
    for (int k = 0; k < ncases; k++)
        for (int how = 0; how < NHOW; how++)
            run_case(&cases[k], how, k == 4);
    with_stream = 0;
    return mtest_finalize(errs);
}
