/* Device memory in a plan (options.memory): the plan's moves of the user's arrays
 * run as kernels on the device (device/device.h), and what travels between ranks is staged
 * through the plan's host buffers, as with host arrays.
 *
 * A move is one of three (index/copy.c's kinds):
 *   PACK    array (device) -> packed bytes (host: a send buffer, a relay slot, a window):
 *           kernel into the device scratch, then a copy off the device;
 *   UNPACK  packed bytes (host) -> array (device): a copy onto the device scratch, then the
 *           kernel (scaling included);
 *   COPY    array -> array (the self part): one kernel, it never leaves the device.
 * in pieces of the scratch's size (bounded memory whatever the message). With
 * REDIST_MEMORY_AUTO an array may be host memory: its side of the move then runs on the host
 * (a host array to a device array: packed on the host, then copied on and unpacked there).
 * Every piece waits for its stream before the host reads or reuses what it staged.
 *
 * The kernels read each message's index lists (device/decode.h), uploaded at plan time.
 *
 * Waiting: a move's pieces are queued on the stream in order and the move waits once at its
 * end, unless its caller defers that (staging_defer): direct-async queues every send
 * message's pack at once and sends each as soon as its own copy off the device is done
 * (an event per message), so the copy of message i + 1 runs while message i travels; an
 * arrived message's copy onto the device and its kernel, and the self copy, run on while
 * other messages arrive. The end of the execute (staging_error) waits for all. The plan's
 * host buffers are pinned (staging_pin), so that the copies are asynchronous and run at the
 * link's rate. */
#include "exec/exec.h"

#include "device/device.h"

#include <stdio.h>
#include <stdlib.h>

struct redist__staging {
    redist__device *dev;
    int memory;           /* options.memory */
    int src_dev, dst_dev; /* this execute: the arrays are device memory */
    char *scratch;        /* device memory, scratch_bytes */
    char *host;           /* host staging, scratch_bytes (AUTO's mixed moves) */
    int64_t scratch_bytes;
    void *stream;
    int error;      /* the first device failure of this execute */
    int host_bound; /* this execute's device work exchanged bytes with the host or MPI (its end
                       waits for the stream: staging_error) */
    /* The messages' index lists for the kernels, uploaded at plan time (staging_upload):
       every move of a device-capable algorithm is of a send or receive message or the self
       part (exec.h's `device` flag). */
    redist__device_msg **send_dm, **recv_dm, *self_dm;
    int nsend, nrecv;
    void **pinned; /* the plan's host buffers pinned (staging_pin), npinned of cap */
    int npinned, pinned_cap;
    void **arrays; /* device arrays the plan owns (staging_array), narrays of arrays_cap */
    int narrays, arrays_cap;
    /* Pipelining (staging_defer): moves left in flight, and the send messages' events */
    int defer;
    redist__device_event **sent_ev; /* [nsend]: recorded after message i's pack */
    int nevents;
};

int redist__memory_served(int memory)
{
    if (memory != REDIST_MEMORY_AUTO)
        return memory;
    redist__kept_detail kept; /* a failure to load is an answer here, not an error */
    redist__detail_keep(&kept);
    redist__device *dev = NULL;
    int loads = redist__device_get(&dev) == REDIST_SUCCESS;
    redist__detail_restore(&kept);
    return loads ? REDIST_MEMORY_AUTO : REDIST_MEMORY_HOST;
}

int redist__staging_open(struct redist_plan_s *p)
{
    p->device = NULL;
    if (p->opt.memory == REDIST_MEMORY_HOST)
        return REDIST_SUCCESS;
    redist__device *dev = NULL;
    int err = redist__device_get(&dev);
    if (err != REDIST_SUCCESS)
        return p->opt.memory == REDIST_MEMORY_AUTO ? REDIST_SUCCESS : err; /* AUTO: host */
    err = redist__device_check_current(dev); /* one device per process */
    if (err != REDIST_SUCCESS)
        return err;
    struct redist__staging *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "device staging");
    p->device = s;
    s->dev = dev;
    s->memory = p->opt.memory;
    s->stream = p->opt.stream;
    return REDIST_SUCCESS; /* the scratch once the messages are known (staging_upload) */
}

