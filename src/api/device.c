/* Device memory through the library's backend (include/redist.h, "Device memory for
 * bindings"): what a language binding or a test needs to make arrays for device plans where
 * it has no CUDA of its own (the Python package's tests on the emulated device). */
#include "api/api.h"

#include "device/device.h"

int redist_device_alloc(size_t bytes, void **ptr)
{
    redist__device *dev = NULL;
    if (ptr == NULL)
        return redist__fail(REDIST_ERR_ARG, "device_alloc: NULL output pointer");
    *ptr = NULL;
    int err = redist__device_get(&dev);
    return err != REDIST_SUCCESS ? err : redist__device_alloc(dev, bytes, ptr);
}

int redist_device_free(void *ptr)
{
    redist__device *dev = NULL;
    int err = redist__device_get(&dev);
    if (err == REDIST_SUCCESS)
        redist__device_free(dev, ptr);
    return err;
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
