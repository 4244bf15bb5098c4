/* bmmc: performing a BMMC permutation with MPI (paper 003 §5), and redist_plan_create_bmmc.
 *
 * The plan factors once (factor.c: A = V W, §4); each execute runs the intraprocessor pass
 * (W, into a scratch array in Gray-code order) and then 2^rank(λ) rounds (Lemma 3): in round
 * r every processor sends one contiguous block of N/(2^rank P) elements to target(r) and
 * receives one from source(r), each round a permutation of the processors, and places the
 * received elements at their final offsets. No indices travel: both ends know every bit of
 * every element's index. Communication by MPI_Sendrecv_replace as in the paper (the default),
 * MPI_Sendrecv into a second buffer, or one MPI_Alltoallv for all rounds (option bmmc_method).
 * Cost: 2^rank (T_d + N/(2^rank P) b tau_d) less the self round, plus two local copies.
 *
 * The same machinery serves redist_plan_create when a block-cyclic redistribution is a bit
 * permutation (1-D, N, P and both blocks powers of two, one process set): cyclic(2^f1) is the
 * BMMC layout f1, and cyclic(2^f1) -> cyclic(2^f2) is y = Q_f1^-1 Q_f2 x in layout f1.
 */
#include "internal.h"
#include "exec/engine.h"
#include "bmmc/factor.h"

#include <stdlib.h>
#include <string.h>

typedef struct bmmc_state {
    redist__bmmc_plan plan;
    uint64_t me;      /* this rank's processor number, or UINT64_MAX if it holds nothing */
    const int *ranks; /* processor -> communicator rank (NULL: the identity) */
    int method;
    char *temp, *recvbuf; /* N/P elements each (recvbuf: the Sendrecv variant) */
    int *scounts, *sdispls, *rcounts, *rdispls; /* the Alltoallv variant, in bytes */
} bmmc_state;

static int rank_of(const bmmc_state *s, uint64_t k)
{
    return s->ranks ? s->ranks[k] : (int)k;
}

static void destroy(struct redist_plan_s *p)
{
    bmmc_state *s = p->algo_state;
    if (s == NULL)
        return;
    free(s->temp);
    free(s->recvbuf);
    free(s->scounts);
    free(s->sdispls);
    free(s->rcounts);
    free(s->rdispls);
    free(s);
    p->algo_state = NULL;
}

static int alloc_state(struct redist_plan_s *p, bmmc_state *s)
{
    size_t bytes = (size_t)redist__bmmc_local_count(&s->plan) * p->elsize + 1;
    s->temp = redist__plan_buffer(p, bytes);
    if (s->temp == NULL)
        return REDIST_ERR_NOMEM;
    if (s->method == 1 && (s->recvbuf = redist__plan_buffer(p, bytes)) == NULL)
        return REDIST_ERR_NOMEM;
    if (s->method == 2) {
        size_t n = (size_t)p->size;
        s->scounts = calloc(n, sizeof(int));
        s->sdispls = calloc(n, sizeof(int));
        s->rcounts = calloc(n, sizeof(int));
        s->rdispls = calloc(n, sizeof(int));
        if ((s->recvbuf = redist__plan_buffer(p, bytes)) == NULL || !s->scounts || !s->sdispls ||
            !s->rcounts || !s->rdispls)
            return REDIST_ERR_NOMEM;
        int64_t block = redist__bmmc_round_count(&s->plan) * (int64_t)p->elsize;
        for (int64_t r = 0; s->me != UINT64_MAX && r < redist__bmmc_rounds(&s->plan); r++) {
            int to = rank_of(s, redist__bmmc_target(&s->plan, s->me, r));
            int from = rank_of(s, redist__bmmc_source(&s->plan, s->me, r));
            s->scounts[to] = s->rcounts[from] = (int)block;
            s->sdispls[to] = s->rdispls[from] = (int)(r * block);
        }
    }
    return REDIST_SUCCESS;
}

