#include "support/mtest.h"

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int64_t mtest_global_of(int64_t l, int64_t b, int P, int first, int c)
{
    int64_t rel = ((c - first) % P + P) % P; /* c's place after the first block's owner */
    return (l / b) * b * P + rel * b + l % b;
}

int64_t mtest_global_linear(int nd, const int64_t n[], const int64_t block[], const int grid[],
                            const int first[], int order, const int64_t shape[], const int coords[],
                            int64_t i)
{
    int64_t g = 0, rem = i;
    int64_t li[16];
    for (int j = 0; j < nd; j++) {           /* the fastest dimension first */
        int k = order == 0 ? nd - 1 - j : j; /* REDIST_ROW_MAJOR is 0 */
        li[k] = rem % shape[k];
        rem /= shape[k];
    }
    for (int k = 0; k < nd; k++)
        g = g * n[k] + mtest_global_of(li[k], block[k], grid[k], first ? first[k] : 0, coords[k]);
    return g;
}

int mtest_globals_open(mtest_globals *w, int nd, const int64_t n[], const int64_t block[],
                       const int grid[], const int first[], int order, const int64_t shape[],
                       const int coords[])
{
    memset(w, 0, sizeof *w);
    if (nd < 1 || nd > 16)
        return -1;
    w->nd = nd;
    w->order = order;
    int64_t mult = 1; /* part[k][l]: what local index l along k adds to the global index */
    for (int k = nd - 1; k >= 0; k--) {
        w->shape[k] = shape[k];
        w->part[k] = malloc((size_t)(shape[k] > 0 ? shape[k] : 1) * sizeof *w->part[k]);
        if (w->part[k] == NULL) {
            mtest_globals_close(w);
            return -1;
        }
        for (int64_t l = 0; l < shape[k]; l++)
            w->part[k][l] =
                mult * mtest_global_of(l, block[k], grid[k], first ? first[k] : 0, coords[k]);
        mult *= n[k];
    }
    return 0;
}

int64_t mtest_globals_next(mtest_globals *w)
{
    int64_t g = 0;
    for (int k = 0; k < w->nd; k++)
        g += w->part[k][w->at[k]];
    for (int j = 0; j < w->nd; j++) { /* the next element: the fastest dimension first */
        int k = w->order == 0 ? w->nd - 1 - j : j; /* REDIST_ROW_MAJOR is 0 */
        if (++w->at[k] < w->shape[k])
            break;
        w->at[k] = 0;
    }
    return g;
}

void mtest_globals_close(mtest_globals *w)
{
    for (int k = 0; k < 16; k++) {
        free(w->part[k]);
        w->part[k] = NULL;
    }
}

int mtest_all_same(int v)
{
    int mn, mx;
    MPI_Allreduce(&v, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return mn == mx;
}

unsigned mtest_matmul(unsigned a, unsigned b)
{
    unsigned a00 = a & 255, a01 = (a >> 8) & 255, a10 = (a >> 16) & 255, a11 = a >> 24;
    unsigned b00 = b & 255, b01 = (b >> 8) & 255, b10 = (b >> 16) & 255, b11 = b >> 24;
    unsigned c00 = (a00 * b00 + a01 * b10) & 255, c01 = (a00 * b01 + a01 * b11) & 255;
    unsigned c10 = (a10 * b00 + a11 * b10) & 255, c11 = (a10 * b01 + a11 * b11) & 255;
    return c00 | c01 << 8 | c10 << 16 | c11 << 24;
}

void mtest_matmul_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = mtest_matmul(a[i], b[i]);
}

