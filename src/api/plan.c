/* Plans: options, creation in three phases, child plans, statistics, release.
 *
 * 1. Local checks, with no early return: every rank computes its own status and the
 *    fingerprints of its arguments.
 * 2. One agreement step (agree.c): every rank learns the worst status, and whether every
 *    rank passed the same layouts, element size, algorithm and options (REDIST_ERR_MISMATCH
 *    naming the first that differs otherwise). From here on every rank takes the same
 *    branches.
 * 3. Setup: each rank builds its messages (pure pattern code); the ranks agree on the
 *    traffic (one more MPI_Allreduce, which also carries any failure so far); with the pair's
 *    shape that is the case every algorithm's rules read, the same on every rank; the
 *    algorithm is chosen from it (the registry's argmin for "auto"), then the transport, the
 *    buffers and the algorithm's own setup, and a last agreement makes a failure on one rank
 *    a failure on all.
 *
 * The plan owns a duplicate of the communicator (with MPI_ERRORS_RETURN), of the type, of the
 * layouts and of the options. Child plans (an algorithm's phases) skip phases 1 and 2: their
 * arguments come from a plan whose arguments were agreed.
 */
#include "api/api.h"
#include "exec/engine.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *algorithm_name(const redist_options *opt)
{
    return opt == NULL || opt->algorithm == NULL ? "auto" : opt->algorithm;
}

/* A flag option must be 0 or 1: other values are more likely a mix-up of fields than a
   request. */
static int check_flag(int value, const char *name)
{
    return value == 0 || value == 1
               ? REDIST_SUCCESS
               : redist__fail(REDIST_ERR_ARG, "%s = %d must be 0 or 1", name, value);
}

int redist__check_options(const redist_options *opt, int comm_size)
{
    if (opt == NULL)
        return REDIST_SUCCESS;
    int err = check_flag(opt->check_arguments, "check_arguments");
    if (err == REDIST_SUCCESS)
        err = check_flag(opt->shared_memory, "shared_memory");
    if (err == REDIST_SUCCESS)
        err = check_flag(opt->conjugate, "conjugate");
    if (err != REDIST_SUCCESS)
        return err;
    if (opt->transport < REDIST_TRANSPORT_AUTO || opt->transport > REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_ARG, "transport = %d is not a REDIST_TRANSPORT_* value",
                            opt->transport);
    if (opt->max_buffer_bytes < 0)
        return redist__fail(REDIST_ERR_ARG, "max_buffer_bytes = %lld is negative",
                            (long long)opt->max_buffer_bytes);
    if (opt->max_buffer_bytes > 0 && opt->transport == REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_ARG,
                            "max_buffer_bytes (bounded mode, packed chunks) and transport = "
                            "REDIST_TRANSPORT_DATATYPE exclude each other");
    if (redist__options_scale(opt) && opt->transport == REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_ARG,
                            "alpha, beta and conjugate are applied while unpacking: transport = "
                            "REDIST_TRANSPORT_DATATYPE (MPI unpacks) excludes them");
    return redist__check_algorithm_options(opt, comm_size);
}

/* The scaling the options ask of type (phase 1): float, double and their complex types;
   real ones with real alpha and beta. */
static int check_scaling(const redist_options *opt, MPI_Datatype type)
{
    if (!redist__options_scale(opt))
        return REDIST_SUCCESS;
    int kind = redist__scale_kind(type);
    if (kind == 0)
        return redist__fail(REDIST_ERR_ARG,
                            "alpha, beta and conjugate apply to float, double and their complex "
                            "types; other types only copy (alpha = 1, beta = 0)");
    if ((kind == REDIST__REAL4 || kind == REDIST__REAL8) &&
        (opt->alpha[1] != 0.0 || opt->beta[1] != 0.0))
        return redist__fail(REDIST_ERR_ARG,
                            "a real type with a complex alpha or beta (imaginary part not 0)");
    return REDIST_SUCCESS;
}

