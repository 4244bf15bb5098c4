/* redist: the command-line tool (docs/tool.md).
 *
 *   redist [demo]                      a short tour, under mpirun
 *   redist run --from SPEC --to SPEC   one redistribution with real data, timed, verified
 *   redist explain --from SPEC ...     the plan without running it (no MPI launch)
 *
 * This file holds main, the help texts and small helpers shared by the sub-commands
 * (demo.c, run.c, explain.c). demo and run call MPI_Init/MPI_Finalize here; explain, help
 * and version never touch MPI.
 */
#define _POSIX_C_SOURCE 200809L

#include "tool.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL_STR2(x) #x
#define TOOL_STR(x) TOOL_STR2(x)
#define TOOL_VERSION                                                                               \
    TOOL_STR(REDIST_VERSION_MAJOR)                                                                 \
    "." TOOL_STR(REDIST_VERSION_MINOR) "." TOOL_STR(REDIST_VERSION_PATCH)

static const char main_help[] =
    "redist " TOOL_VERSION " - runtime redistribution of block-cyclic distributed arrays\n"
    "\n"
    "usage: mpirun -n P redist [demo]\n"
    "       mpirun -n P redist run --from SPEC --to SPEC [options]\n"
    "       redist explain --from SPEC --to SPEC [--procs P] [options]\n"
    "       redist help [COMMAND] | redist --version\n"
    "\n"
    "commands:\n"
    "  demo       a short tour (the default): the paper's tables S, R, P for cyclic(2) ->\n"
    "             cyclic(6), then every algorithm run, timed and verified on a 2-D case\n"
    "  run        one redistribution with real data, timed the papers' way (n1 x n2 runs,\n"
    "             Tmin/Tmed/Tavg/Tmax, GB/s) and optionally verified element by element\n"
    "  explain    the plan without running it: algorithm, steps, messages, bytes and predicted\n"
    "             time per algorithm (--json for machines, --tables for the paper's tables);\n"
    "             needs no MPI launch, --procs P stands for the communicator size\n"
    "  simulate   [LBP96]'s GDM model for cyclic(x) -> cyclic(Kx): predicted times of the\n"
    "             schedules for large P, K and N, and the direct/indirect crossover; no MPI\n"
    "  bench      how well auto chooses: a grid of cases through every algorithm and auto,\n"
    "             auto's regret, predicted against measured time, CSV and plots (under mpirun)\n"
    "  calibrate  measures the cost model's parameters on this machine (under mpirun) and\n"
    "             writes the machine file plans read\n"
    "\n"
    "SPEC: one layout as comma-separated key=value pairs, for example\n"
    "  n=1000000,block=4,procs=8\n"
    "  n=4000x4000,block=64x64,grid=2x2,order=col\n"
    "keys: n (extents, AxB...), block (one value or one per dimension), procs (P processes:\n"
    "grid P x 1 x ...), grid (AxB...), first (coordinates of the first block's owner),\n"
    "ranks (4-7, 3:1:2:0, 0-3:8-11), order (row or col). Numbers take k/M/G suffixes (10^3,\n"
    "10^6, 10^9) or powers (2^22). See docs/tool.md.\n"
    "\n"
    "exit status: 0 success, 1 failure (library error, wrong elements), 2 bad command line\n"
    "or SPEC, 3 not implemented yet.\n";

const char *const tool_type_names[TOOL_NTYPES] = {"char", "int", "double", "double3"};
const int tool_type_sizes[TOOL_NTYPES] = {1, 4, 8, 24};

int tool_type_parse(const char *name, tool_type *type)
{
    for (int t = 0; t < TOOL_NTYPES; t++) {
        if (strcmp(name, tool_type_names[t]) == 0) {
            *type = (tool_type)t;
            return 0;
        }
    }
    return -1;
}

int tool_opt_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[++*i];
    return 1;
}

void tool_pair_init(tool_pair_opts *o)
{
    memset(o, 0, sizeof *o);
    o->type = TOOL_DOUBLE;
    o->algorithm = "auto";
}

