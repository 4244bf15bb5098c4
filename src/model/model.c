/* The cost model: the GDM / Hockney model of paper 000 §3.2 (a message of m bytes costs
 * T_d + m tau_d; a step in which every rank sends and receives at most one message costs
 * the same as one message), plus a local copy rate for packing, unpacking and the self
 * part. One refinement the paper's model lacks: messages posted together (direct-async, the
 * MPI collectives) overlap, so only the first pays T_d and each further one a small
 * per-message cost; a synchronised step (direct, indirect, hybrid, multiphase) pays T_d.
 * Parameters default to figures measured here (bench_paper000 over shared memory, 8 ranks
 * on 2 cores: about 6 us per synchronised step, 0.5 us per further message in flight);
 * `redist calibrate` (a later issue) will measure them on each machine.
 *
 * Also the summaries the model works on: global maxima of per-rank traffic.
 */
#include "index/circulant.h"
#include "coll/coll.h"
#include "internal.h"
#include "index/rowsched.h"

#include <math.h>

#include <string.h>

static const redist__model default_model = {
    .startup = 6.0e-6,            /* T_d: a synchronised step, 8 ranks on 2 cores, shm */
    .per_message = 0.5e-6,        /* further messages posted at once overlap */
    .per_byte = 1.0 / 8.0e9,      /* tau_d: single-copy transfers run at memcpy speed */
    .copy_per_byte = 1.0 / 8.0e9, /* memcpy of large arrays, one rank of four on 2 cores */
    .per_piece = 15e-9,           /* Open MPI datatype engine, per contiguous piece */
};

