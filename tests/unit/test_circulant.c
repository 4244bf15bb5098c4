/* Serial tests of [LBP96]'s tables for R_x(K, P) (src/index/circulant.h), exhaustive over
 * 1 <= K <= P <= 64 (K > P is all-to-all, not a table case).
 *
 * [LBP96]: Lim, Bhat, Prasanna, "Efficient Algorithms for Block-Cyclic Redistribution of
 * Arrays" (docs/references.md). For every (K, P):
 *   - redist__rx_init: G = gcd(K, P), K = K'G, P = P'G, n K' - m P' = 1, 1 <= n <= P',
 *     0 <= m < K';
 *   - S, R, P against the block-cyclic layout contract (§3.1, §3.3);
 *   - Theorem 1 (ii): each row of P_s is a permutation of 0..P-1, rows distinct;
 *   - each column of D_s is a permutation of 0..K-1 and P_s(i, j) = P(D_s(i, j), j);
 *   - Theorem 1 (i): P_s is a generalized circulant matrix as in Eq. (1);
 *   - P_r(i, .) inverts P_s(i, .); R'(i, j) = S'(i, P_r(i, j)) = R(D_r(i, j), j), each
 *     column of D_r a permutation of 0..K-1, and P_r(i, j) = (R(D_r(i, j), j) mod P) (the
 *     dual's destination table through D_r);
 *   - the direct schedule on one superblock (row i of P_s is step i) puts every block where
 *     R says, exactly once; the dual (cyclic(Kx) -> cyclic(x), R_x run backwards along P_r)
 *     puts every block back where S says;
 *   - redist__rx_tables (Corollary 1's incremental form) equals the closed forms;
 * and the worked examples: R_x(6, 9) against Fig. 11 (S', P_s and their base/offset
 * decomposition, copied from the paper) and R_2(3, 4) against Fig. 2 and 3 (S, R, P).
 */
#include "index/circulant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KP 64

#include "support/check.h"

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

/* The seven tables of one R_x(K, P), K rows of P entries, row-major. */
typedef struct tables {
    int64_t S[MAX_KP * MAX_KP], R[MAX_KP * MAX_KP], P[MAX_KP * MAX_KP];
    int64_t Ps[MAX_KP * MAX_KP], Ds[MAX_KP * MAX_KP], Pr[MAX_KP * MAX_KP], Dr[MAX_KP * MAX_KP];
} tables;

static void closed_forms(const redist__rx *rx, tables *t)
{
    for (int64_t i = 0; i < rx->K; i++)
        for (int64_t j = 0; j < rx->P; j++) {
            int64_t at = i * rx->P + j;
            t->S[at] = redist__rx_S(rx, i, j);
            t->R[at] = redist__rx_R(rx, i, j);
            t->P[at] = redist__rx_P(rx, i, j);
            t->Ps[at] = redist__rx_Ps(rx, i, j);
            t->Ds[at] = redist__rx_Ds(rx, i, j);
            t->Pr[at] = redist__rx_Pr(rx, i, j);
            t->Dr[at] = redist__rx_Dr(rx, i, j);
        }
}

/* 1 if v[0], v[stride], ..., v[(count-1)*stride] is a permutation of 0..count-1. */
static int is_permutation(const int64_t *v, int64_t count, int64_t stride)
{
    unsigned char seen[MAX_KP * MAX_KP];
    memset(seen, 0, (size_t)count);
    for (int64_t k = 0; k < count; k++) {
        int64_t e = v[k * stride];
        if (e < 0 || e >= count || seen[e])
            return 0;
        seen[e] = 1;
    }
    return 1;
}

