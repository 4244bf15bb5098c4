/* redist_alloc and redist_free (redist.h): local arrays in memory shared by the
 * ranks of a node, so that a plan can copy its on-node traffic once, straight between the
 * ranks' arrays (exec/shared.h keeps the list). Every step that can fail on one rank is
 * agreed (redist__agree) before the next collective call, so that every rank returns the
 * same code and none waits in a call the others skipped. */
#include "api/api.h"

#include "exec/shared.h"

enum {
    ALIGN = 64,           /* the alignment of what redist_alloc returns: any type, a cache line */
    RETIRED_PER_COMM = 64 /* freed allocations remembered per communicator (redist_free) */
};

static int keyval = MPI_KEYVAL_INVALID;

static void drop(redist__shared_comm *c)
{
    if (--c->refs == 0) {
        MPI_Comm_free(&c->dup);
        redist__free(c);
    }
}

static void release(redist__shared *s)
{
    if (s->win != MPI_WIN_NULL)
        MPI_Win_free(&s->win);
    if (s->node != MPI_COMM_NULL)
        MPI_Comm_free(&s->node);
    if (s->comm != NULL)
        drop(s->comm);
    redist__free(s);
}

/* The user freed comm: nothing can be freed over it any more, so its freed allocations are
   forgotten (their references to the duplicate with them). */
static int comm_deleted(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    redist__shared_comm *c = value;
    c->alive = 0;
    for (redist__shared *s = redist__shared_forget(c), *next; s != NULL; s = next) {
        next = s->next;
        release(s);
    }
    drop(c);
    return MPI_SUCCESS;
}

/* comm's duplicate, made at its first allocation (collective; the same result everywhere),
   with a reference for the caller. */
static int shared_comm(MPI_Comm comm, redist__shared_comm **out)
{
    *out = NULL;
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_deleted, &keyval, NULL) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Comm_create_keyval failed");
    void *value = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Comm_get_attr failed");
    if (found) { /* every rank made it at the same call: found alike */
        *out = value;
        (*out)->refs++;
        return REDIST_SUCCESS;
    }
    MPI_Comm dup = MPI_COMM_NULL;
    if (redist__comm_dup(comm, &dup) != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    redist__shared_comm *c = redist__malloc(sizeof *c);
    int rank = 0;
    MPI_Comm_rank(dup, &rank);
    int err = redist__agree(
        dup, rank, c != NULL ? REDIST_SUCCESS : redist__fail(REDIST_ERR_NOMEM, "redist_alloc"),
        NULL);
    if (err != REDIST_SUCCESS) {
        redist__free(c);
        MPI_Comm_free(&dup);
        return err;
    }
    *c = (redist__shared_comm){dup, 2, 1}; /* the attribute's and the caller's */
    MPI_Comm_set_attr(comm, keyval, c);
    *out = c;
    return REDIST_SUCCESS;
}

/* Whether the node's ranks' segments fit in its shared memory (/dev/shm): a segment larger
   than the space there would kill the processes (SIGBUS) when they touch its end. */
static int fits(MPI_Comm node, int64_t want)
{
    double mine = (double)want, total = 0, limit = redist__shm_limit();
    if (MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, node) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce over the node failed");
    int ranks = 0;
    MPI_Comm_size(node, &ranks);
    if (total > limit)
        return redist__fail(REDIST_ERR_NOMEM,
                            "the %d ranks of this node ask for %.4g GB of shared memory; "
                            "/dev/shm has %.4g GB free (REDIST_SHM_LIMIT overrides)",
                            ranks, total / 1e9, limit / 1e9);
    return REDIST_SUCCESS;
}

/* This rank's segment of the node's window, `want` bytes (the caller's, rounded up, plus
   room to align). */
static int allocate(MPI_Comm node, int64_t want, MPI_Win *win, char **raw)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int rc = MPI_Win_allocate_shared((MPI_Aint)want, 1, info, node, raw, win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        *win = MPI_WIN_NULL;
        return redist__fail(REDIST_ERR_NOMEM,
                            "MPI_Win_allocate_shared of %lld bytes failed (the node's shared "
                            "memory?)",
                            (long long)want);
    }
    return REDIST_SUCCESS;
}

/* comm usable: else nothing can be agreed, and every rank that passed it returns this. */
static int check_comm(MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL)
        return redist__fail(REDIST_ERR_ARG, "comm is MPI_COMM_NULL");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "comm is not a valid communicator");
    if (inter)
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "comm is an intercommunicator: allocate over each group's own");
    return REDIST_SUCCESS;
}

/* What one rank can get wrong alone (agreed: every rank returns it). */
static int check_arguments(int64_t bytes, void **base, int *k)
{
    if (base == NULL)
        return redist__fail(REDIST_ERR_ARG, "base is NULL");
    if (bytes < 0 || bytes > INT64_MAX - 2 * ALIGN)
        return redist__fail(REDIST_ERR_ARG, "bytes = %lld is negative or too large",
                            (long long)bytes);
    return redist__ranks_per_node(k);
}

