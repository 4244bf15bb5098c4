/* redist_relabel: process relabelling (redist.h). Each rank counts, from its source piece's
 * pattern against the destination's grid positions, the elements it would send to every
 * position; one MPI_Allreduce assembles the candidates x positions matrix on every rank,
 * which all solve alike (index/assign.c). The candidates are dst's ranks: a rank that holds
 * no source data has a zero row. */
#include "api/api.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* dst with rank = grid position, so that the pattern's peers are positions. */
static redist_layout by_position(redist_layout dst)
{
    struct redist_layout_s *l = redist__layout_copy(dst);
    if (l == NULL)
        return NULL;
    for (int q = 0; q < l->nprocs; q++)
        l->ranks[q] = q;
    for (int q = 0; q < l->nprocs; q++)
        l->by_rank[q] = q;
    l->max_rank = l->nprocs - 1;
    return l;
}

/* This rank's row of the matrix: elements it sends to each destination position. */
static int my_row(redist_layout src, redist_layout positions, int rank, int64_t *row)
{
    redist__side side;
    int err = redist__side_create(src, positions, REDIST__SIDE_SRC, rank, &side);
    for (int i = 0; err == REDIST_SUCCESS && i < side.nmsgs; i++)
        row[side.msgs[i].peer] += side.msgs[i].nelems;
    redist__side_free(&side);
    return err;
}

int redist_relabel(redist_layout src, redist_layout dst, MPI_Comm comm, int ranks_out[],
                   int64_t *kept, int64_t *moved)
{
    int rank = 0, size = 0;
    int err = redist__plan_prologue(comm, NULL, &rank, &size);
    if (err != REDIST_SUCCESS)
        return err;
    if (src == NULL || dst == NULL || ranks_out == NULL)
        err = redist__fail(REDIST_ERR_ARG, "redist_relabel: NULL argument");
    else if (!redist__same_global_shape(src, dst))
        err = redist__fail(REDIST_ERR_ARG, "src and dst describe different arrays");
    else if (src->max_rank >= size || dst->max_rank >= size)
        err = redist__fail(REDIST_ERR_ARG, "a layout uses a rank the communicator does not have");
    int q = err == REDIST_SUCCESS ? dst->nprocs : 0, me = -1;
    if ((int64_t)q * q > INT_MAX) /* one MPI_Allreduce of the matrix */
        err = redist__fail(REDIST_ERR_UNSUPPORTED, "relabelling %d positions (at most 46340)", q);
    size_t cells = (size_t)q * (size_t)q;
    int64_t *w = calloc(cells + 1, sizeof *w);
    int *p = malloc(((size_t)q + 1) * sizeof *p);
    redist_layout positions = err == REDIST_SUCCESS ? by_position(dst) : NULL;
    if (err == REDIST_SUCCESS && (w == NULL || p == NULL || positions == NULL))
        err = redist__fail(REDIST_ERR_NOMEM, "redist_relabel: a %d x %d matrix", q, q);
    if (err == REDIST_SUCCESS && (me = redist__layout_position(dst, rank)) >= 0)
        err = my_row(src, positions, rank, w + (size_t)me * (size_t)q); /* candidate = dst's */
    /* The ranks agree on errors first (the matrix's size is only valid without one). */
    err = redist__agree(comm, rank, err, NULL);
    if (err == REDIST_SUCCESS &&
        MPI_Allreduce(MPI_IN_PLACE, w, (int)cells, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_MPI, "MPI_Allreduce of the volume matrix failed");
    if (err == REDIST_SUCCESS)
        err = redist__assign_max(q, w, p); /* candidate (dst position of a rank) -> position */
    if (err == REDIST_SUCCESS) {
        int64_t total = 1, identity = 0; /* total: every element of the array */
        for (int k = 0; k < dst->ndims; k++)
            total *= dst->extent[k];
        for (int i = 0; i < q; i++)
            identity += w[(size_t)i * (size_t)q + (size_t)i];
        int64_t best = redist__assignment_value(q, w, p);
        for (int i = 0; i < q; i++) /* never worse than dst's own labelling */
            ranks_out[best >= identity ? p[i] : i] = dst->ranks[i];
        best = best >= identity ? best : identity;
        if (kept)
            *kept = best;
        if (moved) /* every element, minus those that stay */
            *moved = total - best;
    }
    free(w);
    free(p);
    redist_layout_free(&positions);
    return err;
}
