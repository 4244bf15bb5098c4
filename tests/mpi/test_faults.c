/* Faults:
 *
 *  1. Allocation failures: for every plan kind (every algorithm and transport variant on a
 *     2-D and a 1-D pair, permutation with scaling, irregular blocks, windows, batches,
 *     BMMC, layouts themselves), each allocation of plan creation is made to fail in turn,
 *     once on every rank at the same call and once on a single rank only. Every rank must
 *     return REDIST_ERR_NOMEM (the same code), leave *plan NULL, and hold exactly the
 *     blocks, communicators and datatypes it held before. The library's allocator
 *     (src/core/alloc.c) counts the attempts and injects the failure.
 *  2. Shared memory that cannot be created: MPI_Win_allocate_shared fails (a PMPI wrapper in
 *     this file) and the plan falls back to the MPI transport; its executes are correct.
 *  3. An MPI error during execute (MPI_Isend, MPI_Ialltoallv and MPI_Ialltoallw fail on every
 *     rank: the calls that start an execute's messages, whichever algorithm the planner took):
 *     REDIST_ERR_MPI on every rank, no hang; once MPI works again the same plan moves the data
 *     correctly.
 *
 * Every execute fills the source from the global index and checks every destination element.
 * Output: " No Errors" on success, else one line per failed check and " Found N errors".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;
static const char *phase = "start"; /* what is running: the watchdog names it */
enum { WATCHDOG_SECONDS = 120 };    /* for each part, at 8 ranks on 2 cores */

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

/* ---- PMPI wrappers: failures switched on by the test ----------------------------------- */
static int fail_shared_window, fail_sends;

int MPI_Win_allocate_shared(MPI_Aint bytes, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    if (fail_shared_window)
        return MPI_ERR_NO_MEM; /* as an MPI library whose /dev/shm is full */
    return PMPI_Win_allocate_shared(bytes, disp_unit, info, comm, baseptr, win);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    if (fail_sends) {
        *request = MPI_REQUEST_NULL;
        return MPI_ERR_OTHER;
    }
    return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}

/* auto may take the collectives (alltoallv with threads' cheaper packing, for one) */
int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                   MPI_Comm comm, MPI_Request *request)
{
    if (fail_sends) {
        *request = MPI_REQUEST_NULL;
        return MPI_ERR_OTHER;
    }
    return PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm,
                           request);
}

int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    if (fail_sends) {
        *request = MPI_REQUEST_NULL;
        return MPI_ERR_OTHER;
    }
    return PMPI_Ialltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm,
                           request);
}

/* ---- The cases ------------------------------------------------------------------------- */
/* A block-cyclic layout over all ranks (NULL ranks, first 0), kept for the oracle. */
typedef struct {
    int nd;
    int64_t n[2], b[2];
    int g[2], order;
} spec;

enum { MAX_ARRAYS = 2 };

typedef struct {
    const char *name;
    int kind; /* which plan constructor: below */
    spec s, d;
    redist_options opt;
    int perm[2];
} fault_case;

enum { PLAIN, PERMUTED, GEN_BLOCK, WINDOW, BATCH, BMMC, LAYOUTS };

static int make_layout(const spec *sp, redist_layout *l)
{
    return redist_layout_create(sp->nd, sp->n, sp->b, sp->g, NULL, NULL, sp->order, l);
}

/* The layouts of a case (NULL on failure: the creating call's code is returned). */
static int case_layouts(const fault_case *c, redist_layout *s, redist_layout *d)
{
    *s = *d = NULL;
    int rc = make_layout(&c->s, s);
    if (rc == REDIST_SUCCESS && c->kind == GEN_BLOCK) { /* src in uneven slabs instead */
        int64_t *sz = redist__calloc((size_t)c->s.g[0] + 1, sizeof *sz);
        if (sz == NULL)
            return REDIST_ERR_NOMEM;
        for (int i = 0; i < c->s.g[0]; i++) /* 0, 1, 2, ... and the rest on the last */
            sz[i] = i < c->s.g[0] - 1 ? (i % 3) : 0;
        int64_t used = 0;
        for (int i = 0; i < c->s.g[0]; i++)
            used += sz[i];
        sz[c->s.g[0] - 1] = c->s.n[0] - used;
        const int64_t *sizes[2] = {sz, NULL};
        redist_layout_free(s);
        rc = redist_layout_create_gen_block(c->s.nd, c->s.n, c->s.b, c->s.g, NULL, NULL, c->s.order,
                                            sizes, s);
        redist__free(sz);
    }
    if (rc == REDIST_SUCCESS)
        rc = make_layout(&c->d, d);
    if (rc == REDIST_SUCCESS && c->kind == WINDOW) { /* both sides a window of themselves */
        int64_t off[2] = {1, 0}, cnt[2] = {c->s.n[0] - 2, c->s.n[1]};
        redist_layout ws = NULL, wd = NULL;
        rc = redist_layout_create_window(*s, off, cnt, NULL, &ws);
        if (rc == REDIST_SUCCESS)
            rc = redist_layout_create_window(*d, NULL, cnt, NULL, &wd);
        redist_layout_free(s);
        redist_layout_free(d);
        *s = ws;
        *d = wd;
    }
    if (rc != REDIST_SUCCESS) {
        redist_layout_free(s);
        redist_layout_free(d);
    }
    return rc;
}

