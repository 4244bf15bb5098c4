/* The process's list of node-shared allocations (shared.h). Few and long-lived: a list
 * searched under a lock is enough. */
#include "exec/shared.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static redist__shared *head;
static redist__shared *retired; /* the most recently freed first */
static uint64_t ids;

/* [base, base + bytes] of a and of b intersect (addresses of different allocations compared
   as integers). */
static int overlap(const redist__shared *a, const redist__shared *b)
{
    uintptr_t x = (uintptr_t)a->base, y = (uintptr_t)b->base;
    return x <= y ? y - x <= (uintptr_t)a->bytes : x - y <= (uintptr_t)b->bytes;
}

void redist__shared_add(redist__shared *s)
{
    pthread_mutex_lock(&lock);
    s->next = head;
    head = s;
    for (redist__shared *r = retired; r != NULL; r = r->next)
        r->shadowed |= overlap(r, s);
    pthread_mutex_unlock(&lock);
}

void redist__shared_remove(redist__shared *s)
{
    pthread_mutex_lock(&lock);
    for (redist__shared **at = &head; *at != NULL; at = &(*at)->next)
        if (*at == s) {
            *at = s->next;
            break;
        }
    pthread_mutex_unlock(&lock);
}

redist__shared *redist__shared_by_base(const void *base)
{
    pthread_mutex_lock(&lock);
    redist__shared *s = head;
    while (s != NULL && s->base != base)
        s = s->next;
    pthread_mutex_unlock(&lock);
    return s;
}

/* p within [s->base, s->base + s->bytes] (compared as integers: p may lie in no allocation). */
static int around(const redist__shared *s, const void *p)
{
    uintptr_t x = (uintptr_t)p, b = (uintptr_t)s->base;
    return x >= b && x - b <= (uintptr_t)s->bytes;
}

static redist__shared *find_around(redist__shared *list, const void *p)
{
    pthread_mutex_lock(&lock);
    redist__shared *s = list;
    while (s != NULL && (s->shadowed || !around(s, p)))
        s = s->next;
    pthread_mutex_unlock(&lock);
    return s;
}

redist__shared *redist__shared_around(const void *p)
{
    return find_around(head, p);
}

redist__shared *redist__shared_retired(const void *p)
{
    return find_around(retired, p);
}

redist__shared *redist__shared_retire(redist__shared *s, int keep)
{
    pthread_mutex_lock(&lock);
    s->next = retired;
    retired = s;
    int n = 0;
    redist__shared **at = &retired, *forgotten = NULL;
    for (; *at != NULL; at = &(*at)->next)
        if ((*at)->comm == s->comm && ++n > keep) {
            forgotten = *at;
            *at = forgotten->next;
            forgotten->next = NULL;
            break;
        }
    pthread_mutex_unlock(&lock);
    return forgotten;
}

redist__shared *redist__shared_forget(const redist__shared_comm *c)
{
    redist__shared *out = NULL;
    pthread_mutex_lock(&lock);
    for (redist__shared **at = &retired; *at != NULL;) {
        redist__shared *s = *at;
        if (s->comm != c) {
            at = &s->next;
            continue;
        }
        *at = s->next;
        s->next = out;
        out = s;
    }
    pthread_mutex_unlock(&lock);
    return out;
}

redist__shared *redist__shared_holding(const void *p, int64_t bytes)
{
    const char *c = p;
    pthread_mutex_lock(&lock);
    redist__shared *s = head;
    /* compared as addresses within one allocation only: c - base is taken once c >= base */
    while (s != NULL &&
           !(c >= s->base && c - s->base <= s->bytes && bytes <= s->bytes - (c - s->base) &&
             (bytes > 0 || c < s->base + s->bytes)))
        s = s->next;
    pthread_mutex_unlock(&lock);
    return s;
}

redist__shared *redist__shared_hold(const void *p)
{
    if (p == NULL)
        return NULL;
    redist__shared *s = redist__shared_holding(p, 0);
    pthread_mutex_lock(&lock);
    if (s != NULL)
        s->in_flight++;
    pthread_mutex_unlock(&lock);
    return s;
}

