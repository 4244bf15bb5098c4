/* bmmc: performing a BMMC permutation with MPI ([Cor97] §5), for redist_plan_create_bmmc
 * (api/bmmc_plan.c) and as the block-cyclic algorithm "bmmc".
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
#include "bmmc/bmmc.h"
#include "exec/engine.h"

#include <stdlib.h>
#include <string.h>

typedef struct bmmc_state {
    redist__bmmc_plan plan;
    uint64_t me;      /* this rank's processor number, or UINT64_MAX if it holds nothing */
    const int *ranks; /* processor -> communicator rank (NULL: the identity) */
    int method;
    char *temp, *recvbuf;       /* N/P elements each (recvbuf: the Sendrecv variant) */
    redist__rank_arrays counts; /* the Alltoallv variant, in bytes */
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
    redist__free(s->temp);
    redist__free(s->recvbuf);
    redist__rank_arrays_free(&s->counts);
    redist__free(s);
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
        redist__rank_arrays *a = &s->counts;
        if ((s->recvbuf = redist__plan_buffer(p, bytes)) == NULL ||
            redist__rank_arrays_alloc(a, p->size, 0) != REDIST_SUCCESS)
            return REDIST_ERR_NOMEM;
        int64_t block = redist__bmmc_round_count(&s->plan) * (int64_t)p->elsize;
        for (int64_t r = 0; s->me != UINT64_MAX && r < redist__bmmc_rounds(&s->plan); r++) {
            int to = rank_of(s, redist__bmmc_target(&s->plan, s->me, r));
            int from = rank_of(s, redist__bmmc_source(&s->plan, s->me, r));
            a->scounts[to] = a->rcounts[from] = (int)block;
            a->sdispls[to] = a->rdispls[from] = (int)(r * block);
        }
    }
    return REDIST_SUCCESS;
}

/* One round: exchange the round's block (unless it stays here) and place it. */
/* The local passes by the plan's threads: the intraprocessor permutation (round < 0) or the
   placing of one round's block (redist__bmmc_place). */
typedef struct bmmc_job {
    const struct redist_plan_s *p;
    const bmmc_state *s;
    int64_t round;
    uint64_t from;
    const char *block;
} bmmc_job;

static void bmmc_part(void *arg, int part, int nparts)
{
    const bmmc_job *j = arg;
    const struct redist_plan_s *p = j->p;
    if (j->round < 0)
        redist__bmmc_intra(&j->s->plan, j->s->me, p->cur_src, j->s->temp, p->elsize, part, nparts);
    else
        redist__bmmc_place(&j->s->plan, j->s->me, j->round, j->from, j->block, p->cur_dst,
                           p->elsize, part, nparts);
}

static void local_pass(struct redist_plan_s *p, const bmmc_state *s, int64_t round, uint64_t from,
                       const char *block)
{
    bmmc_job job = {p, s, round, from, block};
    int64_t elems =
        round < 0 ? redist__bmmc_local_count(&s->plan) : redist__bmmc_round_count(&s->plan);
    redist__par_run(p, elems * (int64_t)p->elsize, bmmc_part, &job);
}

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
            rc = MPI_Sendrecv(block, (int)bytes, MPI_BYTE, rank_of(s, to), REDIST__TAG_BMMC,
                              s->recvbuf, (int)bytes, MPI_BYTE, rank_of(s, from), REDIST__TAG_BMMC,
                              p->comm, MPI_STATUS_IGNORE);
            received = s->recvbuf;
        } else {
            rc = MPI_Sendrecv_replace(block, (int)bytes, MPI_BYTE, rank_of(s, to), REDIST__TAG_BMMC,
                                      rank_of(s, from), REDIST__TAG_BMMC, p->comm,
                                      MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "bmmc: round %lld failed", (long long)r);
    }
    if (!p->dry)
        local_pass(p, s, r, from, received);
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    bmmc_state *s = p->algo_state;
    if (s->me != UINT64_MAX && !p->dry)
        local_pass(p, s, -1, 0, NULL);
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
        if (MPI_Alltoallv(s->temp, s->counts.scounts, s->counts.sdispls, MPI_BYTE, s->recvbuf,
                          s->counts.rcounts, s->counts.rdispls, MPI_BYTE, p->comm) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "bmmc: MPI_Alltoallv failed");
        for (int64_t r = 0; s->me != UINT64_MAX && !p->dry && r < redist__bmmc_rounds(&s->plan);
             r++) {
            uint64_t from = redist__bmmc_source(&s->plan, s->me, r);
            local_pass(p, s, r, from, s->recvbuf + s->counts.rdispls[rank_of(s, from)]);
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

/* The rounds of the block-cyclic case (0 if the pair is not a bit permutation). */
static int bpc_rounds(const redist__case *c)
{
    const redist__shape *s = &c->s;
    return s->bpc ? redist__bpc_rounds_of(s->bpc_n, s->bpc_p, s->bpc_f1, s->bpc_f2) : 0;
}

static int rounds_steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    (void)m, (void)opt;
    return bpc_rounds(c);
}

