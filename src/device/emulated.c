/* The emulated device (device.h), for tests on machines without a GPU: every code path of
 * device execution runs, and any host access to device memory crashes.
 *
 * Device memory is anonymous mappings kept PROT_NONE. The backend's own copies and kernels
 * open the mappings they touch (PROT_READ | PROT_WRITE), do the work on the host (a kernel
 * is redist__move_range: the same runs and offsets a GPU kernel walks), and close them
 * again. A library path that reads or writes device memory itself, anywhere else, takes a
 * SIGSEGV. The mappings are listed so that REDIST_MEMORY_AUTO can ask whose a pointer is.
 * Streams: everything is synchronous here (the stream is ignored). One lock guards the list
 * and the open/close pairs (threads of a rank may call at once). */
#define _DEFAULT_SOURCE
#include "device/device.h"

#include "device/decode.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct mapping {
    char *base;
    size_t len;
} mapping;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mapping *maps;
static size_t nmaps, capmaps;

/* The mapping that holds [p, p + bytes), or NULL (not device memory, or past its end). */
static const mapping *find(const void *p, size_t bytes)
{
    const char *c = p;
    for (size_t i = 0; i < nmaps; i++)
        if (c >= maps[i].base && c + bytes <= maps[i].base + maps[i].len)
            return &maps[i];
    return NULL;
}

static int e_alloc(size_t bytes, void **ptr)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (bytes + page - 1) / page * page;
    if (len == 0)
        len = page;
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return redist__fail(REDIST_ERR_NOMEM, "emulated device: mmap of %zu bytes failed", len);
    pthread_mutex_lock(&lock);
    if (nmaps == capmaps) {
        size_t cap = capmaps ? 2 * capmaps : 16;
        mapping *m = realloc(maps, cap * sizeof *m);
        if (m == NULL) {
            pthread_mutex_unlock(&lock);
            munmap(p, len);
            return redist__fail(REDIST_ERR_NOMEM, "emulated device: its list of mappings");
        }
        maps = m;
        capmaps = cap;
    }
    maps[nmaps++] = (mapping){p, len};
    pthread_mutex_unlock(&lock);
    *ptr = p;
    return REDIST_SUCCESS;
}

static void e_free(void *ptr)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nmaps; i++)
        if (maps[i].base == ptr) {
            munmap(maps[i].base, maps[i].len);
            maps[i] = maps[--nmaps];
            break;
        }
    pthread_mutex_unlock(&lock);
}

static int e_host_alloc(size_t bytes, void **ptr)
{
    *ptr = malloc(bytes ? bytes : 1);
    return *ptr != NULL ? REDIST_SUCCESS
                        : redist__fail(REDIST_ERR_NOMEM, "emulated device: host staging");
}

static void e_host_free(void *ptr)
{
    free(ptr);
}

/* Opens (prot != PROT_NONE) or closes the mapping of a device range; the lock is held. */
static int set(const void *p, size_t bytes, int prot, const char *what)
{
    const mapping *m = find(p, bytes);
    if (m == NULL)
        return redist__fail(REDIST_ERR_ARG,
                            "emulated device: %s: %zu bytes at %p are not device memory", what,
                            bytes, p);
    return mprotect(m->base, m->len, prot) == 0
               ? REDIST_SUCCESS
               : redist__fail(REDIST_ERR_UNSUPPORTED, "emulated device: mprotect failed");
}

static int e_copy(void *to, const void *from, size_t bytes, int direction, void *stream)
{
    (void)stream;
    int rw = PROT_READ | PROT_WRITE, err = REDIST_SUCCESS;
    pthread_mutex_lock(&lock);
    if (direction != REDIST__TO_DEVICE)
        err = set(from, bytes, rw, "copy source");
    if (err == REDIST_SUCCESS && direction != REDIST__TO_HOST)
        err = set(to, bytes, rw, "copy destination");
    if (err == REDIST_SUCCESS)
        memmove(to, from, bytes);
    if (direction != REDIST__TO_DEVICE && find(from, bytes))
        set(from, bytes, PROT_NONE, "copy source");
    if (direction != REDIST__TO_HOST && find(to, bytes))
        set(to, bytes, PROT_NONE, "copy destination");
    pthread_mutex_unlock(&lock);
    return err;
}

static int e_sync(void *stream)
{
    (void)stream;
    return REDIST_SUCCESS;
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

/* Opens or closes every mapping (the lock is held). */
static int set_all(int prot)
{
    for (size_t i = 0; i < nmaps; i++)
        if (mprotect(maps[i].base, maps[i].len, prot) != 0)
            return redist__fail(REDIST_ERR_UNSUPPORTED, "emulated device: mprotect failed");
    return REDIST_SUCCESS;
}

/* A kernel, as kernels.cu's: each element's offsets decoded from the lists (decode.h), with
   the device open. Every mapping, not only the two arrays': an array's pointer may lie before
   its first element (a window's local index 0), and a GPU kernel may read anything its
   context maps. */
static int e_move(const redist__device_msg *dm, int kind, const char *a, char *b, size_t elsize,
                  const redist__scale *sc, int64_t lo, int64_t hi, void *stream)
{
    (void)stream;
    int64_t es = (int64_t)elsize;
    pthread_mutex_lock(&lock);
    int err = set_all(PROT_READ | PROT_WRITE);
    for (int64_t e = lo; err == REDIST_SUCCESS && e < hi; e++) {
        int64_t from =
            kind == REDIST__UNPACK ? e - lo : rd_offset(dm->lv, dm->nlevels, dm->runs, e, 0);
        int64_t to = kind == REDIST__PACK ? e - lo : rd_offset(dm->lv, dm->nlevels, dm->runs, e, 1);
        redist__put(kind == REDIST__PACK ? NULL : sc, b + to * es, es, a + from * es, es, 1,
                    elsize);
    }
    int err2 = set_all(PROT_NONE);
    pthread_mutex_unlock(&lock);
    return err != REDIST_SUCCESS ? err : err2;
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
    .copy = e_copy,
    .sync = e_sync,
    .upload = e_upload,
    .forget = e_forget,
    .move = e_move,
    .owns = e_owns,
};

int redist__device_emulated_load(const redist__device_ops **ops)
{
    *ops = &emulated_ops;
    return REDIST_SUCCESS;
}