static void check_init(int64_t K, int64_t P, const redist__rx *rx)
{
    int64_t G = gcd64(K, P);
    CHECK(rx->K == K && rx->P == P, "R_x(%lld, %lld): K, P stored as %lld, %lld", (long long)K,
          (long long)P, (long long)rx->K, (long long)rx->P);
    CHECK(rx->G == G, "R_x(%lld, %lld): G = %lld, gcd is %lld", (long long)K, (long long)P,
          (long long)rx->G, (long long)G);
    CHECK(rx->Kp * rx->G == K && rx->Pp * rx->G == P, "R_x(%lld, %lld): K' = %lld, P' = %lld",
          (long long)K, (long long)P, (long long)rx->Kp, (long long)rx->Pp);
    CHECK(rx->n * rx->Kp - rx->m * rx->Pp == 1, "R_x(%lld, %lld): n K' - m P' = %lld", (long long)K,
          (long long)P, (long long)(rx->n * rx->Kp - rx->m * rx->Pp));
    CHECK(rx->n >= 1 && rx->n <= rx->Pp && rx->m >= 0 && rx->m < rx->Kp,
          "R_x(%lld, %lld): n = %lld, m = %lld out of range", (long long)K, (long long)P,
          (long long)rx->n, (long long)rx->m);
}

/* §3.1: S holds cyclic(x) (block b on processor b mod P at local row b / P), R holds
   cyclic(Kx) (block b on processor (b / K) mod P at local row (b / KP) K + b mod K), both
   over the first superblock 0..KP-1; P(i, j) is where block S(i, j) goes. */
static void check_srp(const redist__rx *rx, const tables *t)
{
    int64_t K = rx->K, P = rx->P;
    CHECK(is_permutation(t->S, K * P, 1) && is_permutation(t->R, K * P, 1),
          "R_x(%lld, %lld): S or R is not a permutation of the superblock", (long long)K,
          (long long)P);
    for (int64_t i = 0; i < K; i++)
        for (int64_t j = 0; j < P; j++) {
            int64_t s = t->S[i * P + j], r = t->R[i * P + j];
            CHECK(s % P == j && s / P == i, "R_x(%lld, %lld): S(%lld, %lld) = %lld", (long long)K,
                  (long long)P, (long long)i, (long long)j, (long long)s);
            CHECK((r / K) % P == j && (r / (K * P)) * K + r % K == i,
                  "R_x(%lld, %lld): R(%lld, %lld) = %lld", (long long)K, (long long)P, (long long)i,
                  (long long)j, (long long)r);
            CHECK(t->P[i * P + j] == (s / K) % P, "R_x(%lld, %lld): P(%lld, %lld) = %lld",
                  (long long)K, (long long)P, (long long)i, (long long)j,
                  (long long)t->P[i * P + j]);
        }
}

/* Theorem 1 (ii), D_s, and Eq. (1). */
static void check_send_side(const redist__rx *rx, const tables *t)
{
    int64_t K = rx->K, P = rx->P, G = rx->G, Kp = rx->Kp, Pp = rx->Pp;
    for (int64_t i = 0; i < K; i++) {
        CHECK(is_permutation(t->Ps + i * P, P, 1),
              "R_x(%lld, %lld): row %lld of P_s is not a permutation", (long long)K, (long long)P,
              (long long)i);
        for (int64_t i2 = 0; i2 < i; i2++)
            CHECK(memcmp(t->Ps + i * P, t->Ps + i2 * P, (size_t)P * sizeof *t->Ps) != 0,
                  "R_x(%lld, %lld): rows %lld and %lld of P_s are equal", (long long)K,
                  (long long)P, (long long)i2, (long long)i);
    }
    for (int64_t j = 0; j < P; j++) {
        CHECK(is_permutation(t->Ds + j, K, P),
              "R_x(%lld, %lld): column %lld of D_s is not a permutation", (long long)K,
              (long long)P, (long long)j);
        for (int64_t i = 0; i < K; i++) {
            int64_t d = t->Ds[i * P + j];
            if (d < 0 || d >= K)
                continue; /* reported above */
            CHECK(t->Ps[i * P + j] == t->P[d * P + j],
                  "R_x(%lld, %lld): P_s(%lld, %lld) = %lld but P(D_s = %lld, %lld) = %lld",
                  (long long)K, (long long)P, (long long)i, (long long)j,
                  (long long)t->Ps[i * P + j], (long long)d, (long long)j,
                  (long long)t->P[d * P + j]);
        }
    }
    /* Eq. (1): submatrix row i1 is submatrix row 0 circularly shifted right i1 times
       (A_{i1, j1} = C_{(j1 - i1) mod P'}), and each G x G submatrix C is circulant (row r is
       row 0 shifted right r times: C[r][c] = C[0][(c - r) mod G]). */
    for (int64_t i1 = 0; i1 < Kp; i1++)
        for (int64_t j1 = 0; j1 < Pp; j1++)
            for (int64_t r = 0; r < G; r++)
                for (int64_t c = 0; c < G; c++) {
                    int64_t v = t->Ps[(i1 * G + r) * P + j1 * G + c];
                    int64_t shifted = t->Ps[r * P + mod(j1 - i1, Pp) * G + c];
                    int64_t circ = t->Ps[(i1 * G) * P + j1 * G + mod(c - r, G)];
                    CHECK(
                        v == shifted && v == circ,
                        "R_x(%lld, %lld): P_s(%lld, %lld) = %lld is not generalized circulant (%lld, %lld)",
                        (long long)K, (long long)P, (long long)(i1 * G + r),
                        (long long)(j1 * G + c), (long long)v, (long long)shifted, (long long)circ);
                }
}

