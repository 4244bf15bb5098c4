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
    char *dry_src, *dry_dst; /* scratch for a dry execution */
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
    free(s->dry_src);
    free(s->dry_dst);
    free(s);
    p->algo_state = NULL;
}

static int applicable(const redist__summary *s)
{
    return s->max_run_value <= REDIST__MAX_INT_COUNT ? REDIST_SUCCESS
                                                     : REDIST_ERR_NOT_APPLICABLE;
}

/* The type of one level's run groups: a struct of hvectors over `unit` (one element of
   this level, already resized to the level's stride). */
static int level_type(const redist__level *L, int use_dst, MPI_Datatype unit, MPI_Aint stride,
                      MPI_Datatype *out)
{
    int64_t n = L->nruns;
    MPI_Aint period = (MPI_Aint)(use_dst ? L->dst_period : L->src_period) * stride;
    MPI_Datatype *types = malloc((size_t)n * sizeof *types);
    MPI_Aint *displs = malloc((size_t)n * sizeof *displs);
    int *ones = malloc((size_t)n * sizeof *ones);
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
    free(types);
    free(displs);
    free(ones);
    return rc;
}

/* The datatype of a message over the source (use_dst = 0) or destination local array. */
static int message_type(const redist__msg *m, int use_dst, MPI_Datatype elem, size_t es,
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
    *out = inner;
    return rc == MPI_SUCCESS ? REDIST_SUCCESS
                             : redist__fail(REDIST_ERR_MPI, "building a message datatype");
}

static int side_types(struct redist_plan_s *p, const redist__side *side, int use_dst,
                      int *counts, MPI_Datatype *types)
{
    for (int i = 0; i < side->nmsgs; i++) {
        int peer = side->msgs[i].peer;
        int err = message_type(&side->msgs[i], use_dst, p->type, p->elsize, &types[peer]);
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

/* A dry execution must still move the right amount of data, so it reads and writes
   scratch arrays instead of the user's (an error path: allocating here is fine). */
static int dry_buffers(struct redist_plan_s *p, state *s, const char **src, char **dst)
{
    free(s->dry_src);
    free(s->dry_dst);
    s->dry_src = calloc((size_t)p->src_count + 1, p->elsize);
    s->dry_dst = malloc(((size_t)p->dst_count + 1) * p->elsize);
    if (s->dry_src == NULL || s->dry_dst == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "scratch buffers for a failed execute");
    *src = s->dry_src;
    *dst = s->dry_dst;
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    static char empty;
    const char *src = p->cur_src ? p->cur_src : &empty;
    char *dst = p->cur_dst ? p->cur_dst : &empty;
    if (p->dry) {
        int err = dry_buffers(p, s, &src, &dst);
        if (err != REDIST_SUCCESS)
            return err;
    }
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
