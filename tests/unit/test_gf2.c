/* Serial tests of the GF(2) bit-matrix algebra of [Cor97] (src/bmmc/gf2.h) and the public
 * redist_bmmc_* helpers (redist.h).
 *
 * [Cor97]: Cormen, "Performing BMMC Permutations Efficiently on Distributed-Memory
 * Multiprocessors with MPI" (docs/references.md):
 *   - products, rank, inverse, nonsingularity against a dense brute-force model on random
 *     matrices (full rank, low rank, sparse) for n = 0..20 and n = 64;
 *   - Appendix A: the basis is the right-to-left greedy one, basis columns are independent,
 *     every non-basis column is the sum of the basis columns its dependency set names;
 *   - Lemma 1: compose then apply = apply twice; inverse undoes apply;
 *   - Appendix C and §6 constructors against their definitions on every x for small n;
 *   - the public wrappers, including their argument errors.
 */
#include "bmmc/gf2.h"
#include "redist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t low(int bits)
{
    return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

static int bit(uint64_t w, int i)
{
    return (int)(w >> i & 1);
}

/* ---- dense brute-force model: d[i][j] = A[i][j] ------------------------------------------ */
typedef unsigned char dense[64][64];

static void to_dense(int rows, int cols, const uint64_t a[], dense d)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            d[i][j] = (unsigned char)bit(a[j], i);
}

/* Row reduction on a dense copy (rows x cols), independent of gf2.c's column algorithms. */
static int dense_rank(int rows, int cols, const uint64_t a[])
{
    static dense d;
    to_dense(rows, cols, a, d);
    int rank = 0;
    for (int j = 0; j < cols && rank < rows; j++) {
        int piv = rank;
        while (piv < rows && !d[piv][j])
            piv++;
        if (piv == rows)
            continue;
        for (int k = 0; k < cols; k++) {
            unsigned char t = d[piv][k];
            d[piv][k] = d[rank][k];
            d[rank][k] = t;
        }
        for (int i = 0; i < rows; i++)
            if (i != rank && d[i][j])
                for (int k = 0; k < cols; k++)
                    d[i][k] ^= d[rank][k];
        rank++;
    }
    return rank;
}

static uint64_t dense_mul_vec(int n, const uint64_t a[], uint64_t x)
{
    uint64_t y = 0;
    for (int i = 0; i < n; i++) {
        int s = 0;
        for (int j = 0; j < n; j++)
            s ^= bit(a[j], i) & bit(x, j);
        y |= (uint64_t)s << i;
    }
    return y;
}

static void dense_mul(int n, const uint64_t a[], const uint64_t b[], uint64_t out[])
{
    for (int j = 0; j < n; j++) {
        out[j] = 0;
        for (int i = 0; i < n; i++) {
            int s = 0;
            for (int k = 0; k < n; k++)
                s ^= bit(a[k], i) & bit(b[j], k);
            out[j] |= (uint64_t)s << i;
        }
    }
}

static int is_identity(int n, const uint64_t a[])
{
    for (int j = 0; j < n; j++)
        if (a[j] != (uint64_t)1 << j)
            return 0;
    return 1;
}

/* Random n x n matrices of several kinds: dense, sparse, low rank, nonsingular. */
static void random_matrix(int n, int kind, uint64_t a[])
{
    if (kind == 0) {
        for (int j = 0; j < n; j++)
            a[j] = rnd() & low(n);
    } else if (kind == 1) {
        for (int j = 0; j < n; j++)
            a[j] = rnd() & rnd() & rnd() & low(n);
    } else if (kind == 2) { /* product of n x r and r x n: rank <= r */
        int r = n ? (int)(rnd() % (uint64_t)n) : 0;
        uint64_t left[64], right[64];
        for (int j = 0; j < r; j++)
            left[j] = rnd() & low(n);
        for (int j = 0; j < n; j++)
            right[j] = rnd() & low(r);
        redist__gf2_mul(r, left, n, right, a);
    } else { /* random column additions on I: nonsingular */
        redist__gf2_identity(n, a);
        for (int s = 0; n > 1 && s < 4 * n; s++) {
            int i = (int)(rnd() % (uint64_t)n), j = (int)(rnd() % (uint64_t)n);
            if (i != j)
                a[j] ^= a[i];
        }
    }
}

