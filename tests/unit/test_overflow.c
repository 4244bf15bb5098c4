/* link: redist */
/* Serial tests of layouts and plans near the 64-bit limits, no MPI calls.
 *
 * - redist_layout_create: extents up to REDIST_MAX_EXTENT = 2^62 (and products of extents up
 *   to 2^62) are accepted, anything larger or negative is REDIST_ERR_ARG naming the field;
 *   blocks may be anything in [1, INT64_MAX]; *layout is NULL after a failure.
 * - Local extents, owners and local indices near 2^40, 2^62 and INT64_MAX, against the
 *   header's formulas evaluated here in unsigned __int128 (so they cannot overflow).
 * - Planning (pure: redist__sides_create for every rank, redist__explain): pairs with huge
 *   extents and blocks but tiny periods plan at once and move exactly every element; pairs
 *   whose pattern could never fit in memory are refused with REDIST_ERR_NOMEM, naming the
 *   dimension, before anything is walked. Every case is timed (clock()) and must take less
 *   than CASE_SECONDS.
 * - redist__check_array_bytes at the exact 2^63-byte boundary; BMMC detection on extents
 *   and blocks of 2^62 and INT64_MAX terminates.
 *
 * REDIST_MEMORY_LIMIT is pinned to 64 GiB so that what "could never fit" means does not
 * depend on the machine (the refused patterns need hundreds of terabytes or more).
 */
#include "algo/explain.h"
#include "bmmc/factor.h"
#include "index/index.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "support/check.h"

typedef unsigned __int128 u128;

#define P2(e) ((int64_t)1 << (e))
#define MAXEXT REDIST_MAX_EXTENT
#define CASE_SECONDS 2.0

static double seconds_since(clock_t t0)
{
    return (double)(clock() - t0) / CLOCKS_PER_SEC;
}

static double worst_case_seconds;
static const char *worst_case_name = "";

/* A case that hangs never reaches its time check: after HANG_SECONDS the alarm names it and
   ends the test (instead of ctest's timeout, which names nothing). */
#define HANG_SECONDS 30
static const char *volatile current_case = "";

static void on_alarm(int sig)
{
    (void)sig;
    const char *c = current_case;
    static const char msg[] = "test_overflow: still running after 30 s (hang?): ";
    ssize_t w = write(2, msg, sizeof msg - 1);
    w = write(2, c, strlen(c));
    w = write(2, "\n", 1);
    (void)w;
    _exit(1);
}

static clock_t begin_case(const char *name)
{
    current_case = name;
    alarm(HANG_SECONDS);
    return clock();
}

/* Records a case's time (begun by begin_case) and fails it if it took longer than
   CASE_SECONDS of CPU time. */
static void timed(const char *name, clock_t t0)
{
    alarm(0);
    double s = seconds_since(t0);
    if (s > worst_case_seconds) {
        worst_case_seconds = s;
        worst_case_name = name;
    }
    CHECK(s < CASE_SECONDS, "%s took %.2f s (limit %.1f s)", name, s, CASE_SECONDS);
}

static int contains(const char *s, const char *what)
{
    return s != NULL && strstr(s, what) != NULL;
}

static redist_layout make1(int64_t n, int64_t b, int P, int first)
{
    redist_layout l = NULL;
    int rc = redist_layout_create(1, &n, &b, &P, &first, NULL, REDIST_ROW_MAJOR, &l);
    CHECK(rc == REDIST_SUCCESS && l != NULL, "layout n=%lld b=%lld P=%d first=%d: %d (%s)",
          (long long)n, (long long)b, P, first, rc, redist_last_error_detail());
    return l;
}

/* ---- the header's formulas, in 128 bits ------------------------------------------------- */

/* Elements of coordinate c along one dimension: whole cycles of b*P give b each, the partial
   cycle r = n mod bP gives min(max(r - rel b, 0), b), rel = (c - first) mod P. */
static int64_t count_ref(int64_t n, int64_t b, int P, int first, int c)
{
    u128 cycle = (u128)b * (u128)P, q = (u128)n / cycle, r = (u128)n % cycle;
    u128 rel = (u128)(((c - first) % P + P) % P), start = rel * (u128)b, part = 0;
    if (r > start)
        part = r - start < (u128)b ? r - start : (u128)b;
    return (int64_t)(q * (u128)b + part);
}

static int owner_ref(int64_t g, int64_t b, int P, int first)
{
    return (int)(((u128)g / (u128)b + (u128)first) % (u128)P);
}

static int64_t local_ref(int64_t g, int64_t b, int P)
{
    u128 cycle = (u128)b * (u128)P;
    return (int64_t)(((u128)g / cycle) * (u128)b + (u128)g % (u128)b);
}

/* ---- redist_layout_create ----------------------------------------------------------------- */

static char garbage_byte;
#define GARBAGE ((redist_layout)(void *)&garbage_byte)

static void expect_reject(int ndims, const int64_t *extent, const int64_t *block, const int *grid,
                          const char *field, const char *what)
{
    redist_layout l = GARBAGE;
    int rc = redist_layout_create(ndims, extent, block, grid, NULL, NULL, REDIST_ROW_MAJOR, &l);
    const char *detail = redist_last_error_detail();
    CHECK(rc == REDIST_ERR_ARG, "%s: rc %d, want REDIST_ERR_ARG", what, rc);
    CHECK(l == NULL, "%s: *layout not NULL after failure", what);
    CHECK(contains(detail, field), "%s: detail '%s' does not name %s", what, detail, field);
    if (rc == REDIST_SUCCESS && l != NULL && l != GARBAGE)
        redist_layout_free(&l);
}

