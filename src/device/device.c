/* The backend of device memory (device.h): chosen once per process, then thin calls. */
#include "device/device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct redist__device {
    const redist__device_ops *ops;
};

static redist__device the_device;
static int load_err = REDIST_SUCCESS;
static char load_why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    const char *want = getenv("REDIST_DEVICE_BACKEND");
    int emulated = want != NULL && strcmp(want, "emulated") == 0;
    if (want != NULL && *want != '\0' && !emulated && strcmp(want, "cuda") != 0) {
        load_err = REDIST_ERR_ARG;
        snprintf(load_why, sizeof load_why,
                 "REDIST_DEVICE_BACKEND='%.40s' is neither 'cuda' nor 'emulated'", want);
        return;
    }
    load_err = emulated ? redist__device_emulated_load(&the_device.ops)
                        : redist__device_cuda_load(&the_device.ops);
    if (load_err != REDIST_SUCCESS)
        snprintf(load_why, sizeof load_why, "%s", redist_last_error_detail());
}

int redist__device_get(redist__device **dev)
{
    pthread_once(&once, load);
    *dev = load_err == REDIST_SUCCESS ? &the_device : NULL;
    return load_err == REDIST_SUCCESS ? REDIST_SUCCESS : redist__fail(load_err, "%s", load_why);
}

int redist__device_check_current(redist__device *dev)
{
    return dev->ops->check_current != NULL ? dev->ops->check_current() : REDIST_SUCCESS;
}

const char *redist__device_name(const redist__device *dev)
{
    return dev->ops->name;
}

int redist__device_alloc(redist__device *dev, size_t bytes, void **ptr)
{
    return dev->ops->alloc(bytes, ptr);
}

void redist__device_free(redist__device *dev, void *ptr)
{
    if (ptr != NULL)
        dev->ops->free(ptr);
}

int redist__device_host_alloc(redist__device *dev, size_t bytes, void **ptr)
{
    return dev->ops->host_alloc(bytes, ptr);
}

void redist__device_host_free(redist__device *dev, void *ptr)
{
    if (ptr != NULL)
        dev->ops->host_free(ptr);
}

int64_t redist__device_stage_bytes(int64_t max_buffer_bytes)
{
    const char *v = getenv("REDIST_DEVICE_STAGE_BYTES");
    char *end = NULL;
    long long n = v != NULL ? strtoll(v, &end, 10) : 0;
    int64_t bytes = v != NULL && end != v && *end == '\0' && n >= 1 ? (int64_t)n : 64 << 20;
    return max_buffer_bytes > 0 && max_buffer_bytes < bytes ? max_buffer_bytes : bytes;
}

int redist__device_host_register(redist__device *dev, void *ptr, size_t bytes)
{
    return ptr != NULL && bytes > 0 ? dev->ops->host_register(ptr, bytes) : REDIST_SUCCESS;
}

void redist__device_host_unregister(redist__device *dev, void *ptr)
{
    if (ptr != NULL)
        dev->ops->host_unregister(ptr);
}

int redist__device_to_host(redist__device *dev, void *host, const void *device, size_t bytes,
                           void *stream)
{
    return bytes == 0 ? REDIST_SUCCESS
                      : dev->ops->copy(host, device, bytes, REDIST__TO_HOST, stream);
}

int redist__device_to_device(redist__device *dev, void *to, const void *from, size_t bytes,
                             void *stream)
{
    return bytes == 0 ? REDIST_SUCCESS
                      : dev->ops->copy(to, from, bytes, REDIST__DEVICE_TO_DEVICE, stream);
}

int redist__device_from_host(redist__device *dev, void *device, const void *host, size_t bytes,
                             void *stream)
{
    return bytes == 0 ? REDIST_SUCCESS
                      : dev->ops->copy(device, host, bytes, REDIST__TO_DEVICE, stream);
}

int redist__device_sync(redist__device *dev, void *stream)
{
    return dev->ops->sync(stream);
}

int redist__device_idle(redist__device *dev)
{
    return dev->ops->idle != NULL ? dev->ops->idle() : -1;
}

int redist__device_event_create(redist__device *dev, redist__device_event **ev)
{
    *ev = NULL;
    return dev->ops->event_create(ev);
}

void redist__device_event_destroy(redist__device *dev, redist__device_event *ev)
{
    if (ev != NULL)
        dev->ops->event_destroy(ev);
}

