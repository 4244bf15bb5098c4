/* Serial tests of [LBP96]'s row-transformation schedules (src/rowsched.c).
 *
 * For every 1 <= K <= P <= 64 and every K for P in {96, 128, 255, 256}: the direct, indirect
 * and hybrid (every d in 0..max_degree + 1) schedules pass the simulator (every step a
 * permutation of the processors, every unit delivered once to column P_s(i, j)), with the
 * step counts of Theorem 3 and the data volume of Corollary 2:
 *
 * - direct: exactly K steps, one row each, nothing relayed.
 * - indirect: exactly L = ceil(log2 K') + ceil(log2 G) shift steps plus the final column
 *   permutation, which is left out exactly when it is the identity (computed here from
 *   Eq. 12); so L or L + 1 <= ceil(log2 K) + 2 steps. R_x(6, 9): 4; K = 31, P = 64: 6.
 * - hybrid(d), d' = min(d, L): d = 0 is the direct schedule and d >= L the indirect one,
 *   step for step. Otherwise at most d' + min over d1 + d2 = d' of ceil(K'/2^d1) ceil(G/2^d2)
 *   steps, which is Theorem 3 (iii)'s d + ceil(K/2^d) whenever K' or G is a power of two;
 *   when neither is, the theorem's count can be missed (K = 9, P = 12, d = 1: 7 > 6) and no
 *   schedule of this shape can do better (see the comment at that test). The test asserts the
 *   first bound everywhere and the theorem's where it holds, and reports how often it fails.
 * - Corollary 2 counts N/(2P) elements per processor for each of the ceil(log K) + 1 shift
 *   steps it allows and N/P for the final step: with K units per processor per superblock
 *   that is K/2 units per message in a shift step and K in a direct step. So every shift step
 *   moves at most K/2 rows, and in total 2 unit_moves <= (shifts) K P + 2 K P, with
 *   shifts = L <= ceil(log2 K) + 1 for indirect (Corollary 2 (ii)) and d' <= d for hybrid
 *   (Corollary 2 (iii)). Both bounds are asserted as stated.
 *
 * The closed-form step counts (redist__rowsched_indirect_steps, _hybrid_steps) equal the
 * builders' nsteps for every 1 <= K <= P <= 64 and d <= max_degree + 2.
 */
#include "index/rowsched.h"
#include "redist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support/check.h"

static int64_t mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

static int ceil_log2(int64_t x)
{
    int L = 0;
    while (((int64_t)1 << L) < x)
        L++;
    return L;
}

static int is_pow2(int64_t x)
{
    return (x & (x - 1)) == 0;
}

static int is_identity(const int64_t *to, int64_t P)
{
    for (int64_t c = 0; c < P; c++)
        if (to[c] != c)
            return 0;
    return 1;
}

/* After every shift (unit (i, j) in submatrix column j1 - i1 and in-group column j2 - i2),
   are all units already where Eq. 12 sends them? Then the final permutation is empty. */
static int final_is_identity(const redist__rx *rx)
{
    int64_t G = rx->G;
    for (int64_t i = 0; i < rx->K; i++)
        for (int64_t j = 0; j < rx->P; j++) {
            int64_t k = mod(j / G - i / G, rx->Pp) * G + mod(j % G - i % G, G);
            if (redist__rx_Ps(rx, i, j) != k)
                return 0;
        }
    return 1;
}

/* The hybrid bound: d' shifts, then one step per remaining distinct row. */
static int64_t hybrid_bound(const redist__rx *rx, int d)
{
    int L1 = ceil_log2(rx->Kp), L2 = ceil_log2(rx->G);
    if (d > L1 + L2)
        d = L1 + L2;
    int64_t best = -1;
    for (int d1 = 0; d1 <= d && d1 <= L1; d1++) {
        if (d - d1 > L2)
            continue;
        int64_t rows = ceil_div(rx->Kp, (int64_t)1 << d1) * ceil_div(rx->G, (int64_t)1 << (d - d1));
        if (best < 0 || rows < best)
            best = rows;
    }
    return d + best;
}

