/* The table of redistribution algorithms (FFTW's solver list, PETSc's SF types): each
 * algorithm lives in its own file under src/sched/ behind redist__algorithm; this table
 * names them, and "auto" picks the cheapest applicable one under the cost model. */
#include "internal.h"

#include <string.h>

static const redist__algorithm *const table[] = {
    NULL, /* "auto" */
    &redist__algo_direct_async,
    &redist__algo_direct,
    &redist__algo_alltoallv,
    &redist__algo_alltoallw,
    &redist__algo_indirect,
    &redist__algo_hybrid,
    &redist__algo_alltoall_padded,
    &redist__algo_multiphase,
    &redist__algo_general,
    &redist__algo_ky_to_y,
    &redist__algo_x_to_kx,
    &redist__algo_gcd,
    &redist__algo_lcm,
    &redist__algo_bmmc,
};
#define NALGOS ((int)(sizeof table / sizeof table[0]))

int redist_algorithm_count(void)
{
    return NALGOS;
}

const char *redist_algorithm_name(int i)
{
    if (i < 0 || i >= NALGOS)
        return NULL;
    return table[i] ? table[i]->name : "auto";
}

const redist__algorithm *redist__algorithm_by_name(const char *name)
{
    for (int i = 1; i < NALGOS; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

/* The first simple rule, pending the calibrated model: the cheapest prediction among the
   applicable algorithms, ties to the earlier entry. */
const redist__algorithm *redist__choose(const redist__summary *s)
{
    const redist__algorithm *best = NULL;
    double best_time = 0;
    for (int i = 1; i < NALGOS; i++) {
        if (table[i]->applicable(s) != REDIST_SUCCESS)
            continue;
        double t = redist__predict(table[i], s);
        if (best == NULL || t < best_time) {
            best = table[i];
            best_time = t;
        }
    }
    return best;
}
