/* Every illegal input gets a negative code, the same on every rank, with a readable message;
 * no hang, no crash. Errors that only one rank commits must still fail every rank.
 *
 * Where the header leaves the code open, the choice a demanding user would expect is written
 * next to the check; checks that accept two codes say why.
 * Output: " No Errors" on success, else one line per failed check and " Found N errors".
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;

#define ANY_ERROR 1 /* any negative code */

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

/* rc must be identical on every rank of MPI_COMM_WORLD and be want1 or want2 (ANY_ERROR:
   any negative code); its message must be a non-empty string. */
static void expect2(const char *what, int rc, int want1, int want2)
{
    int mn, mx;
    MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (mn != mx)
        fail(what, "different codes on different ranks (min %d, max %d)", mn, mx);
    int ok = rc == want1 || rc == want2 || ((want1 == ANY_ERROR || want2 == ANY_ERROR) && rc < 0);
    if (!ok) {
        printf("[rank %d] %s: returned %d (%s), expected %d%s", rank, what, rc,
               redist_error_name(rc), want1, want1 == ANY_ERROR ? " (any error)" : "");
        if (want2 != want1)
            printf(" or %d", want2);
        printf("\n");
        fflush(stdout);
        errs++;
    }
    const char *msg = redist_strerror(rc);
    if (msg == NULL || msg[0] == '\0')
        fail(what, "redist_strerror(%d) is empty", rc);
}
static void expect(const char *what, int rc, int want)
{
    expect2(what, rc, want, want);
}

/* alltoall-padded with [GGKK03]'s all-to-all algorithm a2a (NULL: MPI_Ialltoall). */
static void a2a_case(const char *what, int want1, int want2, redist_layout s, redist_layout d,
                     const char *a2a)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = "alltoall-padded";
    opt.alltoall_algorithm = a2a;
    redist_plan plan = NULL;
    int rc = redist_plan_create(s, d, MPI_INT, MPI_COMM_WORLD, &opt, &plan);
    expect2(what, rc, want1, want2);
    if (rc == REDIST_SUCCESS)
        redist_plan_free(&plan);
}

/* A failed create must not hand back a handle; an unexpected success is cleaned up. */
static void layout_case(const char *what, int want, int nd, const int64_t e[], const int64_t b[],
                        const int g[], const int f[], const int r[], int order)
{
    redist_layout l = NULL;
    int rc = redist_layout_create(nd, e, b, g, f, r, order, &l);
    expect(what, rc, want);
    if (rc != REDIST_SUCCESS && l != NULL)
        fail(what, "failed (%d) but set the layout handle", rc);
    if (rc == REDIST_SUCCESS)
        redist_layout_free(&l);
}

/* Creates a plan expecting failure (want1/want2); frees it if it was created everywhere. */
static void plan_case2(const char *what, int want1, int want2, redist_layout s, redist_layout d,
                       MPI_Datatype t, MPI_Comm comm, const char *alg, int use_opt, redist_plan *pp)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = alg;
    redist_plan plan = NULL;
    int rc = redist_plan_create(s, d, t, comm, use_opt ? &opt : NULL, pp ? pp : &plan);
    expect2(what, rc, want1, want2);
    if (pp == NULL) {
        if (rc != REDIST_SUCCESS && plan != NULL)
            fail(what, "failed (%d) but set the plan handle", rc);
        int ok = rc == REDIST_SUCCESS, all, any;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&ok, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        /* A plan that exists on some ranks only cannot be freed collectively: leak it. */
        if (all)
            redist_plan_free(&plan);
    }
}
static void plan_case(const char *what, int want, redist_layout s, redist_layout d, MPI_Datatype t,
                      const char *alg)
{
    plan_case2(what, want, want, s, d, t, MPI_COMM_WORLD, alg, 1, NULL);
}

static redist_layout make1d(int64_t n, int64_t b, int grid, const int *ranks)
{
    redist_layout l = NULL;
    int rc = redist_layout_create(1, &n, &b, &grid, NULL, ranks, REDIST_ROW_MAJOR, &l);
    if (rc != REDIST_SUCCESS)
        fail("make1d", "redist_layout_create failed: %d", rc);
    return l;
}

