/* The cost model's shared parts: the GDM / Hockney model of [LBP96] §3.2 (a message of m bytes
 * costs T_d + m tau_d; a step in which every rank sends and receives at most one message costs the
 * same as one message), plus a local copy rate for packing, unpacking and the self part. One
 * refinement the paper's model lacks: messages posted together (direct-async, the MPI collectives)
 * overlap, so only the first pays T_d and each further one a small per-message cost; a synchronised
 * step (direct, indirect, hybrid, multiphase) pays T_d. Parameters default to figures measured here
 * (bench_lbp96 over shared memory, 8 ranks on 2 cores: about 6 us per synchronised step, 0.5 us
 * per further message in flight); `redist calibrate` measures them on each machine (machine.c
 * reads its file).
 *
 * Also the traffic the model works on: global maxima of per-rank quantities. Each
 * algorithm's own cost is stated and computed in its file (src/algo/).
 */
#include "model/model.h"

#include <string.h>

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

void redist__traffic_local(const redist__side *send, const redist__side *recv,
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
    vals[REDIST__S_PACKED] = send->total_elems + recv->total_elems;
    vals[REDIST__S_RUNS] = side_pieces(send, 0) + side_pieces(recv, 1);
    vals[REDIST__S_SELF_RUNS] = self ? max64(msg_pieces(self, 0), msg_pieces(self, 1)) : 0;
    /* one node: every message on it (ranks per node: the communicator's, set at the end) */
    vals[REDIST__S_NODES] = 1;
    vals[REDIST__S_NODE_RANKS] = 0;
    vals[REDIST__S_REMOTE_MESSAGES] = vals[REDIST__S_REMOTE_BYTES] = vals[REDIST__S_NODE_BYTES] = 0;
    vals[REDIST__S_REMOTE_SENT_MESSAGES] = vals[REDIST__S_REMOTE_SENT_BYTES] = 0;
    vals[REDIST__S_AWARE_SENT_MESSAGES] = send->nmsgs;
    vals[REDIST__S_AWARE_SENT_BYTES] = send->total_elems * es;
    vals[REDIST__S_LOCAL_MESSAGES] = vals[REDIST__S_MESSAGES];
    vals[REDIST__S_PAIR_MESSAGES] = vals[REDIST__S_PAIR_BYTES] = 0;
    vals[REDIST__S_GATHER_MESSAGES] = vals[REDIST__S_MESSAGES];
    vals[REDIST__S_GATHER_BYTES] = vals[REDIST__S_BYTES];
}

void redist__shift_flags(const redist__side *send, int rank, int size, unsigned char flags[])
{
    for (int i = 0; i < send->nmsgs; i++)
        flags[((send->msgs[i].peer - rank) % size + size) % size] = 1;
}

void redist__traffic_finish(const int64_t vals[REDIST__S_NVALS], const unsigned char flags[],
                            int size, size_t elsize, redist__traffic *s)
{
    memset(s, 0, sizeof *s);
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
    s->max_packed = vals[REDIST__S_PACKED];
    s->max_runs = vals[REDIST__S_RUNS];
    s->max_self_runs = vals[REDIST__S_SELF_RUNS];
    for (int k = 1; flags != NULL && k < size; k++)
        s->shift_steps += flags[k] != 0;
    redist__node_traffic *n = &s->n;
    n->nodes = (int)vals[REDIST__S_NODES];
    n->ranks_per_node = vals[REDIST__S_NODE_RANKS] > 0 ? (int)vals[REDIST__S_NODE_RANKS] : size;
    n->max_remote_messages = vals[REDIST__S_REMOTE_MESSAGES];
    n->max_remote_bytes = vals[REDIST__S_REMOTE_BYTES];
    n->max_remote_sent_messages = vals[REDIST__S_REMOTE_SENT_MESSAGES];
    n->max_remote_sent_bytes = vals[REDIST__S_REMOTE_SENT_BYTES];
    n->max_local_messages = vals[REDIST__S_LOCAL_MESSAGES];
    n->max_node_bytes = vals[REDIST__S_NODE_BYTES];
    n->max_pair_messages = vals[REDIST__S_PAIR_MESSAGES];
    n->max_pair_bytes = vals[REDIST__S_PAIR_BYTES];
    n->max_gather_messages = vals[REDIST__S_GATHER_MESSAGES];
    n->max_gather_bytes = vals[REDIST__S_GATHER_BYTES];
    n->max_aware_sent_messages = vals[REDIST__S_AWARE_SENT_MESSAGES];
    n->max_aware_sent_bytes = vals[REDIST__S_AWARE_SENT_BYTES];
}

