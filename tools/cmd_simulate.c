/* redist simulate: [LBP96]'s GDM model for cyclic(x) -> cyclic(Kx) on P processors, for
 * any P, K and N, without MPI (src/algo/simulate.c). Prints each schedule's predicted time over a
 * range of array sizes, the size where direct overtakes indirect, and how that crossover
 * moves with the ratio T_d / tau_d (Fig. 20's four machines).
 *
 * With --nodes (or any other option of the node mode): redistributions on many nodes of k ranks,
 * flat against node-aware and auto's choice, each row costed by the algorithms' own predictions
 * on a described all-to-all or a real cyclic(1) -> cyclic(3) (src/algo/simulate.c). */
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "report.h"
#include "simulate.h"

const char tool_simulate_help[] =
    "usage: redist simulate [--procs P] [--K K] [--bytes b] [--Td s] [--tau s] [--d D|auto]\n"
    "                       [--from N] [--to N]\n"
    "       redist simulate --nodes LIST [--ranks-per-node k] [--bytes LIST]\n"
    "                       [--pattern alltoall|cyclic] [--remote-startup s]\n"
    "                       [--remote-per-byte s] [--machine defaults|current] [--csv]\n"
    "Predicted time of one cyclic(x) -> cyclic(Kx) redistribution of N elements of b bytes\n"
    "on P processors under [LBP96]'s GDM model (Corollary 2): T_d seconds per message,\n"
    "tau_d seconds per byte, step counts from the real schedules. No MPI launch needed.\n"
    "Defaults: Fig. 20(a): P = K = 128, b = 4, T_d = 40e-6, tau_d = 35e-9, hybrid d = 2,\n"
    "N from 2^10 to 2^30 by powers of 4. --d auto picks the best d for each N.\n"
    "Prints a table per N, the crossover N where direct overtakes indirect, and the\n"
    "crossover for Fig. 20(b)-(d) (T_d, tau_d divided by 2 and 4, 4 and 2, 32 and 8).\n"
    "Limits: 1 <= K <= P <= 2^31 - 1, 0.125 <= b <= 1e9, 0 <= T_d <= 1, 1e-15 <= tau_d <= 1,\n"
    "0 <= d <= ceil(log2 K') + ceil(log2 G), 1 <= from <= to <= 2^53 (whole numbers).\n"
    "\n"
    "Node mode (--nodes or any option of its line): P = nodes x k ranks on nodes of k\n"
    "consecutive ranks, every rank pair that talks moving m bytes (--bytes: per rank pair).\n"
    "Prints per pattern and row the predicted seconds of direct-async, alltoallv and\n"
    "node-aware, flat / node-aware (flat: the faster of the two flat ones) and auto's choice\n"
    "with its prediction over the best one's. Patterns: alltoall (every rank to every other,\n"
    "a P x P matrix row r on rank r -> column s on rank s; described in closed form) and\n"
    "cyclic (1-D cyclic(1) -> cyclic(3), 3 elements a rank: real layouts, at most 3 peers).\n"
    "LIST: comma-separated counts (64, 4k, 2^20) or ranges A..B (A, 2A, 4A, ... up to B).\n"
    "Defaults: nodes 2..1024, k = 64, bytes 64,512,4096,32768,2^20, both patterns, the\n"
    "machine's defaults (--machine current: the machine file and REDIST_MACHINE_* as a plan\n"
    "reads them) with shared_node = 0, remote_startup and remote_per_byte from the machine\n"
    "unless given. --csv: one comma-separated line per row instead of the tables.\n"
    "Limits: 2 <= nodes, 1 <= k, nodes x k <= 2^20, 1 <= m <= 2^30, the alltoall's array\n"
    "below 2^63 bytes, cyclic: nodes x nodes x k <= 2^27, 0 <= s <= 1, lists of at most 32.\n";

