/* Phase 3 of a layout plan and child plans (planner.h).
 *
 * A layout plan's arguments are agreed (redist_plan_create's phases 1 and 2, api/plan.c) and
 * its shared part made (construct.c) when it gets here. Each rank builds its messages (pure
 * pattern code); the ranks agree on the traffic (one MPI_Allreduce, which also carries any
 * failure so far); with the pair's shape that is the case every algorithm's rules read, the
 * same on every rank; the algorithm is chosen from it (the table's argmin for "auto"), then
 * the transport, the mode (bounded, or fitted into the node's memory), the buffers and the
 * algorithm's own setup, and a last agreement makes a failure on one rank a failure on all.
 *
 * Child plans (an algorithm's phases) come here from below: their arguments come from a plan
 * whose arguments were agreed, so they skip phases 1 and 2, and they choose from the table
 * their parent was planned from.
 */
#include "planner/planner.h"
#include "device/device.h"
#include "exec/engine.h"
#include "exec/shared.h"

#include <string.h>

/* What this rank's local arrays hold and span (windows, padding). */
static int local_storage(struct redist_plan_s *p)
{
    int err =
        redist__storage_span(p->src, p->rank, &p->src_count, &p->src_lo, &p->src_hi, &p->src_base);
    if (err == REDIST_SUCCESS)
        err = redist__storage_span(p->dst, p->rank, &p->dst_count, &p->dst_lo, &p->dst_hi,
                                   &p->dst_base);
    return err;
}

/* The node of every rank of the plan (its node's first rank), where a replicated source
   lets destinations take their elements from a replica on their own node (replicas.c).
   Collective: every rank calls it or none (the layouts are agreed), and an allocation that
   fails on one rank fails every rank before the exchange. */
static int nodes_of_ranks(struct redist_plan_s *p, int **out)
{
    *out = redist__malloc(((size_t)p->size + 1) * sizeof **out);
    MPI_Comm node = MPI_COMM_NULL;
    int leader = p->rank, ok = *out != NULL, all_ok = 0;
    if (redist__plan_node_comm(p->comm, &node) == REDIST_SUCCESS) {
        MPI_Allreduce(&p->rank, &leader, 1, MPI_INT, MPI_MIN, node);
        MPI_Comm_free(&node);
    }
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS || !all_ok ||
        MPI_Allgather(&leader, 1, MPI_INT, *out, 1, MPI_INT, p->comm) != MPI_SUCCESS) {
        redist__free(*out);
        *out = NULL;
        return all_ok ? redist__fail(REDIST_ERR_MPI, "the nodes of the plan's ranks")
                      : redist__fail(REDIST_ERR_NOMEM, "the nodes of the plan's ranks");
    }
    return REDIST_SUCCESS;
}

/* The map of the plan's nodes (p->nodes), from the first rank of each rank's node (*firsts,
   which a replicated source keeps). Collective, as nodes_of_ranks. */
static int map_nodes(struct redist_plan_s *p, int **firsts)
{
    int err = nodes_of_ranks(p, firsts);
    if (err != REDIST_SUCCESS || p->nodes != NULL)
        return err;
    if ((p->nodes = redist__malloc(sizeof *p->nodes)) == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "the map of nodes");
    err = redist__node_map_from_firsts(p->size, *firsts, p->nodes);
    if (err != REDIST_SUCCESS) {
        redist__free(p->nodes);
        p->nodes = NULL;
    }
    return err;
}

/* Phase 3a: this rank's messages (pure, local, but for the nodes of the plan's ranks, where
   it spans nodes or a replicated source chooses replicas by node). */
