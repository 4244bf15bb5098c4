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
 * each slot holds before each step; that is pure and costs O(steps x K x P) at most. Explain
 * walks the same rows with the same walker (row_walk) for every column at once.
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

/* One row's journey through a schedule (units never change rows), shared by the plan-time
   simulation and explain so that both walk it alike. row_walk_next stops at each step that
   moves the row, with at[c] the origin column of the unit column c holds before the step and
   after[c] the one it holds after it; once it returns 0, at[] holds the row's final state. */
typedef struct row_walk {
    const redist__row_schedule *sched;
    int64_t row;
    int64_t step;     /* the step stopped at */
    int64_t position; /* the row's index among that step's rows */
    int64_t *at, *after;
} row_walk;

static void row_walk_begin(row_walk *w, const redist__row_schedule *sched, int64_t row, int64_t *at,
                           int64_t *after)
{
    *w = (row_walk){.sched = sched, .row = row, .step = -1, .at = at, .after = after};
    for (int64_t col = 0; col < sched->P; col++)
        at[col] = col;
}

static int row_walk_next(row_walk *w)
{
    if (w->step >= 0 && w->step < w->sched->nsteps) { /* the step stopped at is done */
        int64_t *done = w->at;
        w->at = w->after;
        w->after = done;
    }
    while (++w->step < w->sched->nsteps) {
        const redist__row_step *st = &w->sched->steps[w->step];
        w->position = 0;
        while (w->position < st->nrows && st->rows[w->position] != w->row)
            w->position++;
        if (w->position == st->nrows)
            continue;
        for (int64_t col = 0; col < w->sched->P; col++)
            w->after[st->to[col]] = w->at[col];
        return 1;
    }
    return 0;
}

/* Follows row i through the schedule, recording for this rank's column the bytes it sends
   and receives in each step, the slot capacity and the unit it holds at the end. at and after
   are scratch arrays of P entries. */
static void simulate_row(redist__relay *r, const redist__relay_table *t, size_t elsize, int64_t i,
                         int64_t *at, int64_t *after)
{
    int64_t c = r->column, cap = unit_bytes(elsize, t, i, c);
    r->stays[i] = 1;
    row_walk w;
    row_walk_begin(&w, &r->sched, i, at, after);
    while (row_walk_next(&w)) {
        if (r->sched.steps[w.step].to[c] == c)
            continue;
        relay_step *rs = &r->steps[w.step];
        r->stays[i] = 0;
        rs->send_size[w.position] = unit_bytes(elsize, t, i, w.at[c]);
        rs->recv_size[w.position] = unit_bytes(elsize, t, i, w.after[c]);
        if (rs->recv_size[w.position] > cap)
            cap = rs->recv_size[w.position];
    }
    r->final_origin[i] = w.at[c];
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

/* The schedule a pair runs, in execution order, and its table: the table case's schedule
   (build), the dual's reversed, or else the shift table's over comm_size ranks (shift). Not
   for a pair on the lcm route. On failure nothing is left to free. */
static int schedule_of(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                       redist__schedule_builder build, redist__shift_builder shift, int d,
                       int comm_size, size_t elsize, redist__relay_table *t,
                       redist__row_schedule *sched)
{
    int err;
    memset(sched, 0, sizeof *sched);
    if (redist__relay_table_of(src, dst, t))
        err = build(&t->rx, d, sched);
    else if ((err = redist__relay_shift_table(src, dst, comm_size, elsize, t)) == REDIST_SUCCESS)
        err = shift(comm_size, d, sched);
    if (err == REDIST_SUCCESS && t->dual) {
        int64_t *scratch = redist__malloc((size_t)t->P * sizeof *scratch);
        if (scratch != NULL)
            reverse_schedule(sched, scratch);
        err = scratch != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
        redist__free(scratch);
    }
    if (err != REDIST_SUCCESS) {
        redist__rowsched_free(sched);
        redist__free(t->sizes);
        t->sizes = NULL;
    }
    return err;
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
    int64_t *walk = redist__malloc(2 * (size_t)t->P * sizeof *walk); /* simulate_row's at, after */
    r->slot = redist__calloc((size_t)t->K, sizeof *r->slot);
    r->slot_cap = redist__calloc((size_t)t->K, sizeof *r->slot_cap);
    r->final_origin = redist__calloc((size_t)t->K, sizeof *r->final_origin);
    r->stays = redist__calloc((size_t)t->K, 1);
    int err = walk && r->slot && r->slot_cap && r->final_origin && r->stays ? alloc_steps(r, t, p)
                                                                            : REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS) {
        for (int64_t i = 0; i < t->K; i++)
            simulate_row(r, &r->table, p->elsize, i, walk, walk + t->P);
        err = finish_setup(p, r);
    }
    redist__free(walk);
    return err;
}

