/* redist demo: a short tour on however many ranks the tool was started with.
 *
 * 1. [LBP96]'s example (section 3.1, Figures 1-3): cyclic(2) -> cyclic(6), N = 48, P = 4.
 *    The tables S, R, P, P_s and D_s (src/circulant.h) are printed, then the redistribution
 *    runs through every algorithm and every element is checked.
 * 2. A 2-D case (2000x2000 doubles, 36x36 blocks on a near-square grid of all ranks ->
 *    128x128 blocks on the transposed grid, column-major) timed with every algorithm.
 * 3. Layouts beyond block-cyclic, each planned with auto, run, checked and timed: x-pencils ->
 *    y-pencils (boxes), a matrix replicated along one grid dimension -> block-cyclic, and
 *    partial sums on every rank -> block-cyclic (MPI_SUM).
 * One verdict at the end covers every element the three parts checked.
 */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "data.h"
#include "measure.h"
#include "report.h"
#include "tables.h"

const char tool_demo_help[] =
    "usage: mpirun -n P redist demo [--threads N]     (also: redist with no command)\n"
    "\n"
    "A short tour on however many ranks it was started with (make demo uses 4):\n"
    "  1. [LBP96]'s example, cyclic(2) -> cyclic(6) of N = 48 elements on 4 processors:\n"
    "     the initial distribution table S, the final table R, the destination processor\n"
    "     table P and its circulant form P_s with D_s (Theorem 2); then the redistribution\n"
    "     through every algorithm, every element checked (on min(P, 4) ranks);\n"
    "  2. 2000x2000 doubles, 36x36 blocks on a near-square grid of all ranks -> 128x128\n"
    "     blocks on the transposed grid (column-major), every algorithm timed (Tmin, Tmed,\n"
    "     Tavg, Tmax, GB/s, steps, messages, time relative to alltoallw) and verified;\n"
    "  3. layouts beyond block-cyclic, each planned with auto, run, every element checked\n"
    "     and timed: x-pencils -> y-pencils of 32x24x16 doubles (boxes), 96x96 doubles\n"
    "     replicated along the grid's second dimension -> 32x32 blocks, and partial sums\n"
    "     of 96x96 doubles on every rank -> 32x32 blocks (MPI_SUM).\n"
    "  --threads N   N threads per rank for every plan's local moves (redist_options.threads;\n"
    "                default REDIST_NUM_THREADS, else 1)\n"
    "Only rank 0 prints. Exit status 1 if any element is wrong or any algorithm fails.\n";

#define DEMO_N 2000
#define DEMO_BLOCK_FROM 36
#define DEMO_BLOCK_TO 128
#define DEMO_BYTES ((double)DEMO_N * DEMO_N * sizeof(double))

/* Prints a comma-separated list after a label, wrapped at 92 columns. */
typedef struct wrap {
    const char *label;
    int col, words;
} wrap;

static void wrap_word(wrap *w, const char *word)
{
    int len = (int)strlen(word), indent = (int)strlen(w->label);
    if (w->words == 0) {
        printf("%s %s", w->label, word);
        w->col = indent + 1 + len;
    } else if (w->col + 2 + len > 92) {
        printf(",\n%*s %s", indent, "", word);
        w->col = indent + 1 + len;
    } else {
        printf(", %s", word);
        w->col += 2 + len;
    }
    w->words++;
}

static void wrap_end(wrap *w)
{
    if (w->words)
        printf("\n");
    w->words = 0;
}

static int parse_or_die(const char *text, tool_spec *spec)
{
    char err[256];
    if (spec_parse(text, 0, spec, err, sizeof err) != 0) {
        fprintf(stderr, "redist: demo: internal spec '%s': %s\n", text, err);
        return -1;
    }
    return 0;
}

/* A redistribution of doubles the demo runs: its specs, layouts and local arrays. */
typedef struct demo_case {
    tool_spec from, to;
    redist_layout src, dst;
    tool_arrays data;
    int threads;        /* options.threads of its plans (--threads) */
    tool_reduce reduce; /* partial sums: options.reduce of its plans, the parts it holds */
} demo_case;

/* The specs are the demo's own: a failure is a bug here, reported as such. */
static int demo_case_parse(demo_case *c, const char *from, const char *to)
{
    memset(c, 0, sizeof *c);
    return parse_or_die(from, &c->from) || parse_or_die(to, &c->to) ? -1 : 0;
}

