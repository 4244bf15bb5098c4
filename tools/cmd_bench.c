/* redist bench: how well the cost model chooses. A grid of cases (1-D and 2-D, block ratios
 * 1 .. 32, sizes from start-up-bound to bandwidth-bound, several rank counts), each run
 * through every applicable algorithm and through auto, every element checked once. Per case:
 * the best algorithm, auto's choice and its regret (auto's time / the best time), predicted
 * and measured time per algorithm. A summary (share of cases where auto is within 15% of the
 * best, the worst regret, the model's accuracy), CSV, and SVG plots through gnuplot.
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
    "usage: mpirun -n P redist bench [--quick] [--procs LIST] [--trials N] [--csv FILE]\n"
    "                                [--plots DIR] [--threads N]\n"
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
    "  --procs LIST  rank counts, e.g. 2,3,4 (each at most P; default 2,4,8)\n"
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
    int quick, trials, nprocs;
    int threads; /* --threads N: options.threads of every plan (0: not given) */
    int *procs;  /* nprocs rank counts (--procs takes a list of any length) */
    const char *csv, *plots;
} bench_args;

typedef struct bench_case {
    int dims, procs, ratio;
    int threads; /* options.threads */
    int64_t elements;
    char from[160], to[160];
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

static int make_cases(const bench_args *a, bench_case **out)
{
    static const int ratios_full[] = {1, 2, 4, 8, 32}, ratios_quick[] = {1, 4, 32};
    static const int64_t n1_full[] = {1 << 10, 1 << 16, 1 << 22}, n2_full[] = {64, 512, 2048};
    const int *ratios = a->quick ? ratios_quick : ratios_full;
    int nratios = a->quick ? 3 : 5, nsizes = a->quick ? 2 : 3;
    size_t most = (size_t)(a->nprocs > 0 ? a->nprocs : 1) * 2 * (size_t)(nratios * nsizes);
    bench_case *cs = calloc(most, sizeof *cs);
    int n = 0;
    for (int pi = 0; cs != NULL && pi < a->nprocs; pi++) {
        int p = a->procs[pi], ga, gb;
        grid_shape(p, &ga, &gb);
        for (int dims = 1; dims <= 2; dims++)
            for (int s = 0; s < nsizes; s++)
                for (int r = 0; r < nratios; r++) {
                    bench_case *c = &cs[n++];
                    c->dims = dims, c->procs = p, c->ratio = ratios[r];
                    c->threads = a->threads;
                    if (dims == 1) {
                        c->elements = n1_full[s];
                        snprintf(c->from, sizeof c->from, "n=%lld,block=2,procs=%d",
                                 (long long)c->elements, p);
                        snprintf(c->to, sizeof c->to, "n=%lld,block=%d,procs=%d%s",
                                 (long long)c->elements, 2 * c->ratio, p,
                                 c->ratio == 1 && p > 1 ? ",first=1" : "");
                    } else {
                        int64_t N = n2_full[s];
                        c->elements = N * N;
                        snprintf(c->from, sizeof c->from, "n=%lldx%lld,block=4x4,grid=%dx%d",
                                 (long long)N, (long long)N, ga, gb);
                        /* a square grid transposed is itself: P x 1 instead */
                        int ta = ga == gb ? p : gb, tb = ga == gb ? 1 : ga;
                        snprintf(c->to, sizeof c->to, "n=%lldx%lld,block=%dx%d,grid=%dx%d",
                                 (long long)N, (long long)N, 4 * c->ratio, 4 * c->ratio, ta, tb);
                    }
                }
    }
    *out = cs;
    return cs ? n : -1;
}

/* ---- one case ------------------------------------------------------------------------------ */

/* Plans the row; verifies one execute; sets its batch size. A TOOL_* status. */
static int prepare_row(bench_row *row, const bench_case *c, const tool_spec *to, redist_layout src,
                       redist_layout dst, tool_arrays *d, MPI_Comm comm, double target)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = row->name;
    opt.threads = c->threads;
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
    row->wrong = tool_verify_all(to, rank, TOOL_DOUBLE, d->dst, comm, NULL);
    double once = 0;
    if (rc == REDIST_SUCCESS)
        rc = tool_time_batch(row->plan, d->src, d->dst, comm, 1, &once);
    if (rc != REDIST_SUCCESS || row->wrong != 0) {
        char buf[512];
        return tool_error(rank == 0, TOOL_FAILED, "bench: %s -> %s: %s: %s", c->from, c->to,
                          row->name,
                          rc != REDIST_SUCCESS ? tool_lib_error(buf, sizeof buf, "execute", rc)
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
    tool_spec from, to;
    char err[256];
    memset(&from, 0, sizeof from);
    memset(&to, 0, sizeof to);
    if (spec_parse(r->c.from, 0, &from, err, sizeof err) != 0 ||
        spec_parse(r->c.to, 0, &to, err, sizeof err) != 0) {
        spec_free(&from);
        spec_free(&to);
        return tool_error(rank == 0, TOOL_FAILED, "bench: bad case: %s", err);
    }
    redist_layout src = NULL, dst = NULL;
    tool_arrays d;
    memset(&d, 0, sizeof d);
    int rc = tool_layouts(&from, &to, &src, &dst);
    if (tool_agree_code(rc, comm) != REDIST_SUCCESS ||
        tool_arrays_alloc(&d, &from, &to, TOOL_DOUBLE, TOOL_REDUCE_NONE, rank, comm) != 0)
        status = tool_error(rank == 0, TOOL_FAILED, "bench: %s -> %s: no layouts or memory",
                            r->c.from, r->c.to);
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
            status = prepare_row(row, &r->c, &to, src, dst, &d, comm, target);
    }
    if (status == TOOL_OK && (rc = time_rows(r, &d, comm, trials)) != REDIST_SUCCESS) {
        char buf[512];
        status = tool_error(rank == 0, TOOL_FAILED, "bench: %s -> %s: %s", r->c.from, r->c.to,
                            tool_lib_error(buf, sizeof buf, "execute", rc));
    }
    if (status == TOOL_OK) {
        judge(r);
        r->chosen = redist_plan_algorithm(r->rows[r->autorow].plan);
    }
    free_rows(r);
    tool_arrays_free(&d);
    tool_layouts_free(&src, &dst);
    spec_free(&from);
    spec_free(&to);
    return status;
}

/* ---- output -------------------------------------------------------------------------------- */

static void case_label(const bench_case *c, char *buf, size_t len)
{
    char size[32];
    tool_fmt_bytes(size, sizeof size, (double)c->elements * 8);
    snprintf(buf, len, "%dD P=%d K=%-2d %8s", c->dims, c->procs, c->ratio, size);
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

static void write_csv(FILE *f, const bench_result *res, int n)
{
    fprintf(f, "case,dims,procs,ratio,elements,bytes,from,to,algorithm,applicable,transport,"
               "predicted_s,measured_s,best,auto_choice,regret\n");
    for (int k = 0; k < n; k++) {
        const bench_result *r = &res[k];
        for (int i = 0; i < r->nrows; i++) {
            const bench_row *row = &r->rows[i];
            fprintf(f, "%d,%d,%d,%d,%lld,%lld,\"%s\",\"%s\",%s,%d,", k, r->c.dims, r->c.procs,
                    r->c.ratio, (long long)r->c.elements, (long long)r->c.elements * 8, r->c.from,
                    r->c.to, row->name, row->applicable);
            csv_figures(f, row);
            fprintf(f, ",%d,%d,%.4f\n", i == r->best,
                    i != r->autorow && r->chosen && strcmp(row->name, r->chosen) == 0, r->regret);
        }
    }
}

/* The model's accuracy: predicted / measured of every applicable algorithm on the cases of
   the largest size (bandwidth-bound), the share within 2x, the worst. */
static void print_accuracy(const bench_result *res, int n)
{
    int64_t top[3] = {0, 0, 0};
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
    printf("\nauto within 15%% of the best algorithm in %d of %d cases (%.0f%%); worst regret "
           "%.2f (%s: auto -> %s, best %s)\n",
           within, n, n ? 100.0 * within / n : 0, res[worst].regret, label, res[worst].chosen,
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

/* The first case of its plot (the same dims and procs as no earlier case). */
static int first_of_group(const bench_result *res, int k)
{
    for (int j = 0; j < k; j++)
        if (res[j].c.dims == res[k].c.dims && res[j].c.procs == res[k].c.procs)
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

/* One option of bench at argv[*i] (a tool_take_fn). */
static int bench_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    bench_args *a = ctx;
    const char *v = NULL;
    int m;
    if (strcmp(argv[*i], "--quick") == 0)
        a->quick = 1;
    else if ((m = tool_opt_value(argc, argv, i, "--procs", &v)) != 0) {
        if (m < 0 || parse_procs(v, a) != 0)
            return tool_error(rank0, TOOL_USAGE,
                              "bench: --procs needs a list of rank counts, e.g. 2,4,8");
    } else if ((m = tool_opt_value(argc, argv, i, "--trials", &v)) != 0) {
        char *end = NULL;
        long t = m > 0 ? strtol(v, &end, 10) : 0;
        if (m < 0 || *end != '\0' || t < 1 || t > 1000)
            return tool_error(rank0, TOOL_USAGE, "bench: --trials needs 1 .. 1000");
        a->trials = (int)t;
    } else if ((m = tool_threads_option(argc, argv, i, &a->threads, rank0)) != 0) {
        if (m < 0)
            return TOOL_USAGE;
    } else if ((m = tool_opt_value(argc, argv, i, "--csv", &v)) != 0) {
        if (m < 0)
            return tool_error(rank0, TOOL_USAGE, "bench: --csv needs a file name");
        a->csv = v;
    } else if ((m = tool_opt_value(argc, argv, i, "--plots", &v)) != 0) {
        if (m < 0)
            return tool_error(rank0, TOOL_USAGE, "bench: --plots needs a directory");
        a->plots = v;
    } else {
        return tool_error(rank0, TOOL_USAGE, "bench: unknown option '%s' (see redist help bench)",
                          argv[*i]);
    }
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
    bench_case *cases = NULL;
    int n = status == TOOL_OK ? make_cases(&a, &cases) : 0;
    free(a.procs);
    if (status != TOOL_OK)
        return status;
    bench_result *res = n > 0 ? calloc((size_t)n, sizeof *res) : NULL;
    char threads[96];
    if (tool_agree_status(res == NULL ? TOOL_FAILED : TOOL_OK, MPI_COMM_WORLD) != TOOL_OK)
        status = tool_error(rank == 0, TOOL_FAILED, "bench: out of memory");
    else
        status = bench_threads(a.threads, rank == 0, threads, sizeof threads);
    if (status != TOOL_OK) {
        free(cases);
        free(res);
        return status;
    }
    int tty = rank == 0 && isatty(STDERR_FILENO);
    if (rank == 0)
        printf("redist bench: %d cases, %d trials each, %d ranks started; threads %s\n", n,
               a.trials, size, threads);
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
        if (rank == 0 && status == TOOL_OK)
            print_case(&res[k]);
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
    free(cases);
    free(res);
    return tool_agree_status(status, MPI_COMM_WORLD);
}
