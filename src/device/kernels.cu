/* The device kernels: a message's elements [lo, hi) between an array and the
 * packed buffer, or between two arrays (the self part), each thread decoding its elements'
 * offsets from the message's levels and run groups (decode.h: the closed form the host's walk
 * follows, checked against it by tests/unit/test_decode.c). Built by nvcc when the toolkit
 * is there (CMakeLists.txt: one fat binary), for the CUDA backend to load with the driver;
 * plain C builds never see this file.
 *
 * kind: 0 pack (array a -> buffer b), 1 unpack (buffer a -> array b), 2 copy (array a ->
 * array b). The pulls (redist_pull, redist_scale_pull) copy array a -> array b as kind 2 does,
 * with the source offsets from the sender's message and the destination offsets from the
 * receiver's (two lists of the same elements in the same order); a may be another process's
 * array, mapped through the driver's inter-process memory. The buffer side starts at element
 * lo. Element sizes 1, 2, 4, 8 and 16 bytes move as one word where both arrays are aligned to
 * it (8 for 16), others byte by byte: an MPI
 * type of 8 bytes may sit at any byte address, and a misaligned word access would fail the
 * launch. Scaling (alpha, beta, conjugate): redist_scale_move, below. */
#include "decode.h"

/* A message's lists on one side: the source side's (sl, ...) and the destination side's
   (dl, ...) are one message's, but for a pull. */
#define RD_SIDES                                                                                   \
    const rd_level *sl, int sn, const rd_run *sr, const rd_level *dl, int dn, const rd_run *dr
#define RD_FROM(e) (kind == 1 ? (e) - lo : rd_offset(sl, sn, sr, (e), 0))
#define RD_TO(e) (kind == 0 ? (e) - lo : rd_offset(dl, dn, dr, (e), 1))

template <typename T>
__device__ static void move_elements(RD_SIDES, int kind, const char *a, char *b, long long lo,
                                     long long hi)
{
    for (long long e = lo + blockIdx.x * (long long)blockDim.x + threadIdx.x; e < hi;
         e += (long long)gridDim.x * blockDim.x)
        reinterpret_cast<T *>(b)[RD_TO(e)] = reinterpret_cast<const T *>(a)[RD_FROM(e)];
}

struct bytes16 {
    unsigned long long lo, hi;
};

/* Whether a and b are both aligned to `bytes` (a power of two). */
__device__ static bool aligned(const void *a, const void *b, unsigned bytes)
{
    return ((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(b)) &
            (bytes - 1)) == 0;
}

__device__ static void move_any(RD_SIDES, int kind, const char *a, char *b, long long lo,
                                long long hi, int elsize)
{
    int word = elsize == 16 ? 8 : elsize;
    switch (word == 1 || aligned(a, b, (unsigned)word) ? elsize : 0) {
    case 1: move_elements<unsigned char>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi); return;
    case 2: move_elements<unsigned short>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi); return;
    case 4: move_elements<unsigned int>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi); return;
    case 8: move_elements<unsigned long long>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi); return;
    case 16: move_elements<bytes16>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi); return;
    default: break;
    }
    for (long long e = lo + blockIdx.x * (long long)blockDim.x + threadIdx.x; e < hi;
         e += (long long)gridDim.x * blockDim.x) {
        long long from = RD_FROM(e), to = RD_TO(e);
        for (int c = 0; c < elsize; c++)
            b[to * elsize + c] = a[from * elsize + c];
    }
}

extern "C" __global__ void redist_move(const rd_level *lv, int nlevels, const rd_run *runs,
                                       int kind, const char *a, char *b, long long lo,
                                       long long hi, int elsize)
{
    move_any(lv, nlevels, runs, lv, nlevels, runs, kind, a, b, lo, hi, elsize);
}

extern "C" __global__ void redist_pull(const rd_level *sl, int sn, const rd_run *sr,
                                       const rd_level *dl, int dn, const rd_run *dr, const char *a,
                                       char *b, long long lo, long long hi, int elsize)
{
    move_any(sl, sn, sr, dl, dn, dr, 2, a, b, lo, hi, elsize);
}

/* Unpack or copy with scaling: d = beta d + alpha op(s) (options.alpha, beta, conjugate),
 * in the element type's arithmetic as index/scale.h's host code: beta_zero never reads d,
 * alpha_zero never reads s; float and double, real or complex (scale_kind 1 .. 4:
 * REDIST__REAL4 .. REDIST__COMPLEX16). */