static void expect_accept(int ndims, const int64_t *extent, const int64_t *block, const int *grid,
                          const char *what)
{
    redist_layout l = GARBAGE;
    int rc = redist_layout_create(ndims, extent, block, grid, NULL, NULL, REDIST_ROW_MAJOR, &l);
    CHECK(rc == REDIST_SUCCESS && l != NULL && l != GARBAGE, "%s: rc %d (%s)", what, rc,
          redist_last_error_detail());
    if (rc == REDIST_SUCCESS && l != NULL && l != GARBAGE) {
        CHECK(redist_layout_ndims(l) == ndims, "%s: ndims", what);
        redist_layout_free(&l);
    }
}

static void test_create(void)
{
    const int g1[3] = {1, 1, 1}, g3[3] = {2, 3, 1};
    const int64_t b1[3] = {1, 1, 1};

    /* Single extents. */
    const int64_t ok_ext[] = {0, 1, P2(40), P2(40) + 7, MAXEXT - 1, MAXEXT};
    for (size_t i = 0; i < sizeof ok_ext / sizeof ok_ext[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "extent %lld", (long long)ok_ext[i]);
        expect_accept(1, &ok_ext[i], b1, g1, what);
    }
    const int64_t bad_ext[] = {MAXEXT + 1, P2(62) + P2(61), INT64_MAX, -1, INT64_MIN};
    for (size_t i = 0; i < sizeof bad_ext / sizeof bad_ext[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "extent %lld", (long long)bad_ext[i]);
        expect_reject(1, &bad_ext[i], b1, g1, "extent[0]", what);
        /* The same in the last of three dimensions: the detail names that one. */
        int64_t e3[3] = {1, 1, bad_ext[i]};
        expect_reject(3, e3, b1, g3, "extent[2]", what);
    }

    /* Products of extents. */
    expect_accept(2, (int64_t[]){P2(31), P2(31)}, b1, g1, "2^31 x 2^31");
    expect_accept(3, (int64_t[]){P2(31), P2(29), 4}, b1, g3, "2^31 x 2^29 x 4");
    expect_accept(3, (int64_t[]){P2(20), P2(21), P2(21)}, b1, g3, "2^20 x 2^21 x 2^21");
    expect_reject(3, (int64_t[]){P2(31), P2(31), 2}, b1, g3, "extent[2]", "2^31 x 2^31 x 2");
    expect_reject(2, (int64_t[]){P2(40), P2(40)}, b1, g1, "extent[1]", "2^40 x 2^40");
    expect_reject(2, (int64_t[]){MAXEXT, 2}, b1, g1, "extent[1]", "2^62 x 2");
    expect_reject(2, (int64_t[]){3, P2(61)}, b1, g1, "extent[1]", "3 x 2^61");
    expect_reject(3, (int64_t[]){P2(21), P2(21), P2(21)}, b1, g3, "extent[2]",
                  "2^21 x 2^21 x 2^21");
    expect_reject(2, (int64_t[]){INT64_MAX / 2, 3}, b1, g1, "extent[1]", "(2^62-1) x 3");
    /* A zero extent makes the array empty; the others may be as large as one extent can be. */
    expect_accept(2, (int64_t[]){0, MAXEXT}, b1, g1, "{0, 2^62}");
    expect_accept(2, (int64_t[]){MAXEXT, 0}, b1, g1, "{2^62, 0}");
    expect_accept(3, (int64_t[]){P2(31), 0, P2(31)}, b1, g3, "{2^31, 0, 2^31}");

    /* Blocks: anything >= 1. */
    const int64_t ok_block[] = {1, 3, P2(40), MAXEXT, INT64_MAX - 1, INT64_MAX};
    for (size_t i = 0; i < sizeof ok_block / sizeof ok_block[0]; i++) {
        for (int e = 0; e < 3; e++) {
            int64_t ext = e == 0 ? 100 : e == 1 ? P2(40) : MAXEXT;
            char what[96];
            snprintf(what, sizeof what, "extent %lld block %lld", (long long)ext,
                     (long long)ok_block[i]);
            expect_accept(1, &ext, &ok_block[i], (int[]){1000}, what);
        }
    }
    const int64_t bad_block[] = {0, -1, INT64_MIN};
    for (size_t i = 0; i < sizeof bad_block / sizeof bad_block[0]; i++) {
        int64_t ext = 100;
        expect_reject(1, &ext, &bad_block[i], g1, "block[0]", "bad block");
        expect_reject(3, (int64_t[]){4, 4, 4}, (int64_t[]){INT64_MAX, 1, bad_block[i]}, g3,
                      "block[2]", "bad block[2]");
    }

    /* A grid of more than INT_MAX processes is refused, even with tiny extents. */
    {
        redist_layout l = GARBAGE;
        int rc = redist_layout_create(2, (int64_t[]){1, 1}, (int64_t[]){1, 1},
                                      (int[]){65536, 65536}, NULL, NULL, REDIST_ROW_MAJOR, &l);
        CHECK(rc == REDIST_ERR_ARG && l == NULL, "grid 2^32: rc %d", rc);
    }
}

