/* link: redist */
/* Serial test: explain and plan building cost nothing for the ranks that hold nothing.
 * `redist explain --from n=10,block=3,procs=2^19 --to n=10` once took 31 s: it built every
 * member rank's messages, and each rank's pattern of a one-block-per-rank dimension
 * allocated arrays as long as the other side's grid. No timing here: the library's allocator
 * counts calls and bytes (redist__alloc_calls, redist__alloc_bytes), and they must not
 * change with the number of ranks when the array is the same.
 *
 * - Ten elements over P = 2^10 .. 2^20 ranks (cyclic(3) -> cyclic(1), and a 2-D pair): the
 *   member ranks are the ten that hold data, and the pair's case (pattern.c, pair.c), one
 *   rank's sides as a plan builds them, and every algorithm's explanation take the same
 *   allocations and bytes at every P.
 * - Random small pairs (cyclic, block, first coordinates, rank lists, irregular blocks,
 *   windows): the member ranks are exactly the ranks that hold elements in either layout, and the
 * pair's totals equal the sums of every rank's traffic over all ranks of the communicator (so
 * skipping the ranks that hold nothing loses nothing).
 */
#include "algo/algo.h"
#include "algo/explain.h"

#include <stdlib.h>
#include <string.h>

#include "support/check.h"

typedef struct {
    int64_t calls, bytes;
} cost;

static cost now(void)
{
    return (cost){redist__alloc_calls(), redist__alloc_bytes()};
}

static cost since(cost before)
{
    cost c = now();
    return (cost){c.calls - before.calls, c.bytes - before.bytes};
}

static redist_layout layout1(int64_t n, int64_t b, int P, int first)
{
    redist_layout l = NULL;
    int grid = P;
    CHECK(redist_layout_create(1, &n, &b, &grid, &first, NULL, REDIST_ROW_MAJOR, &l) ==
              REDIST_SUCCESS,
          "layout n=%lld b=%lld P=%d", (long long)n, (long long)b, P);
    return l;
}

static redist_layout layout2(int64_t n0, int64_t n1, int64_t b0, int64_t b1, int g0, int g1)
{
    redist_layout l = NULL;
    int64_t n[2] = {n0, n1}, b[2] = {b0, b1};
    int g[2] = {g0, g1};
    CHECK(redist_layout_create(2, n, b, g, NULL, NULL, REDIST_COL_MAJOR, &l) == REDIST_SUCCESS,
          "2-D layout");
    return l;
}

/* What one pair costs: its member list, its case (a new pair each time: the case cache is
   keyed by the layouts), the sides of its first and last rank, every algorithm's explanation.
   *members: how many member ranks. */
static void pair_cost(redist_layout src, redist_layout dst, int P, cost *c_case, cost *c_sides,
                      cost *c_explain, int *members)
{
    cost t = now();
    int *ranks = NULL;
    CHECK(redist__member_ranks(src, dst, &ranks, members) == REDIST_SUCCESS, "member ranks");
    redist__free(ranks);
    redist__case c;
    CHECK(redist__pair_case(src, dst, P, 8, &c, NULL, NULL) == REDIST_SUCCESS, "pair case");
    *c_case = since(t);

    t = now();
    const int probe[2] = {0, P - 1};
    for (int i = 0; i < 2; i++) {
        redist__side send, recv;
        redist__msg self;
        int has_self = 0;
        CHECK(redist__sides_create(src, dst, probe[i], &send, &recv, &self, &has_self) ==
                  REDIST_SUCCESS,
              "sides of rank %d", probe[i]);
        redist__side_free(&send);
        redist__side_free(&recv);
        if (has_self)
            redist__msg_free(&self);
    }
    *c_sides = since(t);

    t = now();
    for (int i = 0; i < redist_algorithm_count(); i++) {
        redist__explanation e;
        redist__explain(src, dst, P, 8, redist_algorithm_name(i), &e);
    }
    *c_explain = since(t);
}

