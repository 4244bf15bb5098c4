/* Factoring a BMMC permutation ([Cor97] §3, §4, §6) and the pure parts of performing it
 * (§5, Appendix B). See factor.h for the executor's loop. No MPI. */
#include "bmmc/factor.h"

#include "index/index.h"

#include <string.h>

static int check_args(int n, int p, int f, const uint64_t columns[], uint64_t complement)
{
    const char *fn = "redist__bmmc_plan_init";
    if (n < 0 || n > REDIST__GF2_MAX)
        return redist__fail(REDIST_ERR_ARG, "%s: n = %d must be in 0..64", fn, n);
    if (p < 0 || p > n)
        return redist__fail(REDIST_ERR_ARG, "%s: p = %d must be in 0..n = %d (N >= P)", fn, p, n);
    if (f < 0 || f > n - p)
        return redist__fail(REDIST_ERR_ARG, "%s: f = %d must be in 0..n-p = %d", fn, f, n - p);
    if (n - p > 62)
        return redist__fail(REDIST_ERR_ARG, "%s: n - p = %d > 62: N/P does not fit int64_t", fn,
                            n - p);
    if (n > 0 && !columns)
        return redist__fail(REDIST_ERR_ARG, "%s: columns is NULL", fn);
    for (int j = 0; j < n; j++) {
        if (columns[j] & ~redist__gf2_low(n))
            return redist__fail(REDIST_ERR_ARG, "%s: column %d has bits at or above row n = %d", fn,
                                j, n);
    }
    if (complement & ~redist__gf2_low(n))
        return redist__fail(REDIST_ERR_ARG, "%s: complement has bits at or above bit n = %d", fn,
                            n);
    if (!redist__gf2_is_nonsingular(n, columns))
        return redist__fail(REDIST_ERR_ARG, "%s: the matrix is singular over GF(2)", fn);
    return REDIST_SUCCESS;
}

/* §6: A' = Q A Q^-1, c' = Q c (Q: actual global index -> processor-major index). */
static void to_processor_major(redist__bmmc_plan *b, const uint64_t columns[], uint64_t c)
{
    uint64_t q[REDIST__GF2_MAX], qinv[REDIST__GF2_MAX], aq[REDIST__GF2_MAX];
    redist__gf2_layout_q(b->n, b->p, b->f, q);
    redist__gf2_layout_q_inverse(b->n, b->p, b->f, qinv);
    redist__gf2_mul(b->n, columns, b->n, qinv, aq);
    redist__gf2_mul(b->n, q, b->n, aq, b->a);
    b->c = redist__gf2_mul_vec(b->n, q, c);
}

/* Bottom rows m..n-1 of the given columns. */
static void bottom(const redist__bmmc_plan *b, const uint64_t a[], int ncols, uint64_t out[])
{
    redist__gf2_submatrix(a, b->m, b->p, 0, ncols, out);
}

/* §4 "Creating a nonsingular trailing submatrix": Appendix A on the bottom section, right to
   left, picks a basis Y of δ's columns first, then p - |Y| columns Z of λ completing it. Each
   column of Z is added into its own column of δ outside Y (T adds left columns into right
   ones); δ's columns outside Y depend on Y only, so the new trailing submatrix is nonsingular. */
static void make_trailer(redist__bmmc_plan *b)
{
    uint64_t bot[REDIST__GF2_MAX], basis;
    bottom(b, b->a, b->n, bot);
    redist__gf2_basis(b->n, bot, &basis, NULL);
    uint64_t left = redist__gf2_low(b->m);
    uint64_t z = basis & left;                              /* columns of λ in the basis */
    uint64_t ybar = ~basis & ~left & redist__gf2_low(b->n); /* columns of δ outside it */
    redist__gf2_identity(b->n, b->t);
    for (; z && ybar; z &= z - 1, ybar &= ybar - 1)
        b->t[redist__gf2_ctz(ybar)] |= z & (~z + 1);
}

/* §4 "Transforming the matrix into reduced form": R adds to each non-basis column of λ the
   basis columns it depends on (Appendix A), which zeroes it. Returns rank(λ). */
static int make_reducer(redist__bmmc_plan *b, const uint64_t at[], uint64_t *basis)
{
    uint64_t lambda[REDIST__GF2_MAX], deps[REDIST__GF2_MAX];
    bottom(b, at, b->m, lambda);
    int rank = redist__gf2_basis(b->m, lambda, basis, deps);
    redist__gf2_identity(b->n, b->r);
    for (int k = 0; k < b->m; k++) {
        if (!(*basis >> k & 1))
            b->r[k] |= deps[k];
    }
    return rank;
}

