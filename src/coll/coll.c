/* Shared pieces of the basic communication operations (coll.h). */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

void redist__coll_fingerprints(redist__fingerprints *fp, int64_t bytes, int root,
                               const char *algorithm)
{
    fp->n = 0;
    redist__fp_add(fp, "count (bytes per block)", &bytes, sizeof bytes);
    redist__fp_add(fp, "root", &root, sizeof root);
    redist__fp_add_string(fp, "algorithm", algorithm != NULL ? algorithm : "auto");
    /* auto's choice reads them: ranks with different machine files would choose apart. */
    double model[4] = {redist__coll_ts(), redist__coll_tw(), 0, 0};
    redist__coll_net(&model[2], &model[3]);
    redist__fp_add(fp, "cost-model parameters (machine file or REDIST_MACHINE_*)", model,
                   sizeof model);
}

void redist__coll_fingerprint_op(redist__fingerprints *fp, MPI_Op op)
{
    const MPI_Op named[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                            MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                            MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    int n = (int)(sizeof named / sizeof named[0]), kind = -1, commute = 0;
    for (int i = 0; i < n && kind < 0; i++)
        if (op == named[i])
            kind = i;
    if (kind < 0 && op != MPI_OP_NULL && MPI_Op_commutative(op, &commute) == MPI_SUCCESS)
        kind = n + commute; /* user-defined */
    redist__fp_add(fp, "op (predefined, or a user-defined op's commutativity)", &kind, sizeof kind);
}

int redist__coll_no_in_place(const void *buf, const char *name)
{
    return buf == MPI_IN_PLACE
               ? redist__fail(REDIST_ERR_ARG, "%s may not be MPI_IN_PLACE here", name)
               : REDIST_SUCCESS;
}

int redist__coll_check_common(int64_t count, MPI_Datatype type, MPI_Comm comm, size_t *elsize)
{
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    if (count < 0)
        return redist__fail(REDIST_ERR_ARG, "count = %lld must be >= 0", (long long)count);
    int err = redist__element_size(type, elsize);
    int p = 1;
    if (err == REDIST_SUCCESS && comm != MPI_COMM_NULL && MPI_Comm_size(comm, &p) != MPI_SUCCESS)
        p = 1; /* redist__coll_begin reports the bad communicator */
    /* p blocks, the most any buffer or workspace holds, stay below 2^62 bytes: no size the
       operations compute can overflow. */
    if (err == REDIST_SUCCESS && count > REDIST_MAX_EXTENT / (int64_t)*elsize / p)
        err = redist__fail(
            REDIST_ERR_ARG,
            "count = %lld blocks of %zu-byte elements for %d ranks make 2^62 bytes or more",
            (long long)count, *elsize, p);
    return err;
}

int redist__coll_pick_shape(const redist__coll_algo *const table[], int n, const char *name,
                            const redist__coll_shape *s, double m, int *err)
{
    *err = REDIST_SUCCESS;
    if (name != NULL && strcmp(name, "auto") != 0) {
        for (int i = 0; i < n; i++)
            if (strcmp(table[i]->name, name) == 0) {
                *err = table[i]->applicable(s->p);
                return *err == REDIST_SUCCESS ? i : -1;
            }
        *err = redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
        return -1;
    }
    int best = -1;
    double best_cost = 0;
    for (int i = 0; i < n; i++) {
        if ((table[i]->several_nodes && s->nodes <= 1) ||
            table[i]->applicable(s->p) != REDIST_SUCCESS)
            continue;
        double c = table[i]->cost(s, m);
        if (best < 0 || c < best_cost) {
            best = i;
            best_cost = c;
        }
    }
    if (best < 0)
        *err = redist__fail(REDIST_ERR_NOT_APPLICABLE, "no algorithm applies");
    return best;
}

int redist__coll_pick(const redist__coll_algo *const table[], int n, const char *name, int p,
                      double m, int *err)
{
    redist__coll_shape s = redist__coll_shape_one(p, redist__coll_ts(), redist__coll_tw());
    return redist__coll_pick_shape(table, n, name, &s, m, err);
}

redist__coll_shape redist__coll_shape_one(int p, double ts, double tw)
{
    return (redist__coll_shape){p, 1, p, p, ts, tw, 0.0, 0.0};
}

redist__coll_shape redist__coll_shape_of(const redist__node_map *m, int p)
{
    redist__coll_shape s = redist__coll_shape_one(p, redist__coll_ts(), redist__coll_tw());
    if (m == NULL || m->nodes <= 1 || m->size != p)
        return s;
    s.nodes = m->nodes;
    s.most = m->max_ranks;
    s.fewest = p;
    for (int a = 0; a < m->nodes; a++)
        if (redist__node_size(m, a) < s.fewest)
            s.fewest = redist__node_size(m, a);
    redist__coll_net(&s.rts, &s.rtw);
    return s;
}

int redist__coll_shape_pairs(const redist__coll_shape *s)
{
    return s->nodes > 1 ? (s->nodes - 2 + s->fewest) / s->fewest : 0;
}

void redist__coll_net(double *rts, double *rtw)
{
    const redist__machine *m = redist__machine_once();
    *rts = m->remote_startup > m->per_message ? m->remote_startup - m->per_message : 0.0;
    *rtw = m->remote_per_byte;
}

/* The ranks of a node (s->most consecutive ranks of p) whose partner d places on (mod p)
   is on another node: all but those whose partner stays on the node, d further on or, past
   the end, d - p back. */
static int cross_shift(const redist__coll_shape *s, int d)
{
    int p = s->p, q = s->most;
    d = ((d % p) + p) % p;
    if (s->nodes <= 1 || d == 0)
        return 0;
    int c = q - (q > d ? q - d : 0) - (d > p - q ? d - (p - q) : 0);
    return c > 0 ? c : 0;
}

/* The same for partner rank XOR d: for nodes of a power of two ranks, none below d = q, all
   from there; otherwise as the shift's. */
static int cross_xor(const redist__coll_shape *s, int d)
{
    int q = s->most;
    if (s->nodes <= 1)
        return 0;
    if ((q & (q - 1)) == 0)
        return d >= q ? q : 0;
    return cross_shift(s, d);
}

static double net_step(const redist__coll_shape *s, int crossing, double g)
{
    return crossing > 0 ? s->rts + s->rtw * crossing * g : 0.0;
}

double redist__coll_net_shift(const redist__coll_shape *s, int d, double g)
{
    return net_step(s, cross_shift(s, d), g);
}

double redist__coll_net_xor(const redist__coll_shape *s, int d, double g)
{
    return net_step(s, cross_xor(s, d), g);
}

double redist__coll_net_mesh(const redist__coll_shape *s, int row_steps, double row_g,
                             int col_steps, double col_g)
{
    if (s->nodes <= 1)
        return 0.0;
    int rows, cols;
    redist__coll_mesh(s->p, &rows, &cols);
    /* A row within a node (cols divides the node's ranks) never crosses; a row that spans a
       node's edge crosses it at its edge and at its ring's wrap. */
    int row_cross = s->most % cols == 0 ? 0 : (s->most < 2 ? s->most : 2);
    return row_steps * net_step(s, row_cross, row_g) +
           col_steps * redist__coll_net_shift(s, cols, col_g);
}

double redist__coll_ts(void)
{
    return redist__machine_once()->startup;
}
double redist__coll_tw(void)
{
    return redist__machine_once()->per_byte;
}

int redist__coll_reduce_local(const void *in, void *inout, int64_t count, MPI_Datatype t, MPI_Op op)
{
    MPI_Aint lb = 0, extent = 0;
    if (MPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Type_get_extent failed");
    for (int64_t done = 0; done < count;) {
        int64_t n = count - done < REDIST__MAX_INT_COUNT ? count - done : REDIST__MAX_INT_COUNT;
        int64_t at = done * (int64_t)extent;
        if (MPI_Reduce_local((const char *)in + at, (char *)inout + at, (int)n, t, op) !=
            MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "MPI_Reduce_local failed");
        done += n;
    }
    return REDIST_SUCCESS;
}

/* A message of `bytes` travels as max(1, ceil(bytes / chunk)) messages: the chunks, or one
   empty message. Chunk k's size follows from the total alone, so the receiver, which
   expects the same total, posts the same sequence. */
enum { CHUNKS_IN_FLIGHT = 8 };
static int64_t chunk_count(int64_t bytes)
{
    return bytes <= 0 ? 1 : (bytes - 1) / REDIST__CHUNK_BYTES + 1;
}
static int chunk_size(int64_t bytes, int64_t k)
{
    int64_t left = bytes - k * REDIST__CHUNK_BYTES;
    return (int)(left < REDIST__CHUNK_BYTES ? (left > 0 ? left : 0) : REDIST__CHUNK_BYTES);
}

/* Sends sbytes to `to` and receives rbytes from `from` (MPI_PROC_NULL: no such side), a
   window of chunks at a time: each window's receives and sends are posted together and
   completed together, so no rank waits on a chunk its partner has not posted yet. */
static int exchange(const char *sbuf, int64_t sbytes, int to, char *rbuf, int64_t rbytes, int from,
                    MPI_Comm c)
{
    if (sbytes <= REDIST__CHUNK_BYTES && rbytes <= REDIST__CHUNK_BYTES) /* one message each */
        return MPI_Sendrecv(sbuf, (int)sbytes, MPI_BYTE, to, REDIST__TAG_COLL, rbuf, (int)rbytes,
                            MPI_BYTE, from, REDIST__TAG_COLL, c, MPI_STATUS_IGNORE) == MPI_SUCCESS
                   ? REDIST_SUCCESS
                   : redist__fail(REDIST_ERR_MPI, "MPI_Sendrecv failed");
    int64_t ns = to == MPI_PROC_NULL ? 0 : chunk_count(sbytes);
    int64_t nr = from == MPI_PROC_NULL ? 0 : chunk_count(rbytes);
    for (int64_t first = 0; first < ns || first < nr; first += CHUNKS_IN_FLIGHT) {
        MPI_Request req[2 * CHUNKS_IN_FLIGHT];
        int n = 0, rc = MPI_SUCCESS;
        for (int64_t k = first; rc == MPI_SUCCESS && k < nr && k < first + CHUNKS_IN_FLIGHT; k++)
            rc = MPI_Irecv(rbuf + k * REDIST__CHUNK_BYTES, chunk_size(rbytes, k), MPI_BYTE, from,
                           REDIST__TAG_COLL, c, &req[n++]);
        for (int64_t k = first; rc == MPI_SUCCESS && k < ns && k < first + CHUNKS_IN_FLIGHT; k++)
            rc = MPI_Isend(sbuf + k * REDIST__CHUNK_BYTES, chunk_size(sbytes, k), MPI_BYTE, to,
                           REDIST__TAG_COLL, c, &req[n++]);
        if (rc != MPI_SUCCESS || MPI_Waitall(n, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return redist__fail(REDIST_ERR_MPI, "a point-to-point exchange failed");
    }
    return REDIST_SUCCESS;
}

int redist__coll_sendrecv(const void *sbuf, int64_t sbytes, int to, void *rbuf, int64_t rbytes,
                          int from, MPI_Comm c)
{
    return exchange(sbuf, sbytes, to, rbuf, rbytes, from, c);
}

int redist__coll_send(const void *buf, int64_t bytes, int to, MPI_Comm c)
{
    return exchange(buf, bytes, to, NULL, 0, MPI_PROC_NULL, c);
}

int redist__coll_recv(void *buf, int64_t bytes, int from, MPI_Comm c)
{
    return exchange(NULL, 0, MPI_PROC_NULL, buf, bytes, from, c);
}

void redist__coll_mesh(int p, int *rows, int *cols)
{
    int r = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0)
            r = d;
    *rows = r;
    *cols = p / r;
}

int redist__coll_always(int p)
{
    (void)p;
    return REDIST_SUCCESS;
}

int redist__coll_power_of_two(int p)
{
    return (p & (p - 1)) == 0 ? REDIST_SUCCESS
                              : redist__fail(REDIST_ERR_NOT_APPLICABLE,
                                             "hypercube needs p a power of two, p = %d", p);
}

static double cost_ring(const redist__coll_shape *s, double m)
{
    return (s->ts + s->tw * m) * (s->p - 1) + (s->p - 1) * redist__coll_net_shift(s, 1, m);
}

static double cost_mesh(const redist__coll_shape *s, double m)
{
    int rows, cols;
    redist__coll_mesh(s->p, &rows, &cols);
    return s->ts * (rows + cols - 2) + s->tw * m * (s->p - 1) +
           redist__coll_net_mesh(s, cols - 1, m, rows - 1, cols * m);
}

/* One node's: scatter and gather (and allgather's hypercube on one node, allgather.c). */
static double cost_log_steps(const redist__coll_shape *s, double m)
{
    return s->ts * redist__ceil_log2(s->p) + s->tw * m * (s->p - 1);
}

/* Recursive halving (reduce_scatter, p a power of two): step k sends p / 2k blocks to rank
   XOR k. */
static double cost_halving(const redist__coll_shape *s, double m)
{
    double t = cost_log_steps(s, m);
    for (int k = 1; k < s->p; k <<= 1)
        t += redist__coll_net_xor(s, k, m * (s->p / (2 * k)));
    return t;
}

static double cost_linear(const redist__coll_shape *s, double m)
{
    return (s->ts + s->tw * m) * (s->p - 1);
}

const redist__coll_algo redist__coll_ring_all = {"ring", redist__coll_always, cost_ring, 0};
const redist__coll_algo redist__coll_mesh_all = {"mesh", redist__coll_always, cost_mesh, 0};
const redist__coll_algo redist__coll_hypercube_all = {"hypercube", redist__coll_power_of_two,
                                                      cost_halving, 0};
const redist__coll_algo redist__coll_tree_sg = {"tree", redist__coll_always, cost_log_steps, 0};
const redist__coll_algo redist__coll_hypercube_sg = {"hypercube", redist__coll_always,
                                                     cost_log_steps, 0};
const redist__coll_algo redist__coll_linear_sg = {"linear", redist__coll_always, cost_linear, 0};

char *redist__coll_workspace(int64_t bytes, int *err)
{
    if (*err != REDIST_SUCCESS)
        return NULL;
    char *ws = (uint64_t)bytes < SIZE_MAX ? redist__malloc(bytes > 0 ? (size_t)bytes : 1) : NULL;
    if (ws == NULL)
        *err = redist__fail(REDIST_ERR_NOMEM, "workspace of %lld bytes", (long long)bytes);
    return ws;
}

void redist__coll_local(MPI_Comm comm, int *rank, int *p)
{
    int ready = 0, done = 0;
    MPI_Initialized(&ready);
    MPI_Finalized(&done);
    if (comm == MPI_COMM_NULL || !ready || done) /* redist__coll_begin reports it */
        return;
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, p);
}

const void *redist__coll_source(const void *sendbuf, const void *in, int64_t bytes, char **ws)
{
    if (sendbuf != MPI_IN_PLACE)
        return sendbuf;
    char *copy = *ws;
    memcpy(copy, in, (size_t)bytes);
    *ws += bytes;
    return copy;
}

int redist__coll_red_args(const void *sendbuf, const void *recvbuf, int recv_needed, int64_t count,
                          MPI_Datatype type, MPI_Op op, redist__coll_reducer *r, int root,
                          MPI_Comm comm, size_t *es)
{
    *es = 1;
    if (r != NULL)
        *r = (redist__coll_reducer){MPI_DATATYPE_NULL, 1, 0};
    int err = redist__coll_check_common(count, type, comm, es);
    if (err != REDIST_SUCCESS)
        return err;
    if (r != NULL && (err = redist__coll_reducer_make(type, *es, op, r)) != REDIST_SUCCESS)
        return err;
    if (root >= 0 || root < -1) {
        int p = 0;
        if (comm != MPI_COMM_NULL && MPI_Comm_size(comm, &p) == MPI_SUCCESS &&
            (root < 0 || root >= p))
            return redist__fail(REDIST_ERR_ARG, "root = %d is out of range [0, %d)", root, p);
    }
    if (recvbuf == MPI_IN_PLACE)
        return redist__fail(REDIST_ERR_ARG, "recvbuf may not be MPI_IN_PLACE");
    if (count > 0 && sendbuf == NULL)
        return redist__fail(REDIST_ERR_ARG, "sendbuf is NULL");
    if (count > 0 && recv_needed && recvbuf == NULL)
        return redist__fail(REDIST_ERR_ARG, "recvbuf is NULL");
    if (sendbuf == MPI_IN_PLACE && !recv_needed)
        return redist__fail(REDIST_ERR_ARG, "MPI_IN_PLACE is only valid at the root");
    return REDIST_SUCCESS;
}

int redist__coll_reduction(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                           MPI_Op op, MPI_Comm comm, const char *algorithm,
                           const redist__coll_algo *const table[],
                           const redist__coll_reduction_algo algos[], int n)
{
    size_t es = 1;
    int rank = 0, p = 1;
    redist__coll_reducer r;
    int err = redist__coll_red_args(sendbuf, recvbuf, 1, count, type, op, &r, -1, comm, &es);
    redist__coll_local(comm, &rank, &p);
    int i = err == REDIST_SUCCESS
                ? redist__coll_pick(table, n, algorithm, p, (double)count * (double)es, &err)
                : -1;
    int64_t bytes = err == REDIST_SUCCESS ? count * (int64_t)es : 0, need = 0;
    /* The algorithms reduce the reducer's elements (more than the user's for a derived type
       under a predefined op). */
    int64_t elements = count * r.per_element;
    size_t unit = es / (size_t)r.per_element;
    if (i >= 0 && count > 0) /* the MPI_IN_PLACE copy, then the algorithm's */
        need = (sendbuf == MPI_IN_PLACE ? bytes : 0) + algos[i].workspace(elements, unit, rank, p);
    char *ws = redist__coll_workspace(need, &err), *w = ws;
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, bytes, -1, algorithm);
    redist__coll_fingerprint_op(&fp, err == REDIST_SUCCESS ? op : MPI_OP_NULL);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err == REDIST_SUCCESS && count > 0) {
        const void *src = redist__coll_source(sendbuf, recvbuf, bytes, &w);
        err = algos[i].run(src, recvbuf, elements, unit, r.type, op, rank, p, w, c);
    }
    redist__coll_reducer_free(&r);
    redist__free(ws);
    return err;
}

