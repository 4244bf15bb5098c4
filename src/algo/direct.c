/* direct: contention-free steps. In step k (k = 1 .. size-1) every rank r sends to
 * (r + k) mod size and receives from (r - k) mod size, so each step is a permutation of the
 * ranks: every rank sends at most one message and receives at most one (the GDM model's
 * contention-free step, [LBP96] §3.2 and §4 Theorem 3 (i); [SD96]'s one message per
 * pair). A rank skips the steps in which it has nothing to send or receive; the step count
 * reported is the number of shifts used by any rank. Each step waits for its send and
 * receive before the next begins (the paper's synchronous schedule), so only one message
 * per rank is in flight. In [LBP96]'s table case the steps are the rows of P_s instead
 * ([LBP96] §4, Theorem 1 and 2: K steps for cyclic(x) -> cyclic(Kx), one fewer when row 0
 * moves nothing). Cost ([LBP96] Corollary 2, one synchronised step = one start-up):
 *   h S T_d + the moves of the transport (redist__cost_moves), S the steps, h = 2 through
 *   the shared-memory window (notification and acknowledgement), else 1.
 */
#include "algo/algo.h"
#include "exec/engine.h"

#include <stdlib.h>

typedef struct step {
    int send_msg, recv_msg; /* message indices, -1 for none */
} step;

typedef struct state {
    step *steps;
    int nsteps, current;
    /* The current step's requests: its receive [0, nrecv), then the rest (send, and the
       acknowledgements of the shared-memory transport) [nrecv, nreqs). */
    MPI_Request *reqs;
    int max_reqs, nreqs, nrecv, unpacked;
} state;

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    redist__free(s->steps);
    redist__free(s->reqs);
    redist__free(s);
    p->algo_state = NULL;
}

/* Message index per peer rank, -1 where there is none (messages are sorted by peer). */
static int *index_by_peer(const redist__side *side, int size)
{
    int *idx = redist__malloc((size_t)size * sizeof *idx);
    if (idx == NULL)
        return NULL;
    for (int r = 0; r < size; r++)
        idx[r] = -1;
    for (int i = 0; i < side->nmsgs; i++)
        idx[side->msgs[i].peer] = i;
    return idx;
}

static int64_t requests_of(const struct redist_plan_s *p, int is_send, int i)
{
    return i < 0 ? 0 : redist__msg_requests(p, is_send, i) + (p->shm != NULL); /* + ack */
}

static void add_step(struct redist_plan_s *p, state *s, step st)
{
    if (st.send_msg < 0 && st.recv_msg < 0)
        return;
    int64_t n = requests_of(p, 1, st.send_msg) + requests_of(p, 0, st.recv_msg);
    if (n > s->max_reqs)
        s->max_reqs = (int)n;
    s->steps[s->nsteps++] = st;
}

/* [LBP96]'s direct schedule for R_x(K, P) (Theorem 3 (i), Fig. 8): step i sends the
   block of row i of S' to P_s(i, c) and receives from P_r(i, c); for the dual,
   cyclic(Kx) -> cyclic(x), the same steps with the directions swapped. Returns 0 if the
   pair is not a table case (then the shift schedule is used). */
static int table_steps(struct redist_plan_s *p, state *s, const int *send_of, const int *recv_of)
{
    if (!p->pair.s.table)
        return 0;
    const redist__table_case tc = p->pair.s.tc;
    int64_t c = redist__table_column(p->src, &tc, p->rank);
    if (c < 0)
        return 1; /* not in the layouts: no steps */
    const redist__rx *rx = &tc.rx;
    int dual = tc.dual;
    for (int64_t i = 0; i < rx->K; i++) {
        int64_t to = dual ? redist__rx_Pr(rx, i, c) : redist__rx_Ps(rx, i, c);
        int64_t from = dual ? redist__rx_Ps(rx, i, c) : redist__rx_Pr(rx, i, c);
        int to_rank = redist__table_rank(p->src, &tc, p->rank, to);
        int from_rank = redist__table_rank(p->src, &tc, p->rank, from);
        add_step(p, s,
                 (step){to == c ? -1 : send_of[to_rank], from == c ? -1 : recv_of[from_rank]});
    }
    return 1;
}

/* Every message must be in exactly one step (Theorem 1: the K rows of P_s reach every
   destination once); a schedule that missed one would hang, so check rather than trust. */
static int covers_every_message(const struct redist_plan_s *p, const state *s)
{
    int64_t sends = 0, recvs = 0;
    for (int i = 0; i < s->nsteps; i++) {
        sends += s->steps[i].send_msg >= 0;
        recvs += s->steps[i].recv_msg >= 0;
    }
    return sends == p->send.nmsgs && recvs == p->recv.nmsgs;
}

