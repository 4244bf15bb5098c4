/* The library's allocator: malloc, calloc, realloc and free with atomic counters and a
 * failure switch. The counters let tests prove that executing a plan allocates nothing, that
 * a failed plan creation leaks nothing and that planning costs no memory in proportion to
 * the ranks that hold nothing (bytes requested); the switch lets them make each allocation of
 * plan creation fail in turn and check that REDIST_ERR_NOMEM reaches every rank. Costs two
 * relaxed atomic operations per allocation, which plan creation can afford and execution
 * never pays (it does not allocate). */
#include "core.h"

#include <stdatomic.h>
#include <stdlib.h>

static _Atomic int64_t alloc_calls;     /* attempts so far */
static _Atomic int64_t alloc_live;      /* blocks handed out and not yet freed */
static _Atomic int64_t alloc_bytes;     /* bytes asked for so far */
static _Atomic int64_t alloc_fail = -1; /* the attempt that fails, or -1 */

/* Counts one attempt of `bytes`; whether it is the one that must fail. */
static int attempt_fails(size_t bytes)
{
    atomic_fetch_add_explicit(&alloc_bytes, (int64_t)bytes, memory_order_relaxed);
    int64_t call = atomic_fetch_add_explicit(&alloc_calls, 1, memory_order_relaxed);
    return call == atomic_load_explicit(&alloc_fail, memory_order_relaxed);
}

static void *counted(void *p)
{
    if (p)
        atomic_fetch_add_explicit(&alloc_live, 1, memory_order_relaxed);
    return p;
}

void *redist__malloc(size_t bytes)
{
    return attempt_fails(bytes) ? NULL : counted(malloc(bytes));
}

void *redist__calloc(size_t count, size_t size)
{
    return attempt_fails(count * size) ? NULL : counted(calloc(count, size));
}

void *redist__realloc(void *p, size_t bytes)
{
    if (!p)
        return redist__malloc(bytes);
    if (attempt_fails(bytes))
        return NULL;                      /* p stays valid, as after a failed realloc */
    return realloc(p, bytes ? bytes : 1); /* never realloc(p, 0): it may free p */
}

void redist__free(void *p)
{
    if (!p)
        return;
    atomic_fetch_sub_explicit(&alloc_live, 1, memory_order_relaxed);
    free(p);
}

int64_t redist__alloc_calls(void)
{
    return atomic_load_explicit(&alloc_calls, memory_order_relaxed);
}

int64_t redist__alloc_bytes(void)
{
    return atomic_load_explicit(&alloc_bytes, memory_order_relaxed);
}

int64_t redist__alloc_live(void)
{
    return atomic_load_explicit(&alloc_live, memory_order_relaxed);
}

void redist__alloc_fail_at(int64_t call)
{
    atomic_store_explicit(&alloc_fail, call, memory_order_relaxed);
}