/* P_r, D_r: R'(i, j) = S'(i, P_r(i, j)) = R(D_r(i, j), j). */
static void check_receive_side(const redist__rx *rx, const tables *t)
{
    int64_t K = rx->K, P = rx->P;
    for (int64_t i = 0; i < K; i++) {
        CHECK(is_permutation(t->Pr + i * P, P, 1),
              "R_x(%lld, %lld): row %lld of P_r is not a permutation", (long long)K, (long long)P,
              (long long)i);
        for (int64_t j = 0; j < P; j++) {
            int64_t c = t->Ps[i * P + j];
            if (c >= 0 && c < P)
                CHECK(t->Pr[i * P + c] == j,
                      "R_x(%lld, %lld): P_r(%lld, P_s(%lld, %lld) = %lld) = %lld, not %lld",
                      (long long)K, (long long)P, (long long)i, (long long)i, (long long)j,
                      (long long)c, (long long)t->Pr[i * P + c], (long long)j);
        }
    }
    for (int64_t j = 0; j < P; j++) {
        CHECK(is_permutation(t->Dr + j, K, P),
              "R_x(%lld, %lld): column %lld of D_r is not a permutation", (long long)K,
              (long long)P, (long long)j);
        for (int64_t i = 0; i < K; i++) {
            int64_t c = t->Pr[i * P + j], dr = t->Dr[i * P + j];
            if (c < 0 || c >= P || dr < 0 || dr >= K)
                continue; /* reported above */
            int64_t ds = t->Ds[i * P + c];
            int64_t rp = ds >= 0 && ds < K ? t->S[ds * P + c] : -1; /* S'(i, P_r(i, j)) */
            CHECK(rp == t->R[dr * P + j],
                  "R_x(%lld, %lld): R'(%lld, %lld) = %lld but R(D_r = %lld, %lld) = %lld",
                  (long long)K, (long long)P, (long long)i, (long long)j, (long long)rp,
                  (long long)dr, (long long)j, (long long)t->R[dr * P + j]);
            /* The dual's destination table is R mod P (§3.1: cyclic(Kx) -> cyclic(x) starts
               from R); its column transformation D_r turns it into P_r. */
            CHECK(t->R[dr * P + j] % P == c,
                  "R_x(%lld, %lld) dual: P(D_r(%lld, %lld), %lld) = %lld, P_r = %lld", (long long)K,
                  (long long)P, (long long)i, (long long)j, (long long)j,
                  (long long)(t->R[dr * P + j] % P), (long long)c);
        }
    }
}

