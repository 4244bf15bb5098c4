/* ScaLAPACK's p?gemr2d and p?trmr2d on redist plans (libredist_scalapack).
 *
 * Arguments and semantics are ScaLAPACK's (REDIST/SRC/p?gemr.c): every process of the
 * union context ictxt calls; a process outside A's grid (or B's) passes DESC[CTXT] = -1
 * (its other A/B arguments are not read); m, n are the same everywhere. Each entry point
 * accepts what the routine it replaces accepts and refuses what that one refuses
 * (docs/scalapack.md, argument by argument): p?gemr2d and p?trmr2d apply the checks of
 * ScaLAPACK's paramcheck (REDIST/SRC/pgemraux.c) and never read DTYPE; the transposes apply
 * PBLAS's PB_Cchkmat (PBLAS/SRC/PTOOLS) to A and C. Where those exit, abort or divide by zero,
 * these return an error, the same on every process. One extension: p?gemr2d and p?trmr2d
 * take RSRC or CSRC = -1, a matrix replicated over the process rows or columns, as PBLAS
 * does (ScaLAPACK's own exit on it); a replicated A is read from one replica, a replicated B
 * is written on every replica (redist's REDIST_REPLICATED).
 *
 * One call:
 * 0. p?gemr2d and p?trmr2d with m = 0 or n = 0 return at once, reading nothing else and
 *    communicating with no one, as ScaLAPACK's do (PBLAS checks its arguments first).
 * 1. Local checks of this process's arguments, its grid positions (BLACS), and candidates
 *    from two caches: the union context's communicator and, within it, a plan for these
 *    arguments.
 * 2. ONE reduction over the union context (Cigamn2d, as ScaLAPACK's own routine does):
 *    the worst status, both matrices' parameters and grid maps (processes outside a grid
 *    learn them), the system ranks of the union, and whether every process hit the same
 *    cache entries. Every process then takes the same branch.
 * 3. On a miss, the communicator (MPI_Comm_create_group over the union's system ranks) and
 *    the plan (a window of each parent matrix with its LLD, redist_layout_create_window) are
 *    made and cached; the plan is executed. p?trmr2d moves the rectangle into a scratch
 *    array with B's layout, then copies each local column's part of the trapezoid into B.
 *
 * Caches: one entry per union communicator (kept until MPI_Finalize: few per program), each
 * with its plans, at most PLANS_PER_CONTEXT, least recently used first out. Every member of
 * a union makes the same calls on it, so evictions (which free plans, collectively) happen
 * in step. Everything is freed when MPI_Finalize runs (an MPI_COMM_SELF attribute).
 *
 * These routines return nothing: the last outcome on this process is
 * redist_scalapack_last_error(); nothing is printed. */
#include "redist.h"

#include <ctype.h>
#include <limits.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- BLACS (in ScaLAPACK's library) --------------------------------------------------- */
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_get(int ctxt, int what, int *val);
MPI_Comm Cblacs2sys_handle(int sys_ctxt);
void Cigamn2d(int ctxt, char *scope, char *top, int m, int n, int *a, int lda, int *ra, int *ca,
              int rcflag, int rdest, int cdest);

enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_, DLEN_ };
enum { STATUS_BASE = 1000, ID_TOP = INT_MAX - 1 };
enum { PLANS_PER_CONTEXT = 16 };

/* ---- errors ---------------------------------------------------------------------------- */
static int last_error;
static char last_detail[256];

static int fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof last_detail, fmt, ap);
    va_end(ap);
    return code;
}

int redist_scalapack_last_error(const char **detail)
{
    if (detail != NULL)
        *detail = last_detail;
    return last_error;
}

/* ---- what one process passed ----------------------------------------------------------- */
typedef enum { KIND_S, KIND_D, KIND_C, KIND_Z, KIND_I } kind_t;

/* PBLAS's p?tran (B = C there): sub(B) := beta sub(B) + alpha op(sub(A)), sub(A) n x m. */
enum { OP_COPY, OP_TRANSPOSE, OP_CONJ_TRANSPOSE };

/* A descriptor as the routine reads it: ScaLAPACK's nine entries (DTYPE 1) or PBLAS's eleven
   (DTYPE 2, BLOCK_CYCLIC_2D_INB: first blocks IMB x INB, then MB x NB), as PB_CargFtoC
   converts them. p?gemr2d and p?trmr2d read the nine entries whatever DTYPE says and never
   DTYPE itself (dtype 0 here). */
typedef struct {
    int dtype, ctxt, m, n, imb, inb, mb, nb, rsrc, csrc, lld;
} desc_t;

typedef struct {
    kind_t kind;
    char uplo, diag; /* 0 for gemr2d; else 'U'/'L' and 'U' (no diagonal) or 'N' (with it) */
    int op;          /* OP_*: p?gemr2d and p?trmr2d copy */
    int m, n, ia, ja, ib, jb, ictxt;
    desc_t a, b;
    double alpha[2], beta[2]; /* p?tran: part of the plan, so of its cache key */
} call_t;

/* A matrix's grid and parameters as the reduction carries them: P_M and P_N are the rows and
   columns up to the sub-matrix's end (ia - 1 + m, ja - 1 + n), which is all of the matrix a
   redistribution uses; DESC's M and N themselves are only checked, by each process on its own
   (ScaLAPACK's and PBLAS's rule: their processes may pass different ones). */
enum { P_ROWS, P_COLS, P_M, P_N, P_MB, P_NB, P_RSRC, P_CSRC, P_I, P_J, NPARAM };

typedef struct {
    int in;            /* this process is in the matrix's grid */
    int row, col, lld; /* its position there, and the LLD its window uses (0: holds nothing) */
    int param[NPARAM]; /* known where in */
} side_t;

static MPI_Datatype mpi_type(kind_t k)
{
    switch (k) {
    case KIND_S:
        return MPI_FLOAT;
    case KIND_D:
        return MPI_DOUBLE;
    case KIND_C:
        return MPI_C_FLOAT_COMPLEX;
    case KIND_Z:
        return MPI_C_DOUBLE_COMPLEX;
    default:
        return MPI_INT;
    }
}

static size_t elem_size(kind_t k)
{
    static const size_t sizes[] = {4, 8, 8, 16, sizeof(int)};
    return sizes[k];
}

/* ScaLAPACK's NUMROC with 0-based coordinates; isrc = -1 replicates (every process holds all
   n), as in PBLAS. */
static int numroc(int n, int nb, int iproc, int isrc, int nprocs)
{
    if (isrc == -1)
        return n;
    int mydist = (nprocs + iproc - isrc) % nprocs, nblocks = n / nb, r = (nblocks / nprocs) * nb;
    int extra = nblocks % nprocs;
    if (mydist < extra)
        r += nb;
    else if (mydist == extra)
        r += n % nb;
    return r;
}

/* PBLAS's PB_Cnumroc (PBLAS/SRC/PTOOLS): the rows (or columns) of process iproc when the first
   block holds inb and the others nb, from isrc over nprocs; isrc = -1 replicates. */
