/* The relay executor: runs a row schedule of [LBP96] (src/index/rowsched.h) on real data, for
 * the indirect and hybrid algorithms (combine-and-forward through relay ranks).
 *
 * Units are messages (docs/dev/table-schedules.md): the unit at table entry (i, c) is the
 * message from processor c to the processor where the unit must end, packed by the pattern
 * code in its canonical order. Relays move units as opaque bytes. A rank holds exactly one
 * unit per row at any time (a row transformation permutes a row), so its storage is K slots,
 * one per row, each as large as the largest unit that passes through it. Each step: gather
 * the step's rows into one message, send it to to[c], receive the same rows from the rank
 * whose to[] is c, scatter them into the slots. At the end every slot holds a unit that ends
 * here, which is unpacked with the receive message from the unit's origin.
 *
 * Plan time simulates the schedule row by row (units never change rows) to learn which unit
 * each slot holds before each step; that is pure and costs O(steps x K x P) at most.
 */
#include "algo/relay.h"

#include "algo/phases.h"

#include <stdlib.h>
#include <string.h>

typedef struct relay_step {
    int send_rank, recv_rank; /* -1: no message in this step */
    int64_t send_bytes, recv_bytes;
    int64_t nrows;
    const int64_t *rows; /* the schedule's rows (owned by the schedule) */
    int64_t *send_size;  /* [nrows] bytes of each row's unit in the outgoing message */
    int64_t *recv_size;  /* [nrows] in the incoming message */
} relay_step;

struct redist__relay {
    redist__row_schedule sched;
    int64_t K;
    int column; /* this rank's table column, -1 if it holds none */
    char **slot;
    int64_t *slot_cap;
    int64_t *final_origin; /* [K]: origin column of the unit held at the end */
    unsigned char *stays;  /* [K]: no step moves row i at this rank: the unit never leaves */
    relay_step *steps;
    char *sendbuf, *recvbuf;
    int64_t sendcap, recvcap;
    MPI_Request reqs[2];
    int nreqs;
    int64_t current; /* the step in flight */
    redist__relay_table table;
};

/* Where the unit starting at (i, c) must end: P_s(i, c) forward, P_r(i, c) for the dual. */
static int64_t final_column(const redist__relay_table *t, int64_t i, int64_t c)
{
    if (t->sizes != NULL)
        return (c + i) % t->P;
    return t->dual ? redist__rx_Pr(&t->rx, i, c) : redist__rx_Ps(&t->rx, i, c);
}

/* Bytes of the unit that starts at (i, o), in closed form. Forward, it is the block
   S'(i, o) = S(D_s(i, o), o) of every superblock (PK blocks of x elements) that exists,
   the last one possibly cut short by the extent; for the dual, the same blocks as the
   forward unit of row i whose destination is o. */
static int64_t unit_bytes(size_t elsize, const redist__relay_table *t, int64_t i, int64_t o)
{
    if (t->sizes != NULL)
        return t->sizes[o * t->P + (o + i) % t->P];
    int64_t j = t->dual ? redist__rx_Pr(&t->rx, i, o) : o;
    int64_t b0 = redist__rx_S(&t->rx, redist__rx_Ds(&t->rx, i, j), j);
    int64_t x = t->x, n = t->n, super = t->rx.P * t->rx.K;
    int64_t nblocks = (n + x - 1) / x;
    if (b0 >= nblocks)
        return 0;
    int64_t count = (nblocks - 1 - b0) / super + 1, last = b0 + (count - 1) * super;
    int64_t elems = count * x - (last == nblocks - 1 ? nblocks * x - n : 0);
    return elems * t->cross * (int64_t)elsize;
}

void redist__relay_free(redist__relay *r)
{
    if (r == NULL)
        return;
    for (int64_t i = 0; r->slot != NULL && i < r->K; i++)
        redist__free(r->slot[i]);
    redist__free(r->slot);
    redist__free(r->slot_cap);
    redist__free(r->final_origin);
    redist__free(r->stays);
    for (int64_t t = 0; r->steps != NULL && t < r->sched.nsteps; t++) {
        redist__free(r->steps[t].send_size);
        redist__free(r->steps[t].recv_size);
    }
    redist__free(r->steps);
    redist__free(r->sendbuf);
    redist__free(r->recvbuf);
    redist__rowsched_free(&r->sched);
    redist__free(r);
}

static int rank_of(const redist__relay_table *t, const struct redist_plan_s *p, int64_t col)
{
    if (t->sizes != NULL)
        return (int)col;
    return redist__table_rank(p->src, &t->tc, p->rank, col);
}

