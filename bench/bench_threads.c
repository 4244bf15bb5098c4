/* bench_threads: redist with T threads per rank (options.threads) against the memcpy floor
 * with T threads and with one, and ScaLAPACK's pdgemr2d / pdtran, on the same data in the
 * same run (docs/performance.md, "Threads").
 *
 *     mpirun -np P build/bench_threads [--n N] [--threads T] [--reps R] [--case NAME,...]
 *            [--transport pack|datatype] [--no-scalapack] [--arrays malloc|shared]
 *            [--alltoallw]
 *
 * Cases (doubles, global N x N, column-major local arrays as ScaLAPACK stores them, the
 * grid pr x pc the squarest factorisation of P with pr <= pc):
 *   same       128^2 on pr x pc -> the same layout
 *   blocks     36^2 -> 128^2 on pr x pc
 *   grid       64^2 on pr x pc -> 100^2 on pc x pr
 *   transpose  B = A^T: 32^2 -> 128^2 on pr x pc (redist: options.permutation {1, 0};
 *              ScaLAPACK: pdtran)
 *   small      8^2 -> 16^2 on pr x pc
 *   grid1d     64^2 on 1 x P -> 64^2 on P x 1
 *   2to4       32^2 on 1 x 2 (ranks 0, 1) -> 48^2 on 2 x 2 (P >= 4; bench_2d's case)
 *   half       32^2 on the squarest grid of ranks 0 .. P/2 - 1 -> 48^2 on pr x pc (P >= 4;
 *              at P = 16: 8 ranks -> 16)
 *   1d         cyclic(1) -> cyclic(3) of N^2 doubles on P ranks (1-D)
 *
 * Methods: memcpy-T (each rank copies the bytes it holds after the redistribution with T
 * OpenMP threads, then MPI_Barrier: the floor), memcpy-1 (the same with one thread), redist
 * (auto's plan with options.threads = T, created once), and, with ScaLAPACK and at T = 1,
 * pdgemr2d or pdtran (compare them at P x T ranks, one thread each), and with --alltoallw
 * redist's `alltoallw` algorithm (one MPI_Alltoallw with derived datatypes: the hand-made
 * baseline). --arrays shared takes the local arrays from redist_alloc (node-shared memory:
 * on-node messages copied once). Each method runs once as a warm-up, redist's and
 * ScaLAPACK's results are checked element by element, then R timed repetitions (default 6):
 * barrier, time, run, MPI_Allreduce(MAX); the median is printed.
 *
 * Exit status: 0 if every checked result was right, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_common.h"
#include "redist.h"

#ifndef REDIST_HAVE_SCALAPACK
#define REDIST_HAVE_SCALAPACK 0
#endif

#if REDIST_HAVE_SCALAPACK
extern void Cblacs_get(int icontxt, int what, int *val);
extern void Cblacs_gridmap(int *icontxt, int *usermap, int ldumap, int nprow, int npcol);
extern void Cblacs_gridexit(int icontxt);
extern void descinit_(int *desc, const int *m, const int *n, const int *mb, const int *nb,
                      const int *irsrc, const int *icsrc, const int *ictxt, const int *lld,
                      int *info);
extern void pdgemr2d_(int *m, int *n, double *a, int *ia, int *ja, int *desca, double *b, int *ib,
                      int *jb, int *descb, int *ictxt);
extern void pdtran_(int *m, int *n, double *alpha, double *a, int *ia, int *ja, int *desca,
                    double *beta, double *c, int *ic, int *jc, int *descc);
#endif

enum { MAX_REPS = 64 };

typedef struct grid {
    int64_t rows, cols, mb, nb;
    int pr, pc;
    const int *ranks; /* grid position (row-major) -> rank; NULL: the position */
} grid;

typedef struct bench_case {
    const char *name;
    grid src, dst;
    int transpose; /* B = A^T */
} bench_case;

typedef struct side {
    redist_layout layout;
    int64_t lr, lc; /* local extents (0 x 0 outside the grid) */
    double *a;
} side;

static int rank, nranks, threads = 1, reps = 6, use_scalapack = 1, failures;
static int transport = REDIST_TRANSPORT_AUTO; /* --transport pack|datatype */
static int shared_arrays, use_alltoallw;      /* --arrays shared, --alltoallw */

static void squarest(int p, int *pr, int *pc)
{
    *pr = 1;
    for (int r = 1; r * r <= p; r++)
        if (p % r == 0)
            *pr = r;
    *pc = p / *pr;
}