static int bpc_applicable(const redist__case *c)
{
    return bpc_rounds(c) > 0 ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

/* One exchange per round, and the intraprocessor pass and placement: two permuting copies
   of the local data besides the self part (module comment). */
static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt, (void)transport;
    const redist__traffic *t = &c->t;
    return m->copy_per_byte * (double)t->max_copy_bytes +
           3.0 * m->copy_per_byte * (double)t->max_local_bytes +
           redist__fresh_per_byte(m) * (double)t->max_bytes + m->startup * bpc_rounds(c) +
           redist__cost_network_spread(c, m, bpc_rounds(c), (double)t->max_bytes);
}

static int check_options(const redist_options *opt, int comm_size)
{
    (void)comm_size;
    if (opt->bmmc_method < 0 || opt->bmmc_method > 2)
        return redist__fail(REDIST_ERR_ARG, "bmmc_method = %d must be 0, 1 or 2", opt->bmmc_method);
    return REDIST_SUCCESS;
}

static void fingerprint_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist__fp_add(fp, "options.bmmc_method", &opt->bmmc_method, sizeof opt->bmmc_method);
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

int redist__bmmc_setup(struct redist_plan_s *p, const redist__bmmc_plan *bp, uint64_t me,
                       const int *ranks)
{
    bmmc_state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->plan = *bp;
    s->me = me;
    s->ranks = ranks;
    s->method = p->opt.bmmc_method;
    return alloc_state(p, s);
}

static int bpc_setup(struct redist_plan_s *p)
{
    const redist__shape *sh = &p->pair.s;
    uint64_t a[REDIST__GF2_MAX];
    redist__bmmc_plan bp;
    if (!sh->bpc)
        return REDIST_ERR_NOT_APPLICABLE;
    redist__bpc_matrix(sh->bpc_n, sh->bpc_p, sh->bpc_f1, sh->bpc_f2, a);
    if (redist__bmmc_plan_init(sh->bpc_n, sh->bpc_p, sh->bpc_f1, a, 0, &bp) != REDIST_SUCCESS)
        return REDIST_ERR_NOT_APPLICABLE;
    int pos = redist__layout_position(p->src, p->rank);
    return redist__bmmc_setup(p, &bp, pos < 0 ? UINT64_MAX : (uint64_t)pos, p->src->ranks);
}

const redist__algorithm redist__algo_bmmc = {
    .name = "bmmc",
    .applicable = bpc_applicable,
    .why_not = "needs a bit permutation: a 1-D pair on one process set (the same ranks, first "
               "coordinate 0) with N, P and both blocks powers of two and block x P <= N",
    .steps = rounds_steps,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .check_options = check_options,
    .fingerprint_options = fingerprint_options,
    .setup = bpc_setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .local_stats = local_stats,
    .dry_needs_buffers = 1,
    .unscaled = 1, /* redist__bmmc_place copies; scaling would need a pass of its own */
};
