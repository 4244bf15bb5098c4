/* ScaLAPACK's p?gemr2d and p?trmr2d on redist plans (libredist_scalapack).
 *
 * Arguments and semantics are ScaLAPACK's (REDIST/SRC/p?gemr.c): every process of the
 * union context ictxt calls; a process outside A's grid (or B's) passes DESC[CTXT] = -1
 * (its other A/B arguments are not read); m, n are the same everywhere.
 *
 * One call:
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

typedef struct {
    kind_t kind;
    char uplo, diag; /* 0 for gemr2d */
    int op;          /* OP_*: p?gemr2d and p?trmr2d copy */
    int m, n, ia, ja, ib, jb, ictxt;
    int desca[DLEN_], descb[DLEN_];
    double alpha[2], beta[2]; /* p?tran: part of the plan, so of its cache key */
} call_t;

/* A matrix's grid and parameters as the reduction carries them. */
enum { P_ROWS, P_COLS, P_M, P_N, P_MB, P_NB, P_RSRC, P_CSRC, P_I, P_J, NPARAM };

typedef struct {
    int in;            /* this process is in the matrix's grid */
    int row, col, lld; /* its position and LLD there */
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

/* ScaLAPACK's NUMROC with 0-based coordinates. */
static int numroc(int n, int nb, int iproc, int isrc, int nprocs)
{
    int mydist = (nprocs + iproc - isrc) % nprocs, nblocks = n / nb, r = (nblocks / nprocs) * nb;
    int extra = nblocks % nprocs;
    if (mydist < extra)
        r += nb;
    else if (mydist == extra)
        r += n % nb;
    return r;
}

/* The grid position of this process in ctxt (-1 if none), and checks of its descriptor. */
static int read_side(const int desc[DLEN_], int i, int j, int m, int n, const char *name, side_t *s)
{
    memset(s, 0, sizeof *s);
    if (desc[CTXT_] == -1)
        return REDIST_SUCCESS;
    int rows = 0, cols = 0;
    Cblacs_gridinfo(desc[CTXT_], &rows, &cols, &s->row, &s->col);
    if (s->row < 0 || s->col < 0 || s->row >= rows || s->col >= cols)
        return REDIST_SUCCESS; /* a valid context this process is not in */
    s->in = 1;
    s->lld = desc[LLD_];
    int p[NPARAM] = {rows,      cols,        desc[M_],    desc[N_], desc[MB_],
                     desc[NB_], desc[RSRC_], desc[CSRC_], i - 1,    j - 1};
    memcpy(s->param, p, sizeof p);
    if (desc[DTYPE_] != 1)
        return fail(REDIST_ERR_ARG, "desc%s[DTYPE] = %d: only 1 (dense) is supported", name,
                    desc[DTYPE_]);
    if (desc[M_] < 0 || desc[N_] < 0 || desc[MB_] < 1 || desc[NB_] < 1)
        return fail(REDIST_ERR_ARG, "desc%s: M = %d, N = %d, MB = %d, NB = %d", name, desc[M_],
                    desc[N_], desc[MB_], desc[NB_]);
    if (desc[RSRC_] < 0 || desc[RSRC_] >= rows || desc[CSRC_] < 0 || desc[CSRC_] >= cols)
        return fail(REDIST_ERR_ARG, "desc%s: RSRC = %d, CSRC = %d outside the %d x %d grid", name,
                    desc[RSRC_], desc[CSRC_], rows, cols);
    int local_rows = numroc(desc[M_], desc[MB_], s->row, desc[RSRC_], rows);
    if (desc[LLD_] < (local_rows > 1 ? local_rows : 1))
        return fail(REDIST_ERR_ARG, "desc%s[LLD] = %d is less than max(1, %d local rows)", name,
                    desc[LLD_], local_rows);
    if (i < 1 || j < 1 || (long)i - 1 + m > desc[M_] || (long)j - 1 + n > desc[N_])
        return fail(REDIST_ERR_ARG, "the %d x %d sub-matrix at (%d, %d) leaves %s's %d x %d", m, n,
                    i, j, name, desc[M_], desc[N_]);
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
   whether this process is in each grid. */
static call_t cache_key(const call_t *cl)
{
    call_t k = *cl;
    k.ictxt = 0;
    k.desca[CTXT_] = cl->desca[CTXT_] == -1 ? -1 : 0;
    k.descb[CTXT_] = cl->descb[CTXT_] == -1 ? -1 : 0;
    return k;
}

static plan_entry *find_plan(context *c, const call_t *cl)
{
    call_t key = cache_key(cl);
    for (int i = 0; c != NULL && i < PLANS_PER_CONTEXT; i++)
        if (c->plans[i].plan != NULL && same_call(&c->plans[i].key, &key))
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
static int agree_on_plan(context *c, const call_t *cl, int params, plan_entry **pe)
{
    plan_entry *mine = find_plan(c, cl);
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

/* trmr2d's scratch: B's window with dense local columns (phase kept, so local indices match). */
static int scratch_layout(const int *p, const int *map, int m, int n, redist_layout *out,
                          int64_t *rows, int64_t *cols, const side_t *mine)
{
    int64_t phase_r = p[P_I] % p[P_MB], phase_c = p[P_J] % p[P_NB];
    int64_t extent[2] = {phase_r + m, phase_c + n}, block[2] = {p[P_MB], p[P_NB]};
    int grid[2] = {p[P_ROWS], p[P_COLS]};
    int first[2] = {(int)((p[P_RSRC] + p[P_I] / p[P_MB]) % p[P_ROWS]),
                    (int)((p[P_CSRC] + p[P_J] / p[P_NB]) % p[P_COLS])};
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

/* Global index (0-based) of local index l of coordinate c, cyclic(b) over p from `first`. */
static int64_t global_of(int64_t l, int b, int c, int first, int p)
{
    int64_t rel = ((int64_t)c - first + p) % p;
    return (l / b * p + rel) * b + l % b;
}

/* Copies this process's part of the trapezoid from the scratch array (srows x scols, dense)
   into B, block of local rows by block: O(local blocks) work per local column. */
static void copy_trapezoid(const call_t *cl, const int *pb, const side_t *mine, const char *scratch,
                           int64_t srows, int64_t scols, char *b)
{
    if (!mine->in)
        return;
    int64_t es = (int64_t)elem_size(cl->kind);
    int mb = pb[P_MB], nb = pb[P_NB], pr = pb[P_ROWS], pc = pb[P_COLS];
    int64_t phase_r = pb[P_I] % mb, phase_c = pb[P_J] % nb;
    int fr = (int)((pb[P_RSRC] + pb[P_I] / mb) % pr), fc = (int)((pb[P_CSRC] + pb[P_J] / nb) % pc);
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
        for (int64_t lr = 0; lr < srows; lr += mb) { /* one local block: consecutive rows */
            int64_t g = global_of(lr, mb, mine->row, fr, pr) - phase_r;
            int64_t len = srows - lr < mb ? srows - lr : mb;
            int64_t from = g > lo ? g : lo, to = g + len < hi ? g + len : hi;
            if (from < to)
                memcpy(b + ((col0 + lc) * mine->lld + row0 + lr + (from - g)) * es,
                       scratch + (lc * srows + lr + (from - g)) * es, (size_t)((to - from) * es));
        }
    }
}

/* ---- one call -------------------------------------------------------------------------- */
static int make_plan(const call_t *cl, context *c, const int *r, int nprocs, const side_t *sa,
                     const side_t *sb, plan_entry *e)
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
    e->key = cache_key(cl);
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

/* This process's slots of the exchange (the others INT_MAX, which the minimum ignores). */
static void fill_exchange(int *r, int len, const call_t *cl, int status, const context *cand,
                          const plan_entry *pe, const side_t *sa, const side_t *sb, int pos,
                          int sysrank, int nprocs)
{
    for (int i = 0; i < len; i++)
        r[i] = INT_MAX;
    r[R_STATUS] = STATUS_BASE + status;
    int call[3] = {cl->m < 0 ? 0 : cl->m + 1, cl->n < 0 ? 0 : cl->n + 1,
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
            r[R_A_TOP + i] = ID_TOP - sa->param[i];
        if (sb->in)
            r[R_B_TOP + i] = ID_TOP - sb->param[i];
    }
    if (sa->in) {
        memcpy(r + R_A, sa->param, sizeof sa->param);
        r[R_FIXED + nprocs + sa->row * sa->param[P_COLS] + sa->col] = pos;
    }
    if (sb->in) {
        memcpy(r + R_B, sb->param, sizeof sb->param);
        r[R_FIXED + 2 * nprocs + sb->row * sb->param[P_COLS] + sb->col] = pos;
    }
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
static int check_grids(const int *r, int nprocs)
{
    int err = REDIST_SUCCESS;
    if (r[R_A] == INT_MAX || r[R_B] == INT_MAX)
        err = fail(REDIST_ERR_ARG, "no process is in %s's grid", r[R_A] == INT_MAX ? "A" : "B");
    for (int i = 0; err == REDIST_SUCCESS && i < 2 * NPARAM; i++) /* A's and B's alike */
        if (r[R_A + i] != ID_TOP - r[R_A_TOP + i])
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

/* PBLAS's quick return: alpha = 0 and beta = 1 leave sub(C) as it is. */
static int nothing_to_do(const call_t *cl)
{
    return cl->op != OP_COPY && cl->alpha[0] == 0.0 && cl->alpha[1] == 0.0 && cl->beta[0] == 1.0 &&
           cl->beta[1] == 0.0;
}

/* local: this process's verdict on the arguments checked before (uplo, diag, p?tran's one
   context); it goes into the exchange like any other, so every process learns it. */
static int run(const call_t *cl, const void *a, void *b, int local)
{
    int rows = 0, cols = 0, row = -1, col = -1;
    Cblacs_gridinfo(cl->ictxt, &rows, &cols, &row, &col);
    if (row < 0 || col < 0 || row >= rows || col >= cols)
        return REDIST_SUCCESS; /* not in the union: ScaLAPACK's processes outside do nothing */
    set_finalize_hook();
    int sysctxt = 0, sysrank = 0, nprocs = rows * cols;
    Cblacs_get(cl->ictxt, 10, &sysctxt);
    MPI_Comm sys = Cblacs2sys_handle(sysctxt);
    MPI_Comm_rank(sys, &sysrank);
    side_t sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    /* m or n = 0 does nothing, as in ScaLAPACK (whose routine reads nothing else then); the
       exchange still runs, so that a process with other m, n is told, not left waiting. */
    int status = local != REDIST_SUCCESS ? local
                 : cl->m < 0 || cl->n < 0
                     ? fail(REDIST_ERR_ARG, "m = %d, n = %d must be >= 0", cl->m, cl->n)
                     : REDIST_SUCCESS,
        sb_status = REDIST_SUCCESS;
    if (status == REDIST_SUCCESS && cl->m > 0 && cl->n > 0) {
        status = cl->op != OP_COPY ? read_side(cl->desca, cl->ia, cl->ja, cl->n, cl->m, "a", &sa)
                                   : read_side(cl->desca, cl->ia, cl->ja, cl->m, cl->n, "a", &sa);
        sb_status = read_side(cl->descb, cl->ib, cl->jb, cl->m, cl->n, "b", &sb);
        status = status != REDIST_SUCCESS ? status : sb_status;
    }

    context *cand = find_context(cl->ictxt, rows, cols, row, col);
    plan_entry *pe = find_plan(cand, cl);
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
    if (err != REDIST_SUCCESS) {
        if (status == REDIST_SUCCESS && sb_status == REDIST_SUCCESS &&
            err == r[R_STATUS] - STATUS_BASE)
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
        plan_hit = agree_on_plan(c, cl, params, &pe);
    if (err == REDIST_SUCCESS && !plan_hit) {
        pe = free_slot(c);
        err = make_plan(cl, c, r, nprocs, &sa, &sb, pe);
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

static void call_op(kind_t kind, int op, const double alpha[2], const double beta[2],
                    const char *uplo, const char *diag, const int *m, const int *n, const void *a,
                    const int *ia, const int *ja, const int *desca, void *b, const int *ib,
                    const int *jb, const int *descb, const int *ictxt)
{
    call_t cl;
    memset(&cl, 0, sizeof cl); /* padding too: calls are compared with memcmp */
    cl.kind = kind;
    cl.op = op;
    if (op != OP_COPY) {
        memcpy(cl.alpha, alpha, sizeof cl.alpha);
        memcpy(cl.beta, beta, sizeof cl.beta);
    }
    cl.uplo = uplo ? (char)toupper((unsigned char)*uplo) : 0; /* 'u' is 'U' */
    cl.diag = diag ? (char)toupper((unsigned char)*diag) : 0;
    cl.m = *m;
    cl.n = *n;
    cl.ictxt = *ictxt;
    memcpy(cl.desca, desca, sizeof cl.desca);
    memcpy(cl.descb, descb, sizeof cl.descb);
    cl.ia = cl.desca[CTXT_] == -1 ? 0 : *ia; /* not read outside a grid (ScaLAPACK's rule) */
    cl.ja = cl.desca[CTXT_] == -1 ? 0 : *ja;
    cl.ib = cl.descb[CTXT_] == -1 ? 0 : *ib;
    cl.jb = cl.descb[CTXT_] == -1 ? 0 : *jb;
    if (cl.desca[CTXT_] == -1)
        memset(cl.desca + 2, 0, sizeof cl.desca - 2 * sizeof *cl.desca);
    if (cl.descb[CTXT_] == -1)
        memset(cl.descb + 2, 0, sizeof cl.descb - 2 * sizeof *cl.descb);
    last_detail[0] = '\0';
    int local = REDIST_SUCCESS;
    if (uplo != NULL && strchr("UuLl", *uplo) == NULL)
        local = fail(REDIST_ERR_ARG, "uplo = '%c' must be 'U' or 'L'", *uplo);
    else if (diag != NULL && strchr("UuNn", *diag) == NULL)
        local = fail(REDIST_ERR_ARG, "diag = '%c' must be 'U' or 'N'", *diag);
    else if (op != OP_COPY && descb[CTXT_] != desca[CTXT_]) /* PBLAS: one context */
        local = fail(REDIST_ERR_ARG,
                     "descc[CTXT] = %d is not desca[CTXT] = %d: PBLAS transposes within one "
                     "context",
                     descb[CTXT_], desca[CTXT_]);
    last_error = run(&cl, a, b, local);
}

static void call(kind_t kind, const char *uplo, const char *diag, const int *m, const int *n,
                 const void *a, const int *ia, const int *ja, const int *desca, void *b,
                 const int *ib, const int *jb, const int *descb, const int *ictxt)
{
    call_op(kind, OP_COPY, NULL, NULL, uplo, diag, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt);
}

/* p?tran: A and C in one context, every process of its grid in both (PBLAS's rule): the
   union context is A's (call_op refuses a C in another one on every process). */
static void call_tran(kind_t kind, int op, const double alpha[2], const double beta[2],
                      const int *m, const int *n, const void *a, const int *ia, const int *ja,
                      const int *desca, void *c, const int *ic, const int *jc, const int *descc)
{
    call_op(kind, op, alpha, beta, NULL, NULL, m, n, a, ia, ja, desca, c, ic, jc, descc,
            &desca[CTXT_]);
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