mtest_memory mtest_memory_under(double limit, double mine)
{
    MPI_Comm node;
    int k = 1;
    double node_sum = mine, most = mine;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &k);
        MPI_Allreduce(&mine, &node_sum, 1, MPI_DOUBLE, MPI_SUM, node);
        MPI_Comm_free(&node);
    }
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double share = limit / k, slots = share / 16, cap = (double)((int64_t)64 << 20);
    /* The library's test is 2 max(sent, received) <= share for the largest rank, plus a byte
       per buffer: 2 (sent + received) + 2 bounds it from above. */
    int roomy = 2 * most + 2 <= share, over = node_sum > limit;
    int64_t bound = slots < cap ? (int64_t)slots : (int64_t)cap;
    mtest_memory m = {0, 0, bound > 0 ? bound : 1, k, node_sum, most};
    MPI_Allreduce(MPI_IN_PLACE, &m.node_need, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&roomy, &m.must_fit, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&over, &m.cannot_fit, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &m.bound, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &m.node_ranks, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

static int is_block(int64_t n, int64_t b, int P)
{
    return P == 1 || b >= (n + P - 1) / P;
}

int mtest_sections_apply(const char *name, int nd, const int64_t n[], const int64_t xb[],
                         const int xg[], const int64_t yb[], const int yg[])
{
    static const char *const names[] = {"block-to-block", "block-to-cyclic", "cyclic-to-block",
                                        "tk-to-k", "k-to-tk"};
    int which = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(name, names[i]) == 0)
            which = i;
    if (which < 0)
        return -1;
    for (int k = 0; k < nd; k++) {
        if (n[k] == 0)
            continue;
        int bs = is_block(n[k], xb[k], xg[k]), bd = is_block(n[k], yb[k], yg[k]);
        int ok[5] = {bs && bd, bs, bd, xb[k] % yb[k] == 0, yb[k] % xb[k] == 0};
        if (!ok[which])
            return 0;
    }
    return 1;
}

void mtest_fail(int *errs, int rank, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[rank %d] %s: ", rank, what);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    ++*errs;
}

void mtest_expect_all(int *errs, int rank, const char *what, int rc, int want)
{
    if (!mtest_all_same(rc) || rc != want)
        mtest_fail(errs, rank, what, "returned %s (%s), want %s on every rank",
                   redist_error_name(rc), redist_last_error_detail(), redist_error_name(want));
}

int mtest_finalize(int errs)
{
    int total = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0;
}

int64_t mtest_rand(uint64_t *state, int64_t lo, int64_t hi)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return lo + (int64_t)(x % (uint64_t)(hi - lo + 1));
}

uint64_t mtest_case_state(uint64_t seed, int i)
{
    uint64_t x = seed * 6364136223846793005ull + (uint64_t)i * 1442695040888963407ull + 1;
    return x != 0 ? x : 1; /* xorshift stays at 0 */
}

void mtest_case_args(int argc, char **argv, uint64_t *seed, int *cases, int *only)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--seed") == 0)
            *seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--cases") == 0)
            *cases = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--case") == 0)
            *only = atoi(argv[i + 1]);
    }
}

const char *mtest_variant(int v, redist_options *opt)
{
    int nalg = redist_algorithm_count();
    const char *name = v < 0 || v == nalg ? "auto"
                       : v < nalg         ? redist_algorithm_name(v)
                                          : "direct-async";
    redist_options_init(opt);
    opt->algorithm = name;
    if (v == nalg)
        opt->max_buffer_bytes = 64; /* a few elements per chunk */
    if (v == nalg + 1)
        opt->transport = REDIST_TRANSPORT_DATATYPE;
    if (v > nalg + 1)
        opt->transport = REDIST_TRANSPORT_PACK;
    if (v == nalg + 3)
        opt->shared_memory = 0;
    return name;
}