static int same_schedule(const redist__row_schedule *a, const redist__row_schedule *b)
{
    if (a->K != b->K || a->P != b->P || a->nsteps != b->nsteps)
        return 0;
    for (int64_t k = 0; k < a->nsteps; k++) {
        const redist__row_step *x = &a->steps[k], *y = &b->steps[k];
        if (x->nrows != y->nrows ||
            memcmp(x->rows, y->rows, (size_t)x->nrows * sizeof *x->rows) != 0 ||
            memcmp(x->to, y->to, (size_t)a->P * sizeof *x->to) != 0)
            return 0;
    }
    return 1;
}

/* Steps first .. nsteps - 1 are the direct phase: disjoint row sets, no step that moves
   nothing, and no two with the same permutation (those rows should have moved together). */
static void check_direct_phase(const redist__row_schedule *s, int64_t first, const char *name)
{
    char *used = calloc((size_t)s->K, 1);
    for (int64_t k = first; k < s->nsteps; k++) {
        const redist__row_step *st = &s->steps[k];
        CHECK(st->nrows >= 1 && !is_identity(st->to, s->P), "%s K=%lld P=%lld: empty step %lld",
              name, (long long)s->K, (long long)s->P, (long long)k);
        for (int64_t r = 0; r < st->nrows; r++) {
            CHECK(!used[st->rows[r]], "%s K=%lld P=%lld: row %lld in two direct steps", name,
                  (long long)s->K, (long long)s->P, (long long)st->rows[r]);
            used[st->rows[r]] = 1;
        }
        for (int64_t l = first; l < k; l++)
            CHECK(memcmp(st->to, s->steps[l].to, (size_t)s->P * sizeof *st->to) != 0,
                  "%s K=%lld P=%lld: steps %lld and %lld have the same permutation", name,
                  (long long)s->K, (long long)s->P, (long long)l, (long long)k);
    }
    free(used);
}

/* The first nshift steps are shift steps: each moves at most K/2 rows (Corollary 2's
   N/(2P) per processor) and actually moves something. */
static void check_shift_steps(const redist__row_schedule *s, int64_t nshift, const char *name)
{
    for (int64_t k = 0; k < nshift && k < s->nsteps; k++)
        CHECK(2 * s->steps[k].nrows <= s->K && s->steps[k].nrows >= 1 &&
                  !is_identity(s->steps[k].to, s->P),
              "%s K=%lld P=%lld: shift step %lld moves %lld rows", name, (long long)s->K,
              (long long)s->P, (long long)k, (long long)s->steps[k].nrows);
}

static int run_check(const redist__rx *rx, const redist__row_schedule *s, const char *name,
                     redist__rowsched_stats *st)
{
    int rc = redist__rowsched_check(rx, s, st);
    CHECK(rc == 0, "%s K=%lld P=%lld: check failed (%d)", name, (long long)rx->K, (long long)rx->P,
          rc);
    CHECK(st->steps == s->nsteps, "%s: stats.steps", name);
    return rc;
}

static void test_direct(const redist__rx *rx, redist__row_schedule *direct)
{
    int64_t K = rx->K, P = rx->P, moving = 0;
    CHECK(redist__rowsched_direct(rx, direct) == 0, "direct K=%lld P=%lld", (long long)K,
          (long long)P);
    redist__rowsched_stats st;
    if (run_check(rx, direct, "direct", &st) != 0)
        return;
    CHECK(direct->nsteps == K, "direct K=%lld P=%lld: %lld steps", (long long)K, (long long)P,
          (long long)direct->nsteps);
    for (int64_t i = 0; i < K; i++)
        for (int64_t c = 0; c < P; c++)
            moving += redist__rx_Ps(rx, i, c) != c;
    CHECK(st.messages == moving && st.unit_moves == moving && st.relayed_units == 0 &&
              st.max_units_per_message == (moving > 0),
          "direct K=%lld P=%lld: stats", (long long)K, (long long)P);
}

