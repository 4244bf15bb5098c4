/* The emulated device (device.h), for tests on machines without a GPU: every code path of
 * device execution runs, and any host access to device memory crashes.
 *
 * Device memory is shared memory (memfd) mapped twice: the device view, PROT_NONE, is what
 * the library and the user get as device pointers; the host view, readable and writable,
 * lies elsewhere and only this file knows it. The backend's own copies and kernels translate
 * each device address to the host view and do the work on the host (a kernel is the same
 * runs and offsets a GPU kernel walks). A library path that reads or writes a device pointer
 * itself, anywhere else, takes a SIGSEGV. Two views instead of opening and closing one
 * mapping with mprotect at each access: a protection change is a system call and, on a
 * virtual machine, a TLB shoot-down across its cores, which made the emulated tests spend
 * more time in the kernel than in the tests. The mappings are listed so that
 * REDIST_MEMORY_AUTO can ask whose a pointer is.
 *
 * Streams: as on a GPU, copies and kernels are asynchronous. They are checked when posted
 * (a range that is not device memory fails at once, as CUDA's calls do) and queued; the
 * queue runs, in order, at the next sync (of any stream: one queue for the process, which
 * orders more than CUDA's streams do, never less) and before device memory is freed. So a
 * library path that reads a copy's host destination, or rewrites its host source, before
 * it waits for the stream sees stale data and fails the test, as it would on a GPU. One
 * lock guards the lists and the queue (threads of a rank may call at once).
 *
 * Inter-process memory: an allocation keeps its memory file open, and its handle names it as
 * the owner's /proc/<pid>/fd/<fd> with the file's device, inode and length; another process
 * of the machine opens that path and maps the file twice as its owner did (so its kernels
 * read the owner's pages through a host view), after checking that the file is still the
 * same (a freed allocation's descriptor number may name a newer file by then). */
#define _GNU_SOURCE /* memfd_create */
#include "device/device.h"

#include "device/decode.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct mapping {
    char *base; /* device memory: the device view; pinned host memory: the range itself */
    size_t len;
    char *view; /* device memory: the host view of the same pages; pinned ranges: NULL */
    int fd;     /* device memory allocated here: its memory file (handles name it); else -1 */
} mapping;

/* A list of ranges (unordered). */
typedef struct ranges {
    mapping *at;
    size_t n, cap;
} ranges;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ranges maps; /* the device memory */
/* Pinned host ranges (host_alloc, host_register). A GPU runs a copy whose host side is not
   pinned as a pageable copy: synchronous, through the driver's bounce buffers, at a fraction
   of the link's rate. Such copies are counted (redist__device_emulated_pageable_copies) so
   that tests can check that a plan's staging never makes one. */
static ranges pins;
static uint64_t pageable_copies;
static uint64_t host_waits; /* syncs, and event waits that ran work (tests) */
static uint64_t ipc_opens;  /* other processes' allocations mapped (tests) */

/* Posted work, run at the next sync: a copy (dm == NULL) or a kernel. */
typedef struct posted {
    const redist__device_msg *dm;
    int kind;      /* kernel: REDIST__PACK ..; copy: its direction */
    const char *a; /* copy: from */
    char *b;       /* copy: to */
    size_t elsize; /* copy: bytes */
    int scaled;    /* the kernel scales with sc (a copy of the caller's, as CUDA's launch
                      copies its arguments) */
    redist__scale sc;
    int64_t lo, hi;
    const redist__device_msg *from; /* a pull (kind PULL): the sender's message; dm: ours */
} posted;
enum { PULL = REDIST__COPY + 1 }; /* a kernel's kind beside index.h's three */
static posted *queue;
static size_t nqueued, capqueue;
static uint64_t total_posted, total_run; /* events: marks in this sequence */
static int run_queue(void);              /* the lock is held */

/* The range of r that holds [p, p + bytes), or NULL. The lock is held (as for the others). */
static const mapping *holding(const ranges *r, const void *p, size_t bytes)
{
    const char *c = p;
    for (size_t i = 0; i < r->n; i++)
        if (c >= r->at[i].base && c + bytes <= r->at[i].base + r->at[i].len)
            return &r->at[i];
    return NULL;
}

/* Appends [base, base + len) (with its host view, or NULL) to r; 0, or -1 when out of
   memory. */
