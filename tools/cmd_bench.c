/* redist bench: how well the cost model chooses. A grid of cases (1-D and 2-D, block ratios
 * 1 .. 32, sizes from start-up-bound to bandwidth-bound, several rank counts), each run
 * through every applicable algorithm and through auto, every element checked once. Per case:
 * the best algorithm, auto's choice and its regret (auto's time / the best time), predicted
 * and measured time per algorithm. A summary (share of cases where auto is within 15% of the
 * best, the worst regret, the model's accuracy), CSV, and SVG plots through gnuplot.
 * --layouts adds cases of the layouts beyond block-cyclic (pencils as boxes, replicated
 * matrices, partial sums); --from SPEC --to SPEC runs the user's own pair instead, the same
 * way, with its per-algorithm figures.
 *
 * Timing: the plans of a case are timed round-robin (trial t times every plan once, starting
 * with plan t), so a slow spell of a shared machine hits every algorithm alike; a trial is a
 * barrier and a batch of executes long enough to time, its time the slowest rank's average; a
 * plan's time is the median of its trials. Smaller rank counts run on the first ranks of the
 * launch, the others wait asleep (quiet_barrier), so they take no core from the ranks being timed.
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "data.h"
#include "measure.h"
#include "report.h"

const char tool_bench_help[] =
    "usage: mpirun -n P redist bench [--quick] [--layouts] [--procs LIST] [--trials N]\n"
    "                                [--csv FILE] [--plots DIR] [--threads N]\n"
    "       mpirun -n P redist bench --from SPEC --to SPEC [--reduce OP] [--procs LIST]\n"
    "                                [--trials N] [--csv FILE] [--plots DIR] [--threads N]\n"
    "Runs a grid of cases through every applicable algorithm and auto, each checked element\n"
    "by element and timed (median of N round-robin trials), and reports per case the best\n"
    "algorithm, auto's choice and its regret (auto's time / the best time), predicted against\n"
    "measured time, and a summary: the share of cases where auto is within 15% of the best,\n"
    "the worst regret, and how close the predictions are on bandwidth-bound cases.\n"
    "The grid: 1-D cyclic(2) -> cyclic(2K) (K = 1: the same blocks, first coordinate moved\n"
    "by one) of 2^10, 2^16 and 2^22 doubles; 2-D NxN doubles, 4x4 blocks on an AxB grid ->\n"
    "4Kx4K blocks on the BxA grid (Px1 if A = B), N = 64, 512, 2048; K = 1, 2, 4, 8, 32;\n"
    "on 2, 4 and 8 ranks (those up to P). Calibrate first (redist calibrate).\n"
    "  --quick       a small grid (K = 1, 4, 32; the two smaller sizes) for tests\n"
    "  --layouts     also the layouts beyond block-cyclic: x-pencils -> y-pencils (boxes) of\n"
    "                16^3 and 64^3 doubles; NxN doubles replicated on every rank -> block rows\n"
    "                (rep->shard), block rows -> replicated (shard->rep), partial sums on\n"
    "                every rank -> block rows (sum->shard, --reduce sum), N = 64, 512\n"
    "  --from SPEC, --to SPEC  bench this pair of doubles instead of the grid (SPECs as for\n"
    "                run: boxes=FILE, pencil=, slab=, brick, first=-1, ...); every algorithm\n"
    "                and auto, with each algorithm's figures or 'not applicable'\n"
    "  --reduce OP   with --from and --to: partial sums reduced by OP (sum, prod, max or min:\n"
    "                bench moves doubles; redist_options.reduce), checked against the\n"
    "                reduction of every holder's part\n"
    "  --procs LIST  rank counts, e.g. 2,3,4 (each at most P; default 2,4,8; with --from and\n"
    "                --to: P, a SPEC without procs spanning each count)\n"
    "  --trials N    timed trials per algorithm (default 7)\n"
    "  --csv FILE    one row per case and algorithm\n"
    "  --plots DIR   gnuplot data, scripts and SVG plots: time against size per algorithm\n"
    "                and predicted against measured\n"
    "  --threads N   N threads per rank for every plan's local moves (redist_options.threads;\n"
    "                default REDIST_NUM_THREADS, else 1)\n"
    "Exit status 1 if any element is wrong or a plan fails for a reason other than not\n"
    "applying to the case.\n";

enum { MAX_ALGOS = 32 };

typedef struct bench_args {
    int quick, layouts, trials, nprocs;
    int threads;     /* --threads N: options.threads of every plan (0: not given) */
    int *procs;      /* nprocs rank counts (--procs takes a list of any length) */
    int procs_given; /* --procs was given (else the pair runs on every rank started) */
    const char *csv, *plots;
    const char *from, *to; /* --from, --to: the user's pair instead of the grid */
    tool_reduce reduce;    /* --reduce OP (with the pair) */
} bench_args;

typedef struct bench_case {
    int dims, procs;
    int ratio;        /* the grid's block ratio K; 0 for the other kinds */
    const char *kind; /* NULL for the grid; "pencils", "rep->shard", ..., "pair" */
    int threads;      /* options.threads */
    tool_reduce reduce;
    int64_t elements;
    char *from, *to;    /* the SPECs (malloc'd) */
    tool_spec src, dst; /* parsed (parse_cases) */
} bench_case;

