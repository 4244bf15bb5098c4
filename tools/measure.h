/* What a plan costs, measured the papers' way and summed over all ranks: executes timed in
   trials ([LBP96] Fig. 13) and the plan's statistics. */
#ifndef REDIST_TOOL_MEASURE_H
#define REDIST_TOOL_MEASURE_H

#include <mpi.h>
#include <stdint.h>

#include "redist.h"

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
/* redist_execute, or for a batch plan (redist_plan_algorithm "batch") redist_execute_batch
   with src and dst the arrays' pointer lists. */
int tool_execute(redist_plan plan, const void *src, void *dst);
/* Collective over comm: one trial, a barrier then n2 executes back to back; *seconds is the
   slowest rank's average. Returns the worst code of all ranks. */
int tool_time_batch(redist_plan plan, const void *src, void *dst, MPI_Comm comm, int n2,
                    double *seconds);
/* Sets out's Tmin/Tmed/Tavg/Tmax from the n > 0 trial times T (which it sorts). */
void tool_timing_summarise(double *T, int n, tool_timing *out);

/* ---- A plan's statistics over all ranks -------------------------------------------------- */
typedef struct tool_plan_summary {
    int steps;                       /* the most any rank takes */
    int64_t max_messages, max_bytes; /* the most one rank sends */
    int64_t total_messages, total_bytes, total_copied;
    double predicted;          /* the slowest rank's predicted seconds */
    int transport;             /* this rank's REDIST_TRANSPORT_* */
    int bounded;               /* bounded mode (redist_stats.bounded) */
    int64_t max_buffer_bytes;  /* the most buffer bytes one rank's plan holds */
    int cores_lo, cores_hi;    /* the fewest and most cores a rank may run on (redist_stats) */
    int model_threads;         /* the threads the model counts: the fewest of any rank's
                                  threads, each at most its cores */
    int nodes, ranks_per_node; /* redist_stats' */
    int64_t max_off_messages, max_off_bytes; /* the most one rank sends to other nodes */
    int64_t total_received;                  /* messages received, all ranks */
    int64_t total_device_ipc;                /* of them, pulled from node peers' device arrays */
    int64_t total_device_mpi; /* messages sent from device buffers to a GPU-aware MPI */
} tool_plan_summary;
/* Collective over comm. */
void tool_plan_summarise(redist_plan plan, MPI_Comm comm, tool_plan_summary *out);

#endif