static int build_messages(struct redist_plan_s *p)
{
    int *node_of = NULL; /* decided on the user's layout, which every rank agreed on */
    int replicas = p->opt.reduce == MPI_OP_NULL && redist__has_replicas(p->src);
    if (p->not_one_node || replicas) {
        int err = p->not_one_node ? map_nodes(p, &node_of) : nodes_of_ranks(p, &node_of);
        if (!replicas) {
            redist__free(node_of);
            node_of = NULL;
        }
        if (err != REDIST_SUCCESS) {
            redist__free(node_of);
            return err;
        }
    }
    p->src = redist__layout_copy(p->src);
    if (p->src != NULL)
        p->src->node_of = node_of;
    else
        redist__free(node_of);
    /* An axis permutation becomes a view of dst in the source's dimensions (permute.c); the
       plan's children then move between layouts of one numbering and get none. */
    p->dst = p->opt.permutation != NULL ? redist__layout_permuted(p->dst, p->opt.permutation)
                                        : redist__layout_copy(p->dst);
    p->opt.permutation = NULL;
    p->self = redist__calloc(1, sizeof *p->self);
    if (p->src == NULL || p->dst == NULL || p->self == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "plan");
    p->src->partial = p->opt.reduce != MPI_OP_NULL; /* partial sums: every replica sends */
    int has_self = 0;
    int err = redist__sides_create(p->src, p->dst, p->rank, &p->send, &p->recv, p->self, &has_self);
    if (!has_self) {
        redist__free(p->self);
        p->self = NULL;
    }
    if (err != REDIST_SUCCESS)
        return err;
    /* the cache-blocked transposes of unpacking, if any */
    if (redist__side_tiles(&p->recv) != REDIST_SUCCESS ||
        (p->self != NULL && redist__tiles_create(p->self) != REDIST_SUCCESS))
        return redist__fail(REDIST_ERR_NOMEM, "transpose tiles");
    return local_storage(p);
}

/* Phase 3d: pack buffers for the algorithms that pack (the shared-memory transport
   provides the send buffer itself), or datatypes for the datatype transport. */
static int allocate_buffers(struct redist_plan_s *p, int shm)
{
    if (p->transport == REDIST_TRANSPORT_DATATYPE)
        return redist__datatypes_setup(p);
    if (!p->algo->packs || p->bounded) /* bounded mode: the strip engine's slots */
        return REDIST_SUCCESS;
    if (!shm)
        p->sendbuf = redist__plan_buffer(p, (size_t)p->send.total_elems * p->elsize + 1);
    if (shm || p->sendbuf != NULL)
        p->recvbuf = redist__plan_buffer(p, (size_t)p->recv.total_elems * p->elsize + 1);
    return (!shm && p->sendbuf == NULL) || p->recvbuf == NULL ? REDIST_ERR_NOMEM : REDIST_SUCCESS;
}

enum { CASE_VALS = 1 + REDIST__S_NVALS, MACHINE_VALS = REDIST__MACHINE_NPARAMS + 7 };

/* The machine's parameters as int64 values whose maximum over ranks is the largest value of
   each (a double >= 0 orders as its bit pattern does), and back. */
static void machine_to_values(const redist__machine *m, int64_t v[MACHINE_VALS])
{
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++) {
        double x = redist__machine_get(m, i);
        memcpy(&v[i], &x, sizeof x);
    }
    v[REDIST__MACHINE_NPARAMS] = m->shared_node;
}

/* Whether this rank's device plan can pull its node peers' messages over inter-process
   memory (asked for, and a backend that maps other processes' memory); the probe at plan
   creation then finds which pairs of ranks can. */
static int device_ipc_here(const struct redist_plan_s *p)
{
    return redist__device_ipc_asked(&p->opt) && redist__device_has_ipc(redist__staging_dev(p));
}

/* The node's load, whether the plan spans nodes, and its threads (at most its cores) as
   REDIST_MAX_THREADS minus them (the maximum over ranks: the fewest, the slowest rank's local
   moves), whether it holds no node-shared allocation, whether it cannot pull over
   inter-process memory, and whether its MPI takes no device buffers. */