static int pb_numroc(int n, int inb, int nb, int iproc, int isrc, int nprocs)
{
    if (isrc == -1 || nprocs == 1)
        return n;
    if (iproc == isrc)
        return n <= inb ? n : inb + numroc(n - inb, nb, iproc, (isrc + 1) % nprocs, nprocs);
    return n <= inb ? 0 : numroc(n - inb, nb, iproc, (isrc + 1) % nprocs, nprocs);
}

typedef struct {
    int rows, cols, row, col;
} grid_t;

/* This process's place in ctxt's grid; 0 if it is not in it (BLACS gives -1 then). */
static int grid_of(int ctxt, grid_t *g)
{
    Cblacs_gridinfo(ctxt, &g->rows, &g->cols, &g->row, &g->col);
    return g->row >= 0 && g->col >= 0 && g->row < g->rows && g->col < g->cols;
}

/* ScaLAPACK's paramcheck (REDIST/SRC/pgemraux.c, which exits on each of them) for a process of
   the matrix's grid: first coordinates in the grid (or -1, replicated: the extension), the
   m x n sub-matrix at (i, j) inside the matrix, LLD at least the local rows (0 where there
   are none; all M rows where replicated). MB and NB, which ScaLAPACK does not check but
   divides by, must be >= 1. DTYPE is not read. */
static int check_mr2d(const desc_t *d, int i, int j, int m, int n, const grid_t *g,
                      const char *name)
{
    if (d->rsrc < -1 || d->rsrc >= g->rows || d->csrc < -1 || d->csrc >= g->cols)
        return fail(REDIST_ERR_ARG,
                    "desc%s: RSRC = %d, CSRC = %d outside -1 (replicated) .. the %d x %d grid",
                    name, d->rsrc, d->csrc, g->rows, g->cols);
    if (i < 1 || j < 1 || (long)i - 1 + m > d->m || (long)j - 1 + n > d->n)
        return fail(REDIST_ERR_ARG, "the %d x %d sub-matrix at (%d, %d) leaves %s's %d x %d", m, n,
                    i, j, name, d->m, d->n);
    if (d->mb < 1 || d->nb < 1)
        return fail(REDIST_ERR_ARG, "desc%s: MB = %d, NB = %d must be >= 1", name, d->mb, d->nb);
    int local_rows = numroc(d->m, d->mb, g->row, d->rsrc, g->rows);
    if (d->lld < local_rows)
        return fail(REDIST_ERR_ARG, "desc%s[LLD] = %d is less than this process's %d local rows",
                    name, d->lld, local_rows);
    return REDIST_SUCCESS;
}

/* PBLAS's PB_Cchkmat (PBLAS/SRC/PTOOLS/PB_Cchkmat.c, whose errors PB_Cabort turns into
   Cblacs_abort) for the m x n sub-matrix at (i, j) of one operand, on a process of ictxt's
   grid. m, n >= 0 is checked by the caller. */
static int check_pblas(const desc_t *d, int ictxt, int i, int j, int m, int n, const grid_t *g,
                       const char *name)
{
    if (i < 1 || j < 1)
        return fail(REDIST_ERR_ARG, "i%s = %d, j%s = %d must be >= 1", name, i, name, j);
    if (d->dtype != 1 && d->dtype != 2)
        return fail(REDIST_ERR_ARG, "desc%s[DTYPE] = %d: PBLAS accepts 1 or 2", name, d->dtype);
    if (d->ctxt != ictxt)
        return fail(REDIST_ERR_ARG,
                    "desc%s[CTXT] = %d is not the call's context %d: PBLAS transposes within "
                    "one context",
                    name, d->ctxt, ictxt);
    if (d->imb < 1 || d->inb < 1 || d->mb < 1 || d->nb < 1)
        return fail(REDIST_ERR_ARG, "desc%s: IMB = %d, INB = %d, MB = %d, NB = %d must be >= 1",
                    name, d->imb, d->inb, d->mb, d->nb);
    if (d->rsrc < -1 || d->rsrc >= g->rows || d->csrc < -1 || d->csrc >= g->cols)
        return fail(REDIST_ERR_ARG, "desc%s: RSRC = %d, CSRC = %d outside -1 .. the %d x %d grid",
                    name, d->rsrc, d->csrc, g->rows, g->cols);
    if (m == 0 || n == 0) /* PBLAS relaxes its checks for an empty operation */
        return d->m < 0 || d->n < 0 || d->lld < 1
                   ? fail(REDIST_ERR_ARG, "desc%s: M = %d, N = %d (>= 0), LLD = %d (>= 1)", name,
                          d->m, d->n, d->lld)
                   : REDIST_SUCCESS;
    if ((long)i - 1 + m > d->m || (long)j - 1 + n > d->n)
        return fail(REDIST_ERR_ARG, "the %d x %d sub-matrix at (%d, %d) leaves %s's %d x %d", m, n,
                    i, j, name, d->m, d->n);
    int np = pb_numroc(d->m, d->imb, d->mb, g->row, d->rsrc, g->rows),
        nq = pb_numroc(d->n, d->inb, d->nb, g->col, d->csrc, g->cols);
    if (d->lld < 1 || (d->lld < np && nq > 0))
        return fail(REDIST_ERR_ARG,
                    "desc%s[LLD] = %d: it must be >= 1, and >= this process's %d local rows when "
                    "it holds columns",
                    name, d->lld, np);
    return REDIST_SUCCESS;
}

/* What PBLAS accepts and redist cannot describe: a first block other than MB x NB (DTYPE 2)
   along a grid dimension of more than one process, where the matrix is not replicated. Along
   a dimension of one process, or a replicated one (RSRC or CSRC = -1: every process holds
   every row or column, in order), no block size places anything: *d becomes the plain
   equivalent there. */
static int pblas_supported(desc_t *d, const grid_t *g, const char *name)
{
    if (g->rows == 1 || d->rsrc == -1)
        d->imb = d->mb;
    if (g->cols == 1 || d->csrc == -1)
        d->inb = d->nb;
    if (d->imb != d->mb || d->inb != d->nb)
        return fail(REDIST_ERR_UNSUPPORTED,
                    "desc%s: first block %d x %d, then %d x %d: only first blocks of MB x NB are "
                    "supported",
                    name, d->imb, d->inb, d->mb, d->nb);
    return REDIST_SUCCESS;
}

/* PBLAS's quick return: alpha = 0 and beta = 1 leave sub(C) as it is. */
static int nothing_to_do(const call_t *cl)
{
    return cl->op != OP_COPY && cl->alpha[0] == 0.0 && cl->alpha[1] == 0.0 && cl->beta[0] == 1.0 &&
           cl->beta[1] == 0.0;
}

/* One matrix (which = 0: A, 1: B or C) of the call on this process: its grid position, the
   routine's own checks, and the parameters the exchange carries. */
