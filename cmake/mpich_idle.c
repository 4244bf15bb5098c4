/* MPICH's counterpart of Open MPI's `--mca mpi_yield_when_idle 1`, for the tests, `make demo`
 * and `make bench`, which run up to 8 ranks on 2 cores. Not part of the library.
 *
 * MPICH 4.0's ch4 device waits by polling without ever giving up the core
 * (MPIR_CVAR_POLLS_BEFORE_YIELD belongs to the ch3 device only), so with more ranks than
 * cores a rank that waits for a message holds the core that its sender needs, for a whole
 * time slice, at every step of every exchange: one test on 8 ranks took more than 300 s
 * instead of 4 s. The launcher preloads this library into every rank (`-genv LD_PRELOAD`,
 * CMakeLists.txt). It wraps UCX's ucp_worker_progress, which MPICH's ch4:ucx device (Debian's
 * build) calls at each turn of its waiting loop: after a turn that found nothing to do, the
 * rank yields the core; after IDLE_YIELDS such turns in a row it sleeps (about 50 us, the
 * default timer slack) at each further idle turn, which gives the core to the other ranks and
 * to other programs even where sched_yield does not. A rank that has work never waits here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>
#include <time.h>

struct ucp_worker;
typedef unsigned (*progress_fn)(struct ucp_worker *);

enum { IDLE_YIELDS = 100 };

unsigned ucp_worker_progress(struct ucp_worker *worker);

unsigned ucp_worker_progress(struct ucp_worker *worker)
{
    static progress_fn real;
    static _Thread_local unsigned idle;
    progress_fn fn = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
    if (fn == NULL) {
        fn = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        if (fn == NULL)
            return 0; /* no UCX below us: nothing to progress */
        __atomic_store_n(&real, fn, __ATOMIC_RELEASE);
    }
    unsigned events = fn(worker);
    if (events != 0) {
        idle = 0;
        return events;
    }
    if (idle < IDLE_YIELDS) {
        idle++;
        sched_yield();
    } else {
        struct timespec ts = {0, 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}
