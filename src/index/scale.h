/* Internal (not installed): scaling while unpacking (no MPI). A plan whose options ask for
 * dst = beta * dst + alpha * op(src) (op: the identity or complex conjugation) moves its
 * elements through these instead of memcpy, for float, double and their complex types
 * (pairs of them, real part first: C99 and Fortran complex alike). beta = 0 never reads dst,
 * as BLAS does (so NaN or uninitialised data there does not propagate).
 */
#ifndef REDIST_SCALE_H
#define REDIST_SCALE_H

#include <stdint.h>
#include <string.h>

enum { REDIST__REAL4 = 1, REDIST__REAL8, REDIST__COMPLEX8, REDIST__COMPLEX16 };

typedef struct redist__scale {
    int kind;       /* REDIST__REAL4 .. REDIST__COMPLEX16 */
    int conjugate;  /* complex kinds: op conjugates */
    int beta_zero;  /* beta = 0: dst is written, never read */
    int alpha_zero; /* alpha = 0: src is not read (dst = beta * dst) */
    double alpha[2], beta[2];
} redist__scale;

/* n elements: element j at d + j * dstep becomes beta * itself + alpha * op(the element at
   s + j * sstep); steps in bytes. */
void redist__scale_move(const redist__scale *sc, char *d, int64_t dstep, const char *s,
                        int64_t sstep, int64_t n);

/* n elements of es bytes into the destination: scaled by sc, or copied when sc is NULL. */
void redist__put(const redist__scale *sc, char *d, int64_t dstep, const char *s, int64_t sstep,
                 int64_t n, size_t es);

#endif
