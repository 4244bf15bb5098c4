/* The assignment problem for process relabelling (no MPI): given w[i][j], the elements that
 * candidate i holds of destination position j, a bijection that maximises the elements that
 * stay in place. Exact (Hungarian method, O(n^3), integer potentials, so every rank computes
 * the same answer) up to REDIST__ASSIGN_EXACT_MAX; a greedy heuristic beyond. The caller
 * keeps the identity when it keeps more (index.h).
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

/* Minimises sum c[i][p[i]] over permutations p of 0..n-1 (c: n x n, row-major, >= 0), the
   shortest-augmenting-path form of the Hungarian method with potentials u, v. */
static int hungarian(int n, const int64_t *c, int *p)
{
    size_t m = (size_t)n + 1;
    int64_t *u = redist__calloc(m, sizeof *u), *v = redist__calloc(m, sizeof *v),
            *minv = redist__malloc(m * sizeof *minv);
    int *way = redist__calloc(m, sizeof *way),
        *row_of = redist__calloc(m, sizeof *row_of); /* column -> row */
    char *used = redist__malloc(m);
    if (!u || !v || !minv || !way || !row_of || !used) {
        redist__free(u), redist__free(v), redist__free(minv), redist__free(way),
            redist__free(row_of), redist__free(used);
        return REDIST_ERR_NOMEM;
    }
    for (int i = 1; i <= n; i++) {
        row_of[0] = i;
        int j0 = 0;
        for (int j = 0; j <= n; j++) {
            minv[j] = INT64_MAX;
            used[j] = 0;
        }
        do { /* grow the alternating tree until a free column is reached */
            used[j0] = 1;
            int i0 = row_of[j0], j1 = 0;
            int64_t delta = INT64_MAX;
            for (int j = 1; j <= n; j++) {
                if (used[j])
                    continue;
                int64_t cur = c[(size_t)(i0 - 1) * (size_t)n + (size_t)(j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= n; j++) {
                if (used[j]) {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (row_of[j0] != 0);
        do { /* flip the path */
            int j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    for (int j = 1; j <= n; j++)
        p[row_of[j] - 1] = j - 1;
    redist__free(u), redist__free(v), redist__free(minv), redist__free(way), redist__free(row_of),
        redist__free(used);
    return REDIST_SUCCESS;
}

typedef struct cell {
    int64_t w;
    int i, j;
} cell;

static int heavier_first(const void *pa, const void *pb)
{
    const cell *a = pa, *b = pb;
    if (a->w != b->w)
        return a->w < b->w ? 1 : -1;
    if (a->i != b->i) /* ties broken by index: the same answer on every rank */
        return a->i < b->i ? -1 : 1;
    return (a->j > b->j) - (a->j < b->j);
}

/* Greedy: the heaviest remaining (candidate, position) pair first; the rest in order. */
static int greedy(int n, const int64_t *w, int *p)
{
    size_t cells = 0, nn = (size_t)n * (size_t)n;
    for (size_t k = 0; k < nn; k++)
        cells += w[k] > 0;
    cell *list = redist__malloc((cells + 1) * sizeof *list);
    char *row_done = redist__calloc((size_t)n, 1), *col_done = redist__calloc((size_t)n, 1);
    if (!list || !row_done || !col_done) {
        redist__free(list), redist__free(row_done), redist__free(col_done);
        return REDIST_ERR_NOMEM;
    }
    size_t c = 0;
    for (size_t k = 0; k < nn; k++)
        if (w[k] > 0)
            list[c++] = (cell){w[k], (int)(k / (size_t)n), (int)(k % (size_t)n)};
    qsort(list, cells, sizeof *list, heavier_first);
    for (int i = 0; i < n; i++)
        p[i] = -1;
    for (size_t k = 0; k < cells; k++)
        if (!row_done[list[k].i] && !col_done[list[k].j]) {
            p[list[k].i] = list[k].j;
            row_done[list[k].i] = col_done[list[k].j] = 1;
        }
    for (int i = 0, j = 0; i < n; i++) { /* the unmatched, in order */
        if (p[i] >= 0)
            continue;
        while (col_done[j])
            j++;
        p[i] = j;
        col_done[j] = 1;
    }
    redist__free(list), redist__free(row_done), redist__free(col_done);
    return REDIST_SUCCESS;
}

int64_t redist__assignment_value(int n, const int64_t *w, const int *p)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += w[(size_t)i * (size_t)n + (size_t)p[i]];
    return sum;
}

int redist__assign_max(int n, const int64_t *w, int *p)
{
    if (n <= 0)
        return REDIST_SUCCESS;
    if (n > REDIST__ASSIGN_EXACT_MAX)
        return greedy(n, w, p);
    size_t nn = (size_t)n * (size_t)n;
    int64_t top = 0;
    for (size_t k = 0; k < nn; k++)
        top = w[k] > top ? w[k] : top;
    int64_t *c = redist__malloc(nn * sizeof *c);
    if (c == NULL)
        return REDIST_ERR_NOMEM;
    for (size_t k = 0; k < nn; k++)
        c[k] = top - w[k]; /* maximise w = minimise top - w, all >= 0 */
    int err = hungarian(n, c, p);
    redist__free(c);
    return err;
}

struct redist_layout_s *redist__layout_by_position(const struct redist_layout_s *dst)
{
    struct redist_layout_s *l = redist__layout_copy(dst);
    if (l == NULL)
        return NULL;
    for (int q = 0; q < l->nprocs; q++) {
        l->ranks[q] = q;
        l->by_rank[q] = q;
    }
    l->max_rank = l->nprocs - 1;
    return l;
}

int redist__volume_row(const struct redist_layout_s *src, const struct redist_layout_s *positions,
                       int rank, int64_t *row)
{
    redist__side side;
    int err = redist__side_create(src, positions, REDIST__SIDE_SRC, rank, &side);
    for (int i = 0; err == REDIST_SUCCESS && i < side.nmsgs; i++)
        row[side.msgs[i].peer] += side.msgs[i].nelems;
    redist__side_free(&side);
    return err;
}

int redist__relabel_solve(const struct redist_layout_s *dst, const int64_t *w, int ranks_out[],
                          int64_t *kept, int64_t *moved)
{
    int q = dst->nprocs;
    int *p = redist__malloc(((size_t)q + 1) * sizeof *p);
    int err = p != NULL ? redist__assign_max(q, w, p) : REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS) {
        int64_t total = 1, identity = 0; /* total: every element of the array */
        for (int k = 0; k < dst->ndims; k++)
            total *= dst->extent[k];
        for (int i = 0; i < q; i++)
            identity += w[(size_t)i * (size_t)q + (size_t)i];
        int64_t best = redist__assignment_value(q, w, p);
        for (int i = 0; i < q; i++) /* never worse than dst's own labelling */
            ranks_out[best > identity ? p[i] : i] = dst->ranks[i];
        best = best > identity ? best : identity;
        if (kept)
            *kept = best;
        if (moved)
            *moved = total - best;
    }
    redist__free(p);
    return err;
}