/* Collective: the layouts, then the arrays (the source filled). rc is this rank's verdict so
   far: the layouts are made only while it is REDIST_SUCCESS. Returns the code all ranks agree
   on; *in_arrays tells a failure of the arrays (REDIST_ERR_NOMEM) from one before them. */
static int demo_case_open(demo_case *c, int rc, int rank, MPI_Comm comm, int *in_arrays)
{
    *in_arrays = 0;
    if (rc == REDIST_SUCCESS)
        rc = tool_layouts(&c->from, &c->to, &c->src, &c->dst);
    rc = tool_agree_code(rc, comm);
    if (rc != REDIST_SUCCESS)
        return rc;
    if (tool_arrays_alloc(&c->data, &c->from, &c->to, TOOL_DOUBLE, c->reduce, rank, comm) != 0) {
        *in_arrays = 1;
        return REDIST_ERR_NOMEM;
    }
    return REDIST_SUCCESS;
}

static void demo_case_free(demo_case *c)
{
    tool_layouts_free(&c->src, &c->dst);
    tool_arrays_free(&c->data);
    spec_free(&c->from);
    spec_free(&c->to);
}

/* ---- Part 1: [LBP96] §3.1 ------------------------------------------------------ */

/* The paper's tables for its own example, which has P = 4 however many ranks run. */
static int print_lbp96_tables(int rank)
{
    demo_case c;
    if (demo_case_parse(&c, "n=48,block=2,procs=4", "n=48,block=6,procs=4") != 0) {
        demo_case_free(&c);
        return -1;
    }
    if (rank == 0) {
        tool_tables t;
        char why[256];
        printf(
            "1. [LBP96] (Lim, Bhat, Prasanna) §3.1: cyclic(2) -> cyclic(6) of N = 48 elements on P = 4\n");
        if (tables_compute(&c.from, &c.to, &t, why, sizeof why) == 0) {
            tables_print(stdout, &t, "   ", 0);
            tables_free(&t);
        } else {
            printf("   (tables: %s)\n", why);
        }
    }
    demo_case_free(&c);
    return 0;
}

/* What one algorithm did on the paper's example (rank 0 prints them all at the end, a list
   at a time, so that the lists never run into each other). */
typedef enum { PAPER_CORRECT, PAPER_NOT_APPLICABLE, PAPER_FAILED } paper_outcome;
typedef struct paper_result {
    const char *name;
    char word[96]; /* its word in the `correct:` list: the name, "auto (-> direct)" */
    paper_outcome outcome;
    int rc;        /* PAPER_FAILED: the library's code, or REDIST_SUCCESS if elements were wrong */
    int64_t wrong; /* wrong elements */
} paper_result;

/* One algorithm on the paper's example: planned, run and every element checked. */
static void paper_try(demo_case *c, paper_result *r, int rank, MPI_Comm comm)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = r->name;
    opt.threads = c->threads;
    redist_plan plan = NULL;
    r->rc = redist_plan_create(c->src, c->dst, MPI_DOUBLE, comm, &opt, &plan);
    if (r->rc == REDIST_ERR_NOT_APPLICABLE) {
        r->outcome = PAPER_NOT_APPLICABLE;
        return;
    }
    if (r->rc == REDIST_SUCCESS) {
        tool_arrays_poison(&c->data);
        r->rc = redist_execute(plan, c->data.src, c->data.dst);
    }
    r->wrong = 0;
    if (r->rc == REDIST_SUCCESS)
        r->wrong = tool_verify_all(&c->to, rank, TOOL_DOUBLE, c->data.dst, comm, NULL);
    r->outcome = r->rc != REDIST_SUCCESS || r->wrong ? PAPER_FAILED : PAPER_CORRECT;
    const char *chosen = plan ? redist_plan_algorithm(plan) : NULL;
    if (strcmp(r->name, "auto") == 0 && chosen)
        snprintf(r->word, sizeof r->word, "auto (-> %s)", chosen);
    else
        snprintf(r->word, sizeof r->word, "%s", r->name);
    if (plan)
        redist_plan_free(&plan);
}