static void test_indirect(const redist__rx *rx, redist__row_schedule *ind)
{
    int64_t K = rx->K, P = rx->P;
    int L = redist__rowsched_max_degree(rx);
    CHECK(L == ceil_log2(rx->Kp) + ceil_log2(rx->G), "max_degree");
    CHECK(redist__rowsched_indirect(rx, ind) == 0, "indirect K=%lld P=%lld", (long long)K,
          (long long)P);
    redist__rowsched_stats st;
    if (run_check(rx, ind, "indirect", &st) != 0)
        return;
    int64_t want = L + !final_is_identity(rx);
    CHECK(ind->nsteps == want && want <= ceil_log2(K) + 2,
          "indirect K=%lld P=%lld: %lld steps, want %lld", (long long)K, (long long)P,
          (long long)ind->nsteps, (long long)want);
    check_shift_steps(ind, L, "indirect");
    check_direct_phase(ind, L, "indirect");
    /* Corollary 2 (ii), in units: L <= ceil(log K) + 1 shifts of K P / 2, then K P. */
    CHECK(2 * st.unit_moves <= (int64_t)L * K * P + 2 * K * P &&
              2 * st.unit_moves <= (int64_t)(ceil_log2(K) + 1) * K * P + 2 * K * P,
          "indirect K=%lld P=%lld: %lld unit moves", (long long)K, (long long)P,
          (long long)st.unit_moves);
    CHECK(st.max_units_per_message <= K && st.relayed_units <= K * P, "indirect stats");
}

static long theorem3_misses, hybrid_cases;
static int64_t worst_excess, worst_K, worst_P, worst_d;

static void test_hybrid(const redist__rx *rx, int d, const redist__row_schedule *direct,
                        const redist__row_schedule *ind)
{
    int64_t K = rx->K, P = rx->P;
    int L = redist__rowsched_max_degree(rx), dd = d < L ? d : L;
    redist__row_schedule h;
    CHECK(redist__rowsched_hybrid(rx, d, &h) == 0, "hybrid K=%lld P=%lld d=%d", (long long)K,
          (long long)P, d);
    redist__rowsched_stats st;
    if (run_check(rx, &h, "hybrid", &st) == 0) {
        if (d == 0)
            CHECK(same_schedule(&h, direct), "hybrid d=0 K=%lld P=%lld is not direct", (long long)K,
                  (long long)P);
        if (d >= L && d > 0) /* K = 1 (L = 0): d = 0 is direct, one step that moves nothing */
            CHECK(same_schedule(&h, ind), "hybrid d=%d K=%lld P=%lld is not indirect", d,
                  (long long)K, (long long)P);
        if (d > 0) {
            check_shift_steps(&h, dd, "hybrid");
            check_direct_phase(&h, dd, "hybrid");
        }
        int64_t theorem = d + ceil_div(K, (int64_t)1 << (d < 62 ? d : 62));
        CHECK(h.nsteps <= (d == 0 ? K : hybrid_bound(rx, d)),
              "hybrid K=%lld P=%lld d=%d: %lld steps > bound %lld", (long long)K, (long long)P, d,
              (long long)h.nsteps, (long long)hybrid_bound(rx, d));
        if (is_pow2(rx->Kp) || is_pow2(rx->G) || d >= L)
            CHECK(h.nsteps <= theorem, "hybrid K=%lld P=%lld d=%d: %lld steps > Theorem 3 %lld",
                  (long long)K, (long long)P, d, (long long)h.nsteps, (long long)theorem);
        hybrid_cases += d > 0;
        if (h.nsteps > theorem) {
            theorem3_misses++;
            if (h.nsteps - theorem > worst_excess) {
                worst_excess = h.nsteps - theorem;
                worst_K = K;
                worst_P = P;
                worst_d = d;
            }
        }
        /* Corollary 2 (iii), in units: d' shifts of K P / 2, then K P. */
        CHECK(2 * st.unit_moves <= (int64_t)dd * K * P + 2 * K * P,
              "hybrid K=%lld P=%lld d=%d: %lld unit moves", (long long)K, (long long)P, d,
              (long long)st.unit_moves);
    }
    redist__rowsched_free(&h);
}

