/* Irregular blocks, HPF 2's GEN_BLOCK (no MPI): their constructor; their index math is in
 * layout.c. Along a dimension, one block per grid coordinate with sizes of the user's choosing
 * (PETSc-style splits 3, 3, 2, 2; uneven FFT slabs). Block i covers [gen[i], gen[i + 1]) of the
 * global indices (prefix sums) and lives on coordinate (first + i) mod P, as block i of cyclic(b)
 * does. Such a dimension gives every coordinate one interval, so its patterns are [SD96]'s regular
 * sections (sections.c): per peer at most three run groups against a cyclic(b) dimension and one
 * run against another irregular one, found in O(peers + log P), never per element. The papers'
 * special cases (shape.c) assume block-cyclic dimensions: a layout with an irregular dimension is
 * not `plain`, so they do not apply; the pattern-based algorithms and `general` do.
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

/* sizes[k]: grid[k] sizes >= 0 summing to extent[k]; the first problem found. */
static int check_sizes(int ndims, const int64_t extent[], const int grid[],
                       const int64_t *const sizes[])
{
    for (int k = 0; k < ndims; k++) {
        if (sizes[k] == NULL)
            continue;
        int64_t sum = 0;
        for (int c = 0; c < grid[k]; c++) {
            if (sizes[k][c] < 0 || sizes[k][c] > REDIST_MAX_EXTENT)
                return redist__fail(REDIST_ERR_ARG, "sizes[%d][%d] = %lld must be in [0, 2^62]", k,
                                    c, (long long)sizes[k][c]);
            if (sizes[k][c] > REDIST_MAX_EXTENT - sum) { /* past 2^62: stop before overflowing */
                sum = REDIST_MAX_EXTENT + 1;
                break;
            }
            sum += sizes[k][c];
        }
        if (sum != extent[k])
            return redist__fail(REDIST_ERR_ARG,
                                "the %d block sizes of dimension %d sum to %s%lld, not its extent "
                                "%lld",
                                grid[k], k, sum > REDIST_MAX_EXTENT ? "more than " : "",
                                (long long)(sum > REDIST_MAX_EXTENT ? REDIST_MAX_EXTENT : sum),
                                (long long)extent[k]);
    }
    return REDIST_SUCCESS;
}

static int gen_block_create(int ndims, const int64_t extent[], const int64_t block[],
                            const int grid[], const int first[], const int ranks[], int order,
                            const int64_t *const sizes[], redist_layout *layout);

int redist_layout_create_gen_block(int ndims, const int64_t extent[], const int64_t block[],
                                   const int grid[], const int first[], const int ranks[],
                                   int order, const int64_t *const sizes[], redist_layout *layout)
{
    if (layout != NULL)
        *layout = NULL;
    /* A replicated dimension's sizes are not read: the whole extent is on every process. */
    const int64_t *stack_sizes[8], **own = NULL;
    if (sizes != NULL && first != NULL && ndims > 0) {
        own = ndims <= 8 ? stack_sizes : redist__malloc((size_t)ndims * sizeof *own);
        if (own == NULL)
            return redist__fail(REDIST_ERR_NOMEM, "layout");
        for (int k = 0; k < ndims; k++)
            own[k] = first[k] == REDIST_REPLICATED ? NULL : sizes[k];
        sizes = own;
    }
    int err = gen_block_create(ndims, extent, block, grid, first, ranks, order, sizes, layout);
    if (own != NULL && own != stack_sizes)
        redist__free(own);
    return err;
}

static int gen_block_create(int ndims, const int64_t extent[], const int64_t block[],
                            const int grid[], const int first[], const int ranks[], int order,
                            const int64_t *const sizes[], redist_layout *layout)
{
    int any = 0;
    for (int k = 0; sizes != NULL && k < ndims; k++)
        any |= sizes[k] != NULL;
    if (!any || extent == NULL || grid == NULL || layout == NULL)
        return redist_layout_create(ndims, extent, block, grid, first, ranks, order, layout);
    for (int k = 0; k < ndims; k++)
        if (grid[k] < 1 || extent[k] < 0 ||
            (sizes[k] == NULL && block == NULL && (first == NULL || first[k] != REDIST_REPLICATED)))
            return redist_layout_create(ndims, extent, block, grid, first, ranks, order, layout);
    int err = check_sizes(ndims, extent, grid, sizes);
    int64_t *b = redist__malloc((size_t)ndims * sizeof *b);
    if (err == REDIST_SUCCESS && b == NULL)
        err = redist__fail(REDIST_ERR_NOMEM, "layout");
    for (int k = 0; err == REDIST_SUCCESS && k < ndims; k++) {
        b[k] = sizes[k] == NULL && block != NULL ? block[k] : 1; /* irregular: its largest */
        for (int c = 0; sizes[k] != NULL && c < grid[k]; c++)
            b[k] = sizes[k][c] > b[k] ? sizes[k][c] : b[k];
    }
    if (err == REDIST_SUCCESS)
        err = redist_layout_create(ndims, extent, b, grid, first, ranks, order, layout);
    redist__free(b);
    struct redist_layout_s *l = err == REDIST_SUCCESS ? *layout : NULL;
    if (l != NULL && (l->gen = redist__calloc((size_t)ndims, sizeof *l->gen)) == NULL)
        err = redist__fail(REDIST_ERR_NOMEM, "layout");
    for (int k = 0; err == REDIST_SUCCESS && k < ndims; k++) {
        if (sizes[k] == NULL)
            continue;
        if ((l->gen[k] = redist__malloc(((size_t)grid[k] + 1) * sizeof *l->gen[k])) == NULL) {
            err = redist__fail(REDIST_ERR_NOMEM, "layout");
            break;
        }
        l->gen[k][0] = 0;
        for (int c = 0; c < grid[k]; c++)
            l->gen[k][c + 1] = l->gen[k][c] + sizes[k][c];
        l->plain = 0;
    }
    if (err != REDIST_SUCCESS)
        redist_layout_free(layout);
    return err;
}
