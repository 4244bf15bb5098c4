/* Device memory in the MPI tests: REDIST_TEST_MEMORY=cuda runs a test's cases with
 * their arrays in device memory (options.memory = REDIST_MEMORY_CUDA), =auto with
 * options.memory = REDIST_MEMORY_AUTO and each execute's arrays in device or host memory in
 * turn. With REDIST_DEVICE_BACKEND=emulated (make check, make stress) that memory is the
 * emulated device's, which the host cannot touch: a test fills and reads it through the
 * backend's copies only, so any host access by the library crashes the test. */
#ifndef REDIST_MDEVICE_H
#define REDIST_MDEVICE_H

#include <stddef.h>

#include "redist.h"

/* REDIST_TEST_MEMORY read once: REDIST_MEMORY_HOST (unset or "host"), _CUDA or _AUTO. Asked
   for and no device: a failure (MPI_Abort), never a skip. Rank 0 says which memory. */
int mtest_test_memory(void);

/* 1 if algorithm `name` may run a device plan (exec.h's `device` flag: its moves run as
   kernels), as docs/api.md lists them; the others are NOT_APPLICABLE for device memory. */
int mtest_device_capable(const char *name);

/* With device memory, a plan of algorithm `name` that may not run (datatype: the datatype
   transport's variant, REDIST_ERR_ARG; an algorithm that cannot move device memory,
   REDIST_ERR_NOT_APPLICABLE) is checked for that code (else an error counted in *errs, for
   case `index`), freed, and 1 returned: the caller moves on. 0 for host memory and for plans
   that may run. */
int mtest_device_refused(int *errs, int rank, const char *name, int index, int datatype, int rc,
                         redist_plan *plan);

/* Execute k of a case: 1 if its source (side 0) or destination (side 1) array is device
   memory: always with cuda, in turn with auto, never with host. */
int mtest_on_device(int k, int side);

/* A device array of `bytes` (NULL for 0 bytes or without a device memory test), and its
   release. */
void *mtest_device_alloc(size_t bytes);
void mtest_device_free(void *d);

/* The array a plan sees for host array h of `bytes`: h itself (on = 0), or its device twin d
   filled from h (NULL if the copy failed). */
void *mtest_device_in(const void *h, void *d, size_t bytes, int on);
/* After an execute: the twin's contents back into h (on = 1); nothing otherwise. Where the
   backend can tell (the emulated device), the execute must have left no device work in
   flight and made no copy between the device and unpinned host memory since the last
   mtest_device_in: else the test stops with a message (MPI_Abort). */
void mtest_device_out(void *h, const void *d, size_t bytes, int on);

#endif