/* The options, table-driven: each value is parsed by its kind ('i': an integer, a count of
   the SPEC grammar as explain's --procs (1024, 1k, 2^10: spec_parse_count);
   'w': a whole number, strtod, so 1e9 is fine; 'r': a real) and must lie in [lo, hi]. The
   limits keep every accepted input in O(sqrt K) time and no memory (src/algo/simulate.h) and every
   printed time finite and non-negative (docs/tool.md). The node mode's options follow, with
   their own kinds ('L': a LIST of counts, 'n': a count, 'p': pattern names, 'm': a machine,
   'f': a flag without a value); --bytes is a LIST there (node_bytes). */
enum {
    O_PROCS,
    O_K,
    O_BYTES,
    O_TD,
    O_TAU,
    O_D,
    O_FROM,
    O_TO,
    NOPTS, /* the [LBP96] mode's */
    O_NODES = NOPTS,
    O_PER_NODE,
    O_PATTERN,
    O_REMOTE_STARTUP,
    O_REMOTE_PER_BYTE,
    O_MACHINE,
    O_CSV,
    NALL
};
#define MAX_N 9007199254740992.0 /* 2^53: every N exact in a double */
enum { MAX_LIST = 32 };          /* values of one LIST: rows are their products */

typedef struct sim_opt {
    const char *name, *def;
    char kind;
    double lo, hi;
    const char *range; /* "must be ..." */
} sim_opt;

static const sim_opt options[NALL] = {
    [O_PROCS] = {"--procs", "128", 'i', 1, REDIST__SIM_MAX_P, "an integer in [1, 2147483647]"},
    [O_K] = {"--K", "128", 'i', 1, REDIST__SIM_MAX_P, "an integer in [1, P]"},
    [O_BYTES] = {"--bytes", "4", 'r', 0.125, 1e9, "a number in [0.125, 1e9]"},
    [O_TD] = {"--Td", "40e-6", 'r', 0, 1, "a number of seconds in [0, 1]"},
    [O_TAU] = {"--tau", "35e-9", 'r', 1e-15, 1, "a number of seconds in [1e-15, 1]"},
    [O_D] = {"--d", "2", 'i', 0, 62, "'auto' or an integer in [0, L]"},
    [O_FROM] = {"--from", "1024", 'w', 1, MAX_N, "a whole number in [1, 2^53]"},
    [O_TO] = {"--to", "1073741824", 'w', 1, MAX_N, "a whole number in [--from, 2^53]"},
    [O_NODES] = {"--nodes", "2..1024", 'L', 2, (double)REDIST__SIM_NODES_MAX_RANKS,
                 "a LIST of at most 32 counts in [2, 2^20] (2,4,8 or 2..1024)"},
    [O_PER_NODE] = {"--ranks-per-node", "64", 'n', 1, (double)REDIST__SIM_NODES_MAX_RANKS / 2,
                    "a count in [1, 2^19]"},
    [O_PATTERN] = {"--pattern", "alltoall,cyclic", 'p', 0, 0,
                   "alltoall, cyclic or alltoall,cyclic"},
    [O_REMOTE_STARTUP] = {"--remote-startup", NULL, 'r', 0, 1, "a number of seconds in [0, 1]"},
    [O_REMOTE_PER_BYTE] = {"--remote-per-byte", NULL, 'r', 0, 1, "a number of seconds in [0, 1]"},
    [O_MACHINE] = {"--machine", "defaults", 'm', 0, 0, "defaults or current"},
    [O_CSV] = {"--csv", NULL, 'f', 0, 0, "given without a value"},
};
/* --bytes in the node mode: bytes per rank pair. */
static const sim_opt node_bytes = {"--bytes",
                                   "64,512,4096,32768,2^20",
                                   'L',
                                   1,
                                   (double)REDIST__SIM_NODES_MAX_BYTES,
                                   "a LIST of at most 32 counts in [1, 2^30] (64,4k or 64..2^20)"};
static const char *const pattern_names[] = {"alltoall", "cyclic"}; /* redist__sim_pattern */