/* ---- local extents, owners, local indices -------------------------------------------------- */

static long extents_checked, indices_checked;

static void check_index(const struct redist_layout_s *l, int64_t g, int64_t n)
{
    if (g < 0 || g >= n)
        return;
    int64_t b = l->block[0];
    int P = l->grid[0], first = l->first[0];
    int o = redist__owner(l, 0, g), want_o = owner_ref(g, b, P, first);
    int64_t li = redist__local_index(l, 0, g), want_li = local_ref(g, b, P);
    CHECK(o == want_o, "owner n=%lld b=%lld P=%d first=%d g=%lld: %d, want %d", (long long)n,
          (long long)b, P, first, (long long)g, o, want_o);
    CHECK(li == want_li, "local index n=%lld b=%lld P=%d g=%lld: %lld, want %lld", (long long)n,
          (long long)b, P, (long long)g, (long long)li, (long long)want_li);
    int64_t cnt = count_ref(n, b, P, first, want_o);
    CHECK(want_li >= 0 && want_li < cnt, "test: local index %lld outside count %lld",
          (long long)want_li, (long long)cnt);
    indices_checked++;
}

static void check_layout_1d(int64_t n, int64_t b, int P, int first)
{
    redist_layout l = make1(n, b, P, first);
    if (l == NULL)
        return;
    u128 sum = 0;
    for (int c = 0; c < P; c++) {
        int64_t shape = -1, size = -1, want = count_ref(n, b, P, first, c);
        CHECK(redist_layout_local_shape(l, c, &shape) == REDIST_SUCCESS, "local_shape");
        CHECK(redist_layout_local_size(l, c, &size) == REDIST_SUCCESS, "local_size");
        CHECK(shape == want && size == want && redist__local_extent(l, 0, c) == want,
              "n=%lld b=%lld P=%d first=%d c=%d: shape %lld size %lld, want %lld", (long long)n,
              (long long)b, P, first, c, (long long)shape, (long long)size, (long long)want);
        sum += (u128)(shape < 0 ? 0 : shape);
        extents_checked++;
    }
    CHECK(sum == (u128)n, "n=%lld b=%lld P=%d first=%d: local extents sum to %llu", (long long)n,
          (long long)b, P, first, (unsigned long long)sum);
    /* A rank outside the layout holds nothing. */
    int64_t none = -1;
    CHECK(redist_layout_local_size(l, P, &none) == REDIST_SUCCESS && none == 0, "rank P holds %lld",
          (long long)none);

    /* Indices: the ends, and around the block boundaries near the start, the end and the
       boundaries of the last cycles. */
    if (n > 0) {
        int64_t probes[] = {0, 1, n / 2, n - 2, n - 1};
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
            check_index(l, probes[i], n);
        for (int64_t k = 1; k <= 3; k++) {
            u128 edge = (u128)b * (u128)k; /* k-th block boundary */
            if (edge < (u128)n)
                for (int64_t d = -1; d <= 1; d++)
                    check_index(l, (int64_t)edge + d, n);
        }
        int64_t last_block = (n - 1) / b; /* its first element and its neighbours */
        u128 lb = (u128)last_block * (u128)b;
        for (int64_t d = -2; d <= 1; d++)
            if ((int64_t)lb + d >= 0)
                check_index(l, (int64_t)lb + d, n);
        u128 cycle = (u128)b * (u128)P;
        if (cycle < (u128)n) {
            int64_t lc = (int64_t)(((u128)(n - 1) / cycle) * cycle); /* last cycle's start */
            for (int64_t d = -1; d <= 1; d++)
                check_index(l, lc + d, n);
        }
    }
    redist_layout_free(&l);
}