void mtest_shuffle(uint64_t *state, int *a, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = (int)mtest_rand(state, 0, i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

void mtest_factor(uint64_t *state, int p, int *rows, int *cols)
{
    int r = 1;
    for (int d = 1; d <= p; d++)
        if (p % d == 0 && mtest_rand(state, 0, 2) == 0)
            r = d;
    *rows = r;
    *cols = p / r;
}

double mtest_get_part(mtest_scalar kind, int parts, const void *buf, int64_t i, int k)
{
    const char *at = (const char *)buf + (i * parts + k) * (kind == MTEST_DOUBLE ? 8 : 4);
    if (kind == MTEST_FLOAT) {
        float f;
        memcpy(&f, at, sizeof f);
        return f;
    }
    if (kind == MTEST_INT) {
        int n;
        memcpy(&n, at, sizeof n);
        return n;
    }
    double d;
    memcpy(&d, at, sizeof d);
    return d;
}

void mtest_set_part(mtest_scalar kind, int parts, void *buf, int64_t i, int k, double v)
{
    char *at = (char *)buf + (i * parts + k) * (kind == MTEST_DOUBLE ? 8 : 4);
    float f = (float)v;
    int n = (int)v;
    if (kind == MTEST_FLOAT)
        memcpy(at, &f, sizeof f);
    else if (kind == MTEST_INT)
        memcpy(at, &n, sizeof n);
    else
        memcpy(at, &v, sizeof v);
}

int64_t mtest_first_difference(mtest_scalar kind, int parts, const void *got, const void *want,
                               int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < parts; k++)
            if (mtest_get_part(kind, parts, got, i, k) != mtest_get_part(kind, parts, want, i, k))
                return i + 1;
    return 0;
}

int mtest_random_grid(uint64_t *state, int nranks, int maxp, int nd, int ranks[], int grid[])
{
    int n = nranks < maxp ? nranks : maxp, p = (int)mtest_rand(state, 1, n);
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    mtest_shuffle(state, ranks, n); /* a random subset, in random order */
    for (int k = 0; k < nd; k++)
        grid[k] = 1;
    for (int left = p, k = 0; left > 1; k = (k + 1) % nd) { /* p's factors, round robin */
        int f = 2;
        while (left % f)
            f++;
        grid[k] *= f;
        left /= f;
    }
    return p;
}

int mtest_coords_of(const int ranks[], int nprocs, const int grid[], int nd, int rank, int coords[])
{
    for (int pos = 0; pos < nprocs; pos++)
        if (ranks[pos] == rank) {
            for (int k = nd - 1; k >= 0; k--) {
                coords[k] = pos % grid[k];
                pos /= grid[k];
            }
            return 1;
        }
    return 0;
}

/* The whole report, written at once by the handler (write is async-signal-safe). */
static char watchdog_line[640];
static size_t watchdog_len;

static void on_watchdog(int sig)
{
    (void)sig;
    ssize_t ignored = write(STDOUT_FILENO, watchdog_line, watchdog_len);
    (void)ignored;
    _exit(1);
}

void mtest_watchdog(int seconds, int rank, const char *fmt, ...)
{
    static int installed;
    alarm(0);
    if (seconds <= 0)
        return;
    if (!installed) {
        signal(SIGALRM, on_watchdog);
        installed = 1;
    }
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int n = snprintf(watchdog_line, sizeof watchdog_line,
                     "[rank %d] no return after %d s (hang) in: %s\n", rank, seconds, what);
    watchdog_len = n < 0                              ? 0
                   : (size_t)n < sizeof watchdog_line ? (size_t)n
                                                      : sizeof watchdog_line - 1;
    alarm((unsigned)seconds);
}

/* ---- Live communicators and datatypes, counted through MPI's profiling interface --------
   Every call below that makes or frees a communicator or a datatype, by the library, the test
   or ScaLAPACK's BLACS, passes through these definitions on its way to PMPI_. (A handle's
   index is no measure: Open MPI hands out the lowest free Fortran index, MPICH the handle
   freed last.) */
static long live_comms, live_types;

long mtest_live_comms(void)
{
    return __atomic_load_n(&live_comms, __ATOMIC_RELAXED);
}

long mtest_live_types(void)
{
    return __atomic_load_n(&live_types, __ATOMIC_RELAXED);
}

static int made_comm(int rc, const MPI_Comm *c)
{
    if (rc == MPI_SUCCESS && *c != MPI_COMM_NULL)
        __atomic_add_fetch(&live_comms, 1, __ATOMIC_RELAXED);
    return rc;
}

static int made_type(int rc, const MPI_Datatype *t)
{
    if (rc == MPI_SUCCESS && *t != MPI_DATATYPE_NULL)
        __atomic_add_fetch(&live_types, 1, __ATOMIC_RELAXED);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_dup(comm, out), out);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_dup_with_info(comm, info, out), out);
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *out, MPI_Request *request)
{
    int rc = PMPI_Comm_idup(comm, out, request);
    if (rc == MPI_SUCCESS) /* *out is set when the request completes */
        __atomic_add_fetch(&live_comms, 1, __ATOMIC_RELAXED);
    return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_split(comm, color, key, out), out);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_split_type(comm, type, key, info, out), out);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_create(comm, group, out), out);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_create_group(comm, group, tag, out), out);
}

