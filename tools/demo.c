/* redist demo: a short tour on however many ranks the tool was started with.
 *
 * 1. Paper 000's example (section 3.1, Figures 1-3): cyclic(2) -> cyclic(6), N = 48, P = 4.
 *    The tables S, R, P, P_s and D_s (src/circulant.h) are printed, then the redistribution
 *    runs through every algorithm and every element is checked.
 * 2. A 2-D case (2000x2000 doubles, 36x36 blocks on a near-square grid of all ranks ->
 *    128x128 blocks on the transposed grid, column-major) timed with every algorithm.
 */
#include "tables.h"
#include "tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char tool_demo_help[] =
    "usage: mpirun -n P redist demo      (also: redist with no command)\n"
    "\n"
    "A short tour on however many ranks it was started with (make demo uses 4):\n"
    "  1. paper 000's example, cyclic(2) -> cyclic(6) of N = 48 elements on 4 processors:\n"
    "     the initial distribution table S, the final table R, the destination processor\n"
    "     table P and its circulant form P_s with D_s (Theorem 2); then the redistribution\n"
    "     through every algorithm, every element checked (on min(P, 4) ranks);\n"
    "  2. 2000x2000 doubles, 36x36 blocks on a near-square grid of all ranks -> 128x128\n"
    "     blocks on the transposed grid (column-major), every algorithm timed (Tmin, Tmed,\n"
    "     Tavg, Tmax, GB/s, steps, messages, time relative to alltoallw) and verified.\n"
    "Only rank 0 prints. Exit status 1 if any element is wrong or any algorithm fails.\n";

#define DEMO_N 2000
#define DEMO_BLOCK_FROM 36
#define DEMO_BLOCK_TO 128

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

/* Status, the same on every rank: the worst wins. */
static int agree(int status, MPI_Comm comm)
{
    int worst;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

/* Allocates and fills the local arrays of a spec pair; 0 or -1 (on every rank). */
static int make_arrays(const tool_spec *from, const tool_spec *to, int rank, MPI_Comm comm,
                       size_t el, void **src, void **dst, int64_t *ndst)
{
    int64_t ns = spec_local_count(from, rank), nd = spec_local_count(to, rank);
    *src = ns ? malloc((size_t)ns * el) : NULL;
    *dst = malloc((size_t)(nd ? nd : 1) * el);
    *ndst = nd;
    if (agree((ns && !*src) || !*dst, comm)) {
        free(*src);
        free(*dst);
        *src = *dst = NULL;
        return -1;
    }
    if (*src)
        tool_fill(from, rank, TOOL_DOUBLE, *src);
    return 0;
}

static int64_t count_wrong(const tool_spec *to, int rank, const void *dst, MPI_Comm comm)
{
    int64_t first, mine = tool_verify(to, rank, TOOL_DOUBLE, dst, &first), all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, comm);
    return all;
}