static int add_range(ranges *r, char *base, size_t len, char *view, int fd)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        mapping *m = realloc(r->at, cap * sizeof *m);
        if (m == NULL)
            return -1;
        r->at = m;
        r->cap = cap;
    }
    r->at[r->n++] = (mapping){base, len, view, fd};
    return 0;
}

/* Takes the range starting at base out of r (into *out); 0 if r has none. */
static int drop_range(ranges *r, const void *base, mapping *out)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->at[i].base == base) {
            *out = r->at[i];
            r->at[i] = r->at[--r->n];
            return 1;
        }
    return 0;
}

/* The device mapping that holds [p, p + bytes), or NULL (not device memory, or past its
   end). */
static const mapping *find(const void *p, size_t bytes)
{
    return holding(&maps, p, bytes);
}

/* The host view of device address p, which m holds. */
static char *host_view(const mapping *m, const void *p)
{
    return m->view + ((const char *)p - m->base);
}

/* The two views of the `len` bytes of memory file fd: the device one inaccessible, the host
   one read-write. */
static int map_twice(int fd, size_t len, char **device, char **view)
{
    void *d = mmap(NULL, len, PROT_NONE, MAP_SHARED, fd, 0);
    void *v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (d == MAP_FAILED || v == MAP_FAILED) {
        if (d != MAP_FAILED)
            munmap(d, len);
        if (v != MAP_FAILED)
            munmap(v, len);
        return -1;
    }
    *device = d;
    *view = v;
    return 0;
}

static int e_alloc(size_t bytes, void **ptr)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes > (size_t)INT64_MAX - page) /* no rounding up past SIZE_MAX or off_t */
        return redist__fail(REDIST_ERR_NOMEM,
                            "emulated device: %zu bytes is more than any memory holds", bytes);
    size_t len = bytes == 0 ? page : (bytes + page - 1) / page * page;
    char *device = NULL, *view = NULL;
    int fd = memfd_create("redist-emulated-device", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0 || map_twice(fd, len, &device, &view) != 0) {
        if (fd >= 0)
            close(fd);
        return redist__fail(REDIST_ERR_NOMEM, "emulated device: %zu bytes of memory failed", len);
    }
    pthread_mutex_lock(&lock);
    int full = add_range(&maps, device, len, view, fd);
    pthread_mutex_unlock(&lock);
    if (full) {
        munmap(device, len);
        munmap(view, len);
        close(fd);
        return redist__fail(REDIST_ERR_NOMEM, "emulated device: its list of mappings");
    }
    *ptr = device;
    return REDIST_SUCCESS;
}

static void e_free(void *ptr)
{
    pthread_mutex_lock(&lock);
    run_queue(); /* as cuMemFree, after the work posted on it */
    const mapping *held = find(ptr, 1);
    mapping m;
    /* another process's memory (ipc_open) is not freed here: ipc_close unmaps it */
    if (held != NULL && held->base == ptr && held->fd >= 0 && drop_range(&maps, ptr, &m)) {
        munmap(m.base, m.len);
        munmap(m.view, m.len);
        close(m.fd);
    }
    pthread_mutex_unlock(&lock);
}

/* Pinning changes nothing an emulated copy does; the ranges are listed for the count of
   pageable copies. */
static int e_host_register(void *ptr, size_t bytes)
{
    pthread_mutex_lock(&lock);
    int full = add_range(&pins, ptr, bytes, NULL, -1);
    pthread_mutex_unlock(&lock);
    return full ? redist__fail(REDIST_ERR_NOMEM, "emulated device: its list of pinned ranges")
                : REDIST_SUCCESS;
}

static void e_host_unregister(void *ptr)
{
    mapping m;
    pthread_mutex_lock(&lock);
    drop_range(&pins, ptr, &m);
    pthread_mutex_unlock(&lock);
}

static int e_host_alloc(size_t bytes, void **ptr)
{
    *ptr = malloc(bytes ? bytes : 1);
    if (*ptr == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "emulated device: host staging");
    int err = e_host_register(*ptr, bytes ? bytes : 1);
    if (err != REDIST_SUCCESS) {
        free(*ptr);
        *ptr = NULL;
    }
    return err;
}

static void e_host_free(void *ptr)
{
    e_host_unregister(ptr);
    free(ptr);
}

