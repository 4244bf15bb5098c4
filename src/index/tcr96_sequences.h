/* Internal (not installed): [TCR96]'s index sequences, pure ([TCR96] Table 1 and the
 * processor sequences of KY_TO_Y, Fig. 2, and X_TO_KX, Fig. 5), 0-based. Used by the
 * [TCR96] algorithms (src/algo/tcr96.h) and checked against brute force in the unit tests. */
#ifndef REDIST_INDEX_TCR96_SEQUENCES_H
#define REDIST_INDEX_TCR96_SEQUENCES_H

#include <stdint.h>

/* [TCR96] Table 1, 0-based, cyclic(b) over P processors: global index of local index l on
   processor p, processor of global index g. */
static inline int64_t redist__cyclic_global(int64_t l, int64_t b, int64_t P, int64_t p)
{
    return (l / b) * b * P + p * b + l % b;
}
static inline int64_t redist__cyclic_owner(int64_t g, int64_t b, int64_t P)
{
    return (g / b) % P;
}

/* The processor sequences of KY_TO_Y (x = k y, Fig. 2) and X_TO_KX (y = k x, Fig. 5) for
   processor p. "Stored" sequences repeat every k blocks and hold when k <= P and
   P mod k = 0; the per-block forms hold always. */
/* KY_TO_Y send: sub-block i (size y) of every local block of size x goes to (k p + i) mod P. */
static inline int64_t redist__ky_dest(int64_t k, int64_t P, int64_t p, int64_t i)
{
    return (k * p + i) % P;
}
/* KY_TO_Y receive: local block i (size y) comes from ((i P + p) / k) mod P ... */
static inline int64_t redist__ky_source(int64_t k, int64_t P, int64_t p, int64_t i)
{
    return ((i * P + p) / k) % P;
}
/* ... which is p/k + (i mod k)(P/k) mod P when P mod k = 0. */
static inline int64_t redist__ky_source_stored(int64_t k, int64_t P, int64_t p, int64_t i)
{
    return (p / k + (i % k) * (P / k)) % P;
}
/* X_TO_KX send: local block i (size x) goes to ((i P + p) / k) mod P (stored form when
   P mod k = 0): the same expressions as KY_TO_Y's receive. */
static inline int64_t redist__xk_dest(int64_t k, int64_t P, int64_t p, int64_t i)
{
    return redist__ky_source(k, P, p, i);
}
static inline int64_t redist__xk_dest_stored(int64_t k, int64_t P, int64_t p, int64_t i)
{
    return redist__ky_source_stored(k, P, p, i);
}
/* X_TO_KX receive: sub-block i (size x) of every local block of size y comes from
   (k p + i) mod P. */
static inline int64_t redist__xk_source(int64_t k, int64_t P, int64_t p, int64_t i)
{
    return redist__ky_dest(k, P, p, i);
}

#endif