typedef struct sim_args {
    const char *text[NALL]; /* as given, or the default (NULL: none) */
    int given[NALL];
    int64_t P, K;
    double b, Td, tau, from, to;
    int d; /* -1: auto */
    /* the node mode */
    int nodes_mode;
    int64_t nodes[MAX_LIST], bytes[MAX_LIST], per_node;
    int nnodes, nbytes;
    redist__sim_pattern patterns[2];
    int npatterns, current_machine, csv;
    double remote[2]; /* --remote-startup, --remote-per-byte (given[]: whether) */
} sim_args;

/* One line naming option o (text: its value) and the reason, which follows "must be ". */
static int bad_value(const sim_opt *o, const char *text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "redist simulate: %s: bad value '%s'%s: must be ", o->name, text,
            text == o->def ? " (the default)" : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return TOOL_USAGE;
}
#define bad(a, k, ...) bad_value(&options[k], (a)->text[k], __VA_ARGS__)

/* A LIST's values into out[MAX_LIST]: items separated by commas, each a count (spec_parse_count)
   or A..B (A, 2A, 4A, ... while at most B; A <= B), all in [lo, hi]. The count, or -1. */
static int parse_list(const char *text, double lo, double hi, int64_t *out)
{
    int n = 0;
    for (const char *p = text;; p++) {
        const char *end = strchr(p, ','), *dots;
        end = end != NULL ? end : p + strlen(p);
        int64_t a, b;
        for (dots = p; dots + 1 < end && !(dots[0] == '.' && dots[1] == '.'); dots++)
            ;
        int range = dots + 1 < end;
        if (spec_parse_count_span(p, range ? dots : end, &a) != 0 ||
            (range && spec_parse_count_span(dots + 2, end, &b) != 0))
            return -1;
        b = range ? b : a;
        if (a < lo || b > hi || a > b)
            return -1;
        for (int64_t v = a; v <= b; v = v > b / 2 ? b + 1 : 2 * v) {
            if (n == MAX_LIST)
                return -1;
            out[n++] = v;
        }
        if (*end == '\0')
            return n;
        p = end;
    }
}

/* --pattern's names into a->patterns; -1 for a word that is none or a repeat. */
static int parse_patterns(const char *text, sim_args *a)
{
    a->npatterns = 0;
    for (const char *p = text;; p++) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < 2 && !(strlen(pattern_names[k]) == len && !strncmp(p, pattern_names[k], len)))
            k++;
        for (int i = 0; i < a->npatterns; i++)
            k = a->patterns[i] == (redist__sim_pattern)k ? 2 : k;
        if (k == 2)
            return -1;
        a->patterns[a->npatterns++] = (redist__sim_pattern)k;
        if (p[len] == '\0')
            return 0;
        p += len;
    }
}

/* Option k's value from text into *out; -1 if it is not a number of the option's kind in
   range ("auto" is --d's -1). The node mode's LISTs, patterns and machine go into *a. */