/* "2,0,1": each of 0 .. d-1 once, d <= SPEC_MAX_DIMS. */
static int parse_permutation(const char *v, tool_pair_opts *o)
{
    int seen[SPEC_MAX_DIMS] = {0}, n = 0;
    for (const char *p = v;; p++) {
        char *end = NULL;
        long x = strtol(p, &end, 10);
        if (end == p || n == SPEC_MAX_DIMS || x < 0 || x >= SPEC_MAX_DIMS)
            return -1;
        o->permute[n++] = (int)x;
        p = end;
        if (*p != ',')
            break;
    }
    if (v[strlen(v) - 1] == ',' || strspn(v, "0123456789,") != strlen(v))
        return -1;
    for (int j = 0; j < n; j++)
        if (o->permute[j] >= n || seen[o->permute[j]]++)
            return -1;
    o->npermute = n;
    o->permuted = 1;
    return 0;
}

int tool_pair_option(int argc, char **argv, int *i, tool_pair_opts *o, char *msg, size_t len)
{
    const char *v = NULL;
    char shown[SPEC_EXCERPT];
    int m;
    msg[0] = '\0';
    if (!strcmp(argv[*i], "--relabel"))
        return o->relabel = 1;
    if ((m = tool_opt_value(argc, argv, i, "--from", &v)) > 0)
        o->from = v;
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--to", &v)) > 0)
        o->to = v;
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--algorithm", &v)) > 0)
        o->algorithm = v;
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--type", &v)) > 0 &&
             tool_type_parse(v, &o->type) != 0)
        snprintf(msg, len, "--type: expected char, int, double or double3, got '%s'",
                 spec_excerpt(shown, v, strlen(v)));
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--max-buffer", &v)) > 0 &&
             (spec_parse_count(v, &o->max_buffer) != 0 || o->max_buffer < 0))
        snprintf(msg, len, "--max-buffer: expected a number of bytes (e.g. 1M, 2^20), got '%s'",
                 spec_excerpt(shown, v, strlen(v)));
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--permute", &v)) > 0 &&
             parse_permutation(v, o) != 0)
        snprintf(msg, len,
                 "--permute: expected a permutation of 0 .. d-1 separated by commas (e.g. 1,0 "
                 "or 2,0,1), got '%s'",
                 spec_excerpt(shown, v, strlen(v)));
    return m;
}

int tool_pair_check(const tool_pair_opts *o, const char *cmd, char *msg, size_t len)
{
    if (!o->from || !o->to) {
        snprintf(msg, len, "%s: %s is required (see redist %s --help)", cmd,
                 o->from ? "--to" : "--from", cmd);
        return -1;
    }
    if (tool_check_algorithm(o->algorithm) != 0) {
        char list[512];
        tool_algorithm_list(list, sizeof list);
        char shown[SPEC_EXCERPT];
        snprintf(msg, len, "--algorithm: unknown algorithm '%s' (known: %s)",
                 spec_excerpt(shown, o->algorithm, strlen(o->algorithm)), list);
        return -1;
    }
    return 0;
}

const char *tool_lib_error(char *buf, size_t len, const char *what, int rc)
{
    const char *detail = redist_last_error_detail();
    if (detail != NULL && detail[0] != '\0')
        snprintf(buf, len, "%s: %s (%s)", what, redist_strerror(rc), detail);
    else
        snprintf(buf, len, "%s: %s", what, redist_strerror(rc));
    return buf;
}

/* The name of the option arg gives: up to '=', with "-q" standing for "--quiet". */
static size_t option_name(const char *arg, const char **name)
{
    *name = strcmp(arg, "-q") == 0 ? "--quiet" : arg;
    return strcspn(*name, "=");
}

/* Whether the option at argv[start] names one of the options at argv[seen[0 .. n-1]]. */
static int given_before(char **argv, const int *seen, int n, int start)
{
    const char *name, *other;
    size_t len = option_name(argv[start], &name);
    for (int j = 0; j < n; j++)
        if (option_name(argv[seen[j]], &other) == len && strncmp(other, name, len) == 0)
            return 1;
    return 0;
}

