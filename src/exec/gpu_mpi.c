/* Whether the MPI library takes device pointers (exec.h, "GPU-aware MPI"): Open MPI says so
 * through MPIX_Query_cuda_support (its CUDA extension), MPICH through
 * MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes). Both are looked up at run time, so that
 * the library builds and runs against MPI libraries without them (then: no). Asked only
 * between MPI_Init and MPI_Finalize (MPICH's aborts the process outside them; without MPI:
 * no). REDIST_GPU_AWARE_MPI overrides the query: "1" (the user
 * knows, e.g. an MPI built on UCX with CUDA that does not answer) or "0" (never). */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "exec/exec.h"

#include "device/device.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MPICH_GPU_SUPPORT_CUDA = 0 }; /* MPIX_GPU_SUPPORT_CUDA in MPICH's mpi.h */

typedef int (*open_mpi_query)(void);
typedef int (*mpich_query)(int gpu_type, int *is_supported);

/* The MPI library's own answer: 1, 0, or -1 where it has no query, or cannot be asked now
   (before MPI_Init or after MPI_Finalize: MPICH's query aborts the process then, and
   `redist explain` runs without MPI). */
static int ask_mpi(void)
{
    int initialized = 0, finalized = 0;
    if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized ||
        MPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
        return -1;
    open_mpi_query ompi = NULL;
    mpich_query mpich = NULL;
    *(void **)&ompi = dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support");
    if (ompi != NULL)
        return ompi() == 1;
    *(void **)&mpich = dlsym(RTLD_DEFAULT, "MPIX_GPU_query_support");
    int yes = 0;
    if (mpich != NULL)
        return mpich(MPICH_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes == 1;
    return -1;
}

int redist__mpi_gpu_aware(char *why, size_t len)
{
    const char *v = getenv("REDIST_GPU_AWARE_MPI");
    if (v != NULL && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0)) {
        if (why != NULL)
            snprintf(why, len, "REDIST_GPU_AWARE_MPI=%s", v);
        return v[0] == '1';
    }
    int answer = ask_mpi();
    if (why != NULL)
        snprintf(why, len, "%s",
                 answer < 0   ? "the MPI library has no query (MPIX_Query_cuda_support, "
                                "MPIX_GPU_query_support), or MPI is not initialized: taken "
                                "as not GPU-aware"
                 : answer > 0 ? "the MPI library says it takes CUDA device memory"
                              : "the MPI library says it does not take CUDA device memory");
    return answer > 0;
}

/* 1 if some send or receive message goes through MPI (not the node's window). */
static int any_through_mpi(const struct redist_plan_s *p)
{
    for (int i = 0; i < p->send.nmsgs; i++)
        if (!redist__shm_local(p, 1, i))
            return 1;
    for (int i = 0; i < p->recv.nmsgs; i++)
        if (!redist__shm_local(p, 0, i))
            return 1;
    return 0;
}

int redist__gpu_mpi_usable(const struct redist_plan_s *p)
{
    if (p->device == NULL || p->opt.memory != REDIST_MEMORY_CUDA)
        return 0;
    /* the emulated device's memory is out of MPI's reach, but for tests whose PMPI wrappers
       hand MPI its host view (tests/mpi/test_device_onecopy.c) */
    const char *name = redist__device_name(redist__staging_dev(p));
    if (strcmp(name, "emulated") == 0 && getenv("REDIST_EMULATED_MPI_VIEW") == NULL)
        return 0;
    return redist__mpi_gpu_aware(NULL, 0);
}

void redist__gpu_mpi_setup(struct redist_plan_s *p)
{
    p->gpu_mpi = 0;
    if (!p->algo->gpu_mpi || p->bounded || p->transport != REDIST_TRANSPORT_PACK ||
        !any_through_mpi(p) || !redist__gpu_mpi_usable(p))
        return;
    size_t es = p->elsize;
    redist__kept_detail kept; /* no room on the device is an answer: staged */
    redist__detail_keep(&kept);
    p->dsendbuf = redist__staging_array(p, (size_t)p->send.total_elems * es + 1);
    p->drecvbuf = redist__staging_array(p, (size_t)p->recv.total_elems * es + 1);
    redist__detail_restore(&kept);
    p->gpu_mpi = p->dsendbuf != NULL && p->drecvbuf != NULL; /* else freed with the plan */
}

char *redist__msg_buffer(const struct redist_plan_s *p, int is_send, int i)
{
    const redist__msg *m = is_send ? &p->send.msgs[i] : &p->recv.msgs[i];
    char *base = is_send ? p->sendbuf : p->recvbuf;
    if (p->gpu_mpi && !redist__shm_local(p, is_send, i))
        base = is_send ? p->dsendbuf : p->drecvbuf;
    return base + m->offset * (int64_t)p->elsize;
}
