/* A plan's threads (options.threads): its local moves (pack, unpack, the self copy, bounded
 * mode's chunks) split among an OpenMP team, each thread moving its part of the message
 * (index/copy.c's parts: disjoint destination bytes, split by elements, tiles kept).
 *
 * Why OpenMP rather than a pool of our own: the codes that run many threads per rank are
 * OpenMP codes, and one runtime's pool then serves both them and us (a team of ours reuses
 * the threads of theirs between their regions, instead of a second set of threads competing
 * for the same cores). A call from inside the user's own parallel region finds nested
 * parallelism inactive (OpenMP's default, max-active-levels 1): the team is the calling
 * thread alone, so nothing is oversubscribed and the result is the same.
 *
 * Only the calling thread ever calls MPI: a team exists only inside redist__par_run and
 * redist__par_cursor_move, whose work calls no MPI. Nothing is allocated here. A move too small to
 * pay for a team (less than MIN_BYTES_PER_THREAD per thread) runs on the calling thread. */
#include "exec/exec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* A team's start and end cost a few microseconds (libgomp, threads parked); a thread's
   share must move enough to repay them: 64 KiB is about 5 us of copying.
   REDIST_THREAD_MIN_BYTES replaces it (tests set 1, so that their small arrays take the
   threaded paths). */
enum { MIN_BYTES_PER_THREAD = 64 * 1024 };

static int64_t min_bytes_per_thread(void)
{
    const char *v = getenv("REDIST_THREAD_MIN_BYTES");
    char *end = NULL;
    long long n = v != NULL ? strtoll(v, &end, 10) : 0;
    return v != NULL && end != v && *end == '\0' && n >= 1 ? (int64_t)n : MIN_BYTES_PER_THREAD;
}

int redist__threads_available(void)
{
#ifdef _OPENMP
    return 1;
#else
    return 0;
#endif
}

/* REDIST_NUM_THREADS: a positive decimal integer (blanks around it allowed) up to
   REDIST_MAX_THREADS; 0 if unset or empty; -1 if malformed. */
static int env_threads(void)
{
    const char *v = getenv("REDIST_NUM_THREADS");
    if (v == NULL)
        return 0;
    while (*v == ' ' || *v == '\t')
        v++;
    if (*v == '\0')
        return 0;
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    while (end != NULL && (*end == ' ' || *end == '\t' || *end == '\n'))
        end++;
    if (errno != 0 || end == v || *end != '\0' || n < 1 || n > REDIST_MAX_THREADS)
        return -1;
    return (int)n;
}

int redist__threads_resolve(const redist_options *opt, int *threads, int64_t *min_bytes)
{
    int n = opt != NULL ? opt->threads : 0;
    *threads = 1;
    *min_bytes = min_bytes_per_thread();
    if (n < 0 || n > REDIST_MAX_THREADS)
        return redist__fail(REDIST_ERR_ARG, "threads = %d is not in 0 .. %d", n,
                            REDIST_MAX_THREADS);
    if (n == 0) {
        n = env_threads();
        if (n < 0)
            return redist__fail(REDIST_ERR_ARG,
                                "REDIST_NUM_THREADS='%.40s' is not a whole number of threads "
                                "from 1 to %d",
                                getenv("REDIST_NUM_THREADS"), REDIST_MAX_THREADS);
        if (n == 0)
            n = 1;
    }
    if (n > 1 && !redist__threads_available())
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "%d threads asked for, but this library was built without OpenMP", n);
    *threads = n;
    return REDIST_SUCCESS;
}

int redist__team_size(const struct redist_plan_s *p, int64_t bytes)
{
    int64_t most = bytes / p->thread_min_bytes;
    return most < 2 || p->threads < 2 ? 1 : most < p->threads ? (int)most : p->threads;
}

void redist__par_run(const struct redist_plan_s *p, int64_t bytes, redist__part_fn fn, void *arg)
{
    int team = redist__team_size(p, bytes);
    if (team == 1) {
        fn(arg, 0, 1);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel num_threads(team)
    fn(arg, omp_get_thread_num(), omp_get_num_threads());
#endif
}

typedef struct move_job {
    const struct redist_plan_s *p;
    int kind;
    const redist__msg *m;
    const char *a;
    char *b;
} move_job;

static void move_part(void *arg, int part, int nparts)
{
    const move_job *j = arg;
    redist__move_part(j->m, j->kind, j->a, j->b, j->p->elsize,
                      j->kind == REDIST__PACK ? NULL : j->p->scale, part, nparts);
}

void redist__par_move(const struct redist_plan_s *p, int kind, const redist__msg *m, const char *a,
                      char *b)
{
    if (p->device != NULL) { /* device arrays: kernels and staging (staging.c) */
        redist__staged_move(p, kind, m, a, b, 0, m->nelems);
        return;
    }
    move_job job = {p, kind, m, a, b};
    redist__par_run(p, m->nelems * (int64_t)p->elsize, move_part, &job);
}

int64_t redist__par_cursor_move(const struct redist_plan_s *p, int kind, redist__cursor *c,
                                const char *a, char *b, int64_t max)
{
    int64_t left = c->m->nelems - c->done, n = max < left ? max : left;
    if (p->device != NULL) { /* the packed side at the cursor, as the range walker wants */
        redist__staged_move(p, kind, c->m, a, b, c->done, c->done + n);
        return redist__cursor_skip(c, n);
    }
    int team = redist__team_size(p, n * (int64_t)p->elsize);
    if (team == 1)
        return kind == REDIST__PACK ? redist__cursor_pack(c, a, b, max, p->elsize)
                                    : redist__cursor_unpack(c, a, b, max, p->elsize, p->scale);
    int64_t lo = c->done, es = (int64_t)p->elsize;
    const redist__scale *sc = kind == REDIST__PACK ? NULL : p->scale;
#ifdef _OPENMP
#pragma omp parallel num_threads(team)
    {
        int64_t t = omp_get_thread_num(), k = omp_get_num_threads();
        int64_t from = n * t / k, to = n * (t + 1) / k; /* past the cursor */
        redist__move_range(c->m, kind, kind == REDIST__UNPACK ? a + from * es : a,
                           kind == REDIST__PACK ? b + from * es : b, p->elsize, sc, lo + from,
                           lo + to);
    }
#endif
    return redist__cursor_skip(c, n);
}