/* Creates the case's plan from layouts s and d (made before, without failures; the LAYOUTS
   case makes them here instead, and its allocations are the ones that fail). */
static int create_from(const fault_case *c, redist_layout s, redist_layout d, redist_plan *plan)
{
    *plan = NULL;
    if (c->kind == LAYOUTS) { /* local: this rank's code */
        redist_layout a, b;
        int rc = case_layouts(c, &a, &b);
        redist_layout_free(&a);
        redist_layout_free(&b);
        return rc;
    }
    if (c->kind == BMMC) {
        int n = redist__ceil_log2(size) + 4; /* 16 elements per rank */
        uint64_t cols[64];
        redist_bmmc_bit_reversal(n, cols);
        return redist_plan_create_bmmc(n, 4, cols, 0, MPI_DOUBLE, MPI_COMM_WORLD, &c->opt, plan);
    }
    if (c->kind == BATCH) {
        redist_layout src[MAX_ARRAYS] = {s, d}, dst[MAX_ARRAYS] = {d, s};
        MPI_Datatype types[MAX_ARRAYS] = {MPI_DOUBLE, MPI_INT};
        return redist_plan_create_batch(2, src, dst, types, MPI_COMM_WORLD, &c->opt, plan);
    }
    return redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &c->opt, plan);
}

static int create(const fault_case *c, redist_plan *plan)
{
    redist_layout s, d;
    case_layouts(c, &s, &d);
    int rc = create_from(c, s, d, plan);
    redist_layout_free(&s);
    redist_layout_free(&d);
    return rc;
}

/* ---- Executing and checking ------------------------------------------------------------ */
static void local_shape(const spec *sp, int64_t shape[], int coords[], int *in)
{
    redist_layout l;
    make_layout(sp, &l);
    *in = redist_layout_coords(l, rank, coords) == 1;
    redist_layout_local_shape(l, rank, shape);
    redist_layout_free(&l);
}

static int64_t elements(const spec *sp)
{
    int64_t shape[2], n = 1;
    int coords[2], in;
    local_shape(sp, shape, coords, &in);
    for (int k = 0; k < sp->nd; k++)
        n *= shape[k];
    return in ? n : 0;
}

/* Element i of this rank's local array of sp, as a global row-major index (the oracle). */
static int64_t global_of(const spec *sp, int64_t i)
{
    int64_t shape[2];
    int coords[2], in;
    local_shape(sp, shape, coords, &in);
    return mtest_global_linear(sp->nd, sp->n, sp->b, sp->g, NULL, sp->order, shape, coords, i);
}

/* Executes a PLAIN case's plan (start/wait if nonblocking) and checks every element;
   returns the execute's code (the same on every rank, checked). */
static int run_and_check(const fault_case *c, redist_plan plan, int nonblocking)
{
    int64_t ns = elements(&c->s), nd = elements(&c->d);
    double *src = ns ? malloc((size_t)ns * sizeof *src) : NULL;
    double *dst = nd ? malloc((size_t)nd * sizeof *dst) : NULL;
    for (int64_t i = 0; i < ns; i++)
        src[i] = (double)global_of(&c->s, i);
    for (int64_t i = 0; i < nd; i++)
        dst[i] = -1;
    int rc = nonblocking ? redist_start(plan, src, dst) : redist_execute(plan, src, dst);
    if (nonblocking && rc == REDIST_SUCCESS)
        rc = redist_wait(plan);
    if (!mtest_all_same(rc))
        fail(c->name, "execute returned %d here, not the same on every rank", rc);
    int64_t bad = 0;
    for (int64_t i = 0; rc == REDIST_SUCCESS && i < nd; i++)
        if (dst[i] != (double)global_of(&c->d, i) && bad++ < 3)
            fail(c->name, "dst[%lld] = %g, expected %lld", (long long)i, dst[i],
                 (long long)global_of(&c->d, i));
    free(src);
    free(dst);
    return rc;
}

