/* threads: 3 4 */
/* redist_relabel against an independent oracle: for random pairs of layouts (1-D and 2-D,
 * random blocks, grids, first coordinates, rank orders, the destination on all or some of
 * the ranks), the volume matrix is counted here element by element from the layout formula,
 * and every permutation of the destination's ranks is tried (at most 8! of them). The
 * returned labelling must be a permutation of the destination's ranks, keep exactly the best
 * number of elements in place (never fewer than the destination's own labelling), report
 * kept and moved consistently, and be the same on every rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int me, np, errs;
static uint64_t rng;
static int rnd(int lo, int hi) /* inclusive */
{
    return (int)mtest_rand(&rng, lo, hi);
}

typedef struct {
    int nd, grid[2], first[2], ranks[8], n;
    int64_t block[2];
} side_t;

static int owner_rank(const side_t *s, const int64_t g[2])
{
    int pos = 0;
    for (int k = 0; k < s->nd; k++)
        pos = pos * s->grid[k] + (int)((g[k] / s->block[k] + s->first[k]) % s->grid[k]);
    return pos;
}

static void random_side(side_t *s, int nd, int nprocs)
{
    s->nd = nd;
    s->n = nprocs;
    s->grid[0] = nprocs, s->grid[1] = 1;
    if (nd == 2 && nprocs % 2 == 0 && rnd(0, 1))
        s->grid[0] = nprocs / 2, s->grid[1] = 2;
    for (int k = 0; k < 2; k++) {
        s->block[k] = rnd(1, 6);
        s->first[k] = rnd(0, s->grid[k] - 1);
    }
    int all[8];
    for (int i = 0; i < np; i++)
        all[i] = i;
    for (int i = np - 1; i > 0; i--) {
        int j = rnd(0, i), t = all[i];
        all[i] = all[j];
        all[j] = t;
    }
    memcpy(s->ranks, all, (size_t)nprocs * sizeof(int));
}

/* Best kept volume over all permutations of the destination's ranks (Heap's algorithm). */
static int64_t best_kept(int q, const int64_t w[8][8], const int *dranks)
{
    int p[8], c[8] = {0};
    for (int i = 0; i < q; i++)
        p[i] = dranks[i]; /* p[position] = rank */
    int64_t best = -1;
    for (int i = 0;;) {
        int64_t v = 0;
        for (int j = 0; j < q; j++)
            v += w[p[j]][j];
        best = v > best ? v : best;
        for (i = 1; i < q && c[i] >= i; i++)
            c[i] = 0;
        if (i >= q)
            break;
        int j = i % 2 ? c[i] : 0, t = p[j];
        p[j] = p[i];
        p[i] = t;
        c[i]++;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int cases = np > 8 ? 0 : 200, improved = 0;
    for (int c = 0; c < cases; c++) {
        rng = 0x5851f42d4c957f2dull * (uint64_t)(c + 1) + 12345;
        int nd = rnd(1, 2);
        int64_t ext[2] = {rnd(0, 9) ? rnd(1, nd == 1 ? 200 : 25) : 0, rnd(1, 25)};
        if (nd == 1)
            ext[1] = 1;
        side_t s, d;
        random_side(&s, nd, rnd(1, np));
        random_side(&d, nd, rnd(1, np));
        redist_layout src = NULL, dst = NULL;
        redist_layout_create(nd, ext, s.block, s.grid, s.first, s.ranks, REDIST_ROW_MAJOR, &src);
        redist_layout_create(nd, ext, d.block, d.grid, d.first, d.ranks, REDIST_COL_MAJOR, &dst);
        /* The oracle: w[rank][position], element by element. */
        int64_t w[8][8] = {{0}}, total = ext[0] * ext[1], identity = 0;
        for (int64_t i = 0; i < ext[0]; i++)
            for (int64_t j = 0; j < ext[1]; j++) {
                int64_t g[2] = {i, j};
                w[s.ranks[owner_rank(&s, g)]][owner_rank(&d, g)]++;
            }
        for (int q = 0; q < d.n; q++)
            identity += w[d.ranks[q]][q];
        int64_t best = best_kept(d.n, w, d.ranks), kept = -1, moved = -1;
        int out[8] = {0};
        int rc = redist_relabel(src, dst, MPI_COMM_WORLD, out, &kept, &moved);
        char what[64];
        snprintf(what, sizeof what, "case %d (%d -> %d positions)", c, s.n, d.n);
        if (rc != REDIST_SUCCESS) {
            mtest_fail(&errs, me, what, "%s: %s", redist_strerror(rc), redist_last_error_detail());
        } else {
            int seen[8] = {0}, ok = 1;
            for (int q = 0; q < d.n; q++)
                for (int r = 0; r < d.n; r++)
                    if (out[q] == d.ranks[r])
                        seen[r]++;
            for (int r = 0; r < d.n; r++)
                ok &= seen[r] == 1;
            if (!ok)
                mtest_fail(&errs, me, what, "not a permutation of the destination's ranks");
            int64_t got = 0;
            for (int q = 0; ok && q < d.n; q++)
                got += w[out[q]][q];
            if (got != best || kept != best || moved != total - best || kept < identity)
                mtest_fail(&errs, me, what,
                           "kept %lld (reported %lld, moved %lld), best %lld, identity %lld",
                           (long long)got, (long long)kept, (long long)moved, (long long)best,
                           (long long)identity);
            int mine[9], first[9];
            memcpy(mine, out, sizeof out);
            mine[8] = (int)kept;
            memcpy(first, mine, sizeof mine);
            MPI_Bcast(first, 9, MPI_INT, 0, MPI_COMM_WORLD);
            if (memcmp(first, mine, sizeof mine) != 0)
                mtest_fail(&errs, me, what, "not the same on every rank");
            improved += kept > identity;
        }
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
    if (me == 0)
        printf("%d cases, relabelling kept more in place than the given labelling in %d\n", cases,
               improved);
    return mtest_finalize(errs);
}
