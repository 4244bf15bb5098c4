/* The allocations redist_device_alloc made (device.h, "given allocations"): a list, as a
 * binding or a test holds a few arrays; under a lock, as threads may call at once. Each
 * entry counts the executes in flight on arrays inside it, so that redist_device_free can
 * refuse to free memory a kernel of an execute may still read or write (BUSY), as
 * redist_free does for redist_alloc's allocations. */
#include "device/device.h"

#include <pthread.h>

typedef struct {
    char *base;
    size_t bytes;
    int in_flight;
} given_alloc;

static pthread_mutex_t given_lock = PTHREAD_MUTEX_INITIALIZER;
static given_alloc *given;
static size_t ngiven, given_cap;

int redist__given_add(void *base, size_t bytes)
{
    int err = REDIST_SUCCESS;
    pthread_mutex_lock(&given_lock);
    if (ngiven == given_cap) {
        size_t cap = given_cap ? 2 * given_cap : 16;
        given_alloc *more = redist__realloc(given, cap * sizeof *more);
        if (more != NULL) {
            given = more;
            given_cap = cap;
        } else
            err = redist__fail(REDIST_ERR_NOMEM, "device_alloc: the list of allocations");
    }
    if (err == REDIST_SUCCESS)
        given[ngiven++] = (given_alloc){(char *)base, bytes, 0};
    pthread_mutex_unlock(&given_lock);
    return err;
}

int redist__given_remove(const void *base)
{
    int err = REDIST_ERR_ARG;
    pthread_mutex_lock(&given_lock);
    for (size_t i = 0; i < ngiven && err == REDIST_ERR_ARG; i++) {
        if (given[i].base != base)
            continue;
        if (given[i].in_flight > 0)
            err = REDIST_ERR_BUSY;
        else {
            given[i] = given[--ngiven];
            err = REDIST_SUCCESS;
        }
    }
    pthread_mutex_unlock(&given_lock);
    if (err == REDIST_ERR_BUSY)
        return redist__fail(err,
                            "device_free: an execute on arrays in the allocation at %p has "
                            "not completed (redist_wait for it first)",
                            base);
    if (err == REDIST_ERR_ARG)
        return redist__fail(err,
                            "device_free: %p is not an address redist_device_alloc "
                            "returned, or it was freed already",
                            base);
    return err;
}

void *redist__given_hold(const void *p)
{
    void *base = NULL;
    if (p == NULL)
        return NULL;
    pthread_mutex_lock(&given_lock);
    for (size_t i = 0; i < ngiven && base == NULL; i++)
        if ((const char *)p >= given[i].base && (const char *)p < given[i].base + given[i].bytes) {
            given[i].in_flight++;
            base = given[i].base;
        }
    pthread_mutex_unlock(&given_lock);
    return base;
}

void redist__given_release(const void *base)
{
    if (base == NULL)
        return;
    pthread_mutex_lock(&given_lock);
    for (size_t i = 0; i < ngiven; i++)
        if (given[i].base == base && given[i].in_flight > 0) {
            given[i].in_flight--;
            break;
        }
    pthread_mutex_unlock(&given_lock);
}
