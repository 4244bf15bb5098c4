/* redist_alloc and redist_free (redist.h): node-shared local arrays.
 *
 * - Sizes differing by rank (0 on some): each base is 64-byte aligned and every byte of it
 *   writable and kept (a pattern written, then read back after the others wrote theirs);
 *   0 bytes still give a pointer, freed like any other; allocations over MPI_COMM_SELF and
 *   a split communicator; twenty live at once, freed in order; three freed last made first.
 * - Errors, the same code on every rank and no hang: bytes < 0 or base NULL on one rank
 *   (ARG), a node whose shared memory cannot hold its parts (REDIST_SHM_LIMIT small: NOMEM,
 *   the detail naming /dev/shm), a malformed REDIST_RANKS_PER_NODE (ARG), ranks freeing
 *   different allocations (MISMATCH, after which both are freed), free(NULL) and an address
 *   redist_alloc did not return (ARG), MPI_COMM_NULL (ARG).
 * - redist_free's errors agreed, no call pairing with another: a pointer inside an allocation
 *   (or just past its end) on one rank or all, and an allocation freed before, on one rank or
 *   all, give REDIST_ERR_ARG on every rank and free nothing, after which the right frees
 *   succeed; freed allocations remembered (the last 64 of a communicator) until their
 *   communicator is freed; ranks freeing different allocations: MISMATCH naming it.
 * - REDIST_RANKS_PER_NODE=2 splits the ranks into "nodes" of two: allocation and free work
 *   the same.
 * - A plan on arrays in allocations: every element moved; redist_free while a started
 *   execute is in flight is REDIST_ERR_BUSY on every rank, then frees after the wait; the
 *   same for a batch whose second pair of arrays is allocated.
 * - An allocation outlives its communicator (freed before redist_free).
 * - No communicator left behind but the duplicates cached on MPI_COMM_WORLD and
 *   MPI_COMM_SELF (mtest_live_comms). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

#define same_everywhere(what, rc, want) mtest_expect_all(&errs, rank, what, rc, want)

static unsigned char pattern(int r, int64_t i)
{
    return (unsigned char)(r * 31 + i * 7 + 1);
}

/* bytes on this rank: allocate, write, let the others write, read back, free. */
static void round_trip(const char *what, MPI_Comm comm, int64_t bytes)
{
    void *base = NULL;
    int rc = redist_alloc(comm, bytes, &base);
    same_everywhere(what, rc, REDIST_SUCCESS);
    if (rc != REDIST_SUCCESS)
        return;
    if (base == NULL || (uintptr_t)base % 64 != 0)
        fail(what, "base %p is not a 64-byte aligned pointer", base);
    unsigned char *b = base;
    for (int64_t i = 0; i < bytes; i++)
        b[i] = pattern(rank, i);
    MPI_Barrier(comm);
    for (int64_t i = 0; i < bytes; i++)
        if (b[i] != pattern(rank, i)) {
            fail(what, "byte %lld of %lld changed", (long long)i, (long long)bytes);
            break;
        }
    same_everywhere(what, redist_free(base), REDIST_SUCCESS);
}

static void sizes(void)
{
    round_trip("sizes by rank", MPI_COMM_WORLD, rank % 3 == 1 ? 0 : 1000 * rank + 13);
    round_trip("one byte", MPI_COMM_WORLD, 1);
    round_trip("zero bytes everywhere", MPI_COMM_WORLD, 0);
    round_trip("4 MiB", MPI_COMM_WORLD, 4 << 20);
    round_trip("MPI_COMM_SELF", MPI_COMM_SELF, 4096);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    round_trip("a split communicator", half, 777);
    void *outlives = NULL; /* an allocation outlives its communicator */
    same_everywhere("before its comm is freed", redist_alloc(half, 999, &outlives), REDIST_SUCCESS);
    MPI_Comm_free(&half);
    if (outlives != NULL)
        memset(outlives, 1, 999);
    same_everywhere("after its comm was freed", redist_free(outlives), REDIST_SUCCESS);
    void *many[20];
    for (int i = 0; i < 20; i++)
        same_everywhere("twenty at once", redist_alloc(MPI_COMM_WORLD, 100 * i, &many[i]),
                        REDIST_SUCCESS);
    for (int i = 0; i < 20; i++)
        for (int j = i + 1; j < 20; j++)
            if (many[i] == many[j])
                fail("twenty at once", "allocations %d and %d share an address", i, j);
    for (int i = 0; i < 20; i++)
        same_everywhere("twenty freed", redist_free(many[i]), REDIST_SUCCESS);
    /* the order of the frees is the ranks' common one, not that of the allocations */
    for (int i = 0; i < 3; i++)
        same_everywhere("three at once", redist_alloc(MPI_COMM_WORLD, 64, &many[i]),
                        REDIST_SUCCESS);
    for (int i = 2; i >= 0; i--)
        same_everywhere("three freed, the last made first", redist_free(many[i]), REDIST_SUCCESS);
}

