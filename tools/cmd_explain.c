/* redist explain: what a plan would do, without MPI (src/algo/explain.h). */
#include "commands.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "cmdline.h"
#include "data.h"
#include "explain.h"
#include "report.h"
#include "tables.h"

const char tool_explain_help[] =
    "usage: redist explain --from SPEC --to SPEC [options]\n"
    "\n"
    "Shows the plan without running it (no MPI launch needed): the algorithm auto chooses,\n"
    "then per algorithm the communication steps, the most messages and bytes any rank sends,\n"
    "the totals and the cost model's predicted time for one execute.\n"
    "\n"
    "options:\n"
    "  --from SPEC, --to SPEC   the layouts (see redist --help, docs/tool.md)\n"
    "  --procs P                communicator size (default: the largest rank the specs use\n"
    "                           + 1); also stands for procs= in a spec that names no\n"
    "                           procs, grid or ranks\n"
    "  --type T                 char, int, double (default) or double3 (24 bytes)\n"
    "  --algorithm A            headline this algorithm instead of auto's choice\n"
    "  --max-buffer B           bounded mode: at most B bytes of buffers per rank (e.g. 1M,\n"
    "                           2^20); the algorithms that cannot run bounded say so\n"
    "  --tables                 for a 1-D cyclic(x) -> cyclic(Kx) pair (or the dual) on the\n"
    "                           same P: [LBP96]'s tables S, R, P (and S', P_s, D_s, R',\n"
    "                           P_r, D_r when K <= P)\n"
    "  --relabel                the destination's ranks chosen to keep the most data in place\n"
    "                           (redist_relabel's answer; up to 4096 positions)\n"
    "  --permute P              axis permutation (N-D transpose, e.g. 1,0): --to's n is\n"
    "                           --from's permuted; the plan of redist_options.permutation\n"
    "  --threads N              the threads per rank a plan's local moves would use\n"
    "                           (redist_options.threads; default REDIST_NUM_THREADS, else 1)\n"
    "  --cores N                the cores a rank may run on (default: this process's\n"
    "                           affinity mask); the model counts at most N threads\n"
    "  --memory M               host (default), cuda or auto: where the arrays live\n"
    "                           (redist_options.memory); device memory keeps the algorithms\n"
    "                           that pack and adds the staging's costs (PCIe, launches)\n"
    "  --reduce OP              partial sums: every source holder holds a part, the\n"
    "                           destination their reduction by OP (sum, prod, max, min, land,\n"
    "                           lor, lxor, band, bor, bxor; redist_options.reduce)\n"
    "  --nodes N                the ranks on N nodes (with --ranks-per-node K: --procs is\n"
    "                           N x K); off-node messages pay the network (remote_startup,\n"
    "                           remote_per_byte) and node-aware applies\n"
    "  --ranks-per-node K       nodes of K consecutive ranks, the last one smaller if need be\n"
    "                           (a plan under REDIST_RANKS_PER_NODE=K sees the same)\n"
    "  --remote-startup S       seconds per message between nodes (the machine's otherwise)\n"
    "  --remote-per-byte S      seconds per byte through a node's network link\n"
    "  --json                   one JSON object instead of text\n"
    "\n"
    "JSON keys: algorithm, requested, steps, max_messages_per_rank, max_bytes_per_rank,\n"
    "total_messages, total_bytes, predicted_seconds, staging_seconds, device_ipc, device_mpi,\n"
    "transport, bounded, buffer_bytes (for the headline algorithm), procs, type, element_bytes, elements,\n"
    "array_bytes, from, to, pattern, nodes, memory, machine, threads, cores, arrays,\n"
    "algorithms[]\n"
    "(chosen: true on auto's choice), tables, tables_note, relabel {kept, moved,\n"
    "given_moved}, permutation, reduce (docs/tool.md lists them all).\n";

static const char *const memory_names[] = {"host", "cuda", "auto"}; /* --memory */

