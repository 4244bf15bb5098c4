/* alltoallw: the MPI baseline without packing by us. Each message is a derived datatype
 * over the user's array (the plan's datatype transport, datatype.c) and one MPI_Alltoallw
 * (nonblocking: MPI_Ialltoallw) moves everything; MPI's datatype engine packs. The self
 * part is copied directly. One collective step, modelled as touching every peer
 * (redist__alltoall_predict):
 *   T_d + (P - 1) t_msg + the moves of the datatype transport (redist__cost_moves).
 * Run lengths and counts must fit in int: NOT_APPLICABLE otherwise.
 */
#include "exec/engine.h"

static int applicable(const redist__case *c)
{
    return c->t.max_run_value <= REDIST__MAX_INT_COUNT ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

/* Spreads the plan's per-message types over the per-rank arrays of MPI_Alltoallw. */
static void by_rank(const redist__side *side, const MPI_Datatype *msg_types, int *counts,
                    MPI_Datatype *types)
{
    for (int i = 0; i < side->nmsgs; i++) {
        counts[side->msgs[i].peer] = 1;
        types[side->msgs[i].peer] = msg_types[i];
    }
}

static int setup(struct redist_plan_s *p)
{
    redist__alltoall_state *s;
    int err = redist__alltoall_state_create(p, 1, &s);
    if (err != REDIST_SUCCESS)
        return err;
    by_rank(&p->send, p->datatypes->send, s->arrays.scounts, s->arrays.stypes);
    by_rank(&p->recv, p->datatypes->recv, s->arrays.rcounts, s->arrays.rtypes);
    return REDIST_SUCCESS;
}

/* Open MPI's nonblocking collectives (libnbc's NBC_IN_PLACE) take sendbuf == recvbuf for
   MPI_IN_PLACE and then run another schedule than the ranks that pass two arrays: the
   ranks' messages no longer match and a later execute hangs. So a rank never passes one
   address twice: an empty side (NULL, or the other side's pointer on a rank that holds
   nothing there) gets its own stand-in. */
static void distinct_buffers(const struct redist_plan_s *p, const char **src, char **dst)
{
    static char empty_src, empty_dst;
    if (*src == NULL || (p->src_count == 0 && *src == *dst))
        *src = &empty_src;
    if (*dst == NULL || (p->dst_count == 0 && *src == *dst))
        *dst = &empty_dst;
}

static int start(struct redist_plan_s *p)
{
    redist__alltoall_state *s = p->algo_state;
    const redist__rank_arrays *a = &s->arrays;
    const char *src = p->cur_src;
    char *dst = p->cur_dst;
    distinct_buffers(p, &src, &dst);
    redist__copy_self(p);
    if (MPI_Ialltoallw(src, a->scounts, a->sdispls, a->stypes, dst, a->rcounts, a->rdispls,
                       a->rtypes, p->comm, &s->req) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Ialltoallw failed");
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    redist__alltoall_state *s = p->algo_state;
    return redist__progress_request(&s->req, blocking, done, "MPI_Ialltoallw");
}

const redist__algorithm redist__algo_alltoallw = {
    .name = "alltoallw",
    .applicable = applicable,
    .why_not = "needs every run length and run count below 2^31 (MPI_Alltoallw's int counts)",
    .steps = redist__one_step,
    .predict = redist__alltoall_predict,
    .transports = REDIST__T_DATATYPE,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = redist__alltoall_state_destroy,
};
