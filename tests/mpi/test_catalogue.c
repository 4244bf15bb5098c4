/* The bad-input catalogue (issue 16): every public function of redist.h against every class of
 * bad input, as one table. Each entry names the function, the class of bad input, a runner
 * and its variant (which argument the runner spoils), the code every rank must return and a
 * word its detail must contain. For each entry the driver checks, on every rank:
 *
 *   - the same code on every rank (MPI_Allreduce of min and max), and the expected one;
 *   - no hang: the entry runs under a watchdog (mtest_watchdog) that names it and exits;
 *   - no crash: a signal handler names the entry before the process dies (not under ASan,
 *     whose own report is better);
 *   - on failure a non-empty detail recorded by this call (a sentinel detail set before the
 *     entry must be gone), containing the expected word, and the same detail on every rank
 *     for the collective creators (agreement broadcasts the failing rank's detail);
 *   - a non-empty redist_strerror for the code, distinct for distinct codes (its own entry);
 *   - a failed create leaves its output handle NULL (handles start as garbage).
 *
 * It runs with MPI's default error handlers (MPI_ERRORS_ARE_FATAL on every communicator, the
 * intercommunicator included): an error that MPI raised on a handle the library did not
 * create would abort the job instead of coming back as a code (issue 25).
 *
 * Arguments that differ between ranks (layouts, windows, irregular blocks, algorithms, types,
 * roots, counts, shifts, ops, options fields, permutations, alpha/beta, batch counts, BMMC
 * matrices, intercommunicator sides) are spoiled on the last rank only, so that rank 0's
 * value is the reference the MISMATCH detail compares with. Entries that need two ranks, a
 * power of two or not, are skipped otherwise (counted). The expected codes follow redist.h;
 * where it is silent, docs/errors.md records the choice made here.
 *
 * Not here (docs/errors.md, "The caller's responsibility"): what no library can detect
 * (buffers too small, dangling handles, different functions called on different ranks,
 * MPI_COMM_NULL or check_arguments = 0 with bad buffers on some ranks only). The ScaLAPACK
 * entry points' bad inputs are in test_scalapack.c; plans before MPI_Init in test_hostile.c.
 *
 * Options: -v names each entry on rank 0 before it runs; --list prints the table and exits.
 * Output: " No Errors" on success, else one line per failed check and " Found N errors".
 */
/* nprocs: 1 2 3 4 */
/* (one rank; two; three: not a power of two, a group of two ranks on one side of the
   intercommunicator; four: a power of two above two. Any count works when run by hand.) */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "redist.h"
#include "support/mtest.h"

static int case_seconds = 60;     /* per entry (milliseconds each); env CATALOGUE_SECONDS */
#define NOT_AS_DOCUMENTED (-1000) /* a runner's verdict on a result that is not a code */

static int rank, size, last, errs, verbose;
static char case_name[320];

#define fail(...) mtest_fail(&errs, rank, case_name, __VA_ARGS__)

/* ---- the table ------------------------------------------------------------------------- */

typedef int (*runner)(int v);

enum { ANY = 0, MULTI = 1, POW2 = 2, NOT_POW2 = 4, MULTI3 = 8 }; /* the sizes an entry needs */
enum {
    F_OWN_DETAIL = 1, /* ranks read their own details (execute: a rank's own buffer error,
                         "another rank passed bad arguments" elsewhere) */
    F_NO_DETAIL = 2   /* no detail to check (a result that is not an error code) */
};

typedef struct {
    const char *function; /* the public function(s) */
    const char *bad;      /* the class of bad input */
    runner run;
    int v;              /* the runner's variant */
    int want;           /* the code every rank must return */
    const char *detail; /* a word the detail must contain (NULL: any non-empty detail) */
    int when, flags;
} entry;

enum { MAX_ENTRIES = 1000 };
static entry table[MAX_ENTRIES];
static int nentries;

static void add(const char *function, const char *bad, runner run, int v, int want,
                const char *detail, int when, int flags)
{
    if (nentries < MAX_ENTRIES)
        table[nentries++] = (entry){function, bad, run, v, want, detail, when, flags};
}

/* ---- fixtures -------------------------------------------------------------------------- */

static int64_t N1;           /* 10 size + 3 elements: every rank holds some of both */
static redist_layout Ls, Ld; /* cyclic(2) over all ranks -> cyclic(3) over all, reversed */
static redist_layout Ls_b5, Ls_rev, Ls_first, Ls_col, Ls_n1, Ld_n1, Ld_sub, L_beyond;
static redist_layout L2s, L2d, L2t, Lsq_s, Lsq_d, L2s_ld, L2s_ld_small;
static redist_layout Lgen, Lgen2, Lw1, Lw2, Lparent;
static MPI_Datatype T_vec, T_resized, T_uncommitted;
static MPI_Datatype T_mixed;    /* int, then float: contiguous, never committed */
static MPI_Datatype T_pairs;    /* one MPI_2INT, never committed */
static MPI_Datatype T_f90_real; /* MPI_Type_create_f90_real(6, 30): predefined, not freed */
static MPI_Op op_noncommutative;

/* The intercommunicator (two ranks or more): ranks below `ps` are the source group. */
static MPI_Comm inter = MPI_COMM_NULL;
static int is_src, ps, pd;
static redist_layout LIs, LId, LIs_b5, LIs_beyond;

/* Plans executed by the entries: P (Ls -> Ld, MPI_INT), P_nocheck (check_arguments = 0),
   PB (a batch of two arrays) and PBM (a BMMC identity, power-of-two sizes). */
static redist_plan P, P_nocheck, PB, PBM;
static int64_t ns, nd;          /* this rank's elements of Ls and Ld */
static int *S, *D, *S2, *D2;    /* P's arrays (S holds max(ns, nd) for the overlap case) */
static int *bs0, *bd0;          /* PB's arrays: array 0 (Ls -> Ld, int) */
static double *bs1, *bd1;       /* array 1 (Ld -> Ls, double) */
static double bms[64], bmd[64]; /* PBM's */
static int bmmc_n;

static void *garbage(void)
{
    return (void *)(uintptr_t)0x51;
}

/* 1 if cond holds on every rank. */
static int all_ranks(int cond)
{
    int all = 0;
    MPI_Allreduce(&cond, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static redist_layout layout1(int64_t n, int64_t b, int grid, const int *ranks, const int *first,
                             int order)
{
    redist_layout l = NULL;
    if (redist_layout_create(1, &n, &b, &grid, first, ranks, order, &l) != REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "layout: %s", redist_last_error_detail());
    return l;
}

static redist_layout layout2(int64_t n0, int64_t n1, int64_t b0, int64_t b1, int g0, int g1)
{
    redist_layout l = NULL;
    int64_t e[2] = {n0, n1}, b[2] = {b0, b1};
    int g[2] = {g0, g1};
    if (redist_layout_create(2, e, b, g, NULL, NULL, REDIST_ROW_MAJOR, &l) != REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "layout: %s", redist_last_error_detail());
    return l;
}

static redist_layout gen1(int shift)
{
    int64_t *sizes = malloc(sizeof(int64_t) * (size_t)size);
    for (int c = 0; c < size; c++)
        sizes[c] = N1 / size + (c < N1 % size);
    sizes[0] += shift;
    sizes[size - 1] -= shift;
    const int64_t *sz[1] = {sizes};
    int grid = size;
    redist_layout l = NULL;
    if (redist_layout_create_gen_block(1, &N1, NULL, &grid, NULL, NULL, REDIST_ROW_MAJOR, sz, &l) !=
        REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "gen_block: %s", redist_last_error_detail());
    free(sizes);
    return l;
}

static redist_layout window1(redist_layout parent, int64_t offset, int64_t count)
{
    redist_layout w = NULL;
    if (redist_layout_create_window(parent, &offset, &count, NULL, &w) != REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "window: %s", redist_last_error_detail());
    return w;
}

static redist_layout window_ld(redist_layout parent, int64_t ld1)
{
    redist_layout w = NULL;
    int64_t ld[2] = {0, ld1};
    if (redist_layout_create_window(parent, NULL, NULL, ld, &w) != REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "window: %s", redist_last_error_detail());
    return w;
}

/* A non-commutative operation: a op b = a (keeps the left operand). */
static void keep_left(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static int64_t local_size(redist_layout l)
{
    int64_t n = 0;
    redist_layout_local_size(l, rank, &n);
    return n;
}

static void make_fixtures(void)
{
    N1 = 10 * (int64_t)size + 3;
    int *rev = malloc(sizeof(int) * (size_t)size), *sub = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) {
        rev[i] = size - 1 - i;
        sub[i] = i;
    }
    int first1 = 1 % size, beyond = size;
    Ls = layout1(N1, 2, size, NULL, NULL, REDIST_ROW_MAJOR);
    Ld = layout1(N1, 3, size, rev, NULL, REDIST_ROW_MAJOR);
    Ls_b5 = layout1(N1, 5, size, NULL, NULL, REDIST_ROW_MAJOR);
    Ls_rev = layout1(N1, 2, size, rev, NULL, REDIST_ROW_MAJOR);
    Ls_first = layout1(N1, 2, size, NULL, &first1, REDIST_ROW_MAJOR);
    Ls_col = layout1(N1, 2, size, NULL, NULL, REDIST_COL_MAJOR);
    Ls_n1 = layout1(N1 + 1, 2, size, NULL, NULL, REDIST_ROW_MAJOR);
    Ld_n1 = layout1(N1 + 1, 3, size, rev, NULL, REDIST_ROW_MAJOR);
    Ld_sub = layout1(N1, 3, size > 1 ? size - 1 : 1, sub, NULL, REDIST_ROW_MAJOR);
    L_beyond = layout1(N1, 3, 1, &beyond, NULL, REDIST_ROW_MAJOR);
    L2s = layout2(6, 4, 2, 2, size, 1);
    L2d = layout2(6, 4, 3, 1, 1, size);
    L2t = layout2(4, 6, 3, 1, 1, size);
    Lsq_s = layout2(6, 6, 2, 2, size, 1);
    Lsq_d = layout2(6, 6, 3, 1, 1, size);
    L2s_ld = window_ld(L2s, 4 + rank); /* padding that differs between ranks: legal */
    L2s_ld_small = window_ld(L2s, 3);  /* less than the local extent 4 */
    Lgen = gen1(0);
    Lgen2 = gen1(size > 1 ? 1 : 0);
    Lparent = layout1(N1 + 4, 2, size, NULL, NULL, REDIST_ROW_MAJOR);
    Lw1 = window1(Lparent, 0, N1); /* the same first coordinate, phases 0 and 1 */
    Lw2 = window1(Lparent, 1, N1);
    free(rev);
    free(sub);

    MPI_Type_vector(2, 1, 2, MPI_INT, &T_vec);
    MPI_Type_commit(&T_vec);
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &T_resized);
    MPI_Type_commit(&T_resized);
    MPI_Type_contiguous(1, MPI_INT, &T_uncommitted); /* never committed */
    int mixed_lengths[2] = {1, 1};
    MPI_Aint mixed_at[2] = {0, sizeof(int)};
    MPI_Datatype mixed_types[2] = {MPI_INT, MPI_FLOAT};
    MPI_Type_create_struct(2, mixed_lengths, mixed_at, mixed_types, &T_mixed);
    MPI_Type_contiguous(1, MPI_2INT, &T_pairs);
    MPI_Type_create_f90_real(6, 30, &T_f90_real);
    MPI_Op_create(keep_left, 0, &op_noncommutative);

    if (size >= 2) {
        ps = (size + 1) / 2;
        pd = size - ps;
        is_src = rank < ps;
        MPI_Comm local;
        MPI_Comm_split(MPI_COMM_WORLD, is_src, rank, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, is_src ? ps : 0, 4711, &inter);
        MPI_Comm_free(&local);
        int beyond_src = ps;
        LIs = layout1(N1, 2, ps, NULL, NULL, REDIST_ROW_MAJOR);
        LId = layout1(N1, 3, pd, NULL, NULL, REDIST_ROW_MAJOR);
        LIs_b5 = layout1(N1, 5, ps, NULL, NULL, REDIST_ROW_MAJOR);
        LIs_beyond = layout1(N1, 2, 1, &beyond_src, NULL, REDIST_ROW_MAJOR);
    }

    ns = local_size(Ls);
    nd = local_size(Ld);
    int64_t most = ns > nd ? ns : nd;
    S = calloc((size_t)most + 1, sizeof *S);
    D = calloc((size_t)nd + 1, sizeof *D);
    S2 = calloc((size_t)ns + 1, sizeof *S2);
    D2 = calloc((size_t)nd + 1, sizeof *D2);
    bs0 = calloc((size_t)ns + 1, sizeof *bs0);
    bd0 = calloc((size_t)nd + 1, sizeof *bd0);
    bs1 = calloc((size_t)nd + 1, sizeof *bs1);
    bd1 = calloc((size_t)ns + 1, sizeof *bd1);

    redist_options o;
    redist_options_init(&o);
    if (redist_plan_create(Ls, Ld, MPI_INT, MPI_COMM_WORLD, NULL, &P) != REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "plan: %s", redist_last_error_detail());
    o.check_arguments = 0;
    if (redist_plan_create(Ls, Ld, MPI_INT, MPI_COMM_WORLD, &o, &P_nocheck) != REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "plan: %s", redist_last_error_detail());
    redist_layout bsrc[2] = {Ls, Ld}, bdst[2] = {Ld, Ls};
    MPI_Datatype btypes[2] = {MPI_INT, MPI_DOUBLE};
    if (redist_plan_create_batch(2, bsrc, bdst, btypes, MPI_COMM_WORLD, NULL, &PB) !=
        REDIST_SUCCESS)
        mtest_fail(&errs, rank, "fixture", "batch: %s", redist_last_error_detail());
    if ((size & (size - 1)) == 0) {
        uint64_t cols[64];
        int lg = 0;
        while ((1 << lg) < size)
            lg++;
        bmmc_n = lg + 3; /* 8 elements per rank */
        redist_bmmc_identity(bmmc_n, cols);
        if (redist_plan_create_bmmc(bmmc_n, 0, cols, 0, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &PBM) !=
            REDIST_SUCCESS)
            mtest_fail(&errs, rank, "fixture", "bmmc: %s", redist_last_error_detail());
    }
}

static void free_fixtures(void)
{
    redist_layout *ls[] = {&Ls,      &Ld,     &Ls_b5,        &Ls_rev, &Ls_first,  &Ls_col, &Ls_n1,
                           &Ld_n1,   &Ld_sub, &L_beyond,     &L2s,    &L2d,       &L2t,    &Lsq_s,
                           &Lsq_d,   &L2s_ld, &L2s_ld_small, &Lgen,   &Lgen2,     &Lw1,    &Lw2,
                           &Lparent, &LIs,    &LId,          &LIs_b5, &LIs_beyond};
    for (size_t i = 0; i < sizeof ls / sizeof ls[0]; i++)
        redist_layout_free(ls[i]);
    redist_plan_free(&P);
    redist_plan_free(&P_nocheck);
    redist_plan_free(&PB);
    redist_plan_free(&PBM);
    MPI_Type_free(&T_vec);
    MPI_Type_free(&T_resized);
    MPI_Type_free(&T_uncommitted);
    MPI_Type_free(&T_mixed);
    MPI_Type_free(&T_pairs);
    MPI_Op_free(&op_noncommutative);
    if (inter != MPI_COMM_NULL)
        MPI_Comm_free(&inter);
    free(S);
    free(D);
    free(S2);
    free(D2);
    free(bs0);
    free(bd0);
    free(bs1);
    free(bd1);
}

/* A failed create leaves the handle NULL; a plan every rank has is freed. A plan only some
   ranks have (a library bug, reported by the driver) cannot be freed collectively: leaked. */
static int plan_done(int rc, redist_plan *plan)
{
    if (plan != NULL && rc != REDIST_SUCCESS && *plan != NULL) {
        fail("failed (%s) but *plan is not NULL", redist_error_name(rc));
        *plan = NULL;
    }
    if (all_ranks(rc == REDIST_SUCCESS) && plan != NULL) /* collective: every rank calls */
        redist_plan_free(plan);
    return rc;
}

static int layout_done(int rc, redist_layout *l)
{
    if (l == NULL)
        return rc;
    if (rc != REDIST_SUCCESS && *l != NULL) {
        fail("failed (%s) but *layout is not NULL", redist_error_name(rc));
        *l = NULL;
    }
    if (rc == REDIST_SUCCESS)
        redist_layout_free(l);
    return rc;
}

/* The plan has nothing in flight: test says done, wait returns at once. */
static void expect_idle(redist_plan p)
{
    int done = 0, rc = redist_test(p, &done);
    if (rc != REDIST_SUCCESS || done != 1)
        fail("afterwards the plan is not idle (redist_test: %s, done %d)", redist_error_name(rc),
             done);
    rc = redist_wait(p);
    if (rc != REDIST_SUCCESS)
        fail("afterwards redist_wait returns %s", redist_error_name(rc));
}

/* ---- error functions, algorithm names, options ------------------------------------------ */

enum {
    ER_MESSAGES,
    ER_UNKNOWN_CODES,
    ER_NAMES,
    ER_DETAIL,
    AN_PAST,
    AN_NEG,
    AN_MIN,
    AN_MAX,
    AN_COUNT,
    OI_NULL
};

static int run_misc(int v)
{
    static const int codes[] = {REDIST_SUCCESS,
                                REDIST_ERR_ARG,
                                REDIST_ERR_NOMEM,
                                REDIST_ERR_MPI,
                                REDIST_ERR_NOT_APPLICABLE,
                                REDIST_ERR_UNKNOWN_ALGORITHM,
                                REDIST_ERR_MISMATCH,
                                REDIST_ERR_UNSUPPORTED,
                                REDIST_ERR_BUSY,
                                REDIST_ERR_STATE};
    static const char *names[] = {"REDIST_SUCCESS",
                                  "REDIST_ERR_ARG",
                                  "REDIST_ERR_NOMEM",
                                  "REDIST_ERR_MPI",
                                  "REDIST_ERR_NOT_APPLICABLE",
                                  "REDIST_ERR_UNKNOWN_ALGORITHM",
                                  "REDIST_ERR_MISMATCH",
                                  "REDIST_ERR_UNSUPPORTED",
                                  "REDIST_ERR_BUSY",
                                  "REDIST_ERR_STATE"};
    enum { NCODES = sizeof codes / sizeof codes[0] };
    int ok = 1, n = redist_algorithm_count();
    switch (v) {
    case ER_MESSAGES: /* one clear message per code: non-empty, and no two alike */
        for (int i = 0; i < NCODES; i++) {
            const char *m = redist_strerror(codes[i]);
            if (m == NULL || m[0] == '\0') {
                fail("redist_strerror(%d) is \"%s\"", codes[i], m ? m : "(NULL)");
                ok = 0;
                continue;
            }
            for (int j = 0; j < i; j++)
                if (strcmp(m, redist_strerror(codes[j])) == 0) {
                    fail("codes %d and %d share the message \"%s\"", codes[i], codes[j], m);
                    ok = 0;
                }
            if (strcmp(m, redist_strerror(-12345)) == 0) {
                fail("code %d has the unknown code's message", codes[i]);
                ok = 0;
            }
        }
        break;
    case ER_UNKNOWN_CODES: {
        const int bad[] = {1, 12345, -10, -12345, INT_MIN, INT_MAX};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            const char *m = redist_strerror(bad[i]), *nm = redist_error_name(bad[i]);
            if (m == NULL || m[0] == '\0' || nm == NULL || strcmp(nm, "REDIST_ERR_UNKNOWN") != 0) {
                fail("code %d: message \"%s\", name \"%s\"", bad[i], m ? m : "(NULL)",
                     nm ? nm : "(NULL)");
                ok = 0;
            }
        }
        break;
    }
    case ER_NAMES:
        for (int i = 0; i < NCODES; i++) {
            const char *nm = redist_error_name(codes[i]);
            if (nm == NULL || strcmp(nm, names[i]) != 0) {
                fail("redist_error_name(%d) = \"%s\", expected %s", codes[i], nm ? nm : "(NULL)",
                     names[i]);
                ok = 0;
            }
        }
        break;
    case ER_DETAIL:
        ok = redist_last_error_detail() != NULL;
        break;
    case AN_PAST:
        ok = redist_algorithm_name(n) == NULL;
        break;
    case AN_NEG:
        ok = redist_algorithm_name(-1) == NULL;
        break;
    case AN_MIN:
        ok = redist_algorithm_name(INT_MIN) == NULL;
        break;
    case AN_MAX:
        ok = redist_algorithm_name(INT_MAX) == NULL;
        break;
    case AN_COUNT:
        for (int i = 0; i < n; i++) {
            const char *a = redist_algorithm_name(i);
            ok &= a != NULL && a[0] != '\0';
        }
        ok &= n >= 5;
        break;
    case OI_NULL:
        redist_options_init(NULL); /* must not crash */
        break;
    }
    return ok ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
}