static void test_pair(int64_t K, int64_t P)
{
    redist__rx rx;
    if (redist__rx_init(K, P, &rx) != 0) {
        CHECK(0, "rx_init K=%lld P=%lld", (long long)K, (long long)P);
        return;
    }
    redist__row_schedule direct, ind;
    test_direct(&rx, &direct);
    test_indirect(&rx, &ind);
    int L = redist__rowsched_max_degree(&rx);
    for (int d = 0; d <= L + 1; d++)
        test_hybrid(&rx, d, &direct, &ind);
    redist__rowsched_free(&direct);
    redist__rowsched_free(&ind);
}

static int64_t steps_of(int64_t K, int64_t P, int kind, int d)
{
    redist__rx rx;
    redist__row_schedule s;
    redist__rowsched_stats st;
    redist__rx_init(K, P, &rx);
    int rc = kind == 0   ? redist__rowsched_direct(&rx, &s)
             : kind == 1 ? redist__rowsched_indirect(&rx, &s)
                         : redist__rowsched_hybrid(&rx, d, &s);
    CHECK(rc == 0 && redist__rowsched_check(&rx, &s, &st) == 0, "steps_of");
    int64_t n = s.nsteps;
    redist__rowsched_free(&s);
    return n;
}

/* R_x(6, 9), Fig. 9 and 10, step by step. */
static void test_paper_example(void)
{
    redist__rx rx;
    redist__row_schedule s;
    redist__rx_init(6, 9, &rx);
    CHECK(redist__rowsched_indirect(&rx, &s) == 0 && s.nsteps == 4, "R_x(6,9) indirect: 4 steps");
    if (s.nsteps == 4) {
        /* Fig. 9 (a): rows 3, 4, 5 shift left by one submatrix (3 columns). */
        const redist__row_step *a = &s.steps[0];
        CHECK(a->nrows == 3 && a->rows[0] == 3 && a->rows[2] == 5 && a->to[0] == 6 &&
                  a->to[3] == 0 && a->to[8] == 5,
              "R_x(6,9) indirect step 0");
        /* Fig. 9 (c), (d): in-group shifts by 1 (rows 1, 4) and by 2 (rows 2, 5). */
        const redist__row_step *b = &s.steps[1], *c = &s.steps[2];
        CHECK(b->nrows == 2 && b->rows[0] == 1 && b->rows[1] == 4 && b->to[0] == 2 && b->to[4] == 3,
              "R_x(6,9) indirect step 1");
        CHECK(c->nrows == 2 && c->rows[0] == 2 && c->rows[1] == 5 && c->to[0] == 1 && c->to[5] == 3,
              "R_x(6,9) indirect step 2");
        CHECK(s.steps[3].nrows == 6, "R_x(6,9) indirect: final permutation of all rows");
    }
    redist__rowsched_free(&s);
    /* Fig. 10: one shift, then rows {0, 3}, {1, 4}, {2, 5} move together. */
    CHECK(redist__rowsched_hybrid(&rx, 1, &s) == 0 && s.nsteps == 4, "R_x(6,9) hybrid d=1");
    for (int64_t k = 1; k < s.nsteps; k++)
        CHECK(s.steps[k].nrows == 2 && s.steps[k].rows[0] == k - 1 && s.steps[k].rows[1] == k + 2,
              "R_x(6,9) hybrid step %lld", (long long)k);
    redist__rowsched_free(&s);
    CHECK(steps_of(6, 9, 0, 0) == 6, "R_x(6,9) direct: 6 steps");
    /* [LBP96] §1's example: K = 31, P = 64 -> G = 1, 5 shifts + the final permutation. */
    CHECK(steps_of(31, 64, 1, 0) == 6, "K=31 P=64 indirect: 6 steps");
    /* Shifting the in-group bit first: K' = 3, G = 2, d = 1 leaves 3 distinct rows, not 4. */
    CHECK(steps_of(6, 8, 2, 1) == 4, "K=6 P=8 hybrid d=1: 4 steps");
    /* K' = G = 3: one step (a set of rows, one permutation) can only merge row pairs whose
       maps differ by that permutation, here a translation of the (j1, j2) grid (Eq. 12); on
       the 3 x 3 grid of rows every translation pairs at most 3 of them, so 6 distinct rows
       remain, none of them already in place (Eq. 12's label map is not a translation), and
       hybrid(1) needs 1 + 6 = 7 steps, not Theorem 3's 1 + ceil(9/2) = 6. */
    CHECK(steps_of(9, 12, 2, 1) == 7, "K=9 P=12 hybrid d=1: 7 steps");
}

