/* nodes: 2:1 3:2 4:2 5:2 7:3 8:4 5:4 */
/* device: 3 2 */
/* shared: 2 3 4 5 7 8 */
/* threads: 3 1 4 */
/* Random block-cyclic redistributions, checked element by element.
 *
 * A few fixed cases (the paper's cyclic(2) -> cyclic(6), identical layouts, block -> cyclic,
 * one rank -> all ranks, disjoint halves, empty arrays), then many random cases: 1-3
 * dimensions, awkward extents (0, 1, primes, block-1, block, block+1, smaller than the
 * block), blocks 1..13 and larger than the extent, random grids on random subsets of the
 * communicator in random order (disjoint, overlapping and identical rank sets, identical
 * layouts), row- or column-major on each side, four element types. Every case runs with
 * every algorithm the library lists; each plan is executed six times (execute three times
 * and once more with other buffers, start + test loop, start + wait; a rank passes NULL for
 * a side where it holds nothing, except in the fourth) and every destination element is compared
 * with the value computed from its global index. The local -> global index map used for
 * checking is computed here from the layout formula, independently of the library.
 *
 * Options: --seed S (default below), --cases C, --case K (only random case K, no fixed
 * cases), --alg NAME (only that algorithm). All ranks generate the same cases.
 * Output: " No Errors" on success, else failure reports and " Found N errors".
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mdevice.h"
#include "support/mtest.h"

#define MAXD 3
#define MAXP 1024 /* ranks used at most (larger communicators use the first MAXP) */
#define GUARD 64  /* sentinel bytes after every destination buffer */
#define SENTINEL 0xEE
#define MAX_REPORTS 8 /* element mismatches printed per rank per execution */
#define DEFAULT_SEED 20240611u
#define DEFAULT_CASES 100

enum { T_CHAR, T_INT, T_DOUBLE, T_TRIPLE, NTYPES };
static const char *type_names[NTYPES] = {"char", "int", "double", "3xdouble"};
static const int type_sizes[NTYPES] = {1, (int)sizeof(int), 8, 24};

typedef struct {
    int64_t block[MAXD];
    int grid[MAXD];
    int first[MAXD];
    int has_first;
    int has_ranks;
    int nprocs;      /* product of grid */
    int ranks[MAXP]; /* always filled; passed only if has_ranks */
    int order;
} side_t;

typedef struct {
    char name[96];
    int ndims;
    int64_t extent[MAXD];
    side_t src, dst;
    int type;
    int same_object;   /* pass one redist_layout as both src and dst */
    int reversed_comm; /* plan over a split of the communicator with reversed ranks, freed
                          right after plan creation (the plan duplicates comm) */
} case_t;

static int world_rank, world_size, psize; /* psize = min(world_size, MAXP) */
static const char *only_alg = NULL;

/* The threaded runs (ctest's mpi_random_layouts_threads_npN set REDIST_NUM_THREADS): plans
   given options ask for that many threads on even ranks and one more on odd ones (ranks may
   differ); plans given NULL options take the variable itself. 0 otherwise (the default). */
static int threads_of_rank(int rank)
{
    const char *v = getenv("REDIST_NUM_THREADS");
    return v != NULL && atoi(v) > 0 ? atoi(v) + rank % 2 : 0;
}
/* Device memory (support/mdevice.h): REDIST_TEST_MEMORY=cuda or auto. */
static int test_memory = REDIST_MEMORY_HOST;
#define device_capable mtest_device_capable
#define on_device mtest_on_device
static void *device_in(unsigned char *h, unsigned char *d, int64_t bytes, int on)
{
    return mtest_device_in(h, d, (size_t)bytes + GUARD, on);
}
static void device_out(unsigned char *h, const unsigned char *d, int64_t bytes, int on)
{
    mtest_device_out(h, d, (size_t)bytes + GUARD, on);
}

static int plans_run = 0, plans_skipped = 0;
static volatile double work_sink; /* keeps the overlap work from being optimised away */
static int lines_printed = 0;     /* failure lines this rank printed (capped) */