/* One algorithm (or auto) on one case. */
typedef struct bench_row {
    const char *name;
    redist_plan plan;
    int applicable, n2;
    int64_t wrong;
    double predicted, measured;
    double *trial;
    tool_plan_summary sum;
} bench_row;

typedef struct bench_result {
    bench_case c;
    int nrows, best, autorow; /* best: index of the fastest algorithm; autorow: auto's row */
    bench_row rows[MAX_ALGOS];
    const char *chosen; /* auto's choice */
    double regret;
} bench_result;

/* ---- the grid ------------------------------------------------------------------------------ */

static void grid_shape(int p, int *a, int *b)
{
    *a = p, *b = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0)
            *a = p / d, *b = d;
}

/* A SPEC from a format, malloc'd whatever its length (NULL if out of memory). */
static char *spec_text(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static char *spec_text(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (text != NULL) {
        va_start(ap, fmt);
        vsnprintf(text, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    return text;
}

/* The next case, its SPECs taken (NULL if either is missing: out of memory). */
static bench_case *add_case(bench_case *cs, int *n, const bench_args *a, int dims, int procs,
                            int64_t elements, char *from, char *to)
{
    bench_case *c = &cs[(*n)++];
    c->dims = dims, c->procs = procs, c->elements = elements;
    c->threads = a->threads;
    c->from = from, c->to = to;
    return from != NULL && to != NULL ? c : NULL;
}

/* The grid's cases on p ranks: 1-D and 2-D, every size and ratio. 0, or -1 if out of memory. */
static int grid_cases(const bench_args *a, int p, bench_case *cs, int *n)
{
    static const int ratios_full[] = {1, 2, 4, 8, 32}, ratios_quick[] = {1, 4, 32};
    static const int64_t n1_full[] = {1 << 10, 1 << 16, 1 << 22}, n2_full[] = {64, 512, 2048};
    const int *ratios = a->quick ? ratios_quick : ratios_full;
    int nratios = a->quick ? 3 : 5, nsizes = a->quick ? 2 : 3, ga, gb;
    grid_shape(p, &ga, &gb);
    for (int dims = 1; dims <= 2; dims++)
        for (int s = 0; s < nsizes; s++)
            for (int r = 0; r < nratios; r++) {
                int K = ratios[r];
                bench_case *c;
                if (dims == 1) {
                    long long N = n1_full[s];
                    c = add_case(cs, n, a, 1, p, N, spec_text("n=%lld,block=2,procs=%d", N, p),
                                 spec_text("n=%lld,block=%d,procs=%d%s", N, 2 * K, p,
                                           K == 1 && p > 1 ? ",first=1" : ""));
                } else {
                    long long N = n2_full[s];
                    /* a square grid transposed is itself: P x 1 instead */
                    int ta = ga == gb ? p : gb, tb = ga == gb ? 1 : ga;
                    c = add_case(cs, n, a, 2, p, N * N,
                                 spec_text("n=%lldx%lld,block=4x4,grid=%dx%d", N, N, ga, gb),
                                 spec_text("n=%lldx%lld,block=%dx%d,grid=%dx%d", N, N, 4 * K, 4 * K,
                                           ta, tb));
                }
                if (c == NULL)
                    return -1;
                c->ratio = K;
            }
    return 0;
}

enum { LAYOUT_KINDS = 4, LAYOUT_SIZES = 2 };

/* --layouts on p ranks: the layouts beyond block-cyclic, each kind at a start-up-bound and a
   larger size: x-pencils -> y-pencils (boxes), an NxN matrix replicated on every rank ->
   block rows, block rows -> replicated, partial sums on every rank -> block rows. */
static int layout_cases(const bench_args *a, int p, bench_case *cs, int *n)
{
    static const long long n3[LAYOUT_SIZES] = {16, 64}, n2[LAYOUT_SIZES] = {64, 512};
    for (int s = 0; s < LAYOUT_SIZES; s++) {
        long long N = n3[s], M = n2[s], B = (M + p - 1) / p; /* block rows: one block each */
        bench_case *c[LAYOUT_KINDS];
        c[0] = add_case(cs, n, a, 3, p, N * N * N,
                        spec_text("n=%lldx%lldx%lld,pencil=0,procs=%d", N, N, N, p),
                        spec_text("n=%lldx%lldx%lld,pencil=1,procs=%d", N, N, N, p));
        c[1] =
            add_case(cs, n, a, 2, p, M * M, spec_text("n=%lldx%lld,grid=%dx1,first=-1x0", M, M, p),
                     spec_text("n=%lldx%lld,block=%lld,grid=%dx1", M, M, B, p));
        c[2] = add_case(cs, n, a, 2, p, M * M,
                        spec_text("n=%lldx%lld,block=%lld,grid=%dx1", M, M, B, p),
                        spec_text("n=%lldx%lld,grid=%dx1,first=-1x0", M, M, p));
        c[3] =
            add_case(cs, n, a, 2, p, M * M, spec_text("n=%lldx%lld,grid=%dx1,first=-1x0", M, M, p),
                     spec_text("n=%lldx%lld,block=%lld,grid=%dx1", M, M, B, p));
        static const char *const kinds[LAYOUT_KINDS] = {"pencils", "rep->shard", "shard->rep",
                                                        "sum->shard"};
        for (int k = 0; k < LAYOUT_KINDS; k++) {
            if (c[k] == NULL)
                return -1;
            c[k]->kind = kinds[k];
        }
        c[3]->reduce = TOOL_REDUCE_SUM;
    }
    return 0;
}

/* The cases: the grid (with --layouts, its other kinds too), or the pair on each rank count,
 *n of them (free_cases frees them, made or not). 0, or -1 if out of memory. */
static int make_cases(const bench_args *a, bench_case **out, int *count)
{
    size_t per_p = a->from ? 1 : (size_t)2 * 5 * 3 + (a->layouts ? LAYOUT_KINDS * LAYOUT_SIZES : 0);
    bench_case *cs = calloc((size_t)(a->nprocs > 0 ? a->nprocs : 1) * per_p, sizeof *cs);
    int n = 0, bad = cs == NULL;
    for (int pi = 0; !bad && pi < a->nprocs; pi++) {
        int p = a->procs[pi];
        if (a->from != NULL) {
            bench_case *c =
                add_case(cs, &n, a, 0, p, 0, spec_text("%s", a->from), spec_text("%s", a->to));
            bad = c == NULL;
            if (c != NULL)
                c->kind = "pair", c->reduce = a->reduce;
        } else {
            bad = grid_cases(a, p, cs, &n) != 0 || (a->layouts && layout_cases(a, p, cs, &n) != 0);
        }
    }
    *out = cs;
    *count = n;
    return bad ? -1 : 0;
}

static void free_cases(bench_case *cs, int n)
{
    for (int k = 0; cs != NULL && k < n; k++) {
        free(cs[k].from);
        free(cs[k].to);
        spec_free(&cs[k].src);
        spec_free(&cs[k].dst);
    }
    free(cs);
}

/* Collective over MPI_COMM_WORLD, every rank alike: every case's SPECs parsed. The pair's as
   run parses them (a SPEC without procs spans the case's ranks; boxes=FILE read on rank 0):
   TOOL_USAGE once reported; the built-in ones cannot fail but for a bug (TOOL_FAILED). */
static int parse_cases(bench_case *cs, int n, int rank0)
{
    for (int k = 0; k < n; k++) {
        bench_case *c = &cs[k];
        if (c->kind != NULL && strcmp(c->kind, "pair") == 0) {
            tool_pair_opts o;
            memset(&o, 0, sizeof o);
            o.from = c->from, o.to = c->to, o.algorithm = "auto";
            o.type = TOOL_DOUBLE, o.reduce = c->reduce;
            int status = tool_pair_specs(&o, c->procs, &c->src, &c->dst, rank0);
            if (status != TOOL_OK)
                return status;
            c->dims = c->src.ndims;
            c->elements = spec_elements(&c->src);
            continue;
        }
        char err[256];
        if (spec_parse(c->from, 0, &c->src, err, sizeof err) != 0 ||
            spec_parse(c->to, 0, &c->dst, err, sizeof err) != 0)
            return tool_error(rank0, TOOL_FAILED, "bench: bad case %s -> %s: %s", c->from, c->to,
                              err);
    }
    return TOOL_OK;
}

/* ---- one case ------------------------------------------------------------------------------ */

/* Plans the row; verifies one execute against e; sets its batch size. A TOOL_* status. */
static int prepare_row(bench_row *row, const bench_case *c, const tool_expect *e, redist_layout src,
                       redist_layout dst, tool_arrays *d, MPI_Comm comm, double target)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = row->name;
    opt.threads = c->threads;
    opt.reduce = tool_reduce_op(c->reduce);
    int rc = redist_plan_create(src, dst, MPI_DOUBLE, comm, &opt, &row->plan);
    row->applicable = rc == REDIST_SUCCESS;
    if (rc == REDIST_ERR_NOT_APPLICABLE)
        return TOOL_OK;
    if (rc != REDIST_SUCCESS) {
        char buf[512];
        return tool_error(rank == 0, TOOL_FAILED, "bench: %s -> %s: %s", c->from, c->to,
                          tool_lib_error(buf, sizeof buf, row->name, rc));
    }
    tool_plan_summarise(row->plan, comm, &row->sum);
    row->predicted = row->sum.predicted;
    tool_arrays_poison(d);
    rc = redist_execute(row->plan, d->src, d->dst);
    row->wrong = tool_verify_all_expect(&c->dst, rank, TOOL_DOUBLE, d->dst, e, comm, NULL);
    double once = 0;
    if (rc == REDIST_SUCCESS)
        rc = tool_time_batch(row->plan, d->src, d->dst, comm, 1, &once);
    if (rc != REDIST_SUCCESS || row->wrong != 0) {
        char buf[512];
        return tool_error(rank == 0, TOOL_FAILED, "bench: %s -> %s: %s: %s", c->from, c->to,
                          row->name,
                          rc != REDIST_SUCCESS ? tool_lib_error(buf, sizeof buf, "execute", rc)
                          : row->wrong < 0     ? "out of memory checking the partial sums"
                                               : "wrong elements");
    }
    row->n2 = once > 0 && once < target ? (int)(target / once) : 1;
    return TOOL_OK;
}

/* The plans' medians, trial t timing every plan once starting with plan t (a slow spell of
   a shared machine hits every algorithm alike). The library's code, the same on every rank. */
static int time_rows(bench_result *r, const tool_arrays *d, MPI_Comm comm, int trials)
{
    int rc = REDIST_SUCCESS;
    for (int t = 0; t < trials && rc == REDIST_SUCCESS; t++)
        for (int k = 0; k < r->nrows && rc == REDIST_SUCCESS; k++) {
            bench_row *row = &r->rows[(k + t) % r->nrows];
            if (row->applicable)
                rc = tool_time_batch(row->plan, d->src, d->dst, comm, row->n2, &row->trial[t]);
        }
    for (int i = 0; rc == REDIST_SUCCESS && i < r->nrows; i++) {
        tool_timing tm;
        if (r->rows[i].applicable) {
            tool_timing_summarise(r->rows[i].trial, trials, &tm);
            r->rows[i].measured = tm.tmed;
        }
    }
    return rc;
}

static void free_rows(bench_result *r)
{
    for (int i = 0; i < r->nrows; i++) {
        if (r->rows[i].plan != NULL)
            redist_plan_free(&r->rows[i].plan);
        free(r->rows[i].trial);
        r->rows[i].trial = NULL;
    }
}

static void judge(bench_result *r)
{
    r->best = -1;
    for (int i = 0; i < r->nrows; i++)
        if (i != r->autorow && r->rows[i].applicable &&
            (r->best < 0 || r->rows[i].measured < r->rows[r->best].measured))
            r->best = i;
    bench_row *au = &r->rows[r->autorow];
    r->regret = r->best >= 0 && r->rows[r->best].measured > 0
                    ? au->measured / r->rows[r->best].measured
                    : 1.0;
}

/* Runs one case on comm (its ranks only). A TOOL_* status, the same on every rank. */
static int run_case(bench_result *r, MPI_Comm comm, int trials, double target)
{
    int rank, status = TOOL_OK;
    MPI_Comm_rank(comm, &rank);
    const bench_case *c = &r->c;
    redist_layout src = NULL, dst = NULL;
    tool_arrays d;
    memset(&d, 0, sizeof d);
    tool_expect e; /* each element's value, or with partial sums the reduction of its parts */
    tool_expect_init(&e, &c->src, NULL, 0, 1.0, 0.0, 1.0, c->reduce);
    int rc = tool_layouts(&c->src, &c->dst, &src, &dst);
    if (tool_agree_code(rc, comm) != REDIST_SUCCESS ||
        tool_arrays_alloc(&d, &c->src, &c->dst, TOOL_DOUBLE, c->reduce, rank, comm) != 0)
        status = tool_error(rank == 0, TOOL_FAILED, "bench: %s -> %s: no layouts or memory",
                            c->from, c->to);
    r->nrows = 0;
    for (int i = 0; status == TOOL_OK && i < redist_algorithm_count() && i < MAX_ALGOS; i++) {
        bench_row *row = &r->rows[r->nrows++];
        memset(row, 0, sizeof *row);
        row->name = redist_algorithm_name(i);
        if (strcmp(row->name, "auto") == 0)
            r->autorow = r->nrows - 1;
        row->trial = calloc((size_t)trials, sizeof *row->trial);
        status = tool_agree_status(row->trial ? TOOL_OK : TOOL_FAILED, comm);
        if (status == TOOL_OK)
            status = prepare_row(row, c, &e, src, dst, &d, comm, target);
    }
    if (status == TOOL_OK && (rc = time_rows(r, &d, comm, trials)) != REDIST_SUCCESS) {
        char buf[512];
        status = tool_error(rank == 0, TOOL_FAILED, "bench: %s -> %s: %s", c->from, c->to,
                            tool_lib_error(buf, sizeof buf, "execute", rc));
    }
    if (status == TOOL_OK) {
        judge(r);
        r->chosen = redist_plan_algorithm(r->rows[r->autorow].plan);
    }
    free_rows(r);
    tool_arrays_free(&d);
    tool_layouts_free(&src, &dst);
    return status;
}

/* ---- output -------------------------------------------------------------------------------- */

static void case_label(const bench_case *c, char *buf, size_t len)
{
    char size[32];
    tool_fmt_bytes(size, sizeof size, (double)c->elements * 8);
    if (c->kind != NULL && strcmp(c->kind, "pair") == 0) /* one case: nothing to align with */
        snprintf(buf, len, "%dD P=%d pair %s", c->dims, c->procs, size);
    else if (c->kind != NULL)
        snprintf(buf, len, "%dD P=%d %-10s %8s", c->dims, c->procs, c->kind, size);
    else
        snprintf(buf, len, "%dD P=%d K=%-2d %8s", c->dims, c->procs, c->ratio, size);
}

/* The pair's SPECs as run prints them, before its case line. */
static void print_pair(const bench_case *c)
{
    tool_print_spec("  from     ", &c->src);
    tool_print_spec("  to       ", &c->dst);
    tool_print_reduce("  reduce   ", c->reduce);
}

/* The pair's algorithms after its case line: each one's measured and predicted time, or that
   it does not apply; the best marked, and auto's choice. */
static void print_rows(const bench_result *r)
{
    printf("     %-26s %9s %10s\n", "algorithm", "measured", "predicted");
    for (int i = 0; i < r->nrows; i++) {
        const bench_row *row = &r->rows[i];
        char name[64], tm[32], tp[32];
        if (i == r->autorow)
            snprintf(name, sizeof name, "auto -> %s", r->chosen);
        else
            snprintf(name, sizeof name, "%s", row->name);
        if (!row->applicable) {
            printf("     %-26s not applicable\n", name);
            continue;
        }
        printf("     %-26s %9s %10s%s%s\n", name, tool_fmt_seconds(tm, sizeof tm, row->measured),
               tool_fmt_seconds(tp, sizeof tp, row->predicted), i == r->best ? "  best" : "",
               i != r->autorow && strcmp(row->name, r->chosen) == 0 ? "  (auto's choice)" : "");
    }
}

static void print_case(const bench_result *r)
{
    char label[64], tb[32], ta[32];
    case_label(&r->c, label, sizeof label);
    if (r->best < 0)
        return;
    const bench_row *best = &r->rows[r->best], *au = &r->rows[r->autorow];
    printf("  %s  best %-16s %9s  auto -> %-16s %9s  regret %5.2f%s\n", label, best->name,
           tool_fmt_seconds(tb, sizeof tb, best->measured), r->chosen,
           tool_fmt_seconds(ta, sizeof ta, au->measured), r->regret, r->regret > 1.15 ? " *" : "");
}

/* A row's transport, predicted_s and measured_s: empty for an algorithm that does not apply
   (it was neither planned nor timed). */
static void csv_figures(FILE *f, const bench_row *row)
{
    if (!row->applicable) {
        fputs(",,", f);
        return;
    }
    fprintf(f, "%s,%.6g,%.6g", row->sum.transport == REDIST_TRANSPORT_PACK ? "pack" : "datatype",
            row->predicted, row->measured);
}

/* A SPEC as a CSV field: quoted, its quotes doubled (a boxes file's name may hold any). */
static void csv_quoted(FILE *f, const char *text)
{
    fputc('"', f);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', f);
        fputc(*c, f);
    }
    fputc('"', f);
}

static void write_csv(FILE *f, const bench_result *res, int n)
{
    fprintf(f, "case,dims,procs,ratio,elements,bytes,from,to,algorithm,applicable,transport,"
               "predicted_s,measured_s,best,auto_choice,regret,kind,reduce\n");
    for (int k = 0; k < n; k++) {
        const bench_result *r = &res[k];
        for (int i = 0; i < r->nrows; i++) {
            const bench_row *row = &r->rows[i];
            fprintf(f, "%d,%d,%d,", k, r->c.dims, r->c.procs);
            if (r->c.ratio > 0) /* the grid's K; empty for the other kinds */
                fprintf(f, "%d", r->c.ratio);
            fprintf(f, ",%lld,%lld,", (long long)r->c.elements, (long long)r->c.elements * 8);
            csv_quoted(f, r->c.from);
            fputc(',', f);
            csv_quoted(f, r->c.to);
            fprintf(f, ",%s,%d,", row->name, row->applicable);
            csv_figures(f, row);
            fprintf(f, ",%d,%d,%.6g,%s,%s\n", i == r->best,
                    i != r->autorow && r->chosen && strcmp(row->name, r->chosen) == 0, r->regret,
                    r->c.kind ? r->c.kind : "grid", tool_reduce_names[r->c.reduce]);
        }
    }
}

/* The model's accuracy: predicted / measured of every applicable algorithm on the cases of
   the largest size (bandwidth-bound), the share within 2x, the worst. */
static void print_accuracy(const bench_result *res, int n)
{
    int64_t top[SPEC_MAX_DIMS + 1] = {0};
    for (int k = 0; k < n; k++)
        if (res[k].c.elements > top[res[k].c.dims])
            top[res[k].c.dims] = res[k].c.elements;
    int within = 0, total = 0;
    double worst = 1;
    const char *worst_name = "";
    int worst_case = -1;
    for (int k = 0; k < n; k++) {
        if (res[k].c.elements != top[res[k].c.dims])
            continue;
        for (int i = 0; i < res[k].nrows; i++) {
            const bench_row *row = &res[k].rows[i];
            if (!row->applicable || i == res[k].autorow || row->measured <= 0 ||
                row->predicted <= 0)
                continue;
            double q = row->predicted / row->measured, off = q > 1 ? q : 1 / q;
            total++;
            within += off <= 2;
            if (off > worst)
                worst = off, worst_name = row->name, worst_case = k;
        }
    }
    printf("predicted within 2x of measured on the largest (bandwidth-bound) cases: %d of %d "
           "(%.0f%%)",
           within, total, total ? 100.0 * within / total : 0);
    if (worst_case >= 0) {
        char label[64];
        case_label(&res[worst_case].c, label, sizeof label);
        printf("; worst %.2fx off (%s, %s)", worst, worst_name, label);
    }
    printf("\n");
}

static void print_summary(const bench_result *res, int n)
{
    int within = 0, worst = 0;
    for (int k = 0; k < n; k++) {
        within += res[k].regret <= 1.15;
        if (res[k].regret > res[worst].regret)
            worst = k;
    }
    char label[64];
    case_label(&res[worst].c, label, sizeof label);
    printf("\nauto within 15%% of the best algorithm in %d of %d case%s (%.0f%%); worst regret "
           "%.2f (%s: auto -> %s, best %s)\n",
           within, n, n == 1 ? "" : "s", n ? 100.0 * within / n : 0, res[worst].regret, label,
           res[worst].chosen,
           res[worst].best >= 0 ? res[worst].rows[res[worst].best].name : "none");
    print_accuracy(res, n);
}

/* dir/name opened for writing, whatever their lengths; NULL on failure. */
static FILE *open_in(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (path == NULL)
        return NULL;
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    free(path);
    return f;
}

/* The first of the grid's cases of its plot (the same dims and procs as no earlier one). */
static int first_of_group(const bench_result *res, int k)
{
    if (res[k].c.ratio == 0)
        return 0; /* the other kinds have no block ratio to plot against */
    for (int j = 0; j < k; j++)
        if (res[j].c.ratio > 0 && res[j].c.dims == res[k].c.dims &&
            res[j].c.procs == res[k].c.procs)
            return 0;
    return 1;
}

/* gnuplot bench.gp in dir, its messages dropped: 0 if it ran and succeeded. The directory is
   the child's working directory, not part of a shell command, so any name works. */
static int run_gnuplot(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        if (chdir(dir) == 0)
            execlp("gnuplot", "gnuplot", "bench.gp", (char *)NULL);
        _exit(127);
    }
    int wstatus = 0;
    if (pid < 0 || waitpid(pid, &wstatus, 0) != pid)
        return 1;
    return WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? 0 : 1;
}