/* ---- algebra ------------------------------------------------------------------------------ */
static void check_basis(int n, const uint64_t a[])
{
    uint64_t basis, deps[64];
    int rank = redist__gf2_basis(n, a, &basis, deps);
    CHECK(rank == dense_rank(n, n, a), "n=%d rank %d vs brute %d", n, rank, dense_rank(n, n, a));
    CHECK(rank == redist__gf2_rank(n, a), "n=%d rank", n);
    CHECK(redist__gf2_popcount(basis) == rank, "n=%d |S| != rank", n);
    CHECK((basis & ~low(n)) == 0, "n=%d basis outside columns", n);
    /* Right-to-left greedy: j is in S iff column j is outside the span of columns j+1.. */
    for (int j = 0; j < n; j++) {
        int grows = dense_rank(n, n - j, a + j) > dense_rank(n, n - j - 1, a + j + 1);
        CHECK(bit(basis, j) == grows, "n=%d column %d basis membership", n, j);
    }
    uint64_t sub[64] = {0};
    int nsub = 0;
    for (int j = 0; j < n; j++)
        if (bit(basis, j))
            sub[nsub++] = a[j];
    CHECK(dense_rank(n, nsub, sub) == nsub, "n=%d basis columns dependent", n);
    for (int j = 0; j < n; j++) {
        if (bit(basis, j)) {
            CHECK(deps[j] == 0, "n=%d basis column %d has dependencies", n, j);
            continue;
        }
        CHECK((deps[j] & ~basis) == 0, "n=%d column %d depends on non-basis columns", n, j);
        uint64_t sum = 0;
        for (int i = 0; i < n; i++)
            if (bit(deps[j], i))
                sum ^= a[i];
        CHECK(sum == a[j], "n=%d column %d != sum of its dependencies", n, j);
    }
}

static void check_algebra(int n, const uint64_t a[], const uint64_t b[])
{
    uint64_t got[64], want[64], inv[64];
    redist__gf2_mul(n, a, n, b, got);
    dense_mul(n, a, b, want);
    CHECK(memcmp(got, want, (size_t)n * 8) == 0, "n=%d A B", n);
    for (int t = 0; t < 8; t++) {
        uint64_t x = rnd() & low(n);
        CHECK(redist__gf2_mul_vec(n, a, x) == dense_mul_vec(n, a, x), "n=%d A x", n);
    }
    check_basis(n, a);
    int full = dense_rank(n, n, a) == n;
    CHECK(redist__gf2_is_nonsingular(n, a) == full, "n=%d nonsingular", n);
    int err = redist__gf2_inverse(n, a, inv);
    CHECK((err == REDIST_SUCCESS) == full, "n=%d inverse returned %d, rank full %d", n, err, full);
    if (err == REDIST_SUCCESS) {
        dense_mul(n, a, inv, got);
        CHECK(is_identity(n, got), "n=%d A A^-1 != I", n);
        dense_mul(n, inv, a, got);
        CHECK(is_identity(n, got), "n=%d A^-1 A != I", n);
    } else {
        CHECK(err == REDIST_ERR_ARG, "n=%d singular: %d", n, err);
    }
}

/* Lemma 1 on random nonsingular pairs. */
static void check_lemma1(int n)
{
    uint64_t a[64], b[64], ab[64], inv[64], cab, cinv;
    random_matrix(n, 3, a);
    random_matrix(n, 3, b);
    uint64_t ca = rnd() & low(n), cb = rnd() & low(n);
    redist__gf2_compose(n, a, ca, b, cb, ab, &cab);
    CHECK(redist__gf2_inverse_bmmc(n, a, ca, inv, &cinv) == REDIST_SUCCESS, "n=%d inverse", n);
    for (int t = 0; t < 16; t++) {
        uint64_t x = rnd() & low(n);
        uint64_t y = redist__gf2_mul_vec(n, a, x) ^ ca;
        uint64_t z = redist__gf2_mul_vec(n, b, y) ^ cb;
        CHECK((redist__gf2_mul_vec(n, ab, x) ^ cab) == z, "n=%d compose", n);
        CHECK((redist__gf2_mul_vec(n, inv, y) ^ cinv) == x, "n=%d inverse apply", n);
    }
    /* Aliasing: out = a. */
    memcpy(ab, a, sizeof a);
    redist__gf2_compose(n, ab, ca, b, cb, ab, &cab);
    uint64_t x = rnd() & low(n);
    CHECK((redist__gf2_mul_vec(n, ab, x) ^ cab) ==
              (redist__gf2_mul_vec(n, b, redist__gf2_mul_vec(n, a, x) ^ ca) ^ cb),
          "n=%d compose in place", n);
}

