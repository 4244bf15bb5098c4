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

typedef struct tool_expect tool_expect; /* verification of transforms (below) */

/* The options `run` and `explain` share: --from SPEC, --to SPEC, --algorithm A, --type T,
   --max-buffer B, --permute P, --relabel. */
typedef struct tool_pair_opts {
    const char *from, *to, *algorithm;
    tool_type type;
    int64_t max_buffer; /* --max-buffer: bounded mode's bytes per rank (0: default mode) */
    int permuted;       /* --permute p0,p1,...: options.permutation */
    int permute[SPEC_MAX_DIMS];
    int npermute;
    int relabel; /* --relabel: the destination's ranks chosen by redist_relabel */
} tool_pair_opts;
void tool_pair_init(tool_pair_opts *o); /* type double, algorithm "auto" */
/* Like tool_opt_value for those seven options: 1 (taken), 0 (another argument) or -1 (value
   missing). A bad --type, --max-buffer or --permute writes its message into msg (else msg is
   ""). */
int tool_pair_option(int argc, char **argv, int *i, tool_pair_opts *o, char *msg, size_t len);
/* After the arguments of command `cmd`: 0, or -1 with the message (--from or --to missing,
   unknown algorithm) in msg. */
int tool_pair_check(const tool_pair_opts *o, const char *cmd, char *msg, size_t len);

/* After both specs parsed: 0, or -1 with the message (dimensions or extents differ, the array
   has 2^63 bytes or more) in msg. */
int tool_specs_check(const tool_spec *from, const tool_spec *to, const tool_pair_opts *o, char *msg,
                     size_t len);
/* "what: <strerror> (<the library's detail>)" for a library error code, into buf. */
const char *tool_lib_error(char *buf, size_t len, const char *what, int rc);

/* The checks `run` and `explain` share once their arguments are read, one path for both so
   that a command line gets the same verdict and the same message from either: options that
   exclude each other, both specs parsed for a communicator of procs processes (0: explain
   without --procs, a spec naming no processes spans the other's), the ranks they use within
   it, the specs against each other. TOOL_OK, or TOOL_USAGE once rank0 has printed why. The
   specs need spec_free either way. */
int tool_pair_specs(const tool_pair_opts *o, int procs, tool_spec *from, tool_spec *to, int rank0);
/* A plan the library refused (or explain's account of it, which refuses alike: the library's
   redist__admit_forced and redist__check_bound): "plan (ALGORITHM): <strerror> (<detail>)".
   Returns TOOL_FAILED. */
int tool_plan_failed(int rank0, const char *algorithm, int rc);
/* prefix, then the spec's canonical form (spec_format), on stdout. */
void tool_print_spec(const char *prefix, const tool_spec *spec);

/* The argument loop of every sub-command: take(argc, argv, &i, ctx, rank0) takes the
   argument at argv[i] (advancing i past a separate value) and returns TOOL_OK, or a status
   once rank0 has printed why. An option given twice is refused as a SPEC key given twice is,
   "redist: CMD: --opt given twice (see redist CMD --help)", exit 2 (`--opt=V` and `--opt V`
   are one option, `-q` is `--quiet`). Returns the first status that is not TOOL_OK. */
typedef int (*tool_take_fn)(int argc, char **argv, int *i, void *ctx, int rank0);
int tool_each_option(int argc, char **argv, const char *cmd, tool_take_fn take, void *ctx,
                     int rank0);

/* Runs the argument loop of `run` and `explain`: the shared options (tool_pair_option), then
   the command's own through `option`, which returns as tool_opt_value does (1 taken, 0 not
   its option, -1 value missing) or TOOL_OPT_REPORTED after printing why a value is bad.
   Returns TOOL_OK, or TOOL_USAGE once rank0 has printed the reason. */
enum { TOOL_OPT_REPORTED = -2 };
typedef int (*tool_option_fn)(int argc, char **argv, int *i, void *ctx, int rank0);
int tool_parse_args(int argc, char **argv, const char *cmd, tool_pair_opts *pair,
                    tool_option_fn option, void *ctx, int rank0);

/* ---- Messages and agreement -------------------------------------------------------------- */
/* "redist: <message>" on stderr where rank0 is set; returns status, so that a failing step
   can `return tool_error(...)`. */
