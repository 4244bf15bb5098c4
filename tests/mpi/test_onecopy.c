/* threads: 3 */
/* One copy on a node (src/exec/onecopy.c): plans on arrays from
 * redist_alloc copy each on-node message once, straight from the sender's src.
 *
 * The plans take the packed transport (one copy replaces its window). A PMPI wrapper counts
 * every MPI_Isend and MPI_Send of more than 32 bytes the library makes during an execute: on
 * one node with allocated arrays there is no data message (only the notifications, which say
 * where src is: 24 bytes, 32 for bounded mode's chunks, and the empty acknowledgements; the
 * messages of these cases are all far larger), and the library's
 * count of messages copied once grows by the plan's messages_received on every rank. Every
 * element is checked each time. Cases, at every rank count:
 *   - 2-D re-blocking (direct-async and direct, both read peers in place), scaled
 *     (alpha 2, beta -0.5: dst read and written), transposed (axis permutation), 1-D
 *     cyclic(1) -> cyclic(3), and through redist_start / redist_test;
 *   - src in an allocation, dst malloc'd (the receiver's dst may be anything): one copy;
 *     src malloc'd, dst allocated: the window path, nothing copied once;
 *   - options.shared_memory = 0: the data goes through MPI (data messages), none once;
 *   - REDIST_RANKS_PER_NODE=2 at allocation: only the messages within a pair of ranks are
 *     copied once, the others take the window path;
 *   - an allocation over a communicator in reversed rank order (not the plan's): the ranks
 *     are translated (each rank's peers found in the allocation's node);
 *   - src 17 doubles past the start of a larger allocation (the offset travels);
 *   - bounded mode (max_buffer_bytes = 1 KiB: many chunks, each chunk's note saying where
 *     src is; exec/strip.c), blocking and through start/test;
 *   - the plan and the allocations on "nodes" of 2 ranks (REDIST_RANKS_PER_NODE=2 for both):
 *     in the 1-D case every rank sends to every rank, so exactly the message from the other
 *     rank of its pair is copied once and the others go through MPI.
 * Batches (api/batch.c: a note per node pair, then the receiver reads the sender's arrays):
 * three arrays of different layouts, all allocated (every pair copied once, no data
 * message), one array's src malloc'd (exactly the pairs carrying that array go packed, the
 * others are copied once), and through redist_start_batch / redist_test; each also with
 * padded storage (an ld on one end or the other of each array). A batch's notes (tag 7718,
 * REDIST__TAG_NOTE) are not counted as data.
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

static int rank, size, errs;
static long long data_messages; /* sends with more than 32 bytes since the last reset */

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

enum { TAG_NOTE = 7718 }; /* exec/agree.h: a batch's note, 8 + 24 bytes per array */

static void count(const void *buf, int n, MPI_Datatype type, int tag)
{
    int bytes = 0;
    (void)buf;
    PMPI_Type_size(type, &bytes);
    if ((long long)n * bytes > 32 && tag != TAG_NOTE)
        data_messages++;
}

int MPI_Isend(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    count(buf, n, type, tag);
    return PMPI_Isend(buf, n, type, dest, tag, comm, request);
}

int MPI_Send(const void *buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    count(buf, n, type, tag);
    return PMPI_Send(buf, n, type, dest, tag, comm);
}

#define same_everywhere(what, rc) mtest_expect_all(&errs, rank, what, rc, REDIST_SUCCESS)

/* The cases (support/mreblock.h): an n0 x n1 array, blocks b1 and b2 on a 1 x P and a P x 1
   grid (or 1-D cyclic). */
typedef mreblock_spec spec;
typedef mreblock_pair pair;

static void make_pair(const spec *c, pair *p)
{
    mreblock_make(c, rank, size, p);
}

static void fill_src(const spec *c, const pair *p, double *a)
{
    mreblock_fill(c, p, a, 0);
}

/* Every destination element: src's element there (transposed), scaled as asked. */
static void check_dst(const spec *c, const pair *p, const double *b, double before)
{
    double got = 0, want = 0;
    int64_t i = mreblock_check(c, p, b, before, 0, &got, &want);
    if (i >= 0)
        fail(c->what, "dst[%lld] = %g, want %g", (long long)i, got, want);
}

/* The 1-D case's messages of this rank, from the cyclic blocks: whether the other rank of
   its pair (rank ^ 1) sends to it, and how many ranks outside its pair it sends to. */
static void pair_traffic(const spec *c, int *from_partner, int *off_pair)
{
    char *to = calloc((size_t)size, 1);
    int partner = rank ^ 1;
    for (int64_t g = 0; g < c->n[0]; g++) {
        int from = (int)((g / c->b1[0]) % size), at = (int)((g / c->b2[0]) % size);
        if (from == partner && at == rank)
            *from_partner = 1;
        if (from == rank)
            to[at] = 1;
    }
    for (int q = 0; q < size; q++)
        *off_pair += to[q] && q / 2 != rank / 2;
    free(to);
}

