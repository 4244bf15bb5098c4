/* How the planner chooses (planner.h): the one rule of use (redist__algo_usable), an
 * algorithm from the table handed to it ("auto" is the argmin of the predictions among the
 * usable ones), the transport, and the bounds of bounded mode. Pure: every rule reads the
 * case, which is the same on every rank, so every rank chooses alike; explain
 * (algo/explain.c) asks the same functions, so that it refuses and chooses as a plan does. */
#include "device/device.h"
#include "planner/planner.h"

#include <string.h>

const redist__algorithm *redist__table_find(const redist__algorithm_table *t, const char *name)
{
    for (int i = 0; name != NULL && i < t->count; i++)
        if (strcmp(t->entries[i]->name, name) == 0)
            return t->entries[i];
    return NULL;
}

int redist__can_datatype(const redist__algorithm *a, const redist__case *c,
                         const redist_options *opt)
{
    return (a->transports & REDIST__T_DATATYPE) != 0 && !redist__options_scale(opt) &&
           c->t.max_run_value <= REDIST__MAX_INT_COUNT; /* MPI's int counts */
}

int redist__choose_transport(const redist__algorithm *a, const redist__case *c,
                             const redist__machine *m, const redist_options *opt, int requested)
{
    if ((opt->max_buffer_bytes > 0 && a->bounded) || redist__options_scale(opt) ||
        opt->memory != REDIST_MEMORY_HOST)
        return REDIST_TRANSPORT_PACK; /* bounded mode packs chunks; scaling unpacks; MPI
                                         cannot read device memory */
    int can_pack = (a->transports & REDIST__T_PACK) != 0;
    int can_datatype = redist__can_datatype(a, c, opt);
    if (!can_datatype || (requested == REDIST_TRANSPORT_PACK && can_pack))
        return can_pack ? REDIST_TRANSPORT_PACK : REDIST_TRANSPORT_DATATYPE;
    if (!can_pack || requested == REDIST_TRANSPORT_DATATYPE)
        return REDIST_TRANSPORT_DATATYPE;
    return a->predict(c, m, opt, REDIST_TRANSPORT_DATATYPE) <
                   a->predict(c, m, opt, REDIST_TRANSPORT_PACK)
               ? REDIST_TRANSPORT_DATATYPE
               : REDIST_TRANSPORT_PACK;
}

double redist__predict(const redist__algorithm *a, const redist__case *c, const redist__machine *m,
                       const redist_options *opt)
{
    int transport = redist__choose_transport(a, c, m, opt, REDIST_TRANSPORT_AUTO);
    return a->predict(c, m, opt, transport) +
           redist__cost_agreement(c, m, redist__agreements(opt)) +
           redist__predict_staging(a, c, m, opt, transport, 1);
}

int redist__agreements(const redist_options *opt)
{
    return !opt->check_arguments ? 0 : opt->memory != REDIST_MEMORY_HOST ? 2 : 1;
}

double redist__predict_staging(const redist__algorithm *a, const redist__case *c,
                               const redist__machine *m, const redist_options *opt, int transport,
                               int window)
{
    if (opt->memory == REDIST_MEMORY_HOST)
        return 0.0;
    return redist__cost_staging(&c->t, m, redist__device_stage_bytes(opt->max_buffer_bytes),
                                redist__staged_share(a, c, m, opt, transport, window));
}

int redist__device_ipc_asked(const redist_options *opt)
{
    return opt->memory == REDIST_MEMORY_CUDA && opt->shared_memory &&
           redist__device_ipc_policy() != REDIST__IPC_OFF;
}

/* Its messages on the node go through the shared-memory window (packed, not bounded). */
static int through_window(const redist__algorithm *a, const redist_options *opt, int transport,
                          int window)
{
    return window && a->uses_shm && opt->shared_memory && opt->max_buffer_bytes <= 0 &&
           transport == REDIST_TRANSPORT_PACK;
}

