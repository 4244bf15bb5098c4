/* Shared pieces of the fuzz targets (tests/fuzz/fuzz_*.c): a reader that turns the fuzzer's
 * bytes into parameters, and the check that stops the run on a broken invariant.
 *
 * The reader never fails: past the end of the input it returns zeros, so every input decodes
 * to some parameter set and short inputs are small cases. Values come in classes (small,
 * medium, boundary, raw 64-bit) so that the fuzzer reaches both the ordinary cases and the
 * overflow checks near 2^31, 2^62 and 2^63.
 */
#ifndef REDIST_FUZZ_H
#define REDIST_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A broken invariant: print it and abort, which libFuzzer reports as a crash with the input
   written out as a reproducer (the replay driver reports the file). */
#define FZ_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* AddressSanitizer's options for a target (its defaults; ASAN_OPTIONS still overrides): an
   allocation above max_allocation_size_mb returns NULL, so that a parameter set asking for
   gigabytes (2^30 ranks) is the library's out-of-memory path, not the fuzzer's. Without
   ASan the function is never called. */
#define FZ_ASAN_OPTIONS(options)                                                                   \
    const char *__asan_default_options(void);                                                      \
    const char *__asan_default_options(void)                                                       \
    {                                                                                              \
        return options;                                                                            \
    }

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader;

static inline unsigned fz_u8(fz_reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static inline uint64_t fz_bytes(fz_reader *r, int nbytes)
{
    uint64_t v = 0;
    for (int i = 0; i < nbytes; i++)
        v |= (uint64_t)fz_u8(r) << (8 * i);
    return v;
}

/* A value in [lo, hi] (lo <= hi, hi - lo < 2^63). */
static inline int64_t fz_range(fz_reader *r, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1, v;
    if (span <= 256)
        v = fz_u8(r);
    else if (span <= 65536)
        v = fz_bytes(r, 2);
    else
        v = fz_bytes(r, 8);
    return lo + (int64_t)(span == 0 ? v : v % span);
}

/* Values where the library's arithmetic changes: around 2^31, 2^32, 2^62 and 2^63. */
static const int64_t fz_boundaries[] = {0,
                                        1,
                                        2,
                                        3,
                                        -1,
                                        -2,
                                        (int64_t)1 << 16,
                                        (int64_t)1 << 20,
                                        ((int64_t)1 << 31) - 1,
                                        (int64_t)1 << 31,
                                        ((int64_t)1 << 32) + 1,
                                        (int64_t)1 << 40,
                                        ((int64_t)1 << 61) + 1,
                                        ((int64_t)1 << 62) - 1,
                                        (int64_t)1 << 62,
                                        ((int64_t)1 << 62) + 1,
                                        INT64_MAX - 1,
                                        INT64_MAX,
                                        INT64_MIN,
                                        INT64_MIN + 1};
enum { FZ_NBOUNDARIES = sizeof fz_boundaries / sizeof fz_boundaries[0] };

/* An extent, block or offset: mostly small, sometimes a boundary, a power of two give or take
   two, or any 64-bit value. small: the largest "small" value. */
static inline int64_t fz_value(fz_reader *r, int64_t small)
{
    unsigned cls = fz_u8(r) % 16;
    if (cls < 10)
        return fz_range(r, 0, small);
    if (cls < 12)
        return fz_range(r, 0, 65535);
    if (cls < 14)
        return fz_boundaries[fz_u8(r) % FZ_NBOUNDARIES];
    if (cls < 15) {
        int e = (int)(fz_u8(r) % 63);
        return ((int64_t)1 << e) + (int64_t)(fz_u8(r) % 5) - 2;
    }
    return (int64_t)fz_bytes(r, 8);
}

/* A grid extent: mostly 1 .. small, sometimes a boundary of int. */
static inline int fz_grid(fz_reader *r, int small)
{
    static const int64_t special[] = {0,       -1,     1,     2,         64,        4096,
                                      4097,    46341,  65536, INT32_MAX, INT32_MIN, INT32_MAX - 1,
                                      1 << 16, 1 << 30};
    unsigned cls = fz_u8(r) % 16;
    if (cls < 14)
        return (int)fz_range(r, 1, small);
    if (cls < 15)
        return (int)special[fz_u8(r) % (sizeof special / sizeof special[0])];
    return (int)(uint32_t)fz_bytes(r, 4);
}

/* splitmix64: many values from a seed of few input bytes (samples of large arrays). */
static inline uint64_t fz_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Fisher-Yates permutation of 0 .. n-1 from the input. */
static inline void fz_permutation(fz_reader *r, int *perm, int n)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(fz_u8(r) % (unsigned)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

#endif
