/* redist_scatter (one-to-all personalized communication, [GGKK03]).
 *
 * Algorithms (m = bytes per block, p ranks):
 *   "tree" / "hypercube": the binomial-tree (hypercube) scatter from any root. Ranks are
 *       renumbered relative to the root (v = (rank - root) mod p), the root starts with all
 *       p blocks; at each step a node holding the blocks of its subtree [v, v + 2k) sends
 *       the upper half [v + k, v + 2k) to v + k, halving the data each step. Any p (the
 *       subtrees are clipped at p). Cost t_s log p + t_w m (p - 1).
 *   "linear": the root sends each block directly. Cost (p - 1)(t_s + t_w m).
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
const redist__coll_table redist__coll_table_scatter = {"scatter", table,
                                                       (int)(sizeof table / sizeof table[0])};

static int run_linear(const char *sbuf, char *rbuf, int64_t bytes, int root, int rank, int p,
                      MPI_Comm c)
{
    if (rank != root)
        return redist__coll_recv(rbuf, bytes, root, c);
    for (int i = 0; i < p; i++) {
        if (i == root) {
            if (bytes > 0)
                memcpy(rbuf, sbuf + (int64_t)i * bytes, (size_t)bytes);
            continue;
        }
        int err = redist__coll_send(sbuf + (int64_t)i * bytes, bytes, i, c);
        if (err != REDIST_SUCCESS)
            return err;
    }
    return REDIST_SUCCESS;
}

/* tmp[j] = block of relative rank v + j for the subtree held by this node: the have =
   redist__coll_subtree(v) blocks of workspace (redist__coll_rooted). */
static int run_tree(const char *sbuf, char *rbuf, int64_t bytes, int root, int rank, int p,
                    char *tmp, MPI_Comm c)
{
    int v = (rank - root + p) % p;
    int mask;
    int have = redist__coll_subtree(v, p, &mask);
    int err = REDIST_SUCCESS;
    if (v == 0) {
        for (int j = 0; j < p && bytes > 0; j++)
            memcpy(tmp + (int64_t)j * bytes, sbuf + (int64_t)((j + root) % p) * bytes,
                   (size_t)bytes);
    } else {
        err = redist__coll_recv(tmp, have * bytes, ((v - mask) + root) % p, c);
    }
    for (mask >>= 1; mask > 0 && err == REDIST_SUCCESS; mask >>= 1) {
        if (v + mask < p && mask < have) {
            int n = have - mask;
            if (n > mask)
                n = mask;
            err =
                redist__coll_send(tmp + (int64_t)mask * bytes, n * bytes, (v + mask + root) % p, c);
        }
    }
    if (err == REDIST_SUCCESS && bytes > 0)
        memcpy(rbuf, tmp, (size_t)bytes);
    return err;
}

int redist_scatter(const void *sendbuf, void *recvbuf, int64_t count, MPI_Datatype type, int root,
                   MPI_Comm comm, const char *algorithm)
{
    return redist__coll_rooted(sendbuf, recvbuf, count, type, root, comm, algorithm, 1, table,
                               (int)(sizeof table / sizeof table[0]), run_tree, run_linear);
}