static void errors(void)
{
    void *base = (void *)&base;
    same_everywhere("bytes < 0 on the last rank",
                    redist_alloc(MPI_COMM_WORLD, rank == size - 1 ? -5 : 10, &base),
                    REDIST_ERR_ARG);
    if (base != NULL)
        fail("bytes < 0", "base was not set to NULL");
    same_everywhere("base NULL on rank 0",
                    redist_alloc(MPI_COMM_WORLD, 10, rank == 0 ? NULL : &base), REDIST_ERR_ARG);
    same_everywhere("MPI_COMM_NULL", redist_alloc(MPI_COMM_NULL, 10, &base), REDIST_ERR_ARG);
    same_everywhere("free(NULL)", redist_free(NULL), REDIST_ERR_ARG);
    int not_ours = 0;
    same_everywhere("free of another address", redist_free(&not_ours), REDIST_ERR_ARG);

    setenv("REDIST_SHM_LIMIT", "1000", 1);
    int rc = redist_alloc(MPI_COMM_WORLD, rank == 0 ? 5000 : 10, &base);
    same_everywhere("more than /dev/shm holds", rc, REDIST_ERR_NOMEM);
    if (rank == 0 && strstr(redist_last_error_detail(), "/dev/shm") == NULL)
        fail("more than /dev/shm holds", "the detail says nothing of /dev/shm: %s",
             redist_last_error_detail());
    unsetenv("REDIST_SHM_LIMIT");

    setenv("REDIST_RANKS_PER_NODE", rank == 0 ? "two" : "2", 1);
    same_everywhere("REDIST_RANKS_PER_NODE=two on rank 0", redist_alloc(MPI_COMM_WORLD, 8, &base),
                    REDIST_ERR_ARG);
    setenv("REDIST_RANKS_PER_NODE", "2", 1);
    round_trip("nodes of two ranks", MPI_COMM_WORLD, 3000 + rank);
    unsetenv("REDIST_RANKS_PER_NODE");

    void *a = NULL, *b = NULL;
    redist_alloc(MPI_COMM_WORLD, 64, &a);
    redist_alloc(MPI_COMM_WORLD, 64, &b);
    if (size > 1) { /* rank 0 frees a, the others b */
        same_everywhere("ranks freeing different allocations", redist_free(rank == 0 ? a : b),
                        REDIST_ERR_MISMATCH);
    }
    same_everywhere("then a", redist_free(a), REDIST_SUCCESS);
    same_everywhere("then b", redist_free(b), REDIST_SUCCESS);
    same_everywhere("a again", redist_free(a), REDIST_ERR_ARG);
}

/* the detail names what went wrong (on every rank: the agreement shares it) */
static void detail_says(const char *what, const char *words)
{
    if (strstr(redist_last_error_detail(), words) == NULL)
        fail(what, "the detail does not say '%s': %s", words, redist_last_error_detail());
}

/* redist_free's errors are agreed and no call pairs with another: a pointer inside an
   allocation, or one freed before, on one rank joins the agreement of the allocation it lies
   in (REDIST_ERR_ARG everywhere, nothing freed); each step under a watchdog, as a call left
   waiting for a partner would hang. */