static int number(int k, const char *text, double *out, sim_args *a)
{
    const sim_opt *o = &options[k];
    if (k == O_D && !strcmp(text, "auto"))
        return *out = -1, 0;
    if (o->kind == 'L') /* --nodes (the node mode's --bytes: after the mode is known) */
        return (a->nnodes = parse_list(text, o->lo, o->hi, a->nodes)) > 0 ? 0 : -1;
    if (o->kind == 'p')
        return parse_patterns(text, a);
    if (o->kind == 'm') {
        a->current_machine = !strcmp(text, "current");
        return a->current_machine || !strcmp(text, "defaults") ? 0 : -1;
    }
    if (o->kind == 'i' ||
        o->kind == 'n') { /* a count as explain --procs reads it: 1024, 1k, 2^10 */
        int64_t count;
        if (spec_parse_count(text, &count) != 0 || count < o->lo || count > o->hi)
            return -1;
        *out = (double)count;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (isspace((unsigned char)*text) || end == text || *end != '\0' || errno == ERANGE ||
        !isfinite(v) || v < o->lo || v > o->hi || (o->kind == 'w' && v != floor(v)))
        return -1;
    *out = v + 0.0; /* -0 -> 0 */
    return 0;
}

/* What sim_option fills: the texts, and the values parsed from them. */
typedef struct sim_parse {
    sim_args *a;
    double *v;
} sim_parse;

/* One option of simulate at argv[*i] (a tool_take_fn). The [LBP96] mode's --bytes is parsed
   once the mode is known (parse). */
static int sim_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    sim_parse *p = ctx;
    const char *value = NULL;
    int k = 0, m = 0;
    (void)rank0; /* no MPI: the one process prints */
    if (!strcmp(argv[*i], options[O_CSV].name)) {
        p->a->given[O_CSV] = p->a->csv = 1;
        return TOOL_OK;
    }
    if (!strncmp(argv[*i], "--csv=", 6)) {
        fprintf(stderr, "redist simulate: --csv: takes no value\n");
        return TOOL_USAGE;
    }
    while (k < NALL &&
           (k == O_CSV || (m = tool_opt_value(argc, argv, i, options[k].name, &value)) == 0))
        k++;
    if (k == NALL) {
        fprintf(stderr, "redist simulate: unknown option '%s' (see redist simulate --help)\n",
                argv[*i]);
        return TOOL_USAGE;
    }
    if (m < 0) {
        fprintf(stderr, "redist simulate: %s: missing value\n", argv[*i]);
        return TOOL_USAGE;
    }
    p->a->text[k] = value;
    p->a->given[k] = 1;
    if (k != O_BYTES && number(k, value, &p->v[k], p->a) != 0)
        return bad(p->a, k, "%s", options[k].range);
    return TOOL_OK;
}

static int parse_nodes(sim_args *a, const double *v);

static int parse(int argc, char **argv, sim_args *a)
{
    double v[NALL] = {0};
    memset(a, 0, sizeof *a);
    for (int k = 0; k < NALL; k++)
        if ((a->text[k] = options[k].def) != NULL && options[k].kind != 'f')
            number(k, a->text[k], &v[k], a);
    sim_parse p = {a, v};
    int status = tool_each_option(argc, argv, "simulate", sim_option, &p, 1);
    if (status != TOOL_OK)
        return status;
    for (int k = NOPTS; k < NALL; k++)
        a->nodes_mode |= a->given[k];
    if (a->nodes_mode)
        return parse_nodes(a, v);
    if (number(O_BYTES, a->text[O_BYTES], &v[O_BYTES], a) != 0)
        return bad(a, O_BYTES, "%s", options[O_BYTES].range);
    a->P = (int64_t)v[O_PROCS];
    a->K = (int64_t)v[O_K];
    a->b = v[O_BYTES];
    a->Td = v[O_TD];
    a->tau = v[O_TAU];
    a->d = (int)v[O_D];
    a->from = v[O_FROM];
    a->to = v[O_TO];
    if (a->K > a->P)
        return bad(a, O_K, "an integer in [1, P = %lld]: K > P is all-to-all, not a table case",
                   (long long)a->P);
    if (a->to < a->from)
        return bad(a, O_TO, "a whole number in [--from = %.0f, 2^53]", a->from);
    int L = redist__simulate_max_degree(a->K, a->P);
    if (a->d > L && a->text[O_D] == options[O_D].def)
        a->d = L; /* the default d = 2 where there are fewer shift steps */
    else if (a->d > L)
        return bad(
            a, O_D,
            "'auto' or an integer in [0, L = %d] (L = ceil(log2 K') + ceil(log2 G) for K = %lld, P = %lld; d = L is the indirect schedule)",
            L, (long long)a->K, (long long)a->P);
    return TOOL_OK;
}

/* The node mode's arguments, once every option is read: no option of the [LBP96] mode but
   --bytes (a LIST here), and every row within simulate.h's limits. */
