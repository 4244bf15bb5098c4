/* The cost model's parameters are agreed at plan time (src/planner/planner.c): each rank reads its
 * own machine (file, REDIST_MACHINE_<KEY>), and every rank plans with the largest value any
 * rank has. Here every rank sets a different start-up; the plan's prediction must be the same
 * on every rank and reflect the largest start-up, auto's choice the same everywhere, and the
 * data right (every element checked). Then the same with a machine file that only rank 0
 * can read. Then copy_thread_limit (the L of the threads' speedup), different on every rank:
 * plans with 2 threads predict alike everywhere, as if every rank had the largest L (each
 * rank's affinity mask widened to every CPU first: Open MPI binds one or two ranks to one
 * core each, where 2 threads count as 1 and L changes nothing, as is then checked). The basic
 * operations read the machine once per process and agree on it with
 * their arguments: ranks with different parameters get REDIST_ERR_MISMATCH, on every rank,
 * instead of choosing different algorithms and hanging.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include "redist.h"
#include "support/mtest.h"

#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errs, rank, size;
#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

/* This thread's affinity mask widened to every online CPU where the system allows it; 1 if
   every rank may then run on 2 cores or more. Collective. */
static int every_rank_two_cores(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    for (long c = 0; c < sysconf(_SC_NPROCESSORS_ONLN) && c < CPU_SETSIZE; c++)
        CPU_SET((int)c, &set);
    sched_setaffinity(0, sizeof set, &set); /* a cpuset may refuse: the mask stays */
    int two = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2, all = 0;
    MPI_Allreduce(&two, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Plans cyclic(3) -> cyclic(5) of n doubles over every rank with `threads` threads, executes
   it, checks every element; returns the plan's prediction (-1 on failure, -2 if the library
   has no threads). */
static double plan_and_check(const char *what, int64_t n, int threads)
{
    redist_layout src, dst;
    redist_layout_create(1, &n, (int64_t[]){3}, &size, NULL, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, &n, (int64_t[]){5}, &size, NULL, NULL, REDIST_ROW_MAJOR, &dst);
    redist_plan plan = NULL;
    redist_options opt;
    redist_options_init(&opt);
    opt.threads = threads;
    int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    double predicted = -1;
    if (rc == REDIST_ERR_UNSUPPORTED && threads > 1) {
        predicted = -2; /* built without OpenMP */
    } else if (rc != REDIST_SUCCESS) {
        fail(what, "plan: %s", redist_last_error_detail());
    } else {
        int64_t ns, nd;
        redist_layout_local_size(src, rank, &ns);
        redist_layout_local_size(dst, rank, &nd);
        double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(nd + 1) * sizeof *b);
        for (int64_t i = 0; i < ns; i++)
            a[i] = (double)mtest_global_of(i, 3, size, 0, rank);
        rc = redist_execute(plan, a, b);
        if (rc != REDIST_SUCCESS)
            fail(what, "execute: %s", redist_strerror(rc));
        for (int64_t i = 0; rc == REDIST_SUCCESS && i < nd; i++)
            if (b[i] != (double)mtest_global_of(i, 5, size, 0, rank)) {
                fail(what, "element %lld wrong", (long long)i);
                break;
            }
        redist_stats st;
        redist_plan_stats(plan, &st);
        predicted = st.predicted_seconds;
        const char *name = redist_plan_algorithm(plan);
        unsigned h = 0;
        for (const char *c = name; *c; c++)
            h = h * 31u + (unsigned char)*c;
        if (!mtest_all_same((int)(h & 0x7fffffff)))
            fail(what, "ranks chose different algorithms (this one %s)", name);
        free(a);
        free(b);
        redist_plan_free(&plan);
    }
    redist_layout_free(&src);
    redist_layout_free(&dst);
    return predicted;
}

