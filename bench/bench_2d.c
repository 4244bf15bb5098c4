/* bench_2d: every redist algorithm side by side with the memcpy floor and ScaLAPACK's
 * pdgemr2d, on the same data in the same run (docs/performance.md).
 *
 *     mpirun -np 4 --oversubscribe build/bench_2d [--case NAME[,NAME...]] [--reps R]
 *            [--reps-pdgemr2d R] [--budget SEC] [--size N] [--len1d L]
 *            [--methods M[,M...]] [--csv FILE]
 *
 * Cases (doubles, global n x n, local arrays column-major as ScaLAPACK stores them):
 *   same     128x128 blocks on 2x2 -> the same layout
 *   36to128  36x36 blocks on 2x2 -> 128x128 on 2x2
 *   grid     64x64 on 1x2 -> 100x100 on 2x1 (ranks 0 and 1; other ranks hold nothing)
 *   2to4     32x32 on 1x2 (ranks 0, 1) -> 48x48 on 2x2
 *   1d       cyclic(1) -> cyclic(3) of L doubles on 4 ranks, as an L x 1 matrix with
 *            blocks (1,1) -> (3,1) on a 4x1 grid, for redist and pdgemr2d alike
 *
 * Timing: each method is run once as a warm-up (whose result is verified element by
 * element), then repeated; each repetition is MPI_Barrier, MPI_Wtime, run, MPI_Wtime, and
 * an MPI_Allreduce(MAX) so a repetition's time is the slowest rank's. Reported: Tmin, Tmed,
 * Tavg, Tmax and effective GB/s (bytes of the whole array / Tmed). Plan creation is timed
 * separately (once, slowest rank). A method repeats R times (--reps, default 10), fewer
 * (never below 5) if R repetitions would take more than --budget seconds by the warm-up.
 *
 * Exit status: 0 if every method that ran produced the right result, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "redist.h"

#ifndef REDIST_HAVE_SCALAPACK
#define REDIST_HAVE_SCALAPACK 0
#endif

#if REDIST_HAVE_SCALAPACK
/* BLACS and ScaLAPACK have no C headers on Debian; these are their C / Fortran symbols. */
extern void Cblacs_pinfo(int *mypnum, int *nprocs);
extern void Cblacs_get(int icontxt, int what, int *val);
extern void Cblacs_gridinit(int *icontxt, char *order, int nprow, int npcol);
extern void Cblacs_gridmap(int *icontxt, int *usermap, int ldumap, int nprow, int npcol);
extern void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myrow, int *mycol);
extern void Cblacs_gridexit(int icontxt);
extern void Cblacs_exit(int notdone);
extern int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc,
                   const int *nprocs);
extern void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
                      const int *irsrc, const int *icsrc, const int *ictxt, const int *lld,
                      int *info);
extern void pdgemr2d_(int *m, int *n, double *a, int *ia, int *ja, int *desca, double *b, int *ib,
                      int *jb, int *descb, int *ictxt);
#endif

#define MIN_REPS 5
#define MAX_METHODS 64

/* ---- Cases ------------------------------------------------------------------------------ */

typedef struct {
    int64_t rows, cols; /* global extents */
    int64_t mb, nb;     /* block sizes */
    int prow, pcol;     /* process grid */
    const int *ranks;   /* rank of grid coordinate (r, c) is ranks[r*pcol + c]; NULL: r*pcol+c */
} grid_spec;

typedef struct {
    const char *name;
    const char *what;
    int needed; /* ranks the case needs */
    grid_spec src, dst;
} case_spec;

static const int ranks_01[] = {0, 1};

enum { NCASES = 5 };

static void make_cases(case_spec cases[NCASES], int64_t n, int64_t len1d)
{
    cases[0] = (case_spec){"same",
                           "128x128 on 2x2 -> 128x128 on 2x2",
                           4,
                           {n, n, 128, 128, 2, 2, NULL},
                           {n, n, 128, 128, 2, 2, NULL}};
    cases[1] = (case_spec){"36to128",
                           "36x36 on 2x2 -> 128x128 on 2x2",
                           4,
                           {n, n, 36, 36, 2, 2, NULL},
                           {n, n, 128, 128, 2, 2, NULL}};
    cases[2] = (case_spec){"grid",
                           "64x64 on 1x2 -> 100x100 on 2x1",
                           2,
                           {n, n, 64, 64, 1, 2, NULL},
                           {n, n, 100, 100, 2, 1, NULL}};
    cases[3] = (case_spec){"2to4",
                           "32x32 on 1x2 (ranks 0,1) -> 48x48 on 2x2",
                           4,
                           {n, n, 32, 32, 1, 2, ranks_01},
                           {n, n, 48, 48, 2, 2, NULL}};
    /* pdgemr2d handles both L x 1 on 4x1 and 1 x L on 1x4; L x 1 is faster (about 40 vs
       55 ms for 2^22 here). The element-to-rank mapping is the same 1-D cyclic one. */
    cases[4] = (case_spec){"1d",
                           "cyclic(1) -> cyclic(3), L x 1 on 4x1",
                           4,
                           {len1d, 1, 1, 1, 4, 1, NULL},
                           {len1d, 1, 3, 1, 4, 1, NULL}};
}