/* Follows row i through the schedule, recording for this rank's column the unit it holds
   before each step (and at the start and end), the bytes moved, and the slot capacity. */
static void simulate_row(redist__relay *r, const redist__relay_table *t,
                         const struct redist_plan_s *p, int64_t i, int64_t *where, int64_t *inverse)
{
    int64_t P = t->P, c = r->column;
    for (int64_t col = 0; col < P; col++)
        where[col] = col; /* where[col] = origin of the unit now at col */
    int64_t cap = unit_bytes(p->elsize, t, i, c);
    r->stays[i] = 1;
    for (int64_t s = 0; s < r->sched.nsteps; s++) {
        const redist__row_step *st = &r->sched.steps[s];
        int64_t k = 0;
        while (k < st->nrows && st->rows[k] != i)
            k++;
        if (k == st->nrows)
            continue;
        for (int64_t col = 0; col < P; col++)
            inverse[st->to[col]] = col;
        int64_t out = where[c], in = where[inverse[c]];
        relay_step *rs = &r->steps[s];
        if (st->to[c] != c) {
            r->stays[i] = 0;
            rs->send_size[k] = unit_bytes(p->elsize, t, i, out);
            rs->recv_size[k] = unit_bytes(p->elsize, t, i, in);
            if (rs->recv_size[k] > cap)
                cap = rs->recv_size[k];
        }
        int64_t *next = inverse; /* reuse: the row after the step */
        for (int64_t col = 0; col < P; col++)
            next[st->to[col]] = where[col];
        memcpy(where, next, (size_t)P * sizeof *where);
    }
    r->final_origin[i] = where[c];
    r->slot_cap[i] = cap;
}

static int alloc_steps(redist__relay *r, const redist__relay_table *t,
                       const struct redist_plan_s *p)
{
    r->steps = redist__calloc((size_t)r->sched.nsteps + 1, sizeof *r->steps);
    if (r->steps == NULL)
        return REDIST_ERR_NOMEM;
    for (int64_t s = 0; s < r->sched.nsteps; s++) {
        const redist__row_step *st = &r->sched.steps[s];
        relay_step *rs = &r->steps[s];
        rs->nrows = st->nrows;
        rs->rows = st->rows;
        rs->send_size = redist__calloc((size_t)st->nrows + 1, sizeof *rs->send_size);
        rs->recv_size = redist__calloc((size_t)st->nrows + 1, sizeof *rs->recv_size);
        if (rs->send_size == NULL || rs->recv_size == NULL)
            return REDIST_ERR_NOMEM;
        int64_t c = r->column, from = c;
        for (int64_t col = 0; col < t->P; col++)
            if (st->to[col] == c)
                from = col;
        rs->send_rank = st->to[c] == c ? -1 : rank_of(t, p, st->to[c]);
        rs->recv_rank = from == c ? -1 : rank_of(t, p, from);
    }
    return REDIST_SUCCESS;
}

static int finish_setup(struct redist_plan_s *p, redist__relay *r)
{
    for (int64_t s = 0; s < r->sched.nsteps; s++) {
        relay_step *rs = &r->steps[s];
        for (int64_t k = 0; k < rs->nrows; k++) {
            rs->send_bytes += rs->send_size[k];
            rs->recv_bytes += rs->recv_size[k];
        }
        r->sendcap = rs->send_bytes > r->sendcap ? rs->send_bytes : r->sendcap;
        r->recvcap = rs->recv_bytes > r->recvcap ? rs->recv_bytes : r->recvcap;
    }
    if ((r->sendbuf = redist__plan_buffer(p, (size_t)r->sendcap + 1)) == NULL ||
        (r->recvbuf = redist__plan_buffer(p, (size_t)r->recvcap + 1)) == NULL)
        return REDIST_ERR_NOMEM;
    for (int64_t i = 0; i < r->K; i++)
        if ((r->slot[i] = redist__plan_buffer(p, r->stays[i] ? 1 : (size_t)r->slot_cap[i] + 1)) ==
            NULL)
            return REDIST_ERR_NOMEM;
    return REDIST_SUCCESS;
}

int redist__relay_table_of(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                           redist__relay_table *t)
{
    memset(t, 0, sizeof *t);
    if (!redist__table_detect(src, dst, &t->tc))
        return 0;
    t->rx = t->tc.rx;
    t->dual = t->tc.dual;
    t->K = t->rx.K;
    t->P = t->rx.P;
    t->first = t->tc.first;
    t->n = t->tc.n;
    t->x = t->tc.x;
    t->cross = 1; /* set per rank by redist__relay_create */
    return 1;
}

