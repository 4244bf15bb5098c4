/* threads: 3 */
/* device: 3 2 */
/* Bounded mode (redist_options.max_buffer_bytes; src/exec/strip.c): the data moves in chunks
 * through at most the bound of buffers per rank.
 *
 * For 1-D and 2-D pairs (cyclic -> cyclic on all ranks, Block -> Cyclic onto other ranks,
 * a transposed grid with the storage order changing, an element type of 24 bytes), with
 * bounds from two elements to 1 MiB and the algorithms that run bounded (auto, direct-async,
 * and a section algorithm where its case holds): every element checked, through execute and
 * through start / test with work in between; the plan says bounded, packs, uses no shared
 * window, and holds at most the bound (redist_stats.buffer_bytes, and the heap growth that
 * plan creation causes, measured with mallinfo2 or the sanitizer's count, against the default
 * mode's). Plans whose default buffers would not fit (REDIST_MEMORY_LIMIT) take bounded mode by
 * themselves. Errors, agreed on every rank: a bound below two elements, a negative bound, the
 * datatype transport with a bound, and a forced algorithm that cannot bound its buffers.
 * REDIST_TEST_MEMORY=cuda or auto (support/mdevice.h): the executed plans' arrays in device
 * memory (auto: source and destination in device or host memory by turns), copied back to the
 * host to be checked; the error cases stay on host memory, and the arrays are smaller (the 1-D
 * cyclic pair 100 times, the others 4 times: the emulated device's staging of each small chunk
 * in pieces is slow).
 */
#include "redist.h"
#include "support/mdevice.h"
#include "support/mtest.h"

#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Under a sanitizer (gcc's macros, clang's __has_feature: make tsan builds with clang) the
   sanitizer's allocator replaces malloc, so mallinfo2 sees nothing; it counts for us
   (declared here: gcc ships no <sanitizer/allocator_interface.h>). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZER_HEAP 1
#endif
#endif
#ifdef SANITIZER_HEAP
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

static int errs, rank, size;
static int plans_run; /* plans run by run_checked */
static int nexec; /* executes so far (REDIST_TEST_MEMORY=auto: which arrays are on the device) */
#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

#define MAX_RANKS 1024 /* the rank lists below hold at most this many */

typedef struct side {
    int nd;
    int64_t block[2];
    int grid[2], first[2], ranks[MAX_RANKS], order;
} side;

typedef struct pair {
    const char *name;
    int64_t n[2];
    side src, dst;
    MPI_Datatype type;
    int es;            /* bytes per element (doubles per element times 8) */
    const char *algo;  /* a section algorithm that applies, or NULL */
    int64_t bounds[4]; /* the bounds to run (0: none) */
} pair;

static redist_layout make(const pair *c, const side *s)
{
    redist_layout l = NULL;
    if (redist_layout_create(s->nd, c->n, s->block, s->grid, s->first, s->ranks, s->order, &l))
        fail(c->name, "layout: %s", redist_last_error_detail());
    return l;
}

/* Fills (check = 0) or checks this rank's local array: the element at global row-major index
   g holds the doubles g, g + 0.5, ... (es / 8 of them). Returns the wrong elements. */
static int64_t walk(redist_layout l, const pair *c, const side *s, double *a, int check)
{
    int64_t count = 0, shape[2] = {1, 1}, bad = 0;
    int coords[2] = {0, 0}, per = c->es / 8;
    redist_layout_local_size(l, rank, &count);
    if (count == 0 || redist_layout_coords(l, rank, coords) != 1)
        return 0;
    redist_layout_local_shape(l, rank, shape);
    mtest_globals it;
    if (mtest_globals_open(&it, s->nd, c->n, s->block, s->grid, s->first, s->order, shape,
                           coords) != 0)
        return count; /* no oracle: every element counts as wrong */
    for (int64_t i = 0; i < count; i++) {
        int64_t g = mtest_globals_next(&it);
        for (int v = 0; v < per; v++) {
            double want = (double)g + 0.5 * v;
            if (check)
                bad += a[i * per + v] != want;
            else
                a[i * per + v] = want;
        }
    }
    mtest_globals_close(&it);
    return bad;
}

