/* Circular shift ([GGKK03]): rank i's block of `count` elements goes to rank
 * (i + shift) mod p. Any integer shift, negative too, is normalized to q = shift mod p in
 * [0, p); q = 0 is a local copy. Point-to-point messages on the private communicator only.
 * In the costs m is the block size in bytes, p the number of ranks, t_s the start-up time,
 * t_w the time per byte. The formulas below are each algorithm's worst case over q (what
 * redist_coll_predict reports); "auto" knows q and picks the fewest steps for it: ring
 * min(q, p-q), mesh its row hops + 1 compensation step + column hops, hypercube the set
 * bits of q.
 *
 *   ring       min(q, p-q) neighbour steps: q hops to the right or p-q hops to the left,
 *              each step one MPI_Sendrecv of the block.
 *              T = (t_s + t_w m) min(q, p-q)  <=  (t_s + t_w m) floor(p/2)
 *   mesh       the most square factorization rows x cols = p (rows <= cols, rank =
 *              row*cols + col; a prime p gives 1 x p, i.e. the ring). With q = qr*cols + qc:
 *              (1) a ring shift by qc within each row; (2) the compensation step: the blocks
 *              that wrapped around their row (now in columns < qc) move one row down;
 *              (3) a ring shift by qr within each column. Steps (1) and (3) take the
 *              min(q, n-q) hops of the ring algorithm, so for a sqrt(p) x sqrt(p) mesh
 *              T <= (t_s + t_w m)(sqrt(p) + 1)
 *   hypercube  q written as a sum of distinct powers of two; one phase per set bit 2^k, a
 *              direct exchange sending to rank + 2^k and receiving from rank - 2^k (mod p).
 *              Any p works (a shift by 2^k is a permutation for every p). The paper's bound
 *              for the embedding of the linear array in a hypercube:
 *              T = (t_s + t_w m)(2 log p - 1)                                        (8)
 *
 * Errors (count < 0, invalid type, NULL buffer with count > 0, unknown algorithm, out of
 * memory) are agreed so that every rank returns the same code.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *cur; /* the block this rank holds now: sendbuf first */
    char *spare[2];  /* workspace blocks for the steps between */
    char *out;       /* recvbuf: the last exchange lands there */
    int left;        /* exchanges this rank has still to do */
    int64_t b;
    int rank, p, q;
    MPI_Comm c;
} sh;

/* One step: send the block held, receive the next straight into recvbuf if it is this rank's
   last exchange, else into the spare block not being sent. */
static int exchange(sh *s, int to, int from)
{
    char *dst = s->left == 1 ? s->out : s->cur == s->spare[0] ? s->spare[1] : s->spare[0];
    int err = redist__coll_sendrecv(s->cur, s->b, to, dst, s->b, from, s->c);
    s->cur = dst;
    s->left--;
    return err;
}

