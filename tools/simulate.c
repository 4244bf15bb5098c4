/* redist simulate: paper 000's GDM model for cyclic(x) -> cyclic(Kx) on P processors, for
 * any P, K and N, without MPI (src/simulate.c). Prints each schedule's predicted time over a
 * range of array sizes, the size where direct overtakes indirect, and how that crossover
 * moves with the ratio T_d / tau_d (Fig. 20's four machines). */
#include "simulate.h"
#include "tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char tool_simulate_help[] =
    "usage: redist simulate [--procs P] [--K K] [--bytes b] [--Td s] [--tau s] [--d D]\n"
    "                       [--from N] [--to N]\n"
    "Predicted time of one cyclic(x) -> cyclic(Kx) redistribution of N elements of b bytes\n"
    "on P processors under paper 000's GDM model (Corollary 2): T_d seconds per message,\n"
    "tau_d seconds per byte, step counts from the real schedules. No MPI launch needed.\n"
    "Defaults: Fig. 20(a): P = K = 128, b = 4, T_d = 40e-6, tau_d = 35e-9, hybrid d = 2,\n"
    "N from 2^10 to 2^30 by powers of 4. --d auto picks the best d for each N.\n"
    "Prints a table per N, the crossover N where direct overtakes indirect, and the\n"
    "crossover for Fig. 20(b)-(d) (T_d, tau_d divided by 2 and 4, 4 and 2, 32 and 8).\n";

typedef struct sim_args {
    int64_t P, K;
    double b, Td, tau, from, to;
    int d;
} sim_args;

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "redist simulate: %s: bad value '%s'\n", what, value ? value : "");
    return TOOL_USAGE;
}

static int parse(int argc, char **argv, sim_args *a)
{
    *a = (sim_args){128, 128, 4, 40e-6, 35e-9, 1024, 1073741824.0, 2};
    for (int i = 0; i < argc; i++) {
        const char *v = NULL;
        char *end = NULL;
        if (tool_opt_value(argc, argv, &i, "--procs", &v) > 0)
            a->P = strtoll(v, &end, 10);
        else if (tool_opt_value(argc, argv, &i, "--K", &v) > 0)
            a->K = strtoll(v, &end, 10);
        else if (tool_opt_value(argc, argv, &i, "--bytes", &v) > 0)
            a->b = strtod(v, &end);
        else if (tool_opt_value(argc, argv, &i, "--Td", &v) > 0)
            a->Td = strtod(v, &end);
        else if (tool_opt_value(argc, argv, &i, "--tau", &v) > 0)
            a->tau = strtod(v, &end);
        else if (tool_opt_value(argc, argv, &i, "--from", &v) > 0)
            a->from = strtod(v, &end);
        else if (tool_opt_value(argc, argv, &i, "--to", &v) > 0)
            a->to = strtod(v, &end);
        else if (tool_opt_value(argc, argv, &i, "--d", &v) > 0) {
            if (!strcmp(v, "auto")) {
                a->d = -1;
                continue;
            }
            a->d = (int)strtol(v, &end, 10);
        } else
            return bad("unknown option", argv[i]);
        if (v == NULL || end == v || *end != '\0')
            return bad(argv[i], v);
    }
    if (a->P < 1 || a->K < 1 || a->K > a->P)
        return bad("--K", "K must be in [1, P]: K > P is all-to-all, not a table case");
    if (a->b <= 0 || a->Td < 0 || a->tau < 0 || a->from < 1 || a->to < a->from || a->d < -1)
        return bad("arguments", "sizes and times must be positive, --from <= --to");
    return TOOL_OK;
}

static void print_table(const sim_args *a)
{
    redist__sim_row rows[REDIST__SIM_ROWS];
    redist__simulate_rx(a->K, a->P, a->from, a->b, a->Td, a->tau, a->d, rows);
    printf("  %12s", "N");
    for (int k = 0; k < REDIST__SIM_ROWS - 1; k++)
        printf(" %11s", rows[k].name);
    printf("  fastest\n  %12s", "(steps)");
    for (int k = 0; k < REDIST__SIM_ROWS - 1; k++)
        printf(" %11d", rows[k].steps);
    printf("%s\n", a->d >= 0 ? "" : "  (hybrid: best d per N)");
    for (double N = a->from; N <= a->to * 1.0000001; N *= 4) {
        redist__simulate_rx(a->K, a->P, N, a->b, a->Td, a->tau, a->d, rows);
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
    printf("redist simulate: cyclic(x) -> cyclic(%lldx) on P = %lld, elements of %g bytes, "
           "GDM model (paper 000, Corollary 2)\n",
           (long long)a.K, (long long)a.P, a.b);
    print_table(&a);
    printf("\n  crossover (indirect wins below, direct above):\n");
    print_crossover("this machine model", &a, a.Td, a.tau);
    print_crossover("Fig. 20(a) IBM SP-2", &a, 40e-6, 35e-9);
    print_crossover("Fig. 20(b) T_d/2, tau_d/4 (2R)", &a, 20e-6, 35e-9 / 4);
    print_crossover("Fig. 20(c) T_d/4, tau_d/2 (R/2)", &a, 10e-6, 35e-9 / 2);
    print_crossover("Fig. 20(d) T_d/32, tau_d/8 (R/4)", &a, 40e-6 / 32, 35e-9 / 8);
    return TOOL_OK;
}