/* The algorithms with one outcome as a wrapped list after label (nothing if there are none). */
static void print_outcomes(const char *label, const paper_result *r, int count,
                           paper_outcome outcome)
{
    wrap w = {label, 0, 0};
    for (int i = 0; i < count; i++)
        if (r[i].outcome == outcome)
            wrap_word(&w, outcome == PAPER_CORRECT ? r[i].word : r[i].name);
    wrap_end(&w);
}

static void print_failures(const paper_result *r, int count)
{
    for (int i = 0; i < count; i++) {
        if (r[i].outcome != PAPER_FAILED)
            continue;
        if (r[i].rc != REDIST_SUCCESS)
            printf("     %s FAILED: %s\n", r[i].name, redist_strerror(r[i].rc));
        else
            printf("     %s WRONG: %lld of 48 elements\n", r[i].name, (long long)r[i].wrong);
    }
}

/* Every algorithm on the example, run on P ranks of size; *checked counts the elements. */
static int paper_try_all(demo_case *c, int P, int size, int rank, MPI_Comm comm, int64_t *checked)
{
    if (rank == 0)
        printf(
            "   Run on %d rank%s through every algorithm, all 48 elements checked each time%s:\n",
            P, P == 1 ? "" : "s",
            P < 4      ? " (fewer than 4 ranks were started)"
            : size > 4 ? " (the other ranks take part holding nothing)"
                       : "");
    int status = TOOL_OK, count = redist_algorithm_count();
    paper_result *r = calloc((size_t)count, sizeof *r);
    if (tool_agree_status(r == NULL ? TOOL_FAILED : TOOL_OK, comm) != TOOL_OK) {
        free(r);
        return tool_error(rank == 0, TOOL_FAILED, "demo: out of memory");
    }
    for (int i = 0; i < count; i++) {
        r[i].name = redist_algorithm_name(i);
        paper_try(c, &r[i], rank, comm);
        if (r[i].outcome == PAPER_FAILED)
            status = TOOL_FAILED;
        if (r[i].outcome == PAPER_CORRECT)
            *checked += spec_held_count(&c->to);
    }
    if (rank == 0) {
        print_outcomes("     correct:", r, count, PAPER_CORRECT);
        print_outcomes("     not applicable:", r, count, PAPER_NOT_APPLICABLE);
        print_failures(r, count);
    }
    free(r);
    return status;
}

static int demo_lbp96_example(MPI_Comm comm, int rank, int size, int threads, int64_t *checked)
{
    if (print_lbp96_tables(rank) != 0)
        return TOOL_FAILED;
    /* The same redistribution on min(size, 4) ranks; any further ranks hold nothing. */
    int P = size < 4 ? size : 4;
    char from[64], to[64];
    snprintf(from, sizeof from, "n=48,block=2,procs=%d", P);
    snprintf(to, sizeof to, "n=48,block=6,procs=%d", P);
    demo_case c;
    if (demo_case_parse(&c, from, to) != 0) {
        demo_case_free(&c);
        return TOOL_FAILED;
    }
    c.threads = threads;
    int in_arrays, status;
    int rc = demo_case_open(&c, REDIST_SUCCESS, rank, comm, &in_arrays);
    if (rc != REDIST_SUCCESS && in_arrays)
        status = tool_error(rank == 0, TOOL_FAILED, "demo: out of memory");
    else if (rc != REDIST_SUCCESS)
        status = tool_error(rank == 0, TOOL_FAILED, "demo: layout: %s", redist_strerror(rc));
    else
        status = paper_try_all(&c, P, size, rank, comm, checked);
    demo_case_free(&c);
    return tool_agree_status(status, comm);
}

/* ---- Part 2: every algorithm on a 2-D case, timed and verified --------------------------- */

typedef struct demo_row {
    const char *name;
    char chosen[48];
    int applicable, failed;
    int checked; /* its first execute was verified */
    int64_t wrong;
    tool_timing tm;
    tool_plan_summary sum;
} demo_row;

/* The columns every timed row has: name, Tmin, Tmed, Tavg, Tmax and GB/s. */
static void print_times(const char *name, const tool_timing *tm)
{
    char t[4][32];
    tool_fmt_seconds(t[0], sizeof t[0], tm->tmin);
    tool_fmt_seconds(t[1], sizeof t[1], tm->tmed);
    tool_fmt_seconds(t[2], sizeof t[2], tm->tavg);
    tool_fmt_seconds(t[3], sizeof t[3], tm->tmax);
    printf("   %-20s %9s %9s %9s %9s %7.2f", name, t[0], t[1], t[2], t[3],
           tm->tmed > 0 ? DEMO_BYTES / tm->tmed / 1e9 : 0.0);
}