/* Bytes in use on this process's heap: the sanitizer's count under a sanitizer (its
   allocator replaces malloc's arenas), else glibc's. */
static size_t heap_in_use(void)
{
#ifdef SANITIZER_HEAP
    return __sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
#endif
}

static int use_shm; /* plans take the shared-memory transport (where the node allows it) */

/* memory: options.memory (the plans that run: mtest_test_memory(); the error cases: host). */
static redist_plan plan_of(const pair *c, redist_layout ls, redist_layout ld, const char *algo,
                           int64_t bound, int transport, int memory, int *rc_out,
                           size_t *heap_growth)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = algo;
    opt.memory = memory;
    opt.max_buffer_bytes = bound;
    opt.transport = transport;
    opt.shared_memory = use_shm; /* off: every buffer on this process's heap, where mallinfo2
                                    sees it */
    redist_plan plan = NULL;
    size_t before = heap_in_use();
    int rc = redist_plan_create(ls, ld, c->type, MPI_COMM_WORLD, &opt, &plan);
    size_t after = heap_in_use();
    if (heap_growth != NULL)
        *heap_growth = after > before ? after - before : 0;
    if (!mtest_all_same(rc))
        fail(c->name, "%s bound %lld: different codes on different ranks", algo ? algo : "auto",
             (long long)bound);
    *rc_out = rc;
    return plan;
}

/* Runs plan twice (execute; start, test with work between, wait) and checks every element. */
static void run_checked(const pair *c, redist_plan plan, redist_layout ls, redist_layout ld,
                        const char *what)
{
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(ls, rank, &ns);
    redist_layout_local_size(ld, rank, &nd);
    int per = c->es / 8;
    double *a = ns ? malloc((size_t)(ns * per) * sizeof *a) : NULL;
    double *b = nd ? malloc((size_t)(nd * per) * sizeof *b) : NULL;
    size_t abytes = (size_t)(ns * per) * sizeof *a, bbytes = (size_t)(nd * per) * sizeof *b;
    void *da = mtest_device_alloc(abytes), *db = mtest_device_alloc(bbytes); /* device twins */
    walk(ls, c, &c->src, a, 0);
    plans_run++;
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t i = 0; i < nd * per; i++)
            b[i] = -1;
        int sd = mtest_on_device(nexec, 0), dd = mtest_on_device(nexec++, 1);
        void *x = mtest_device_in(a, da, abytes, sd), *y = mtest_device_in(b, db, bbytes, dd);
        int rc;
        if (pass == 0) {
            rc = redist_execute(plan, x, y);
        } else {
            rc = redist_start(plan, x, y);
            volatile double work = 0;
            int done = 0;
            for (int t = 0; rc == REDIST_SUCCESS && !done && t < 1000; t++) {
                for (int w = 0; w < 2000; w++) /* the user's computation */
                    work += w * 0.5;
                rc = redist_test(plan, &done);
            }
            if (rc == REDIST_SUCCESS && !done)
                rc = redist_wait(plan);
        }
        mtest_device_out(b, db, bbytes, dd);
        int64_t bad = rc == REDIST_SUCCESS ? walk(ld, c, &c->dst, b, 1) : -1;
        if (rc != REDIST_SUCCESS || bad)
            fail(what, "%s: rc %d, %lld elements wrong", pass ? "start/test" : "execute", rc,
                 (long long)bad);
    }
    free(a);
    free(b);
    mtest_device_free(da);
    mtest_device_free(db);
}

static void check_stats(redist_plan plan, int64_t bound, const char *what)
{
    redist_stats st;
    redist_plan_stats(plan, &st);
    if (!st.bounded)
        fail(what, "stats.bounded = 0");
    if (st.buffer_bytes > bound)
        fail(what, "holds %lld bytes of buffers, bound %lld", (long long)st.buffer_bytes,
             (long long)bound);
    /* One node here: with the transport on, the chunks go through the
       shared window. */
    if (st.transport != REDIST_TRANSPORT_PACK || st.shared_memory != use_shm)
        fail(what, "transport %d, shared memory %d", st.transport, st.shared_memory);
}