int redist__coll_subtree(int v, int p, int *low)
{
    *low = 1;
    while (*low < p && !(v & *low))
        *low <<= 1;
    return v == 0 ? p : (*low < p - v ? *low : p - v);
}

/* Picks, and allocates the tree's workspace in *ws, after `extra` bytes for the root's block
   when it is MPI_IN_PLACE; 1 for the tree, 0 for linear. */
static int sg_prepare(const redist__coll_algo *const table[], int n, const char *algorithm,
                      int64_t m, int root, int rank, int p, int64_t extra, char **ws, int *err)
{
    *ws = NULL;
    int i = *err == REDIST_SUCCESS ? redist__coll_pick(table, n, algorithm, p, (double)m, err) : -1;
    if (i < 0)
        return 0;
    int tree = table[i] != &redist__coll_linear_sg;
    int low, have = tree ? redist__coll_subtree((rank - root + p) % p, p, &low) : 0;
    *ws = redist__coll_workspace(extra + (int64_t)have * m, err);
    return tree;
}

/* The buffers one rank of a scatter (root_sends) or gather must supply. MPI_IN_PLACE is
   MPI's: the root's recvbuf of a scatter, the root's sendbuf of a gather (its block stays
   where it is). */
static int sg_buffers(const void *sendbuf, const void *recvbuf, int64_t count, int at_root,
                      int root_sends)
{
    const void *may = root_sends ? recvbuf : sendbuf, *may_not = root_sends ? sendbuf : recvbuf;
    if (may_not == MPI_IN_PLACE || (may == MPI_IN_PLACE && !at_root))
        return redist__fail(REDIST_ERR_ARG, "MPI_IN_PLACE is only valid as the root's %s",
                            root_sends ? "recvbuf" : "sendbuf");
    if (count == 0)
        return REDIST_SUCCESS;
    if (sendbuf == NULL && (at_root || !root_sends))
        return redist__fail(REDIST_ERR_ARG, "sendbuf is NULL%s", root_sends ? " at the root" : "");
    if (recvbuf == NULL && (at_root || root_sends))
        return redist__fail(REDIST_ERR_ARG, "recvbuf is NULL%s", root_sends ? "" : " at the root");
    return REDIST_SUCCESS;
}