int redist__relay_shift_table(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                              int comm_size, size_t elsize, redist__relay_table *t)
{
    memset(t, 0, sizeof *t);
    int64_t P = comm_size;
    t->K = t->P = P;
    t->sizes = redist__calloc((size_t)(P * P), sizeof *t->sizes);
    if (t->sizes == NULL)
        return REDIST_ERR_NOMEM;
    for (int64_t o = 0; o < P; o++) {
        redist__side send;
        if (redist__side_create(src, dst, REDIST__SIDE_SRC, (int)o, &send) != 0) {
            redist__free(t->sizes);
            t->sizes = NULL;
            return REDIST_ERR_NOMEM;
        }
        for (int k = 0; k < send.nmsgs; k++)
            if (send.msgs[k].peer != o) /* the self part never travels */
                t->sizes[o * P + send.msgs[k].peer] = send.msgs[k].nelems * (int64_t)elsize;
        redist__side_free(&send);
    }
    return REDIST_SUCCESS;
}

/* The dual runs the forward schedule backwards: steps in reverse order, each permutation
   inverted, so every unit retraces its forward path from P_s(i, j) to j. */
static void reverse_schedule(redist__row_schedule *s, int64_t *scratch)
{
    for (int64_t a = 0, b = s->nsteps - 1; a < b; a++, b--) {
        redist__row_step t = s->steps[a];
        s->steps[a] = s->steps[b];
        s->steps[b] = t;
    }
    for (int64_t k = 0; k < s->nsteps; k++) {
        int64_t *to = s->steps[k].to;
        for (int64_t c = 0; c < s->P; c++)
            scratch[to[c]] = c;
        memcpy(to, scratch, (size_t)s->P * sizeof *to);
    }
}

int redist__relay_create(struct redist_plan_s *p, const redist__relay_table *t,
                         redist__row_schedule *sched, redist__relay **out)
{
    redist__relay *r = redist__calloc(1, sizeof *r);
    *out = r;
    if (r == NULL) {
        redist__rowsched_free(sched);
        return REDIST_ERR_NOMEM;
    }
    r->sched = *sched; /* takes ownership */
    memset(sched, 0, sizeof *sched);
    r->K = t->K;
    r->table = *t;
    if (t->sizes == NULL)
        r->table.cross = redist__table_cross_section(p->src, &t->tc, p->rank);
    r->column = t->sizes != NULL ? p->rank : (int)redist__table_column(p->src, &t->tc, p->rank);
    if (r->column < 0)
        return REDIST_SUCCESS;
    int64_t *where = redist__malloc((size_t)t->P * sizeof *where);
    int64_t *inverse = redist__malloc((size_t)t->P * sizeof *inverse);
    if (t->dual && inverse != NULL)
        reverse_schedule(&r->sched, inverse);
    r->slot = redist__calloc((size_t)t->K, sizeof *r->slot);
    r->slot_cap = redist__calloc((size_t)t->K, sizeof *r->slot_cap);
    r->final_origin = redist__calloc((size_t)t->K, sizeof *r->final_origin);
    r->stays = redist__calloc((size_t)t->K, 1);
    int err = where && inverse && r->slot && r->slot_cap && r->final_origin && r->stays
                  ? alloc_steps(r, t, p)
                  : REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS) {
        for (int64_t i = 0; i < t->K; i++)
            simulate_row(r, &r->table, p, i, where, inverse);
        err = finish_setup(p, r);
    }
    redist__free(where);
    redist__free(inverse);
    return err;
}

/* The message of this rank's unit in row i (origin: this rank) to `final_col`: its send
   message, or the self part. */
static const redist__msg *outgoing(const struct redist_plan_s *p, const redist__relay_table *t,
                                   int64_t final_col)
{
    int peer = rank_of(t, p, final_col);
    if (peer == p->rank)
        return p->self;
    for (int k = 0; k < p->send.nmsgs; k++)
        if (p->send.msgs[k].peer == peer)
            return &p->send.msgs[k];
    return NULL; /* an empty unit */
}

static const redist__msg *incoming(const struct redist_plan_s *p, const redist__relay_table *t,
                                   int64_t origin_col)
{
    int peer = rank_of(t, p, origin_col);
    if (peer == p->rank)
        return p->self;
    for (int k = 0; k < p->recv.nmsgs; k++)
        if (p->recv.msgs[k].peer == peer)
            return &p->recv.msgs[k];
    return NULL;
}