int redist__staging_pulled(const redist__algorithm *a, const redist__machine *m,
                           const redist_options *opt, int transport, int window)
{
    return opt->memory != REDIST_MEMORY_HOST && m->device_ipc &&
           through_window(a, opt, transport, window);
}

int redist__staging_gpu_mpi(const redist__algorithm *a, const redist__machine *m,
                            const redist_options *opt, int transport)
{
    return opt->memory != REDIST_MEMORY_HOST && m->gpu_mpi && a->gpu_mpi &&
           opt->max_buffer_bytes <= 0 && transport == REDIST_TRANSPORT_PACK;
}

double redist__staged_share(const redist__algorithm *a, const redist__case *c,
                            const redist__machine *m, const redist_options *opt, int transport,
                            int window)
{
    const redist__node_traffic *n = &c->t.n;
    double P = (double)c->t.comm_size, k = (double)n->ranks_per_node;
    double on = n->nodes <= 1 || P <= 1.0 ? 1.0 : (k - 1.0) / (P - 1.0);
    int gpu_mpi = redist__staging_gpu_mpi(a, m, opt, transport);
    int on_direct = through_window(a, opt, transport, window)
                        ? redist__staging_pulled(a, m, opt, transport, window)
                        : gpu_mpi;
    return on * !on_direct + (1.0 - on) * !gpu_mpi;
}

