/* redist_relabel: process relabelling (redist.h). Each rank counts, from its source piece's
 * pattern against the destination's grid positions, the elements it would send to every
 * position; one MPI_Allreduce assembles the candidates x positions matrix on every rank,
 * which all solve alike (index/assign.c). The candidates are dst's ranks: a rank that holds
 * no source data has a zero row. */
#include "api/api.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* redist_relabel on the library's duplicate comm of the user's communicator. */
static int relabel(redist_layout src, redist_layout dst, MPI_Comm comm, int rank, int size,
                   int ranks_out[], int64_t *kept, int64_t *moved)
{
    int err = REDIST_SUCCESS;
    if (src == NULL || dst == NULL || ranks_out == NULL)
        err = redist__fail(REDIST_ERR_ARG, "redist_relabel: NULL argument");
    else if (!redist__same_global_shape(src, dst))
        err = redist__fail(REDIST_ERR_ARG, "src and dst describe different arrays");
    else if (!redist__grid_only(src) || !redist__grid_only(dst))
        err = redist__fail(REDIST_ERR_UNSUPPORTED,
                           "redist_relabel: boxes and replicated dimensions are not supported");
    else if (src->max_rank >= size || dst->max_rank >= size)
        err = redist__fail(REDIST_ERR_ARG, "a layout uses a rank the communicator does not have");
    int q = err == REDIST_SUCCESS ? dst->nprocs : 0, me = -1;
    if ((int64_t)q * q > INT_MAX) { /* one MPI_Allreduce of the matrix */
        err = redist__fail(REDIST_ERR_UNSUPPORTED, "relabelling %d positions (at most 46340)", q);
        q = 0;
    }
    size_t cells = (size_t)q * (size_t)q;
    int64_t *w = redist__calloc(cells + 1, sizeof *w);
    redist_layout positions = err == REDIST_SUCCESS ? redist__layout_by_position(dst) : NULL;
    if (err == REDIST_SUCCESS && (w == NULL || positions == NULL))
        err = redist__fail(REDIST_ERR_NOMEM, "redist_relabel: a %d x %d matrix", q, q);
    if (err == REDIST_SUCCESS && (me = redist__layout_position(dst, rank)) >= 0)
        err = redist__volume_row(src, positions, rank, w + (size_t)me * (size_t)q);
    /* The ranks agree on errors and on the layouts first: the matrix's size is only valid
       without an error, and one allreduce of it needs the same dst (and src) everywhere. */
    redist__fingerprints fp;
    fp.n = 0;
    redist__fp_layout_pair(&fp, err == REDIST_SUCCESS ? src : NULL,
                           err == REDIST_SUCCESS ? dst : NULL);
    err = redist__agree(comm, rank, err, &fp);
    if (err == REDIST_SUCCESS &&
        MPI_Allreduce(MPI_IN_PLACE, w, (int)cells, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_MPI, "MPI_Allreduce of the volume matrix failed");
    if (err == REDIST_SUCCESS) /* the solver allocates: its failure is agreed too */
        err =
            redist__agree(comm, rank, redist__relabel_solve(dst, w, ranks_out, kept, moved), NULL);
    redist__free(w);
    redist_layout_free(&positions);
    return err;
}

int redist_relabel(redist_layout src, redist_layout dst, MPI_Comm comm, int ranks_out[],
                   int64_t *kept, int64_t *moved)
{
    int rank = 0, size = 0;
    MPI_Comm dup = MPI_COMM_NULL;
    int err = redist__plan_prologue(comm, NULL, &rank, &size);
    if (err == REDIST_SUCCESS && redist__comm_dup(comm, &dup) != REDIST_SUCCESS)
        err = REDIST_ERR_MPI;
    if (err != REDIST_SUCCESS)
        return err;
    err = relabel(src, dst, dup, rank, size, ranks_out, kept, moved);
    MPI_Comm_free(&dup);
    return err;
}
