/* The registry of redistribution algorithms (FFTW's solver list, PETSc's SF types): the one
 * place that lists them. Each lives in its own file behind redist__algorithm (exec.h) with
 * its rules, cost and options; "auto" is the argmin of their predictions, here. */
#include "algo/algo.h"

#include <string.h>

/* One line per algorithm, in the order of redist_algorithm_name (ties in auto go to the
   earlier): X(v) names the redist__algorithm redist__algo_v its file defines. */
#define REDIST__ALGORITHMS(X)                                                                      \
    X(direct_async)                                                                                \
    X(direct)                                                                                      \
    X(alltoallv)                                                                                   \
    X(alltoallw)                                                                                   \
    X(indirect)                                                                                    \
    X(hybrid)                                                                                      \
    X(alltoall_padded)                                                                             \
    X(multiphase)                                                                                  \
    X(general)                                                                                     \
    X(ky_to_y)                                                                                     \
    X(x_to_kx)                                                                                     \
    X(gcd)                                                                                         \
    X(lcm)                                                                                         \
    X(bmmc)                                                                                        \
    X(block_to_block)                                                                              \
    X(block_to_cyclic)                                                                             \
    X(cyclic_to_block)                                                                             \
    X(tk_to_k)                                                                                     \
    X(k_to_tk)

#define REDIST__DECLARE(v) extern const redist__algorithm redist__algo_##v;
REDIST__ALGORITHMS(REDIST__DECLARE)
#undef REDIST__DECLARE

#define REDIST__ENTRY(v) &redist__algo_##v,
static const redist__algorithm *const table[] = {REDIST__ALGORITHMS(REDIST__ENTRY)};
#undef REDIST__ENTRY
#define NALGOS ((int)(sizeof table / sizeof table[0]))

int redist__algorithms(const redist__algorithm *const **out)
{
    *out = table;
    return NALGOS;
}

/* The public list has "auto" first. */
int redist_algorithm_count(void)
{
    return NALGOS + 1;
}

const char *redist_algorithm_name(int i)
{
    if (i < 0 || i > NALGOS)
        return NULL;
    return i == 0 ? "auto" : table[i - 1]->name;
}

const redist__algorithm *redist__algorithm_by_name(const char *name)
{
    for (int i = 0; name != NULL && i < NALGOS; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

int redist__choose_transport(const redist__algorithm *a, const redist__case *c,
                             const redist__machine *m, const redist_options *opt, int requested)
{
    if ((opt->max_buffer_bytes > 0 && a->bounded) || redist__options_scale(opt))
        return REDIST_TRANSPORT_PACK; /* bounded mode packs chunks; scaling unpacks */
    int can_pack = (a->transports & REDIST__T_PACK) != 0;
    int can_datatype = (a->transports & REDIST__T_DATATYPE) != 0 &&
                       c->t.max_run_value <= REDIST__MAX_INT_COUNT; /* MPI's int counts */
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
    return a->predict(c, m, opt, redist__choose_transport(a, c, m, opt, REDIST_TRANSPORT_AUTO));
}

const redist__algorithm *redist__choose(const redist__case *c, const redist__machine *m,
                                        const redist_options *opt)
{
    const redist__algorithm *best = NULL;
    double best_time = 0;
    for (int i = 0; i < NALGOS; i++) {
        if (table[i]->applicable(c) != REDIST_SUCCESS ||
            (opt->max_buffer_bytes > 0 && !table[i]->bounded) ||
            (redist__options_scale(opt) && !redist__algo_scales(table[i])))
            continue;
        double t = redist__predict(table[i], c, m, opt);
        if (best == NULL || t < best_time) {
            best = table[i];
            best_time = t;
        }
    }
    return best;
}

int redist__admit_forced(const redist__algorithm *a, const redist__case *c,
                         const redist_options *opt)
{
    if (a->applicable(c) != REDIST_SUCCESS)
        return redist__fail(REDIST_ERR_NOT_APPLICABLE,
                            "algorithm '%s' cannot perform this redistribution", a->name);
    if (redist__options_scale(opt) && !redist__algo_scales(a))
        return redist__fail(REDIST_ERR_NOT_APPLICABLE,
                            "algorithm '%s' cannot scale (alpha, beta, conjugate) while it "
                            "places elements: %s",
                            a->name,
                            a->unscaled ? "it moves them as they are"
                                        : "it only has the datatype transport");
    if (opt->max_buffer_bytes > 0 && !a->bounded)
        return redist__fail(REDIST_ERR_NOT_APPLICABLE,
                            "algorithm '%s' cannot bound its buffers (max_buffer_bytes): "
                            "direct-async and the section algorithms can",
                            a->name);
    return REDIST_SUCCESS;
}

int redist__check_bound(int64_t bound, size_t elsize)
{
    if (bound < 2 * (int64_t)elsize)
        return redist__fail(REDIST_ERR_ARG,
                            "max_buffer_bytes = %lld is less than two elements of %zu bytes",
                            (long long)bound, elsize);
    return REDIST_SUCCESS;
}

int redist__check_algorithm_options(const redist_options *opt, int comm_size)
{
    redist_options defaults;
    redist_options_init(&defaults);
    const redist_options *o = opt != NULL ? opt : &defaults;
    for (int i = 0; i < NALGOS; i++) {
        int err = table[i]->check_options ? table[i]->check_options(o, comm_size) : REDIST_SUCCESS;
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* An option read by several algorithms is fingerprinted by the first: the same hook. */
void redist__fingerprint_algorithm_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist_options defaults;
    redist_options_init(&defaults);
    const redist_options *o = opt != NULL ? opt : &defaults;
    for (int i = 0; i < NALGOS; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = table[j]->fingerprint_options == table[i]->fingerprint_options;
        if (table[i]->fingerprint_options != NULL && !seen)
            table[i]->fingerprint_options(fp, o);
    }
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
