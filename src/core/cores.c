/* The cores the calling thread may run on (pure, no MPI): its CPU affinity mask, which the
 * launcher sets (Open MPI binds each rank to one core when it starts one or two, to a socket
 * beyond) and taskset or a cgroup's cpuset narrow. A rank's threads beyond these take turns
 * on them: the cost model counts at most this many (redist__model_threads), the tool warns. */
#define _GNU_SOURCE
#include "core/core.h"

#include <errno.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#endif

/* CPUs in the mask, or 0 if the mask cannot be read. glibc's cpu_set_t holds 1024 CPUs, on
   the stack; a kernel with more (EINVAL) needs a larger set, allocated. */
static int mask_count(void)
{
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    for (int n = 4096; errno == EINVAL && n <= (1 << 20); n *= 4) {
        size_t size = CPU_ALLOC_SIZE(n);
        cpu_set_t *big = redist__malloc(size);
        if (big == NULL)
            return 0;
        int rc = sched_getaffinity(0, size, big), count = rc == 0 ? CPU_COUNT_S(size, big) : 0;
        redist__free(big);
        if (rc == 0)
            return count;
    }
#endif
    return 0;
}

int redist__cores(void)
{
    int n = mask_count();
    if (n > 0)
        return n;
    long online = sysconf(_SC_NPROCESSORS_ONLN); /* no mask: every core of the machine */
    return online > 0 ? (int)online : 1;
}