static int parse_nodes(sim_args *a, const double *v)
{
    int node_option = NOPTS;
    while (!a->given[node_option])
        node_option++;
    for (int k = 0; k < NOPTS; k++)
        if (a->given[k] && k != O_BYTES) {
            fprintf(stderr,
                    "redist simulate: %s does not go with %s (the node mode; see redist simulate "
                    "--help)\n",
                    options[k].name, options[node_option].name);
            return TOOL_USAGE;
        }
    const char *bytes = a->given[O_BYTES] ? a->text[O_BYTES] : node_bytes.def;
    if ((a->nbytes = parse_list(bytes, node_bytes.lo, node_bytes.hi, a->bytes)) <= 0)
        return bad_value(&node_bytes, bytes, "%s", node_bytes.range);
    a->per_node = (int64_t)v[O_PER_NODE];
    a->remote[0] = v[O_REMOTE_STARTUP];
    a->remote[1] = v[O_REMOTE_PER_BYTE];
    for (int i = 0; i < a->nnodes; i++) {
        int64_t nodes = a->nodes[i], P = nodes * a->per_node;
        if (nodes > REDIST__SIM_NODES_MAX_RANKS / a->per_node)
            return bad(a, O_NODES, "%s, and nodes x ranks-per-node (%lld) at most 2^20",
                       options[O_NODES].range, (long long)a->per_node);
        for (int j = 0; j < a->npatterns; j++) {
            redist__sim_pattern pat = a->patterns[j];
            if (pat == REDIST__SIM_CYCLIC && nodes > REDIST__SIM_CYCLIC_MAX_WORK / P)
                return bad(a, O_NODES,
                           "%s, and for cyclic nodes x nodes x ranks-per-node (%lld) at most 2^27 "
                           "(it enumerates the real layouts)",
                           options[O_NODES].range, (long long)a->per_node);
            for (int b = 0; b < a->nbytes; b++)
                if (!redist__simulate_nodes_ok(pat, nodes, a->per_node, a->bytes[b]))
                    return bad_value(&node_bytes, bytes,
                                     "%s, and for alltoall P x P x m below 2^63 bytes (P = %lld)",
                                     node_bytes.range, (long long)P);
        }
    }
    return TOOL_OK;
}

static int print_table(const sim_args *a)
{
    redist__sim_row rows[REDIST__SIM_ROWS];
    if (redist__simulate_rx(a->K, a->P, a->from, a->b, a->Td, a->tau, a->d, rows) != 0)
        return TOOL_FAILED; /* not after parse() */
    printf("  %12s", "N");
    for (int k = 0; k < REDIST__SIM_ROWS - 1; k++)
        printf(" %11s", rows[k].name);
    printf("  fastest\n  %12s", "(steps)");
    for (int k = 0; k < REDIST__SIM_ROWS - 1; k++)
        printf(" %11d", rows[k].steps);
    printf("%s\n", a->d >= 0 ? "" : "  (hybrid: best d per N)");
    for (double N = a->from; N <= a->to * 1.0000001; N *= 4) {
        if (redist__simulate_rx(a->K, a->P, N, a->b, a->Td, a->tau, a->d, rows) != 0)
            return TOOL_FAILED;
        int best = 0;
        printf("  %12.0f", N);
        for (int k = 0; k < REDIST__SIM_ROWS - 1; k++) {
            char t[32];
            printf(" %11s", tool_fmt_seconds(t, sizeof t, rows[k].seconds));
            best = rows[k].seconds < rows[best].seconds ? k : best;
        }
        printf("  %s", rows[best].name);
        if (best == 2)
            printf(" (d = %d)", rows[2].d);
        printf("\n");
    }
    return TOOL_OK;
}

static void print_crossover(const char *label, const sim_args *a, double td, double tau)
{
    double n = redist__simulate_crossover(a->K, a->P, a->b, td, tau);
    printf("  %-34s T_d = %-9.3g tau_d = %-9.3g R = %-8.0f ", label, td, tau, td / tau);
    if (n < 0)
        printf("no crossover\n");
    else
        printf("direct beats indirect above N = %.0f (%.3g MB)\n", n, n * a->b / 1e6);
}