/* One round: exchange the round's block (unless it stays here) and place it. */
static int round_exchange(struct redist_plan_s *p, bmmc_state *s, int64_t r)
{
    int64_t count = redist__bmmc_round_count(&s->plan), bytes = count * (int64_t)p->elsize;
    uint64_t to = redist__bmmc_target(&s->plan, s->me, r);
    uint64_t from = redist__bmmc_source(&s->plan, s->me, r);
    char *block = s->temp + r * bytes;
    const char *received = block;
    if (to != s->me) {
        int rc;
        if (s->method == 1) {
            rc = MPI_Sendrecv(block, (int)bytes, MPI_BYTE, rank_of(s, to), 7717, s->recvbuf,
                              (int)bytes, MPI_BYTE, rank_of(s, from), 7717, p->comm,
                              MPI_STATUS_IGNORE);
            received = s->recvbuf;
        } else {
            rc = MPI_Sendrecv_replace(block, (int)bytes, MPI_BYTE, rank_of(s, to), 7717,
                                      rank_of(s, from), 7717, p->comm, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "bmmc: round %lld failed", (long long)r);
    }
    if (!p->dry)
        redist__bmmc_place(&s->plan, s->me, r, from, received, p->cur_dst, p->elsize);
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    bmmc_state *s = p->algo_state;
    if (s->me != UINT64_MAX && !p->dry)
        redist__bmmc_intra(&s->plan, s->me, p->cur_src, s->temp, p->elsize);
    return REDIST_SUCCESS;
}

/* The rounds are blocking exchanges (the paper's MPI_Sendrecv_replace), so progress runs
   them all; test therefore completes the execution too. */
static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    (void)blocking;
    bmmc_state *s = p->algo_state;
    *done = 1;
    if (s->method == 2) { /* every rank takes part in the collective */
        if (MPI_Alltoallv(s->temp, s->scounts, s->sdispls, MPI_BYTE, s->recvbuf, s->rcounts,
                          s->rdispls, MPI_BYTE, p->comm) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "bmmc: MPI_Alltoallv failed");
        for (int64_t r = 0; s->me != UINT64_MAX && !p->dry && r < redist__bmmc_rounds(&s->plan);
             r++) {
            uint64_t from = redist__bmmc_source(&s->plan, s->me, r);
            redist__bmmc_place(&s->plan, s->me, r, from, s->recvbuf + s->rdispls[rank_of(s, from)],
                               p->cur_dst, p->elsize);
        }
        return REDIST_SUCCESS;
    }
    for (int64_t r = 0; s->me != UINT64_MAX && r < redist__bmmc_rounds(&s->plan); r++) {
        int err = round_exchange(p, s, r);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

static int rounds_steps(const redist__summary *s)
{
    return s->bmmc_rounds;
}

static int bpc_applicable(const redist__summary *s)
{
    return s->bmmc_rounds > 0 ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

/* Messages: one per round but the self round. */
static void local_stats(const struct redist_plan_s *p, redist_stats *st)
{
    const bmmc_state *s = p->algo_state;
    int64_t rounds = redist__bmmc_rounds(&s->plan);
    int64_t bytes = redist__bmmc_round_count(&s->plan) * (int64_t)p->elsize;
    int self = s->me != UINT64_MAX && redist__bmmc_self_round(&s->plan, s->me) >= 0;
    int64_t msgs = s->me == UINT64_MAX ? 0 : rounds - self;
    st->messages_sent = st->messages_received = msgs;
    st->bytes_sent = st->bytes_received = msgs * bytes;
    st->bytes_copied = self ? bytes : 0;
}

/* ---- The block-cyclic case: cyclic(2^f1) -> cyclic(2^f2) as a bit permutation --------- */

/* lg v if v is a power of two, else -1 (any v: no shift reaches bit 63). */
static int log2_exact(int64_t v)
{
    if (v <= 0 || (v & (v - 1)) != 0)
        return -1;
    int l = 0;
    while (((int64_t)1 << l) != v)
        l++;
    return l;
}

int redist__bpc_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst, int *n,
                       int *p, int *f1, int *f2)
{
    if (src->ndims != 1 || dst->ndims != 1 || src->grid[0] != dst->grid[0] || src->first[0] != 0 ||
        dst->first[0] != 0 || !redist__same_global_shape(src, dst))
        return 0;
    for (int c = 0; c < src->nprocs; c++)
        if (src->ranks[c] != dst->ranks[c])
            return 0;
    *n = log2_exact(src->extent[0]);
    *p = log2_exact(src->grid[0]);
    *f1 = log2_exact(src->block[0]);
    *f2 = log2_exact(dst->block[0]);
    return *n >= 0 && *p >= 0 && *f1 >= 0 && *f2 >= 0 && *n <= 62 && *f1 + *p <= *n &&
           *f2 + *p <= *n;
}

/* A = Q_f1^-1 Q_f2: in layout f1, the element with global index x goes to the index whose
   layout-f1 place is x's layout-f2 place. */
static void bpc_matrix(int n, int p, int f1, int f2, uint64_t a[])
{
    uint64_t q1i[REDIST__GF2_MAX], q2[REDIST__GF2_MAX];
    redist__gf2_layout_q_inverse(n, p, f1, q1i);
    redist__gf2_layout_q(n, p, f2, q2);
    redist__gf2_mul(n, q1i, n, q2, a);
}

int redist__bpc_rounds(const struct redist_layout_s *src, const struct redist_layout_s *dst)
{
    int n, pb, f1, f2;
    uint64_t a[REDIST__GF2_MAX];
    redist__bmmc_plan bp;
    if (!redist__bpc_detect(src, dst, &n, &pb, &f1, &f2))
        return 0;
    bpc_matrix(n, pb, f1, f2, a);
    return redist__bmmc_plan_init(n, pb, f1, a, 0, &bp) == REDIST_SUCCESS
               ? (int)redist__bmmc_rounds(&bp)
               : 0;
}

static int bpc_setup(struct redist_plan_s *p)
{
    bmmc_state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int n, pb, f1, f2;
    uint64_t a[REDIST__GF2_MAX];
    if (!redist__bpc_detect(p->src, p->dst, &n, &pb, &f1, &f2))
        return REDIST_ERR_NOT_APPLICABLE;
    bpc_matrix(n, pb, f1, f2, a);
    if (redist__bmmc_plan_init(n, pb, f1, a, 0, &s->plan) != REDIST_SUCCESS)
        return REDIST_ERR_NOT_APPLICABLE;
    int pos = redist__layout_position(p->src, p->rank);
    s->me = pos < 0 ? UINT64_MAX : (uint64_t)pos;
    s->ranks = p->src->ranks;
    s->method = p->bmmc_method;
    return alloc_state(p, s);
}

const redist__algorithm redist__algo_bmmc = {
    .name = "bmmc",
    .applicable = bpc_applicable,
    .steps = rounds_steps,
    .setup = bpc_setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .local_stats = local_stats,
    .dry_needs_buffers = 1,
};

/* ---- redist_plan_create_bmmc ------------------------------------------------------------- */

static int check_bmmc(int n, int f, const uint64_t columns[], uint64_t complement,
                      MPI_Datatype type, int size, const redist_options *opt, redist_plan *plan,
                      size_t *elsize, int *p, redist__bmmc_plan *bp)
{
    if (plan == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan: NULL output pointer");
    *p = log2_exact(size);
    if (*p < 0)
        return redist__fail(REDIST_ERR_ARG,
                            "bmmc: the communicator has %d ranks, not a power "
                            "of two",
                            size);
    if (n < *p)
        return redist__fail(REDIST_ERR_ARG, "bmmc: n = %d is less than lg P = %d (N < P)", n, *p);
    const char *name = opt && opt->algorithm ? opt->algorithm : "auto";
    if (strcmp(name, "auto") != 0 && strcmp(name, "bmmc") != 0)
        return redist__algorithm_by_name(name) != NULL
                   ? redist__fail(REDIST_ERR_NOT_APPLICABLE,
                                  "'%s' cannot perform a BMMC "
                                  "permutation",
                                  name)
                   : redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    int err = redist__check_options(opt, size);
    if (err != REDIST_SUCCESS)
        return err;
    err = redist__element_size(type, elsize);
    if (err != REDIST_SUCCESS)
        return err;
    return redist__bmmc_plan_init(n, *p, f, columns, complement, bp);
}

static void bmmc_fingerprints(int n, int f, const uint64_t columns[], uint64_t complement,
                              size_t elsize, const redist_options *opt, redist__fingerprints *fp)
{
    fp->n = 0;
    redist__fp_add(fp, "n", &n, sizeof n);
    redist__fp_add(fp, "f", &f, sizeof f);
    int ncols = columns != NULL && n > 0 && n <= 64 ? n : 0;
    redist__fp_add(fp, "columns", columns, (size_t)ncols * sizeof *columns);
    redist__fp_add(fp, "complement", &complement, sizeof complement);
    redist__fp_add(fp, "the element size of type", &elsize, sizeof elsize);
    redist__fp_options(fp, opt);
}

int redist_plan_create_bmmc(int n, int f, const uint64_t columns[], uint64_t complement,
                            MPI_Datatype type, MPI_Comm comm, const redist_options *opt,
                            redist_plan *plan)
{
    redist__clear_error();
    if (plan != NULL)
        *plan = NULL;
    int inter = 0, size = 0, rank = 0;
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    if (comm == MPI_COMM_NULL)
        return redist__fail(REDIST_ERR_ARG, "comm is MPI_COMM_NULL");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != 0 ||
        MPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "comm is not a valid communicator");
    if (inter)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "intercommunicators are not supported");
    size_t elsize = 0;
    int p = 0;
    redist__bmmc_plan bp;
    int err = check_bmmc(n, f, columns, complement, type, size, opt, plan, &elsize, &p, &bp);
    redist__fingerprints fp;
    bmmc_fingerprints(n, f, columns, complement, elsize, opt, &fp);
    MPI_Comm dup = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Comm_dup failed");
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    err = redist__agree(dup, rank, err, &fp);
    if (err != REDIST_SUCCESS) {
        MPI_Comm_free(&dup);
        return err;
    }
    struct redist_plan_s *pl = calloc(1, sizeof *pl);
    bmmc_state *s = pl ? calloc(1, sizeof *s) : NULL;
    if (s == NULL) {
        free(pl);
        pl = NULL;
        err = REDIST_ERR_NOMEM;
    } else {
        pl->comm = dup;
        pl->type = MPI_DATATYPE_NULL;
        pl->rank = rank;
        pl->size = size;
        pl->elsize = elsize;
        pl->algo = &redist__algo_bmmc;
        pl->algo_state = s;
        pl->check_arguments = opt == NULL || opt->check_arguments;
        pl->check_req = MPI_REQUEST_NULL;
        pl->src_count = pl->dst_count = redist__bmmc_local_count(&bp);
        s->plan = bp;
        s->me = (uint64_t)rank;
        s->method = opt ? opt->bmmc_method : 0;
        if (MPI_Type_dup(type, &pl->type) != MPI_SUCCESS)
            err = REDIST_ERR_MPI;
        else
            err = alloc_state(pl, s);
    }
    int agreed = redist__agree(dup, rank, err, NULL);
    if (agreed != REDIST_SUCCESS) {
        if (pl != NULL)
            redist__plan_destroy(pl);
        else
            MPI_Comm_free(&dup);
        return agreed;
    }
    redist_stats *st = &pl->stats;
    st->steps = (int)redist__bmmc_rounds(&bp);
    local_stats(pl, st);
    int64_t mine[2] = {st->messages_sent, st->bytes_sent}, most[2];
    MPI_Allreduce(mine, most, 2, MPI_INT64_T, MPI_MAX, dup);
    st->max_messages_per_rank = most[0];
    st->max_bytes_per_rank = most[1];
    *plan = pl;
    return REDIST_SUCCESS;
}