/* One plot's data: per algorithm (gnuplot's `index`, in the rows' order) the cases of dims,
   procs and ratio in increasing size: bytes, measured seconds. */
static int write_group(const char *dir, const char *name, const bench_result *res, int n, int dims,
                       int procs, int ratio)
{
    FILE *f = open_in(dir, name);
    if (f == NULL)
        return -1;
    for (int i = 0; i < res[0].nrows; i++) {
        fprintf(f, "# %s\n", res[0].rows[i].name);
        for (int k = 0; k < n; k++) {
            const bench_row *row = &res[k].rows[i];
            if (res[k].c.dims == dims && res[k].c.procs == procs && res[k].c.ratio == ratio &&
                row->applicable)
                fprintf(f, "%lld %.6g\n", (long long)res[k].c.elements * 8, row->measured);
        }
        fprintf(f, "# (no case: the algorithm does not apply)\n\n\n");
    }
    return fclose(f) == 0 ? 0 : -1;
}

/* gnuplot: per (dims, P, K = 4 or the first ratio) time against size, per algorithm; and
   predicted against measured for every row. Returns 0 if gnuplot ran. */
static int write_plots(const char *dir, const bench_result *res, int n)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -1;
    FILE *f = open_in(dir, "bench.dat");
    if (f == NULL)
        return -1;
    /* one block per algorithm name (gnuplot's `index`), rows: case dims procs ratio bytes
       measured predicted */
    const bench_result *r0 = &res[0];
    for (int i = 0; i < r0->nrows; i++) {
        fprintf(f, "# %s\n", r0->rows[i].name);
        for (int k = 0; k < n; k++) {
            const bench_row *row = &res[k].rows[i];
            if (row->applicable)
                fprintf(f, "%d %d %d %d %lld %.6g %.6g\n", k, res[k].c.dims, res[k].c.procs,
                        res[k].c.ratio, (long long)res[k].c.elements * 8, row->measured,
                        row->predicted);
        }
        fprintf(f, "\n\n");
    }
    fclose(f);
    if ((f = open_in(dir, "bench.gp")) == NULL)
        return -1;
    fprintf(f, "# written by redist bench; run: gnuplot bench.gp (in this directory)\nnames = \"");
    for (int i = 0; i < r0->nrows; i++)
        fprintf(f, "%s%s", i ? " " : "", r0->rows[i].name);
    fprintf(f, "\"\n"
               "set terminal svg size 900,600 dynamic font 'sans,11'\n"
               "set logscale xy\nset key outside right\nset grid\n"
               "set format xy '%%.0e'\nset style data linespoints\n");
    fprintf(f, "set output 'predicted_vs_measured.svg'\n"
               "set title 'redist bench: predicted against measured time, every algorithm "
               "and case'\n"
               "set xlabel 'measured (s)'\nset ylabel 'predicted (s)'\n"
               "plot 'bench.dat' using 6:7 with points pt 7 ps 0.5 title 'algorithm x case', "
               "x title 'predicted = measured' with lines lw 2, "
               "2*x title '2x' with lines dt 2, x/2 title '1/2x' with lines dt 2\n");
    int ratio = 4;
    for (int k = 0; k < n; k++) {
        const bench_case *c = &res[k].c;
        if (!first_of_group(res, k))
            continue;
        char data[64];
        snprintf(data, sizeof data, "time_%dd_p%d_k%d.dat", c->dims, c->procs, ratio);
        if (write_group(dir, data, res, n, c->dims, c->procs, ratio) != 0) {
            fclose(f);
            return -1;
        }
        fprintf(f,
                "set output 'time_%dd_p%d_k%d.svg'\n"
                "set title 'redist bench: %d-D, %d ranks, block ratio %d: time against size'\n"
                "set xlabel 'array (bytes)'\nset ylabel 'time per execute (s)'\n"
                "plot for [i=0:%d] '%s' index i using 1:2 title word(names, i+1)\n",
                c->dims, c->procs, ratio, c->dims, c->procs, ratio, r0->nrows - 1, data);
    }
    fclose(f);
    return run_gnuplot(dir);
}

