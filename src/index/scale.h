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

/* One element, d = beta d + alpha op(s) (AXPBY) or d = alpha op(s) (AX, beta = 0: d is not
   read), for real T (a, b) or complex T pairs (ar, ai, br, bi; c = -1 conjugates, else 1).
   Shared by the strided loops (scale.c) and the transposes' tiles (transpose.c). */
#define REDIST__AX_REAL(T, d, s, a)                                                                \
    do {                                                                                           \
        T x_;                                                                                      \
        memcpy(&x_, (s), sizeof x_);                                                               \
        x_ = (a)*x_;                                                                               \
        memcpy((d), &x_, sizeof x_);                                                               \
    } while (0)
#define REDIST__AXPBY_REAL(T, d, s, a, b)                                                          \
    do {                                                                                           \
        T x_, y_;                                                                                  \
        memcpy(&x_, (s), sizeof x_);                                                               \
        memcpy(&y_, (d), sizeof y_);                                                               \
        y_ = (b)*y_ + (a)*x_;                                                                      \
        memcpy((d), &y_, sizeof y_);                                                               \
    } while (0)
#define REDIST__AX_CPLX(T, d, s, ar, ai, c)                                                        \
    do {                                                                                           \
        T x_[2], y_[2];                                                                            \
        memcpy(x_, (s), sizeof x_);                                                                \
        x_[1] *= (c);                                                                              \
        y_[0] = (ar)*x_[0] - (ai)*x_[1];                                                           \
        y_[1] = (ar)*x_[1] + (ai)*x_[0];                                                           \
        memcpy((d), y_, sizeof y_);                                                                \
    } while (0)
#define REDIST__AXPBY_CPLX(T, d, s, ar, ai, br, bi, c)                                             \
    do {                                                                                           \
        T x_[2], y_[2], r_, i_;                                                                    \
        memcpy(x_, (s), sizeof x_);                                                                \
        memcpy(y_, (d), sizeof y_);                                                                \
        x_[1] *= (c);                                                                              \
        r_ = (ar)*x_[0] - (ai)*x_[1] + ((br)*y_[0] - (bi)*y_[1]);                                  \
        i_ = (ar)*x_[1] + (ai)*x_[0] + ((br)*y_[1] + (bi)*y_[0]);                                  \
        y_[0] = r_;                                                                                \
        y_[1] = i_;                                                                                \
        memcpy((d), y_, sizeof y_);                                                                \
    } while (0)

/* Runs LOOP(ELEM) with ELEM(d, s) the element operation of sc (its kind, beta = 0 or not),
   the constants hoisted: one instantiation of the caller's loop per case. */
#define REDIST__SCALE_DISPATCH(sc, LOOP)                                                           \
    do {                                                                                           \
        const double ar_ = (sc)->alpha[0], ai_ = (sc)->alpha[1], br_ = (sc)->beta[0],              \
                     bi_ = (sc)->beta[1], c_ = (sc)->conjugate ? -1.0 : 1.0;                       \
        const float far_ = (float)ar_, fai_ = (float)ai_, fbr_ = (float)br_, fbi_ = (float)bi_,    \
                    fc_ = (float)c_;                                                               \
        (void)ai_, (void)bi_, (void)c_, (void)fai_, (void)fbi_, (void)fc_;                         \
        switch ((sc)->kind * 2 + (sc)->beta_zero) {                                                \
        case REDIST__REAL4 * 2 + 1:                                                                \
            LOOP(REDIST__S_AX4);                                                                   \
            break;                                                                                 \
        case REDIST__REAL4 * 2:                                                                    \
            LOOP(REDIST__S_AXPBY4);                                                                \
            break;                                                                                 \
        case REDIST__REAL8 * 2 + 1:                                                                \
            LOOP(REDIST__S_AX8);                                                                   \
            break;                                                                                 \
        case REDIST__REAL8 * 2:                                                                    \
            LOOP(REDIST__S_AXPBY8);                                                                \
            break;                                                                                 \
        case REDIST__COMPLEX8 * 2 + 1:                                                             \
            LOOP(REDIST__S_CAX8);                                                                  \
            break;                                                                                 \
        case REDIST__COMPLEX8 * 2:                                                                 \
            LOOP(REDIST__S_CAXPBY8);                                                               \
            break;                                                                                 \
        case REDIST__COMPLEX16 * 2 + 1:                                                            \
            LOOP(REDIST__S_CAX16);                                                                 \
            break;                                                                                 \
        default:                                                                                   \
            LOOP(REDIST__S_CAXPBY16);                                                              \
            break;                                                                                 \
        }                                                                                          \
    } while (0)
#define REDIST__S_AX4(d, s) REDIST__AX_REAL(float, d, s, far_)
#define REDIST__S_AXPBY4(d, s) REDIST__AXPBY_REAL(float, d, s, far_, fbr_)
#define REDIST__S_AX8(d, s) REDIST__AX_REAL(double, d, s, ar_)
#define REDIST__S_AXPBY8(d, s) REDIST__AXPBY_REAL(double, d, s, ar_, br_)
#define REDIST__S_CAX8(d, s) REDIST__AX_CPLX(float, d, s, far_, fai_, fc_)
#define REDIST__S_CAXPBY8(d, s) REDIST__AXPBY_CPLX(float, d, s, far_, fai_, fbr_, fbi_, fc_)
#define REDIST__S_CAX16(d, s) REDIST__AX_CPLX(double, d, s, ar_, ai_, c_)
#define REDIST__S_CAXPBY16(d, s) REDIST__AXPBY_CPLX(double, d, s, ar_, ai_, br_, bi_, c_)

/* n elements: element j at d + j * dstep becomes beta * itself + alpha * op(the element at
   s + j * sstep); steps in bytes. */
void redist__scale_move(const redist__scale *sc, char *d, int64_t dstep, const char *s,
                        int64_t sstep, int64_t n);

/* n elements of es bytes into the destination: scaled by sc, or copied when sc is NULL. */
void redist__put(const redist__scale *sc, char *d, int64_t dstep, const char *s, int64_t sstep,
                 int64_t n, size_t es);

#endif
