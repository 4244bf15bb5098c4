/* The private duplicate the basic operations run on (coll.h): created at the first call on a
 * user's communicator, cached on it as an MPI attribute and freed with it, so that the
 * operations never see the user's own messages; the map of its ranks' nodes, found at the
 * first call that asks (the node-aware algorithms) and cached beside it; and the first step
 * of every operation, which finds it and agrees on the arguments. */
#include "coll/coll.h"
#include "exec/shared.h"

static int keyval = MPI_KEYVAL_INVALID;

/* What the operations cache on a user's communicator. */
typedef struct coll_cache {
    MPI_Comm dup; /* the private duplicate: operations never see the user's own messages */
    int checking; /* 1 (the default): every call agrees on its arguments */
    int mapped;   /* nodes is made */
    redist__node_map nodes;
} coll_cache;

static int free_private(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    coll_cache *c = value;
    MPI_Comm_free(&c->dup);
    if (c->mapped)
        redist__node_map_free(&c->nodes);
    redist__free(c);
    return MPI_SUCCESS;
}

/* At MPI_Finalize (MPI_COMM_SELF's attributes are deleted first): the keyval is freed, once
   the attributes that use it are gone. */
static int free_keyval(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)value, (void)extra;
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

/* The cache of comm, created at the first call on it (collective). */
static int private_cache(MPI_Comm comm, coll_cache **out)
{
    if (keyval == MPI_KEYVAL_INVALID) {
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval, NULL) !=
            MPI_SUCCESS)
            return REDIST_ERR_MPI;
        int hook = MPI_KEYVAL_INVALID; /* freed by MPI with its attribute */
        if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_keyval, &hook, NULL) ==
            MPI_SUCCESS) {
            MPI_Comm_set_attr(MPI_COMM_SELF, hook, NULL);
            MPI_Comm_free_keyval(&hook);
        }
    }
    void *value = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(comm, keyval, &value, &found) != MPI_SUCCESS)
        return REDIST_ERR_MPI;
    if (found) {
        *out = value;
        return REDIST_SUCCESS;
    }
    MPI_Comm dup;
    if (redist__comm_dup(comm, &dup) != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    /* One rank out of memory must not leave the others with a cached duplicate it lacks
       (their next call would dup no more while it would): agree first. */
    coll_cache *c = redist__malloc(sizeof *c);
    int ok = c != NULL, all = 0;
    int merr = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, dup);
    if (merr != MPI_SUCCESS || !all) {
        redist__free(c);
        MPI_Comm_free(&dup);
        return merr != MPI_SUCCESS ? REDIST_ERR_MPI : REDIST_ERR_NOMEM;
    }
    c->dup = dup;
    c->checking = 1;
    c->mapped = 0;
    c->nodes = (redist__node_map){0};
    MPI_Comm_set_attr(comm, keyval, c);
    *out = c;
    return REDIST_SUCCESS;
}

int redist__coll_self(MPI_Comm *self)
{
    coll_cache *c = NULL;
    int err = private_cache(MPI_COMM_SELF, &c);
    *self = err == REDIST_SUCCESS ? c->dup : MPI_COMM_NULL;
    return err;
}

/* The checks every call makes on comm before its own; the cache in *cache. */
static int begin_comm(MPI_Comm comm, coll_cache **cache, int *rank, int *size)
{
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    if (comm == MPI_COMM_NULL)
        return redist__fail(REDIST_ERR_ARG, "comm is MPI_COMM_NULL");
    int inter = 0;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "intercommunicators are not supported");
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, size);
    int err = private_cache(comm, cache);
    if (err != REDIST_SUCCESS) /* the dup is collective: every rank failed alike */
        return redist__fail(err, "private communicator");
    return REDIST_SUCCESS;
}

/* The most negative of the ranks' codes (collective over c's duplicate). */
static int agreed(const coll_cache *c, int code)
{
    int all = REDIST_ERR_MPI;
    return MPI_Allreduce(&code, &all, 1, MPI_INT, MPI_MIN, c->dup) == MPI_SUCCESS ? all
                                                                                  : REDIST_ERR_MPI;
}