/* ---- One rank's piece of a layout ------------------------------------------------------- */

typedef struct {
    int in;           /* this rank is in the grid */
    int myrow, mycol; /* its coordinates */
    int64_t lr, lc;   /* local extents; the local array is lr x lc column-major, ld = lr */
    double *buf;      /* at least one element, so it is never NULL */
} piece;

static int64_t local_extent(int64_t n, int64_t b, int coord, int p)
{
    int64_t nblocks = n / b, extent = (nblocks / p) * b;
    int64_t extra = nblocks % p;
    if (coord < extra)
        extent += b;
    else if (coord == extra)
        extent += n % b;
    return extent;
}

/* Global index of local index l along a dimension cyclic(b) over p, this coordinate. */
static int64_t local_to_global(int64_t l, int64_t b, int coord, int p)
{
    return (l / b) * b * p + (int64_t)coord * b + l % b;
}

static piece piece_of(const grid_spec *g, int rank)
{
    piece pc = {0, -1, -1, 0, 0, NULL};
    for (int r = 0; r < g->prow; r++)
        for (int c = 0; c < g->pcol; c++) {
            int owner = g->ranks ? g->ranks[r * g->pcol + c] : r * g->pcol + c;
            if (owner == rank) {
                pc.in = 1;
                pc.myrow = r;
                pc.mycol = c;
            }
        }
    if (pc.in) {
        pc.lr = local_extent(g->rows, g->mb, pc.myrow, g->prow);
        pc.lc = local_extent(g->cols, g->nb, pc.mycol, g->pcol);
    }
    return pc;
}

static int64_t piece_count(const piece *pc)
{
    return pc->lr * pc->lc;
}

/* value(global_row, global_col) = global_row * cols + global_col, written one block-run
   (a column segment of up to mb rows) at a time. */
static void fill(const grid_spec *g, const piece *pc, double *a)
{
    for (int64_t lj = 0; lj < pc->lc; lj++) {
        int64_t gc = local_to_global(lj, g->nb, pc->mycol, g->pcol);
        double *col = a + lj * pc->lr;
        for (int64_t li0 = 0; li0 < pc->lr; li0 += g->mb) {
            int64_t gr0 = local_to_global(li0, g->mb, pc->myrow, g->prow);
            int64_t len = pc->lr - li0 < g->mb ? pc->lr - li0 : g->mb;
            double v = (double)(gr0 * g->cols + gc), step = (double)g->cols;
            for (int64_t k = 0; k < len; k++, v += step)
                col[li0 + k] = v;
        }
    }
}

/* Number of wrong elements in this rank's destination piece; prints the first one. */
static int64_t check(const grid_spec *g, const piece *pc, const double *a, int rank,
                     const char *method)
{
    int64_t bad = 0;
    for (int64_t lj = 0; lj < pc->lc; lj++) {
        int64_t gc = local_to_global(lj, g->nb, pc->mycol, g->pcol);
        const double *col = a + lj * pc->lr;
        for (int64_t li0 = 0; li0 < pc->lr; li0 += g->mb) {
            int64_t gr0 = local_to_global(li0, g->mb, pc->myrow, g->prow);
            int64_t len = pc->lr - li0 < g->mb ? pc->lr - li0 : g->mb;
            double v = (double)(gr0 * g->cols + gc), step = (double)g->cols;
            for (int64_t k = 0; k < len; k++, v += step)
                if (col[li0 + k] != v) {
                    if (bad == 0)
                        fprintf(
                            stderr,
                            "rank %d: %s: element (%lld, %lld) at local (%lld, %lld) is %.17g, expected %.17g\n",
                            rank, method, (long long)(gr0 + k), (long long)gc, (long long)(li0 + k),
                            (long long)lj, col[li0 + k], v);
                    bad++;
                }
        }
    }
    return bad;
}

static void poison(double *a, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        a[i] = -1.0;
}

/* ---- Methods ---------------------------------------------------------------------------- */

