/* Serial simulation of [Cor97]'s distributed BMMC algorithm (src/bmmc/factor.h).
 *
 * [Cor97]: Cormen, "Performing BMMC Permutations Efficiently on Distributed-Memory
 * Multiprocessors with MPI" (docs/references.md). For n = 0..14 (and a few n up to 20),
 * p = 0..min(n, 4), every f = 0..n-p, random nonsingular A (dense, sparse, with λ of every
 * rank) with random complements, and the standard permutations of Appendix C:
 *   - the factors: A' = Q A Q^-1, c' = Q c (§6); T, R, S have the trailer, reducer (with the
 *     dependency restriction) and swapper forms of §3; V = A' T R S has the form of eq. (3);
 *     W = (T R S)^-1 is intraprocessor; A' = V W (§4);
 *   - Lemma 3: every processor's elements go to exactly 2^rank(λ) processors, N/(2^rank P)
 *     each, and those are target(k, b) for the rounds b;
 *   - the simulation: each processor's local array holds the global index x (the layout
 *     rule of redist_plan_create_bmmc, redist.h); intra on every processor, then per round
 *     every processor's round slice goes to target(k, b) exactly as MPI_Sendrecv_replace
 *     would deliver it (k gets the slice of source(k, b)), then place; every output element
 *     is checked (out[local(y)] on proc(y) holds x for y = A x xor c); each round is a
 *     permutation of the processors, one message per processor per round, and a processor
 *     talks to itself in at most one round;
 *   - the formulas alone (no arrays) for n up to 64;
 *   - argument errors of redist__bmmc_plan_init.
 */
#include "bmmc/factor.h"
#include "redist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

static uint64_t rng_state = 0x243f6a8885a308d3u;
static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t low(int bits)
{
    return redist__gf2_low(bits);
}

static long cases, partial_rank, self_not_first, self_rounds_seen;

/* ---- random permutations ------------------------------------------------------------------ */
static void random_nonsingular(int n, uint64_t a[])
{
    do {
        for (int j = 0; j < n; j++)
            a[j] = rnd() & low(n);
    } while (!redist__gf2_is_nonsingular(n, a));
}

static void random_column_ops(int n, uint64_t a[])
{
    redist__gf2_identity(n, a);
    for (int s = 0; n > 1 && s < 3 * n; s++) {
        int i = (int)(rnd() % (uint64_t)n), j = (int)(rnd() % (uint64_t)n);
        if (i != j)
            a[j] ^= a[i];
    }
}

/* Processor-major A' = [[K, K M], [L K, L K M + D]] = [[I, 0], [L, I]] [[K, 0], [0, D]]
   [[I, M], [0, I]] with L of rank <= r, K and D nonsingular, then back to layout f:
   A = Q^-1 A' Q. So λ = L K has rank rank(L). */
static void random_with_lambda_rank(int n, int p, int f, int r, uint64_t a[])
{
    int m = n - p;
    uint64_t k[64], d[64], l[64], lo[64], hi[64], x[64], y[64], z[64], pm[64], q[64], qi[64];
    random_column_ops(m, k);
    random_nonsingular(p, d);
    for (int j = 0; j < r; j++)
        lo[j] = rnd() & low(p);
    for (int j = 0; j < m; j++)
        hi[j] = rnd() & low(r);
    redist__gf2_mul(r, lo, m, hi, l); /* p x m, rank <= r */
    redist__gf2_identity(n, x);       /* [[I, 0], [L, I]] */
    for (int j = 0; j < m; j++)
        x[j] |= l[j] << m;
    for (int j = 0; j < n; j++) /* block diagonal [[K, 0], [0, D]] */
        y[j] = j < m ? k[j] : d[j - m] << m;
    redist__gf2_identity(n, z); /* [[I, M], [0, I]] */
    for (int j = m; j < n; j++)
        z[j] |= rnd() & low(m);
    redist__gf2_mul(n, y, n, z, pm);
    redist__gf2_mul(n, x, n, pm, pm);
    redist__gf2_layout_q(n, p, f, q);
    redist__gf2_layout_q_inverse(n, p, f, qi);
    redist__gf2_mul(n, pm, n, q, x); /* out may alias b, not a */
    redist__gf2_mul(n, qi, n, x, a);
}