static void test_strerror(void)
{
    static const char *names[] = {"REDIST_ERR_ARG",
                                  "REDIST_ERR_NOMEM",
                                  "REDIST_ERR_MPI",
                                  "REDIST_ERR_NOT_APPLICABLE",
                                  "REDIST_ERR_UNKNOWN_ALGORITHM",
                                  "REDIST_ERR_MISMATCH",
                                  "REDIST_ERR_UNSUPPORTED",
                                  "REDIST_ERR_BUSY",
                                  "REDIST_ERR_STATE"};
    char msgs[9][256];
    for (int i = 0; i < 9; i++) {
        int code = -1 - i;
        /* Copy: the string may live in a per-thread buffer reused by the next call. */
        const char *m = redist_strerror(code);
        if (m == NULL || m[0] == '\0')
            fail("redist_strerror", "empty message for %d", code);
        snprintf(msgs[i], sizeof msgs[i], "%s", m ? m : "");
        const char *n = redist_error_name(code);
        if (n == NULL || strcmp(n, names[i]) != 0)
            fail("redist_error_name", "wrong name for %d", code);
    }
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(msgs[i], msgs[j]) == 0)
                fail("redist_strerror", "codes %d and %d share a message", -1 - i, -1 - j);
    const char *m = redist_strerror(0);
    if (m == NULL || m[0] == '\0')
        fail("redist_strerror(0)", "empty");
    if (redist_strerror(12345) == NULL)
        fail("redist_strerror(12345)", "NULL");
    if (redist_strerror(-12345) == NULL)
        fail("redist_strerror(-12345)", "NULL");
    m = redist_error_name(0);
    if (m == NULL || strcmp(m, "REDIST_SUCCESS") != 0)
        fail("redist_error_name(0)", "not REDIST_SUCCESS");
    m = redist_error_name(12345);
    if (m == NULL || strcmp(m, "REDIST_ERR_UNKNOWN") != 0)
        fail("redist_error_name(12345)", "not REDIST_ERR_UNKNOWN");
    if (redist_last_error_detail() == NULL)
        fail("redist_last_error_detail", "NULL");
}

static void test_layout_create(void)
{
    int64_t e[2] = {10, 7}, b[2] = {2, 3};
    int g[2] = {2, 1}, f[2] = {1, 0}, r[2] = {1, 0};

    layout_case("layout: valid (sanity)", REDIST_SUCCESS, 2, e, b, g, f, r, REDIST_ROW_MAJOR);
    layout_case("layout: valid, extent 0, NULL first and ranks", REDIST_SUCCESS, 2,
                (int64_t[]){0, 0}, b, g, NULL, NULL, REDIST_COL_MAJOR);
    layout_case("layout: ndims 0", REDIST_ERR_ARG, 0, e, b, g, f, r, REDIST_ROW_MAJOR);
    layout_case("layout: ndims -1", REDIST_ERR_ARG, -1, e, b, g, f, r, REDIST_ROW_MAJOR);
    layout_case("layout: NULL extent", REDIST_ERR_ARG, 2, NULL, b, g, f, r, REDIST_ROW_MAJOR);
    layout_case("layout: NULL block", REDIST_ERR_ARG, 2, e, NULL, g, f, r, REDIST_ROW_MAJOR);
    layout_case("layout: NULL grid", REDIST_ERR_ARG, 2, e, b, NULL, f, r, REDIST_ROW_MAJOR);
    expect("layout: NULL layout pointer",
           redist_layout_create(2, e, b, g, f, r, REDIST_ROW_MAJOR, NULL), REDIST_ERR_ARG);
    layout_case("layout: negative extent", REDIST_ERR_ARG, 2, (int64_t[]){10, -1}, b, g, f, r,
                REDIST_ROW_MAJOR);
    layout_case("layout: block 0", REDIST_ERR_ARG, 2, e, (int64_t[]){2, 0}, g, f, r,
                REDIST_ROW_MAJOR);
    layout_case("layout: block -3", REDIST_ERR_ARG, 2, e, (int64_t[]){-3, 1}, g, f, r,
                REDIST_ROW_MAJOR);
    layout_case("layout: grid 0", REDIST_ERR_ARG, 2, e, b, (int[]){2, 0}, f, r, REDIST_ROW_MAJOR);
    layout_case("layout: grid -1", REDIST_ERR_ARG, 2, e, b, (int[]){-1, 1}, f, NULL,
                REDIST_ROW_MAJOR);
    layout_case("layout: first -2", REDIST_ERR_ARG, 2, e, b, g, (int[]){-2, 0}, r,
                REDIST_ROW_MAJOR);
    layout_case("layout: first == grid", REDIST_ERR_ARG, 2, e, b, g, (int[]){2, 0}, r,
                REDIST_ROW_MAJOR);
    layout_case("layout: first > grid", REDIST_ERR_ARG, 2, e, b, g, (int[]){0, 5}, r,
                REDIST_ROW_MAJOR);
    layout_case("layout: duplicate ranks", REDIST_ERR_ARG, 2, e, b, g, f, (int[]){3, 3},
                REDIST_ROW_MAJOR);
    layout_case("layout: duplicate ranks (non-adjacent)", REDIST_ERR_ARG, 1, (int64_t[]){10},
                (int64_t[]){1}, (int[]){4}, NULL, (int[]){2, 0, 1, 2}, REDIST_ROW_MAJOR);
    layout_case("layout: negative rank", REDIST_ERR_ARG, 2, e, b, g, f, (int[]){0, -1},
                REDIST_ROW_MAJOR);
    layout_case("layout: order 2", REDIST_ERR_ARG, 2, e, b, g, f, r, 2);
    layout_case("layout: order -1", REDIST_ERR_ARG, 2, e, b, g, f, r, -1);
    /* A grid of 2^32 coordinates cannot have distinct int ranks: ARG (or NOMEM if the
       library tries to build the identity rank list first). */
    {
        redist_layout l = NULL;
        int rc =
            redist_layout_create(2, e, b, (int[]){65536, 65536}, NULL, NULL, REDIST_ROW_MAJOR, &l);
        expect2("layout: grid product 2^32", rc, REDIST_ERR_ARG, REDIST_ERR_NOMEM);
        if (rc == REDIST_SUCCESS)
            redist_layout_free(&l);
    }
}