static void test_local_extents(void)
{
    const int64_t ext[] = {0, 1, P2(40), P2(40) + 7, MAXEXT - 1, MAXEXT};
    const int64_t blk[] = {1, 3, P2(20), P2(40) - 1, MAXEXT, INT64_MAX};
    const int grid[] = {1, 2, 3, 7, 1000};
    for (size_t e = 0; e < sizeof ext / sizeof ext[0]; e++)
        for (size_t b = 0; b < sizeof blk / sizeof blk[0]; b++)
            for (size_t g = 0; g < sizeof grid / sizeof grid[0]; g++) {
                check_layout_1d(ext[e], blk[b], grid[g], 0);
                if (grid[g] > 1)
                    check_layout_1d(ext[e], blk[b], grid[g], grid[g] - 1);
            }
    /* A few odd sizes between the grid points. */
    check_layout_1d(MAXEXT, MAXEXT - 1, 2, 1);
    check_layout_1d(MAXEXT, MAXEXT / 3 + 1, 3, 2);
    check_layout_1d(MAXEXT - 1, P2(61), 2, 0);
    check_layout_1d(MAXEXT, P2(60) + 1, 1000, 999);
    check_layout_1d(P2(40) + 7, P2(40) / 7, 7, 3);

    /* N-D: local sizes are the products of the per-dimension counts and sum to the array. */
    struct {
        int64_t ext[3], blk[3];
        int grid[3];
    } nd[] = {
        {{P2(31), P2(31), 1}, {3, P2(40), 1}, {7, 3, 1}},
        {{P2(31), P2(31), 1}, {INT64_MAX, 1, 1}, {2, 5, 1}},
        {{P2(20), P2(21), P2(21)}, {P2(20) - 1, 7, INT64_MAX}, {3, 4, 2}},
        {{0, MAXEXT, 1}, {1, 3, 1}, {2, 3, 1}},
    };
    for (size_t t = 0; t < sizeof nd / sizeof nd[0]; t++) {
        redist_layout l = NULL;
        int rc = redist_layout_create(3, nd[t].ext, nd[t].blk, nd[t].grid, NULL, NULL,
                                      REDIST_COL_MAJOR, &l);
        CHECK(rc == REDIST_SUCCESS, "N-D layout %zu: %s", t, redist_last_error_detail());
        if (rc != REDIST_SUCCESS)
            continue;
        u128 sum = 0, want_total = (u128)nd[t].ext[0] * (u128)nd[t].ext[1] * (u128)nd[t].ext[2];
        int np = redist_layout_nprocs(l);
        for (int r = 0; r < np; r++) {
            int coords[3];
            redist_layout_coords(l, r, coords);
            u128 want = 1;
            for (int k = 0; k < 3; k++)
                want *= (u128)count_ref(nd[t].ext[k], nd[t].blk[k], nd[t].grid[k], 0, coords[k]);
            int64_t size = -1;
            CHECK(redist_layout_local_size(l, r, &size) == REDIST_SUCCESS && (u128)size == want,
                  "N-D layout %zu rank %d: size %lld, want %llu", t, r, (long long)size,
                  (unsigned long long)want);
            sum += want;
        }
        CHECK(sum == want_total, "N-D layout %zu: sizes sum to %llu", t, (unsigned long long)sum);
        redist_layout_free(&l);
    }
}

/* ---- planning ------------------------------------------------------------------------------ */

/* Sum over a 1-level message's run groups of len * count, and every replica inside the local
   arrays (offsets computed in 128 bits). */
static void check_runs_1d(const redist__msg *m, int64_t src_local, int64_t dst_local,
                          const char *name, int rank)
{
    if (m->nlevels != 1)
        return;
    const redist__level *lv = &m->levels[0];
    u128 total = 0;
    for (int64_t i = 0; i < lv->nruns; i++) {
        const redist__run *r = &lv->runs[i];
        CHECK(r->len >= 1 && r->count >= 1 && r->src_off >= 0 && r->dst_off >= 0,
              "%s rank %d: run %lld (%lld, %lld, %lld x %lld)", name, rank, (long long)i,
              (long long)r->src_off, (long long)r->dst_off, (long long)r->len, (long long)r->count);
        u128 s_end = (u128)r->src_off + (u128)(r->count - 1) * (u128)lv->src_period + (u128)r->len;
        u128 d_end = (u128)r->dst_off + (u128)(r->count - 1) * (u128)lv->dst_period + (u128)r->len;
        CHECK(s_end <= (u128)src_local && d_end <= (u128)dst_local,
              "%s rank %d: run %lld ends at %llu / %llu, local extents %lld / %lld", name, rank,
              (long long)i, (unsigned long long)s_end, (unsigned long long)d_end,
              (long long)src_local, (long long)dst_local);
        total += (u128)r->len * (u128)r->count;
    }
    CHECK(total == (u128)m->nelems, "%s rank %d peer %d: runs hold %llu elements, message %lld",
          name, rank, m->peer, (unsigned long long)total, (long long)m->nelems);
}

typedef struct rank_plan {
    redist__side send, recv;
    redist__msg self;
    int has_self, ok;
} rank_plan;

/* Plans src -> dst for every rank of comm_size, pure, and checks that everything adds up
   exactly: per rank sent + self = its source elements, received + self = its destination
   elements; every message has a matching receive of the same size; over all ranks the
   elements add up to the array. Then redist__explain agrees. All within CASE_SECONDS. */
