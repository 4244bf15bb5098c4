/* threads: 3 */
/* Regression tests for hangs and crashes on legal input, run with every algorithm the library
 * lists.
 *
 *  1. A hang once seen: all data on the last rank, every other rank idle passing NULL, NULL,
 *     executed again and again (Open MPI took alltoallw's (NULL, NULL) for MPI_IN_PLACE); and
 *     source on rank 0 only, destination on the last rank only.
 *  2. A rank holding data on one side only passes one pointer as both src and dst (legal: the
 *     empty side has zero bytes).
 *  3. MPI_IN_PLACE as src or dst: REDIST_ERR_ARG on every rank, and the plan still works.
 *  4. MPI's persistent-request convention: redist_test/redist_wait on an idle plan (never
 *     started, or completed) succeed at once, test with done = 1; also for a BMMC plan.
 *  5. Out-of-range options: REDIST_ERR_ARG, *plan NULL, the detail names the field.
 *  6. MISMATCH names the argument that differs and the rank that differs from rank 0.
 *  7. A failure on one rank: the same code everywhere, every detail names the failing rank.
 *  8. Shared-memory and pack-buffer fallbacks (REDIST_SHM_LIMIT, REDIST_MEMORY_LIMIT).
 *  9. A plan too large for memory (10^10 doubles or more), never executed: SUCCESS with the
 *     datatype transport, or NOMEM everywhere; packing forced: NOMEM.
 * 10. Before MPI_Init: layouts work, plans give REDIST_ERR_MPI with a NULL handle.
 *
 * Every return code is compared across ranks (all must agree) and every destination element
 * is checked against the value computed from its global index; the source must stay intact.
 * A hang is reported with the step it happened in (watchdog), not left to ctest's timeout.
 * Options: -v prints each plan on rank 0 before it runs, -vv each execution.
 * Output: " No Errors" on success, else one line per failed check and " Found N errors".
 */
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "redist.h"
#include "support/mtest.h"

#define MAX_RANKS 64            /* layouts here use at most this many ranks */
#define GUARD 8                 /* doubles after each destination array that must not change */
#define TEST_LOOP_SECONDS 120.0 /* a redist_test loop running longer than this has hung */
#define MAX_ELEMENT_REPORTS 4   /* wrong elements printed per check and rank */

static int rank, size, errs;
static int plans_run, plans_skipped;
static int verbose; /* -v: rank 0 names each plan before running it, -vv each execution */

/* A watchdog: a blocking call that never returns is a hang, reported with the step
   it happened in instead of waiting for ctest's timeout. Re-armed at every step. */
#define WATCHDOG_SECONDS 150 /* longer than TEST_LOOP_SECONDS: that guard reports first */
static char watch_line[512]; /* the whole report, written at once by the handler */
static size_t watch_len;
static void on_watchdog(int sig)
{
    (void)sig;
    ssize_t ignored = write(STDOUT_FILENO, watch_line, watch_len);
    (void)ignored;
    _exit(1);
}
static void step(int level, const char *what)
{
    alarm(0);
    int n =
        snprintf(watch_line, sizeof watch_line, "[rank %d] no progress for %d s (hang) in: %s\n",
                 rank, WATCHDOG_SECONDS, what);
    watch_len = n < 0 ? 0 : (size_t)n < sizeof watch_line ? (size_t)n : sizeof watch_line - 1;
    alarm(WATCHDOG_SECONDS);
    if (verbose >= level && rank == 0) {
        printf("%s\n", what);
        fflush(stdout);
    }
}

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

/* A non-NULL garbage handle: output handles start as this, so that a failed create that does
   not set them to NULL is seen. */
static void *garbage_handle(void)
{
    return (void *)(uintptr_t)0x51;
}

/* rc must be the same on every rank and be want1 or want2. Returns 1 if it is. */
static int expect2(const char *what, int rc, int want1, int want2)
{
    int mn, mx;
    MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int ok = 1;
    if (mn != mx) {
        fail(what, "different codes on different ranks (min %d, max %d, here %d %s)", mn, mx, rc,
             redist_error_name(rc));
        ok = 0;
    }
    if (rc != want1 && rc != want2) {
        fail(what, "returned %d %s (\"%s\"), expected %s%s%s", rc, redist_error_name(rc),
             redist_last_error_detail(), redist_error_name(want1), want2 != want1 ? " or " : "",
             want2 != want1 ? redist_error_name(want2) : "");
        ok = 0;
    }
    return ok;
}
static int expect(const char *what, int rc, int want)
{
    return expect2(what, rc, want, want);
}