/* The last column: the time relative to alltoallw's, once that is known. */
static void print_ratio(double tmed, double ref)
{
    if (ref > 0)
        printf(" %8.2f", tmed / ref);
}

static void print_row(const demo_row *r, double ref)
{
    char name[80];
    if (r->chosen[0])
        snprintf(name, sizeof name, "%s -> %s", r->name, r->chosen);
    else
        snprintf(name, sizeof name, "%s", r->name);
    if (!r->applicable) {
        printf("   %-20s not applicable\n", name);
        return;
    }
    if (r->failed) {
        printf("   %-20s FAILED\n", name);
        return;
    }
    print_times(name, &r->tm);
    printf(" %6d %6lld", r->sum.steps, (long long)r->sum.max_messages);
    print_ratio(r->tm.tmed, ref);
    if (r->wrong)
        printf("  WRONG: %lld elements", (long long)r->wrong);
    printf("\n");
}

/* One trial of the floor, closed by a barrier as every algorithm is closed by its own
   completion: with more ranks than cores a rank's clock would otherwise miss the time it sat
   descheduled while the others copied. Returns the slowest rank's average. */
static double floor_trial(void *tmp, const void *src, int64_t bytes, int n2, MPI_Comm comm)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int j = 0; j < n2; j++)
        if (bytes)
            memcpy(tmp, src, (size_t)bytes);
    MPI_Barrier(comm);
    double mine = (MPI_Wtime() - t0) / n2, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

/* The local copy of the same bytes: the floor every algorithm is measured against. */
static double memcpy_floor(const void *src, int64_t bytes, MPI_Comm comm, tool_timing *tm)
{
    void *tmp = malloc((size_t)(bytes ? bytes : 1));
    int n1 = tm->n1, n2 = tm->n2;
    double *T = malloc((size_t)n1 * sizeof *T);
    if (tool_agree_status(!tmp || !T, comm)) {
        free(tmp);
        free(T);
        return -1;
    }
    if (bytes)
        memcpy(tmp, src, (size_t)bytes); /* first touch of tmp, untimed */
    for (int i = 0; i < n1; i++)
        T[i] = floor_trial(tmp, src, bytes, n2, comm);
    tool_timing_summarise(T, n1, tm);
    free(tmp);
    free(T);
    return tm->tmed;
}

static void print_floor(const demo_case *c, int rank, MPI_Comm comm, double ref)
{
    tool_timing tm = {5, 2, 0, 0, 0, 0};
    int64_t bytes = spec_local_count(&c->from, rank) * (int64_t)sizeof(double);
    if (memcpy_floor(c->data.src, bytes, comm, &tm) < 0 || rank != 0)
        return;
    print_times("(memcpy floor)", &tm);
    printf(" %6s %6s", "-", "-");
    print_ratio(tm.tmed, ref);
    printf("   (each rank copies its own part once)\n");
}

/* A planned algorithm: one execute (its time sizes the trials), checked, then timed. Returns
   the first failing code. */
static int time_plan(demo_case *c, demo_row *row, redist_plan plan, int rank, MPI_Comm comm)
{
    const char *chosen = redist_plan_algorithm(plan);
    if (!strcmp(row->name, "auto") && chosen)
        snprintf(row->chosen, sizeof row->chosen, "%s", chosen);
    tool_arrays_poison(&c->data);
    double t0 = MPI_Wtime();
    int rc = redist_execute(plan, c->data.src, c->data.dst);
    double warm = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &warm, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (rc != REDIST_SUCCESS)
        return rc;
    row->wrong = tool_verify_all(&c->to, rank, TOOL_DOUBLE, c->data.dst, comm, NULL);
    row->checked = 1;
    /* Keep the tour short: fewer runs for slow algorithms. */
    int n1 = warm > 0.1 ? 3 : 5, n2 = warm > 0.02 ? 1 : 2;
    rc = tool_time_plan(plan, c->data.src, c->data.dst, comm, n1, n2, 0, &row->tm);
    tool_plan_summarise(plan, comm, &row->sum);
    return rc;
}

