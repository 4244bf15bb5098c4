/* nprocs: 1 2 4 8 */
/* threads: 1 4 */
/* BMMC permutations through MPI ([Cor97]): random nonsingular matrices and complements,
 * the standard permutations, every layout f, each communication method; every element is
 * checked against y = A x xor c (redist_bmmc_apply); messages per rank are 2^rank less the
 * self round. Then block-cyclic cyclic(2^a) -> cyclic(2^b) through the "bmmc" algorithm of
 * redist_plan_create (a bit permutation), element by element. */
#include <redist.h>

#include "support/mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A random nonsingular n x n matrix: the identity under random column additions and swaps. */
static void random_matrix(int n, uint64_t a[])
{
    redist_bmmc_identity(n, a);
    for (int k = 0; k < 4 * n; k++) {
        int i = (int)(next() % (uint64_t)n), j = (int)(next() % (uint64_t)n);
        if (i == j)
            continue;
        if (next() % 3 == 0) {
            uint64_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        } else {
            a[i] ^= a[j];
        }
    }
}

/* Global index of local offset l on rank r in layout f (redist_plan_create_bmmc's rule). */
static uint64_t global_of(uint64_t l, uint64_t r, int f, int p)
{
    uint64_t low = l & (((uint64_t)1 << f) - 1), high = l >> f;
    return low | (r << f) | (high << (f + p));
}

/* Rank over GF(2) of vectors (Gaussian elimination), independent of the library. */
static int gf2_rank(uint64_t v[], int count)
{
    int rank = 0;
    for (int bit = 0; bit < 64; bit++) {
        int pivot = -1;
        for (int i = rank; i < count; i++)
            if (v[i] >> bit & 1) {
                pivot = i;
                break;
            }
        if (pivot < 0)
            continue;
        uint64_t t = v[pivot];
        v[pivot] = v[rank];
        v[rank] = t;
        for (int i = 0; i < count; i++)
            if (i != rank && (v[i] >> bit & 1))
                v[i] ^= v[rank];
        rank++;
    }
    return rank;
}

/* Lemma 3: the rounds are 2^rank(lambda), lambda the lower-left p x (n-p) submatrix of the
   processor-major matrix Q A Q^-1 ([Cor97] §6). */
static int expected_rounds(int n, int f, int p, const uint64_t a[])
{
    uint64_t q[64], qi[64], t[64], ap[64], lambda[64], c = 0;
    redist_bmmc_layout(n, p, f, q);
    redist_bmmc_layout_inverse(n, p, f, qi);
    redist_bmmc_compose(n, qi, 0, a, 0, t, &c); /* first Q^-1, then A */
    redist_bmmc_compose(n, t, 0, q, 0, ap, &c); /* then Q */
    int m = n - p;
    for (int j = 0; j < m; j++)
        lambda[j] = ap[j] >> m;
    return 1 << gf2_rank(lambda, m);
}

static void run(int n, int f, const uint64_t a[], uint64_t c, int method, int rank, int p,
                const char *what)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.bmmc_method = method;
    redist_plan plan = NULL;
    int rc = redist_plan_create_bmmc(n, f, a, c, MPI_INT64_T, MPI_COMM_WORLD, &opt, &plan);
    if (rc != REDIST_SUCCESS) {
        errs++;
        printf("[%d] %s n=%d f=%d: plan %s (%s)\n", rank, what, n, f, redist_strerror(rc),
               redist_last_error_detail());
        return;
    }
    uint64_t local = (uint64_t)1 << (n - p);
    int64_t *src = malloc(local * sizeof *src), *dst = malloc(local * sizeof *dst);
    for (uint64_t l = 0; l < local; l++) {
        src[l] = (int64_t)global_of(l, (uint64_t)rank, f, p);
        dst[l] = -1;
    }
    static int runs;
    if (runs++ % 2) { /* alternate runs through start + test: the rounds must run once */
        rc = redist_start(plan, src, dst);
        int done = 0;
        while (rc == REDIST_SUCCESS && !done)
            rc = redist_test(plan, &done);
    } else {
        rc = redist_execute(plan, src, dst);
    }
    /* The element now at global index y came from x with A x xor c = y: check by inverting. */
    uint64_t inv[64], cinv = 0;
    redist_bmmc_inverse(n, a, c, inv, &cinv);
    int64_t bad = 0;
    for (uint64_t l = 0; l < local; l++) {
        uint64_t y = global_of(l, (uint64_t)rank, f, p);
        bad += dst[l] != (int64_t)redist_bmmc_apply(n, inv, cinv, y);
    }
    redist_stats st;
    redist_plan_stats(plan, &st);
    if (rc != REDIST_SUCCESS || bad) {
        errs++;
        printf("[%d] %s n=%d f=%d method=%d: rc %d, %lld wrong\n", rank, what, n, f, method, rc,
               (long long)bad);
    }
    if (st.steps != expected_rounds(n, f, p, a)) {
        errs++;
        printf("[%d] %s n=%d f=%d: %d rounds, Lemma 3 says %d\n", rank, what, n, f, st.steps,
               expected_rounds(n, f, p, a));
    }
    if (st.messages_sent != st.steps && st.messages_sent != st.steps - 1) {
        errs++;
        printf("[%d] %s: %lld messages for %d rounds (Lemma 3: one per round but the self round)\n",
               rank, what, (long long)st.messages_sent, st.steps);
    }
    free(src);
    free(dst);
    redist_plan_free(&plan);
}

