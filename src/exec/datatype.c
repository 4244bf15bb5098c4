/* Derived datatypes describing one message over a local array, for the transports that let
 * MPI's datatype engine move the data (alltoallw, direct-async's datatype transport), and the
 * datatype transport's state: one such type per message of a plan.
 *
 * A message is levels of run groups (pattern.c). Level by level from the innermost, the
 * element type is resized to the level's stride, each run group becomes an hvector (count
 * replicas of len elements, period apart), and the groups of a level a struct at their
 * offsets; or, when the groups repeat equally often, one period's groups an hindexed type
 * repeated period by period (periods_type: MPI walks a type in its order). The type
 * signature is count x the element type, and both sides list the same elements in the same
 * order, so a sender's source type matches the receiver's destination type.
 */
#include "exec/engine.h"

#include <stdlib.h>

/* The type of one level's run groups over `unit` (one element of this level, already resized
   to the level's stride), in the message's order: run group by run group, each an hvector of
   its count replicas of len elements, period apart, the groups a struct at their offsets. */
static int groups_type(const redist__level *L, int use_dst, MPI_Datatype unit, MPI_Aint stride,
                       MPI_Datatype *out)
{
    int64_t n = L->nruns;
    MPI_Aint period = (MPI_Aint)(use_dst ? L->dst_period : L->src_period) * stride;
    MPI_Datatype *types = redist__malloc((size_t)n * sizeof *types);
    MPI_Aint *displs = redist__malloc((size_t)n * sizeof *displs);
    int *ones = redist__malloc((size_t)n * sizeof *ones);
    int rc = types && displs && ones ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    int made = 0;
    for (int64_t r = 0; rc == MPI_SUCCESS && r < n; r++) {
        const redist__run *run = &L->runs[r];
        displs[r] = (MPI_Aint)(use_dst ? run->dst_off : run->src_off) * stride;
        ones[r] = 1;
        rc = MPI_Type_create_hvector((int)run->count, (int)run->len, period, unit, &types[r]);
        made += rc == MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_struct((int)n, ones, displs, types, out);
    for (int i = 0; i < made; i++)
        MPI_Type_free(&types[i]);
    redist__free(types);
    redist__free(displs);
    redist__free(ones);
    return rc;
}

/* The same elements when the level's groups all repeat the same number of times (the order
   of the pack transport's tiles is no matter here: each side describes its own array, and
   both list the groups in the same order): MPI's engine walks a type in its order, and
   group by group strides through the whole array once per group (cyclic(2) -> cyclic(64):
   every cache line 16 times, 7x slower than packing). So one period's groups become one
   struct, repeated count times at the period's extent. The message's order is then period
   by period on both sides alike: only the types of this transport see it. NULL-out and
   MPI_SUCCESS when the counts differ (the struct of hvectors serves). */
static int periods_type(const redist__level *L, int use_dst, MPI_Datatype unit, MPI_Aint stride,
                        MPI_Datatype *out)
{
    int64_t n = L->nruns, count = n > 0 ? L->runs[0].count : 0;
    *out = MPI_DATATYPE_NULL;
    for (int64_t r = 1; r < n; r++)
        if (L->runs[r].count != count)
            return MPI_SUCCESS;
    if (n < 2 || count < 2)
        return MPI_SUCCESS;
    MPI_Aint period = (MPI_Aint)(use_dst ? L->dst_period : L->src_period) * stride;
    MPI_Aint *displs = redist__malloc((size_t)n * sizeof *displs);
    int *lens = redist__malloc((size_t)n * sizeof *lens);
    int rc = displs && lens ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int64_t r = 0; rc == MPI_SUCCESS && r < n; r++) {
        displs[r] = (MPI_Aint)(use_dst ? L->runs[r].dst_off : L->runs[r].src_off) * stride;
        lens[r] = (int)L->runs[r].len;
    }
    MPI_Datatype one = MPI_DATATYPE_NULL, spaced = MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_hindexed((int)n, lens, displs, unit, &one);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_create_resized(one, 0, period, &spaced);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_contiguous((int)count, spaced, out);
    if (one != MPI_DATATYPE_NULL)
        MPI_Type_free(&one);
    if (spaced != MPI_DATATYPE_NULL)
        MPI_Type_free(&spaced);
    redist__free(displs);
    redist__free(lens);
    return rc;
}

static int level_type(const redist__level *L, int use_dst, MPI_Datatype unit, MPI_Aint stride,
                      MPI_Datatype *out)
{
    int rc = periods_type(L, use_dst, unit, stride, out);
    return rc != MPI_SUCCESS || *out != MPI_DATATYPE_NULL
               ? rc
               : groups_type(L, use_dst, unit, stride, out);
}

/* The datatype of a message over the source (use_dst = 0) or destination local array. */
int redist__message_type(const redist__msg *m, int use_dst, MPI_Datatype elem, size_t es,
                         MPI_Datatype *out)
{
    MPI_Datatype inner = elem;
    int rc = MPI_SUCCESS;
    for (int l = m->nlevels - 1; rc == MPI_SUCCESS && l >= 0; l--) {
        const redist__level *L = &m->levels[l];
        MPI_Aint stride = (MPI_Aint)((use_dst ? L->dst_stride : L->src_stride) * (int64_t)es);
        MPI_Datatype unit, level;
        rc = MPI_Type_create_resized(inner, 0, stride, &unit);
        if (rc == MPI_SUCCESS) {
            rc = level_type(L, use_dst, unit, stride, &level);
            MPI_Type_free(&unit);
        }
        if (inner != elem)
            MPI_Type_free(&inner);
        inner = rc == MPI_SUCCESS ? level : elem;
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&inner);
    if (rc != MPI_SUCCESS && inner != elem)
        MPI_Type_free(&inner);
    *out = rc == MPI_SUCCESS ? inner : MPI_DATATYPE_NULL; /* never elem: the caller frees it */
    if (rc == MPI_ERR_NO_MEM)                             /* ours (the helpers' arrays) or MPI's */
        return redist__fail(REDIST_ERR_NOMEM, "building a message datatype");
    return rc == MPI_SUCCESS ? REDIST_SUCCESS
                             : redist__fail(REDIST_ERR_MPI, "building a message datatype");
}

/* One committed type per message of side (*types[i], MPI_DATATYPE_NULL where none was made). */
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

int redist__datatypes_setup(struct redist_plan_s *p)
{
    redist__datatypes *d = p->datatypes = redist__calloc(1, sizeof *p->datatypes);
    if (d == NULL)
        return REDIST_ERR_NOMEM;
    int err = side_types(p, &p->send, 0, &d->send);
    return err != REDIST_SUCCESS ? err : side_types(p, &p->recv, 1, &d->recv);
}

static void free_types(MPI_Datatype *t, int n)
{
    for (int i = 0; t != NULL && i < n; i++)
        if (t[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&t[i]);
    redist__free(t);
}

void redist__datatypes_free(struct redist_plan_s *p)
{
    if (p->datatypes == NULL)
        return;
    free_types(p->datatypes->send, p->send.nmsgs);
    free_types(p->datatypes->recv, p->recv.nmsgs);
    redist__free(p->datatypes);
    p->datatypes = NULL;
}