static void plan_case(const char *name, redist_layout src, redist_layout dst, int comm_size,
                      int64_t elsize)
{
    if (src == NULL || dst == NULL)
        return;
    clock_t t0 = begin_case(name);
    rank_plan *rp = calloc((size_t)comm_size, sizeof *rp);
    u128 n = 1, sum_src = 0, sum_dst = 0, sum_sent = 0;
    for (int k = 0; k < src->ndims; k++)
        n *= (u128)src->extent[k];
    for (int r = 0; r < comm_size; r++) {
        int rc = redist__sides_create(src, dst, r, &rp[r].send, &rp[r].recv, &rp[r].self,
                                      &rp[r].has_self);
        CHECK(rc == REDIST_SUCCESS, "%s rank %d: sides_create %d (%s)", name, r, rc,
              redist_last_error_detail());
        rp[r].ok = rc == REDIST_SUCCESS;
        if (!rp[r].ok)
            continue;
        int64_t sc = 0, dc = 0;
        redist_layout_local_size(src, r, &sc);
        redist_layout_local_size(dst, r, &dc);
        u128 self = rp[r].has_self ? (u128)rp[r].self.nelems : 0;
        CHECK((u128)rp[r].send.total_elems + self == (u128)sc,
              "%s rank %d: sends %lld + self %llu, holds %lld", name, r,
              (long long)rp[r].send.total_elems, (unsigned long long)self, (long long)sc);
        CHECK((u128)rp[r].recv.total_elems + self == (u128)dc,
              "%s rank %d: receives %lld + self %llu, will hold %lld", name, r,
              (long long)rp[r].recv.total_elems, (unsigned long long)self, (long long)dc);
        sum_src += (u128)rp[r].send.total_elems + self;
        sum_dst += (u128)rp[r].recv.total_elems + self;
        sum_sent += (u128)rp[r].send.total_elems;
        if (src->ndims == 1) {
            int64_t my_src = sc, my_dst = dc;
            for (int i = 0; i < rp[r].send.nmsgs; i++) {
                int64_t peer_dst = 0;
                redist_layout_local_size(dst, rp[r].send.msgs[i].peer, &peer_dst);
                check_runs_1d(&rp[r].send.msgs[i], my_src, peer_dst, name, r);
            }
            for (int i = 0; i < rp[r].recv.nmsgs; i++) {
                int64_t peer_src = 0;
                redist_layout_local_size(src, rp[r].recv.msgs[i].peer, &peer_src);
                check_runs_1d(&rp[r].recv.msgs[i], peer_src, my_dst, name, r);
            }
            if (rp[r].has_self)
                check_runs_1d(&rp[r].self, my_src, my_dst, name, r);
        }
    }
    CHECK(sum_src == n && sum_dst == n, "%s: sent + self over all ranks %llu / %llu, array %llu",
          name, (unsigned long long)sum_src, (unsigned long long)sum_dst, (unsigned long long)n);
    /* Sender and receiver agree on every message. */
    for (int r = 0; r < comm_size; r++) {
        if (!rp[r].ok)
            continue;
        for (int i = 0; i < rp[r].send.nmsgs; i++) {
            const redist__msg *m = &rp[r].send.msgs[i];
            CHECK(m->peer >= 0 && m->peer < comm_size && m->peer != r, "%s: rank %d sends to %d",
                  name, r, m->peer);
            if (m->peer < 0 || m->peer >= comm_size || !rp[m->peer].ok)
                continue;
            const redist__msg *match = NULL;
            for (int j = 0; j < rp[m->peer].recv.nmsgs; j++)
                if (rp[m->peer].recv.msgs[j].peer == r)
                    match = &rp[m->peer].recv.msgs[j];
            CHECK(match != NULL && match->nelems == m->nelems,
                  "%s: rank %d sends %lld to %d, which expects %lld", name, r, (long long)m->nelems,
                  m->peer, match ? (long long)match->nelems : -1LL);
        }
    }
    for (int r = 0; r < comm_size; r++) {
        if (!rp[r].ok)
            continue;
        redist__side_free(&rp[r].send);
        redist__side_free(&rp[r].recv);
        if (rp[r].has_self)
            redist__msg_free(&rp[r].self);
    }
    free(rp);

    /* The same through redist__explain: the pattern's totals in bytes. */
    redist__explanation e;
    int rc = redist__explain(src, dst, comm_size, elsize, "direct-async", &e);
    CHECK(rc == REDIST_SUCCESS, "%s: explain direct-async %d (%s)", name, rc,
          redist_last_error_detail());
    if (rc == REDIST_SUCCESS)
        CHECK((u128)e.total_bytes == sum_sent * (u128)elsize && e.total_bytes >= 0 &&
                  e.max_bytes_per_rank >= 0 && e.max_bytes_per_rank <= e.total_bytes &&
                  e.predicted_seconds >= 0,
              "%s: explain total_bytes %lld, want %llu", name, (long long)e.total_bytes,
              (unsigned long long)(sum_sent * (u128)elsize));
    rc = redist__explain(src, dst, comm_size, elsize, "auto", &e);
    CHECK(rc == REDIST_SUCCESS && e.chosen != NULL && e.steps >= 0 && e.total_bytes >= 0,
          "%s: explain auto %d (%s)", name, rc, redist_last_error_detail());
    timed(name, t0);
}

/* The pattern is enormous: rank 0's plan and explain are REDIST_ERR_NOMEM at once, the detail
   naming the dimension. */
static void nomem_case(const char *name, redist_layout src, redist_layout dst, int comm_size,
                       int64_t elsize, const char *dim)
{
    if (src == NULL || dst == NULL)
        return;
    clock_t t0 = begin_case(name);
    redist__side send, recv;
    redist__msg self;
    int has_self = 0;
    int rc = redist__sides_create(src, dst, 0, &send, &recv, &self, &has_self);
    const char *detail = redist_last_error_detail();
    CHECK(rc == REDIST_ERR_NOMEM, "%s: sides_create %d, want REDIST_ERR_NOMEM", name, rc);
    CHECK(contains(detail, dim), "%s: detail '%s' does not name '%s'", name, detail, dim);
    if (rc == REDIST_SUCCESS) {
        redist__side_free(&send);
        redist__side_free(&recv);
        if (has_self)
            redist__msg_free(&self);
    }
    redist__explanation e;
    rc = redist__explain(src, dst, comm_size, elsize, NULL, &e);
    detail = redist_last_error_detail();
    CHECK(rc == REDIST_ERR_NOMEM, "%s: explain %d, want REDIST_ERR_NOMEM", name, rc);
    CHECK(contains(detail, dim), "%s: explain detail '%s' does not name '%s'", name, detail, dim);
    timed(name, t0);
}