/* §4 "Gathering basis columns": the swapper moves the non-basis columns of the left section
   to its left end and the basis columns to its right end (each group in increasing order). */
static void make_swapper(redist__bmmc_plan *b, uint64_t basis)
{
    int next = 0;
    redist__gf2_identity(b->n, b->s);
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < b->m; j++) {
            if ((int)(basis >> j & 1) == pass)
                b->s[next++] = (uint64_t)1 << j;
        }
    }
}

/* §5's pieces of V (eq. (3)) and W, cut to the rows they are used with. */
static void cut_pieces(redist__bmmc_plan *b)
{
    int m = b->m, p = b->p;
    redist__gf2_submatrix(b->w, 0, m, 0, m, b->w_left);
    redist__gf2_submatrix(b->w, 0, m, m, p, b->w_right);
    redist__gf2_submatrix(b->v, m, p, m - b->rank, b->rank, b->lambda);
    redist__gf2_submatrix(b->v, m, p, m, p, b->delta);
    redist__gf2_submatrix(b->v, 0, m, 0, m, b->kappa);
    redist__gf2_submatrix(b->v, 0, m, m, p, b->mu);
    b->c_lo = b->c & redist__gf2_low(m);
    b->c_hi = (b->c >> m) & redist__gf2_low(p);
}

/* §4: V = A' T R S and W = (T R S)^-1, so that A' = V W. */
static int factor(redist__bmmc_plan *b)
{
    uint64_t at[REDIST__GF2_MAX], atr[REDIST__GF2_MAX], trs[REDIST__GF2_MAX], basis;
    int n = b->n;
    make_trailer(b);
    redist__gf2_mul(n, b->a, n, b->t, at);
    b->rank = make_reducer(b, at, &basis);
    redist__gf2_mul(n, at, n, b->r, atr);
    make_swapper(b, basis);
    redist__gf2_mul(n, atr, n, b->s, b->v);
    redist__gf2_mul(n, b->r, n, b->s, trs);
    redist__gf2_mul(n, b->t, n, trs, trs);
    if (redist__gf2_inverse(n, trs, b->w) != REDIST_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "redist__bmmc_plan_init: T R S is singular");
    cut_pieces(b);
    if (redist__gf2_inverse(b->p, b->delta, b->delta_inv) != REDIST_SUCCESS)
        return redist__fail(REDIST_ERR_ARG,
                            "redist__bmmc_plan_init: trailing submatrix of V is singular");
    return REDIST_SUCCESS;
}

int redist__bmmc_plan_init(int n, int p, int f, const uint64_t columns[], uint64_t complement,
                           redist__bmmc_plan *out)
{
    int err = check_args(n, p, f, columns, complement);
    if (err != REDIST_SUCCESS)
        return err;
    if (!out)
        return redist__fail(REDIST_ERR_ARG, "redist__bmmc_plan_init: out is NULL");
    redist__bmmc_plan b;
    memset(&b, 0, sizeof b);
    b.n = n, b.p = p, b.f = f, b.m = n - p;
    to_processor_major(&b, columns, complement);
    err = factor(&b);
    if (err == REDIST_SUCCESS)
        *out = b;
    return err;
}

int64_t redist__bmmc_local_count(const redist__bmmc_plan *b)
{
    return (int64_t)1 << b->m;
}

int64_t redist__bmmc_rounds(const redist__bmmc_plan *b)
{
    return (int64_t)1 << b->rank;
}

int64_t redist__bmmc_round_count(const redist__bmmc_plan *b)
{
    return (int64_t)1 << (b->m - b->rank);
}

/* Appendix B: for g running through the 2^bits values in Gray-code order, dst[base xor M g]
   = src[g]; consecutive g differ in the bit of the rightmost 1 of the step number, so each
   destination costs one xor. Inlined per element size so that memcpy is a fixed-size move.
   Steps [first, last) only (a thread's part): step i visits g = i xor (i >> 1), whose
   destination is computed once at the part's start. */
static inline void gray_scatter(int bits, const uint64_t cols[], uint64_t base, const char *src,
                                char *dst, size_t es, uint64_t first, uint64_t last)
{
    if (first >= last)
        return;
    uint64_t g = first ^ (first >> 1), t = base ^ redist__gf2_mul_vec(bits, cols, g);
    memcpy(dst + t * es, src + g * es, es);
    for (uint64_t i = first + 1; i < last; i++) {
        int bit = redist__gf2_ctz(i);
        g ^= (uint64_t)1 << bit;
        t ^= cols[bit];
        memcpy(dst + t * es, src + g * es, es);
    }
}