/* ---- the command ------------------------------------------------------------------------- */

/* --procs 2,4,8: as many counts as given. -1 if not such a list (or out of memory). */
static int parse_procs(const char *text, bench_args *a)
{
    int count = 1;
    for (const char *c = text; *c; c++)
        count += *c == ',';
    free(a->procs);
    a->nprocs = 0;
    if ((a->procs = malloc((size_t)count * sizeof *a->procs)) == NULL)
        return -1;
    for (const char *s = text; a->nprocs < count;) {
        const char *end = s + strcspn(s, ","); /* a count as explain --procs reads it */
        int64_t p;
        if (spec_parse_count_span(s, end, &p) != 0 || p < 1 || p > 1 << 20)
            return -1;
        a->procs[a->nprocs++] = (int)p;
        s = end + (*end == ',');
    }
    return 0;
}

/* The options of bench whose value is kept as given (--from, --to, --csv, --plots) at
   argv[*i]: 1 taken, 0 another argument, -1 once rank0 has said the value is missing. */
static int text_option(int argc, char **argv, int *i, bench_args *a, int rank0)
{
    const struct {
        const char *name, *what;
        const char **field;
    } opts[] = {{"--from", "a SPEC", &a->from},
                {"--to", "a SPEC", &a->to},
                {"--csv", "a file name", &a->csv},
                {"--plots", "a directory", &a->plots}};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        const char *v = NULL;
        int m = tool_opt_value(argc, argv, i, opts[k].name, &v);
        if (m < 0) {
            tool_error(rank0, TOOL_USAGE, "bench: %s needs %s", opts[k].name, opts[k].what);
            return -1;
        }
        if (m > 0) {
            *opts[k].field = v;
            return 1;
        }
    }
    return 0;
}