/* ---- layouts (local) --------------------------------------------------------------------- */

enum {
    LC_OK,
    LC_NDIMS0,
    LC_NDIMS_MIN,
    LC_NULL_EXTENT,
    LC_NULL_BLOCK,
    LC_NULL_GRID,
    LC_NULL_OUT,
    LC_EXTENT_NEG,
    LC_EXTENT_HUGE,
    LC_EXTENT_PRODUCT,
    LC_BLOCK0,
    LC_BLOCK_MIN,
    LC_BLOCK_MAX,
    LC_GRID0,
    LC_GRID_NEG,
    LC_GRID_PRODUCT,
    LC_FIRST_NEG,
    LC_FIRST_GRID,
    LC_RANKS_DUP,
    LC_RANKS_NEG,
    LC_RANKS_MAX,
    LC_ORDER
};

static int run_layout_create(int v)
{
    int64_t e[2] = {10, 7}, b[2] = {2, 3};
    int g[2] = {2, 1}, f[2] = {1, 0}, r[2] = {1, 0}, nd = 2, order = REDIST_COL_MAJOR;
    const int64_t *pe = e, *pb = b;
    const int *pg = g, *pf = f, *pr = r;
    redist_layout l = garbage(), *pl = &l;
    switch (v) {
    case LC_NDIMS0:
        nd = 0;
        break;
    case LC_NDIMS_MIN:
        nd = INT_MIN;
        break;
    case LC_NULL_EXTENT:
        pe = NULL;
        break;
    case LC_NULL_BLOCK:
        pb = NULL;
        break;
    case LC_NULL_GRID:
        pg = NULL;
        break;
    case LC_NULL_OUT:
        pl = NULL;
        break;
    case LC_EXTENT_NEG:
        e[1] = -1;
        break;
    case LC_EXTENT_HUGE:
        e[0] = REDIST_MAX_EXTENT + 1;
        break;
    case LC_EXTENT_PRODUCT: /* 2^32 x 2^32 = 2^64 elements */
        e[0] = e[1] = (int64_t)1 << 32;
        break;
    case LC_BLOCK0:
        b[1] = 0;
        break;
    case LC_BLOCK_MIN:
        b[0] = INT64_MIN;
        break;
    case LC_BLOCK_MAX: /* legal: one block */
        b[0] = INT64_MAX;
        break;
    case LC_GRID0:
        g[1] = 0;
        break;
    case LC_GRID_NEG:
        g[0] = -2;
        break;
    case LC_GRID_PRODUCT: /* 2^32 coordinates */
        g[0] = g[1] = 65536;
        pr = NULL;
        pf = NULL;
        break;
    case LC_FIRST_NEG:
        f[0] = -1;
        break;
    case LC_FIRST_GRID:
        f[0] = 2;
        break;
    case LC_RANKS_DUP:
        r[0] = r[1] = 3;
        break;
    case LC_RANKS_NEG:
        r[1] = -1;
        break;
    case LC_RANKS_MAX: /* legal here; a plan checks it against its communicator */
        r[0] = INT_MAX;
        break;
    case LC_ORDER:
        order = 2;
        break;
    }
    return layout_done(redist_layout_create(nd, pe, pb, pg, pf, pr, order, pl), pl);
}

enum {
    LW_OK,
    LW_OF_WINDOW,
    LW_NULL_PARENT,
    LW_NULL_OUT,
    LW_OFFSET_NEG,
    LW_OFFSET_PAST,
    LW_OFFSET_MAX,
    LW_COUNT_NEG,
    LW_COUNT_PAST,
    LW_COUNT_MAX,
    LW_LD_NEG,
    LW_GEN_PARENT
};

static int run_window(int v)
{
    int64_t off[1] = {3}, cnt[1] = {N1 - 5}, ld[1] = {0};
    redist_layout parent = Ls, w = garbage(), *pw = &w;
    switch (v) {
    case LW_OF_WINDOW:
        parent = Lw1;
        break;
    case LW_NULL_PARENT:
        parent = NULL;
        break;
    case LW_NULL_OUT:
        pw = NULL;
        break;
    case LW_OFFSET_NEG:
        off[0] = -1;
        break;
    case LW_OFFSET_PAST:
        off[0] = N1 + 1;
        break;
    case LW_OFFSET_MAX:
        off[0] = INT64_MAX;
        break;
    case LW_COUNT_NEG:
        cnt[0] = -1;
        break;
    case LW_COUNT_PAST:
        cnt[0] = N1 - 2;
        break;
    case LW_COUNT_MAX: /* offset + count overflows */
        cnt[0] = INT64_MAX;
        break;
    case LW_LD_NEG:
        ld[0] = -4;
        break;
    case LW_GEN_PARENT:
        parent = Lgen;
        break;
    }
    return layout_done(redist_layout_create_window(parent, off, cnt, ld, pw), pw);
}

enum {
    LG_OK,
    LG_NULL_SIZES,
    LG_ALL_GEN_NULL_BLOCK,
    LG_SIZE_NEG,
    LG_SUM_SHORT,
    LG_SUM_LONG,
    LG_SUM_OVERFLOW,
    LG_NULL_OUT,
    LG_NULL_BLOCK_CYCLIC,
    LG_FIRST,
    LG_RANKS_DUP,
    LG_NDIMS0,
    LG_GRID0
};

static int run_gen_block(int v)
{
    int64_t e[2] = {10, 8}, b[2] = {2, 3}, s0[3] = {4, 0, 6}, s1[2] = {5, 3};
    int g[2] = {3, 2}, f[2] = {0, 0}, r[6] = {0, 1, 2, 3, 4, 5}, nd = 2;
    const int64_t *sizes[2] = {s0, NULL};
    const int64_t *const *psz = sizes, *pb = b;
    redist_layout l = garbage(), *pl = &l;
    switch (v) {
    case LG_NULL_SIZES:
        psz = NULL;
        break;
    case LG_ALL_GEN_NULL_BLOCK:
        sizes[1] = s1;
        pb = NULL;
        break;
    case LG_SIZE_NEG:
        s0[1] = -1;
        s0[2] = 7;
        break;
    case LG_SUM_SHORT:
        s0[2] = 5;
        break;
    case LG_SUM_LONG:
        s0[2] = 7;
        break;
    case LG_SUM_OVERFLOW:
        s0[0] = s0[1] = s0[2] = REDIST_MAX_EXTENT;
        break;
    case LG_NULL_OUT:
        pl = NULL;
        break;
    case LG_NULL_BLOCK_CYCLIC: /* dimension 1 is cyclic and needs block[1] */
        pb = NULL;
        break;
    case LG_FIRST:
        f[0] = 3;
        break;
    case LG_RANKS_DUP:
        r[5] = 0;
        break;
    case LG_NDIMS0:
        nd = 0;
        break;
    case LG_GRID0:
        g[0] = 0;
        break;
    }
    return layout_done(
        redist_layout_create_gen_block(nd, e, pb, g, f, r, REDIST_ROW_MAJOR, psz, pl), pl);
}

enum {
    LA_SHAPE_NULL_LAYOUT,
    LA_SHAPE_NULL_OUT,
    LA_SHAPE_RANK_NEG,
    LA_SHAPE_OUTSIDE,
    LA_SIZE_NULL_LAYOUT,
    LA_SIZE_NULL_OUT,
    LA_SIZE_RANK_NEG,
    LA_SIZE_OUTSIDE,
    LA_NDIMS_NULL,
    LA_NPROCS_NULL,
    LA_COORDS_NULL_LAYOUT,
    LA_COORDS_NULL_OUT,
    LA_COORDS_RANK_NEG,
    LA_COORDS_OUTSIDE,
    LA_FREE_NULL,
    LA_FREE_NULL_HANDLE
};

static int run_layout_access(int v)
{
    int64_t shape[2] = {-7, -7}, count = -7;
    int coords[2] = {-7, -7}, rc;
    redist_layout null = NULL;
    switch (v) {
    case LA_SHAPE_NULL_LAYOUT:
        return redist_layout_local_shape(NULL, 0, shape);
    case LA_SHAPE_NULL_OUT:
        return redist_layout_local_shape(L2s, 0, NULL);
    case LA_SHAPE_RANK_NEG:
        return redist_layout_local_shape(L2s, -1, shape);
    case LA_SHAPE_OUTSIDE: /* a rank outside the layout holds nothing: zeros */
        rc = redist_layout_local_shape(L2s, size + 5, shape);
        return rc == REDIST_SUCCESS && (shape[0] != 0 || shape[1] != 0) ? NOT_AS_DOCUMENTED : rc;
    case LA_SIZE_NULL_LAYOUT:
        return redist_layout_local_size(NULL, 0, &count);
    case LA_SIZE_NULL_OUT:
        return redist_layout_local_size(L2s, 0, NULL);
    case LA_SIZE_RANK_NEG:
        return redist_layout_local_size(L2s, INT_MIN, &count);
    case LA_SIZE_OUTSIDE:
        rc = redist_layout_local_size(L2s, INT_MAX, &count);
        return rc == REDIST_SUCCESS && count != 0 ? NOT_AS_DOCUMENTED : rc;
    case LA_NDIMS_NULL:
        return redist_layout_ndims(NULL);
    case LA_NPROCS_NULL:
        return redist_layout_nprocs(NULL);
    case LA_COORDS_NULL_LAYOUT:
        return redist_layout_coords(NULL, 0, coords);
    case LA_COORDS_NULL_OUT:
        return redist_layout_coords(L2s, 0, NULL);
    case LA_COORDS_RANK_NEG: /* not in the layout: 0 */
        return redist_layout_coords(L2s, -1, coords);
    case LA_COORDS_OUTSIDE:
        return redist_layout_coords(L2s, INT_MAX, coords);
    case LA_FREE_NULL:
        return redist_layout_free(NULL);
    case LA_FREE_NULL_HANDLE:
        return redist_layout_free(&null);
    }
    return NOT_AS_DOCUMENTED;
}

/* ---- HPF index functions (local) ---------------------------------------------------------- */

enum {
    H_CHECK_NULL,
    H_KIND,
    H_N_NEG,
    H_P0,
    H_M_NEG,
    H_CYCLIC_M2,
    H_CYCLICM_M0,
    H_BLOCK_SMALL,
    H_HUGE_N,
    H_OWNER_NEG,
    H_OWNER_N,
    H_OWNER_BAD_D,
    H_LOCAL_NEG,
    H_LOCAL_N,
    H_LOCAL_NULL,
    H_GLOBAL_P_NEG,
    H_GLOBAL_P_BIG,
    H_GLOBAL_L_NEG,
    H_GLOBAL_L_BIG,
    H_COUNT_P_NEG,
    H_COUNT_P_BIG,
    H_COUNT_NULL,
    H_LAYOUT_NULL_OUT,
    H_LAYOUT_BAD_D,
    H_LAYOUT_RANKS_DUP,
    H_LAYOUT_HUGE
};

static int code64(int64_t r)
{
    return r < 0 ? (int)r : REDIST_SUCCESS;
}

static int run_hpf(int v)
{
    redist_hpf_dist d = {REDIST_HPF_CYCLIC_M, 20, 3, 4}, *pd_ = &d;
    int ranks[4] = {0, 1, 2, 3};
    redist_layout l = garbage(), *pl = &l;
    switch (v) {
    case H_CHECK_NULL:
        return redist_hpf_check(NULL);
    case H_KIND:
        d.kind = 7;
        return redist_hpf_check(&d);
    case H_N_NEG:
        d.n = -1;
        return redist_hpf_check(&d);
    case H_P0:
        d.P = 0;
        return redist_hpf_check(&d);
    case H_M_NEG:
        d.m = -3;
        return redist_hpf_check(&d);
    case H_CYCLIC_M2:
        d.kind = REDIST_HPF_CYCLIC;
        d.m = 2;
        return redist_hpf_check(&d);
    case H_CYCLICM_M0:
        d.m = 0;
        return redist_hpf_check(&d);
    case H_BLOCK_SMALL: /* BLOCK(4) over 4 processors cannot hold 20 */
        d.kind = REDIST_HPF_BLOCK;
        d.m = 4;
        return redist_hpf_check(&d);
    case H_HUGE_N: { /* legal: index math near INT64_MAX must not overflow */
        redist_hpf_dist h = {REDIST_HPF_BLOCK, INT64_MAX, 0, 3};
        int64_t g = INT64_MAX - 1, m = INT64_MAX / 3 + 1;
        int rc = redist_hpf_check(&h);
        if (rc == REDIST_SUCCESS &&
            (redist_hpf_owner(&h, g) != (int)(g / m) || redist_hpf_local(&h, g) != g % m ||
             redist_hpf_global(&h, 2, g % m) != g))
            return NOT_AS_DOCUMENTED;
        return rc;
    }
    case H_OWNER_NEG:
        return redist_hpf_owner(&d, -1);
    case H_OWNER_N:
        return redist_hpf_owner(&d, 20);
    case H_OWNER_BAD_D:
        d.P = -4;
        return redist_hpf_owner(&d, 0);
    case H_LOCAL_NEG:
        return code64(redist_hpf_local(&d, INT64_MIN));
    case H_LOCAL_N:
        return code64(redist_hpf_local(&d, INT64_MAX));
    case H_LOCAL_NULL:
        return code64(redist_hpf_local(NULL, 0));
    case H_GLOBAL_P_NEG:
        return code64(redist_hpf_global(&d, -1, 0));
    case H_GLOBAL_P_BIG:
        return code64(redist_hpf_global(&d, 4, 0));
    case H_GLOBAL_L_NEG:
        return code64(redist_hpf_global(&d, 0, -1));
    case H_GLOBAL_L_BIG: /* processor 0 holds 6 of 20 */
        return code64(redist_hpf_global(&d, 0, 6));
    case H_COUNT_P_NEG:
        return code64(redist_hpf_local_count(&d, INT_MIN));
    case H_COUNT_P_BIG:
        return code64(redist_hpf_local_count(&d, INT_MAX));
    case H_COUNT_NULL:
        return code64(redist_hpf_local_count(NULL, 0));
    case H_LAYOUT_NULL_OUT:
        pl = NULL;
        break;
    case H_LAYOUT_BAD_D:
        pd_ = NULL;
        break;
    case H_LAYOUT_RANKS_DUP:
        ranks[3] = 0;
        break;
    case H_LAYOUT_HUGE: /* a legal distribution, too large for a layout (2^62) */
        d.n = INT64_MAX;
        break;
    }
    return layout_done(redist_hpf_layout(pd_, ranks, pl), pl);
}

/* ---- BMMC matrices (local) --------------------------------------------------------------- */

enum {
    BX_IDENT_NEG,
    BX_IDENT_65,
    BX_IDENT_NULL,
    BX_IDENT_NULL_N0,
    BX_TRANS_NEG,
    BX_TRANS_BIG,
    BX_TRANS_NULL,
    BX_BITREV_N,
    BX_VREV_NULL_C,
    BX_GRAY_N,
    BX_GRAYINV_NULL,
    BX_SHUFFLE_N,
    BX_SHUFFLE_KMIN,
    BX_LAYOUT_P_BIG,
    BX_LAYOUT_P_NEG,
    BX_LAYOUT_F_BIG,
    BX_LAYOUT_F_NEG,
    BX_LAYOUTINV_F_BIG,
    BX_COMPOSE_STRAY,
    BX_COMPOSE_C_STRAY,
    BX_COMPOSE_NULL_B,
    BX_COMPOSE_NULL_COUT,
    BX_INVERSE_SINGULAR,
    BX_INVERSE_NULL_OUT,
    BX_RANK_NULL,
    BX_RANK_STRAY,
    BX_RANK_N,
    BX_APPLY_BAD
};

static int run_bmmc_matrix(int v)
{
    uint64_t a[64], b[64], out[64], c = 0;
    redist_bmmc_identity(10, a);
    redist_bmmc_identity(10, b);
    switch (v) {
    case BX_IDENT_NEG:
        return redist_bmmc_identity(-1, out);
    case BX_IDENT_65:
        return redist_bmmc_identity(65, out);
    case BX_IDENT_NULL:
        return redist_bmmc_identity(10, NULL);
    case BX_IDENT_NULL_N0: /* an empty matrix needs no storage */
        return redist_bmmc_identity(0, NULL);
    case BX_TRANS_NEG:
        return redist_bmmc_transpose(-1, 3, out);
    case BX_TRANS_BIG:
        return redist_bmmc_transpose(40, 30, out);
    case BX_TRANS_NULL:
        return redist_bmmc_transpose(2, 3, NULL);
    case BX_BITREV_N:
        return redist_bmmc_bit_reversal(INT_MAX, out);
    case BX_VREV_NULL_C:
        return redist_bmmc_vector_reversal(10, out, NULL);
    case BX_GRAY_N:
        return redist_bmmc_gray(-5, out);
    case BX_GRAYINV_NULL:
        return redist_bmmc_gray_inverse(4, NULL);
    case BX_SHUFFLE_N:
        return redist_bmmc_shuffle(70, 1, out);
    case BX_SHUFFLE_KMIN: /* any k is legal, INT_MIN too */
        return redist_bmmc_shuffle(10, INT_MIN, out);
    case BX_LAYOUT_P_BIG:
        return redist_bmmc_layout(5, 6, 0, out);
    case BX_LAYOUT_P_NEG:
        return redist_bmmc_layout(5, -1, 0, out);
    case BX_LAYOUT_F_BIG:
        return redist_bmmc_layout(10, 3, 8, out);
    case BX_LAYOUT_F_NEG:
        return redist_bmmc_layout(10, 3, -1, out);
    case BX_LAYOUTINV_F_BIG:
        return redist_bmmc_layout_inverse(10, 3, INT_MAX, out);
    case BX_COMPOSE_STRAY:
        a[3] |= (uint64_t)1 << 10;
        return redist_bmmc_compose(10, a, 0, b, 0, out, &c);
    case BX_COMPOSE_C_STRAY:
        return redist_bmmc_compose(10, a, (uint64_t)1 << 63, b, 0, out, &c);
    case BX_COMPOSE_NULL_B:
        return redist_bmmc_compose(10, a, 0, NULL, 0, out, &c);
    case BX_COMPOSE_NULL_COUT:
        return redist_bmmc_compose(10, a, 0, b, 0, out, NULL);
    case BX_INVERSE_SINGULAR:
        a[4] = a[5];
        return redist_bmmc_inverse(10, a, 0, out, &c);
    case BX_INVERSE_NULL_OUT:
        return redist_bmmc_inverse(10, a, 0, NULL, &c);
    case BX_RANK_NULL:
        return redist_bmmc_rank(10, NULL);
    case BX_RANK_STRAY:
        a[9] = ~(uint64_t)0;
        return redist_bmmc_rank(10, a);
    case BX_RANK_N:
        return redist_bmmc_rank(-1, a);
    case BX_APPLY_BAD: /* no code to return: bad n or a NULL matrix gives c, never a crash */
        return redist_bmmc_apply(-1, a, 5, 3) == 5 && redist_bmmc_apply(65, a, 6, 3) == 6 &&
                       redist_bmmc_apply(10, NULL, 7, 3) == 7
                   ? REDIST_SUCCESS
                   : NOT_AS_DOCUMENTED;
    }
    return NOT_AS_DOCUMENTED;
}