const redist__model *redist__model_default(void)
{
    return &default_model;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t side_max_count(const redist__side *s, int64_t m)
{
    for (int i = 0; i < s->nmsgs; i++)
        m = max64(m, s->msgs[i].nelems);
    return m;
}

/* The largest run length or count the messages use (after contiguous levels merged): what
   a derived datatype's int arguments must hold. */
static int64_t runs_max_value(const redist__side *s, int64_t m)
{
    for (int i = 0; i < s->nmsgs; i++)
        for (int l = 0; l < s->msgs[i].nlevels; l++) {
            const redist__level *L = &s->msgs[i].levels[l];
            for (int64_t r = 0; r < L->nruns; r++)
                m = max64(m, max64(L->runs[r].len, L->runs[r].count));
        }
    return m;
}

/* Multiphase: one direct redistribution per prime factor of K (rowsched.h). */
static void multiphase_counts(redist__summary *s, int64_t K, int64_t P)
{
    redist__multiphase_counts(K, P, &s->multiphase_steps, &s->multiphase_phases);
    if (s->multiphase_phases == 0)
        s->multiphase_phases = 1; /* K = 1: one phase, nothing moves */
}

/* Corollary 2's data term for a relay schedule: every shift step forwards half of a rank's
   data, and the last move carries all of it, with a gather and a scatter copy per step. */
static double relay_time(const redist__summary *s, int steps, int shift_steps)
{
    const redist__model *m = redist__model_default();
    double local = (double)s->max_local_bytes;
    double moved = shift_steps * local / 2.0 + local;
    return steps * m->startup + moved * (m->per_byte + 2.0 * m->copy_per_byte) +
           2.0 * local * m->copy_per_byte;
}

/* Outside the table case indirect and hybrid run Bruck's schedule over the communicator's
   shift table (rowsched.h). */
static void shift_table_counts(redist__summary *s, int hybrid_degree)
{
    int64_t P = s->comm_size;
    int L = 0;
    while (((int64_t)1 << L) < P)
        L++;
    s->indirect_steps = redist__rowsched_bruck_steps(P, -1);
    s->indirect_shift_steps = s->indirect_steps;
    int best = hybrid_degree;
    if (best < 0) {
        double best_time = 0;
        for (int d = 0; d <= L; d++) {
            double t = relay_time(s, redist__rowsched_bruck_steps(P, d), d);
            if (best < 0 || t < best_time) {
                best = d;
                best_time = t;
            }
        }
    }
    s->hybrid_degree = best;
    s->hybrid_steps = redist__rowsched_bruck_steps(P, best);
}

/* Indirect's and hybrid's steps for one table case (added to the figures if `add`): the
   model picks hybrid's d when the option leaves it (-1). */
static void table_counts(redist__summary *s, const redist__rx *rx, int hybrid_degree, int add)
{
    int top = redist__rowsched_max_degree(rx), best = hybrid_degree;
    if (best < 0) { /* the model's choice: the d with the smallest predicted time */
        double best_time = 0;
        for (int d = 0; d <= top; d++) {
            double t = relay_time(s, redist__rowsched_hybrid_steps(rx, d), d);
            if (best < 0 || t < best_time) {
                best = d;
                best_time = t;
            }
        }
    }
    int ind = redist__rowsched_indirect_steps(rx);
    int hyb = redist__rowsched_hybrid_steps(rx, best);
    s->indirect_steps = (add ? s->indirect_steps : 0) + ind;
    s->indirect_shift_steps = (add ? s->indirect_shift_steps : 0) + top;
    s->hybrid_steps = (add ? s->hybrid_steps : 0) + hyb;
    s->hybrid_degree = best;
}

void redist__summary_tables(redist__summary *s, const struct redist_layout_s *src,
                            const struct redist_layout_s *dst, int hybrid_degree)
{
    int dual = 0;
    s->ratio_K = redist__ratio_detect(src, dst, &dual);
    s->same_line_1d = src->ndims == 1 && dst->ndims == 1 && src->grid[0] == dst->grid[0] &&
                      src->first[0] == dst->first[0] && redist__same_global_shape(src, dst);
    for (int c = 0; s->same_line_1d && c < src->nprocs; c++)
        s->same_line_1d = src->ranks[c] == dst->ranks[c];
    s->x_block = src->block[0];
    s->y_block = dst->block[0];
    s->bmmc_rounds = redist__bpc_rounds(src, dst);
    if (s->ratio_K > 0)
        multiphase_counts(s, s->ratio_K, src->grid[0]);
    redist__table_case tc;
    if (redist__table_detect(src, dst, &tc)) {
        s->table_K = tc.rx.K;
        s->direct_steps = (int)redist__rx_moving_rows(&tc.rx);
        table_counts(s, &tc.rx, hybrid_degree, 0);
        return;
    }
    int64_t lcm = redist__lcm_detect(src, dst), P = src->grid[0];
    if (lcm == 0) {
        shift_table_counts(s, hybrid_degree);
        return;
    }
    /* Two phases, cyclic(x) -> cyclic(lcm) -> cyclic(y), each a table case. */
    redist__rx first, second;
    redist__rx_init(lcm / src->block[0], P, &first);
    redist__rx_init(lcm / dst->block[0], P, &second);
    table_counts(s, &first, hybrid_degree, 0);
    int degree = s->hybrid_degree;
    table_counts(s, &second, hybrid_degree, 1);
    s->hybrid_degree = degree;
}

/* Contiguous pieces of a message on the source side (is_dst = 0) or the destination side:
   the replicas of the innermost runs, times the elements of the outer levels; element by
   element on a side whose innermost dimension is not its fastest. */
static int64_t msg_pieces(const redist__msg *m, int is_dst)
{
    if (m->nlevels == 0 || m->nelems == 0)
        return 0;
    const redist__level *in = &m->levels[m->nlevels - 1];
    if (is_dst && in->dst_stride != 1)
        return m->nelems;
    int64_t inner = 0, inner_elems = 0;
    for (int64_t r = 0; r < in->nruns; r++) {
        inner += in->runs[r].count;
        inner_elems += in->runs[r].len * in->runs[r].count;
    }
    return inner_elems ? m->nelems / inner_elems * inner : 0;
}

static int64_t side_pieces(const redist__side *s, int is_dst)
{
    int64_t n = 0;
    for (int i = 0; i < s->nmsgs; i++)
        n += msg_pieces(&s->msgs[i], is_dst);
    return n;
}

void redist__summary_local(const redist__side *send, const redist__side *recv,
                           const redist__msg *self, int64_t src_count, int64_t dst_count,
                           size_t elsize, int64_t vals[REDIST__S_NVALS])
{
    int64_t es = (int64_t)elsize;
    vals[REDIST__S_MESSAGES] = max64(send->nmsgs, recv->nmsgs);
    vals[REDIST__S_BYTES] = max64(send->total_elems, recv->total_elems) * es;
    vals[REDIST__S_COPY] = self ? self->nelems * es : 0;
    vals[REDIST__S_LOCAL] = max64(src_count, dst_count) * es;
    vals[REDIST__S_MAXCOUNT] = side_max_count(recv, side_max_count(send, 0));
    vals[REDIST__S_BUFFER] = max64(send->total_elems, recv->total_elems);
    vals[REDIST__S_RUNVALUE] = runs_max_value(recv, runs_max_value(send, 0));
    vals[REDIST__S_SENT_MESSAGES] = send->nmsgs;
    vals[REDIST__S_SENT_BYTES] = send->total_elems * es;
    vals[REDIST__S_PIECES] = max64(side_pieces(send, 0), side_pieces(recv, 1));
}

void redist__shift_flags(const redist__side *send, int rank, int size, unsigned char flags[])
{
    for (int i = 0; i < send->nmsgs; i++)
        flags[((send->msgs[i].peer - rank) % size + size) % size] = 1;
}

void redist__summary_finish(const int64_t vals[REDIST__S_NVALS], const unsigned char flags[],
                            int size, size_t elsize, redist__summary *s)
{
    memset(s, 0, sizeof *s);
    s->alltoall_algo = -1; /* the default: MPI_Ialltoall */
    s->comm_size = size;
    s->elsize = elsize;
    s->max_messages = vals[REDIST__S_MESSAGES];
    s->max_bytes = vals[REDIST__S_BYTES];
    s->max_copy_bytes = vals[REDIST__S_COPY];
    s->max_local_bytes = vals[REDIST__S_LOCAL];
    s->max_count = vals[REDIST__S_MAXCOUNT];
    s->max_buffer = vals[REDIST__S_BUFFER];
    s->max_run_value = vals[REDIST__S_RUNVALUE];
    s->max_sent_messages = vals[REDIST__S_SENT_MESSAGES];
    s->max_sent_bytes = vals[REDIST__S_SENT_BYTES];
    s->max_pieces = vals[REDIST__S_PIECES];
    for (int k = 1; flags != NULL && k < size; k++)
        s->direct_steps += flags[k] != 0;
}

/* alltoall-padded's exchange of P blocks of the largest message: MPI_Ialltoall keeps every
   message in flight; paper 002's all-to-all costs its formula with t_s = one synchronised
   step and t_w = tau_d (coll.h), plus one local copy of the padded blocks that its
   rotations and regroupings make. */
static double padded_exchange_time(const redist__summary *s)
{
    const redist__model *m = redist__model_default();
    double slot = (double)(s->max_count * (int64_t)s->elsize);
    int P = s->comm_size;
    if (s->alltoall_algo < 0)
        return m->startup + m->per_message * (P - 1) + m->per_byte * slot * (P - 1);
    return redist__coll_alltoall_cost(s->alltoall_algo, P, slot, m->startup, m->per_byte) +
           m->copy_per_byte * slot * P;
}

/* Time of one execute under the model, for a given transport.
   PACK: we pack each sent byte and unpack each received one (two local copies); between
   ranks of a node the shared-memory window makes that the whole cost, beyond a node the
   bytes also cross the wire (tau_d). DATATYPE: MPI moves each byte once (tau_d) but pays per
   contiguous piece in its datatype engine. Every algorithm copies the self part once. */
double redist__predict_transport(const redist__algorithm *a, const redist__summary *s,
                                 int transport)
{
    const redist__model *m = redist__model_default();
    double copy = m->copy_per_byte * (double)s->max_copy_bytes;
    double bytes = (double)s->max_bytes;
    double moved = transport == REDIST_TRANSPORT_DATATYPE
                       ? m->per_byte * bytes + m->per_piece * (double)s->max_pieces
                       : 2.0 * m->copy_per_byte * bytes;
    if (strcmp(a->name, "indirect") == 0) /* all steps but the final permutation shift */
        return relay_time(s, s->indirect_steps, s->indirect_shift_steps);
    if (strcmp(a->name, "hybrid") == 0)
        return relay_time(s, s->hybrid_steps, s->hybrid_degree);
    if (strcmp(a->name, "direct") == 0) /* one synchronised step per shift */
        return copy + moved + m->startup * s->direct_steps;
    if (strcmp(a->name, "alltoallv") == 0) /* packs, and the collective touches every peer */
        return copy + moved + m->per_byte * bytes + m->startup +
               m->per_message * (s->comm_size - 1);
    if (strcmp(a->name, "bmmc") == 0) /* one exchange per round, two permuting copies */
        return copy + 3.0 * m->copy_per_byte * (double)s->max_local_bytes + m->per_byte * bytes +
               m->startup * s->bmmc_rounds;
    if (strcmp(a->name, "general") == 0) /* index arithmetic for every element */
        return copy + moved + m->startup + m->per_message * (double)s->max_messages +
               2e-9 * (double)s->max_local_bytes / (double)s->elsize;
    if (strcmp(a->name, "gcd") == 0 || strcmp(a->name, "lcm") == 0) /* two phases */
        return 2.0 * (copy + moved + m->startup + m->per_message * (double)s->max_messages);
    if (strcmp(a->name, "multiphase") == 0) /* every phase moves all the data */
        return s->multiphase_phases * (copy + moved) + m->startup * s->multiphase_steps;
    if (strcmp(a->name, "alltoall-padded") == 0) /* every peer gets the largest message */
        return copy + 2.0 * m->copy_per_byte * bytes + padded_exchange_time(s);
    if (strcmp(a->name, "alltoallw") == 0) /* datatypes; the collective touches every peer */
        return copy + moved + m->startup + m->per_message * (s->comm_size - 1);
    /* direct-async: every message in flight at once */
    double msgs = (double)s->max_messages;
    return copy + moved + (msgs > 0 ? m->startup + m->per_message * (msgs - 1) : 0);
}

int redist__choose_transport(const redist__algorithm *a, const redist__summary *s, int requested)
{
    if (strcmp(a->name, "alltoallw") == 0)
        return REDIST_TRANSPORT_DATATYPE;
    if (!a->has_transports)
        return REDIST_TRANSPORT_PACK;
    int datatypes_fit = s->max_run_value <= REDIST__MAX_INT_COUNT;
    if (requested == REDIST_TRANSPORT_PACK || !datatypes_fit)
        return REDIST_TRANSPORT_PACK;
    if (requested == REDIST_TRANSPORT_DATATYPE)
        return REDIST_TRANSPORT_DATATYPE;
    return redist__predict_transport(a, s, REDIST_TRANSPORT_DATATYPE) <
                   redist__predict_transport(a, s, REDIST_TRANSPORT_PACK)
               ? REDIST_TRANSPORT_DATATYPE
               : REDIST_TRANSPORT_PACK;
}

double redist__predict(const redist__algorithm *a, const redist__summary *s)
{
    return redist__predict_transport(a, s, redist__choose_transport(a, s, REDIST_TRANSPORT_AUTO));
}