static void free_errors(void)
{
    mtest_watchdog(60, rank, "redist_free's errors");
    char *p = NULL, *q = NULL;
    redist_alloc(MPI_COMM_WORLD, 64, (void **)&p);
    redist_alloc(MPI_COMM_WORLD, 64, (void **)&q);
    /* rank 0 frees a pointer inside p, the others p itself; then every rank frees p */
    same_everywhere("a pointer inside p on rank 0", redist_free(rank == 0 ? p + 8 : p),
                    REDIST_ERR_ARG);
    detail_says("a pointer inside p on rank 0", "lies 8 bytes into");
    same_everywhere("every rank inside p", redist_free(p + 63), REDIST_ERR_ARG);
    same_everywhere("every rank just past p's end", redist_free(p + 64), REDIST_ERR_ARG);
    same_everywhere("rank 0 inside q, the others p", redist_free(rank == 0 ? q + 1 : p),
                    REDIST_ERR_ARG);
    same_everywhere("then p on every rank", redist_free(p), REDIST_SUCCESS);
    /* p freed everywhere: freeing it again on the last rank, q on the others */
    same_everywhere("p again on the last rank, q on the others",
                    redist_free(rank == size - 1 ? p : q), REDIST_ERR_ARG);
    detail_says("p again on the last rank, q on the others", "freed already");
    same_everywhere("p again on every rank", redist_free(p), REDIST_ERR_ARG);
    same_everywhere("inside p, freed, on every rank", redist_free(p + 5), REDIST_ERR_ARG);
    same_everywhere("then q on every rank", redist_free(q), REDIST_SUCCESS);
    if (size > 1) { /* different allocations: the fingerprint names the problem */
        redist_alloc(MPI_COMM_WORLD, 64, (void **)&p);
        redist_alloc(MPI_COMM_WORLD, 64, (void **)&q);
        same_everywhere("rank 0 frees q, the others p", redist_free(rank == 0 ? q : p),
                        REDIST_ERR_MISMATCH);
        detail_says("rank 0 frees q, the others p", "the allocation to free");
        same_everywhere("then p", redist_free(p), REDIST_SUCCESS);
        same_everywhere("then q", redist_free(q), REDIST_SUCCESS);
    }
    /* remembered while the communicator lives, the most recent 64 of it */
    char *many[70];
    for (int i = 0; i < 70; i++)
        redist_alloc(MPI_COMM_WORLD, 8, (void **)&many[i]);
    for (int i = 0; i < 70; i++)
        same_everywhere("seventy freed", redist_free(many[i]), REDIST_SUCCESS);
    same_everywhere("the last of seventy again", redist_free(many[69]), REDIST_ERR_ARG);
    detail_says("the last of seventy again", "freed already");
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    redist_alloc(half, 100, (void **)&p);
    same_everywhere("freed over a split communicator", redist_free(p), REDIST_SUCCESS);
    same_everywhere("again over it", redist_free(p), REDIST_ERR_ARG);
    MPI_Comm_free(&half); /* forgotten with it: no communicator to agree on */
    same_everywhere("again once it is freed", redist_free(p), REDIST_ERR_ARG);
    detail_says("again once it is freed", "no communicator to agree on");
    mtest_watchdog(0, rank, "%s", "");
}

/* A 1-D case: n elements, cyclic(b1) -> cyclic(b2) over every rank, and this rank's element
   counts; src values are their global indices. */
typedef struct {
    int64_t n[1], b1[1], b2[1], count[2];
    int grid[1], coords[1];
    redist_layout src, dst;
} case1d;

static void case_create(case1d *c, int64_t n, int64_t b1, int64_t b2)
{
    *c = (case1d){{n}, {b1}, {b2}, {0, 0}, {size}, {rank}, NULL, NULL};
    redist_layout_create(1, c->n, c->b1, c->grid, NULL, NULL, REDIST_ROW_MAJOR, &c->src);
    redist_layout_create(1, c->n, c->b2, c->grid, NULL, NULL, REDIST_ROW_MAJOR, &c->dst);
    redist_layout_local_size(c->src, rank, &c->count[0]);
    redist_layout_local_size(c->dst, rank, &c->count[1]);
}

static void case_fill(const case1d *c, double *a)
{
    for (int64_t i = 0; i < c->count[0]; i++)
        a[i] = (double)mtest_global_linear(1, c->n, c->b1, c->grid, NULL, REDIST_ROW_MAJOR,
                                           &c->count[0], c->coords, i);
}

/* Every element of dst (and dst2, if not NULL) is its global index. */
static void case_check(const case1d *c, const double *dst, const double *dst2, const char *what)
{
    for (int64_t i = 0; i < c->count[1]; i++) {
        double want = (double)mtest_global_linear(1, c->n, c->b2, c->grid, NULL, REDIST_ROW_MAJOR,
                                                  &c->count[1], c->coords, i);
        if (dst[i] != want || (dst2 != NULL && dst2[i] != want)) {
            fail(what, "dst[%lld] = %g, want %g", (long long)i, dst[i] != want ? dst[i] : dst2[i],
                 want);
            break;
        }
    }
}

static void case_free(case1d *c)
{
    redist_layout_free(&c->src);
    redist_layout_free(&c->dst);
}