static void load_to_values(const struct redist_plan_s *p, int64_t v[6])
{
    memcpy(&v[0], &p->node_load, sizeof p->node_load);
    v[1] = p->not_one_node;
    v[2] = REDIST_MAX_THREADS - redist__model_threads(p->threads, p->cores);
    v[3] = !redist__shared_any();      /* MAX: some rank holds no node-shared allocation */
    v[4] = !device_ipc_here(p);        /* MAX: some rank cannot pull over inter-process memory */
    v[5] = !redist__gpu_mpi_usable(p); /* MAX: some rank's MPI takes no device buffers */
}

static void machine_from_values(const int64_t v[MACHINE_VALS], redist__machine *m)
{
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++)
        memcpy((char *)m + redist__machine_params()[i].offset, &v[i], sizeof(double));
    m->shared_node = (int)v[REDIST__MACHINE_NPARAMS];
}

/* This rank's node terms of the traffic (nodes.c) where the plan spans nodes: its node's
   sums, added up over the node (MPI_SUM), and its own messages. Collective over the plan's
   communicator (every rank knows alike whether it spans nodes); a rank that failed so far
   adds nothing and keeps its error. */
static int node_terms(struct redist_plan_s *p, int err, int64_t vals[REDIST__S_NVALS])
{
    MPI_Comm node = MPI_COMM_NULL;
    if (redist__plan_node_comm(p->comm, &node) != REDIST_SUCCESS)
        return err != REDIST_SUCCESS ? err : REDIST_ERR_MPI;
    int mine = err == REDIST_SUCCESS && p->nodes != NULL;
    int len = p->nodes != NULL ? redist__node_sums_length(p->nodes, p->nodes->node_of[p->rank]) : 0;
    int64_t *sums = redist__calloc((size_t)len + 1, sizeof *sums);
    int ok = sums != NULL &&
             (!mine || redist__node_sums_add(p->nodes, p->rank, &p->send, &p->recv,
                                             (int64_t)p->elsize, sums) == REDIST_SUCCESS);
    /* MAX: the length, minus the length (its MIN), and whether any rank failed; the sums are
       added up only where every rank of the node has them, all of one length */
    int v[3] = {len, -len, -ok}, all[3] = {0, 0, 0};
    int rc = MPI_Allreduce(v, all, 3, MPI_INT, MPI_MAX, node);
    int agreed = rc == MPI_SUCCESS && all[2] == -1 && all[0] == -all[1] && all[0] > 0;
    if (agreed)
        rc = MPI_Allreduce(MPI_IN_PLACE, sums, all[0], MPI_INT64_T, MPI_SUM, node);
    MPI_Comm_free(&node);
    if (rc == MPI_SUCCESS && agreed && mine)
        redist__node_terms(p->nodes, p->rank, &p->send, &p->recv, (int64_t)p->elsize, sums, vals);
    redist__free(sums);
    if (err != REDIST_SUCCESS)
        return err;
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "the node sums of the traffic");
    return agreed ? REDIST_SUCCESS : redist__fail(REDIST_ERR_NOMEM, "node sums");
}

/* Phase 3b: the case, from the traffic (MAX over ranks, carrying the status of 3a) and the
   pair's shape; the same allreduce agrees on the machine's parameters (each the largest any
   rank read: ranks with different machine files or environments still choose alike), on
   the load of the most crowded node, which scales them, and on the fewest threads any rank
   moves its local data with, which speeds up the local moves (redist__machine_threads). */
