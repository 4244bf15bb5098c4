/* Shared pieces of the redist command-line tool (the .c files in tools/). */
#ifndef REDIST_TOOL_H
#define REDIST_TOOL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "redist.h"
#include "spec.h"

/* Exit statuses (docs/tool.md). */
enum {
    TOOL_OK = 0,
    TOOL_FAILED = 1, /* a library error, a wrong element, out of memory */
    TOOL_USAGE = 2,  /* bad command line or SPEC */
    TOOL_NOT_YET = 3 /* sub-command not implemented yet */
};

/* ---- Element types (--type) ---------------------------------------------------------- */
typedef enum { TOOL_CHAR, TOOL_INT, TOOL_DOUBLE, TOOL_DOUBLE3, TOOL_NTYPES } tool_type;
extern const char *const tool_type_names[TOOL_NTYPES];
extern const int tool_type_sizes[TOOL_NTYPES];
/* Returns 0 and sets *type, or -1 for an unknown name. */
int tool_type_parse(const char *name, tool_type *type);
/* The MPI datatype of a tool type; double3 is a new committed type the caller frees. */
MPI_Datatype tool_mpi_type(tool_type type);

/* ---- Command line ----------------------------------------------------------------------
   Matches argv[*i] against `--name VALUE` or `--name=VALUE`. Returns 1 and sets *value
   (advancing *i past a separate value), 0 if argv[*i] is something else, -1 if the value is
   missing. */
int tool_opt_value(int argc, char **argv, int *i, const char *name, const char **value);
int tool_wants_help(int argc, char **argv); /* any of -h, --help */
/* 1 unless a launcher's environment says this process is not rank 0 (for output before or
   without MPI_Init). */
int tool_env_is_rank0(void);
/* The algorithm names the library knows; 0 if `name` is one of them. Prints nothing. */
int tool_check_algorithm(const char *name);
/* "auto, direct, ..." into buf. */
void tool_algorithm_list(char *buf, size_t len);

/* The options `run` and `explain` share: --from SPEC, --to SPEC, --algorithm A, --type T. */
typedef struct tool_pair_opts {
    const char *from, *to, *algorithm;
    tool_type type;
} tool_pair_opts;
void tool_pair_init(tool_pair_opts *o); /* type double, algorithm "auto" */
/* Like tool_opt_value for those four options: 1 (taken), 0 (another argument) or -1 (value
   missing). A bad --type writes its message into msg (else msg is ""). */
int tool_pair_option(int argc, char **argv, int *i, tool_pair_opts *o, char *msg, size_t len);
/* After the arguments of command `cmd`: 0, or -1 with the message (--from or --to missing,
   unknown algorithm) in msg. */
int tool_pair_check(const tool_pair_opts *o, const char *cmd, char *msg, size_t len);

/* After both specs parsed: 0, or -1 with the message (dimensions or extents differ, the array
   has 2^63 bytes or more) in msg. */
int tool_specs_check(const tool_spec *from, const tool_spec *to, tool_type type, char *msg,
                     size_t len);
/* "what: <strerror> (<the library's detail>)" for a library error code, into buf. */
const char *tool_lib_error(char *buf, size_t len, const char *what, int rc);

/* ---- Formatting -------------------------------------------------------------------------- */
const char *tool_fmt_bytes(char *buf, size_t len, double bytes);     /* "32.0 MB" (10^6) */
const char *tool_fmt_seconds(char *buf, size_t len, double seconds); /* "3.21 ms" */

/* ---- Data: value = f(global row-major index) ------------------------------------------- */
/* Fills rank's local array of the layout in spec with the value of each element's global
   index, walking runs along the fastest local dimension. */
void tool_fill(const tool_spec *spec, int rank, tool_type type, void *local);
/* Counts local elements whose value is wrong; *first_bad = smallest wrong global row-major
   index (INT64_MAX if none). */
int64_t tool_verify(const tool_spec *spec, int rank, tool_type type, const void *local,
                    int64_t *first_bad);

/* ---- Timing (paper 000, Fig. 13) ---------------------------------------------------------
   For each of n1 trials: barrier, time n2 consecutive executes on this rank, take the average;
   the trial's time is the slowest rank's average (MPI_Allreduce MAX). Tmin/Tmed/Tavg/Tmax
   summarise the n1 trial times. */
typedef struct tool_timing {
    int n1, n2;
    double tmin, tmed, tavg, tmax;
} tool_timing;
/* Collective over comm. progress: show a progress line on rank 0's stderr. Returns the
   library's code (the same on every rank). */
int tool_time_plan(redist_plan plan, const void *src, void *dst, MPI_Comm comm, int n1, int n2,
                   int progress, tool_timing *out);

/* Sub-commands. */
int tool_demo(int argc, char **argv);
int tool_run(int argc, char **argv);
int tool_explain(int argc, char **argv);
int tool_simulate(int argc, char **argv);

extern const char tool_demo_help[], tool_run_help[], tool_explain_help[], tool_simulate_help[];

#endif
