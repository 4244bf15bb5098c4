/* threads: 3 1 4 */
/* Stress and resources:
 *
 *  1. Executing allocates nothing: for every algorithm and transport variant (and a batch,
 *     and BMMC on a power-of-two number of ranks), redist_execute, redist_start +
 *     redist_test until done, and redist_start + redist_wait make no allocation through the
 *     library's allocator (src/core/alloc.c counts every one).
 *  2. One plan executed 10^4 times (--executes): no growth in the library's live blocks, the heap
 * in use (glibc's mallinfo2), communicators or datatypes; every element checked at the end.
 *  3. Plans created and freed (--plans; 10^4 in `make stress`): the same resources do not
 *     grow.
 *  4. Two threads at once under MPI_THREAD_MULTIPLE, each creating its own plan on its own
 *     communicator and executing it THREAD_RUNS times, every element checked each time.
 *
 * Data is filled from the global index and every destination element is checked.
 * Options: --executes N, --plans N. Output: " No Errors" or " Found N errors".
 */
#include <malloc.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;
static const char *phase = "start";
enum { WATCHDOG_SECONDS = 240, THREAD_RUNS = 200 };

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

/* ---- A 2-D pair over every rank, with its oracle ----------------------------------------- */
typedef struct {
    int64_t n[2], b[2];
    int g[2], order;
} spec;

static const spec SRC = {{37, 23}, {2, 3}, {0, 1}, REDIST_COL_MAJOR}; /* g[0] = size */
static const spec DST = {{37, 23}, {5, 2}, {1, 0}, REDIST_ROW_MAJOR}; /* g[1] = size */

static spec over_ranks(spec s)
{
    s.g[s.g[0] == 0 ? 0 : 1] = size;
    return s;
}

typedef struct {
    spec sp;
    int64_t count, shape[2];
    int coords[2], in;
} side;

static side side_of(spec sp)
{
    side s = {over_ranks(sp), 0, {0, 0}, {0, 0}, 0};
    redist_layout l;
    redist_layout_create(2, s.sp.n, s.sp.b, s.sp.g, NULL, NULL, s.sp.order, &l);
    s.in = redist_layout_coords(l, rank, s.coords) == 1;
    redist_layout_local_shape(l, rank, s.shape);
    redist_layout_local_size(l, rank, &s.count);
    redist_layout_free(&l);
    return s;
}

static double value_at(const side *s, int64_t i, int salt)
{
    return (double)mtest_global_linear(2, s->sp.n, s->sp.b, s->sp.g, NULL, s->sp.order, s->shape,
                                       s->coords, i) +
           0.5 * salt;
}

static void fill(const side *s, double *a, int salt)
{
    for (int64_t i = 0; i < s->count; i++)
        a[i] = value_at(s, i, salt);
}

/* Wrong elements of a against the oracle (each thread checks its own). */
static int64_t wrong(const side *s, const double *a, int salt)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < s->count; i++)
        bad += a[i] != value_at(s, i, salt);
    return bad;
}

static int make_plan(MPI_Comm comm, const redist_options *opt, redist_plan *plan)
{
    side s = side_of(SRC), d = side_of(DST);
    redist_layout ls, ld;
    redist_layout_create(2, s.sp.n, s.sp.b, s.sp.g, NULL, NULL, s.sp.order, &ls);
    redist_layout_create(2, d.sp.n, d.sp.b, d.sp.g, NULL, NULL, d.sp.order, &ld);
    int rc = redist_plan_create(ls, ld, MPI_DOUBLE, comm, opt, plan);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
    return rc;
}

/* Arrays of this rank for the pair (NULL where it holds nothing). */
typedef struct {
    side s, d;
    double *src, *dst;
} arrays;

static arrays arrays_new(void)
{
    arrays a = {side_of(SRC), side_of(DST), NULL, NULL};
    a.src = a.s.count ? malloc((size_t)a.s.count * sizeof *a.src) : NULL;
    a.dst = a.d.count ? malloc((size_t)a.d.count * sizeof *a.dst) : NULL;
    return a;
}

static void arrays_free(arrays *a)
{
    free(a->src);
    free(a->dst);
}

/* ---- 1. No allocation while executing ---------------------------------------------------- */
/* Allocations of one execute (how = 0: execute, 1: start + test loop, 2: start + wait). */
static int64_t allocations_of(redist_plan plan, arrays *a, int how, int *rc)
{
    int64_t before = redist__alloc_calls();
    if (how == 0)
        *rc = redist_execute(plan, a->src, a->dst);
    else {
        *rc = redist_start(plan, a->src, a->dst);
        int done = 0;
        while (*rc == REDIST_SUCCESS && how == 1 && !done)
            *rc = redist_test(plan, &done);
        if (*rc == REDIST_SUCCESS && how == 2)
            *rc = redist_wait(plan);
    }
    return redist__alloc_calls() - before;
}

