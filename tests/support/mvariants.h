/* Every variant of a plan over one pair of layouts, checked element by element: the loop
 * the random differential tests share (test_gen_block, test_layout_kinds). */
#ifndef REDIST_MVARIANTS_H
#define REDIST_MVARIANTS_H

#include <stdint.h>

#include <mpi.h>

#include "redist.h"

/* What the test knows of a case: its arrays (host, with device twins for
   REDIST_TEST_MEMORY) and its oracle. fill writes every source element of this rank from its
   global index; check returns the destination elements of this rank that are wrong. */
typedef struct mtest_case_io {
    double *a, *b;   /* this rank's source and destination arrays (NULL when empty) */
    int64_t na, nb;  /* their elements */
    const int *perm; /* the axis permutation (NULL: none) */
    void (*fill)(void *ctx, double *a);
    int64_t (*check)(void *ctx, const double *b);
    void *ctx;
    MPI_Op reduce; /* options.reduce (MPI_OP_NULL: none): then auto and reduce-direct run, and
                      every other forced algorithm must say NOT_APPLICABLE */
    int scaled;    /* options.alpha[0] = alpha, beta[0] = beta (the destination holds -1
                      before each execute); not with the datatype transport's variant */
    double alpha, beta;
} mtest_case_io;

/* Runs src -> dst (MPI_DOUBLE, MPI_COMM_WORLD) with every algorithm the library lists and
   mtest_variant's other variants, each by execute and by start + test; a forced algorithm
   may say REDIST_ERR_NOT_APPLICABLE, the same on every rank. Failures are counted in *errs
   and name case `index`; returns the plans run. */
int mtest_every_variant(redist_layout src, redist_layout dst, const mtest_case_io *io, int index,
                        int *errs);

/* The oracle's walk over every global index of an nd-dimensional array of `extent`: for the
   elements this rank holds (locate(ctx, k, g, &local) says whether it holds index g along
   k, and at which local index), the element at sum local_k stride[k] of a gets the value of
   its source index (mtest_value_of; perm: the destination's dimension j is the source's
   perm[j], NULL for a source or no permutation): written (check = 0), or compared (check =
   1: returns the wrong elements). Slow and obviously right: per global element. */
int64_t mtest_oracle_walk(int nd, const int64_t extent[], const int64_t stride[],
                          int (*locate)(const void *ctx, int k, int64_t g, int64_t *local),
                          const void *ctx, const int *perm, double *a, int check);
/* The same, each value times weight(ctx, g) of its source index g (partial sums: a holder's
   part, or the sum of the parts; scaling: alpha), plus shift (scaling: beta times the
   destination's value before). */
int64_t mtest_oracle_walk_weighted(int nd, const int64_t extent[], const int64_t stride[],
                                   int (*locate)(const void *ctx, int k, int64_t g, int64_t *local),
                                   double (*weight)(const void *ctx, const int64_t g[]),
                                   double shift, const void *ctx, const int *perm, double *a,
                                   int check);
/* The value of the source element at global index g: 1000-adic digits of g, so that every
   element of a test array is distinct. */
double mtest_value_of(int nd, const int64_t g[]);

#endif
