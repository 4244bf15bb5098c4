/* alltoallv: the MPI baseline with packing. Pack every message into one send buffer in
 * peer order, one MPI_Alltoallv (nonblocking: MPI_Ialltoallv) with counts in elements of
 * the plan's type, unpack everything. The self part is copied directly, not sent.
 * One collective step; its cost is whatever the MPI library's algorithm costs. Modelled as
 * Open MPI's default, which touches every peer, on top of our packing
 * (redist__alltoall_predict):
 *   T_d + (P - 1) t_msg + the moves of the packing transport (redist__cost_moves: packing,
 *   unpacking and MPI's B tau_d, B the most bytes a rank sends or receives). Counts and
 * displacements must fit in int: NOT_APPLICABLE otherwise.
 */
#include "exec/engine.h"

static int applicable(const redist__case *c)
{
    return c->t.max_buffer <= REDIST__MAX_INT_COUNT ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static void fill_counts(const redist__side *side, int *counts, int *displs)
{
    for (int i = 0; i < side->nmsgs; i++) {
        counts[side->msgs[i].peer] = (int)side->msgs[i].nelems;
        displs[side->msgs[i].peer] = (int)side->msgs[i].offset;
    }
}

static int setup(struct redist_plan_s *p)
{
    redist__alltoall_state *s;
    int err = redist__alltoall_state_create(p, 0, &s);
    if (err != REDIST_SUCCESS)
        return err;
    fill_counts(&p->send, s->arrays.scounts, s->arrays.sdispls);
    fill_counts(&p->recv, s->arrays.rcounts, s->arrays.rdispls);
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    redist__alltoall_state *s = p->algo_state;
    const redist__rank_arrays *a = &s->arrays;
    for (int i = 0; !p->dry && i < p->send.nmsgs; i++) {
        const redist__msg *m = &p->send.msgs[i];
        redist__par_move(p, REDIST__PACK, m, p->cur_src,
                         p->sendbuf + m->offset * (int64_t)p->elsize);
    }
    redist__copy_self(p);
    if (MPI_Ialltoallv(p->sendbuf, a->scounts, a->sdispls, p->type, p->recvbuf, a->rcounts,
                       a->rdispls, p->type, p->comm, &s->req) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Ialltoallv failed");
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    redist__alltoall_state *s = p->algo_state;
    int err = redist__progress_request(&s->req, blocking, done, "MPI_Ialltoallv");
    for (int i = 0; err == REDIST_SUCCESS && *done && i < p->recv.nmsgs; i++)
        redist__finish_recv(p, i, NULL); /* no shared memory here: never acknowledges */
    return err;
}

const redist__algorithm redist__algo_alltoallv = {
    .name = "alltoallv",
    .applicable = applicable,
    .why_not = "needs every rank's send and receive volume below 2^31 elements (MPI_Alltoallv's "
               "int counts and displacements)",
    .steps = redist__one_step,
    .predict = redist__alltoall_predict,
    .transports = REDIST__T_PACK,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = redist__alltoall_state_destroy,
    .packs = 1,
    .device = 1,
};