void *redist__device_emulated_view(const void *p, size_t bytes)
{
    pthread_mutex_lock(&lock); /* no work run here: MPI sees what the library waited for */
    const mapping *m = p != NULL ? find(p, bytes) : NULL;
    char *view = m != NULL ? host_view(m, p) : NULL;
    pthread_mutex_unlock(&lock);
    return view;
}

/* One of the tests' counters, read under the lock. */
static uint64_t counted(const uint64_t *counter)
{
    pthread_mutex_lock(&lock);
    uint64_t n = *counter;
    pthread_mutex_unlock(&lock);
    return n;
}

uint64_t redist__device_emulated_pageable_copies(void)
{
    return counted(&pageable_copies);
}

/* The failure for a range that should be device memory and is not. */
static int not_device(const void *p, size_t bytes, const char *what)
{
    return redist__fail(REDIST_ERR_ARG,
                        "emulated device: %s: %zu bytes at %p are not device memory", what, bytes,
                        p);
}

/* Appends w to the queue (the lock is held). */
static int post(const posted *w)
{
    if (nqueued == capqueue) {
        size_t cap = capqueue ? 2 * capqueue : 64;
        posted *q = realloc(queue, cap * sizeof *q);
        if (q == NULL)
            return redist__fail(REDIST_ERR_NOMEM, "emulated device: its queue of posted work");
        queue = q;
        capqueue = cap;
    }
    queue[nqueued++] = *w;
    total_posted++;
    return REDIST_SUCCESS;
}

static int e_copy(void *to, const void *from, size_t bytes, int direction, void *stream)
{
    (void)stream;
    int err = REDIST_SUCCESS;
    pthread_mutex_lock(&lock);
    if (direction != REDIST__TO_DEVICE && find(from, bytes) == NULL)
        err = not_device(from, bytes, "copy source");
    if (err == REDIST_SUCCESS && direction != REDIST__TO_HOST && find(to, bytes) == NULL)
        err = not_device(to, bytes, "copy destination");
    const void *host = direction == REDIST__TO_HOST     ? to
                       : direction == REDIST__TO_DEVICE ? from
                                                        : NULL;
    if (err == REDIST_SUCCESS && host != NULL && bytes > 0 && holding(&pins, host, bytes) == NULL)
        pageable_copies++;
    if (err == REDIST_SUCCESS) {
        posted w = {NULL, direction, from, to, bytes, 0, {0}, 0, 0, NULL};
        err = post(&w);
    }
    pthread_mutex_unlock(&lock);
    return err;
}

/* A posted copy, through the host views of its device sides (checked again: the memory may
   have been freed since). */
static int run_copy(const posted *w)
{
    const char *from = w->a;
    char *to = w->b;
    size_t bytes = w->elsize;
    const mapping *m;
    if (w->kind != REDIST__TO_DEVICE) {
        if ((m = find(from, bytes)) == NULL)
            return not_device(from, bytes, "copy source");
        from = host_view(m, from);
    }
    if (w->kind != REDIST__TO_HOST) {
        if ((m = find(to, bytes)) == NULL)
            return not_device(to, bytes, "copy destination");
        to = host_view(m, to);
    }
    memmove(to, from, bytes);
    return REDIST_SUCCESS;
}

static int run_kernel(const posted *w);

/* Runs everything posted, in order; the first failure (the lock is held). */
static int run_queue(void)
{
    int err = REDIST_SUCCESS;
    for (size_t i = 0; i < nqueued; i++) {
        int e = queue[i].dm == NULL ? run_copy(&queue[i]) : run_kernel(&queue[i]);
        if (err == REDIST_SUCCESS)
            err = e;
    }
    nqueued = 0;
    total_run = total_posted;
    return err;
}

static int e_sync(void *stream)
{
    (void)stream;
    pthread_mutex_lock(&lock);
    host_waits++;
    int err = run_queue();
    pthread_mutex_unlock(&lock);
    return err;
}

/* An event is the count of work posted when it was recorded; waiting runs the queue if that
   work has not run yet (all of it: later work may run early on a GPU too). An event between
   processes (ipc_event_create) also lives in a small allocation of device memory, shared by
   its handle: {records so far, records done}. Recording it runs the queue first (a GPU may
   run work early), so a record is done when it is made and a peer's stream_wait never waits;
   it checks that the event is one (opened, not closed). */
struct redist__device_event {
    uint64_t mark;
    char *shared; /* an event between processes: its allocation (ours) or mapping (a peer's) */
    int own;
};

