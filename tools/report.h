/* What the redist tool tells its user, and how every rank comes to tell the same: exit
   statuses, messages on rank 0, the worst status or code of all ranks, numbers for people. */
#ifndef REDIST_TOOL_REPORT_H
#define REDIST_TOOL_REPORT_H

#include <mpi.h>
#include <stddef.h>

#include "spec.h"

/* Exit statuses (docs/tool.md). */
enum {
    TOOL_OK = 0,
    TOOL_FAILED = 1, /* a library error, a wrong element, out of memory */
    TOOL_USAGE = 2,  /* bad command line or SPEC */
    TOOL_NOT_YET = 3 /* sub-command not implemented yet */
};

/* ---- Messages ----------------------------------------------------------------------------- */
/* "redist: <message>" on stderr where rank0 is set; returns status, so that a failing step
   can `return tool_error(...)`. */
int tool_error(int rank0, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* 1 unless a launcher's environment says this process is not rank 0 (for output before or
   without MPI_Init). */
int tool_env_is_rank0(void);
/* "what: <strerror> (<the library's detail>)" for a library error code, into buf. */
const char *tool_lib_error(char *buf, size_t len, const char *what, int rc);
/* A plan the library refused (or explain's account of it, which refuses alike: the planner's
   rule of use and its check of the bound): "plan (ALGORITHM): <strerror> (<detail>)".
   Returns TOOL_FAILED. */
int tool_plan_failed(int rank0, const char *algorithm, int rc);
/* prefix, then the spec's canonical form (spec_format) and, where it has one, its description
   in parentheses (spec_describe: "pencil along 0 over a 2x2 grid"), on stdout. */
void tool_print_spec(const char *prefix, const tool_spec *spec);
/* With partial sums (reduce > 0, a tool_reduce), prefix and what the plan reduces, on
   stdout: "sum of the parts every source holder holds (options.reduce = MPI_SUM)". */
void tool_print_reduce(const char *prefix, int reduce);

/* ---- Agreement ---------------------------------------------------------------------------- */
/* Collective: the worst (largest) TOOL_* status of all ranks. */
int tool_agree_status(int status, MPI_Comm comm);
/* Collective: the worst (most negative) REDIST_* code of all ranks. */
int tool_agree_code(int code, MPI_Comm comm);

/* ---- Threads ------------------------------------------------------------------------------ */
/* The threads a plan made with options.threads = asked runs its local moves with, by the
   library's own reading (asked; 0: REDIST_NUM_THREADS if set, else 1), and where that came
   from: "--threads", "REDIST_NUM_THREADS" or "default". A REDIST_* code: the library's
   refusal (a malformed variable, more than one thread without OpenMP) with its detail
   recorded, as a plan's creation would record it. */
int tool_threads(int asked, int *threads, const char **source);
/* Collective: tool_threads on every rank of comm (the variable may differ between ranks):
   the fewest and the most, rank 0's source, and the worst code of all ranks. Where a rank's
   threads exceed the cores it may run on, the rank that exceeds them most warns (stderr,
   tool_warn_cores). */
int tool_threads_span(int asked, MPI_Comm comm, int *fewest, int *most, const char **source);
/* "2 per rank for local moves (--threads)", or "1 to 4 per rank ..." where ranks differ,
   into buf. */
const char *tool_fmt_threads(char *buf, size_t len, int fewest, int most, const char *source);
/* The cores line's text: "1 per rank (its affinity mask): the model counts 1 thread", or
   "1 to 2 per rank ..." where ranks differ; model_threads: the threads the plan's model counts
   (its ranks' fewest, each at most its cores). source says where the cores come from. */
const char *tool_fmt_cores(char *buf, size_t len, int fewest, int most, int model_threads,
                           const char *source);
/* One line on stderr (if speak) when threads exceed the cores a rank may run on: they take
   turns there, and the model counts the cores. who: "a rank", "this process", ... */
void tool_warn_cores(int speak, int threads, int cores, const char *who);

/* ---- Formatting --------------------------------------------------------------------------- */
const char *tool_fmt_bytes(char *buf, size_t len, double bytes);     /* "32.0 MB" (10^6) */
const char *tool_fmt_seconds(char *buf, size_t len, double seconds); /* "3.21 ms" */

#endif