/* The scratch: the pieces a move is staged in, as large as the largest move the plan stages
   but at most redist__device_stage_bytes. Few large pieces, because each costs more than
   its kernel launch and copy: with ranks sharing a GPU (time-sliced between processes),
   4 MiB pieces took 2.5x the staging floor on an H200 and 64 MiB pieces 1.1x
   (docs/performance.md, "Device memory"). AUTO's mixed moves also stage through a pinned
   host buffer of the same size. */
static int open_scratch(struct redist_plan_s *p)
{
    struct redist__staging *s = p->device;
    int64_t es = (int64_t)p->elsize, most = es;
    for (int i = 0; i < p->send.nmsgs; i++)
        if (p->send.msgs[i].nelems * es > most)
            most = p->send.msgs[i].nelems * es;
    for (int i = 0; i < p->recv.nmsgs; i++)
        if (p->recv.msgs[i].nelems * es > most)
            most = p->recv.msgs[i].nelems * es;
    if (p->self != NULL && p->self->nelems * es > most)
        most = p->self->nelems * es;
    int64_t limit = redist__device_stage_bytes(p->opt.max_buffer_bytes);
    s->scratch_bytes = most < limit ? most : limit;
    if (s->scratch_bytes < es)
        s->scratch_bytes = es;
    int err = redist__device_alloc(s->dev, (size_t)s->scratch_bytes, (void **)&s->scratch);
    if (err == REDIST_SUCCESS && s->memory == REDIST_MEMORY_AUTO)
        err = redist__device_host_alloc(s->dev, (size_t)s->scratch_bytes, (void **)&s->host);
    return err;
}

int redist__staging_upload(struct redist_plan_s *p)
{
    struct redist__staging *s = p->device;
    if (s == NULL)
        return REDIST_SUCCESS;
    int scratch_err = open_scratch(p);
    if (scratch_err != REDIST_SUCCESS)
        return scratch_err;
    s->send_dm = redist__calloc((size_t)p->send.nmsgs + 1, sizeof *s->send_dm);
    s->recv_dm = redist__calloc((size_t)p->recv.nmsgs + 1, sizeof *s->recv_dm);
    if (s->send_dm == NULL || s->recv_dm == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "device staging: the messages' lists");
    int err = REDIST_SUCCESS;
    for (; err == REDIST_SUCCESS && s->nsend < p->send.nmsgs; s->nsend++)
        err = redist__device_upload(s->dev, &p->send.msgs[s->nsend], &s->send_dm[s->nsend]);
    for (; err == REDIST_SUCCESS && s->nrecv < p->recv.nmsgs; s->nrecv++)
        err = redist__device_upload(s->dev, &p->recv.msgs[s->nrecv], &s->recv_dm[s->nrecv]);
    if (err == REDIST_SUCCESS && p->self != NULL)
        err = redist__device_upload(s->dev, p->self, &s->self_dm);
    s->sent_ev = redist__calloc((size_t)p->send.nmsgs + 1, sizeof *s->sent_ev);
    if (err == REDIST_SUCCESS && s->sent_ev == NULL)
        err = redist__fail(REDIST_ERR_NOMEM, "device staging: the messages' events");
    for (; err == REDIST_SUCCESS && s->nevents < p->send.nmsgs; s->nevents++)
        err = redist__device_event_create(s->dev, &s->sent_ev[s->nevents]);
    return err;
}

/* The uploaded lists of message m (one of the plan's: see staging_upload), or NULL. */
static const redist__device_msg *lists_of(const struct redist_plan_s *p, const redist__msg *m)
{
    const struct redist__staging *s = p->device;
    if (m == p->self)
        return s->self_dm;
    if (s->send_dm != NULL && m >= p->send.msgs && m < p->send.msgs + p->send.nmsgs)
        return s->send_dm[m - p->send.msgs];
    if (s->recv_dm != NULL && m >= p->recv.msgs && m < p->recv.msgs + p->recv.nmsgs)
        return s->recv_dm[m - p->recv.msgs];
    return NULL;
}