typedef int (*run_fn)(void *ctx);

typedef struct {
    void *to;
    const void *from;
    size_t bytes;
    int sync;
} memcpy_ctx;

/* The floor: one local copy of the bytes, closed by a barrier like every collective method
   is closed by its own completion. Without the barrier, when ranks outnumber cores a rank's
   clock can run only while it copies (the others copied while it was descheduled), and the
   "floor" comes out below the wall time the copies need together. The bare copy is also
   reported ("memcpy-local") for reference. */
static int run_memcpy(void *ctx)
{
    memcpy_ctx *m = ctx;
    if (m->bytes)
        memcpy(m->to, m->from, m->bytes);
    if (m->sync)
        MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

typedef struct {
    redist_plan plan;
    const double *src;
    double *dst;
} redist_ctx;

static int run_redist(void *ctx)
{
    redist_ctx *r = ctx;
    return redist_execute(r->plan, r->src, r->dst);
}

#if REDIST_HAVE_SCALAPACK
typedef struct {
    int m, n;
    double *a, *b;
    int desca[9], descb[9];
    int ctxt_all;
} pdgemr2d_ctx;

static int run_pdgemr2d(void *ctx)
{
    pdgemr2d_ctx *p = ctx;
    int one = 1;
    pdgemr2d_(&p->m, &p->n, p->a, &one, &one, p->desca, p->b, &one, &one, p->descb, &p->ctxt_all);
    return 0;
}

/* A BLACS context for grid g (ranks outside get -1). Collective over all ranks. */
static int blacs_grid(int sysctxt, const grid_spec *g)
{
    int *map = malloc(sizeof(int) * (size_t)(g->prow * g->pcol));
    if (!map) {
        fprintf(stderr, "bench_2d: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < g->prow; r++)
        for (int c = 0; c < g->pcol; c++)
            map[r + c * g->prow] = g->ranks ? g->ranks[r * g->pcol + c] : r * g->pcol + c;
    int ctxt = sysctxt;
    Cblacs_gridmap(&ctxt, map, g->prow, g->prow, g->pcol);
    free(map);
    return ctxt;
}

/* The ScaLAPACK descriptor of this rank's piece; desc[1] = -1 outside the grid. Returns 0,
   or -1 (after printing why) if ScaLAPACK's local extents disagree with ours. */
static int blacs_desc(int ctxt, const grid_spec *g, const piece *pc, int rank, int desc[9])
{
    int m = (int)g->rows, n = (int)g->cols, mb = (int)g->mb, nb = (int)g->nb, zero = 0;
    if (ctxt < 0) {
        int outside[9] = {1, -1, m, n, mb, nb, 0, 0, 1};
        memcpy(desc, outside, sizeof outside);
        return pc->in ? -1 : 0;
    }
    int nprow, npcol, myrow, mycol;
    Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    if (!pc->in || myrow != pc->myrow || mycol != pc->mycol) {
        fprintf(stderr, "rank %d: BLACS grid coordinates (%d, %d) differ from ours (%d, %d)\n",
                rank, myrow, mycol, pc->myrow, pc->mycol);
        return -1;
    }
    int lr = numroc_(&m, &mb, &myrow, &zero, &nprow);
    int lc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    if (lr != pc->lr || lc != pc->lc) {
        fprintf(stderr, "rank %d: ScaLAPACK local shape %d x %d differs from ours %lld x %lld\n",
                rank, lr, lc, (long long)pc->lr, (long long)pc->lc);
        return -1;
    }
    int lld = lr > 1 ? lr : 1, info = 0;
    descinit_(desc, &m, &n, &mb, &nb, &zero, &zero, &ctxt, &lld, &info);
    if (info != 0) {
        fprintf(stderr, "rank %d: descinit_ failed, info = %d\n", rank, info);
        return -1;
    }
    return 0;
}
#endif

/* ---- Timing ----------------------------------------------------------------------------- */

typedef struct {
    char method[40];
    char note[48]; /* chosen algorithm, or why it did not run */
    int ran;       /* timings are valid */
    int failed;    /* wrong result or an error other than not-applicable */
    int reps;
    double plan;      /* plan-create seconds (slowest rank), < 0 if none */
    double predicted; /* cost model's prediction (max over ranks), < 0 if none */
    double tmin, tmed, tavg, tmax;
} result;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed run: barrier, run, and the slowest rank's time; *err is set (on every rank)
   if run failed on any rank. */
static double timed_run(run_fn run, void *ctx, int *err)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = run(ctx);
    double local[2] = {MPI_Wtime() - t0, rc != 0 ? 1.0 : 0.0}, global[2];
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (global[1] != 0.0)
        *err = 1;
    return global[0];
}

typedef struct {
    int reps, reps_pdgemr2d;
    double budget;
    int rank;
} timing_opts;

/* Warm-up (verified unless dst_spec is NULL), then the timed repetitions. Collective. */
static void measure(result *res, run_fn run, void *ctx, int max_reps, const timing_opts *o,
                    const grid_spec *dst_spec, const piece *dst_piece, double *dst)
{
    int err = 0;
    if (dst_spec)
        poison(dst, piece_count(dst_piece));
    double warm = timed_run(run, ctx, &err);
    if (err) {
        res->failed = 1;
        snprintf(res->note, sizeof res->note, "execute failed");
        return;
    }
    if (dst_spec) {
        long long bad = check(dst_spec, dst_piece, dst, o->rank, res->method), total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (total != 0) {
            res->failed = 1;
            snprintf(res->note, sizeof res->note, "FAIL: %lld wrong elements", total);
            if (o->rank == 0)
                printf("FAIL: %s: %lld wrong elements in the destination\n", res->method, total);
            return;
        }
    }
    int reps = max_reps;
    if (o->budget > 0 && warm * reps > o->budget) {
        reps = (int)(o->budget / (warm > 0 ? warm : 1e-9));
        if (reps < MIN_REPS)
            reps = MIN_REPS;
        if (reps > max_reps)
            reps = max_reps;
    }
    double *t = malloc(sizeof(double) * (size_t)reps);
    if (!t) {
        fprintf(stderr, "bench_2d: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double sum = 0;
    for (int i = 0; i < reps; i++) {
        t[i] = timed_run(run, ctx, &err);
        sum += t[i];
    }
    if (err) {
        res->failed = 1;
        snprintf(res->note, sizeof res->note, "execute failed");
        free(t);
        return;
    }
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    res->ran = 1;
    res->reps = reps;
    res->tmin = t[0];
    res->tmax = t[reps - 1];
    res->tmed = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    res->tavg = sum / reps;
    free(t);
}

/* ---- Options ---------------------------------------------------------------------------- */

static int shared_arrays; /* --arrays shared: the local arrays from redist_alloc */

typedef struct {
    const char *cases;   /* comma list, NULL: all */
    const char *methods; /* comma list, NULL: all */
    const char *csv;
    int64_t n, len1d;
    timing_opts timing;
} options;

static int in_list(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == len && strncmp(p, name, len) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_2d [--case NAME[,NAME...]] [--reps R] [--reps-pdgemr2d R]\n"
            "                [--budget SEC] [--size N] [--len1d L] [--methods M[,M...]]\n"
            "                [--arrays malloc|shared] [--csv FILE]\n"
            "  --case     same, 36to128, grid, 2to4, 1d (default: all)\n"
            "  --reps     timed repetitions per method (default 10, at least %d)\n"
            "  --reps-pdgemr2d  repetitions for pdgemr2d (default: --reps, at least %d)\n"
            "  --budget   seconds per method: fewer repetitions (never below %d) if the\n"
            "             warm-up says --reps would take longer (default 0: no limit)\n"
            "  --size     global n of the n x n 2-D cases (default 6000)\n"
            "  --len1d    length of the 1d case (default 4194304 = 2^22)\n"
            "  --methods  only these: memcpy, memcpy-local, pdgemr2d, redist algorithm names, or\n"
            "             direct-async/pack, direct-async/pack-noshm, direct-async/datatype,\n"
            "             auto/bounded-1MiB (auto in bounded mode, 1 MiB per rank)\n"
            "  --arrays   the local arrays: malloc (default) or shared (redist_alloc: node-shared\n"
            "             memory, where plans with the packed transport copy once on a node)\n"
            "  --csv      write one row per (case, method) to FILE\n",
            MIN_REPS, MIN_REPS, MIN_REPS);
}

static int parse_int64(const char *s, int64_t *v, int64_t lo)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < lo)
        return -1;
    *v = x;
    return 0;
}

/* Returns 0 to run, 1 to exit successfully (--help), 2 on a bad option. */
static int parse_options(int argc, char **argv, options *o, int rank)
{
    *o = (options){NULL, NULL, NULL, 6000, (int64_t)1 << 22, {10, -1, 0.0, rank}};
    for (int i = 1; i < argc; i += 2) { /* every option but --help takes a value */
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int64_t x;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (rank == 0)
                usage(stdout);
            return 1;
        }
        if (!v) {
            if (rank == 0) {
                fprintf(stderr, "bench_2d: %s: unknown option or missing value\n", a);
                usage(stderr);
            }
            return 2;
        }
        int bad = 0;
        if (!strcmp(a, "--case"))
            o->cases = strcmp(v, "all") ? v : NULL;
        else if (!strcmp(a, "--methods"))
            o->methods = v;
        else if (!strcmp(a, "--csv"))
            o->csv = v;
        else if (!strcmp(a, "--arrays")) {
            bad = strcmp(v, "malloc") != 0 && strcmp(v, "shared") != 0;
            shared_arrays = !strcmp(v, "shared");
        } else if (!strcmp(a, "--size"))
            bad = parse_int64(v, &o->n, 1) || o->n > 46340; /* n*n fits pdgemr2d's int */
        else if (!strcmp(a, "--len1d"))
            bad = parse_int64(v, &o->len1d, 1) || o->len1d > 2147483647;
        else if (!strcmp(a, "--reps"))
            bad = parse_int64(v, &x, MIN_REPS) || x > 100000 || ((o->timing.reps = (int)x), 0);
        else if (!strcmp(a, "--reps-pdgemr2d"))
            bad = parse_int64(v, &x, MIN_REPS) || x > 100000 ||
                  ((o->timing.reps_pdgemr2d = (int)x), 0);
        else if (!strcmp(a, "--budget")) {
            char *end;
            o->timing.budget = strtod(v, &end);
            bad = end == v || *end || !(o->timing.budget >= 0);
        } else {
            if (rank == 0) {
                fprintf(stderr, "bench_2d: unknown option %s\n", a);
                usage(stderr);
            }
            return 2;
        }
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "bench_2d: bad value for %s: '%s'%s\n", a, v,
                        !strncmp(a, "--reps", 6) ? " (at least 5)" : "");
            return 2;
        }
    }
    if (o->timing.reps_pdgemr2d < 0)
        o->timing.reps_pdgemr2d = o->timing.reps;
    if (o->cases) {
        case_spec cases[NCASES];
        make_cases(cases, 1, 1);
        for (const char *p = o->cases; *p;) {
            const char *end = strchr(p, ',');
            size_t l = end ? (size_t)(end - p) : strlen(p);
            int found = 0;
            for (int c = 0; c < NCASES; c++)
                found |= strlen(cases[c].name) == l && !strncmp(cases[c].name, p, l);
            if (!found) {
                if (rank == 0)
                    fprintf(stderr,
                            "bench_2d: unknown case '%.*s' (same, 36to128, grid, 2to4, 1d)\n",
                            (int)l, p);
                return 2;
            }
            if (!end)
                break;
            p = end + 1;
        }
    }
    return 0;
}