int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader,
                         int tag, MPI_Comm *out)
{
    return made_comm(PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, out),
                     out);
}

int MPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *out)
{
    return made_comm(PMPI_Intercomm_merge(inter, high, out), out);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *out)
{
    return made_comm(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out), out);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain[], MPI_Comm *out)
{
    return made_comm(PMPI_Cart_sub(comm, remain, out), out);
}

int MPI_Comm_accept(const char *port, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_accept(port, info, root, comm, out), out);
}

int MPI_Comm_connect(const char *port, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *out)
{
    return made_comm(PMPI_Comm_connect(port, info, root, comm, out), out);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    int rc = PMPI_Comm_free(comm);
    if (rc == MPI_SUCCESS)
        __atomic_sub_fetch(&live_comms, 1, __ATOMIC_RELAXED);
    return rc;
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    int rc = PMPI_Comm_disconnect(comm);
    if (rc == MPI_SUCCESS)
        __atomic_sub_fetch(&live_comms, 1, __ATOMIC_RELAXED);
    return rc;
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *out)
{
    return made_type(PMPI_Type_contiguous(count, old, out), out);
}

int MPI_Type_vector(int count, int len, int stride, MPI_Datatype old, MPI_Datatype *out)
{
    return made_type(PMPI_Type_vector(count, len, stride, old, out), out);
}

int MPI_Type_create_hvector(int count, int len, MPI_Aint stride, MPI_Datatype old,
                            MPI_Datatype *out)
{
    return made_type(PMPI_Type_create_hvector(count, len, stride, old, out), out);
}

int MPI_Type_indexed(int count, const int lens[], const int displs[], MPI_Datatype old,
                     MPI_Datatype *out)
{
    return made_type(PMPI_Type_indexed(count, lens, displs, old, out), out);
}

int MPI_Type_create_hindexed(int count, const int lens[], const MPI_Aint displs[], MPI_Datatype old,
                             MPI_Datatype *out)
{
    return made_type(PMPI_Type_create_hindexed(count, lens, displs, old, out), out);
}

int MPI_Type_create_indexed_block(int count, int len, const int displs[], MPI_Datatype old,
                                  MPI_Datatype *out)
{
    return made_type(PMPI_Type_create_indexed_block(count, len, displs, old, out), out);
}

int MPI_Type_create_hindexed_block(int count, int len, const MPI_Aint displs[], MPI_Datatype old,
                                   MPI_Datatype *out)
{
    return made_type(PMPI_Type_create_hindexed_block(count, len, displs, old, out), out);
}

int MPI_Type_create_struct(int count, const int lens[], const MPI_Aint displs[],
                           const MPI_Datatype types[], MPI_Datatype *out)
{
    return made_type(PMPI_Type_create_struct(count, lens, displs, types, out), out);
}

int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[],
                             int order, MPI_Datatype old, MPI_Datatype *out)
{
    return made_type(PMPI_Type_create_subarray(ndims, sizes, subsizes, starts, order, old, out),
                     out);
}

int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *out)
{
    return made_type(PMPI_Type_create_resized(old, lb, extent, out), out);
}

int MPI_Type_dup(MPI_Datatype old, MPI_Datatype *out)
{
    return made_type(PMPI_Type_dup(old, out), out);
}

