/* The one plan constructor (planner.h): what every plan holds before its algorithm's part,
 * whoever makes it (redist_plan_create and its child plans, redist_plan_create_bmmc,
 * redist_plan_create_batch).
 *
 * A plan owns a duplicate of the communicator with MPI_ERRORS_RETURN (the user's handler may
 * abort, and its traffic never meets the user's), a committed duplicate of the type, the
 * machine's parameters it is planned with, the load of its node, copies of the options and
 * the scaling they ask for.
 */
#include "exec/shared.h"
#include "planner/planner.h"

#include <string.h>

/* The options a plan keeps: the defaults for NULL, and its own copies of the strings
   (*strings, freed with the plan). */
static int keep_options(const redist_options *opt, redist_options *kept, char **strings)
{
    redist_options_init(kept);
    if (opt != NULL)
        *kept = *opt;
    kept->algorithm = NULL; /* resolved into the plan's algorithm; the user's string may go */
    *strings = NULL;
    if (kept->alltoall_algorithm == NULL)
        return REDIST_SUCCESS;
    size_t n = strlen(kept->alltoall_algorithm) + 1;
    if ((*strings = redist__malloc(n)) == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "plan options");
    memcpy(*strings, kept->alltoall_algorithm, n);
    kept->alltoall_algorithm = *strings;
    return REDIST_SUCCESS;
}

/* The ranks of comm on the caller's node: the plan's node (REDIST_RANKS_PER_NODE too), or
   with physical set the machine's (MPI_COMM_TYPE_SHARED alone). comm's size if MPI cannot
   tell. */
static int ranks_on_node(MPI_Comm comm, int physical)
{
    MPI_Comm node;
    int node_size = 0, rank = 0;
    MPI_Comm_rank(comm, &rank);
    int err =
        physical ? redist__node_comm(comm, rank, 0, &node) : redist__plan_node_comm(comm, &node);
    if (err == REDIST_SUCCESS) {
        MPI_Comm_size(node, &node_size);
        MPI_Comm_free(&node);
    }
    if (node_size < 1) /* cannot tell: as if every rank were here (the smallest share) */
        MPI_Comm_size(comm, &node_size);
    return node_size;
}

int redist__node_ranks(MPI_Comm comm)
{
    return ranks_on_node(comm, 0);
}

/* How crowded this rank's node is: ranks of the plan on it (they share its memory), per
   core (at least 1), and whether the plan spans other nodes. A machine file holds one rank
   per core's costs (calibrate divides by its own load), a plan multiplies them by its
   node's: ranks that share a core take turns at every step, copy and message. Child plans
   take their parent's (their communicator has the same ranks). Collective unless a parent
   is given. */
static void measure_node(struct redist_plan_s *p, const struct redist_plan_s *parent)
{
    if (parent != NULL) {
        p->node_ranks = parent->node_ranks;
        p->node_load = parent->node_load;
        p->not_one_node = parent->not_one_node;
        if (parent->nodes != NULL && (p->nodes = redist__malloc(sizeof *p->nodes)) != NULL &&
            redist__node_map_copy(parent->nodes, p->nodes) != REDIST_SUCCESS) {
            redist__free(p->nodes); /* phase 3 makes it again */
            p->nodes = NULL;
        }
        return;
    }
    /* the plan's nodes decide what crosses a network; the machine's ranks share its cores
       and memory (virtual nodes of REDIST_RANKS_PER_NODE all run on this machine) */
    p->not_one_node = redist__node_ranks(p->comm) < p->size;
    p->node_ranks = ranks_on_node(p->comm, 1);
    p->node_load = redist__ranks_per_core(p->node_ranks);
}

/* The plan's scaling from its kept options and type; NULL scale: a copy. The options were
   checked against the type (api/plan.c) and agreed. */
static void set_scaling(struct redist_plan_s *p, MPI_Datatype type)
{
    const redist_options *o = &p->opt;
    p->scale = NULL;
    int kind = redist__options_scale(o) && type != MPI_DATATYPE_NULL ? redist__scale_kind(type) : 0;
    if (kind == 0)
        return;
    int complex = kind == REDIST__COMPLEX8 || kind == REDIST__COMPLEX16;
    p->scale_store = (redist__scale){kind,
                                     complex && o->conjugate,
                                     o->beta[0] == 0.0 && o->beta[1] == 0.0,
                                     o->alpha[0] == 0.0 && o->alpha[1] == 0.0,
                                     {o->alpha[0], o->alpha[1]},
                                     {o->beta[0], o->beta[1]}};
    const redist__scale *s = &p->scale_store;
    if (!(s->beta_zero && o->alpha[0] == 1.0 && o->alpha[1] == 0.0 && !s->conjugate))
        p->scale = s; /* not a copy after all (conjugating a real type) */
}