static int setup(struct redist_plan_s *p)
{
    state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    int *send_of = index_by_peer(&p->send, p->size), *recv_of = index_by_peer(&p->recv, p->size);
    int64_t K = p->pair.s.table ? p->pair.s.tc.rx.K : 0, most = p->size > K ? p->size : K;
    s->steps = redist__malloc((size_t)most * sizeof *s->steps);
    int err = send_of && recv_of && s->steps ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS && !table_steps(p, s, send_of, recv_of))
        for (int k = 1; k < p->size; k++)
            add_step(p, s,
                     (step){send_of[(p->rank + k) % p->size],
                            recv_of[(p->rank - k + p->size) % p->size]});
    redist__free(send_of);
    redist__free(recv_of);
    if (err == REDIST_SUCCESS && !covers_every_message(p, s))
        err = redist__fail(REDIST_ERR_NOT_APPLICABLE, "direct: the schedule misses a message");
    if (err == REDIST_SUCCESS) {
        s->reqs = redist__malloc((size_t)(s->max_reqs + 1) * sizeof *s->reqs);
        if (s->reqs == NULL)
            err = REDIST_ERR_NOMEM;
    }
    return err;
}

/* The receive, the acknowledgement receive (shared memory) and the send of a step. */
static int post_requests(struct redist_plan_s *p, state *s)
{
    const step *st = &s->steps[s->current];
    s->nreqs = 0;
    s->unpacked = 0;
    if (st->recv_msg >= 0) {
        int n = redist__post_recv(p, st->recv_msg, s->reqs);
        if (n < 0)
            return n;
        s->nreqs += n;
    }
    s->nrecv = s->nreqs;
    if (st->send_msg >= 0) {
        int n = redist__post_ack_recv(p, st->send_msg, s->reqs + s->nreqs);
        if (n < 0)
            return n;
        s->nreqs += n;
        if ((n = redist__pack_and_send(p, st->send_msg, s->reqs + s->nreqs)) < 0)
            return n;
        s->nreqs += n;
    }
    return REDIST_SUCCESS;
}

/* Posts the step's requests. If one fails, the receives already posted are cancelled: a
   receive left pending would keep the plan's communicator alive, and could take a later
   message. */
static int post_step(struct redist_plan_s *p, state *s)
{
    int err = post_requests(p, s);
    if (err != REDIST_SUCCESS) { /* the send is posted last: everything before is a receive */
        redist__abandon_requests(s->reqs, s->nreqs, NULL, 0);
        s->nreqs = 0;
    }
    return err;
}

/* Unpacks the step's message as soon as it is in, and acknowledges a node peer's shared
   buffer at once: a rank must not wait for its own acknowledgement before giving its
   sender one, or the ring of steps would wait on itself. */
static int try_unpack(struct redist_plan_s *p, state *s, int blocking)
{
    if (s->unpacked)
        return REDIST_SUCCESS;
    int complete = 1;
    int rc = blocking ? MPI_Waitall(s->nrecv, s->reqs, MPI_STATUSES_IGNORE)
                      : MPI_Testall(s->nrecv, s->reqs, &complete, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "direct: receive failed");
    int m = s->steps[s->current].recv_msg;
    if (!complete || m < 0) {
        s->unpacked = complete;
        return REDIST_SUCCESS;
    }
    int n = redist__finish_recv(p, m, s->reqs + s->nreqs);
    if (n < 0)
        return n;
    s->nreqs += n;
    s->unpacked = 1;
    return REDIST_SUCCESS;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    s->current = 0;
    redist__copy_self(p);
    return s->nsteps > 0 ? post_step(p, s) : REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    while (s->current < s->nsteps) {
        int err = try_unpack(p, s, blocking);
        if (err != REDIST_SUCCESS)
            return err;
        if (!s->unpacked)
            break;
        int complete = 1, n = s->nreqs - s->nrecv;
        int rc = blocking ? MPI_Waitall(n, s->reqs + s->nrecv, MPI_STATUSES_IGNORE)
                          : MPI_Testall(n, s->reqs + s->nrecv, &complete, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "direct: step %d failed", s->current);
        if (!complete)
            break;
        if (++s->current < s->nsteps) {
            int err = post_step(p, s);
            if (err != REDIST_SUCCESS)
                return err;
        }
    }
    *done = s->current == s->nsteps;
    return REDIST_SUCCESS;
}

static int steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    (void)m, (void)opt;
    return c->s.table ? (int)redist__rx_moving_rows(&c->s.tc.rx) : c->t.shift_steps;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    double trips = redist__shm_trips(m, opt, transport);
    return redist__cost_moves_via(c, m, transport, trips > 1) +
           trips * m->startup * steps(c, m, opt);
}

const redist__algorithm redist__algo_direct = {
    .name = "direct",
    .applicable = redist__always_applicable,
    .steps = steps,
    .predict = predict,
    .transports = REDIST__T_PACK | REDIST__T_DATATYPE,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .uses_shm = 1,
    .packs = 1,
    .device = 1,
    .gpu_mpi = 1,
};
