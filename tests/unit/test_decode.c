/* The device kernels' closed form (src/device/decode.h) against the host's walk: for random
 * 1-D to 3-D layout pairs over 1-8 ranks (blocks, grids, first coordinates, rank subsets and
 * storage orders drawn at random; identical layouts in the other order, which take the
 * tiled transposes), every message of every rank (sends, receives, the self part) is packed
 * from an array whose elements hold their own offsets (index/copy.c's redist__move_range), and
 * element e of the packed message must be rd_offset(e) on that side; and every element of
 * every message, in chunks as bounded mode moves them. */
#include "device/decode.h"
#include "device/device.h"
#include "index/index.h"

#include <stdio.h>
#include <stdlib.h>

#include "support/check.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static int rnd(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (unsigned long long)n);
}

static redist_layout random_layout(int ndims, const int64_t extent[], int nranks, int order)
{
    int64_t block[3];
    int grid[3], first[3], ranks[8], np = 1;
    for (int k = 0; k < ndims; k++) {
        block[k] = 1 + rnd(rnd(4) == 0 ? 40 : 7);
        grid[k] = 1 + rnd(3);
        while (np * grid[k] > nranks)
            grid[k]--;
        np *= grid[k];
        first[k] = rnd(grid[k]);
    }
    for (int i = 0; i < np; i++) /* a random subset, in random order */
        for (ranks[i] = rnd(nranks);;) {
            int seen = 0;
            for (int j = 0; j < i; j++)
                seen |= ranks[j] == ranks[i];
            if (!seen)
                break;
            ranks[i] = (ranks[i] + 1) % nranks;
        }
    redist_layout l = NULL;
    CHECK(redist_layout_create(ndims, extent, block, grid, first, ranks, order, &l) == 0,
          "random layout");
    return l;
}

static long messages, elements;

/* One message against its closed form, on the side it walks in an array (dst: unpacking). */
static void check_msg(const redist__msg *m, int dst)
{
    if (m->nelems == 0)
        return;
    int64_t nruns = redist__decode_runs(m), span = 0;
    rd_level *lv = malloc((size_t)m->nlevels * sizeof *lv);
    rd_run *runs = malloc((size_t)(nruns + 1) * sizeof *runs);
    redist__decode_build(m, lv, runs);
    for (int64_t e = 0; e < m->nelems; e++) { /* the array must hold every offset */
        int64_t off = rd_offset(lv, m->nlevels, runs, e, dst);
        CHECK(off >= 0, "negative offset %lld", (long long)off);
        span = off + 1 > span ? off + 1 : span;
    }
    int64_t *arr = malloc((size_t)span * sizeof *arr),
            *buf = malloc((size_t)m->nelems * sizeof *buf);
    for (int64_t i = 0; i < span; i++)
        arr[i] = i;
    int kind = dst ? REDIST__UNPACK : REDIST__PACK;
    if (!dst) /* pack the array of offsets, in chunks of a random size */
        for (int64_t lo = 0, step = 1 + rnd(1 + (int)m->nelems); lo < m->nelems; lo += step) {
            int64_t hi = lo + step < m->nelems ? lo + step : m->nelems;
            redist__move_range(m, kind, (const char *)arr, (char *)(buf + lo), sizeof *arr, NULL,
                               lo, hi);
        }
    else { /* unpack the element numbers: arr[offset of e] = e */
        for (int64_t e = 0; e < m->nelems; e++)
            buf[e] = -e - 1;
        redist__move_range(m, kind, (const char *)buf, (char *)arr, sizeof *arr, NULL, 0,
                           m->nelems);
    }
    for (int64_t e = 0; e < m->nelems; e++) {
        int64_t off = rd_offset(lv, m->nlevels, runs, e, dst);
        int64_t got = dst ? arr[off] : buf[e], want = dst ? -e - 1 : off;
        CHECK(got == want, "%s message to/from %d, element %lld of %lld: %lld, walk says %lld",
              dst ? "unpacked" : "packed", m->peer, (long long)e, (long long)m->nelems,
              (long long)want, (long long)got);
    }
    messages++;
    elements += m->nelems;
    free(arr);
    free(buf);
    free(lv);
    free(runs);
}

int main(void)
{
    for (int t = 0; t < 400; t++) {
        int ndims = 1 + rnd(3), nranks = 1 + rnd(8);
        int64_t extent[3];
        for (int k = 0; k < ndims; k++)
            extent[k] = rnd(ndims == 1 ? 400 : ndims == 2 ? 60 : 16);
        redist_layout a = random_layout(ndims, extent, nranks, rnd(2)), b = NULL;
        if (rnd(4) == 0) /* the same distribution, the other storage order */
            redist_layout_create(ndims, extent, a->block, a->grid, a->first, a->ranks, 1 - a->order,
                                 &b);
        else
            b = random_layout(ndims, extent, nranks, rnd(2));
        for (int r = 0; r < nranks && a != NULL && b != NULL; r++) {
            redist__side send, recv;
            redist__msg self;
            int has_self = 0;
            if (redist__sides_create(a, b, r, &send, &recv, &self, &has_self) != 0) {
                CHECK(0, "sides of rank %d", r);
                continue;
            }
            for (int i = 0; i < send.nmsgs; i++)
                check_msg(&send.msgs[i], 0);
            for (int i = 0; i < recv.nmsgs; i++)
                check_msg(&recv.msgs[i], 1);
            if (has_self) {
                check_msg(&self, 0);
                check_msg(&self, 1);
                redist__msg_free(&self);
            }
            redist__side_free(&send);
            redist__side_free(&recv);
        }
        redist_layout_free(&a);
        redist_layout_free(&b);
    }
    printf("test_decode: %ld messages, %ld elements: %s\n", messages, elements,
           failures ? "FAILED" : "every element where the walk puts it");
    CHECK(messages > 1000, "only %ld messages checked", messages);
    return failures != 0;
}