/* A plan on arrays in allocations: an execute moves every element as on any arrays; while a
   started execute is in flight, redist_free is REDIST_ERR_BUSY on every rank; after the
   wait it frees. */
static void with_a_plan(void)
{
    case1d c;
    case_create(&c, 100 * (int64_t)size + 7, 3, 5);
    double *a = NULL, *b = NULL;
    same_everywhere("the plan's src", redist_alloc(MPI_COMM_WORLD, c.count[0] * 8, (void **)&a),
                    REDIST_SUCCESS);
    same_everywhere("the plan's dst", redist_alloc(MPI_COMM_WORLD, c.count[1] * 8, (void **)&b),
                    REDIST_SUCCESS);
    redist_plan plan = NULL;
    same_everywhere("plan",
                    redist_plan_create(c.src, c.dst, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan),
                    REDIST_SUCCESS);
    case_fill(&c, a);
    same_everywhere("start on allocated arrays", redist_start(plan, a, b), REDIST_SUCCESS);
    same_everywhere("redist_free of src in flight", redist_free(a), REDIST_ERR_BUSY);
    same_everywhere("redist_free of dst in flight", redist_free(b), REDIST_ERR_BUSY);
    same_everywhere("wait", redist_wait(plan), REDIST_SUCCESS);
    case_check(&c, b, NULL, "execute on allocated arrays");
    same_everywhere("execute", redist_execute(plan, a, b), REDIST_SUCCESS);
    redist_plan_free(&plan);
    same_everywhere("redist_free of src after", redist_free(a), REDIST_SUCCESS);
    same_everywhere("redist_free of dst after", redist_free(b), REDIST_SUCCESS);
    case_free(&c);
}

/* A batch of two arrays, the second pair in allocations: while it is in flight both
   allocations are REDIST_ERR_BUSY to free on every rank; after the wait every element of
   both destinations is right and they free. */
static void with_a_batch(void)
{
    case1d c;
    case_create(&c, 50 * (int64_t)size + 3, 2, 7);
    double *a1 = calloc((size_t)c.count[0] + 1, 8), *d1 = calloc((size_t)c.count[1] + 1, 8);
    double *a2 = NULL, *d2 = NULL;
    same_everywhere("the batch's src", redist_alloc(MPI_COMM_WORLD, c.count[0] * 8, (void **)&a2),
                    REDIST_SUCCESS);
    same_everywhere("the batch's dst", redist_alloc(MPI_COMM_WORLD, c.count[1] * 8, (void **)&d2),
                    REDIST_SUCCESS);
    redist_layout srcs[2] = {c.src, c.src}, dsts[2] = {c.dst, c.dst};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE};
    redist_plan plan = NULL;
    same_everywhere("batch plan",
                    redist_plan_create_batch(2, srcs, dsts, types, MPI_COMM_WORLD, NULL, &plan),
                    REDIST_SUCCESS);
    case_fill(&c, a1);
    case_fill(&c, a2);
    const void *bs[2] = {c.count[0] ? a1 : NULL, c.count[0] ? a2 : NULL};
    void *bd[2] = {c.count[1] ? d1 : NULL, c.count[1] ? d2 : NULL};
    same_everywhere("start_batch", redist_start_batch(plan, bs, bd), REDIST_SUCCESS);
    same_everywhere("redist_free of a batch's src in flight", redist_free(a2), REDIST_ERR_BUSY);
    same_everywhere("redist_free of a batch's dst in flight", redist_free(d2), REDIST_ERR_BUSY);
    same_everywhere("wait", redist_wait(plan), REDIST_SUCCESS);
    case_check(&c, d1, d2, "batch on allocated arrays");
    redist_plan_free(&plan);
    same_everywhere("redist_free of the batch's src after", redist_free(a2), REDIST_SUCCESS);
    same_everywhere("redist_free of the batch's dst after", redist_free(d2), REDIST_SUCCESS);
    free(a1);
    free(d1);
    case_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long comms = mtest_live_comms();
    sizes();
    errors();
    free_errors();
    with_a_plan();
    with_a_batch();
    /* left: the duplicates cached on MPI_COMM_WORLD and MPI_COMM_SELF (freed with them at
       MPI_Finalize); the split communicator's went with it and its last allocation */
    if (mtest_live_comms() != comms + 2)
        fail("communicators", "%ld live before, %ld after (2 cached duplicates expected)", comms,
             mtest_live_comms());
    return mtest_finalize(errs);
}