/* One option of bench at argv[*i] (a tool_take_fn). */
static int bench_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    bench_args *a = ctx;
    const char *v = NULL;
    int m;
    char msg[256];
    if (strcmp(argv[*i], "--quick") == 0)
        a->quick = 1;
    else if (strcmp(argv[*i], "--layouts") == 0)
        a->layouts = 1;
    else if ((m = tool_opt_value(argc, argv, i, "--procs", &v)) != 0) {
        if (m < 0 || parse_procs(v, a) != 0)
            return tool_error(rank0, TOOL_USAGE,
                              "bench: --procs needs a list of rank counts, e.g. 2,4,8");
        a->procs_given = 1;
    } else if ((m = text_option(argc, argv, i, a, rank0)) != 0) {
        if (m < 0)
            return TOOL_USAGE;
    } else if ((m = tool_opt_value(argc, argv, i, "--reduce", &v)) != 0) {
        if (m < 0)
            return tool_error(rank0, TOOL_USAGE, "bench: --reduce needs an operation");
        if (tool_reduce_option(v, &a->reduce, msg, sizeof msg) != 0)
            return tool_error(rank0, TOOL_USAGE, "%s", msg);
    } else if ((m = tool_opt_value(argc, argv, i, "--trials", &v)) != 0) {
        char *end = NULL;
        long t = m > 0 ? strtol(v, &end, 10) : 0;
        if (m < 0 || *end != '\0' || t < 1 || t > 1000)
            return tool_error(rank0, TOOL_USAGE, "bench: --trials needs 1 .. 1000");
        a->trials = (int)t;
    } else if ((m = tool_threads_option(argc, argv, i, &a->threads, rank0)) != 0) {
        if (m < 0)
            return TOOL_USAGE;
    } else {
        return tool_error(rank0, TOOL_USAGE, "bench: unknown option '%s' (see redist help bench)",
                          argv[*i]);
    }
    return TOOL_OK;
}