double redist__cost_moves(const redist__case *c, const redist__machine *m, int transport)
{
    return redist__cost_moves_via(c, m, transport, 0);
}

double redist__cost_network(const redist__case *c, const redist__machine *m)
{
    const redist__node_traffic *n = &c->t.n;
    if (n->nodes <= 1)
        return 0.0;
    double start = m->remote_startup > m->per_message ? m->remote_startup - m->per_message : 0.0;
    return start * (double)n->max_remote_messages + m->remote_per_byte * (double)n->max_node_bytes;
}

double redist__cost_agreement(const redist__case *c, const redist__machine *m, int reductions)
{
    if (reductions <= 0 || c->t.n.nodes <= 1)
        return 0.0;
    int rounds = 0;
    for (int64_t reach = 1; reach < c->t.comm_size; reach *= 2)
        rounds++;
    return m->remote_startup * rounds * reductions;
}

double redist__cost_network_spread(const redist__case *c, const redist__machine *m, double messages,
                                   double bytes)
{
    const redist__node_traffic *n = &c->t.n;
    double P = (double)c->t.comm_size, k = (double)n->ranks_per_node;
    if (n->nodes <= 1 || P <= 1.0)
        return 0.0;
    double off = (P - k) / (P - 1.0); /* the share of a rank's peers on other nodes */
    double start = m->remote_startup > m->per_message ? m->remote_startup - m->per_message : 0.0;
    return off * (start * messages + m->remote_per_byte * k * bytes);
}

double redist__cost_moves_via(const redist__case *c, const redist__machine *m, int transport,
                              int through_memory)
{
    const redist__traffic *t = &c->t;
    double copy = m->copy_per_byte * (double)t->max_copy_bytes +
                  m->copy_per_run * (double)t->max_self_runs + redist__cost_network(c, m),
           bytes = (double)t->max_bytes;
    if (transport == REDIST_TRANSPORT_DATATYPE)
        return copy + m->per_byte * bytes + m->per_piece * (double)t->max_pieces;
    double runs = m->copy_per_run * (double)t->max_runs;
    if (through_memory && m->shared_arrays) /* one copy, from the sender's src (onecopy.c) */
        return copy + m->window_per_byte * bytes + runs;
    if (through_memory) /* packed here, unpacked from the sender's window by the receiver */
        return copy + (m->copy_per_byte + m->window_per_byte) * bytes + runs;
    return copy + (2.0 * m->copy_per_byte + redist__fresh_per_byte(m)) * bytes + runs;
}

double redist__cost_staging(const redist__traffic *t, const redist__machine *m, int64_t stage_bytes,
                            double staged)
{
    /* the unstaged messages: a kernel each (their copy is the moves' one-copy term, or the
       network's) */
    double direct = m->device_launch * (1.0 - staged) * (double)t->max_messages;
    int64_t stage = stage_bytes > 0 ? stage_bytes : 1;
    double pieces = staged > 0 ? (double)(t->max_bytes / stage + (t->max_bytes % stage != 0)) : 0;
    double posted = 6.0 * staged * (double)t->max_messages + 4.0 * pieces + 2.0;
    return 2.0 * m->device_per_byte * staged * (double)t->max_bytes + m->device_launch * posted +
           direct;
}