static void test_errors(void)
{
    redist__rx rx;
    redist__row_schedule s;
    redist__rowsched_stats st;
    redist__rx_init(5, 3, &rx); /* K > P: outside Theorem 3 */
    CHECK(redist__rowsched_direct(&rx, &s) == REDIST_ERR_ARG && s.nsteps == 0, "K > P direct");
    CHECK(redist__rowsched_indirect(&rx, &s) == REDIST_ERR_ARG, "K > P indirect");
    CHECK(redist__rowsched_hybrid(&rx, 1, &s) == REDIST_ERR_ARG, "K > P hybrid");
    CHECK(redist__rowsched_direct(NULL, &s) == REDIST_ERR_ARG, "NULL rx");
    CHECK(redist__rowsched_max_degree(NULL) == REDIST_ERR_ARG, "NULL rx max_degree");
    redist__rx_init(6, 9, &rx);
    CHECK(redist__rowsched_hybrid(&rx, -1, &s) == REDIST_ERR_ARG, "d < 0");
    CHECK(redist__rowsched_direct(&rx, NULL) == REDIST_ERR_ARG, "NULL out");
    redist__rowsched_free(NULL);

    /* The simulator catches broken schedules. */
    CHECK(redist__rowsched_direct(&rx, &s) == 0, "direct");
    redist__row_step *st3 = &s.steps[3];
    int64_t t = st3->to[0];
    st3->to[0] = st3->to[1]; /* not a permutation */
    CHECK(redist__rowsched_check(&rx, &s, &st) == REDIST_ERR_ARG, "non-permutation");
    st3->to[0] = t;
    t = st3->to[0], st3->to[0] = st3->to[1], st3->to[1] = t; /* a permutation, wrong places */
    CHECK(redist__rowsched_check(&rx, &s, &st) == REDIST_ERR_MISMATCH, "wrong destination");
    t = st3->to[0], st3->to[0] = st3->to[1], st3->to[1] = t;
    st3->rows[0] = 6; /* row out of range */
    CHECK(redist__rowsched_check(&rx, &s, &st) == REDIST_ERR_ARG, "row out of range");
    st3->rows[0] = 3;
    s.nsteps--; /* row 5 never moves */
    CHECK(redist__rowsched_check(&rx, &s, &st) == REDIST_ERR_MISMATCH, "missing step");
    s.nsteps++;
    CHECK(redist__rowsched_check(&rx, &s, &st) == 0, "restored");
    redist__rowsched_free(&s);
    CHECK(s.nsteps == 0 && s.steps == NULL, "free empties");
    CHECK(redist__rowsched_indirect(&rx, &s) == 0 && s.steps[1].nrows == 2, "indirect");
    s.steps[1].rows[1] = s.steps[1].rows[0]; /* a row twice in one step */
    CHECK(redist__rowsched_check(&rx, &s, &st) == REDIST_ERR_ARG, "duplicate row");
    redist__rowsched_free(&s);
}

/* The closed-form step counts (redist__rowsched_indirect_steps / _hybrid_steps, which build
   nothing) equal the nsteps of the schedules the builders make, for every 1 <= K <= P <= 64
   and d = 0 .. max_degree + 2 (d past max_degree is clamped to it). */