static void no_allocation(const char *name, redist_plan plan, arrays *a)
{
    static const char *const how_names[] = {"redist_execute", "redist_start + redist_test",
                                            "redist_start + redist_wait"};
    for (int how = 0; how < 3; how++) {
        fill(&a->s, a->src, how);
        int rc = 0;
        int64_t n = allocations_of(plan, a, how, &rc);
        if (rc != REDIST_SUCCESS)
            fail(name, "%s returned %d (%s)", how_names[how], rc, redist_error_name(rc));
        if (n != 0)
            fail(name, "%s allocated %lld times", how_names[how], (long long)n);
        int64_t bad = wrong(&a->d, a->dst, how);
        if (bad)
            fail(name, "%s: %lld wrong elements", how_names[how], (long long)bad);
    }
}

static void no_allocation_all(void)
{
    phase = "no allocation while executing";
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    arrays a = arrays_new();
    int nalg = redist_algorithm_count();
    for (int v = -1; v <= nalg + 3; v++) {
        redist_options opt;
        const char *alg = mtest_variant(v, &opt);
        redist_plan plan = NULL;
        if (make_plan(MPI_COMM_WORLD, &opt, &plan) != REDIST_SUCCESS)
            continue; /* not applicable to this pair: the same on every rank */
        char name[96];
        snprintf(name, sizeof name, "%s (variant %d): %s", phase, v, alg);
        no_allocation(name, plan, &a);
        redist_plan_free(&plan);
    }
    arrays_free(&a);
}