/* An element part at p, aligned or not (misaligned: byte by byte). */
template <typename T> __device__ static T load(const T *p, bool whole)
{
    if (whole)
        return *p;
    T v;
    const char *c = reinterpret_cast<const char *>(p);
    char *w = reinterpret_cast<char *>(&v);
    for (unsigned k = 0; k < sizeof(T); k++)
        w[k] = c[k];
    return v;
}
template <typename T> __device__ static void store(T *p, T v, bool whole)
{
    if (whole) {
        *p = v;
        return;
    }
    char *c = reinterpret_cast<char *>(p);
    const char *w = reinterpret_cast<const char *>(&v);
    for (unsigned k = 0; k < sizeof(T); k++)
        c[k] = w[k];
}

template <typename T, bool complex>
__device__ static void scale_elements(RD_SIDES, int kind, const char *a, char *b, long long lo,
                                      long long hi, int conj, int beta_zero, int alpha_zero,
                                      double ar, double ai, double br, double bi)
{
    const T a0 = T(ar), a1 = T(ai), b0 = T(br), b1 = T(bi), c = conj ? T(-1) : T(1);
    const int parts = complex ? 2 : 1;
    const bool w = aligned(a, b, sizeof(T));
    for (long long e = lo + blockIdx.x * (long long)blockDim.x + threadIdx.x; e < hi;
         e += (long long)gridDim.x * blockDim.x) {
        long long from = RD_FROM(e), to = rd_offset(dl, dn, dr, e, 1);
        const T *s = reinterpret_cast<const T *>(a) + from * parts;
        T *d = reinterpret_cast<T *>(b) + to * parts;
        T x0 = alpha_zero ? T(0) : load(s, w); /* BLAS: op(src) not read when alpha = 0 */
        if (!complex) {
            store(d, beta_zero ? a0 * x0 : b0 * load(d, w) + a0 * x0, w);
            continue;
        }
        T x1 = (alpha_zero ? T(0) : load(s + 1, w)) * c;
        if (beta_zero) {
            store(d, a0 * x0 - a1 * x1, w);
            store(d + 1, a0 * x1 + a1 * x0, w);
        } else {
            T y0 = load(d, w), y1 = load(d + 1, w);
            store(d, a0 * x0 - a1 * x1 + (b0 * y0 - b1 * y1), w);
            store(d + 1, a0 * x1 + a1 * x0 + (b0 * y1 + b1 * y0), w);
        }
    }
}

__device__ static void scale_any(RD_SIDES, int kind, const char *a, char *b, long long lo,
                                 long long hi, int scale_kind, int conj, int beta_zero,
                                 int alpha_zero, double ar, double ai, double br, double bi)
{
    switch (scale_kind) {
    case 1:
        scale_elements<float, false>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi, conj, beta_zero,
                                     alpha_zero, ar, ai, br, bi);
        return;
    case 2:
        scale_elements<double, false>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi, conj, beta_zero,
                                      alpha_zero, ar, ai, br, bi);
        return;
    case 3:
        scale_elements<float, true>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi, conj, beta_zero,
                                    alpha_zero, ar, ai, br, bi);
        return;
    default:
        scale_elements<double, true>(sl, sn, sr, dl, dn, dr, kind, a, b, lo, hi, conj, beta_zero,
                                     alpha_zero, ar, ai, br, bi);
    }
}

extern "C" __global__ void redist_scale_move(const rd_level *lv, int nlevels, const rd_run *runs,
                                             int kind, const char *a, char *b, long long lo,
                                             long long hi, int scale_kind, int conj,
                                             int beta_zero, int alpha_zero, double ar, double ai,
                                             double br, double bi)
{
    scale_any(lv, nlevels, runs, lv, nlevels, runs, kind, a, b, lo, hi, scale_kind, conj,
              beta_zero, alpha_zero, ar, ai, br, bi);
}

extern "C" __global__ void redist_scale_pull(const rd_level *sl, int sn, const rd_run *sr,
                                             const rd_level *dl, int dn, const rd_run *dr,
                                             const char *a, char *b, long long lo, long long hi,
                                             int scale_kind, int conj, int beta_zero,
                                             int alpha_zero, double ar, double ai, double br,
                                             double bi)
{
    scale_any(sl, sn, sr, dl, dn, dr, 2, a, b, lo, hi, scale_kind, conj, beta_zero, alpha_zero,
              ar, ai, br, bi);
}