typedef struct explain_args {
    tool_pair_opts pair; /* --from, --to, --algorithm, --type */
    int64_t procs;
    int64_t cores;           /* --cores N (0: this process's affinity mask) */
    int64_t nodes, per_node; /* --nodes, --ranks-per-node (0: not given) */
    const char *remote[2];   /* --remote-startup, --remote-per-byte (NULL: not given) */
    int json, tables;
} explain_args;

/* A count option (--nodes, --ranks-per-node): 1 parsed, 0 not this option, or reported. */
static int count_option(int argc, char **argv, int *i, const char *name, int64_t *out, int rank0)
{
    const char *v = NULL;
    int m = tool_opt_value(argc, argv, i, name, &v);
    if (m > 0 && (spec_parse_count(v, out) != 0 || *out < 1 || *out > INT32_MAX)) {
        tool_error(rank0, TOOL_USAGE, "%s: expected a positive integer, got '%s'", name, v);
        return TOOL_OPT_REPORTED;
    }
    return m;
}

/* A network parameter: seconds >= 0, handed to the model as REDIST_MACHINE_<KEY>. */
static int seconds_option(int argc, char **argv, int *i, const char *name, const char **out,
                          int rank0)
{
    const char *v = NULL;
    int m = tool_opt_value(argc, argv, i, name, &v);
    char *end = NULL;
    double x = m > 0 ? strtod(v, &end) : 0.0;
    if (m > 0 && (end == v || *end != '\0' || !(x >= 0.0) || x > 1e6)) {
        tool_error(rank0, TOOL_USAGE, "%s: expected seconds (>= 0), got '%s'", name, v);
        return TOOL_OPT_REPORTED;
    }
    if (m > 0)
        *out = v;
    return m;
}

/* The options only explain has (a tool_option_fn). */
static int explain_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    explain_args *a = ctx;
    const char *v = NULL;
    int m = tool_opt_value(argc, argv, i, "--procs", &v);
    if (m > 0 && (spec_parse_count(v, &a->procs) != 0 || a->procs < 1 || a->procs > INT32_MAX)) {
        tool_error(rank0, TOOL_USAGE, "--procs: expected a positive integer, got '%s'", v);
        return TOOL_OPT_REPORTED;
    }
    if (m != 0)
        return m;
    m = tool_opt_value(argc, argv, i, "--cores", &v);
    if (m > 0 && (spec_parse_count(v, &a->cores) != 0 || a->cores < 1 || a->cores > INT32_MAX)) {
        tool_error(rank0, TOOL_USAGE, "--cores: expected a positive integer, got '%s'", v);
        return TOOL_OPT_REPORTED;
    }
    if (m != 0)
        return m;
    if ((m = count_option(argc, argv, i, "--nodes", &a->nodes, rank0)) != 0 ||
        (m = count_option(argc, argv, i, "--ranks-per-node", &a->per_node, rank0)) != 0 ||
        (m = seconds_option(argc, argv, i, "--remote-startup", &a->remote[0], rank0)) != 0 ||
        (m = seconds_option(argc, argv, i, "--remote-per-byte", &a->remote[1], rank0)) != 0)
        return m;
    if (!strcmp(argv[*i], "--json"))
        a->json = 1;
    else if (!strcmp(argv[*i], "--tables"))
        a->tables = 1;
    else
        return 0;
    return 1;
}

/* ---- JSON output: the tool's own keys, around redist_explain's object ----------------- */

static void json_string(FILE *f, const char *s)
{
    redist__text t = {0};
    redist__text_json_string(&t, s);
    fputs(t.failed ? "null" : t.s, f);
    redist__text_free(&t);
}

/* A string the tool made (NULL: it ran out of memory making it). */
static void json_made_string(FILE *f, char *made)
{
    json_string(f, made);
    free(made);
}

