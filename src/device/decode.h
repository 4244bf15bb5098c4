/* The closed form a device kernel walks: element e of a message, in buffer order,
 * to its element offset in the source or the destination array. A message is levels (the
 * slowest dimension first) of run groups, as index/copy.c's walk orders them: level l's
 * indices are its run groups' in turn, run group g giving `count` replicas of `len`
 * consecutive indices (replica j starts `period` further), and each index of level l spans
 * `inner` elements of the levels below it. A GPU thread cannot follow a walk; it decodes its
 * element directly: per level, the index (e / inner), its run group (a binary search over the
 * groups' first indices), replica and place, and the offset that adds.
 *
 * The same header compiles as C (the plan-time flattening, device/decode.c, and the tests
 * that hold it to the host's walk) and as CUDA (the kernels). */
#ifndef REDIST_DECODE_H
#define REDIST_DECODE_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define RD_FN __device__ static inline
#else
#include <stdint.h>
#define RD_FN static inline
#endif

typedef struct rd_level {
    int64_t first_run, nruns;       /* its run groups: runs[first_run .. first_run + nruns) */
    int64_t inner;                  /* elements per index (the levels below) */
    int64_t src_period, dst_period; /* index advance per replica */
    int64_t src_stride, dst_stride; /* element stride of the dimension in the arrays */
} rd_level;

typedef struct rd_run {
    int64_t start;            /* its first index in the level's sequence of indices */
    int64_t src_off, dst_off; /* index of its first element on each side */
    int64_t len;              /* indices per replica */
} rd_run;

/* Element e's offset (elements) in the destination array if dst, else the source array. */
RD_FN int64_t rd_offset(const rd_level *lv, int nlevels, const rd_run *runs, int64_t e, int dst)
{
    int64_t off = 0;
    for (int l = 0; l < nlevels; l++) {
        const rd_level *L = &lv[l];
        int64_t k = e / L->inner;
        e -= k * L->inner;
        int64_t lo = L->first_run, hi = L->first_run + L->nruns - 1;
        while (lo < hi) { /* the last run group starting at or before index k */
            int64_t mid = lo + (hi - lo + 1) / 2;
            if (runs[mid].start <= k)
                lo = mid;
            else
                hi = mid - 1;
        }
        const rd_run *r = &runs[lo];
        int64_t at = k - r->start, j = at / r->len, i = at - j * r->len;
        off += dst ? (r->dst_off + j * L->dst_period + i) * L->dst_stride
                   : (r->src_off + j * L->src_period + i) * L->src_stride;
    }
    return off;
}

#endif
