/* Device memory through the library's backend (include/redist.h, "Device memory for
 * bindings"): what a language binding or a test needs to make arrays for device plans where
 * it has no CUDA of its own (the Python package's tests on the emulated device). */
#include "api/api.h"

#include "device/device.h"

#include <stdlib.h>

int redist_device_alloc(size_t bytes, void **ptr)
{
    redist__device *dev = NULL;
    if (ptr == NULL)
        return redist__fail(REDIST_ERR_ARG, "device_alloc: NULL output pointer");
    *ptr = NULL;
    int err = redist__device_get(&dev);
    if (err == REDIST_SUCCESS)
        err = redist__device_alloc(dev, bytes, ptr);
    if (err == REDIST_SUCCESS && (err = redist__given_add(*ptr, bytes)) != REDIST_SUCCESS) {
        redist__device_free(dev, *ptr);
        *ptr = NULL;
    }
    return err;
}

int redist_device_free(void *ptr)
{
    redist__device *dev = NULL;
    int err = redist__device_get(&dev);
    if (err != REDIST_SUCCESS || ptr == NULL) /* NULL: nothing to free, as free(NULL) */
        return err;
    /* only its own allocations (a backend's free takes a host pointer, a pointer inside an
       allocation or a second free silently or with a bare error), none in flight */
    err = redist__given_remove(ptr);
    if (err != REDIST_SUCCESS)
        return err;
    redist__device_free(dev, ptr);
    return REDIST_SUCCESS;
}

int redist_device_copy(void *to, const void *from, size_t bytes)
{
    redist__device *dev = NULL;
    int err = redist__device_get(&dev);
    if (err != REDIST_SUCCESS || bytes == 0)
        return err;
    int to_dev = redist__device_owns(dev, to), from_dev = redist__device_owns(dev, from);
    if (!to_dev && !from_dev)
        return redist__fail(REDIST_ERR_ARG, "device_copy: neither side is device memory");
    err = to_dev && from_dev ? redist__device_to_device(dev, to, from, bytes, NULL)
          : to_dev           ? redist__device_from_host(dev, to, from, bytes, NULL)
                             : redist__device_to_host(dev, to, from, bytes, NULL);
    return err != REDIST_SUCCESS ? err : redist__device_sync(dev, NULL);
}
