/* What every example does once its two groups are joined by an intercommunicator: the source
 * group holds a 1-D array of N doubles cyclic(8) over its ranks, the destination group wants
 * it as contiguous blocks over its ranks. Each element's value is its global index, so the
 * destination checks every element. Returns 0 if every element arrived right. */
#ifndef REDIST_EXAMPLE_COMMON_H
#define REDIST_EXAMPLE_COMMON_H

#include <redist.h>

#include <stdio.h>
#include <stdlib.h>

#define EXAMPLE_N 1000000

static int exchange(MPI_Comm inter, int is_source, const char *who)
{
    int rank, mine, theirs;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &mine);
    MPI_Comm_remote_size(inter, &theirs);
    int p_src = is_source ? mine : theirs, p_dst = is_source ? theirs : mine;
    int64_t n = EXAMPLE_N, cyclic = 8, block = (EXAMPLE_N + p_dst - 1) / p_dst;
    redist_layout src, dst;
    redist_layout_create(1, &n, &cyclic, &p_src, NULL, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, &n, &block, &p_dst, NULL, NULL, REDIST_ROW_MAJOR, &dst);

    /* Every rank of both groups plans, then executes with its own side's array only. */
    redist_plan plan;
    int rc = redist_plan_create_inter(src, dst, MPI_DOUBLE, inter, is_source, NULL, &plan);
    if (rc != REDIST_SUCCESS) {
        fprintf(stderr, "%s %d: %s (%s)\n", who, rank, redist_strerror(rc),
                redist_last_error_detail());
        return 1;
    }
    int64_t count = 0;
    redist_layout_local_size(is_source ? src : dst, rank, &count);
    double *local = malloc((size_t)(count + 1) * sizeof *local);
    int64_t wrong = 0;
    if (is_source) { /* local index l of cyclic(8) on rank r is global (l/8)*8*P + 8r + l%8 */
        for (int64_t l = 0; l < count; l++)
            local[l] = (double)((l / cyclic) * cyclic * p_src + rank * cyclic + l % cyclic);
        rc = redist_execute(plan, local, NULL);
    } else { /* block: local index l on rank r is global r*block + l */
        rc = redist_execute(plan, NULL, local);
        for (int64_t l = 0; rc == REDIST_SUCCESS && l < count; l++)
            wrong += local[l] != (double)(rank * block + l);
    }
    if (rank == 0)
        printf("%s: %s via %s, %d -> %d ranks: %s\n", who, is_source ? "sent" : "received",
               redist_plan_algorithm(plan), p_src, p_dst, redist_strerror(rc));
    if (!is_source)
        printf("%s %d: %lld elements, %lld wrong\n", who, rank, (long long)count, (long long)wrong);
    free(local);
    redist_plan_free(&plan);
    redist_layout_free(&src);
    redist_layout_free(&dst);
    return rc != REDIST_SUCCESS || wrong != 0;
}

#endif
