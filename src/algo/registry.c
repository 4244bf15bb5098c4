/* The registry of redistribution algorithms (FFTW's solver list, PETSc's SF types): the one
 * place that lists them. Each lives in its own file behind redist__algorithm (exec.h) with
 * its rules, cost and options; the planner (src/planner/) chooses among them through the
 * table handed to it here ("auto": the argmin of their predictions). */
#include "algo/algo.h"

#include <string.h>

/* One line per algorithm, in the order of redist_algorithm_name (ties in auto go to the
   earlier): X(v) names the redist__algorithm redist__algo_v its file defines. */
#define REDIST__ALGORITHMS(X)                                                                      \
    X(direct_async)                                                                                \
    X(direct)                                                                                      \
    X(alltoallv)                                                                                   \
    X(alltoallw)                                                                                   \
    X(reduce_direct)                                                                               \
    X(reduce_allgather)                                                                            \
    X(scatter_allgather)                                                                           \
    X(node_aware)                                                                                  \
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

const redist__algorithm_table *redist__registry(void)
{
    static const redist__algorithm_table registry = {table, NALGOS};
    return &registry;
}

const redist__algorithm *redist__algorithm_by_name(const char *name)
{
    return redist__table_find(redist__registry(), name);
}

const redist__algorithm *redist__choose(const redist__case *c, const redist__machine *m,
                                        const redist_options *opt)
{
    return redist__choose_from(redist__registry(), c, m, opt);
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