/* Gathers the step's rows and posts its receive and send. Messages of one step are at
   most INT_MAX bytes here (the units of K rows of one rank); larger ones would need
   chunking like the point-to-point schedules. */
static int post_step(struct redist_plan_s *p, redist__relay *r)
{
    const relay_step *rs = &r->steps[r->current];
    if (rs->send_bytes > REDIST__MAX_INT_COUNT || rs->recv_bytes > REDIST__MAX_INT_COUNT)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "relay: a step of more than 2 GiB");
    char *at = r->sendbuf;
    for (int64_t k = 0; rs->send_rank >= 0 && k < rs->nrows; k++) {
        memcpy(at, r->slot[rs->rows[k]], (size_t)rs->send_size[k]);
        at += rs->send_size[k];
    }
    r->nreqs = 0;
    if (rs->recv_rank >= 0) {
        if (MPI_Irecv(r->recvbuf, (int)rs->recv_bytes, MPI_BYTE, rs->recv_rank, REDIST__TAG_RELAY,
                      p->comm, &r->reqs[0]) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "relay: MPI_Irecv failed");
        r->nreqs = 1;
    }
    if (rs->send_rank >= 0) {
        if (MPI_Isend(r->sendbuf, (int)rs->send_bytes, MPI_BYTE, rs->send_rank, REDIST__TAG_RELAY,
                      p->comm, &r->reqs[r->nreqs]) != MPI_SUCCESS) {
            redist__abandon_requests(r->reqs, r->nreqs, NULL, 0); /* the step's receive */
            r->nreqs = 0;
            return redist__fail(REDIST_ERR_MPI, "relay: MPI_Isend failed");
        }
        r->nreqs++;
    }
    return REDIST_SUCCESS;
}

static void scatter_step(redist__relay *r)
{
    const relay_step *rs = &r->steps[r->current];
    const char *at = r->recvbuf;
    for (int64_t k = 0; rs->recv_rank >= 0 && k < rs->nrows; k++) {
        memcpy(r->slot[rs->rows[k]], at, (size_t)rs->recv_size[k]);
        at += rs->recv_size[k];
    }
}

int redist__relay_start(struct redist_plan_s *p, const redist__relay_table *t, redist__relay *r)
{
    r->current = 0;
    r->nreqs = 0;
    if (r->column < 0)
        return REDIST_SUCCESS;
    for (int64_t i = 0; i < r->K; i++) { /* every unit that moves starts packed in its slot */
        const redist__msg *m = outgoing(p, t, final_column(t, i, r->column));
        if (m != NULL && !p->dry && !r->stays[i])
            redist__pack(m, p->cur_src, r->slot[i], p->elsize);
    }
    return r->sched.nsteps > 0 ? post_step(p, r) : REDIST_SUCCESS;
}

static void unpack_all(struct redist_plan_s *p, redist__relay *r)
{
    for (int64_t i = 0; i < r->K; i++) {
        const redist__msg *m = incoming(p, &r->table, r->final_origin[i]);
        if (m == NULL || p->dry)
            continue;
        if (r->stays[i]) /* this rank's own unit, never moved: straight from src to dst */
            redist__copy(m, p->cur_src, p->cur_dst, p->elsize, p->scale);
        else
            redist__unpack(m, r->slot[i], p->cur_dst, p->elsize, p->scale);
    }
}

int redist__relay_progress(struct redist_plan_s *p, redist__relay *r, int blocking, int *done)
{
    *done = 0;
    if (r->column < 0) {
        *done = 1;
        return REDIST_SUCCESS;
    }
    while (r->current < r->sched.nsteps) {
        int complete = 1;
        int rc = blocking ? MPI_Waitall(r->nreqs, r->reqs, MPI_STATUSES_IGNORE)
                          : MPI_Testall(r->nreqs, r->reqs, &complete, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "relay: step %lld failed", (long long)r->current);
        if (!complete)
            return REDIST_SUCCESS;
        scatter_step(r);
        if (++r->current < r->sched.nsteps) {
            int err = post_step(p, r);
            if (err != REDIST_SUCCESS)
                return err;
        }
    }
    unpack_all(p, r);
    *done = 1;
    return REDIST_SUCCESS;
}

/* ---- The algorithm glue shared by indirect and hybrid ----------------------------------- */

