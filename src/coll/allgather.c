/* redist_allgather (all-to-all broadcast, [GGKK03]): every rank contributes
 * one block of m bytes, every rank receives all p blocks in rank order.
 *
 * Algorithms:
 *   "ring": p - 1 steps; at step k each rank sends to its right neighbour the block it
 *       received at step k - 1 (its own at step 0), i.e. block (rank - k) mod p, and receives
 *       block (rank - k - 1) mod p from its left one. Cost (t_s + t_w m)(p - 1).
 *   "mesh": p = rows x cols, the most square factorization (rows <= cols; a prime p is a
 *       1 x p mesh, i.e. the ring). Rank r is at (r / cols, r % cols). Phase 1: ring
 *       all-to-all broadcast in each row (cols - 1 steps of m); the row's blocks are then
 *       contiguous in recvbuf. Phase 2: ring in each column on messages of cols * m
 *       (rows - 1 steps). Cost t_s (rows + cols - 2) + t_w m (p - 1), i.e.
 *       2 t_s (sqrt p - 1) + t_w m (p - 1) for a square mesh.
 *   "hypercube": for p a power of two, recursive doubling: at step k = 1, 2, 4, ...
 *       exchange the k blocks held (the aligned group containing the rank) with partner
 *       rank ^ k. For any other p, Bruck's generalization (as MPI libraries do): at step
 *       k = 1, 2, 4, ... send the first min(k, p - k) blocks gathered so far (own block
 *       first, then those of rank + 1, rank + 2, ...) to rank - k and receive as many from
 *       rank + k; a final local rotation puts the blocks in rank order (p blocks of
 *       workspace). Both take ceil(log2 p) steps:
 *       cost t_s ceil(log p) + t_w m (p - 1).
 */
#include "coll/coll.h"

#include <stdlib.h>
#include <string.h>

/* Unlike the all-to-all reduction's, this hypercube works for every p; its cost is that of
   the scatter/gather hypercube, t_s ceil(log p) + t_w m (p - 1). */
#define algo_hypercube redist__coll_hypercube_sg
static const redist__coll_algo *const table[] = {&algo_hypercube, &redist__coll_mesh_all,
                                                 &redist__coll_ring_all};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_allgather = {"allgather", table,
                                                         (int)(sizeof table / sizeof table[0])};

/* Ring all-to-all broadcast among n members, member j being rank base + j * stride, this
   rank member `me`; slot j of buf (bytes each, stride bytes apart) is member j's block. */
static int ring(char *buf, int64_t bytes, int n, int me, int base, int stride, MPI_Comm c)
{
    int right = base + ((me + 1) % n) * stride, left = base + ((me - 1 + n) % n) * stride;
    for (int k = 0; k < n - 1; k++) {
        int s = (me - k + n) % n, r = (me - k - 1 + 2 * n) % n;
        int err = redist__coll_sendrecv(buf + (int64_t)s * bytes, bytes, right,
                                        buf + (int64_t)r * bytes, bytes, left, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* Recursive doubling (p a power of two); out holds this rank's block in place. */
static int recursive_doubling(char *out, int64_t bytes, int rank, int p, MPI_Comm c)
{
    for (int k = 1; k < p; k <<= 1) {
        int partner = rank ^ k;
        int mine = rank & ~(k - 1), theirs = partner & ~(k - 1);
        int err = redist__coll_sendrecv(out + (int64_t)mine * bytes, k * bytes, partner,
                                        out + (int64_t)theirs * bytes, k * bytes, partner, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* Bruck's allgather for any p: tmp[i] gathers the block of rank + i, then rotates into out. */
static int bruck(const void *mine, char *out, int64_t bytes, int rank, int p, char *tmp, MPI_Comm c)
{
    memcpy(tmp, mine, (size_t)bytes);
    for (int k = 1; k < p; k <<= 1) {
        int64_t n = k < p - k ? k : p - k;
        int err = redist__coll_sendrecv(tmp, n * bytes, (rank - k + p) % p,
                                        tmp + (int64_t)k * bytes, n * bytes, (rank + k) % p, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    for (int i = 0; i < p; i++)
        memcpy(out + (int64_t)((rank + i) % p) * bytes, tmp + (int64_t)i * bytes, (size_t)bytes);
    return REDIST_SUCCESS;
}

/* Whether algorithm i runs Bruck's allgather for p ranks (the only one with workspace: p
   blocks). */
static int is_bruck(int i, int p)
{
    return table[i] == &algo_hypercube && (p & (p - 1)) != 0;
}

static int run(int i, const void *sendbuf, char *out, int64_t bytes, int rank, int p, char *tmp,
               MPI_Comm c)
{
    if (is_bruck(i, p))
        return bruck(sendbuf, out, bytes, rank, p, tmp, c);
    memcpy(out + (int64_t)rank * bytes, sendbuf, (size_t)bytes);
    if (table[i] == &algo_hypercube)
        return recursive_doubling(out, bytes, rank, p, c);
    if (table[i] == &redist__coll_ring_all)
        return ring(out, bytes, p, rank, 0, 1, c);
    int rows, cols;
    redist__coll_mesh(p, &rows, &cols);
    int row = rank / cols, col = rank % cols;
    int err = ring(out + (int64_t)row * cols * bytes, bytes, cols, col, row * cols, 1, c);
    if (err == REDIST_SUCCESS)
        err = ring(out, (int64_t)cols * bytes, rows, row, col, cols, c);
    return err;
}

int redist_allgather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Comm comm, const char *algorithm)
{
    size_t elsize = 0;
    int err = redist__coll_check_common(count, type, comm, &elsize);
    if (err == REDIST_SUCCESS)
        err = redist__coll_no_in_place(recvbuf, "recvbuf");
    if (err == REDIST_SUCCESS && count > 0 && (sendbuf == NULL || recvbuf == NULL))
        err = redist__fail(REDIST_ERR_ARG, "%s is NULL", sendbuf == NULL ? "sendbuf" : "recvbuf");
    int64_t bytes = err == REDIST_SUCCESS ? count * (int64_t)elsize : 0;
    /* Choose and allocate before the agreement, so that these errors are agreed too. */
    int rank = 0, p = 1;
    redist__coll_local(comm, &rank, &p);
    int i = err == REDIST_SUCCESS ? redist__coll_pick(table, (int)(sizeof table / sizeof table[0]),
                                                      algorithm, p, (double)bytes, &err)
                                  : -1;
    /* MPI_IN_PLACE: this rank's block is already at its place in recvbuf (copied first). */
    int64_t own = sendbuf == MPI_IN_PLACE ? bytes : 0;
    char *ws = redist__coll_workspace(own + (i >= 0 && is_bruck(i, p) ? p * bytes : 0), &err);
    MPI_Comm c;
    redist__fingerprints fp;
    redist__coll_fingerprints(&fp, bytes, -1, algorithm);
    err = redist__coll_begin(comm, err, &fp, &c, &rank, &p);
    if (err == REDIST_SUCCESS && bytes > 0) {
        char *w = ws;
        const void *src = redist__coll_source(sendbuf, (char *)recvbuf + rank * bytes, bytes, &w);
        err = run(i, src, recvbuf, bytes, rank, p, w, c);
    }
    redist__free(ws);
    return err;
}