int redist__algo_usable(const redist__algorithm *a, const redist__case *c,
                        const redist_options *opt, const char **why)
{
    const char *reason = NULL;
    if (a->applicable(c) != REDIST_SUCCESS)
        reason = a->why_not != NULL ? a->why_not : "cannot perform this redistribution";
    else if (c->s.reduce && !a->reduces)
        reason = "cannot reduce partial sums (options.reduce): it sends each element once; "
                 "reduce-direct reduces them";
    else if (redist__options_scale(opt) && !redist__algo_scales(a))
        reason = a->unscaled ? "cannot scale (alpha, beta, conjugate) while it places elements: "
                               "it moves them as they are"
                             : "cannot scale (alpha, beta, conjugate) while it places elements: "
                               "it only has the datatype transport";
    else if (opt->memory != REDIST_MEMORY_HOST && !a->device)
        reason = "cannot move device memory (options.memory): it reads the arrays on the host "
                 "or lets MPI read them; direct-async, direct, alltoallv, alltoall-padded, "
                 "indirect, hybrid and the section algorithms can";
    else if (opt->max_buffer_bytes > 0 && !a->bounded)
        reason = "cannot bound its buffers (max_buffer_bytes): direct-async and the section "
                 "algorithms can";
    if (why != NULL)
        *why = reason;
    return reason == NULL ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

const redist__algorithm *redist__choose_from(const redist__algorithm_table *t,
                                             const redist__case *c, const redist__machine *m,
                                             const redist_options *opt)
{
    const redist__algorithm *best = NULL;
    double best_time = 0;
    for (int i = 0; i < t->count; i++) {
        const redist__algorithm *a = t->entries[i];
        if (redist__algo_usable(a, c, opt, NULL) != REDIST_SUCCESS)
            continue;
        double time = redist__predict(a, c, m, opt);
        /* Predictions within rounding of each other are a tie (the same terms summed in
           another order), which the registry's order breaks: the choice must not flip with
           the last bit when a plan's node load scales every term (explain = plan). */
        if (best == NULL || time < best_time * (1.0 - 1e-12)) {
            best = a;
            best_time = time;
        }
    }
    return best;
}

int redist__admit_forced(const redist__algorithm *a, const redist__case *c,
                         const redist_options *opt, const char **why)
{
    const char *reason = NULL;
    int err = redist__algo_usable(a, c, opt, &reason);
    if (why != NULL)
        *why = reason;
    if (err != REDIST_SUCCESS)
        return redist__fail(REDIST_ERR_NOT_APPLICABLE, "algorithm '%s' %s", a->name, reason);
    return REDIST_SUCCESS;
}

int redist__choose_algorithm(const redist__algorithm_table *t, const char *name,
                             const redist__case *c, const redist__machine *m,
                             const redist_options *opt, const redist__algorithm **out,
                             const char **why)
{
    static const char none_usable[] = "no algorithm applies";
    *out = NULL;
    if (why != NULL)
        *why = NULL;
    if (name == NULL || strcmp(name, "auto") == 0) {
        *out = redist__choose_from(t, c, m, opt);
        if (*out != NULL)
            return REDIST_SUCCESS;
        if (why != NULL)
            *why = none_usable;
        /* the reason of the first that could do the pair but for an option (partial sums:
           the first that reduces), so that the detail says which option stood in the way */
        for (int i = 0; i < t->count; i++) {
            const redist__algorithm *a = t->entries[i];
            const char *reason = NULL;
            if (a->applicable(c) != REDIST_SUCCESS || (c->s.reduce && !a->reduces) ||
                redist__algo_usable(a, c, opt, &reason) == REDIST_SUCCESS || reason == NULL)
                continue;
            return redist__fail(REDIST_ERR_NOT_APPLICABLE, "%s (%s %s)", none_usable, a->name,
                                reason);
        }
        return redist__fail(REDIST_ERR_NOT_APPLICABLE, "%s", none_usable);
    }
    const redist__algorithm *a = redist__table_find(t, name);
    if (a == NULL)
        return redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    int err = redist__admit_forced(a, c, opt, why);
    if (err == REDIST_SUCCESS)
        *out = a;
    return err;
}

const redist__algorithm *redist__choose_bounded(const redist__algorithm_table *t,
                                                const redist__algorithm *a, int auto_chosen,
                                                const redist__case *c, const redist__machine *m,
                                                const redist_options *opt, int64_t bound,
                                                int *bounded)
{
    redist_options o = *opt;
    o.max_buffer_bytes = bound;
    if (auto_chosen && redist__algo_usable(a, c, &o, NULL) != REDIST_SUCCESS) {
        const redist__algorithm *b = redist__choose_from(t, c, m, &o); /* direct-async can */
        a = b != NULL ? b : a;
    }
    *bounded = redist__algo_usable(a, c, &o, NULL) == REDIST_SUCCESS;
    return a;
}

int redist__check_bound(int64_t bound, size_t elsize)
{
    if (bound < 2 * (int64_t)elsize)
        return redist__fail(REDIST_ERR_ARG,
                            "max_buffer_bytes = %lld is less than two elements of %zu bytes",
                            (long long)bound, elsize);
    return REDIST_SUCCESS;
}

int64_t redist__default_buffer_bytes(const redist__case *c, const redist__algorithm *a,
                                     int transport)
{
    if (!a->packs || transport != REDIST_TRANSPORT_PACK)
        return 0;
    return c->t.max_packed * (int64_t)c->t.elsize;
}

int redist__fail_no_room(int64_t bound)
{
    return redist__fail(REDIST_ERR_NOMEM,
                        "not even bounded mode fits: its buffers would get %lld bytes per rank, "
                        "a sixteenth of a rank's share of its node's memory",
                        (long long)bound);
}

int64_t redist__fallback_bound(const redist__case *c, const redist__algorithm *a, int transport,
                               int node_ranks)
{
    if (!a->packs || transport != REDIST_TRANSPORT_PACK)
        return 0;
    double need = 2.0 * (double)c->t.max_buffer * (double)c->t.elsize,
           share = redist__memory_share(node_ranks);
    if (need <= share)
        return 0;
    int64_t bound = (int64_t)(share / 16), most = (int64_t)64 << 20;
    if (bound < 1) /* still "does not fit": the caller finds it below two elements */
        bound = 1;
    return bound < most ? bound : most;
}
