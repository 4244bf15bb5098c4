/* redist run: one redistribution with real data, timed the papers' way and verified.
 * Also the data fill/check and the timing loop shared with demo.c. */
#define _POSIX_C_SOURCE 200809L

#include "tool.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char tool_run_help[] =
    "usage: mpirun -n P redist run --from SPEC --to SPEC [options]\n"
    "\n"
    "Redistributes an array with real data: every source element holds a value computed\n"
    "from its global index, the plan runs n1 x n2 times and the destination can be checked\n"
    "element by element.\n"
    "\n"
    "options:\n"
    "  --from SPEC        source layout (e.g. n=4000x4000,block=64x64,grid=2x2,order=col);\n"
    "                     without procs/grid/ranks it spans all MPI processes\n"
    "  --to SPEC          destination layout\n"
    "  --type T           char, int, double (default) or double3 (3 doubles, 24 bytes)\n"
    "  --algorithm A      auto (default) or a name from `redist explain` / the docs\n"
    "  --repeat n1xn2     n1 trials of n2 consecutive executes each (paper 000, Fig. 13);\n"
    "  --repeat R         R trials of 1 execute; default: chosen from a warm-up run\n"
    "  --verify           check every destination element; exit 1 if any is wrong\n"
    "  --quiet            print one key=value line instead of the report\n"
    "\n"
    "Timing: per trial, a barrier, then n2 executes timed on each rank; the trial's time is\n"
    "the slowest rank's average. Tmin/Tmed/Tavg/Tmax are over the n1 trials; GB/s is the\n"
    "array's total bytes / Tmed. A progress line goes to stderr when the run takes > 2 s.\n";

/* ---- Data -------------------------------------------------------------------------------
   Element with global row-major index g holds:
     char    the top byte of g * 0x9E3779B97F4A7C15 (neighbours differ)
     int     g mod 2^31
     double  g
     double3 (g, g + 0.25, -g)                                                              */

static unsigned char char_value(int64_t g)
{
    return (unsigned char)(((uint64_t)g * 0x9E3779B97F4A7C15ull) >> 56);
}

/* Calls fn for each run of consecutive local elements along the fastest local dimension
   that lies in one block: local offsets offset .. offset+count-1 hold global row-major
   indices g0, g0 + gstride, ... */
typedef void (*run_fn)(void *ctx, int64_t offset, int64_t g0, int64_t gstride, int64_t count);

static void walk_runs(const tool_spec *spec, int rank, run_fn fn, void *ctx)
{
    int d = spec->ndims, coords[SPEC_MAX_DIMS];
    int64_t local[SPEC_MAX_DIMS], gstride[SPEC_MAX_DIMS], idx[SPEC_MAX_DIMS] = {0};
    if (!spec_coords_of_rank(spec, rank, coords))
        return;
    spec_local_extents(spec, coords, local);
    for (int k = 0; k < d; k++)
        if (local[k] == 0)
            return;
    gstride[d - 1] = 1;
    for (int k = d - 2; k >= 0; k--)
        gstride[k] = gstride[k + 1] * spec->extent[k + 1];
    /* The local storage order from slowest to fastest dimension. */
    int dims[SPEC_MAX_DIMS];
    for (int k = 0; k < d; k++)
        dims[k] = spec->order == REDIST_COL_MAJOR ? d - 1 - k : k;
    int fast = dims[d - 1];
    int64_t b = spec->block[fast], n = local[fast], offset = 0;
    for (;;) {
        int64_t base = 0;
        for (int s = 0; s < d - 1; s++) {
            int k = dims[s];
            base += spec_global_index_of(spec, k, coords[k], idx[k]) * gstride[k];
        }
        for (int64_t l = 0; l < n;) {
            int64_t count = b - l % b;
            if (count > n - l)
                count = n - l;
            int64_t g = spec_global_index_of(spec, fast, coords[fast], l);
            fn(ctx, offset + l, base + g * gstride[fast], gstride[fast], count);
            l += count;
        }
        offset += n;
        int s = d - 2;
        for (; s >= 0; s--) {
            int k = dims[s];
            if (++idx[k] < local[k])
                break;
            idx[k] = 0;
        }
        if (s < 0)
            break;
    }
}