/* The direct schedule on one superblock. Step i: processor j sends its block at local row
   D_s(i, j) (that is S'(i, j)) to processor P_s(i, j), which stores it at its local row
   D_r(i, P_s(i, j)). Afterwards processor c must hold R(., c), every slot written once.
   The dual (cyclic(Kx) -> cyclic(x)) runs the same steps backwards: processor c sends its
   row D_r(i, c) to P_r(i, c), which stores it at row D_s(i, P_r(i, c)), ending with S. */
static void check_delivery(const redist__rx *rx, const tables *t)
{
    int64_t K = rx->K, P = rx->P;
    static int64_t got[MAX_KP * MAX_KP];
    static unsigned char recv_in_step[MAX_KP];
    for (int dual = 0; dual < 2; dual++) {
        const int64_t *from = dual ? t->R : t->S, *to = dual ? t->S : t->R;
        const int64_t *dest = dual ? t->Pr : t->Ps, *sendrow = dual ? t->Dr : t->Ds,
                      *recvrow = dual ? t->Ds : t->Dr;
        for (int64_t k = 0; k < K * P; k++)
            got[k] = -1;
        int ok = 1;
        for (int64_t i = 0; i < K && ok; i++) {
            memset(recv_in_step, 0, (size_t)P);
            for (int64_t j = 0; j < P && ok; j++) {
                int64_t c = dest[i * P + j], row = sendrow[i * P + j];
                int64_t slot = c >= 0 && c < P ? recvrow[i * P + c] : -1;
                ok = c >= 0 && c < P && !recv_in_step[c] && row >= 0 && row < K && slot >= 0 &&
                     slot < K && got[slot * P + c] < 0;
                CHECK(
                    ok,
                    "R_x(%lld, %lld)%s: step %lld, processor %lld -> %lld (row %lld -> %lld) is out of range, contended or overwrites a block",
                    (long long)K, (long long)P, dual ? " dual" : "", (long long)i, (long long)j,
                    (long long)c, (long long)row, (long long)slot);
                if (ok) {
                    recv_in_step[c] = 1;
                    got[slot * P + c] = from[row * P + j];
                }
            }
        }
        for (int64_t k = 0; k < K * P && ok; k++) {
            ok = got[k] == to[k];
            CHECK(ok, "R_x(%lld, %lld)%s: processor %lld row %lld holds block %lld, not %lld",
                  (long long)K, (long long)P, dual ? " dual" : "", (long long)(k % P),
                  (long long)(k / P), (long long)got[k], (long long)to[k]);
        }
    }
}

/* redist__rx_tables (Corollary 1's incremental form for P_s and D_s) against the closed
   forms, all at once and each table alone (any output may be NULL). */
