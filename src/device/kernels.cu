/* The device kernels (issue 28): a message's elements [lo, hi) between an array and the
 * packed buffer, or between two arrays (the self part), each thread decoding its elements'
 * offsets from the message's levels and run groups (decode.h: the closed form the host's walk
 * follows, checked against it by tests/unit/test_decode.c). Built to PTX by nvcc when the
 * toolkit is there (CMakeLists.txt), for the CUDA backend to load with the driver; plain C
 * builds never see this file.
 *
 * kind: 0 pack (array a -> buffer b), 1 unpack (buffer a -> array b), 2 copy (array a ->
 * array b). The buffer side starts at element lo. Element sizes 1, 2, 4, 8 and 16 bytes move
 * as one word, others byte by byte. Scaling (alpha, beta, conjugate) is a separate kernel
 * (not yet). */
#include "decode.h"

template <typename T>
__device__ static void move_elements(const rd_level *lv, int nlevels, const rd_run *runs,
                                     int kind, const char *a, char *b, long long lo, long long hi)
{
    for (long long e = lo + blockIdx.x * (long long)blockDim.x + threadIdx.x; e < hi;
         e += (long long)gridDim.x * blockDim.x) {
        long long from = kind == 1 ? e - lo : rd_offset(lv, nlevels, runs, e, 0);
        long long to = kind == 0 ? e - lo : rd_offset(lv, nlevels, runs, e, 1);
        reinterpret_cast<T *>(b)[to] = reinterpret_cast<const T *>(a)[from];
    }
}

struct bytes16 {
    unsigned long long lo, hi;
};

extern "C" __global__ void redist_move(const rd_level *lv, int nlevels, const rd_run *runs,
                                       int kind, const char *a, char *b, long long lo,
                                       long long hi, int elsize)
{
    switch (elsize) {
    case 1: move_elements<unsigned char>(lv, nlevels, runs, kind, a, b, lo, hi); return;
    case 2: move_elements<unsigned short>(lv, nlevels, runs, kind, a, b, lo, hi); return;
    case 4: move_elements<unsigned int>(lv, nlevels, runs, kind, a, b, lo, hi); return;
    case 8: move_elements<unsigned long long>(lv, nlevels, runs, kind, a, b, lo, hi); return;
    case 16: move_elements<bytes16>(lv, nlevels, runs, kind, a, b, lo, hi); return;
    default: break;
    }
    for (long long e = lo + blockIdx.x * (long long)blockDim.x + threadIdx.x; e < hi;
         e += (long long)gridDim.x * blockDim.x) {
        long long from = kind == 1 ? e - lo : rd_offset(lv, nlevels, runs, e, 0);
        long long to = kind == 0 ? e - lo : rd_offset(lv, nlevels, runs, e, 1);
        for (int c = 0; c < elsize; c++)
            b[to * elsize + c] = a[from * elsize + c];
    }
}