/* A list of n pointers with room for one more (doubled when full); 0 when out of memory. */
static int room_for_one(void ***list, int n, int *cap)
{
    if (n < *cap)
        return 1;
    int grown_cap = *cap ? 2 * *cap : 8;
    void **grown = redist__realloc(*list, (size_t)grown_cap * sizeof *grown);
    if (grown == NULL)
        return 0;
    *list = grown;
    *cap = grown_cap;
    return 1;
}

void redist__staging_pin(struct redist_plan_s *p, void *buf, size_t bytes)
{
    struct redist__staging *s = p->device;
    if (s == NULL || buf == NULL)
        return;
    if (!room_for_one(&s->pinned, s->npinned, &s->pinned_cap))
        return; /* left pageable: slower copies, the same result */
    if (redist__device_host_register(s->dev, buf, bytes) == REDIST_SUCCESS)
        s->pinned[s->npinned++] = buf;
    else
        redist__clear_error(); /* left pageable (a memlock limit): not the plan's error */
}

void redist__staging_unpin(struct redist_plan_s *p, void *buf)
{
    struct redist__staging *s = p->device;
    for (int i = 0; s != NULL && buf != NULL && i < s->npinned; i++)
        if (s->pinned[i] == buf) {
            redist__device_host_unregister(s->dev, buf);
            s->pinned[i] = s->pinned[--s->npinned];
            return;
        }
}

void *redist__staging_array(struct redist_plan_s *p, size_t bytes)
{
    struct redist__staging *s = p->device;
    if (!room_for_one(&s->arrays, s->narrays, &s->arrays_cap)) {
        redist__fail(REDIST_ERR_NOMEM, "device staging: the phases' arrays");
        return NULL;
    }
    void *a = NULL;
    if (redist__device_alloc(s->dev, bytes, &a) != REDIST_SUCCESS)
        return NULL;
    s->arrays[s->narrays++] = a;
    return a;
}

void redist__staging_close(struct redist_plan_s *p)
{
    struct redist__staging *s = p->device;
    if (s == NULL)
        return;
    redist__device_sync(s->dev, s->stream); /* nothing of the plan's left in flight */
    for (int i = 0; i < s->npinned; i++)
        redist__device_host_unregister(s->dev, s->pinned[i]);
    redist__free(s->pinned);
    for (int i = 0; i < s->narrays; i++)
        redist__device_free(s->dev, s->arrays[i]);
    redist__free(s->arrays);
    for (int i = 0; i < s->nevents; i++)
        redist__device_event_destroy(s->dev, s->sent_ev[i]);
    redist__free(s->sent_ev);
    for (int i = 0; i < s->nsend; i++)
        redist__device_forget(s->dev, s->send_dm[i]);
    for (int i = 0; i < s->nrecv; i++)
        redist__device_forget(s->dev, s->recv_dm[i]);
    redist__device_forget(s->dev, s->self_dm);
    redist__free(s->send_dm);
    redist__free(s->recv_dm);
    redist__device_free(s->dev, s->scratch);
    redist__device_host_free(s->dev, s->host);
    redist__free(s);
    p->device = NULL;
}

/* Whether an array of `count` elements at ptr is device memory; CUDA: it must be. */
static int kind_of(const struct redist__staging *s, const void *ptr, int64_t count,
                   const char *name, int *is_dev)
{
    *is_dev = count > 0 && redist__device_owns(s->dev, ptr);
    if (s->memory == REDIST_MEMORY_CUDA && count > 0 && !*is_dev)
        return redist__fail(REDIST_ERR_ARG,
                            "%s is not %s device memory (options.memory = REDIST_MEMORY_CUDA)",
                            name, redist__device_name(s->dev));
    return REDIST_SUCCESS;
}