/* ---- deterministic random numbers (same stream on every rank) -------------------------- */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int64_t rnd(uint64_t *s, int64_t lo, int64_t hi) /* inclusive */
{
    if (hi <= lo)
        return lo;
    return lo + (int64_t)(rng_next(s) % (uint64_t)(hi - lo + 1));
}
static int chance(uint64_t *s, int percent)
{
    return rnd(s, 0, 99) < percent;
}
static void shuffle(uint64_t *s, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rnd(s, 0, i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ---- the layout formula, written independently of the library -------------------------- */
static int owner_coord(int64_t g, int64_t b, int p, int first)
{
    return (int)(((g / b) + first) % p);
}
/* Global index of local index l on coordinate c: blocks j with (j + first) mod p == c are
   j = cc + m*p, cc = (c - first) mod p; local index l = m*b + offset. */
static int64_t local_to_global(int64_t l, int64_t b, int p, int first, int c)
{
    int64_t cc = ((int64_t)c - first) % p;
    if (cc < 0)
        cc += p;
    return ((l / b) * p + cc) * b + l % b;
}
static int64_t count_on_coord(int64_t n, int64_t b, int p, int first, int c)
{
    int64_t cnt = 0;
    for (int64_t g = 0; g < n; g++)
        if (owner_coord(g, b, p, first) == c)
            cnt++;
    return cnt;
}
static int side_first(const side_t *sd, int k)
{
    return sd->has_first ? sd->first[k] : 0;
}

/* Grid coordinates of rank r in a side; returns 0 if r is not in it. */
static int side_coords(const side_t *sd, int ndims, int r, int coords[])
{
    int idx = -1;
    for (int i = 0; i < sd->nprocs; i++)
        if (sd->ranks[i] == r)
            idx = i;
    if (idx < 0)
        return 0;
    for (int k = ndims - 1; k >= 0; k--) {
        coords[k] = idx % sd->grid[k];
        idx /= sd->grid[k];
    }
    return 1;
}
/* Owner rank of a global multi-index. */
static int side_owner(const side_t *sd, int ndims, const int64_t g[])
{
    int idx = 0;
    for (int k = 0; k < ndims; k++)
        idx = idx * sd->grid[k] + owner_coord(g[k], sd->block[k], sd->grid[k], side_first(sd, k));
    return sd->ranks[idx];
}
/* Local shape of rank r; returns the element count. */
static int64_t side_shape(const case_t *cs, const side_t *sd, int r, int64_t shape[])
{
    int c[MAXD];
    if (!side_coords(sd, cs->ndims, r, c)) {
        for (int k = 0; k < cs->ndims; k++)
            shape[k] = 0;
        return 0;
    }
    int64_t n = 1;
    for (int k = 0; k < cs->ndims; k++) {
        shape[k] =
            count_on_coord(cs->extent[k], sd->block[k], sd->grid[k], side_first(sd, k), c[k]);
        n *= shape[k];
    }
    return n;
}
/* Global linear (row-major) indices of rank r's local elements, in local storage order. */
static int64_t *side_global_indices(const case_t *cs, const side_t *sd, int r, int64_t *count)
{
    int64_t shape[MAXD], n = side_shape(cs, sd, r, shape);
    int c[MAXD];
    int64_t *out = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    *count = n;
    if (n == 0)
        return out;
    side_coords(sd, cs->ndims, r, c);
    int d = cs->ndims;
    for (int64_t off = 0; off < n; off++) {
        int64_t l[MAXD], rest = off;
        if (sd->order == REDIST_ROW_MAJOR) {
            for (int k = d - 1; k >= 0; k--) {
                l[k] = rest % shape[k];
                rest /= shape[k];
            }
        } else {
            for (int k = 0; k < d; k++) {
                l[k] = rest % shape[k];
                rest /= shape[k];
            }
        }
        int64_t g = 0;
        for (int k = 0; k < d; k++) {
            int64_t gk = local_to_global(l[k], sd->block[k], sd->grid[k], side_first(sd, k), c[k]);
            g = g * cs->extent[k] + gk;
        }
        out[off] = g;
    }
    return out;
}

/* ---- element values -------------------------------------------------------------------- */
static void make_value(int type, int64_t g, int variant, unsigned char *out)
{
    switch (type) {
    case T_CHAR: {
        char v = (char)(g * 31 + 7 + variant * 101);
        memcpy(out, &v, 1);
        break;
    }
    case T_INT: {
        int v = (int)(g * 3 + 1 + (int64_t)variant * 1000003);
        memcpy(out, &v, sizeof v);
        break;
    }
    case T_DOUBLE: {
        double v = (double)g * 0.5 + 1.0 + variant * 1.0e7;
        memcpy(out, &v, 8);
        break;
    }
    default: {
        double v[3] = {(double)g + variant, -2.0 * (double)g - 3.0 * variant,
                       (double)g * 0.25 + 3.0 + 7.0 * variant};
        memcpy(out, v, 24);
    }
    }
}
static void format_value(int type, const unsigned char *p, char *buf, size_t len)
{
    switch (type) {
    case T_CHAR:
        snprintf(buf, len, "%d", (int)(signed char)p[0]);
        break;
    case T_INT: {
        int v;
        memcpy(&v, p, sizeof v);
        snprintf(buf, len, "%d", v);
        break;
    }
    case T_DOUBLE: {
        double v;
        memcpy(&v, p, 8);
        snprintf(buf, len, "%.17g", v);
        break;
    }
    default: {
        double v[3];
        memcpy(v, p, 24);
        snprintf(buf, len, "(%.17g,%.17g,%.17g)", v[0], v[1], v[2]);
    }
    }
}
static void fill(int type, const int64_t *gidx, int64_t n, int variant, unsigned char *buf)
{
    int es = type_sizes[type];
    for (int64_t i = 0; i < n; i++)
        make_value(type, gidx[i], variant, buf + i * es);
}

/* ---- case description ------------------------------------------------------------------ */
static void print_side(const char *label, const case_t *cs, const side_t *sd)
{
    printf("  %s: block=[", label);
    for (int k = 0; k < cs->ndims; k++)
        printf("%s%lld", k ? "," : "", (long long)sd->block[k]);
    printf("] grid=[");
    for (int k = 0; k < cs->ndims; k++)
        printf("%s%d", k ? "," : "", sd->grid[k]);
    printf("] first=");
    if (sd->has_first) {
        printf("[");
        for (int k = 0; k < cs->ndims; k++)
            printf("%s%d", k ? "," : "", sd->first[k]);
        printf("]");
    } else
        printf("NULL");
    printf(" ranks=");
    if (sd->has_ranks) {
        printf("[");
        for (int i = 0; i < sd->nprocs; i++)
            printf("%s%d", i ? "," : "", sd->ranks[i]);
        printf("]");
    } else
        printf("NULL");
    printf(" order=%s\n", sd->order == REDIST_ROW_MAJOR ? "row" : "col");
}
static void print_case(const case_t *cs)
{
    printf("  case %s: ndims=%d extent=[", cs->name, cs->ndims);
    for (int k = 0; k < cs->ndims; k++)
        printf("%s%lld", k ? "," : "", (long long)cs->extent[k]);
    printf("] type=%s same_object=%d comm=%s\n", type_names[cs->type], cs->same_object,
           cs->reversed_comm ? "reversed split of world" : "world");
    print_side("src", cs, &cs->src);
    print_side("dst", cs, &cs->dst);
}

/* ---- running one case ------------------------------------------------------------------ */
typedef struct {
    const case_t *cs;
    const char *alg;
    int errs;
    int me;
} ctx_t;

#define FAIL(cx, ...)                                                                              \
    do {                                                                                           \
        if ((cx)->errs < 20 && lines_printed++ < 200) {                                            \
            printf("[rank %d] case %s alg %s: ", world_rank, (cx)->cs->name,                       \
                   (cx)->alg ? (cx)->alg : "-");                                                   \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
        }                                                                                          \
        (cx)->errs++;                                                                              \
    } while (0)

/* Checks that rc is the same on every rank of comm and equals `want`. */
static void check_rc(ctx_t *cx, MPI_Comm comm, int rc, int want, const char *what)
{
    int mn, mx;
    MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, comm);
    if (mn != mx)
        FAIL(cx, "%s returned different codes on different ranks (min %d, max %d; here %d)", what,
             mn, mx, rc);
    else if (rc != want)
        FAIL(cx, "%s returned %d (%s), expected %d", what, rc, redist_strerror(rc), want);
}

static void check_dst(ctx_t *cx, const unsigned char *dst, const int64_t *gidx, int64_t n,
                      int variant, const char *how)
{
    int type = cx->cs->type, es = type_sizes[type], reported = 0;
    int64_t bad = 0;
    unsigned char want[24];
    for (int64_t i = 0; i < n; i++) {
        make_value(type, gidx[i], variant, want);
        if (memcmp(dst + i * es, want, (size_t)es) != 0) {
            if (reported++ < MAX_REPORTS) {
                char got_s[96], want_s[96];
                format_value(type, dst + i * es, got_s, sizeof got_s);
                format_value(type, want, want_s, sizeof want_s);
                FAIL(cx, "%s: dst[%lld] (global linear index %lld) = %s, expected %s", how,
                     (long long)i, (long long)gidx[i], got_s, want_s);
            }
            bad++;
        }
    }
    for (int i = 0; i < GUARD; i++)
        if (dst[n * es + i] != SENTINEL) {
            FAIL(cx, "%s: wrote past the end of the local destination (byte %d after it)", how, i);
            break;
        }
    if (bad > MAX_REPORTS)
        FAIL(cx, "%s: %lld of %lld destination elements wrong", how, (long long)bad, (long long)n);
}
static void check_src_intact(ctx_t *cx, const unsigned char *src, const int64_t *gidx, int64_t n,
                             int variant, const char *how)
{
    int type = cx->cs->type, es = type_sizes[type];
    unsigned char want[24];
    for (int64_t i = 0; i < n; i++) {
        make_value(type, gidx[i], variant, want);
        if (memcmp(src + i * es, want, (size_t)es) != 0) {
            FAIL(cx, "%s: source buffer modified at element %lld", how, (long long)i);
            return;
        }
    }
}

/* Algorithms the header names; they must handle every pair (never NOT_APPLICABLE). */
static int always_applicable(const char *name)
{
    if (test_memory != REDIST_MEMORY_HOST && !device_capable(name))
        return 0;
    static const char *names[] = {"auto",      "direct-async", "direct",
                                  "alltoallv", "alltoallw",    "general"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}
/* Algorithms that send every element straight from its source to its destination rank in one
   message per peer pair, so their traffic is exactly determined by the layouts. */
static int direct_traffic(const char *name)
{
    return strcmp(name, "direct") == 0 || strcmp(name, "direct-async") == 0 ||
           strcmp(name, "alltoallv") == 0 || strcmp(name, "alltoallw") == 0 ||
           strcmp(name, "general") == 0;
}

typedef struct {
    int64_t bytes_sent, bytes_received, bytes_copied, messages_sent, messages_received;
} traffic_t;

/* Expected traffic of rank me by enumerating all global indices. */
static traffic_t expected_traffic(const case_t *cs, int me)
{
    traffic_t t = {0, 0, 0, 0, 0};
    int64_t total = 1, es = type_sizes[cs->type];
    for (int k = 0; k < cs->ndims; k++)
        total *= cs->extent[k];
    char *to = calloc((size_t)psize, 1), *from = calloc((size_t)psize, 1);
    for (int64_t lin = 0; lin < total; lin++) {
        int64_t g[MAXD], rest = lin;
        for (int k = cs->ndims - 1; k >= 0; k--) {
            g[k] = rest % cs->extent[k];
            rest /= cs->extent[k];
        }
        int s = side_owner(&cs->src, cs->ndims, g), d = side_owner(&cs->dst, cs->ndims, g);
        if (s == me && d == me)
            t.bytes_copied += es;
        else if (s == me) {
            t.bytes_sent += es;
            to[d] = 1;
        } else if (d == me) {
            t.bytes_received += es;
            from[s] = 1;
        }
    }
    for (int r = 0; r < psize; r++) {
        t.messages_sent += to[r];
        t.messages_received += from[r];
    }
    free(to);
    free(from);
    return t;
}

static void check_stats(ctx_t *cx, MPI_Comm comm, redist_plan plan, const traffic_t *want,
                        int64_t ndst_bytes)
{
    redist_stats st;
    memset(&st, 0, sizeof st);
    int rc = redist_plan_stats(plan, &st);
    if (rc != REDIST_SUCCESS)
        FAIL(cx, "redist_plan_stats returned %d", rc);
    if (st.steps < 0 || st.messages_sent < 0 || st.bytes_sent < 0 || st.messages_received < 0 ||
        st.bytes_received < 0 || st.bytes_copied < 0 || st.runs_per_period < 0)
        FAIL(cx, "negative stats: steps %d msgs %lld/%lld bytes %lld/%lld copied %lld runs %lld",
             st.steps, (long long)st.messages_sent, (long long)st.messages_received,
             (long long)st.bytes_sent, (long long)st.bytes_received, (long long)st.bytes_copied,
             (long long)st.runs_per_period);
    if (!(st.predicted_seconds >= 0.0) || !isfinite(st.predicted_seconds))
        FAIL(cx, "predicted_seconds = %g", st.predicted_seconds);
    if (st.bytes_sent > 0 && st.messages_sent == 0)
        FAIL(cx, "bytes_sent %lld with 0 messages", (long long)st.bytes_sent);
    if (st.bytes_received > 0 && st.messages_received == 0)
        FAIL(cx, "bytes_received %lld with 0 messages", (long long)st.bytes_received);
    /* Each destination element arrives by a message or by the local copy of the self part. */
    if (st.bytes_received + st.bytes_copied < ndst_bytes)
        FAIL(cx, "bytes_received %lld + bytes_copied %lld < local destination bytes %lld",
             (long long)st.bytes_received, (long long)st.bytes_copied, (long long)ndst_bytes);

    int64_t loc[4] = {st.bytes_sent, st.messages_sent, -st.bytes_received, -st.messages_received};
    int64_t sum[4], mx[2];
    MPI_Allreduce(loc, sum, 4, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(loc, mx, 2, MPI_INT64_T, MPI_MAX, comm);
    if (sum[0] + sum[2] != 0)
        FAIL(cx, "sum of bytes_sent %lld != sum of bytes_received %lld", (long long)sum[0],
             (long long)-sum[2]);
    if (sum[1] + sum[3] != 0)
        FAIL(cx, "sum of messages_sent %lld != sum of messages_received %lld", (long long)sum[1],
             (long long)-sum[3]);
    if (st.max_bytes_per_rank != mx[0])
        FAIL(cx, "max_bytes_per_rank %lld != max over ranks of bytes_sent %lld",
             (long long)st.max_bytes_per_rank, (long long)mx[0]);
    if (st.max_messages_per_rank != mx[1])
        FAIL(cx, "max_messages_per_rank %lld != max over ranks of messages_sent %lld",
             (long long)st.max_messages_per_rank, (long long)mx[1]);

    if (direct_traffic(cx->alg)) {
        if (st.bytes_sent != want->bytes_sent || st.bytes_received != want->bytes_received ||
            st.bytes_copied != want->bytes_copied)
            FAIL(cx, "bytes sent/received/copied %lld/%lld/%lld, expected %lld/%lld/%lld",
                 (long long)st.bytes_sent, (long long)st.bytes_received, (long long)st.bytes_copied,
                 (long long)want->bytes_sent, (long long)want->bytes_received,
                 (long long)want->bytes_copied);
    }
    /* direct and direct-async: one message per peer that has data (the papers' schedules). */
    if (strcmp(cx->alg, "direct") == 0 || strcmp(cx->alg, "direct-async") == 0) {
        if (st.messages_sent != want->messages_sent ||
            st.messages_received != want->messages_received)
            FAIL(cx, "messages sent/received %lld/%lld, expected one per peer: %lld/%lld",
                 (long long)st.messages_sent, (long long)st.messages_received,
                 (long long)want->messages_sent, (long long)want->messages_received);
    }
}

static int known_algorithm(const char *name)
{
    int n = redist_algorithm_count();
    for (int i = 0; i < n; i++) {
        const char *a = redist_algorithm_name(i);
        if (a && strcmp(a, name) == 0)
            return i;
    }
    return -1;
}

static void reset_dst(unsigned char *d, int64_t bytes)
{
    memset(d, SENTINEL, (size_t)bytes + GUARD);
}

static int layout_of(const case_t *cs, const side_t *sd, redist_layout *out)
{
    return redist_layout_create(cs->ndims, cs->extent, sd->block, sd->grid,
                                sd->has_first ? sd->first : NULL, sd->has_ranks ? sd->ranks : NULL,
                                sd->order, out);
}

/* Runs one case with every algorithm; returns this rank's error count. */
static int run_case(const case_t *cs, int case_serial)
{
    ctx_t cx = {cs, NULL, 0, world_rank};
    redist_layout ls = NULL, ld = NULL;
    /* Layout ranks are ranks of the plan's communicator; with reversed_comm that is the split
       communicator whose rank r is world rank world_size-1-r. */
    int me = cs->reversed_comm ? world_size - 1 - world_rank : world_rank;
    cx.me = me;

    int rc = layout_of(cs, &cs->src, &ls);
    if (rc != REDIST_SUCCESS)
        FAIL(&cx, "redist_layout_create(src) returned %d (%s)", rc, redist_strerror(rc));
    if (cs->same_object)
        ld = ls;
    else {
        rc = layout_of(cs, &cs->dst, &ld);
        if (rc != REDIST_SUCCESS)
            FAIL(&cx, "redist_layout_create(dst) returned %d (%s)", rc, redist_strerror(rc));
    }
    int all_ok, ok = (ls != NULL && ld != NULL);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok)
        goto done;

    /* Local shapes against the formula, for this rank (the layout API test covers the rest). */
    int64_t sshape[MAXD], dshape[MAXD], lshape[MAXD], lcount;
    int64_t nsrc = side_shape(cs, &cs->src, me, sshape),
            ndst = side_shape(cs, &cs->dst, me, dshape);
    redist_layout lays[2] = {ls, ld};
    for (int s = 0; s < 2; s++) {
        const int64_t *want = s ? dshape : sshape;
        rc = redist_layout_local_shape(lays[s], me, lshape);
        int same = rc == REDIST_SUCCESS;
        for (int k = 0; k < cs->ndims && same; k++)
            same = lshape[k] == want[k];
        if (!same)
            FAIL(
                &cx,
                "redist_layout_local_shape(%s, %d) rc %d: [%lld,%lld,%lld], expected [%lld,%lld,%lld]",
                s ? "dst" : "src", me, rc, (long long)lshape[0],
                (long long)(cs->ndims > 1 ? lshape[1] : 0),
                (long long)(cs->ndims > 2 ? lshape[2] : 0), (long long)want[0],
                (long long)(cs->ndims > 1 ? want[1] : 0), (long long)(cs->ndims > 2 ? want[2] : 0));
        rc = redist_layout_local_size(lays[s], me, &lcount);
        if (rc != REDIST_SUCCESS || lcount != (s ? ndst : nsrc))
            FAIL(&cx, "redist_layout_local_size(%s, %d) rc %d count %lld, expected %lld",
                 s ? "dst" : "src", me, rc, (long long)lcount, (long long)(s ? ndst : nsrc));
    }

    int es = type_sizes[cs->type];
    int64_t sbytes = nsrc * es, dbytes = ndst * es;
    int64_t cnt;
    int64_t *gsrc = side_global_indices(cs, &cs->src, me, &cnt);
    int64_t *gdst = side_global_indices(cs, &cs->dst, me, &cnt);
    traffic_t want_traffic = expected_traffic(cs, me);
    /* REDIST_TEST_SHARED: node-shared arrays (redist_alloc), or a mix (mtest.h) */
    unsigned char *sA = mtest_host_alloc((size_t)sbytes + GUARD, case_serial),
                  *sB = mtest_host_alloc((size_t)sbytes + GUARD, case_serial + 1);
    unsigned char *d1 = mtest_host_alloc((size_t)dbytes + GUARD, case_serial + 2),
                  *d2 = mtest_host_alloc((size_t)dbytes + GUARD, case_serial + 3);
    fill(cs->type, gsrc, nsrc, 0, sA);
    fill(cs->type, gsrc, nsrc, 1, sB);
    unsigned char *dsA = NULL, *dsB = NULL, *dd1 = NULL, *dd2 = NULL; /* device twins */
    if (test_memory != REDIST_MEMORY_HOST &&
        ((dsA = mtest_device_alloc((size_t)sbytes + GUARD)) == NULL ||
         (dsB = mtest_device_alloc((size_t)sbytes + GUARD)) == NULL ||
         (dd1 = mtest_device_alloc((size_t)dbytes + GUARD)) == NULL ||
         (dd2 = mtest_device_alloc((size_t)dbytes + GUARD)) == NULL)) {
        FAIL(&cx, "device arrays: %s", redist_last_error_detail());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int nexec = case_serial; /* executes so far (AUTO: which arrays are on the device) */

    /* Each algorithm with the default options; the point-to-point ones also with each
       message transport forced: packed through the shared-memory window, packed through
       MPI only, and derived datatypes. */
    static const char *const variant_names[] = {"", "/pack", "/pack-no-shm", "/datatype"};
    int nalg = redist_algorithm_count();
    for (int av = 0; av < nalg * 4; av++) {
        int a = av / 4, variant = av % 4;
        const char *alg = redist_algorithm_name(a);
        if (!alg) {
            if (variant == 0)
                FAIL(&cx, "redist_algorithm_name(%d) is NULL", a);
            continue;
        }
        if (only_alg && strcmp(only_alg, alg) != 0)
            continue;
        /* alltoall-padded's variants run [GGKK03]'s all-to-all instead of MPI's, three of
           its five algorithms per case, in turn. */
        static const char *const a2a_names[] = {"auto", "ring", "mesh", "hypercube", "pairwise"};
        int padded = strcmp(alg, "alltoall-padded") == 0;
        const char *a2a = padded && variant > 0 ? a2a_names[(variant + case_serial) % 5] : NULL;
        if (variant > 0 && !padded && strcmp(alg, "direct-async") != 0 &&
            strcmp(alg, "direct") != 0)
            continue;
        char alg_label[64];
        snprintf(alg_label, sizeof alg_label, "%s%s%s", alg, a2a ? "/" : variant_names[variant],
                 a2a ? a2a : "");
        cx.alg = alg_label;

        MPI_Comm comm = MPI_COMM_WORLD;
        if (cs->reversed_comm)
            MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - 1 - world_rank, &comm);
        MPI_Datatype type = MPI_CHAR;
        if (cs->type == T_INT)
            type = MPI_INT;
        if (cs->type == T_DOUBLE)
            type = MPI_DOUBLE;
        if (cs->type == T_TRIPLE) {
            MPI_Type_contiguous(3, MPI_DOUBLE, &type);
            MPI_Type_commit(&type);
        }
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = alg;
        opt.alltoall_algorithm = a2a;
        opt.threads = threads_of_rank(world_rank);
        opt.memory = test_memory;
        if (variant > 0 && !padded)
            opt.transport = variant == 3 ? REDIST_TRANSPORT_DATATYPE : REDIST_TRANSPORT_PACK;
        if (variant == 2)
            opt.shared_memory = 0;
        /* "auto" is also reached with NULL options, on alternate cases. */
        const redist_options *optp =
            strcmp(alg, "auto") == 0 && case_serial % 2 && test_memory == REDIST_MEMORY_HOST ? NULL
                                                                                             : &opt;
        redist_plan plan = NULL;
        rc = redist_plan_create(ls, ld, type, comm, optp, &plan);
        int mn, mx;
        MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        /* The plan duplicated comm and type: ours can go now. */
        if (cs->type == T_TRIPLE)
            MPI_Type_free(&type);
        if (cs->reversed_comm)
            MPI_Comm_free(&comm);
        comm = MPI_COMM_WORLD; /* same process set; used only for the test's own reductions */
        if (mn != mx) {
            /* A plan that exists on some ranks only cannot be freed collectively: leak it. */
            FAIL(
                &cx,
                "redist_plan_create returned different codes on different ranks (min %d, max %d; here %d)",
                mn, mx, rc);
            continue;
        }
        int sections = mtest_sections_apply(alg, cs->ndims, cs->extent, cs->src.block, cs->src.grid,
                                            cs->dst.block, cs->dst.grid);
        if (sections >= 0 && sections != (rc != REDIST_ERR_NOT_APPLICABLE)) {
            FAIL(&cx, "%s %s, but its case %s", alg,
                 rc == REDIST_ERR_NOT_APPLICABLE ? "refused" : "applied",
                 sections ? "holds" : "does not hold");
            if (plan != NULL)
                redist_plan_free(&plan);
            continue;
        }
        if (test_memory != REDIST_MEMORY_HOST && optp != NULL &&
            ((variant == 3 && !padded) || !device_capable(alg))) { /* device plans pack */
            int want = variant == 3 && !padded ? REDIST_ERR_ARG : REDIST_ERR_NOT_APPLICABLE;
            if (rc != want)
                FAIL(&cx, "a device plan of %s returned %d (%s), expected %s", alg_label, rc,
                     redist_strerror(rc), redist_error_name(want));
            if (plan != NULL)
                redist_plan_free(&plan);
            plans_skipped++;
            continue;
        }
        if (rc == REDIST_ERR_NOT_APPLICABLE && !always_applicable(alg)) {
            plans_skipped++;
            if (plan != NULL)
                FAIL(&cx, "plan handle set although plan_create failed");
            continue;
        }
        if (rc != REDIST_SUCCESS) {
            FAIL(&cx, "redist_plan_create returned %d (%s)", rc, redist_strerror(rc));
            continue;
        }
        if (plan == NULL) {
            FAIL(&cx, "redist_plan_create succeeded with a NULL plan");
            continue;
        }
        plans_run++;

        /* The chosen algorithm: a known concrete name, the forced one if forced, the same on
           every rank. */
        const char *chosen = redist_plan_algorithm(plan);
        int idx = chosen ? known_algorithm(chosen) : -2, imn, imx;
        if (!chosen)
            FAIL(&cx, "redist_plan_algorithm returned NULL");
        else if (idx < 0)
            FAIL(&cx, "redist_plan_algorithm returned unknown name \"%s\"", chosen);
        else if (strcmp(alg, "auto") != 0 && strcmp(chosen, alg) != 0)
            FAIL(&cx, "forced algorithm %s but redist_plan_algorithm says \"%s\"", alg, chosen);
        else if (strcmp(chosen, "auto") == 0)
            FAIL(&cx, "redist_plan_algorithm says \"auto\", not the chosen algorithm");
        MPI_Allreduce(&idx, &imn, 1, MPI_INT, MPI_MIN, comm);
        MPI_Allreduce(&idx, &imx, 1, MPI_INT, MPI_MAX, comm);
        if (imn != imx)
            FAIL(&cx, "ranks chose different algorithms (here \"%s\")", chosen ? chosen : "(null)");

        check_stats(&cx, comm, plan, &want_traffic, dbytes);

        /* 1: execute three times; a rank passes NULL for a side where it holds nothing
           (NULL, NULL on a rank in neither layout). Repeated executes of one plan with idle
           ranks once hung alltoallw (Open MPI took equal NULL stand-ins for MPI_IN_PLACE). */
        for (int rep = 0; rep < 3; rep++) {
            reset_dst(d1, dbytes);
            int sd = on_device(nexec, 0), dd = on_device(nexec++, 1);
            void *sp = device_in(sA, dsA, sbytes, sd), *dp = device_in(d1, dd1, dbytes, dd);
            rc = redist_execute(plan, nsrc ? sp : NULL, ndst ? dp : NULL);
            device_out(d1, dd1, dbytes, dd);
            device_out(sA, dsA, sbytes, sd);
            check_rc(&cx, comm, rc, REDIST_SUCCESS, "redist_execute #1");
            check_dst(&cx, d1, gdst, ndst, 0, "execute #1");
            check_src_intact(&cx, sA, gsrc, nsrc, 0, "execute #1");
        }

        /* 2: execute again with other buffers and other values (non-NULL even if empty). */
        reset_dst(d2, dbytes);
        int sd = on_device(nexec, 0), dd = on_device(nexec++, 1);
        rc = redist_execute(plan, device_in(sB, dsB, sbytes, sd), device_in(d2, dd2, dbytes, dd));
        device_out(d2, dd2, dbytes, dd);
        device_out(sB, dsB, sbytes, sd);
        check_rc(&cx, comm, rc, REDIST_SUCCESS, "redist_execute #2");
        check_dst(&cx, d2, gdst, ndst, 1, "execute #2");
        check_src_intact(&cx, sB, gsrc, nsrc, 1, "execute #2");

        /* 3: start, then local work and redist_test until done; NULL where empty. */
        reset_dst(d2, dbytes);
        sd = on_device(nexec, 0), dd = on_device(nexec++, 1);
        void *sp = device_in(sA, dsA, sbytes, sd), *dp = device_in(d2, dd2, dbytes, dd);
        rc = redist_start(plan, nsrc ? sp : NULL, ndst ? dp : NULL);
        check_rc(&cx, comm, rc, REDIST_SUCCESS, "redist_start #3");
        if (rc == REDIST_SUCCESS) {
            int done = 0;
            double work = 0;
            double t0 = MPI_Wtime();
            while (!done) {
                for (int i = 0; i < 500; i++)
                    work += i * 0.5;
                rc = redist_test(plan, &done);
                if (rc != REDIST_SUCCESS) {
                    FAIL(&cx, "redist_test returned %d (%s)", rc, redist_strerror(rc));
                    redist_wait(plan);
                    break;
                }
                if (MPI_Wtime() - t0 > 120) {
                    FAIL(&cx, "redist_test not done after 120 s");
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
            work_sink += work;
            device_out(d2, dd2, dbytes, dd);
            check_dst(&cx, d2, gdst, ndst, 0, "start+test #3");
        }

        /* 4: start, one redist_test, then redist_wait; NULL where empty. What the test
           unpacked and what the wait does (with threads: overlapped, exec/overlap.c) add up. */
        reset_dst(d1, dbytes);
        sd = on_device(nexec, 0), dd = on_device(nexec++, 1);
        sp = device_in(sB, dsB, sbytes, sd), dp = device_in(d1, dd1, dbytes, dd);
        rc = redist_start(plan, nsrc ? sp : NULL, ndst ? dp : NULL);
        check_rc(&cx, comm, rc, REDIST_SUCCESS, "redist_start #4");
        if (rc == REDIST_SUCCESS) {
            int done = 0;
            rc = redist_test(plan, &done);
            if (rc != REDIST_SUCCESS)
                FAIL(&cx, "redist_test #4 returned %d (%s)", rc, redist_strerror(rc));
            rc = redist_wait(plan); /* an inactive plan if done: returns at once */
            device_out(d1, dd1, dbytes, dd);
            device_out(sB, dsB, sbytes, sd);
            check_rc(&cx, comm, rc, REDIST_SUCCESS, "redist_wait #4");
            check_dst(&cx, d1, gdst, ndst, 1, "start+wait #4");
        }
        check_src_intact(&cx, sB, gsrc, nsrc, 1, "start+wait #4");

        rc = redist_plan_free(&plan);
        check_rc(&cx, comm, rc, REDIST_SUCCESS, "redist_plan_free");
        if (plan != NULL)
            FAIL(&cx, "redist_plan_free did not set the plan to NULL");
    }
    cx.alg = NULL;
    mtest_device_free(dsA);
    mtest_device_free(dsB);
    mtest_device_free(dd1);
    mtest_device_free(dd2);
    mtest_host_free(sA);
    mtest_host_free(sB);
    mtest_host_free(d1);
    mtest_host_free(d2);
    free(gsrc);
    free(gdst);

done:
    if (ld != NULL && ld != ls) {
        rc = redist_layout_free(&ld);
        if (rc != REDIST_SUCCESS || ld != NULL)
            FAIL(&cx, "redist_layout_free(dst) rc %d, pointer %p", rc, (void *)ld);
    }
    if (ls != NULL) {
        rc = redist_layout_free(&ls);
        if (rc != REDIST_SUCCESS || ls != NULL)
            FAIL(&cx, "redist_layout_free(src) rc %d, pointer %p", rc, (void *)ls);
    }
    return cx.errs;
}

static const char *prog_name = "test_random_layouts";
static uint64_t run_seed;

/* Runs a case and, if any rank found an error, prints it on rank 0 with a reproducer. */
static int run_and_report(const case_t *cs, int serial, int random_index)
{
    int e = run_case(cs, serial), tot;
    MPI_Allreduce(&e, &tot, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (tot > 0 && world_rank == 0) {
        printf("FAILED (%d errors over all ranks):\n", tot);
        print_case(cs);
        if (random_index >= 0)
            printf("  reproduce: mpirun -np %d %s --seed %llu --case %d\n", world_size, prog_name,
                   (unsigned long long)run_seed, random_index);
        else
            printf("  reproduce: mpirun -np %d %s --cases 0\n", world_size, prog_name);
        fflush(stdout);
    }
    return e;
}

/* ---- case generation ------------------------------------------------------------------- */
static void factor_into(uint64_t *s, int n, int ndims, int grid[])
{
    for (int k = 0; k < ndims; k++)
        grid[k] = 1;
    for (int f = 2; n > 1; f++)
        while (n % f == 0) {
            grid[rnd(s, 0, ndims - 1)] *= f;
            n /= f;
        }
}
static void set_grid(side_t *sd, int ndims, const int grid[])
{
    sd->nprocs = 1;
    for (int k = 0; k < ndims; k++) {
        sd->grid[k] = grid[k];
        sd->nprocs *= grid[k];
    }
}
static void random_side_params(uint64_t *s, side_t *sd, int ndims)
{
    for (int k = 0; k < ndims; k++) {
        sd->block[k] = chance(s, 85) ? rnd(s, 1, 13) : rnd(s, 14, 400);
        sd->first[k] = (int)rnd(s, 0, sd->grid[k] - 1);
    }
    sd->has_first = chance(s, 70);
    sd->order = chance(s, 50) ? REDIST_ROW_MAJOR : REDIST_COL_MAJOR;
}
static void identity_ranks(side_t *sd)
{
    for (int i = 0; i < sd->nprocs; i++)
        sd->ranks[i] = i;
}
static int64_t pick_extent(uint64_t *s, const case_t *cs, int k, int64_t maxe)
{
    static const int64_t primes[] = {2,  3,  5,  7,   11,  13,  17,  29, 31,
                                     37, 61, 97, 101, 127, 211, 257, 293};
    const side_t *sd = chance(s, 50) ? &cs->src : &cs->dst;
    int64_t b = sd->block[k], pb = b * sd->grid[k], e;
    switch (rnd(s, 0, 9)) {
    case 0:
        e = chance(s, 50) ? 0 : 1;
        break;
    case 1:
        e = primes[rnd(s, 0, (int64_t)(sizeof primes / sizeof primes[0]) - 1)];
        break;
    case 2:
        e = b + rnd(s, -1, 1);
        break;
    case 3:
        e = pb + rnd(s, -1, 1);
        break;
    case 4:
        e = rnd(s, 1, b > 1 ? b - 1 : 1);
        break; /* smaller than the block */
    case 5:
        e = rnd(s, 1, 3) * pb + rnd(s, -1, 1);
        break;
    default:
        e = rnd(s, 0, maxe);
    }
    if (e < 0)
        e = 0;
    if (e > maxe)
        e = rnd(s, 0, maxe);
    return e;
}
static void gen_case(uint64_t seed, int k, case_t *cs)
{
    uint64_t st = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(k + 1)), *s = &st;
    rng_next(s);
    memset(cs, 0, sizeof *cs);
    snprintf(cs->name, sizeof cs->name, "random #%d", k);
    int d = (int)rnd(s, 1, 3), P = psize, grid[MAXD];
    cs->ndims = d;
    cs->type = (int)rnd(s, 0, NTYPES - 1);
    cs->reversed_comm = chance(s, 20);
    int perm[MAXP];
    for (int i = 0; i < P; i++)
        perm[i] = i;
    shuffle(s, perm, P);

    int mode = (int)rnd(s, 0, 99);
    mode = mode < 30 ? 0 : mode < 50 ? 1 : mode < 65 ? 2 : mode < 80 ? 3 : 4;
    if (mode == 1 && P < 2)
        mode = 0;
    switch (mode) {
    case 0: /* independent random subsets (usually overlapping) */
        factor_into(s, (int)rnd(s, 1, P), d, grid);
        set_grid(&cs->src, d, grid);
        factor_into(s, (int)rnd(s, 1, P), d, grid);
        set_grid(&cs->dst, d, grid);
        memcpy(cs->src.ranks, perm, sizeof(int) * (size_t)cs->src.nprocs);
        shuffle(s, perm, P);
        memcpy(cs->dst.ranks, perm, sizeof(int) * (size_t)cs->dst.nprocs);
        cs->src.has_ranks = cs->dst.has_ranks = 1;
        if (chance(s, 25)) {
            identity_ranks(&cs->src);
            cs->src.has_ranks = 0;
        }
        if (chance(s, 25)) {
            identity_ranks(&cs->dst);
            cs->dst.has_ranks = 0;
        }
        break;
    case 1: { /* disjoint rank sets */
        int ns = (int)rnd(s, 1, P - 1);
        factor_into(s, ns, d, grid);
        set_grid(&cs->src, d, grid);
        factor_into(s, (int)rnd(s, 1, P - ns), d, grid);
        set_grid(&cs->dst, d, grid);
        memcpy(cs->src.ranks, perm, sizeof(int) * (size_t)ns);
        memcpy(cs->dst.ranks, perm + ns, sizeof(int) * (size_t)cs->dst.nprocs);
        cs->src.has_ranks = cs->dst.has_ranks = 1;
        if (chance(s, 30)) {
            identity_ranks(&cs->src);
            cs->src.has_ranks = 0;
            for (int i = 0; i < cs->dst.nprocs; i++)
                cs->dst.ranks[i] = ns + i;
            shuffle(s, cs->dst.ranks, cs->dst.nprocs);
        }
        break;
    }
    case 2: /* the same rank set, another grid shape and order */
        factor_into(s, (int)rnd(s, 1, P), d, grid);
        set_grid(&cs->src, d, grid);
        factor_into(s, cs->src.nprocs, d, grid);
        set_grid(&cs->dst, d, grid);
        memcpy(cs->src.ranks, perm, sizeof(int) * (size_t)cs->src.nprocs);
        memcpy(cs->dst.ranks, perm, sizeof(int) * (size_t)cs->src.nprocs);
        if (chance(s, 60))
            shuffle(s, cs->dst.ranks, cs->dst.nprocs);
        cs->src.has_ranks = cs->dst.has_ranks = 1;
        break;
    case 3: /* identical layouts (set below, after the parameters) */
    case 4: /* every rank on both sides */
        factor_into(s, mode == 4 ? P : (int)rnd(s, 1, P), d, grid);
        set_grid(&cs->src, d, grid);
        factor_into(s, cs->src.nprocs, d, grid);
        set_grid(&cs->dst, d, grid);
        identity_ranks(&cs->src);
        identity_ranks(&cs->dst);
        if (mode == 3 && chance(s, 60)) {
            memcpy(cs->src.ranks, perm, sizeof(int) * (size_t)cs->src.nprocs);
            cs->src.has_ranks = 1;
        }
        break;
    }
    random_side_params(s, &cs->src, d);
    random_side_params(s, &cs->dst, d);
    if (mode == 3) {
        int order = cs->dst.order;
        cs->dst = cs->src;
        if (chance(s, 50))
            cs->same_object = 1;
        else if (chance(s, 50))
            cs->dst.order = order;
    }

    int64_t maxe = d == 1 ? 300 : d == 2 ? 150 : 30;
    if (d == 1 && chance(s, 10))
        maxe = 5000;
    for (int k2 = 0; k2 < d; k2++)
        cs->extent[k2] = pick_extent(s, cs, k2, maxe);
    /* Keep 2-D totals at most 20000 elements. */
    while (d == 2 && cs->extent[0] * cs->extent[1] > 20000) {
        int big = cs->extent[0] > cs->extent[1] ? 0 : 1;
        cs->extent[big] /= 2;
    }
}

/* ---- fixed cases ----------------------------------------------------------------------- */
static void side_simple(side_t *sd, int ndims, const int64_t block[], const int grid[], int order)
{
    memset(sd, 0, sizeof *sd);
    for (int k = 0; k < ndims; k++)
        sd->block[k] = block[k];
    set_grid(sd, ndims, grid);
    identity_ranks(sd);
    sd->order = order;
}
static void grid2(int p, int g[2])
{
    g[0] = 1;
    for (int f = 1; f * f <= p; f++)
        if (p % f == 0)
            g[0] = f;
    g[1] = p / g[0];
}
static int run_fixed_cases(void)
{
    int errs = 0, P = psize, serial = 0;
    case_t c;
    int g[MAXD];

    /* Paper example: cyclic(2) -> cyclic(6), 48 elements, 4 ranks (fewer if not available). */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: cyclic(2) -> cyclic(6), n=48, %d ranks", P < 4 ? P : 4);
    c.ndims = 1;
    c.extent[0] = 48;
    c.type = T_INT;
    g[0] = P < 4 ? P : 4;
    side_simple(&c.src, 1, (int64_t[]){2}, g, REDIST_ROW_MAJOR);
    side_simple(&c.dst, 1, (int64_t[]){6}, g, REDIST_ROW_MAJOR);
    errs += run_and_report(&c, serial++, -1);

    /* Identical 2-D layouts: one layout object for both sides, then two equal objects with
       different storage orders. */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: identical 2-D layout (one object)");
    c.ndims = 2;
    c.extent[0] = 37;
    c.extent[1] = 23;
    c.type = T_DOUBLE;
    grid2(P, g);
    side_simple(&c.src, 2, (int64_t[]){3, 4}, g, REDIST_COL_MAJOR);
    c.dst = c.src;
    c.same_object = 1;
    errs += run_and_report(&c, serial++, -1);
    snprintf(c.name, sizeof c.name, "fixed: identical 2-D layout, row -> col");
    c.same_object = 0;
    c.src.order = REDIST_ROW_MAJOR;
    errs += run_and_report(&c, serial++, -1);

    /* 1-D block -> cyclic. */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: 1-D block -> cyclic, n=101");
    c.ndims = 1;
    c.extent[0] = 101;
    c.type = T_DOUBLE;
    g[0] = P;
    side_simple(&c.src, 1, (int64_t[]){(101 + P - 1) / P}, g, REDIST_ROW_MAJOR);
    side_simple(&c.dst, 1, (int64_t[]){1}, g, REDIST_ROW_MAJOR);
    errs += run_and_report(&c, serial++, -1);

    /* Source on rank 0 only, destination on all ranks. */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: 2-D on rank {0} -> all ranks");
    c.ndims = 2;
    c.extent[0] = 20;
    c.extent[1] = 17;
    c.type = T_TRIPLE;
    g[0] = g[1] = 1;
    side_simple(&c.src, 2, (int64_t[]){5, 5}, g, REDIST_ROW_MAJOR);
    grid2(P, g);
    side_simple(&c.dst, 2, (int64_t[]){2, 3}, g, REDIST_COL_MAJOR);
    errs += run_and_report(&c, serial++, -1);

    /* First half -> second half (disjoint; both on rank 0 when there is one rank). */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: first half -> second half, n=97");
    c.ndims = 1;
    c.extent[0] = 97;
    c.type = T_CHAR;
    g[0] = P >= 2 ? P / 2 : 1;
    side_simple(&c.src, 1, (int64_t[]){3}, g, REDIST_ROW_MAJOR);
    g[0] = P >= 2 ? P - P / 2 : 1;
    side_simple(&c.dst, 1, (int64_t[]){5}, g, REDIST_ROW_MAJOR);
    if (P >= 2) {
        c.dst.has_ranks = 1;
        for (int i = 0; i < c.dst.nprocs; i++)
            c.dst.ranks[i] = P / 2 + i;
    }
    errs += run_and_report(&c, serial++, -1);

    /* 3-D from the last rank to rank 0, explicit first coordinates. */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: 3-D rank {P-1} -> rank {0}");
    c.ndims = 3;
    c.extent[0] = 7;
    c.extent[1] = 5;
    c.extent[2] = 3;
    c.type = T_INT;
    g[0] = g[1] = g[2] = 1;
    side_simple(&c.src, 3, (int64_t[]){2, 2, 2}, g, REDIST_COL_MAJOR);
    side_simple(&c.dst, 3, (int64_t[]){4, 1, 3}, g, REDIST_ROW_MAJOR);
    c.src.has_ranks = c.dst.has_ranks = 1;
    c.src.ranks[0] = P - 1;
    c.dst.ranks[0] = 0;
    errs += run_and_report(&c, serial++, -1);

    /* Everything on the last rank, the others idle passing NULL, NULL (alltoallw once hung
       on the second or third execute). */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: 1-D cyclic(7) -> cyclic(572) on rank {P-1} only");
    c.ndims = 1;
    c.extent[0] = 2017;
    c.type = T_DOUBLE;
    g[0] = 1;
    side_simple(&c.src, 1, (int64_t[]){7}, g, REDIST_ROW_MAJOR);
    side_simple(&c.dst, 1, (int64_t[]){572}, g, REDIST_COL_MAJOR);
    c.src.has_ranks = c.dst.has_ranks = 1;
    c.src.ranks[0] = c.dst.ranks[0] = P - 1;
    errs += run_and_report(&c, serial++, -1);

    /* Empty arrays: a zero extent in one dimension. */
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "fixed: empty 2-D array (0 x 9)");
    c.ndims = 2;
    c.extent[0] = 0;
    c.extent[1] = 9;
    c.type = T_DOUBLE;
    grid2(P, g);
    side_simple(&c.src, 2, (int64_t[]){2, 2}, g, REDIST_ROW_MAJOR);
    g[0] = 1;
    g[1] = P;
    side_simple(&c.dst, 2, (int64_t[]){1, 3}, g, REDIST_COL_MAJOR);
    errs += run_and_report(&c, serial++, -1);
    return errs;
}

static void check_algorithm_list(int *errs)
{
    int n = redist_algorithm_count();
    static const char *required[] = {"auto", "direct-async", "direct", "alltoallv", "alltoallw"};
    for (size_t r = 0; r < sizeof required / sizeof required[0]; r++)
        if (known_algorithm(required[r]) < 0) {
            if (world_rank == 0)
                printf("algorithm \"%s\" is not listed\n", required[r]);
            (*errs)++;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            const char *a = redist_algorithm_name(i), *b = redist_algorithm_name(j);
            if (a && b && strcmp(a, b) == 0) {
                if (world_rank == 0)
                    printf("algorithm \"%s\" listed twice\n", a);
                (*errs)++;
            }
        }
    if (redist_algorithm_name(n) != NULL || redist_algorithm_name(-1) != NULL) {
        if (world_rank == 0)
            printf("redist_algorithm_name out of range is not NULL\n");
        (*errs)++;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    psize = world_size < MAXP ? world_size : MAXP;
    test_memory = mtest_test_memory();
    mtest_test_shared();
    if (world_size > MAXP) {
        /* Layout ranks stay below MAXP; the reversed communicator would break that. */
        if (world_rank == 0)
            printf("note: only the first %d ranks take part in layouts\n", MAXP);
    }

    uint64_t seed = DEFAULT_SEED;
    int ncases = DEFAULT_CASES, only_case = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
            ncases = atoi(argv[++i]);
        else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only_case = atoi(argv[++i]);
        else if (strcmp(argv[i], "--alg") == 0 && i + 1 < argc)
            only_alg = argv[++i];
        else {
            if (world_rank == 0)
                fprintf(stderr, "usage: %s [--seed S] [--cases C] [--case K] [--alg NAME]\n",
                        argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    prog_name = argv[0];
    run_seed = seed;
    if (world_rank == 0)
        printf("test_random_layouts: seed %llu, %d random cases\n", (unsigned long long)seed,
               ncases);

    int errs = 0;
    check_algorithm_list(&errs);
    if (only_case < 0) {
        errs += run_fixed_cases();
    }
    for (int k = 0; k < ncases || (only_case >= 0 && k <= only_case); k++) {
        if (only_case >= 0 && k != only_case)
            continue;
        case_t cs;
        gen_case(seed, k, &cs);
        if (world_size > MAXP)
            cs.reversed_comm = 0;
        errs += run_and_report(&cs, k, k);
    }

    if (plans_run == 0 && !(only_alg && plans_skipped > 0)) {
        if (world_rank == 0)
            printf("no plan was executed\n");
        errs++;
    }
    return mtest_finalize(errs);
}
