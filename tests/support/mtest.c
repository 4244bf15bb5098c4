#include "support/mtest.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>

int64_t mtest_global_of(int64_t l, int64_t b, int P, int first, int c)
{
    int64_t rel = ((c - first) % P + P) % P; /* c's place after the first block's owner */
    return (l / b) * b * P + rel * b + l % b;
}

void mtest_fail(int *errs, int rank, const char *what, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("[rank %d] %s: ", rank, what);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    ++*errs;
}

int mtest_finalize(int errs)
{
    int total = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0;
}
