/* link: scalapack dropin */
/* The drop-in as ScaLAPACK's own programs call it: libredist_scalapack linked before
 * ScaLAPACK, so that Cp?gemr2d, p?gemr2d_, Cp?trmr2d, p?trmr2d_ and PBLAS's p?tran*_ are
 * redist's, against ScaLAPACK's own routines (reached with dlsym in ScaLAPACK's library),
 * for every element of every process's local B (padding included). Both results are also
 * checked against what the call must leave, computed from the fill formulas (every element
 * is a function of its global index) and the arguments alone: redist must match it; where
 * ScaLAPACK's result differs from it, the test prints a note and goes on, as the error is
 * the peer's (test_scalapack.c's rule: Debian 12's libscalapack-mpich gets some
 * single-precision cases wrong at 7 processes).
 *
 * The cases are of the kinds REDIST/TESTING's GEMR2D.dat and TRMR2D.dat hold, drawn by the
 * test (--seed S, printed; --cases C; --case K): sub-matrices at any offset, grids of 1-4
 * processes (sometimes more) made as the testers make them (Cblacs_gridinit "R" over the
 * first processes; the union context an nprocs x 1 grid) or by Cblacs_gridmap over a random
 * subset in random order, any RSRC/CSRC and blocks, RSRC or CSRC = -1 (a matrix replicated
 * over the process rows or columns) too. And with the testers' habits
 * (pdgemrdrv.c, pdtrmrdrv.c): DTYPE left uninitialised (0 or garbage) on some processes;
 * LLD exactly the local rows, so 0 on a process row with no rows, on the A and the B side;
 * on processes outside a grid, garbage in every descriptor entry but CTXT = -1 and in ia,
 * ja; NULL local arrays where a process holds nothing; UPLO and DIAG as "UPPER", "lower",
 * "NONUNIT", ... or any other letter (which ScaLAPACK reads as lower, and as "no diagonal"
 * for an upper and "diagonal" for a lower trapezoid); along a grid dimension of one
 * process or a replicated one, block sizes that differ between processes (ScaLAPACK uses
 * none there; for p?tran also first blocks IMB != MB there). Each
 * call is made through the C and then the Fortran entry point (the second one from the
 * plan cache). M or N = 0 comes with garbage everywhere else (ScaLAPACK reads nothing then).
 * A replicated matrix in p?gemr2d / p?trmr2d is redist's extension (ScaLAPACK's routines exit
 * on RSRC = -1): those calls are checked against the expected result alone, on every replica
 * of B (every local element: the sub-matrix's from A, the rest untouched); a replicated
 * p?tran operand is compared with PBLAS's own result too.
 *
 * Refusals, where ScaLAPACK exits (REDIST/SRC/pgemraux.c) or PBLAS aborts (PB_Cchkmat): LLD
 * below the local rows on one process (-1 where it has none), RSRC outside the grid, a
 * sub-matrix past the end, MB = 0; for p?tran: DTYPE not 1 or 2 on one process, LLD = 0,
 * LLD below the local rows where the process has columns, IA = 0, C in another context,
 * M = 0 with a bad DTYPE (PBLAS checks before its quick return), RSRC = -2; RSRC = -1 on one
 * process only (REDIST_ERR_MISMATCH, where PBLAS's processes would each use their own); and
 * what PBLAS accepts and redist cannot do, REDIST_ERR_UNSUPPORTED: a first block IMB != MB
 * (DTYPE 2) along a grid dimension of several processes, not replicated. Every process of the
 * context must get the one expected code, and B (C) must be untouched. p?tran's accepted
 * cases include PBLAS's own relaxations: LLD = 1 where a process has rows but no columns,
 * DTYPE 2 descriptors (eleven entries) with IMB = MB, and IMB != MB along a dimension of
 * one process. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

#include "support/blacs.h"

typedef void (*c_gemr_fn)(int, int, void *, int, int, int *, void *, int, int, int *, int);
typedef void (*f_gemr_fn)(int *, int *, void *, int *, int *, int *, void *, int *, int *, int *,
                          int *);
typedef void (*c_trmr_fn)(char *, char *, int, int, void *, int, int, int *, void *, int, int,
                          int *, int);
typedef void (*f_trmr_fn)(char *, char *, int *, int *, void *, int *, int *, int *, void *, int *,
                          int *, int *, int *);
typedef void (*tran_fn)(int *, int *, void *, void *, int *, int *, int *, void *, void *, int *,
                        int *, int *);

typedef struct {
    char letter;
    size_t size;
    int parts; /* 2 for complex */
    mtest_scalar scalar;
} type_t;

static const type_t types[] = {{'s', 4, 1, MTEST_FLOAT},
                               {'d', 8, 1, MTEST_DOUBLE},
                               {'c', 8, 2, MTEST_FLOAT},
                               {'z', 16, 2, MTEST_DOUBLE},
                               {'i', 4, 1, MTEST_INT}};

static int me, np, errs, calls_compared, peer_differs;
/* Accepted process-calls with a habit of ScaLAPACK's testers: DTYPE not 1, LLD 0 (no rows);
   refused ones; accepted ones with a matrix replicated over several processes, p?gemr2d /
   p?trmr2d (redist's extension) and p?tran (compared with PBLAS). */
static int calls_unset_dtype, calls_lld_zero, calls_refused, calls_replicated[2];
static uint64_t rng;
static void *scalapack_lib; /* ScaLAPACK's library, where its own routines are found */

