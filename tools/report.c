/* What the redist tool tells its user (report.h): messages on rank 0, the worst status or code
 * of all ranks, numbers formatted for people. */
#define _POSIX_C_SOURCE 200809L

#include "report.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "redist.h"

int tool_error(int rank0, int status, const char *fmt, ...)
{
    if (rank0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("redist: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return status;
}

int tool_env_is_rank0(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v) == 0;
    }
    return 1;
}

const char *tool_lib_error(char *buf, size_t len, const char *what, int rc)
{
    const char *detail = redist_last_error_detail();
    if (detail != NULL && detail[0] != '\0')
        snprintf(buf, len, "%s: %s (%s)", what, redist_strerror(rc), detail);
    else
        snprintf(buf, len, "%s: %s", what, redist_strerror(rc));
    return buf;
}

int tool_plan_failed(int rank0, const char *algorithm, int rc)
{
    char why[768], what[96];
    snprintf(what, sizeof what, "plan (%s)", algorithm);
    return tool_error(rank0, TOOL_FAILED, "%s", tool_lib_error(why, sizeof why, what, rc));
}

void tool_print_spec(const char *prefix, const tool_spec *spec)
{
    char *text = spec_format(spec), *about = spec_describe(spec);
    printf("%s%s", prefix, text ? text : "(out of memory)");
    if (about != NULL)
        printf(" (%s)", about);
    printf("\n");
    free(text);
    free(about);
}

void tool_print_reduce(const char *prefix, int reduce)
{
    static const char *const names[] = {
        "",           "sum",         "product",     "maximum",    "minimum",    "logical and",
        "logical or", "logical xor", "bitwise and", "bitwise or", "bitwise xor"};
    static const char *const ops[] = {"",         "MPI_SUM",  "MPI_PROD", "MPI_MAX",
                                      "MPI_MIN",  "MPI_LAND", "MPI_LOR",  "MPI_LXOR",
                                      "MPI_BAND", "MPI_BOR",  "MPI_BXOR"};
    if (reduce > 0 && reduce < (int)(sizeof ops / sizeof ops[0]))
        printf("%s%s of the parts every source holder holds (options.reduce = %s)\n", prefix,
               names[reduce], ops[reduce]);
}

int tool_agree_status(int status, MPI_Comm comm)
{
    int worst;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

int tool_agree_code(int code, MPI_Comm comm)
{
    int worst;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MIN, comm);
    return worst;
}

static const char *fmt_scaled(char *buf, size_t len, double v, const char *const units[],
                              int nunits, double step)
{
    int u = 0;
    while (u + 1 < nunits && (v >= step * 0.9995 || v <= -step * 0.9995)) {
        v /= step;
        u++;
    }
    if (u == 0 && v == (double)(int64_t)v)
        snprintf(buf, len, "%lld %s", (long long)v, units[u]);
    else
        snprintf(buf, len, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}

const char *tool_fmt_bytes(char *buf, size_t len, double bytes)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    return fmt_scaled(buf, len, bytes, units, 6, 1000.0);
}

const char *tool_fmt_seconds(char *buf, size_t len, double s)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    if (s != s)
        return snprintf(buf, len, "-"), buf;
    if (s >= 0.9995 || s == 0)
        return snprintf(buf, len, s < 9.995 ? "%.2f s" : s < 99.95 ? "%.1f s" : "%.0f s", s), buf;
    double v = s * 1e9;
    if (v < 1)
        return snprintf(buf, len, "%.2f ns", v), buf;
    return fmt_scaled(buf, len, v, units, 3, 1000.0);
}

int tool_threads(int asked, int *threads, const char **source)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.threads = asked;
    int64_t min_bytes;
    /* The planner's own function: the tool reports exactly what a plan would use. */
    int rc = redist__threads_resolve(&opt, threads, &min_bytes);
    const char *v = getenv("REDIST_NUM_THREADS");
    *source = asked > 0                                  ? "--threads"
              : v != NULL && v[strspn(v, " \t")] != '\0' ? "REDIST_NUM_THREADS"
                                                         : "default";
    return rc;
}

int tool_threads_span(int asked, MPI_Comm comm, int *fewest, int *most, const char **source)
{
    int n = 1, rank = 0;
    int rc = tool_threads(asked, &n, source);
    MPI_Allreduce(&n, fewest, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&n, most, 1, MPI_INT, MPI_MAX, comm);
    /* the rank whose threads exceed its cores the most speaks for all: one line */
    MPI_Comm_rank(comm, &rank);
    int over[2] = {n - redist__cores(), rank}, worst[2];
    MPI_Allreduce(over, worst, 1, MPI_2INT, MPI_MAXLOC, comm);
    char who[32];
    snprintf(who, sizeof who, "rank %d", rank);
    tool_warn_cores(rc == REDIST_SUCCESS && rank == worst[1], n, n - over[0], who);
    return tool_agree_code(rc, comm);
}

const char *tool_fmt_cores(char *buf, size_t len, int fewest, int most, int model_threads,
                           const char *source)
{
    int n = snprintf(buf, len, fewest == most ? "%d" : "%d to %d", fewest, most);
    if (n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " per rank (%s): the model counts %d thread%s", source,
                 model_threads, model_threads == 1 ? "" : "s");
    return buf;
}

void tool_warn_cores(int speak, int threads, int cores, const char *who)
{
    if (speak && threads > cores)
        fprintf(stderr,
                "redist: warning: %d threads per rank for local moves, but %s may run on %d "
                "core%s (its affinity mask): the threads take turns there, and the model counts "
                "%d\n",
                threads, who, cores, cores == 1 ? "" : "s", cores);
}

const char *tool_fmt_threads(char *buf, size_t len, int fewest, int most, const char *source)
{
    if (fewest == most)
        snprintf(buf, len, "%d per rank for local moves (%s)", most, source);
    else
        snprintf(buf, len, "%d to %d per rank for local moves (%s)", fewest, most, source);
    return buf;
}