static void test_planning(void)
{
    redist_layout a, b;

    /* A block at the extent limit: n = 100, block 2^62 on 4 -> block 3 on 4. */
    a = make1(100, MAXEXT, 4, 0), b = make1(100, 3, 4, 0);
    plan_case("n=100 block 2^62 P=4 -> block 3", a, b, 4, 8);
    redist_layout_free(&a), redist_layout_free(&b);
    /* Block 5e18 on 2 ranks (also run under MPI by tests/cli/test_overflow.sh), and block
       INT64_MAX. */
    a = make1(100, 5000000000000000000, 2, 0), b = make1(100, 3, 2, 0);
    plan_case("n=100 block 5e18 P=2 -> block 3", a, b, 2, 8);
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(100, INT64_MAX, 3, 2), b = make1(100, INT64_MAX - 1, 5, 1);
    plan_case("n=100 block INT64_MAX P=3 -> INT64_MAX-1 P=5", a, b, 5, 8);
    redist_layout_free(&a), redist_layout_free(&b);

    /* n = 2^62 cyclic(1) on 2 -> cyclic(3) on 2: period 6. */
    a = make1(MAXEXT, 1, 2, 0), b = make1(MAXEXT, 3, 2, 0);
    plan_case("n=2^62 block 1 P=2 -> block 3", a, b, 2, 1);
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(MAXEXT - 1, 3, 7, 6), b = make1(MAXEXT - 1, 1, 4, 1);
    plan_case("n=2^62-1 block 3 P=7 first 6 -> block 1 P=4", a, b, 7, 1);
    redist_layout_free(&a), redist_layout_free(&b);

    /* One block holding everything -> two blocks, the second of one element. */
    a = make1(MAXEXT, INT64_MAX, 2, 0), b = make1(MAXEXT, MAXEXT - 1, 2, 0);
    plan_case("n=2^62 block INT64_MAX -> block 2^62-1", a, b, 2, 1);
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(MAXEXT, MAXEXT, 3, 1), b = make1(MAXEXT, INT64_MAX, 4, 3);
    plan_case("n=2^62 block 2^62 P=3 first 1 -> INT64_MAX P=4 first 3", a, b, 4, 1);
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(MAXEXT, P2(61), 2, 1), b = make1(MAXEXT, P2(60) + 1, 4, 0);
    plan_case("n=2^62 block 2^61 P=2 -> block 2^60+1 P=4", a, b, 4, 1);
    redist_layout_free(&a), redist_layout_free(&b);

    /* n = 2^40 cyclic(1) on 3 -> cyclic(5) on 2. */
    a = make1(P2(40), 1, 3, 0), b = make1(P2(40), 5, 2, 0);
    plan_case("n=2^40 block 1 P=3 -> block 5 P=2", a, b, 3, 8);
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(P2(40) + 7, P2(20), 7, 3), b = make1(P2(40) + 7, P2(20) * 3, 5, 4);
    plan_case("n=2^40+7 block 2^20 P=7 -> block 3*2^20 P=5", a, b, 7, 8);
    redist_layout_free(&a), redist_layout_free(&b);

    /* 2-D near the element limit: 2^31 x 2^31. */
    {
        redist_layout s = NULL, d = NULL;
        int rc = redist_layout_create(2, (int64_t[]){P2(31), P2(31)}, (int64_t[]){1, INT64_MAX},
                                      (int[]){2, 2}, NULL, NULL, REDIST_ROW_MAJOR, &s);
        rc |= redist_layout_create(2, (int64_t[]){P2(31), P2(31)}, (int64_t[]){3, P2(30) + 1},
                                   (int[]){1, 4}, NULL, (int[]){3, 2, 1, 0}, REDIST_COL_MAJOR, &d);
        CHECK(rc == REDIST_SUCCESS, "2-D layouts: %s", redist_last_error_detail());
        plan_case("2^31 x 2^31 (1, INT64_MAX) 2x2 -> (3, 2^30+1) 1x4", s, d, 4, 1);
        redist_layout_free(&s), redist_layout_free(&d);
    }

    /* One block per coordinate against a fine cyclic layout: [SD96]'s regular sections plan
       them in time O(peers) (once refused as enormous periodic patterns). */
    a = make1(MAXEXT, INT64_MAX, 2, 0), b = make1(MAXEXT, 3, 2, 0);
    plan_case("n=2^62 block INT64_MAX -> block 3", a, b, 2, 1);
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(MAXEXT, 1, 1, 0), b = make1(MAXEXT, INT64_MAX, 1, 0);
    plan_case("n=2^62 block 1 P=1 -> block INT64_MAX", a, b, 1, 1);
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(MAXEXT, MAXEXT / 4, 4, 1), b = make1(MAXEXT, 1, 3, 2);
    plan_case("n=2^62 block 2^60 P=4 -> block 1 P=3", a, b, 4, 1);
    plan_case("n=2^62 block 1 P=3 -> block 2^60 P=4", b, a, 4, 1);
    redist_layout_free(&a), redist_layout_free(&b);

    /* Enormous patterns: refused (NOMEM) before they are walked. */
    a = make1(MAXEXT, P2(40), 4, 0), b = make1(MAXEXT, 3, 4, 0);
    nomem_case("n=2^62 block 2^40 P=4 -> block 3", a, b, 4, 1, "dimension 0");
    redist_layout_free(&a), redist_layout_free(&b);
    /* No period within the extent (lcm(3 (2^30 - 1), 5 (2^30 + 1)) > 2^62) and 2^32 blocks:
       some 2.9e9 segments for rank 0, over 100 GB. */
    a = make1(MAXEXT, P2(30) - 1, 3, 0), b = make1(MAXEXT, P2(30) + 1, 5, 0);
    nomem_case("n=2^62 block 2^30-1 P=3 -> block 2^30+1 P=5", a, b, 5, 1, "dimension 0");
    redist_layout_free(&a), redist_layout_free(&b);
    {
        redist_layout s = NULL, d = NULL;
        int rc = redist_layout_create(2, (int64_t[]){4, P2(60)}, (int64_t[]){1, INT64_MAX},
                                      (int[]){2, 2}, NULL, NULL, REDIST_ROW_MAJOR, &s);
        rc |= redist_layout_create(2, (int64_t[]){4, P2(60)}, (int64_t[]){2, 7}, (int[]){2, 2},
                                   NULL, NULL, REDIST_ROW_MAJOR, &d);
        CHECK(rc == REDIST_SUCCESS, "2-D layouts: %s", redist_last_error_detail());
        plan_case("4 x 2^60 (1, INT64_MAX) -> (2, 7)", s, d, 4, 1);
        redist_layout_free(&s), redist_layout_free(&d);
    }
}

