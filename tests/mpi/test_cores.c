/* Threads and the cores a rank may run on (docs/api.md, "Threads"): a plan reads the calling
 * thread's affinity mask at creation.
 *
 * - redist_stats.cores is the mask's CPU count (read here with sched_getaffinity, apart from
 *   the library) and redist_stats.threads the plan's threads, on every rank.
 * - Threads beyond the cores count as the cores: with each rank's mask narrowed to one CPU,
 *   4 and 1024 threads predict exactly what 1 does (stats and redist_explain's JSON, whose
 *   "cores" is 1), and with the mask as the launcher left it, cores + 5 threads predict what
 *   the cores do (the plan takes the fewest such threads of its ranks).
 * - The plans still move every element with their threads.
 * A library without OpenMP refuses threads > 1: the checks that need them are skipped. */
#define _GNU_SOURCE /* sched_getaffinity, sched_setaffinity */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;

#define fail(...) mtest_fail(&errs, rank, __VA_ARGS__)

static void pair(redist_layout *s, redist_layout *d)
{
    int64_t n = 100003;
    redist_layout_create(1, &n, (int64_t[]){3}, &size, NULL, NULL, REDIST_ROW_MAJOR, s);
    redist_layout_create(1, &n, (int64_t[]){7}, &size, NULL, NULL, REDIST_ROW_MAJOR, d);
}

/* A plan with `threads` threads, executed and checked; its stats (-1 steps: refused for want
   of OpenMP, -2: failed). */
static redist_stats plan_stats(const char *what, int threads)
{
    redist_layout s, d;
    pair(&s, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.threads = threads;
    redist_plan plan = NULL;
    redist_stats st;
    memset(&st, 0, sizeof st);
    int rc = redist_plan_create(s, d, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    st.steps = rc == REDIST_ERR_UNSUPPORTED && threads > 1 ? -1 : -2;
    if (rc == REDIST_SUCCESS) {
        int64_t ns = 0, nd = 0;
        redist_layout_local_size(s, rank, &ns);
        redist_layout_local_size(d, rank, &nd);
        double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(nd + 1) * sizeof *b);
        for (int64_t i = 0; i < ns; i++)
            a[i] = (double)mtest_global_of(i, 3, size, 0, rank);
        if (redist_execute(plan, a, b) != REDIST_SUCCESS)
            fail(what, "execute: %s", redist_last_error_detail());
        for (int64_t i = 0; i < nd; i++)
            if (b[i] != (double)mtest_global_of(i, 7, size, 0, rank)) {
                fail(what, "element %lld wrong", (long long)i);
                break;
            }
        free(a);
        free(b);
        redist_plan_stats(plan, &st);
        redist_plan_free(&plan);
    } else if (st.steps == -2) {
        fail(what, "plan: %s (%s)", redist_error_name(rc), redist_last_error_detail());
    }
    redist_layout_free(&s);
    redist_layout_free(&d);
    return st;
}

static int mask_cores(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

/* threads and cores as the stats say, and as asked / as the mask says */
static void check_counts(const char *what, const redist_stats *st, int threads)
{
    if (st->steps < 0)
        return;
    if (st->threads != threads || st->cores != mask_cores())
        fail(what, "stats: threads %d, cores %d; expected %d and the mask's %d", st->threads,
             st->cores, threads, mask_cores());
}

/* auto's predicted seconds and the "cores" key of redist_explain's JSON with `threads`. */
static double explained(int threads, int *cores)
{
    redist_layout s, d;
    pair(&s, &d);
    redist_options opt;
    redist_options_init(&opt);
    opt.threads = threads;
    static char buf[1 << 15];
    int rc = redist_explain(s, d, size, sizeof(double), &opt, buf, sizeof buf, NULL);
    redist_layout_free(&s);
    redist_layout_free(&d);
    const char *p = strstr(buf, "\"predicted_seconds\": "), *c = strstr(buf, "\"cores\": ");
    *cores = c != NULL ? atoi(c + strlen("\"cores\": ")) : -1;
    return rc == REDIST_SUCCESS && p != NULL ? atof(p + strlen("\"predicted_seconds\": ")) : -1;
}

/* On one CPU: 4 and 1024 threads predict as 1, in plans and in explain. */
static void one_core(void)
{
    cpu_set_t was, one;
    sched_getaffinity(0, sizeof was, &was);
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &was)) {
            CPU_SET(c, &one);
            break;
        }
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        fail("one core", "sched_setaffinity failed");
    redist_stats s1 = plan_stats("1 thread on 1 core", 1);
    check_counts("1 thread on 1 core", &s1, 1);
    int threads[] = {4, 1024};
    for (int k = 0; k < 2; k++) {
        char what[64];
        snprintf(what, sizeof what, "%d threads on 1 core", threads[k]);
        redist_stats st = plan_stats(what, threads[k]);
        check_counts(what, &st, threads[k]);
        if (st.steps >= 0 && s1.steps >= 0 && st.predicted_seconds != s1.predicted_seconds)
            fail(what, "predicted %g s, not %g s as with 1 thread", st.predicted_seconds,
                 s1.predicted_seconds);
        int c1 = 0, ck = 0;
        double e1 = explained(1, &c1), ek = explained(threads[k], &ck);
        if (ek >= 0 && (ek != e1 || c1 != 1 || ck != 1))
            fail(what, "explain: predicted %g s, cores %d; with 1 thread %g s, cores %d", ek, ck,
                 e1, c1);
    }
    sched_setaffinity(0, sizeof was, &was);
}

/* With the launcher's mask: threads beyond the cores predict as the cores. */
static void launcher_mask(void)
{
    int cores = mask_cores(), most = 0;
    MPI_Allreduce(&cores, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    redist_stats at = plan_stats("as many threads as cores", most);
    check_counts("as many threads as cores", &at, most);
    redist_stats beyond = plan_stats("5 threads beyond the cores", most + 5);
    check_counts("5 threads beyond the cores", &beyond, most + 5);
    if (at.steps >= 0 && beyond.steps >= 0 && beyond.predicted_seconds != at.predicted_seconds)
        fail("5 threads beyond the cores", "predicted %g s, not %g s as with %d",
             beyond.predicted_seconds, at.predicted_seconds, most);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    launcher_mask();
    one_core();
    return mtest_finalize(errs);
}
