/* The redist tool's command line (cmdline.h): options in either form, the argument loop of
 * every sub-command, and the options and checks `run` and `explain` share. */
#define _POSIX_C_SOURCE 200809L

#include "cmdline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "report.h"

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

int tool_wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

/* 0 if `name` is one of the algorithm names the library knows. Prints nothing. */
static int check_algorithm(const char *name)
{
    int count = redist_algorithm_count();
    for (int i = 0; i < count; i++) {
        const char *a = redist_algorithm_name(i);
        if (a && strcmp(a, name) == 0)
            return 0;
    }
    return -1;
}

/* "auto, direct, ..." into buf. */
static void algorithm_list(char *buf, size_t len)
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

int tool_threads_parse(const char *v, int *threads, char *msg, size_t len)
{
    char shown[SPEC_EXCERPT];
    char *end = NULL;
    long n = 0;
    /* digits only: no sign, blank or suffix, so that what is accepted is what is meant */
    if (v[0] != '\0' && strspn(v, "0123456789") == strlen(v) && strlen(v) <= 9)
        n = strtol(v, &end, 10);
    if (n >= 1 && n <= REDIST_MAX_THREADS) {
        *threads = (int)n;
        return 0;
    }
    snprintf(msg, len, "--threads: expected a whole number of threads from 1 to %d, got '%s'",
             REDIST_MAX_THREADS, spec_excerpt(shown, v, strlen(v)));
    return -1;
}

int tool_threads_option(int argc, char **argv, int *i, int *threads, int rank0)
{
    const char *v = NULL;
    char msg[256];
    int m = tool_opt_value(argc, argv, i, "--threads", &v);
    if (m < 0)
        tool_error(rank0, TOOL_USAGE, "%s needs a value", argv[*i]);
    else if (m > 0 && tool_threads_parse(v, threads, msg, sizeof msg) != 0)
        tool_error(rank0, TOOL_USAGE, "%s", msg);
    else
        return m;
    return TOOL_OPT_REPORTED;
}

int tool_reduce_option(const char *v, tool_reduce *op, char *msg, size_t len)
{
    char shown[SPEC_EXCERPT];
    if (tool_reduce_parse(v, op) == 0)
        return 0;
    snprintf(msg, len,
             "--reduce: expected sum, prod, max, min, land, lor, lxor, band, bor or bxor, got '%s'",
             spec_excerpt(shown, v, strlen(v)));
    return -1;
}

/* Type double, algorithm "auto", nothing else given. */
static void pair_init(tool_pair_opts *o)
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

/* --memory host|cuda|auto: REDIST_MEMORY_HOST, _CUDA or _AUTO into *memory; -1 if none. */
static int memory_parse(const char *v, int *memory)
{
    static const char *const kinds[] = {"host", "cuda", "auto"};
    for (int k = 0; k < 3; k++)
        if (strcmp(v, kinds[k]) == 0) {
            *memory = k; /* REDIST_MEMORY_HOST, _CUDA, _AUTO */
            return 0;
        }
    return -1;
}

/* Like tool_opt_value for the ten shared options: 1 (taken), 0 (another argument) or -1
   (value missing). A bad --type, --max-buffer, --permute, --threads, --memory or --reduce
   writes its message into msg (else msg is ""). */
static int pair_option(int argc, char **argv, int *i, tool_pair_opts *o, char *msg, size_t len)
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
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--threads", &v)) > 0)
        tool_threads_parse(v, &o->threads, msg, len);
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--memory", &v)) > 0 &&
             memory_parse(v, &o->memory) != 0)
        snprintf(msg, len, "--memory: expected host, cuda or auto, got '%s'",
                 spec_excerpt(shown, v, strlen(v)));
    else if (m == 0 && (m = tool_opt_value(argc, argv, i, "--reduce", &v)) > 0)
        tool_reduce_option(v, &o->reduce, msg, len);
    return m;
}

/* After the arguments of command `cmd`: 0, or -1 with the message (--from or --to missing,
   unknown algorithm) in msg. */
