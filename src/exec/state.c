/* A plan's state that outlives its creation: its data buffers, its statistics and its
 * destruction (exec.h; redist_plan_stats, redist_plan_algorithm, redist_plan_free). */
#include "exec/exec.h"

#include <stdlib.h>

void *redist__plan_buffer(struct redist_plan_s *p, size_t bytes)
{
    double share = redist__memory_share(p->node_ranks), total = p->buffer_bytes + (double)bytes;
    if (total > share) {
        redist__fail(REDIST_ERR_NOMEM,
                     "%s needs buffers of more than %.3g GB per rank; a rank's share of its "
                     "node's %.3g GB is %.3g GB (%d ranks on the node)",
                     p->algo != NULL ? p->algo->name : "the plan", total / 1e9,
                     redist__memory_limit() / 1e9, share / 1e9,
                     p->node_ranks > 1 ? p->node_ranks : 1);
        return NULL;
    }
    void *b = redist__malloc(bytes);
    if (b != NULL)
        p->buffer_bytes = total;
    if (b != NULL) /* device plans: copies off and onto the device at the link's rate */
        redist__staging_pin(p, b, bytes);
    return b;
}

void redist__plan_destroy(struct redist_plan_s *p)
{
    if (p == NULL)
        return;
    redist__staging_close(p); /* first: it unpins buffers the algorithm frees */
    if (p->algo != NULL && p->algo->destroy != NULL)
        p->algo->destroy(p);
    redist__shm_free(p);
    redist__datatypes_free(p);
    redist__free(p->dry_src);
    redist__free(p->held_more);
    redist__free(p->dry_dst);
    redist__side_free(&p->send);
    redist__side_free(&p->recv);
    if (p->self != NULL) {
        redist__msg_free(p->self);
        redist__free(p->self);
    }
    redist__free(p->sendbuf);
    redist__free(p->recvbuf);
    redist_layout_free(&p->src);
    redist_layout_free(&p->dst);
    redist__node_map_free(p->nodes);
    redist__free(p->nodes);
    redist__free(p->opt_strings);
    if (p->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&p->type);
    if (p->comm != MPI_COMM_NULL)
        MPI_Comm_free(&p->comm);
    redist__free(p);
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
    stats->threads = plan->threads; /* every kind of plan, whoever filled the rest */
    stats->cores = plan->cores;
    return REDIST_SUCCESS;
}

const char *redist_plan_algorithm(redist_plan plan)
{
    return plan != NULL && plan->algo != NULL ? plan->algo->name : NULL;
}