static void run_pair(const pair *c)
{
    redist_layout ls = make(c, &c->src), ld = make(c, &c->dst);
    if (ls == NULL || ld == NULL)
        return;
    int rc;
    size_t grow_default = 0, grow_bounded = 0;
    redist_plan plan =
        plan_of(c, ls, ld, NULL, 0, REDIST_TRANSPORT_PACK, mtest_test_memory(), &rc, &grow_default);
    redist_stats def;
    memset(&def, 0, sizeof def);
    if (rc == REDIST_SUCCESS)
        redist_plan_stats(plan, &def);
    if (rc == REDIST_SUCCESS) {
        redist_stats st;
        redist_plan_stats(plan, &st);
        if (st.bounded)
            fail(c->name, "the default mode says bounded");
        run_checked(c, plan, ls, ld, c->name);
        redist_plan_free(&plan);
    } else {
        fail(c->name, "default plan: %s", redist_strerror(rc));
    }
    const int64_t *bounds = c->bounds;
    const char *algos[] = {NULL, "direct-async", c->algo};
    for (int a = 0; a < 6; a++)
        for (int b = 0; b < 4; b++) {
            if ((a % 3 == 2 && c->algo == NULL) || bounds[b] == 0)
                continue;
            use_shm = a >= 3; /* the chunks through MPI, then through the shared window */
            char what[200];
            snprintf(what, sizeof what, "%s, %s, bound %lld%s", c->name,
                     algos[a % 3] ? algos[a % 3] : "auto", (long long)bounds[b],
                     use_shm ? ", shared memory" : "");
            size_t grow = 0;
            plan = plan_of(c, ls, ld, algos[a % 3], bounds[b], REDIST_TRANSPORT_AUTO,
                           mtest_test_memory(), &rc, &grow);
            grow_bounded = use_shm ? grow_bounded : grow;
            if (rc != REDIST_SUCCESS) {
                fail(what, "plan: %s (%s)", redist_strerror(rc), redist_last_error_detail());
                continue;
            }
            check_stats(plan, bounds[b], what);
            /* The plan's own heap: its buffers (at most the bound) and its run lists. */
            if (bounds[b] == 1 << 20 && grow > (size_t)bounds[b] + (1u << 20))
                fail(what, "plan creation grew the heap by %zu bytes", grow);
            run_checked(c, plan, ls, ld, what);
            redist_plan_free(&plan);
        }
    use_shm = 0;
    /* The measurement sees buffers: the default mode's (without a shared window, so on the
       heap) make the heap grow by at least its buffer bytes. */
    if (def.buffer_bytes > 0 && !def.shared_memory && grow_default < (size_t)def.buffer_bytes)
        fail(c->name, "default plan: heap grew by %zu bytes, its buffers are %lld", grow_default,
             (long long)def.buffer_bytes);
    if (rank == 0)
        printf("%s: heap growth at plan creation: default %zu bytes (buffers %lld), last bounded "
               "plan %zu\n",
               c->name, grow_default, (long long)def.buffer_bytes, grow_bounded);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
}

static void expect_error(const pair *c, const char *algo, int64_t bound, int transport, int want,
                         const char *what)
{
    redist_layout ls = make(c, &c->src), ld = make(c, &c->dst);
    int rc;
    redist_plan plan = plan_of(c, ls, ld, algo, bound, transport, REDIST_MEMORY_HOST, &rc, NULL);
    if (rc != want)
        fail(what, "returned %s, expected %s", redist_error_name(rc), redist_error_name(want));
    if (plan != NULL) {
        fail(what, "*plan set on failure");
        if (rc == REDIST_SUCCESS)
            redist_plan_free(&plan);
    }
    redist_layout_free(&ls);
    redist_layout_free(&ld);
}

/* The rank holding global element (i, j) on side s (the layout rule of redist.h). */
static int owner(const side *s, const int64_t g[2])
{
    int at = 0;
    for (int k = 0; k < s->nd; k++)
        at = at * s->grid[k] + (int)((g[k] / s->block[k] + s->first[k]) % s->grid[k]);
    return s->ranks[at];
}