static void test_algebra(void)
{
    uint64_t a[64], b[64];
    for (int n = 0; n <= 20; n++) {
        for (int t = 0; t < 60; t++) {
            random_matrix(n, t % 4, a);
            random_matrix(n, (t / 4) % 4, b);
            check_algebra(n, a, b);
        }
        check_lemma1(n);
    }
    for (int t = 0; t < 24; t++) {
        random_matrix(64, t % 4, a);
        random_matrix(64, (t + 1) % 4, b);
        check_algebra(64, a, b);
        check_lemma1(64);
    }
    /* Explicitly singular: a zero column, two equal columns, a column the sum of others. */
    for (int n = 1; n <= 64; n += 7) {
        random_matrix(n, 3, a);
        memcpy(b, a, sizeof a);
        b[n / 2] = 0;
        CHECK(!redist__gf2_is_nonsingular(n, b), "n=%d zero column", n);
        if (n >= 2) {
            memcpy(b, a, sizeof a);
            b[n - 1] = b[0];
            CHECK(redist__gf2_inverse(n, b, b) == REDIST_ERR_ARG, "n=%d equal columns", n);
            memcpy(b, a, sizeof a);
            b[1] = b[0] ^ b[n - 1];
            CHECK(redist__gf2_rank(n, b) == n - 1, "n=%d dependent column", n);
        }
    }
    /* Submatrix: rows 3..7 of columns 2..5. */
    random_matrix(16, 0, a);
    redist__gf2_submatrix(a, 3, 5, 2, 4, b);
    for (int j = 0; j < 4; j++)
        CHECK(b[j] == ((a[2 + j] >> 3) & 31), "submatrix column %d", j);
}

/* ---- constructors ------------------------------------------------------------------------- */
static uint64_t apply(int n, const uint64_t a[], uint64_t c, uint64_t x)
{
    return redist_bmmc_apply(n, a, c, x);
}

static uint64_t rotl(int n, uint64_t x, int k)
{
    k = ((k % n) + n) % n;
    return k == 0 ? x : ((x << k) | (x >> (n - k))) & low(n);
}