int redist__staging_check(struct redist_plan_s *p, const void *src, int64_t src_n, const void *dst,
                          int64_t dst_n)
{
    struct redist__staging *s = p->device;
    if (s == NULL)
        return REDIST_SUCCESS;
    s->error = REDIST_SUCCESS;
    s->host_bound = 0;
    int err = kind_of(s, src, src_n, "src", &s->src_dev);
    return err != REDIST_SUCCESS ? err : kind_of(s, dst, dst_n, "dst", &s->dst_dev);
}

static void keep(struct redist__staging *s, int err)
{
    if (s->error == REDIST_SUCCESS && err != REDIST_SUCCESS)
        s->error = err;
}

int redist__staging_error(struct redist_plan_s *p)
{
    struct redist__staging *s = p->device;
    if (s == NULL)
        return REDIST_SUCCESS;
    /* the deferred moves: dst complete when the execute returns. With a stream given, an
       execute whose device work only touched device memory (kernels, pulls ordered by
       events) leaves it on the stream: dst is complete when the stream gets there */
    if (s->stream == NULL || s->host_bound)
        keep(s, redist__device_sync(s->dev, s->stream));
    s->defer = 0;
    int err = s->error;
    s->error = REDIST_SUCCESS;
    return err;
}

/* One piece [lo, hi): the buffer side at element lo. The kernels and copies of a move's
   pieces are queued on the stream, which runs them in order (so the one scratch serves them
   all), and staged_move waits once at the end of the move; only AUTO's mixed pieces, which
   pass through the host staging buffer, wait for each. */
/* 1 if the packed side of a PACK (b) or UNPACK (a) is one of the plan's device buffers for
   a GPU-aware MPI (gpu_mpi.c): the kernel packs into it or unpacks from it, nothing staged. */
static int on_device_buffer(const struct redist_plan_s *p, const char *buf)
{
    size_t es = p->elsize;
    return p->gpu_mpi &&
           ((buf >= p->dsendbuf && buf <= p->dsendbuf + (size_t)p->send.total_elems * es) ||
            (buf >= p->drecvbuf && buf <= p->drecvbuf + (size_t)p->recv.total_elems * es));
}

static int piece(const struct redist_plan_s *p, int kind, const redist__msg *m, const char *a,
                 char *b, int64_t lo, int64_t hi)
{
    struct redist__staging *s = p->device;
    redist__device *dev = s->dev;
    size_t es = p->elsize, bytes = (size_t)(hi - lo) * es;
    const redist__scale *sc = kind == REDIST__PACK ? NULL : p->scale;
    int a_dev = kind == REDIST__UNPACK ? 0 : s->src_dev,
        b_dev = kind == REDIST__PACK ? 0 : s->dst_dev;
    int err = REDIST_SUCCESS;
    const redist__device_msg *dm = lists_of(p, m);
    if ((a_dev || b_dev) && dm == NULL)
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "device staging: a message the plan did not upload (an algorithm "
                            "whose moves are not its send, receive and self messages)");
    s->host_bound = s->host_bound || kind != REDIST__COPY || !a_dev || !b_dev;
    if (!a_dev && !b_dev) { /* AUTO, both host */
        redist__move_range(m, kind, a, b, es, sc, lo, hi);
        return REDIST_SUCCESS;
    }
    if (kind == REDIST__COPY && a_dev && b_dev)
        return redist__device_move(dev, dm, REDIST__COPY, a, b, es, sc, lo, hi, s->stream);
    if ((kind == REDIST__PACK && a_dev && on_device_buffer(p, b)) ||
        (kind == REDIST__UNPACK && b_dev && on_device_buffer(p, a)))
        return redist__device_move(dev, dm, kind, a, b, es, sc, lo, hi, s->stream);
    if (a_dev) { /* PACK, or COPY to a host array: packed on the device, then off it */
        err =
            redist__device_move(dev, dm, REDIST__PACK, a, s->scratch, es, NULL, lo, hi, s->stream);
        char *to = kind == REDIST__PACK ? b : s->host;
        if (err == REDIST_SUCCESS)
            err = redist__device_to_host(dev, to, s->scratch, bytes, s->stream);
        if (err == REDIST_SUCCESS && kind == REDIST__COPY) { /* the host reads it now */
            err = redist__device_sync(dev, s->stream);
            if (err == REDIST_SUCCESS)
                redist__move_range(m, REDIST__UNPACK, s->host, b, es, sc, lo, hi);
        }
        return err;
    }
    /* UNPACK, or COPY from a host array: packed on the host, onto the device */
    const char *from = a;
    if (kind == REDIST__COPY) {
        redist__move_range(m, REDIST__PACK, a, s->host, es, NULL, lo, hi);
        from = s->host;
    }
    err = redist__device_from_host(dev, s->scratch, from, bytes, s->stream);
    if (err == REDIST_SUCCESS)
        err =
            redist__device_move(dev, dm, REDIST__UNPACK, s->scratch, b, es, sc, lo, hi, s->stream);
    if (err == REDIST_SUCCESS && kind == REDIST__COPY) /* the next piece rewrites s->host */
        err = redist__device_sync(dev, s->stream);
    return err;
}

