/* The CUDA backend (device.h): the driver API loaded at run time with dlopen, so that the
 * library neither links nor needs libcuda where no GPU is (NCCL's and cuFFT's loaders do the
 * same). Where libcuda.so.1 cannot be loaded, or has no device, a plan asking for CUDA
 * memory gets REDIST_ERR_UNSUPPORTED with the reason.
 *
 * Not done yet (issue 28 in progress): the kernels and copies themselves. Until they are,
 * a loaded driver is refused too, naming what is missing, so that no plan pretends to move
 * device data. The emulated backend (emulated.c) carries the device paths in the tests. */
#define _GNU_SOURCE
#include "device/device.h"

#include <dlfcn.h>

int redist__device_cuda_load(const redist__device_ops **ops)
{
    *ops = NULL;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "CUDA device memory needs the CUDA driver, which cannot be loaded "
                            "here (%.160s)",
                            why != NULL ? why : "libcuda.so.1: not found");
    }
    dlclose(lib);
    return redist__fail(REDIST_ERR_UNSUPPORTED,
                        "the CUDA driver loads, but this build's CUDA backend has no kernels "
                        "yet (issue 28 in progress); REDIST_DEVICE_BACKEND=emulated runs the "
                        "device paths on the host for tests");
}