int tool_each_option(int argc, char **argv, const char *cmd, tool_take_fn take, void *ctx,
                     int rank0)
{
    int *seen = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *seen), n = 0;
    if (seen == NULL)
        return tool_error(rank0, TOOL_FAILED, "%s: out of memory", cmd);
    int status = TOOL_OK;
    for (int i = 0; status == TOOL_OK && i < argc; i++) {
        int start = i;
        status = take(argc, argv, &i, ctx, rank0);
        if (status == TOOL_OK && given_before(argv, seen, n, start)) {
            const char *name;
            int len = (int)option_name(argv[start], &name);
            status = tool_error(rank0, TOOL_USAGE, "%s: %.*s given twice (see redist %s --help)",
                                cmd, len, name, cmd);
        }
        seen[n++] = start;
    }
    free(seen);
    return status;
}

/* What tool_parse_args's loop takes an argument with. */
typedef struct pair_parse {
    const char *cmd;
    tool_pair_opts *pair;
    tool_option_fn option;
    void *ctx;
} pair_parse;

/* One argument of run or explain at argv[*i]: a shared option, else the command's own (a
   tool_take_fn). */
static int take_pair_or_own(int argc, char **argv, int *i, void *vctx, int rank0)
{
    const pair_parse *p = vctx;
    char msg[256];
    int m = tool_pair_option(argc, argv, i, p->pair, msg, sizeof msg);
    if (msg[0])
        return tool_error(rank0, TOOL_USAGE, "%s", msg);
    if (m == 0)
        m = p->option(argc, argv, i, p->ctx, rank0);
    if (m == TOOL_OPT_REPORTED)
        return TOOL_USAGE;
    if (m == 0)
        return tool_error(rank0, TOOL_USAGE, "%s: unexpected argument '%s' (see redist %s --help)",
                          p->cmd, argv[*i], p->cmd);
    if (m < 0)
        return tool_error(rank0, TOOL_USAGE, "%s needs a value", argv[*i]);
    return TOOL_OK;
}

int tool_parse_args(int argc, char **argv, const char *cmd, tool_pair_opts *pair,
                    tool_option_fn option, void *ctx, int rank0)
{
    pair_parse p = {cmd, pair, option, ctx};
    tool_pair_init(pair);
    int status = tool_each_option(argc, argv, cmd, take_pair_or_own, &p, rank0);
    char msg[768];
    if (status == TOOL_OK && tool_pair_check(pair, cmd, msg, sizeof msg) != 0)
        status = tool_error(rank0, TOOL_USAGE, "%s", msg);
    return status;
}

/* Both specs parsed for a communicator of procs processes; with procs 0 (explain without
   --procs) a spec that names none spans the other's. TOOL_OK, or TOOL_USAGE reported. */
static int parse_pair(const tool_pair_opts *o, int procs, tool_spec *from, tool_spec *to, int rank0)
{
    char err[256], err2[256];
    int rf = spec_parse(o->from, procs, from, err, sizeof err);
    int rt = rf == -1 ? 0 : spec_parse(o->to, procs, to, err2, sizeof err2);
    if (rf == -2 && rt == 0) {
        spec_free(from);
        rf = spec_parse(o->from, to->max_rank + 1, from, err, sizeof err);
    } else if (rt == -2 && rf == 0) {
        spec_free(to);
        rt = spec_parse(o->to, from->max_rank + 1, to, err2, sizeof err2);
    }
    const char *missing = "missing procs, grid or ranks (or give --procs P)";
    if (rf != 0)
        return tool_error(rank0, TOOL_USAGE, "--from: %s", rf == -2 ? missing : err);
    if (rt != 0)
        return tool_error(rank0, TOOL_USAGE, "--to: %s", rt == -2 ? missing : err2);
    return TOOL_OK;
}