/* This rank's message on `side` (p->send or p->recv) with the rank of table column `col`:
   the self part if that is this rank, NULL if there is none (an empty unit). A unit moves
   the send message to its final column, and ends as the receive message from its origin. */
static const redist__msg *unit_message(const struct redist_plan_s *p, const redist__relay_table *t,
                                       const redist__side *side, int64_t col)
{
    int peer = rank_of(t, p, col);
    if (peer == p->rank)
        return p->self;
    for (int k = 0; k < side->nmsgs; k++)
        if (side->msgs[k].peer == peer)
            return &side->msgs[k];
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
        const redist__msg *m = unit_message(p, t, &p->send, final_column(t, i, r->column));
        if (m != NULL && !p->dry && !r->stays[i])
            redist__par_move(p, REDIST__PACK, m, p->cur_src, r->slot[i]);
    }
    return r->sched.nsteps > 0 ? post_step(p, r) : REDIST_SUCCESS;
}

static void unpack_all(struct redist_plan_s *p, redist__relay *r)
{
    for (int64_t i = 0; i < r->K; i++) {
        const redist__msg *m = unit_message(p, &r->table, &p->recv, r->final_origin[i]);
        if (m == NULL || p->dry)
            continue;
        if (r->stays[i]) /* this rank's own unit, never moved: straight from src to dst */
            redist__par_move(p, REDIST__COPY, m, p->cur_src, p->cur_dst);
        else
            redist__par_move(p, REDIST__UNPACK, m, r->slot[i], p->cur_dst);
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

/* cyclic(lcm) on the source's processes: the middle of the lcm route. */
static int lcm_middle(const struct redist_layout_s *src, int64_t lcm, redist_layout *mid)
{
    return redist_layout_create(1, src->extent, &lcm, src->grid, src->first, src->ranks, src->order,
                                mid);
}

/* cyclic(x) -> cyclic(lcm) -> cyclic(y), each phase a table case run by the same algorithm.
   The phases are created on every rank, also where the middle layout failed (collective). */
static int lcm_phases(struct redist_plan_s *p, relay_state *s, int64_t lcm, int d)
{
    redist_layout mid[1] = {NULL};
    lcm_middle(p->src, lcm, &mid[0]);
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
    double local =
        (double)(c->t.max_bytes > c->t.max_local_bytes ? c->t.max_bytes : c->t.max_local_bytes);
    double moved = shift_steps * local / 2.0 + local;
    return steps * m->startup + moved * (redist__fresh_per_byte(m) + 2.0 * m->copy_per_byte) +
           2.0 * local * m->copy_per_byte + redist__cost_network_spread(c, m, steps, moved);
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
    if (p->pair.s.lcm > 0)
        return lcm_phases(p, s, p->pair.s.lcm, p->opt.hybrid_degree);
    redist__row_schedule sched;
    int err = schedule_of(p->src, p->dst, build, shift, d, p->size, p->elsize, &s->table, &sched);
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
        const redist__msg *m =
            r->stays[i] ? unit_message(p, &s->table, &p->recv, r->final_origin[i]) : NULL;
        st->bytes_copied += m != NULL ? m->nelems * (int64_t)p->elsize : 0;
    }
}

/* Messages and bytes each column of the table sends in one execute of the schedule: a
   message in every step that moves it, carrying the units it holds in the step's rows.
   at and after are scratch arrays of P entries. */
static void column_traffic(const redist__relay_table *t, const redist__row_schedule *sched,
                           size_t elsize, int64_t *msgs, int64_t *bytes, int64_t *at,
                           int64_t *after)
{
    for (int64_t k = 0; k < sched->nsteps; k++)
        for (int64_t c = 0; c < t->P; c++)
            msgs[c] += sched->steps[k].to[c] != c;
    for (int64_t i = 0; i < t->K; i++) {
        row_walk w;
        row_walk_begin(&w, sched, i, at, after);
        while (row_walk_next(&w))
            for (int64_t c = 0; c < t->P; c++)
                if (sched->steps[w.step].to[c] != c)
                    bytes[c] += unit_bytes(elsize, t, i, w.at[c]);
    }
}

/* Every line of processes along the table's dimension runs the same schedule; its bytes
   scale with the line's cross-section (1 for 1-D and for the shift table). */
static void sum_over_lines(const struct redist_layout_s *src, const redist__relay_table *t,
                           const int64_t *msgs, const int64_t *bytes, redist__traffic_summary *out)
{
    int64_t lines = 1, max_cross = 1, sum_cross = 1;
    if (t->sizes == NULL && src->ndims > 1) {
        lines = max_cross = sum_cross = 0;
        for (int k = 0; k < src->nprocs; k++) {
            int rank = src->ranks[k];
            if (redist__table_column(src, &t->tc, rank) != 0)
                continue;
            int64_t cross = redist__table_cross_section(src, &t->tc, rank);
            lines++;
            sum_cross += cross;
            max_cross = cross > max_cross ? cross : max_cross;
        }
    }
    *out = (redist__traffic_summary){0};
    for (int64_t c = 0; c < t->P; c++) {
        int64_t line_bytes = bytes[c] * max_cross;
        if (msgs[c] > out->max_messages_per_rank)
            out->max_messages_per_rank = msgs[c];
        if (line_bytes > out->max_bytes_per_rank)
            out->max_bytes_per_rank = line_bytes;
        out->total_messages += msgs[c] * lines;
        out->total_bytes += bytes[c] * sum_cross;
    }
}

/* What one schedule (a table case or the shift table) sends on all ranks. */
static int explain_schedule(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                            redist__schedule_builder build, redist__shift_builder shift, int d,
                            int comm_size, size_t elsize, redist__traffic_summary *out)
{
    redist__relay_table t;
    redist__row_schedule sched;
    int err = schedule_of(src, dst, build, shift, d, comm_size, elsize, &t, &sched);
    if (err != REDIST_SUCCESS)
        return err;
    int64_t P = t.P, *work = redist__calloc(4 * (size_t)P, sizeof *work); /* 4 arrays of P */
    if (work != NULL) {
        int64_t *msgs = work, *bytes = work + P;
        column_traffic(&t, &sched, elsize, msgs, bytes, work + 2 * P, work + 3 * P);
        sum_over_lines(src, &t, msgs, bytes, out);
    }
    err = work != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    redist__free(work);
    redist__free(t.sizes);
    redist__rowsched_free(&sched);
    return err;
}

int redist__relay_explain(const redist__case *c, redist__schedule_builder build,
                          redist__shift_builder shift, int d, redist__traffic_summary *out)
{
    *out = (redist__traffic_summary){0};
    if (c->s.lcm == 0)
        return explain_schedule(c->src, c->dst, build, shift, d, c->t.comm_size, c->t.elsize, out);
    /* The two phases of the lcm route: their maxima add up to an upper bound. */
    redist_layout mid = NULL;
    redist__traffic_summary first, second;
    int err = lcm_middle(c->src, c->s.lcm, &mid);
    if (err == REDIST_SUCCESS)
        err = explain_schedule(c->src, mid, build, shift, d, c->t.comm_size, c->t.elsize, &first);
    if (err == REDIST_SUCCESS)
        err = explain_schedule(mid, c->dst, build, shift, d, c->t.comm_size, c->t.elsize, &second);
    redist_layout_free(&mid);
    if (err != REDIST_SUCCESS)
        return err;
    out->max_messages_per_rank = first.max_messages_per_rank + second.max_messages_per_rank;
    out->max_bytes_per_rank = first.max_bytes_per_rank + second.max_bytes_per_rank;
    out->total_messages = first.total_messages + second.total_messages;
    out->total_bytes = first.total_bytes + second.total_bytes;
    return REDIST_SUCCESS;
}