/* The node's communicator, the room, the window: each step agreed before the next. */
static int make(redist__shared *s, int rank, int k, int64_t want, char **raw)
{
    MPI_Comm comm = s->comm->dup;
    int err = redist__agree(comm, rank, redist__node_comm(comm, rank, k, &s->node), NULL);
    if (err == REDIST_SUCCESS)
        err = redist__agree(comm, rank, fits(s->node, want), NULL);
    if (err == REDIST_SUCCESS)
        err = redist__agree(comm, rank, allocate(s->node, want, &s->win, raw), NULL);
    uint64_t id = redist__shared_next_id();
    if (err == REDIST_SUCCESS &&
        MPI_Allreduce(&id, &s->id, 1, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
    if (err == REDIST_SUCCESS) /* ids unique in each process: a peer's notification names one */
        redist__shared_seen_id(s->id);
    return err;
}

int redist_alloc(MPI_Comm comm, int64_t bytes, void **base)
{
    redist__clear_error();
    if (base != NULL)
        *base = NULL;
    int err = redist__check_mpi();
    if (err == REDIST_SUCCESS)
        err = check_comm(comm);
    if (err != REDIST_SUCCESS)
        return err;
    int k = 0, rank = 0;
    int local = check_arguments(bytes, base, &k);
    redist__shared *s = redist__calloc(1, sizeof *s);
    if (local == REDIST_SUCCESS && s == NULL)
        local = redist__fail(REDIST_ERR_NOMEM, "redist_alloc's record");
    redist__shared_comm *c = NULL;
    err = shared_comm(comm, &c); /* collective: the same result everywhere */
    if (err != REDIST_SUCCESS) {
        redist__free(s);
        return err;
    }
    MPI_Comm_rank(c->dup, &rank);
    err = redist__agree(c->dup, rank, local, NULL);
    if (err != REDIST_SUCCESS) {
        drop(c);
        redist__free(s);
        return err;
    }
    *s = (redist__shared){.comm = c, .node = MPI_COMM_NULL, .win = MPI_WIN_NULL};
    int64_t want = (bytes + ALIGN - 1) / ALIGN * ALIGN + ALIGN; /* room to align the base */
    char *raw = NULL;
    err = make(s, rank, k, want, &raw);
    if (err != REDIST_SUCCESS) {
        release(s);
        return err;
    }
    s->bytes = bytes;
    s->base = raw + (ALIGN - (uintptr_t)raw % ALIGN) % ALIGN;
    redist__shared_add(s);
    *base = s->base;
    return REDIST_SUCCESS;
}

/* Freed: the window and node communicator go; the record stays while its communicator
   lives, so that freeing it again still names the communicator to agree on. */
static void retire(redist__shared *s)
{
    MPI_Win_free(&s->win);
    MPI_Comm_free(&s->node);
    redist__shared *forgotten = s->comm->alive ? redist__shared_retire(s, RETIRED_PER_COMM) : s;
    if (forgotten != NULL)
        release(forgotten);
}

/* The allocation redist_free(base) agrees on, and this rank's status: base is its start
   (SUCCESS, or BUSY while an execute on it is in flight), inside it or just past its end
   (ARG: nothing is freed), or it was freed already (ARG). NULL: base names no communicator. */
static redist__shared *to_free(void *base, int *status)
{
    redist__shared *s = redist__shared_by_base(base);
    *status = REDIST_SUCCESS;
    if (s != NULL && s->in_flight > 0)
        *status = redist__fail(REDIST_ERR_BUSY, "an execute on arrays in this allocation has not "
                                                "completed (redist_wait for it first)");
    if (s != NULL)
        return s;
    if ((s = redist__shared_around(base)) != NULL) {
        *status = redist__fail(REDIST_ERR_ARG,
                               "base %p lies %lld bytes into an allocation of %lld bytes at %p: "
                               "redist_free takes the address redist_alloc returned (nothing "
                               "freed)",
                               base, (long long)((char *)base - s->base), (long long)s->bytes,
                               (void *)s->base);
        return s;
    }
    if ((s = redist__shared_retired(base)) != NULL) {
        *status = redist__fail(REDIST_ERR_ARG, "base %p: its allocation (at %p) was freed already",
                               base, (void *)s->base);
        return s;
    }
    *status = redist__fail(REDIST_ERR_ARG,
                           "base %p is not in an allocation of redist_alloc, nor in one of the "
                           "last %d freed over a communicator that still exists: no "
                           "communicator to agree on (this rank alone returns)",
                           base, RETIRED_PER_COMM);
    return NULL;
}

int redist_free(void *base)
{
    redist__clear_error();
    int err = redist__check_mpi();
    if (err != REDIST_SUCCESS)
        return err;
    if (base == NULL) /* names no communicator: this rank alone */
        return redist__fail(REDIST_ERR_ARG, "base is NULL");
    int local = REDIST_SUCCESS;
    redist__shared *s = to_free(base, &local);
    if (s == NULL)
        return local;
    int rank = 0;
    MPI_Comm_rank(s->comm->dup, &rank);
    redist__fingerprints fp = {0};
    redist__fp_add(&fp,
                   "the allocation to free (each rank must free the allocations of one "
                   "communicator in the same order)",
                   &s->id, sizeof s->id);
    err = redist__agree(s->comm->dup, rank, local, &fp);
    if (err != REDIST_SUCCESS)
        return err;
    redist__shared_remove(s);
    retire(s);
    return REDIST_SUCCESS;
}