static int rnd(int lo, int hi) /* inclusive; the same draw on every process */
{
    return (int)mtest_rand(&rng, lo, hi);
}

/* A draw for each process, every process drawing all of them: this process's. */
static int rnd_mine(int lo, int hi)
{
    int mine = lo;
    for (int p = 0; p < np; p++) {
        int v = rnd(lo, hi);
        if (p == me)
            mine = v;
    }
    return mine;
}

/* A routine by name: ScaLAPACK's own (from its library), or the one a program linked with
   libredist_scalapack first binds to (the default scope). */
static void *routine(const char *name, int own)
{
    void *f = dlsym(own ? scalapack_lib : RTLD_DEFAULT, name);
    if (f == NULL) {
        fprintf(stderr, "[rank %d] no %s: %s\n", me, name, dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return f;
}

/* ScaLAPACK's library, and a check that the default scope binds the names to redist's. */
static void open_scalapack(void)
{
    scalapack_lib = dlopen(REDIST_SCALAPACK_LIB, RTLD_NOW | RTLD_NOLOAD);
    if (scalapack_lib == NULL) {
        fprintf(stderr, "[rank %d] %s is not loaded: %s\n", me, REDIST_SCALAPACK_LIB, dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static const char *names[] = {"Cpdgemr2d", "pdgemr2d_", "Cpztrmr2d", "pitrmr2d_", "pztranc_"};
    for (int i = 0; i < 5; i++) {
        Dl_info info;
        void *bound = routine(names[i], 0);
        if (bound == routine(names[i], 1) || !dladdr(bound, &info) ||
            strstr(info.dli_fname, "redist_scalapack") == NULL)
            mtest_fail(&errs, me, "binding", "%s is not libredist_scalapack's", names[i]);
    }
}

typedef struct {
    int ctxt, rows, cols, row, col; /* this process's handle and place (-1 outside) */
    int procs[64];                  /* world rank of grid process (r, c): procs[r * cols + c] */
} grid_t;

/* A rows x cols grid over procs[] (world ranks, row-major), made by Cblacs_gridmap. */
static void grid_map(grid_t *g, const int *procs, int rows, int cols)
{
    int sys = 0, map[64];
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            map[i + j * rows] = procs[i * cols + j];
    Cblacs_get(0, 0, &sys);
    Cblacs_gridmap(&sys, map, rows, rows, cols);
    g->ctxt = sys;
    g->rows = rows;
    g->cols = cols;
    memcpy(g->procs, procs, (size_t)(rows * cols) * sizeof *procs);
    Cblacs_gridinfo(g->ctxt, &rows, &cols, &g->row, &g->col);
    if (g->ctxt < 0 || g->row < 0 || g->row >= g->rows || g->col < 0 || g->col >= g->cols)
        g->ctxt = g->row = g->col = -1;
}

/* As the testers: Cblacs_gridinit in row order over processes 0 .. rows * cols - 1. */
static void grid_init(grid_t *g, int rows, int cols)
{
    int procs[64];
    for (int i = 0; i < rows * cols; i++)
        procs[i] = i;
    grid_map(g, procs, rows, cols);
}

/* A grid of 1 .. maxp processes among the union's members[0 .. nu-1], in the testers' way
   when the union holds processes 0 .. nu-1, else over a random subset in random order. */
static void sub_grid(grid_t *g, const int *members, int nu, int testers_union, int maxp)
{
    int p = rnd(1, nu < maxp ? nu : maxp), rows, cols, pick[64];
    mtest_factor(&rng, p, &rows, &cols);
    if (testers_union && rnd(0, 1)) {
        grid_init(g, rows, cols);
        return;
    }
    memcpy(pick, members, (size_t)nu * sizeof *pick);
    mtest_shuffle(&rng, pick, nu);
    grid_map(g, pick, rows, cols);
}

static void grid_free(grid_t *g)
{
    if (g->ctxt != -1)
        Cblacs_gridexit(g->ctxt);
}

/* ---- matrices -------------------------------------------------------------------------- */
enum { DTYPE_, CTXT_, M_, N_ };

typedef struct {
    const grid_t *g;
    int desc[11]; /* ScaLAPACK's nine entries, or PBLAS's eleven (DTYPE 2) */
    int M, N, mb, nb, rsrc, csrc, imb, inb; /* drawn (desc holds them where this process is in) */
    int own_blocks;       /* along a grid dimension of one process or a replicated one, each process
                             passes its own block */
    int64_t rows, cols;   /* of this process's local array (0 outside the grid) */
    int64_t elements;     /* allocated: max(LLD, rows) x cols; 0: the array is NULL */
    unsigned char *local; /* NULL where elements = 0, as the testers' setmemory gives */
} matrix_t;

/* PBLAS's PB_Cnumroc with I = 0: first block inb, then nb, from src over p (src -1: all). */
static int pb_numroc(int n, int inb, int nb, int proc, int src, int p)
{
    if (src == -1 || p == 1)
        return n;
    int rest = n > inb ? n - inb : 0, next = (src + 1) % p, zero = 0, dist = (proc - next + p) % p;
    int share = numroc_(&rest, &nb, &dist, &zero, &p);
    return proc == src ? (n < inb ? n : inb) + share : share;
}

/* The global row or column of local index l: first block inb, then nb (src -1: l itself). */
static int64_t global_index(int64_t l, int inb, int nb, int src, int p, int c)
{
    if (src == -1 || p == 1)
        return l;
    if (c == src)
        return l < inb ? l : inb + mtest_global_of(l - inb, nb, p, (src + 1) % p, c);
    return inb + mtest_global_of(l, nb, p, (src + 1) % p, c);
}

/* Garbage as an uninitialised variable holds it. */
static int garbage(void)
{
    return rnd_mine(-100000, 100000);
}

/* DTYPE as the testers leave it: 1 where they set it, else 0 or garbage (all drawn). */
static int testers_dtype(void)
{
    int set = rnd_mine(0, 2) == 0, zero = rnd_mine(0, 1), g = garbage();
    return set ? 1 : zero ? 0 : g;
}

/* This process's descriptor of an M x N matrix on g; lld_habit: how LLD is chosen here. */
enum { LLD_EXACT, LLD_DESCINIT, LLD_PADDED, LLD_ONE_IF_NO_COLUMNS };

static void describe(matrix_t *mt, int dtype, int lld_habit)
{
    const grid_t *g = mt->g;
    int M = mt->M, N = mt->N;
    for (int i = 0; i < 11; i++)
        mt->desc[i] = garbage();
    mt->desc[CTXT_] = -1;
    mt->rows = mt->cols = mt->elements = 0;
    int pad = rnd_mine(1, 3), own_mb = rnd_mine(1, 40), own_nb = rnd_mine(1, 40);
    if (g->ctxt == -1)
        return;
    int rows = pb_numroc(M, mt->imb, mt->mb, g->row, mt->rsrc, g->rows);
    int cols = pb_numroc(N, mt->inb, mt->nb, g->col, mt->csrc, g->cols);
    int lld = rows; /* LLD_EXACT: the testers' localsize, 0 without rows */
    if (lld_habit == LLD_DESCINIT)
        lld = rows > 1 ? rows : 1;
    else if (lld_habit == LLD_PADDED)
        lld = (rows > 1 ? rows : 1) + pad;
    else if (lld_habit == LLD_ONE_IF_NO_COLUMNS)
        lld = cols == 0 ? 1 : (rows > 1 ? rows : 1);
    mt->rows = rows;
    mt->cols = cols;
    mt->elements = (int64_t)(lld > rows ? lld : rows) * cols;
    int nine[9] = {dtype,
                   g->ctxt,
                   M,
                   N,
                   mt->own_blocks && (g->rows == 1 || mt->rsrc == -1) ? own_mb : mt->mb,
                   mt->own_blocks && (g->cols == 1 || mt->csrc == -1) ? own_nb : mt->nb,
                   mt->rsrc,
                   mt->csrc,
                   lld};
    int eleven[11] = {2, g->ctxt, M, N, mt->imb, mt->inb, mt->mb, mt->nb, mt->rsrc, mt->csrc, lld};
    if (dtype == 2)
        memcpy(mt->desc, eleven, sizeof eleven);
    else
        memcpy(mt->desc, nine, sizeof nine);
}

/* An M x N matrix on g: blocks, first blocks and first coordinates (-1, replicated, for a
   quarter of the dimensions where `replicate`), drawn. */
static void draw_matrix(matrix_t *mt, const grid_t *g, int M, int N, int replicate)
{
    mt->g = g;
    mt->M = M;
    mt->N = N;
    /* Blocks of a quarter of the matrix or more often leave a process row or column without
       anything (LLD 0 there). */
    mt->mb = rnd(0, 1) ? rnd(1, 8) : rnd(M / 4 + 1, 2 * M + 10);
    mt->nb = rnd(0, 1) ? rnd(1, 8) : rnd(N / 4 + 1, 2 * N + 10);
    mt->imb = mt->mb;
    mt->inb = mt->nb;
    mt->own_blocks = 0;
    mt->rsrc = rnd(0, g->rows - 1);
    mt->csrc = rnd(0, g->cols - 1);
    if (replicate && rnd(0, 3) == 0)
        mt->rsrc = -1;
    if (replicate && rnd(0, 3) == 0)
        mt->csrc = -1;
}

static int replicated(const matrix_t *mt)
{
    return mt->rsrc == -1 || mt->csrc == -1;
}

/* Replicated along a grid dimension of several processes, where this process is in the grid. */
static int replicas(const matrix_t *mt)
{
    return mt->g->ctxt != -1 &&
           ((mt->rsrc == -1 && mt->g->rows > 1) || (mt->csrc == -1 && mt->g->cols > 1));
}

/* The value of global element (gi, gj) (part k) of the matrix filled with salt: small
   integers, exact in every type; padding (gi < 0) gets its own. */
static double value_of(int64_t gi, int64_t gj, int k, int salt)
{
    if (gi < 0)
        return -1.0 - (double)((gj * 3 + k + salt) % 7);
    return (double)(1 + (gi * 7 + gj * 13 + k * 5 + salt * 3) % 29);
}

/* The global row and column of local element l of mt's array (0 < elements); the row is -1
   where l is LLD padding. */
static void global_of(const matrix_t *mt, int64_t l, int64_t *gi, int64_t *gj)
{
    int64_t ld = mt->elements / mt->cols, li = l % ld, lj = l / ld;
    *gj = global_index(lj, mt->inb, mt->nb, mt->csrc, mt->g->cols, mt->g->col);
    *gi = li < mt->rows ? global_index(li, mt->imb, mt->mb, mt->rsrc, mt->g->rows, mt->g->row) : -1;
}

/* This process's local array of mt, every element from its global index (padding rows
   marked), allocated as the testers do. */
static void fill(matrix_t *mt, const type_t *t, int salt)
{
    mt->local = mt->elements > 0 ? malloc((size_t)mt->elements * t->size) : NULL;
    for (int64_t l = 0; l < mt->elements; l++) {
        int64_t gi, gj;
        global_of(mt, l, &gi, &gj);
        for (int k = 0; k < t->parts; k++)
            mtest_set_part(t->scalar, t->parts, mt->local, l, k, value_of(gi, gj, k, salt));
    }
}

static unsigned char *copy_of(const matrix_t *mt, const type_t *t)
{
    unsigned char *c = malloc((size_t)mt->elements * t->size + 1);
    if (mt->elements > 0)
        memcpy(c, mt->local, (size_t)mt->elements * t->size);
    return c;
}

/* Counts the habits this process's call showed (its descriptors where it is in the grid);
   replicated: 0 for p?gemr2d / p?trmr2d with a replicated matrix, 1 for p?tran, else -1. */
static void count_habits(const matrix_t *a, const matrix_t *b, int want_code, int replicated)
{
    const matrix_t *both[2] = {a, b};
    int unset = 0, zero = 0;
    for (int i = 0; i < 2; i++) {
        int dtype = both[i]->desc[DTYPE_], lld = both[i]->desc[dtype == 2 ? 10 : 8];
        unset |= both[i]->g->ctxt != -1 && dtype != 1 && dtype != 2;
        zero |= both[i]->g->ctxt != -1 && lld == 0;
    }
    calls_unset_dtype += unset && want_code == REDIST_SUCCESS;
    calls_lld_zero += zero && want_code == REDIST_SUCCESS;
    calls_refused += want_code != REDIST_SUCCESS;
    if (replicated >= 0)
        calls_replicated[replicated] += (replicas(a) || replicas(b)) && want_code == REDIST_SUCCESS;
}

/* After a call: the outcome on this process, and every element of its B against want. */
static void check(const char *what, const type_t *t, int want_code, const matrix_t *b,
                  const unsigned char *want, const matrix_t *a, const unsigned char *a_before,
                  int replicated)
{
    count_habits(a, b, want_code, replicated);
    const char *detail = NULL;
    int rc = redist_scalapack_last_error(&detail);
    if (rc != want_code)
        mtest_fail(&errs, me, what, "got %s (%s), want %s", redist_strerror(rc), detail,
                   redist_strerror(want_code));
    int64_t bad = mtest_first_difference(t->scalar, t->parts, b->local, want, b->elements);
    if (bad)
        mtest_fail(&errs, me, what, "local element %lld of B: %g, want %g", (long long)bad - 1,
                   mtest_get_part(t->scalar, t->parts, b->local, bad - 1, 0),
                   mtest_get_part(t->scalar, t->parts, want, bad - 1, 0));
    if ((bad = mtest_first_difference(t->scalar, t->parts, a->local, a_before, a->elements)) != 0)
        mtest_fail(&errs, me, what, "local element %lld of A was changed", (long long)bad - 1);
    calls_compared++;
}

/* A routine as the test calls it. call: one call on this process with args, ScaLAPACK's own
   routine (own = 1) or the drop-in's (call 0 and 1: the C and the Fortran entry point where
   both exist), writing out (B's or C's local array). expect: what that call leaves in out
   (B's local array as filled), computed from the fill formulas alone. */
typedef struct {
    void (*call)(const void *args, int own, int call, matrix_t *a, matrix_t *b, void *out);
    void (*expect)(const void *args, const type_t *t, const matrix_t *b, unsigned char *out);
    int tran; /* PBLAS's p?tran */
} routine_t;

/* A ScaLAPACK result that differs from the expected one: the peer's error, noted, not failed
   (Debian 12's libscalapack-mpich gets some single-precision cases wrong at 7 processes). */
static void note_peer(const char *what, int64_t element)
{
    peer_differs++;
    printf("[rank %d] note: ScaLAPACK's own result differs from the expected one at local "
           "element %lld: %s\n",
           me, (long long)element, what);
}

/* A and B filled; what the call must leave in B, and ScaLAPACK's own result, which must be
   the same (unless ScaLAPACK would exit or abort: want_code is not SUCCESS, or the call is
   redist's extension; where it is not, noted); then two calls of the drop-in, each checked for
   its outcome and every element of B. */
static void compare(const char *what, const type_t *t, int want_code, int extension,
                    const routine_t *r, const void *args, matrix_t *a, matrix_t *b)
{
    fill(a, t, 1);
    fill(b, t, 2);
    unsigned char *want = copy_of(b, t), *a_before = copy_of(a, t);
    if (want_code == REDIST_SUCCESS)
        r->expect(args, t, b, want);
    if (want_code == REDIST_SUCCESS && !extension) {
        unsigned char *peer = copy_of(b, t);
        r->call(args, 1, 0, a, b, peer);
        int64_t bad = mtest_first_difference(t->scalar, t->parts, peer, want, b->elements);
        if (bad)
            note_peer(what, bad - 1);
        free(peer);
    }
    for (int call = 0; call < 2; call++) {
        unsigned char *before = copy_of(b, t);
        r->call(args, 0, call, a, b, b->local);
        check(what, t, want_code, b, want, a, a_before, r->tran ? 1 : extension ? 0 : -1);
        if (b->elements > 0)
            memcpy(b->local, before, (size_t)b->elements * t->size);
        free(before);
    }
    free(want);
    free(a_before);
    free(a->local);
    free(b->local);
}

/* ---- p?gemr2d and p?trmr2d ------------------------------------------------------------- */
typedef struct {
    const type_t *t;
    int m, n, ia, ja, ib, jb, ictxt; /* as passed (garbage where not read) */
    int ia0, ja0, ib0, jb0;          /* as drawn */
    char uplo[8], diag[8];           /* "" for gemr2d */
} mr2d_args;

static const char *const uplos[] = {"UPPER", "LOWER", "u", "l", "X"};
static const char *const diags[] = {"UNIT", "NONUNIT", "u", "n", "?"};

/* A caller of p?gemr2d / p?trmr2d: ScaLAPACK's own is its C routine. */
static void call_mr2d(const void *args, int own, int fortran, matrix_t *a, matrix_t *b, void *bdata)
{
    mr2d_args *x = (mr2d_args *)args;
    const type_t *t = x->t;
    char name[16];
    int tri = x->uplo[0] != '\0';
    snprintf(name, sizeof name, fortran ? "p%c%smr2d_" : "Cp%c%smr2d", t->letter,
             tri ? "tr" : "ge");
    void *f = routine(name, own);
    if (fortran && tri)
        ((f_trmr_fn)f)(x->uplo, x->diag, &x->m, &x->n, a->local, &x->ia, &x->ja, a->desc, bdata,
                       &x->ib, &x->jb, b->desc, &x->ictxt);
    else if (fortran)
        ((f_gemr_fn)f)(&x->m, &x->n, a->local, &x->ia, &x->ja, a->desc, bdata, &x->ib, &x->jb,
                       b->desc, &x->ictxt);
    else if (tri)
        ((c_trmr_fn)f)(x->uplo, x->diag, x->m, x->n, a->local, x->ia, x->ja, a->desc, bdata, x->ib,
                       x->jb, b->desc, x->ictxt);
    else
        ((c_gemr_fn)f)(x->m, x->n, a->local, x->ia, x->ja, a->desc, bdata, x->ib, x->jb, b->desc,
                       x->ictxt);
}

/* Whether element (i, j) of the m x n sub-matrix is in x's trapezoid, as ScaLAPACK's
   insidemat (REDIST/SRC/p?trmr2.c) reads UPLO and DIAG; every element for gemr2d. */
static int in_trapezoid(const mr2d_args *x, int64_t i, int64_t j)
{
    int64_t m = x->m, n = x->n, d = toupper((unsigned char)x->diag[0]);
    if (x->uplo[0] == '\0')
        return 1;
    if (toupper((unsigned char)x->uplo[0]) == 'U') {
        int64_t rows = (m > n ? m - n : 0) + j + (d == 'N');
        return i < (rows < m ? rows : m);
    }
    return i >= j - (n > m ? n - m : 0) + (d == 'U');
}

/* p?gemr2d / p?trmr2d: B's elements in the sub-matrix (and trapezoid) take A's values. */
static void expect_mr2d(const void *args, const type_t *t, const matrix_t *b, unsigned char *out)
{
    const mr2d_args *x = args;
    for (int64_t l = 0; l < b->elements; l++) {
        int64_t gi, gj;
        global_of(b, l, &gi, &gj);
        int64_t i = gi - (x->ib0 - 1), j = gj - (x->jb0 - 1);
        if (gi < 0 || i < 0 || i >= x->m || j < 0 || j >= x->n || !in_trapezoid(x, i, j))
            continue;
        for (int k = 0; k < t->parts; k++)
            mtest_set_part(t->scalar, t->parts, out, l, k,
                           value_of(x->ia0 - 1 + i, x->ja0 - 1 + j, k, 1));
    }
}

static const routine_t mr2d_routine = {call_mr2d, expect_mr2d, 0};

/* Breaks one argument ScaLAPACK exits on (pgemraux.c's paramcheck) where this process is in
   the grid; *broke: whether it broke anything here. Returns what it broke. */
static const char *break_mr2d(mr2d_args *x, matrix_t *a, matrix_t *b, int *broke)
{
    matrix_t *side = rnd(0, 1) ? a : b;
    int kind = rnd(0, 3), victim = rnd(0, np - 1);
    *broke = side->g->ctxt != -1;
    if (kind == 0) { /* LLD one below the local rows (-1 without rows) on one process */
        *broke = me == victim && side->g->ctxt != -1;
        if (*broke)
            side->desc[8] = (int)side->rows - 1;
        return "LLD below the local rows on one process (if in the grid)";
    }
    if (kind == 1) { /* -1 is replicated (redist's extension), -2 nothing */
        side->desc[6] = rnd(0, 1) ? side->g->rows : -2;
        return "RSRC outside -1 .. the grid";
    }
    if (kind == 2) {
        *(side == a ? &x->ja : &x->jb) = side->desc[N_] - x->n + 2;
        return "a sub-matrix past the last column";
    }
    side->desc[4] = 0;
    return "MB = 0";
}

/* Whether any process broke an argument (collective over every process). */
static int anyone(int broke)
{
    int any = 0;
    MPI_Allreduce(&broke, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

static void mr2d_case(int index)
{
    /* The union: the testers' nprocs x 1 grid over every process, or a random subset. */
    int members[64], nu = np, testers = rnd(0, 1);
    grid_t u, ga, gb;
    for (int i = 0; i < np; i++)
        members[i] = i;
    if (testers) {
        grid_init(&u, np, 1);
    } else {
        mtest_shuffle(&rng, members, np);
        nu = rnd(1, np);
        int rows, cols;
        mtest_factor(&rng, nu, &rows, &cols);
        grid_map(&u, members, rows, cols);
    }
    int maxp = rnd(0, 3) ? 4 : 64;
    sub_grid(&ga, members, nu, testers, maxp);
    sub_grid(&gb, members, nu, testers, maxp);
    const type_t *t = &types[rnd(0, 4)];
    mr2d_args x = {t, 0, 0, 0, 0, 0, 0, u.ctxt, 0, 0, 0, 0, "", ""};
    x.m = rnd(1, 60);
    x.n = rnd(1, 60);
    if (rnd(0, 2) == 0) {
        snprintf(x.uplo, sizeof x.uplo, "%s", uplos[rnd(0, 4)]);
        snprintf(x.diag, sizeof x.diag, "%s", diags[rnd(0, 4)]);
    }
    matrix_t a, b;
    x.ia = x.ia0 = rnd(1, 40), x.ja = x.ja0 = rnd(1, 40);
    x.ib = x.ib0 = rnd(1, 40), x.jb = x.jb0 = rnd(1, 40);
    draw_matrix(&a, &ga, x.ia - 1 + x.m + rnd(0, 9), x.ja - 1 + x.n + rnd(0, 9), 1);
    draw_matrix(&b, &gb, x.ib - 1 + x.m + rnd(0, 9), x.jb - 1 + x.n + rnd(0, 9), 1);
    a.own_blocks = rnd(0, 3) == 0; /* ScaLAPACK reads no block size along such a dimension */
    b.own_blocks = rnd(0, 3) == 0;
    int dtype = testers_dtype();
    describe(&a, dtype, rnd(0, 2) ? LLD_EXACT : LLD_PADDED);
    dtype = testers_dtype();
    describe(&b, dtype, rnd(0, 2) ? LLD_EXACT : LLD_PADDED);
    int junk[4] = {garbage(), garbage(), garbage(), garbage()};
    if (ga.ctxt == -1) /* not read there: garbage, as the testers leave them */
        x.ia = junk[0], x.ja = junk[1];
    if (gb.ctxt == -1)
        x.ib = junk[2], x.jb = junk[3];
    int empty = rnd(0, 9) == 0, refuse = !empty && rnd(0, 5) == 0, want_code = REDIST_SUCCESS;
    const char *broken = "";
    if (empty) { /* nothing else is read: garbage everywhere, the context too */
        *(rnd(0, 1) ? &x.m : &x.n) = 0;
        x.ia = x.ictxt = garbage();
        a.desc[CTXT_] = b.desc[CTXT_] = garbage();
    }
    if (refuse) {
        int broke = 0;
        broken = break_mr2d(&x, &a, &b, &broke);
        refuse = anyone(broke);
        want_code = refuse ? REDIST_ERR_ARG : REDIST_SUCCESS;
    }
    /* ScaLAPACK's routines exit on RSRC or CSRC = -1 (unless they return at once) */
    int extension = !empty && (replicated(&a) || replicated(&b));
    char what[300];
    snprintf(what, sizeof what,
             "case %d p%c%s m=%d n=%d %s %s union %dx%d A on %dx%d %dx%d blocks %dx%d src (%d,%d) "
             "B on %dx%d %dx%d blocks %dx%d src (%d,%d)%s%s",
             index, t->letter, x.uplo[0] ? "trmr2d" : "gemr2d", x.m, x.n, x.uplo, x.diag, u.rows,
             u.cols, ga.rows, ga.cols, a.M, a.N, a.mb, a.nb, a.rsrc, a.csrc, gb.rows, gb.cols, b.M,
             b.N, b.mb, b.nb, b.rsrc, b.csrc, refuse ? ": " : "", broken);
    if (u.ctxt != -1 || empty) /* the union's members call (with m or n = 0, anyone may) */
        compare(what, t, want_code, extension, &mr2d_routine, &x, &a, &b);
    grid_free(&ga);
    grid_free(&gb);
    grid_free(&u);
}

/* ---- PBLAS's p?tran -------------------------------------------------------------------- */
typedef struct {
    char name[16]; /* p?tran?_ */
    int m, n, ia, ja, ic, jc;
    unsigned char alpha[16], beta[16];
} tran_args;

/* p?tran*: sub(C) := beta sub(C) + alpha op(sub(A)), exactly (small integers, dyadic
   scalars). */
static void expect_tran(const void *args, const type_t *t, const matrix_t *c, unsigned char *out)
{
    const tran_args *x = args;
    int cx = t->parts == 2, conj = strstr(x->name, "tranc") != NULL;
    double al[2] = {mtest_get_part(t->scalar, t->parts, x->alpha, 0, 0),
                    cx ? mtest_get_part(t->scalar, t->parts, x->alpha, 0, 1) : 0.0};
    double be[2] = {mtest_get_part(t->scalar, t->parts, x->beta, 0, 0),
                    cx ? mtest_get_part(t->scalar, t->parts, x->beta, 0, 1) : 0.0};
    for (int64_t l = 0; l < c->elements; l++) {
        int64_t gi, gj;
        global_of(c, l, &gi, &gj);
        int64_t i = gi - (x->ic - 1), j = gj - (x->jc - 1);
        if (gi < 0 || i < 0 || i >= x->m || j < 0 || j >= x->n)
            continue;
        double a[2] = {value_of(x->ia - 1 + j, x->ja - 1 + i, 0, 1), /* op(A)(i, j) = A(j, i) */
                       cx ? value_of(x->ia - 1 + j, x->ja - 1 + i, 1, 1) * (conj ? -1 : 1) : 0},
               v[2] = {mtest_get_part(t->scalar, t->parts, out, l, 0),
                       cx ? mtest_get_part(t->scalar, t->parts, out, l, 1) : 0.0};
        mtest_set_part(t->scalar, t->parts, out, l, 0,
                       be[0] * v[0] - be[1] * v[1] + al[0] * a[0] - al[1] * a[1]);
        if (cx)
            mtest_set_part(t->scalar, t->parts, out, l, 1,
                           be[0] * v[1] + be[1] * v[0] + al[0] * a[1] + al[1] * a[0]);
    }
}

/* A caller of p?tran*: PBLAS has the Fortran entry point only. */
static void call_tran(const void *args, int own, int call, matrix_t *a, matrix_t *c, void *cdata)
{
    tran_args *x = (tran_args *)args;
    (void)call;
    ((tran_fn)routine(x->name, own))(&x->m, &x->n, x->alpha, a->local, &x->ia, &x->ja, a->desc,
                                     x->beta, cdata, &x->ic, &x->jc, c->desc);
}

static const routine_t tran_routine = {call_tran, expect_tran, 1};

/* A DTYPE 2 descriptor (eleven entries) with the same matrix as a DTYPE 1 one. */
static void as_dtype2(matrix_t *mt)
{
    if (mt->desc[DTYPE_] == 2)
        return;
    int d[9];
    memcpy(d, mt->desc, sizeof d);
    int eleven[11] = {2, d[1], d[2], d[3], d[4], d[5], d[4], d[5], d[6], d[7], d[8]};
    memcpy(mt->desc, eleven, sizeof eleven);
}

/* Breaks one argument of A or C on g's processes: what PBLAS refuses (*code = ARG), what its
   processes would each read their own way (MISMATCH), or what it accepts and redist cannot do
   (UNSUPPORTED, along a grid dimension of several processes; LLD raised to M so that PBLAS's
   LLD rule holds for it). MISMATCH and UNSUPPORTED only where there is something to move (m,
   n > 0 and not `nothing`: alpha = 0 with beta = 1). *broke: whether anything broke here. */
static const char *break_tran(const grid_t *g, int *m, int n, int nothing, int *ia, matrix_t *a,
                              matrix_t *c, int *code, int *broke)
{
    matrix_t *side = rnd(0, 1) ? a : c;
    int kind = rnd(0, 7), victim = rnd(0, g->rows * g->cols - 1), bad_dtype = testers_dtype();
    int empty = rnd(0, 2) == 0;
    int mine = g->row * g->cols + g->col, lld = side->desc[DTYPE_] == 2 ? 10 : 8;
    *code = REDIST_ERR_ARG;
    *broke = g->ctxt != -1;
    if (kind <= 2 || (kind >= 6 && g->rows == 1)) { /* on one process */
        *broke = mine == victim;
        if (*broke && kind == 2)
            side->desc[lld] = 0;
        else if (*broke)
            side->desc[DTYPE_] = bad_dtype == 1 || bad_dtype == 2 ? 3 : bad_dtype;
        if (kind == 1) /* PBLAS checks before its quick return */
            *m = 0;
        return kind == 2 ? "LLD = 0 on one process" : "a bad DTYPE on one process";
    }
    if (kind == 3) { /* PBLAS's rule for a non-empty operation */
        *broke = mine == victim && side->cols > 0 && side->rows > 1 && *m > 0 && n > 0;
        if (*broke)
            side->desc[lld] = (int)side->rows - 1;
        return "LLD below the local rows on one process with columns (if any)";
    }
    if (kind == 4) {
        *ia = 0;
        return "IA = 0";
    }
    if (kind == 5) {
        c->desc[CTXT_] = -1;
        return "C's context is not A's";
    }
    if (kind == 7 && side->rsrc == -1) { /* a first block means nothing there: break RSRC */
        side->desc[lld - 2] = -2;
        return "RSRC = -2";
    }
    if (empty) /* PBLAS accepts it and does nothing; so does redist */
        *m = 0;
    int moves = *m > 0 && n > 0 && !nothing;
    if (kind == 6) { /* the victim alone replicated, or alone not */
        *code = moves ? REDIST_ERR_MISMATCH : REDIST_SUCCESS;
        *broke = mine == victim;
        if (*broke) {
            side->desc[lld - 2] = side->rsrc == -1 ? 0 : -1;
            side->desc[lld] = side->desc[lld] > side->M ? side->desc[lld] : side->M;
        }
        return "RSRC = -1 on one process only, or on all but one, of a grid of several rows";
    }
    *code = moves ? REDIST_ERR_UNSUPPORTED : REDIST_SUCCESS;
    as_dtype2(side);
    side->desc[10] = side->desc[10] > side->desc[M_] ? side->desc[10] : side->desc[M_];
    side->desc[4] = side->desc[6] > 1 ? side->desc[6] - 1 : 2;
    return "DTYPE 2 with IMB != MB on a grid of several rows, not replicated";
}

/* The draws for one operand of a transpose: DTYPE 1, or 2 with IMB = MB, or 2 with a first
   block of another size along a grid dimension of one process or a replicated one (where it
   means nothing). */
static int draw_tran_dtype(matrix_t *mt, const grid_t *g)
{
    if (rnd(0, 1))
        return 1;
    if ((g->rows == 1 || mt->rsrc == -1) && rnd(0, 1))
        mt->imb = rnd(1, 9);
    if ((g->cols == 1 || mt->csrc == -1) && rnd(0, 1))
        mt->inb = rnd(1, 9);
    return 2;
}

static void tran_case(int index)
{
    static const double dyadic[] = {0.0, 1.0, -1.0, 0.5, 2.0, -3.0};
    int members[64], rows, cols;
    for (int i = 0; i < np; i++)
        members[i] = i;
    grid_t g;
    int p = rnd(1, np < 4 || rnd(0, 2) ? np : 4);
    mtest_factor(&rng, p, &rows, &cols);
    if (rnd(0, 1)) {
        grid_init(&g, rows, cols);
    } else {
        mtest_shuffle(&rng, members, np);
        grid_map(&g, members, rows, cols);
    }
    const type_t *t = &types[rnd(0, 3)];
    tran_args x;
    snprintf(x.name, sizeof x.name, "p%ctran%s_", t->letter,
             t->parts == 1 ? ""
             : rnd(0, 1)   ? "c"
                           : "u");
    x.m = rnd(0, 12) ? rnd(1, 40) : 0;
    x.n = rnd(0, 12) ? rnd(1, 40) : 0;
    for (int k = 0; k < t->parts; k++) {
        mtest_set_part(t->scalar, t->parts, x.alpha, 0, k, dyadic[rnd(0, 5)]);
        mtest_set_part(t->scalar, t->parts, x.beta, 0, k, dyadic[rnd(0, 5)]);
    }
    matrix_t a, c;
    x.ia = rnd(1, 30), x.ja = rnd(1, 30), x.ic = rnd(1, 30), x.jc = rnd(1, 30);
    draw_matrix(&a, &g, x.ia - 1 + x.n + rnd(0, 9), x.ja - 1 + x.m + rnd(0, 9), 1);
    draw_matrix(&c, &g, x.ic - 1 + x.m + rnd(0, 9), x.jc - 1 + x.n + rnd(0, 9), 1);
    int dtype_a = draw_tran_dtype(&a, &g), dtype_c = draw_tran_dtype(&c, &g);
    int habit = rnd(0, 2) == 0 ? LLD_ONE_IF_NO_COLUMNS : rnd(0, 1) ? LLD_DESCINIT : LLD_PADDED;
    describe(&a, dtype_a, habit);
    describe(&c, dtype_c, habit);
    int want_code = REDIST_SUCCESS, refuse = rnd(0, 3) == 0, broke = 0;
    int nothing = mtest_get_part(t->scalar, t->parts, x.alpha, 0, 0) == 0.0 &&
                  (t->parts == 1 || mtest_get_part(t->scalar, t->parts, x.alpha, 0, 1) == 0.0) &&
                  mtest_get_part(t->scalar, t->parts, x.beta, 0, 0) == 1.0 &&
                  (t->parts == 1 || mtest_get_part(t->scalar, t->parts, x.beta, 0, 1) == 0.0);
    const char *broken =
        refuse ? break_tran(&g, &x.m, x.n, nothing, &x.ia, &a, &c, &want_code, &broke) : "";
    if (refuse && !anyone(broke))
        want_code = REDIST_SUCCESS, refuse = 0;
    char what[300];
    snprintf(what, sizeof what,
             "case %d %s m=%d n=%d grid %dx%d A %dx%d blocks %dx%d (first %dx%d) src (%d,%d) ia=%d "
             "ja=%d C %dx%d blocks %dx%d (first %dx%d) src (%d,%d) ic=%d jc=%d LLD habit %d%s%s",
             index, x.name, x.m, x.n, rows, cols, a.M, a.N, a.mb, a.nb, a.imb, a.inb, a.rsrc,
             a.csrc, x.ia, x.ja, c.M, c.N, c.mb, c.nb, c.imb, c.inb, c.rsrc, c.csrc, x.ic, x.jc,
             habit, refuse ? ": " : "", broken);
    if (g.ctxt != -1) /* PBLAS: every process of the grid calls */
        compare(what, t, want_code, 0, &tran_routine, &x, &a, &c);
    grid_free(&g);
}

/* Case i of the seed's (only: all if < 0), a third of them transposes. */
static void run_cases(uint64_t seed, int cases, int only)
{
    if (me == 0)
        printf("seed %llu, %d cases\n", (unsigned long long)seed, cases);
    for (int i = 0; i < cases; i++) {
        rng = mtest_case_state(seed, i);
        if (only >= 0 && only != i)
            continue;
        if (rnd(0, 2) == 0)
            tran_case(i);
        else
            mr2d_case(i);
    }
}

int main(int argc, char **argv)
{
    uint64_t seed = 20261201;
    int cases = 150, only = -1;
    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&me, &np);
    if (np > 64) { /* the grids' fixed arrays */
        if (me == 0)
            printf("at most 64 processes\n");
        return mtest_finalize(1);
    }
    open_scalapack();
    mtest_case_args(argc, argv, &seed, &cases, &only);
    run_cases(seed, cases, only);
    int mine[7] = {calls_compared, calls_unset_dtype,   calls_lld_zero,     calls_refused,
                   peer_differs,   calls_replicated[0], calls_replicated[1]},
        sum[7];
    MPI_Reduce(mine, sum, 7, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%d process-calls compared with ScaLAPACK's own or with the expected refusal; "
               "accepted with DTYPE not 1 or 2: %d, with LLD = 0: %d, with a matrix replicated "
               "over several processes: %d of p?gemr2d/p?trmr2d (the expected result only), %d of "
               "p?tran (PBLAS's too); refused: %d; ScaLAPACK's own result differs from the "
               "expected one on %d process-calls\n",
               sum[0], sum[1], sum[2], sum[5], sum[6], sum[3], sum[4]);
    return mtest_finalize(errs);
}