/* One algorithm on the timed case, its row filled; TOOL_FAILED if it fails or is wrong. */
static int time_algorithm(demo_case *c, demo_row *row, int rank, MPI_Comm comm)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = row->name;
    opt.threads = c->threads;
    redist_plan plan = NULL;
    int rc = redist_plan_create(c->src, c->dst, MPI_DOUBLE, comm, &opt, &plan);
    row->applicable = rc != REDIST_ERR_NOT_APPLICABLE;
    if (rc == REDIST_SUCCESS)
        rc = time_plan(c, row, plan, rank, comm);
    if (row->applicable && rc != REDIST_SUCCESS) {
        row->failed = 1;
        tool_error(rank == 0, TOOL_FAILED, "demo: %s: %s", row->name, redist_strerror(rc));
    }
    if (plan)
        redist_plan_free(&plan);
    return row->failed || row->wrong ? TOOL_FAILED : TOOL_OK;
}

/* The algorithms' indices with alltoallw first: it is the reference of the last column. */
static void alltoallw_first(int *order, int count)
{
    int n = 0;
    for (int i = 0; i < count; i++)
        if (!strcmp(redist_algorithm_name(i), "alltoallw"))
            order[n++] = i;
    for (int i = 0; i < count; i++)
        if (strcmp(redist_algorithm_name(i), "alltoallw"))
            order[n++] = i;
}

/* Every algorithm timed, a row each, then the floor; *checked counts the elements. */
static int time_all(demo_case *c, demo_row *rows, int count, int rank, MPI_Comm comm,
                    int64_t *checked)
{
    int *order = malloc((size_t)count * sizeof *order);
    if (!order)
        return TOOL_FAILED;
    alltoallw_first(order, count);
    int status = TOOL_OK;
    double ref = 0;
    for (int o = 0; o < count; o++) {
        demo_row *row = &rows[order[o]];
        row->name = redist_algorithm_name(order[o]);
        if (time_algorithm(c, row, rank, comm) != TOOL_OK)
            status = TOOL_FAILED;
        *checked += row->checked ? DEMO_N * (int64_t)DEMO_N : 0;
        if (!strcmp(row->name, "alltoallw") && !row->failed && row->applicable)
            ref = row->tm.tmed;
        if (rank == 0) {
            print_row(row, ref);
            fflush(stdout);
        }
    }
    free(order);
    print_floor(c, rank, comm, ref);
    return tool_agree_status(status, comm);
}

static void print_timed_header(int r, int c)
{
    char b[32];
    printf(
        "\n2. %dx%d doubles (%s), column-major: %dx%d blocks on a %dx%d grid -> %dx%d blocks on %dx%d\n",
        DEMO_N, DEMO_N, tool_fmt_bytes(b, sizeof b, DEMO_BYTES), DEMO_BLOCK_FROM, DEMO_BLOCK_FROM,
        r, c, DEMO_BLOCK_TO, DEMO_BLOCK_TO, c, r);
    printf(
        "   Times per execute: per trial the slowest rank's average, over n1 trials ([LBP96] Fig. 13).\n");
    printf("   %-20s %9s %9s %9s %9s %7s %6s %6s %8s\n", "algorithm", "Tmin", "Tmed", "Tavg",
           "Tmax", "GB/s", "steps", "msgs", "T/a2aw");
    fflush(stdout);
}

/* A near-square r x c grid of size ranks, r <= c. */
static void near_square(int size, int *r, int *c)
{
    *r = (int)sqrt((double)size);
    while (*r > 1 && size % *r)
        (*r)--;
    *c = size / *r;
}