/* The plan's scaling from its (agreed) options and type; NULL scale: a copy. */
static void set_scaling(struct redist_plan_s *p, MPI_Datatype type)
{
    const redist_options *o = &p->opt;
    p->scale = NULL;
    int kind = redist__scale_kind(type);
    if (!redist__options_scale(o) || kind == 0)
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

void redist__fp_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist_options d; /* NULL options mean the defaults */
    redist_options_init(&d);
    const redist_options *o = opt != NULL ? opt : &d;
    redist__fp_add_string(fp, "algorithm", algorithm_name(opt));
    redist__fp_add(fp, "options.check_arguments", &o->check_arguments, sizeof(int));
    redist__fp_add(fp, "options.shared_memory", &o->shared_memory, sizeof(int));
    redist__fp_add(fp, "options.transport", &o->transport, sizeof(int));
    redist__fp_add(fp, "options.max_buffer_bytes", &o->max_buffer_bytes, sizeof(int64_t));
    redist__fp_add(fp, "options.alpha", o->alpha, sizeof o->alpha);
    redist__fp_add(fp, "options.beta", o->beta, sizeof o->beta);
    redist__fp_add(fp, "options.conjugate", &o->conjugate, sizeof o->conjugate);
    redist__fingerprint_algorithm_options(fp, o);
}

int redist__keep_options(const redist_options *opt, redist_options *kept, char **strings)
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

