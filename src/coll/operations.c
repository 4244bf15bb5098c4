/* The operations' tables (each operation's file defines its own) and the public queries over
 * them: the names an operation accepts and the slides' predicted cost ([GGKK03]). */
#include "coll/coll.h"

#include <string.h>

static const redist__coll_table *const operations[] = {
    &redist__coll_table_bcast,     &redist__coll_table_reduce,
    &redist__coll_table_allreduce, &redist__coll_table_scan,
    &redist__coll_table_scatter,   &redist__coll_table_gather,
    &redist__coll_table_allgather, &redist__coll_table_reduce_scatter,
    &redist__coll_table_alltoall,  &redist__coll_table_shift,
};

static const redist__coll_table *operation_table(const char *operation)
{
    for (size_t i = 0; operation != NULL && i < sizeof operations / sizeof operations[0]; i++)
        if (strcmp(operations[i]->operation, operation) == 0)
            return operations[i];
    return NULL;
}

const char *redist_coll_algorithm_name(const char *operation, int i)
{
    const redist__coll_table *t = operation_table(operation);
    return t != NULL && i >= 0 && i < t->n ? t->algos[i]->name : NULL;
}

int redist_coll_predict(const char *operation, const char *algorithm, int p, double m, double ts,
                        double tw, double *seconds, const char **chosen)
{
    const redist__coll_table *t = operation_table(operation);
    if (t == NULL)
        return redist__fail(REDIST_ERR_ARG, "unknown operation '%s'",
                            operation ? operation : "(null)");
    if (p < 1 || !(m >= 0) || !(ts >= 0) || !(tw >= 0) || seconds == NULL)
        return redist__fail(REDIST_ERR_ARG, "predict: p >= 1, m, ts, tw >= 0 and seconds needed");
    int err = REDIST_SUCCESS;
    /* No nodes here: p ranks on one node, where auto never picks node-aware. */
    redist__coll_shape s = redist__coll_shape_one(p, ts, tw);
    int i = redist__coll_pick_shape(t->algos, t->n, algorithm, &s, m, &err);
    if (i < 0)
        return err;
    *seconds = t->algos[i]->cost(&s, m);
    if (chosen != NULL)
        *chosen = t->algos[i]->name;
    return REDIST_SUCCESS;
}
