/* redist: the command-line tool (docs/tool.md).
 *
 *   redist [demo]                      a short tour, under mpirun
 *   redist run --from SPEC --to SPEC   one redistribution with real data, timed, verified
 *   redist explain --from SPEC ...     the plan without running it (no MPI launch)
 *
 * This file holds main and the tool's own help: it finds the sub-command, each in its own
 * file cmd_<name>.c (commands.h), and calls it. The sub-commands share cmdline.c, data.c,
 * measure.c, report.c, spec.c and tables.c, which call none of them. demo, run, calibrate and bench
 * run between MPI_Init and MPI_Finalize called here; explain, simulate, help and version never
 * touch MPI.
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "redist.h"
#include "report.h"

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
    "  n=64x64x64,pencil=0,procs=4\n"
    "keys: n (extents, AxB...), block (one value or one per dimension), procs (P processes:\n"
    "grid P x 1 x ...), grid (AxB...), first (coordinates of the first block's owner; -1:\n"
    "replicated), ranks (4-7, 3:1:2:0, 0-3:8-11), order (row or col); or one box per rank:\n"
    "boxes (a file: a line per rank, lower and upper corner), pencil=AXIS, slab=AXIS,\n"
    "brick. Numbers take k/M/G suffixes (10^3, 10^6, 10^9) or powers (2^22). See\n"
    "docs/tool.md.\n"
    "\n"
    "exit status: 0 success, 1 failure (library error, wrong elements), 2 bad command line\n"
    "or SPEC, 3 not implemented yet.\n";

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