/* ---- the basic operations' tables (local) --------------------------------------------------- */

enum {
    CP_NAME_NULL_OP,
    CP_NAME_UNKNOWN_OP,
    CP_NAME_NEG,
    CP_NAME_PAST,
    CP_PRED_NULL_OP,
    CP_PRED_UNKNOWN_OP,
    CP_PRED_P0,
    CP_PRED_M_NEG,
    CP_PRED_TS_NAN,
    CP_PRED_TW_NEG,
    CP_PRED_NULL_SECONDS,
    CP_PRED_UNKNOWN_ALG,
    CP_PRED_HYPERCUBE_P3,
    CP_PRED_NULL_CHOSEN
};

static int run_coll_tables(int v)
{
    double sec = 0;
    const char *chosen = NULL;
    switch (v) {
    case CP_NAME_NULL_OP:
        return redist_coll_algorithm_name(NULL, 0) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case CP_NAME_UNKNOWN_OP:
        return redist_coll_algorithm_name("bcastx", 0) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case CP_NAME_NEG:
        return redist_coll_algorithm_name("bcast", -1) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case CP_NAME_PAST:
        return redist_coll_algorithm_name("bcast", INT_MAX) == NULL ? REDIST_SUCCESS
                                                                    : NOT_AS_DOCUMENTED;
    case CP_PRED_NULL_OP:
        return redist_coll_predict(NULL, NULL, 4, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_UNKNOWN_OP:
        return redist_coll_predict("broadcast", NULL, 4, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_P0:
        return redist_coll_predict("bcast", NULL, 0, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_M_NEG:
        return redist_coll_predict("bcast", NULL, 4, -8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_TS_NAN:
        return redist_coll_predict("bcast", NULL, 4, 8, NAN, 1e-9, &sec, &chosen);
    case CP_PRED_TW_NEG:
        return redist_coll_predict("bcast", NULL, 4, 8, 1e-6, -1e-9, &sec, &chosen);
    case CP_PRED_NULL_SECONDS:
        return redist_coll_predict("bcast", NULL, 4, 8, 1e-6, 1e-9, NULL, &chosen);
    case CP_PRED_UNKNOWN_ALG:
        return redist_coll_predict("bcast", "binomial", 4, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_HYPERCUBE_P3:
        return redist_coll_predict("reduce_scatter", "hypercube", 3, 8, 1e-6, 1e-9, &sec, &chosen);
    case CP_PRED_NULL_CHOSEN:
        return redist_coll_predict("bcast", "auto", 4, 8, 1e-6, 1e-9, &sec, NULL);
    }
    return NOT_AS_DOCUMENTED;
}

/* ---- redist_plan_create ------------------------------------------------------------------ */

enum {
    PC_OK,
    PC_NULL_OPT,
    PC_SAME_LAYOUT,
    PC_NULL_PLAN,
    PC_NULL_PLAN_LAST,
    PC_NULL_SRC,
    PC_NULL_DST_LAST,
    PC_TYPE_NULL,
    PC_TYPE_NULL_LAST,
    PC_TYPE_VECTOR,
    PC_TYPE_RESIZED,
    PC_TYPE_PADDED,
    PC_TYPE_VECTOR_LAST,
    PC_TYPE_UNCOMMITTED,
    PC_TYPE_UNCOMMITTED_EXEC,
    PC_COMM_NULL,
    PC_COMM_INTER,
    PC_COMM_SELF,
    PC_RANK_BEYOND,
    PC_RANK_BEYOND_LAST,
    PC_SHAPES,
    PC_NDIMS,
    PC_LD_SMALL_LAST,
    PC_ALG_UNKNOWN,
    PC_ALG_EMPTY,
    PC_ALG_CASE,
    PC_ALG_UNKNOWN_LAST,
    PC_ALG_NA,
    PC_OPT_CHECK,
    PC_OPT_SHM,
    PC_OPT_TRANSPORT,
    PC_OPT_TRANSPORT_NEG,
    PC_OPT_HYBRID,
    PC_OPT_BMMC_METHOD,
    PC_OPT_SYNC,
    PC_OPT_CONJ,
    PC_OPT_MAXBUF_NEG,
    PC_OPT_MAXBUF_ONE,
    PC_OPT_MAXBUF_DATATYPE,
    PC_OPT_MAXBUF_NA,
    PC_OPT_A2A_UNKNOWN,
    PC_PERM_OK,
    PC_PERM_RANGE,
    PC_PERM_DUP,
    PC_PERM_SHAPE,
    PC_ALPHA_INT,
    PC_CONJ_INT,
    PC_ALPHA_IMAG_REAL,
    PC_ALPHA_DATATYPE,
    PC_ALPHA_ALLTOALLW,
    PC_D_SRC_BLOCK,
    PC_D_SRC_RANKS,
    PC_D_SRC_FIRST,
    PC_D_SRC_ORDER,
    PC_D_EXTENT,
    PC_D_DST_GRID,
    PC_D_NDIMS,
    PC_D_GEN,
    PC_D_WINDOW,
    PC_D_LD,
    PC_D_TYPE_SIZE,
    PC_D_TYPE_SAME_SIZE,
    PC_D_ALG,
    PC_D_ALG_AUTO,
    PC_D_OPT_NULL,
    PC_D_CHECK,
    PC_D_SHM,
    PC_D_TRANSPORT,
    PC_D_MAXBUF,
    PC_D_HYBRID,
    PC_D_BMMC_METHOD,
    PC_D_SYNC,
    PC_D_A2A,
    PC_D_A2A_NULL,
    PC_D_PERM,
    PC_D_PERM_IDENTITY,
    PC_D_ALPHA,
    PC_D_BETA,
    PC_D_CONJ,
    PC_TWO_ERRORS,
    PC_ERROR_AND_MISMATCH
};

static int run_plan_create(int v)
{
    static const int perm10[2] = {1, 0}, perm01[2] = {0, 1}, perm00[2] = {0, 0}, perm02[2] = {0, 2};
    redist_layout s = Ls, d = Ld;
    MPI_Datatype t = MPI_INT;
    MPI_Comm c = MPI_COMM_WORLD;
    redist_options o;
    redist_options_init(&o);
    const redist_options *po = &o;
    redist_plan plan = garbage(), *pp = &plan;
    int L = rank == last; /* the rank whose argument differs */
    switch (v) {
    case PC_NULL_OPT:
        po = NULL;
        break;
    case PC_SAME_LAYOUT:
        d = s;
        break;
    case PC_NULL_PLAN:
        pp = NULL;
        break;
    case PC_NULL_PLAN_LAST:
        pp = L ? NULL : pp;
        break;
    case PC_NULL_SRC:
        s = NULL;
        break;
    case PC_NULL_DST_LAST:
        d = L ? NULL : d;
        break;
    case PC_TYPE_NULL:
        t = MPI_DATATYPE_NULL;
        break;
    case PC_TYPE_NULL_LAST:
        t = L ? MPI_DATATYPE_NULL : t;
        break;
    case PC_TYPE_VECTOR:
        t = T_vec;
        break;
    case PC_TYPE_RESIZED:
        t = T_resized;
        break;
    case PC_TYPE_PADDED:
        t = MPI_DOUBLE_INT;
        break;
    case PC_TYPE_VECTOR_LAST:
        t = L ? T_vec : t;
        break;
    case PC_TYPE_UNCOMMITTED:
        t = T_uncommitted;
        break;
    case PC_TYPE_UNCOMMITTED_EXEC: { /* alltoallv hands the plan's type to MPI */
        o.algorithm = "alltoallv";
        int rc = plan_done(redist_plan_create(s, d, T_uncommitted, c, &o, pp), NULL);
        if (all_ranks(rc == REDIST_SUCCESS)) {
            rc = redist_execute(plan, S, D);
            redist_plan_free(&plan);
        }
        return rc;
    }
    case PC_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case PC_COMM_INTER:
        c = inter;
        break;
    case PC_COMM_SELF:
        c = MPI_COMM_SELF;
        break;
    case PC_RANK_BEYOND:
        s = L_beyond;
        break;
    case PC_RANK_BEYOND_LAST:
        d = L ? L_beyond : d;
        break;
    case PC_SHAPES:
        d = Ld_n1;
        break;
    case PC_NDIMS:
        d = L2d;
        break;
    case PC_LD_SMALL_LAST:
        s = L ? L2s_ld_small : L2s;
        d = L2d;
        break;
    case PC_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case PC_ALG_EMPTY:
        o.algorithm = "";
        break;
    case PC_ALG_CASE:
        o.algorithm = "DIRECT";
        break;
    case PC_ALG_UNKNOWN_LAST:
        o.algorithm = L ? "no-such-algorithm" : "direct";
        break;
    case PC_ALG_NA: /* a layout pair is no BMMC permutation */
        o.algorithm = "bmmc";
        break;
    case PC_OPT_CHECK:
        o.check_arguments = 42;
        break;
    case PC_OPT_SHM:
        o.shared_memory = 2;
        break;
    case PC_OPT_TRANSPORT:
        o.transport = 7;
        break;
    case PC_OPT_TRANSPORT_NEG:
        o.transport = -1;
        break;
    case PC_OPT_HYBRID:
        o.hybrid_degree = -5;
        break;
    case PC_OPT_BMMC_METHOD:
        o.bmmc_method = 3;
        break;
    case PC_OPT_SYNC:
        o.synchronous_receive = -1;
        break;
    case PC_OPT_CONJ:
        o.conjugate = 2;
        break;
    case PC_OPT_MAXBUF_NEG:
        o.max_buffer_bytes = INT64_MIN;
        break;
    case PC_OPT_MAXBUF_ONE:
        o.max_buffer_bytes = 1;
        break;
    case PC_OPT_MAXBUF_DATATYPE:
        o.max_buffer_bytes = 4096;
        o.transport = REDIST_TRANSPORT_DATATYPE;
        break;
    case PC_OPT_MAXBUF_NA:
        o.max_buffer_bytes = 4096;
        o.algorithm = "alltoallv";
        break;
    case PC_OPT_A2A_UNKNOWN:
        o.algorithm = "alltoall-padded";
        o.alltoall_algorithm = "bogus";
        break;
    case PC_PERM_OK:
        s = L2s;
        d = L2t;
        o.permutation = perm10;
        break;
    case PC_PERM_RANGE:
        s = L2s;
        d = L2t;
        o.permutation = perm02;
        break;
    case PC_PERM_DUP:
        s = L2s;
        d = L2t;
        o.permutation = perm00;
        break;
    case PC_PERM_SHAPE:
        s = L2s;
        d = L2d;
        o.permutation = perm10;
        break;
    case PC_ALPHA_INT:
        o.alpha[0] = 2;
        break;
    case PC_CONJ_INT:
        o.conjugate = 1;
        break;
    case PC_ALPHA_IMAG_REAL:
        t = MPI_DOUBLE;
        o.alpha[1] = 1;
        break;
    case PC_ALPHA_DATATYPE:
        t = MPI_DOUBLE;
        o.alpha[0] = 2;
        o.transport = REDIST_TRANSPORT_DATATYPE;
        break;
    case PC_ALPHA_ALLTOALLW:
        t = MPI_DOUBLE;
        o.alpha[0] = 2;
        o.algorithm = "alltoallw";
        break;
    case PC_D_SRC_BLOCK:
        s = L ? Ls_b5 : s;
        break;
    case PC_D_SRC_RANKS:
        s = L ? Ls_rev : s;
        break;
    case PC_D_SRC_FIRST:
        s = L ? Ls_first : s;
        break;
    case PC_D_SRC_ORDER:
        s = L ? Ls_col : s;
        break;
    case PC_D_EXTENT:
        s = L ? Ls_n1 : s;
        d = L ? Ld_n1 : d;
        break;
    case PC_D_DST_GRID:
        d = L ? Ld_sub : d;
        break;
    case PC_D_NDIMS:
        s = L ? L2s : s;
        d = L ? L2d : d;
        break;
    case PC_D_GEN:
        s = L ? Lgen2 : Lgen;
        break;
    case PC_D_WINDOW:
        s = L ? Lw2 : Lw1;
        break;
    case PC_D_LD: /* each rank's own padding: legal */
        s = L2s_ld;
        d = L2d;
        break;
    case PC_D_TYPE_SIZE:
        t = L ? MPI_DOUBLE : t;
        break;
    case PC_D_TYPE_SAME_SIZE: /* the element size is compared, not the type: legal */
        t = L ? MPI_FLOAT : t;
        break;
    case PC_D_ALG:
        o.algorithm = L ? "direct" : "direct-async";
        break;
    case PC_D_ALG_AUTO: /* NULL and "auto" are the same choice: legal */
        o.algorithm = L ? NULL : "auto";
        break;
    case PC_D_OPT_NULL: /* NULL options and initialised defaults agree: legal */
        po = L ? NULL : po;
        break;
    case PC_D_CHECK:
        o.check_arguments = !L;
        break;
    case PC_D_SHM:
        o.shared_memory = !L;
        break;
    case PC_D_TRANSPORT:
        o.transport = L ? REDIST_TRANSPORT_PACK : REDIST_TRANSPORT_DATATYPE;
        break;
    case PC_D_MAXBUF:
        o.max_buffer_bytes = L ? 4096 : 0;
        break;
    case PC_D_HYBRID:
        o.hybrid_degree = L ? 2 : -1;
        break;
    case PC_D_BMMC_METHOD:
        o.bmmc_method = L ? 1 : 0;
        break;
    case PC_D_SYNC:
        o.synchronous_receive = L;
        break;
    case PC_D_A2A:
        o.algorithm = "alltoall-padded";
        o.alltoall_algorithm = L ? "ring" : "pairwise";
        break;
    case PC_D_A2A_NULL:
        o.algorithm = "alltoall-padded";
        o.alltoall_algorithm = L ? NULL : "auto";
        break;
    case PC_D_PERM:
        s = Lsq_s;
        d = Lsq_d;
        o.permutation = L ? perm10 : NULL;
        break;
    case PC_D_PERM_IDENTITY: /* the same effect, compared as given */
        s = Lsq_s;
        d = Lsq_d;
        o.permutation = L ? perm01 : NULL;
        break;
    case PC_D_ALPHA:
        t = MPI_DOUBLE;
        o.alpha[0] = L ? 2 : 1;
        break;
    case PC_D_BETA:
        t = MPI_DOUBLE;
        o.beta[0] = L ? 1 : 0;
        break;
    case PC_D_CONJ:
        t = MPI_C_DOUBLE_COMPLEX;
        o.conjugate = L;
        break;
    case PC_TWO_ERRORS: /* ARG on rank 0, UNKNOWN_ALGORITHM on the last: the smallest code */
        s = rank == 0 ? NULL : s;
        o.algorithm = L ? "no-such-algorithm" : NULL;
        break;
    case PC_ERROR_AND_MISMATCH: /* a bad argument on one rank beats a difference elsewhere */
        s = rank == 0 ? Ls_b5 : s;
        pp = L ? NULL : pp;
        break;
    }
    return plan_done(redist_plan_create(s, d, t, c, po, pp), pp);
}

/* ---- redist_plan_create_inter ------------------------------------------------------------ */

enum {
    IN_OK,
    IN_INTRA,
    IN_COMM_NULL,
    IN_IS_SOURCE_2,
    IN_IS_SOURCE_2_LAST,
    IN_BOTH_SOURCE,
    IN_SWAPPED,
    IN_MIXED,
    IN_IS_SOURCE_2_RANK0,
    IN_SRC_BEYOND,
    IN_NULL_PLAN,
    IN_NULL_DST_LAST,
    IN_D_BLOCK,
    IN_ALG_UNKNOWN,
    IN_TYPE_NULL_LAST,
    IN_OPT_BAD
};

static int run_inter(int v)
{
    redist_layout s = LIs, d = LId;
    MPI_Comm c = inter;
    int src = is_src, L = rank == last;
    redist_options o;
    redist_options_init(&o);
    MPI_Datatype t = MPI_INT;
    redist_plan plan = garbage(), *pp = &plan;
    switch (v) {
    case IN_INTRA:
        c = MPI_COMM_WORLD;
        break;
    case IN_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case IN_IS_SOURCE_2:
        src = is_src ? 2 : 0;
        break;
    case IN_IS_SOURCE_2_LAST: /* the last rank is in the destination group */
        src = L ? 2 : src;
        break;
    case IN_BOTH_SOURCE:
        src = 1;
        break;
    case IN_SWAPPED: /* both groups claim the other side: legal, the plan goes the other way */
        src = !is_src;
        s = LId;
        d = LIs;
        break;
    case IN_MIXED: /* rank 1 (source group, with rank 0) claims the destination side */
        src = rank == 1 ? 0 : src;
        break;
    case IN_IS_SOURCE_2_RANK0: /* rank 0 shares the source group with rank 1 */
        src = rank == 0 ? 2 : src;
        break;
    case IN_SRC_BEYOND:
        s = LIs_beyond;
        break;
    case IN_NULL_PLAN:
        pp = NULL;
        break;
    case IN_NULL_DST_LAST:
        d = L ? NULL : d;
        break;
    case IN_D_BLOCK:
        s = L ? LIs_b5 : s;
        break;
    case IN_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case IN_TYPE_NULL_LAST:
        t = L ? MPI_DATATYPE_NULL : t;
        break;
    case IN_OPT_BAD:
        o.transport = 9;
        break;
    }
    return plan_done(redist_plan_create_inter(s, d, t, c, src, &o, pp), pp);
}

/* ---- redist_plan_create_batch ------------------------------------------------------------ */

enum {
    BC_OK,
    BC_COUNT0,
    BC_COUNT_NEG,
    BC_NULL_SRC,
    BC_NULL_TYPES,
    BC_NULL_PLAN,
    BC_NULL_PLAN_LAST,
    BC_COUNT_DIFFERS,
    BC_COUNT0_LAST,
    BC_ALG_DIRECT,
    BC_ALG_UNKNOWN,
    BC_MAXBUF,
    BC_DATATYPE,
    BC_TYPE_NULL_ELEM,
    BC_LAYOUT_NULL_ELEM,
    BC_TYPE_VECTOR_ELEM,
    BC_SHAPES_ELEM,
    BC_COMM_NULL,
    BC_COMM_INTER,
    BC_OPT_CHECK,
    BC_OPT_TRANSPORT,
    BC_OPT_SHM,
    BC_D_TYPE,
    BC_D_LAYOUT,
    BC_D_CHECK,
    BC_D_ALPHA,
    BC_D_ALG
};

static int run_batch_create(int v)
{
    redist_layout src[3] = {Ls, Ld, Ls}, dst[3] = {Ld, Ls, Ld};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
    const redist_layout *ps_ = src, *pd_ = dst;
    const MPI_Datatype *pt = types;
    int count = 2, L = rank == last;
    MPI_Comm c = MPI_COMM_WORLD;
    redist_options o;
    redist_options_init(&o);
    redist_plan plan = garbage(), *pp = &plan;
    switch (v) {
    case BC_COUNT0:
        count = 0;
        break;
    case BC_COUNT_NEG:
        count = INT_MIN;
        break;
    case BC_NULL_SRC:
        ps_ = NULL;
        break;
    case BC_NULL_TYPES:
        pt = NULL;
        break;
    case BC_NULL_PLAN:
        pp = NULL;
        break;
    case BC_NULL_PLAN_LAST:
        pp = L ? NULL : pp;
        break;
    case BC_COUNT_DIFFERS:
        count = L ? 3 : 2;
        break;
    case BC_COUNT0_LAST:
        count = L ? 0 : 2;
        break;
    case BC_ALG_DIRECT:
        o.algorithm = "direct";
        break;
    case BC_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case BC_MAXBUF:
        o.max_buffer_bytes = 4096;
        break;
    case BC_DATATYPE:
        o.transport = REDIST_TRANSPORT_DATATYPE;
        break;
    case BC_TYPE_NULL_ELEM:
        types[1] = MPI_DATATYPE_NULL;
        break;
    case BC_LAYOUT_NULL_ELEM:
        dst[1] = L ? NULL : dst[1];
        break;
    case BC_TYPE_VECTOR_ELEM:
        types[0] = T_vec;
        break;
    case BC_SHAPES_ELEM:
        dst[1] = Ld_n1;
        break;
    case BC_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case BC_COMM_INTER:
        c = inter;
        break;
    case BC_OPT_CHECK:
        o.check_arguments = 42;
        break;
    case BC_OPT_TRANSPORT:
        o.transport = 7;
        break;
    case BC_OPT_SHM:
        o.shared_memory = -1;
        break;
    case BC_D_TYPE:
        types[1] = L ? MPI_FLOAT : types[1];
        break;
    case BC_D_LAYOUT:
        src[1] = L ? Ls_rev : src[1];
        dst[1] = L ? Ls_rev : dst[1];
        break;
    case BC_D_CHECK: /* execute's agreement is one collective the ranks must all make */
        o.check_arguments = !L;
        break;
    case BC_D_ALPHA:
        types[0] = MPI_DOUBLE;
        o.alpha[0] = L ? 3 : 1;
        break;
    case BC_D_ALG:
        o.algorithm = L ? "direct-async" : "auto";
        break;
    }
    return plan_done(redist_plan_create_batch(count, ps_, pd_, pt, c, &o, pp), pp);
}

/* ---- redist_plan_create_bmmc ------------------------------------------------------------- */

enum {
    BM_OK,
    BM_NOT_POW2,
    BM_N_LT_P,
    BM_N_NEG,
    BM_N_65,
    BM_N_64,
    BM_N_62,
    BM_N_HUGE,
    BM_F_NEG,
    BM_F_BIG,
    BM_COLS_NULL,
    BM_SINGULAR,
    BM_STRAY,
    BM_COMPL_STRAY,
    BM_NULL_PLAN,
    BM_ALG_NA,
    BM_ALG_UNKNOWN,
    BM_OPT_PERM,
    BM_OPT_ALPHA,
    BM_OPT_METHOD,
    BM_TYPE_NULL,
    BM_TYPE_VECTOR,
    BM_COMM_NULL,
    BM_COMM_INTER,
    BM_D_COLS,
    BM_D_N,
    BM_D_F,
    BM_D_COMPL,
    BM_D_METHOD,
    BM_D_TYPE,
    BM_SINGULAR_LAST
};

static int run_bmmc_plan(int v)
{
    static const int perm[1] = {0};
    uint64_t cols[64];
    int n = bmmc_n > 0 ? bmmc_n : 8, f = 0, L = rank == last, lg = 0;
    while ((1 << lg) < size)
        lg++;
    uint64_t comp = 0;
    redist_bmmc_identity(n, cols);
    const uint64_t *pc = cols;
    MPI_Datatype t = MPI_DOUBLE;
    MPI_Comm c = MPI_COMM_WORLD;
    redist_options o;
    redist_options_init(&o);
    redist_plan plan = garbage(), *pp = &plan;
    switch (v) {
    case BM_N_LT_P:
        n = 0;
        break;
    case BM_N_NEG:
        n = -1;
        break;
    case BM_N_65:
        n = 65;
        break;
    case BM_N_64: /* 2^64 elements: more than an array may have */
        n = 64;
        redist_bmmc_identity(n, cols);
        break;
    case BM_N_62: /* 2^62 doubles: more bytes than int64_t counts */
        n = 62;
        redist_bmmc_identity(n, cols);
        break;
    case BM_N_HUGE: /* 2^50 doubles */
        n = 50;
        redist_bmmc_identity(n, cols);
        break;
    case BM_F_NEG:
        f = -1;
        break;
    case BM_F_BIG:
        f = n - lg + 1;
        break;
    case BM_COLS_NULL:
        pc = NULL;
        break;
    case BM_SINGULAR:
        cols[1] = cols[0];
        break;
    case BM_STRAY:
        cols[0] |= (uint64_t)1 << n;
        break;
    case BM_COMPL_STRAY:
        comp = (uint64_t)1 << 63;
        break;
    case BM_NULL_PLAN:
        pp = NULL;
        break;
    case BM_ALG_NA:
        o.algorithm = "direct";
        break;
    case BM_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case BM_OPT_PERM:
        o.permutation = perm;
        break;
    case BM_OPT_ALPHA:
        o.alpha[0] = 2;
        break;
    case BM_OPT_METHOD:
        o.bmmc_method = 3;
        break;
    case BM_TYPE_NULL:
        t = MPI_DATATYPE_NULL;
        break;
    case BM_TYPE_VECTOR:
        t = T_vec;
        break;
    case BM_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case BM_COMM_INTER:
        c = inter;
        break;
    case BM_D_COLS: /* a permutation of the local bits on the last rank */
        if (L) {
            uint64_t x = cols[0];
            cols[0] = cols[1];
            cols[1] = x;
        }
        break;
    case BM_D_N:
        n = L ? n + 1 : n;
        redist_bmmc_identity(n, cols);
        break;
    case BM_D_F:
        f = L ? 1 : 0;
        break;
    case BM_D_COMPL:
        comp = L ? 1 : 0;
        break;
    case BM_D_METHOD:
        o.bmmc_method = L ? 2 : 0;
        break;
    case BM_D_TYPE:
        t = L ? MPI_INT : t;
        break;
    case BM_SINGULAR_LAST:
        cols[1] = L ? cols[0] : cols[1];
        break;
    }
    return plan_done(redist_plan_create_bmmc(n, f, pc, comp, t, c, &o, pp), pp);
}

/* ---- redist_relabel ------------------------------------------------------------------------ */

enum {
    RL_OK,
    RL_NULL_KEPT_MOVED,
    RL_NULL_SRC,
    RL_NULL_DST,
    RL_NULL_OUT,
    RL_NULL_OUT_LAST,
    RL_SHAPES,
    RL_BEYOND,
    RL_COMM_NULL,
    RL_COMM_INTER,
    RL_D_DST,
    RL_D_SRC
};

static int run_relabel(int v)
{
    int *out = malloc(sizeof(int) * (size_t)(size + 1));
    int64_t kept = -1, moved = -1, *pk = &kept, *pm = &moved;
    redist_layout s = Ls, d = Ld;
    MPI_Comm c = MPI_COMM_WORLD;
    int *po = out, L = rank == last;
    switch (v) {
    case RL_NULL_KEPT_MOVED:
        pk = pm = NULL;
        break;
    case RL_NULL_SRC:
        s = NULL;
        break;
    case RL_NULL_DST:
        d = NULL;
        break;
    case RL_NULL_OUT:
        po = NULL;
        break;
    case RL_NULL_OUT_LAST:
        po = L ? NULL : po;
        break;
    case RL_SHAPES:
        d = Ld_n1;
        break;
    case RL_BEYOND:
        d = L_beyond;
        break;
    case RL_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case RL_COMM_INTER:
        c = inter;
        break;
    case RL_D_DST: /* a different number of positions on the last rank */
        d = L ? Ld_sub : d;
        break;
    case RL_D_SRC:
        s = L ? Ls_b5 : s;
        break;
    }
    int rc = redist_relabel(s, d, c, po, pk, pm);
    free(out);
    return rc;
}

/* ---- execute, start + wait, start + test ------------------------------------------------ */

enum {
    EX_OK,
    EX_NULL_PLAN,
    EX_NULL_SRC,
    EX_NULL_SRC_LAST,
    EX_NULL_DST_LAST,
    EX_IN_PLACE_SRC,
    EX_IN_PLACE_DST_LAST,
    EX_OVERLAP,
    EX_OVERLAP_LAST,
    EX_NOCHECK,
    EX_BMMC_NULL,
    EX_BMMC_IN_PLACE_LAST
};
enum { VIA_EXECUTE = 0, VIA_WAIT = 100, VIA_TEST = 200 };

static int run_execute(int v)
{
    int via = v / 100 * 100, what = v % 100, L = rank == last;
    redist_plan p = P;
    const void *s = S;
    void *d = D;
    switch (what) {
    case EX_NULL_PLAN:
        p = NULL;
        break;
    case EX_NULL_SRC:
        s = NULL;
        break;
    case EX_NULL_SRC_LAST:
        s = L ? NULL : s;
        break;
    case EX_NULL_DST_LAST:
        d = L ? NULL : d;
        break;
    case EX_IN_PLACE_SRC:
        s = MPI_IN_PLACE;
        break;
    case EX_IN_PLACE_DST_LAST:
        d = L ? MPI_IN_PLACE : d;
        break;
    case EX_OVERLAP:
        d = S;
        break;
    case EX_OVERLAP_LAST:
        d = L ? S : d;
        break;
    case EX_NOCHECK: /* check_arguments = 0: bad on every rank, so no rank waits */
        p = P_nocheck;
        s = NULL;
        break;
    case EX_BMMC_NULL:
        p = PBM;
        s = NULL;
        d = bmd;
        break;
    case EX_BMMC_IN_PLACE_LAST:
        p = PBM;
        s = bms;
        d = L ? MPI_IN_PLACE : bmd;
        break;
    }
    int rc;
    if (via == VIA_EXECUTE) {
        rc = redist_execute(p, s, d);
    } else {
        rc = redist_start(p, s, d);
        if (!all_ranks(rc == REDIST_SUCCESS) && !all_ranks(rc != REDIST_SUCCESS)) {
            fail("redist_start returned %s here, not the same on every rank",
                 redist_error_name(rc));
            if (rc == REDIST_SUCCESS) /* the others are not in the exchange: it cannot end */
                return rc;
        }
        if (rc == REDIST_SUCCESS && via == VIA_WAIT) {
            rc = redist_wait(p);
        } else if (rc == REDIST_SUCCESS) {
            int done = 0;
            while (rc == REDIST_SUCCESS && !done)
                rc = redist_test(p, &done);
        }
    }
    if (p != NULL)
        expect_idle(p);
    return rc;
}

/* ---- plan state: busy, idle, freed -------------------------------------------------------- */

enum {
    ST_START_TWICE,
    ST_EXECUTE_WHILE_BUSY,
    ST_START_BATCH_TWICE,
    ST_TEST_NULL_DONE,
    ST_TEST_NULL_DONE_BUSY,
    ST_TEST_NULL_PLAN,
    ST_WAIT_NULL_PLAN,
    ST_TEST_IDLE,
    ST_WAIT_IDLE,
    ST_WAIT_TWICE,
    ST_FREE_ACTIVE,
    ST_USE_AFTER_FREE,
    ST_START_ON_BATCH,
    ST_EXECUTE_ON_BATCH,
    ST_START_BATCH_ON_PLAIN,
    ST_EXECUTE_BATCH_ON_PLAIN,
    ST_STATS_NULL_PLAN,
    ST_STATS_NULL_OUT,
    ST_ALGORITHM_NULL,
    ST_FREE_NULL,
    ST_FREE_NULL_HANDLE
};

static int run_state(int v)
{
    const void *bsrc[2] = {bs0, bs1};
    void *bdst[2] = {bd0, bd1};
    int rc = REDIST_SUCCESS, done = 0;
    redist_plan q = NULL;
    redist_stats st;
    switch (v) {
    case ST_START_TWICE:
    case ST_EXECUTE_WHILE_BUSY:
    case ST_TEST_NULL_DONE_BUSY:
        if (redist_start(P, S, D) != REDIST_SUCCESS) {
            fail("redist_start failed: %s", redist_last_error_detail());
            return NOT_AS_DOCUMENTED;
        }
        rc = v == ST_START_TWICE          ? redist_start(P, S2, D2)
             : v == ST_EXECUTE_WHILE_BUSY ? redist_execute(P, S2, D2)
                                          : redist_test(P, NULL);
        if (redist_wait(P) != REDIST_SUCCESS)
            fail("the first execution did not complete: %s", redist_last_error_detail());
        expect_idle(P);
        return rc;
    case ST_START_BATCH_TWICE:
        if (redist_start_batch(PB, bsrc, bdst) != REDIST_SUCCESS) {
            fail("redist_start_batch failed: %s", redist_last_error_detail());
            return NOT_AS_DOCUMENTED;
        }
        rc = redist_start_batch(PB, bsrc, bdst);
        if (redist_wait(PB) != REDIST_SUCCESS)
            fail("the first execution did not complete: %s", redist_last_error_detail());
        expect_idle(PB);
        return rc;
    case ST_TEST_NULL_DONE:
        return redist_test(P, NULL);
    case ST_TEST_NULL_PLAN:
        return redist_test(NULL, &done);
    case ST_WAIT_NULL_PLAN:
        return redist_wait(NULL);
    case ST_TEST_IDLE: /* MPI's inactive persistent request */
        rc = redist_test(P, &done);
        return rc == REDIST_SUCCESS && done != 1 ? NOT_AS_DOCUMENTED : rc;
    case ST_WAIT_IDLE:
        return redist_wait(P);
    case ST_WAIT_TWICE:
        rc = redist_start(P, S, D);
        if (rc == REDIST_SUCCESS)
            rc = redist_wait(P);
        return rc == REDIST_SUCCESS ? redist_wait(P) : rc;
    case ST_FREE_ACTIVE: /* free waits for the execution in flight */
        rc = redist_plan_create(Ls, Ld, MPI_INT, MPI_COMM_WORLD, NULL, &q);
        if (!all_ranks(rc == REDIST_SUCCESS))
            return plan_done(rc, &q);
        rc = redist_start(q, S, D);
        if (rc != REDIST_SUCCESS)
            fail("redist_start failed: %s", redist_last_error_detail());
        rc = redist_plan_free(&q);
        if (q != NULL)
            fail("redist_plan_free did not set the handle to NULL");
        return rc;
    case ST_USE_AFTER_FREE: /* the handle redist_plan_free leaves behind is NULL */
        rc = redist_plan_create(Ls, Ld, MPI_INT, MPI_COMM_WORLD, NULL, &q);
        if (!all_ranks(rc == REDIST_SUCCESS))
            return plan_done(rc, &q);
        redist_plan_free(&q);
        return redist_execute(q, S, D);
    case ST_START_ON_BATCH:
        return redist_start(PB, S, D);
    case ST_EXECUTE_ON_BATCH:
        return redist_execute(PB, S, D);
    case ST_START_BATCH_ON_PLAIN:
        return redist_start_batch(P, bsrc, bdst);
    case ST_EXECUTE_BATCH_ON_PLAIN:
        return redist_execute_batch(P, bsrc, bdst);
    case ST_STATS_NULL_PLAN:
        return redist_plan_stats(NULL, &st);
    case ST_STATS_NULL_OUT:
        return redist_plan_stats(P, NULL);
    case ST_ALGORITHM_NULL:
        return redist_plan_algorithm(NULL) == NULL ? REDIST_SUCCESS : NOT_AS_DOCUMENTED;
    case ST_FREE_NULL:
        return redist_plan_free(NULL);
    case ST_FREE_NULL_HANDLE:
        return redist_plan_free(&q);
    }
    return NOT_AS_DOCUMENTED;
}

/* ---- batch execution ---------------------------------------------------------------------- */

enum {
    BE_OK,
    BE_NULL_PLAN,
    BE_NULL_SRC_LIST,
    BE_NULL_DST_LIST_LAST,
    BE_NULL_ELEM_LAST,
    BE_IN_PLACE_LAST,
    BE_START_OK
};

static int run_batch_execute(int v)
{
    const void *bsrc[2] = {bs0, bs1};
    void *bdst[2] = {bd0, bd1};
    const void *const *ps_ = bsrc;
    void *const *pd_ = bdst;
    redist_plan p = PB;
    int L = rank == last, rc;
    switch (v) {
    case BE_NULL_PLAN:
        p = NULL;
        break;
    case BE_NULL_SRC_LIST:
        ps_ = NULL;
        break;
    case BE_NULL_DST_LIST_LAST:
        pd_ = L ? NULL : pd_;
        break;
    case BE_NULL_ELEM_LAST: /* the last rank holds array 1's source elements */
        bsrc[1] = L ? NULL : bsrc[1];
        break;
    case BE_IN_PLACE_LAST:
        bdst[0] = L ? MPI_IN_PLACE : bdst[0];
        break;
    }
    if (v == BE_START_OK) {
        rc = redist_start_batch(p, ps_, pd_);
        if (rc == REDIST_SUCCESS)
            rc = redist_wait(p);
    } else {
        rc = redist_execute_batch(p, ps_, pd_);
    }
    if (p != NULL)
        expect_idle(p);
    return rc;
}

/* ---- the basic operations ---------------------------------------------------------------- */

enum {
    OP_BCAST,
    OP_REDUCE,
    OP_ALLREDUCE,
    OP_SCAN,
    OP_SCATTER,
    OP_GATHER,
    OP_ALLGATHER,
    OP_REDUCE_SCATTER,
    OP_ALLTOALL,
    OP_SHIFT,
    NOPS
};
static const char *const op_names[NOPS] = {
    "redist_bcast",    "redist_reduce", "redist_allreduce", "redist_scan",
    "redist_scatter",  "redist_gather", "redist_allgather", "redist_reduce_scatter",
    "redist_alltoall", "redist_shift"};
/* Two valid algorithm names of each (for the "differs" class). */
static const char *const op_algs[NOPS][2] = {
    {"tree", "ring"},      {"tree", "ring"},     {"reduce-bcast", "hypercube"},
    {"hypercube", "ring"}, {"tree", "linear"},   {"tree", "linear"},
    {"ring", "mesh"},      {"ring", "pairwise"}, {"ring", "pairwise"},
    {"ring", "mesh"}};

static int has_root(int op)
{
    return op == OP_BCAST || op == OP_REDUCE || op == OP_SCATTER || op == OP_GATHER;
}
static int has_op(int op)
{
    return op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_SCAN || op == OP_REDUCE_SCATTER;
}

enum {
    CC_OK,
    CC_ZERO_NULL,
    CC_COUNT_NEG,
    CC_COUNT_HUGE,
    CC_COUNT_DIFFERS,
    CC_TYPE_NULL,
    CC_TYPE_NULL_LAST,
    CC_TYPE_VECTOR,
    CC_TYPE_SIZE_DIFFERS,
    CC_TYPE_UNCOMMITTED,
    CC_TYPE_MIXED,
    CC_OP_TYPE_INVALID,
    CC_OP_TYPE_INVALID_IN_PLACE,
    CC_OP_USER_UNCOMMITTED,
    CC_OP_MIXED,
    CC_OP_PAIRS,
    CC_OP_MAXLOC_INT,
    CC_OP_CHAR,
    CC_OP_LAND_DOUBLE,
    CC_OP_REPLACE,
    CC_OP_NO_OP,
    CC_OP_F90,
    CC_COMM_NULL,
    CC_COMM_INTER,
    CC_ALG_UNKNOWN,
    CC_ALG_UNKNOWN_LAST,
    CC_ALG_DIFFERS,
    CC_ALG_HYPERCUBE,
    CC_SEND_NULL,
    CC_SEND_NULL_LAST,
    CC_RECV_NULL,
    CC_IN_PLACE_BAD,
    CC_IN_PLACE_BAD_LAST,
    CC_ROOT_NEG,
    CC_ROOT_SIZE,
    CC_ROOT_DIFFERS,
    CC_OP_NULL,
    CC_OP_DIFFERS,
    CC_OP_COMMUTE_DIFFERS,
    CC_SHIFT_DIFFERS,
    CC_SHIFT_EXTREME,
    CC_CHECKING_OFF_BAD,
    NCLASSES
};

static char *cbuf_s, *cbuf_r; /* the operations' buffers: p blocks of up to 3 doubles */

static int call_op(int op, const void *s, void *r, int64_t count, MPI_Datatype t, MPI_Op o,
                   int root, int shift, MPI_Comm c, const char *alg)
{
    switch (op) {
    case OP_BCAST:
        return redist_bcast((void *)s, count, t, root, c, alg);
    case OP_REDUCE:
        return redist_reduce(s, r, count, t, o, root, c, alg);
    case OP_ALLREDUCE:
        return redist_allreduce(s, r, count, t, o, c, alg);
    case OP_SCAN:
        return redist_scan(s, r, count, t, o, c, alg);
    case OP_SCATTER:
        return redist_scatter(s, r, count, t, root, c, alg);
    case OP_GATHER:
        return redist_gather(s, r, count, t, root, c, alg);
    case OP_ALLGATHER:
        return redist_allgather(s, r, count, t, c, alg);
    case OP_REDUCE_SCATTER:
        return redist_reduce_scatter(s, r, count, t, o, c, alg);
    case OP_ALLTOALL:
        return redist_alltoall(s, r, count, t, c, alg);
    default:
        return redist_shift(s, r, count, t, shift, c, alg);
    }
}

/* v = op * 100 + class. */
static int run_coll(int v)
{
    int op = v / 100, cls = v % 100, L = rank == last;
    const void *s = cbuf_s;
    void *r = cbuf_r;
    int64_t count = 2;
    MPI_Datatype t = MPI_INT;
    MPI_Op o = MPI_SUM;
    int root = 0, shift = 1;
    MPI_Comm c = MPI_COMM_WORLD, checking_off = MPI_COMM_NULL;
    const char *alg = NULL;
    switch (cls) {
    case CC_ZERO_NULL:
        count = 0;
        s = NULL;
        r = NULL;
        break;
    case CC_COUNT_NEG:
        count = -1;
        break;
    case CC_COUNT_HUGE:
        count = INT64_MAX / 2;
        break;
    case CC_COUNT_DIFFERS:
        count = L ? 3 : 2;
        break;
    case CC_TYPE_NULL:
        t = MPI_DATATYPE_NULL;
        break;
    case CC_TYPE_NULL_LAST:
        t = L ? MPI_DATATYPE_NULL : t;
        break;
    case CC_TYPE_VECTOR:
        t = T_vec;
        break;
    case CC_TYPE_SIZE_DIFFERS:
        t = L ? MPI_DOUBLE : t;
        break;
    case CC_TYPE_UNCOMMITTED:
        t = T_uncommitted;
        break;
    case CC_TYPE_MIXED:
        t = T_mixed;
        break;
    case CC_OP_TYPE_INVALID: /* MPI defines no bitwise and of doubles */
        t = MPI_DOUBLE;
        o = MPI_BAND;
        break;
    case CC_OP_TYPE_INVALID_IN_PLACE: /* issue 25's call; MPI_IN_PLACE where MPI allows it */
        t = MPI_DOUBLE;
        o = MPI_BAND;
        s = op != OP_REDUCE || rank == root ? MPI_IN_PLACE : s;
        break;
    case CC_OP_USER_UNCOMMITTED: /* the op gets the library's committed duplicate */
        t = T_uncommitted;
        o = op_noncommutative;
        break;
    case CC_OP_MIXED:
        t = T_mixed;
        break;
    case CC_OP_PAIRS:
        t = T_pairs;
        o = MPI_MAXLOC;
        break;
    case CC_OP_MAXLOC_INT:
        o = MPI_MAXLOC;
        break;
    case CC_OP_CHAR: /* MPI_CHAR is in none of MPI's classes for reductions */
        t = MPI_CHAR;
        break;
    case CC_OP_LAND_DOUBLE:
        t = MPI_DOUBLE;
        o = MPI_LAND;
        break;
    case CC_OP_REPLACE:
        o = MPI_REPLACE;
        break;
    case CC_OP_NO_OP:
        o = MPI_NO_OP;
        break;
    case CC_OP_F90:
        t = T_f90_real;
        break;
    case CC_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case CC_COMM_INTER:
        c = inter;
        break;
    case CC_ALG_UNKNOWN:
        alg = "no-such-algorithm";
        break;
    case CC_ALG_UNKNOWN_LAST:
        alg = L ? "no-such-algorithm" : op_algs[op][0];
        break;
    case CC_ALG_DIFFERS:
        alg = op_algs[op][L];
        break;
    case CC_ALG_HYPERCUBE:
        alg = "hypercube";
        break;
    case CC_SEND_NULL:
        s = NULL;
        break;
    case CC_SEND_NULL_LAST:
        s = L ? NULL : s;
        break;
    case CC_RECV_NULL:
        r = NULL;
        break;
    case CC_IN_PLACE_BAD: /* where MPI does not allow it */
        if (op == OP_BCAST || op == OP_SCATTER)
            s = MPI_IN_PLACE;
        else
            r = MPI_IN_PLACE;
        break;
    case CC_IN_PLACE_BAD_LAST: /* legal only at the root (reduce, gather: sendbuf; scatter:
                                  recvbuf), so not on the last rank */
        if (op == OP_SCATTER)
            r = L ? MPI_IN_PLACE : r;
        else
            s = L ? MPI_IN_PLACE : s;
        break;
    case CC_ROOT_NEG:
        root = -1;
        break;
    case CC_ROOT_SIZE:
        root = size;
        break;
    case CC_ROOT_DIFFERS:
        root = L ? last : 0;
        break;
    case CC_OP_NULL:
        o = MPI_OP_NULL;
        break;
    case CC_OP_DIFFERS:
        o = L ? MPI_PROD : MPI_SUM;
        break;
    case CC_OP_COMMUTE_DIFFERS:
        o = L ? op_noncommutative : MPI_SUM;
        break;
    case CC_SHIFT_DIFFERS:
        shift = L ? 2 : 1;
        break;
    case CC_SHIFT_EXTREME: /* any shift is legal: taken mod p */
        shift = INT_MIN;
        break;
    case CC_CHECKING_OFF_BAD: /* checking off: each rank's own verdict, bad everywhere */
        MPI_Comm_dup(MPI_COMM_WORLD, &checking_off);
        if (redist_coll_set_checking(checking_off, 0) != REDIST_SUCCESS)
            fail("redist_coll_set_checking(dup, 0): %s", redist_last_error_detail());
        c = checking_off;
        count = -5;
        break;
    }
    int rc = call_op(op, s, r, count, t, o, root, shift, c, alg);
    if (checking_off != MPI_COMM_NULL)
        MPI_Comm_free(&checking_off);
    return rc;
}

/* The code a class must give for an operation (or 1: the class does not apply). */
static int coll_want(int op, int cls, const char **detail, int *when)
{
    *detail = NULL;
    *when = ANY;
    switch (cls) {
    case CC_OK:
    case CC_ZERO_NULL:
        return REDIST_SUCCESS;
    case CC_COUNT_NEG:
    case CC_CHECKING_OFF_BAD:
        *detail = "count";
        return REDIST_ERR_ARG;
    case CC_COUNT_HUGE:
        *detail = "2^62";
        return REDIST_ERR_ARG;
    case CC_COUNT_DIFFERS:
    case CC_TYPE_SIZE_DIFFERS:
        *detail = "count";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_TYPE_NULL:
    case CC_TYPE_NULL_LAST:
        *detail = "type";
        *when = cls == CC_TYPE_NULL_LAST ? MULTI : ANY;
        return REDIST_ERR_ARG;
    case CC_TYPE_VECTOR:
        *detail = "contiguous";
        return REDIST_ERR_UNSUPPORTED;
    case CC_TYPE_UNCOMMITTED: /* moved as bytes; reduced as the ints it holds */
    case CC_TYPE_MIXED:       /* moved as bytes; reductions: CC_OP_MIXED */
        return cls == CC_TYPE_MIXED && has_op(op) ? 1 : REDIST_SUCCESS;
    case CC_OP_USER_UNCOMMITTED:
    case CC_OP_PAIRS: /* MPI_MAXLOC on a derived type made of MPI_2INT */
        return has_op(op) ? REDIST_SUCCESS : 1;
    case CC_OP_TYPE_INVALID:
    case CC_OP_TYPE_INVALID_IN_PLACE:
    case CC_OP_LAND_DOUBLE:
        if (!has_op(op))
            return 1;
        *detail = "MPI_DOUBLE";
        return REDIST_ERR_ARG;
    case CC_OP_MIXED:
        if (!has_op(op))
            return 1;
        *detail = "more than one predefined type";
        return REDIST_ERR_ARG;
    case CC_OP_MAXLOC_INT:
        if (!has_op(op))
            return 1;
        *detail = "MPI_MAXLOC";
        return REDIST_ERR_ARG;
    case CC_OP_CHAR:
        if (!has_op(op))
            return 1;
        *detail = "MPI_CHAR";
        return REDIST_ERR_ARG;
    case CC_OP_REPLACE:
    case CC_OP_NO_OP:
        if (!has_op(op))
            return 1;
        *detail = "one-sided";
        return REDIST_ERR_ARG;
    case CC_OP_F90:
        if (!has_op(op))
            return 1;
        *detail = "Fortran 90";
        return REDIST_ERR_UNSUPPORTED;
    case CC_COMM_NULL:
        *detail = "MPI_COMM_NULL";
        return REDIST_ERR_ARG;
    case CC_COMM_INTER:
        *detail = "intercommunicator";
        *when = MULTI;
        return REDIST_ERR_UNSUPPORTED;
    case CC_ALG_UNKNOWN:
    case CC_ALG_UNKNOWN_LAST:
        *detail = "no-such-algorithm";
        *when = cls == CC_ALG_UNKNOWN_LAST ? MULTI : ANY;
        return REDIST_ERR_UNKNOWN_ALGORITHM;
    case CC_ALG_DIFFERS:
        *detail = "algorithm";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_ALG_HYPERCUBE: /* only reduce_scatter's hypercube needs a power of two */
        if (op != OP_REDUCE_SCATTER)
            return 1;
        *detail = "power of two";
        *when = NOT_POW2;
        return REDIST_ERR_NOT_APPLICABLE;
    case CC_SEND_NULL:
        *detail = "NULL";
        return REDIST_ERR_ARG;
    case CC_SEND_NULL_LAST: /* scatter reads sendbuf at the root only */
        *when = MULTI;
        if (op == OP_SCATTER)
            return REDIST_SUCCESS;
        *detail = "NULL";
        return REDIST_ERR_ARG;
    case CC_RECV_NULL:
        if (op == OP_BCAST)
            return 1;
        *detail = "NULL";
        return REDIST_ERR_ARG;
    case CC_IN_PLACE_BAD:
        *detail = "MPI_IN_PLACE";
        return REDIST_ERR_ARG;
    case CC_IN_PLACE_BAD_LAST:
        if (op != OP_REDUCE && op != OP_GATHER && op != OP_SCATTER)
            return 1;
        *detail = "MPI_IN_PLACE";
        *when = MULTI;
        return REDIST_ERR_ARG;
    case CC_ROOT_NEG:
    case CC_ROOT_SIZE:
        if (!has_root(op))
            return 1;
        *detail = "root";
        return REDIST_ERR_ARG;
    case CC_ROOT_DIFFERS:
        if (!has_root(op))
            return 1;
        *detail = "root";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_OP_NULL:
        if (!has_op(op))
            return 1;
        *detail = "op";
        return REDIST_ERR_ARG;
    case CC_OP_DIFFERS:
    case CC_OP_COMMUTE_DIFFERS:
        if (!has_op(op))
            return 1;
        *detail = "op";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_SHIFT_DIFFERS:
        if (op != OP_SHIFT)
            return 1;
        *detail = "shift";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_SHIFT_EXTREME:
        return op == OP_SHIFT ? REDIST_SUCCESS : 1;
    }
    return 1;
}

static const char *const class_names[NCLASSES] = {
    "valid (sanity)",
    "count 0 with NULL buffers (legal)",
    "count < 0",
    "count * element size * p >= 2^62",
    "count differs on the last rank",
    "type MPI_DATATYPE_NULL",
    "type MPI_DATATYPE_NULL on the last rank only",
    "non-contiguous type",
    "element size differs on the last rank",
    "an uncommitted contiguous type",
    "an uncommitted struct of an int and a float",
    "MPI_BAND on MPI_DOUBLE (an op the type does not have)",
    "MPI_BAND on MPI_DOUBLE, sendbuf MPI_IN_PLACE",
    "a user-defined op on an uncommitted contiguous type",
    "MPI_SUM on an uncommitted struct of an int and a float",
    "MPI_MAXLOC on an uncommitted contiguous type of MPI_2INT",
    "MPI_MAXLOC on MPI_INT (not a pair type)",
    "MPI_SUM on MPI_CHAR (in no class of types of reductions)",
    "MPI_LAND on MPI_DOUBLE",
    "MPI_REPLACE (one-sided accumulates only)",
    "MPI_NO_OP (one-sided accumulates only)",
    "MPI_SUM on a Fortran 90 parameterized type (MPI_Type_create_f90_real)",
    "comm MPI_COMM_NULL",
    "an intercommunicator",
    "unknown algorithm",
    "unknown algorithm on the last rank only",
    "algorithm differs on the last rank",
    "hypercube on a p that is not a power of two",
    "sendbuf NULL with count > 0",
    "sendbuf NULL on the last rank only",
    "recvbuf NULL with count > 0",
    "MPI_IN_PLACE where MPI does not allow it",
    "MPI_IN_PLACE on a rank that is not the root",
    "root < 0",
    "root == comm size",
    "root differs on the last rank",
    "op MPI_OP_NULL",
    "op differs on the last rank (MPI_PROD, MPI_SUM elsewhere)",
    "a non-commutative op on the last rank, MPI_SUM elsewhere",
    "shift differs on the last rank",
    "shift INT_MIN (legal)",
    "checking off, count < 0 on every rank"};

enum { SC_OFF_ON, SC_ON_2, SC_DIFFERS, SC_COMM_NULL, SC_INTER };

static int run_set_checking(int v)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int rc;
    switch (v) {
    case SC_OFF_ON:
        rc = redist_coll_set_checking(c, 0);
        if (rc == REDIST_SUCCESS)
            rc = redist_coll_set_checking(c, 1);
        break;
    case SC_ON_2:
        rc = redist_coll_set_checking(c, 2);
        break;
    case SC_DIFFERS:
        rc = redist_coll_set_checking(c, rank == last ? 0 : 1);
        break;
    case SC_COMM_NULL:
        rc = redist_coll_set_checking(MPI_COMM_NULL, 1);
        break;
    default:
        rc = redist_coll_set_checking(inter, 1);
        break;
    }
    MPI_Comm_free(&c);
    return rc;
}

/* ---- the catalogue ------------------------------------------------------------------------ */

#define E(fn, bad, run, v, want, detail, when) add(fn, bad, run, v, want, detail, when, 0)
#define EF(fn, bad, run, v, want, detail, when, flags)                                             \
    add(fn, bad, run, v, want, detail, when, flags)

static void build_catalogue(void)
{
    const int ARG = REDIST_ERR_ARG, OK = REDIST_SUCCESS, MIS = REDIST_ERR_MISMATCH,
              UNS = REDIST_ERR_UNSUPPORTED, UNK = REDIST_ERR_UNKNOWN_ALGORITHM,
              NA = REDIST_ERR_NOT_APPLICABLE, NOMEM = REDIST_ERR_NOMEM, BUSY = REDIST_ERR_BUSY;

    /* Errors, names, options. */
    EF("redist_strerror", "every code: a message of its own", run_misc, ER_MESSAGES, OK, NULL, ANY,
       F_NO_DETAIL);
    EF("redist_strerror, redist_error_name", "unknown codes (1, -10, INT_MIN, ...)", run_misc,
       ER_UNKNOWN_CODES, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_error_name", "every code's name", run_misc, ER_NAMES, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_last_error_detail", "never NULL", run_misc, ER_DETAIL, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i == count: NULL", run_misc, AN_PAST, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i = -1: NULL", run_misc, AN_NEG, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i = INT_MIN: NULL", run_misc, AN_MIN, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_name", "i = INT_MAX: NULL", run_misc, AN_MAX, OK, NULL, ANY, F_NO_DETAIL);
    EF("redist_algorithm_count", "every name non-empty", run_misc, AN_COUNT, OK, NULL, ANY,
       F_NO_DETAIL);
    EF("redist_options_init", "NULL (no crash)", run_misc, OI_NULL, OK, NULL, ANY, F_NO_DETAIL);

    /* Layouts. */
    const char *lc = "redist_layout_create";
    E(lc, "valid (sanity)", run_layout_create, LC_OK, OK, NULL, ANY);
    E(lc, "ndims 0", run_layout_create, LC_NDIMS0, ARG, "ndims", ANY);
    E(lc, "ndims INT_MIN", run_layout_create, LC_NDIMS_MIN, ARG, "ndims", ANY);
    E(lc, "extent NULL", run_layout_create, LC_NULL_EXTENT, ARG, "extent", ANY);
    E(lc, "block NULL", run_layout_create, LC_NULL_BLOCK, ARG, "block", ANY);
    E(lc, "grid NULL", run_layout_create, LC_NULL_GRID, ARG, "grid", ANY);
    E(lc, "layout (output) NULL", run_layout_create, LC_NULL_OUT, ARG, "NULL", ANY);
    E(lc, "extent < 0", run_layout_create, LC_EXTENT_NEG, ARG, "extent[1]", ANY);
    E(lc, "extent > 2^62", run_layout_create, LC_EXTENT_HUGE, ARG, "extent[0]", ANY);
    E(lc, "extents whose product overflows (2^32 x 2^32)", run_layout_create, LC_EXTENT_PRODUCT,
      ARG, "2^62", ANY);
    E(lc, "block 0", run_layout_create, LC_BLOCK0, ARG, "block[1]", ANY);
    E(lc, "block INT64_MIN", run_layout_create, LC_BLOCK_MIN, ARG, "block[0]", ANY);
    E(lc, "block INT64_MAX (legal)", run_layout_create, LC_BLOCK_MAX, OK, NULL, ANY);
    E(lc, "grid 0", run_layout_create, LC_GRID0, ARG, "grid[1]", ANY);
    E(lc, "grid < 0", run_layout_create, LC_GRID_NEG, ARG, "grid[0]", ANY);
    E(lc, "grid product 2^32 > INT_MAX", run_layout_create, LC_GRID_PRODUCT, ARG, "INT_MAX", ANY);
    E(lc, "first < 0", run_layout_create, LC_FIRST_NEG, ARG, "first[0]", ANY);
    E(lc, "first == grid", run_layout_create, LC_FIRST_GRID, ARG, "first[0]", ANY);
    E(lc, "ranks repeated", run_layout_create, LC_RANKS_DUP, ARG, "distinct", ANY);
    E(lc, "rank < 0", run_layout_create, LC_RANKS_NEG, ARG, "ranks[1]", ANY);
    E(lc, "rank INT_MAX (legal until a plan)", run_layout_create, LC_RANKS_MAX, OK, NULL, ANY);
    E(lc, "order 2", run_layout_create, LC_ORDER, ARG, "order", ANY);

    const char *lw = "redist_layout_create_window";
    E(lw, "valid (sanity)", run_window, LW_OK, OK, NULL, ANY);
    E(lw, "a window of a window (legal)", run_window, LW_OF_WINDOW, OK, NULL, ANY);
    E(lw, "parent NULL", run_window, LW_NULL_PARENT, ARG, "parent", ANY);
    E(lw, "window (output) NULL", run_window, LW_NULL_OUT, ARG, "NULL", ANY);
    E(lw, "offset < 0", run_window, LW_OFFSET_NEG, ARG, "offset[0]", ANY);
    E(lw, "offset > extent", run_window, LW_OFFSET_PAST, ARG, "offset[0]", ANY);
    E(lw, "offset INT64_MAX", run_window, LW_OFFSET_MAX, ARG, "offset[0]", ANY);
    E(lw, "count < 0", run_window, LW_COUNT_NEG, ARG, "count[0]", ANY);
    E(lw, "offset + count > extent", run_window, LW_COUNT_PAST, ARG, "count[0]", ANY);
    E(lw, "count INT64_MAX (offset + count overflows)", run_window, LW_COUNT_MAX, ARG, "count[0]",
      ANY);
    E(lw, "ld < 0", run_window, LW_LD_NEG, ARG, "ld[0]", ANY);
    E(lw, "a parent with irregular blocks", run_window, LW_GEN_PARENT, UNS, "irregular", ANY);

    const char *lg = "redist_layout_create_gen_block";
    E(lg, "valid (sanity)", run_gen_block, LG_OK, OK, NULL, ANY);
    E(lg, "sizes NULL (a plain layout)", run_gen_block, LG_NULL_SIZES, OK, NULL, ANY);
    E(lg, "block NULL, every dimension irregular (legal)", run_gen_block, LG_ALL_GEN_NULL_BLOCK, OK,
      NULL, ANY);
    E(lg, "a size < 0", run_gen_block, LG_SIZE_NEG, ARG, "sizes[0][1]", ANY);
    E(lg, "sizes sum to less than the extent", run_gen_block, LG_SUM_SHORT, ARG, "sum", ANY);
    E(lg, "sizes sum to more than the extent", run_gen_block, LG_SUM_LONG, ARG, "sum", ANY);
    E(lg, "sizes whose sum overflows (3 x 2^62)", run_gen_block, LG_SUM_OVERFLOW, ARG, "sum", ANY);
    E(lg, "layout (output) NULL", run_gen_block, LG_NULL_OUT, ARG, "NULL", ANY);
    E(lg, "block NULL with a cyclic dimension", run_gen_block, LG_NULL_BLOCK_CYCLIC, ARG, "block",
      ANY);
    E(lg, "first == grid", run_gen_block, LG_FIRST, ARG, "first[0]", ANY);
    E(lg, "ranks repeated", run_gen_block, LG_RANKS_DUP, ARG, "distinct", ANY);
    E(lg, "ndims 0", run_gen_block, LG_NDIMS0, ARG, "ndims", ANY);
    E(lg, "grid 0", run_gen_block, LG_GRID0, ARG, "grid[0]", ANY);

    E("redist_layout_local_shape", "layout NULL", run_layout_access, LA_SHAPE_NULL_LAYOUT, ARG,
      "NULL", ANY);
    E("redist_layout_local_shape", "shape NULL", run_layout_access, LA_SHAPE_NULL_OUT, ARG, "NULL",
      ANY);
    E("redist_layout_local_shape", "rank < 0", run_layout_access, LA_SHAPE_RANK_NEG, ARG, "rank",
      ANY);
    E("redist_layout_local_shape", "a rank outside the layout: zeros", run_layout_access,
      LA_SHAPE_OUTSIDE, OK, NULL, ANY);
    E("redist_layout_local_size", "layout NULL", run_layout_access, LA_SIZE_NULL_LAYOUT, ARG,
      "NULL", ANY);
    E("redist_layout_local_size", "count NULL", run_layout_access, LA_SIZE_NULL_OUT, ARG, "NULL",
      ANY);
    E("redist_layout_local_size", "rank INT_MIN", run_layout_access, LA_SIZE_RANK_NEG, ARG, "rank",
      ANY);
    E("redist_layout_local_size", "rank INT_MAX outside the layout: 0", run_layout_access,
      LA_SIZE_OUTSIDE, OK, NULL, ANY);
    E("redist_layout_ndims", "layout NULL", run_layout_access, LA_NDIMS_NULL, ARG, "NULL", ANY);
    E("redist_layout_nprocs", "layout NULL", run_layout_access, LA_NPROCS_NULL, ARG, "NULL", ANY);
    E("redist_layout_coords", "layout NULL", run_layout_access, LA_COORDS_NULL_LAYOUT, ARG, "NULL",
      ANY);
    E("redist_layout_coords", "coords NULL", run_layout_access, LA_COORDS_NULL_OUT, ARG, "NULL",
      ANY);
    E("redist_layout_coords", "rank < 0: not in the layout (0)", run_layout_access,
      LA_COORDS_RANK_NEG, OK, NULL, ANY);
    E("redist_layout_coords", "rank INT_MAX: not in the layout (0)", run_layout_access,
      LA_COORDS_OUTSIDE, OK, NULL, ANY);
    E("redist_layout_free", "NULL", run_layout_access, LA_FREE_NULL, ARG, "NULL", ANY);
    E("redist_layout_free", "a NULL handle (legal, like free(NULL))", run_layout_access,
      LA_FREE_NULL_HANDLE, OK, NULL, ANY);

    /* HPF. */
    E("redist_hpf_check", "d NULL", run_hpf, H_CHECK_NULL, ARG, "NULL", ANY);
    E("redist_hpf_check", "unknown kind", run_hpf, H_KIND, ARG, "kind", ANY);
    E("redist_hpf_check", "n < 0", run_hpf, H_N_NEG, ARG, "n =", ANY);
    E("redist_hpf_check", "P 0", run_hpf, H_P0, ARG, "P =", ANY);
    E("redist_hpf_check", "m < 0", run_hpf, H_M_NEG, ARG, "m =", ANY);
    E("redist_hpf_check", "CYCLIC with m 2", run_hpf, H_CYCLIC_M2, ARG, "CYCLIC", ANY);
    E("redist_hpf_check", "CYCLIC_M with m 0", run_hpf, H_CYCLICM_M0, ARG, "CYCLIC(m)", ANY);
    E("redist_hpf_check", "BLOCK(m) with m P < n", run_hpf, H_BLOCK_SMALL, ARG, "BLOCK", ANY);
    E("redist_hpf_check, _owner, _local, _global", "n = INT64_MAX (legal, no overflow)", run_hpf,
      H_HUGE_N, OK, NULL, ANY);
    E("redist_hpf_owner", "g < 0", run_hpf, H_OWNER_NEG, ARG, "global index", ANY);
    E("redist_hpf_owner", "g == n", run_hpf, H_OWNER_N, ARG, "global index", ANY);
    E("redist_hpf_owner", "a bad d", run_hpf, H_OWNER_BAD_D, ARG, "P =", ANY);
    E("redist_hpf_local", "g INT64_MIN", run_hpf, H_LOCAL_NEG, ARG, "global index", ANY);
    E("redist_hpf_local", "g INT64_MAX", run_hpf, H_LOCAL_N, ARG, "global index", ANY);
    E("redist_hpf_local", "d NULL", run_hpf, H_LOCAL_NULL, ARG, "NULL", ANY);
    E("redist_hpf_global", "p < 0", run_hpf, H_GLOBAL_P_NEG, ARG, "processor", ANY);
    E("redist_hpf_global", "p == P", run_hpf, H_GLOBAL_P_BIG, ARG, "processor", ANY);
    E("redist_hpf_global", "l < 0", run_hpf, H_GLOBAL_L_NEG, ARG, "local index", ANY);
    E("redist_hpf_global", "l == local count", run_hpf, H_GLOBAL_L_BIG, ARG, "local index", ANY);
    E("redist_hpf_local_count", "p INT_MIN", run_hpf, H_COUNT_P_NEG, ARG, "processor", ANY);
    E("redist_hpf_local_count", "p INT_MAX", run_hpf, H_COUNT_P_BIG, ARG, "processor", ANY);
    E("redist_hpf_local_count", "d NULL", run_hpf, H_COUNT_NULL, ARG, "NULL", ANY);
    E("redist_hpf_layout", "layout (output) NULL", run_hpf, H_LAYOUT_NULL_OUT, ARG, "NULL", ANY);
    E("redist_hpf_layout", "d NULL", run_hpf, H_LAYOUT_BAD_D, ARG, "NULL", ANY);
    E("redist_hpf_layout", "ranks repeated", run_hpf, H_LAYOUT_RANKS_DUP, ARG, "distinct", ANY);
    E("redist_hpf_layout", "n = INT64_MAX: too large for a layout", run_hpf, H_LAYOUT_HUGE, ARG,
      "extent", ANY);

    /* BMMC matrices. */
    E("redist_bmmc_identity", "n < 0", run_bmmc_matrix, BX_IDENT_NEG, ARG, "n = -1", ANY);
    E("redist_bmmc_identity", "n 65", run_bmmc_matrix, BX_IDENT_65, ARG, "n = 65", ANY);
    E("redist_bmmc_identity", "columns NULL", run_bmmc_matrix, BX_IDENT_NULL, ARG, "NULL", ANY);
    E("redist_bmmc_identity", "n 0, columns NULL (legal)", run_bmmc_matrix, BX_IDENT_NULL_N0, OK,
      NULL, ANY);
    E("redist_bmmc_transpose", "a < 0", run_bmmc_matrix, BX_TRANS_NEG, ARG, "a = -1", ANY);
    E("redist_bmmc_transpose", "a + b > 64", run_bmmc_matrix, BX_TRANS_BIG, ARG, "a + b", ANY);
    E("redist_bmmc_transpose", "columns NULL", run_bmmc_matrix, BX_TRANS_NULL, ARG, "NULL", ANY);
    E("redist_bmmc_bit_reversal", "n INT_MAX", run_bmmc_matrix, BX_BITREV_N, ARG, "n =", ANY);
    E("redist_bmmc_vector_reversal", "complement NULL", run_bmmc_matrix, BX_VREV_NULL_C, ARG,
      "complement", ANY);
    E("redist_bmmc_gray", "n < 0", run_bmmc_matrix, BX_GRAY_N, ARG, "n =", ANY);
    E("redist_bmmc_gray_inverse", "columns NULL", run_bmmc_matrix, BX_GRAYINV_NULL, ARG, "NULL",
      ANY);
    E("redist_bmmc_shuffle", "n 70", run_bmmc_matrix, BX_SHUFFLE_N, ARG, "n =", ANY);
    E("redist_bmmc_shuffle", "k INT_MIN (legal)", run_bmmc_matrix, BX_SHUFFLE_KMIN, OK, NULL, ANY);
    E("redist_bmmc_layout", "p > n", run_bmmc_matrix, BX_LAYOUT_P_BIG, ARG, "p", ANY);
    E("redist_bmmc_layout", "p < 0", run_bmmc_matrix, BX_LAYOUT_P_NEG, ARG, "p", ANY);
    E("redist_bmmc_layout", "f > n - p", run_bmmc_matrix, BX_LAYOUT_F_BIG, ARG, "f", ANY);
    E("redist_bmmc_layout", "f < 0", run_bmmc_matrix, BX_LAYOUT_F_NEG, ARG, "f", ANY);
    E("redist_bmmc_layout_inverse", "f INT_MAX", run_bmmc_matrix, BX_LAYOUTINV_F_BIG, ARG, "f",
      ANY);
    E("redist_bmmc_compose", "a column with a bit at or above n", run_bmmc_matrix, BX_COMPOSE_STRAY,
      ARG, "column 3", ANY);
    E("redist_bmmc_compose", "a complement with a bit at or above n", run_bmmc_matrix,
      BX_COMPOSE_C_STRAY, ARG, "complement", ANY);
    E("redist_bmmc_compose", "b NULL", run_bmmc_matrix, BX_COMPOSE_NULL_B, ARG, "NULL", ANY);
    E("redist_bmmc_compose", "cout NULL", run_bmmc_matrix, BX_COMPOSE_NULL_COUT, ARG, "cout", ANY);
    E("redist_bmmc_inverse", "a singular matrix", run_bmmc_matrix, BX_INVERSE_SINGULAR, ARG,
      "singular", ANY);
    E("redist_bmmc_inverse", "out NULL", run_bmmc_matrix, BX_INVERSE_NULL_OUT, ARG, "NULL", ANY);
    E("redist_bmmc_rank", "a NULL", run_bmmc_matrix, BX_RANK_NULL, ARG, "NULL", ANY);
    E("redist_bmmc_rank", "a column with bits above n", run_bmmc_matrix, BX_RANK_STRAY, ARG,
      "column 9", ANY);
    E("redist_bmmc_rank", "n < 0", run_bmmc_matrix, BX_RANK_N, ARG, "n =", ANY);
    EF("redist_bmmc_apply", "n < 0, n 65, a NULL: returns c, no crash", run_bmmc_matrix,
       BX_APPLY_BAD, OK, NULL, ANY, F_NO_DETAIL);

    /* The basic operations' names and costs (local). */
    const char *cn = "redist_coll_algorithm_name", *cp = "redist_coll_predict";
    EF(cn, "operation NULL: NULL", run_coll_tables, CP_NAME_NULL_OP, OK, NULL, ANY, F_NO_DETAIL);
    EF(cn, "unknown operation: NULL", run_coll_tables, CP_NAME_UNKNOWN_OP, OK, NULL, ANY,
       F_NO_DETAIL);
    EF(cn, "i < 0: NULL", run_coll_tables, CP_NAME_NEG, OK, NULL, ANY, F_NO_DETAIL);
    EF(cn, "i INT_MAX: NULL", run_coll_tables, CP_NAME_PAST, OK, NULL, ANY, F_NO_DETAIL);
    E(cp, "operation NULL", run_coll_tables, CP_PRED_NULL_OP, ARG, "operation", ANY);
    E(cp, "unknown operation", run_coll_tables, CP_PRED_UNKNOWN_OP, ARG, "broadcast", ANY);
    E(cp, "p 0", run_coll_tables, CP_PRED_P0, ARG, "p >= 1", ANY);
    E(cp, "m < 0", run_coll_tables, CP_PRED_M_NEG, ARG, "p >= 1", ANY);
    E(cp, "ts NaN", run_coll_tables, CP_PRED_TS_NAN, ARG, "p >= 1", ANY);
    E(cp, "tw < 0", run_coll_tables, CP_PRED_TW_NEG, ARG, "p >= 1", ANY);
    E(cp, "seconds NULL", run_coll_tables, CP_PRED_NULL_SECONDS, ARG, "seconds", ANY);
    E(cp, "unknown algorithm", run_coll_tables, CP_PRED_UNKNOWN_ALG, UNK, "binomial", ANY);
    E(cp, "reduce_scatter hypercube for p 3", run_coll_tables, CP_PRED_HYPERCUBE_P3, NA,
      "power of two", ANY);
    E(cp, "chosen NULL (legal)", run_coll_tables, CP_PRED_NULL_CHOSEN, OK, NULL, ANY);

    /* redist_plan_create. */
    const char *pc = "redist_plan_create";
    E(pc, "valid (sanity)", run_plan_create, PC_OK, OK, NULL, ANY);
    E(pc, "options NULL (the defaults)", run_plan_create, PC_NULL_OPT, OK, NULL, ANY);
    E(pc, "one layout object as src and dst (legal)", run_plan_create, PC_SAME_LAYOUT, OK, NULL,
      ANY);
    E(pc, "plan (output) NULL", run_plan_create, PC_NULL_PLAN, ARG, "plan", ANY);
    E(pc, "plan (output) NULL on the last rank only", run_plan_create, PC_NULL_PLAN_LAST, ARG,
      "plan", MULTI);
    E(pc, "src NULL", run_plan_create, PC_NULL_SRC, ARG, "src layout is NULL", ANY);
    E(pc, "dst NULL on the last rank only", run_plan_create, PC_NULL_DST_LAST, ARG,
      "dst layout is NULL", MULTI);
    E(pc, "type MPI_DATATYPE_NULL", run_plan_create, PC_TYPE_NULL, ARG, "MPI_DATATYPE_NULL", ANY);
    E(pc, "type MPI_DATATYPE_NULL on the last rank only", run_plan_create, PC_TYPE_NULL_LAST, ARG,
      "MPI_DATATYPE_NULL", MULTI);
    E(pc, "a vector type with gaps", run_plan_create, PC_TYPE_VECTOR, UNS, "contiguous", ANY);
    E(pc, "a resized type (extent > size)", run_plan_create, PC_TYPE_RESIZED, UNS, "contiguous",
      ANY);
    E(pc, "a padded pair type (MPI_DOUBLE_INT)", run_plan_create, PC_TYPE_PADDED, UNS, "contiguous",
      ANY);
    E(pc, "a vector type on the last rank only", run_plan_create, PC_TYPE_VECTOR_LAST, UNS,
      "contiguous", MULTI);
    E(pc, "an uncommitted contiguous type (the plan commits its duplicate)", run_plan_create,
      PC_TYPE_UNCOMMITTED, OK, NULL, ANY);
    E(pc, "an uncommitted contiguous type, alltoallv, executed", run_plan_create,
      PC_TYPE_UNCOMMITTED_EXEC, OK, NULL, ANY);
    E(pc, "comm MPI_COMM_NULL", run_plan_create, PC_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(pc, "an intercommunicator", run_plan_create, PC_COMM_INTER, UNS, "intercommunicator", MULTI);
    E(pc, "MPI_COMM_SELF with layouts over all ranks", run_plan_create, PC_COMM_SELF, ARG,
      "communicator has 1", MULTI);
    E(pc, "a layout rank == comm size", run_plan_create, PC_RANK_BEYOND, ARG, "uses rank", ANY);
    E(pc, "a layout rank == comm size on the last rank only", run_plan_create, PC_RANK_BEYOND_LAST,
      ARG, "uses rank", MULTI);
    E(pc, "src and dst extents differ", run_plan_create, PC_SHAPES, ARG, "different arrays", ANY);
    E(pc, "src and dst ndims differ", run_plan_create, PC_NDIMS, ARG, "different arrays", ANY);
    E(pc, "ld below the local extent on the last rank only", run_plan_create, PC_LD_SMALL_LAST, ARG,
      "ld[1]", MULTI);
    E(pc, "unknown algorithm", run_plan_create, PC_ALG_UNKNOWN, UNK, "no-such-algorithm", ANY);
    E(pc, "algorithm \"\"", run_plan_create, PC_ALG_EMPTY, UNK, "unknown algorithm", ANY);
    E(pc, "algorithm \"DIRECT\" (names are case-sensitive)", run_plan_create, PC_ALG_CASE, UNK,
      "DIRECT", ANY);
    E(pc, "unknown algorithm on the last rank only", run_plan_create, PC_ALG_UNKNOWN_LAST, UNK,
      "no-such-algorithm", MULTI);
    E(pc, "algorithm bmmc for a layout pair", run_plan_create, PC_ALG_NA, NA, "bmmc", ANY);
    E(pc, "options.check_arguments 42", run_plan_create, PC_OPT_CHECK, ARG, "check_arguments", ANY);
    E(pc, "options.shared_memory 2", run_plan_create, PC_OPT_SHM, ARG, "shared_memory", ANY);
    E(pc, "options.transport 7", run_plan_create, PC_OPT_TRANSPORT, ARG, "transport", ANY);
    E(pc, "options.transport -1", run_plan_create, PC_OPT_TRANSPORT_NEG, ARG, "transport", ANY);
    E(pc, "options.hybrid_degree -5", run_plan_create, PC_OPT_HYBRID, ARG, "hybrid_degree", ANY);
    E(pc, "options.bmmc_method 3", run_plan_create, PC_OPT_BMMC_METHOD, ARG, "bmmc_method", ANY);
    E(pc, "options.synchronous_receive -1", run_plan_create, PC_OPT_SYNC, ARG,
      "synchronous_receive", ANY);
    E(pc, "options.conjugate 2", run_plan_create, PC_OPT_CONJ, ARG, "conjugate", ANY);
    E(pc, "options.max_buffer_bytes INT64_MIN", run_plan_create, PC_OPT_MAXBUF_NEG, ARG,
      "max_buffer_bytes", ANY);
    E(pc, "options.max_buffer_bytes 1 (< two elements)", run_plan_create, PC_OPT_MAXBUF_ONE, ARG,
      "max_buffer_bytes", ANY);
    E(pc, "options.max_buffer_bytes with the datatype transport", run_plan_create,
      PC_OPT_MAXBUF_DATATYPE, ARG, "max_buffer_bytes", ANY);
    E(pc, "options.max_buffer_bytes with alltoallv", run_plan_create, PC_OPT_MAXBUF_NA, NA,
      "alltoallv", ANY);
    E(pc, "options.alltoall_algorithm unknown", run_plan_create, PC_OPT_A2A_UNKNOWN, UNK, "bogus",
      ANY);
    E(pc, "options.permutation (1, 0) (sanity)", run_plan_create, PC_PERM_OK, OK, NULL, ANY);
    E(pc, "options.permutation entry out of range", run_plan_create, PC_PERM_RANGE, ARG,
      "permutation[1]", ANY);
    E(pc, "options.permutation entry repeated", run_plan_create, PC_PERM_DUP, ARG, "permutation[1]",
      ANY);
    E(pc, "options.permutation against dst's extents", run_plan_create, PC_PERM_SHAPE, ARG,
      "permutation", ANY);
    E(pc, "options.alpha with MPI_INT", run_plan_create, PC_ALPHA_INT, ARG, "alpha", ANY);
    E(pc, "options.conjugate with MPI_INT", run_plan_create, PC_CONJ_INT, ARG, "conjugate", ANY);
    E(pc, "a complex alpha with MPI_DOUBLE", run_plan_create, PC_ALPHA_IMAG_REAL, ARG, "complex",
      ANY);
    E(pc, "options.alpha with the datatype transport", run_plan_create, PC_ALPHA_DATATYPE, ARG,
      "alpha", ANY);
    E(pc, "options.alpha with alltoallw", run_plan_create, PC_ALPHA_ALLTOALLW, NA, "alltoallw",
      ANY);
    E(pc, "src block differs on the last rank", run_plan_create, PC_D_SRC_BLOCK, MIS, "src block",
      MULTI);
    E(pc, "src ranks differ on the last rank", run_plan_create, PC_D_SRC_RANKS, MIS, "src ranks",
      MULTI);
    E(pc, "src first differs on the last rank", run_plan_create, PC_D_SRC_FIRST, MIS, "src first",
      MULTI);
    E(pc, "src order differs on the last rank", run_plan_create, PC_D_SRC_ORDER, MIS, "src order",
      MULTI);
    E(pc, "extents differ on the last rank", run_plan_create, PC_D_EXTENT, MIS, "src extent",
      MULTI);
    E(pc, "dst grid differs on the last rank", run_plan_create, PC_D_DST_GRID, MIS, "dst grid",
      MULTI);
    E(pc, "ndims differ on the last rank", run_plan_create, PC_D_NDIMS, MIS, "src ndims", MULTI);
    E(pc, "irregular block sizes differ on the last rank", run_plan_create, PC_D_GEN, MIS,
      "src block", MULTI);
    E(pc, "a window's offset differs on the last rank", run_plan_create, PC_D_WINDOW, MIS,
      "src window offset", MULTI);
    E(pc, "ld differs between ranks (legal: each rank's own)", run_plan_create, PC_D_LD, OK, NULL,
      ANY);
    E(pc, "element size differs on the last rank", run_plan_create, PC_D_TYPE_SIZE, MIS,
      "element size", MULTI);
    E(pc, "MPI_FLOAT on the last rank, MPI_INT elsewhere (same size: legal)", run_plan_create,
      PC_D_TYPE_SAME_SIZE, OK, NULL, ANY);
    E(pc, "algorithm differs on the last rank", run_plan_create, PC_D_ALG, MIS, "algorithm", MULTI);
    E(pc, "algorithm NULL on the last rank, \"auto\" elsewhere (legal)", run_plan_create,
      PC_D_ALG_AUTO, OK, NULL, ANY);
    E(pc, "options NULL on the last rank, defaults elsewhere (legal)", run_plan_create,
      PC_D_OPT_NULL, OK, NULL, ANY);
    E(pc, "options.check_arguments differs on the last rank", run_plan_create, PC_D_CHECK, MIS,
      "options.check_arguments", MULTI);
    E(pc, "options.shared_memory differs on the last rank", run_plan_create, PC_D_SHM, MIS,
      "options.shared_memory", MULTI);
    E(pc, "options.transport differs on the last rank", run_plan_create, PC_D_TRANSPORT, MIS,
      "options.transport", MULTI);
    E(pc, "options.max_buffer_bytes differs on the last rank", run_plan_create, PC_D_MAXBUF, MIS,
      "options.max_buffer_bytes", MULTI);
    E(pc, "options.hybrid_degree differs on the last rank", run_plan_create, PC_D_HYBRID, MIS,
      "options.hybrid_degree", MULTI);
    E(pc, "options.bmmc_method differs on the last rank", run_plan_create, PC_D_BMMC_METHOD, MIS,
      "options.bmmc_method", MULTI);
    E(pc, "options.synchronous_receive differs on the last rank", run_plan_create, PC_D_SYNC, MIS,
      "options.synchronous_receive", MULTI);
    E(pc, "options.alltoall_algorithm differs on the last rank", run_plan_create, PC_D_A2A, MIS,
      "options.alltoall_algorithm", MULTI);
    E(pc, "options.alltoall_algorithm NULL on the last rank, \"auto\" elsewhere", run_plan_create,
      PC_D_A2A_NULL, MIS, "options.alltoall_algorithm", MULTI);
    E(pc, "options.permutation on the last rank only", run_plan_create, PC_D_PERM, MIS,
      "options.permutation", MULTI);
    E(pc, "the identity permutation on the last rank, NULL elsewhere", run_plan_create,
      PC_D_PERM_IDENTITY, MIS, "options.permutation", MULTI);
    E(pc, "options.alpha differs on the last rank", run_plan_create, PC_D_ALPHA, MIS,
      "options.alpha", MULTI);
    E(pc, "options.beta differs on the last rank", run_plan_create, PC_D_BETA, MIS, "options.beta",
      MULTI);
    E(pc, "options.conjugate differs on the last rank", run_plan_create, PC_D_CONJ, MIS,
      "options.conjugate", MULTI);
    E(pc, "ARG on rank 0, UNKNOWN_ALGORITHM on the last: the smallest code", run_plan_create,
      PC_TWO_ERRORS, UNK, "no-such-algorithm", MULTI);
    E(pc, "a bad argument on the last rank, a difference on rank 0: the error", run_plan_create,
      PC_ERROR_AND_MISMATCH, ARG, "plan", MULTI);

    /* redist_plan_create_inter. */
    const char *pi = "redist_plan_create_inter";
    E(pi, "valid (sanity)", run_inter, IN_OK, OK, NULL, MULTI);
    E(pi, "an intracommunicator", run_inter, IN_INTRA, ARG, "intracommunicator", MULTI);
    E(pi, "intercomm MPI_COMM_NULL", run_inter, IN_COMM_NULL, ARG, "intercomm", MULTI);
    E(pi, "is_source 2 in the source group", run_inter, IN_IS_SOURCE_2, ARG, "is_source", MULTI);
    E(pi, "is_source 2 on the last rank only", run_inter, IN_IS_SOURCE_2_LAST, ARG, "is_source",
      MULTI);
    E(pi, "is_source 1 in both groups", run_inter, IN_BOTH_SOURCE, ARG, "both groups", MULTI);
    E(pi, "the groups swap sides (legal)", run_inter, IN_SWAPPED, OK, NULL, MULTI);
    E(pi, "is_source 0 on one rank of the source group", run_inter, IN_MIXED, ARG, "within a group",
      MULTI3);
    E(pi, "is_source 2 on rank 0 only (the source group)", run_inter, IN_IS_SOURCE_2_RANK0, ARG,
      "within a group", MULTI3);
    E(pi, "a src rank == the source group's size", run_inter, IN_SRC_BEYOND, ARG, "source group",
      MULTI);
    E(pi, "plan (output) NULL", run_inter, IN_NULL_PLAN, ARG, "plan", MULTI);
    E(pi, "dst NULL on the last rank only", run_inter, IN_NULL_DST_LAST, ARG, "dst layout", MULTI);
    E(pi, "src block differs on the last rank", run_inter, IN_D_BLOCK, MIS, "src block", MULTI);
    E(pi, "unknown algorithm", run_inter, IN_ALG_UNKNOWN, UNK, "no-such-algorithm", MULTI);
    E(pi, "type MPI_DATATYPE_NULL on the last rank only", run_inter, IN_TYPE_NULL_LAST, ARG,
      "MPI_DATATYPE_NULL", MULTI);
    E(pi, "options.transport 9", run_inter, IN_OPT_BAD, ARG, "transport", MULTI);

    /* redist_plan_create_batch. */
    const char *pb = "redist_plan_create_batch";
    E(pb, "valid (sanity)", run_batch_create, BC_OK, OK, NULL, ANY);
    E(pb, "count 0", run_batch_create, BC_COUNT0, ARG, "count", ANY);
    E(pb, "count INT_MIN", run_batch_create, BC_COUNT_NEG, ARG, "count", ANY);
    E(pb, "src list NULL", run_batch_create, BC_NULL_SRC, ARG, "NULL", ANY);
    E(pb, "types list NULL", run_batch_create, BC_NULL_TYPES, ARG, "NULL", ANY);
    E(pb, "plan (output) NULL", run_batch_create, BC_NULL_PLAN, ARG, "plan", ANY);
    E(pb, "plan (output) NULL on the last rank only", run_batch_create, BC_NULL_PLAN_LAST, ARG,
      "plan", MULTI);
    E(pb, "count differs on the last rank", run_batch_create, BC_COUNT_DIFFERS, MIS, "count",
      MULTI);
    E(pb, "count 0 on the last rank only", run_batch_create, BC_COUNT0_LAST, ARG, "count", MULTI);
    E(pb, "algorithm direct", run_batch_create, BC_ALG_DIRECT, NA, "direct", ANY);
    E(pb, "unknown algorithm", run_batch_create, BC_ALG_UNKNOWN, UNK, "no-such-algorithm", ANY);
    E(pb, "options.max_buffer_bytes", run_batch_create, BC_MAXBUF, UNS, "bounded", ANY);
    E(pb, "the datatype transport", run_batch_create, BC_DATATYPE, UNS, "datatype", ANY);
    E(pb, "types[1] MPI_DATATYPE_NULL", run_batch_create, BC_TYPE_NULL_ELEM, ARG,
      "MPI_DATATYPE_NULL", ANY);
    E(pb, "dst[1] NULL on the last rank only", run_batch_create, BC_LAYOUT_NULL_ELEM, ARG,
      "dst layout is NULL", MULTI);
    E(pb, "types[0] a vector type", run_batch_create, BC_TYPE_VECTOR_ELEM, UNS, "contiguous", ANY);
    E(pb, "src[1] and dst[1] of different arrays", run_batch_create, BC_SHAPES_ELEM, ARG,
      "different arrays", ANY);
    E(pb, "comm MPI_COMM_NULL", run_batch_create, BC_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(pb, "an intercommunicator", run_batch_create, BC_COMM_INTER, UNS, "intercommunicator", MULTI);
    E(pb, "options.check_arguments 42", run_batch_create, BC_OPT_CHECK, ARG, "check_arguments",
      ANY);
    E(pb, "options.transport 7", run_batch_create, BC_OPT_TRANSPORT, ARG, "transport", ANY);
    E(pb, "options.shared_memory -1", run_batch_create, BC_OPT_SHM, ARG, "shared_memory", ANY);
    E(pb, "types[1]'s size differs on the last rank", run_batch_create, BC_D_TYPE, MIS,
      "element size", MULTI);
    E(pb, "array 1's layouts differ on the last rank", run_batch_create, BC_D_LAYOUT, MIS, "ranks",
      MULTI);
    E(pb, "options.check_arguments differs on the last rank", run_batch_create, BC_D_CHECK, MIS,
      "options.check_arguments", MULTI);
    E(pb, "options.alpha differs on the last rank", run_batch_create, BC_D_ALPHA, MIS,
      "options.alpha", MULTI);
    E(pb, "algorithm \"direct-async\" on the last rank, \"auto\" elsewhere", run_batch_create,
      BC_D_ALG, MIS, "algorithm", MULTI);

    /* redist_plan_create_bmmc. */
    const char *bm = "redist_plan_create_bmmc";
    E(bm, "valid (sanity)", run_bmmc_plan, BM_OK, OK, NULL, POW2);
    E(bm, "comm size not a power of two", run_bmmc_plan, BM_NOT_POW2, ARG, "power of two",
      NOT_POW2);
    E(bm, "n < lg P", run_bmmc_plan, BM_N_LT_P, ARG, "lg P", POW2 | MULTI);
    E(bm, "n < 0", run_bmmc_plan, BM_N_NEG, ARG, "n = -1", POW2);
    E(bm, "n 65", run_bmmc_plan, BM_N_65, ARG, "n", POW2);
    E(bm, "n 64 (2^64 elements)", run_bmmc_plan, BM_N_64, ARG, "2^62", POW2);
    E(bm, "n 62 of doubles (2^65 bytes)", run_bmmc_plan, BM_N_62, ARG, "2^63 bytes", POW2);
    E(bm, "n 50 (2^50 doubles)", run_bmmc_plan, BM_N_HUGE, NOMEM, NULL, POW2);
    E(bm, "f < 0", run_bmmc_plan, BM_F_NEG, ARG, "f", POW2);
    E(bm, "f > n - lg P", run_bmmc_plan, BM_F_BIG, ARG, "f", POW2);
    E(bm, "columns NULL", run_bmmc_plan, BM_COLS_NULL, ARG, "NULL", POW2);
    E(bm, "a singular matrix", run_bmmc_plan, BM_SINGULAR, ARG, "singular", POW2);
    E(bm, "a column with a bit at or above n", run_bmmc_plan, BM_STRAY, ARG, "column 0", POW2);
    E(bm, "complement with a bit at or above n", run_bmmc_plan, BM_COMPL_STRAY, ARG, "complement",
      POW2);
    E(bm, "plan (output) NULL", run_bmmc_plan, BM_NULL_PLAN, ARG, "plan", POW2);
    E(bm, "algorithm direct", run_bmmc_plan, BM_ALG_NA, NA, "direct", POW2);
    E(bm, "unknown algorithm", run_bmmc_plan, BM_ALG_UNKNOWN, UNK, "no-such-algorithm", POW2);
    E(bm, "options.permutation", run_bmmc_plan, BM_OPT_PERM, ARG, "permutation", POW2);
    E(bm, "options.alpha", run_bmmc_plan, BM_OPT_ALPHA, ARG, "alpha", POW2);
    E(bm, "options.bmmc_method 3", run_bmmc_plan, BM_OPT_METHOD, ARG, "bmmc_method", POW2);
    E(bm, "type MPI_DATATYPE_NULL", run_bmmc_plan, BM_TYPE_NULL, ARG, "MPI_DATATYPE_NULL", POW2);
    E(bm, "a vector type", run_bmmc_plan, BM_TYPE_VECTOR, UNS, "contiguous", POW2);
    E(bm, "comm MPI_COMM_NULL", run_bmmc_plan, BM_COMM_NULL, ARG, "MPI_COMM_NULL", POW2);
    E(bm, "an intercommunicator", run_bmmc_plan, BM_COMM_INTER, UNS, "intercommunicator",
      POW2 | MULTI);
    E(bm, "columns differ on the last rank", run_bmmc_plan, BM_D_COLS, MIS, "columns",
      POW2 | MULTI);
    E(bm, "n differs on the last rank", run_bmmc_plan, BM_D_N, MIS, "n", POW2 | MULTI);
    E(bm, "f differs on the last rank", run_bmmc_plan, BM_D_F, MIS, "f", POW2 | MULTI);
    E(bm, "complement differs on the last rank", run_bmmc_plan, BM_D_COMPL, MIS, "complement",
      POW2 | MULTI);
    E(bm, "options.bmmc_method differs on the last rank", run_bmmc_plan, BM_D_METHOD, MIS,
      "options.bmmc_method", POW2 | MULTI);
    E(bm, "element size differs on the last rank", run_bmmc_plan, BM_D_TYPE, MIS, "element size",
      POW2 | MULTI);
    E(bm, "a singular matrix on the last rank only", run_bmmc_plan, BM_SINGULAR_LAST, ARG,
      "singular", POW2 | MULTI);

    /* redist_relabel. */
    const char *rl = "redist_relabel";
    E(rl, "valid (sanity)", run_relabel, RL_OK, OK, NULL, ANY);
    E(rl, "kept and moved NULL (legal)", run_relabel, RL_NULL_KEPT_MOVED, OK, NULL, ANY);
    E(rl, "src NULL", run_relabel, RL_NULL_SRC, ARG, "NULL", ANY);
    E(rl, "dst NULL", run_relabel, RL_NULL_DST, ARG, "NULL", ANY);
    E(rl, "ranks_out NULL", run_relabel, RL_NULL_OUT, ARG, "NULL", ANY);
    E(rl, "ranks_out NULL on the last rank only", run_relabel, RL_NULL_OUT_LAST, ARG, "NULL",
      MULTI);
    E(rl, "src and dst extents differ", run_relabel, RL_SHAPES, ARG, "different arrays", ANY);
    E(rl, "a layout rank == comm size", run_relabel, RL_BEYOND, ARG, "rank", ANY);
    E(rl, "comm MPI_COMM_NULL", run_relabel, RL_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(rl, "an intercommunicator", run_relabel, RL_COMM_INTER, UNS, "intercommunicator", MULTI);
    E(rl, "dst's grid differs on the last rank", run_relabel, RL_D_DST, MIS, "dst", MULTI);
    E(rl, "src's block differs on the last rank", run_relabel, RL_D_SRC, MIS, "src block", MULTI);

    /* Execution, three ways. */
    static const struct {
        const char *bad;
        int v, want, when, flags;
        const char *detail;
    } ex[] = {
        {"valid (sanity)", EX_OK, REDIST_SUCCESS, ANY, 0, NULL},
        {"plan NULL", EX_NULL_PLAN, REDIST_ERR_ARG, ANY, 0, "plan"},
        {"src NULL on every rank (all hold data)", EX_NULL_SRC, REDIST_ERR_ARG, ANY, F_OWN_DETAIL,
         "src"},
        {"src NULL on the last rank only", EX_NULL_SRC_LAST, REDIST_ERR_ARG, MULTI, F_OWN_DETAIL,
         NULL},
        {"dst NULL on the last rank only", EX_NULL_DST_LAST, REDIST_ERR_ARG, MULTI, F_OWN_DETAIL,
         NULL},
        {"src MPI_IN_PLACE", EX_IN_PLACE_SRC, REDIST_ERR_ARG, ANY, 0, "MPI_IN_PLACE"},
        {"dst MPI_IN_PLACE on the last rank only", EX_IN_PLACE_DST_LAST, REDIST_ERR_ARG, MULTI,
         F_OWN_DETAIL, NULL},
        {"src and dst overlap", EX_OVERLAP, REDIST_ERR_ARG, ANY, 0, "overlap"},
        {"src and dst overlap on the last rank only", EX_OVERLAP_LAST, REDIST_ERR_ARG, MULTI,
         F_OWN_DETAIL, NULL},
        {"check_arguments 0, src NULL on every rank", EX_NOCHECK, REDIST_ERR_ARG, ANY, F_OWN_DETAIL,
         "src"},
    };
    static const char *const via_fn[3] = {"redist_execute", "redist_start + redist_wait",
                                          "redist_start + redist_test"};
    for (int w = 0; w < 3; w++)
        for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++)
            add(via_fn[w], ex[i].bad, run_execute, w * 100 + ex[i].v, ex[i].want, ex[i].detail,
                ex[i].when, ex[i].flags);
    E("redist_execute", "a BMMC plan, src NULL", run_execute, EX_BMMC_NULL, ARG, "src", POW2);
    EF("redist_start + redist_wait", "a BMMC plan, dst MPI_IN_PLACE on the last rank only",
       run_execute, VIA_WAIT + EX_BMMC_IN_PLACE_LAST, ARG, NULL, POW2 | MULTI, F_OWN_DETAIL);

    /* Plan states. */
    E("redist_start", "started twice: BUSY", run_state, ST_START_TWICE, BUSY, "in progress", ANY);
    E("redist_execute", "while a start is in flight: BUSY", run_state, ST_EXECUTE_WHILE_BUSY, BUSY,
      "in progress", ANY);
    E("redist_start_batch", "started twice: BUSY", run_state, ST_START_BATCH_TWICE, BUSY,
      "in progress", ANY);
    E("redist_test", "done NULL", run_state, ST_TEST_NULL_DONE, ARG, "NULL", ANY);
    E("redist_test", "done NULL while busy", run_state, ST_TEST_NULL_DONE_BUSY, ARG, "NULL", ANY);
    E("redist_test", "plan NULL", run_state, ST_TEST_NULL_PLAN, ARG, "NULL", ANY);
    E("redist_wait", "plan NULL", run_state, ST_WAIT_NULL_PLAN, ARG, "NULL", ANY);
    E("redist_test", "an idle plan: done, SUCCESS (MPI's inactive request)", run_state,
      ST_TEST_IDLE, OK, NULL, ANY);
    E("redist_wait", "an idle plan: SUCCESS at once", run_state, ST_WAIT_IDLE, OK, NULL, ANY);
    E("redist_wait", "twice after one start", run_state, ST_WAIT_TWICE, OK, NULL, ANY);
    E("redist_plan_free", "while an execution is in flight (waits)", run_state, ST_FREE_ACTIVE, OK,
      NULL, ANY);
    E("redist_execute", "the handle left by redist_plan_free", run_state, ST_USE_AFTER_FREE, ARG,
      "NULL", ANY);
    E("redist_start", "a batch plan", run_state, ST_START_ON_BATCH, ARG, "batch", ANY);
    E("redist_execute", "a batch plan", run_state, ST_EXECUTE_ON_BATCH, ARG, "batch", ANY);
    E("redist_start_batch", "a plan that is not a batch", run_state, ST_START_BATCH_ON_PLAIN, ARG,
      "batch", ANY);
    E("redist_execute_batch", "a plan that is not a batch", run_state, ST_EXECUTE_BATCH_ON_PLAIN,
      ARG, "batch", ANY);
    E("redist_plan_stats", "plan NULL", run_state, ST_STATS_NULL_PLAN, ARG, "NULL", ANY);
    E("redist_plan_stats", "stats NULL", run_state, ST_STATS_NULL_OUT, ARG, "NULL", ANY);
    EF("redist_plan_algorithm", "plan NULL: NULL", run_state, ST_ALGORITHM_NULL, OK, NULL, ANY,
       F_NO_DETAIL);
    E("redist_plan_free", "NULL", run_state, ST_FREE_NULL, ARG, "NULL", ANY);
    E("redist_plan_free", "a NULL handle (legal)", run_state, ST_FREE_NULL_HANDLE, OK, NULL, ANY);

    /* Batch execution. */
    const char *eb = "redist_execute_batch";
    E(eb, "valid (sanity)", run_batch_execute, BE_OK, OK, NULL, ANY);
    E("redist_start_batch + redist_wait", "valid (sanity)", run_batch_execute, BE_START_OK, OK,
      NULL, ANY);
    E(eb, "plan NULL", run_batch_execute, BE_NULL_PLAN, ARG, "NULL", ANY);
    E(eb, "src list NULL", run_batch_execute, BE_NULL_SRC_LIST, ARG, "array list", ANY);
    EF(eb, "dst list NULL on the last rank only", run_batch_execute, BE_NULL_DST_LIST_LAST, ARG,
       NULL, MULTI, F_OWN_DETAIL);
    EF(eb, "src[1] NULL on the last rank only (holds data)", run_batch_execute, BE_NULL_ELEM_LAST,
       ARG, NULL, MULTI, F_OWN_DETAIL);
    EF(eb, "dst[0] MPI_IN_PLACE on the last rank only", run_batch_execute, BE_IN_PLACE_LAST, ARG,
       NULL, MULTI, F_OWN_DETAIL);

    /* The basic operations. */
    for (int op = 0; op < NOPS; op++)
        for (int cls = 0; cls < NCLASSES; cls++) {
            const char *detail;
            int when, want = coll_want(op, cls, &detail, &when);
            if (want <= 0)
                add(op_names[op], class_names[cls], run_coll, op * 100 + cls, want, detail, when,
                    0);
        }
    const char *sc = "redist_coll_set_checking";
    E(sc, "off, then on (sanity)", run_set_checking, SC_OFF_ON, OK, NULL, ANY);
    E(sc, "on 2", run_set_checking, SC_ON_2, ARG, "on = 2", ANY);
    E(sc, "on differs on the last rank", run_set_checking, SC_DIFFERS, MIS, "on", MULTI);
    E(sc, "comm MPI_COMM_NULL", run_set_checking, SC_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(sc, "an intercommunicator", run_set_checking, SC_INTER, UNS, "intercommunicator", MULTI);
}

/* ---- outside MPI's lifetime: before MPI_Init, after MPI_Finalize ------------------------- */

/* Every collective entry point returns REDIST_ERR_MPI, at once, without calling MPI (which
   would be erroneous); local ones work. The calls go through MPI_COMM_WORLD and MPI_INT,
   whose handles are constants. */
enum {
    OUT_BCAST,
    OUT_ALLREDUCE,
    OUT_REDUCE,
    OUT_SET_CHECKING,
    OUT_RELABEL,
    OUT_PLAN,
    OUT_BATCH,
    OUT_INTER,
    OUT_BMMC,
    OUT_EXECUTE_NULL,
    OUT_FREE_NULL_HANDLE,
    OUT_LAYOUT,
    NOUT
};
static const struct {
    const char *what;
    int want;
} outside[NOUT] = {
    {"redist_bcast", REDIST_ERR_MPI},
    {"redist_allreduce", REDIST_ERR_MPI},
    {"redist_reduce", REDIST_ERR_MPI},
    {"redist_coll_set_checking", REDIST_ERR_MPI},
    {"redist_relabel", REDIST_ERR_MPI},
    {"redist_plan_create", REDIST_ERR_MPI},
    {"redist_plan_create_batch", REDIST_ERR_MPI},
    {"redist_plan_create_inter", REDIST_ERR_MPI},
    {"redist_plan_create_bmmc", REDIST_ERR_MPI},
    {"redist_execute(NULL plan)", REDIST_ERR_ARG},
    {"redist_plan_free(&NULL handle)", REDIST_SUCCESS},
    {"redist_layout_create, _local_size, _free (local)", REDIST_SUCCESS},
};

static void outside_mpi(int rc[NOUT], int handles_set[NOUT])
{
    int64_t n = 16, b = 2, count = 0;
    int grid = 1, buf[4] = {0}, out[1];
    uint64_t cols[4];
    redist_bmmc_identity(4, cols);
    redist_layout l = NULL;
    redist_layout_create(1, &n, &b, &grid, NULL, NULL, REDIST_ROW_MAJOR, &l);
    MPI_Datatype types[1] = {MPI_INT};
    for (int i = 0; i < NOUT; i++) {
        redist_plan plan = garbage();
        handles_set[i] = 0;
        switch (i) {
        case OUT_BCAST:
            rc[i] = redist_bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD, NULL);
            break;
        case OUT_ALLREDUCE:
            rc[i] = redist_allreduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL);
            break;
        case OUT_REDUCE:
            rc[i] = redist_reduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, NULL);
            break;
        case OUT_SET_CHECKING:
            rc[i] = redist_coll_set_checking(MPI_COMM_WORLD, 1);
            break;
        case OUT_RELABEL:
            rc[i] = redist_relabel(l, l, MPI_COMM_WORLD, out, NULL, NULL);
            break;
        case OUT_PLAN:
            rc[i] = redist_plan_create(l, l, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_BATCH:
            rc[i] = redist_plan_create_batch(1, &l, &l, types, MPI_COMM_WORLD, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_INTER:
            rc[i] = redist_plan_create_inter(l, l, MPI_INT, MPI_COMM_WORLD, 1, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_BMMC:
            rc[i] = redist_plan_create_bmmc(4, 0, cols, 0, MPI_INT, MPI_COMM_WORLD, NULL, &plan);
            handles_set[i] = plan != NULL;
            break;
        case OUT_EXECUTE_NULL:
            rc[i] = redist_execute(NULL, buf, buf + 1);
            break;
        case OUT_FREE_NULL_HANDLE:
            plan = NULL;
            rc[i] = redist_plan_free(&plan);
            break;
        case OUT_LAYOUT:
            rc[i] = l == NULL ? REDIST_ERR_ARG : redist_layout_local_size(l, 0, &count);
            if (rc[i] == REDIST_SUCCESS && count != 16)
                rc[i] = NOT_AS_DOCUMENTED;
            break;
        }
    }
    redist_layout_free(&l);
}

/* Returns the number of calls that did not do as documented (printed, with `when`). */
static int report_outside(const char *when, const int rc[NOUT], const int handles_set[NOUT])
{
    int bad = 0;
    for (int i = 0; i < NOUT; i++) {
        if (rc[i] != outside[i].want || handles_set[i]) {
            printf("[rank %d] %s: %s returned %s (expected %s)%s\n", rank, when, outside[i].what,
                   redist_error_name(rc[i]), redist_error_name(outside[i].want),
                   handles_set[i] ? ", and *plan is not NULL" : "");
            bad++;
        }
    }
    fflush(stdout);
    return bad;
}

/* ---- the driver ---------------------------------------------------------------------------- */

static char sentinel[512];

/* A detail no entry produces, so that an error that records none is seen. */
static void set_sentinel(void)
{
    redist_bmmc_identity(-77, NULL);
}

static int applies(int when)
{
    int pow2 = (size & (size - 1)) == 0;
    return !((when & MULTI) && size < 2) && !((when & MULTI3) && size < 3) &&
           !((when & POW2) && !pow2) && !((when & NOT_POW2) && pow2);
}

static uint64_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; s != NULL && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static volatile sig_atomic_t in_case; /* for the crash handler */
static char crash_line[400];
static size_t crash_len;

static void on_crash(int sig)
{
    if (in_case) {
        ssize_t ignored = write(STDOUT_FILENO, crash_line, crash_len);
        (void)ignored;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_crash_handlers(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return; /* ASan's report names the place */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return;
#endif
#endif
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGABRT, on_crash);
    signal(SIGILL, on_crash);
}

static int ran, skipped;

static void run_entry(const entry *e)
{
    if (!applies(e->when)) {
        skipped++;
        return;
    }
    ran++;
    snprintf(case_name, sizeof case_name, "%s: %s", e->function, e->bad);
    int n = snprintf(crash_line, sizeof crash_line, "[rank %d] crashed in: %s\n", rank, case_name);
    crash_len = n < 0 ? 0 : (size_t)n < sizeof crash_line ? (size_t)n : sizeof crash_line - 1;
    if (verbose && rank == 0) {
        printf("%s", case_name);
        fflush(stdout);
    }
    double t0 = MPI_Wtime();
    set_sentinel();
    mtest_watchdog(case_seconds, rank, "%s", case_name);
    in_case = 1;
    int rc = e->run(e->v);
    in_case = 0;
    mtest_watchdog(0, rank, "%s", "");
    if (verbose && rank == 0)
        printf(" (%.3f s)\n", MPI_Wtime() - t0);

    int mn, mx;
    MPI_Allreduce(&rc, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&rc, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const char *d = redist_last_error_detail();
    if (mn != mx)
        fail("different codes on different ranks: %s (%d) here, min %d, max %d; detail \"%s\"",
             redist_error_name(rc), rc, mn, mx, d ? d : "(NULL)");
    if (rc != e->want) {
        if (rc == NOT_AS_DOCUMENTED)
            fail("the result is not the documented one");
        else
            fail("returned %s, expected %s; detail \"%s\"", redist_error_name(rc),
                 redist_error_name(e->want), d ? d : "(NULL)");
    }
    const char *msg = redist_strerror(rc);
    if (msg == NULL || msg[0] == '\0')
        fail("redist_strerror(%d) is empty", rc);
    int check_detail = rc < 0 && rc != NOT_AS_DOCUMENTED && !(e->flags & F_NO_DETAIL);
    if (check_detail) {
        if (d == NULL || d[0] == '\0')
            fail("%s without a detail", redist_error_name(rc));
        else if (strcmp(d, sentinel) == 0)
            fail("%s without a detail of its own (the previous one is still there)",
                 redist_error_name(rc));
        else if (e->detail != NULL && rc == e->want && strstr(d, e->detail) == NULL)
            fail("the detail \"%s\" does not mention \"%s\"", d, e->detail);
    }
    /* Collective calls: every rank reads the failing rank's detail. */
    uint64_t h = check_detail && !(e->flags & F_OWN_DETAIL) ? hash_string(d) : 0, hmin, hmax;
    MPI_Allreduce(&h, &hmin, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hmax, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (mn == mx && hmin != hmax)
        fail("the ranks read different details; here \"%s\"", d ? d : "(NULL)");
}

int main(int argc, char **argv)
{
    int before[NOUT], before_set[NOUT], after[NOUT], after_set[NOUT];
    outside_mpi(before, before_set); /* no MPI call may come before this */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* MPI's default error handlers stay: see the top of the file. */
    last = size - 1;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        verbose |= strcmp(argv[i], "-v") == 0;
        list |= strcmp(argv[i], "--list") == 0;
    }
    const char *secs = getenv("CATALOGUE_SECONDS");
    if (secs != NULL && atoi(secs) > 0)
        case_seconds = atoi(secs);
    install_crash_handlers();
    set_sentinel();
    snprintf(sentinel, sizeof sentinel, "%s", redist_last_error_detail());

    build_catalogue();
    if (list) {
        if (rank == 0)
            for (int i = 0; i < nentries; i++)
                printf("%-34s %-70s %s\n", table[i].function, table[i].bad,
                       redist_error_name(table[i].want));
        MPI_Finalize();
        return 0;
    }
    cbuf_s = calloc((size_t)size * 64 + 64, 1);
    cbuf_r = calloc((size_t)size * 64 + 64, 1);
    make_fixtures();
    double t0 = MPI_Wtime();
    for (int i = 0; i < nentries; i++)
        run_entry(&table[i]);
    double t = MPI_Wtime() - t0;
    free_fixtures();
    free(cbuf_s);
    free(cbuf_r);
    errs += report_outside("before MPI_Init", before, before_set);
    if (rank == 0)
        printf("test_catalogue: %d entries and %d calls outside MPI's lifetime, %d run, %d "
               "skipped at %d ranks, %.2f s\n",
               nentries, 2 * NOUT, ran, skipped, size, t);
    int status = mtest_finalize(errs);
    outside_mpi(after, after_set);
    int bad = report_outside("after MPI_Finalize", after, after_set);
    return status != 0 || bad != 0;
}
