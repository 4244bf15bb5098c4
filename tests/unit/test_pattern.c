/* Serial tests of the pure index math: layouts and patterns, exhaustive over small ranges.
 *
 * Layouts: every global index lands on exactly one rank at a local index inside its local
 * shape, and local <-> global is a bijection (checked against the formula of the header).
 * Patterns: for each pair of 1-D layouts (and some 2-D/3-D ones), the messages built for
 * every rank, replayed through the copy engine on "global index" arrays, put every
 * element exactly once where the destination layout says, and sender and receiver agree on
 * every message (same peer pairs, same element count, same order).
 */
#include "index/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

/* ---- brute force from the header's formula -------------------------------------------- */
static int owner_of(const struct redist_layout_s *l, int k, int64_t g)
{
    return (int)((g / l->block[k] + l->first[k]) % l->grid[k]);
}
static int64_t local_of(const struct redist_layout_s *l, int k, int64_t g)
{
    return (g / (l->block[k] * l->grid[k])) * l->block[k] + g % l->block[k];
}

/* Rank and local linear offset of the global multi-index g[]. */
static void locate(const struct redist_layout_s *l, const int64_t g[], int *rank, int64_t *off)
{
    int coords[8];
    int64_t shape[8], idx[8], stride[8];
    for (int k = 0; k < l->ndims; k++) {
        coords[k] = owner_of(l, k, g[k]);
        idx[k] = local_of(l, k, g[k]);
    }
    *rank = l->ranks[redist__layout_position_of(l, coords)];
    redist_layout_local_shape((redist_layout)l, *rank, shape);
    int64_t step = 1; /* dense strides in the layout's storage order */
    for (int i = 0; i < l->ndims; i++) {
        int k = l->order == REDIST_COL_MAJOR ? i : l->ndims - 1 - i;
        stride[k] = step;
        step *= shape[k];
    }
    *off = 0;
    for (int k = 0; k < l->ndims; k++)
        *off += idx[k] * stride[k];
}

