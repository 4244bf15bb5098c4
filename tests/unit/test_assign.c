/* Serial tests of the assignment solver behind process relabelling (src/index/assign.c):
 * for random weight matrices of order 1..8 (dense, sparse, with ties, diagonal-heavy), the
 * solver's permutation is a permutation and its value equals the best of all n! permutations
 * (enumerated here); the greedy heuristic (order above REDIST__ASSIGN_EXACT_MAX) returns a
 * permutation, deterministically, whose value is at least the heaviest single weight. */
#include "index/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static int64_t rnd(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

static int is_permutation(int n, const int *p)
{
    static char seen[REDIST__ASSIGN_EXACT_MAX + 8];
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n || seen[p[i]])
            return 0;
        seen[p[i]] = 1;
    }
    return 1;
}

/* The best value over all permutations (Heap's algorithm). */
static int64_t brute_force(int n, const int64_t *w)
{
    int p[8], c[8] = {0};
    for (int i = 0; i < n; i++)
        p[i] = i;
    int64_t best = redist__assignment_value(n, w, p);
    for (int i = 1; i < n;) {
        if (c[i] < i) {
            int j = i % 2 ? c[i] : 0, t = p[j];
            p[j] = p[i];
            p[i] = t;
            int64_t v = redist__assignment_value(n, w, p);
            best = v > best ? v : best;
            c[i]++;
            i = 1;
        } else {
            c[i++] = 0;
        }
    }
    return best;
}

int main(void)
{
    int64_t w[64];
    int p[8];
    for (int trial = 0; trial < 3000; trial++) {
        int n = 1 + (int)rnd(8), kind = trial % 4;
        for (int k = 0; k < n * n; k++) {
            int64_t v = rnd(1000);
            if (kind == 1 && rnd(3)) /* sparse */
                v = 0;
            if (kind == 2) /* many ties */
                v = rnd(3);
            if (kind == 3 && k % (n + 1) == 0) /* the identity is strong */
                v += 2000;
            w[k] = v;
        }
        CHECK(redist__assign_max(n, w, p) == REDIST_SUCCESS, "trial %d: solver failed", trial);
        CHECK(is_permutation(n, p), "trial %d: not a permutation", trial);
        int64_t got = redist__assignment_value(n, w, p), best = brute_force(n, w);
        CHECK(got == best, "trial %d (n = %d): %lld, best %lld", trial, n, (long long)got,
              (long long)best);
    }
    /* Past the exact solver: greedy, deterministic, a permutation. */
    int n = REDIST__ASSIGN_EXACT_MAX + 3;
    int64_t *big = calloc((size_t)n * (size_t)n, sizeof *big);
    int *p1 = malloc((size_t)n * sizeof *p1), *p2 = malloc((size_t)n * sizeof *p2);
    int64_t heaviest = 0;
    for (int k = 0; k < 4 * n; k++) {
        int64_t v = 1 + rnd(100000);
        big[(size_t)rnd(n) * (size_t)n + (size_t)rnd(n)] = v;
    }
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        heaviest = big[k] > heaviest ? big[k] : heaviest;
    CHECK(redist__assign_max(n, big, p1) == REDIST_SUCCESS, "greedy failed");
    CHECK(redist__assign_max(n, big, p2) == REDIST_SUCCESS, "greedy failed");
    CHECK(is_permutation(n, p1), "greedy: not a permutation");
    CHECK(memcmp(p1, p2, (size_t)n * sizeof *p1) == 0, "greedy: not deterministic");
    CHECK(redist__assignment_value(n, big, p1) >= heaviest, "greedy: below the heaviest weight");
    free(big), free(p1), free(p2);
    if (failures)
        fprintf(stderr, "test_assign: %ld failures\n", failures);
    else
        printf("test_assign: 3000 random matrices solved exactly, greedy checked\n");
    return failures != 0;
}