/* A box spec's own keys: what it says, then each box's corners ([lower, upper] per box). */
static void json_boxes(FILE *f, const tool_spec *s)
{
    fputs("\"describe\": ", f);
    json_made_string(f, spec_describe(s));
    fputs(", \"boxes\": [", f);
    for (int i = 0; i < s->nprocs; i++) {
        const int64_t *corner[2] = {s->lower + (size_t)i * s->ndims,
                                    s->upper + (size_t)i * s->ndims};
        fputs(i ? ", [" : "[", f);
        for (int c = 0; c < 2; c++) {
            fputs(c ? ", [" : "[", f);
            for (int k = 0; k < s->ndims; k++)
                fprintf(f, "%s%lld", k ? ", " : "", (long long)corner[c][k]);
            fputs("]", f);
        }
        fputs("]", f);
    }
    fputs("], \"ranks\": ", f);
    json_made_string(f, spec_format_ranks(s));
    fprintf(f, ", \"order\": \"%s\"}", s->order == REDIST_COL_MAJOR ? "col" : "row");
}

static void json_spec(FILE *f, const char *text, const tool_spec *s)
{
    fputs("{\"spec\": ", f);
    json_string(f, text);
    fputs(", \"canonical\": ", f);
    json_made_string(f, spec_format(s));
    fputs(", \"n\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%lld", k ? ", " : "", (long long)s->extent[k]);
    if (spec_is_boxes(s)) {
        fputs("], ", f);
        json_boxes(f, s);
        return;
    }
    fputs("], \"block\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%lld", k ? ", " : "", (long long)s->block[k]);
    fputs("], \"grid\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%d", k ? ", " : "", s->grid[k]);
    fputs("], \"first\": [", f);
    for (int k = 0; k < s->ndims; k++)
        fprintf(f, "%s%d", k ? ", " : "", s->first[k]);
    fputs("], \"ranks\": ", f);
    json_made_string(f, spec_format_ranks(s));
    fprintf(f, ", \"order\": \"%s\"}", s->order == REDIST_COL_MAJOR ? "col" : "row");
}

/* What one explain holds: every step may fail, and explain_free then releases whatever
   exists. */
typedef struct explain_state {
    explain_args a;
    int rank0, procs;
    tool_spec from, to;
    redist_layout src, dst;
    redist_options opt;               /* what a plan of run's would be given */
    redist__explain_report report;    /* text: the library's report (api/explain.c) */
    redist__text json;                /* --json: the report's object, as redist_explain's */
    tool_tables tables, *tp;          /* tp: &tables once computed */
    char why[256];                    /* why there are no tables */
    int64_t kept, moved, given_moved; /* --relabel: elements that stay / cross, and before */
    const char *threads_from;         /* where options.threads comes from (tool_threads) */
} explain_state;

/* The tool's keys (the specs as given and as read, the type's name, --relabel's and
   --tables' answers) around redist_explain's object. */
static void print_json(const explain_state *s)
{
    FILE *f = stdout;
    const explain_args *a = &s->a;
    fputs("{\"from\": ", f);
    json_spec(f, a->pair.from, &s->from);
    fputs(", \"to\": ", f);
    json_spec(f, a->pair.to, &s->to);
    fprintf(f, ", \"type\": \"%s\", ", tool_type_names[a->pair.type]);
    if (a->pair.reduce != TOOL_REDUCE_NONE)
        fprintf(f, "\"reduce\": \"%s\", ", tool_reduce_names[a->pair.reduce]);
    fwrite(s->json.s + 1, 1, s->json.len - 2, f); /* its keys, without its braces */
    if (a->pair.relabel)
        fprintf(f, ", \"relabel\": {\"kept\": %lld, \"moved\": %lld, \"given_moved\": %lld}",
                (long long)s->kept, (long long)s->moved, (long long)s->given_moved);
    if (a->tables) {
        fputs(", \"tables\": ", f);
        if (s->tp)
            tables_print_json(f, s->tp);
        else {
            fputs("null, \"tables_note\": ", f);
            json_string(f, s->why);
        }
    }
    fputs("}\n", f);
}