/* Part 1: paper 000, section 3.1. */
static int demo_paper(MPI_Comm comm, int rank, int size)
{
    tool_spec from4, to4, from, to;
    memset(&from, 0, sizeof from);
    memset(&to, 0, sizeof to);
    if (parse_or_die("n=48,block=2,procs=4", &from4) || parse_or_die("n=48,block=6,procs=4", &to4))
        return TOOL_FAILED;
    int status = TOOL_OK;
    if (rank == 0) {
        tool_tables t;
        char why[256];
        printf("1. Paper 000 (Lim, Bhat, Prasanna), section 3.1: cyclic(2) -> cyclic(6) of N = 48 "
               "elements on P = 4\n");
        if (tables_compute(&from4, &to4, &t, why, sizeof why) == 0) {
            tables_print(stdout, &t, "   ", 0);
            tables_free(&t);
        } else {
            printf("   (tables: %s)\n", why);
        }
    }
    spec_free(&from4);
    spec_free(&to4);

    /* The same redistribution on min(size, 4) ranks; any further ranks hold nothing. */
    int P = size < 4 ? size : 4;
    char text[64];
    snprintf(text, sizeof text, "n=48,block=2,procs=%d", P);
    if (parse_or_die(text, &from))
        return TOOL_FAILED;
    snprintf(text, sizeof text, "n=48,block=6,procs=%d", P);
    if (parse_or_die(text, &to)) {
        spec_free(&from);
        return TOOL_FAILED;
    }
    redist_layout sl = NULL, dl = NULL;
    void *src = NULL, *dst = NULL;
    int64_t ndst = 0;
    int rc = spec_layout(&from, &sl);
    if (rc == REDIST_SUCCESS)
        rc = spec_layout(&to, &dl);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc != REDIST_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "redist: demo: layout: %s\n", redist_strerror(rc));
        status = TOOL_FAILED;
        goto done;
    }
    if (make_arrays(&from, &to, rank, comm, sizeof(double), &src, &dst, &ndst) != 0) {
        if (rank == 0)
            fprintf(stderr, "redist: demo: out of memory\n");
        status = TOOL_FAILED;
        goto done;
    }
    if (rank == 0)
        printf("   Run on %d rank%s through every algorithm, all 48 elements checked each "
               "time%s:\n",
               P, P == 1 ? "" : "s",
               P < 4      ? " (fewer than 4 ranks were started)"
               : size > 4 ? " (the other ranks take part holding nothing)"
                          : "");
    wrap ok = {"     correct:", 0, 0}, na = {"     not applicable:", 0, 0};
    int count = redist_algorithm_count();
    for (int i = 0; i < count; i++) {
        const char *name = redist_algorithm_name(i);
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = name;
        redist_plan plan = NULL;
        rc = redist_plan_create(sl, dl, MPI_DOUBLE, comm, &opt, &plan);
        if (rc == REDIST_ERR_NOT_APPLICABLE) {
            if (rank == 0)
                wrap_word(&na, name);
            continue;
        }
        if (rc == REDIST_SUCCESS) {
            memset(dst, 0xA5, (size_t)(ndst ? ndst : 1) * sizeof(double));
            rc = redist_execute(plan, src, dst);
        }
        int64_t wrong = rc == REDIST_SUCCESS ? count_wrong(&to, rank, dst, comm) : 0;
        char word[96];
        if (rc != REDIST_SUCCESS || wrong) {
            status = TOOL_FAILED;
            if (rank == 0) {
                wrap_end(&ok);
                if (rc != REDIST_SUCCESS)
                    printf("     %s FAILED: %s\n", name, redist_strerror(rc));
                else
                    printf("     %s WRONG: %lld of 48 elements\n", name, (long long)wrong);
            }
        } else if (rank == 0) {
            const char *chosen = redist_plan_algorithm(plan);
            if (strcmp(name, "auto") == 0 && chosen)
                snprintf(word, sizeof word, "auto (-> %s)", chosen);
            else
                snprintf(word, sizeof word, "%s", name);
            wrap_word(&ok, word);
        }
        if (plan)
            redist_plan_free(&plan);
    }
    if (rank == 0) {
        wrap_end(&ok);
        wrap_end(&na);
    }

done:
    if (sl)
        redist_layout_free(&sl);
    if (dl)
        redist_layout_free(&dl);
    free(src);
    free(dst);
    spec_free(&from);
    spec_free(&to);
    return agree(status, comm);
}

typedef struct demo_row {
    const char *name;
    char chosen[48];
    int applicable, failed;
    int64_t wrong;
    tool_timing tm;
    redist_stats st;
    int64_t max_msgs;
} demo_row;

static void print_row(const demo_row *r, double ref, double bytes)
{
    char name[80], t[4][32];
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
    tool_fmt_seconds(t[0], sizeof t[0], r->tm.tmin);
    tool_fmt_seconds(t[1], sizeof t[1], r->tm.tmed);
    tool_fmt_seconds(t[2], sizeof t[2], r->tm.tavg);
    tool_fmt_seconds(t[3], sizeof t[3], r->tm.tmax);
    printf("   %-20s %9s %9s %9s %9s %7.2f %6d %6lld", name, t[0], t[1], t[2], t[3],
           r->tm.tmed > 0 ? bytes / r->tm.tmed / 1e9 : 0.0, r->st.steps, (long long)r->max_msgs);
    if (ref > 0)
        printf(" %8.2f", r->tm.tmed / ref);
    if (r->wrong)
        printf("  WRONG: %lld elements", (long long)r->wrong);
    printf("\n");
}

