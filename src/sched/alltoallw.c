/* alltoallw: the MPI baseline without packing by us. Each message becomes a derived
 * datatype over the user's array (nested hvector/struct types built from the run groups,
 * level by level, with extents resized to the dimension's stride) and one MPI_Alltoallw
 * (nonblocking: MPI_Ialltoallw) moves everything; MPI's datatype engine packs. The self
 * part is copied directly. One collective step. Run lengths and counts must fit in int:
 * NOT_APPLICABLE otherwise.
 */
#include "common.h"

#include <stdlib.h>

typedef struct state {
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype *stypes, *rtypes;
    MPI_Request req;
} state;

static void free_types(MPI_Datatype *t, int n)
{
    for (int i = 0; t != NULL && i < n; i++)
        if (t[i] != MPI_BYTE && t[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&t[i]);
    free(t);
}

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    free(s->scounts);
    free(s->sdispls);
    free(s->rcounts);
    free(s->rdispls);
    free_types(s->stypes, p->size);
    free_types(s->rtypes, p->size);
    free(s);
    p->algo_state = NULL;
}

static int applicable(const redist__summary *s)
{
    return s->max_run_value <= REDIST__MAX_INT_COUNT ? REDIST_SUCCESS
                                                     : REDIST_ERR_NOT_APPLICABLE;
}

static int side_types(struct redist_plan_s *p, const redist__side *side, int use_dst,
                      int *counts, MPI_Datatype *types)
{
    for (int i = 0; i < side->nmsgs; i++) {
        int peer = side->msgs[i].peer;
        int err = redist__message_type(&side->msgs[i], use_dst, p->type, p->elsize, &types[peer]);
        if (err != REDIST_SUCCESS) {
            types[peer] = MPI_BYTE;
            return err;
        }
        counts[peer] = 1;
    }
    return REDIST_SUCCESS;
}

static int setup(struct redist_plan_s *p)
{
    state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    size_t n = (size_t)p->size;
    s->scounts = calloc(n, sizeof(int));
    s->sdispls = calloc(n, sizeof(int));
    s->rcounts = calloc(n, sizeof(int));
    s->rdispls = calloc(n, sizeof(int));
    s->stypes = malloc(n * sizeof(MPI_Datatype));
    s->rtypes = malloc(n * sizeof(MPI_Datatype));
    if (!s->scounts || !s->sdispls || !s->rcounts || !s->rdispls || !s->stypes || !s->rtypes)
        return REDIST_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        s->stypes[i] = s->rtypes[i] = MPI_BYTE;
    s->req = MPI_REQUEST_NULL;
    int err = side_types(p, &p->send, 0, s->scounts, s->stypes);
    return err != REDIST_SUCCESS ? err : side_types(p, &p->recv, 1, s->rcounts, s->rtypes);
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    static char empty;
    const char *src = p->cur_src ? p->cur_src : &empty;
    char *dst = p->cur_dst ? p->cur_dst : &empty;
    redist__copy_self(p);
    if (MPI_Ialltoallw(src, s->scounts, s->sdispls, s->stypes, dst, s->rcounts, s->rdispls,
                       s->rtypes, p->comm, &s->req) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Ialltoallw failed");
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    int complete = 1;
    int rc = blocking ? MPI_Wait(&s->req, MPI_STATUS_IGNORE)
                      : MPI_Test(&s->req, &complete, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Ialltoallw completion failed");
    *done = complete;
    return REDIST_SUCCESS;
}

const redist__algorithm redist__algo_alltoallw = {
    .name = "alltoallw",
    .applicable = applicable,
    .steps = redist__one_step,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
};