/* Part `part` of nparts of the scatter (all of it for one part). */
static void scatter(int bits, const uint64_t cols[], uint64_t base, const void *src, void *dst,
                    size_t es, int part, int nparts)
{
    uint64_t count = (uint64_t)1 << bits;
    uint64_t first = count / (uint64_t)nparts * (uint64_t)part +
                     (count % (uint64_t)nparts) * (uint64_t)part / (uint64_t)nparts;
    uint64_t last = count / (uint64_t)nparts * (uint64_t)(part + 1) +
                    (count % (uint64_t)nparts) * (uint64_t)(part + 1) / (uint64_t)nparts;
    switch (es) {
    case 1:
        gray_scatter(bits, cols, base, src, dst, 1, first, last);
        break;
    case 2:
        gray_scatter(bits, cols, base, src, dst, 2, first, last);
        break;
    case 4:
        gray_scatter(bits, cols, base, src, dst, 4, first, last);
        break;
    case 8:
        gray_scatter(bits, cols, base, src, dst, 8, first, last);
        break;
    case 16:
        gray_scatter(bits, cols, base, src, dst, 16, first, last);
        break;
    default:
        gray_scatter(bits, cols, base, src, dst, es, first, last);
    }
}

/* §5 "Performing the intraprocessor permutation", lines 1-8: x_hi = k is fixed, so
   x'_lo = W' x_lo xor W'' k (W is intraprocessor: x'_hi = k). */
void redist__bmmc_intra(const redist__bmmc_plan *b, uint64_t k, const void *data, void *temp,
                        size_t es, int part, int nparts)
{
    uint64_t base = redist__gf2_mul_vec(b->p, b->w_right, k);
    scatter(b->m, b->w_left, base, data, temp, es, part, nparts);
}

static uint64_t lambda_b(const redist__bmmc_plan *b, int64_t round)
{
    return redist__gf2_mul_vec(b->rank, b->lambda, (uint64_t)round);
}

uint64_t redist__bmmc_target(const redist__bmmc_plan *b, uint64_t k, int64_t round)
{
    return lambda_b(b, round) ^ redist__gf2_mul_vec(b->p, b->delta, k) ^ b->c_hi;
}

uint64_t redist__bmmc_source(const redist__bmmc_plan *b, uint64_t k, int64_t round)
{
    return redist__gf2_mul_vec(b->p, b->delta_inv, k ^ lambda_b(b, round) ^ b->c_hi);
}

int64_t redist__bmmc_self_round(const redist__bmmc_plan *b, uint64_t k)
{
    int64_t rounds = redist__bmmc_rounds(b);
    for (int64_t r = 0; r < rounds; r++) {
        if (redist__bmmc_target(b, k, r) == k)
            return r;
    }
    return -1;
}

/* §5 "Performing the interprocessor permutation", lines 6-8: element j of the block has
   x' = (j, round, source) (non-basis bits, basis bits, processor bits), so by eq. (3) its
   offset on k is t = κ' j xor κ'' round xor μ source xor c_lo. */
void redist__bmmc_place(const redist__bmmc_plan *b, uint64_t k, int64_t round, uint64_t source,
                        const void *block, void *out, size_t es, int part, int nparts)
{
    int free_bits = b->m - b->rank;
    uint64_t base = redist__gf2_mul_vec(b->m, b->kappa, (uint64_t)round << free_bits) ^
                    redist__gf2_mul_vec(b->p, b->mu, source) ^ b->c_lo;
    (void)k; /* the destination is k by eq. (5); kept for the executor's symmetry */
    scatter(free_bits, b->kappa, base, block, out, es, part, nparts);
}

/* ---- the block-cyclic case: cyclic(2^f1) -> cyclic(2^f2) as a bit permutation ------------- */

void redist__bpc_matrix(int n, int p, int f1, int f2, uint64_t a[])
{
    uint64_t q1i[REDIST__GF2_MAX], q2[REDIST__GF2_MAX];
    redist__gf2_layout_q_inverse(n, p, f1, q1i);
    redist__gf2_layout_q(n, p, f2, q2);
    redist__gf2_mul(n, q1i, n, q2, a);
}

int redist__bpc_rounds_of(int n, int p, int f1, int f2)
{
    uint64_t a[REDIST__GF2_MAX];
    redist__bmmc_plan bp;
    redist__bpc_matrix(n, p, f1, f2, a);
    return redist__bmmc_plan_init(n, p, f1, a, 0, &bp) == REDIST_SUCCESS
               ? (int)redist__bmmc_rounds(&bp)
               : 0;
}

int redist__bpc_rounds(const struct redist_layout_s *src, const struct redist_layout_s *dst)
{
    int n, p, f1, f2;
    return redist__bpc_detect(src, dst, &n, &p, &f1, &f2) ? redist__bpc_rounds_of(n, p, f1, f2) : 0;
}