/* ---- array bytes ------------------------------------------------------------------------- */

static void check_bytes(int64_t elements, size_t elsize, int want_ok)
{
    redist_layout l = make1(elements, 1, 1, 0);
    if (l == NULL)
        return;
    int rc = redist__check_array_bytes(l, elsize);
    u128 bytes = (u128)elements * (u128)elsize;
    CHECK(want_ok ? rc == REDIST_SUCCESS : rc == REDIST_ERR_ARG,
          "%lld elements of %zu bytes (%llu bytes): rc %d, want %s", (long long)elements, elsize,
          (unsigned long long)bytes, rc, want_ok ? "success" : "REDIST_ERR_ARG");
    CHECK(want_ok == (bytes <= (u128)INT64_MAX), "test: wrong expectation for %lld x %zu",
          (long long)elements, elsize);
    redist_layout_free(&l);
}

static void test_array_bytes(void)
{
    check_bytes(MAXEXT, 1, 1);
    check_bytes(MAXEXT, 2, 0); /* exactly 2^63 bytes */
    check_bytes(MAXEXT - 1, 2, 1);
    check_bytes(MAXEXT, 8, 0);
    check_bytes(MAXEXT, 24, 0);
    check_bytes(P2(60), 8, 0);
    check_bytes(P2(60) - 1, 8, 1);
    check_bytes(INT64_MAX / 3, 3, 1); /* 2^63 - 2 bytes */
    check_bytes(INT64_MAX / 3 + 1, 3, 0);
    check_bytes(INT64_MAX / 24, 24, 1);
    check_bytes(INT64_MAX / 24 + 1, 24, 0);
    check_bytes(0, 8, 1);
    check_bytes(P2(40), 8, 1);

    /* N-D: the product counts. */
    redist_layout l = NULL;
    redist_layout_create(2, (int64_t[]){P2(31), P2(31)}, (int64_t[]){1, 1}, (int[]){1, 1}, NULL,
                         NULL, REDIST_ROW_MAJOR, &l);
    if (l != NULL) {
        CHECK(redist__check_array_bytes(l, 1) == REDIST_SUCCESS, "2^31 x 2^31 chars");
        CHECK(redist__check_array_bytes(l, 2) == REDIST_ERR_ARG, "2^31 x 2^31 shorts");
        redist_layout_free(&l);
    }
    redist_layout_create(2, (int64_t[]){0, MAXEXT}, (int64_t[]){1, 1}, (int[]){1, 1}, NULL, NULL,
                         REDIST_ROW_MAJOR, &l);
    if (l != NULL) {
        CHECK(redist__check_array_bytes(l, 8) == REDIST_SUCCESS, "0 x 2^62 doubles (empty)");
        redist_layout_free(&l);
    }

    /* explain on 2^62 doubles: ARG at once, whatever the pattern. */
    clock_t t0 = begin_case("explain 2^62 doubles");
    redist_layout a = make1(MAXEXT, 1, 2, 0), b = make1(MAXEXT, 3, 2, 0);
    redist__explanation e;
    if (a != NULL && b != NULL) {
        int rc = redist__explain(a, b, 2, 8, NULL, &e);
        CHECK(rc == REDIST_ERR_ARG, "explain 2^62 doubles: %d, want REDIST_ERR_ARG", rc);
        rc = redist__explain(a, b, 2, 1, NULL, &e);
        CHECK(rc == REDIST_SUCCESS, "explain 2^62 chars: %d (%s)", rc, redist_last_error_detail());
        redist__rank_traffic t;
        rc = redist__rank_traffic_compute(a, b, 0, 8, &t);
        CHECK(rc == REDIST_ERR_ARG, "rank_traffic 2^62 doubles: %d, want REDIST_ERR_ARG", rc);
    }
    redist_layout_free(&a), redist_layout_free(&b);
    timed("explain 2^62 doubles", t0);
}

