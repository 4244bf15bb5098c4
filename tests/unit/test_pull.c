/* One copy in the destination's order, row by row (src/index/pull.c), no MPI.
 *
 * Random 2-D and 3-D pairs of layouts on 1-8 ranks (random extents, blocks, grids, first
 * coordinates, rank orders; storage orders alike or not; dst padded with an ld or not),
 * element sizes 1, 4, 8, 12 and 16 bytes. For every rank, its receive messages from every
 * rank and its self part copy from the senders' source arrays into its destination twice:
 * by the plan's walker (redist__move_range), and as one copy on a node does it: the messages
 * that fit a pull grouped by their rows (redist__pull_same_rows), each group's runs merged
 * (redist__pull_merge) and its rows copied in three ranges (as three threads would), with
 * ordinary and with non-temporal stores, the others by the walker. The two destinations must
 * be identical byte for byte, the padding untouched. Also: a merge beyond its cap says so,
 * and runs that continue each other are merged into one.
 */
#include "index/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static int64_t rnd(int64_t n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (int64_t)(rng % (unsigned long long)n);
}

static redist_layout random_layout(int ndims, const int64_t *extent, int nranks, int order)
{
    int64_t block[3];
    int grid[3], first[3], ranks[64], perm[8], np = 1;
    for (int k = 0; k < ndims; k++) {
        block[k] = 1 + rnd(rnd(3) == 0 ? 40 : 6);
        grid[k] = 1 + (int)rnd(np * 3 <= nranks ? 3 : 1);
        np *= grid[k];
        first[k] = (int)rnd(grid[k]);
    }
    while (np > nranks) { /* shrink the grid onto the ranks */
        for (int k = 0; k < ndims && np > nranks; k++)
            if (grid[k] > 1) {
                np /= grid[k];
                grid[k]--;
                np *= grid[k];
                first[k] %= grid[k];
            }
    }
    for (int i = 0; i < nranks; i++)
        perm[i] = i;
    for (int i = nranks - 1; i > 0; i--) {
        int j = (int)rnd(i + 1), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < np; i++)
        ranks[i] = perm[i];
    redist_layout l = NULL;
    CHECK(redist_layout_create(ndims, extent, block, grid, first, ranks, order, &l) == 0,
          "random layout");
    return l;
}

/* dst padded: a window over the whole array with an ld on rank r's fast dimension. */
static redist_layout padded(redist_layout l, int r, int64_t pad, int64_t *stored)
{
    int64_t shape[3], ld[3] = {0, 0, 0};
    redist_layout_local_shape(l, r, shape);
    int fast = l->order == REDIST_ROW_MAJOR ? l->ndims - 1 : 0;
    ld[fast] = shape[fast] + pad;
    int64_t n = 1;
    for (int k = 0; k < l->ndims; k++)
        n *= k == fast ? ld[k] : shape[k];
    *stored = n;
    redist_layout w = NULL;
    CHECK(redist_layout_create_window(l, NULL, NULL, ld, &w) == 0, "padded window");
    return w;
}

/* The moves into rank r's dst (its receive messages and self part) from the senders' sources,
   copied by the walker into want and pulled by groups into got. */
static void check_rank(const redist__msg **moves, const unsigned char **srcs, int n, size_t es,
                       unsigned char *want, unsigned char *got, int64_t stored)
{
    memset(want, 0xA5, (size_t)stored * es);
    memset(got, 0xA5, (size_t)stored * es);
    for (int x = 0; x < n; x++)
        redist__move_range(moves[x], REDIST__COPY, (const char *)srcs[x], (char *)want, es, NULL, 0,
                           moves[x]->nelems);
    char *taken = calloc((size_t)n + 1, 1);
    const redist__msg **members = malloc(((size_t)n + 1) * sizeof *members);
    const char **from = malloc(((size_t)n + 1) * sizeof *from);
    int64_t cap = 1 << 16, scratch[64];
    redist__pull_run *runs = malloc((size_t)cap * sizeof *runs);
    for (int x = 0; x < n; x++) {
        if (taken[x] || !redist__pull_fits(moves[x]))
            continue;
        int g = 0;
        for (int y = x; y < n; y++)
            if (!taken[y] && redist__pull_fits(moves[y]) &&
                redist__pull_same_rows(moves[x], moves[y])) {
                members[g] = moves[y];
                from[g++] = (const char *)srcs[y];
                taken[y] = 1;
            }
        int64_t nruns = redist__pull_merge(members, g, runs, cap);
        CHECK(nruns > 0, "a group of %d: %lld runs merged", g, (long long)nruns);
        int64_t rows = redist__pull_rows_of(members[0]), a = rows / 3, b = 2 * rows / 3;
        int streaming = (int)rnd(2);
        redist__pull_copy(members, from, g, runs, nruns, (char *)got, es, 0, a, scratch, streaming);
        redist__pull_copy(members, from, g, runs, nruns, (char *)got, es, b, rows, scratch,
                          streaming);
        redist__pull_copy(members, from, g, runs, nruns, (char *)got, es, a, b, scratch, streaming);
    }
    for (int x = 0; x < n; x++)
        if (!taken[x])
            redist__move_range(moves[x], REDIST__COPY, (const char *)srcs[x], (char *)got, es, NULL,
                               0, moves[x]->nelems);
    CHECK(memcmp(want, got, (size_t)stored * es) == 0, "pulled rows differ from the walker's");
    free(taken);
    free(members);
    free(from);
    free(runs);
}

