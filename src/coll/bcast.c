/* redist_bcast ([GGKK03], "one-to-all broadcast"): the root's count elements
 * reach every rank. Algorithms (all for any p, on point-to-point messages):
 *   tree               binomial tree from any root (GENERAL_ONE_TO_ALL_BC for any p)
 *   ring               linear-array recursive doubling from the root
 *   mesh               along the root's row, then along every column (rows x cols = p, the most
 *                      square factorization; a prime p is a 1 x p mesh, i.e. the ring)
 *   scatter-allgather  the improved broadcast for large m: scatter m/p pieces, ring allgather
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

/* tree: binomial tree on ranks relative to the root. A node receives from rel - 2^k, k its
   lowest set bit, then sends to rel + 2^j for j = k-1 down to 0 (if < p).
   Cost: (t_s + t_w m) ceil(log p). */
int redist__coll_bcast_tree(void *buf, int64_t bytes, int root, int rank, int p, MPI_Comm c)
{
    int rel = (rank - root + p) % p, mask = 1, err = REDIST_SUCCESS;
    while (mask < p) {
        if (rel & mask) {
            err = redist__coll_recv(buf, bytes, (rel - mask + root) % p, c);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && err == REDIST_SUCCESS; mask >>= 1)
        if (rel + mask < p)
            err = redist__coll_send(buf, bytes, (rel + mask + root) % p, c);
    return err;
}

/* Recursive doubling on a linear array of n nodes, node pos being rank base + pos * stride,
   from position rootpos: the holder of relative interval [lo, hi) sends to the middle
   mid = lo + ceil((hi-lo)/2), which takes [mid, hi); ceil(log n) steps of (t_s + t_w m). */
static int bcast_line(void *buf, int64_t bytes, int n, int mypos, int rootpos, int base, int stride,
                      MPI_Comm c)
{
    int rel = (mypos - rootpos + n) % n, lo = 0, hi = n, err = REDIST_SUCCESS;
    while (hi - lo > 1 && err == REDIST_SUCCESS) {
        int mid = lo + (hi - lo + 1) / 2;
        if (rel < mid) {
            if (rel == lo)
                err = redist__coll_send(buf, bytes, base + ((mid + rootpos) % n) * stride, c);
            hi = mid;
        } else {
            if (rel == mid)
                err = redist__coll_recv(buf, bytes, base + ((lo + rootpos) % n) * stride, c);
            lo = mid;
        }
    }
    return err;
}

/* ring: the linear array 0..p-1 (rotated to the root): the root sends to the node p/2 away,
   then both send p/4 away, ... Cost: (t_s + t_w m) ceil(log p). */
static int bcast_ring(void *buf, int64_t count, size_t es, int root, int rank, int p, MPI_Comm c)
{
    return bcast_line(buf, count * (int64_t)es, p, rank, root, 0, 1, c);
}

/* mesh: rank r is (row r / cols, column r % cols). (1) Broadcast along the root's row (linear
   recursive doubling); (2) every node of that row broadcasts along its column.
   Cost: (t_s + t_w m)(ceil(log cols) + ceil(log rows)) ~ (t_s + t_w m) log p. */
static int bcast_mesh(void *buf, int64_t count, size_t es, int root, int rank, int p, MPI_Comm c)
{
    int rows, cols;
    redist__coll_mesh(p, &rows, &cols);
    int64_t bytes = count * (int64_t)es;
    int rr = root / cols, rc = root % cols, myr = rank / cols, myc = rank % cols;
    int err = REDIST_SUCCESS;
    if (myr == rr)
        err = bcast_line(buf, bytes, cols, myc, rc, rr * cols, 1, c);
    if (err == REDIST_SUCCESS)
        err = bcast_line(buf, bytes, rows, myr, rr, myc, cols, c);
    return err;
}

/* scatter-allgather (large m): piece q (redist__coll_block) belongs to relative rank q.
   (1) Scatter by recursive halving from the root: the holder of pieces [lo, hi) sends
   [mid, hi) to mid; (2) ring allgather: step s = 0..p-2, send piece (rel - s) to rel + 1 and
   receive piece (rel - s - 1) from rel - 1.
   Cost: t_s (ceil(log p) + p - 1) + 2 t_w m (p-1)/p. */
static int bcast_sag(void *buf, int64_t count, size_t es, int root, int rank, int p, MPI_Comm c)
{
    int rel = (rank - root + p) % p, lo = 0, hi = p, err = REDIST_SUCCESS;
    char *b = buf;
    int64_t e = (int64_t)es;
    while (hi - lo > 1 && err == REDIST_SUCCESS) {
        int mid = lo + (hi - lo + 1) / 2;
        int64_t off, len, end = count;
        redist__coll_block(count, p, mid, &off, &len);
        if (hi < p) {
            int64_t l2;
            redist__coll_block(count, p, hi, &end, &l2);
        }
        if (rel < mid) {
            if (rel == lo)
                err = redist__coll_send(b + off * e, (end - off) * e, (mid + root) % p, c);
            hi = mid;
        } else {
            if (rel == mid)
                err = redist__coll_recv(b + off * e, (end - off) * e, (lo + root) % p, c);
            lo = mid;
        }
    }
    int next = (rel + 1) % p, prev = (rel - 1 + p) % p;
    for (int s = 0; s < p - 1 && err == REDIST_SUCCESS; s++) {
        int sq = (rel - s + p) % p, rq = (rel - s - 1 + 2 * p) % p;
        int64_t so, sl, ro, rl;
        redist__coll_block(count, p, sq, &so, &sl);
        redist__coll_block(count, p, rq, &ro, &rl);
        err = redist__coll_sendrecv(b + so * e, sl * e, (next + root) % p, b + ro * e, rl * e,
                                    (prev + root) % p, c);
    }
    return err;
}

static int bcast_tree(void *buf, int64_t count, size_t es, int root, int rank, int p, MPI_Comm c)
{
    return redist__coll_bcast_tree(buf, count * (int64_t)es, root, rank, p, c);
}

static double cost_tree(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return redist__ceil_log2(p) * (ts + tw * m);
}
static double cost_mesh(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    int rows, cols;
    redist__coll_mesh(p, &rows, &cols);
    return (redist__ceil_log2(rows) + redist__ceil_log2(cols)) * (ts + tw * m);
}
static double cost_sag(const redist__coll_shape *s, double m)
{
    int p = s->p;
    double ts = s->ts, tw = s->tw;
    return (redist__ceil_log2(p) + p - 1) * ts + 2.0 * tw * m * (p - 1) / p;
}

static const redist__coll_algo algo_tree = {"tree", redist__coll_always, cost_tree, 0};
static const redist__coll_algo algo_ring = {"ring", redist__coll_always, cost_tree, 0};
static const redist__coll_algo algo_mesh = {"mesh", redist__coll_always, cost_mesh, 0};
static const redist__coll_algo algo_sag = {"scatter-allgather", redist__coll_always, cost_sag, 0};
static const redist__coll_algo *const table[] = {&algo_tree, &algo_ring, &algo_mesh, &algo_sag};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_bcast = {"bcast", table,
                                                     (int)(sizeof table / sizeof table[0])};
typedef int (*run_fn)(void *, int64_t, size_t, int, int, int, MPI_Comm);
static const run_fn runs[] = {bcast_tree, bcast_ring, bcast_mesh, bcast_sag};

int redist_bcast(void *buf, int64_t count, MPI_Datatype type, int root, MPI_Comm comm,
                 const char *algorithm)
{
    size_t es = 1;
    int rank = 0, p = 1;
    int err = REDIST_SUCCESS;
    if (buf == MPI_IN_PLACE)
        err = redist__fail(REDIST_ERR_ARG, "buf may not be MPI_IN_PLACE");
    else
        err = redist__coll_red_args(buf, buf, 1, count, type, MPI_OP_NULL, NULL,
                                    root < 0 ? -2 : root, comm, &es);
    /* Choose before the agreement, so that its errors are agreed too (no workspace). */
    redist__coll_local(comm, &rank, &p);
    int i = err == REDIST_SUCCESS
                ? redist__coll_pick(table, 4, algorithm, p, (double)count * (double)es, &err)
                : -1;
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, err == REDIST_SUCCESS ? count * (int64_t)es : 0, root,
                              algorithm);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err != REDIST_SUCCESS || count == 0 || p == 1)
        return err;
    return runs[i](buf, count, es, root, rank, p, c);
}