static void check_same_prediction(const char *what, double predicted, double at_least)
{
    double lo, hi;
    MPI_Allreduce(&predicted, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&predicted, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi)
        fail(what, "predictions differ between ranks: %g .. %g", lo, hi);
    if (predicted < at_least)
        fail(what, "prediction %g below the largest start-up %g", predicted, at_least);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsetenv("REDIST_MACHINE_FILE");
    setenv("REDIST_MACHINE_FILE", "/nonexistent/redist-machine", 1);

    /* 1. Different start-ups per rank (1, 2, ..., size ms): agreed on the largest. */
    char v[32];
    snprintf(v, sizeof v, "%g", 1e-3 * (rank + 1));
    setenv("REDIST_MACHINE_STARTUP", v, 1);
    double p1 = plan_and_check("environment per rank", 100000, 1);
    if (size > 1)
        check_same_prediction("environment per rank", p1, 1e-3 * size);
    unsetenv("REDIST_MACHINE_STARTUP");

    /* 2. A machine file only rank 0 reads (a 50 ms start-up): every rank plans with it. */
    char path[64];
    snprintf(path, sizeof path, "/tmp/redist_test_machine_%d_%d", (int)getpid(), rank);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        if (f == NULL || fprintf(f, "# test\nstartup = 0.05\n") < 0)
            fail("machine file", "cannot write %s", path);
        if (f != NULL)
            fclose(f);
        setenv("REDIST_MACHINE_FILE", path, 1);
    }
    double p2 = plan_and_check("file on rank 0", 100000, 1);
    if (size > 1)
        check_same_prediction("file on rank 0", p2, 0.05);
    if (rank == 0)
        unlink(path);
    setenv("REDIST_MACHINE_FILE", "/nonexistent/redist-machine", 1);

    /* 3. copy_thread_limit 1, 2, ..., size per rank, 2 threads: predicted as with size on
       every rank (the largest L; a ratio, not scaled by the node's load). */
    int two_cores = every_rank_two_cores();
    snprintf(v, sizeof v, "%d", rank + 1);
    setenv("REDIST_MACHINE_COPY_THREAD_LIMIT", v, 1);
    double p3 = plan_and_check("thread limit per rank", 100000, 2);
    snprintf(v, sizeof v, "%d", size);
    setenv("REDIST_MACHINE_COPY_THREAD_LIMIT", v, 1);
    double p3_max = plan_and_check("largest thread limit", 100000, 2);
    if (p3 != -2 && size > 1)
        check_same_prediction("thread limit per rank", p3, 0);
    if (p3 != p3_max)
        fail("thread limit per rank", "predicted %g, with the largest L on every rank %g", p3,
             p3_max);
    setenv("REDIST_MACHINE_COPY_THREAD_LIMIT", "1", 1); /* no speedup: costs more */
    double p3_one = plan_and_check("thread limit 1", 100000, 2);
    if (p3 != -2 && size > 1 && two_cores && !(p3_one > p3_max))
        fail("thread limit 1", "predicted %g, not above %g at L = %d", p3_one, p3_max, size);
    if (p3 != -2 && !two_cores && p3_one != p3_max) /* 2 threads on 1 core count as 1 */
        fail("thread limit 1 on one core", "predicted %g, not %g as at L = %d", p3_one, p3_max,
             size);
    unsetenv("REDIST_MACHINE_COPY_THREAD_LIMIT");

    /* 4. The basic operations: parameters read at a process's first call; different ones
       are a mismatch on every rank (never a hang). */
    if (rank == size - 1)
        setenv("REDIST_MACHINE_PER_BYTE", "1e-3", 1);
    double x = rank == 0 ? 42.0 : 0.0;
    int rc = redist_bcast(&x, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, NULL);
    int want = size > 1 ? REDIST_ERR_MISMATCH : REDIST_SUCCESS;
    if (rc != want)
        fail("bcast, parameters differ", "returned %s, want %s", redist_error_name(rc),
             redist_error_name(want));
    if (!mtest_all_same(rc))
        fail("bcast, parameters differ", "ranks returned different codes");
    return mtest_finalize(errs);
}
