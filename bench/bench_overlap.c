/* bench_overlap: how much of a redistribution redist_start / redist_test / redist_wait hide
 * behind computation ([SD96] §3.3's overlap of communication with computation).
 *
 *     mpirun -np 2 build/bench_overlap [--case NAME[,NAME...]] [--n N] [--reps R]
 *            [--slices S] [--modes M[,M...]] [--ratio X]
 *
 * Cases (doubles, every element checked after each timed kind of run):
 *   1d        cyclic(3) -> cyclic(5) of N doubles on every rank (default N = 8M)
 *   2d        sqrt(N) x sqrt(N), 64x64 blocks on 1xP -> 100x100 on Px1
 *   disjoint  the paper's two tasks: Block on the first half of the ranks -> Cyclic(7) on
 *             the second half (one rank: itself)
 * Modes: default (the plan's own choice), bounded (max_buffer_bytes = 1 MiB), noshm (the
 *   default with options.shared_memory = 0: MPI moves the data).
 *
 * For each case and mode, medians over R repetitions (each: MPI_Barrier, time, run, slowest
 * rank by MPI_Allreduce MAX) of
 *   Tcomm     redist_execute alone
 *   Tcomp     the compute alone: a chain of dependent multiply-adds in registers (no memory
 *             traffic), sized so that Tcomp = X * Tcomm (--ratio, default 1)
 *   Tserial   redist_execute, then the compute
 *   Toverlap  redist_start, the compute cut in S slices (--slices, default 64) with
 *             redist_test after each, redist_wait
 * and reports hidden = (Tserial - Toverlap) / Tcomm, the fraction of the communication time
 * that the overlap removed (1: all of it), with Tlib, the slowest rank's time inside
 * redist_start/test/wait during the overlapped run: work the library does on the rank's own
 * core (packing, unpacking, copies through shared memory), which no overlap can hide on a
 * core that is computing: bound = 1 - Tlib / Tcomm is the most any overlap could hide then.
 *
 * Exit status: 0 if every run produced the right result, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"

#define MAX_REPS 101

static int rank, size;

/* One side of a case: its layout and what the checks need to find global indices. */
typedef struct side {
    redist_layout layout;
    int nd, grid[2];
    int64_t ext[2], block[2];
    int64_t count; /* this rank's local elements */
} side;

typedef struct bench_case {
    const char *name;
    side src, dst;
} bench_case;

/* ---- layouts ------------------------------------------------------------------------------ */

static int make_side(int nd, const int64_t *ext, const int64_t *block, const int *grid,
                     int first_rank, side *out)
{
    int nranks = nd == 1 ? grid[0] : grid[0] * grid[1];
    int *ranks = malloc((size_t)nranks * sizeof *ranks);
    for (int i = 0; i < nranks; i++)
        ranks[i] = first_rank + i;
    out->nd = nd;
    for (int k = 0; k < nd; k++)
        out->ext[k] = ext[k], out->block[k] = block[k], out->grid[k] = grid[k];
    int rc =
        redist_layout_create(nd, ext, block, grid, NULL, ranks, REDIST_COL_MAJOR, &out->layout);
    free(ranks);
    if (rc == REDIST_SUCCESS)
        rc = redist_layout_local_size(out->layout, rank, &out->count);
    return rc;
}