static int pulled_groups; /* rank destinations checked that had a pull */

static void check_pair(int ndims, int nranks, size_t es)
{
    int64_t extent[3];
    for (int k = 0; k < ndims; k++)
        extent[k] = 1 + rnd(ndims == 2 ? 90 : 20);
    int order = (int)rnd(2);
    redist_layout src = random_layout(ndims, extent, nranks, order);
    redist_layout dst = random_layout(ndims, extent, nranks, rnd(5) == 0 ? 1 - order : order);
    unsigned char **sbuf = calloc((size_t)nranks, sizeof *sbuf);
    for (int q = 0; q < nranks; q++) {
        int64_t n = 0;
        redist_layout_local_size(src, q, &n);
        sbuf[q] = malloc((size_t)(n + 1) * es);
        for (int64_t i = 0; i < n * (int64_t)es; i++)
            sbuf[q][i] = (unsigned char)(q * 37 + i * 11 + 1);
    }
    for (int r = 0; r < nranks; r++) {
        int64_t stored = 0, pad = rnd(3) == 0 ? 1 + rnd(3) : 0;
        redist_layout_local_size(dst, r, &stored);
        redist_layout d = pad > 0 ? padded(dst, r, pad, &stored) : dst;
        redist__side send, recv;
        redist__msg self;
        int has_self = 0;
        if (redist__sides_create(src, d, r, &send, &recv, &self, &has_self) != 0) {
            CHECK(0, "sides of rank %d", r);
            continue;
        }
        const redist__msg **moves = malloc(((size_t)recv.nmsgs + 1) * sizeof *moves);
        const unsigned char **srcs = malloc(((size_t)recv.nmsgs + 1) * sizeof *srcs);
        int n = 0, fits = 0;
        for (int i = 0; i < recv.nmsgs; i++)
            moves[n] = &recv.msgs[i], srcs[n++] = sbuf[recv.msgs[i].peer];
        if (has_self)
            moves[n] = &self, srcs[n++] = sbuf[r];
        for (int x = 0; x < n; x++)
            fits |= redist__pull_fits(moves[x]);
        pulled_groups += fits;
        unsigned char *want = malloc((size_t)(stored + 1) * es),
                      *got = malloc((size_t)(stored + 1) * es);
        check_rank(moves, srcs, n, es, want, got, stored);
        free(want);
        free(got);
        free(moves);
        free(srcs);
        redist__side_free(&send);
        redist__side_free(&recv);
        if (has_self)
            redist__msg_free(&self);
        if (d != dst)
            redist_layout_free(&d);
    }
    for (int q = 0; q < nranks; q++)
        free(sbuf[q]);
    free(sbuf);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

/* Two members whose runs alternate, and one whose runs continue each other. */
static void check_merge(void)
{
    redist__run outer = {0, 0, 4, 1}, a = {0, 0, 3, 5}, b = {0, 3, 3, 5};
    redist__level la[2] = {{&outer, 1, 0, 0, 15, 30}, {&a, 1, 3, 6, 1, 1}};
    redist__level lb[2] = {{&outer, 1, 0, 0, 15, 30}, {&b, 1, 3, 6, 1, 1}};
    redist__msg ma = {0, 2, 60, 0, la, NULL, NULL, -1, 0},
                mb = {1, 2, 60, 0, lb, NULL, NULL, -1, 0};
    const redist__msg *both[2] = {&ma, &mb};
    redist__pull_run runs[16];
    CHECK(redist__pull_merge(both, 2, runs, 9) == -1, "10 runs merged into room for 9");
    CHECK(redist__pull_merge(both, 2, runs, 16) == 10, "10 alternating runs");
    for (int i = 0; i < 10; i++)
        CHECK(runs[i].member == i % 2 && runs[i].dst_at == 3 * i, "run %d: member %d at %lld", i,
              runs[i].member, (long long)runs[i].dst_at);
    redist__run c = {0, 0, 3, 5}; /* src and dst both 3 apart: one run of 15 */
    redist__level lc[2] = {{&outer, 1, 0, 0, 15, 15}, {&c, 1, 3, 3, 1, 1}};
    redist__msg mc = {0, 2, 60, 0, lc, NULL, NULL, -1, 0};
    const redist__msg *one[1] = {&mc};
    CHECK(redist__pull_merge(one, 1, runs, 16) == 1 && runs[0].len == 15,
          "runs that continue each other: one run");
    CHECK(redist__pull_same_rows(&ma, &mb) && redist__pull_rows_of(&ma) == 4, "the same 4 rows");
}

int main(void)
{
    static const size_t sizes[] = {1, 4, 8, 12, 16};
    check_merge();
    for (int t = 0; t < 400; t++)
        check_pair(2 + (int)rnd(2), 1 + (int)rnd(8), sizes[rnd(5)]);
    CHECK(pulled_groups > 100, "only %d destinations had a pull", pulled_groups);
    printf("test_pull: %d destinations with a pull, %ld failures\n", pulled_groups, failures);
    return failures != 0;
}