int tool_pair_specs(const tool_pair_opts *o, int procs, tool_spec *from, tool_spec *to, int rank0)
{
    char err[256];
    if (o->relabel && o->permuted)
        return tool_error(rank0, TOOL_USAGE,
                          "--relabel and --permute exclude each other (redist_relabel compares "
                          "layouts of one array)");
    int status = parse_pair(o, procs, from, to, rank0);
    for (int k = 0; status == TOOL_OK && procs > 0 && k < 2; k++) {
        const tool_spec *s = k == 0 ? from : to;
        if (s->max_rank >= procs)
            status = tool_error(
                rank0, TOOL_USAGE,
                "%s: uses rank %d but the communicator has %d process%s (run: start more with "
                "mpirun -n; explain: give --procs; or give ranks=)",
                k == 0 ? "--from" : "--to", s->max_rank, procs, procs == 1 ? "" : "es");
    }
    if (status == TOOL_OK && tool_specs_check(from, to, o, err, sizeof err) != 0)
        status = tool_error(rank0, TOOL_USAGE, "%s", err);
    return status;
}

int tool_plan_failed(int rank0, const char *algorithm, int rc)
{
    char why[768], what[96];
    snprintf(what, sizeof what, "plan (%s)", algorithm);
    return tool_error(rank0, TOOL_FAILED, "%s", tool_lib_error(why, sizeof why, what, rc));
}

void tool_print_spec(const char *prefix, const tool_spec *spec)
{
    char *text = spec_format(spec);
    printf("%s%s\n", prefix, text ? text : "(out of memory)");
    free(text);
}

