/* alltoall-padded: the MPI_Alltoall baseline of [LBP96] §5 (Fig. 18). Every message is
 * padded to the largest message of the redistribution (over all ranks), so that one
 * MPI_Alltoall (nonblocking: MPI_Ialltoall) with equal counts moves everything, dummy data
 * included; the self part is copied directly. One collective step; each rank sends P - 1
 * messages of the padded size s whatever the pattern. NOT_APPLICABLE when the padded message
 * exceeds INT_MAX bytes.
 *
 * With the option alltoall_algorithm, the equal-count exchange is [GGKK03]'s personalized
 * all-to-all instead (src/coll/alltoall.c: ring, mesh, hypercube = Bruck, pairwise), on
 * point-to-point messages over the plan's communicator. That exchange is blocking: start
 * packs, the exchange and the unpacking run in the first redist_test/redist_wait.
 *
 * Cost: the self part, a pack and an unpack copy of every byte and run, and the exchange
 * (through MPI: tau_d is redist__fresh_per_byte, data just packed):
 *   MPI_Ialltoall, every message in flight: T_d + (P - 1) t_msg + (P - 1) s tau_d;
 *   [GGKK03]'s algorithm a: its formula with t_s = T_d and t_w = tau_d
 *   (redist__coll_alltoall_cost), plus one local copy of the P padded blocks that its
 *   rotations and regroupings make.
 * On several nodes, plus the network for P - 1 padded messages a rank (every peer):
 * redist__cost_network_spread.
 */
#include "coll/coll.h"
#include "exec/engine.h"

#include <stdlib.h>
#include <string.h>

typedef struct state {
    int64_t slot; /* bytes per peer */
    char *sendbuf, *recvbuf;
    MPI_Request req;
    int coll; /* [GGKK03]'s algorithm (coll.h index), -1 for MPI_Ialltoall */
    char *ws; /* its workspace */
} state;

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    redist__free(s->sendbuf);
    redist__free(s->recvbuf);
    redist__free(s->ws);
    redist__free(s);
    p->algo_state = NULL;
}

static int64_t slot_bytes(const redist__case *c)
{
    return c->t.max_count * (int64_t)c->t.elsize;
}

static int applicable(const redist__case *c)
{
    return slot_bytes(c) <= REDIST__MAX_INT_COUNT ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

/* The exchange the option asks for: -1 for MPI_Ialltoall (NULL), else [GGKK03]'s algorithm
   (its index in coll.h; "auto": the cheapest for the padded size). */
static int exchange_algorithm(const redist__case *c, const redist_options *opt)
{
    if (opt->alltoall_algorithm == NULL)
        return -1;
    int err = REDIST_SUCCESS;
    const char *name =
        strcmp(opt->alltoall_algorithm, "auto") == 0 ? NULL : opt->alltoall_algorithm;
    int idx = redist__coll_alltoall_pick(name, c->t.comm_size, (double)slot_bytes(c), &err);
    return idx >= 0 ? idx : -1;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)transport;
    const redist__traffic *t = &c->t; /* packs and unpacks the pattern's runs, as direct does */
    double slot = (double)slot_bytes(c),
           copies = m->copy_per_byte * (double)t->max_copy_bytes +
                    m->copy_per_run * (double)(t->max_self_runs + t->max_runs) +
                    2.0 * m->copy_per_byte * (double)t->max_bytes;
    int P = c->t.comm_size, a = exchange_algorithm(c, opt);
    copies += redist__cost_network_spread(c, m, P - 1.0, slot * (P - 1.0)); /* every peer */
    if (a < 0)
        return copies + m->startup + m->per_message * (P - 1) +
               redist__fresh_per_byte(m) * slot * (P - 1);
    return copies + redist__coll_alltoall_cost(a, P, slot, m->startup, redist__fresh_per_byte(m)) +
           m->copy_per_byte * slot * P;
}

static int check_options(const redist_options *opt, int comm_size)
{
    int err = REDIST_SUCCESS;
    if (opt->alltoall_algorithm != NULL &&
        redist__coll_alltoall_pick(opt->alltoall_algorithm, comm_size, 0, &err) < 0 &&
        err == REDIST_ERR_UNKNOWN_ALGORITHM)
        return redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown alltoall_algorithm '%s'",
                            opt->alltoall_algorithm);
    return REDIST_SUCCESS;
}

static void fingerprint_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist__fp_add_string(fp, "options.alltoall_algorithm",
                          opt->alltoall_algorithm ? opt->alltoall_algorithm : "(MPI)");
}