static int agree_on_case(struct redist_plan_s *p, int err)
{
    int64_t v[CASE_VALS + MACHINE_VALS] = {0};
    v[0] = -(int64_t)err;
    if (err == REDIST_SUCCESS)
        redist__traffic_local(&p->send, &p->recv, p->self, p->src_count, p->dst_count, p->elsize,
                              v + 1);
    if (p->not_one_node)
        err = node_terms(p, err, v + 1);
    v[0] = -(int64_t)err;
    machine_to_values(&p->machine_agreed, v + CASE_VALS);
    load_to_values(p, v + CASE_VALS + REDIST__MACHINE_NPARAMS + 1);
    if (MPI_Allreduce(MPI_IN_PLACE, v, CASE_VALS + MACHINE_VALS, MPI_INT64_T, MPI_MAX, p->comm) !=
        MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
    machine_from_values(v + CASE_VALS, &p->machine_agreed);
    /* the most crowded node sets the pace; one node: packed messages move through memory */
    memcpy(&p->node_load, &v[CASE_VALS + REDIST__MACHINE_NPARAMS + 1], sizeof p->node_load);
    p->not_one_node = (int)v[CASE_VALS + REDIST__MACHINE_NPARAMS + 2];
    p->machine_agreed.shared_node = !p->not_one_node;
    /* every rank holds an allocation of redist_alloc: its arrays are taken to be in them, and
       packed messages on the node to copy once (the model's one-copy term) */
    p->machine_agreed.shared_arrays =
        !p->not_one_node && !v[CASE_VALS + REDIST__MACHINE_NPARAMS + 4];
    redist__machine_scale(&p->machine_agreed, p->node_load);
    redist__machine_threads(&p->machine_agreed,
                            REDIST_MAX_THREADS - (int)v[CASE_VALS + REDIST__MACHINE_NPARAMS + 3]);
    p->machine_agreed.device_ipc = !v[CASE_VALS + REDIST__MACHINE_NPARAMS + 5];
    p->machine_agreed.gpu_mpi = !v[CASE_VALS + REDIST__MACHINE_NPARAMS + 6];
    if (p->opt.memory != REDIST_MEMORY_HOST) /* agreed: kernels move the arrays */
        redist__machine_device(&p->machine_agreed);
    if (v[0] != 0) { /* the agreed (most negative) code, the same everywhere */
        if (err != -(int)v[0])
            redist__fail((int)-v[0], "another rank failed to build its messages");
        return (int)-v[0];
    }
    /* The steps of the shift schedule: which shifts any rank uses. */
    unsigned char *flags = redist__calloc((size_t)p->size, 1);
    int ok = flags != NULL, all_ok = 0;
    if (ok)
        redist__shift_flags(&p->send, p->rank, p->size, flags);
    if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, p->comm) != MPI_SUCCESS)
        all_ok = 0;
    if (all_ok && MPI_Allreduce(MPI_IN_PLACE, flags, p->size, MPI_UNSIGNED_CHAR, MPI_MAX,
                                p->comm) != MPI_SUCCESS)
        all_ok = 0;
    if (all_ok) {
        redist__traffic_finish(v + 1, flags, p->size, p->elsize, &p->pair.t);
        redist__shape_of(p->src, p->dst, &p->pair.s);
        p->pair.src = p->src;
        p->pair.dst = p->dst;
    }
    redist__free(flags);
    return all_ok ? REDIST_SUCCESS : redist__fail(REDIST_ERR_NOMEM, "shift flags");
}

/* Bounded mode with `bound` bytes per rank: at least two elements (one chunk each way). */
static int set_bounded(struct redist_plan_s *p, int64_t bound)
{
    int err = redist__check_bound(bound, p->elsize);
    if (err != REDIST_SUCCESS)
        return err;
    p->bounded = 1;
    p->bound = bound;
    p->transport = REDIST_TRANSPORT_PACK;
    return REDIST_SUCCESS;
}