/* FAULTS_ONLY=prefix runs only the parts whose names start with it (for debugging);
   FAULTS_SKIP=prefix skips those parts, and says so (scripts/valgrind.sh under MPICH). */
static int selected(const char *name)
{
    const char *only = getenv("FAULTS_ONLY"), *skip = getenv("FAULTS_SKIP");
    if (skip != NULL && *skip != '\0' && strncmp(name, skip, strlen(skip)) == 0) {
        if (rank == 0)
            printf("skipped (FAULTS_SKIP): %s\n", name);
        return 0;
    }
    return only == NULL || strncmp(name, only, strlen(only)) == 0;
}

/* ---- 1. Allocation failures ------------------------------------------------------------ */
/* Injects a failure at allocation `k` of plan creation on the ranks that `fail_here` (every
   rank or one), and checks the outcome everywhere. Returns whether any rank failed. */
static int inject(const fault_case *c, int64_t k, int fail_here)
{
    redist_layout s, d;
    case_layouts(c, &s, &d);
    int64_t before = redist__alloc_calls(), live = redist__alloc_live();
    redist__alloc_fail_at(fail_here ? before + k : -1);
    redist_plan plan = NULL;
    int rc = create_from(c, s, d, &plan);
    redist__alloc_fail_at(-1);
    int fired = fail_here && redist__alloc_calls() - before > k, any = 0;
    MPI_Allreduce(&fired, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int want = any ? REDIST_ERR_NOMEM : REDIST_SUCCESS;
    if (c->kind == LAYOUTS) /* local: only the failing rank fails */
        want = fired ? REDIST_ERR_NOMEM : REDIST_SUCCESS;
    else if (!mtest_all_same(rc))
        fail(c->name, "allocation %lld failing on %s: %d here, not the same on every rank",
             (long long)k, fail_here == 2 ? "every rank" : "one rank", rc);
    if (rc != want)
        fail(c->name, "allocation %lld failing: returned %d (%s), expected %d", (long long)k, rc,
             redist_error_name(rc), want);
    if (rc != REDIST_SUCCESS && plan != NULL)
        fail(c->name, "allocation %lld failing: *plan is not NULL after an error", (long long)k);
    redist_plan_free(&plan);
    int64_t leaked = redist__alloc_live() - live;
    redist_layout_free(&s);
    redist_layout_free(&d);
    if (leaked != 0)
        fail(c->name, "allocation %lld failing: %lld blocks leaked", (long long)k,
             (long long)leaked);
    return any;
}

static void allocation_failures(const fault_case *c)
{
    if (!selected(c->name))
        return;
    phase = c->name;
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    redist_layout s, d;
    case_layouts(c, &s, &d);
    int64_t before = redist__alloc_calls();
    redist_plan plan = NULL;
    int rc = create_from(c, s, d, &plan);
    redist_layout_free(&s);
    redist_layout_free(&d);
    long long mine = redist__alloc_calls() - before, calls = 0;
    if (c->kind == PLAIN && rc == REDIST_SUCCESS)
        rc = run_and_check(c, plan, 0);
    redist_plan_free(&plan);
    int ok = rc == REDIST_SUCCESS, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) /* not applicable to this pair on this many ranks */
        return;
    MPI_Allreduce(&mine, &calls, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    long comm0 = mtest_live_comms(), type0 = mtest_live_types();
    for (int64_t k = 0; k < calls; k++) {
        inject(c, k, 2);                               /* every rank at call k */
        inject(c, k, rank == (int)(k % size) ? 1 : 0); /* one rank */
    }
    if (mtest_live_comms() > comm0)
        fail(c->name, "communicators leaked (%ld live -> %ld)", comm0, mtest_live_comms());
    if (mtest_live_types() > type0)
        fail(c->name, "datatypes leaked (%ld live -> %ld)", type0, mtest_live_types());
    if (rank == 0 && getenv("VERBOSE"))
        printf("%-40s %lld allocations injected\n", c->name, calls);
    if (c->kind == PLAIN && create(c, &plan) == REDIST_SUCCESS) /* and it still works */
        run_and_check(c, plan, 1);
    redist_plan_free(&plan);
}

/* ---- 2. No shared-memory window ---------------------------------------------------------- */
static void window_failure(const fault_case *c)
{
    phase = "shared-memory window failure";
    if (!selected(phase))
        return;
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    fail_shared_window = 1;
    redist_plan plan = NULL;
    int rc = create(c, &plan);
    fail_shared_window = 0;
    if (!mtest_all_same(rc) || rc != REDIST_SUCCESS) {
        fail(phase, "plan creation returned %d (%s), expected the MPI transport", rc,
             redist_error_name(rc));
        return;
    }
    redist_stats st;
    redist_plan_stats(plan, &st);
    if (st.shared_memory)
        fail(phase, "the plan says it uses a shared-memory window that could not be made");
    run_and_check(c, plan, 0);
    run_and_check(c, plan, 1);
    redist_plan_free(&plan);
}

/* ---- 3. An MPI error while executing ------------------------------------------------------- */
static void execute_failure(const fault_case *c)
{
    char name[128];
    snprintf(name, sizeof name, "MPI error in %s", c->name);
    if (!selected(name))
        return;
    phase = name;
    mtest_watchdog(WATCHDOG_SECONDS, rank, "%s", phase);
    redist_plan plan = NULL;
    if (create(c, &plan) != REDIST_SUCCESS)
        return;
    redist_stats st;
    redist_plan_stats(plan, &st);
    int sends = st.messages_sent > 0, all_send = 0;
    MPI_Allreduce(&sends, &all_send, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (all_send) { /* every rank starts a message */
        fail_sends = 1;
        int rc = run_and_check(c, plan, 0);
        fail_sends = 0;
        if (rc != REDIST_ERR_MPI)
            fail(name,
                 "MPI's sends failing (%s): execute returned %d (%s), expected REDIST_ERR_MPI",
                 redist_plan_algorithm(plan), rc, redist_error_name(rc));
        /* messages of that execute may be in flight: the plan refuses to run again */
        rc = run_and_check(c, plan, 0);
        if (rc != REDIST_ERR_STATE)
            fail(name, "after an MPI error: execute returned %d (%s), expected REDIST_ERR_STATE",
                 rc, redist_error_name(rc));
        redist_plan_free(&plan);
        if (create(c, &plan) != REDIST_SUCCESS)
            fail(name, "a new plan cannot be made after an MPI error");
    }
    if (run_and_check(c, plan, 0) != REDIST_SUCCESS)
        fail(name, "the plan does not work after an MPI error");
    redist_plan_free(&plan);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const spec s2 = {2, {13, 11}, {2, 3}, {size, 1}, REDIST_COL_MAJOR};
    const spec d2 = {2, {13, 11}, {3, 2}, {1, size}, REDIST_ROW_MAJOR};
    const spec s1 = {1, {61, 1}, {2, 1}, {size, 1}, REDIST_ROW_MAJOR};
    const spec d1 = {1, {61, 1}, {6, 1}, {size, 1}, REDIST_ROW_MAJOR};
    int nalg = redist_algorithm_count();
    for (int v = -1; v <= nalg + 3; v++)
        for (int pair = 0; pair < 2; pair++) {
            /* Above 4 ranks (oversubscribed here, about 20 ms per plan) only auto and the
               pack transport: the other algorithms' sites are swept at 1-4 ranks. */
            if (size > 4 && v != -1 && v != nalg + 2)
                continue;
            fault_case c = {0};
            c.kind = PLAIN;
            c.s = pair ? s1 : s2;
            c.d = pair ? d1 : d2;
            char name[96];
            const char *alg = mtest_variant(v, &c.opt);
            snprintf(name, sizeof name, "%s (variant %d), %d-D", alg, v, c.s.nd);
            c.name = name;
            allocation_failures(&c);
            if (v == -1 && pair == 0)
                window_failure(&c);
            if (v == 0 || v == nalg + 2)
                execute_failure(&c);
        }
    static const char *const names[] = {
        "", "permuted and scaled", "irregular blocks", "windows", "batch", "bmmc", "layouts"};
    for (int kind = PERMUTED; kind <= LAYOUTS; kind++) {
        fault_case c = {0};
        c.kind = kind;
        c.s = s2;
        c.d = kind == PERMUTED ? (spec){2, {11, 13}, {3, 2}, {1, size}, REDIST_ROW_MAJOR} : d2;
        c.name = names[kind];
        redist_options_init(&c.opt);
        if (kind == PERMUTED) {
            c.perm[0] = 1;
            c.perm[1] = 0;
            c.opt.permutation = c.perm;
            c.opt.alpha[0] = 2; /* exact in doubles: the check compares 2 g */
        }
        if (kind == BMMC && (size & (size - 1)) != 0)
            continue; /* BMMC needs a power-of-two number of ranks */
        allocation_failures(&c);
    }
    return mtest_finalize(errs);
}
