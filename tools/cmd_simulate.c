/* redist simulate: [LBP96]'s GDM model for cyclic(x) -> cyclic(Kx) on P processors, for
 * any P, K and N, without MPI (src/algo/simulate.c). Prints each schedule's predicted time over a
 * range of array sizes, the size where direct overtakes indirect, and how that crossover
 * moves with the ratio T_d / tau_d (Fig. 20's four machines). */
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
    "Predicted time of one cyclic(x) -> cyclic(Kx) redistribution of N elements of b bytes\n"
    "on P processors under [LBP96]'s GDM model (Corollary 2): T_d seconds per message,\n"
    "tau_d seconds per byte, step counts from the real schedules. No MPI launch needed.\n"
    "Defaults: Fig. 20(a): P = K = 128, b = 4, T_d = 40e-6, tau_d = 35e-9, hybrid d = 2,\n"
    "N from 2^10 to 2^30 by powers of 4. --d auto picks the best d for each N.\n"
    "Prints a table per N, the crossover N where direct overtakes indirect, and the\n"
    "crossover for Fig. 20(b)-(d) (T_d, tau_d divided by 2 and 4, 4 and 2, 32 and 8).\n"
    "Limits: 1 <= K <= P <= 2^31 - 1, 0.125 <= b <= 1e9, 0 <= T_d <= 1, 1e-15 <= tau_d <= 1,\n"
    "0 <= d <= ceil(log2 K') + ceil(log2 G), 1 <= from <= to <= 2^53 (whole numbers).\n";

/* The options, table-driven: each value is parsed by its kind ('i': an integer, a count of
   the SPEC grammar as explain's --procs (1024, 1k, 2^10: spec_parse_count);
   'w': a whole number, strtod, so 1e9 is fine; 'r': a real) and must lie in [lo, hi]. The
   limits keep every accepted input in O(sqrt K) time and no memory (src/algo/simulate.h) and every
   printed time finite and non-negative (docs/tool.md). */
enum { O_PROCS, O_K, O_BYTES, O_TD, O_TAU, O_D, O_FROM, O_TO, NOPTS };
#define MAX_N 9007199254740992.0 /* 2^53: every N exact in a double */

typedef struct sim_opt {
    const char *name, *def;
    char kind;
    double lo, hi;
    const char *range; /* "must be ..." */
} sim_opt;

static const sim_opt options[NOPTS] = {
    [O_PROCS] = {"--procs", "128", 'i', 1, REDIST__SIM_MAX_P, "an integer in [1, 2147483647]"},
    [O_K] = {"--K", "128", 'i', 1, REDIST__SIM_MAX_P, "an integer in [1, P]"},
    [O_BYTES] = {"--bytes", "4", 'r', 0.125, 1e9, "a number in [0.125, 1e9]"},
    [O_TD] = {"--Td", "40e-6", 'r', 0, 1, "a number of seconds in [0, 1]"},
    [O_TAU] = {"--tau", "35e-9", 'r', 1e-15, 1, "a number of seconds in [1e-15, 1]"},
    [O_D] = {"--d", "2", 'i', 0, 62, "'auto' or an integer in [0, L]"},
    [O_FROM] = {"--from", "1024", 'w', 1, MAX_N, "a whole number in [1, 2^53]"},
    [O_TO] = {"--to", "1073741824", 'w', 1, MAX_N, "a whole number in [--from, 2^53]"},
};

typedef struct sim_args {
    const char *text[NOPTS]; /* as given, or the default */
    int64_t P, K;
    double b, Td, tau, from, to;
    int d; /* -1: auto */
} sim_args;

/* One line naming option k and its value; the reason follows "must be ". */
static int bad(const sim_args *a, int k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "redist simulate: %s: bad value '%s'%s: must be ", options[k].name, a->text[k],
            a->text[k] == options[k].def ? " (the default)" : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return TOOL_USAGE;
}

/* Option k's value from text into *out; -1 if it is not a number of the option's kind in
   range ("auto" is --d's -1). */
static int number(int k, const char *text, double *out)
{
    const sim_opt *o = &options[k];
    if (k == O_D && !strcmp(text, "auto"))
        return *out = -1, 0;
    if (o->kind == 'i') { /* a count as explain --procs reads it: 1024, 1k, 2^10 */
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

/* One option of simulate at argv[*i] (a tool_take_fn). */
static int sim_option(int argc, char **argv, int *i, void *ctx, int rank0)
{
    sim_parse *p = ctx;
    const char *value = NULL;
    int k = 0, m = 0;
    (void)rank0; /* no MPI: the one process prints */
    while (k < NOPTS && (m = tool_opt_value(argc, argv, i, options[k].name, &value)) == 0)
        k++;
    if (k == NOPTS) {
        fprintf(stderr, "redist simulate: unknown option '%s' (see redist simulate --help)\n",
                argv[*i]);
        return TOOL_USAGE;
    }
    if (m < 0) {
        fprintf(stderr, "redist simulate: %s: missing value\n", argv[*i]);
        return TOOL_USAGE;
    }
    p->a->text[k] = value;
    if (number(k, value, &p->v[k]) != 0)
        return bad(p->a, k, "%s", options[k].range);
    return TOOL_OK;
}

static int parse(int argc, char **argv, sim_args *a)
{
    double v[NOPTS];
    for (int k = 0; k < NOPTS; k++)
        number(k, a->text[k] = options[k].def, &v[k]);
    sim_parse p = {a, v};
    int status = tool_each_option(argc, argv, "simulate", sim_option, &p, 1);
    if (status != TOOL_OK)
        return status;
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

int tool_simulate(int argc, char **argv)
{
    sim_args a;
    int status = parse(argc, argv, &a);
    if (status != TOOL_OK)
        return status;
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