static int read_side(const call_t *cl, int which, side_t *s)
{
    memset(s, 0, sizeof *s);
    desc_t d = which ? cl->b : cl->a;
    const char *name = cl->op == OP_COPY ? (which ? "b" : "a") : (which ? "c" : "a");
    int i = which ? cl->ib : cl->ia, j = which ? cl->jb : cl->ja;
    int m = which || cl->op == OP_COPY ? cl->m : cl->n,
        n = which || cl->op == OP_COPY ? cl->n : cl->m;
    grid_t g;
    int err;
    if (cl->op == OP_COPY) {
        if (d.ctxt == -1 || !grid_of(d.ctxt, &g))
            return REDIST_SUCCESS; /* not in this grid: nothing of it is read */
        err = check_mr2d(&d, i, j, m, n, &g, name);
    } else {
        grid_of(cl->ictxt, &g); /* the caller is in it */
        err = check_pblas(&d, cl->ictxt, i, j, m, n, &g, name);
        if (err == REDIST_SUCCESS && m > 0 && n > 0 && !nothing_to_do(cl)) /* else no plan */
            err = pblas_supported(&d, &g, name);
    }
    s->in = 1;
    s->row = g.row;
    s->col = g.col;
    if (err != REDIST_SUCCESS) /* the exchange fails the call: no parameter is needed */
        return err;
    /* A replicated dimension of one process is a plain one; along a replicated one the block
       size places nothing (any MB, NB >= 1 is accepted): 1 there, so that the processes agree
       on it and a sub-matrix starts at phase 0 of its block. */
    if (g.rows == 1 && d.rsrc == -1)
        d.rsrc = 0;
    if (g.cols == 1 && d.csrc == -1)
        d.csrc = 0;
    if (d.rsrc == -1)
        d.mb = 1;
    if (d.csrc == -1)
        d.nb = 1;
    int p[NPARAM] = {g.rows, g.cols, i - 1 + m, j - 1 + n, d.mb,
                     d.nb,   d.rsrc, d.csrc,    i - 1,     j - 1};
    memcpy(s->param, p, sizeof p);
    /* Where this process holds no element of the part used, LLD is never read (ScaLAPACK
       allows 0 there, PBLAS any LLD >= 1 on a process without columns): the window gets 0,
       dense, which asks nothing of it. */
    int holds = m > 0 && n > 0 && numroc(i - 1 + m, d.mb, g.row, d.rsrc, g.rows) > 0 &&
                numroc(j - 1 + n, d.nb, g.col, d.csrc, g.cols) > 0;
    s->lld = holds ? d.lld : 0;
    return REDIST_SUCCESS;
}

/* ---- caches ---------------------------------------------------------------------------- */
typedef struct plan_entry {
    call_t key;      /* this process's own arguments, BLACS handles left out (cache_key) */
    int id;          /* agreed across the union */
    int params_hash; /* of the exchanged parameters and grid maps (members_hash) */
    unsigned long used;
    redist_plan plan;
    char *scratch; /* trmr2d: the rectangle in B's layout, srows x scols */
    size_t scratch_bytes;
    int64_t srows, scols;
} plan_entry;

typedef struct context {
    int ictxt, rows, cols, row, col;
    MPI_Comm comm; /* the union's: its rank r is union position r */
    int *members;  /* [rows * cols] MPI_COMM_WORLD ranks by union position (world_ranks) */
    int id;        /* agreed across the union */
    plan_entry plans[PLANS_PER_CONTEXT];
    int next_plan_id;
    struct context *next;
} context;

static context *contexts;
static int next_context_id;
static unsigned long clock_ticks;
static int finalize_hook_set;

static void free_plans(context *c)
{
    for (int i = 0; i < PLANS_PER_CONTEXT; i++) {
        redist_plan_free(&c->plans[i].plan);
        free(c->plans[i].scratch);
        memset(&c->plans[i], 0, sizeof c->plans[i]);
    }
}

/* At MPI_Finalize (MPI_COMM_SELF's attributes are deleted first): every plan, communicator
   and buffer, contexts in creation order. */
static int release_all(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    while (contexts != NULL) {
        context *c = contexts;
        contexts = c->next;
        free_plans(c);
        if (c->comm != MPI_COMM_NULL)
            MPI_Comm_free(&c->comm);
        free(c->members);
        free(c);
    }
    return MPI_SUCCESS;
}

static void set_finalize_hook(void)
{
    if (finalize_hook_set)
        return;
    int key = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, release_all, &key, NULL) == MPI_SUCCESS &&
        MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL) == MPI_SUCCESS)
        finalize_hook_set = 1;
    if (key != MPI_KEYVAL_INVALID) /* MPI frees it once the attribute is deleted */
        MPI_Comm_free_keyval(&key);
}

static context *find_context(int ictxt, int rows, int cols, int row, int col)
{
    context *found = NULL;
    for (context *c = contexts; c != NULL; c = c->next) /* the newest match */
        if (c->ictxt == ictxt && c->rows == rows && c->cols == cols && c->row == row &&
            c->col == col && (found == NULL || c->id > found->id))
            found = c;
    return found;
}

static int same_call(const call_t *a, const call_t *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* A call's key for the plan cache: its arguments without the BLACS handles, which BLACS
   reuses for other grids (the grids themselves are checked by params_hash), keeping only
   whether this process is in each grid; of a grid it is not in, nothing (it is not read). */
static call_t cache_key(const call_t *cl, const side_t *sa, const side_t *sb)
{
    call_t k;
    memcpy(&k, cl, sizeof k); /* padding too: keys are compared with memcmp */
    k.ictxt = 0;
    if (!sa->in)
        memset(&k.a, 0, sizeof k.a), k.ia = k.ja = 0;
    if (!sb->in)
        memset(&k.b, 0, sizeof k.b), k.ib = k.jb = 0;
    k.a.ctxt = sa->in ? 0 : -1;
    k.b.ctxt = sb->in ? 0 : -1;
    return k;
}

static plan_entry *find_plan(context *c, const call_t *key)
{
    for (int i = 0; c != NULL && i < PLANS_PER_CONTEXT; i++)
        if (c->plans[i].plan != NULL && same_call(&c->plans[i].key, key))
            return &c->plans[i];
    return NULL;
}

/* ---- the reduction --------------------------------------------------------------------- */
/* Slots of the reduced array, MIN over the union. BLACS's Cigamn2d takes the minimum of
   absolute values, so every slot holds a value >= 0: the status as STATUS_BASE + code (the
   most negative code wins), a cache id as id + 1 (0: a miss) and as ID_TOP - id - 1 (whose
   minimum gives the maximum id). */
enum {
    R_STATUS,
    R_CONTEXT,
    R_CONTEXT_NEG,
    R_PLAN,
    R_PLAN_NEG,
    R_HASH, /* of the candidate communicator's members: the same entry everywhere */
    R_HASH_NEG,
    R_PLAN_HASH, /* of the candidate plan's exchanged parameters */
    R_PLAN_HASH_NEG,
    R_CALL, /* m + 1, n + 1 and the routine (type, uplo, diag): the same everywhere */
    R_CALL_TOP = R_CALL + 3,
    R_A = R_CALL_TOP + 3,
    R_B = R_A + NPARAM,
    R_A_TOP = R_B + NPARAM, /* ID_TOP - param: their minimum gives the maximum */
    R_B_TOP = R_A_TOP + NPARAM,
    R_FIXED = R_B_TOP + NPARAM /* then sysranks, A's map, B's map: nprocs each */
};

/* A hash of n ints (a union's members, parameters), in [1, 2^30). */
static int members_hash(const int *v, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)(unsigned)v[i]) * 1099511628211ull;
    return (int)(h % ((1u << 30) - 1)) + 1;
}