typedef struct relay_state {
    redist__relay_table table;
    redist__relay *relay;
    redist__phases *phases; /* the two-phase route through cyclic(lcm(x, y)), or NULL */
} relay_state;

/* cyclic(x) -> cyclic(lcm) -> cyclic(y), each phase a table case run by the same algorithm. */
static int lcm_phases(struct redist_plan_s *p, relay_state *s, int64_t lcm, int d)
{
    redist_layout mid[1] = {NULL};
    redist_layout_create(1, p->src->extent, &lcm, p->src->grid, p->src->first, p->src->ranks,
                         p->src->order, &mid[0]);
    const char *names[2] = {p->algo->name, p->algo->name};
    return redist__phases_create(p, 2, mid, names, d, 0, &s->phases);
}

int redist__relay_applicable(const redist__case *c)
{
    return c->s.table || c->t.comm_size <= REDIST__SHIFT_MAX_RANKS ? REDIST_SUCCESS
                                                                   : REDIST_ERR_NOT_APPLICABLE;
}

double redist__relay_time(const redist__case *c, const redist__machine *m, int steps,
                          int shift_steps)
{
    double local = (double)c->t.max_local_bytes;
    double moved = shift_steps * local / 2.0 + local;
    return steps * m->startup + moved * (redist__fresh_per_byte(m) + 2.0 * m->copy_per_byte) +
           2.0 * local * m->copy_per_byte;
}

int redist__relay_lcm_tables(const redist__case *c, redist__rx *first, redist__rx *second)
{
    const redist__shape *s = &c->s;
    return s->lcm > 0 && redist__rx_init(s->lcm / s->x, s->P, first) == 0 &&
           redist__rx_init(s->lcm / s->y, s->P, second) == 0;
}

int redist__relay_algo_setup(struct redist_plan_s *p, redist__schedule_builder build,
                             redist__shift_builder shift, int d)
{
    relay_state *s = redist__calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    redist__row_schedule sched;
    int err;
    int64_t lcm = 0;
    if (redist__relay_table_of(p->src, p->dst, &s->table)) {
        err = build(&s->table.rx, d, &sched);
    } else if ((lcm = p->pair.s.lcm) > 0) {
        return lcm_phases(p, s, lcm, p->opt.hybrid_degree);
    } else {
        err = redist__relay_shift_table(p->src, p->dst, p->size, p->elsize, &s->table);
        if (err == REDIST_SUCCESS)
            err = shift(p->size, d, &sched);
    }
    return err != REDIST_SUCCESS ? err : redist__relay_create(p, &s->table, &sched, &s->relay);
}

int redist__relay_algo_start(struct redist_plan_s *p)
{
    relay_state *s = p->algo_state;
    if (s->phases != NULL)
        return redist__phases_start(p, s->phases);
    return redist__relay_start(p, &s->table, s->relay);
}

int redist__relay_algo_progress(struct redist_plan_s *p, int blocking, int *done)
{
    relay_state *s = p->algo_state;
    if (s->phases != NULL)
        return redist__phases_progress(p, s->phases, blocking, done);
    return redist__relay_progress(p, s->relay, blocking, done);
}

void redist__relay_algo_destroy(struct redist_plan_s *p)
{
    relay_state *s = p->algo_state;
    if (s == NULL)
        return;
    redist__relay_free(s->relay);
    redist__phases_free(s->phases);
    redist__free(s->table.sizes);
    redist__free(s);
    p->algo_state = NULL;
}

/* What one execute moves from this rank: relayed bytes included (docs/dev/table-schedules.md,
   Counting). A unit that starts and ends here counts as copied. */
void redist__relay_algo_stats(const struct redist_plan_s *p, redist_stats *st)
{
    const relay_state *s = p->algo_state;
    if (s->phases != NULL) {
        redist__phases_stats(s->phases, st);
        return;
    }
    const redist__relay *r = s->relay;
    st->messages_sent = st->messages_received = 0;
    st->bytes_sent = st->bytes_received = st->bytes_copied = 0;
    if (r == NULL || r->column < 0)
        return;
    for (int64_t k = 0; k < r->sched.nsteps; k++) {
        const relay_step *rs = &r->steps[k];
        st->messages_sent += rs->send_rank >= 0;
        st->messages_received += rs->recv_rank >= 0;
        st->bytes_sent += rs->send_bytes;
        st->bytes_received += rs->recv_bytes;
    }
    for (int64_t i = 0; i < r->K; i++) { /* units that never leave: straight src -> dst */
        const redist__msg *m = r->stays[i] ? incoming(p, &s->table, r->final_origin[i]) : NULL;
        st->bytes_copied += m != NULL ? m->nelems * (int64_t)p->elsize : 0;
    }
}