/* ---- Report ----------------------------------------------------------------------------- */

static const result *find_result(const result *r, int nr, const char *method)
{
    for (int i = 0; i < nr; i++)
        if (r[i].ran && !strcmp(r[i].method, method))
            return &r[i];
    return NULL;
}

static void print_ratio(double num, double den)
{
    if (num > 0 && den > 0)
        printf(" %8.2f", num / den);
    else
        printf(" %8s", "-");
}

static void report(const case_spec *cs, const result *r, int nr, double bytes, int nprocs,
                   FILE *csv)
{
    const result *a2aw = find_result(r, nr, "alltoallw");
    const result *mc = find_result(r, nr, "memcpy");
    const result *au = find_result(r, nr, "auto");
    const result *pd = find_result(r, nr, "pdgemr2d");
    printf("\n== %s: %s, %lld x %lld doubles (%.1f MB), %d ranks\n", cs->name, cs->what,
           (long long)cs->src.rows, (long long)cs->src.cols, bytes / 1e6, nprocs);
    printf("%-18s %9s %4s %9s %9s %9s %9s %8s %8s %8s %9s  %s\n", "method", "plan[ms]", "reps",
           "Tmin[ms]", "Tmed[ms]", "Tavg[ms]", "Tmax[ms]", "GB/s", "/a2aw", "/memcpy", "pred[ms]",
           "note");
    for (int i = 0; i < nr; i++) {
        const result *x = &r[i];
        printf("%-18s", x->method);
        if (x->plan >= 0)
            printf(" %9.2f", x->plan * 1e3);
        else
            printf(" %9s", "-");
        if (x->ran) {
            printf(" %4d %9.2f %9.2f %9.2f %9.2f %8.2f", x->reps, x->tmin * 1e3, x->tmed * 1e3,
                   x->tavg * 1e3, x->tmax * 1e3, bytes / x->tmed / 1e9);
            print_ratio(x->tmed, a2aw ? a2aw->tmed : 0);
            print_ratio(x->tmed, mc ? mc->tmed : 0);
        } else {
            printf(" %4s %9s %9s %9s %9s %8s %8s %8s", "-", "-", "-", "-", "-", "-", "-", "-");
        }
        if (x->predicted >= 0)
            printf(" %9.2f", x->predicted * 1e3);
        else
            printf(" %9s", "-");
        printf("  %s\n", x->note);
    }
    printf("ratios (Tmed):");
    if (pd && au)
        printf("  pdgemr2d/auto = %.2f", pd->tmed / au->tmed);
    if (au && mc)
        printf("  auto/memcpy = %.2f", au->tmed / mc->tmed);
    if (au && a2aw)
        printf("  auto/alltoallw = %.2f", au->tmed / a2aw->tmed);
    if (pd && a2aw)
        printf("  pdgemr2d/alltoallw = %.2f", pd->tmed / a2aw->tmed);
    printf("\n");
    fflush(stdout);

    if (!csv)
        return;
    for (int i = 0; i < nr; i++) {
        const result *x = &r[i];
        const char *status = x->failed ? "fail" : x->ran ? "ok" : "skipped";
        fprintf(csv, "%s,%s,%s,%lld,%lld,%.0f,%d,%d,", cs->name, x->method, x->note,
                (long long)cs->src.rows, (long long)cs->src.cols, bytes, nprocs,
                x->ran ? x->reps : 0);
        if (x->plan >= 0)
            fprintf(csv, "%.9g,", x->plan);
        else
            fprintf(csv, ",");
        if (x->ran)
            fprintf(csv, "%.9g,%.9g,%.9g,%.9g,%.6g,", x->tmin, x->tmed, x->tavg, x->tmax,
                    bytes / x->tmed / 1e9);
        else
            fprintf(csv, ",,,,,");
        if (x->ran && a2aw)
            fprintf(csv, "%.6g,", x->tmed / a2aw->tmed);
        else
            fprintf(csv, ",");
        if (x->ran && mc)
            fprintf(csv, "%.6g,", x->tmed / mc->tmed);
        else
            fprintf(csv, ",");
        if (x->predicted >= 0)
            fprintf(csv, "%.9g,", x->predicted);
        else
            fprintf(csv, ",");
        fprintf(csv, "%s\n", status);
    }
    fflush(csv);
}