static int64_t product(const int64_t *v, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

/* Every global index maps to a distinct (rank, local offset) inside the local sizes. */
static void check_layout(redist_layout l)
{
    int64_t total = product(l->extent, l->ndims), sum = 0;
    int maxr = l->max_rank + 1;
    int64_t *sizes = calloc((size_t)maxr, sizeof *sizes);
    char **seen = calloc((size_t)maxr, sizeof *seen);
    for (int r = 0; r < maxr; r++) {
        CHECK(redist_layout_local_size(l, r, &sizes[r]) == 0, "local_size");
        sum += sizes[r];
        seen[r] = calloc((size_t)sizes[r] + 1, 1);
    }
    CHECK(sum == total, "local sizes sum to %lld, expected %lld", (long long)sum, (long long)total);
    int64_t g[8] = {0};
    for (int64_t lin = 0; lin < total; lin++) {
        int64_t rem = lin;
        for (int k = l->ndims - 1; k >= 0; k--) {
            g[k] = rem % l->extent[k];
            rem /= l->extent[k];
        }
        int rank;
        int64_t off;
        locate(l, g, &rank, &off);
        CHECK(off >= 0 && off < sizes[rank], "offset %lld outside local size %lld", (long long)off,
              (long long)sizes[rank]);
        if (off >= 0 && off < sizes[rank]) {
            CHECK(!seen[rank][off], "two global indices at rank %d offset %lld", rank,
                  (long long)off);
            seen[rank][off] = 1;
        }
    }
    for (int r = 0; r < maxr; r++)
        free(seen[r]);
    free(seen);
    free(sizes);
}

/* ---- patterns through the copy engine ------------------------------------------------- */

/* Chunk sizes for the resumable walks: 1, 2, 3, 5, 8, ... cycling, shifted by seed. */
static int64_t chunk_size(int64_t i)
{
    static const int64_t sizes[] = {1, 2, 3, 5, 8, 13, 64, 1000};
    return sizes[i % 8];
}

/* Packing message m in chunks with a cursor gives the whole message's buffer. */
static void check_cursor_pack(const redist__msg *m, const int64_t *src, const int64_t *want,
                              int seed)
{
    int64_t *got = malloc((size_t)(m->nelems + 1) * sizeof *got), scratch[3 * 8];
    redist__cursor c;
    redist__cursor_init(&c, m, scratch);
    int64_t done = 0, calls = seed;
    while (done < m->nelems) {
        int64_t n = redist__cursor_pack(&c, (const char *)src, (char *)(got + done),
                                        chunk_size(calls++), sizeof *got);
        CHECK(n > 0, "cursor pack made no progress at %lld of %lld", (long long)done,
              (long long)m->nelems);
        if (n <= 0)
            break;
        done += n;
    }
    CHECK(redist__cursor_pack(&c, (const char *)src, (char *)got, 5, sizeof *got) == 0,
          "cursor pack past the end");
    CHECK(memcmp(got, want, (size_t)m->nelems * sizeof *got) == 0,
          "cursor pack differs from the whole pack (%lld elements)", (long long)m->nelems);
    free(got);
}

static void cursor_unpack(const redist__msg *m, const int64_t *buf, int64_t *dst, int seed)
{
    int64_t scratch[3 * 8], done = 0, calls = seed;
    redist__cursor c;
    redist__cursor_init(&c, m, scratch);
    while (done < m->nelems) {
        int64_t n = redist__cursor_unpack(&c, (const char *)(buf + done), (char *)dst,
                                          chunk_size(calls++), sizeof *buf, NULL);
        if (n <= 0)
            break;
        done += n;
    }
}

/* ---- parts of a move (threads) ------------------------------------------------------------
   Every split into parts, run in any order, moves what the whole move moves and writes
   nothing else: the pack's buffer, and the whole destination array (-1 where untouched). */
static const int part_counts[] = {2, 3, 5, 7, 16};
static int64_t tiled_parts_checked, one_level_parts_checked; /* the special splits ran */

/* kind: REDIST__UNPACK or REDIST__COPY into a copy of dst of dst_n elements. */
static void check_parts_into(const redist__msg *m, int kind, const int64_t *from,
                             const int64_t *dst, int64_t dst_n)
{
    size_t bytes = (size_t)(dst_n + 1) * sizeof(int64_t);
    int64_t *whole = malloc(bytes), *parts = malloc(bytes);
    tiled_parts_checked += m->tiles != NULL;
    one_level_parts_checked += m->nlevels == 1 && m->levels[0].nruns > 1;
    memcpy(whole, dst, bytes);
    redist__move_part(m, kind, (const char *)from, (char *)whole, sizeof *whole, NULL, 0, 1);
    for (int c = 0; c < 5; c++) {
        int n = part_counts[c];
        memcpy(parts, dst, bytes);
        for (int t = n - 1; t >= 0; t--) /* backwards: no part may rely on another */
            redist__move_part(m, kind, (const char *)from, (char *)parts, sizeof *parts, NULL, t,
                              n);
        CHECK(memcmp(whole, parts, bytes) == 0, "%s in %d parts differs (%lld elements%s)",
              kind == REDIST__COPY ? "copy" : "unpack", n, (long long)m->nelems,
              m->tiles != NULL ? ", tiled" : "");
        /* ranges at uneven cuts (bounded mode's chunks split among threads) */
        memcpy(parts, dst, bytes);
        int64_t lo = 0;
        for (int64_t k = 1; lo < m->nelems; k++) {
            int64_t hi = lo + k * n < m->nelems ? lo + k * n : m->nelems;
            if (kind == REDIST__UNPACK)
                redist__move_range(m, kind, (const char *)(from + lo), (char *)parts, sizeof *parts,
                                   NULL, lo, hi);
            else
                redist__move_range(m, kind, (const char *)from, (char *)parts, sizeof *parts, NULL,
                                   lo, hi);
            lo = hi;
        }
        CHECK(memcmp(whole, parts, bytes) == 0, "%s by ranges of %d differs",
              kind == REDIST__COPY ? "copy" : "unpack", n);
    }
    free(whole);
    free(parts);
}

static void check_pack_parts(const redist__msg *m, const int64_t *src, const int64_t *want)
{
    size_t bytes = (size_t)(m->nelems + 1) * sizeof(int64_t);
    int64_t *got = malloc(bytes);
    for (int c = 0; c < 5; c++) {
        int n = part_counts[c];
        memset(got, 0xff, bytes);
        for (int t = n - 1; t >= 0; t--)
            redist__move_part(m, REDIST__PACK, (const char *)src, (char *)got, sizeof *got, NULL, t,
                              n);
        CHECK(memcmp(got, want, (size_t)m->nelems * sizeof *got) == 0,
              "pack in %d parts differs (%lld elements)", n, (long long)m->nelems);
        memset(got, 0xff, bytes);
        for (int64_t lo = 0, k = 1; lo < m->nelems; k++) {
            int64_t hi = lo + k * n < m->nelems ? lo + k * n : m->nelems;
            redist__move_range(m, REDIST__PACK, (const char *)src, (char *)(got + lo), sizeof *got,
                               NULL, lo, hi);
            lo = hi;
        }
        CHECK(memcmp(got, want, (size_t)m->nelems * sizeof *got) == 0,
              "pack by ranges of %d differs", n);
    }
    free(got);
}

/* Builds every rank's messages, fills each rank's source array with global linear indices,
   packs every message, hands the buffer to the receiver's matching message, unpacks, and
   checks each destination element against its global index. */
static void check_pattern(redist_layout src, redist_layout dst, int nranks)
{
    int64_t total = product(src->extent, src->ndims);
    int64_t **sbuf = calloc((size_t)nranks, sizeof *sbuf),
            **dbuf = calloc((size_t)nranks, sizeof *dbuf);
    int64_t *dsize = calloc((size_t)nranks, sizeof *dsize);
    redist__side *send = calloc((size_t)nranks, sizeof *send),
                 *recv = calloc((size_t)nranks, sizeof *recv);
    redist__msg *self = calloc((size_t)nranks, sizeof *self);
    int *has_self = calloc((size_t)nranks, sizeof *has_self);
    int64_t g[8] = {0};
    for (int r = 0; r < nranks; r++) {
        int64_t n = 0;
        redist_layout_local_size(src, r, &n);
        sbuf[r] = malloc((size_t)(n + 1) * sizeof(int64_t));
        redist_layout_local_size(dst, r, &dsize[r]);
        dbuf[r] = malloc((size_t)(dsize[r] + 1) * sizeof(int64_t));
        for (int64_t i = 0; i <= dsize[r]; i++) /* and the guard element the part checks compare */
            dbuf[r][i] = -1;
        CHECK(redist__sides_create(src, dst, r, &send[r], &recv[r], &self[r], &has_self[r]) == 0,
              "sides_create rank %d", r);
    }
    for (int64_t lin = 0; lin < total; lin++) { /* fill sources with global indices */
        int64_t rem = lin;
        for (int k = src->ndims - 1; k >= 0; k--) {
            g[k] = rem % src->extent[k];
            rem /= src->extent[k];
        }
        int rank;
        int64_t off;
        locate(src, g, &rank, &off);
        sbuf[rank][off] = lin;
    }
    for (int r = 0; r < nranks; r++) {
        if (has_self[r] && r % 2 == 0 && redist__tiles_create(&self[r]) != REDIST_SUCCESS)
            CHECK(0, "tiles of rank %d's self part", r);
        if (has_self[r]) {
            check_parts_into(&self[r], REDIST__COPY, sbuf[r], dbuf[r], dsize[r]);
            redist__copy(&self[r], (const char *)sbuf[r], (char *)dbuf[r], sizeof(int64_t), NULL);
        }
        for (int i = 0; i < send[r].nmsgs; i++) {
            const redist__msg *m = &send[r].msgs[i];
            int peer = m->peer;
            const redist__msg *match = NULL;
            for (int j = 0; j < recv[peer].nmsgs; j++)
                if (recv[peer].msgs[j].peer == r)
                    match = &recv[peer].msgs[j];
            CHECK(match != NULL, "rank %d sends to %d, which expects nothing", r, peer);
            if (match == NULL)
                continue;
            CHECK(match->nelems == m->nelems, "message %d->%d: %lld sent, %lld expected", r, peer,
                  (long long)m->nelems, (long long)match->nelems);
            int64_t *buf = malloc((size_t)(m->nelems + 1) * sizeof *buf);
            redist__pack(m, (const char *)sbuf[r], (char *)buf, sizeof *buf);
            check_cursor_pack(m, sbuf[r], buf, r + i);
            check_pack_parts(m, sbuf[r], buf);
            if (match->nelems == m->nelems && (r + i) % 3 == 0 &&
                redist__tiles_create((redist__msg *)match) != REDIST_SUCCESS)
                CHECK(0, "tiles of a message to rank %d", peer);
            if (match->nelems == m->nelems)
                check_parts_into(match, REDIST__UNPACK, buf, dbuf[peer], dsize[peer]);
            if (match->nelems != m->nelems)
                ;
            else if ((r + i) % 2) /* half the messages unpacked in chunks (bounded mode) */
                cursor_unpack(match, buf, dbuf[peer], r + i);
            else
                redist__unpack(match, (const char *)buf, (char *)dbuf[peer], sizeof *buf, NULL);
            free(buf);
        }
    }
    int64_t msgs_sent = 0, msgs_recv = 0;
    for (int r = 0; r < nranks; r++) {
        msgs_sent += send[r].nmsgs;
        msgs_recv += recv[r].nmsgs;
    }
    CHECK(msgs_sent == msgs_recv, "%lld messages sent, %lld received", (long long)msgs_sent,
          (long long)msgs_recv);
    for (int64_t lin = 0; lin < total; lin++) {
        int64_t rem = lin;
        for (int k = dst->ndims - 1; k >= 0; k--) {
            g[k] = rem % dst->extent[k];
            rem /= dst->extent[k];
        }
        int rank;
        int64_t off;
        locate(dst, g, &rank, &off);
        CHECK(dbuf[rank][off] == lin, "global %lld: rank %d offset %lld holds %lld", (long long)lin,
              rank, (long long)off, (long long)dbuf[rank][off]);
    }
    for (int r = 0; r < nranks; r++) {
        free(sbuf[r]);
        free(dbuf[r]);
        redist__side_free(&send[r]);
        redist__side_free(&recv[r]);
        if (has_self[r])
            redist__msg_free(&self[r]);
    }
    free(sbuf);
    free(dbuf);
    free(dsize);
    free(send);
    free(recv);
    free(self);
    free(has_self);
}

static redist_layout make1(int64_t n, int64_t b, int p, int first, const int *ranks)
{
    redist_layout l = NULL;
    int f = first;
    CHECK(redist_layout_create(1, &n, &b, &p, &f, ranks, REDIST_ROW_MAJOR, &l) == 0,
          "layout_create");
    return l;
}

static void exhaustive_1d(void)
{
    int ranks_rev[6];
    for (int64_t n = 0; n <= 23; n++)
        for (int64_t b = 1; b <= 6; b++)
            for (int p = 1; p <= 4; p++)
                for (int f = 0; f < p; f++) {
                    redist_layout l = make1(n, b, p, f, NULL);
                    check_layout(l);
                    for (int64_t b2 = 1; b2 <= 5; b2++)
                        for (int p2 = 1; p2 <= 4; p2++) {
                            for (int i = 0; i < p2; i++)
                                ranks_rev[i] = 5 - i; /* overlapping, reversed ranks */
                            redist_layout d = make1(n, b2, p2, (int)(n % p2), ranks_rev);
                            check_pattern(l, d, 6);
                            redist_layout_free(&d);
                        }
                    redist_layout_free(&l);
                }
}

static unsigned long long rng = 88172645463325252ull;
static int rnd(int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (unsigned long long)n);
}