static void block_cyclic(int n, int a, int b, int rank, int P)
{
    int64_t N = (int64_t)1 << n, x = (int64_t)1 << a, y = (int64_t)1 << b;
    redist_layout src = NULL, dst = NULL;
    redist_layout_create(1, &N, &x, &P, NULL, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, &N, &y, &P, NULL, NULL, REDIST_ROW_MAJOR, &dst);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &nd);
    int64_t *s = malloc((size_t)(ns + 1) * sizeof *s), *d = malloc((size_t)(nd + 1) * sizeof *d);
    for (int64_t l = 0; l < ns; l++)
        s[l] = (l / x) * x * P + rank * x + l % x;
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = "bmmc";
    redist_plan plan = NULL;
    int rc = redist_plan_create(src, dst, MPI_INT64_T, MPI_COMM_WORLD, &opt, &plan);
    int applies = x * P <= N && y * P <= N;
    if (rc == REDIST_SUCCESS) {
        rc = redist_execute(plan, s, d);
        int64_t bad = 0;
        for (int64_t l = 0; l < nd; l++)
            bad += d[l] != (l / y) * y * P + rank * y + l % y;
        if (rc != REDIST_SUCCESS || bad) {
            errs++;
            printf("[%d] bmmc cyclic(%lld) -> cyclic(%lld) of %lld: rc %d, %lld wrong\n", rank,
                   (long long)x, (long long)y, (long long)N, rc, (long long)bad);
        }
    } else if (applies || rc != REDIST_ERR_NOT_APPLICABLE) {
        errs++;
        printf("[%d] bmmc cyclic(%lld) -> cyclic(%lld): plan %d\n", rank, (long long)x,
               (long long)y, rc);
    }
    redist_plan_free(&plan);
    free(s);
    free(d);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P, p = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    while ((1 << p) < P)
        p++;
    uint64_t a[64];
    for (int n = p; n <= 14; n += (n < 8 ? 1 : 3)) {
        for (int f = 0; f <= n - p; f++) {
            for (int t = 0; t < 3; t++) {
                random_matrix(n, a);
                uint64_t c = n ? next() & (((uint64_t)1 << n) - 1) : 0;
                run(n, f, a, c, t, rank, p, "random");
            }
            if (n > 0) {
                redist_bmmc_bit_reversal(n, a);
                run(n, f, a, 0, 0, rank, p, "bit reversal");
                redist_bmmc_gray(n, a);
                run(n, f, a, 1, 0, rank, p, "gray");
            }
            if (n >= 2) {
                redist_bmmc_transpose(n / 2, n - n / 2, a);
                run(n, f, a, 0, 0, rank, p, "transpose");
            }
        }
    }
    random_matrix(20, a);
    run(20, 20 - p, a, 5, 0, rank, p, "n = 20");
    for (int a2 = 0; a2 <= 4; a2++)
        for (int b2 = 0; b2 <= 4; b2++)
            block_cyclic(9, a2, b2, rank, P);
    return mtest_finalize(errs);
}
