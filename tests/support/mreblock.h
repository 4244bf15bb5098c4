/* The re-blocking cases of the one-copy tests (test_onecopy, test_device_onecopy): an
 * n0 x n1 array (or 1-D) in blocks b1 on a 1 x P grid (1-D: P) to blocks b2 on a P x 1 grid,
 * optionally transposed (the destination's axes swapped) and scaled (alpha 2, beta -0.5);
 * every element's value from its global index. */
#ifndef MREBLOCK_H
#define MREBLOCK_H

#include <stdint.h>

#include "redist.h"

typedef struct mreblock_spec {
    const char *what;
    int nd;
    int64_t n[2], b1[2], b2[2];
    int perm;   /* the destination is the transpose */
    int scaled; /* alpha 2, beta -0.5 */
    const char *algorithm;
} mreblock_spec;

typedef struct mreblock_pair {
    redist_layout src, dst;
    int64_t ns, nd; /* local elements */
    int64_t sshape[2], dshape[2];
    int sgrid[2], dgrid[2], scoords[2], dcoords[2];
} mreblock_pair;

/* This rank's layouts and local shapes of case c on `size` ranks; mreblock_free frees them. */
void mreblock_make(const mreblock_spec *c, int rank, int size, mreblock_pair *p);
void mreblock_free(mreblock_pair *p);
/* The source's local elements (round: a different value for each round of executes). */
void mreblock_fill(const mreblock_spec *c, const mreblock_pair *p, double *a, int round);
/* The first destination element that is not src's there (transposed, scaled from `before`),
   or -1; *got and *want its value and the expected one. */
int64_t mreblock_check(const mreblock_spec *c, const mreblock_pair *p, const double *b,
                       double before, int round, double *got, double *want);

#endif