static void test_closed_form_steps(void)
{
    clock_t t0 = clock();
    long compared = 0;
    for (int64_t P = 1; P <= 64; P++)
        for (int64_t K = 1; K <= P; K++) {
            redist__rx rx;
            if (redist__rx_init(K, P, &rx) != 0) {
                CHECK(0, "rx_init K=%lld P=%lld", (long long)K, (long long)P);
                continue;
            }
            redist__row_schedule s;
            int closed = redist__rowsched_indirect_steps(&rx);
            if (redist__rowsched_indirect(&rx, &s) == 0) {
                CHECK(closed == s.nsteps, "K=%lld P=%lld: indirect_steps %d, schedule %lld",
                      (long long)K, (long long)P, closed, (long long)s.nsteps);
                redist__rowsched_free(&s);
                compared++;
            } else
                CHECK(0, "indirect K=%lld P=%lld", (long long)K, (long long)P);
            int L = redist__rowsched_max_degree(&rx);
            for (int d = 0; d <= L + 2; d++) {
                closed = redist__rowsched_hybrid_steps(&rx, d);
                if (redist__rowsched_hybrid(&rx, d, &s) != 0) {
                    CHECK(0, "hybrid K=%lld P=%lld d=%d", (long long)K, (long long)P, d);
                    continue;
                }
                CHECK(closed == s.nsteps, "K=%lld P=%lld d=%d: hybrid_steps %d, schedule %lld",
                      (long long)K, (long long)P, d, closed, (long long)s.nsteps);
                redist__rowsched_free(&s);
                compared++;
            }
        }
    /* Bad arguments: -1, as the header says. */
    redist__rx rx;
    redist__rx_init(5, 3, &rx); /* K > P */
    CHECK(redist__rowsched_indirect_steps(&rx) == -1, "indirect_steps K > P");
    CHECK(redist__rowsched_hybrid_steps(&rx, 1) == -1, "hybrid_steps K > P");
    CHECK(redist__rowsched_indirect_steps(NULL) == -1, "indirect_steps NULL");
    redist__rx_init(6, 9, &rx);
    CHECK(redist__rowsched_hybrid_steps(&rx, -1) == -1, "hybrid_steps d < 0");
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    printf(
        "closed-form step counts equal the schedules' in %ld cases (K <= P <= 64, d <= L + 2); %.2f s\n",
        compared, secs);
}

static void print_table(void)
{
    static const int64_t pairs[][2] = {{1, 8},   {2, 2},     {6, 9},     {6, 8},
                                       {8, 64},  {9, 12},    {12, 64},   {31, 64},
                                       {64, 64}, {100, 256}, {128, 256}, {255, 256}};
    printf("   K    P   G  K' direct indirect  hybrid d=1..max (Theorem 3: d + ceil(K/2^d))\n");
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        int64_t K = pairs[p][0], P = pairs[p][1];
        redist__rx rx;
        redist__rx_init(K, P, &rx);
        int L = redist__rowsched_max_degree(&rx);
        printf("%4lld %4lld %3lld %3lld %6lld %8lld  ", (long long)K, (long long)P, (long long)rx.G,
               (long long)rx.Kp, (long long)steps_of(K, P, 0, 0), (long long)steps_of(K, P, 1, 0));
        for (int d = 1; d <= L; d++)
            printf(" %lld(%lld)", (long long)steps_of(K, P, 2, d),
                   (long long)(d + ceil_div(K, (int64_t)1 << d)));
        printf("\n");
    }
}

/* --quick (scripts/valgrind.sh): every P up to 24 and one large P only. */
int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    clock_t t0 = clock();
    test_paper_example();
    test_errors();
    test_closed_form_steps();
    long pairs = 0;
    for (int64_t P = 1; P <= (quick ? 24 : 64); P++)
        for (int64_t K = 1; K <= P; K++, pairs++)
            test_pair(K, P);
    static const int64_t big[] = {96, 128, 255, 256};
    for (size_t b = 0; b < (quick ? 1 : sizeof big / sizeof big[0]); b++)
        for (int64_t K = 1; K <= big[b]; K++, pairs++)
            test_pair(K, big[b]);
    print_table();
    printf(
        "%ld (K, P) pairs; hybrid (d >= 1) over Theorem 3 (iii)'s d + ceil(K/2^d) in %ld of %ld cases (K' and G not powers of two), worst +%lld at K=%lld P=%lld d=%lld; "
        "%.2f s\n",
        pairs, theorem3_misses, hybrid_cases, (long long)worst_excess, (long long)worst_K,
        (long long)worst_P, (long long)worst_d, (double)(clock() - t0) / CLOCKS_PER_SEC);
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