/* The local copy of the same bytes: the floor every algorithm is measured against. */
static double memcpy_floor(const void *src, int64_t bytes, MPI_Comm comm, tool_timing *tm)
{
    void *tmp = malloc((size_t)(bytes ? bytes : 1));
    int n1 = tm->n1, n2 = tm->n2;
    double *T = malloc((size_t)n1 * sizeof *T);
    int ok = tmp && T, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(tmp);
        free(T);
        return -1;
    }
    if (bytes)
        memcpy(tmp, src, (size_t)bytes); /* first touch of tmp, untimed */
    for (int i = 0; i < n1; i++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int j = 0; j < n2; j++)
            if (bytes)
                memcpy(tmp, src, (size_t)bytes);
        /* Closed by a barrier, as every algorithm is closed by its own completion: with more
           ranks than cores a rank's clock would otherwise miss the time it sat descheduled
           while the others copied. */
        MPI_Barrier(comm);
        double mine = (MPI_Wtime() - t0) / n2;
        MPI_Allreduce(&mine, &T[i], 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    double mn = T[0], mx = T[0], sum = 0;
    for (int i = 0; i < n1; i++) {
        mn = T[i] < mn ? T[i] : mn;
        mx = T[i] > mx ? T[i] : mx;
        sum += T[i];
    }
    /* Median by insertion sort (n1 is small). */
    for (int i = 1; i < n1; i++)
        for (int j = i; j > 0 && T[j - 1] > T[j]; j--) {
            double x = T[j];
            T[j] = T[j - 1];
            T[j - 1] = x;
        }
    tm->tmin = mn;
    tm->tmax = mx;
    tm->tavg = sum / n1;
    tm->tmed = n1 % 2 ? T[n1 / 2] : 0.5 * (T[n1 / 2 - 1] + T[n1 / 2]);
    free(tmp);
    free(T);
    return tm->tmed;
}

