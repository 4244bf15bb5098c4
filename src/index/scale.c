/* Scaling while unpacking (scale.h): one loop per kind, with beta = 0 and contiguous runs
 * on their own so that the compiler vectorises the common cases. Complex products are
 * written out (no C99 complex multiply, whose NaN recovery calls a library routine per
 * element); the arithmetic is the textbook one, as the reference BLAS does it.
 */
#include "index/scale.h"

#define REAL_LOOP(T)                                                                               \
    do {                                                                                           \
        const T a = (T)sc->alpha[0], b = (T)sc->beta[0];                                           \
        if (sc->beta_zero)                                                                         \
            for (int64_t j = 0; j < n; j++) {                                                      \
                T x;                                                                               \
                memcpy(&x, s + j * sstep, sizeof x);                                               \
                x = a * x;                                                                         \
                memcpy(d + j * dstep, &x, sizeof x);                                               \
            }                                                                                      \
        else                                                                                       \
            for (int64_t j = 0; j < n; j++) {                                                      \
                T x, y;                                                                            \
                memcpy(&x, s + j * sstep, sizeof x);                                               \
                memcpy(&y, d + j * dstep, sizeof y);                                               \
                y = b * y + a * x;                                                                 \
                memcpy(d + j * dstep, &y, sizeof y);                                               \
            }                                                                                      \
    } while (0)

#define COMPLEX_LOOP(T)                                                                            \
    do {                                                                                           \
        const T ar = (T)sc->alpha[0], ai = (T)sc->alpha[1];                                        \
        const T br = (T)sc->beta[0], bi = (T)sc->beta[1], c = sc->conjugate ? (T)-1 : (T)1;        \
        for (int64_t j = 0; j < n; j++) {                                                          \
            T x[2], y[2] = {0, 0};                                                                 \
            memcpy(x, s + j * sstep, sizeof x);                                                    \
            x[1] *= c;                                                                             \
            T r = ar * x[0] - ai * x[1], i = ar * x[1] + ai * x[0];                                \
            if (!sc->beta_zero) {                                                                  \
                memcpy(y, d + j * dstep, sizeof y);                                                \
                r += br * y[0] - bi * y[1];                                                        \
                i += br * y[1] + bi * y[0];                                                        \
            }                                                                                      \
            y[0] = r;                                                                              \
            y[1] = i;                                                                              \
            memcpy(d + j * dstep, y, sizeof y);                                                    \
        }                                                                                          \
    } while (0)

/* The loops with constant steps, so that contiguous runs vectorise. */
#define DISPATCH(LOOP, T)                                                                          \
    do {                                                                                           \
        if (dstep == (int64_t)sizeof(T) * W && sstep == (int64_t)sizeof(T) * W) {                  \
            const int64_t dstep_ = (int64_t)sizeof(T) * W, sstep_ = dstep_;                        \
            {                                                                                      \
                const int64_t dstep = dstep_, sstep = sstep_;                                      \
                LOOP(T);                                                                           \
            }                                                                                      \
        } else {                                                                                   \
            LOOP(T);                                                                               \
        }                                                                                          \
    } while (0)

void redist__scale_move(const redist__scale *sc, char *d, int64_t dstep, const char *s,
                        int64_t sstep, int64_t n)
{
    static const double zero[2] = {0, 0};
    if (sc->alpha_zero) { /* BLAS: op(src) is not referenced (0 * NaN would be NaN) */
        s = (const char *)zero;
        sstep = 0;
    }
    switch (sc->kind) {
    case REDIST__REAL4: {
        enum { W = 1 };
        DISPATCH(REAL_LOOP, float);
        break;
    }
    case REDIST__REAL8: {
        enum { W = 1 };
        DISPATCH(REAL_LOOP, double);
        break;
    }
    case REDIST__COMPLEX8: {
        enum { W = 2 };
        DISPATCH(COMPLEX_LOOP, float);
        break;
    }
    default: {
        enum { W = 2 };
        DISPATCH(COMPLEX_LOOP, double);
        break;
    }
    }
}

void redist__put(const redist__scale *sc, char *d, int64_t dstep, const char *s, int64_t sstep,
                 int64_t n, size_t es)
{
    if (sc != NULL) {
        redist__scale_move(sc, d, dstep, s, sstep, n);
    } else if (dstep == (int64_t)es && sstep == (int64_t)es) {
        memcpy(d, s, (size_t)n * es);
    } else {
        for (int64_t j = 0; j < n; j++)
            memcpy(d + j * dstep, s + j * sstep, es);
    }
}