/* 1 if cond holds on every rank. */
static int all_ranks(int cond)
{
    int all = 0;
    MPI_Allreduce(&cond, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* The detail of the last failure on this rank must contain `needle`. */
static void expect_detail(const char *what, const char *needle)
{
    const char *d = redist_last_error_detail();
    if (d == NULL || strstr(d, needle) == NULL)
        fail(what, "the detail \"%s\" does not mention \"%s\"", d ? d : "(NULL)", needle);
}

/* The detail must name rank r as "rank r" (not as the prefix of a longer number). */
static void expect_detail_rank(const char *what, int r)
{
    char needle[32];
    snprintf(needle, sizeof needle, "rank %d", r);
    const char *d = redist_last_error_detail(), *p = d;
    size_t n = strlen(needle);
    while (p != NULL && (p = strstr(p, needle)) != NULL) {
        if (p[n] < '0' || p[n] > '9')
            return;
        p += n;
    }
    fail(what, "the detail \"%s\" does not name %s", d ? d : "(NULL)", needle);
}

/* ---- 1-D cases and their data ---------------------------------------------------------- */

/* One side of a 1-D redistribution: cyclic(block) over nranks grid coordinates, coordinate c
   on rank ranks[c]. */
typedef struct {
    int64_t block;
    int nranks;
    int ranks[MAX_RANKS];
    int order;
} side_t;

typedef struct {
    const char *name;
    int64_t n;
    side_t src, dst;
    int one_pointer; /* a rank with data on one side only passes that array as src and dst */
} case_t;

/* The algorithms the header names (and "auto") and "general" handle every redistribution,
   [SD96]'s section algorithms those of their case (docs/algorithms.md). The others may
   answer NOT_APPLICABLE (on every rank alike). */
static int must_apply(const char *alg, const case_t *cs)
{
    static const char *names[] = {"auto", "direct-async", "direct", "alltoallv", "alltoallw"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(alg, names[i]) == 0)
            return 1;
    int sections = mtest_sections_apply(alg, 1, &cs->n, &cs->src.block, &cs->src.nranks,
                                        &cs->dst.block, &cs->dst.nranks);
    if (sections >= 0)
        return sections;
    return strcmp(alg, "general") == 0;
}

static side_t on_rank(int64_t block, int r, int order)
{
    side_t s = {block, 1, {r}, order};
    return s;
}
static side_t on_all(int64_t block, int reversed, int order)
{
    side_t s = {block, size < MAX_RANKS ? size : MAX_RANKS, {0}, order};
    for (int c = 0; c < s.nranks; c++)
        s.ranks[c] = reversed ? s.nranks - 1 - c : c;
    return s;
}

static int coord_of(const side_t *s, int r)
{
    for (int c = 0; c < s->nranks; c++)
        if (s->ranks[c] == r)
            return c;
    return -1;
}
/* Elements on coordinate c (ScaLAPACK's NUMROC), written independently of the library. */
static int64_t count_on(int64_t n, const side_t *s, int c)
{
    if (c < 0 || n == 0)
        return 0;
    int64_t b = s->block, P = s->nranks, nblocks = (n - 1) / b + 1;
    if (c >= nblocks)
        return 0;
    int64_t mine = (nblocks - 1 - c) / P + 1, count = mine * b;
    if ((nblocks - 1) % P == c)
        count -= nblocks * b - n; /* the last block is short */
    return count;
}
static int64_t global_of(const side_t *s, int c, int64_t l)
{
    return ((l / s->block) * s->nranks + c) * s->block + l % s->block;
}
static double value(int64_t g, int variant)
{
    return (double)g * 0.5 + 1.0 + variant * 1.0e7;
}

static redist_layout make_layout(int64_t n, const side_t *s)
{
    redist_layout l = NULL;
    int grid = s->nranks;
    int rc = redist_layout_create(1, &n, &s->block, &grid, NULL, s->ranks, s->order, &l);
    if (rc != REDIST_SUCCESS)
        fail("make_layout", "redist_layout_create failed: %s", redist_error_name(rc));
    return l;
}

/* This rank's arrays for a case, and the pointers it passes (NULL for an empty side, or the
   other side's array in a one_pointer case). */
typedef struct {
    const case_t *cs;
    int src_coord, dst_coord; /* this rank's coordinates (-1: not in the layout) */
    int64_t ns, nd;
    double *s, *d;
    const void *src_arg;
    void *dst_arg;
} bufs_t;

static bufs_t make_bufs(const case_t *cs)
{
    bufs_t B;
    memset(&B, 0, sizeof B);
    B.cs = cs;
    B.src_coord = coord_of(&cs->src, rank);
    B.dst_coord = coord_of(&cs->dst, rank);
    B.ns = count_on(cs->n, &cs->src, B.src_coord);
    B.nd = count_on(cs->n, &cs->dst, B.dst_coord);
    B.s = B.ns > 0 ? malloc(sizeof(double) * (size_t)B.ns) : NULL;
    B.d = B.nd > 0 ? malloc(sizeof(double) * (size_t)(B.nd + GUARD)) : NULL;
    B.src_arg = B.s;
    B.dst_arg = B.d;
    if (cs->one_pointer && B.ns > 0 && B.nd == 0)
        B.dst_arg = B.s;
    if (cs->one_pointer && B.nd > 0 && B.ns == 0)
        B.src_arg = B.d;
    return B;
}
static void free_bufs(bufs_t *B)
{
    free(B->s);
    free(B->d);
}

/* Fills the source with variant v and the destination (and its guard) with a pattern no
   result can have. */
static void fill(bufs_t *B, int v)
{
    for (int64_t l = 0; l < B->ns; l++)
        B->s[l] = value(global_of(&B->cs->src, B->src_coord, l), v);
    if (B->d != NULL)
        memset(B->d, 0xEE, sizeof(double) * (size_t)(B->nd + GUARD));
}

/* Every destination element, the guard after it, and every source element. */
static void check(const char *what, const bufs_t *B, int v)
{
    int64_t bad = 0;
    for (int64_t l = 0; l < B->nd; l++) {
        int64_t g = global_of(&B->cs->dst, B->dst_coord, l);
        if (B->d[l] != value(g, v) && bad++ < MAX_ELEMENT_REPORTS)
            fail(what, "dst[%lld] (global %lld) = %.17g, expected %.17g", (long long)l,
                 (long long)g, B->d[l], value(g, v));
    }
    if (bad > MAX_ELEMENT_REPORTS)
        fail(what, "%lld of %lld destination elements wrong", (long long)bad, (long long)B->nd);
    unsigned char guard[GUARD * sizeof(double)];
    memset(guard, 0xEE, sizeof guard);
    if (B->d != NULL && memcmp(B->d + B->nd, guard, sizeof guard) != 0)
        fail(what, "wrote past the end of the destination array");
    for (int64_t l = 0; l < B->ns; l++)
        if (B->s[l] != value(global_of(&B->cs->src, B->src_coord, l), v)) {
            fail(what, "source element %lld was modified", (long long)l);
            break;
        }
}

/* ---- execution helpers ----------------------------------------------------------------- */

/* Drives a started execution with redist_test. A loop that does not end is a hang:
   report it and abort (the test may abort; the library may not). */
static int test_loop(redist_plan plan, const char *what)
{
    int done = 0, rc = REDIST_SUCCESS;
    double t0 = MPI_Wtime();
    while (!done && rc == REDIST_SUCCESS) {
        rc = redist_test(plan, &done);
        if (!done && MPI_Wtime() - t0 > TEST_LOOP_SECONDS) {
            printf("[rank %d] %s: redist_test not done after %.0f s: hang\n", rank, what,
                   TEST_LOOP_SECONDS);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    return rc;
}

/* Item 4: on a plan with nothing in flight, test sets done = 1 and succeeds, wait succeeds,
   and `while (!done) redist_test(plan, &done)` ends after one call (MPI_Test/MPI_Wait on an
   inactive persistent request). */
static void check_idle(redist_plan plan, const char *when)
{
    char what[460];
    int done = 0;
    snprintf(what, sizeof what, "%s: redist_test on an idle plan", when);
    expect(what, redist_test(plan, &done), REDIST_SUCCESS);
    if (done != 1)
        fail(what, "done = %d, expected 1", done);
    snprintf(what, sizeof what, "%s: redist_wait on an idle plan", when);
    expect(what, redist_wait(plan), REDIST_SUCCESS);
    int calls = 0, rc = REDIST_SUCCESS;
    done = 0;
    while (!done && rc == REDIST_SUCCESS && calls < 1000) {
        rc = redist_test(plan, &done);
        calls++;
    }
    snprintf(what, sizeof what, "%s: while (!done) redist_test on an idle plan", when);
    expect(what, rc, REDIST_SUCCESS);
    if (!done || calls != 1)
        fail(what, "done = %d after %d calls, expected done after 1", done, calls);
}

/* redist_start, whose code must agree: if some ranks had an execution in flight and others
   not, the next collective call would hang, so a disagreement aborts the test. */
static int start_agreed(redist_plan plan, const void *s, void *d, const char *what)
{
    int rc = redist_start(plan, s, d), mn, mx;
    MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mn != mx) {
        printf("[rank %d] %s: redist_start returned different codes (min %d, max %d)\n", rank, what,
               mn, mx);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}

enum { VIA_EXECUTE, VIA_TEST, VIA_WAIT };
static const char *via_name[] = {"execute", "start + test loop", "start + wait"};

/* One execution of variant v through `via`, checked element by element. */
static void run_checked(redist_plan plan, bufs_t *B, int v, int via, const char *label)
{
    char what[360];
    snprintf(what, sizeof what, "%s: %s #%d", label, via_name[via], v);
    step(2, what);
    fill(B, v);
    int rc;
    if (via == VIA_EXECUTE) {
        rc = redist_execute(plan, B->src_arg, B->dst_arg);
    } else {
        rc = start_agreed(plan, B->src_arg, B->dst_arg, what);
        if (!expect(what, rc, REDIST_SUCCESS))
            return;
        rc = via == VIA_TEST ? test_loop(plan, what) : redist_wait(plan);
    }
    if (expect(what, rc, REDIST_SUCCESS))
        check(what, B, v);
    if (via != VIA_EXECUTE)
        check_idle(plan, what);
}

/* Item 3: MPI_IN_PLACE where the library expects an array. */
enum { NOWHERE, EVERY_RANK, RANK0, LAST_RANK };
static const struct {
    const char *name;
    int src_in_place, dst_in_place; /* on which ranks */
} in_place_cases[] = {
    {"dst MPI_IN_PLACE on every rank", NOWHERE, EVERY_RANK},
    {"dst MPI_IN_PLACE on the last rank", NOWHERE, LAST_RANK},
    {"src MPI_IN_PLACE on every rank", EVERY_RANK, NOWHERE},
    {"src MPI_IN_PLACE on rank 0", RANK0, NOWHERE},
};
static int here(int where)
{
    return where == EVERY_RANK || (where == RANK0 && rank == 0) ||
           (where == LAST_RANK && rank == size - 1);
}

/* A bad execution through start: start may refuse at once (ARG) or succeed and leave the
   error to wait, as test_errors.c accepts; either way the final code is ARG on every rank
   and nothing stays in progress. */
static void expect_arg_via_start(redist_plan plan, const void *s, void *d, const char *what)
{
    step(2, what);
    int rc = start_agreed(plan, s, d, what);
    expect2(what, rc, REDIST_ERR_ARG, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS)
        expect(what, redist_wait(plan), REDIST_ERR_ARG);
    check_idle(plan, what);
}

static void check_in_place(redist_plan plan, bufs_t *B, const char *label)
{
    for (size_t i = 0; i < sizeof in_place_cases / sizeof in_place_cases[0]; i++) {
        char what[260];
        const void *s = here(in_place_cases[i].src_in_place) ? MPI_IN_PLACE : B->src_arg;
        void *d = here(in_place_cases[i].dst_in_place) ? MPI_IN_PLACE : B->dst_arg;
        snprintf(what, sizeof what, "%s: execute, %s", label, in_place_cases[i].name);
        fill(B, 10);
        step(2, what);
        expect(what, redist_execute(plan, s, d), REDIST_ERR_ARG);
        snprintf(what, sizeof what, "%s: after execute with %s", label, in_place_cases[i].name);
        run_checked(plan, B, 11, VIA_EXECUTE, what);

        snprintf(what, sizeof what, "%s: start, %s", label, in_place_cases[i].name);
        fill(B, 12);
        expect_arg_via_start(plan, s, d, what);
        snprintf(what, sizeof what, "%s: after start with %s", label, in_place_cases[i].name);
        run_checked(plan, B, 13, VIA_WAIT, what);
    }
}

/* Creates a plan with algorithm alg. Returns 1 with *plan set if every rank has one; 0 if
   the algorithm does not apply (everywhere) or creation failed (reported). */
static int create_plan(const char *what, const case_t *cs, redist_layout ls, redist_layout ld,
                       const redist_options *opt, redist_plan *plan)
{
    int rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, opt, plan);
    const char *alg = opt->algorithm ? opt->algorithm : "auto";
    if (all_ranks(rc == REDIST_ERR_NOT_APPLICABLE) && !must_apply(alg, cs)) {
        plans_skipped++;
        return 0;
    }
    expect(what, rc, REDIST_SUCCESS);
    if (all_ranks(rc == REDIST_SUCCESS)) {
        plans_run++;
        return 1;
    }
    /* A plan that exists on some ranks only cannot be freed collectively: leak it. */
    return 0;
}

/* Items 1-4 for one case and one algorithm: idle checks on a fresh plan, four executes in a
   row, start + test loop, start + wait (each checked), then MPI_IN_PLACE. */
static void exercise(const case_t *cs, redist_layout ls, redist_layout ld, const char *alg)
{
    char label[160];
    snprintf(label, sizeof label, "%s, alg %s", cs->name, alg);
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = alg;
    redist_plan plan = NULL;
    step(1, label);
    if (!create_plan(label, cs, ls, ld, &opt, &plan))
        return;
    bufs_t B = make_bufs(cs);

    check_idle(plan, label); /* never started */
    for (int v = 0; v < 4; v++)
        run_checked(plan, &B, v, VIA_EXECUTE, label);
    run_checked(plan, &B, 4, VIA_TEST, label);
    run_checked(plan, &B, 5, VIA_WAIT, label);
    check_in_place(plan, &B, label);

    expect(label, redist_plan_free(&plan), REDIST_SUCCESS);
    free_bufs(&B);
}

static void run_case(const case_t *cs)
{
    redist_layout ls = make_layout(cs->n, &cs->src), ld = make_layout(cs->n, &cs->dst);
    if (ls != NULL && ld != NULL)
        for (int i = 0; i < redist_algorithm_count(); i++)
            exercise(cs, ls, ld, redist_algorithm_name(i));
    redist_layout_free(&ls);
    redist_layout_free(&ld);
}

/* Items 1-3 (and 4 on every plan). */
static void test_cases(void)
{
    int last = size - 1;
    case_t cases[] = {
        /* Item 1's hang: 2017 elements cyclic(7) -> cyclic(572) on the last rank alone, row
           order on one side and column order on the other; the others pass NULL, NULL. */
        {"the all-on-one-rank hang: n=2017 cyclic(7) row -> cyclic(572) col, all on the last rank",
         2017, on_rank(7, last, REDIST_ROW_MAJOR), on_rank(572, last, REDIST_COL_MAJOR), 0},
        /* The same with the source on rank 0 only: NULL for the empty side everywhere. */
        {"n=2017 cyclic(7) on rank 0 -> cyclic(572) on the last rank", 2017,
         on_rank(7, 0, REDIST_ROW_MAJOR), on_rank(572, last, REDIST_COL_MAJOR), 0},
        /* Item 2: ranks != 0 have source data only and pass (a, a); Open MPI read equal
           pointers as MPI_IN_PLACE. */
        {"one pointer: n=1000 cyclic(3) on all -> cyclic(4) on rank 0", 1000,
         on_all(3, 0, REDIST_ROW_MAJOR), on_rank(4, 0, REDIST_ROW_MAJOR), 1},
        /* The mirror: ranks != 0 have destination data only and pass (d, d). */
        {"one pointer: n=1000 cyclic(4) on rank 0 -> cyclic(3) on all", 1000,
         on_rank(4, 0, REDIST_COL_MAJOR), on_all(3, 0, REDIST_COL_MAJOR), 1},
        /* Every rank on both sides, the ordinary case, for items 3 and 4: once on the same
           ranks ([TCR96]'s algorithms apply), once with the ranks reversed on one side. */
        {"n=1009 cyclic(3) on all -> cyclic(5) on all", 1009, on_all(3, 0, REDIST_ROW_MAJOR),
         on_all(5, 0, REDIST_COL_MAJOR), 0},
        {"n=1009 cyclic(3) on all -> cyclic(5) on all, reversed", 1009,
         on_all(3, 0, REDIST_ROW_MAJOR), on_all(5, 1, REDIST_COL_MAJOR), 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i]);
}

/* ---- item 4 for BMMC plans ------------------------------------------------------------- */

/* The identity permutation of 2^10 doubles with f = 0 keeps element x on rank x mod P at
   offset x / P: cyclic(1) over all ranks on both sides, so the 1-D helpers check it. */
static void test_bmmc(void)
{
    step(1, "bmmc identity plan");
    if ((size & (size - 1)) != 0)
        return; /* BMMC needs a power-of-two communicator */
    const int n = 10;
    case_t cs = {"bmmc identity, n=2^10, f=0", (int64_t)1 << n, on_all(1, 0, REDIST_ROW_MAJOR),
                 on_all(1, 0, REDIST_ROW_MAJOR), 0};
    uint64_t cols[10];
    expect("bmmc: redist_bmmc_identity", redist_bmmc_identity(n, cols), REDIST_SUCCESS);
    redist_plan plan = NULL;
    int rc = redist_plan_create_bmmc(n, 0, cols, 0, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
    if (!expect(cs.name, rc, REDIST_SUCCESS) || !all_ranks(rc == REDIST_SUCCESS))
        return;
    bufs_t B = make_bufs(&cs);
    check_idle(plan, cs.name); /* never started */
    run_checked(plan, &B, 0, VIA_EXECUTE, cs.name);
    run_checked(plan, &B, 1, VIA_TEST, cs.name);
    run_checked(plan, &B, 2, VIA_WAIT, cs.name);
    check_in_place(plan, &B, cs.name);
    expect(cs.name, redist_plan_free(&plan), REDIST_SUCCESS);
    free_bufs(&B);
}

/* ---- item 5: option validation --------------------------------------------------------- */

static const struct {
    const char *field;
    size_t offset; /* of an int field of redist_options */
    int value;
} bad_options[] = {
    {"hybrid_degree", offsetof(redist_options, hybrid_degree), -5},
    {"check_arguments", offsetof(redist_options, check_arguments), 42},
    {"shared_memory", offsetof(redist_options, shared_memory), 2},
    {"synchronous_receive", offsetof(redist_options, synchronous_receive), -1},
    {"transport", offsetof(redist_options, transport), 7},
    {"bmmc_method", offsetof(redist_options, bmmc_method), 3},
};
#define NBAD_OPTIONS (sizeof bad_options / sizeof bad_options[0])

static void set_int_option(redist_options *opt, size_t offset, int value)
{
    memcpy((char *)opt + offset, &value, sizeof value);
}

/* A failed create must return ARG everywhere, leave *plan NULL and name the field. */
static void expect_bad_option(const char *what, int rc, redist_plan plan, const char *field)
{
    expect(what, rc, REDIST_ERR_ARG);
    if (rc != REDIST_SUCCESS && plan != NULL)
        fail(what, "failed but *plan is not NULL");
    if (rc != REDIST_SUCCESS)
        expect_detail(what, field);
    if (all_ranks(rc == REDIST_SUCCESS))
        redist_plan_free(&plan);
}

static void test_options(void)
{
    step(1, "option validation");
    int64_t n = 1009;
    case_t cs = {"options: n=1009 cyclic(3) -> cyclic(5)", n, on_all(3, 0, REDIST_ROW_MAJOR),
                 on_all(5, 1, REDIST_COL_MAJOR), 0};
    redist_layout ls = make_layout(n, &cs.src), ld = make_layout(n, &cs.dst);
    for (int a = -1; a < redist_algorithm_count(); a++) {
        for (size_t i = 0; i < NBAD_OPTIONS; i++) {
            char what[200];
            redist_options opt;
            redist_options_init(&opt);
            opt.algorithm = a < 0 ? NULL : redist_algorithm_name(a);
            set_int_option(&opt, bad_options[i].offset, bad_options[i].value);
            snprintf(what, sizeof what, "options: %s = %d, algorithm %s", bad_options[i].field,
                     bad_options[i].value, opt.algorithm ? opt.algorithm : "NULL");
            redist_plan plan = garbage_handle();
            int rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
            expect_bad_option(what, rc, plan, bad_options[i].field);
        }
    }
    /* The same through redist_plan_create_bmmc (power-of-two communicators only). */
    if ((size & (size - 1)) == 0) {
        uint64_t cols[10];
        redist_bmmc_identity(10, cols);
        for (size_t i = 0; i < NBAD_OPTIONS; i++) {
            char what[200];
            redist_options opt;
            redist_options_init(&opt);
            set_int_option(&opt, bad_options[i].offset, bad_options[i].value);
            snprintf(what, sizeof what, "options: bmmc plan, %s = %d", bad_options[i].field,
                     bad_options[i].value);
            redist_plan plan = garbage_handle();
            int rc =
                redist_plan_create_bmmc(10, 0, cols, 0, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
            expect_bad_option(what, rc, plan, bad_options[i].field);
        }
    }

    /* hybrid_degree -1 (the model chooses) and 1000 (more than there are: capped) are legal:
       "hybrid" plans (where it applies) and executes correctly; "auto" always plans. */
    static const int degrees[] = {-1, 1000};
    static const char *algs[] = {"hybrid", "auto"};
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 2; j++) {
            char what[200];
            redist_options opt;
            redist_options_init(&opt);
            opt.algorithm = algs[j];
            opt.hybrid_degree = degrees[i];
            snprintf(what, sizeof what, "options: hybrid_degree = %d, algorithm %s", degrees[i],
                     algs[j]);
            redist_plan plan = NULL;
            int rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
            expect2(what, rc, REDIST_SUCCESS,
                    must_apply(algs[j], &cs) ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE);
            if (!all_ranks(rc == REDIST_SUCCESS))
                continue;
            const char *chosen = redist_plan_algorithm(plan);
            if (j == 0 && (chosen == NULL || strcmp(chosen, "hybrid") != 0))
                fail(what, "the plan's algorithm is %s", chosen ? chosen : "NULL");
            bufs_t B = make_bufs(&cs);
            run_checked(plan, &B, 20, VIA_EXECUTE, what);
            free_bufs(&B);
            expect(what, redist_plan_free(&plan), REDIST_SUCCESS);
        }
    redist_layout_free(&ls);
    redist_layout_free(&ld);
}

/* ---- items 6 and 7: what the detail says when ranks disagree or one rank fails ---------- */

/* rc must be want on every rank; the detail must contain `field` (if not NULL) and name
   rank r (if r >= 0). */
static void expect_failure(const char *what, int rc, redist_plan *plan, int want, const char *field,
                           int r)
{
    expect(what, rc, want);
    if (rc != REDIST_SUCCESS) {
        if (*plan != NULL)
            fail(what, "failed but *plan is not NULL");
        if (field != NULL)
            expect_detail(what, field);
        if (r >= 0)
            expect_detail_rank(what, r);
    }
    if (all_ranks(rc == REDIST_SUCCESS))
        redist_plan_free(plan);
}

static void test_agreement(void)
{
    step(1, "mismatch and one-rank failures");
    int64_t n = 1009;
    int last = size - 1;
    side_t s3 = on_all(3, 0, REDIST_ROW_MAJOR), s4 = on_all(4, 0, REDIST_ROW_MAJOR),
           s5 = on_all(5, 0, REDIST_ROW_MAJOR);
    redist_layout l3 = make_layout(n, &s3), l4 = make_layout(n, &s4), l5 = make_layout(n, &s5);
    redist_plan plan = NULL;
    redist_options opt;

    if (size >= 2) {
        /* Item 6: every rank gets MISMATCH, naming the first differing argument and the
           lowest rank that differs from rank 0 (here the last). */
        for (int a = 0; a < redist_algorithm_count(); a++) {
            char what[200];
            redist_options_init(&opt);
            opt.algorithm = redist_algorithm_name(a);
            snprintf(what, sizeof what, "mismatch: src block on the last rank, algorithm %s",
                     opt.algorithm);
            plan = garbage_handle();
            int rc = redist_plan_create(rank == last ? l4 : l3, l5, MPI_DOUBLE, MPI_COMM_WORLD,
                                        &opt, &plan);
            expect_failure(what, rc, &plan, REDIST_ERR_MISMATCH, "src block", last);
        }
        redist_options_init(&opt);
        opt.algorithm = rank == last ? "direct" : "direct-async";
        plan = garbage_handle();
        int rc = redist_plan_create(l3, l5, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        expect_failure("mismatch: algorithm on the last rank", rc, &plan, REDIST_ERR_MISMATCH,
                       "algorithm", last);

        redist_options_init(&opt);
        opt.transport = rank == last ? REDIST_TRANSPORT_PACK : REDIST_TRANSPORT_DATATYPE;
        plan = garbage_handle();
        rc = redist_plan_create(l3, l5, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        expect_failure("mismatch: options.transport on the last rank", rc, &plan,
                       REDIST_ERR_MISMATCH, "options.transport", last);

        plan = garbage_handle();
        rc = redist_plan_create(l3, l5, rank == last ? MPI_INT : MPI_DOUBLE, MPI_COMM_WORLD, NULL,
                                &plan);
        expect_failure("mismatch: element size on the last rank", rc, &plan, REDIST_ERR_MISMATCH,
                       "element size", last);
        /* Types of equal size agree: the fingerprint is the element size, not the type. */
        plan = garbage_handle();
        rc = redist_plan_create(l3, l5, rank == last ? MPI_INT : MPI_FLOAT, MPI_COMM_WORLD, NULL,
                                &plan);
        expect("MPI_INT on the last rank, MPI_FLOAT elsewhere (same size)", rc, REDIST_SUCCESS);
        if (all_ranks(rc == REDIST_SUCCESS))
            redist_plan_free(&plan);
    }

    /* Item 7: one rank fails alone; every rank returns its code and names it. */
    {
        int beyond = size; /* one past the last rank of the communicator */
        side_t bad = on_rank(3, beyond, REDIST_ROW_MAJOR);
        redist_layout lb = make_layout(n, &bad);
        plan = garbage_handle();
        int rc =
            redist_plan_create(rank == last ? lb : l3, l5, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
        expect_failure("one rank fails: the last rank's layout uses rank == comm size", rc, &plan,
                       REDIST_ERR_ARG, NULL, last);
        redist_layout_free(&lb);

        redist_options_init(&opt);
        opt.algorithm = rank == 0 ? "no-such-algorithm" : "direct";
        plan = garbage_handle();
        rc = redist_plan_create(l3, l5, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        expect_failure("one rank fails: unknown algorithm on rank 0 only", rc, &plan,
                       REDIST_ERR_UNKNOWN_ALGORITHM, NULL, 0);
    }
    redist_layout_free(&l3);
    redist_layout_free(&l4);
    redist_layout_free(&l5);
}

/* ---- items 8 and 9: memory limits ------------------------------------------------------ */

/* A 1-D cyclic(3) -> cyclic(5) plan of n doubles over all ranks. */
static int plan_3_to_5(int64_t n, const char *alg, int transport, redist_plan *plan)
{
    side_t s = on_all(3, 0, REDIST_ROW_MAJOR), d = on_all(5, 0, REDIST_ROW_MAJOR);
    redist_layout ls = make_layout(n, &s), ld = make_layout(n, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = alg;
    opt.transport = transport;
    *plan = garbage_handle();
    int rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, plan);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
    return rc;
}

static redist_stats stats_of(redist_plan plan)
{
    redist_stats st;
    memset(&st, 0, sizeof st);
    if (redist_plan_stats(plan, &st) != REDIST_SUCCESS)
        fail("redist_plan_stats", "failed");
    return st;
}

/* What a memory case expects: the code (SUCCESS, or NOMEM; -1: either) and, on success, the
   stats (-1: not checked). */
typedef struct {
    int rc, transport, shm, bounded;
} want_t;

/* Creates the item 8 plan, checks its code and stats, executes it, frees it. */
static void memory_case(const char *what, const char *alg, int transport, want_t want)
{
    const int64_t n = 100000;
    case_t cs = {what, n, on_all(3, 0, REDIST_ROW_MAJOR), on_all(5, 0, REDIST_ROW_MAJOR), 0};
    redist_plan plan = garbage_handle();
    int rc = plan_3_to_5(n, alg, transport, &plan);
    expect2(what, rc, want.rc >= 0 ? want.rc : REDIST_SUCCESS,
            want.rc >= 0 ? want.rc : REDIST_ERR_NOMEM);
    if (rc != REDIST_SUCCESS && plan != NULL)
        fail(what, "failed but *plan is not NULL");
    if (!all_ranks(rc == REDIST_SUCCESS))
        return;
    redist_stats st = stats_of(plan);
    if (want.shm >= 0 && st.shared_memory != want.shm)
        fail(what, "stats.shared_memory = %d, expected %d", st.shared_memory, want.shm);
    if (want.transport >= 0 && st.transport != want.transport)
        fail(what, "stats.transport = %d, expected %d", st.transport, want.transport);
    if (want.bounded >= 0 && st.bounded != want.bounded)
        fail(what, "stats.bounded = %d, expected %d", st.bounded, want.bounded);
    bufs_t B = make_bufs(&cs);
    run_checked(plan, &B, 30, VIA_EXECUTE, what);
    run_checked(plan, &B, 31, VIA_TEST, what);
    free_bufs(&B);
    expect(what, redist_plan_free(&plan), REDIST_SUCCESS);
}

/* Bytes rank r sends to and receives from other ranks for cyclic(3) -> cyclic(5) of n doubles
   over all ranks (its default mode's pack buffers), counted over one period of 15 P
   elements. */
static double rank_traffic(int64_t n, int r)
{
    int64_t L = 15 * (int64_t)size, periods = n / L, rest = n % L, moved = 0;
    for (int64_t g = 0; g < L; g++) {
        int s = (int)((g / 3) % size), d = (int)((g / 5) % size);
        if (s != d && (s == r || d == r))
            moved += periods + (g < rest ? 1 : 0);
    }
    return (double)moved * sizeof(double);
}

/* Item 8: a shared-memory window that would not fit falls back to MPI messages; pack buffers
   that would not fit take bounded mode (chunks through a few slots) where the algorithm runs
   bounded, else the datatype transport, or NOMEM if packing is forced. The limits are read at
   plan creation (src/core/sysmem.c); the memory limit is a node's, shared by its ranks, so
   what the case implies depends on the ranks per node (mtest_memory_under). */
static void test_memory_fallbacks(void)
{
    step(1, "memory fallbacks");
    int multi = size >= 2; /* a single rank has nothing to send */
    MPI_Comm node;
    int node_size = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    int one_node = all_ranks(node_size == size); /* then a window is expected */
    setenv("REDIST_SHM_LIMIT", "1000", 1);
    memory_case("REDIST_SHM_LIMIT=1000: direct-async, pack", "direct-async", REDIST_TRANSPORT_PACK,
                (want_t){REDIST_SUCCESS, REDIST_TRANSPORT_PACK, multi ? 0 : -1, 0});
    unsetenv("REDIST_SHM_LIMIT");
    memory_case("no REDIST_SHM_LIMIT: direct-async, pack", "direct-async", REDIST_TRANSPORT_PACK,
                (want_t){REDIST_SUCCESS, REDIST_TRANSPORT_PACK, multi && one_node ? 1 : -1, 0});

    mtest_memory m = mtest_memory_under(100000, rank_traffic(100000, rank));
    int no_room = m.cannot_fit && m.bound < 2 * (int64_t)sizeof(double);
    /* Bounded where a node's buffers exceed the limit (its slots in the window on one node),
       the default mode where every rank's fit its share; NOMEM where not even two elements
       fit a rank's bounded share. */
    want_t bounded = {no_room ? REDIST_ERR_NOMEM : REDIST_SUCCESS, REDIST_TRANSPORT_PACK,
                      multi && one_node ? 1 : -1, 1};
    want_t either = {-1, -1, -1, -1}, fits = {REDIST_SUCCESS, -1, -1, 0};
    want_t may_bound = m.cannot_fit ? bounded : m.must_fit ? fits : either;
    want_t datatype = {REDIST_SUCCESS, REDIST_TRANSPORT_DATATYPE, -1, 0};
    want_t nomem = {REDIST_ERR_NOMEM, -1, -1, -1};
    if (rank == 0 && verbose)
        printf("REDIST_MEMORY_LIMIT=100000 over %d ranks per node: %s\n", m.node_ranks,
               no_room        ? "no room"
               : m.cannot_fit ? "bounded"
               : m.must_fit   ? "fits"
                              : "either");
    setenv("REDIST_MEMORY_LIMIT", "100000", 1);
    memory_case("REDIST_MEMORY_LIMIT=100000: direct-async, transport auto", "direct-async",
                REDIST_TRANSPORT_AUTO, may_bound);
    memory_case("REDIST_MEMORY_LIMIT=100000: direct-async, pack", "direct-async",
                REDIST_TRANSPORT_PACK, may_bound);
    memory_case("REDIST_MEMORY_LIMIT=100000: auto", NULL, REDIST_TRANSPORT_AUTO, may_bound);
    memory_case("REDIST_MEMORY_LIMIT=100000: direct, transport auto", "direct",
                REDIST_TRANSPORT_AUTO, m.cannot_fit ? datatype : fits);
    memory_case("REDIST_MEMORY_LIMIT=100000: direct, pack", "direct", REDIST_TRANSPORT_PACK,
                m.cannot_fit ? nomem
                : m.must_fit ? fits
                             : either);
    unsetenv("REDIST_MEMORY_LIMIT");
}

/* Item 9: at least 10^10 doubles (80 GB), planned but never executed. Where a node's pack
   buffers for 10^10 would still fit (a few ranks on a node with much memory), the array grows
   until they need twice its physical memory: the case is a plan that cannot fit, and a plan
   that did fit would reserve tens of GB per rank (slow under ASan, which writes their
   shadow). */
static void test_huge_plan(void)
{
    step(1, "plan too large for memory");
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    int64_t n = 10000000000LL;
    mtest_memory m = mtest_memory_under(phys, rank_traffic(n, rank));
    if (m.node_need > 0 && m.node_need < 2 * phys)
        n = (int64_t)((double)n * (2 * phys / m.node_need)) + 1;
    m = mtest_memory_under(phys, rank_traffic(n, rank));
    /* Pack buffers that exceed the node's physical memory must be refused. With one rank
       nothing moves. */
    char what[200];

    redist_plan plan = NULL;
    int rc = plan_3_to_5(n, NULL, REDIST_TRANSPORT_AUTO, &plan);
    snprintf(what, sizeof what,
             "%.3g doubles, default options (%.3g GB per rank at most, %d ranks on a node of "
             "%.3g GB)",
             (double)n, m.rank_need / 1e9, m.node_ranks, phys / 1e9);
    expect2(what, rc, REDIST_SUCCESS, REDIST_ERR_NOMEM);
    if (rc != REDIST_SUCCESS && plan != NULL)
        fail(what, "failed but *plan is not NULL");
    if (all_ranks(rc == REDIST_SUCCESS)) {
        redist_stats st = stats_of(plan);
        if (m.cannot_fit && !st.bounded)
            fail(what, "succeeded in the default mode, not bounded");
        if (st.buffer_bytes > ((int64_t)64 << 20))
            fail(what, "holds %lld bytes of buffers", (long long)st.buffer_bytes);
        redist_plan_free(&plan);
    }

    rc = plan_3_to_5(n, "direct", REDIST_TRANSPORT_PACK, &plan);
    snprintf(what, sizeof what,
             "%.3g doubles, direct, pack (%.3g GB per rank at most, %d ranks on a node of %.3g "
             "GB)",
             (double)n, m.rank_need / 1e9, m.node_ranks, phys / 1e9);
    if (m.cannot_fit)
        expect(what, rc, REDIST_ERR_NOMEM);
    else
        expect2(what, rc, REDIST_SUCCESS, REDIST_ERR_NOMEM);
    if (rc != REDIST_SUCCESS && plan != NULL)
        fail(what, "failed but *plan is not NULL");
    if (all_ranks(rc == REDIST_SUCCESS))
        redist_plan_free(&plan);
}

/* ---- item 10: before MPI_Init ---------------------------------------------------------- */

/* Results of the calls made before MPI_Init, reported once ranks are known. */
typedef struct {
    int layout_rc, layout_null, bad_layout_rc, bad_layout_set, plan_rc, plan_set, bmmc_rc, bmmc_set;
} pre_init_t;

static pre_init_t before_mpi_init(void)
{
    pre_init_t r;
    int64_t n = 100, b = 3;
    int grid = 1;
    redist_layout l = NULL;
    r.layout_rc = redist_layout_create(1, &n, &b, &grid, NULL, NULL, REDIST_ROW_MAJOR, &l);
    r.layout_null = l == NULL;

    int64_t zero = 0;
    redist_layout bad = (redist_layout)garbage_handle();
    r.bad_layout_rc = redist_layout_create(1, &n, &zero, &grid, NULL, NULL, REDIST_ROW_MAJOR, &bad);
    r.bad_layout_set = bad != NULL;

    redist_plan plan = garbage_handle();
    r.plan_rc = redist_plan_create(l, l, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
    r.plan_set = plan != NULL;

    uint64_t cols[4];
    redist_bmmc_identity(4, cols);
    plan = garbage_handle();
    r.bmmc_rc = redist_plan_create_bmmc(4, 0, cols, 0, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
    r.bmmc_set = plan != NULL;
    redist_layout_free(&l);
    return r;
}

static void report_before_mpi_init(const pre_init_t *r)
{
    if (r->layout_rc != REDIST_SUCCESS || r->layout_null)
        fail("before MPI_Init: redist_layout_create", "returned %s (layout %s)",
             redist_error_name(r->layout_rc), r->layout_null ? "NULL" : "set");
    expect("before MPI_Init: redist_layout_create with block 0", r->bad_layout_rc, REDIST_ERR_ARG);
    if (r->bad_layout_set)
        fail("before MPI_Init: redist_layout_create with block 0", "*layout is not NULL");
    expect("before MPI_Init: redist_plan_create", r->plan_rc, REDIST_ERR_MPI);
    if (r->plan_set)
        fail("before MPI_Init: redist_plan_create", "*plan is not NULL");
    expect("before MPI_Init: redist_plan_create_bmmc", r->bmmc_rc, REDIST_ERR_MPI);
    if (r->bmmc_set)
        fail("before MPI_Init: redist_plan_create_bmmc", "*plan is not NULL");
}

int main(int argc, char **argv)
{
    pre_init_t pre = before_mpi_init(); /* item 10: no MPI call may come before this */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size > MAX_RANKS) {
        if (rank == 0)
            printf("test_hostile: at most %d ranks\n", MAX_RANKS);
        MPI_Finalize();
        return 2;
    }

    verbose = argc < 2 ? 0 : strcmp(argv[1], "-v") == 0 ? 1 : strcmp(argv[1], "-vv") == 0 ? 2 : 0;
    signal(SIGALRM, on_watchdog);
    report_before_mpi_init(&pre);
    test_cases();
    test_bmmc();
    test_options();
    test_agreement();
    test_memory_fallbacks();
    test_huge_plan();

    if (plans_run == 0)
        fail("test_hostile", "no plan was executed");
    if (rank == 0)
        printf("test_hostile: %d plans executed, %d not applicable\n", plans_run, plans_skipped);
    return mtest_finalize(errs);
}