/* Where the ranks span nodes: what crosses between them, flat and node-aware. */
static void print_text_nodes(const redist__node_traffic *n)
{
    char b[4][64];
    if (n->nodes <= 1) /* one node: nothing crosses a network */
        return;
    printf("  nodes    %d nodes of up to %d ranks; per rank at most %lld message%s (%s) sent off "
           "node, %lld (%s) sent or received, %lld on node;\n",
           n->nodes, n->ranks_per_node, (long long)n->max_remote_sent_messages,
           n->max_remote_sent_messages == 1 ? "" : "s",
           tool_fmt_bytes(b[0], sizeof b[0], (double)n->max_remote_sent_bytes),
           (long long)n->max_remote_messages,
           tool_fmt_bytes(b[1], sizeof b[1], (double)n->max_remote_bytes),
           (long long)n->max_local_messages);
    printf("           the busiest node's link carries %s; node-aware: at most %lld pair "
           "message%s (%s) per rank between nodes, %lld (%s) on its node\n",
           tool_fmt_bytes(b[2], sizeof b[2], (double)n->max_node_bytes),
           (long long)n->max_pair_messages, n->max_pair_messages == 1 ? "" : "s",
           tool_fmt_bytes(b[3], sizeof b[3], (double)n->max_pair_bytes),
           (long long)n->max_gather_messages,
           tool_fmt_bytes(b[0], sizeof b[0], (double)n->max_gather_bytes));
}

/* The pair, and the traffic its pattern needs whatever the schedule. */
static void print_text_pattern(const explain_state *s)
{
    char b[2][64];
    const redist__pattern_summary *pat = &s->report.pattern;
    int64_t el = tool_type_sizes[s->a.pair.type], n = spec_elements(&s->from);
    printf("redist explain: %d process%s, ", s->procs, s->procs == 1 ? "" : "es");
    for (int k = 0; k < s->from.ndims; k++)
        printf("%s%lld", k ? "x" : "", (long long)s->from.extent[k]);
    printf(" %s (%lld byte%s each, %s in all)\n", tool_type_names[s->a.pair.type], (long long)el,
           el == 1 ? "" : "s", tool_fmt_bytes(b[0], sizeof b[0], (double)n * (double)el));
    tool_print_spec("  from     ", &s->from);
    tool_print_spec("  to       ", &s->to);
    tool_print_reduce("  reduce   ", s->a.pair.reduce);
    if (s->a.pair.permuted) {
        int d = s->a.pair.npermute;
        printf("  permute  ");
        for (int j = 0; j < d; j++)
            printf("%s%d", j ? "," : "", s->a.pair.permute[j]);
        printf(": the destination's element (");
        for (int j = 0; j < d; j++)
            printf("%sg%d", j ? "," : "", s->a.pair.permute[j]);
        printf(") is the source's (");
        for (int j = 0; j < d; j++)
            printf("%sg%d", j ? "," : "", j);
        printf(")\n");
    }
    if (s->a.pair.relabel)
        printf("  relabel  destination ranks chosen to keep data in place: %lld elements cross "
               "between ranks (%lld with the given ranks), %lld stay\n",
               (long long)s->moved, (long long)s->given_moved, (long long)s->kept);
    printf(
        "  pattern  per rank at most %lld message%s (%s) sent and %lld (%s) received, %lld peer%s;\n",
        (long long)pat->max_sent_messages, pat->max_sent_messages == 1 ? "" : "s",
        tool_fmt_bytes(b[0], sizeof b[0], (double)pat->max_sent_bytes),
        (long long)pat->max_received_messages,
        tool_fmt_bytes(b[1], sizeof b[1], (double)pat->max_received_bytes),
        (long long)pat->max_peers, pat->max_peers == 1 ? "" : "s");
    printf("           %lld messages and %s cross between ranks, %s stay on their rank\n",
           (long long)pat->total_messages,
           tool_fmt_bytes(b[0], sizeof b[0], (double)pat->total_bytes),
           tool_fmt_bytes(b[1], sizeof b[1], (double)pat->bytes_copied));
    print_text_nodes(&pat->nodes);
}