static void test_constructors(void)
{
    uint64_t a[64], b[64], c, cc;
    for (int n = 0; n <= 12; n++) {
        uint64_t N = (uint64_t)1 << n;
        CHECK(redist_bmmc_identity(n, a) == REDIST_SUCCESS, "identity");
        for (uint64_t x = 0; x < N; x++)
            CHECK(apply(n, a, 0, x) == x, "identity n=%d x=%llu", n, (unsigned long long)x);
        CHECK(redist_bmmc_bit_reversal(n, a) == REDIST_SUCCESS, "bit reversal");
        for (uint64_t x = 0; x < N; x++) {
            uint64_t y = apply(n, a, 0, x);
            for (int i = 0; i < n; i++)
                CHECK(bit(y, i) == bit(x, n - 1 - i), "bit reversal n=%d", n);
        }
        CHECK(redist_bmmc_vector_reversal(n, a, &c) == REDIST_SUCCESS, "vector reversal");
        for (uint64_t x = 0; x < N; x++)
            CHECK(apply(n, a, c, x) == N - 1 - x, "vector reversal n=%d", n);
        CHECK(redist_bmmc_gray(n, a) == REDIST_SUCCESS, "gray");
        CHECK(redist_bmmc_gray_inverse(n, b) == REDIST_SUCCESS, "gray inverse");
        for (uint64_t x = 0; x < N; x++) {
            CHECK(apply(n, a, 0, x) == (x ^ (x >> 1)), "gray n=%d", n);
            uint64_t prefix = 0;
            for (int i = n - 1; i >= 0; i--)
                prefix |= (uint64_t)(bit(x >> i, 0) ^ bit(prefix, i + 1)) << i;
            CHECK(apply(n, b, 0, x) == prefix, "gray inverse n=%d", n);
            CHECK(apply(n, b, 0, apply(n, a, 0, x)) == x, "gray inverse of gray n=%d", n);
        }
        for (int k = -n - 1; n > 0 && k <= n + 1; k++) {
            CHECK(redist_bmmc_shuffle(n, k, a) == REDIST_SUCCESS, "shuffle");
            for (uint64_t x = 0; x < N; x++)
                CHECK(apply(n, a, 0, x) == rotl(n, x, k), "shuffle n=%d k=%d", n, k);
        }
        if (n > 0) { /* perfect shuffle: i -> 2i, N/2 + i -> 2i + 1; unshuffle undoes it */
            redist_bmmc_shuffle(n, 1, a);
            redist_bmmc_shuffle(n, -1, b);
            for (uint64_t i = 0; i < N / 2; i++) {
                CHECK(apply(n, a, 0, i) == 2 * i, "shuffle first half n=%d", n);
                CHECK(apply(n, a, 0, N / 2 + i) == 2 * i + 1, "shuffle second half n=%d", n);
                CHECK(apply(n, b, 0, 2 * i + 1) == N / 2 + i, "unshuffle n=%d", n);
            }
        }
        for (int ra = 0; ra <= n; ra++) { /* 2^ra x 2^rb row-major: (i, j) -> (j, i) */
            int rb = n - ra;
            CHECK(redist_bmmc_transpose(ra, rb, a) == REDIST_SUCCESS, "transpose");
            for (uint64_t i = 0; i < ((uint64_t)1 << ra); i++)
                for (uint64_t j = 0; j < ((uint64_t)1 << rb); j++)
                    CHECK(apply(n, a, 0, (i << rb) + j) == (j << ra) + i, "transpose %d x %d bits",
                          ra, rb);
        }
        for (int p = 0; p <= n; p++) {
            for (int f = 0; f <= n - p; f++) {
                uint64_t P = (uint64_t)1 << p;
                CHECK(redist_bmmc_layout(n, p, f, a) == REDIST_SUCCESS, "layout");
                CHECK(redist_bmmc_layout_inverse(n, p, f, b) == REDIST_SUCCESS, "layout inv");
                for (uint64_t x = 0; x < N; x++) {
                    uint64_t rank = (x >> f) & (P - 1);
                    uint64_t off = (x & low(f)) | ((x >> (f + p)) << f);
                    uint64_t pm = (rank << (n - p)) | off;
                    CHECK(apply(n, a, 0, x) == pm, "Q n=%d p=%d f=%d", n, p, f);
                    CHECK(apply(n, b, 0, pm) == x, "Q^-1 n=%d p=%d f=%d", n, p, f);
                }
                if (f == n - p)
                    CHECK(is_identity(n, a), "Q = I for processor-major n=%d p=%d", n, p);
            }
        }
    }
    /* Moving data from layout f1 to layout f2 is Q_f1^-1 Q_f2 performed in layout f1: the
       element x, that Q_f2 puts at (rank, offset), ends at index y whose layout-f1 position is
       that same (rank, offset). */
    int n = 9, p = 3;
    for (int f1 = 0; f1 <= n - p; f1++) {
        for (int f2 = 0; f2 <= n - p; f2++) {
            uint64_t q1[64], q1inv[64], q2[64], m[64];
            redist_bmmc_layout(n, p, f1, q1);
            redist_bmmc_layout_inverse(n, p, f1, q1inv);
            redist_bmmc_layout(n, p, f2, q2);
            CHECK(redist_bmmc_compose(n, q2, 0, q1inv, 0, m, &cc) == REDIST_SUCCESS, "compose");
            for (uint64_t x = 0; x < ((uint64_t)1 << n); x++)
                CHECK(apply(n, q1, 0, apply(n, m, cc, x)) == apply(n, q2, 0, x),
                      "layout change f1=%d f2=%d", f1, f2);
        }
    }
    /* n = 64 constructors: spot checks. */
    CHECK(redist_bmmc_bit_reversal(64, a) == REDIST_SUCCESS, "bit reversal 64");
    CHECK(apply(64, a, 0, 1) == (uint64_t)1 << 63, "bit reversal 64");
    CHECK(redist_bmmc_vector_reversal(64, a, &c) == REDIST_SUCCESS && c == ~(uint64_t)0,
          "vector reversal 64");
    CHECK(redist_bmmc_gray(64, a) == REDIST_SUCCESS, "gray 64");
    for (int t = 0; t < 100; t++) {
        uint64_t x = rnd();
        CHECK(apply(64, a, 0, x) == (x ^ (x >> 1)), "gray 64");
    }
}