/* Bytes this rank sends to and receives from other ranks in pair c: its default mode's pack
   buffers, counted element by element from the layout rule. */
static double moved_bytes(const pair *c)
{
    int64_t moved = 0, g[2];
    for (g[0] = 0; g[0] < c->n[0]; g[0]++)
        for (g[1] = 0; g[1] < (c->src.nd > 1 ? c->n[1] : 1); g[1]++) {
            int from = owner(&c->src, g), to = owner(&c->dst, g);
            moved += from != to && (from == rank || to == rank);
        }
    return (double)moved * c->es;
}

/* REDIST_MEMORY_LIMIT = limit, forcing nothing else: what the case implies at this rank
   count (mtest_memory_under): the default mode where every rank's buffers fit its share of
   the node, bounded mode by itself within min(64 MiB, share / 16) where a node's do not, and
   REDIST_ERR_NOMEM where that bound is below two elements. */
static void fallback_at(const pair *c, double limit, double mine)
{
    char env[32], what[160];
    snprintf(env, sizeof env, "%.0f", limit);
    snprintf(what, sizeof what, "%s, memory limit %s", c->name, env);
    mtest_memory m = mtest_memory_under(limit, mine);
    int no_room = m.cannot_fit && m.bound < 2 * c->es;
    setenv("REDIST_MEMORY_LIMIT", env, 1);
    redist_layout ls = make(c, &c->src), ld = make(c, &c->dst);
    int rc;
    /* packing (the datatype transport needs no buffers, so it would fit anyway) */
    redist_plan plan =
        plan_of(c, ls, ld, NULL, 0, REDIST_TRANSPORT_PACK, mtest_test_memory(), &rc, NULL);
    unsetenv("REDIST_MEMORY_LIMIT"); /* the limit is read at plan creation */
    redist_stats st;
    memset(&st, 0, sizeof st);
    if (rc == REDIST_SUCCESS)
        redist_plan_stats(plan, &st);
    if (rank == 0)
        printf("%s: expected %s, got %s%s\n", what,
               no_room        ? "NOMEM"
               : m.cannot_fit ? "bounded"
               : m.must_fit   ? "default mode"
                              : "either",
               rc != REDIST_SUCCESS ? redist_error_name(rc) : "",
               rc != REDIST_SUCCESS ? ""
               : st.bounded         ? "bounded"
                                    : "default mode");
    if (rc == REDIST_SUCCESS) {
        if (no_room || (m.cannot_fit && !st.bounded) || (m.must_fit && st.bounded) ||
            (st.bounded && st.buffer_bytes > m.bound))
            fail(what,
                 "bounded %d with %lld bytes of buffers (%d ranks on a node; node's "
                 "default buffers %s, bound %lld)",
                 st.bounded, (long long)st.buffer_bytes, m.node_ranks,
                 m.cannot_fit ? "exceed it"
                 : m.must_fit ? "fit"
                              : "near it",
                 (long long)m.bound);
        run_checked(c, plan, ls, ld, what);
        redist_plan_free(&plan);
    } else if (!(rc == REDIST_ERR_NOMEM && (no_room || (!m.must_fit && !m.cannot_fit)))) {
        fail(what, "plan: %s (%s)", redist_strerror(rc), redist_last_error_detail());
    }
    redist_layout_free(&ls);
    redist_layout_free(&ld);
}

/* Limits below, near and above the default mode's buffers: 200000 bytes (16 ranks of one node
   hold 60 kB each of the Block -> Cyclic pair: bounded there, although one rank's fit), half
   the smallest node's default buffers, twice what every rank needs with room to spare, and
   a byte less than a bounded share of two elements per rank (NOMEM wherever data moves). */