/* Where the model's parameters come from (the machine file, the environment, the defaults). */
static void print_text_machine(void)
{
    redist__machine m;
    char source[512];
    redist__machine_current(&m, source, sizeof source);
    printf("  model    parameters from %s\n", source);
}

static void print_wrapped_at(const char *text, int col, int indent);

/* The memory of an execute beyond src and dst, in each mode; where the arrays are. */
static void print_text_memory(const explain_state *s)
{
    char b[3][64];
    const redist__explanation *e = &s->report.head->e;
    if (s->report.memory != REDIST_MEMORY_HOST && (e->device_ipc || e->device_mpi)) {
        char text[512];
        snprintf(text, sizeof text,
                 "in device memory (--memory %s): %s%s%s; staging %s of the predicted time "
                 "(rows marked %s)",
                 memory_names[s->a.pair.memory],
                 e->device_ipc ? "messages on the node pulled by the receivers' kernels from the "
                                 "senders' device arrays (inter-process memory)"
                               : "",
                 e->device_ipc && e->device_mpi ? "; " : "",
                 e->device_mpi ? "messages through MPI sent from and received into device "
                                 "buffers (a GPU-aware MPI)"
                               : "",
                 tool_fmt_seconds(b[0], sizeof b[0], e->staging_seconds),
                 e->device_ipc && e->device_mpi ? "ipc, mpi"
                 : e->device_ipc                ? "ipc"
                                                : "mpi");
        print_wrapped_at(text, printf("  arrays   "), 11);
    } else if (s->report.memory != REDIST_MEMORY_HOST)
        printf("  arrays   in device memory (--memory %s): kernels pack and unpack, messages are\n"
               "           staged through the host; staging %s of the predicted time\n",
               memory_names[s->a.pair.memory],
               tool_fmt_seconds(b[0], sizeof b[0], e->staging_seconds));
    else if (s->a.pair.memory == REDIST_MEMORY_AUTO)
        printf("  arrays   in host memory (--memory auto, and no device backend loads here: a "
               "host plan)\n");
    tool_fmt_bytes(b[0], sizeof b[0], (double)e->default_bytes);
    if (e->bounded)
        printf("  memory   per rank: %s of pack buffers in the default mode; bounded mode%s: %s "
               "(chunks of %s)\n",
               b[0], s->a.pair.max_buffer ? "" : " (the default's would not fit)",
               tool_fmt_bytes(b[1], sizeof b[1], (double)e->buffer_bytes),
               tool_fmt_bytes(b[2], sizeof b[2], (double)e->chunk_bytes));
    else
        printf("  memory   per rank: %s of pack buffers (default mode; --max-buffer B bounds it "
               "to B)\n",
               b[0]);
}

static void print_text_head(const explain_state *s)
{
    char b[64];
    const redist__explain_row *head = s->report.head;
    const char *chosen = head->e.chosen ? head->e.chosen : head->name;
    if (!strcmp(s->a.pair.algorithm, "auto"))
        printf("  auto     chooses %s: %d step%s, predicted %s per execute\n", chosen,
               head->e.steps, head->e.steps == 1 ? "" : "s",
               tool_fmt_seconds(b, sizeof b, head->e.predicted_seconds));
    else
        printf("  forced   %s: %d step%s, predicted %s per execute\n", chosen, head->e.steps,
               head->e.steps == 1 ? "" : "s",
               tool_fmt_seconds(b, sizeof b, head->e.predicted_seconds));
}

enum { ROW_WIDTH = 96, ROW_NAME_END = 30 }; /* the table's width; where a row's numbers start */

/* text from column col (where the row's name ended) on, broken at spaces so that no line
   passes ROW_WIDTH (a word longer than that stands alone), continued from ROW_NAME_END. */