static void test_layout_accessors(void)
{
    redist_layout l = make1d(10, 2, 2, NULL), nl = NULL;
    int64_t shape[1], n;
    int c[1];
    expect("local_shape(NULL layout)", redist_layout_local_shape(NULL, 0, shape), REDIST_ERR_ARG);
    expect("local_shape(NULL shape)", redist_layout_local_shape(l, 0, NULL), REDIST_ERR_ARG);
    expect("local_size(NULL layout)", redist_layout_local_size(NULL, 0, &n), REDIST_ERR_ARG);
    expect("local_size(NULL count)", redist_layout_local_size(l, 0, NULL), REDIST_ERR_ARG);
    expect2("layout_ndims(NULL)", redist_layout_ndims(NULL), ANY_ERROR, ANY_ERROR);
    expect2("layout_nprocs(NULL)", redist_layout_nprocs(NULL), ANY_ERROR, ANY_ERROR);
    expect2("layout_coords(NULL layout)", redist_layout_coords(NULL, 0, c), ANY_ERROR, ANY_ERROR);
    expect2("layout_coords(NULL coords)", redist_layout_coords(l, 0, NULL), ANY_ERROR, ANY_ERROR);
    /* Freeing: NULL handle address is an invalid argument (or ignored, like free(NULL));
       a NULL handle is a no-op (or an invalid argument). Neither may crash. */
    expect2("layout_free(NULL)", redist_layout_free(NULL), REDIST_ERR_ARG, REDIST_SUCCESS);
    expect2("layout_free(&null)", redist_layout_free(&nl), REDIST_SUCCESS, REDIST_ERR_ARG);
    expect("layout_free(&l)", redist_layout_free(&l), REDIST_SUCCESS);
    if (l != NULL)
        fail("layout_free", "did not set the handle to NULL");
}

