/* What this machine's memory allows (pure POSIX, no MPI): plans refuse, or route around,
 * buffers that could never fit, instead of letting the kernel kill the job later.
 *
 * Both limits are a node's: sysconf and /dev/shm measure the node, and every rank on it
 * draws from the same memory (64 ranks on a node have 1/64 of it each, not all of it each).
 * REDIST_MEMORY_LIMIT and REDIST_SHM_LIMIT (bytes, environment) replace the measured values:
 * for a job that must stay within a share of the node, and for tests of the fallbacks.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/core.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* A positive number of bytes from the environment, or -1 if unset or malformed. */
static double env_bytes(const char *name)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return -1;
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    return errno == 0 && end != v && *end == '\0' && x >= 0 ? x : -1;
}

/* The physical memory, asked once per thread: sysconf(_SC_PHYS_PAGES) is a system call
   (sysinfo), and every dimension's pattern checks its size against the limit (explain
   builds the pattern of every rank that holds data: 40% of its time went there). */
static double physical_bytes(void)
{
    static _Thread_local double bytes;
    if (bytes == 0) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        bytes = pages > 0 && page > 0 ? (double)pages * (double)page : 1e300;
    }
    return bytes;
}

double redist__memory_limit(void)
{
    double forced = env_bytes("REDIST_MEMORY_LIMIT");
    return forced >= 0 ? forced : physical_bytes();
}

double redist__memory_share(int node_ranks)
{
    return redist__memory_limit() / (node_ranks > 1 ? node_ranks : 1);
}

double redist__shm_limit(void)
{
    double forced = env_bytes("REDIST_SHM_LIMIT");
    if (forced >= 0)
        return forced;
    struct statvfs st;
    if (statvfs("/dev/shm", &st) != 0) /* no /dev/shm: the MPI library maps files elsewhere */
        return redist__memory_limit();
    double shm = (double)st.f_bavail * (double)st.f_frsize, mem = redist__memory_limit();
    return shm < mem ? shm : mem;
}