uint64_t redist__device_emulated_ipc_opens(void)
{
    return counted(&ipc_opens);
}

uint64_t redist__device_emulated_host_waits(void)
{
    return counted(&host_waits);
}

static int e_event_create(redist__device_event **ev)
{
    *ev = calloc(1, sizeof **ev);
    return *ev != NULL ? REDIST_SUCCESS
                       : redist__fail(REDIST_ERR_NOMEM, "emulated device: an event");
}

static void e_ipc_close(void *base);

static void e_event_destroy(redist__device_event *ev)
{
    if (ev != NULL && ev->shared != NULL && ev->own)
        e_free(ev->shared);
    else if (ev != NULL && ev->shared != NULL)
        e_ipc_close(ev->shared);
    free(ev);
}

/* The shared event's counters, in its host view (the lock is held). */
static uint64_t *counters(const redist__device_event *ev)
{
    const mapping *m = find(ev->shared, 2 * sizeof(uint64_t));
    return m != NULL ? (uint64_t *)(void *)host_view(m, ev->shared) : NULL;
}

static int e_event_record(redist__device_event *ev, void *stream)
{
    (void)stream;
    pthread_mutex_lock(&lock);
    ev->mark = total_posted;
    int err = REDIST_SUCCESS;
    uint64_t *c = ev->shared != NULL ? counters(ev) : NULL;
    if (ev->shared != NULL && c == NULL)
        err = redist__fail(REDIST_ERR_ARG, "emulated device: an event whose memory is gone");
    if (c != NULL) {
        err = run_queue();
        c[1] = ++c[0];
    }
    pthread_mutex_unlock(&lock);
    return err;
}

static int e_event_wait(redist__device_event *ev)
{
    pthread_mutex_lock(&lock);
    int err = REDIST_SUCCESS;
    if (total_run < ev->mark) {
        host_waits++;
        err = run_queue();
    }
    pthread_mutex_unlock(&lock);
    return err;
}

static int e_ipc_get(const void *ptr, size_t bytes, redist__ipc_handle *h, size_t *offset,
                     size_t *length);
static int e_ipc_open(const redist__ipc_handle *h, void **base);

static int e_ipc_event_create(redist__device_event **ev, redist__ipc_handle *h)
{
    size_t offset = 0, length = 0;
    int err = e_event_create(ev);
    if (err == REDIST_SUCCESS && (err = e_alloc(64, (void **)&(*ev)->shared)) == REDIST_SUCCESS)
        (*ev)->own = 1;
    if (err == REDIST_SUCCESS)
        err = e_ipc_get((*ev)->shared, 64, h, &offset, &length);
    if (err != REDIST_SUCCESS) {
        e_event_destroy(*ev);
        *ev = NULL;
    }
    return err;
}

static int e_ipc_event_open(const redist__ipc_handle *h, redist__device_event **ev)
{
    int err = e_event_create(ev);
    if (err == REDIST_SUCCESS && (err = e_ipc_open(h, (void **)&(*ev)->shared)) != REDIST_SUCCESS) {
        free(*ev);
        *ev = NULL;
    }
    return err;
}

static int e_stream_wait(void *stream, redist__device_event *ev)
{
    (void)stream;
    pthread_mutex_lock(&lock);
    uint64_t *c = ev->shared != NULL ? counters(ev) : NULL;
    int ok = ev->shared == NULL || (c != NULL && c[1] == c[0]);
    pthread_mutex_unlock(&lock);
    return ok ? REDIST_SUCCESS
              : redist__fail(REDIST_ERR_ARG, "emulated device: a wait for an event that is "
                                             "not open here, or whose record is not done");
}

/* The "upload": the message's lists (decode.h) in host memory, which the emulated kernel
   reads as a GPU kernel reads them in device memory. */
struct redist__device_msg {
    int nlevels;
    rd_level *lv;
    rd_run *runs;
};

static void e_forget(redist__device_msg *dm)
{
    pthread_mutex_lock(&lock); /* after the kernels posted on its lists */
    run_queue();
    pthread_mutex_unlock(&lock);
    free(dm->lv);
    free(dm->runs);
    free(dm);
}

