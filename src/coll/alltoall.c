/* All-to-all personalized communication (total exchange; [GGKK03]).
 *
 * redist_alltoall has MPI_Alltoall semantics: sendbuf holds p blocks of `count` elements, block
 * j for rank j; recvbuf receives p blocks, block i from rank i. Point-to-point messages on the
 * private communicator only. In the costs m is the size of one block in bytes, p the number of
 * ranks, t_s the start-up time and t_w the time per byte.
 *
 *   ring       p-1 steps on a ring. Each rank starts with its p-1 blocks for the others as one
 *              consolidated message to its right neighbour; at step k it receives p-k blocks
 *              from its left neighbour, keeps the first (the one addressed to it, originated
 *              by rank - k) and forwards the other p-k-1 at the next step.
 *              T = sum_{i=1}^{p-1} (t_s + t_w m (p-i)) = (t_s + t_w m p/2)(p-1)   (4)
 *   mesh       the most square factorization rows x cols = p (rows <= cols; a prime p gives
 *              1 x p, i.e. the ring). Phase 1: a ring all-to-all in each row whose blocks are
 *              the rows-block groups bound for one column; local regrouping; phase 2: a ring
 *              all-to-all in each column with cols-block groups. For a sqrt(p) x sqrt(p) mesh
 *              T = (2 t_s + t_w m p)(sqrt(p) - 1)                                   (5)
 *              (in general (t_s + t_w m p/2)(cols - 1) + (t_s + t_w m p/2)(rows - 1)).
 *   hypercube  log-step exchange, p/2 blocks per step. For every p (a power of two or not) it
 *              is Bruck's algorithm: a local rotation, ceil(log2 p) steps where step 2^k sends
 *              the blocks whose (rotated) index has bit k set to rank + 2^k and receives from
 *              rank - 2^k, and a final local inverse rotation. For p = 2^d this moves the
 *              same data as the paper's hypercube algorithm (mp/2 per dimension):
 *              T = (t_s + t_w m p/2) log p
 *   pairwise   p-1 steps of direct exchanges of one block. For p a power of two, step k
 *              exchanges with rank XOR k (the paper's optimal ALL_TO_ALL_PERSONAL, without
 *              congestion on a hypercube); otherwise step k sends to (rank + k) mod p and
 *              receives from (rank - k) mod p.
 *              T = (t_s + t_w m)(p - 1)                                             (7)
 *
 * Errors (count < 0, invalid type, NULL buffer with count > 0, unknown algorithm, out of
 * memory for the workspace) are agreed so that every rank returns the same code.
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *sbuf;
    char *rbuf;
    int64_t b; /* bytes per block */
    int rank, p;
    char *ws; /* workspace, see workspace() */
    MPI_Comm c;
} a2a;