void redist__shared_release(redist__shared *s)
{
    if (s == NULL)
        return;
    pthread_mutex_lock(&lock);
    s->in_flight--;
    pthread_mutex_unlock(&lock);
}

void redist__shared_seen_id(uint64_t id)
{
    pthread_mutex_lock(&lock);
    if (ids < id)
        ids = id;
    pthread_mutex_unlock(&lock);
}

int redist__shared_any(void)
{
    pthread_mutex_lock(&lock);
    int any = head != NULL;
    pthread_mutex_unlock(&lock);
    return any;
}

redist__shared *redist__shared_by_id(uint64_t id)
{
    pthread_mutex_lock(&lock);
    redist__shared *s = head;
    while (s != NULL && s->id != id)
        s = s->next;
    pthread_mutex_unlock(&lock);
    return s;
}

uint64_t redist__shared_next_id(void)
{
    pthread_mutex_lock(&lock);
    uint64_t id = ++ids;
    pthread_mutex_unlock(&lock);
    return id;
}

int redist__ranks_per_node(int *k)
{
    const char *v = getenv("REDIST_RANKS_PER_NODE");
    *k = 0;
    if (v == NULL || v[0] == '\0')
        return REDIST_SUCCESS;
    char *end = NULL;
    long n = strspn(v, "0123456789") == strlen(v) && strlen(v) <= 9 ? strtol(v, &end, 10) : 0;
    if (n < 1)
        return redist__fail(REDIST_ERR_ARG,
                            "REDIST_RANKS_PER_NODE='%.40s' is not a positive whole number", v);
    *k = (int)n;
    return REDIST_SUCCESS;
}

int redist__node_comm(MPI_Comm comm, int rank, int k, MPI_Comm *node)
{
    MPI_Comm real = MPI_COMM_NULL;
    *node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &real) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Comm_split_type (MPI_COMM_TYPE_SHARED) failed");
    if (k == 0) {
        *node = real;
        return REDIST_SUCCESS;
    }
    int rc = MPI_Comm_split(real, rank / k, rank, node);
    MPI_Comm_free(&real);
    return rc == MPI_SUCCESS ? REDIST_SUCCESS
                             : redist__fail(REDIST_ERR_MPI, "MPI_Comm_split of the node failed");
}

int redist__plan_node_comm(MPI_Comm comm, MPI_Comm *node)
{
    int k = 0, rank = 0;
    if (redist__ranks_per_node(&k) != REDIST_SUCCESS) {
        redist__clear_error();
        k = 0;
    }
    MPI_Comm_rank(comm, &rank);
    return redist__node_comm(comm, rank, k, node);
}

int redist__node_ranks_into(MPI_Comm comm, MPI_Comm node, int size, const int *ranks, int *out)
{
    MPI_Group g_comm = MPI_GROUP_NULL, g_node = MPI_GROUP_NULL;
    int ok = MPI_Comm_group(comm, &g_comm) == MPI_SUCCESS &&
             MPI_Comm_group(node, &g_node) == MPI_SUCCESS &&
             MPI_Group_translate_ranks(g_comm, size, ranks, g_node, out) == MPI_SUCCESS;
    for (int r = 0; ok && r < size; r++)
        if (out[r] == MPI_UNDEFINED)
            out[r] = -1;
    if (g_node != MPI_GROUP_NULL)
        MPI_Group_free(&g_node);
    if (g_comm != MPI_GROUP_NULL)
        MPI_Group_free(&g_comm);
    return ok;
}

int *redist__node_ranks_of(MPI_Comm comm, MPI_Comm node, int size)
{
    int *all = redist__malloc((size_t)size * sizeof *all),
        *out = redist__malloc((size_t)size * sizeof *out);
    for (int r = 0; all != NULL && r < size; r++)
        all[r] = r;
    int ok = all != NULL && out != NULL && redist__node_ranks_into(comm, node, size, all, out);
    redist__free(all);
    if (!ok) {
        redist__free(out);
        return NULL;
    }
    return out;
}