/* How the arrays are allocated */
enum { BOTH_SHARED, SRC_SHARED, DST_SHARED, NO_WINDOW, PAIRS, REVERSED, OFFSET, SPLIT, BOUNDED };
static const char *const how_names[] = {"both allocated",
                                        "src allocated",
                                        "dst allocated",
                                        "shared_memory = 0",
                                        "nodes of 2 ranks",
                                        "allocated over a reversed communicator",
                                        "src 17 doubles into a larger allocation",
                                        "plan and allocations on nodes of 2 ranks",
                                        "both allocated, bounded mode (1 KiB)"};

static void *alloc_on(MPI_Comm comm, int64_t bytes, int shared)
{
    void *p = NULL;
    if (!shared)
        return malloc((size_t)bytes + 8);
    same_everywhere("redist_alloc", redist_alloc(comm, bytes, &p));
    return p;
}

static void release(void *p, int shared)
{
    if (shared)
        same_everywhere("redist_free", redist_free(p));
    else
        free(p);
}

static void run(const spec *c, int how, int nonblocking)
{
    pair p;
    make_pair(c, &p);
    MPI_Comm comm = MPI_COMM_WORLD;
    if (how == REVERSED)
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &comm);
    if (how == PAIRS || how == SPLIT)
        setenv("REDIST_RANKS_PER_NODE", "2", 1);
    int sshared = how != DST_SHARED, dshared = how != SRC_SHARED;
    int shift = how == OFFSET ? 17 : 0; /* src not at the allocation's start */
    double *a0 = alloc_on(comm, (p.ns + 2 * shift) * 8, sshared), *a = a0 + shift;
    double *b = alloc_on(comm, p.nd * 8, dshared);
    if (how != SPLIT) /* SPLIT: the plan's nodes too */
        unsetenv("REDIST_RANKS_PER_NODE");
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = c->algorithm;
    opt.shared_memory = how != NO_WINDOW;
    if (how == BOUNDED) /* chunks of 1 KiB / 8: each chunk's note says where src is */
        opt.max_buffer_bytes = 1024;
    /* one copy replaces the packed transport's window; auto may take derived datatypes,
       which it does not know to weigh against one copy yet (docs/dev/one-copy.md) */
    opt.transport = REDIST_TRANSPORT_PACK;
    int perm[2] = {1, 0};
    if (c->perm)
        opt.permutation = perm;
    if (c->scaled)
        opt.alpha[0] = 2, opt.beta[0] = -0.5;
    redist_plan plan = NULL;
    char what[160];
    snprintf(what, sizeof what, "%s, %s%s", c->what, how_names[how],
             nonblocking ? ", start/test" : "");
    int rc = redist_plan_create(p.src, p.dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    unsetenv("REDIST_RANKS_PER_NODE");
    same_everywhere(what, rc);
    if (rc == REDIST_SUCCESS) {
        redist_stats st;
        redist_plan_stats(plan, &st);
        fill_src(c, &p, a);
        for (int64_t i = 0; i < p.nd; i++)
            b[i] = 3.0;
        uint64_t before = redist__onecopy_messages();
        data_messages = 0;
        if (nonblocking) {
            int done = 0;
            rc = redist_start(plan, p.ns ? a : NULL, p.nd ? b : NULL);
            while (rc == REDIST_SUCCESS && !done)
                rc = redist_test(plan, &done);
        } else
            rc = redist_execute(plan, p.ns ? a : NULL, p.nd ? b : NULL);
        long long copied = (long long)(redist__onecopy_messages() - before), data = data_messages;
        same_everywhere(what, rc);
        check_dst(c, &p, b, 3.0);
        /* the messages read in place: every one received (both allocated, or src: the sender
           decides), those from the pair's other rank (nodes of 2), none otherwise */
        long long want = how == BOTH_SHARED || how == SRC_SHARED || how == REVERSED ||
                                 how == OFFSET || how == BOUNDED
                             ? st.messages_received
                             : -1;
        if (how == PAIRS)
            want = -2; /* checked below: at most the messages received */
        if (how == SPLIT)
            want = -3; /* checked below */
        if (want >= 0 && copied != want)
            fail(what, "%lld messages copied once, want %lld (received per execute)", copied, want);
        if (want == -1 && copied != 0)
            fail(what, "%lld messages copied once, want none", copied);
        if (want == -2 &&
            (copied > st.messages_received || (size == 2 && copied != st.messages_received)))
            fail(what, "%lld messages copied once of %lld received", copied,
                 (long long)st.messages_received);
        /* nodes of 2 (the 1-D case, whose messages are counted here from the blocks): the
           message from the pair's other rank copied once, each to another pair through MPI */
        if (how == SPLIT) {
            int from_partner = 0, off_pair = 0;
            pair_traffic(c, &from_partner, &off_pair);
            if (copied != from_partner || data < off_pair)
                fail(what,
                     "%lld messages copied once (want %d), %lld data messages (want %d or "
                     "more)",
                     copied, from_partner, data, off_pair);
        }
        if (how != NO_WINDOW && how != SPLIT && data != 0)
            fail(what, "%lld data messages on one node", data);
        if (how == NO_WINDOW && st.messages_sent > 0 && data == 0)
            fail(what, "no data message without the window (%lld messages sent)",
                 (long long)st.messages_sent);
        redist_plan_free(&plan);
    }
    release(a0, sshared);
    release(b, dshared);
    if (comm != MPI_COMM_WORLD)
        MPI_Comm_free(&comm);
    redist_layout_free(&p.src);
    redist_layout_free(&p.dst);
}