static int fill_stats(struct redist_plan_s *p)
{
    redist_stats *s = &p->stats;
    memset(s, 0, sizeof *s);
    s->steps = p->algo->steps(&p->pair, p->machine, &p->opt);
    s->messages_sent = p->send.nmsgs;
    s->bytes_sent = p->send.total_elems * (int64_t)p->elsize;
    s->messages_received = p->recv.nmsgs;
    s->bytes_received = p->recv.total_elems * (int64_t)p->elsize;
    s->bytes_copied = p->self ? p->self->nelems * (int64_t)p->elsize : 0;
    s->nodes = p->pair.t.n.nodes;
    s->ranks_per_node = p->pair.t.n.ranks_per_node;
    for (int i = 0; p->nodes != NULL && i < p->send.nmsgs; i++)
        if (p->nodes->node_of[p->send.msgs[i].peer] != p->nodes->node_of[p->rank]) {
            s->messages_off_node++;
            s->bytes_off_node += p->send.msgs[i].nelems * (int64_t)p->elsize;
        }
    s->max_messages_per_rank = p->pair.t.max_sent_messages;
    s->max_bytes_per_rank = p->pair.t.max_sent_bytes;
    s->predicted_seconds =
        p->algo->predict(&p->pair, p->machine, &p->opt, p->transport) +
        redist__cost_agreement(&p->pair, p->machine, redist__agreements(&p->opt));
    s->runs_per_period = redist__side_runs(&p->send) + redist__side_runs(&p->recv);
    s->transport = p->transport;
    s->shared_memory = p->shm != NULL;
    s->bounded = p->bounded;
    s->buffer_bytes = (int64_t)p->buffer_bytes + (p->shm != NULL ? p->shm->bytes : 0);
    if (p->bounded) { /* one peer at a time in the shift schedule's order */
        s->steps = p->pair.t.shift_steps;
        s->predicted_seconds = redist__strip_predict(&p->pair, p->machine, p->bound);
    }
    if (p->opt.memory != REDIST_MEMORY_HOST) /* device plans: the copies off and on the GPU */
        s->predicted_seconds += redist__predict_staging(
            p->algo, &p->pair, p->machine, &p->opt, p->transport, p->shm != NULL && !p->bounded);
    redist__onecopy_device_stats(p, &s->messages_device_ipc, &s->bytes_device_ipc);
    for (int i = 0; p->gpu_mpi && i < p->send.nmsgs; i++)
        s->messages_device_mpi += !redist__shm_local(p, 1, i);
    if (p->algo->local_stats == NULL)
        return REDIST_SUCCESS;
    /* Relays, phases, padding: this rank's own figures, and their maxima over the ranks
       (every rank gets here: setup succeeded everywhere). */
    p->algo->local_stats(p, s);
    return redist__stats_maxima(p);
}

/* Pack buffers larger than a rank's share of its node's memory could never be filled: the
   node's memory is one, and the plan's ranks on it share it evenly (64 ranks on a node, 1/64
   each). Bounded mode needs only its chunk slots, so an algorithm that runs bounded takes it
   (auto re-chooses among those that do: direct-async always applies); another forced
   algorithm takes the datatype transport where it has it and the user did not ask for
   packing; otherwise every rank returns REDIST_ERR_NOMEM. Nodes (and limits) may differ:
   the ranks agree. */