/* ---- One case --------------------------------------------------------------------------- */

static redist_layout make_layout(const grid_spec *g, int *err)
{
    redist_layout l = NULL;
    int rc = redist_layout_create(2, (int64_t[]){g->rows, g->cols}, (int64_t[]){g->mb, g->nb},
                                  (int[]){g->prow, g->pcol}, NULL, g->ranks, REDIST_COL_MAJOR, &l);
    if (rc != REDIST_SUCCESS) {
        fprintf(stderr, "bench_2d: redist_layout_create: %s\n", redist_strerror(rc));
        *err = 1;
    }
    return l;
}

/* Our local shape, redist's and (via blacs_desc) ScaLAPACK's must all agree. */
static int check_shape(redist_layout l, const piece *pc, int rank, const char *which)
{
    int64_t shape[2] = {-1, -1};
    int rc = redist_layout_local_shape(l, rank, shape);
    if (rc != REDIST_SUCCESS || shape[0] != pc->lr || shape[1] != pc->lc) {
        fprintf(
            stderr,
            "rank %d: %s layout: redist local shape %lld x %lld (%s) differs from the ScaLAPACK (numroc) shape %lld x %lld\n",
            rank, which, (long long)shape[0], (long long)shape[1],
            rc ? redist_error_name(rc) : "ok", (long long)pc->lr, (long long)pc->lc);
        return -1;
    }
    return 0;
}