/* Local element i (row-major in the local shape) of a 2-D array padded to shape[1] + pad
   elements per row: its place in storage. */
static int64_t stored(const int64_t shape[2], int64_t pad, int64_t i)
{
    return pad == 0 ? i : i / shape[1] * (shape[1] + pad) + i % shape[1];
}

/* A window over the whole of *l with its fast dimension padded by pad (an ld), replacing *l. */
static void pad_layout(redist_layout *l, const int64_t shape[2], int64_t pad)
{
    if (pad == 0)
        return;
    int64_t ld[2] = {0, shape[1] + pad};
    redist_layout w = NULL;
    same_everywhere("window with ld", redist_layout_create_window(*l, NULL, NULL, ld, &w));
    redist_layout_free(l);
    *l = w;
}

/* A batch of the cases' first three layouts (2-D re-block, small blocks, transposed shape
   without the permutation), every src allocated unless malloc_one: then the second array's
   src is malloc'd and every pair goes packed. padded: three 2-D arrays, array 0's src and
   arrays 1 and 2's dst stored with an ld (rows padded; the padding must stay untouched):
   the receiver walks the sender's storage with the sender's own message, still no data
   message. */
enum { NBATCH = 3 };
static void run_batch(const spec *cases, int malloc_one, int nonblocking, int padded)
{
    spec c[NBATCH];
    pair p[NBATCH];
    double *a[NBATCH], *b[NBATCH];
    int64_t pad_s[NBATCH], pad_d[NBATCH], ns[NBATCH], nd[NBATCH];
    redist_layout ls[NBATCH], ld[NBATCH];
    MPI_Datatype types[NBATCH];
    for (int k = 0; k < NBATCH; k++) {
        c[k] = cases[k == 2 ? (padded ? 3 : 4) : k];
        c[k].scaled = c[k].perm = 0;
        make_pair(&c[k], &p[k]);
        pad_s[k] = padded && k == 0 ? 3 : 0;
        pad_d[k] = padded && k != 0 ? 5 : 0;
        ns[k] = p[k].ns, nd[k] = p[k].nd; /* 1-D: no padding (local_shape sets [0] only) */
        if (c[k].nd == 2) {
            ns[k] = p[k].sshape[0] * (p[k].sshape[1] + pad_s[k]);
            nd[k] = p[k].dshape[0] * (p[k].dshape[1] + pad_d[k]);
        }
        pad_layout(&p[k].src, p[k].sshape, pad_s[k]);
        pad_layout(&p[k].dst, p[k].dshape, pad_d[k]);
        int sshared = !(malloc_one && k == 1);
        a[k] = alloc_on(MPI_COMM_WORLD, ns[k] * 8, sshared);
        b[k] = alloc_on(MPI_COMM_WORLD, nd[k] * 8, 1);
        ls[k] = p[k].src, ld[k] = p[k].dst, types[k] = MPI_DOUBLE;
        double *dense = malloc((size_t)(p[k].ns + 1) * 8);
        fill_src(&c[k], &p[k], dense);
        for (int64_t i = 0; i < ns[k]; i++)
            a[k][i] = -7.0; /* the padding */
        for (int64_t i = 0; i < p[k].ns; i++)
            a[k][stored(p[k].sshape, pad_s[k], i)] = dense[i];
        free(dense);
        for (int64_t i = 0; i < nd[k]; i++)
            b[k][i] = 3.0;
    }
    char what[96];
    snprintf(what, sizeof what, "batch, %s%s%s", malloc_one ? "one src malloc'd" : "all allocated",
             padded ? ", padded (ld)" : "", nonblocking ? ", start/test" : "");
    redist_plan plan = NULL;
    int rc = redist_plan_create_batch(NBATCH, ls, ld, types, MPI_COMM_WORLD, NULL, &plan);
    same_everywhere(what, rc);
    if (rc == REDIST_SUCCESS) {
        redist_stats st;
        redist_plan_stats(plan, &st);
        const void *src[NBATCH];
        void *dst[NBATCH];
        for (int k = 0; k < NBATCH; k++)
            src[k] = p[k].ns ? a[k] : NULL, dst[k] = p[k].nd ? b[k] : NULL;
        uint64_t before = redist__onecopy_messages();
        data_messages = 0;
        if (nonblocking) {
            int done = 0;
            rc = redist_start_batch(plan, src, dst);
            while (rc == REDIST_SUCCESS && !done)
                rc = redist_test(plan, &done);
        } else
            rc = redist_execute_batch(plan, src, dst);
        long long copied = (long long)(redist__onecopy_messages() - before), data = data_messages;
        same_everywhere(what, rc);
        for (int k = 0; k < NBATCH; k++) { /* every element, and the padding untouched */
            double *dense = malloc((size_t)(p[k].nd + 1) * 8);
            char *in = calloc((size_t)nd[k] + 1, 1);
            for (int64_t i = 0; i < p[k].nd; i++) {
                int64_t at = stored(p[k].dshape, pad_d[k], i);
                dense[i] = b[k][at];
                in[at] = 1;
            }
            check_dst(&c[k], &p[k], dense, 3.0);
            for (int64_t i = 0; i < nd[k]; i++)
                if (!in[i] && b[k][i] != 3.0) {
                    fail(what, "array %d: padding element %lld written", k, (long long)i);
                    break;
                }
            free(in);
            free(dense);
        }
        /* with array 1's src malloc'd, exactly the pairs that carry array 1 go packed: the
           peers of array 1's own plan (a subset of the batch's) */
        long long want = st.messages_received, sent1 = 0; /* array 1's sends (packed) */
        if (malloc_one) {
            redist_plan one = NULL;
            redist_stats s1;
            redist_options o1; /* the batch's children are direct-async's plans */
            redist_options_init(&o1);
            o1.algorithm = "direct-async";
            same_everywhere(
                what, redist_plan_create(ls[1], ld[1], MPI_DOUBLE, MPI_COMM_WORLD, &o1, &one));
            redist_plan_stats(one, &s1);
            want -= s1.messages_received;
            sent1 = s1.messages_sent;
            redist_plan_free(&one);
        }
        if (copied != want)
            fail(what, "%lld peers copied once, want %lld", copied, want);
        if (!malloc_one && data != 0)
            fail(what, "%lld data messages on one node", data);
        if (malloc_one && data != sent1)
            fail(what, "%lld data messages, want %lld (the pairs carrying the malloc'd array)",
                 data, sent1);
        redist_plan_free(&plan);
    }
    for (int k = NBATCH - 1; k >= 0; k--) { /* redist_free in reverse: the same order everywhere */
        release(b[k], 1);
        release(a[k], !(malloc_one && k == 1));
        redist_layout_free(&p[k].src);
        redist_layout_free(&p[k].dst);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const spec cases[] = {
        {"36x36 -> 128x128 blocks", 2, {300, 211}, {36, 36}, {128, 128}, 0, 0, "direct-async"},
        {"the same with direct", 2, {300, 211}, {36, 36}, {128, 128}, 0, 0, "direct"},
        {"scaled", 2, {97, 130}, {5, 7}, {16, 3}, 0, 1, "direct-async"},
        {"transposed", 2, {120, 77}, {8, 8}, {16, 16}, 1, 0, "direct-async"},
        {"cyclic(1) -> cyclic(3)", 1, {10007, 0}, {1, 0}, {3, 0}, 0, 0, "direct-async"},
    };
    int ncases = (int)(sizeof cases / sizeof cases[0]);
    for (int k = 0; k < ncases; k++)
        for (int how = BOTH_SHARED; how <= OFFSET; how++)
            run(&cases[k], how, 0);
    run(&cases[4], SPLIT, 0);
    for (int k = 0; k < ncases; k++)
        if (strcmp(cases[k].algorithm, "direct-async") == 0) /* bounded mode is its */
            run(&cases[k], BOUNDED, k == 0);
    run(&cases[0], BOTH_SHARED, 1);
    run(&cases[2], SRC_SHARED, 1);
    run_batch(cases, 0, 0, 0);
    run_batch(cases, 1, 0, 0);
    run_batch(cases, 0, 1, 0);
    run_batch(cases, 0, 0, 1);
    run_batch(cases, 0, 1, 1);
    run_batch(cases, 1, 0, 1);
    return mtest_finalize(errs);
}
