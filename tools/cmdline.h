/* The redist tool's command line: options in either form, the argument loop every
   sub-command runs, and the options and checks `run` and `explain` share. */
#ifndef REDIST_TOOL_CMDLINE_H
#define REDIST_TOOL_CMDLINE_H

#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "spec.h"

/* Matches argv[*i] against `--name VALUE` or `--name=VALUE`. Returns 1 and sets *value
   (advancing *i past a separate value), 0 if argv[*i] is something else, -1 if the value is
   missing. */
int tool_opt_value(int argc, char **argv, int *i, const char *name, const char **value);
int tool_wants_help(int argc, char **argv); /* any of -h, --help */

/* The argument loop of every sub-command: take(argc, argv, &i, ctx, rank0) takes the
   argument at argv[i] (advancing i past a separate value) and returns TOOL_OK, or a status
   once rank0 has printed why. An option given twice is refused as a SPEC key given twice is,
   "redist: CMD: --opt given twice (see redist CMD --help)", exit 2 (`--opt=V` and `--opt V`
   are one option, `-q` is `--quiet`). Returns the first status that is not TOOL_OK. */
typedef int (*tool_take_fn)(int argc, char **argv, int *i, void *ctx, int rank0);
int tool_each_option(int argc, char **argv, const char *cmd, tool_take_fn take, void *ctx,
                     int rank0);

/* What an option parser returns once it has printed why a value is bad. */
enum { TOOL_OPT_REPORTED = -2 };

/* --threads N (run, explain, bench, demo): a whole number from 1 to REDIST_MAX_THREADS into
 *threads. 0, or -1 with the message into msg. */
int tool_threads_parse(const char *v, int *threads, char *msg, size_t len);
/* --threads N at argv[*i] for the commands without the shared options (bench, demo): 1 taken,
   0 another argument, TOOL_OPT_REPORTED once rank0 has printed why (a bad or missing value). */
int tool_threads_option(int argc, char **argv, int *i, int *threads, int rank0);

/* --reduce OP's value (run, explain, bench): 0 and *op, or -1 with the message into msg. */
int tool_reduce_option(const char *v, tool_reduce *op, char *msg, size_t len);

/* ---- The options `run` and `explain` share ---------------------------------------------- */
/* --from SPEC, --to SPEC, --algorithm A, --type T, --max-buffer B, --permute P, --relabel,
   --threads N, --memory M, --reduce OP. */
typedef struct tool_pair_opts {
    const char *from, *to, *algorithm;
    tool_type type;
    int64_t max_buffer; /* --max-buffer: bounded mode's bytes per rank (0: default mode) */
    int permuted;       /* --permute p0,p1,...: options.permutation */
    int permute[SPEC_MAX_DIMS];
    int npermute;
    int relabel; /* --relabel: the destination's ranks chosen by redist_relabel */
    int threads; /* --threads N: options.threads (0 when not given: REDIST_NUM_THREADS, else 1) */
    int memory;  /* --memory host|cuda|auto: options.memory (REDIST_MEMORY_HOST by default) */
    tool_reduce reduce; /* --reduce OP: options.reduce (TOOL_REDUCE_NONE: not given) */
} tool_pair_opts;

/* Runs the argument loop of `run` and `explain`: the shared options above, then
   the command's own through `option`, which returns as tool_opt_value does (1 taken, 0 not
   its option, -1 value missing) or TOOL_OPT_REPORTED after printing why a value is bad.
   Returns TOOL_OK, or TOOL_USAGE once rank0 has printed the reason. */
typedef int (*tool_option_fn)(int argc, char **argv, int *i, void *ctx, int rank0);
int tool_parse_args(int argc, char **argv, const char *cmd, tool_pair_opts *pair,
                    tool_option_fn option, void *ctx, int rank0);

/* Collective over comm: from now on boxes=FILE is read on comm's rank 0 and broadcast, so that
   every rank parses the same text (spec_set_reader). For `run`, before its specs are parsed. */
void tool_share_spec_files(MPI_Comm comm);

/* After both specs parsed: 0, or -1 with the message (dimensions or extents differ, the array
   has 2^63 bytes or more, --reduce on a type MPI does not reduce) in msg. */
int tool_specs_check(const tool_spec *from, const tool_spec *to, const tool_pair_opts *o, char *msg,
                     size_t len);
/* The checks `run` and `explain` share once their arguments are read, one path for both so
   that a command line gets the same verdict and the same message from either: options that
   exclude each other, both specs parsed for a communicator of procs processes (0: explain
   without --procs, a spec naming no processes spans the other's), the ranks they use within
   it, the specs against each other. TOOL_OK, or TOOL_USAGE once rank0 has printed why. The
   specs need spec_free either way. */
int tool_pair_specs(const tool_pair_opts *o, int procs, tool_spec *from, tool_spec *to, int rank0);

#endif