static int fit_buffers_in_memory(struct redist_plan_s *p, const char *name)
{
    int64_t bound = redist__fallback_bound(&p->pair, p->algo, p->transport, p->node_ranks),
            most = 0;
    if (MPI_Allreduce(&bound, &most, 1, MPI_INT64_T, MPI_MAX, p->comm) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
    if (most == 0)
        return REDIST_SUCCESS;
    int bounded = 0;
    p->algo = redist__choose_bounded(p->algorithms, p->algo, strcmp(name, "auto") == 0, &p->pair,
                                     p->machine, &p->opt, most, &bounded);
    if (bounded) {
        int64_t least = 0; /* the smallest bound any rank would take */
        bound = bound > 0 ? bound : most;
        if (MPI_Allreduce(&bound, &least, 1, MPI_INT64_T, MPI_MIN, p->comm) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
        if (least < 2 * (int64_t)p->elsize)
            return redist__fail_no_room(least);
        return set_bounded(p, least);
    }
    if (p->opt.transport == REDIST_TRANSPORT_AUTO &&
        redist__can_datatype(p->algo, &p->pair, &p->opt)) {
        p->transport = REDIST_TRANSPORT_DATATYPE;
        return REDIST_SUCCESS;
    }
    double need = 2.0 * (double)p->pair.t.max_buffer * (double)p->elsize;
    return redist__fail(REDIST_ERR_NOMEM,
                        "%s needs pack buffers of up to %.3g GB per rank; a rank's share of its "
                        "node's %.3g GB is %.3g GB (%d ranks on the node)",
                        p->algo->name, need / 1e9, redist__memory_limit() / 1e9,
                        redist__memory_share(p->node_ranks) / 1e9, p->node_ranks);
}

/* Phase 3, collective: every rank makes every call whatever failed before. */
static int setup(struct redist_plan_s *p, const char *name)
{
    int err = agree_on_case(p, build_messages(p));
    if (err != REDIST_SUCCESS)
        return err;
    /* Phase 3c: the algorithm, from the case only (identical on every rank). */
    err = redist__choose_algorithm(p->algorithms, name, &p->pair, p->machine, &p->opt, &p->algo,
                                   NULL);
    if (err != REDIST_SUCCESS)
        return err;
    p->transport =
        redist__choose_transport(p->algo, &p->pair, p->machine, &p->opt, p->opt.transport);
    err = p->opt.max_buffer_bytes > 0 ? set_bounded(p, p->opt.max_buffer_bytes)
                                      : fit_buffers_in_memory(p, name);
    if (err != REDIST_SUCCESS)
        return err;
    int shm = p->algo->uses_shm && p->opt.shared_memory && p->transport == REDIST_TRANSPORT_PACK;
    if (shm) /* collective: every rank has the same algorithm */
        err = redist__agree(
            p->comm, p->rank,
            redist__shm_setup(p, p->bounded ? redist__strip_send_bytes(p)
                                            : p->send.total_elems * (int64_t)p->elsize + 1),
            NULL);
    if (err == REDIST_SUCCESS && p->shm != NULL) /* collective over each node */
        err = redist__agree(p->comm, p->rank, redist__onecopy_setup(p), NULL);
    if (err == REDIST_SUCCESS)
        err = allocate_buffers(p, p->shm != NULL);
    if (err == REDIST_SUCCESS) /* device plans: device buffers for a GPU-aware MPI */
        redist__gpu_mpi_setup(p);
    if (err == REDIST_SUCCESS)
        err = p->algo->setup(p);
    if (err == REDIST_SUCCESS) /* device plans: the kernels' index lists */
        err = redist__staging_upload(p);
    err = redist__agree(p->comm, p->rank, err, NULL);
    return err == REDIST_SUCCESS ? fill_stats(p) : err;
}

int redist__plan_layouts(struct redist_plan_s *p, const redist__algorithm_table *algorithms,
                         redist_layout src, redist_layout dst, const char *algorithm,
                         redist_plan *plan)
{
    p->algorithms = algorithms;
    p->src = src; /* replaced by private copies in build_messages */
    p->dst = dst;
    int err = setup(p, algorithm != NULL ? algorithm : "auto");
    if (err != REDIST_SUCCESS) {
        if (p->src == src)
            p->src = NULL;
        if (p->dst == dst)
            p->dst = NULL;
        redist__plan_destroy(p);
        return err;
    }
    *plan = p;
    return REDIST_SUCCESS;
}

int redist__plan_create_child(const struct redist_plan_s *parent, redist_layout from,
                              redist_layout to, const redist_options *opt, int local_err,
                              redist_plan *child)
{
    *child = NULL;
    if (local_err == REDIST_SUCCESS && (from == NULL || to == NULL))
        local_err = redist__fail(REDIST_ERR_NOMEM, "child plan");
    redist__plan_basis basis = {parent->comm, parent->type, parent->elsize, opt, parent};
    struct redist_plan_s *p = NULL;
    int err = redist__plan_new(&basis, local_err, NULL, &p);
    if (err != REDIST_SUCCESS)
        return err;
    return redist__plan_layouts(p, parent->algorithms, from, to, opt->algorithm, child);
}