typedef struct data_ctx {
    tool_type type;
    void *buf;
    int64_t wrong, first_bad;
} data_ctx;

static void fill_run(void *vctx, int64_t offset, int64_t g, int64_t gs, int64_t count)
{
    data_ctx *ctx = vctx;
    switch (ctx->type) {
    case TOOL_CHAR: {
        unsigned char *p = (unsigned char *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = char_value(g);
        break;
    }
    case TOOL_INT: {
        int32_t *p = (int32_t *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = (int32_t)(g & 0x7fffffff);
        break;
    }
    case TOOL_DOUBLE: {
        double *p = (double *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = (double)g;
        break;
    }
    default: {
        double *p = (double *)ctx->buf + 3 * offset;
        for (int64_t i = 0; i < count; i++, g += gs) {
            p[3 * i] = (double)g;
            p[3 * i + 1] = (double)g + 0.25;
            p[3 * i + 2] = -(double)g;
        }
        break;
    }
    }
}

static void verify_run(void *vctx, int64_t offset, int64_t g, int64_t gs, int64_t count)
{
    data_ctx *ctx = vctx;
    int64_t wrong = 0, first = -1;
    for (int64_t i = 0; i < count; i++, g += gs) {
        int bad;
        switch (ctx->type) {
        case TOOL_CHAR:
            bad = ((const unsigned char *)ctx->buf)[offset + i] != char_value(g);
            break;
        case TOOL_INT:
            bad = ((const int32_t *)ctx->buf)[offset + i] != (int32_t)(g & 0x7fffffff);
            break;
        case TOOL_DOUBLE:
            bad = ((const double *)ctx->buf)[offset + i] != (double)g;
            break;
        default: {
            const double *p = (const double *)ctx->buf + 3 * (offset + i);
            bad = p[0] != (double)g || p[1] != (double)g + 0.25 || p[2] != -(double)g;
            break;
        }
        }
        if (bad) {
            if (!wrong)
                first = g;
            wrong++;
        }
    }
    /* Runs are visited in local order, not global order: keep the smallest. */
    if (wrong && first < ctx->first_bad)
        ctx->first_bad = first;
    ctx->wrong += wrong;
}

void tool_fill(const tool_spec *spec, int rank, tool_type type, void *local)
{
    data_ctx ctx = {type, local, 0, INT64_MAX};
    walk_runs(spec, rank, fill_run, &ctx);
}

int64_t tool_verify(const tool_spec *spec, int rank, tool_type type, const void *local,
                    int64_t *first_bad)
{
    data_ctx ctx = {type, (void *)local, 0, INT64_MAX};
    walk_runs(spec, rank, verify_run, &ctx);
    *first_bad = ctx.first_bad;
    return ctx.wrong;
}

/* ---- Timing ------------------------------------------------------------------------------ */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int tool_time_plan(redist_plan plan, const void *src, void *dst, MPI_Comm comm, int n1, int n2,
                   int progress, tool_timing *out)
{
    int rank, rc = REDIST_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    double *T = malloc((size_t)n1 * sizeof *T);
    int ok = T != NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(T);
        return REDIST_ERR_NOMEM;
    }
    int tty = progress && rank == 0 && isatty(STDERR_FILENO);
    int every = n1 >= 10 ? n1 / 10 : 1;
    int done = 0;
    for (int i = 0; i < n1; i++) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int j = 0; j < n2 && rc == REDIST_SUCCESS; j++)
            rc = redist_execute(plan, src, dst);
        /* The slowest rank's average, and the worst error code, in one reduction. */
        double mine[2] = {(MPI_Wtime() - t0) / n2, (double)-rc}, worst[2];
        MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, comm);
        if (worst[1] > 0) {
            rc = -(int)worst[1];
            break;
        }
        T[done++] = worst[0];
        if (progress && rank == 0) {
            if (tty)
                fprintf(stderr, "\rredist: trial %d/%d", i + 1, n1);
            else if ((i + 1) % every == 0 || i + 1 == n1)
                fprintf(stderr, "redist: trial %d/%d\n", i + 1, n1);
            fflush(stderr);
        }
    }
    if (tty)
        fprintf(stderr, "\r%40s\r", "");
    memset(out, 0, sizeof *out);
    out->n1 = n1;
    out->n2 = n2;
    if (rc == REDIST_SUCCESS && done > 0) {
        double sum = 0;
        for (int i = 0; i < done; i++)
            sum += T[i];
        qsort(T, (size_t)done, sizeof *T, compare_double);
        out->tmin = T[0];
        out->tmax = T[done - 1];
        out->tavg = sum / done;
        out->tmed = done % 2 ? T[done / 2] : 0.5 * (T[done / 2 - 1] + T[done / 2]);
    }
    free(T);
    return rc;
}