static void test_plan_create(void)
{
    int64_t n = 10 * (int64_t)size + 3;
    redist_layout src = make1d(n, 2, size, NULL), dst = make1d(n, 3, size, NULL);
    int *rev = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i;

    plan_case("plan: valid (sanity)", REDIST_SUCCESS, src, dst, MPI_INT, "auto");
    plan_case2("plan: valid with NULL options", REDIST_SUCCESS, REDIST_SUCCESS, src, dst, MPI_INT,
               MPI_COMM_WORLD, NULL, 0, NULL);
    plan_case("plan: NULL src layout", REDIST_ERR_ARG, NULL, dst, MPI_INT, NULL);
    plan_case("plan: NULL dst layout", REDIST_ERR_ARG, src, NULL, MPI_INT, NULL);
    {
        redist_options opt;
        redist_options_init(&opt);
        if (!(opt.algorithm == NULL || strcmp(opt.algorithm, "auto") == 0))
            fail("redist_options_init", "algorithm is not NULL or \"auto\"");
        if (opt.check_arguments != 1)
            fail("redist_options_init", "check_arguments = %d, expected %d", opt.check_arguments,
                 1);
        expect("plan: NULL plan pointer",
               redist_plan_create(src, dst, MPI_INT, MPI_COMM_WORLD, &opt, NULL), REDIST_ERR_ARG);
    }
    {
        int big = size; /* one past the last rank */
        redist_layout l = make1d(n, 2, 1, &big);
        plan_case("plan: layout rank == comm size", REDIST_ERR_ARG, l, dst, MPI_INT, NULL);
        plan_case("plan: dst layout rank == comm size", REDIST_ERR_ARG, src, l, MPI_INT, NULL);
        redist_layout_free(&l);
        big = size + 1000;
        l = make1d(n, 2, 1, &big);
        plan_case("plan: layout rank >> comm size", REDIST_ERR_ARG, src, l, MPI_INT, NULL);
        redist_layout_free(&l);
        /* Valid for MPI_COMM_WORLD, too large for MPI_COMM_SELF (when size > 1). */
        plan_case2("plan: layout ranks beyond MPI_COMM_SELF",
                   size > 1 ? REDIST_ERR_ARG : REDIST_SUCCESS,
                   size > 1 ? REDIST_ERR_ARG : REDIST_SUCCESS, src, dst, MPI_INT, MPI_COMM_SELF,
                   NULL, 1, NULL);
    }
    {
        redist_layout l2 = NULL, l3 = make1d(n + 1, 2, size, NULL);
        int rc = redist_layout_create(2, (int64_t[]){n, 1}, (int64_t[]){2, 1}, (int[]){size, 1},
                                      NULL, NULL, REDIST_ROW_MAJOR, &l2);
        expect("layout 2-D (sanity)", rc, REDIST_SUCCESS);
        plan_case("plan: src/dst ndims differ", REDIST_ERR_ARG, src, l2, MPI_INT, NULL);
        plan_case("plan: src/dst extents differ", REDIST_ERR_ARG, src, l3, MPI_INT, NULL);
        redist_layout_free(&l2);
        redist_layout_free(&l3);
    }
    plan_case("plan: unknown algorithm", REDIST_ERR_UNKNOWN_ALGORITHM, src, dst, MPI_INT,
              "no-such-algorithm");
    plan_case("plan: empty algorithm name", REDIST_ERR_UNKNOWN_ALGORITHM, src, dst, MPI_INT, "");
    a2a_case("plan: unknown alltoall_algorithm", REDIST_ERR_UNKNOWN_ALGORITHM,
             REDIST_ERR_UNKNOWN_ALGORITHM, src, dst, "no-such-alltoall");
    /* Unknown on one rank: UNKNOWN_ALGORITHM or MISMATCH, the same everywhere. */
    a2a_case("plan: unknown alltoall_algorithm on the last rank only", REDIST_ERR_UNKNOWN_ALGORITHM,
             size > 1 ? REDIST_ERR_MISMATCH : REDIST_ERR_UNKNOWN_ALGORITHM, src, dst,
             rank == size - 1 ? "bogus" : "ring");
    plan_case("plan: MPI_DATATYPE_NULL", REDIST_ERR_ARG, src, dst, MPI_DATATYPE_NULL, NULL);
    plan_case2("plan: MPI_COMM_NULL", REDIST_ERR_ARG, REDIST_ERR_ARG, src, dst, MPI_INT,
               MPI_COMM_NULL, NULL, 1, NULL);
    {
        MPI_Datatype vec, resized, shifted, gappy;
        MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        plan_case("plan: non-contiguous vector type", REDIST_ERR_UNSUPPORTED, src, dst, vec, NULL);
        MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int),
                                &resized); /* extent > size */
        MPI_Type_commit(&resized);
        plan_case("plan: resized type (extent > size)", REDIST_ERR_UNSUPPORTED, src, dst, resized,
                  NULL);
        MPI_Type_create_resized(MPI_INT, (MPI_Aint)sizeof(int), (MPI_Aint)sizeof(int),
                                &shifted); /* lb != 0 */
        MPI_Type_commit(&shifted);
        plan_case("plan: type with lower bound != 0", REDIST_ERR_UNSUPPORTED, src, dst, shifted,
                  NULL);
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 8};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, bl, disp, types, &gappy); /* int, 4-byte hole, double */
        MPI_Type_commit(&gappy);
        plan_case("plan: struct type with a hole", REDIST_ERR_UNSUPPORTED, src, dst, gappy, NULL);
        MPI_Type_free(&vec);
        MPI_Type_free(&resized);
        MPI_Type_free(&shifted);
        MPI_Type_free(&gappy);
    }

    /* Errors committed by one rank only: every rank must get the error, and nobody hangs. */
    plan_case("plan: NULL dst layout on rank 0 only", REDIST_ERR_ARG, src, rank == 0 ? NULL : dst,
              MPI_INT, NULL);
    plan_case("plan: NULL src layout on the last rank only", REDIST_ERR_ARG,
              rank == size - 1 ? NULL : src, dst, MPI_INT, NULL);
    plan_case("plan: MPI_DATATYPE_NULL on the last rank only", REDIST_ERR_ARG, src, dst,
              rank == size - 1 ? MPI_DATATYPE_NULL : MPI_INT, NULL);
    {
        redist_plan dummy = NULL;
        redist_options opt;
        redist_options_init(&opt);
        int rc =
            redist_plan_create(src, dst, MPI_INT, MPI_COMM_WORLD, &opt, rank == 0 ? NULL : &dummy);
        expect("plan: NULL plan pointer on rank 0 only", rc, REDIST_ERR_ARG);
        int ok = rc == REDIST_SUCCESS, all;
        MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all)
            redist_plan_free(&dummy);
    }
    {
        /* An unknown name on one rank: UNKNOWN_ALGORITHM (that rank's local error) or
           MISMATCH (the names differ); either way the same everywhere. */
        plan_case2("plan: unknown algorithm on the last rank only", REDIST_ERR_UNKNOWN_ALGORITHM,
                   size > 1 ? REDIST_ERR_MISMATCH : REDIST_ERR_UNKNOWN_ALGORITHM, src, dst, MPI_INT,
                   MPI_COMM_WORLD, rank == size - 1 ? "no-such-algorithm" : "direct", 1, NULL);
        /* A rank beyond the communicator in one rank's layout only: ARG (local check) or
           MISMATCH (the layouts differ). */
        int big = size;
        redist_layout bad = make1d(n, 3, 1, &big);
        plan_case2("plan: rank >= comm size in the last rank's layout only", REDIST_ERR_ARG,
                   size > 1 ? REDIST_ERR_MISMATCH : REDIST_ERR_ARG, src,
                   rank == size - 1 ? bad : dst, MPI_INT, MPI_COMM_WORLD, NULL, 1, NULL);
        redist_layout_free(&bad);
    }
    {
        /* Data on rank 0 only; the error is on a rank that is in neither layout. */
        int zero = 0;
        redist_layout l0 = make1d(n, 4, 1, &zero);
        if (size > 1)
            plan_case("plan: NULL src layout on a rank in neither layout", REDIST_ERR_ARG,
                      rank == size - 1 ? NULL : l0, l0, MPI_INT, NULL);
        plan_case("plan: same layout object as src and dst (sanity)", REDIST_SUCCESS, l0, l0,
                  MPI_INT, NULL);
        redist_layout_free(&l0);
    }

    /* Ranks passing different (individually valid) arguments: MISMATCH on every rank. */
    if (size > 1) {
        redist_layout b4 = make1d(n, 4, size, NULL), b5 = make1d(n, 5, size, NULL);
        plan_case("plan: block 4 on rank 0, 5 elsewhere", REDIST_ERR_MISMATCH, rank == 0 ? b4 : b5,
                  dst, MPI_INT, NULL);
        plan_case("plan: dst block 4 on rank 0, 5 elsewhere", REDIST_ERR_MISMATCH, src,
                  rank == 0 ? b4 : b5, MPI_INT, NULL);
        redist_layout_free(&b4);
        redist_layout_free(&b5);
        redist_layout e2 = make1d(n + 1, 2, size, NULL), e2d = make1d(n + 1, 3, size, NULL);
        plan_case("plan: extent differs on the last rank", REDIST_ERR_MISMATCH,
                  rank == size - 1 ? e2 : src, rank == size - 1 ? e2d : dst, MPI_INT, NULL);
        redist_layout_free(&e2);
        redist_layout_free(&e2d);
        redist_layout rv = make1d(n, 2, size, rev);
        plan_case("plan: rank list reversed on rank 0 only", REDIST_ERR_MISMATCH,
                  rank == 0 ? rv : src, dst, MPI_INT, NULL);
        redist_layout_free(&rv);
        int64_t b = 2;
        int first = 1;
        redist_layout lf = NULL;
        redist_layout_create(1, &n, &b, &size, &first, NULL, REDIST_ROW_MAJOR, &lf);
        plan_case("plan: first coordinate differs on rank 0", REDIST_ERR_MISMATCH,
                  rank == 0 ? lf : src, dst, MPI_INT, NULL);
        redist_layout_free(&lf);
        plan_case("plan: algorithm differs on rank 0", REDIST_ERR_MISMATCH, src, dst, MPI_INT,
                  rank == 0 ? "direct" : "alltoallv");
        a2a_case("plan: alltoall_algorithm differs on rank 0", REDIST_ERR_MISMATCH,
                 REDIST_ERR_MISMATCH, src, dst, rank == 0 ? "ring" : "pairwise");
        a2a_case("plan: alltoall_algorithm NULL on rank 0 only", REDIST_ERR_MISMATCH,
                 REDIST_ERR_MISMATCH, src, dst, rank == 0 ? NULL : "auto");
        plan_case("plan: element type differs on rank 0", REDIST_ERR_MISMATCH, src, dst,
                  rank == 0 ? MPI_INT : MPI_DOUBLE, NULL);
        /* NULL options, NULL algorithm and "auto" mean the same thing: no mismatch. */
        plan_case2("plan: NULL options on rank 0, \"auto\" elsewhere", REDIST_SUCCESS,
                   REDIST_SUCCESS, src, dst, MPI_INT, MPI_COMM_WORLD, "auto", rank != 0, NULL);
        plan_case2("plan: NULL algorithm on rank 0, \"auto\" elsewhere", REDIST_SUCCESS,
                   REDIST_SUCCESS, src, dst, MPI_INT, MPI_COMM_WORLD, rank == 0 ? NULL : "auto", 1,
                   NULL);
    }
    free(rev);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