/* Part 2: every algorithm on a 2-D case, timed and verified. */
static int demo_timed(MPI_Comm comm, int rank, int size)
{
    int r = (int)sqrt((double)size);
    while (r > 1 && size % r)
        r--;
    int c = size / r;
    char text[2][160];
    snprintf(text[0], sizeof text[0], "n=%dx%d,block=%dx%d,grid=%dx%d,order=col", DEMO_N, DEMO_N,
             DEMO_BLOCK_FROM, DEMO_BLOCK_FROM, r, c);
    snprintf(text[1], sizeof text[1], "n=%dx%d,block=%dx%d,grid=%dx%d,order=col", DEMO_N, DEMO_N,
             DEMO_BLOCK_TO, DEMO_BLOCK_TO, c, r);
    tool_spec from, to;
    memset(&to, 0, sizeof to);
    if (parse_or_die(text[0], &from))
        return TOOL_FAILED;
    if (parse_or_die(text[1], &to)) {
        spec_free(&from);
        return TOOL_FAILED;
    }
    double bytes = (double)DEMO_N * DEMO_N * sizeof(double);
    int status = TOOL_OK, count = redist_algorithm_count();
    redist_layout sl = NULL, dl = NULL;
    void *src = NULL, *dst = NULL;
    int64_t ndst = 0;
    demo_row *rows = calloc((size_t)count, sizeof *rows);
    int rc = rows ? spec_layout(&from, &sl) : REDIST_ERR_NOMEM;
    if (rc == REDIST_SUCCESS)
        rc = spec_layout(&to, &dl);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
    if (rc == REDIST_SUCCESS &&
        make_arrays(&from, &to, rank, comm, sizeof(double), &src, &dst, &ndst) != 0)
        rc = REDIST_ERR_NOMEM;
    if (rc != REDIST_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "redist: demo: %s\n", redist_strerror(rc));
        status = TOOL_FAILED;
        goto done;
    }
    if (rank == 0) {
        char b[32];
        printf("\n2. %dx%d doubles (%s), column-major: %dx%d blocks on a %dx%d grid -> %dx%d "
               "blocks on %dx%d\n",
               DEMO_N, DEMO_N, tool_fmt_bytes(b, sizeof b, bytes), DEMO_BLOCK_FROM, DEMO_BLOCK_FROM,
               r, c, DEMO_BLOCK_TO, DEMO_BLOCK_TO, c, r);
        printf("   Times per execute: per trial the slowest rank's average, over n1 trials "
               "(paper 000, Fig. 13).\n");
        printf("   %-20s %9s %9s %9s %9s %7s %6s %6s %8s\n", "algorithm", "Tmin", "Tmed", "Tavg",
               "Tmax", "GB/s", "steps", "msgs", "T/a2aw");
        fflush(stdout);
    }

    /* alltoallw first: it is the reference of the last column. */
    int *order = malloc((size_t)count * sizeof *order), n = 0;
    if (!order) {
        status = TOOL_FAILED;
        goto done;
    }
    for (int i = 0; i < count; i++)
        if (!strcmp(redist_algorithm_name(i), "alltoallw"))
            order[n++] = i;
    for (int i = 0; i < count; i++)
        if (strcmp(redist_algorithm_name(i), "alltoallw"))
            order[n++] = i;
    double ref = 0;
    int64_t checked = 0;
    tool_timing floor_tm = {5, 2, 0, 0, 0, 0};
    for (int o = 0; o < count; o++) {
        demo_row *row = &rows[order[o]];
        row->name = redist_algorithm_name(order[o]);
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = row->name;
        redist_plan plan = NULL;
        rc = redist_plan_create(sl, dl, MPI_DOUBLE, comm, &opt, &plan);
        row->applicable = rc != REDIST_ERR_NOT_APPLICABLE;
        if (rc == REDIST_SUCCESS) {
            const char *chosen = redist_plan_algorithm(plan);
            if (!strcmp(row->name, "auto") && chosen)
                snprintf(row->chosen, sizeof row->chosen, "%s", chosen);
            memset(dst, 0xA5, (size_t)(ndst ? ndst : 1) * sizeof(double));
            double t0 = MPI_Wtime();
            rc = redist_execute(plan, src, dst);
            double warm = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &warm, 1, MPI_DOUBLE, MPI_MAX, comm);
            if (rc == REDIST_SUCCESS) {
                row->wrong = count_wrong(&to, rank, dst, comm);
                checked += DEMO_N * (int64_t)DEMO_N;
                /* Keep the tour short: fewer runs for slow algorithms. */
                int n1 = warm > 0.1 ? 3 : 5, n2 = warm > 0.02 ? 1 : 2;
                rc = tool_time_plan(plan, src, dst, comm, n1, n2, 0, &row->tm);
                redist_plan_stats(plan, &row->st);
                MPI_Allreduce(MPI_IN_PLACE, &row->st.steps, 1, MPI_INT, MPI_MAX, comm);
                MPI_Allreduce(&row->st.messages_sent, &row->max_msgs, 1, MPI_INT64_T, MPI_MAX,
                              comm);
            }
        }
        if (row->applicable && rc != REDIST_SUCCESS) {
            row->failed = 1;
            status = TOOL_FAILED;
            if (rank == 0)
                fprintf(stderr, "redist: demo: %s: %s\n", row->name, redist_strerror(rc));
        }
        if (row->wrong)
            status = TOOL_FAILED;
        if (!strcmp(row->name, "alltoallw") && !row->failed && row->applicable)
            ref = row->tm.tmed;
        if (rank == 0) {
            print_row(row, ref, bytes);
            fflush(stdout);
        }
        if (plan)
            redist_plan_free(&plan);
    }
    free(order);
    if (memcpy_floor(src, spec_local_count(&from, rank) * (int64_t)sizeof(double), comm,
                     &floor_tm) >= 0 &&
        rank == 0) {
        demo_row row;
        memset(&row, 0, sizeof row);
        row.name = "(memcpy floor)";
        row.applicable = 1;
        row.tm = floor_tm;
        char t[4][32];
        printf("   %-20s %9s %9s %9s %9s %7.2f %6s %6s", row.name,
               tool_fmt_seconds(t[0], sizeof t[0], row.tm.tmin),
               tool_fmt_seconds(t[1], sizeof t[1], row.tm.tmed),
               tool_fmt_seconds(t[2], sizeof t[2], row.tm.tavg),
               tool_fmt_seconds(t[3], sizeof t[3], row.tm.tmax),
               row.tm.tmed > 0 ? bytes / row.tm.tmed / 1e9 : 0.0, "-", "-");
        if (ref > 0)
            printf(" %8.2f", row.tm.tmed / ref);
        printf("   (each rank copies its own part once)\n");
    }
    status = agree(status, comm);
    if (rank == 0) {
        if (status == TOOL_OK)
            printf("\nverified: all elements correct (%lld elements checked)\n",
                   (long long)checked);
        else
            printf("\nverification or an algorithm FAILED (see above)\n");
    }

done:
    if (sl)
        redist_layout_free(&sl);
    if (dl)
        redist_layout_free(&dl);
    free(src);
    free(dst);
    free(rows);
    spec_free(&from);
    spec_free(&to);
    return agree(status, comm);
}

int tool_demo(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (argc > 0) {
        if (rank == 0)
            fprintf(stderr, "redist: demo: unexpected argument '%s' (see redist demo --help)\n",
                    argv[0]);
        return TOOL_USAGE;
    }
    if (rank == 0) {
        printf("redist %d.%d.%d demo on %d MPI process%s\n\n", REDIST_VERSION_MAJOR,
               REDIST_VERSION_MINOR, REDIST_VERSION_PATCH, size, size == 1 ? "" : "es");
        fflush(stdout);
    }
    int s1 = demo_paper(comm, rank, size);
    int s2 = demo_timed(comm, rank, size);
    return s1 > s2 ? s1 : s2;
}