/* A random N-D layout over a random subset (random order) of nranks ranks. */
static redist_layout random_layout(int ndims, const int64_t extent[], int nranks)
{
    int64_t block[3];
    int grid[3], first[3], ranks[64], perm[64], np = 1;
    for (int k = 0; k < ndims; k++) {
        block[k] = 1 + rnd(rnd(4) == 0 ? 40 : 7);
        grid[k] = 1 + rnd(3);
        while (np * grid[k] > nranks)
            grid[k]--;
        np *= grid[k];
        first[k] = rnd(grid[k]);
    }
    for (int i = 0; i < nranks; i++)
        perm[i] = i;
    for (int i = nranks - 1; i > 0; i--) {
        int j = rnd(i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < np; i++)
        ranks[i] = perm[i];
    redist_layout l = NULL;
    CHECK(redist_layout_create(ndims, extent, block, grid, first, ranks, rnd(2), &l) == 0,
          "random layout");
    return l;
}

static void random_nd(void)
{
    for (int t = 0; t < 300; t++) {
        int ndims = 2 + rnd(2), nranks = 1 + rnd(8);
        int64_t extent[3];
        for (int k = 0; k < ndims; k++)
            extent[k] = rnd(ndims == 2 ? 60 : 16);
        redist_layout a = random_layout(ndims, extent, nranks);
        redist_layout b = rnd(5) == 0 ? random_layout(ndims, extent, nranks) : NULL;
        if (b == NULL) { /* sometimes the identical distribution, other order */
            redist_layout_create(ndims, extent, a->block, a->grid, a->first, a->ranks, 1 - a->order,
                                 &b);
        }
        if (rnd(2))
            redist_layout_free(&b), b = random_layout(ndims, extent, nranks);
        check_layout(a);
        check_pattern(a, b, nranks);
        redist_layout_free(&a);
        redist_layout_free(&b);
    }
}

/* The plan stores run groups for one period: their number must not grow with the extent. */
static void period_replication(void)
{
    int64_t counts[2];
    int64_t sizes[2] = {1000000, 10000000000LL};
    for (int i = 0; i < 2; i++) {
        redist_layout s = make1(sizes[i], 3, 4, 0, NULL), d = make1(sizes[i], 7, 5, 1, NULL);
        redist__side side;
        CHECK(redist__side_create(s, d, REDIST__SIDE_SRC, 2, &side) == 0, "side");
        counts[i] = redist__side_runs(&side);
        int64_t elems = side.total_elems, expect = 0;
        redist_layout_local_size(s, 2, &expect);
        CHECK(elems == expect, "rank 2 sends %lld of its %lld elements", (long long)elems,
              (long long)expect);
        redist__side_free(&side);
        redist_layout_free(&s);
        redist_layout_free(&d);
    }
    CHECK(counts[0] == counts[1], "run groups grow with the extent: %lld vs %lld",
          (long long)counts[0], (long long)counts[1]);
}

/* Interval dimensions (one block per coordinate, or one coordinate) take [SD96]'s regular
   sections: every pair of Block <-> Cyclic with every first coordinate, the interval on either
   side, and blocks larger than the extent. */
static void interval_sections(void)
{
    int ranks_rev[6];
    for (int i = 0; i < 6; i++)
        ranks_rev[i] = 5 - i;
    for (int64_t n = 1; n <= 31; n += 3)
        for (int p = 1; p <= 5; p++)
            for (int64_t extra = 0; extra <= 2; extra++) {
                int64_t b = (n + p - 1) / p + extra * n; /* one block per coordinate */
                for (int f = 0; f < p; f++) {
                    redist_layout a = make1(n, b, p, f, NULL);
                    for (int64_t b2 = 1; b2 <= 7; b2 += 2)
                        for (int p2 = 1; p2 <= 5; p2++) {
                            redist_layout c = make1(n, b2, p2, (int)((n + f) % p2), ranks_rev);
                            CHECK(redist__interval_dim(a, 0), "n %lld b %lld p %d: interval",
                                  (long long)n, (long long)b, p);
                            check_pattern(a, c, 6);
                            check_pattern(c, a, 6);
                            redist_layout_free(&c);
                        }
                    redist_layout_free(&a);
                }
            }
    redist_layout a = make1(10, 3, 4, 0, NULL); /* 3 * 4 >= 10: one block each */
    redist_layout c = make1(10, 2, 4, 0, NULL);
    CHECK(redist__interval_dim(a, 0) && !redist__interval_dim(c, 0), "interval_dim");
    redist_layout_free(&a);
    redist_layout_free(&c);
}

/* Block(K) <-> Cyclic(1): the regular sections store a fixed number of run groups, not one
   per element, and plan in time independent of n (here up to 2^60, blocks up to 2^62). */
static void sections_independent_of_extent(void)
{
    int64_t sizes[3] = {1000000, 1000000000000LL, 1LL << 60}, runs[3][2];
    int ranks[3] = {4, 5, 6};
    for (int i = 0; i < 3; i++) {
        int64_t n = sizes[i];
        redist_layout blk = make1(n, i == 2 ? (int64_t)1 << 62 : (n + 3) / 4, 4, 1, NULL);
        redist_layout cyc = make1(n, 1, 3, 2, ranks);
        for (int dir = 0; dir < 2; dir++) {
            redist_layout s = dir ? cyc : blk, d = dir ? blk : cyc;
            int rank = dir ? 5 : 1; /* a rank of the source */
            redist__side side;
            CHECK(redist__side_create(s, d, REDIST__SIDE_SRC, rank, &side) == 0, "side");
            runs[i][dir] = redist__side_runs(&side);
            int64_t expect = 0;
            redist_layout_local_size(s, rank, &expect);
            CHECK(side.total_elems == expect, "n %lld: rank %d sends %lld of its %lld elements",
                  (long long)n, rank, (long long)side.total_elems, (long long)expect);
            CHECK(runs[i][dir] <= 9, "n %lld: %lld run groups", (long long)n,
                  (long long)runs[i][dir]);
            redist__side_free(&side);
        }
        redist_layout_free(&blk);
        redist_layout_free(&cyc);
    }
}

static void local_extent_matches_numroc(void)
{
    /* ScaLAPACK's NUMROC for n = 6000, nb = 36 on 2 processes: 3012 and 2988. */
    redist_layout l = make1(6000, 36, 2, 0, NULL);
    CHECK(redist__local_extent(l, 0, 0) == 3012 && redist__local_extent(l, 0, 1) == 2988,
          "numroc(6000, 36, p, 0, 2)");
    redist_layout_free(&l);
}

int main(void)
{
    local_extent_matches_numroc();
    exhaustive_1d();
    random_nd();
    period_replication();
    interval_sections();
    sections_independent_of_extent();
    CHECK(tiled_parts_checked > 0 && one_level_parts_checked > 0,
          "parts of tiled (%lld) and one-level (%lld) messages were checked",
          (long long)tiled_parts_checked, (long long)one_level_parts_checked);
    printf("parts checked: %lld tiled, %lld of one level with several run groups\n",
           (long long)tiled_parts_checked, (long long)one_level_parts_checked);
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