static void print_wrapped_at(const char *text, int col, int indent)
{
    for (int line_start = 1; *text != '\0'; line_start = 0) {
        int len = (int)strcspn(text, " ");
        if (!line_start && col + 1 + len > ROW_WIDTH) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (!line_start) {
            putchar(' ');
            col++;
        }
        printf("%.*s", len, text);
        col += len;
        text += len;
        text += strspn(text, " ");
    }
    putchar('\n');
}

static void print_wrapped(const char *text, int col)
{
    print_wrapped_at(text, col, ROW_NAME_END);
}

/* chosen: the algorithm the head row (auto or the forced one) runs, marked in its own row. */
static void print_text_row(const redist__explain_row *r, const char *chosen, int is_head)
{
    char b[3][64], name[80];
    const char *how =
        r->rc == REDIST_SUCCESS && r->e.transport == REDIST_TRANSPORT_DATATYPE ? " (dt)" : "";
    if (r->rc == REDIST_SUCCESS && r->e.chosen && strcmp(r->e.chosen, r->name))
        snprintf(name, sizeof name, "%s -> %s%s", r->name, r->e.chosen, how);
    else
        snprintf(name, sizeof name, "%s%s", r->name, how);
    if (r->rc == REDIST_ERR_NOT_APPLICABLE) {
        char why[512];
        snprintf(why, sizeof why, "(not applicable: %s)", r->e.why_not);
        print_wrapped(why, printf("  %-27s ", name));
        return;
    }
    if (r->rc != REDIST_SUCCESS) {
        printf("  %-27s (%s)\n", name, redist_strerror(r->rc));
        return;
    }
    printf("  %-27s %6d %10lld %12s %11lld %12s %10s%s%s\n", name, r->e.steps,
           (long long)r->e.max_messages_per_rank,
           tool_fmt_bytes(b[0], sizeof b[0], (double)r->e.max_bytes_per_rank),
           (long long)r->e.total_messages,
           tool_fmt_bytes(b[1], sizeof b[1], (double)r->e.total_bytes),
           tool_fmt_seconds(b[2], sizeof b[2], r->e.predicted_seconds),
           r->e.device_ipc && r->e.device_mpi ? " ipc mpi"
           : r->e.device_ipc                  ? " ipc"
           : r->e.device_mpi                  ? " mpi"
                                              : "",
           !is_head && chosen && !strcmp(r->name, chosen) ? "  <- chosen" : "");
}

/* The threads a plan would use, and the cores the rank described may run on. */
static void print_text_threads(const explain_state *s)
{
    char b[128];
    const redist__explain_report *r = &s->report;
    printf("  threads  %s\n",
           tool_fmt_threads(b, sizeof b, r->threads, r->threads, s->threads_from));
    printf("  cores    %s\n",
           tool_fmt_cores(b, sizeof b, r->cores, r->cores,
                          redist__model_threads(r->threads, r->cores),
                          s->a.cores ? "--cores" : "this process's affinity mask"));
}

static void print_text(const explain_state *s)
{
    print_text_pattern(s);
    print_text_head(s);
    print_text_machine();
    print_text_memory(s);
    print_text_threads(s);
    printf("\n  %-27s %6s %10s %12s %11s %12s %10s\n", "algorithm", "steps", "msgs/rank",
           "bytes/rank", "total msgs", "total bytes", "predicted");
    const redist__explain_report *r = &s->report;
    const char *chosen = r->head->e.chosen ? r->head->e.chosen : r->head->name;
    for (int i = 0; i < r->count; i++)
        print_text_row(&r->rows[i], chosen, &r->rows[i] == r->head);
    if (s->a.tables) {
        printf("\n");
        if (s->tp)
            tables_print(stdout, s->tp, "  ", 1);
        else
            printf("  (no tables: %s)\n", s->why);
    }
}