/* src cyclic(2) over all ranks -> dst cyclic(3) over all ranks, MPI_INT, value = g. */
typedef struct {
    int64_t n, ns, nd;
    int *s, *d;
} bufs_t;
static bufs_t make_bufs(int64_t n)
{
    bufs_t B;
    B.n = n;
    B.ns = B.nd = 0;
    for (int64_t g = 0; g < n; g++) {
        if ((g / 2) % size == rank)
            B.ns++;
        if ((g / 3) % size == rank)
            B.nd++;
    }
    B.s = malloc(sizeof(int) * (size_t)(B.ns + 1));
    B.d = malloc(sizeof(int) * (size_t)(B.nd + 1));
    for (int64_t l = 0; l < B.ns; l++)
        B.s[l] = (int)(((l / 2) * size + rank) * 2 + l % 2);
    return B;
}
static void check_bufs(const char *what, bufs_t *B)
{
    for (int64_t l = 0; l < B->nd; l++) {
        int want = (int)(((l / 3) * size + rank) * 3 + l % 3);
        if (B->d[l] != want) {
            fail(what, "wrong destination element %d (got %d)", (int)l, B->d[l]);
            return;
        }
    }
}
static void clear_bufs(bufs_t *B)
{
    memset(B->d, 0xEE, sizeof(int) * (size_t)(B->nd + 1));
}

