/* Serial test of [TCR96]'s processor sequences (src/index/tcr96_sequences.h) against brute force:
 * for cyclic(x) -> cyclic(y) with x = k y (KY_TO_Y) or y = k x (X_TO_KX), every k, every P
 * up to 24 and every processor p, each sequence entry must be the owner, under the other
 * distribution, of the elements it names (computed from the global index, Table 1), and the
 * stored forms must equal the per-block forms whenever k <= P and P mod k = 0. */
#include "index/tcr96_sequences.h"

#include <stdio.h>

#include "support/check.h"

/* Owner under cyclic(b) of the first element of block `blk` (size b2) of processor p's local
   array under cyclic(b2) on P processors. */
static int64_t owner_of_local_block(int64_t blk, int64_t b2, int64_t b, int64_t P, int64_t p)
{
    int64_t g = redist__cyclic_global(blk * b2, b2, P, p);
    return redist__cyclic_owner(g, b, P);
}

int main(void)
{
    for (int64_t P = 1; P <= 24; P++)
        for (int64_t k = 1; k <= 12; k++)
            for (int64_t p = 0; p < P; p++) {
                int stored = k <= P && P % k == 0;
                int64_t y = 3, x = k * y;             /* KY_TO_Y: cyclic(ky) -> cyclic(y) */
                for (int64_t j = 0; j < 4; j++)       /* local source blocks of size x */
                    for (int64_t i = 0; i < k; i++) { /* their sub-blocks of size y */
                        int64_t g = redist__cyclic_global(j * x + i * y, x, P, p);
                        CHECK(redist__ky_dest(k, P, p, i) == redist__cyclic_owner(g, y, P),
                              "ky dest P=%lld k=%lld p=%lld i=%lld", (long long)P, (long long)k,
                              (long long)p, (long long)i);
                    }
                for (int64_t i = 0; i < 3 * k; i++) { /* local destination blocks of size y */
                    int64_t want = owner_of_local_block(i, y, x, P, p);
                    CHECK(redist__ky_source(k, P, p, i) == want, "ky source P=%lld k=%lld",
                          (long long)P, (long long)k);
                    if (stored)
                        CHECK(redist__ky_source_stored(k, P, p, i) == want,
                              "ky stored source P=%lld k=%lld p=%lld i=%lld", (long long)P,
                              (long long)k, (long long)p, (long long)i);
                }
                int64_t xs = 2, ys = k * xs;          /* X_TO_KX: cyclic(x) -> cyclic(kx) */
                for (int64_t i = 0; i < 3 * k; i++) { /* local source blocks of size x */
                    int64_t want = owner_of_local_block(i, xs, ys, P, p);
                    CHECK(redist__xk_dest(k, P, p, i) == want, "xk dest P=%lld k=%lld",
                          (long long)P, (long long)k);
                    if (stored)
                        CHECK(redist__xk_dest_stored(k, P, p, i) == want,
                              "xk stored dest P=%lld k=%lld", (long long)P, (long long)k);
                }
                for (int64_t j = 0; j < 4; j++) /* local destination blocks of size y */
                    for (int64_t i = 0; i < k; i++) {
                        int64_t g = redist__cyclic_global(j * ys + i * xs, ys, P, p);
                        CHECK(redist__xk_source(k, P, p, i) == redist__cyclic_owner(g, xs, P),
                              "xk source P=%lld k=%lld p=%lld i=%lld", (long long)P, (long long)k,
                              (long long)p, (long long)i);
                    }
            }
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