void redist__staged_move(const struct redist_plan_s *p, int kind, const redist__msg *m,
                         const char *a, char *b, int64_t lo, int64_t hi)
{
    struct redist__staging *s = p->device;
    int64_t step = s->scratch_bytes / (int64_t)p->elsize, es = (int64_t)p->elsize;
    if ((kind == REDIST__COPY && s->src_dev && s->dst_dev) ||
        on_device_buffer(p, kind == REDIST__PACK ? b : a))
        step = hi - lo > 0 ? hi - lo : 1; /* within the device: one kernel, no scratch */
    for (int64_t x = lo; x < hi && s->error == REDIST_SUCCESS; x += step) {
        int64_t y = hi - x < step ? hi : x + step;
        const char *pa = kind == REDIST__UNPACK ? a + (x - lo) * es : a;
        char *pb = kind == REDIST__PACK ? b + (x - lo) * es : b;
        keep(s, piece(p, kind, m, pa, pb, x, y));
    }
    /* the move is complete when it returns (the host sends what was packed, reuses the
       buffer that was unpacked), unless the caller defers it (staging_defer) */
    if (!s->defer)
        keep(s, redist__device_sync(s->dev, s->stream));
}

void redist__staging_defer(const struct redist_plan_s *p, int on)
{
    if (p->device != NULL)
        p->device->defer = on;
}

void redist__staging_mark_sent(const struct redist_plan_s *p, int i)
{
    struct redist__staging *s = p->device;
    if (s != NULL && i < s->nevents)
        keep(s, redist__device_event_record(s->dev, s->sent_ev[i], s->stream));
}

void redist__staging_wait_sent(const struct redist_plan_s *p, int i)
{
    struct redist__staging *s = p->device;
    if (s != NULL && i < s->nevents && s->error == REDIST_SUCCESS)
        keep(s, redist__device_event_wait(s->dev, s->sent_ev[i]));
}

struct redist__device *redist__staging_dev(const struct redist_plan_s *p)
{
    return p->device != NULL ? p->device->dev : NULL;
}

int redist__staging_src_on_device(const struct redist_plan_s *p)
{
    return p->device != NULL && p->device->src_dev;
}

void redist__staging_pull(const struct redist_plan_s *p, const struct redist__device_msg *from,
                          const redist__msg *m, const char *src)
{
    struct redist__staging *s = p->device;
    const redist__device_msg *to = lists_of(p, m);
    if (to == NULL || from == NULL) {
        keep(s, redist__fail(REDIST_ERR_UNSUPPORTED, "device one copy: a message's lists"));
        return;
    }
    keep(s, redist__device_pull(s->dev, from, to, src, p->cur_dst, p->elsize, p->scale, 0,
                                m->nelems, s->stream));
}

void redist__staging_wait(const struct redist_plan_s *p)
{
    struct redist__staging *s = p->device;
    if (s != NULL)
        keep(s, redist__device_sync(s->dev, s->stream));
}

void redist__staging_failed(const struct redist_plan_s *p, int err)
{
    if (p->device != NULL)
        keep(p->device, err);
}