/* A batch of two arrays and a BMMC permutation: their own execute paths. */
static void no_allocation_batch_bmmc(void)
{
    phase = "no allocation: batch";
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    side s = side_of(SRC), d = side_of(DST);
    redist_layout l[2];
    redist_layout_create(2, s.sp.n, s.sp.b, s.sp.g, NULL, NULL, s.sp.order, &l[0]);
    redist_layout_create(2, d.sp.n, d.sp.b, d.sp.g, NULL, NULL, d.sp.order, &l[1]);
    redist_layout from[2] = {l[0], l[1]}, to[2] = {l[1], l[0]};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
    redist_plan plan = NULL;
    int rc = redist_plan_create_batch(2, from, to, types, MPI_COMM_WORLD, NULL, &plan);
    if (rc != REDIST_SUCCESS)
        fail(phase, "redist_plan_create_batch returned %d", rc);
    arrays a = arrays_new(), b = arrays_new(); /* b: DST -> SRC */
    fill(&a.s, a.src, 0);
    fill(&a.d, b.dst, 0); /* array 1 starts as DST's data */
    const void *src[2] = {a.src, b.dst};
    void *dst[2] = {a.dst, b.src};
    int64_t before = redist__alloc_calls();
    rc = rc == REDIST_SUCCESS ? redist_execute_batch(plan, src, dst) : rc;
    int done = 0;
    int rc2 = rc == REDIST_SUCCESS ? redist_start_batch(plan, src, dst) : rc;
    while (rc2 == REDIST_SUCCESS && !done)
        rc2 = redist_test(plan, &done);
    if (redist__alloc_calls() != before)
        fail(phase, "executing a batch allocated %lld times",
             (long long)(redist__alloc_calls() - before));
    if (rc != REDIST_SUCCESS || rc2 != REDIST_SUCCESS)
        fail(phase, "executing a batch returned %d, %d", rc, rc2);
    if (wrong(&a.d, a.dst, 0) || wrong(&a.s, b.src, 0))
        fail(phase, "the batch moved wrong elements");
    redist_plan_free(&plan);
    redist_layout_free(&l[0]);
    redist_layout_free(&l[1]);
    arrays_free(&a);
    arrays_free(&b);

    if ((size & (size - 1)) != 0)
        return;
    phase = "no allocation: bmmc";
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    int n = redist__ceil_log2(size) + 6; /* 64 elements per rank */
    uint64_t cols[64];
    redist_bmmc_bit_reversal(n, cols);
    rc = redist_plan_create_bmmc(n, 6, cols, 0, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
    double x[64], y[64];
    for (int i = 0; i < 64; i++)
        x[i] = i;
    before = redist__alloc_calls();
    rc = rc == REDIST_SUCCESS ? redist_execute(plan, x, y) : rc;
    if (rc != REDIST_SUCCESS || redist__alloc_calls() != before)
        fail(phase, "returned %d after %lld allocations", rc,
             (long long)(redist__alloc_calls() - before));
    redist_plan_free(&plan);
}

/* ---- 2 and 3. No growth ------------------------------------------------------------------ */
typedef struct {
    int64_t live;
    size_t heap;
    long comm, type;
} resources;

static resources resources_now(void)
{
    resources r = {redist__alloc_live(), mallinfo2().uordblks, mtest_live_comms(),
                   mtest_live_types()};
    return r;
}

static void no_growth(const char *what, resources r0)
{
    resources r = resources_now();
    if (r.live != r0.live)
        fail(what, "the library's live blocks went from %lld to %lld", (long long)r0.live,
             (long long)r.live);
    if (r.heap > r0.heap + ((size_t)1 << 20))
        fail(what, "heap in use went from %zu to %zu bytes", r0.heap, r.heap);
    if (r.comm > r0.comm)
        fail(what, "live communicators went from %ld to %ld", r0.comm, r.comm);
    if (r.type > r0.type)
        fail(what, "live datatypes went from %ld to %ld", r0.type, r.type);
}

static void many_executes(int count)
{
    phase = "one plan executed many times";
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    arrays a = arrays_new();
    redist_plan plan = NULL;
    make_plan(MPI_COMM_WORLD, NULL, &plan);
    redist_execute(plan, a.src, a.dst); /* MPI's own first-use allocations before measuring */
    resources r0 = resources_now();
    int rc = REDIST_SUCCESS;
    for (int i = 0; i < count && rc == REDIST_SUCCESS; i++) {
        if (i == count - 1)
            fill(&a.s, a.src, 3);
        rc = i % 2 ? redist_execute(plan, a.src, a.dst) : redist_start(plan, a.src, a.dst);
        if (rc == REDIST_SUCCESS && i % 2 == 0)
            rc = redist_wait(plan);
    }
    if (!mtest_all_same(rc) || rc != REDIST_SUCCESS)
        fail(phase, "an execute returned %d", rc);
    if (wrong(&a.d, a.dst, 3))
        fail(phase, "wrong elements after %d executes", count);
    no_growth(phase, r0);
    redist_plan_free(&plan);
    arrays_free(&a);
}

static void many_plans(int count)
{
    phase = "plans created and freed";
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    redist_plan plan = NULL;
    make_plan(MPI_COMM_WORLD, NULL, &plan); /* first-use allocations (model, MPI) */
    redist_plan_free(&plan);
    resources r0 = resources_now();
    int rc = REDIST_SUCCESS;
    for (int i = 0; i < count && rc == REDIST_SUCCESS; i++) {
        redist_options opt;
        mtest_variant(i % 3 - 1, &opt); /* auto and the first two algorithms in turn */
        rc = make_plan(MPI_COMM_WORLD, &opt, &plan);
        redist_plan_free(&plan);
    }
    if (rc != REDIST_SUCCESS)
        fail(phase, "plan creation returned %d", rc);
    no_growth(phase, r0);
}

/* ---- 4. Two threads ---------------------------------------------------------------------- */
typedef struct {
    MPI_Comm comm;
    int id, rc;
    int64_t bad;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *job = arg;
    redist_options opt;
    mtest_variant(job->id == 0 ? -1 : redist_algorithm_count() + 2, &opt); /* auto; pack */
    redist_plan plan = NULL;
    job->rc = make_plan(job->comm, &opt, &plan);
    arrays a = arrays_new();
    for (int i = 0; i < THREAD_RUNS && job->rc == REDIST_SUCCESS; i++) {
        int salt = 2 * i + job->id;
        fill(&a.s, a.src, salt);
        job->rc = redist_execute(plan, a.src, a.dst);
        job->bad += job->rc == REDIST_SUCCESS ? wrong(&a.d, a.dst, salt) : 0;
    }
    redist_plan_free(&plan);
    arrays_free(&a);
    return NULL;
}

static void two_threads(int provided)
{
    phase = "two threads";
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    if (provided < MPI_THREAD_MULTIPLE) {
        fail(phase, "the MPI library provides thread level %d, not MPI_THREAD_MULTIPLE", provided);
        return;
    }
    thread_job jobs[2];
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) {
        jobs[t] = (thread_job){MPI_COMM_NULL, t, 0, 0};
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 0; t < 2; t++)
        pthread_create(&threads[t], NULL, thread_main, &jobs[t]);
    for (int t = 0; t < 2; t++) {
        pthread_join(threads[t], NULL);
        if (jobs[t].rc != REDIST_SUCCESS || jobs[t].bad != 0)
            fail(phase, "thread %d: returned %d, %lld wrong elements", t, jobs[t].rc,
                 (long long)jobs[t].bad);
        MPI_Comm_free(&jobs[t].comm);
    }
}

int main(int argc, char **argv)
{
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* make check: 10^4 executes, 1000 plans (300 above 4 ranks: a plan takes 5-20 ms
       oversubscribed on a 2-core machine); `make stress` runs --plans 10000. */
    int executes = 10000, plans = size > 4 ? 300 : 1000;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--executes") == 0)
            executes = atoi(argv[++i]);
        else if (strcmp(argv[i], "--plans") == 0)
            plans = atoi(argv[++i]);
    }
    no_allocation_all();
    no_allocation_batch_bmmc();
    many_executes(executes);
    many_plans(plans);
    two_threads(provided);
    return mtest_finalize(errs);
}