static int demo_timed(MPI_Comm comm, int rank, int size, int threads, int64_t *checked)
{
    /* A near-square r x c grid of all ranks, transposed on the destination side. */
    int r, c;
    near_square(size, &r, &c);
    char text[2][160];
    snprintf(text[0], sizeof text[0], "n=%dx%d,block=%dx%d,grid=%dx%d,order=col", DEMO_N, DEMO_N,
             DEMO_BLOCK_FROM, DEMO_BLOCK_FROM, r, c);
    snprintf(text[1], sizeof text[1], "n=%dx%d,block=%dx%d,grid=%dx%d,order=col", DEMO_N, DEMO_N,
             DEMO_BLOCK_TO, DEMO_BLOCK_TO, c, r);
    demo_case dc;
    if (demo_case_parse(&dc, text[0], text[1]) != 0) {
        demo_case_free(&dc);
        return TOOL_FAILED;
    }
    dc.threads = threads;
    int count = redist_algorithm_count(), in_arrays, status = TOOL_OK;
    demo_row *rows = calloc((size_t)count, sizeof *rows);
    int rc = demo_case_open(&dc, rows ? REDIST_SUCCESS : REDIST_ERR_NOMEM, rank, comm, &in_arrays);
    if (rc != REDIST_SUCCESS)
        status = tool_error(rank == 0, TOOL_FAILED, "demo: %s", redist_strerror(rc));
    if (status == TOOL_OK && rank == 0)
        print_timed_header(r, c);
    if (status == TOOL_OK)
        status = time_all(&dc, rows, count, rank, comm, checked);
    free(rows);
    demo_case_free(&dc);
    return tool_agree_status(status, comm);
}

/* ---- Part 3: layouts beyond block-cyclic ------------------------------------------------- */

/* A planned pair of part 3: one execute checked element by element (with partial sums against
   the reduction of every holder's part), then timed. The library's code, agreed. */
static int layout_run(demo_case *c, redist_plan plan, int rank, MPI_Comm comm, int64_t *wrong,
                      tool_timing *tm)
{
    tool_arrays_poison(&c->data);
    int rc = tool_agree_code(redist_execute(plan, c->data.src, c->data.dst), comm);
    if (rc != REDIST_SUCCESS)
        return rc;
    tool_expect e;
    tool_expect_init(&e, &c->from, NULL, 0, 1.0, 0.0, 1.0, c->reduce);
    *wrong = tool_verify_all_expect(&c->to, rank, TOOL_DOUBLE, c->data.dst, &e, comm, NULL);
    if (*wrong < 0)
        return REDIST_ERR_NOMEM; /* checking the partial sums */
    return tool_time_plan(plan, c->data.src, c->data.dst, comm, 5, 4, 0, tm);
}

/* One pair of part 3 planned with auto and run (layout_run); its line on rank 0: what auto
   chose and the time per execute. *checked counts the elements. */
static int layout_try(const char *what, const char *from, const char *to, tool_reduce reduce,
                      int threads, int rank, MPI_Comm comm, int64_t *checked)
{
    demo_case c;
    if (demo_case_parse(&c, from, to) != 0) {
        demo_case_free(&c);
        return TOOL_FAILED;
    }
    c.threads = threads;
    c.reduce = reduce;
    redist_plan plan = NULL;
    int64_t wrong = 0;
    tool_timing tm;
    memset(&tm, 0, sizeof tm);
    int in_arrays, rc = demo_case_open(&c, REDIST_SUCCESS, rank, comm, &in_arrays);
    if (rc == REDIST_SUCCESS) {
        redist_options opt;
        redist_options_init(&opt);
        opt.threads = threads;
        opt.reduce = tool_reduce_op(reduce);
        rc = tool_agree_code(redist_plan_create(c.src, c.dst, MPI_DOUBLE, comm, &opt, &plan), comm);
    }
    if (rc == REDIST_SUCCESS)
        rc = layout_run(&c, plan, rank, comm, &wrong, &tm);
    if (rank == 0) {
        char t[32], why[512];
        if (rc != REDIST_SUCCESS)
            printf("   %-50s FAILED: %s", what, tool_lib_error(why, sizeof why, "auto", rc));
        else
            printf("   %-50s auto -> %-14s %9s", what, redist_plan_algorithm(plan),
                   tool_fmt_seconds(t, sizeof t, tm.tmed));
        if (rc == REDIST_SUCCESS && wrong)
            printf("  WRONG: %lld of %lld elements", (long long)wrong,
                   (long long)spec_held_count(&c.to));
        printf("\n");
        fflush(stdout);
    }
    if (rc == REDIST_SUCCESS)
        *checked += spec_held_count(&c.to);
    if (plan)
        redist_plan_free(&plan);
    demo_case_free(&c);
    return rc != REDIST_SUCCESS || wrong ? TOOL_FAILED : TOOL_OK;
}