static int make_case(const char *name, int64_t n, bench_case *c)
{
    int rc;
    c->name = name;
    if (strcmp(name, "1d") == 0) {
        rc = make_side(1, &n, (int64_t[]){3}, &size, 0, &c->src);
        if (rc == REDIST_SUCCESS)
            rc = make_side(1, &n, (int64_t[]){5}, &size, 0, &c->dst);
    } else if (strcmp(name, "disjoint") == 0) {
        int half = size / 2 > 0 ? size / 2 : 1, rest = size - half > 0 ? size - half : 1;
        int64_t block = (n + half - 1) / half;
        rc = make_side(1, &n, &block, &half, 0, &c->src);
        if (rc == REDIST_SUCCESS)
            rc = make_side(1, &n, (int64_t[]){7}, &rest, size > 1 ? half : 0, &c->dst);
    } else if (strcmp(name, "2d") == 0) {
        int64_t side_n = (int64_t)sqrt((double)n), ext[2] = {side_n, side_n};
        rc = make_side(2, ext, (int64_t[]){64, 64}, (int[]){1, size}, 0, &c->src);
        if (rc == REDIST_SUCCESS)
            rc = make_side(2, ext, (int64_t[]){100, 100}, (int[]){size, 1}, 0, &c->dst);
    } else {
        if (rank == 0)
            fprintf(stderr, "bench_overlap: unknown case '%s' (1d, 2d, disjoint)\n", name);
        return REDIST_ERR_ARG;
    }
    return rc;
}

/* The value of the element at global index g: its column-major linear index. */
static double value_of(const int64_t *g, const int64_t *ext, int nd)
{
    int64_t lin = 0;
    for (int k = nd - 1; k >= 0; k--)
        lin = lin * ext[k] + g[k];
    return (double)lin;
}

/* Local element i (column-major) of this rank in `l` -> global index g (first = 0: global
   index = (local / b) * b * P + coordinate * b + local % b). */
static void global_of(const side *l, const int *coord, const int64_t *shape, int64_t i, int64_t *g)
{
    for (int k = 0; k < l->nd; k++) {
        int64_t loc = i % shape[k], b = l->block[k];
        i /= shape[k];
        g[k] = loc / b * b * l->grid[k] + coord[k] * b + loc % b;
    }
}

static void fill_or_check(const side *l, double *a, int64_t count, int check, int64_t *bad)
{
    int64_t shape[2], g[2];
    int coord[2];
    if (count == 0)
        return;
    redist_layout_local_shape(l->layout, rank, shape);
    redist_layout_coords(l->layout, rank, coord);
    for (int64_t i = 0; i < count; i++) {
        global_of(l, coord, shape, i, g);
        double want = value_of(g, l->ext, l->nd);
        if (!check)
            a[i] = want;
        else if (a[i] != want)
            (*bad)++;
    }
}

/* ---- the compute ------------------------------------------------------------------------ */

static volatile double sink;

/* A chain of dependent multiply-adds: the core is busy, memory is not. */
static void compute(int64_t iters)
{
    double x = 1.0, y = 0.5;
    for (int64_t i = 0; i < iters; i++) {
        x = x * 0.9999999 + 1e-7;
        y = y * 0.9999998 + 2e-7;
    }
    sink = x + y;
}