static void fallback(const pair *c)
{
    double mine = moved_bytes(c);
    mtest_memory m = mtest_memory_under(200000, mine); /* the needs, whatever the limit */
    fallback_at(c, 200000, mine);
    fallback_at(c, m.node_need / 2 > 1000 ? m.node_need / 2 : 1000, mine);
    fallback_at(c, 2.0 * m.node_ranks * (2 * m.rank_need + 2), mine);
    fallback_at(c, 16.0 * m.node_ranks * 2 * c->es - 1, mine);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int device = mtest_test_memory() != REDIST_MEMORY_HOST;
    if (size > MAX_RANKS) {
        if (rank == 0)
            printf("test_bounded: at most %d ranks\n", MAX_RANKS);
        MPI_Finalize();
        return 2;
    }
    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
    MPI_Type_commit(&triple);

    pair cyc = {.name = "1-D cyclic(3) -> cyclic(5), all ranks",
                .n = {device ? 20003 : 2000003, 1},
                .type = MPI_DOUBLE,
                .es = 8,
                .bounds = {4096, 1 << 20, 0, 0}};
    cyc.src = (side){.nd = 1, .block = {3, 1}, .grid = {size, 1}, .order = REDIST_ROW_MAJOR};
    cyc.dst = (side){.nd = 1, .block = {5, 1}, .grid = {size, 1}, .first = {size - 1, 0}};
    for (int i = 0; i < size; i++)
        cyc.src.ranks[i] = i, cyc.dst.ranks[i] = size - 1 - i;

    /* Block on the first half of the ranks -> cyclic(2) on the others (or the same rank). */
    int half = size > 1 ? size / 2 : 1, other = size > 1 ? size - half : 1;
    pair blk = {.name = "1-D Block -> Cyclic(2), other ranks",
                .n = {device ? 5003 : 20011, 1},
                .type = triple,
                .es = 24,
                .algo = "block-to-cyclic",
                .bounds = {48, 1000, 65536, 1 << 20}};
    blk.src = (side){.nd = 1, .block = {(blk.n[0] + half - 1) / half, 1}, .grid = {half, 1}};
    blk.dst = (side){.nd = 1, .block = {2, 1}, .grid = {other, 1}};
    for (int i = 0; i < half; i++)
        blk.src.ranks[i] = i;
    for (int i = 0; i < other; i++)
        blk.dst.ranks[i] = size > 1 ? half + i : 0;

    /* 2-D, column-major on an r x c grid -> row-major on c x r, ranks reversed. */
    int r = 1;
    while ((r + 1) * (r + 1) <= size && size % (r + 1) == 0)
        r++;
    int cols = size / r;
    pair twod = {.name = "2-D 36x36 col-major -> 50x50 row-major, transposed grid",
                 .n = {device ? 101 : 201, device ? 79 : 157},
                 .type = MPI_DOUBLE,
                 .es = 8,
                 .bounds = {16, 1000, 65536, 1 << 20}};
    twod.src = (side){.nd = 2, .block = {36, 36}, .grid = {r, cols}, .order = REDIST_COL_MAJOR};
    twod.dst = (side){.nd = 2, .block = {50, 50}, .grid = {cols, r}, .order = REDIST_ROW_MAJOR};
    for (int i = 0; i < size; i++)
        twod.src.ranks[i] = i, twod.dst.ranks[i] = size - 1 - i;

    run_pair(&cyc);
    run_pair(&blk);
    run_pair(&twod);
    fallback(&blk);
    fallback(&twod);

    expect_error(&cyc, NULL, 15, REDIST_TRANSPORT_AUTO, REDIST_ERR_ARG, "bound below 2 elements");
    expect_error(&cyc, NULL, -1, REDIST_TRANSPORT_AUTO, REDIST_ERR_ARG, "negative bound");
    expect_error(&cyc, "direct-async", 4096, REDIST_TRANSPORT_DATATYPE, REDIST_ERR_ARG,
                 "bound with the datatype transport");
    expect_error(&cyc, "alltoallv", 4096, REDIST_TRANSPORT_AUTO, REDIST_ERR_NOT_APPLICABLE,
                 "alltoallv with a bound");
    expect_error(&cyc, "general", 4096, REDIST_TRANSPORT_AUTO, REDIST_ERR_NOT_APPLICABLE,
                 "general with a bound");
    MPI_Type_free(&triple);
    if (rank == 0)
        printf("%d plans run\n", plans_run);
    return mtest_finalize(errs);
}
