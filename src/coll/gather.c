/* redist_gather (all-to-one personalized communication, the dual of scatter; [GGKK03],
 * Grama et al.).
 *
 * Algorithms (m = bytes per block, p ranks):
 *   "tree" / "hypercube": the binomial-tree (hypercube) gather to any root, the scatter
 *       tree run backwards. Ranks are renumbered relative to the root (v = (rank - root)
 *       mod p); at step k = 1, 2, 4, ... a node with bit k set sends the blocks it has
 *       collected for its subtree [v, v + k) to v - k and stops; the others receive the
 *       subtree [v + k, v + 2k) (clipped at p), doubling the data each step. Any p.
 *       Cost t_s log p + t_w m (p - 1).
 *   "linear": the root receives each block directly. Cost (p - 1)(t_s + t_w m).
 *
 * Workspace (allocated before the agreement, redist__coll_rooted): the tree's node with
 * relative rank v holds its subtree's blocks, min(low, p - v) m bytes with low the lowest
 * set bit of v (p m at the root); linear needs none.
 */
#include "coll/coll.h"

#include <string.h>

static const redist__coll_algo *const table[] = {&redist__coll_tree_sg, &redist__coll_hypercube_sg,
                                                 &redist__coll_linear_sg};
/* For redist_coll_predict and redist_coll_algorithm_name. */
const redist__coll_table redist__coll_table_gather = {"gather", table,
                                                      (int)(sizeof table / sizeof table[0])};

static int run_linear(const char *sbuf, char *rbuf, int64_t bytes, int root, int rank, int p,
                      MPI_Comm c)
{
    if (rank != root)
        return redist__coll_send(sbuf, bytes, root, c);
    for (int i = 0; i < p; i++) {
        if (i == root) {
            if (bytes > 0)
                memcpy(rbuf + (int64_t)i * bytes, sbuf, (size_t)bytes);
            continue;
        }
        int err = redist__coll_recv(rbuf + (int64_t)i * bytes, bytes, i, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* ws: the have = redist__coll_subtree(v) blocks of this rank's subtree (redist__coll_rooted).
 */
static int run_tree(const char *sbuf, char *rbuf, int64_t bytes, int root, int rank, int p,
                    char *tmp, MPI_Comm c)
{
    int v = (rank - root + p) % p;
    int low; /* lowest set bit of v (or the power of two >= p at the root) */
    int have = redist__coll_subtree(v, p, &low); /* blocks of the subtree */
    if (bytes > 0)
        memcpy(tmp, sbuf, (size_t)bytes);
    int err = REDIST_SUCCESS;
    for (int mask = 1; mask < low && err == REDIST_SUCCESS; mask <<= 1) {
        if (v + mask < p) {
            int n = have - mask < mask ? have - mask : mask;
            err =
                redist__coll_recv(tmp + (int64_t)mask * bytes, n * bytes, (v + mask + root) % p, c);
        }
    }
    if (err == REDIST_SUCCESS) {
        if (v != 0) {
            err = redist__coll_send(tmp, have * bytes, (v - low + root) % p, c);
        } else {
            for (int j = 0; j < p && bytes > 0; j++)
                memcpy(rbuf + (int64_t)((j + root) % p) * bytes, tmp + (int64_t)j * bytes,
                       (size_t)bytes);
        }
    }
    return err;
}

int redist_gather(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                  MPI_Comm comm, const char *algorithm)
{
    return redist__coll_rooted(sendbuf, recvbuf, count, type, root, comm, algorithm, 0, table,
                               (int)(sizeof table / sizeof table[0]), run_tree, run_linear);
}
