/* Device memory through the library's backend (include/redist.h, "Device memory for
 * bindings"): what a language binding or a test needs to make arrays for device plans where
 * it has no CUDA of its own (the Python package's tests on the emulated device). */
#include "api/api.h"

#include "device/device.h"

#include <pthread.h>
#include <stdlib.h>

/* The allocations redist_device_alloc made that redist_device_free has not freed. The free
   takes only these: a backend's own free takes a host pointer, a pointer inside an
   allocation or a second free silently (the emulated one) or with a bare error (CUDA's). A
   list, as a binding holds a few arrays; under a lock, as threads may call at once. */
static pthread_mutex_t given_lock = PTHREAD_MUTEX_INITIALIZER;
static void **given;
static size_t ngiven, given_cap;

static int remember(void *ptr)
{
    pthread_mutex_lock(&given_lock);
    if (ngiven == given_cap) {
        size_t cap = given_cap ? 2 * given_cap : 16;
        void **more = redist__realloc(given, cap * sizeof *more);
        if (more == NULL) {
            pthread_mutex_unlock(&given_lock);
            return redist__fail(REDIST_ERR_NOMEM, "device_alloc: the list of allocations");
        }
        given = more;
        given_cap = cap;
    }
    given[ngiven++] = ptr;
    pthread_mutex_unlock(&given_lock);
    return REDIST_SUCCESS;
}

/* Takes ptr off the list: 1, or 0 if it is not on it. */
static int forget(const void *ptr)
{
    int found = 0;
    pthread_mutex_lock(&given_lock);
    for (size_t i = 0; i < ngiven && !found; i++)
        if (given[i] == ptr) {
            given[i] = given[--ngiven];
            found = 1;
        }
    pthread_mutex_unlock(&given_lock);
    return found;
}

int redist_device_alloc(size_t bytes, void **ptr)
{
    redist__device *dev = NULL;
    if (ptr == NULL)
        return redist__fail(REDIST_ERR_ARG, "device_alloc: NULL output pointer");
    *ptr = NULL;
    int err = redist__device_get(&dev);
    if (err == REDIST_SUCCESS)
        err = redist__device_alloc(dev, bytes, ptr);
    if (err == REDIST_SUCCESS && (err = remember(*ptr)) != REDIST_SUCCESS) {
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
    if (!forget(ptr))
        return redist__fail(REDIST_ERR_ARG,
                            "device_free: %p is not an address redist_device_alloc returned, "
                            "or it was freed already",
                            ptr);
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