static int e_upload(const redist__msg *m, redist__device_msg **out)
{
    redist__device_msg *dm = calloc(1, sizeof *dm);
    if (dm != NULL) {
        dm->nlevels = m->nlevels;
        dm->lv = malloc((size_t)(m->nlevels + 1) * sizeof *dm->lv);
        dm->runs = malloc((size_t)(redist__decode_runs(m) + 1) * sizeof *dm->runs);
    }
    if (dm == NULL || dm->lv == NULL || dm->runs == NULL) {
        if (dm != NULL)
            e_forget(dm);
        return redist__fail(REDIST_ERR_NOMEM, "emulated device: a message's index lists");
    }
    redist__decode_build(m, dm->lv, dm->runs);
    *out = dm;
    return REDIST_SUCCESS;
}

/* The host view of the element of `bytes` at device address p: from *last, the mapping of
   the kernel's previous element (most share one), else looked up and kept in *last; NULL if
   no device memory holds it (a GPU kernel would fault). The lock is held. */
static char *element_view(const char *p, size_t bytes, const mapping **last)
{
    const mapping *m = *last;
    if (m == NULL || p < m->base || p + bytes > m->base + m->len)
        m = *last = find(p, bytes);
    return m != NULL ? host_view(m, p) : NULL;
}

/* A kernel, as kernels.cu's: each element's offsets decoded from the lists (decode.h), each
   element reached through the host view of whichever mapping holds it, not only the two
   arrays': an array's pointer may lie before its first element (a window's local index 0),
   and a GPU kernel may read anything its context maps. */
/* Queues kernel w, with a copy of its scaling (NULL: none), as CUDA's launch copies its
   arguments. */
static int post_kernel(posted *w, const redist__scale *sc)
{
    w->scaled = sc != NULL;
    if (sc != NULL)
        w->sc = *sc;
    pthread_mutex_lock(&lock);
    int err = post(w);
    pthread_mutex_unlock(&lock);
    return err;
}

static int e_move(const redist__device_msg *dm, int kind, const char *a, char *b, size_t elsize,
                  const redist__scale *sc, int64_t lo, int64_t hi, void *stream)
{
    (void)stream;
    posted w = {dm, kind, a, b, elsize, 0, {0}, lo, hi, NULL};
    return post_kernel(&w, sc);
}

static int run_kernel(const posted *w)
{
    const redist__device_msg *dm = w->dm, *src = w->kind == PULL ? w->from : w->dm;
    int64_t es = (int64_t)w->elsize;
    const redist__scale *sc = w->kind == REDIST__PACK || !w->scaled ? NULL : &w->sc;
    const mapping *read_map = NULL, *write_map = NULL;
    for (int64_t e = w->lo; e < w->hi; e++) {
        int64_t from = w->kind == REDIST__UNPACK
                           ? e - w->lo
                           : rd_offset(src->lv, src->nlevels, src->runs, e, 0);
        int64_t to =
            w->kind == REDIST__PACK ? e - w->lo : rd_offset(dm->lv, dm->nlevels, dm->runs, e, 1);
        const char *a = element_view(w->a + from * es, w->elsize, &read_map);
        char *b = element_view(w->b + to * es, w->elsize, &write_map);
        if (a == NULL || b == NULL)
            return not_device(a == NULL ? w->a + from * es : w->b + to * es, w->elsize,
                              a == NULL ? "a kernel's read" : "a kernel's write");
        redist__put(sc, b, es, a, es, 1, w->elsize);
    }
    return REDIST_SUCCESS;
}

static int e_pull(const redist__device_msg *from, const redist__device_msg *to, const char *a,
                  char *b, size_t elsize, const redist__scale *sc, int64_t lo, int64_t hi,
                  void *stream)
{
    (void)stream;
    posted w = {to, PULL, a, b, elsize, 0, {0}, lo, hi, from};
    return post_kernel(&w, sc);
}

/* ---- inter-process memory ---------------------------------------------------------------- */

typedef struct emulated_handle {
    char magic[8]; /* "rdemu1" */
    int32_t pid, fd;
    uint64_t dev, ino, len;
} emulated_handle;
_Static_assert(sizeof(emulated_handle) <= REDIST__IPC_HANDLE_BYTES, "handle size");