/* Phase 1: everything a rank can check alone. */
static int check_locally(redist_layout src, redist_layout dst, MPI_Datatype type, int rank,
                         int size, const redist_options *opt, redist_plan *plan, size_t *elsize)
{
    if (plan == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan: NULL output pointer");
    if (src == NULL || dst == NULL)
        return redist__fail(REDIST_ERR_ARG, "%s layout is NULL", src == NULL ? "src" : "dst");
    const char *name = algorithm_name(opt);
    if (strcmp(name, "auto") != 0 && redist__algorithm_by_name(name) == NULL)
        return redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    const int *perm = opt != NULL ? opt->permutation : NULL;
    int err =
        src->ndims == dst->ndims ? redist__check_permutation(src->ndims, perm) : REDIST_SUCCESS;
    if (err != REDIST_SUCCESS)
        return err;
    if (!redist__permuted_shape_matches(src, dst, perm))
        return redist__fail(REDIST_ERR_ARG,
                            perm ? "dst's extents are not src's permuted by options.permutation"
                                 : "src and dst describe different arrays (ndims or extents "
                                   "differ)");
    err = redist__check_options(opt, size);
    if (err != REDIST_SUCCESS)
        return err;
    if (src->max_rank >= size || dst->max_rank >= size)
        return redist__fail(REDIST_ERR_ARG,
                            "%s layout uses rank %d but the communicator has %d ranks",
                            src->max_rank >= size ? "src" : "dst",
                            src->max_rank >= size ? src->max_rank : dst->max_rank, size);
    err = redist__element_size(type, elsize);
    if (err == REDIST_SUCCESS)
        err = check_scaling(opt, type);
    if (err == REDIST_SUCCESS) /* this rank's padded local arrays (its own ld) */
        err = redist__check_ld(src, rank);
    if (err == REDIST_SUCCESS)
        err = redist__check_ld(dst, rank);
    if (err != REDIST_SUCCESS)
        return err;
    return redist__check_array_bytes(src, *elsize);
}

/* Fingerprints of everything that must be the same on every rank. */
static void arguments_fingerprints(redist_layout src, redist_layout dst, size_t elsize,
                                   const redist_options *opt, redist__fingerprints *fp)
{
    fp->n = 0;
    redist__fp_layout_pair(fp, src, dst);
    redist__fp_add(fp, "the element size of type", &elsize, sizeof elsize);
    redist__fp_options(fp, opt);
    const int *perm = opt != NULL ? opt->permutation : NULL;
    redist__fp_add(fp, "options.permutation", perm,
                   perm != NULL && src != NULL ? (size_t)src->ndims * sizeof *perm : 0);
}

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

/* Phase 3a: this rank's messages (pure, local). */
static int build_messages(struct redist_plan_s *p)
{
    p->src = redist__layout_copy(p->src);
    /* An axis permutation becomes a view of dst in the source's dimensions (permute.c); the
       plan's children then move between layouts of one numbering and get none. */
    p->dst = p->opt.permutation != NULL ? redist__layout_permuted(p->dst, p->opt.permutation)
                                        : redist__layout_copy(p->dst);
    p->opt.permutation = NULL;
    p->self = redist__calloc(1, sizeof *p->self);
    if (p->src == NULL || p->dst == NULL || p->self == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "plan");
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

/* The datatype transport: one committed type per message over the user's arrays. */
static int side_types(struct redist_plan_s *p, const redist__side *side, int use_dst,
                      MPI_Datatype **types)
{
    *types = redist__malloc((size_t)(side->nmsgs + 1) * sizeof **types);
    if (*types == NULL)
        return REDIST_ERR_NOMEM;
    for (int i = 0; i < side->nmsgs; i++)
        (*types)[i] = MPI_DATATYPE_NULL;
    for (int i = 0; i < side->nmsgs; i++) {
        int err = redist__message_type(&side->msgs[i], use_dst, p->type, p->elsize, &(*types)[i]);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* Phase 3d: pack buffers for the algorithms that pack (the shared-memory transport
   provides the send buffer itself), or datatypes for the datatype transport. */
static int allocate_buffers(struct redist_plan_s *p, int shm)
{
    if (p->transport == REDIST_TRANSPORT_DATATYPE) {
        int err = side_types(p, &p->send, 0, &p->send_types);
        return err != REDIST_SUCCESS ? err : side_types(p, &p->recv, 1, &p->recv_types);
    }
    if (!p->algo->packs || p->bounded) /* bounded mode: the strip engine's slots */
        return REDIST_SUCCESS;
    if (!shm)
        p->sendbuf = redist__plan_buffer(p, (size_t)p->send.total_elems * p->elsize + 1);
    if (shm || p->sendbuf != NULL)
        p->recvbuf = redist__plan_buffer(p, (size_t)p->recv.total_elems * p->elsize + 1);
    return (!shm && p->sendbuf == NULL) || p->recvbuf == NULL ? REDIST_ERR_NOMEM : REDIST_SUCCESS;
}

enum { CASE_VALS = 1 + REDIST__S_NVALS, MACHINE_VALS = REDIST__MACHINE_NPARAMS + 3 };

int redist__node_ranks(MPI_Comm comm)
{
    MPI_Comm node;
    int node_size = 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &node_size);
        MPI_Comm_free(&node);
    }
    if (node_size < 1) /* cannot tell: as if every rank were here (the smallest share) */
        MPI_Comm_size(comm, &node_size);
    return node_size;
}

/* How crowded this rank's node is: ranks of the plan on it (they share its memory), per
   core (at least 1), and whether the plan spans other nodes. A machine file holds one rank
   per core's costs (calibrate divides by its own load), a plan multiplies them by its
   node's: ranks that share a core take turns at every step, copy and message. Child plans
   take their parent's (their communicator has the same ranks). */
static void measure_node(struct redist_plan_s *p)
{
    p->node_ranks = redist__node_ranks(p->comm);
    p->node_load = redist__ranks_per_core(p->node_ranks);
    p->not_one_node = p->node_ranks < p->size;
}

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

static void load_to_values(const struct redist_plan_s *p, int64_t v[2])
{
    memcpy(&v[0], &p->node_load, sizeof p->node_load);
    v[1] = p->not_one_node;
}

static void machine_from_values(const int64_t v[MACHINE_VALS], redist__machine *m)
{
    for (int i = 0; i < REDIST__MACHINE_NPARAMS; i++)
        memcpy((char *)m + redist__machine_params()[i].offset, &v[i], sizeof(double));
    m->shared_node = (int)v[REDIST__MACHINE_NPARAMS];
}

/* Phase 3b: the case, from the traffic (MAX over ranks, carrying the status of 3a) and the
   pair's shape; the same allreduce agrees on the machine's parameters (each the largest any
   rank read: ranks with different machine files or environments still choose alike) and on
   the load of the most crowded node, which scales them. */
static int agree_on_case(struct redist_plan_s *p, int err)
{
    int64_t v[CASE_VALS + MACHINE_VALS] = {0};
    v[0] = -(int64_t)err;
    if (err == REDIST_SUCCESS)
        redist__traffic_local(&p->send, &p->recv, p->self, p->src_count, p->dst_count, p->elsize,
                              v + 1);
    machine_to_values(&p->machine_agreed, v + CASE_VALS);
    if (p->node_load == 0)
        measure_node(p);
    load_to_values(p, v + CASE_VALS + REDIST__MACHINE_NPARAMS + 1);
    if (MPI_Allreduce(MPI_IN_PLACE, v, CASE_VALS + MACHINE_VALS, MPI_INT64_T, MPI_MAX, p->comm) !=
        MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
    machine_from_values(v + CASE_VALS, &p->machine_agreed);
    /* the most crowded node sets the pace; one node: packed messages move through memory */
    memcpy(&p->node_load, &v[CASE_VALS + REDIST__MACHINE_NPARAMS + 1], sizeof p->node_load);
    p->not_one_node = (int)v[CASE_VALS + REDIST__MACHINE_NPARAMS + 2];
    p->machine_agreed.shared_node = !p->not_one_node;
    redist__machine_scale(&p->machine_agreed, p->node_load);
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

/* Phase 3c: the algorithm, from the case only (identical on every rank). */
static int choose_algorithm(struct redist_plan_s *p, const char *name)
{
    if (strcmp(name, "auto") == 0) {
        p->algo = redist__choose(&p->pair, p->machine, &p->opt);
        return p->algo ? REDIST_SUCCESS
                       : redist__fail(REDIST_ERR_NOT_APPLICABLE, "no algorithm applies");
    }
    const redist__algorithm *a = redist__algorithm_by_name(name);
    int err = redist__admit_forced(a, &p->pair, &p->opt);
    if (err == REDIST_SUCCESS)
        p->algo = a;
    return err;
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
    s->max_messages_per_rank = p->pair.t.max_sent_messages;
    s->max_bytes_per_rank = p->pair.t.max_sent_bytes;
    s->predicted_seconds = p->algo->predict(&p->pair, p->machine, &p->opt, p->transport);
    s->runs_per_period = redist__side_runs(&p->send) + redist__side_runs(&p->recv);
    s->transport = p->transport;
    s->shared_memory = p->shm != NULL;
    s->bounded = p->bounded;
    s->buffer_bytes = (int64_t)p->buffer_bytes + (p->shm != NULL ? p->shm_bytes : 0);
    if (p->bounded) { /* one peer at a time in the shift schedule's order */
        s->steps = p->pair.t.shift_steps;
        s->predicted_seconds = redist__strip_predict(&p->pair, p->machine, p->bound);
    }
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
    if (strcmp(name, "auto") == 0 && !p->algo->bounded) {
        redist_options o = p->opt;
        o.max_buffer_bytes = most;
        p->algo = redist__choose(&p->pair, p->machine, &o);
    }
    if (p->algo->bounded) {
        int64_t least = 0; /* the smallest bound any rank would take */
        bound = bound > 0 ? bound : most;
        if (MPI_Allreduce(&bound, &least, 1, MPI_INT64_T, MPI_MIN, p->comm) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
        if (least < 2 * (int64_t)p->elsize)
            return redist__fail_no_room(least);
        return set_bounded(p, least);
    }
    if ((p->algo->transports & REDIST__T_DATATYPE) && p->opt.transport == REDIST_TRANSPORT_AUTO &&
        p->pair.t.max_run_value <= REDIST__MAX_INT_COUNT && p->scale == NULL) {
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
    err = choose_algorithm(p, name);
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
    if (err == REDIST_SUCCESS)
        err = allocate_buffers(p, p->shm != NULL);
    if (err == REDIST_SUCCESS)
        err = p->algo->setup(p);
    err = redist__agree(p->comm, p->rank, err, NULL);
    return err == REDIST_SUCCESS ? fill_stats(p) : err;
}

/* Phase 3 of plan p (allocated on every rank, agreed) on dup, a private duplicate of the
   communicator, the arguments already agreed. */
static int create_agreed(struct redist_plan_s *p, redist_layout src, redist_layout dst,
                         MPI_Datatype type, MPI_Comm dup, int rank, int size, size_t elsize,
                         const redist_options *opt, redist_plan *plan)
{
    p->comm = dup;
    p->type = MPI_DATATYPE_NULL;
    p->rank = rank;
    p->size = size;
    p->elsize = elsize;
    p->src = src; /* replaced by private copies in build_messages */
    p->dst = dst;
    redist__machine_current(&p->machine_agreed, NULL, 0);
    p->machine = &p->machine_agreed;
    p->check_req = MPI_REQUEST_NULL;
    int err = redist__keep_options(opt, &p->opt, &p->opt_strings);
    p->check_arguments = p->opt.check_arguments;
    set_scaling(p, type);
    if (err == REDIST_SUCCESS && MPI_Type_dup(type, &p->type) != MPI_SUCCESS) {
        p->type = MPI_DATATYPE_NULL;
        err = redist__fail(REDIST_ERR_MPI, "MPI_Type_dup failed");
    }
    /* The duplicate committed (a no-op for a committed type): MPI cannot tell us whether the
       user's type was, and alltoallv hands the plan's type to MPI. */
    if (err == REDIST_SUCCESS && MPI_Type_commit(&p->type) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_MPI, "MPI_Type_commit failed");
    err = redist__agree(dup, rank, err, NULL);
    if (err == REDIST_SUCCESS)
        err = setup(p, algorithm_name(opt));
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

int redist__plan_prologue(MPI_Comm comm, redist_plan *plan, int *rank, int *size)
{
    redist__clear_error();
    if (plan != NULL)
        *plan = NULL;
    int inter = 0;
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    if (comm == MPI_COMM_NULL)
        return redist__fail(REDIST_ERR_ARG, "comm is MPI_COMM_NULL");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || MPI_Comm_size(comm, size) != 0 ||
        MPI_Comm_rank(comm, rank) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "comm is not a valid communicator");
    if (inter)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "intercommunicators are not supported yet");
    return REDIST_SUCCESS;
}

int redist_plan_create(redist_layout src, redist_layout dst, MPI_Datatype type, MPI_Comm comm,
                       const redist_options *opt, redist_plan *plan)
{
    int size = 0, rank = 0;
    int err = redist__plan_prologue(comm, plan, &rank, &size);
    if (err != REDIST_SUCCESS)
        return err;

    /* Phase 1. */
    size_t elsize = 0;
    err = check_locally(src, dst, type, rank, size, opt, plan, &elsize);
    redist__fingerprints fp;
    arguments_fingerprints(err == REDIST_SUCCESS ? src : NULL, err == REDIST_SUCCESS ? dst : NULL,
                           elsize, opt, &fp);

    /* Phase 2, on the private duplicate: its traffic never meets the user's. */
    MPI_Comm dup = MPI_COMM_NULL;
    if (redist__comm_dup(comm, &dup) != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    struct redist_plan_s *p = redist__calloc(1, sizeof *p);
    if (err == REDIST_SUCCESS && p == NULL)
        err = redist__fail(REDIST_ERR_NOMEM, "plan");
    err = redist__agree(dup, rank, err, &fp);
    if (err != REDIST_SUCCESS) {
        MPI_Comm_free(&dup);
        redist__free(p);
        return err;
    }
    return create_agreed(p, src, dst, type, dup, rank, size, elsize, opt, plan);
}

int redist__plan_create_child(const struct redist_plan_s *parent, redist_layout from,
                              redist_layout to, const redist_options *opt, int local_err,
                              redist_plan *child)
{
    *child = NULL;
    MPI_Comm dup = MPI_COMM_NULL;
    if (redist__comm_dup(parent->comm, &dup) != REDIST_SUCCESS) /* collective: fails everywhere */
        return REDIST_ERR_MPI;
    struct redist_plan_s *p = redist__calloc(1, sizeof *p);
    if (local_err == REDIST_SUCCESS && (p == NULL || from == NULL || to == NULL))
        local_err = redist__fail(REDIST_ERR_NOMEM, "child plan");
    int err = redist__agree(dup, parent->rank, local_err, NULL);
    if (err != REDIST_SUCCESS) {
        MPI_Comm_free(&dup);
        redist__free(p);
        return err;
    }
    p->node_load = parent->node_load;
    p->not_one_node = parent->not_one_node;
    p->node_ranks = parent->node_ranks;
    return create_agreed(p, from, to, parent->type, dup, parent->rank, parent->size, parent->elsize,
                         opt, child);
}

int redist_plan_free(redist_plan *plan)
{
    if (plan == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan: NULL pointer");
    if (*plan != NULL && redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI; /* its MPI objects are gone; freeing them would crash */
    if (*plan != NULL && (*plan)->active)
        redist_wait(*plan);
    redist__plan_destroy(*plan);
    *plan = NULL;
    return REDIST_SUCCESS;
}

int redist_plan_stats(redist_plan plan, redist_stats *stats)
{
    if (plan == NULL || stats == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan_stats: NULL argument");
    *stats = plan->stats;
    return REDIST_SUCCESS;
}

const char *redist_plan_algorithm(redist_plan plan)
{
    return plan != NULL && plan->algo != NULL ? plan->algo->name : NULL;
}