/* A random bit permutation (BPC). */
static void random_bpc(int n, uint64_t a[])
{
    int perm[64];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int j = 0; j < n; j++)
        a[j] = (uint64_t)1 << perm[j];
}

/* ---- layout rule (redist_plan_create_bmmc's, redist.h) ----------------------------------- */
static uint64_t proc_of(int p, int f, uint64_t x)
{
    return (x >> f) & low(p);
}

static uint64_t offset_of(int p, int f, uint64_t x)
{
    return (x & low(f)) | (f + p >= 64 ? 0 : (x >> (f + p)) << f);
}

/* ---- checks on the factors ---------------------------------------------------------------- */
static int equal(int n, const uint64_t a[], const uint64_t b[])
{
    return n == 0 || memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

static void check_forms(const redist__bmmc_plan *b, const uint64_t a[], uint64_t c)
{
    int n = b->n, p = b->p, m = b->m;
    uint64_t q[64], qi[64], t1[64], t2[64], vw[64];
    if (n > 64)
        return;
    redist__gf2_layout_q(n, p, b->f, q);
    redist__gf2_layout_q_inverse(n, p, b->f, qi);
    redist__gf2_mul(n, a, n, qi, t1);
    redist__gf2_mul(n, q, n, t1, t2);
    CHECK(equal(n, t2, b->a), "A' != Q A Q^-1 (n=%d p=%d f=%d)", n, p, b->f);
    CHECK(b->c == redist__gf2_mul_vec(n, q, c), "c' != Q c");
    redist__gf2_mul(n, b->v, n, b->w, vw);
    CHECK(equal(n, vw, b->a), "A' != V W (n=%d p=%d f=%d)", n, p, b->f);
    for (int j = 0; j < n; j++) {
        uint64_t e = (uint64_t)1 << j, lo_m = low(m);
        if (j < m) {
            CHECK(b->t[j] == e, "trailer: left column %d not identity", j);
            CHECK((b->r[j] & ~lo_m) == 0 && (b->r[j] & e), "reducer column %d", j);
            CHECK(redist__gf2_popcount(b->s[j]) == 1 && (b->s[j] & ~lo_m) == 0, "swapper %d", j);
            CHECK((b->w[j] & ~lo_m) == 0, "W column %d leaves the processor", j);
        } else {
            CHECK((b->t[j] & ~lo_m) == (e & ~lo_m), "trailer: right column %d bottom", j);
            CHECK(b->r[j] == e && b->s[j] == e, "reducer/swapper right column %d", j);
            CHECK((b->w[j] & ~lo_m) == e, "W bottom rows not [0 I] (column %d)", j);
        }
    }
    /* Dependency restriction of R: a column added into others is not added into. */
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++)
            if (i != j && (b->r[j] >> i & 1))
                CHECK(b->r[i] == (uint64_t)1 << i, "reducer dependency restriction");
    uint64_t perm = 0;
    for (int j = 0; j < m; j++)
        perm |= b->s[j];
    CHECK(perm == low(m), "swapper is not a permutation");
    /* Eq. (3): V's lower left is [0 | λ''] with λ'' of full column rank, δ̂ nonsingular. */
    uint64_t lambda_a[64], lambda_v[64];
    redist__gf2_submatrix(b->a, m, p, 0, m, lambda_a);
    CHECK(b->rank == redist__gf2_rank(m, lambda_a), "rank != rank(λ)");
    redist__gf2_submatrix(b->v, m, p, 0, m, lambda_v);
    for (int j = 0; j < m - b->rank; j++)
        CHECK(lambda_v[j] == 0, "V lower left column %d not 0", j);
    CHECK(redist__gf2_rank(b->rank, b->lambda) == b->rank, "λ'' not of full rank");
    CHECK(redist__gf2_is_nonsingular(p, b->delta), "δ̂ singular");
    CHECK(redist__bmmc_rounds(b) == (int64_t)1 << b->rank, "rounds");
    CHECK(redist__bmmc_round_count(b) * redist__bmmc_rounds(b) == redist__bmmc_local_count(b),
          "round counts");
}