static void test_execute(void)
{
    int64_t n = 10 * (int64_t)size + 3; /* every rank holds source and destination data */
    redist_layout src = make1d(n, 2, size, NULL), dst = make1d(n, 3, size, NULL);
    bufs_t B = make_bufs(n);
    redist_plan plan = NULL;
    int rc = redist_plan_create(src, dst, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
    expect("execute setup: plan_create", rc, REDIST_SUCCESS);
    int ok = rc == REDIST_SUCCESS, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        fail("execute tests", "skipped: no plan");
        return;
    }
    int done = 0;

    /* NULL buffers on ranks that hold data (check_arguments is on by default). */
    clear_bufs(&B);
    expect("execute: NULL src on rank 0 (holds data)",
           redist_execute(plan, rank == 0 ? NULL : B.s, B.d), REDIST_ERR_ARG);
    clear_bufs(&B);
    expect("execute: NULL dst on the last rank (holds data)",
           redist_execute(plan, B.s, rank == size - 1 ? NULL : B.d), REDIST_ERR_ARG);
    clear_bufs(&B);
    expect("execute: NULL src everywhere", redist_execute(plan, NULL, B.d), REDIST_ERR_ARG);
    /* The plan is still usable after failed calls. */
    clear_bufs(&B);
    expect("execute: valid after errors", redist_execute(plan, B.s, B.d), REDIST_SUCCESS);
    check_bufs("execute: valid after errors", &B);

    expect("execute(NULL plan)", redist_execute(NULL, B.s, B.d), REDIST_ERR_ARG);
    expect("start(NULL plan)", redist_start(NULL, B.s, B.d), REDIST_ERR_ARG);
    expect("test(NULL plan)", redist_test(NULL, &done), REDIST_ERR_ARG);
    expect("wait(NULL plan)", redist_wait(NULL), REDIST_ERR_ARG);

    /* test / wait without start: like MPI_Test / MPI_Wait on an inactive persistent
       request, success at once, and test sets done. */
    done = 0;
    expect("test without start", redist_test(plan, &done), REDIST_SUCCESS);
    if (done != 1)
        fail("test without start", "done = %d, want 1", done);
    expect("wait without start", redist_wait(plan), REDIST_SUCCESS);

    /* MPI_IN_PLACE is not an array: ARG on every rank (one rank or all), no crash. */
    clear_bufs(&B);
    expect("execute: dst MPI_IN_PLACE everywhere", redist_execute(plan, B.s, MPI_IN_PLACE),
           REDIST_ERR_ARG);
    clear_bufs(&B);
    expect("execute: src MPI_IN_PLACE on the last rank",
           redist_execute(plan, rank == size - 1 ? MPI_IN_PLACE : B.s, B.d), REDIST_ERR_ARG);
    clear_bufs(&B);
    expect("execute: dst MPI_IN_PLACE on rank 0",
           redist_execute(plan, B.s, rank == 0 ? MPI_IN_PLACE : B.d), REDIST_ERR_ARG);

    /* Bad buffers passed to start: start may report ARG itself (then nothing is in
       progress), or, being nonblocking, return success and report ARG from the wait/test
       that completes the execution (the library agrees on the error with a nonblocking
       reduction). Either way every rank sees ARG, and afterwards nothing is in progress. */
    for (int via_test = 0; via_test < 2; via_test++) {
        const char *what =
            via_test ? "start(NULL src on rank 0) + test" : "start(NULL src on rank 0) + wait";
        clear_bufs(&B);
        rc = redist_start(plan, rank == 0 ? NULL : B.s, B.d);
        expect2(what, rc, REDIST_ERR_ARG, REDIST_SUCCESS);
        if (rc == REDIST_SUCCESS) {
            if (via_test) {
                done = 0;
                double t0 = MPI_Wtime();
                while (!done && rc == REDIST_SUCCESS && MPI_Wtime() - t0 < 60)
                    rc = redist_test(plan, &done);
                expect(what, rc, REDIST_ERR_ARG);
            } else {
                expect(what, redist_wait(plan), REDIST_ERR_ARG);
            }
        }
        expect("wait after a failed execution", redist_wait(plan), REDIST_SUCCESS);
    }

    /* start twice: the second is BUSY; so is execute; wait then completes the first. */
    clear_bufs(&B);
    rc = redist_start(plan, B.s, B.d);
    expect("start", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS) {
        int *s2 = malloc(sizeof(int) * (size_t)(B.ns + 1)),
            *d2 = malloc(sizeof(int) * (size_t)(B.nd + 1));
        memcpy(s2, B.s, sizeof(int) * (size_t)(B.ns + 1));
        expect("start while busy", redist_start(plan, s2, d2), REDIST_ERR_BUSY);
        expect("execute while busy", redist_execute(plan, s2, d2), REDIST_ERR_BUSY);
        expect("test with NULL done while busy", redist_test(plan, NULL), REDIST_ERR_ARG);
        expect("wait after start", redist_wait(plan), REDIST_SUCCESS);
        check_bufs("start + BUSY + wait", &B);
        expect("wait twice", redist_wait(plan), REDIST_SUCCESS);
        done = 0;
        expect("test after wait", redist_test(plan, &done), REDIST_SUCCESS);
        if (done != 1)
            fail("test after wait", "done = %d, want 1", done);
        free(s2);
        free(d2);
    }

    /* start + test until done; afterwards nothing is in progress: a test reports success
       with done = 1 and a wait returns success at once (MPI's inactive persistent request). */
    clear_bufs(&B);
    rc = redist_start(plan, B.s, B.d);
    expect("start (test loop)", rc, REDIST_SUCCESS);
    if (rc == REDIST_SUCCESS) {
        done = 0;
        double t0 = MPI_Wtime();
        while (!done && rc == REDIST_SUCCESS && MPI_Wtime() - t0 < 60)
            rc = redist_test(plan, &done);
        if (rc != REDIST_SUCCESS || !done) {
            fail("test loop", "rc %d, done %d", rc, done);
            redist_wait(plan);
        }
        check_bufs("start + test", &B);
        done = 0;
        rc = redist_test(plan, &done);
        if (rc != REDIST_SUCCESS || done != 1)
            fail("test after completion", "rc %d, done %d", rc, done);
        expect("wait after completion", redist_wait(plan), REDIST_SUCCESS);
        /* A completion loop written the MPI way ends at once on an idle plan. */
        done = 0;
        for (int i = 0; i < 1000 && !done; i++)
            rc = redist_test(plan, &done);
        if (rc != REDIST_SUCCESS || done != 1)
            fail("while (!done) test on an idle plan", "rc %d, done %d", rc, done);
    }

    redist_stats st;
    expect("plan_stats(NULL plan)", redist_plan_stats(NULL, &st), REDIST_ERR_ARG);
    expect("plan_stats(NULL stats)", redist_plan_stats(plan, NULL), REDIST_ERR_ARG);
    (void)redist_plan_algorithm(NULL); /* must not crash; NULL or a string */

    expect("plan_free", redist_plan_free(&plan), REDIST_SUCCESS);
    if (plan != NULL)
        fail("plan_free", "did not set the handle to NULL");
    /* The header leaves these open: a NULL handle is a no-op or ARG, a NULL address is ARG
       or ignored. Neither may crash or hang. */
    expect2("plan_free(&null plan)", redist_plan_free(&plan), REDIST_SUCCESS, REDIST_ERR_ARG);
    expect2("plan_free(NULL)", redist_plan_free(NULL), REDIST_ERR_ARG, REDIST_SUCCESS);

    free(B.s);
    free(B.d);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

static void test_unsupported(void)
{
    /* BMMC ([Cor97]): the identity works on a power-of-two communicator; a size that is not
       a power of two, n < lg P and a singular matrix are REDIST_ERR_ARG on every rank. */
    uint64_t cols[10];
    for (int j = 0; j < 10; j++)
        cols[j] = (uint64_t)1 << j;
    int pow2 = (size & (size - 1)) == 0;
    redist_plan plan = NULL;
    int rc = redist_plan_create_bmmc(10, 0, cols, 0, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
    expect("plan_create_bmmc(identity)", rc, pow2 ? REDIST_SUCCESS : REDIST_ERR_ARG);
    if (rc != REDIST_SUCCESS && plan != NULL)
        fail("plan_create_bmmc", "failed (%d) but set the plan handle", rc);
    redist_plan_free(&plan);
    cols[3] = cols[2]; /* singular */
    rc = redist_plan_create_bmmc(10, 0, cols, 0, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
    expect("plan_create_bmmc(singular)", rc, REDIST_ERR_ARG);
    redist_plan_free(&plan);
    cols[3] = (uint64_t)1 << 3;
    if (size > 1) {
        rc = redist_plan_create_bmmc(0, 0, cols, 0, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
        expect("plan_create_bmmc(n < lg P)", rc, REDIST_ERR_ARG);
        redist_plan_free(&plan);
    }

    /* The basic operations ([GGKK03]): a negative count and an unknown algorithm give the
       same code on every rank. */
    int64_t bad = -1;
    int *sb = calloc((size_t)size * 4, sizeof(int)), *rb = calloc((size_t)size * 4, sizeof(int));
    for (int mode = 0; mode < 2; mode++) {
        int64_t cnt = mode == 0 ? bad : 1;
        const char *alg = mode == 0 ? NULL : "no-such-algorithm";
        int want = mode == 0 ? REDIST_ERR_ARG : REDIST_ERR_UNKNOWN_ALGORITHM;
        expect("redist_bcast", redist_bcast(sb, cnt, MPI_INT, 0, MPI_COMM_WORLD, alg), want);
        expect("redist_reduce",
               redist_reduce(sb, rb, cnt, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, alg), want);
        expect("redist_allreduce",
               redist_allreduce(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, alg), want);
        expect("redist_scan", redist_scan(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, alg),
               want);
        expect("redist_scatter", redist_scatter(sb, rb, cnt, MPI_INT, 0, MPI_COMM_WORLD, alg),
               want);
        expect("redist_gather", redist_gather(sb, rb, cnt, MPI_INT, 0, MPI_COMM_WORLD, alg), want);
        expect("redist_allgather", redist_allgather(sb, rb, cnt, MPI_INT, MPI_COMM_WORLD, alg),
               want);
        expect("redist_reduce_scatter",
               redist_reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, alg), want);
        expect("redist_alltoall", redist_alltoall(sb, rb, cnt, MPI_INT, MPI_COMM_WORLD, alg), want);
        expect("redist_shift", redist_shift(sb, rb, cnt, MPI_INT, 1, MPI_COMM_WORLD, alg), want);
    }
    free(sb);
    free(rb);
}

static void test_algorithm_names(void)
{
    int n = redist_algorithm_count();
    if (n < 5)
        fail("redist_algorithm_count", "%d < 5", n);
    if (redist_algorithm_name(-1) != NULL)
        fail("redist_algorithm_name(-1)", "not NULL");
    if (redist_algorithm_name(n) != NULL)
        fail("redist_algorithm_name(count)", "not NULL");
    for (int i = 0; i < n; i++) {
        const char *a = redist_algorithm_name(i);
        if (a == NULL || a[0] == '\0')
            fail("redist_algorithm_name", "name %d is empty", i);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Errors must come back as codes; an MPI error inside the library must not abort us. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    test_strerror();
    test_algorithm_names();
    test_layout_create();
    test_layout_accessors();
    test_plan_create();
    test_execute();
    test_unsupported();

    return mtest_finalize(errs);
}