int tool_error(int rank0, int status, const char *fmt, ...)
{
    if (rank0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("redist: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return status;
}

int tool_agree_status(int status, MPI_Comm comm)
{
    int worst;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

int tool_agree_code(int code, MPI_Comm comm)
{
    int worst;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MIN, comm);
    return worst;
}

int tool_layouts(const tool_spec *from, const tool_spec *to, redist_layout *src, redist_layout *dst)
{
    *src = *dst = NULL;
    int rc = spec_layout(from, src);
    if (rc == REDIST_SUCCESS)
        rc = spec_layout(to, dst);
    return rc;
}

void tool_layouts_free(redist_layout *src, redist_layout *dst)
{
    if (*src)
        redist_layout_free(src);
    if (*dst)
        redist_layout_free(dst);
}

int tool_arrays_alloc(tool_arrays *a, const tool_spec *from, const tool_spec *to, tool_type type,
                      int rank, MPI_Comm comm)
{
    a->el = (size_t)tool_type_sizes[type];
    a->nsrc = spec_local_count(from, rank);
    a->ndst = spec_local_count(to, rank);
    /* redist_execute takes NULL for a source a rank does not hold, never for a destination:
       an empty one still gets an element. */
    a->src = a->nsrc ? malloc((size_t)a->nsrc * a->el) : NULL;
    a->dst = malloc((size_t)(a->ndst ? a->ndst : 1) * a->el);
    if (tool_agree_status((a->nsrc && !a->src) || !a->dst, comm)) {
        tool_arrays_free(a);
        return -1;
    }
    if (a->src)
        tool_fill(from, rank, type, a->src);
    return 0;
}

void tool_arrays_poison(tool_arrays *a)
{
    memset(a->dst, 0xA5, (size_t)(a->ndst ? a->ndst : 1) * a->el);
}

void tool_arrays_free(tool_arrays *a)
{
    free(a->src);
    free(a->dst);
    a->src = a->dst = NULL;
}

int64_t tool_verify_all(const tool_spec *to, int rank, tool_type type, const void *dst,
                        MPI_Comm comm, int64_t *first_bad)
{
    return tool_verify_all_expect(to, rank, type, dst, NULL, comm, first_bad);
}

int64_t tool_verify_all_expect(const tool_spec *to, int rank, tool_type type, const void *dst,
                               const tool_expect *e, MPI_Comm comm, int64_t *first_bad)
{
    int64_t my_first, my_wrong = tool_verify_expect(to, rank, type, dst, e, &my_first), wrong;
    MPI_Allreduce(&my_wrong, &wrong, 1, MPI_INT64_T, MPI_SUM, comm);
    if (first_bad)
        MPI_Allreduce(&my_first, first_bad, 1, MPI_INT64_T, MPI_MIN, comm);
    return wrong;
}

void tool_plan_summarise(redist_plan plan, MPI_Comm comm, tool_plan_summary *out)
{
    redist_stats st;
    memset(&st, 0, sizeof st);
    redist_plan_stats(plan, &st);
    int64_t sums[3] = {st.messages_sent, st.bytes_sent, st.bytes_copied}, tot[3];
    int64_t maxes[3] = {st.messages_sent, st.bytes_sent, st.buffer_bytes}, mx[3];
    MPI_Allreduce(sums, tot, 3, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(maxes, mx, 3, MPI_INT64_T, MPI_MAX, comm);
    MPI_Allreduce(&st.bounded, &out->bounded, 1, MPI_INT, MPI_MAX, comm);
    out->max_buffer_bytes = mx[2];
    MPI_Allreduce(&st.predicted_seconds, &out->predicted, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&st.steps, &out->steps, 1, MPI_INT, MPI_MAX, comm);
    out->max_messages = mx[0];
    out->max_bytes = mx[1];
    out->total_messages = tot[0];
    out->total_bytes = tot[1];
    out->total_copied = tot[2];
    out->transport = st.transport;
}

int tool_specs_check(const tool_spec *from, const tool_spec *to, const tool_pair_opts *o, char *msg,
                     size_t len)
{
    if (from->ndims != to->ndims) {
        snprintf(msg, len, "--to: n has %d dimensions but --from's n has %d", to->ndims,
                 from->ndims);
        return -1;
    }
    if (o->permuted && o->npermute != from->ndims) {
        snprintf(msg, len, "--permute: %d entries for %d dimensions", o->npermute, from->ndims);
        return -1;
    }
    for (int k = 0; k < from->ndims; k++)
        if (from->extent[o->permuted ? o->permute[k] : k] != to->extent[k]) {
            snprintf(msg, len,
                     o->permuted ? "--to: n is not --from's n permuted by --permute"
                                 : "--to: n differs from --from's n");
            return -1;
        }
    tool_type type = o->type;
    int64_t elements = spec_elements(from), size = tool_type_sizes[type];
    if (elements > INT64_MAX / size) {
        snprintf(msg, len, "n: %lld elements of %s (%lld bytes each) make 2^63 bytes or more",
                 (long long)elements, tool_type_names[type], (long long)size);
        return -1;
    }
    return 0;
}

int tool_wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

int tool_env_is_rank0(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v) == 0;
    }
    return 1;
}

int tool_check_algorithm(const char *name)
{
    int count = redist_algorithm_count();
    for (int i = 0; i < count; i++) {
        const char *a = redist_algorithm_name(i);
        if (a && strcmp(a, name) == 0)
            return 0;
    }
    return -1;
}

void tool_algorithm_list(char *buf, size_t len)
{
    size_t pos = 0;
    int count = redist_algorithm_count();
    buf[0] = '\0';
    for (int i = 0; i < count && pos < len; i++) {
        const char *a = redist_algorithm_name(i);
        int n = snprintf(buf + pos, len - pos, "%s%s", i ? ", " : "", a ? a : "?");
        if (n > 0)
            pos += (size_t)n;
    }
}

static const char *fmt_scaled(char *buf, size_t len, double v, const char *const units[],
                              int nunits, double step)
{
    int u = 0;
    while (u + 1 < nunits && (v >= step * 0.9995 || v <= -step * 0.9995)) {
        v /= step;
        u++;
    }
    if (u == 0 && v == (double)(int64_t)v)
        snprintf(buf, len, "%lld %s", (long long)v, units[u]);
    else
        snprintf(buf, len, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

const char *tool_fmt_bytes(char *buf, size_t len, double bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    return fmt_scaled(buf, len, bytes, units, 6, 1000.0);
}

const char *tool_fmt_seconds(char *buf, size_t len, double s)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    if (s != s)
        return snprintf(buf, len, "-"), buf;
    if (s >= 0.9995 || s == 0)
        return snprintf(buf, len, s < 9.995 ? "%.2f s" : s < 99.95 ? "%.1f s" : "%.0f s", s), buf;
    double v = s * 1e9;
    if (v < 1)
        return snprintf(buf, len, "%.2f ns", v), buf;
    return fmt_scaled(buf, len, v, units, 3, 1000.0);
}

static int print_help(const char *command)
{
    if (!tool_env_is_rank0())
        return TOOL_OK;
    if (!command)
        fputs(main_help, stdout);
    else if (strcmp(command, "demo") == 0)
        fputs(tool_demo_help, stdout);
    else if (strcmp(command, "run") == 0)
        fputs(tool_run_help, stdout);
    else if (strcmp(command, "explain") == 0)
        fputs(tool_explain_help, stdout);
    else if (strcmp(command, "simulate") == 0)
        fputs(tool_simulate_help, stdout);
    else if (strcmp(command, "calibrate") == 0)
        fputs(tool_calibrate_help, stdout);
    else if (strcmp(command, "bench") == 0)
        fputs(tool_bench_help, stdout);
    else {
        fprintf(
            stderr,
            "redist: help: unknown command '%s' (commands: demo, run, explain, simulate, bench, calibrate)\n",
            command);
        return TOOL_USAGE;
    }
    return TOOL_OK;
}

/* demo and run: MPI around the sub-command. Every rank returns the same status. */
static int with_mpi(int (*command)(int, char **), int argc, char **argv)
{
    int provided_init = 0;
    MPI_Initialized(&provided_init);
    if (!provided_init && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "redist: MPI_Init failed\n");
        return TOOL_FAILED;
    }
    int status = command(argc, argv);
    MPI_Finalize();
    return status;
}

int main(int argc, char **argv)
{
    const char *command = argc > 1 ? argv[1] : "demo";
    int sub_argc = argc > 1 ? argc - 2 : 0;
    char **sub_argv = argv + (argc > 1 ? 2 : 1);

    int is_help = !strcmp(command, "help"),
        is_option_help = !strcmp(command, "--help") || !strcmp(command, "-h");
    int is_version =
        !strcmp(command, "--version") || !strcmp(command, "-V") || !strcmp(command, "version");
    /* help takes at most a command's name; --help, -h and the version nothing */
    if ((is_help || is_option_help || is_version) && sub_argc > is_help)
        return tool_error(tool_env_is_rank0(), TOOL_USAGE,
                          "%s: unexpected argument '%s' (usage: redist help [COMMAND] | "
                          "redist --help | redist --version)",
                          command, sub_argv[is_help]);
    if (is_option_help)
        return print_help(NULL);
    if (is_help)
        return print_help(sub_argc > 0 ? sub_argv[0] : NULL);
    if (is_version) {
        if (tool_env_is_rank0())
            printf("redist %s\n", TOOL_VERSION);
        return TOOL_OK;
    }
    int (*run)(int, char **) = NULL;
    int needs_mpi = 1;
    if (!strcmp(command, "demo"))
        run = tool_demo;
    else if (!strcmp(command, "run"))
        run = tool_run;
    else if (!strcmp(command, "explain"))
        run = tool_explain, needs_mpi = 0;
    else if (!strcmp(command, "simulate"))
        run = tool_simulate, needs_mpi = 0;
    else if (!strcmp(command, "calibrate"))
        run = tool_calibrate;
    else if (!strcmp(command, "bench"))
        run = tool_bench;
    if (!run) {
        if (tool_env_is_rank0())
            fprintf(
                stderr,
                "redist: unknown command '%s' (commands: demo, run, explain, simulate, bench, calibrate; see redist --help)\n",
                command);
        return TOOL_USAGE;
    }
    if (tool_wants_help(sub_argc, sub_argv))
        return print_help(command);
    return needs_mpi ? with_mpi(run, sub_argc, sub_argv) : run(sub_argc, sub_argv);
}