/* Lemma 3, by brute force on the user's A: the targets of processor k's elements. */
static void check_lemma3(const redist__bmmc_plan *b, const uint64_t a[], uint64_t c, int64_t *cnt)
{
    int n = b->n, p = b->p, f = b->f;
    uint64_t P = (uint64_t)1 << p, N = (uint64_t)1 << n;
    int64_t rounds = redist__bmmc_rounds(b), per = redist__bmmc_round_count(b);
    for (uint64_t k = 0; k < P; k++) {
        memset(cnt, 0, P * sizeof *cnt);
        for (uint64_t x = 0; x < N; x++)
            if (proc_of(p, f, x) == k)
                cnt[proc_of(p, f, redist__gf2_mul_vec(n, a, x) ^ c)]++;
        int64_t targets = 0;
        for (uint64_t l = 0; l < P; l++)
            if (cnt[l]) {
                targets++;
                CHECK(cnt[l] == per, "Lemma 3: %lld elements to one target, not %lld",
                      (long long)cnt[l], (long long)per);
            }
        CHECK(targets == rounds, "Lemma 3: %lld targets, not 2^rank = %lld", (long long)targets,
              (long long)rounds);
        for (int64_t r = 0; r < rounds; r++)
            CHECK(cnt[redist__bmmc_target(b, k, r)] == per, "target(k, b) is not a target");
    }
}

/* ---- the simulation ------------------------------------------------------------------------ */
typedef struct arrays {
    uint64_t *data, *temp, *out, *stage;
    int64_t *cnt;
} arrays;

/* Rounds of §5: every processor sends slice r of its temp to target(k, r); as with
   MPI_Sendrecv_replace, k's slice r is overwritten by the slice r of source(k, r). */
/* The local passes split into 1, 2, 3, 5 or 7 parts in turn (a plan's threads). */
static int parts_next(void)
{
    static const int counts[] = {1, 2, 3, 5, 7};
    static unsigned next;
    return counts[next++ % 5];
}

static void exchange_and_place(const redist__bmmc_plan *b, arrays *w)
{
    uint64_t P = (uint64_t)1 << b->p;
    int64_t L = redist__bmmc_local_count(b), per = redist__bmmc_round_count(b);
    int64_t rounds = redist__bmmc_rounds(b);
    for (uint64_t k = 0; k < P; k++) {
        int64_t self = redist__bmmc_self_round(b, k), selfs = 0;
        for (int64_t r = 0; r < rounds; r++)
            selfs += redist__bmmc_target(b, k, r) == k;
        CHECK(selfs <= 1, "k sends to itself in %lld rounds", (long long)selfs);
        CHECK(selfs ? redist__bmmc_target(b, k, self) == k : self == -1, "self_round");
        self_rounds_seen += selfs;
        self_not_first += selfs && self != 0;
    }
    for (int64_t r = 0; r < rounds; r++) {
        memset(w->cnt, 0, P * sizeof *w->cnt);
        for (uint64_t k = 0; k < P; k++) {
            uint64_t to = redist__bmmc_target(b, k, r), from = redist__bmmc_source(b, k, r);
            CHECK(to < P && from < P, "processor out of range");
            CHECK(redist__bmmc_source(b, to, r) == k, "source(target(k, b), b) != k");
            CHECK(redist__bmmc_target(b, from, r) == k, "target(source(k, b), b) != k");
            CHECK((to == k) == (from == k), "self send without self receive");
            w->cnt[to]++;
            memcpy(w->stage + to * per, w->temp + k * L + r * per, (size_t)per * 8);
        }
        for (uint64_t l = 0; l < P; l++)
            CHECK(w->cnt[l] == 1, "round %lld: processor receives %lld messages", (long long)r,
                  (long long)w->cnt[l]);
        for (uint64_t k = 0; k < P; k++) {
            uint64_t *slice = w->temp + k * L + r * per;
            memcpy(slice, w->stage + k * per, (size_t)per * 8);
            int n = parts_next(); /* threads' parts, in reverse order: the same result */
            for (int t = n - 1; t >= 0; t--)
                redist__bmmc_place(b, k, r, redist__bmmc_source(b, k, r), slice, w->out + k * L, 8,
                                   t, n);
        }
    }
}