/* --from and --to go together, and take the place of the grid: --quick and --layouts choose
   the grid's cases, --reduce is the pair's. Without --procs the pair runs on every rank. */
static int check_pair_args(bench_args *a, int size, int rank0)
{
    if ((a->from != NULL) != (a->to != NULL))
        return tool_error(rank0, TOOL_USAGE,
                          "bench: %s is required with %s (see redist bench --help)",
                          a->from ? "--to" : "--from", a->from ? "--from" : "--to");
    if (a->from == NULL && a->reduce != TOOL_REDUCE_NONE)
        return tool_error(rank0, TOOL_USAGE,
                          "bench: --reduce is for a pair given by --from and --to (the built-in "
                          "cases choose their own)");
    if (a->from != NULL && (a->quick || a->layouts))
        return tool_error(rank0, TOOL_USAGE,
                          "bench: %s chooses the built-in cases; not with --from and --to",
                          a->quick ? "--quick" : "--layouts");
    if (a->from != NULL && !a->procs_given)
        a->procs[0] = size, a->nprocs = 1;
    return TOOL_OK;
}

static int parse_bench_args(int argc, char **argv, bench_args *a, int size, int rank0)
{
    memset(a, 0, sizeof *a);
    if ((a->procs = malloc(3 * sizeof *a->procs)) == NULL)
        return tool_error(rank0, TOOL_FAILED, "bench: out of memory");
    for (int p = 2; p <= 8 && p <= size; p *= 2)
        a->procs[a->nprocs++] = p;
    if (a->nprocs == 0)
        a->procs[a->nprocs++] = 1;
    int status = tool_each_option(argc, argv, "bench", bench_option, a, rank0);
    if (a->trials == 0) /* not given: 3 for --quick, else 7, whatever the order */
        a->trials = a->quick ? 3 : 7;
    if (status == TOOL_OK)
        status = check_pair_args(a, size, rank0);
    for (int i = 0; status == TOOL_OK && i < a->nprocs; i++)
        if (a->procs[i] > size)
            status = tool_error(rank0, TOOL_USAGE,
                                "bench: --procs %d: only %d ranks were started (mpirun -n)",
                                a->procs[i], size);
    return status;
}

