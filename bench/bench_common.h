/* Small helpers shared by the benchmark programs (each bench is one .c file). */
#ifndef REDIST_BENCH_COMMON_H
#define REDIST_BENCH_COMMON_H

#include <stdlib.h>

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

#endif
