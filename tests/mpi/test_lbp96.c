/* threads: 3 */
/* [LBP96]'s case on real data: cyclic(x) -> cyclic(Kx) and back (the dual) on all P ranks
 * of the communicator, for every K in 1..12, every algorithm, N a multiple of the
 * superblock, not a multiple, and smaller than one superblock, first coordinate 0 or not.
 * Every element is checked against its global index; the destination starts as a sentinel.
 * For the table case (K <= P) the direct schedule must take at most K steps ([LBP96] Theorem 3
 * (i)). Hybrid runs with every degree d = 0..5; alternate algorithms go through start/test; the
 * bytes and messages sent and received balance over all ranks (relays included). Then the
 * general cyclic(x) -> cyclic(y), neither block dividing the other (x, y in 2..6).
 */
#include <redist.h>

#include "support/mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

static double value_of(int64_t g)
{
    return (double)g * 3.0 + 1.0;
}

static int power_of_two(int64_t v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* Whether algorithm `name` must apply to cyclic(x) -> cyclic(y) of n elements on the same P
   ranks and first coordinate (docs/algorithms.md), worked out here, independently of the
   library: a forced algorithm that should apply and refuses is a failure, not a skip. */
static int several_nodes; /* the ranks span nodes (mtest_several_nodes): node-aware applies */

static int must_apply(const char *name, int64_t n, int64_t x, int64_t y, int P, int first)
{
    int sections = mtest_sections_apply(name, 1, &n, &x, &P, &y, &P);
    if (sections >= 0)
        return sections;
    int ratio = x % y == 0 || y % x == 0;
    if (!strcmp(name, "multiphase"))
        return ratio;
    if (!strncmp(name, "reduce-", 7)) /* partial sums only (options.reduce) */
        return 0;
    if (!strcmp(name, "scatter-allgather")) /* elements of several holders only */
        return 0;
    if (!strcmp(name, "node-aware")) /* ranks on several nodes only */
        return several_nodes;
    if (!strcmp(name, "ky-to-y"))
        return x % y == 0;
    if (!strcmp(name, "x-to-kx"))
        return y % x == 0;
    if (!strcmp(name, "bmmc")) /* a bit permutation: N, P, x, y powers of two, xP, yP <= N */
        return first == 0 && power_of_two(n) && power_of_two(P) && power_of_two(x) &&
               power_of_two(y) && x * P <= n && y * P <= n;
    return 1; /* every other algorithm applies to a 1-D pair on one process set (P <= 2048) */
}

static void run_case(int64_t n, int64_t x, int64_t y, int first, int rank, int P)
{
    redist_layout src = NULL, dst = NULL;
    int grid = P;
    redist_layout_create(1, &n, &x, &grid, &first, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, &n, &y, &grid, &first, NULL, REDIST_ROW_MAJOR, &dst);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &nd);
    double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(nd + 1) * sizeof *b);
    for (int64_t l = 0; l < ns; l++)
        a[l] = value_of(mtest_global_of(l, x, P, first, rank));
    /* K of the table case; 0 for cyclic(x) -> cyclic(y) with neither dividing the other
       (the two-phase route through cyclic(lcm(x, y))), where no step bound is checked. */
    int64_t K = (x % y == 0 || y % x == 0) ? (x < y ? y / x : x / y) : 0;
    /* Every algorithm with default options, then hybrid with each degree d = 0..5, then
       alltoall-padded over each of [GGKK03]'s all-to-all algorithms. */
    static const char *const a2a[] = {"auto", "ring", "mesh", "hypercube", "pairwise"};
    int nalg = redist_algorithm_count();
    for (int i = 0; i < nalg + 6 + 5; i++) {
        redist_options opt;
        redist_options_init(&opt);
        int is_d = i >= nalg && i < nalg + 6, is_a2a = i >= nalg + 6;
        opt.algorithm = is_d ? "hybrid" : is_a2a ? "alltoall-padded" : redist_algorithm_name(i);
        if (is_d)
            opt.hybrid_degree = i - nalg;
        if (is_a2a)
            opt.alltoall_algorithm = a2a[i - nalg - 6];
        redist_plan plan = NULL;
        int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        int must = must_apply(opt.algorithm, n, x, y, P, first);
        if (rc == REDIST_ERR_NOT_APPLICABLE && !must)
            continue;
        if (rc == REDIST_SUCCESS && !must) {
            errs++;
            printf("[%d] n=%lld x=%lld y=%lld first=%d: %s applies where it should not\n", rank,
                   (long long)n, (long long)x, (long long)y, first, opt.algorithm);
        }
        if (rc != REDIST_SUCCESS) {
            errs++;
            printf("[%d] n=%lld x=%lld y=%lld %s: plan_create %s\n", rank, (long long)n,
                   (long long)x, (long long)y, opt.algorithm, redist_strerror(rc));
            continue;
        }
        for (int64_t l = 0; l < nd; l++)
            b[l] = -1.0;
        if (i % 2) { /* the nonblocking path on alternate algorithms */
            rc = redist_start(plan, a, b);
            int done = 0;
            while (rc == REDIST_SUCCESS && !done)
                rc = redist_test(plan, &done);
        } else {
            rc = redist_execute(plan, a, b);
        }
        int64_t bad = 0;
        for (int64_t l = 0; l < nd; l++)
            bad += b[l] != value_of(mtest_global_of(l, y, P, first, rank));
        redist_stats st;
        redist_plan_stats(plan, &st);
        if (rc != REDIST_SUCCESS || bad) {
            errs++;
            printf("[%d] n=%lld x=%lld y=%lld first=%d %s (%s): rc %d, %lld wrong elements\n", rank,
                   (long long)n, (long long)x, (long long)y, first, opt.algorithm,
                   opt.alltoall_algorithm ? opt.alltoall_algorithm : "-", rc, (long long)bad);
        }
        int64_t flow[2] = {st.bytes_sent - st.bytes_received,
                           st.messages_sent - st.messages_received};
        MPI_Allreduce(MPI_IN_PLACE, flow, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (flow[0] != 0 || flow[1] != 0) {
            errs++;
            printf("[%d] %s d=%d: bytes sent - received over all ranks = %lld, messages %lld\n",
                   rank, opt.algorithm, opt.hybrid_degree, (long long)flow[0], (long long)flow[1]);
        }
        if (!strcmp(opt.algorithm, "direct") && K > 0 && K <= P && st.steps > K) {
            errs++;
            printf("[%d] n=%lld x=%lld y=%lld: direct took %d steps, Theorem 3 says K = %lld\n",
                   rank, (long long)n, (long long)x, (long long)y, st.steps, (long long)K);
        }
        if (!strcmp(opt.algorithm, "direct") && K > 0 && K <= P && st.messages_sent > K) {
            errs++;
            printf("[%d] direct sends %lld messages, more than K = %lld\n", rank,
                   (long long)st.messages_sent, (long long)K);
        }
        redist_plan_free(&plan);
    }
    free(a);
    free(b);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    several_nodes = mtest_several_nodes(MPI_COMM_WORLD);
    for (int64_t K = 1; K <= 12; K++)
        for (int64_t x = 1; x <= 3; x += 2) {
            int64_t super = x * K * P;
            int64_t sizes[] = {3 * super, 2 * super + x * 5 + 1, super / 2 + 1, 1};
            for (int s = 0; s < 4; s++)
                for (int first = 0; first < (P > 1 ? 2 : 1); first++) {
                    run_case(sizes[s], x, K * x, first, rank, P); /* cyclic(x) -> cyclic(Kx) */
                    run_case(sizes[s], K * x, x, first, rank, P); /* the dual */
                }
        }
    /* The general cyclic(x) -> cyclic(y): two phases through cyclic(lcm(x, y)). */
    for (int64_t x = 2; x <= 6; x++)
        for (int64_t y = 2; y <= 6; y++)
            if (x % y != 0 && y % x != 0)
                for (int first = 0; first < (P > 1 ? 2 : 1); first++) {
                    run_case(x * y * P * 2 + 7, x, y, first, rank, P);
                    run_case(x * y - 1, x, y, first, rank, P);
                }
    return mtest_finalize(errs);
}