/* Ring shift by q (0 <= q < n) among the n members base + i*stride, this rank member idx. */
static int ring_group(sh *s, int n, int idx, int base, int stride, int q)
{
    if (q == 0)
        return REDIST_SUCCESS;
    int right = base + ((idx + 1) % n) * stride, left = base + ((idx + n - 1) % n) * stride;
    int fwd = q <= n - q, hops = fwd ? q : n - q;
    for (int h = 0; h < hops; h++) {
        int err = fwd ? exchange(s, right, left) : exchange(s, left, right);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

static int run_ring(sh *s)
{
    return ring_group(s, s->p, s->rank, 0, 1, s->q);
}

static double cost_ring(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return (ts + tw * m) * (p / 2);
}

static int run_mesh(sh *s)
{
    int R, C;
    redist__coll_mesh(s->p, &R, &C);
    int row = s->rank / C, col = s->rank % C, qr = s->q / C, qc = s->q % C;
    int err = ring_group(s, C, col, row * C, 1, qc); /* (1) row shift */
    if (err != REDIST_SUCCESS)
        return err;
    if (R > 1 && col < qc) { /* (2) compensation: this block wrapped around its row */
        err = exchange(s, ((row + 1) % R) * C + col, ((row - 1 + R) % R) * C + col);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return ring_group(s, R, row, col, C, qr); /* (3) column shift */
}

static double cost_mesh(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    int R, C;
    redist__coll_mesh(p, &R, &C);
    return (ts + tw * m) * (C / 2 + (R > 1 ? 1 : 0) + R / 2);
}

static int run_hypercube(sh *s)
{
    for (int k = 0; (1 << k) < s->p; k++) {
        if (!(s->q & (1 << k)))
            continue;
        int d = 1 << k;
        int err = exchange(s, (s->rank + d) % s->p, (s->rank - d + s->p) % s->p);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

static double cost_hypercube(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    int d = redist__ceil_log2(p);
    return (ts + tw * m) * (d > 0 ? 2 * d - 1 : 0);
}

static const redist__coll_algo algo_ring = {"ring", redist__coll_always, cost_ring, 0};
static const redist__coll_algo algo_mesh = {"mesh", redist__coll_always, cost_mesh, 0};
static const redist__coll_algo algo_hypercube = {"hypercube", redist__coll_always, cost_hypercube,
                                                 0};
static const redist__coll_algo *const table[] = {&algo_ring, &algo_mesh, &algo_hypercube};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_shift = {"shift", table,
                                                     (int)(sizeof table / sizeof table[0])};
static int (*const runs[])(sh *) = {run_ring, run_mesh, run_hypercube};
#define NALGO ((int)(sizeof table / sizeof table[0]))

static int min_hops(int q, int n)
{
    return q < n - q ? q : n - q;
}

/* Exchanges of algorithm i for the shift q (0 <= q < p) on a rank that does the mesh's
   compensation step (compensates) or not; each costs t_s + t_w m. */
static int exchanges(int i, int p, int q, int compensates)
{
    if (runs[i] == run_hypercube)
        return __builtin_popcount((unsigned)q);
    if (runs[i] == run_ring)
        return min_hops(q, p);
    int R, C;
    redist__coll_mesh(p, &R, &C);
    return min_hops(q % C, C) + compensates + min_hops(q / C, R);
}

/* Steps of algorithm i for the shift q: the most exchanges of any rank. */
static int steps_for(int i, int p, int q)
{
    int R, C;
    redist__coll_mesh(p, &R, &C);
    return exchanges(i, p, q, R > 1 && q % C > 0);
}

/* This rank's exchanges (the mesh compensates on the columns below q mod cols). */
static int rank_exchanges(int i, int p, int q, int rank)
{
    int R, C;
    redist__coll_mesh(p, &R, &C);
    return exchanges(i, p, q, R > 1 && rank % C < q % C);
}

/* A named algorithm, or for NULL/"auto" the fewest steps for this q: unlike the slides'
   worst-case costs (redist_coll_predict gets no q), the choice knows the shift. */
static int pick(const char *algorithm, int p, int q, double m, int *err)
{
    if (algorithm != NULL && strcmp(algorithm, "auto") != 0)
        return redist__coll_pick(table, NALGO, algorithm, p, m, err);
    int best = 0;
    for (int i = 1; i < NALGO; i++)
        if (steps_for(i, p, q) < steps_for(best, p, q))
            best = i;
    return best;
}

int redist_shift(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int shift,
                 MPI_Comm comm, const char *algorithm)
{
    size_t elsize = 0;
    int err = redist__coll_check_common(count, type, comm, &elsize);
    if (err == REDIST_SUCCESS)
        err = redist__coll_no_in_place(recvbuf, "recvbuf");
    if (sendbuf == MPI_IN_PLACE) /* as MPI_Sendrecv_replace: the block is in recvbuf */
        sendbuf = recvbuf;
    if (err == REDIST_SUCCESS && count > 0 && (sendbuf == NULL || recvbuf == NULL))
        err = redist__fail(REDIST_ERR_ARG, "NULL buffer with count = %lld", (long long)count);
    int64_t b = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    /* Choose and allocate before the agreement, so that these errors are agreed too. */
    int rank = 0, size = 1;
    redist__coll_local(comm, &rank, &size);
    int q = (int)(((int64_t)shift % size + size) % size);
    int idx = err == REDIST_SUCCESS ? pick(algorithm, size, q, (double)b, &err) : -1;
    /* Workspace: the blocks between the first exchange (from sendbuf) and the last (into
       recvbuf), plus a copy of sendbuf if it is recvbuf itself. */
    int n = idx >= 0 ? rank_exchanges(idx, size, q, rank) : 0, alias = sendbuf == recvbuf;
    char *ws = redist__coll_workspace(((n > 2 ? 2 : n - 1 > 0 ? 1 : 0) + alias) * b, &err);
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, b, -1, algorithm);
    redist__fp_add(&fp, "shift", &q, sizeof q);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &size);
    if (err == REDIST_SUCCESS && b > 0 && n == 0 && !alias)
        memcpy(recvbuf, sendbuf, (size_t)b);
    if (err == REDIST_SUCCESS && b > 0 && n > 0) {
        char *w = ws;
        if (alias) { /* MPI_Sendrecv may not send from the buffer it receives into */
            memcpy(w, sendbuf, (size_t)b);
            w += b;
        }
        sh s = {alias ? ws : sendbuf, {w, w + b}, recvbuf, n, b, rank, size, q, c};
        err = runs[idx](&s);
    }
    redist__free(ws);
    return err;
}