static int pair_check(const tool_pair_opts *o, const char *cmd, char *msg, size_t len)
{
    if (!o->from || !o->to) {
        snprintf(msg, len, "%s: %s is required (see redist %s --help)", cmd,
                 o->from ? "--to" : "--from", cmd);
        return -1;
    }
    if (check_algorithm(o->algorithm) != 0) {
        char list[512];
        algorithm_list(list, sizeof list);
        char shown[SPEC_EXCERPT];
        snprintf(msg, len, "--algorithm: unknown algorithm '%s' (known: %s)",
                 spec_excerpt(shown, o->algorithm, strlen(o->algorithm)), list);
        return -1;
    }
    return 0;
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
    int m = pair_option(argc, argv, i, p->pair, msg, sizeof msg);
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
    pair_init(pair);
    int status = tool_each_option(argc, argv, cmd, take_pair_or_own, &p, rank0);
    char msg[768];
    if (status == TOOL_OK && pair_check(pair, cmd, msg, sizeof msg) != 0)
        status = tool_error(rank0, TOOL_USAGE, "%s", msg);
    return status;
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
    const char *refusal = tool_reduce_refusal(o->reduce, type);
    if (refusal != NULL) {
        snprintf(msg, len, "--reduce %s with --type %s: %s", tool_reduce_names[o->reduce],
                 tool_type_names[type], refusal);
        return -1;
    }
    return 0;
}

/* boxes=FILE's reader under run: rank 0 reads, every rank gets its text or its error. */
static MPI_Comm shared_comm = MPI_COMM_NULL;

static char *shared_reader(const char *path, char *err, size_t errlen)
{
    int rank;
    MPI_Comm_rank(shared_comm, &rank);
    char msg[256] = "";
    char *text = rank == 0 ? spec_read_file(path, msg, sizeof msg) : NULL;
    long long len = text != NULL ? (long long)strlen(text) : -1;
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, shared_comm);
    if (len < 0) {
        MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, 0, shared_comm);
        snprintf(err, errlen, "%s", msg);
        return NULL;
    }
    if (rank != 0)
        text = malloc((size_t)len + 1);
    if (tool_agree_status(text == NULL, shared_comm) != 0) {
        free(text);
        snprintf(err, errlen, "boxes: out of memory for the file's text");
        return NULL;
    }
    MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, shared_comm); /* at most SPEC_MAX_FILE bytes */
    return text;
}

void tool_share_spec_files(MPI_Comm comm)
{
    shared_comm = comm;
    spec_set_reader(shared_reader);
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
        const char *which = k == 0 ? "--from" : "--to";
        if (s->max_rank >= procs && s->shape == SPEC_BOXES && s->max_rank + 1 == s->nprocs)
            status = tool_error(
                rank0, TOOL_USAGE,
                "%s: %d boxes (one per rank) but the communicator has %d process%s (run: start "
                "more with mpirun -n; explain: give --procs)",
                which, s->nprocs, procs, procs == 1 ? "" : "es");
        else if (s->max_rank >= procs)
            status = tool_error(
                rank0, TOOL_USAGE,
                "%s: uses rank %d but the communicator has %d process%s (run: start more with "
                "mpirun -n; explain: give --procs; or give ranks=)",
                which, s->max_rank, procs, procs == 1 ? "" : "es");
    }
    for (int k = 0; status == TOOL_OK && o->relabel && k < 2; k++) {
        const tool_spec *s = k == 0 ? from : to;
        if (spec_is_boxes(s) || spec_has_replicated(s))
            status = tool_error(rank0, TOOL_USAGE,
                                "--relabel: %s has %s (redist_relabel permutes the ranks of a "
                                "grid without replicated dimensions)",
                                k == 0 ? "--from" : "--to",
                                spec_is_boxes(s) ? "boxes" : "a replicated dimension");
    }
    if (status == TOOL_OK && tool_specs_check(from, to, o, err, sizeof err) != 0)
        status = tool_error(rank0, TOOL_USAGE, "%s", err);
    return status;
}