int tool_error(int rank0, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Collective: the worst (largest) TOOL_* status of all ranks. */
int tool_agree_status(int status, MPI_Comm comm);
/* Collective: the worst (most negative) REDIST_* code of all ranks. */
int tool_agree_code(int code, MPI_Comm comm);

/* ---- A spec pair's layouts and local arrays ---------------------------------------------- */
/* The library layouts of both specs: a REDIST_* code (this rank's verdict only). Whatever was
   created is left in *src and *dst for tool_layouts_free, which takes NULLs. */
int tool_layouts(const tool_spec *from, const tool_spec *to, redist_layout *src,
                 redist_layout *dst);
void tool_layouts_free(redist_layout *src, redist_layout *dst);

typedef struct tool_arrays {
    void *src, *dst;
    int64_t nsrc, ndst; /* local elements of this rank */
    size_t el;          /* bytes per element */
} tool_arrays;
/* Collective: allocates this rank's source and destination arrays of the pair and fills the
   source (tool_fill). 0, or -1 on every rank when any rank is out of memory (then nothing is
   left allocated). */
int tool_arrays_alloc(tool_arrays *a, const tool_spec *from, const tool_spec *to, tool_type type,
                      int rank, MPI_Comm comm);
/* Fills the destination with a byte pattern, so that elements a plan never writes show up
   as wrong. */
void tool_arrays_poison(tool_arrays *a);
void tool_arrays_free(tool_arrays *a);
/* Collective: the number of wrong destination elements over all ranks; with first_bad, also
   the smallest wrong global row-major index (INT64_MAX if none). */
int64_t tool_verify_all(const tool_spec *to, int rank, tool_type type, const void *dst,
                        MPI_Comm comm, int64_t *first_bad);
/* The same against an expectation (tool_expect; NULL: the plain one). */
int64_t tool_verify_all_expect(const tool_spec *to, int rank, tool_type type, const void *dst,
                               const tool_expect *e, MPI_Comm comm, int64_t *first_bad);

/* ---- A plan's statistics over all ranks -------------------------------------------------- */
typedef struct tool_plan_summary {
    int steps;                       /* the most any rank takes */
    int64_t max_messages, max_bytes; /* the most one rank sends */
    int64_t total_messages, total_bytes, total_copied;
    double predicted;         /* the slowest rank's predicted seconds */
    int transport;            /* this rank's REDIST_TRANSPORT_* */
    int bounded;              /* bounded mode (redist_stats.bounded) */
    int64_t max_buffer_bytes; /* the most buffer bytes one rank's plan holds */
} tool_plan_summary;
/* Collective over comm. */
void tool_plan_summarise(redist_plan plan, MPI_Comm comm, tool_plan_summary *out);

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
/* What a destination element must hold when the plan transforms: the value of source element
   sum_j h_j gstride[j] for destination element h (an axis permutation: the source's row-major
   strides, permuted), times alpha, plus beta times `start` (the value every destination
   element held before one scaled execute). */
struct tool_expect {
    int64_t gstride[SPEC_MAX_DIMS];
    int scaled;
    double alpha, beta, start;
};
/* The expectation of a plan from `from` with the options of o (--permute) and scaling. */
void tool_expect_init(tool_expect *e, const tool_spec *from, const tool_pair_opts *o, int scaled,
                      double alpha, double beta, double start);
int64_t tool_verify_expect(const tool_spec *spec, int rank, tool_type type, const void *local,
                           const tool_expect *e, int64_t *first_bad);

/* ---- Timing ([LBP96] Fig. 13) ---------------------------------------------------------
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
/* Collective over comm: one trial, a barrier then n2 executes back to back; *seconds is the
   slowest rank's average. Returns the worst code of all ranks. */
/* redist_execute, or for a batch plan (redist_plan_algorithm "batch") redist_execute_batch
   with src and dst the arrays' pointer lists. */
int tool_execute(redist_plan plan, const void *src, void *dst);
int tool_time_batch(redist_plan plan, const void *src, void *dst, MPI_Comm comm, int n2,
                    double *seconds);
/* Sets out's Tmin/Tmed/Tavg/Tmax from the n > 0 trial times T (which it sorts). */
void tool_timing_summarise(double *T, int n, tool_timing *out);

/* Sub-commands. */
int tool_demo(int argc, char **argv);
int tool_run(int argc, char **argv);
int tool_explain(int argc, char **argv);
int tool_simulate(int argc, char **argv);
int tool_calibrate(int argc, char **argv);
int tool_bench(int argc, char **argv);

extern const char tool_demo_help[], tool_run_help[], tool_explain_help[], tool_simulate_help[],
    tool_calibrate_help[], tool_bench_help[];

#endif