static void simulate(int n, int p, int f, const uint64_t a[], uint64_t c, arrays *w)
{
    redist__bmmc_plan b;
    int err = redist__bmmc_plan_init(n, p, f, a, c, &b);
    CHECK(err == REDIST_SUCCESS, "plan_init n=%d p=%d f=%d: %d %s", n, p, f, err,
          redist_last_error_detail());
    if (err != REDIST_SUCCESS)
        return;
    cases++;
    partial_rank += b.rank > 0 && b.rank < (p < b.m ? p : b.m);
    check_forms(&b, a, c);
    if (n <= 12)
        check_lemma3(&b, a, c, w->cnt);
    uint64_t P = (uint64_t)1 << p, N = (uint64_t)1 << n;
    int64_t L = redist__bmmc_local_count(&b);
    for (uint64_t x = 0; x < N; x++)
        w->data[proc_of(p, f, x) * L + offset_of(p, f, x)] = x;
    memset(w->out, 0xff, N * 8);
    for (uint64_t k = 0; k < P; k++) {
        int nparts = parts_next();
        for (int t = nparts - 1; t >= 0; t--)
            redist__bmmc_intra(&b, k, w->data + k * L, w->temp + k * L, 8, t, nparts);
    }
    /* After the intra pass, temp[t] on k holds x with W (Q x) = (t, k). */
    uint64_t q[64];
    redist__gf2_layout_q(n, p, f, q);
    for (uint64_t k = 0; k < P; k++)
        for (int64_t t = 0; t < L; t++) {
            uint64_t xp =
                redist__gf2_mul_vec(n, b.w, redist__gf2_mul_vec(n, q, w->temp[k * L + t]));
            CHECK(xp == ((k << b.m) | (uint64_t)t), "intra: wrong element at %lld", (long long)t);
        }
    exchange_and_place(&b, w);
    long bad = 0;
    for (uint64_t x = 0; x < N; x++) {
        uint64_t y = redist__gf2_mul_vec(n, a, x) ^ c;
        bad += w->out[proc_of(p, f, y) * L + offset_of(p, f, y)] != x;
    }
    CHECK(bad == 0, "n=%d p=%d f=%d rank=%d: %ld elements misplaced", n, p, f, b.rank, bad);
}

/* The standard permutations of Appendix C and §6 with random complements. */
static void standard(int n, int p, int f, arrays *w)
{
    uint64_t a[64], c = rnd() & low(n);
    redist__gf2_identity(n, a);
    simulate(n, p, f, a, 0, w);
    simulate(n, p, f, a, low(n), w); /* vector reversal */
    simulate(n, p, f, a, c, w);
    redist__gf2_bit_reversal(n, a);
    simulate(n, p, f, a, 0, w);
    simulate(n, p, f, a, c, w);
    redist__gf2_gray(n, a);
    simulate(n, p, f, a, c, w);
    redist__gf2_gray_inverse(n, a);
    simulate(n, p, f, a, 0, w);
    for (int k = -1; k <= 1; k += 2) {
        redist__gf2_rotate(n, k, a);
        simulate(n, p, f, a, 0, w);
    }
    for (int ra = 0; ra <= n; ra += (n > 8 ? 3 : 1)) {
        redist__gf2_transpose(ra, n - ra, a);
        simulate(n, p, f, a, 0, w);
    }
    for (int f2 = 0; f2 <= n - p; f2++) { /* layout f -> f2 */
        uint64_t q2[64], qi[64], cc;
        redist__gf2_layout_q(n, p, f2, q2);
        redist__gf2_layout_q_inverse(n, p, f, qi);
        redist__gf2_compose(n, q2, 0, qi, 0, a, &cc);
        simulate(n, p, f, a, cc, w);
    }
}