/* The nodes the model sees (--nodes, --ranks-per-node: REDIST_RANKS_PER_NODE, as a plan on
   virtual nodes reads it) and the network's parameters (REDIST_MACHINE_REMOTE_*). */
static int set_nodes(explain_state *s)
{
    const explain_args *a = &s->a;
    int64_t k = a->per_node;
    if (k == 0 && a->nodes > 0) /* --nodes alone: the ranks spread evenly */
        k = (s->procs + a->nodes - 1) / a->nodes;
    if (a->nodes > 0 && (s->procs + k - 1) / k != a->nodes)
        return tool_error(s->rank0, TOOL_USAGE, "%d ranks do not make %lld nodes", s->procs,
                          (long long)a->nodes);
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)k);
    if (k > 0)
        setenv("REDIST_RANKS_PER_NODE", v, 1);
    if (a->remote[0] != NULL)
        setenv("REDIST_MACHINE_REMOTE_STARTUP", a->remote[0], 1);
    if (a->remote[1] != NULL)
        setenv("REDIST_MACHINE_REMOTE_PER_BYTE", a->remote[1], 1);
    return TOOL_OK;
}

/* The specs (tool_pair_specs, as run checks them) and the communicator size: --procs (or
   --nodes x --ranks-per-node), else the largest rank either spec uses + 1. */
static int check_specs(explain_state *s)
{
    const explain_args *a = &s->a;
    int64_t procs = a->procs;
    if (a->nodes > 0 && a->per_node > 0) {
        if (procs > 0 && procs != a->nodes * a->per_node)
            return tool_error(s->rank0, TOOL_USAGE,
                              "--procs %lld is not --nodes %lld x --ranks-per-node %lld",
                              (long long)procs, (long long)a->nodes, (long long)a->per_node);
        if (a->nodes * a->per_node > INT32_MAX)
            return tool_error(s->rank0, TOOL_USAGE, "--nodes x --ranks-per-node is too large");
        procs = a->nodes * a->per_node;
    }
    int status = tool_pair_specs(&s->a.pair, (int)procs, &s->from, &s->to, s->rank0);
    int need = (s->from.max_rank > s->to.max_rank ? s->from.max_rank : s->to.max_rank) + 1;
    s->procs = procs ? (int)procs : need;
    return status == TOOL_OK ? set_nodes(s) : status;
}

enum { RELABEL_MAX = 4096 }; /* positions explain relabels (a matrix of RELABEL_MAX^2 counts) */

/* --relabel: every destination rank's row of the volume matrix, as each rank computes its
   own in redist_relabel, then the same solver; --to's ranks become the answer. */
static int relabel(explain_state *s)
{
    int q = s->dst->nprocs;
    if (q > RELABEL_MAX)
        return REDIST_ERR_UNSUPPORTED;
    int64_t *w = calloc((size_t)q * (size_t)q + 1, sizeof *w);
    int *ranks = malloc((size_t)q * sizeof *ranks);
    redist_layout positions = redist__layout_by_position(s->dst);
    int rc = w && ranks && positions ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    for (int i = 0; rc == REDIST_SUCCESS && i < q; i++)
        rc = redist__volume_row(s->src, positions, s->dst->ranks[i], w + (size_t)i * (size_t)q);
    if (rc == REDIST_SUCCESS)
        rc = redist__relabel_solve(s->dst, w, ranks, &s->kept, &s->moved);
    if (rc == REDIST_SUCCESS) {
        int64_t identity = 0;
        for (int i = 0; i < q; i++)
            identity += w[(size_t)i * (size_t)q + (size_t)i];
        s->given_moved = s->moved + s->kept - identity;
        memcpy(s->to.ranks, ranks, (size_t)q * sizeof *ranks);
        tool_layouts_free(&s->src, &s->dst);
        rc = tool_layouts(&s->from, &s->to, &s->src, &s->dst);
    }
    free(w);
    free(ranks);
    redist_layout_free(&positions);
    return rc;
}