/* ---- the node mode ------------------------------------------------------------------------ */

/* m bytes as "64 B", "4 KiB", "1 MiB" (exact: the largest unit that divides it). */
static const char *fmt_pair_bytes(char *buf, size_t len, int64_t m)
{
    if (m % (1 << 20) == 0)
        snprintf(buf, len, "%lld MiB", (long long)(m >> 20));
    else if (m % 1024 == 0)
        snprintf(buf, len, "%lld KiB", (long long)(m >> 10));
    else
        snprintf(buf, len, "%lld B", (long long)m);
    return buf;
}

/* A prediction, or "-" where the algorithm does not apply. */
static const char *fmt_time(char *buf, size_t len, double seconds)
{
    return seconds < 0 ? "-" : tool_fmt_seconds(buf, len, seconds);
}

/* The faster of the flat algorithms that apply (-1: none). */
static double flat_time(const redist__sim_nodes_row *r)
{
    double a = r->direct_async, b = r->alltoallv;
    return a < 0 ? b : b < 0 || a < b ? a : b;
}

static const char *const pattern_titles[] = {
    "every rank sends m bytes to every other rank (a P x P matrix of m-byte elements, row r on "
    "rank r -> column s on rank s; described)",
    "cyclic(1) -> cyclic(3) of 3 P elements of m bytes (at most 3 peers per rank; the real "
    "layouts)",
};

static void print_nodes_header(const sim_args *a, const redist__machine *m, const char *source)
{
    printf("redist simulate: nodes of %lld ranks, m bytes per rank pair that talks; each time the "
           "algorithm's own prediction\n",
           (long long)a->per_node);
    printf("  machine: %s, several nodes (shared_node = 0), a rank per core\n", source);
    char link[48] = "no limit";
    if (m->remote_per_byte > 0)
        snprintf(link, sizeof link, "%.3g GB/s", 1e-9 / m->remote_per_byte);
    printf("  network: remote_startup = %g s per off-node message, remote_per_byte = %g s per "
           "byte of a node's link (%s)%s\n",
           m->remote_startup, m->remote_per_byte, link,
           a->given[O_REMOTE_STARTUP] || a->given[O_REMOTE_PER_BYTE] ? " (given)" : "");
    printf("  on a node: startup = %g s, per_message = %g s, per_byte = %g s, copy_per_byte = "
           "%g s\n",
           m->startup, m->per_message, m->per_byte, m->copy_per_byte);
}