/* ---- BMMC detection ------------------------------------------------------------------------ */

static void test_bmmc_detect(void)
{
    struct {
        int64_t n, b1, b2;
        int P, want, n_log, p_log, f1, f2;
    } cases[] = {
        {MAXEXT, MAXEXT, MAXEXT, 1, 1, 62, 0, 62, 62},
        {MAXEXT, MAXEXT, 1, 1, 1, 62, 0, 62, 0},
        {MAXEXT, MAXEXT, MAXEXT, 2, 0, 0, 0, 0, 0}, /* f1 + p = 63 > n */
        {MAXEXT, INT64_MAX, INT64_MAX, 1, 0, 0, 0, 0, 0},
        {MAXEXT, INT64_MAX, MAXEXT, 4, 0, 0, 0, 0, 0},
        {MAXEXT, MAXEXT, INT64_MAX, 2, 0, 0, 0, 0, 0},
        {MAXEXT, P2(60), P2(59), 4, 1, 62, 2, 60, 59},
        {MAXEXT, P2(61), 1, 2, 1, 62, 1, 61, 0},
        {MAXEXT - 1, 1, 2, 2, 0, 0, 0, 0, 0}, /* not a power of two */
        {MAXEXT, P2(62) - 1, 1, 2, 0, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "bpc_detect n=%lld b=%lld->%lld P=%d", (long long)cases[i].n,
                 (long long)cases[i].b1, (long long)cases[i].b2, cases[i].P);
        clock_t t0 = begin_case(name);
        redist_layout a = make1(cases[i].n, cases[i].b1, cases[i].P, 0);
        redist_layout b = make1(cases[i].n, cases[i].b2, cases[i].P, 0);
        if (a == NULL || b == NULL) {
            redist_layout_free(&a), redist_layout_free(&b);
            continue;
        }
        int n = -1, p = -1, f1 = -1, f2 = -1;
        int got = redist__bpc_detect(a, b, &n, &p, &f1, &f2);
        CHECK(got == cases[i].want, "%s: %d, want %d", name, got, cases[i].want);
        if (got && cases[i].want)
            CHECK(n == cases[i].n_log && p == cases[i].p_log && f1 == cases[i].f1 &&
                      f2 == cases[i].f2,
                  "%s: n %d p %d f1 %d f2 %d", name, n, p, f1, f2);
        int rounds = redist__bpc_rounds(a, b);
        CHECK(cases[i].want ? rounds >= 1 : rounds == 0, "%s: rounds %d", name, rounds);
        redist_layout_free(&a), redist_layout_free(&b);
        timed(name, t0);
    }
    /* Through the algorithm table: explain with bmmc forced on a small-pattern pair. */
    clock_t t0 = begin_case("explain bmmc 2^62");
    redist_layout a = make1(MAXEXT, P2(60), 4, 0), b = make1(MAXEXT, P2(59), 4, 0);
    if (a != NULL && b != NULL) {
        redist__explanation e;
        int rc = redist__explain(a, b, 4, 1, "bmmc", &e);
        CHECK(rc == REDIST_SUCCESS && e.steps >= 1, "explain bmmc 2^62 2^60 -> 2^59: %d (%s)", rc,
              redist_last_error_detail());
        rc = redist__explain(a, b, 4, 1, NULL, &e);
        CHECK(rc == REDIST_SUCCESS, "explain auto 2^62 2^60 -> 2^59: %d (%s)", rc,
              redist_last_error_detail());
    }
    redist_layout_free(&a), redist_layout_free(&b);
    a = make1(MAXEXT, INT64_MAX, 1, 0), b = make1(MAXEXT, MAXEXT, 1, 0);
    if (a != NULL && b != NULL) {
        redist__explanation e;
        int rc = redist__explain(a, b, 1, 1, "bmmc", &e);
        CHECK(rc == REDIST_ERR_NOT_APPLICABLE, "explain bmmc INT64_MAX -> 2^62: %d", rc);
        rc = redist__explain(a, b, 1, 1, NULL, &e);
        CHECK(rc == REDIST_SUCCESS, "explain auto INT64_MAX -> 2^62 P=1: %d (%s)", rc,
              redist_last_error_detail());
    }
    redist_layout_free(&a), redist_layout_free(&b);
    timed("explain bmmc 2^62", t0);
}

int main(void)
{
    setenv("REDIST_MEMORY_LIMIT", "68719476736", 1); /* 64 GiB, see the top */
    signal(SIGALRM, on_alarm);
    clock_t t0 = clock();
    test_create();
    test_local_extents();
    test_planning();
    test_array_bytes();
    test_bmmc_detect();
    printf("%ld local extents and %ld indices checked; slowest case %.3f s (%s); %.2f s in all\n",
           extents_checked, indices_checked, worst_case_seconds, worst_case_name,
           seconds_since(t0));
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