/* The map of the nodes of c's ranks, from the first rank of each rank's node (collective over
   the duplicate; any rank's failure fails all alike, and nothing is cached then). */
static int map_nodes(coll_cache *c, int rank, int size)
{
    MPI_Comm node = MPI_COMM_NULL;
    int first = rank, err = redist__plan_node_comm(c->dup, &node);
    if (err == REDIST_SUCCESS) {
        if (MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS)
            err = REDIST_ERR_MPI;
        MPI_Comm_free(&node);
    }
    int *firsts = redist__malloc(((size_t)size + 1) * sizeof *firsts);
    if (err == REDIST_SUCCESS && firsts == NULL)
        err = REDIST_ERR_NOMEM;
    err = agreed(c, err);
    if (err == REDIST_SUCCESS &&
        MPI_Allgather(&first, 1, MPI_INT, firsts, 1, MPI_INT, c->dup) != MPI_SUCCESS)
        err = REDIST_ERR_MPI;
    if (err == REDIST_SUCCESS)
        err = agreed(c, redist__node_map_from_firsts(size, firsts, &c->nodes));
    redist__free(firsts);
    if (err != REDIST_SUCCESS) {
        redist__node_map_free(&c->nodes); /* empty where it was not made */
        return redist__fail(err, "the nodes of the communicator's ranks");
    }
    c->mapped = 1;
    return REDIST_SUCCESS;
}

int redist__coll_nodes(MPI_Comm comm, const redist__node_map **nodes)
{
    coll_cache *cache = NULL;
    int rank = 0, size = 0;
    *nodes = NULL;
    int err = begin_comm(comm, &cache, &rank, &size);
    if (err == REDIST_SUCCESS && !cache->mapped)
        err = map_nodes(cache, rank, size);
    if (err == REDIST_SUCCESS)
        *nodes = &cache->nodes;
    return err;
}

int redist__coll_nodes_set(MPI_Comm comm, const int *first_of)
{
    coll_cache *cache = NULL;
    int rank = 0, size = 0;
    int err = begin_comm(comm, &cache, &rank, &size);
    if (err != REDIST_SUCCESS)
        return err;
    redist__node_map map;
    err = agreed(cache, redist__node_map_from_firsts(size, first_of, &map));
    if (err != REDIST_SUCCESS) {
        redist__node_map_free(&map);
        return redist__fail(err, "the nodes of the communicator's ranks");
    }
    if (cache->mapped)
        redist__node_map_free(&cache->nodes);
    cache->nodes = map;
    cache->mapped = 1;
    return REDIST_SUCCESS;
}

int redist__coll_begin(MPI_Comm comm, int local_err, const redist__fingerprints *fp, MPI_Comm *priv,
                       int *rank, int *size)
{
    coll_cache *cache = NULL;
    int err = begin_comm(comm, &cache, rank, size);
    if (err != REDIST_SUCCESS)
        return err;
    *priv = cache->dup;
    if (!cache->checking) /* redist_coll_set_checking(comm, 0): this rank's verdict only */
        return local_err;
    return redist__agree(*priv, *rank, local_err, fp);
}

int redist_coll_set_checking(MPI_Comm comm, int on)
{
    redist__clear_error();
    coll_cache *cache = NULL;
    int rank = 0, size = 0;
    int err = begin_comm(comm, &cache, &rank, &size);
    if (err != REDIST_SUCCESS)
        return err;
    int local = on == 0 || on == 1 ? REDIST_SUCCESS
                                   : redist__fail(REDIST_ERR_ARG, "on = %d must be 0 or 1", on);
    redist__fingerprints fp = {0};
    redist__fp_add(&fp, "on", &on, sizeof on);
    err = redist__agree(cache->dup, rank, local, &fp); /* always agreed, whatever it was */
    if (err == REDIST_SUCCESS)
        cache->checking = on;
    return err;
}