/* A barrier that sleeps while it waits: the ranks a case does not use wait here, and MPI's
   own waiting polls, which on a machine with fewer cores than ranks would take the cores
   the case is timed on. */
static void quiet_barrier(MPI_Comm comm)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(comm, &req);
    while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nanosleep(&(struct timespec){0, 200000}, NULL);
}

static void show_progress(int done, int n, double start)
{
    double spent = MPI_Wtime() - start, eta = done ? spent / done * (n - done) : 0;
    int width = 30, fill = n ? width * done / n : width;
    fprintf(stderr, "\r[%.*s%.*s] %d/%d cases, %.0f s, ETA %.0f s ", fill,
            "##############################", width - fill, "..............................", done,
            n, spent, eta);
    fflush(stderr);
}

/* The header's account of the threads, agreed by every rank: TOOL_FAILED once reported if the
   library refuses its reading (a malformed REDIST_NUM_THREADS, or no OpenMP), before any case. */
static int bench_threads(int asked, int rank0, char *buf, size_t len)
{
    int lo, hi;
    const char *source;
    int rc = tool_threads_span(asked, MPI_COMM_WORLD, &lo, &hi, &source);
    if (rc != REDIST_SUCCESS) {
        char why[512];
        return tool_error(rank0, TOOL_FAILED, "bench: %s",
                          tool_lib_error(why, sizeof why, "threads", rc));
    }
    tool_fmt_threads(buf, len, lo, hi, source);
    return TOOL_OK;
}