static void check_incremental(const redist__rx *rx, const tables *closed)
{
    static tables inc, one;
    int64_t cells = rx->K * rx->P;
    const char *names[7] = {"S", "R", "P", "P_s", "D_s", "P_r", "D_r"};
    CHECK(redist__rx_tables(rx, inc.S, inc.R, inc.P, inc.Ps, inc.Ds, inc.Pr, inc.Dr) == 0,
          "redist__rx_tables failed");
    const int64_t *want[7] = {closed->S,  closed->R,  closed->P, closed->Ps,
                              closed->Ds, closed->Pr, closed->Dr};
    const int64_t *have[7] = {inc.S, inc.R, inc.P, inc.Ps, inc.Ds, inc.Pr, inc.Dr};
    int64_t *alone[7] = {one.S, one.R, one.P, one.Ps, one.Ds, one.Pr, one.Dr};
    for (int k = 0; k < 7; k++) {
        int64_t *o[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
        o[k] = alone[k];
        for (int64_t c = 0; c < cells; c++)
            alone[k][c] = -7;
        CHECK(redist__rx_tables(rx, o[0], o[1], o[2], o[3], o[4], o[5], o[6]) == 0,
              "redist__rx_tables with only %s failed", names[k]);
        for (int64_t c = 0; c < cells; c++) {
            CHECK(have[k][c] == want[k][c],
                  "R_x(%lld, %lld): redist__rx_tables %s(%lld, %lld) = %lld, closed form %lld",
                  (long long)rx->K, (long long)rx->P, names[k], (long long)(c / rx->P),
                  (long long)(c % rx->P), (long long)have[k][c], (long long)want[k][c]);
            CHECK(
                alone[k][c] == want[k][c],
                "R_x(%lld, %lld): redist__rx_tables (only %s) (%lld, %lld) = %lld, closed form %lld",
                (long long)rx->K, (long long)rx->P, names[k], (long long)(c / rx->P),
                (long long)(c % rx->P), (long long)alone[k][c], (long long)want[k][c]);
        }
    }
}

static void exhaustive(void)
{
    static tables t;
    for (int64_t P = 1; P <= MAX_KP; P++)
        for (int64_t K = 1; K <= P; K++) {
            redist__rx rx;
            long before = failures;
            CHECK(redist__rx_init(K, P, &rx) == 0, "redist__rx_init(%lld, %lld) failed",
                  (long long)K, (long long)P);
            if (failures != before)
                continue;
            check_init(K, P, &rx);
            closed_forms(&rx, &t);
            check_srp(&rx, &t);
            check_send_side(&rx, &t);
            check_receive_side(&rx, &t);
            check_delivery(&rx, &t);
            check_incremental(&rx, &t);
        }
}

static void bad_arguments(void)
{
    redist__rx rx;
    CHECK(redist__rx_init(0, 4, &rx) == -1, "redist__rx_init(0, 4) accepted");
    CHECK(redist__rx_init(4, 0, &rx) == -1, "redist__rx_init(4, 0) accepted");
    CHECK(redist__rx_init(-3, 4, &rx) == -1, "redist__rx_init(-3, 4) accepted");
    CHECK(redist__rx_init(3, 4, NULL) == -1, "redist__rx_init(3, 4, NULL) accepted");
    CHECK(redist__rx_tables(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == -1,
          "redist__rx_tables(NULL) accepted");
}

/* Fig. 11: S', P_s and their base and offset components for R_x(6, 9), as printed. */
static const int64_t fig11_Sp[6][9] = {
    {0, 37, 20, 12, 49, 32, 6, 43, 26},  {18, 1, 38, 30, 13, 50, 24, 7, 44},
    {36, 19, 2, 48, 31, 14, 42, 25, 8},  {9, 46, 29, 3, 40, 23, 15, 52, 35},
    {27, 10, 47, 21, 4, 41, 33, 16, 53}, {45, 28, 11, 39, 22, 5, 51, 34, 17}};
static const int64_t fig11_Sbase[6][9] = {
    {0, 0, 0, 12, 12, 12, 6, 6, 6}, {0, 0, 0, 12, 12, 12, 6, 6, 6}, {0, 0, 0, 12, 12, 12, 6, 6, 6},
    {9, 9, 9, 3, 3, 3, 15, 15, 15}, {9, 9, 9, 3, 3, 3, 15, 15, 15}, {9, 9, 9, 3, 3, 3, 15, 15, 15}};
static const int64_t fig11_Soffset[6][9] = {
    {0, 37, 20, 0, 37, 20, 0, 37, 20}, {18, 1, 38, 18, 1, 38, 18, 1, 38},
    {36, 19, 2, 36, 19, 2, 36, 19, 2}, {0, 37, 20, 0, 37, 20, 0, 37, 20},
    {18, 1, 38, 18, 1, 38, 18, 1, 38}, {36, 19, 2, 36, 19, 2, 36, 19, 2}};
static const int64_t fig11_Ps[6][9] = {{0, 6, 3, 2, 8, 5, 1, 7, 4}, {3, 0, 6, 5, 2, 8, 4, 1, 7},
                                       {6, 3, 0, 8, 5, 2, 7, 4, 1}, {1, 7, 4, 0, 6, 3, 2, 8, 5},
                                       {4, 1, 7, 3, 0, 6, 5, 2, 8}, {7, 4, 1, 6, 3, 0, 8, 5, 2}};
static const int64_t fig11_Pbase[6][9] = {{0, 0, 0, 2, 2, 2, 1, 1, 1}, {0, 0, 0, 2, 2, 2, 1, 1, 1},
                                          {0, 0, 0, 2, 2, 2, 1, 1, 1}, {1, 1, 1, 0, 0, 0, 2, 2, 2},
                                          {1, 1, 1, 0, 0, 0, 2, 2, 2}, {1, 1, 1, 0, 0, 0, 2, 2, 2}};
static const int64_t fig11_Poffset[6][9] = {
    {0, 6, 3, 0, 6, 3, 0, 6, 3}, {3, 0, 6, 3, 0, 6, 3, 0, 6}, {6, 3, 0, 6, 3, 0, 6, 3, 0},
    {0, 6, 3, 0, 6, 3, 0, 6, 3}, {3, 0, 6, 3, 0, 6, 3, 0, 6}, {6, 3, 0, 6, 3, 0, 6, 3, 0}};

static void worked_example_6_9(void)
{
    redist__rx rx;
    static tables t;
    CHECK(redist__rx_init(6, 9, &rx) == 0, "redist__rx_init(6, 9) failed");
    /* §3.4: G = 3, K' = 2, P' = 3; 2 n - 3 m = 1 with n = 2, m = 1. */
    CHECK(rx.G == 3 && rx.Kp == 2 && rx.Pp == 3 && rx.n == 2 && rx.m == 1,
          "R_x(6, 9): G = %lld, K' = %lld, P' = %lld, n = %lld, m = %lld", (long long)rx.G,
          (long long)rx.Kp, (long long)rx.Pp, (long long)rx.n, (long long)rx.m);
    CHECK(redist__rx_tables(&rx, t.S, t.R, t.P, t.Ps, t.Ds, t.Pr, t.Dr) == 0,
          "redist__rx_tables(6, 9) failed");
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 9; j++) {
            int64_t ps = t.Ps[i * 9 + j], sp = t.S[t.Ds[i * 9 + j] * 9 + j]; /* S(D_s, j) */
            /* Base and offset (Eq. 14, Fig. 11): S' = (i1' P' + j1) G + (i2' K' P + j2) with
               i1' P' + j1 < K'P' and j2 < G, so the base is G ((S' / G) mod K'P'); P_s's
               parts are S''s parts divided by K, so its base is P_s mod P'. */
            int64_t sbase = 3 * ((sp / 3) % 6), soff = sp - sbase;
            int64_t pbase = ps % 3, poff = ps - pbase;
            CHECK(sp == fig11_Sp[i][j], "Fig. 11: S'(%d, %d) = %lld, paper %lld", i, j,
                  (long long)sp, (long long)fig11_Sp[i][j]);
            CHECK(ps == fig11_Ps[i][j], "Fig. 11: P_s(%d, %d) = %lld, paper %lld", i, j,
                  (long long)ps, (long long)fig11_Ps[i][j]);
            CHECK(sbase == fig11_Sbase[i][j] && soff == fig11_Soffset[i][j],
                  "Fig. 11: S'(%d, %d) = %lld + %lld, paper %lld + %lld", i, j, (long long)sbase,
                  (long long)soff, (long long)fig11_Sbase[i][j], (long long)fig11_Soffset[i][j]);
            CHECK(pbase == fig11_Pbase[i][j] && poff == fig11_Poffset[i][j],
                  "Fig. 11: P_s(%d, %d) = %lld + %lld, paper %lld + %lld", i, j, (long long)pbase,
                  (long long)poff, (long long)fig11_Pbase[i][j], (long long)fig11_Poffset[i][j]);
            CHECK(fig11_Sbase[i][j] / 6 == fig11_Pbase[i][j] &&
                      fig11_Soffset[i][j] / 6 == fig11_Poffset[i][j],
                  "Fig. 11: the paper's P_s parts are not its S' parts / K at (%d, %d)", i, j);
            /* Eq. (12)'s two terms: base n (j1 - i1) mod P', offset P' ((i2 - j2) mod G). */
            CHECK(pbase == mod(2 * (j / 3 - i / 3), 3) && poff == 3 * mod(i % 3 - j % 3, 3),
                  "Fig. 11: P_s(%d, %d) parts are not Eq. (12)'s terms", i, j);
        }
    /* §3.4: "the 0th row of P_s is (0, 6, 3, 2, 8, 5, 1, 7, 4)" (Fig. 8). */
    static const int64_t row0[9] = {0, 6, 3, 2, 8, 5, 1, 7, 4};
    CHECK(memcmp(t.Ps, row0, sizeof row0) == 0, "R_x(6, 9): row 0 of P_s differs from Fig. 8");
}

/* Fig. 2 (e), (f) and Fig. 3 (a): R_2(3, 4), cyclic(2) -> cyclic(6) on 4 processors. Blocks
   b0, b1, b2 go to p0, b3..b5 to p1, b6..b8 to p2, b9..b11 to p3 (§3.1). */
static void worked_example_3_4(void)
{
    static const int64_t S[3][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}};
    static const int64_t R[3][4] = {{0, 3, 6, 9}, {1, 4, 7, 10}, {2, 5, 8, 11}};
    static const int64_t Pt[3][4] = {{0, 0, 0, 1}, {1, 1, 2, 2}, {2, 3, 3, 3}};
    redist__rx rx;
    static tables t;
    CHECK(redist__rx_init(3, 4, &rx) == 0, "redist__rx_init(3, 4) failed");
    CHECK(rx.G == 1 && rx.Kp == 3 && rx.Pp == 4, "R_x(3, 4): G = %lld", (long long)rx.G);
    CHECK(redist__rx_tables(&rx, t.S, t.R, t.P, NULL, NULL, NULL, NULL) == 0,
          "redist__rx_tables(3, 4) failed");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            CHECK(t.S[i * 4 + j] == S[i][j], "Fig. 2(e): S(%d, %d) = %lld, paper %lld", i, j,
                  (long long)t.S[i * 4 + j], (long long)S[i][j]);
            CHECK(t.R[i * 4 + j] == R[i][j], "Fig. 2(f): R(%d, %d) = %lld, paper %lld", i, j,
                  (long long)t.R[i * 4 + j], (long long)R[i][j]);
            CHECK(t.P[i * 4 + j] == Pt[i][j], "Fig. 3(a): P(%d, %d) = %lld, paper %lld", i, j,
                  (long long)t.P[i * 4 + j], (long long)Pt[i][j]);
        }
}

/* redist__rx_moving_rows is closed form (row 0 is in place only for K = 1 and K = P = 2);
   here the rows of P_s are scanned for the identity, for every K <= P <= 96. */
static void moving_rows_brute_force(void)
{
    for (int64_t P = 1; P <= 96; P++)
        for (int64_t K = 1; K <= P; K++) {
            redist__rx rx;
            CHECK(redist__rx_init(K, P, &rx) == 0, "redist__rx_init(%lld, %lld)", (long long)K,
                  (long long)P);
            int64_t moving = 0;
            for (int64_t i = 0; i < K; i++) {
                int identity = 1;
                for (int64_t j = 0; j < P && identity; j++)
                    identity = redist__rx_Ps(&rx, i, j) == j;
                moving += !identity;
            }
            CHECK(redist__rx_moving_rows(&rx) == moving,
                  "R_x(%lld, %lld): %lld moving rows, brute force %lld", (long long)K, (long long)P,
                  (long long)redist__rx_moving_rows(&rx), (long long)moving);
        }
}

int main(void)
{
    bad_arguments();
    worked_example_3_4();
    worked_example_6_9();
    exhaustive();
    moving_rows_brute_force();
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