/* The same figures for every rank of a communicator of comm_size ranks, without MPI:
   out = {max messages sent, max bytes sent, total messages, total bytes}. */
int redist__relay_explain(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                          redist__schedule_builder build, redist__shift_builder shift, int d,
                          int comm_size, size_t elsize, int64_t out[4])
{
    int64_t lcm = redist__relay_table_of(src, dst, &(redist__relay_table){0})
                      ? 0
                      : redist__lcm_detect(src, dst);
    if (lcm > 0) { /* the two phases; their maxima add up to an upper bound */
        redist_layout mid = NULL;
        int64_t a[4], b[4];
        int err = redist_layout_create(1, src->extent, &lcm, src->grid, src->first, src->ranks,
                                       src->order, &mid);
        if (err == REDIST_SUCCESS)
            err = redist__relay_explain(src, mid, build, shift, d, comm_size, elsize, a);
        if (err == REDIST_SUCCESS)
            err = redist__relay_explain(mid, dst, build, shift, d, comm_size, elsize, b);
        redist_layout_free(&mid);
        for (int k = 0; k < 4; k++)
            out[k] = err == REDIST_SUCCESS ? a[k] + b[k] : 0;
        return err;
    }
    redist__relay_table t;
    redist__row_schedule sched;
    int err;
    if (redist__relay_table_of(src, dst, &t)) {
        err = build(&t.rx, d, &sched);
    } else {
        err = redist__relay_shift_table(src, dst, comm_size, elsize, &t);
        if (err == REDIST_SUCCESS && (err = shift(comm_size, d, &sched)) != REDIST_SUCCESS)
            redist__free(t.sizes);
    }
    if (err != REDIST_SUCCESS)
        return err;
    int64_t P = t.P, *where = redist__malloc((size_t)P * sizeof *where);
    int64_t *next = redist__malloc((size_t)P * sizeof *next),
            *msgs = redist__calloc((size_t)P, sizeof *msgs);
    int64_t *bytes = redist__calloc((size_t)P, sizeof *bytes);
    if (where == NULL || next == NULL || msgs == NULL || bytes == NULL)
        err = REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS && t.dual)
        reverse_schedule(&sched, next);
    for (int64_t k = 0; err == REDIST_SUCCESS && k < sched.nsteps; k++)
        for (int64_t c = 0; c < P; c++)
            msgs[c] += sched.steps[k].to[c] != c;
    for (int64_t i = 0; err == REDIST_SUCCESS && i < t.K; i++) {
        for (int64_t c = 0; c < P; c++)
            where[c] = c;
        for (int64_t k = 0; k < sched.nsteps; k++) {
            const redist__row_step *st = &sched.steps[k];
            int64_t in = 0;
            while (in < st->nrows && st->rows[in] != i)
                in++;
            if (in == st->nrows)
                continue;
            for (int64_t c = 0; c < P; c++) {
                if (st->to[c] != c)
                    bytes[c] += unit_bytes(elsize, &t, i, where[c]);
                next[st->to[c]] = where[c];
            }
            memcpy(where, next, (size_t)P * sizeof *where);
        }
    }
    /* Every line of processes along the table's dimension runs the same schedule; its
       bytes scale with the line's cross-section (1 for 1-D and for the shift table). */
    int64_t lines = 1, max_cross = 1, sum_cross = 1;
    if (t.sizes == NULL && src->ndims > 1) {
        lines = max_cross = sum_cross = 0;
        for (int k = 0; k < src->nprocs; k++) {
            int rank = src->ranks[k];
            if (redist__table_column(src, &t.tc, rank) != 0)
                continue;
            int64_t cross = redist__table_cross_section(src, &t.tc, rank);
            lines++;
            sum_cross += cross;
            max_cross = cross > max_cross ? cross : max_cross;
        }
    }
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int64_t c = 0; err == REDIST_SUCCESS && c < P; c++) {
        out[0] = msgs[c] > out[0] ? msgs[c] : out[0];
        out[1] = bytes[c] * max_cross > out[1] ? bytes[c] * max_cross : out[1];
        out[2] += msgs[c] * lines;
        out[3] += bytes[c] * sum_cross;
    }
    redist__free(where);
    redist__free(next);
    redist__free(msgs);
    redist__free(bytes);
    redist__free(t.sizes);
    redist__rowsched_free(&sched);
    return err;
}