/* The derived datatypes it returns are new handles, to be freed; named ones are not. */
int MPI_Type_get_contents(MPI_Datatype type, int max_integers, int max_addresses, int max_datatypes,
                          int integers[], MPI_Aint addresses[], MPI_Datatype types[])
{
    int ni = 0, na = 0, nd = 0, combiner = 0;
    int rc = PMPI_Type_get_contents(type, max_integers, max_addresses, max_datatypes, integers,
                                    addresses, types);
    if (rc != MPI_SUCCESS || PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return rc;
    for (int i = 0, n = nd; i < n && i < max_datatypes; i++)
        if (PMPI_Type_get_envelope(types[i], &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
            combiner != MPI_COMBINER_NAMED)
            __atomic_add_fetch(&live_types, 1, __ATOMIC_RELAXED);
    return rc;
}

int MPI_Type_free(MPI_Datatype *type)
{
    int rc = PMPI_Type_free(type);
    if (rc == MPI_SUCCESS)
        __atomic_sub_fetch(&live_types, 1, __ATOMIC_RELAXED);
    return rc;
}

/* ---- node-shared host arrays (REDIST_TEST_SHARED) ---------------------------------------- */

int mtest_test_shared(void)
{
    static int mode = -1;
    if (mode >= 0)
        return mode;
    const char *v = getenv("REDIST_TEST_SHARED");
    mode = v == NULL || !*v ? 0 : !strcmp(v, "all") ? 1 : !strcmp(v, "mixed") ? 2 : -1;
    if (mode < 0) {
        printf("REDIST_TEST_SHARED=%s: all or mixed\n", v);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return mode;
}

/* What mtest_host_alloc gave: the pointer handed out, the allocation behind it. */
typedef struct host_array {
    void *given, *shared, *plain;
    struct host_array *next;
} host_array;
static host_array *host_arrays;

static void host_abort(const char *what, int rc)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("[rank %d] %s: %s (%s)\n", rank, what, redist_error_name(rc),
           redist_last_error_detail());
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void *mtest_host_alloc(size_t bytes, int salt)
{
    int mode = mtest_test_shared(), rank = 0;
    if (mode == 0)
        return bytes > 0 ? malloc(bytes) : NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    host_array *h = calloc(1, sizeof *h);
    if (h == NULL)
        host_abort("mtest_host_alloc", REDIST_ERR_NOMEM);
    int rc = redist_alloc(MPI_COMM_WORLD, (int64_t)bytes, &h->shared);
    if (rc != REDIST_SUCCESS)
        host_abort("redist_alloc", rc);
    if (mode == 2 && (rank + salt) % 3 == 0 && bytes > 0)
        h->plain = malloc(bytes);
    h->given = bytes == 0 ? NULL : h->plain != NULL ? h->plain : h->shared;
    h->next = host_arrays;
    host_arrays = h;
    return h->given;
}

void mtest_host_free(void *p)
{
    if (mtest_test_shared() == 0) {
        free(p);
        return;
    }
    /* the oldest of this rank's records handing out p (NULL for 0 bytes: in the order of
       allocation, which every rank follows) */
    host_array **at = &host_arrays, **found = NULL;
    for (; *at != NULL; at = &(*at)->next)
        if ((*at)->given == p)
            found = at;
    if (found == NULL)
        host_abort("mtest_host_free: not from mtest_host_alloc", REDIST_ERR_ARG);
    host_array *h = *found;
    *found = h->next;
    int rc = redist_free(h->shared);
    if (rc != REDIST_SUCCESS)
        host_abort("redist_free", rc);
    free(h->plain);
    free(h);
}

int mtest_several_nodes(MPI_Comm comm)
{
    int size = 0, rank = 0, here = 0, mine = 0, any = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm node = MPI_COMM_NULL, virtual_node = MPI_COMM_NULL;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    const char *v = getenv("REDIST_RANKS_PER_NODE");
    int k = v != NULL ? atoi(v) : 0;
    MPI_Comm_split(node, k > 0 ? rank / k : 0, rank, &virtual_node);
    MPI_Comm_size(virtual_node, &here);
    MPI_Comm_free(&virtual_node);
    MPI_Comm_free(&node);
    mine = here < size;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}
