/* What a plan costs (measure.h): executes timed in trials ([LBP96] Fig. 13) and the plan's
 * statistics over all ranks. */
#define _POSIX_C_SOURCE 200809L

#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void tool_timing_summarise(double *T, int n, tool_timing *out)
{
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += T[i];
    qsort(T, (size_t)n, sizeof *T, compare_double);
    out->tmin = T[0];
    out->tmax = T[n - 1];
    out->tavg = sum / n;
    out->tmed = n % 2 ? T[n / 2] : 0.5 * (T[n / 2 - 1] + T[n / 2]);
}

int tool_execute(redist_plan plan, const void *src, void *dst)
{
    const char *name = redist_plan_algorithm(plan);
    if (name != NULL && strcmp(name, "batch") == 0) /* src, dst: the arrays' pointer lists */
        return redist_execute_batch(plan, (const void *const *)src, (void *const *)dst);
    return redist_execute(plan, src, dst);
}

int tool_time_batch(redist_plan plan, const void *src, void *dst, MPI_Comm comm, int n2,
                    double *seconds)
{
    int rc = REDIST_SUCCESS;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int j = 0; j < n2 && rc == REDIST_SUCCESS; j++)
        rc = tool_execute(plan, src, dst);
    /* The slowest rank's average, and the worst error code, in one reduction. */
    double mine[2] = {(MPI_Wtime() - t0) / n2, (double)-rc}, worst[2];
    MPI_Allreduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, comm);
    *seconds = worst[0];
    return worst[1] > 0 ? -(int)worst[1] : REDIST_SUCCESS;
}

/* A terminal gets one line rewritten in place; a log file gets about ten lines. */
static void show_progress(int tty, int done, int n1)
{
    int every = n1 >= 10 ? n1 / 10 : 1;
    if (tty)
        fprintf(stderr, "\rredist: trial %d/%d", done, n1);
    else if (done % every == 0 || done == n1)
        fprintf(stderr, "redist: trial %d/%d\n", done, n1);
    fflush(stderr);
}

int tool_time_plan(redist_plan plan, const void *src, void *dst, MPI_Comm comm, int n1, int n2,
                   int progress, tool_timing *out)
{
    int rank, rc = REDIST_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    double *T = malloc((size_t)n1 * sizeof *T);
    if (tool_agree_status(T == NULL, comm)) {
        free(T);
        return REDIST_ERR_NOMEM;
    }
    progress = progress && rank == 0;
    int tty = progress && isatty(STDERR_FILENO);
    int done = 0;
    while (done < n1) {
        rc = tool_time_batch(plan, src, dst, comm, n2, &T[done]);
        if (rc != REDIST_SUCCESS)
            break;
        done++;
        if (progress)
            show_progress(tty, done, n1);
    }
    if (tty)
        fprintf(stderr, "\r%40s\r", "");
    memset(out, 0, sizeof *out);
    out->n1 = n1;
    out->n2 = n2;
    if (rc == REDIST_SUCCESS && done > 0)
        tool_timing_summarise(T, done, out);
    free(T);
    return rc;
}

void tool_plan_summarise(redist_plan plan, MPI_Comm comm, tool_plan_summary *out)
{
    redist_stats st;
    memset(&st, 0, sizeof st);
    redist_plan_stats(plan, &st);
    int64_t sums[6] = {st.messages_sent,     st.bytes_sent,          st.bytes_copied,
                       st.messages_received, st.messages_device_ipc, st.messages_device_mpi},
            tot[6];
    int64_t maxes[5] = {st.messages_sent, st.bytes_sent, st.buffer_bytes, st.messages_off_node,
                        st.bytes_off_node},
            mx[5];
    MPI_Allreduce(sums, tot, 6, MPI_INT64_T, MPI_SUM, comm);
    out->total_received = tot[3];
    out->total_device_ipc = tot[4];
    out->total_device_mpi = tot[5];
    MPI_Allreduce(maxes, mx, 5, MPI_INT64_T, MPI_MAX, comm);
    out->max_off_messages = mx[3];
    out->max_off_bytes = mx[4];
    out->nodes = st.nodes;
    out->ranks_per_node = st.ranks_per_node;
    MPI_Allreduce(&st.bounded, &out->bounded, 1, MPI_INT, MPI_MAX, comm);
    out->max_buffer_bytes = mx[2];
    MPI_Allreduce(&st.predicted_seconds, &out->predicted, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(&st.steps, &out->steps, 1, MPI_INT, MPI_MAX, comm);
    out->max_messages = mx[0];
    out->max_bytes = mx[1];
    out->total_messages = tot[0];
    out->total_bytes = tot[1];
    out->total_copied = tot[2];
    out->transport = st.transport;
    int lo[2] = {st.cores, st.threads < st.cores ? st.threads : st.cores}, most = st.cores;
    int fewest[2];
    MPI_Allreduce(lo, fewest, 2, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&most, &out->cores_hi, 1, MPI_INT, MPI_MAX, comm);
    out->cores_lo = fewest[0];
    out->model_threads = fewest[1] > 1 ? fewest[1] : 1;
}
