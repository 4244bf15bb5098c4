/* Device memory in the MPI tests: mdevice.h. */
#include "support/mdevice.h"

#include "device/device.h"
#include "support/mtest.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int memory = -1;
static redist__device *dev;
/* The emulated device's count of pageable copies after the test's own copies in (marked):
   mtest_device_out checks that the execute between made none (the count stays 0 on other
   backends). */
static uint64_t pageable_mark;
static int marked;

int mtest_test_memory(void)
{
    if (memory >= 0)
        return memory;
    const char *v = getenv("REDIST_TEST_MEMORY");
    memory = REDIST_MEMORY_HOST;
    if (v == NULL || strcmp(v, "host") == 0 || *v == '\0')
        return memory;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(v, "cuda") != 0 && strcmp(v, "auto") != 0) {
        fprintf(stderr, "REDIST_TEST_MEMORY=%s: host, cuda or auto\n", v);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (redist__device_get(&dev) != REDIST_SUCCESS) { /* asked for: a failure, not a skip */
        fprintf(stderr, "REDIST_TEST_MEMORY=%s: no device (%s)\n", v, redist_last_error_detail());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memory = strcmp(v, "cuda") == 0 ? REDIST_MEMORY_CUDA : REDIST_MEMORY_AUTO;
    if (rank == 0)
        printf("arrays in %s device memory (options.memory = %s)\n", redist__device_name(dev), v);
    return memory;
}

int mtest_device_capable(const char *name)
{
    static const char *names[] = {"auto",
                                  "direct-async",
                                  "direct",
                                  "alltoallv",
                                  "alltoall-padded",
                                  "indirect",
                                  "hybrid",
                                  "block-to-block",
                                  "block-to-cyclic",
                                  "cyclic-to-block",
                                  "tk-to-k",
                                  "k-to-tk",
                                  "scatter-allgather",
                                  "node-aware"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

int mtest_device_refused(int *errs, int rank, const char *name, int index, int datatype, int rc,
                         redist_plan *plan)
{
    if (mtest_test_memory() == REDIST_MEMORY_HOST || (!datatype && mtest_device_capable(name)))
        return 0;
    int want = datatype ? REDIST_ERR_ARG : REDIST_ERR_NOT_APPLICABLE;
    if (rc != want)
        mtest_fail(errs, rank, name, "case %d: a device plan%s: %s, want %s", index,
                   datatype ? " with the datatype transport" : "", redist_strerror(rc),
                   redist_error_name(want));
    redist_plan_free(plan);
    return 1;
}

int mtest_on_device(int k, int side)
{
    int m = mtest_test_memory();
    return m == REDIST_MEMORY_CUDA || (m == REDIST_MEMORY_AUTO && ((k >> side) & 1));
}

void *mtest_device_alloc(size_t bytes)
{
    void *d = NULL;
    if (bytes == 0 || mtest_test_memory() == REDIST_MEMORY_HOST ||
        redist__device_alloc(dev, bytes, &d) != REDIST_SUCCESS)
        return NULL;
    return d;
}

void mtest_device_free(void *d)
{
    if (d != NULL)
        redist__device_free(dev, d);
}

void *mtest_device_in(const void *h, void *d, size_t bytes, int on)
{
    if (!on || bytes == 0)
        return (void *)h;
    if (redist__device_from_host(dev, d, h, bytes, NULL) != REDIST_SUCCESS ||
        redist__device_sync(dev, NULL) != REDIST_SUCCESS) /* copies may be asynchronous */
        return NULL;
    pageable_mark = redist__device_emulated_pageable_copies();
    marked = 1;
    return d;
}

void mtest_device_out(void *h, const void *d, size_t bytes, int on)
{
    if (on && redist__device_idle(dev) == 0) { /* the contract, not a wrong element: stop */
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        printf("[rank %d] an execute returned with device work still in flight (dst is not "
               "complete when it returns)\n",
               rank);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (marked && redist__device_emulated_pageable_copies() != pageable_mark) {
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        printf("[rank %d] an execute copied between the device and pageable host memory %llu "
               "times (on a GPU a slow synchronous copy: the plan's staging must be pinned)\n",
               rank,
               (unsigned long long)(redist__device_emulated_pageable_copies() - pageable_mark));
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    marked = 0;
    if (on && bytes > 0) {
        redist__device_to_host(dev, h, d, bytes, NULL);
        redist__device_sync(dev, NULL);
    }
}