int redist__coll_rooted(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                        int root, MPI_Comm comm, const char *algorithm, int root_sends,
                        const redist__coll_algo *const table[], int n, redist__coll_sg_tree tree,
                        redist__coll_sg_linear linear)
{
    size_t elsize = 0;
    int err = redist__coll_check_common(count, type, comm, &elsize);
    int csize = 0, crank = -1;
    redist__coll_local(comm, &crank, &csize);
    if (err == REDIST_SUCCESS && (root < 0 || root >= csize))
        err = redist__fail(REDIST_ERR_ARG, "root = %d out of range [0, %d)", root, csize);
    if (err == REDIST_SUCCESS)
        err = sg_buffers(sendbuf, recvbuf, count, crank == root, root_sends);
    int64_t bytes = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    int in_place = err == REDIST_SUCCESS && (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE);
    char *ws;
    int is_tree =
        sg_prepare(table, n, algorithm, bytes, root, crank, csize, in_place ? bytes : 0, &ws, &err);
    MPI_Comm c;
    int rank = 0, p = 0;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, bytes, root, algorithm);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err == REDIST_SUCCESS) {
        /* In place at the root: a gather sends its own block from a copy (the algorithms copy
           it into recvbuf); a scatter's own block lands in scratch. Then the tree's blocks. */
        char *w = ws, *r = recvbuf;
        const char *root_block = recvbuf == MPI_IN_PLACE ? NULL : (char *)recvbuf + root * bytes;
        const char *s = root_sends ? sendbuf : redist__coll_source(sendbuf, root_block, bytes, &w);
        if (recvbuf == MPI_IN_PLACE) {
            r = w;
            w += bytes;
        }
        err = is_tree ? tree(s, r, bytes, root, rank, p, w, c)
                      : linear(s, r, bytes, root, rank, p, c);
    }
    redist__free(ws);
    return err;
}
