/* Hashing and integer helpers shared by every layer (core.h). */
#include "core/core.h"

#include <stdint.h>

uint64_t redist__hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

int64_t redist__gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int redist__ceil_log2(int64_t v)
{
    int l = 0;
    while (l < 63 && ((int64_t)1 << l) < v)
        l++;
    return l;
}

int redist__log2_exact(int64_t v)
{
    if (v <= 0 || (v & (v - 1)) != 0)
        return -1;
    int l = 0;
    while (((int64_t)1 << l) != v)
        l++;
    return l;
}

int redist__prime_factors(int64_t K, int64_t f[REDIST__MAX_PRIME_FACTORS])
{
    int n = 0;
    for (int64_t d = 2; d <= K / d; d++) /* d <= sqrt(K) without d * d overflowing */
        while (K % d == 0) {
            f[n++] = d;
            K /= d;
        }
    if (K > 1)
        f[n++] = K;
    return n;
}

int64_t redist__mul_sat(int64_t a, int64_t b)
{
    return a != 0 && b > INT64_MAX / a ? INT64_MAX : a * b;
}

int64_t redist__chunks(int64_t bytes)
{
    return bytes <= 0 ? 1 : (bytes - 1) / REDIST__CHUNK_BYTES + 1;
}