/* The layouts (--relabel: its destination ranks). */
static int make_layouts(explain_state *s)
{
    char err[256];
    int rc = tool_layouts(&s->from, &s->to, &s->src, &s->dst);
    if (rc == REDIST_SUCCESS && s->a.pair.relabel && (rc = relabel(s)) == REDIST_ERR_UNSUPPORTED)
        return tool_error(s->rank0, TOOL_USAGE, "--relabel: at most %d destination positions",
                          RELABEL_MAX);
    if (rc != REDIST_SUCCESS)
        return tool_error(s->rank0, TOOL_FAILED, "%s",
                          tool_lib_error(err, sizeof err, "layout", rc));
    return TOOL_OK;
}

/* The options run's plan would be given. */
static void plan_options(explain_state *s)
{
    const tool_pair_opts *o = &s->a.pair;
    redist_options_init(&s->opt);
    s->opt.algorithm = o->algorithm;
    s->opt.max_buffer_bytes = o->max_buffer;
    s->opt.threads = o->threads;
    s->opt.memory = o->memory;
    s->opt.permutation = o->permuted ? o->permute : NULL;
    s->opt.reduce = tool_reduce_op(o->reduce);
}

/* Every algorithm's plan, explained (the library's report, or its JSON); the requested one
   must apply, else run's words for its plan. */
static int explain_algorithms(explain_state *s)
{
    int64_t el = tool_type_sizes[s->a.pair.type];
    int threads = 1;
    tool_threads(s->a.pair.threads, &threads, &s->threads_from); /* its source, for the text */
    plan_options(s);
    /* the report redist_explain writes as JSON: made once, for the text or the JSON */
    int rc =
        redist__explain_checked(s->src, s->dst, s->procs, el, &s->opt, (int)s->a.cores, &s->report);
    if (rc == REDIST_SUCCESS && s->a.json) {
        redist__explain_report_json(&s->report, &s->json);
        rc = s->json.failed ? REDIST_ERR_NOMEM : REDIST_SUCCESS;
    }
    return rc == REDIST_SUCCESS ? TOOL_OK : tool_plan_failed(s->rank0, s->a.pair.algorithm, rc);
}

static void explain_free(explain_state *s)
{
    if (s->tp)
        tables_free(s->tp);
    redist__explain_report_free(&s->report);
    redist__text_free(&s->json);
    tool_layouts_free(&s->src, &s->dst);
    spec_free(&s->from);
    spec_free(&s->to);
}

/* explain builds and frees every member rank's messages in turn (tens of thousands of large
   allocations at P = 65536): keep the freed memory in the process instead of returning it to
   the kernel each time (the page faults and brk calls were half of the time). */
static void keep_freed_memory(void)
{
#if defined(M_TRIM_THRESHOLD) && defined(M_MMAP_THRESHOLD) && defined(M_TOP_PAD)
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

int tool_explain(int argc, char **argv)
{
    explain_state s;
    memset(&s, 0, sizeof s);
    keep_freed_memory();
    s.rank0 = tool_env_is_rank0();
    int status = tool_parse_args(argc, argv, "explain", &s.a.pair, explain_option, &s.a, s.rank0);
    if (status == TOOL_OK)
        status = check_specs(&s);
    if (status == TOOL_OK)
        status = make_layouts(&s);
    if (status == TOOL_OK)
        status = explain_algorithms(&s);
    if (status != TOOL_OK) {
        explain_free(&s);
        return status;
    }
    if (s.a.tables && tables_compute(&s.from, &s.to, &s.tables, s.why, sizeof s.why) == 0)
        s.tp = &s.tables;
    tool_warn_cores(s.rank0, s.report.threads, s.report.cores,
                    s.a.cores ? "a rank (--cores)" : "this process");
    if (s.rank0) {
        if (s.a.json)
            print_json(&s);
        else
            print_text(&s);
    }
    explain_free(&s);
    return TOOL_OK;
}
