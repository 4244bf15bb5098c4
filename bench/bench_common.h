/* Small helpers shared by the benchmark programs (each bench is one .c file). */
#ifndef REDIST_BENCH_COMMON_H
#define REDIST_BENCH_COMMON_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "redist.h"

static int bench_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of t[0 .. n-1] (sorts t; the mean of the middle two when n is even). */
static inline double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_compare_doubles);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* count doubles (room for at least one): malloc'd, or with shared node-shared memory from
   redist_alloc over MPI_COMM_WORLD, where plans copy on-node messages once (collective:
   every rank allocates, and frees with bench_free_doubles, in the same order). A failure
   stops the program. */
static inline double *bench_doubles(int shared, int64_t count)
{
    void *p = NULL;
    size_t bytes = sizeof(double) * (size_t)(count > 0 ? count : 1);
    int rc = shared ? redist_alloc(MPI_COMM_WORLD, (int64_t)bytes, &p)
                    : ((p = malloc(bytes)) != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM);
    if (rc != REDIST_SUCCESS) {
        fprintf(stderr, "bench: %s of %lld doubles: %s\n", shared ? "redist_alloc" : "malloc",
                (long long)count, shared ? redist_last_error_detail() : "out of memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static inline void bench_free_doubles(int shared, double *p)
{
    if (shared)
        redist_free(p);
    else
        free(p);
}

#endif