static redist_layout make_layout(const grid *g)
{
    int64_t ext[2] = {g->rows, g->cols}, blk[2] = {g->mb, g->nb};
    int grd[2] = {g->pr, g->pc};
    redist_layout l = NULL;
    if (redist_layout_create(2, ext, blk, grd, NULL, g->ranks, REDIST_COL_MAJOR, &l) != 0) {
        fprintf(stderr, "bench_threads: layout %lldx%lld blocks %lld on %dx%d refused\n",
                (long long)g->rows, (long long)g->cols, (long long)g->mb, g->pr, g->pc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return l;
}

/* Global (i, j) of local (li, lj) along a cyclic(b) dimension over p coordinates. */
static int64_t global_of(int64_t l, int64_t b, int coord, int p)
{
    return (l / b) * b * p + (int64_t)coord * b + l % b;
}

/* This rank's coordinates in g, or -1 outside. */
static int coords_of(const grid *g, int *r, int *c)
{
    for (int pos = 0; pos < g->pr * g->pc; pos++)
        if ((g->ranks ? g->ranks[pos] : pos) == rank) {
            *r = pos / g->pc;
            *c = pos % g->pc;
            return 0;
        }
    return -1;
}

static side make_side(const grid *g, int fill)
{
    side s = {make_layout(g), 0, 0, NULL};
    int64_t shape[2];
    redist_layout_local_shape(s.layout, rank, shape);
    s.lr = shape[0];
    s.lc = shape[1];
    s.a = bench_doubles(shared_arrays, s.lr * s.lc);
    int r = 0, c = 0;
    if (s.a == NULL || (s.lr * s.lc > 0 && coords_of(g, &r, &c) != 0)) {
        fprintf(stderr, "bench_threads: rank %d: no memory or no coordinates\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int64_t lj = 0; lj < s.lc; lj++)
        for (int64_t li = 0; li < s.lr; li++) {
            int64_t i = global_of(li, g->mb, r, g->pr), j = global_of(lj, g->nb, c, g->pc);
            s.a[li + lj * s.lr] = fill ? (double)(i + j * g->rows) : -1.0;
        }
    return s;
}

/* Every element of the destination: A's element (i, j), or (j, i) for a transpose. */
static int check_side(const bench_case *k, const side *d, const char *method)
{
    int r = 0, c = 0, bad = 0;
    const grid *g = &k->dst;
    if (d->lr * d->lc > 0)
        coords_of(g, &r, &c);
    for (int64_t lj = 0; lj < d->lc; lj++)
        for (int64_t li = 0; li < d->lr; li++) {
            int64_t i = global_of(li, g->mb, r, g->pr), j = global_of(lj, g->nb, c, g->pc);
            double want = k->transpose ? (double)(j + i * k->src.rows) : (double)(i + j * g->rows);
            if (d->a[li + lj * d->lr] != want && bad++ < 3)
                fprintf(stderr, "rank %d %s %s: (%lld, %lld) = %g, expected %g\n", rank, k->name,
                        method, (long long)i, (long long)j, d->a[li + lj * d->lr], want);
        }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    failures += all > 0;
    return all;
}

/* ---- methods --------------------------------------------------------------------------- */
typedef struct run_ctx {
    const bench_case *k;
    side *s, *d;
    double *scratch; /* memcpy's source: as many bytes as d holds */
    int nthreads;
    redist_plan plan;
#if REDIST_HAVE_SCALAPACK
    int desca[9], descb[9], ctxt_all;
#endif
} run_ctx;

static void run_memcpy(run_ctx *x)
{
    size_t bytes = (size_t)(x->d->lr * x->d->lc) * sizeof(double);
    char *to = (char *)x->d->a;
    const char *from = (const char *)x->scratch;
    int n = x->nthreads;
#ifdef _OPENMP
#pragma omp parallel num_threads(n) if (n > 1)
    {
        int t = omp_get_thread_num(), k = omp_get_num_threads();
        size_t lo = bytes * (size_t)t / (size_t)k, hi = bytes * (size_t)(t + 1) / (size_t)k;
        memcpy(to + lo, from + lo, hi - lo);
    }
#else
    (void)n;
    memcpy(to, from, bytes);
#endif
    MPI_Barrier(MPI_COMM_WORLD);
}

static void run_redist(run_ctx *x)
{
    if (redist_execute(x->plan, x->s->a, x->d->a) != REDIST_SUCCESS) {
        fprintf(stderr, "bench_threads: execute failed: %s\n", redist_last_error_detail());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

#if REDIST_HAVE_SCALAPACK
static void run_scalapack(run_ctx *x)
{
    int m = (int)x->k->dst.rows, n = (int)x->k->dst.cols, one = 1;
    double alpha = 1.0, beta = 0.0;
    if (x->k->transpose)
        pdtran_(&m, &n, &alpha, x->s->a, &one, &one, x->desca, &beta, x->d->a, &one, &one,
                x->descb);
    else
        pdgemr2d_(&m, &n, x->s->a, &one, &one, x->desca, x->d->a, &one, &one, x->descb,
                  &x->ctxt_all);
}

static int blacs_context(const grid *g)
{
    int ctxt = 0, map[4096];
    Cblacs_get(0, 0, &ctxt);
    for (int r = 0; r < g->pr; r++)
        for (int c = 0; c < g->pc; c++)
            map[r + c * g->pr] = g->ranks ? g->ranks[r * g->pc + c] : r * g->pc + c;
    Cblacs_gridmap(&ctxt, map, g->pr, g->pr, g->pc);
    return ctxt;
}

static void describe(const grid *g, const side *s, int ctxt, int desc[9])
{
    int m = (int)g->rows, n = (int)g->cols, mb = (int)g->mb, nb = (int)g->nb, zero = 0, info = 0;
    int lld = s->lr > 1 ? (int)s->lr : 1;
    if (ctxt < 0) { /* outside the grid: ScaLAPACK's convention */
        int outside[9] = {1, -1, m, n, mb, nb, 0, 0, 1};
        memcpy(desc, outside, sizeof outside);
        return;
    }
    descinit_(desc, &m, &n, &mb, &nb, &zero, &zero, &ctxt, &lld, &info);
}
#endif

/* The median of R timed runs (slowest rank's time per run), after one warm-up. */
static double time_method(void (*run)(run_ctx *), run_ctx *x)
{
    double t[MAX_REPS];
    run(x);
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        run(x);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[i], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    return bench_median(t, reps);
}

static void bench_one(const bench_case *k)
{
    side s = make_side(&k->src, 1), d = make_side(&k->dst, 0);
    run_ctx x;
    memset(&x, 0, sizeof x);
    x.k = k;
    x.s = &s;
    x.d = &d;
    x.scratch = malloc((size_t)(d.lr * d.lc + 1) * sizeof(double));
    x.nthreads = threads;
    memset(x.scratch, 1, (size_t)(d.lr * d.lc) * sizeof(double));
    double t_mt = time_method(run_memcpy, &x);
    x.nthreads = 1;
    double t_m1 = time_method(run_memcpy, &x);
    redist_options opt;
    redist_options_init(&opt);
#ifdef REDIST_MAX_THREADS /* built against an older redist.h too (the same run's baseline) */
    opt.threads = threads;
#endif
    opt.transport = transport;
    int perm[2] = {1, 0};
    if (k->transpose)
        opt.permutation = perm;
    if (redist_plan_create(s.layout, d.layout, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &x.plan) != 0) {
        fprintf(stderr, "bench_threads: plan failed: %s\n", redist_last_error_detail());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    run_redist(&x);
    check_side(k, &d, "redist");
    double t_r = time_method(run_redist, &x);
    const char *alg = redist_plan_algorithm(x.plan);
    redist_stats st;
    redist_plan_stats(x.plan, &st);
    double t_w = -1;
    if (use_alltoallw) { /* the same plan's pattern in one MPI_Alltoallw */
        redist_plan auto_plan = x.plan;
        opt.algorithm = "alltoallw";
        if (redist_plan_create(s.layout, d.layout, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &x.plan) !=
            0) {
            fprintf(stderr, "bench_threads: alltoallw plan: %s\n", redist_last_error_detail());
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        for (int64_t e = 0; e < d.lr * d.lc; e++)
            d.a[e] = -1.0;
        run_redist(&x);
        check_side(k, &d, "alltoallw");
        t_w = time_method(run_redist, &x);
        redist_plan_free(&x.plan);
        x.plan = auto_plan;
    }
    double t_s = -1;
#if REDIST_HAVE_SCALAPACK
    if (use_scalapack && threads == 1) {
        /* pdtran wants A and C in one context (the same grid here) */
        int ca = blacs_context(&k->src), cb = k->transpose ? ca : blacs_context(&k->dst);
        describe(&k->src, &s, ca, x.desca);
        describe(&k->dst, &d, cb, x.descb);
        grid all = {1, 1, 1, 1, 1, nranks, NULL};
        x.ctxt_all = blacs_context(&all);
        for (int64_t e = 0; e < d.lr * d.lc; e++)
            d.a[e] = -1.0;
        run_scalapack(&x);
        check_side(k, &d, k->transpose ? "pdtran" : "pdgemr2d");
        t_s = time_method(run_scalapack, &x);
        Cblacs_gridexit(x.ctxt_all);
        if (ca >= 0)
            Cblacs_gridexit(ca);
        if (cb >= 0 && !k->transpose)
            Cblacs_gridexit(cb);
    }
#endif
    if (rank == 0) {
        printf("%-10s %3d %3d %10.2f %10.2f %10.2f %8.2f %8.2f", k->name, nranks, threads,
               t_mt * 1e3, t_m1 * 1e3, t_r * 1e3, t_r / t_mt, t_m1 / t_r);
        if (t_s >= 0)
            printf(" %10.2f %8.2f", t_s * 1e3, t_s / t_r);
        else
            printf(" %10s %8s", "-", "-");
        if (t_w >= 0)
            printf(" %10.2f %8.2f", t_w * 1e3, t_w / t_r);
        else
            printf(" %10s %8s", "-", "-");
        printf("  %s/%s\n", alg ? alg : "?",
               st.transport == REDIST_TRANSPORT_DATATYPE ? "datatype" : "pack");
        fflush(stdout);
    }
    redist_plan_free(&x.plan);
    redist_layout_free(&s.layout);
    redist_layout_free(&d.layout);
    bench_free_doubles(shared_arrays, d.a); /* in reverse: redist_free is collective */
    bench_free_doubles(shared_arrays, s.a);
    free(x.scratch);
}

static const int ranks_01[] = {0, 1};

/* The cases for P ranks and extent n; returns how many. */
static int make_cases(bench_case *c, int64_t n)
{
    int pr, pc, k = 0;
    squarest(nranks, &pr, &pc);
    c[k++] =
        (bench_case){"same", {n, n, 128, 128, pr, pc, NULL}, {n, n, 128, 128, pr, pc, NULL}, 0};
    c[k++] =
        (bench_case){"blocks", {n, n, 36, 36, pr, pc, NULL}, {n, n, 128, 128, pr, pc, NULL}, 0};
    c[k++] = (bench_case){"grid", {n, n, 64, 64, pr, pc, NULL}, {n, n, 100, 100, pc, pr, NULL}, 0};
    c[k++] =
        (bench_case){"transpose", {n, n, 32, 32, pr, pc, NULL}, {n, n, 128, 128, pr, pc, NULL}, 1};
    c[k++] = (bench_case){"small", {n, n, 8, 8, pr, pc, NULL}, {n, n, 16, 16, pr, pc, NULL}, 0};
    c[k++] =
        (bench_case){"grid1d", {n, n, 64, 64, 1, nranks, NULL}, {n, n, 64, 64, nranks, 1, NULL}, 0};
    if (nranks >= 4) {
        c[k++] =
            (bench_case){"2to4", {n, n, 32, 32, 1, 2, ranks_01}, {n, n, 48, 48, 2, 2, NULL}, 0};
        int hr, hc; /* ranks 0 .. P/2 - 1 (a grid without a rank list: the first ones) */
        squarest(nranks / 2, &hr, &hc);
        c[k++] =
            (bench_case){"half", {n, n, 32, 32, hr, hc, NULL}, {n, n, 48, 48, pr, pc, NULL}, 0};
    }
    c[k++] =
        (bench_case){"1d", {n * n, 1, 1, 1, nranks, 1, NULL}, {n * n, 1, 3, 1, nranks, 1, NULL}, 0};
    return k;
}

static int wanted(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int64_t n = 2048;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--case") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--transport") && i + 1 < argc)
            transport = !strcmp(argv[++i], "pack")     ? REDIST_TRANSPORT_PACK
                        : !strcmp(argv[i], "datatype") ? REDIST_TRANSPORT_DATATYPE
                                                       : REDIST_TRANSPORT_AUTO;
        else if (!strcmp(argv[i], "--no-scalapack"))
            use_scalapack = 0;
        else if (!strcmp(argv[i], "--alltoallw"))
            use_alltoallw = 1;
        else if (!strcmp(argv[i], "--arrays") && i + 1 < argc)
            shared_arrays = !strcmp(argv[++i], "shared");
        else {
            if (rank == 0)
                fprintf(stderr, "usage: bench_threads [--n N] [--threads T] [--reps R] "
                                "[--case NAME,...] [--transport pack|datatype] [--no-scalapack] "
                                "[--arrays malloc|shared] [--alltoallw]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (n < 1 || threads < 1 || reps < 1 || reps > MAX_REPS || nranks > 4096) {
        if (rank == 0)
            fprintf(stderr, "bench_threads: bad --n, --threads or --reps (1 .. %d)\n", MAX_REPS);
        MPI_Finalize();
        return 2;
    }
    bench_case cases[9];
    int ncases = make_cases(cases, n);
    if (rank == 0)
        printf("# bench_threads: %lld x %lld doubles, %d ranks x %d threads, %s arrays, median "
               "of %d; ms\n"
               "%-10s %3s %3s %10s %10s %10s %8s %8s %10s %8s %10s %8s  %s\n",
               (long long)n, (long long)n, nranks, threads,
               shared_arrays ? "node-shared" : "malloc'd", reps, "case", "P", "T", "memcpy-T",
               "memcpy-1", "redist", "/memT", "m1/red", "scalapack", "sl/red", "alltoallw",
               "a2aw/red", "algorithm");
    for (int i = 0; i < ncases; i++)
        if (wanted(only, cases[i].name))
            bench_one(&cases[i]);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return all ? 1 : 0;
}