static int e_ipc_get(const void *ptr, size_t bytes, redist__ipc_handle *h, size_t *offset,
                     size_t *length)
{
    pthread_mutex_lock(&lock);
    const mapping *m = find(ptr, bytes ? bytes : 1);
    mapping held = m != NULL ? *m : (mapping){NULL, 0, NULL, -1};
    pthread_mutex_unlock(&lock);
    struct stat st;
    if (held.base == NULL)
        return not_device(ptr, bytes, "a handle's memory");
    if (held.fd < 0)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "emulated device: a handle of memory another "
                                                    "process shares with this one (its owner's "
                                                    "handle names it)");
    if (fstat(held.fd, &st) != 0)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "emulated device: its memory file");
    emulated_handle e = {
        "rdemu1",          (int32_t)getpid(), held.fd, (uint64_t)st.st_dev, (uint64_t)st.st_ino,
        (uint64_t)held.len};
    memcpy(h->bytes, &e, sizeof e);
    *offset = (size_t)((const char *)ptr - held.base);
    *length = held.len;
    return REDIST_SUCCESS;
}

static int e_ipc_open(const redist__ipc_handle *h, void **base)
{
    emulated_handle e;
    memcpy(&e, h->bytes, sizeof e);
    if (memcmp(e.magic, "rdemu1", 7) != 0 || e.len == 0)
        return redist__fail(REDIST_ERR_ARG, "emulated device: not a handle of its memory");
    if (e.pid == (int32_t)getpid())
        return redist__fail(REDIST_ERR_ARG, "emulated device: a handle of this process's own "
                                            "memory (its pointer serves)");
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd/%ld", (long)e.pid, (long)e.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    int same = fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == e.dev &&
               (uint64_t)st.st_ino == e.ino && (uint64_t)st.st_size == e.len;
    if (!same) {
        if (fd >= 0)
            close(fd);
        return redist__fail(REDIST_ERR_ARG,
                            "emulated device: process %ld's allocation of %llu bytes is gone "
                            "(freed, or its process ended)",
                            (long)e.pid, (unsigned long long)e.len);
    }
    char *device = NULL, *view = NULL;
    int mapped = map_twice(fd, (size_t)e.len, &device, &view) == 0;
    close(fd); /* the mappings keep it */
    if (!mapped)
        return redist__fail(REDIST_ERR_NOMEM, "emulated device: mapping another process's memory");
    pthread_mutex_lock(&lock);
    int full = add_range(&maps, device, (size_t)e.len, view, -1);
    ipc_opens += !full;
    pthread_mutex_unlock(&lock);
    if (full) {
        munmap(device, (size_t)e.len);
        munmap(view, (size_t)e.len);
        return redist__fail(REDIST_ERR_NOMEM, "emulated device: its list of mappings");
    }
    *base = device;
    return REDIST_SUCCESS;
}

static void e_ipc_close(void *base)
{
    pthread_mutex_lock(&lock);
    run_queue(); /* the kernels posted on it first */
    const mapping *held = find(base, 1);
    mapping m;
    if (held != NULL && held->base == base && held->fd < 0 && drop_range(&maps, base, &m)) {
        munmap(m.base, m.len);
        munmap(m.view, m.len);
    }
    pthread_mutex_unlock(&lock);
}

static int e_idle(void)
{
    pthread_mutex_lock(&lock);
    int idle = nqueued == 0;
    pthread_mutex_unlock(&lock);
    return idle;
}

static int e_owns(const void *ptr)
{
    pthread_mutex_lock(&lock);
    int yes = find(ptr, 1) != NULL;
    pthread_mutex_unlock(&lock);
    return yes;
}

static const redist__device_ops emulated_ops = {
    .name = "emulated",
    .alloc = e_alloc,
    .free = e_free,
    .host_alloc = e_host_alloc,
    .host_free = e_host_free,
    .host_register = e_host_register,
    .host_unregister = e_host_unregister,
    .copy = e_copy,
    .sync = e_sync,
    .upload = e_upload,
    .forget = e_forget,
    .move = e_move,
    .owns = e_owns,
    .ipc_get = e_ipc_get,
    .ipc_open = e_ipc_open,
    .ipc_close = e_ipc_close,
    .pull = e_pull,
    .idle = e_idle,
    .event_create = e_event_create,
    .event_destroy = e_event_destroy,
    .event_record = e_event_record,
    .event_wait = e_event_wait,
    .ipc_event_create = e_ipc_event_create,
    .ipc_event_open = e_ipc_event_open,
    .stream_wait = e_stream_wait,
};

int redist__device_emulated_load(const redist__device_ops **ops)
{
    *ops = &emulated_ops;
    return REDIST_SUCCESS;
}