/* ---- public wrappers: errors and Lemma 1 -------------------------------------------------- */
static void test_public(void)
{
    uint64_t a[64], b[64], out[64], c;
    CHECK(redist_bmmc_identity(65, a) == REDIST_ERR_ARG, "n = 65");
    CHECK(redist_bmmc_identity(-1, a) == REDIST_ERR_ARG, "n = -1");
    CHECK(redist_bmmc_identity(3, NULL) == REDIST_ERR_ARG, "NULL");
    CHECK(redist_bmmc_identity(0, NULL) == REDIST_SUCCESS, "n = 0");
    CHECK(redist_bmmc_transpose(40, 30, a) == REDIST_ERR_ARG, "transpose 70 bits");
    CHECK(redist_bmmc_transpose(-1, 3, a) == REDIST_ERR_ARG, "transpose a < 0");
    CHECK(redist_bmmc_layout(8, 9, 0, a) == REDIST_ERR_ARG, "layout p > n");
    CHECK(redist_bmmc_layout(8, 3, 6, a) == REDIST_ERR_ARG, "layout f > n - p");
    CHECK(redist_bmmc_layout_inverse(8, 3, -1, a) == REDIST_ERR_ARG, "layout f < 0");
    CHECK(redist_bmmc_vector_reversal(4, a, NULL) == REDIST_ERR_ARG, "vector reversal NULL");
    redist_bmmc_identity(8, a);
    a[3] |= (uint64_t)1 << 8;
    CHECK(redist_bmmc_rank(8, a) == REDIST_ERR_ARG, "stray bit rank");
    CHECK(redist_bmmc_inverse(8, a, 0, out, &c) == REDIST_ERR_ARG, "stray bit inverse");
    redist_bmmc_identity(8, a);
    CHECK(redist_bmmc_compose(8, a, 256, a, 0, out, &c) == REDIST_ERR_ARG, "stray complement");
    CHECK(redist_bmmc_compose(8, a, 0, a, 0, out, NULL) == REDIST_ERR_ARG, "cout NULL");
    a[5] = a[2];
    CHECK(redist_bmmc_rank(8, a) == 7, "rank of singular");
    CHECK(redist_bmmc_inverse(8, a, 0, out, &c) == REDIST_ERR_ARG, "singular inverse");
    CHECK(strlen(redist_last_error_detail()) > 0, "error detail recorded");
    for (int n = 1; n <= 64; n += 9) {
        random_matrix(n, 3, a);
        random_matrix(n, 3, b);
        uint64_t ca = rnd() & low(n), cb = rnd() & low(n), cab, cinv, inv[64];
        CHECK(redist_bmmc_rank(n, a) == n, "rank n=%d", n);
        CHECK(redist_bmmc_compose(n, a, ca, b, cb, out, &cab) == REDIST_SUCCESS, "compose");
        CHECK(redist_bmmc_inverse(n, a, ca, inv, &cinv) == REDIST_SUCCESS, "inverse");
        for (int t = 0; t < 32; t++) {
            uint64_t x = rnd() & low(n), y = apply(n, a, ca, x);
            CHECK(apply(n, out, cab, x) == apply(n, b, cb, y), "public compose n=%d", n);
            CHECK(apply(n, inv, cinv, y) == x, "public inverse n=%d", n);
        }
    }
}

int main(void)
{
    test_algebra();
    test_constructors();
    test_public();
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