/* The union's members as MPI_COMM_WORLD ranks (BLACS's system communicators come and go;
   the processes stay); a process outside MPI_COMM_WORLD (a spawned job) as -1 - its system
   rank. */
static void world_ranks(MPI_Comm sys, const int *sysranks, int n, int *out)
{
    MPI_Group sg, wg;
    MPI_Comm_group(sys, &sg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(sg, n, sysranks, wg, out);
    for (int i = 0; i < n; i++)
        if (out[i] == MPI_UNDEFINED)
            out[i] = -1 - sysranks[i];
    MPI_Group_free(&sg);
    MPI_Group_free(&wg);
}

/* MPI_Comm_create_group over BLACS's system communicator, whose handler is BLACS's (MPI's
   default, which aborts): it runs with MPI_ERRORS_RETURN there, the handler put back after,
   so that a failure comes back as a code; the new communicator returns its errors too. */
static int create_group(MPI_Comm sys, MPI_Group group, MPI_Comm *comm)
{
    MPI_Errhandler saved = MPI_ERRHANDLER_NULL;
    int swapped = MPI_Comm_get_errhandler(sys, &saved) == MPI_SUCCESS &&
                  MPI_Comm_set_errhandler(sys, MPI_ERRORS_RETURN) == MPI_SUCCESS;
    int rc = MPI_Comm_create_group(sys, group, 0x5ca1, comm);
    if (swapped)
        MPI_Comm_set_errhandler(sys, saved);
    if (saved != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&saved);
    if (rc == MPI_SUCCESS && *comm != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
    return rc;
}

/* The union communicator: the cached one when every member's candidate is the same entry
   (same id, same members hash) and its members are the union's; else made collectively. */
static int union_comm(int ictxt, int rows, int cols, int row, int col, MPI_Comm sys,
                      const int *sysranks, const int *members, context *candidate, int all_hit,
                      context **out, int *found)
{
    *found = 0;
    int n = rows * cols;
    if (all_hit) {
        *out = candidate;
        return REDIST_SUCCESS;
    }
    /* The same members under other handles (BLACS reuses and reassigns them): entries are
       never dropped before MPI_Finalize, so every member finds the same one. */
    for (context *c = contexts; c != NULL; c = c->next)
        if (c->rows * c->cols == n &&
            memcmp(c->members, members, (size_t)n * sizeof *members) == 0) {
            c->ictxt = ictxt, c->rows = rows, c->cols = cols, c->row = row, c->col = col;
            *out = c;
            *found = 1;
            return REDIST_SUCCESS;
        }
    context *c = calloc(1, sizeof *c);
    int *ranks = malloc((size_t)n * sizeof *ranks);
    MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    int err = c != NULL && ranks != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    MPI_Comm comm = MPI_COMM_NULL;
    if (err == REDIST_SUCCESS) {
        memcpy(ranks, members, (size_t)n * sizeof *ranks);
        /* Collective over the union only; a failed allocation above still takes part. */
    }
    MPI_Comm_group(sys, &world);
    MPI_Group_incl(world, n, sysranks, &group);
    if (create_group(sys, group, &comm) != MPI_SUCCESS)
        err = fail(REDIST_ERR_MPI, "MPI_Comm_create_group over the union context failed");
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    int id = next_context_id, agreed = 0, ok = err == REDIST_SUCCESS, all_ok = 0;
    if (comm != MPI_COMM_NULL) {
        MPI_Allreduce(&id, &agreed, 1, MPI_INT, MPI_MAX, comm);
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    }
    if (!all_ok) {
        if (comm != MPI_COMM_NULL)
            MPI_Comm_free(&comm);
        free(c);
        free(ranks);
        return err != REDIST_SUCCESS ? err : fail(REDIST_ERR_NOMEM, "another process failed");
    }
    next_context_id = agreed + 1;
    *c = (context){.ictxt = ictxt,
                   .rows = rows,
                   .cols = cols,
                   .row = row,
                   .col = col,
                   .comm = comm,
                   .members = ranks,
                   .id = agreed,
                   .next = contexts};
    contexts = c;
    *out = c;
    return REDIST_SUCCESS;
}

/* The hash of the exchanged parameters of both matrices and their grid maps. */
static int params_hash(const int *r, int nprocs)
{
    return members_hash(r + R_A, 2 * NPARAM) ^ members_hash(r + R_FIXED + nprocs, 2 * nprocs);
}

/* After BLACS changed the handles: whether every member has the same cached plan for these
   arguments (one agreement over the union's communicator), and which. */
static int agree_on_plan(context *c, const call_t *key, int params, plan_entry **pe)
{
    plan_entry *mine = find_plan(c, key);
    if (mine != NULL && mine->params_hash != params)
        mine = NULL;
    int v[2] = {mine ? mine->id + 1 : 0, mine ? ID_TOP - mine->id - 1 : ID_TOP}, all[2] = {0, 0};
    if (MPI_Allreduce(v, all, 2, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS)
        return 0;
    *pe = mine;
    return all[0] > 0 && all[0] == ID_TOP - all[1];
}

/* ---- layouts from descriptors -------------------------------------------------------------*/
static int matrix_layout(const int *p, const int *map, int m, int n, const side_t *mine,
                         redist_layout *out)
{
    int64_t extent[2] = {p[P_M], p[P_N]}, block[2] = {p[P_MB], p[P_NB]};
    int grid[2] = {p[P_ROWS], p[P_COLS]}, first[2] = {p[P_RSRC], p[P_CSRC]};
    redist_layout parent = NULL;
    int err = redist_layout_create(2, extent, block, grid, first, map, REDIST_COL_MAJOR, &parent);
    int64_t offset[2] = {p[P_I], p[P_J]}, count[2] = {m, n}, ld[2] = {mine->in ? mine->lld : 0, 0};
    if (err == REDIST_SUCCESS)
        err = redist_layout_create_window(parent, offset, count, ld, out);
    redist_layout_free(&parent);
    return err;
}

/* The grid coordinate of the block holding global index i, cyclic(b) from `first` over p (-1
   where replicated). */
static int first_of(int first, int i, int b, int p)
{
    return first == -1 ? -1 : (int)((first + i / b) % p);
}

/* trmr2d's scratch: B's window with dense local columns (phase kept, so local indices match;
   along a replicated dimension the phase is 0: its block size is 1). */
static int scratch_layout(const int *p, const int *map, int m, int n, redist_layout *out,
                          int64_t *rows, int64_t *cols, const side_t *mine)
{
    int64_t phase_r = p[P_I] % p[P_MB], phase_c = p[P_J] % p[P_NB];
    int64_t extent[2] = {phase_r + m, phase_c + n}, block[2] = {p[P_MB], p[P_NB]};
    int grid[2] = {p[P_ROWS], p[P_COLS]};
    int first[2] = {first_of(p[P_RSRC], p[P_I], p[P_MB], p[P_ROWS]),
                    first_of(p[P_CSRC], p[P_J], p[P_NB], p[P_COLS])};
    redist_layout parent = NULL;
    int err = redist_layout_create(2, extent, block, grid, first, map, REDIST_COL_MAJOR, &parent);
    int64_t offset[2] = {phase_r, phase_c}, count[2] = {m, n};
    if (err == REDIST_SUCCESS)
        err = redist_layout_create_window(parent, offset, count, NULL, out);
    *rows = mine->in ? numroc((int)extent[0], p[P_MB], mine->row, first[0], grid[0]) : 0;
    *cols = mine->in ? numroc((int)extent[1], p[P_NB], mine->col, first[1], grid[1]) : 0;
    redist_layout_free(&parent);
    return err;
}

/* Rows [lo, hi) of sub-matrix column jj that the trapezoid holds (REDIST/SRC/p?trmr2.c). */
static void trapezoid_rows(char uplo, char diag, int m, int n, int jj, int *lo, int *hi)
{
    int unit = diag == 'U' || diag == 'u';
    if (uplo == 'U' || uplo == 'u') {
        int rows = (m - n > 0 ? m - n : 0) + jj + !unit;
        *lo = 0;
        *hi = rows < m ? rows : m;
    } else {
        int first = jj - (n - m > 0 ? n - m : 0) + unit;
        *lo = first > 0 ? first : 0;
        *hi = m;
    }
}

/* Global index (0-based) of local index l of coordinate c, cyclic(b) over p from `first` (-1:
   replicated, l itself). */
static int64_t global_of(int64_t l, int b, int c, int first, int p)
{
    if (first == -1)
        return l;
    int64_t rel = ((int64_t)c - first + p) % p;
    return (l / b * p + rel) * b + l % b;
}

/* Copies this process's part of the trapezoid from the scratch array (srows x scols, dense)
   into B, block of local rows by block (a replicated column is one run): O(local blocks) work
   per local column. */
static void copy_trapezoid(const call_t *cl, const int *pb, const side_t *mine, const char *scratch,
                           int64_t srows, int64_t scols, char *b)
{
    if (!mine->in)
        return;
    int64_t es = (int64_t)elem_size(cl->kind);
    int mb = pb[P_MB], nb = pb[P_NB], pr = pb[P_ROWS], pc = pb[P_COLS];
    int64_t phase_r = pb[P_I] % mb, phase_c = pb[P_J] % nb;
    int fr = first_of(pb[P_RSRC], pb[P_I], mb, pr), fc = first_of(pb[P_CSRC], pb[P_J], nb, pc);
    int64_t run = fr == -1 ? srows : mb;
    /* The scratch's local index 0 is B's local row row0 and column col0: the parent's
       elements of this coordinate before the extended window (whole blocks). */
    int64_t row0 = numroc(pb[P_I] - (int)phase_r, mb, mine->row, pb[P_RSRC], pr),
            col0 = numroc(pb[P_J] - (int)phase_c, nb, mine->col, pb[P_CSRC], pc);
    for (int64_t lc = 0; lc < scols; lc++) {
        int64_t jj = global_of(lc, nb, mine->col, fc, pc) - phase_c;
        if (jj < 0 || jj >= cl->n)
            continue;
        int lo, hi;
        trapezoid_rows(cl->uplo, cl->diag, cl->m, cl->n, (int)jj, &lo, &hi);
        for (int64_t lr = 0; lr < srows; lr += run) { /* one local block: consecutive rows */
            int64_t g = global_of(lr, mb, mine->row, fr, pr) - phase_r;
            int64_t len = srows - lr < run ? srows - lr : run;
            int64_t from = g > lo ? g : lo, to = g + len < hi ? g + len : hi;
            if (from < to)
                memcpy(b + ((col0 + lc) * mine->lld + row0 + lr + (from - g)) * es,
                       scratch + (lc * srows + lr + (from - g)) * es, (size_t)((to - from) * es));
        }
    }
}

/* ---- one call -------------------------------------------------------------------------- */
static int make_plan(const call_t *cl, const call_t *key, context *c, const int *r, int nprocs,
                     const side_t *sa, const side_t *sb, plan_entry *e)
{
    const int *pa = r + R_A, *pb = r + R_B, *mapa = r + R_FIXED + nprocs,
              *mapb = r + R_FIXED + 2 * nprocs;
    redist_layout la = NULL, lb = NULL;
    int err = cl->op != OP_COPY ? matrix_layout(pa, mapa, cl->n, cl->m, sa, &la)
                                : matrix_layout(pa, mapa, cl->m, cl->n, sa, &la);
    if (err == REDIST_SUCCESS)
        err = cl->uplo ? scratch_layout(pb, mapb, cl->m, cl->n, &lb, &e->srows, &e->scols, sb)
                       : matrix_layout(pb, mapb, cl->m, cl->n, sb, &lb);
    e->scratch_bytes = (size_t)(e->srows * e->scols) * elem_size(cl->kind);
    if (err == REDIST_SUCCESS && cl->uplo && e->scratch_bytes > 0 &&
        (e->scratch = malloc(e->scratch_bytes)) == NULL)
        err = fail(REDIST_ERR_NOMEM, "trmr2d scratch of %zu bytes", e->scratch_bytes);
    /* Layout errors are local: agree on them, then every process creates the plan or none. */
    int all = 0;
    MPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MIN, c->comm);
    redist_options opt;
    static const int transposed[2] = {1, 0};
    redist_options_init(&opt);
    if (cl->op != OP_COPY) {
        opt.permutation = transposed;
        memcpy(opt.alpha, cl->alpha, sizeof opt.alpha);
        memcpy(opt.beta, cl->beta, sizeof opt.beta);
        opt.conjugate = cl->op == OP_CONJ_TRANSPOSE;
    }
    if (all == REDIST_SUCCESS)
        all = redist_plan_create(la, lb, mpi_type(cl->kind), c->comm, &opt, &e->plan);
    else if (err == REDIST_SUCCESS)
        err = fail(all, "another process could not describe its matrices");
    redist_layout_free(&la);
    redist_layout_free(&lb);
    if (all != REDIST_SUCCESS) {
        free(e->scratch);
        e->scratch = NULL;
        return err != REDIST_SUCCESS ? err : fail(all, "%s", redist_last_error_detail());
    }
    memcpy(&e->key, key, sizeof e->key);
    e->id = c->next_plan_id++; /* every member creates its plans in the same order */
    return REDIST_SUCCESS;
}

static plan_entry *free_slot(context *c)
{
    plan_entry *lru = &c->plans[0];
    for (int i = 0; i < PLANS_PER_CONTEXT; i++) {
        if (c->plans[i].plan == NULL)
            return &c->plans[i];
        if (c->plans[i].used < lru->used)
            lru = &c->plans[i];
    }
    redist_plan_free(&lru->plan); /* collective: every member evicts the same entry */
    free(lru->scratch);
    memset(lru, 0, sizeof *lru);
    return lru;
}

/* Parameter k of a matrix as the exchange carries it, >= 0 (the minimum is of absolute values):
   RSRC and CSRC, -1 where replicated, as RSRC + 1 and CSRC + 1; from_exchange undoes it. */
static int to_exchange(int k, int v)
{
    return k == P_RSRC || k == P_CSRC ? v + 1 : v;
}

static void from_exchange(int *r)
{
    for (int side = R_A; side <= R_B; side += NPARAM)
        r[side + P_RSRC]--, r[side + P_CSRC]--;
}

/* This process's slots of the exchange (the others INT_MAX, which the minimum ignores). */
static void fill_exchange(int *r, int len, const call_t *cl, int status, const context *cand,
                          const plan_entry *pe, const side_t *sa, const side_t *sb, int pos,
                          int sysrank, int nprocs)
{
    for (int i = 0; i < len; i++)
        r[i] = INT_MAX;
    r[R_STATUS] = STATUS_BASE + status;
    int call[3] = {cl->m < 0        ? 0
                   : cl->m < ID_TOP ? cl->m + 1
                                    : ID_TOP,
                   cl->n < 0        ? 0
                   : cl->n < ID_TOP ? cl->n + 1
                                    : ID_TOP,
                   (((int)cl->kind * 4 + cl->op) * 256 + (unsigned char)cl->uplo) * 256 +
                       (unsigned char)cl->diag};
    for (int i = 0; i < 3; i++) {
        r[R_CALL + i] = call[i];
        r[R_CALL_TOP + i] = ID_TOP - call[i];
    }
    r[R_CONTEXT] = cand ? cand->id + 1 : 0;
    r[R_CONTEXT_NEG] = cand ? ID_TOP - cand->id - 1 : ID_TOP;
    r[R_PLAN] = pe ? pe->id + 1 : 0;
    r[R_PLAN_NEG] = pe ? ID_TOP - pe->id - 1 : ID_TOP;
    r[R_HASH] = cand ? members_hash(cand->members, nprocs) : 0;
    r[R_HASH_NEG] = ID_TOP - r[R_HASH];
    r[R_PLAN_HASH] = pe ? pe->params_hash : 0;
    r[R_PLAN_HASH_NEG] = ID_TOP - r[R_PLAN_HASH];
    for (int i = 0; i < NPARAM; i++) {
        if (sa->in)
            r[R_A + i] = to_exchange(i, sa->param[i]), r[R_A_TOP + i] = ID_TOP - r[R_A + i];
        if (sb->in)
            r[R_B + i] = to_exchange(i, sb->param[i]), r[R_B_TOP + i] = ID_TOP - r[R_B + i];
    }
    if (sa->in)
        r[R_FIXED + nprocs + sa->row * sa->param[P_COLS] + sa->col] = pos;
    if (sb->in)
        r[R_FIXED + 2 * nprocs + sb->row * sb->param[P_COLS] + sb->col] = pos;
    r[R_FIXED + pos] = sysrank;
}

/* After the exchange: the worst status, then m, n and the routine alike everywhere. */
static int check_call(const int *r)
{
    int err = r[R_STATUS] - STATUS_BASE;
    for (int i = 0; err == REDIST_SUCCESS && i < 3; i++)
        if (r[R_CALL + i] != ID_TOP - r[R_CALL_TOP + i])
            err = fail(REDIST_ERR_MISMATCH, "the processes of the union context pass different %s",
                       i == 0   ? "m"
                       : i == 1 ? "n"
                                : "routines (type, uplo or diag)");
    return err;
}

/* Both grids: someone in each, one descriptor per grid, every process inside the union. */
/* Whether parameter i of the exchange (A's 0 .. NPARAM - 1, then B's) must be the same on every
   process of its grid. A block size along a grid dimension of one process places nothing
   (ScaLAPACK keeps whatever each process passed), so there the agreed minimum serves. */
static int must_agree(const int *r, int i)
{
    const int *side = r + R_A + i / NPARAM * NPARAM;
    int k = i % NPARAM;
    return !(k == P_MB && side[P_ROWS] == 1) && !(k == P_NB && side[P_COLS] == 1);
}

static int check_grids(const int *r, int nprocs)
{
    int err = REDIST_SUCCESS;
    if (r[R_A] == INT_MAX || r[R_B] == INT_MAX)
        err = fail(REDIST_ERR_ARG, "no process is in %s's grid", r[R_A] == INT_MAX ? "A" : "B");
    for (int i = 0; err == REDIST_SUCCESS && i < 2 * NPARAM; i++) /* A's and B's alike */
        if (r[R_A + i] != ID_TOP - r[R_A_TOP + i] && must_agree(r, i))
            err = fail(REDIST_ERR_MISMATCH,
                       "the processes of %s's grid pass different %s (or grid shapes)",
                       i < NPARAM ? "A" : "B",
                       i % NPARAM >= P_I ? "sub-matrix offsets" : "descriptors");
    if (err == REDIST_SUCCESS &&
        ((long)r[R_A] * r[R_A + 1] > nprocs || (long)r[R_B] * r[R_B + 1] > nprocs))
        err = fail(REDIST_ERR_ARG, "a grid has more processes than the union context");
    for (int i = 0; err == REDIST_SUCCESS && i < r[R_A] * r[R_A + 1]; i++)
        if (r[R_FIXED + nprocs + i] == INT_MAX)
            err = fail(REDIST_ERR_ARG, "A's grid has a process outside the union context");
    for (int i = 0; err == REDIST_SUCCESS && i < r[R_B] * r[R_B + 1]; i++)
        if (r[R_FIXED + 2 * nprocs + i] == INT_MAX)
            err = fail(REDIST_ERR_ARG, "B's grid has a process outside the union context");
    return err;
}

/* This process's verdict on its arguments (m and n, then A's and B's or C's), and its place
   in each grid. */
static int read_call(const call_t *cl, side_t *sa, side_t *sb)
{
    memset(sa, 0, sizeof *sa);
    memset(sb, 0, sizeof *sb);
    if (cl->m < 0 || cl->n < 0)
        return fail(REDIST_ERR_ARG, "m = %d, n = %d must be >= 0", cl->m, cl->n);
    int err = read_side(cl, 0, sa);
    return err != REDIST_SUCCESS ? err : read_side(cl, 1, sb);
}

static int run(const call_t *cl, const void *a, void *b)
{
    int rows = 0, cols = 0, row = -1, col = -1;
    Cblacs_gridinfo(cl->ictxt, &rows, &cols, &row, &col);
    if (row < 0 || col < 0 || row >= rows || col >= cols)
        return cl->op == OP_COPY
                   ? REDIST_SUCCESS /* not in the union: ScaLAPACK's processes outside do nothing */
                   : fail(REDIST_ERR_ARG,
                          "desca[CTXT] = %d is no grid of this process (PBLAS aborts)", cl->ictxt);
    set_finalize_hook();
    int sysctxt = 0, sysrank = 0, nprocs = rows * cols;
    Cblacs_get(cl->ictxt, 10, &sysctxt);
    MPI_Comm sys = Cblacs2sys_handle(sysctxt);
    MPI_Comm_rank(sys, &sysrank);
    side_t sa, sb;
    int status = read_call(cl, &sa, &sb);
    call_t key = cache_key(cl, &sa, &sb);

    context *cand = find_context(cl->ictxt, rows, cols, row, col);
    plan_entry *pe = find_plan(cand, &key);
    int len = R_FIXED + 3 * nprocs, *r = malloc((size_t)len * sizeof *r);
    if (r == NULL) /* cannot take part in the reduction: nothing sensible remains */
        return fail(REDIST_ERR_NOMEM, "the parameter exchange");
    fill_exchange(r, len, cl, status, cand, pe, &sa, &sb, row * cols + col, sysrank, nprocs);
    Cigamn2d(cl->ictxt, "All", " ", len, 1, r, len, NULL, NULL, -1, -1, -1);

    int err = check_call(r);
    if (err == REDIST_SUCCESS && (cl->m == 0 || cl->n == 0 || nothing_to_do(cl))) {
        free(r);
        return REDIST_SUCCESS;
    }
    if (err == REDIST_SUCCESS)
        err = check_grids(r, nprocs);
    if (err == REDIST_SUCCESS)
        from_exchange(r); /* both grids' parameters as passed */
    if (err != REDIST_SUCCESS) {
        if (status == REDIST_SUCCESS && err == r[R_STATUS] - STATUS_BASE)
            fail(err, "another process passed bad arguments");
        free(r);
        return err;
    }
    int *members = malloc((size_t)nprocs * sizeof *members);
    if (members == NULL) { /* the union's other members go on: this one cannot */
        free(r);
        return fail(REDIST_ERR_NOMEM, "the union's members");
    }
    world_ranks(sys, r + R_FIXED, nprocs, members);
    /* Every member's candidate is one entry, whose members are this union's. */
    int context_hit = r[R_CONTEXT] > 0 && r[R_CONTEXT] == ID_TOP - r[R_CONTEXT_NEG] &&
                      r[R_HASH] == ID_TOP - r[R_HASH_NEG] &&
                      r[R_HASH] == members_hash(members, nprocs);
    /* The parameters and maps everyone now has, whose hash a plan must have been made for. */
    int params = params_hash(r, nprocs);
    int plan_hit = context_hit && r[R_PLAN] > 0 && r[R_PLAN] == ID_TOP - r[R_PLAN_NEG] &&
                   r[R_PLAN_HASH] == ID_TOP - r[R_PLAN_HASH_NEG] && r[R_PLAN_HASH] == params;
    context *c = NULL;
    int found = 0; /* an entry with these members, the same on every member (never dropped) */
    err = union_comm(cl->ictxt, rows, cols, row, col, sys, r + R_FIXED, members, cand, context_hit,
                     &c, &found);
    free(members);
    if (err == REDIST_SUCCESS && found) /* BLACS gave the grids new handles */
        plan_hit = agree_on_plan(c, &key, params, &pe);
    if (err == REDIST_SUCCESS && !plan_hit) {
        pe = free_slot(c);
        err = make_plan(cl, &key, c, r, nprocs, &sa, &sb, pe);
        pe->params_hash = params;
    }
    if (err == REDIST_SUCCESS) {
        pe->used = ++clock_ticks;
        err = redist_execute(pe->plan, sa.in ? a : NULL,
                             cl->uplo ? (void *)pe->scratch : (sb.in ? b : NULL));
        if (err != REDIST_SUCCESS)
            fail(err, "%s", redist_last_error_detail());
    }
    if (err == REDIST_SUCCESS && cl->uplo)
        copy_trapezoid(cl, r + R_B, &sb, pe->scratch, pe->srows, pe->scols, b);
    free(r);
    return err;
}

/* ScaLAPACK's MDESC (REDIST/SRC/p?gemr.c): nine entries whatever DTYPE says; DTYPE not read. */
static desc_t mr2d_desc(const int *d)
{
    desc_t x = {0,      d[CTXT_], d[M_],    d[N_],    d[MB_], d[NB_],
                d[MB_], d[NB_],   d[RSRC_], d[CSRC_], d[LLD_]};
    return x;
}

/* PBLAS's PB_CargFtoC: DTYPE 1 (nine entries) or 2 (eleven: M, N, IMB, INB, MB, NB, RSRC, CSRC,
   LLD after CTXT); of any other type only DTYPE and CTXT, which PB_Cchkmat refuses. */
static desc_t pblas_desc(const int *d)
{
    desc_t x = {d[DTYPE_], d[CTXT_], 0, 0, 1, 1, 1, 1, 0, 0, 1};
    if (d[DTYPE_] == 1)
        x = mr2d_desc(d), x.dtype = 1;
    else if (d[DTYPE_] == 2)
        x = (desc_t){2, d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10]};
    return x;
}

/* p?trmr2d's trapezoid as ScaLAPACK's insidemat (REDIST/SRC/p?trmr2.c) reads UPLO and DIAG,
   which nothing checks: upper if UPLO is 'U' or 'u', else lower; an upper one holds the
   diagonal if DIAG is 'N' or 'n', a lower one unless DIAG is 'U' or 'u'. Stored as 'U'/'L'
   and 'N' (with the diagonal) or 'U' (without), so that processes agree on what they mean. */
static void read_trapezoid(const char *uplo, const char *diag, call_t *cl)
{
    int d = toupper((unsigned char)*diag);
    cl->uplo = toupper((unsigned char)*uplo) == 'U' ? 'U' : 'L';
    cl->diag = (cl->uplo == 'U' ? d == 'N' : d != 'U') ? 'N' : 'U';
}

static void call_op(kind_t kind, int op, const double alpha[2], const double beta[2],
                    const char *uplo, const char *diag, const int *m, const int *n, const void *a,
                    const int *ia, const int *ja, const int *desca, void *b, const int *ib,
                    const int *jb, const int *descb, const int *ictxt)
{
    last_detail[0] = '\0';
    if (op == OP_COPY && (*m == 0 || *n == 0)) { /* ScaLAPACK's first statement: nothing read */
        last_error = REDIST_SUCCESS;
        return;
    }
    call_t cl;
    memset(&cl, 0, sizeof cl); /* padding too: calls are compared with memcmp */
    cl.kind = kind;
    cl.op = op;
    if (op != OP_COPY) {
        memcpy(cl.alpha, alpha, sizeof cl.alpha);
        memcpy(cl.beta, beta, sizeof cl.beta);
    }
    if (uplo != NULL)
        read_trapezoid(uplo, diag, &cl);
    cl.m = *m;
    cl.n = *n;
    cl.ictxt = *ictxt;
    cl.a = op == OP_COPY ? mr2d_desc(desca) : pblas_desc(desca);
    cl.b = op == OP_COPY ? mr2d_desc(descb) : pblas_desc(descb);
    cl.ia = *ia, cl.ja = *ja, cl.ib = *ib, cl.jb = *jb;
    last_error = run(&cl, a, b);
}

static void call(kind_t kind, const char *uplo, const char *diag, const int *m, const int *n,
                 const void *a, const int *ia, const int *ja, const int *desca, void *b,
                 const int *ib, const int *jb, const int *descb, const int *ictxt)
{
    call_op(kind, OP_COPY, NULL, NULL, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

/* p?tran: A and C in one context, every process of its grid in both (PBLAS's rule): the
   union context is A's (PB_Cchkmat's checks refuse a C in another one on every process).
   A process whose A context is no grid of its own takes C's, if it is in that grid, so that
   it still joins the exchange and its error reaches the others, which would wait for it
   (PBLAS aborts the job there). */
static void call_tran(kind_t kind, int op, const double alpha[2], const double beta[2],
                      const int *m, const int *n, const void *a, const int *ia, const int *ja,
                      const int *desca, void *c, const int *ic, const int *jc, const int *descc)
{
    grid_t g;
    const int *ictxt =
        grid_of(desca[CTXT_], &g) || !grid_of(descc[CTXT_], &g) ? &desca[CTXT_] : &descc[CTXT_];
    call_op(kind, op, alpha, beta, NULL, NULL, m, n, a, ia, ja, desca, c, ic, jc, descc, ictxt);
}

/* ---- entry points ---------------------------------------------------------------------- */
/* The unprefixed Fortran (pdgemr2d_) and C (Cpdgemr2d) names that replace ScaLAPACK's; a
   build with REDIST_SCALAPACK_PREFIXED_ONLY has the redist_ names only (the tests, which
   compare with ScaLAPACK's own). */
#ifdef REDIST_SCALAPACK_PREFIXED_ONLY
#define UNPREFIXED(...)
#else
#define UNPREFIXED(...) __VA_ARGS__
#endif
#define GEMR2D(name, fname, cname, T, kind)                                                        \
    void name(int *m, int *n, T *a, int *ia, int *ja, int *desca, T *b, int *ib, int *jb,          \
              int *descb, int *ictxt)                                                              \
    {                                                                                              \
        call(kind, NULL, NULL, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);                   \
    }                                                                                              \
    UNPREFIXED(                                                                                    \
        void fname(int *m, int *n, T *a, int *ia, int *ja, int *desca, T *b, int *ib, int *jb,     \
                   int *descb, int *ictxt) {                                                       \
            call(kind, NULL, NULL, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);               \
        } void cname(int m, int n, T *a, int ia, int ja, int *desca, T *b, int ib, int jb,         \
                     int *descb, int ictxt) {                                                      \
            call(kind, NULL, NULL, &m, &n, a, &ia, &ja, desca, b, &ib, &jb, descb, &ictxt);        \
        })

#define TRMR2D(name, fname, cname, T, kind)                                                        \
    void name(char *uplo, char *diag, int *m, int *n, T *a, int *ia, int *ja, int *desca, T *b,    \
              int *ib, int *jb, int *descb, int *ictxt)                                            \
    {                                                                                              \
        call(kind, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);                   \
    }                                                                                              \
    UNPREFIXED(                                                                                    \
        void fname(char *uplo, char *diag, int *m, int *n, T *a, int *ia, int *ja, int *desca,     \
                   T *b, int *ib, int *jb, int *descb, int *ictxt) {                               \
            call(kind, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);               \
        } void cname(char *uplo, char *diag, int m, int n, T *a, int ia, int ja, int *desca, T *b, \
                     int ib, int jb, int *descb, int ictxt) {                                      \
            call(kind, uplo, diag, &m, &n, a, &ia, &ja, desca, b, &ib, &jb, descb, &ictxt);        \
        })

/* PBLAS: p?tran_ (Fortran) only; alpha and beta of the element type. */
#define TRAN(name, fname, T, kind, op, to_pair)                                                    \
    void name(int *m, int *n, T *alpha, T *a, int *ia, int *ja, int *desca, T *beta, T *c,         \
              int *ic, int *jc, int *descc)                                                        \
    {                                                                                              \
        double al[2], be[2];                                                                       \
        to_pair(alpha, al);                                                                        \
        to_pair(beta, be);                                                                         \
        call_tran(kind, op, al, be, m, n, a, ia, ja, desca, c, ic, jc, descc);                     \
    }                                                                                              \
    UNPREFIXED(void fname(int *m, int *n, T *alpha, T *a, int *ia, int *ja, int *desca, T *beta,   \
                          T *c, int *ic, int *jc, int *descc) {                                    \
        name(m, n, alpha, a, ia, ja, desca, beta, c, ic, jc, descc);                               \
    })

static void float_pair(const float *x, double out[2])
{
    out[0] = x[0];
    out[1] = 0.0;
}
static void double_pair(const double *x, double out[2])
{
    out[0] = x[0];
    out[1] = 0.0;
}
static void cfloat_pair(const void *x, double out[2])
{
    float v[2];
    memcpy(v, x, sizeof v);
    out[0] = v[0];
    out[1] = v[1];
}
static void cdouble_pair(const void *x, double out[2])
{
    memcpy(out, x, 2 * sizeof *out);
}

TRAN(redist_pstran, pstran_, float, KIND_S, OP_TRANSPOSE, float_pair)
TRAN(redist_pdtran, pdtran_, double, KIND_D, OP_TRANSPOSE, double_pair)
TRAN(redist_pctranu, pctranu_, void, KIND_C, OP_TRANSPOSE, cfloat_pair)
TRAN(redist_pztranu, pztranu_, void, KIND_Z, OP_TRANSPOSE, cdouble_pair)
TRAN(redist_pctranc, pctranc_, void, KIND_C, OP_CONJ_TRANSPOSE, cfloat_pair)
TRAN(redist_pztranc, pztranc_, void, KIND_Z, OP_CONJ_TRANSPOSE, cdouble_pair)

GEMR2D(redist_psgemr2d, psgemr2d_, Cpsgemr2d, float, KIND_S)
GEMR2D(redist_pdgemr2d, pdgemr2d_, Cpdgemr2d, double, KIND_D)
GEMR2D(redist_pcgemr2d, pcgemr2d_, Cpcgemr2d, void, KIND_C)
GEMR2D(redist_pzgemr2d, pzgemr2d_, Cpzgemr2d, void, KIND_Z)
GEMR2D(redist_pigemr2d, pigemr2d_, Cpigemr2d, int, KIND_I)
TRMR2D(redist_pstrmr2d, pstrmr2d_, Cpstrmr2d, float, KIND_S)
TRMR2D(redist_pdtrmr2d, pdtrmr2d_, Cpdtrmr2d, double, KIND_D)
TRMR2D(redist_pctrmr2d, pctrmr2d_, Cpctrmr2d, void, KIND_C)
TRMR2D(redist_pztrmr2d, pztrmr2d_, Cpztrmr2d, void, KIND_Z)
TRMR2D(redist_pitrmr2d, pitrmr2d_, Cpitrmr2d, int, KIND_I)