static int setup(struct redist_plan_s *p)
{
    state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->slot = slot_bytes(&p->pair);
    s->sendbuf = redist__plan_buffer(p, (size_t)(s->slot * p->size) + 1);
    s->recvbuf = s->sendbuf ? redist__plan_buffer(p, (size_t)(s->slot * p->size) + 1) : NULL;
    s->req = MPI_REQUEST_NULL;
    s->coll = exchange_algorithm(&p->pair, &p->opt);
    int64_t ws = s->coll < 0 ? 0 : redist__coll_alltoall_workspace(s->coll, p->size, s->slot);
    s->ws = ws > 0 && s->recvbuf ? redist__plan_buffer(p, (size_t)ws) : NULL;
    return s->sendbuf && s->recvbuf && (ws == 0 || s->ws) ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
}

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    for (int i = 0; !p->dry && i < p->send.nmsgs; i++) {
        const redist__msg *m = &p->send.msgs[i];
        redist__par_move(p, REDIST__PACK, m, p->cur_src, s->sendbuf + m->peer * s->slot);
    }
    redist__copy_self(p);
    if (s->coll >= 0) /* [GGKK03]'s exchange runs in progress() */
        return REDIST_SUCCESS;
    if (MPI_Ialltoall(s->sendbuf, (int)s->slot, MPI_BYTE, s->recvbuf, (int)s->slot, MPI_BYTE,
                      p->comm, &s->req) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Ialltoall failed");
    return REDIST_SUCCESS;
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    int err = REDIST_SUCCESS;
    if (s->coll >= 0) { /* skipped when no rank sends anything (an identical layout) */
        if (p->pair.t.max_messages > 0)
            err = redist__coll_alltoall_run(s->coll, s->sendbuf, s->recvbuf, s->slot, p->rank,
                                            p->size, s->ws, p->comm);
        *done = 1;
    } else {
        err = redist__progress_request(&s->req, blocking, done, "MPI_Ialltoall");
    }
    for (int i = 0; err == REDIST_SUCCESS && *done && !p->dry && i < p->recv.nmsgs; i++) {
        const redist__msg *m = &p->recv.msgs[i];
        redist__par_move(p, REDIST__UNPACK, m, s->recvbuf + m->peer * s->slot, p->cur_dst);
    }
    return err;
}

/* Messages and bytes each rank sends (and receives): MPI_Ialltoall sends a padded message
   to every other rank; [GGKK03]'s algorithms combine blocks into fewer, larger messages. */
static void traffic(const redist__case *c, const redist_options *opt, int64_t *msgs, int64_t *bytes)
{
    int P = c->t.comm_size, a = exchange_algorithm(c, opt);
    if (a >= 0 && c->t.max_messages == 0) { /* nothing to exchange: skipped */
        *msgs = *bytes = 0;
        return;
    }
    if (a >= 0) {
        redist__coll_alltoall_traffic(a, P, slot_bytes(c), msgs, bytes);
        return;
    }
    *msgs = P - 1;
    *bytes = (P - 1) * slot_bytes(c);
}

/* One collective step for MPI_Ialltoall; one step per message for [GGKK03]'s exchanges. */
static int steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    int64_t msgs, bytes;
    traffic(c, opt, &msgs, &bytes);
    return exchange_algorithm(c, opt) < 0 ? redist__one_step(c, m, opt) : (int)msgs;
}

static void local_stats(const struct redist_plan_s *p, redist_stats *st)
{
    traffic(&p->pair, &p->opt, &st->messages_sent, &st->bytes_sent);
    st->messages_received = st->messages_sent;
    st->bytes_received = st->bytes_sent;
}

static int explain(const redist__case *c, const redist__machine *m, const redist_options *opt,
                   redist__traffic_summary *out)
{
    (void)m;
    traffic(c, opt, &out->max_messages_per_rank, &out->max_bytes_per_rank);
    /* Every rank pads alike; P^2 s can exceed 2^63 for huge P. */
    out->total_messages = redist__mul_sat(c->t.comm_size, out->max_messages_per_rank);
    out->total_bytes = redist__mul_sat(c->t.comm_size, out->max_bytes_per_rank);
    return REDIST_SUCCESS;
}

const redist__algorithm redist__algo_alltoall_padded = {
    .name = "alltoall-padded",
    .applicable = applicable,
    .why_not = "needs the padded message below 2^31 bytes (MPI_Alltoall's int count)",
    .steps = steps,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .check_options = check_options,
    .fingerprint_options = fingerprint_options,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .local_stats = local_stats,
    .explain = explain,
    .device = 1,
};