/* Part 3 on all size ranks (r x c near-square): x-pencils -> y-pencils (boxes); rows cyclic(32)
   over r, replicated along the c ranks of each grid row -> 32x32 blocks on c x r; every rank
   holding a part of every element (replicated along a size x 1 grid) -> the same blocks, the
   parts summed. With more ranks than blocks some hold nothing. */
static int demo_layouts(MPI_Comm comm, int rank, int size, int threads, int64_t *checked)
{
    int r, c;
    near_square(size, &r, &c);
    char pen[2][64], rep[64], blocks[64], parts[64];
    snprintf(pen[0], sizeof pen[0], "n=32x24x16,pencil=0,procs=%d", size);
    snprintf(pen[1], sizeof pen[1], "n=32x24x16,pencil=1,procs=%d", size);
    snprintf(rep, sizeof rep, "n=96x96,block=32,grid=%dx%d,first=0x-1", r, c);
    snprintf(blocks, sizeof blocks, "n=96x96,block=32,grid=%dx%d", c, r);
    snprintf(parts, sizeof parts, "n=96x96,grid=%dx1,first=-1x0", size);
    if (rank == 0)
        printf(
            "\n3. Layouts beyond block-cyclic on %d rank%s (doubles), each planned with auto, run\n"
            "   once and every element checked, then timed (Tmed of 5 trials of 4 executes):\n",
            size, size == 1 ? "" : "s");
    int s[3];
    s[0] = layout_try("x-pencils -> y-pencils (boxes), 32x24x16", pen[0], pen[1], TOOL_REDUCE_NONE,
                      threads, rank, comm, checked);
    s[1] = layout_try("replicated along grid dim 1 -> 32x32 blocks, 96x96", rep, blocks,
                      TOOL_REDUCE_NONE, threads, rank, comm, checked);
    s[2] = layout_try("partial sums (MPI_SUM) -> 32x32 blocks, 96x96", parts, blocks,
                      TOOL_REDUCE_SUM, threads, rank, comm, checked);
    return s[0] > s[1] ? (s[0] > s[2] ? s[0] : s[2]) : (s[1] > s[2] ? s[1] : s[2]);
}

/* demo's one option (a tool_take_fn): --threads N. */
static int demo_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    int m = tool_threads_option(argc, argv, i, ctx, rank0);
    if (m == 0)
        return tool_error(rank0, TOOL_USAGE,
                          "demo: unexpected argument '%s' (see redist demo --help)", argv[*i]);
    return m < 0 ? TOOL_USAGE : TOOL_OK;
}

/* The header: version, ranks and threads. TOOL_FAILED once reported if the library refuses
   the threads' reading (a malformed REDIST_NUM_THREADS, or no OpenMP): no plan could run. */
static int print_demo_header(int threads, int rank, int size, MPI_Comm comm)
{
    int lo, hi;
    const char *source;
    char why[512];
    int rc = tool_threads_span(threads, comm, &lo, &hi, &source);
    if (rc != REDIST_SUCCESS)
        return tool_error(rank == 0, TOOL_FAILED, "demo: %s",
                          tool_lib_error(why, sizeof why, "threads", rc));
    if (rank == 0) {
        printf("redist %d.%d.%d demo on %d MPI process%s; threads %s\n\n", REDIST_VERSION_MAJOR,
               REDIST_VERSION_MINOR, REDIST_VERSION_PATCH, size, size == 1 ? "" : "es",
               tool_fmt_threads(why, sizeof why, lo, hi, source));
        fflush(stdout);
    }
    return TOOL_OK;
}

int tool_demo(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, size, threads = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int status = tool_each_option(argc, argv, "demo", demo_option, &threads, rank == 0);
    if (status == TOOL_OK)
        status = print_demo_header(threads, rank, size, comm);
    if (status != TOOL_OK)
        return status;
    int64_t checked = 0; /* elements checked, all parts */
    int s1 = demo_lbp96_example(comm, rank, size, threads, &checked);
    int s2 = demo_timed(comm, rank, size, threads, &checked);
    int s3 = demo_layouts(comm, rank, size, threads, &checked);
    status = s1 > s2 ? s1 : s2;
    status = tool_agree_status(status > s3 ? status : s3, comm);
    if (rank == 0 && status == TOOL_OK)
        printf("\nverified: all elements correct (%lld elements checked)\n", (long long)checked);
    else if (rank == 0)
        printf("\nverification or an algorithm FAILED (see above)\n");
    return status;
}