int tool_bench(int argc, char **argv)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_args a;
    int status = parse_bench_args(argc, argv, &a, size, rank == 0);
    tool_share_spec_files(MPI_COMM_WORLD); /* boxes=FILE: every rank parses rank 0's text */
    bench_case *cases = NULL;
    int n = 0, made = status == TOOL_OK ? make_cases(&a, &cases, &n) : 0;
    free(a.procs);
    if (status != TOOL_OK)
        return status;
    bench_result *res = made == 0 && n > 0 ? calloc((size_t)n, sizeof *res) : NULL;
    char threads[96];
    if (tool_agree_status(res == NULL ? TOOL_FAILED : TOOL_OK, MPI_COMM_WORLD) != TOOL_OK)
        status = tool_error(rank == 0, TOOL_FAILED, "bench: out of memory");
    if (status == TOOL_OK)
        status = tool_agree_status(parse_cases(cases, n, rank == 0), MPI_COMM_WORLD);
    if (status == TOOL_OK)
        status = bench_threads(a.threads, rank == 0, threads, sizeof threads);
    if (status != TOOL_OK) {
        free_cases(cases, n);
        free(res);
        return status;
    }
    int tty = rank == 0 && isatty(STDERR_FILENO);
    if (rank == 0)
        printf("redist bench: %d case%s, %d trials each, %d ranks started; threads %s\n", n,
               n == 1 ? "" : "s", a.trials, size, threads);
    double start = MPI_Wtime(), target = a.quick ? 5e-4 : 2e-3;
    for (int k = 0; k < n && status == TOOL_OK; k++) {
        res[k].c = cases[k];
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, rank < cases[k].procs ? 0 : MPI_UNDEFINED, rank, &comm);
        int mine = TOOL_OK;
        if (comm != MPI_COMM_NULL) {
            mine = run_case(&res[k], comm, a.trials, target);
            MPI_Comm_free(&comm);
        }
        quiet_barrier(MPI_COMM_WORLD); /* the others sleep meanwhile */
        status = tool_agree_status(mine, MPI_COMM_WORLD);
        if (tty)
            fprintf(stderr, "\r%70s\r", "");
        if (rank == 0 && status == TOOL_OK && a.from != NULL)
            print_pair(&res[k].c);
        if (rank == 0 && status == TOOL_OK)
            print_case(&res[k]);
        if (rank == 0 && status == TOOL_OK && a.from != NULL)
            print_rows(&res[k]);
        if (tty)
            show_progress(k + 1, n, start);
    }
    if (tty)
        fprintf(stderr, "\r%70s\r", "");
    if (rank == 0 && status == TOOL_OK) {
        print_summary(res, n);
        FILE *f = a.csv ? fopen(a.csv, "w") : NULL;
        if (a.csv && f == NULL)
            status = tool_error(1, TOOL_FAILED, "bench: cannot write %s", a.csv);
        if (f != NULL) {
            write_csv(f, res, n);
            fclose(f);
            printf("wrote %s\n", a.csv);
        }
        if (a.plots) {
            int g = write_plots(a.plots, res, n);
            if (g < 0)
                status = tool_error(1, TOOL_FAILED, "bench: cannot write into %s", a.plots);
            else
                printf("wrote %s/bench.dat and bench.gp%s\n", a.plots,
                       g == 0 ? " and the SVG plots" : " (gnuplot failed or is missing)");
        }
    }
    free_cases(cases, n);
    free(res);
    return tool_agree_status(status, MPI_COMM_WORLD);
}