/* ---- redist run ------------------------------------------------------------------------- */

typedef struct run_args {
    tool_pair_opts pair; /* --from, --to, --algorithm, --type */
    int n1, n2;          /* 0: chosen from the warm-up */
    int verify, quiet;
} run_args;

static int rank0_error(int rank, int status, const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("redist: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return status;
}

static int parse_repeat(const char *text, int *n1, int *n2)
{
    char buf[64];
    int64_t a, b = 1;
    if (strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    char *x = strchr(buf, 'x');
    if (x) {
        *x = '\0';
        if (spec_parse_count(x + 1, &b) != 0)
            return -1;
    }
    if (spec_parse_count(buf, &a) != 0 || a < 1 || b < 1 || a > 1000000 || b > 1000000)
        return -1;
    *n1 = (int)a;
    *n2 = (int)b;
    return 0;
}

static int parse_run_args(int argc, char **argv, int rank, run_args *a)
{
    memset(a, 0, sizeof *a);
    tool_pair_init(&a->pair);
    char msg[768];
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        int m = tool_pair_option(argc, argv, &i, &a->pair, msg, sizeof msg);
        if (msg[0])
            return rank0_error(rank, TOOL_USAGE, "%s", msg);
        if (m != 0)
            ; /* a shared option */
        else if ((m = tool_opt_value(argc, argv, &i, "--repeat", &v)) != 0) {
            if (m > 0 && parse_repeat(v, &a->n1, &a->n2) != 0)
                return rank0_error(rank, TOOL_USAGE,
                                   "--repeat: expected n1xn2 or R (positive integers), got '%s'",
                                   v);
        } else if (!strcmp(argv[i], "--verify"))
            a->verify = 1;
        else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
            a->quiet = 1;
        else
            return rank0_error(rank, TOOL_USAGE,
                               "run: unexpected argument '%s' (see redist run --help)", argv[i]);
        if (m < 0)
            return rank0_error(rank, TOOL_USAGE, "%s needs a value", argv[i]);
    }
    if (tool_pair_check(&a->pair, "run", msg, sizeof msg) != 0)
        return rank0_error(rank, TOOL_USAGE, "%s", msg);
    return TOOL_OK;
}

/* Parses both specs; the same verdict on every rank. */
static int parse_specs(const run_args *a, int rank, int size, tool_spec *from, tool_spec *to)
{
    char err[256];
    const char *name[2] = {"--from", "--to"};
    const char *text[2] = {a->pair.from, a->pair.to};
    tool_spec *spec[2] = {from, to};
    for (int s = 0; s < 2; s++) {
        if (spec_parse(text[s], size, spec[s], err, sizeof err) != 0)
            return rank0_error(rank, TOOL_USAGE, "%s: %s", name[s], err);
        if (spec[s]->max_rank >= size)
            return rank0_error(rank, TOOL_USAGE,
                               "%s: uses rank %d but only %d MPI process%s running "
                               "(start more with mpirun -n, or give ranks=)",
                               name[s], spec[s]->max_rank, size, size == 1 ? " is" : "es are");
    }
    if (tool_specs_check(from, to, a->pair.type, err, sizeof err) != 0)
        return rank0_error(rank, TOOL_USAGE, "%s", err);
    return TOOL_OK;
}

MPI_Datatype tool_mpi_type(tool_type type)
{
    MPI_Datatype t;
    switch (type) {
    case TOOL_CHAR:
        return MPI_CHAR;
    case TOOL_INT:
        return MPI_INT32_T;
    case TOOL_DOUBLE:
        return MPI_DOUBLE;
    default:
        MPI_Type_contiguous(3, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        return t;
    }
}

/* Agrees on a status: the worst (largest) one wins on every rank. */
static int agree_status(int status, MPI_Comm comm)
{
    int worst;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

/* Agrees on a library code: the most negative wins on every rank. */
static int agree_code(int code, MPI_Comm comm)
{
    int worst;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MIN, comm);
    return worst;
}

/* Auto repeat: trials of >= 20 ms, about 5 s in all, 3 to 10 trials. */
static void choose_repeat(double warm, int *n1, int *n2)
{
    double w = warm > 1e-7 ? warm : 1e-7;
    double m2 = ceil(0.02 / w);
    *n2 = m2 > 100 ? 100 : m2 < 1 ? 1 : (int)m2;
    double m1 = 5.0 / (w * *n2);
    *n1 = m1 > 10 ? 10 : m1 < 3 ? 3 : (int)m1;
}

int tool_run(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    run_args a;
    tool_spec from, to;
    memset(&from, 0, sizeof from);
    memset(&to, 0, sizeof to);
    int status = parse_run_args(argc, argv, rank, &a);
    if (status == TOOL_OK)
        status = parse_specs(&a, rank, size, &from, &to);
    if (status != TOOL_OK) {
        spec_free(&from);
        spec_free(&to);
        return status;
    }

    size_t el = (size_t)tool_type_sizes[a.pair.type];
    MPI_Datatype type = tool_mpi_type(a.pair.type);
    redist_layout src_layout = NULL, dst_layout = NULL;
    redist_plan plan = NULL;
    void *src = NULL, *dst = NULL;
    char b1[64], b2[64], b3[64], b4[64], why[768];

    int rc = spec_layout(&from, &src_layout);
    if (rc == REDIST_SUCCESS)
        rc = spec_layout(&to, &dst_layout);
    rc = agree_code(rc, comm);
    if (rc != REDIST_SUCCESS) {
        status =
            rank0_error(rank, TOOL_FAILED, "%s", tool_lib_error(why, sizeof why, "layout", rc));
        goto done;
    }

    /* The library's local sizes must match the layout formulas the data is checked with. */
    int64_t nsrc = spec_local_count(&from, rank), ndst = spec_local_count(&to, rank);
    int64_t lib_src = -1, lib_dst = -1;
    redist_layout_local_size(src_layout, rank, &lib_src);
    redist_layout_local_size(dst_layout, rank, &lib_dst);
    if (agree_status(lib_src != nsrc || lib_dst != ndst, comm)) {
        status = rank0_error(rank, TOOL_FAILED,
                             "the library's local sizes disagree with the layout formulas "
                             "(rank %d: %lld/%lld source, %lld/%lld destination elements)",
                             rank, (long long)lib_src, (long long)nsrc, (long long)lib_dst,
                             (long long)ndst);
        goto done;
    }
    src = nsrc ? malloc((size_t)nsrc * el) : NULL;
    dst = malloc((size_t)(ndst ? ndst : 1) * el);
    if (agree_status((nsrc && !src) || !dst, comm)) {
        status = rank0_error(rank, TOOL_FAILED, "out of memory for the local arrays");
        goto done;
    }
    if (src)
        tool_fill(&from, rank, a.pair.type, src);
    memset(dst, 0xA5, (size_t)(ndst ? ndst : 1) * el); /* unwritten elements show up */

    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = a.pair.algorithm;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    rc = redist_plan_create(src_layout, dst_layout, type, comm, &opt, &plan);
    double mine = MPI_Wtime() - t0, plan_seconds;
    MPI_Allreduce(&mine, &plan_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    rc = agree_code(rc, comm);
    if (rc != REDIST_SUCCESS) {
        status = rank0_error(rank, TOOL_FAILED, "plan (%s)%s", a.pair.algorithm,
                             tool_lib_error(why, sizeof why, "", rc));
        goto done;
    }

    redist_stats st;
    memset(&st, 0, sizeof st);
    redist_plan_stats(plan, &st);
    int64_t sums[3] = {st.messages_sent, st.bytes_sent, st.bytes_copied}, tot[3];
    int64_t maxes[2] = {st.messages_sent, st.bytes_sent}, mx[2];
    MPI_Allreduce(sums, tot, 3, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(maxes, mx, 2, MPI_INT64_T, MPI_MAX, comm);
    double predicted;
    MPI_Allreduce(&st.predicted_seconds, &predicted, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &st.steps, 1, MPI_INT, MPI_MAX, comm);

    /* Warm-up: the first execute, timed; it also decides the automatic repeat count. */
    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    rc = redist_execute(plan, src, dst);
    double warm_mine[2] = {MPI_Wtime() - t0, (double)-rc}, warm[2];
    MPI_Allreduce(warm_mine, warm, 2, MPI_DOUBLE, MPI_MAX, comm);
    if (warm[1] > 0) {
        rc = -(int)warm[1];
        status =
            rank0_error(rank, TOOL_FAILED, "%s", tool_lib_error(why, sizeof why, "execute", rc));
        goto done;
    }
    /* The first execute pays for first touches; a second one, if cheap, is the better guess
       of the steady state. */
    if (warm[0] < 1.0) {
        MPI_Barrier(comm);
        t0 = MPI_Wtime();
        rc = redist_execute(plan, src, dst);
        double again_mine[2] = {MPI_Wtime() - t0, (double)-rc};
        MPI_Allreduce(again_mine, warm, 2, MPI_DOUBLE, MPI_MAX, comm);
        if (warm[1] > 0) {
            rc = -(int)warm[1];
            status = rank0_error(rank, TOOL_FAILED, "%s",
                                 tool_lib_error(why, sizeof why, "execute", rc));
            goto done;
        }
    }
    int n1 = a.n1, n2 = a.n2;
    if (n1 == 0)
        choose_repeat(warm[0], &n1, &n2);

    int64_t elements = spec_elements(&from);
    double array_bytes = (double)elements * (double)el;
    const char *chosen = redist_plan_algorithm(plan);
    if (rank == 0 && !a.quiet) {
        char text[512];
        printf("redist run: %d MPI process%s, ", size, size == 1 ? "" : "es");
        for (int k = 0; k < from.ndims; k++)
            printf("%s%lld", k ? "x" : "", (long long)from.extent[k]);
        printf(" %s (%s)\n", tool_type_names[a.pair.type],
               tool_fmt_bytes(b1, sizeof b1, array_bytes));
        spec_format(&from, text, sizeof text);
        printf("  from       %s\n", text);
        spec_format(&to, text, sizeof text);
        printf("  to         %s\n", text);
        const char *how =
            st.transport == REDIST_TRANSPORT_DATATYPE ? "derived datatypes" : "packed runs";
        if (strcmp(a.pair.algorithm, "auto") == 0)
            printf("  algorithm  %s (chosen by auto), messages as %s\n", chosen ? chosen : "?",
                   how);
        else
            printf("  algorithm  %s, messages as %s\n", chosen ? chosen : a.pair.algorithm, how);
        printf("  plan       created in %s (slowest rank); %d step%s, at most %lld message%s "
               "and %s sent per rank\n",
               tool_fmt_seconds(b1, sizeof b1, plan_seconds), st.steps, st.steps == 1 ? "" : "s",
               (long long)mx[0], mx[0] == 1 ? "" : "s",
               tool_fmt_bytes(b2, sizeof b2, (double)mx[1]));
        printf("             %lld messages and %s sent in all, %s copied locally; predicted %s\n",
               (long long)tot[0], tool_fmt_bytes(b3, sizeof b3, (double)tot[1]),
               tool_fmt_bytes(b4, sizeof b4, (double)tot[2]),
               tool_fmt_seconds(b1, sizeof b1, predicted));
        printf("  timing     %d trial%s x %d execute%s%s after a warm-up execute of %s;\n"
               "             per trial the slowest rank's average (paper 000, Fig. 13)\n",
               n1, n1 == 1 ? "" : "s", n2, n2 == 1 ? "" : "s", a.n1 ? "" : " (auto)",
               tool_fmt_seconds(b2, sizeof b2, warm[0]));
        fflush(stdout);
    }

    tool_timing tm;
    int progress = !a.quiet && warm[0] * n1 * n2 > 2.0;
    rc = tool_time_plan(plan, src, dst, comm, n1, n2, progress, &tm);
    if (rc != REDIST_SUCCESS) {
        status =
            rank0_error(rank, TOOL_FAILED, "%s", tool_lib_error(why, sizeof why, "execute", rc));
        goto done;
    }
    double gbps = tm.tmed > 0 ? array_bytes / tm.tmed / 1e9 : 0;

    int64_t wrong = 0, first_bad = INT64_MAX;
    if (a.verify) {
        int64_t my_first, my_wrong = tool_verify(&to, rank, a.pair.type, dst, &my_first);
        MPI_Allreduce(&my_wrong, &wrong, 1, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(&my_first, &first_bad, 1, MPI_INT64_T, MPI_MIN, comm);
        if (wrong)
            status = TOOL_FAILED;
    }

    if (rank == 0 && a.quiet) {
        printf("algorithm=%s n1=%d n2=%d plan_seconds=%.6e tmin=%.6e tmed=%.6e tavg=%.6e "
               "tmax=%.6e gbps=%.4f steps=%d max_messages_per_rank=%lld "
               "max_bytes_per_rank=%lld predicted_seconds=%.6e",
               chosen ? chosen : a.pair.algorithm, n1, n2, plan_seconds, tm.tmin, tm.tmed, tm.tavg,
               tm.tmax, gbps, st.steps, (long long)mx[0], (long long)mx[1], predicted);
        if (a.verify)
            printf(" wrong=%lld", (long long)wrong);
        printf("\n");
    } else if (rank == 0) {
        printf("  Tmin %s   Tmed %s   Tavg %s   Tmax %s   %.3g GB/s (at Tmed)\n",
               tool_fmt_seconds(b1, sizeof b1, tm.tmin), tool_fmt_seconds(b2, sizeof b2, tm.tmed),
               tool_fmt_seconds(b3, sizeof b3, tm.tavg), tool_fmt_seconds(b4, sizeof b4, tm.tmax),
               gbps);
        if (a.verify && !wrong)
            printf("  verified   all %lld elements correct\n", (long long)elements);
    }
    if (rank == 0 && wrong) {
        int64_t idx[SPEC_MAX_DIMS], rest = first_bad;
        for (int k = to.ndims - 1; k >= 0; k--) {
            int64_t e = to.extent[k] ? to.extent[k] : 1;
            idx[k] = rest % e;
            rest /= e;
        }
        fprintf(stderr, "redist: verify: %lld of %lld elements wrong; the first at global index (",
                (long long)wrong, (long long)elements);
        for (int k = 0; k < to.ndims; k++)
            fprintf(stderr, "%s%lld", k ? "," : "", (long long)idx[k]);
        fprintf(stderr, ")\n");
    }

done:
    if (plan)
        redist_plan_free(&plan);
    if (src_layout)
        redist_layout_free(&src_layout);
    if (dst_layout)
        redist_layout_free(&dst_layout);
    if (a.pair.type == TOOL_DOUBLE3)
        MPI_Type_free(&type);
    free(src);
    free(dst);
    spec_free(&from);
    spec_free(&to);
    return status;
}