/* Ten elements over P ranks, for P = 2^10 ... 2^20: the same costs at every P. */
static void tiny_arrays_on_many_ranks(void)
{
    cost first_case = {0, 0}, first_sides = {0, 0}, first_explain = {0, 0};
    for (int lg = 10; lg <= 20; lg += 2) {
        int P = 1 << lg;
        redist_layout src = layout1(10, 3, P, 0), dst = layout1(10, 1, P, 0);
        cost c_case, c_sides, c_explain;
        int members = 0;
        /* Every algorithm's explanation: the same allocations, though indirect's and hybrid's
           relay schedules span all P ranks (relays hold nothing yet forward) and multiphase's
           phase layouts list them: their bytes grow with P, their calls do not. */
        pair_cost(src, dst, P, &c_case, &c_sides, &c_explain, &members);
        CHECK(members == 10, "P = 2^%d: %d member ranks, want the 10 that hold data", lg, members);
        if (lg == 10) {
            first_case = c_case, first_sides = c_sides, first_explain = c_explain;
        } else {
            CHECK(c_case.calls == first_case.calls && c_case.bytes == first_case.bytes,
                  "P = 2^%d: the pair's case took %lld allocations, %lld bytes; at 2^10: %lld, "
                  "%lld",
                  lg, (long long)c_case.calls, (long long)c_case.bytes, (long long)first_case.calls,
                  (long long)first_case.bytes);
            CHECK(c_sides.calls == first_sides.calls && c_sides.bytes == first_sides.bytes,
                  "P = 2^%d: two ranks' sides took %lld allocations, %lld bytes; at 2^10: %lld, "
                  "%lld",
                  lg, (long long)c_sides.calls, (long long)c_sides.bytes,
                  (long long)first_sides.calls, (long long)first_sides.bytes);
            CHECK(c_explain.calls == first_explain.calls,
                  "P = 2^%d: explaining every algorithm took %lld allocations; at 2^10: %lld", lg,
                  (long long)c_explain.calls, (long long)first_explain.calls);
        }
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
}

/* A 2-D pair whose grids grow along one dimension: 6 x 4 elements in 2 x 2 blocks over
   2 x q -> 3 x 1 blocks over 1 x q. */
static void tiny_2d_on_many_ranks(void)
{
    cost first = {0, 0};
    for (int lg = 6; lg <= 16; lg += 5) {
        int q = 1 << lg;
        redist_layout src = layout2(6, 4, 2, 2, 2, q), dst = layout2(6, 4, 3, 1, 1, q);
        cost c_case, c_sides, c_explain;
        int members = 0;
        pair_cost(src, dst, 2 * q, &c_case, &c_sides, &c_explain, &members);
        CHECK(members == 6, "2-D, q = 2^%d: %d member ranks, want 6", lg, members);
        cost all = {c_case.calls + c_sides.calls, c_case.bytes + c_sides.bytes};
        if (lg == 6)
            first = all;
        else
            CHECK(all.calls == first.calls && all.bytes == first.bytes,
                  "2-D, q = 2^%d: %lld allocations, %lld bytes; at 2^6: %lld, %lld", lg,
                  (long long)all.calls, (long long)all.bytes, (long long)first.calls,
                  (long long)first.bytes);
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
}

static uint64_t state = 0x9e3779b97f4a7c15ull;
static int64_t draw(int64_t lo, int64_t hi)
{
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return lo + (int64_t)(state % (uint64_t)(hi - lo + 1));
}

/* A random 1-D or 2-D layout of the extents n over at most P ranks: cyclic or block, a first
   coordinate, a rank list, sometimes irregular blocks along dimension 0, sometimes a window. */
static redist_layout random_layout(int nd, const int64_t n[], int P)
{
    int64_t b[2];
    int g[2] = {1, 1}, first[2];
    int cells = 1;
    for (int k = 0; k < nd; k++) {
        g[k] = (int)draw(1, k == 0 ? P : P / cells > 0 ? P / cells : 1);
        cells *= g[k];
        b[k] = draw(0, 2) == 0 ? (n[k] + g[k] - 1) / g[k] + draw(0, 2) : draw(1, 4);
        b[k] = b[k] > 0 ? b[k] : 1;
        first[k] = (int)draw(0, g[k] - 1);
    }
    int *ranks = malloc(sizeof(int) * (size_t)P); /* distinct ranks below P, shuffled */
    for (int i = 0; i < P; i++)
        ranks[i] = i;
    for (int i = P - 1; i > 0; i--) {
        int j = (int)draw(0, i), t = ranks[i];
        ranks[i] = ranks[j];
        ranks[j] = t;
    }
    redist_layout l = NULL;
    if (nd == 1 && draw(0, 3) == 0) { /* irregular blocks, some of them empty */
        int64_t *sizes = calloc((size_t)g[0], sizeof *sizes), left = n[0];
        for (int c = 0; c < g[0] - 1; c++) {
            sizes[c] = draw(0, 2) == 0 ? 0 : draw(0, left);
            left -= sizes[c];
        }
        sizes[g[0] - 1] = left;
        const int64_t *sz[1] = {sizes};
        CHECK(redist_layout_create_gen_block(1, n, NULL, g, first, ranks, REDIST_ROW_MAJOR, sz,
                                             &l) == REDIST_SUCCESS,
              "gen_block: %s", redist_last_error_detail());
        free(sizes);
    } else {
        int64_t parent_n[2];
        int window = draw(0, 3) == 0;
        for (int k = 0; k < nd; k++)
            parent_n[k] = n[k] + (window ? draw(0, 5) : 0);
        CHECK(redist_layout_create(nd, parent_n, b, g, first, ranks, REDIST_ROW_MAJOR, &l) ==
                  REDIST_SUCCESS,
              "layout: %s", redist_last_error_detail());
        if (window && l != NULL) {
            int64_t offset[2], count[2];
            for (int k = 0; k < nd; k++) {
                offset[k] = draw(0, parent_n[k] - n[k]);
                count[k] = n[k];
            }
            redist_layout w = NULL;
            CHECK(redist_layout_create_window(l, offset, count, NULL, &w) == REDIST_SUCCESS,
                  "window: %s", redist_last_error_detail());
            redist_layout_free(&l);
            l = w;
        }
    }
    free(ranks);
    return l;
}

/* The elements rank r holds in l (of a window: in the window; redist_layout_local_size gives
   its local array's size, the parent's). */
static int64_t elements_held(const struct redist_layout_s *l, int r)
{
    int pos = redist__layout_position(l, r), coords[2];
    if (pos < 0)
        return 0;
    redist__layout_coords_of(l, pos, coords);
    int64_t n = 1;
    for (int k = 0; k < l->ndims; k++)
        n *= redist__local_extent(l, k, coords[k]);
    return n;
}

/* Random pairs: the member list and the pair's totals against every rank of the
   communicator visited. */
static void random_pairs(void)
{
    for (int i = 0; i < 400; i++) {
        int nd = (int)draw(1, 2), P = (int)draw(1, 24);
        int64_t n[2] = {draw(0, 40), draw(0, 9)};
        redist_layout src = random_layout(nd, n, P), dst = random_layout(nd, n, P);
        if (src == NULL || dst == NULL) {
            redist_layout_free(&src);
            redist_layout_free(&dst);
            continue;
        }
        int *ranks = NULL, members = 0;
        CHECK(redist__member_ranks(src, dst, &ranks, &members) == REDIST_SUCCESS, "members");
        int64_t messages = 0, bytes = 0;
        int expected = 0;
        for (int r = 0; r < P; r++) {
            int64_t ns = elements_held(src, r), nd_ = elements_held(dst, r);
            int holds = ns > 0 || nd_ > 0;
            int listed = 0;
            for (int j = 0; j < members; j++)
                listed |= ranks[j] == r;
            CHECK(holds == listed, "case %d: rank %d holds %lld + %lld elements, listed %d", i, r,
                  (long long)ns, (long long)nd_, listed);
            expected += holds;
            redist__rank_traffic t;
            CHECK(redist__rank_traffic_compute(src, dst, r, 8, &t) == REDIST_SUCCESS, "traffic");
            messages += t.messages_sent;
            bytes += t.bytes_sent;
            CHECK(holds ||
                      (t.messages_sent == 0 && t.messages_received == 0 && t.bytes_copied == 0),
                  "case %d: rank %d holds nothing but has traffic", i, r);
        }
        CHECK(members == expected, "case %d: %d members, %d ranks hold data", i, members, expected);
        redist__case c;
        int64_t total_messages = -1, total_bytes = -1;
        CHECK(redist__pair_case(src, dst, P, 8, &c, &total_messages, &total_bytes) ==
                  REDIST_SUCCESS,
              "case %d: pair case", i);
        CHECK(total_messages == messages && total_bytes == bytes,
              "case %d: totals %lld messages, %lld bytes; every rank visited: %lld, %lld", i,
              (long long)total_messages, (long long)total_bytes, (long long)messages,
              (long long)bytes);
        redist__free(ranks);
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
}

int main(void)
{
    tiny_arrays_on_many_ranks();
    tiny_2d_on_many_ranks();
    random_pairs();
    if (failures)
        fprintf(stderr, "test_explain_cost: %ld failures\n", failures);
    else
        printf("test_explain_cost: ok\n");
    return failures != 0;
}