/* Iterations per second of compute() on this rank (the slowest rank's, agreed). */
static double compute_rate(void)
{
    int64_t iters = 1 << 20;
    double t;
    for (;;) {
        double t0 = MPI_Wtime();
        compute(iters);
        t = MPI_Wtime() - t0;
        if (t > 0.05)
            break;
        iters *= 2;
    }
    double rate = (double)iters / t;
    MPI_Allreduce(MPI_IN_PLACE, &rate, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    return rate;
}

/* ---- timing ----------------------------------------------------------------------------- */

typedef struct run_args {
    redist_plan plan;
    const double *a;
    double *b;
    int64_t iters; /* compute iterations in all */
    int slices;
    double lib; /* out: seconds inside redist_start/test/wait */
} run_args;

enum { RUN_COMM, RUN_COMP, RUN_SERIAL, RUN_OVERLAP, RUN_KINDS };
static const char *kind_name[RUN_KINDS] = {"comm", "compute", "serial", "overlap"};

static int run_once(int kind, run_args *r)
{
    int rc = REDIST_SUCCESS;
    r->lib = 0;
    switch (kind) {
    case RUN_COMM:
        return redist_execute(r->plan, r->a, r->b);
    case RUN_COMP:
        compute(r->iters);
        return REDIST_SUCCESS;
    case RUN_SERIAL:
        rc = redist_execute(r->plan, r->a, r->b);
        compute(r->iters);
        return rc;
    default: {
        double t0 = MPI_Wtime();
        rc = redist_start(r->plan, r->a, r->b);
        r->lib += MPI_Wtime() - t0;
        int64_t per = r->iters / r->slices;
        for (int s = 0; s < r->slices && rc == REDIST_SUCCESS; s++) {
            compute(s == r->slices - 1 ? r->iters - per * (r->slices - 1) : per);
            int done;
            t0 = MPI_Wtime();
            rc = redist_test(r->plan, &done);
            r->lib += MPI_Wtime() - t0;
        }
        t0 = MPI_Wtime();
        if (rc == REDIST_SUCCESS)
            rc = redist_wait(r->plan);
        else
            redist_wait(r->plan);
        r->lib += MPI_Wtime() - t0;
        return rc;
    }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over reps of the slowest rank's time of one kind of run; *lib: median of the slowest
   rank's library time. */
static int time_kind(int kind, run_args *r, int reps, double *med, double *lib)
{
    double t[MAX_REPS], l[MAX_REPS];
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = run_once(kind, r);
        double dt[2] = {MPI_Wtime() - t0, r->lib};
        int bad = rc != REDIST_SUCCESS;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (bad) {
            if (rank == 0)
                fprintf(stderr, "bench_overlap: %s run failed: %s\n", kind_name[kind],
                        redist_strerror(rc));
            return 1;
        }
        MPI_Allreduce(MPI_IN_PLACE, dt, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        t[i] = dt[0];
        l[i] = dt[1];
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    qsort(l, (size_t)reps, sizeof *l, cmp_double);
    *med = t[reps / 2];
    *lib = l[reps / 2];
    return 0;
}

/* Checks every destination element (after a run of any kind that moved data). */
static int verify(const bench_case *c, double *b, const char *what)
{
    int64_t bad = 0;
    fill_or_check(&c->dst, b, c->dst.count, 1, &bad);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (bad && rank == 0)
        fprintf(stderr, "bench_overlap: %s: %lld wrong elements\n", what, (long long)bad);
    return bad != 0;
}

static int bench_mode(const bench_case *c, const char *mode, int reps, int slices, double ratio,
                      double rate)
{
    redist_options opt;
    redist_options_init(&opt);
    if (strcmp(mode, "bounded") == 0)
        opt.max_buffer_bytes = 1 << 20;
    else if (strcmp(mode, "noshm") == 0)
        opt.shared_memory = 0;
    else if (strcmp(mode, "default") != 0) {
        if (rank == 0)
            fprintf(stderr, "bench_overlap: unknown mode '%s' (default, bounded, noshm)\n", mode);
        return 1;
    }
    run_args r = {0};
    if (redist_plan_create(c->src.layout, c->dst.layout, MPI_DOUBLE, MPI_COMM_WORLD, &opt,
                           &r.plan) != REDIST_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "bench_overlap: %s/%s: plan failed: %s\n", c->name, mode,
                    redist_last_error_detail());
        return 1;
    }
    double *a = c->src.count ? malloc((size_t)c->src.count * sizeof *a) : NULL;
    double *b = c->dst.count ? malloc((size_t)c->dst.count * sizeof *b) : NULL;
    int64_t unused = 0;
    fill_or_check(&c->src, a, c->src.count, 0, &unused);
    r.a = a, r.b = b, r.slices = slices;
    int bad = redist_execute(r.plan, a, b) != REDIST_SUCCESS || verify(c, b, "warm-up");

    double t[RUN_KINDS] = {0}, lib[RUN_KINDS] = {0};
    bad = bad || time_kind(RUN_COMM, &r, reps, &t[RUN_COMM], &lib[RUN_COMM]);
    r.iters = (int64_t)(ratio * t[RUN_COMM] * rate);
    for (int k = RUN_COMP; k < RUN_KINDS && !bad; k++) {
        if (b != NULL)
            memset(b, 0, (size_t)c->dst.count * sizeof *b);
        bad =
            time_kind(k, &r, reps, &t[k], &lib[k]) || (k != RUN_COMP && verify(c, b, kind_name[k]));
    }
    if (!bad && rank == 0) {
        double hidden = (t[RUN_SERIAL] - t[RUN_OVERLAP]) / t[RUN_COMM];
        double bound = 1 - lib[RUN_OVERLAP] / t[RUN_COMM];
        printf("%-9s %-8s %-14.14s %9.2f %9.2f %9.2f %9.2f %7.0f%% %9.2f %7.0f%%\n", c->name, mode,
               redist_plan_algorithm(r.plan), 1e3 * t[RUN_COMM], 1e3 * t[RUN_COMP],
               1e3 * t[RUN_SERIAL], 1e3 * t[RUN_OVERLAP], 100 * hidden, 1e3 * lib[RUN_OVERLAP],
               100 * (bound > 0 ? bound : 0));
        fflush(stdout);
    }
    redist_plan_free(&r.plan);
    free(a);
    free(b);
    return bad;
}

static int usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: bench_overlap [--case 1d,2d,disjoint] [--n N] [--reps R] "
                        "[--slices S] [--modes default,bounded,noshm] [--ratio X]\n");
    return 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char cases[256] = "1d,2d,disjoint", modes[256] = "default,bounded,noshm";
    int64_t n = 8 << 20;
    int reps = 9, slices = 64;
    double ratio = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            return MPI_Finalize(), usage();
        if (strcmp(argv[i], "--case") == 0)
            snprintf(cases, sizeof cases, "%s", v);
        else if (strcmp(argv[i], "--modes") == 0)
            snprintf(modes, sizeof modes, "%s", v);
        else if (strcmp(argv[i], "--n") == 0)
            n = strtoll(v, NULL, 10);
        else if (strcmp(argv[i], "--reps") == 0)
            reps = atoi(v);
        else if (strcmp(argv[i], "--slices") == 0)
            slices = atoi(v);
        else if (strcmp(argv[i], "--ratio") == 0)
            ratio = atof(v);
        else
            return MPI_Finalize(), usage();
        i++;
    }
    if (n < 1 || reps < 1 || reps > MAX_REPS || slices < 1 || !(ratio > 0))
        return MPI_Finalize(), usage();
    double rate = compute_rate();
    if (rank == 0) {
        printf("bench_overlap: %d ranks, n = %lld doubles, %d reps (medians), %d compute "
               "slices, compute = %.2f x comm\n",
               size, (long long)n, reps, slices, ratio);
        printf("%-9s %-8s %-14s %9s %9s %9s %9s %8s %9s %8s\n", "case", "mode", "algorithm",
               "Tcomm ms", "Tcomp ms", "Tser ms", "Tovl ms", "hidden", "Tlib ms", "bound");
    }
    int bad = 0;
    char *save = NULL;
    for (char *cn = strtok_r(cases, ",", &save); cn != NULL; cn = strtok_r(NULL, ",", &save)) {
        bench_case c;
        if (make_case(cn, n, &c) != REDIST_SUCCESS) {
            bad = 1;
            continue;
        }
        char mcopy[256], *msave = NULL;
        snprintf(mcopy, sizeof mcopy, "%s", modes);
        for (char *m = strtok_r(mcopy, ",", &msave); m != NULL; m = strtok_r(NULL, ",", &msave))
            bad |= bench_mode(&c, m, reps, slices, ratio, rate);
        redist_layout_free(&c.src.layout);
        redist_layout_free(&c.dst.layout);
    }
    MPI_Finalize();
    return bad;
}