static int is_pow2(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

/* Ring all-to-all among the n members base + i*stride (i = 0..n-1) of c, this rank being
   member idx. src: n groups of sb bytes, group i for member i; dst: n groups, group i from
   member i. w: 2 (n-1) sb bytes of workspace. */
static int ring_group(const char *src, char *dst, int64_t sb, int n, int idx, int base, int stride,
                      char *w, MPI_Comm c)
{
    memcpy(dst + idx * sb, src + idx * sb, (size_t)sb);
    if (n == 1)
        return REDIST_SUCCESS;
    char *x = w, *y = w + (int64_t)(n - 1) * sb;
    for (int d = 1; d < n; d++) /* blocks for idx+1, idx+2, ..., idx+n-1 */
        memcpy(x + (d - 1) * sb, src + ((idx + d) % n) * sb, (size_t)sb);
    const char *sp = x;
    int right = base + ((idx + 1) % n) * stride, left = base + ((idx + n - 1) % n) * stride;
    for (int k = 1; k < n; k++) {
        int64_t nb = (int64_t)(n - k) * sb;
        int err = redist__coll_sendrecv(sp, nb, right, y, nb, left, c);
        if (err != REDIST_SUCCESS)
            return err;
        memcpy(dst + ((idx - k + n) % n) * sb, y, (size_t)sb); /* from member idx - k */
        sp = y + sb;
        char *t = x;
        x = y;
        y = t;
    }
    return REDIST_SUCCESS;
}

static int run_ring(const a2a *a)
{
    return ring_group(a->sbuf, a->rbuf, a->b, a->p, a->rank, 0, 1, a->ws, a->c);
}

static double cost_ring(int p, double m, double ts, double tw)
{
    return (ts + tw * m * p / 2.0) * (p - 1);
}

static int run_mesh(const a2a *a)
{
    int R, C;
    redist__coll_mesh(a->p, &R, &C);
    int row = a->rank / C, col = a->rank % C;
    int64_t b = a->b, pb = (int64_t)a->p * b;
    char *t1 = a->ws, *t2 = a->ws + pb, *w = a->ws + 2 * pb;
    /* Phase 1 groups: t1[c'][r'] = block for rank r'*C + c'. */
    for (int cc = 0; cc < C; cc++)
        for (int rr = 0; rr < R; rr++)
            memcpy(t1 + ((int64_t)cc * R + rr) * b, a->sbuf + ((int64_t)rr * C + cc) * b,
                   (size_t)b);
    int err = ring_group(t1, t2, (int64_t)R * b, C, col, row * C, 1, w, a->c);
    if (err != REDIST_SUCCESS)
        return err;
    /* t2[cs][r'] came from (row, cs), bound for (r', col). Regroup: t1[r'][cs]. */
    for (int rr = 0; rr < R; rr++)
        for (int cs = 0; cs < C; cs++)
            memcpy(t1 + ((int64_t)rr * C + cs) * b, t2 + ((int64_t)cs * R + rr) * b, (size_t)b);
    /* Phase 2: group from row rs holds the blocks of sources rs*C + cs, cs = 0..C-1, which is
       exactly recvbuf's order. */
    return ring_group(t1, a->rbuf, (int64_t)C * b, R, row, col, C, w, a->c);
}

static double cost_mesh(int p, double m, double ts, double tw)
{
    int R, C;
    redist__coll_mesh(p, &R, &C);
    return (ts + tw * m * p / 2.0) * (C - 1) + (ts + tw * m * p / 2.0) * (R - 1);
}

static int run_hypercube(const a2a *a)
{
    int p = a->p, r = a->rank;
    int64_t b = a->b, pb = (int64_t)p * b;
    char *t = a->ws, *pk = a->ws + pb, *rk = pk + (int64_t)(p / 2) * b;
    for (int i = 0; i < p; i++) /* t[i]: this rank's block for rank + i */
        memcpy(t + i * b, a->sbuf + ((r + i) % p) * b, (size_t)b);
    for (int k = 1; k < p; k <<= 1) {
        int64_t n = 0;
        for (int i = 0; i < p; i++)
            if (i & k)
                memcpy(pk + (n++) * b, t + i * b, (size_t)b);
        int err = redist__coll_sendrecv(pk, n * b, (r + k) % p, rk, n * b, (r - k + p) % p, a->c);
        if (err != REDIST_SUCCESS)
            return err;
        n = 0;
        for (int i = 0; i < p; i++)
            if (i & k)
                memcpy(t + i * b, rk + (n++) * b, (size_t)b);
    }
    for (int i = 0; i < p; i++) /* t[i] came from rank - i */
        memcpy(a->rbuf + ((r - i + p) % p) * b, t + i * b, (size_t)b);
    return REDIST_SUCCESS;
}

static double cost_hypercube(int p, double m, double ts, double tw)
{
    return (ts + tw * m * p / 2.0) * redist__ceil_log2(p);
}

static int run_pairwise(const a2a *a)
{
    int p = a->p, r = a->rank;
    int64_t b = a->b;
    memcpy(a->rbuf + r * b, a->sbuf + r * b, (size_t)b);
    for (int k = 1; k < p; k++) {
        int to, from;
        if (is_pow2(p)) {
            to = from = r ^ k;
        } else {
            to = (r + k) % p;
            from = (r - k + p) % p;
        }
        int err = redist__coll_sendrecv(a->sbuf + to * b, b, to, a->rbuf + from * b, b, from, a->c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

static double cost_pairwise(int p, double m, double ts, double tw)
{
    return (ts + tw * m) * (p - 1);
}

static const redist__coll_algo algo_ring = {"ring", redist__coll_always, cost_ring};
static const redist__coll_algo algo_mesh = {"mesh", redist__coll_always, cost_mesh};
static const redist__coll_algo algo_hypercube = {"hypercube", redist__coll_always, cost_hypercube};
static const redist__coll_algo algo_pairwise = {"pairwise", redist__coll_always, cost_pairwise};
static const redist__coll_algo *const table[] = {&algo_ring, &algo_mesh, &algo_hypercube,
                                                 &algo_pairwise};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_alltoall = {"alltoall", table,
                                                        (int)(sizeof table / sizeof table[0])};
static int (*const runs[])(const a2a *) = {run_ring, run_mesh, run_hypercube, run_pairwise};
#define NALGO ((int)(sizeof table / sizeof table[0]))

/* Workspace bytes of algorithm i for p blocks of b bytes. */
static int64_t workspace(int i, int p, int64_t b)
{
    int R, C;
    switch (i) {
    case 0:
        return 2 * (int64_t)(p - 1) * b; /* two ring buffers of p-1 blocks */
    case 1: /* two regrouping buffers of p blocks, then the ring buffers of the wider ring
               phase: 2 (C-1) groups of R blocks (>= 2 groups of C, as R <= C) */
        redist__coll_mesh(p, &R, &C);
        return (2 * (int64_t)p + 2 * (int64_t)(C - 1) * R) * b;
    case 2: /* the rotated copy (p blocks), packed send and receive (p/2 blocks each: the
               indices below p with bit k set) */
        return ((int64_t)p + 2 * (int64_t)(p / 2)) * b;
    default:
        return 0;
    }
}

int redist__coll_alltoall_pick(const char *name, int p, double m, int *err)
{
    return redist__coll_pick(table, NALGO, name, p, m, err);
}

int64_t redist__coll_alltoall_workspace(int idx, int p, int64_t b)
{
    return workspace(idx, p, b);
}

double redist__coll_alltoall_cost(int idx, int p, double m, double ts, double tw)
{
    return table[idx]->cost(p, m, ts, tw);
}

/* A ring all-to-all among n members on groups of gb bytes: n - 1 messages, the k-th
   carrying n - k groups. */
static void ring_traffic(int n, int64_t gb, int64_t *msgs, int64_t *bytes)
{
    *msgs += n - 1;
    *bytes += (int64_t)n * (n - 1) / 2 * gb;
}

void redist__coll_alltoall_traffic(int idx, int p, int64_t b, int64_t *msgs, int64_t *bytes)
{
    *msgs = *bytes = 0;
    if (p == 1)
        return;
    if (runs[idx] == run_ring) {
        ring_traffic(p, b, msgs, bytes);
    } else if (runs[idx] == run_mesh) {
        int R, C;
        redist__coll_mesh(p, &R, &C);
        ring_traffic(C, (int64_t)R * b, msgs, bytes);
        ring_traffic(R, (int64_t)C * b, msgs, bytes);
    } else if (runs[idx] == run_hypercube) {
        for (int k = 1; k < p; k <<= 1) { /* the indices below p with bit k set */
            int64_t n = (int64_t)(p / (2 * k)) * k + (p % (2 * k) > k ? p % (2 * k) - k : 0);
            *msgs += 1;
            *bytes += n * b;
        }
    } else {
        *msgs = p - 1;
        *bytes = (int64_t)(p - 1) * b;
    }
}

int redist__coll_alltoall_run(int idx, const void *sendbuf, void *recvbuf, int64_t b, int rank,
                              int p, void *ws, MPI_Comm c)
{
    a2a a = {(const char *)sendbuf, (char *)recvbuf, b, rank, p, ws, c};
    return b > 0 ? runs[idx](&a) : REDIST_SUCCESS;
}

int redist_alltoall(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                    MPI_Comm comm, const char *algorithm)
{
    size_t elsize = 0;
    int err = redist__coll_check_common(count, type, comm, &elsize);
    if (err == REDIST_SUCCESS)
        err = redist__coll_no_in_place(recvbuf, "recvbuf");
    if (err == REDIST_SUCCESS && count > 0 && (sendbuf == NULL || recvbuf == NULL))
        err = redist__fail(REDIST_ERR_ARG, "NULL buffer with count = %lld", (long long)count);
    int64_t b = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    /* Choose and allocate before the agreement, so that these errors are agreed too. */
    int rank = 0, size = 1;
    redist__coll_local(comm, &rank, &size);
    int idx = err == REDIST_SUCCESS
                  ? redist__coll_pick(table, NALGO, algorithm, size, (double)b, &err)
                  : -1;
    /* MPI_IN_PLACE: the p blocks to send are in recvbuf (copied first). */
    int64_t input = sendbuf == MPI_IN_PLACE ? size * b : 0;
    char *ws = redist__coll_workspace(input + (idx >= 0 ? workspace(idx, size, b) : 0), &err);
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, b, -1, algorithm);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &size);
    if (err == REDIST_SUCCESS) {
        char *w = ws;
        const void *src = b > 0 ? redist__coll_source(sendbuf, recvbuf, size * b, &w) : sendbuf;
        err = redist__coll_alltoall_run(idx, src, recvbuf, b, rank, size, w, c);
    }
    redist__free(ws);
    return err;
}