static int all_ok(int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* Runs one case on every rank; returns 1 if anything failed. */
static int run_case(const case_spec *cs, const options *o, int rank, int nprocs, int sysctxt,
                    int ctxt_all, FILE *csv)
{
    (void)sysctxt;
    (void)ctxt_all;
    const grid_spec *gs = &cs->src, *gd = &cs->dst;
    piece ps = piece_of(gs, rank), pd = piece_of(gd, rank);
    int64_t ns = piece_count(&ps), nd = piece_count(&pd);
    double *src = bench_doubles(shared_arrays, ns), *dst = bench_doubles(shared_arrays, nd),
           *tmp = bench_doubles(shared_arrays, nd);
    fill(gs, &ps, src);
    memset(tmp, 0, sizeof(double) * (size_t)(nd > 0 ? nd : 1));
    poison(dst, nd);
    double bytes = (double)gs->rows * (double)gs->cols * sizeof(double);
    result *res = calloc(MAX_METHODS, sizeof(result));
    int nr = 0, failed = 0;

    int err = 0;
    redist_layout ls = make_layout(gs, &err), ld = make_layout(gd, &err);
    if (!err) {
        err |= check_shape(ls, &ps, rank, "source") != 0;
        err |= check_shape(ld, &pd, rank, "destination") != 0;
    }
    if (!all_ok(!err)) {
        if (rank == 0)
            printf("FAIL: %s: layouts could not be created or disagree (see stderr)\n", cs->name);
        failed = 1;
        goto done;
    }

    /* memcpy floor: each rank copies the bytes it holds after the redistribution. */
    for (int sync = 1; sync >= 0; sync--) {
        const char *name = sync ? "memcpy" : "memcpy-local";
        if (!in_list(o->methods, name))
            continue;
        result *x = &res[nr++];
        snprintf(x->method, sizeof x->method, "%s", name);
        x->plan = x->predicted = -1;
        memcpy_ctx m = {dst, tmp, sizeof(double) * (size_t)nd, sync};
        measure(x, run_memcpy, &m, o->timing.reps, &o->timing, NULL, &pd, dst);
        failed |= x->failed;
    }

    /* Every algorithm with default options, then direct-async with each transport forced
       (labels "direct-async/pack", "/pack-noshm", "/datatype"), then auto in bounded mode
       at 1 MiB per rank ("auto/bounded-1MiB"). */
    static const char *const variants[] = {"/pack", "/pack-noshm", "/datatype", "/bounded-1MiB"};
    int nalgs = redist_algorithm_count();
    for (int i = 0; i < nalgs + 4 && nr < MAX_METHODS - 1; i++) {
        const char *name = i < nalgs       ? redist_algorithm_name(i)
                           : i < nalgs + 3 ? "direct-async"
                                           : "auto";
        char label[40];
        snprintf(label, sizeof label, "%.24s%.15s", name ? name : "",
                 i < nalgs ? "" : variants[i - nalgs]);
        if (!name || !in_list(o->methods, label))
            continue;
        result *x = &res[nr++];
        snprintf(x->method, sizeof x->method, "%s", label);
        x->plan = x->predicted = -1;
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = name;
        if (i >= nalgs && i < nalgs + 3) {
            opt.transport = i - nalgs == 2 ? REDIST_TRANSPORT_DATATYPE : REDIST_TRANSPORT_PACK;
            opt.shared_memory = i - nalgs != 1;
        }
        if (i == nalgs + 3)
            opt.max_buffer_bytes = (int64_t)1 << 20;
        redist_plan plan = NULL;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = redist_plan_create(ls, ld, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        double dt = MPI_Wtime() - t0;
        if (rc == REDIST_ERR_NOT_APPLICABLE || rc == REDIST_ERR_UNSUPPORTED) {
            snprintf(x->note, sizeof x->note, "%s",
                     rc == REDIST_ERR_NOT_APPLICABLE ? "not applicable" : "unsupported");
            continue;
        }
        if (rc != REDIST_SUCCESS) {
            if (rank == 0)
                printf("ERROR: %s: %s: redist_plan_create: %s\n", cs->name, name,
                       redist_strerror(rc));
            snprintf(x->note, sizeof x->note, "plan: %s", redist_error_name(rc));
            x->failed = 1;
            failed = 1;
            continue;
        }
        MPI_Allreduce(&dt, &x->plan, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        redist_stats st;
        double pred = -1;
        if (redist_plan_stats(plan, &st) == REDIST_SUCCESS)
            pred = st.predicted_seconds;
        MPI_Allreduce(&pred, &x->predicted, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        const char *chosen = redist_plan_algorithm(plan);
        if (chosen && strcmp(chosen, name))
            snprintf(x->note, sizeof x->note, "chose %s", chosen);
        redist_ctx r = {plan, ps.in ? src : NULL, dst};
        measure(x, run_redist, &r, o->timing.reps, &o->timing, gd, &pd, dst);
        if (x->failed && rank == 0 && !strncmp(x->note, "execute", 7))
            printf("ERROR: %s: %s: redist_execute failed\n", cs->name, name);
        failed |= x->failed;
        redist_plan_free(&plan);
    }

#if REDIST_HAVE_SCALAPACK
    if (in_list(o->methods, "pdgemr2d")) {
        result *x = &res[nr++];
        snprintf(x->method, sizeof x->method, "pdgemr2d");
        x->plan = x->predicted = -1;
        int ctxt_s = blacs_grid(sysctxt, gs), ctxt_d = blacs_grid(sysctxt, gd);
        double dummy = 0;
        pdgemr2d_ctx p = {
            (int)gs->rows, (int)gs->cols, ps.in ? src : &dummy, pd.in ? dst : &dummy, {0},
            {0},           ctxt_all};
        int ok = blacs_desc(ctxt_s, gs, &ps, rank, p.desca) == 0;
        ok &= blacs_desc(ctxt_d, gd, &pd, rank, p.descb) == 0;
        if (all_ok(ok)) {
            measure(x, run_pdgemr2d, &p, o->timing.reps_pdgemr2d, &o->timing, gd, &pd, dst);
        } else {
            if (rank == 0)
                printf(
                    "FAIL: %s: ScaLAPACK's local shapes or grids differ from redist's (see stderr)\n",
                    cs->name);
            snprintf(x->note, sizeof x->note, "shape mismatch");
            x->failed = 1;
        }
        failed |= x->failed;
        if (ctxt_s >= 0)
            Cblacs_gridexit(ctxt_s);
        if (ctxt_d >= 0)
            Cblacs_gridexit(ctxt_d);
    }
#endif

    if (rank == 0)
        report(cs, res, nr, bytes, nprocs, csv);
done:
    redist_layout_free(&ls);
    redist_layout_free(&ld);
    free(res);
    bench_free_doubles(shared_arrays, src);
    bench_free_doubles(shared_arrays, dst);
    bench_free_doubles(shared_arrays, tmp);
    return failed;
}

/* ---- Main ------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    options o;
    int pr = parse_options(argc, argv, &o, rank);
    if (pr != 0) {
        MPI_Finalize();
        return pr == 1 ? 0 : 2;
    }

    int sysctxt = -1, ctxt_all = -1;
#if REDIST_HAVE_SCALAPACK
    int me, np;
    Cblacs_pinfo(&me, &np);
    Cblacs_get(-1, 0, &sysctxt);
    ctxt_all = sysctxt;
    char row_major[] = "Row";
    Cblacs_gridinit(&ctxt_all, row_major, 1, nprocs);
#endif

    FILE *csv = NULL;
    int csv_ok = 1;
    if (rank == 0 && o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            fprintf(stderr, "bench_2d: cannot write %s: %s\n", o.csv, strerror(errno));
            csv_ok = 0;
        } else {
            fprintf(csv, "case,method,note,rows,cols,bytes,nprocs,reps,plan_s,tmin_s,tmed_s,"
                         "tavg_s,tmax_s,gbps,ratio_alltoallw,ratio_memcpy,predicted_s,"
                         "status\n");
        }
    }
    MPI_Bcast(&csv_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

    int failed = !csv_ok;
    if (rank == 0 && csv_ok) {
        printf("bench_2d: %d ranks, n = %lld, 1d length = %lld, reps = %d (pdgemr2d %d)", nprocs,
               (long long)o.n, (long long)o.len1d, o.timing.reps, o.timing.reps_pdgemr2d);
        if (o.timing.budget > 0)
            printf(", budget %.1f s per method (at least %d reps)", o.timing.budget, MIN_REPS);
        printf("%s\n", REDIST_HAVE_SCALAPACK ? "" : "; built without ScaLAPACK");
        printf(
            "times are the slowest rank's per repetition; GB/s = array bytes / Tmed; /a2aw and /memcpy are Tmed ratios\n");
    }
    case_spec cases[NCASES];
    make_cases(cases, o.n, o.len1d);
    for (int c = 0; c < NCASES && csv_ok; c++) {
        if (!in_list(o.cases, cases[c].name))
            continue;
        if (nprocs < cases[c].needed) {
            if (rank == 0)
                printf("\n== %s: skipped, needs %d ranks (have %d)\n", cases[c].name,
                       cases[c].needed, nprocs);
            continue;
        }
        failed |= run_case(&cases[c], &o, rank, nprocs, sysctxt, ctxt_all, csv);
    }
    if (csv)
        fclose(csv);
    if (rank == 0 && csv_ok)
        printf("\n%s\n",
               failed ? "bench_2d: FAILED (see above)" : "bench_2d: all results verified");

#if REDIST_HAVE_SCALAPACK
    if (ctxt_all >= 0)
        Cblacs_gridexit(ctxt_all);
    Cblacs_exit(1); /* 1: leave MPI running, we finalize it ourselves */
#endif
    MPI_Finalize();
    return failed ? 1 : 0;
}
