/* Scaling while unpacking (scale.h): one loop per kind, with beta = 0 and contiguous runs
 * on their own so that the compiler vectorises the common cases. Complex products are
 * written out (no C99 complex multiply, whose NaN recovery calls a library routine per
 * element); the arithmetic is the textbook one, as the reference BLAS does it.
 */
#include "index/scale.h"

/* The strided loop, and the same with constant unit steps so that contiguous runs
   vectorise. */
#define STRIDED(ELEM)                                                                              \
    do {                                                                                           \
        if (dstep == es && sstep == es) {                                                          \
            for (int64_t j = 0; j < n; j++)                                                        \
                ELEM(d + j * es, s + j * es);                                                      \
        } else {                                                                                   \
            for (int64_t j = 0; j < n; j++)                                                        \
                ELEM(d + j * dstep, s + j * sstep);                                                \
        }                                                                                          \
    } while (0)

static int64_t kind_size(int kind)
{
    return kind == REDIST__REAL4 ? 4 : kind == REDIST__COMPLEX16 ? 16 : 8;
}

void redist__scale_move(const redist__scale *sc, char *d, int64_t dstep, const char *s,
                        int64_t sstep, int64_t n)
{
    static const double zero[2] = {0, 0};
    if (sc->alpha_zero) { /* BLAS: op(src) is not referenced (0 * NaN would be NaN) */
        s = (const char *)zero;
        sstep = 0;
    }
    const int64_t es = kind_size(sc->kind);
    REDIST__SCALE_DISPATCH(sc, STRIDED);
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