/* One pattern's rows: a table (or CSV lines); the worst auto / best into *worst. */
static int print_nodes_pattern(const sim_args *a, redist__sim_pattern pat, const redist__machine *m,
                               double *worst)
{
    if (!a->csv) {
        printf("\n%s: %s\n", pattern_names[pat], pattern_titles[pat]);
        printf("  %7s %8s %8s %12s %11s %11s %15s  %s\n", "nodes", "ranks", "m/pair",
               "direct-async", "alltoallv", "node-aware", "flat/node-aware",
               "auto: its choice, time (/ the best's)");
    }
    for (int i = 0; i < a->nnodes; i++)
        for (int j = 0; j < a->nbytes; j++) {
            int64_t nodes = a->nodes[i], bytes = a->bytes[j];
            redist__sim_nodes_row r;
            if (redist__simulate_nodes(pat, nodes, a->per_node, bytes, m, &r) != REDIST_SUCCESS) {
                fprintf(stderr, "redist simulate: %s on %lld nodes: %s\n", pattern_names[pat],
                        (long long)nodes, redist_last_error_detail());
                return TOOL_FAILED;
            }
            double flat = flat_time(&r),
                   ratio = flat >= 0 && r.node_aware > 0 ? flat / r.node_aware : -1.0;
            double mine = r.chosen_seconds / r.best_seconds;
            *worst = r.best_seconds > 0 && mine > *worst ? mine : *worst;
            if (a->csv) {
                printf("%s,%lld,%lld,%lld,%lld,%.9g,%.9g,%.9g,%.6g,%s,%.9g,%s,%.9g\n",
                       pattern_names[pat], (long long)nodes, (long long)a->per_node,
                       (long long)(nodes * a->per_node), (long long)bytes, r.direct_async,
                       r.alltoallv, r.node_aware, ratio, r.chosen ? r.chosen : "-",
                       r.chosen_seconds, r.best ? r.best : "-", r.best_seconds);
                continue;
            }
            char t[4][32], mb[32], q[32] = "-";
            if (ratio >= 0)
                snprintf(q, sizeof q, "%.2f", ratio);
            printf("  %7lld %8lld %8s %12s %11s %11s %15s  %s, %s (%.2f)\n", (long long)nodes,
                   (long long)(nodes * a->per_node), fmt_pair_bytes(mb, sizeof mb, bytes),
                   fmt_time(t[0], sizeof t[0], r.direct_async),
                   fmt_time(t[1], sizeof t[1], r.alltoallv),
                   fmt_time(t[2], sizeof t[2], r.node_aware), q, r.chosen ? r.chosen : "-",
                   fmt_time(t[3], sizeof t[3], r.chosen_seconds), r.best_seconds > 0 ? mine : 1.0);
        }
    return TOOL_OK;
}

static int simulate_nodes(const sim_args *a)
{
    redist__machine base, m;
    char source[512] = "the defaults";
    if (a->current_machine)
        redist__machine_current(&base, source, sizeof source);
    else
        base = *redist__machine_default();
    if (a->given[O_REMOTE_STARTUP])
        base.remote_startup = a->remote[0];
    if (a->given[O_REMOTE_PER_BYTE])
        base.remote_per_byte = a->remote[1];
    redist__simulate_nodes_machine(&base, &m);
    if (a->csv)
        printf("pattern,nodes,ranks_per_node,ranks,bytes,direct_async,alltoallv,node_aware,"
               "flat_over_node_aware,auto,auto_seconds,best,best_seconds\n");
    else
        print_nodes_header(a, &m, source);
    double worst = 1.0;
    for (int k = 0; k < a->npatterns; k++) {
        int status = print_nodes_pattern(a, a->patterns[k], &m, &worst);
        if (status != TOOL_OK)
            return status;
    }
    if (!a->csv)
        printf("\nauto within 15%% of the best prediction in every row: %s (worst: %.3f of the "
               "best)\n",
               worst <= 1.15 ? "yes" : "no", worst);
    return TOOL_OK;
}

int tool_simulate(int argc, char **argv)
{
    sim_args a;
    int status = parse(argc, argv, &a);
    if (status != TOOL_OK)
        return status;
    if (a.nodes_mode)
        return simulate_nodes(&a);
    printf(
        "redist simulate: cyclic(x) -> cyclic(%lldx) on P = %lld, elements of %g bytes, GDM model ([LBP96] Corollary 2)\n",
        (long long)a.K, (long long)a.P, a.b);
    if (print_table(&a) != TOOL_OK) {
        fprintf(stderr, "redist simulate: the model rejected these arguments\n");
        return TOOL_FAILED;
    }
    printf("\n  crossover (indirect wins below, direct above):\n");
    print_crossover("this machine model", &a, a.Td, a.tau);
    print_crossover("Fig. 20(a) IBM SP-2", &a, 40e-6, 35e-9);
    print_crossover("Fig. 20(b) T_d/2, tau_d/4 (2R)", &a, 20e-6, 35e-9 / 4);
    print_crossover("Fig. 20(c) T_d/4, tau_d/2 (R/2)", &a, 10e-6, 35e-9 / 2);
    print_crossover("Fig. 20(d) T_d/32, tau_d/8 (R/4)", &a, 40e-6 / 32, 35e-9 / 8);
    return TOOL_OK;
}