int redist__device_event_record(redist__device *dev, redist__device_event *ev, void *stream)
{
    return dev->ops->event_record(ev, stream);
}

int redist__device_event_wait(redist__device *dev, redist__device_event *ev)
{
    return dev->ops->event_wait(ev);
}

int redist__device_upload(redist__device *dev, const redist__msg *m, redist__device_msg **out)
{
    *out = NULL;
    return dev->ops->upload(m, out);
}

void redist__device_forget(redist__device *dev, redist__device_msg *dm)
{
    if (dm != NULL)
        dev->ops->forget(dm);
}

int redist__device_move(redist__device *dev, const redist__device_msg *dm, int kind, const char *a,
                        char *b, size_t elsize, const redist__scale *sc, int64_t lo, int64_t hi,
                        void *stream)
{
    return hi <= lo ? REDIST_SUCCESS : dev->ops->move(dm, kind, a, b, elsize, sc, lo, hi, stream);
}

int redist__device_owns(redist__device *dev, const void *ptr)
{
    return ptr != NULL && dev->ops->owns(ptr);
}

static int no_ipc(const redist__device *dev)
{
    return redist__fail(REDIST_ERR_UNSUPPORTED, "the %s device has no inter-process memory",
                        dev->ops->name);
}

int redist__device_ipc_get(redist__device *dev, const void *ptr, size_t bytes,
                           redist__ipc_handle *h, size_t *offset, size_t *length)
{
    memset(h, 0, sizeof *h);
    *offset = *length = 0;
    if (dev->ops->ipc_get == NULL)
        return no_ipc(dev);
    if (ptr == NULL)
        return redist__fail(REDIST_ERR_ARG, "a handle of a NULL array");
    return dev->ops->ipc_get(ptr, bytes, h, offset, length);
}

int redist__device_ipc_open(redist__device *dev, const redist__ipc_handle *h, void **base)
{
    *base = NULL;
    return dev->ops->ipc_open != NULL ? dev->ops->ipc_open(h, base) : no_ipc(dev);
}

void redist__device_ipc_close(redist__device *dev, void *base)
{
    if (base != NULL && dev->ops->ipc_close != NULL)
        dev->ops->ipc_close(base);
}

int redist__device_pull(redist__device *dev, const redist__device_msg *from,
                        const redist__device_msg *to, const char *a, char *b, size_t elsize,
                        const redist__scale *sc, int64_t lo, int64_t hi, void *stream)
{
    if (hi <= lo)
        return REDIST_SUCCESS;
    return dev->ops->pull != NULL ? dev->ops->pull(from, to, a, b, elsize, sc, lo, hi, stream)
                                  : no_ipc(dev);
}

int redist__device_has_ipc(const redist__device *dev)
{
    return dev != NULL && dev->ops->ipc_get != NULL && dev->ops->ipc_open != NULL &&
           dev->ops->pull != NULL && redist__device_ipc_policy() != REDIST__IPC_OFF;
}

int redist__device_has_ipc_events(const redist__device *dev)
{
    return dev != NULL && dev->ops->ipc_event_create != NULL && dev->ops->ipc_event_open != NULL &&
           dev->ops->stream_wait != NULL;
}

int redist__device_ipc_event_create(redist__device *dev, redist__device_event **ev,
                                    redist__ipc_handle *h)
{
    *ev = NULL;
    if (!redist__device_has_ipc_events(dev))
        return redist__fail(REDIST_ERR_UNSUPPORTED, "device: no events between processes");
    return dev->ops->ipc_event_create(ev, h);
}

int redist__device_ipc_event_open(redist__device *dev, const redist__ipc_handle *h,
                                  redist__device_event **ev)
{
    *ev = NULL;
    if (!redist__device_has_ipc_events(dev))
        return redist__fail(REDIST_ERR_UNSUPPORTED, "device: no events between processes");
    return dev->ops->ipc_event_open(h, ev);
}

int redist__device_stream_wait(redist__device *dev, void *stream, redist__device_event *ev)
{
    return dev->ops->stream_wait(stream, ev);
}

int redist__device_ipc_policy(void)
{
    const char *v = getenv("REDIST_DEVICE_IPC");
    if (v != NULL && strcmp(v, "0") == 0)
        return REDIST__IPC_OFF;
    if (v != NULL && strcmp(v, "per-execute") == 0)
        return REDIST__IPC_PER_EXECUTE;
    return REDIST__IPC_KEEP;
}
