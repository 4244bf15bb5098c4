/* redist_allgather (all-to-all broadcast, paper 002, Grama et al.): every rank contributes
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
 *   "hypercube": recursive doubling: at step k = 1, 2, 4, ... exchange the k blocks held
 *       (the aligned group containing the rank) with partner rank ^ k. Only for p a power of
 *       two: otherwise REDIST_ERR_NOT_APPLICABLE (on every rank, it depends on p only).
 *       Cost t_s log p + t_w m (p - 1).
 */
#include "coll.h"

#include <string.h>

static const redist__coll_algo *const table[] = {&redist__coll_hypercube_all,
                                                 &redist__coll_mesh_all, &redist__coll_ring_all};

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

int redist_allgather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type,
                     MPI_Comm comm, const char *algorithm)
{
    size_t elsize = 0;
    int err = redist__coll_check_common(count, type, &elsize);
    if (err == REDIST_SUCCESS && count > 0 && (sendbuf == NULL || recvbuf == NULL))
        err = redist__fail(REDIST_ERR_ARG, "%s is NULL", sendbuf == NULL ? "sendbuf" : "recvbuf");
    MPI_Comm c;
    int rank = 0, p = 0;
    err = redist__coll_begin(comm, err, &c, &rank, &p);
    if (err != REDIST_SUCCESS)
        return err;
    int64_t bytes = count * (int64_t)elsize;
    int i = redist__coll_pick(table, (int)(sizeof table / sizeof table[0]), algorithm, p,
                              (double)bytes, &err);
    if (err != REDIST_SUCCESS)
        return err;
    char *out = recvbuf;
    if (bytes > 0)
        memcpy(out + (int64_t)rank * bytes, sendbuf, (size_t)bytes);
    if (table[i] == &redist__coll_ring_all)
        return ring(out, bytes, p, rank, 0, 1, c);
    if (table[i] == &redist__coll_mesh_all) {
        int rows, cols;
        redist__coll_mesh(p, &rows, &cols);
        int row = rank / cols, col = rank % cols;
        err = ring(out + (int64_t)row * cols * bytes, bytes, cols, col, row * cols, 1, c);
        if (err == REDIST_SUCCESS)
            err = ring(out, (int64_t)cols * bytes, rows, row, col, cols, c);
        return err;
    }
    for (int k = 1; k < p; k <<= 1) {
        int partner = rank ^ k;
        int mine = rank & ~(k - 1), theirs = partner & ~(k - 1);
        err = redist__coll_sendrecv(out + (int64_t)mine * bytes, k * bytes, partner,
                                    out + (int64_t)theirs * bytes, k * bytes, partner, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}