static void randoms(int n, int p, int f, int count, arrays *w)
{
    uint64_t a[64];
    for (int t = 0; t < count; t++) {
        uint64_t c = t % 3 ? rnd() & low(n) : 0;
        switch (t % 4) {
        case 0:
            random_nonsingular(n, a);
            break;
        case 1:
            random_column_ops(n, a);
            break;
        case 2:
            random_bpc(n, a);
            break;
        default: {
            int maxr = p < n - p ? p : n - p;
            random_with_lambda_rank(n, p, f, (int)(rnd() % (uint64_t)(maxr + 1)), a);
        }
        }
        simulate(n, p, f, a, c, w);
    }
}

/* The formulas alone (no arrays), any n <= 64: follow random elements x through W, the round
   and the placement, against Q (A x xor c). */
static void formulas(int n, int p, int f, const uint64_t a[], uint64_t c)
{
    redist__bmmc_plan b;
    int err = redist__bmmc_plan_init(n, p, f, a, c, &b);
    CHECK(err == REDIST_SUCCESS, "plan_init n=%d: %s", n, redist_last_error_detail());
    if (err != REDIST_SUCCESS)
        return;
    check_forms(&b, a, c);
    uint64_t q[64];
    redist__gf2_layout_q(n, p, f, q);
    int free_bits = b.m - b.rank;
    for (int t = 0; t < 200; t++) {
        uint64_t x = rnd() & low(n), s = redist__gf2_mul_vec(n, q, x);
        uint64_t k = (s >> b.m) & low(p), xp = redist__gf2_mul_vec(n, b.w, s);
        CHECK(xp >> b.m == k, "W moved x off its processor");
        uint64_t lo = xp & low(b.m);
        int64_t r = (int64_t)(lo >> free_bits);
        uint64_t j = lo & low(free_bits), to = redist__bmmc_target(&b, k, r);
        uint64_t y = redist__gf2_mul_vec(n, q, redist__gf2_mul_vec(n, a, x) ^ c);
        CHECK(to == (y >> b.m & low(p)), "n=%d: eq. (4) sends x to the wrong processor", n);
        CHECK(redist__bmmc_source(&b, to, r) == k, "n=%d: eq. (5)", n);
        uint64_t off =
            redist__gf2_mul_vec(b.m, b.kappa, lo) ^ redist__gf2_mul_vec(p, b.mu, k) ^ b.c_lo;
        CHECK(off == (y & low(b.m)), "n=%d: eq. (3) offset", n);
        (void)j;
    }
}