/* The plan's committed duplicate of type (none for MPI_DATATYPE_NULL). The duplicate is
   committed (a no-op for a committed type): MPI cannot tell us whether the user's type was,
   and alltoallv hands the plan's type to MPI. */
static int keep_type(struct redist_plan_s *p, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return REDIST_SUCCESS;
    if (MPI_Type_dup(type, &p->type) != MPI_SUCCESS) {
        p->type = MPI_DATATYPE_NULL;
        return redist__fail(REDIST_ERR_MPI, "MPI_Type_dup failed");
    }
    if (MPI_Type_commit(&p->type) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Type_commit failed");
    return REDIST_SUCCESS;
}

/* REDIST_MEMORY_AUTO as the plan's ranks can serve it, the same on every rank: host memory
   where no rank loads a device backend (no array can be device memory: the plan is then a
   host plan in everything, its rules, prediction and transport), else a device plan on every
   rank, so that all choose alike; a rank without a backend then moves its side on the host
   (p->device NULL). Collective for a plan of its own; a child plan takes its parent's
   (options.memory as the parent resolved it: algo/phases.c). */
static int agree_on_memory(struct redist_plan_s *p, const redist__plan_basis *basis)
{
    if (basis->parent != NULL || basis->opt == NULL || basis->opt->memory != REDIST_MEMORY_AUTO)
        return REDIST_SUCCESS; /* agreed in phase 2: every rank returns here, or none */
    int here = redist__memory_served(REDIST_MEMORY_AUTO) == REDIST_MEMORY_AUTO, anywhere = 0;
    if (MPI_Allreduce(&here, &anywhere, 1, MPI_INT, MPI_MAX, p->comm) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce (device memory) failed");
    if (!anywhere)
        p->opt.memory = REDIST_MEMORY_HOST;
    return REDIST_SUCCESS;
}

/* The shared set-up of p (its communicator set): every rank makes the same collective calls
   whatever fails locally. */
static int set_up(struct redist_plan_s *p, const redist__plan_basis *basis)
{
    MPI_Comm_rank(p->comm, &p->rank);
    MPI_Comm_size(p->comm, &p->size);
    p->type = MPI_DATATYPE_NULL;
    p->elsize = basis->elsize;
    p->check_req = MPI_REQUEST_NULL;
    redist__machine_current(&p->machine_agreed, NULL, 0);
    p->machine = &p->machine_agreed;
    measure_node(p, basis->parent);
    int err = keep_options(basis->opt, &p->opt, &p->opt_strings);
    p->check_arguments = p->opt.check_arguments;
    p->threads = 1;
    p->thread_min_bytes = INT64_MAX;
    p->cores = basis->parent != NULL ? basis->parent->cores : redist__cores();
    if (basis->parent != NULL) {
        p->threads = basis->parent->threads;
        p->thread_min_bytes = basis->parent->thread_min_bytes;
    } else if (err == REDIST_SUCCESS) {
        err = redist__threads_resolve(&p->opt, &p->threads, &p->thread_min_bytes);
    }
    int agreed = agree_on_memory(p, basis); /* collective: whatever failed before */
    if (err == REDIST_SUCCESS)
        err = agreed;
    if (err == REDIST_SUCCESS) /* device memory: the backend, or why there is none */
        err = redist__staging_open(p);
    set_scaling(p, basis->type);
    if (err == REDIST_SUCCESS)
        err = keep_type(p, basis->type);
    return err;
}

int redist__plan_new(const redist__plan_basis *basis, int local_err, const redist__fingerprints *fp,
                     struct redist_plan_s **plan)
{
    *plan = NULL;
    MPI_Comm dup = MPI_COMM_NULL;
    if (redist__comm_dup(basis->comm, &dup) != REDIST_SUCCESS) /* collective: fails everywhere */
        return REDIST_ERR_MPI;
    int rank = 0;
    MPI_Comm_rank(dup, &rank);
    struct redist_plan_s *p = redist__calloc(1, sizeof *p);
    if (local_err == REDIST_SUCCESS && p == NULL)
        local_err = redist__fail(REDIST_ERR_NOMEM, "plan");
    int err = redist__agree(dup, rank, local_err, fp);
    if (err != REDIST_SUCCESS) {
        MPI_Comm_free(&dup);
        redist__free(p);
        return err;
    }
    p->comm = dup;
    err = redist__agree(dup, rank, set_up(p, basis), NULL);
    if (err != REDIST_SUCCESS) {
        redist__plan_destroy(p);
        return err;
    }
    *plan = p;
    return REDIST_SUCCESS;
}

int redist__stats_maxima(struct redist_plan_s *p)
{
    redist_stats *s = &p->stats;
    int64_t mine[2] = {s->messages_sent, s->bytes_sent}, most[2] = {0, 0};
    if (MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, p->comm) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce of the statistics failed");
    s->max_messages_per_rank = most[0];
    s->max_bytes_per_rank = most[1];
    return REDIST_SUCCESS;
}