static void test_errors(void)
{
    uint64_t a[64];
    redist__bmmc_plan b;
    redist__gf2_identity(64, a);
    CHECK(redist__bmmc_plan_init(65, 0, 0, a, 0, &b) == REDIST_ERR_ARG, "n = 65");
    CHECK(redist__bmmc_plan_init(-1, 0, 0, a, 0, &b) == REDIST_ERR_ARG, "n = -1");
    CHECK(redist__bmmc_plan_init(4, 5, 0, a, 0, &b) == REDIST_ERR_ARG, "p > n");
    CHECK(redist__bmmc_plan_init(4, -1, 0, a, 0, &b) == REDIST_ERR_ARG, "p < 0");
    CHECK(redist__bmmc_plan_init(6, 2, 5, a, 0, &b) == REDIST_ERR_ARG, "f > n - p");
    CHECK(redist__bmmc_plan_init(6, 2, -1, a, 0, &b) == REDIST_ERR_ARG, "f < 0");
    CHECK(redist__bmmc_plan_init(64, 1, 0, a, 0, &b) == REDIST_ERR_ARG, "n - p = 63");
    CHECK(redist__bmmc_plan_init(64, 2, 0, a, 0, &b) == REDIST_SUCCESS, "n = 64, p = 2");
    CHECK(redist__bmmc_plan_init(6, 2, 0, NULL, 0, &b) == REDIST_ERR_ARG, "NULL columns");
    CHECK(redist__bmmc_plan_init(6, 2, 0, a, 64, &b) == REDIST_ERR_ARG, "complement bit 6");
    CHECK(redist__bmmc_plan_init(6, 2, 0, a, 0, NULL) == REDIST_ERR_ARG, "NULL out");
    CHECK(redist__bmmc_plan_init(0, 0, 0, NULL, 0, &b) == REDIST_SUCCESS, "n = 0");
    a[3] = a[1];
    CHECK(redist__bmmc_plan_init(6, 2, 0, a, 0, &b) == REDIST_ERR_ARG, "singular");
    a[3] = (uint64_t)1 << 7;
    CHECK(redist__bmmc_plan_init(6, 2, 0, a, 0, &b) == REDIST_ERR_ARG, "stray bit");
    a[3] = 0;
    CHECK(redist__bmmc_plan_init(20, 3, 4, a, 0, &b) == REDIST_ERR_ARG, "zero column");
}

/* --quick (scripts/valgrind.sh): n up to 12 and one large n (16). */
int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int max_n = quick ? 16 : 20;
    size_t N = (size_t)1 << max_n;
    arrays w = {malloc(N * 8), malloc(N * 8), malloc(N * 8), malloc(N * 8), malloc(64 * 8)};
    int64_t *cnt = malloc(((size_t)1 << 12) * sizeof *cnt);
    if (!w.data || !w.temp || !w.out || !w.stage || !w.cnt || !cnt) {
        printf(" Found 1 errors\n");
        return 1;
    }
    free(w.cnt);
    w.cnt = cnt;
    test_errors();
    for (int n = 0; n <= (quick ? 12 : 14); n++) {
        for (int p = 0; p <= (n < 4 ? n : 4); p++) {
            for (int f = 0; f <= n - p; f++) {
                standard(n, p, f, &w);
                randoms(n, p, f, n <= 10 ? 24 : 8, &w);
            }
        }
    }
    for (int n = 16; n <= max_n; n += 2) { /* a few large ones */
        int p = n == 16 ? 6 : 4;
        int fs[3] = {0, (n - p) / 2, n - p};
        for (int i = 0; i < 3; i++)
            randoms(n, p, fs[i], 4, &w);
    }
    for (int n = 20; n <= 64; n += 11) {
        uint64_t a[64];
        for (int p = 2; p <= 8; p += 3) {
            for (int t = 0; t < 4; t++) {
                int f = (int)(rnd() % (uint64_t)(n - p + 1));
                if (t % 2)
                    random_nonsingular(n, a);
                else
                    random_with_lambda_rank(n, p, f, t, a);
                formulas(n, p, f, a, rnd() & low(n));
            }
        }
    }
    printf(
        "%ld cases (%ld with 0 < rank(λ) < min(p, n-p)); %ld processors with a self round, %ld of them not in round 0\n",
        cases, partial_rank, self_rounds_seen, self_not_first);
    CHECK(partial_rank > 1000, "too few cases with a partial rank(λ)");
    free(w.data), free(w.temp), free(w.out), free(w.stage), free(cnt);
    if (failures) {
        printf(" Found %ld errors\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
