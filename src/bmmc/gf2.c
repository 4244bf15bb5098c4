/* Bit-matrix algebra over GF(2) ([Cor97] §2, Lemma 1, §6, Appendices A and C); pure code.
 * See gf2.h for the representation. The public redist_bmmc_* functions are in api.c. */
#include "bmmc/gf2.h"

#include "redist.h"

#include <string.h>

int redist__gf2_ctz(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int i = 0;
    while (!(x & 1)) {
        x >>= 1;
        i++;
    }
    return i;
#endif
}

int redist__gf2_popcount(uint64_t x)
{
#if defined(__GNUC__)
    return __builtin_popcountll(x);
#else
    int count = 0;
    for (; x; x &= x - 1)
        count++;
    return count;
#endif
}

uint64_t redist__gf2_mul_vec(int n, const uint64_t a[], uint64_t x)
{
    uint64_t y = 0;
    for (x &= redist__gf2_low(n); x; x &= x - 1)
        y ^= a[redist__gf2_ctz(x)];
    return y;
}

void redist__gf2_mul(int n, const uint64_t a[], int nb, const uint64_t b[], uint64_t out[])
{
    for (int j = 0; j < nb; j++)
        out[j] = redist__gf2_mul_vec(n, a, b[j]);
}

void redist__gf2_compose(int n, const uint64_t a[], uint64_t ca, const uint64_t b[], uint64_t cb,
                         uint64_t out[], uint64_t *cout)
{
    uint64_t prod[REDIST__GF2_MAX];
    uint64_t c = redist__gf2_mul_vec(n, b, ca) ^ cb;
    redist__gf2_mul(n, b, n, a, prod);
    memcpy(out, prod, (size_t)n * sizeof *out);
    *cout = c;
}

/* Appendix A, lines 1-13, on a copy of the columns. */
int redist__gf2_basis(int ncols, const uint64_t cols[], uint64_t *basis, uint64_t deps[])
{
    uint64_t a[REDIST__GF2_MAX], d[REDIST__GF2_MAX] = {0}, s = 0;
    memcpy(a, cols, (size_t)ncols * sizeof *a);
    for (int j = ncols - 1; j >= 0; j--) {
        if (a[j] == 0)
            continue;
        s |= (uint64_t)1 << j;             /* line 6 */
        uint64_t row = a[j] & (~a[j] + 1); /* line 7: topmost 1 */
        for (int k = 0; k < j; k++) {
            if (a[k] & row) {
                a[k] ^= a[j];                      /* line 10 */
                d[k] ^= d[j] ^ ((uint64_t)1 << j); /* lines 11-12 */
            }
        }
        d[j] = 0; /* line 13 */
    }
    *basis = s;
    if (deps)
        memcpy(deps, d, (size_t)ncols * sizeof *deps);
    return redist__gf2_popcount(s);
}

int redist__gf2_rank(int ncols, const uint64_t cols[])
{
    uint64_t basis;
    return redist__gf2_basis(ncols, cols, &basis, NULL);
}

/* Only rows 0..n-1 count: bits at or above n are ignored. */
int redist__gf2_is_nonsingular(int n, const uint64_t a[])
{
    uint64_t cols[REDIST__GF2_MAX];
    for (int j = 0; j < n; j++)
        cols[j] = a[j] & redist__gf2_low(n);
    return redist__gf2_rank(n, cols) == n;
}

/* Gauss-Jordan with column operations: the operations E that turn A into I (A E = I),
   applied to I, give E = A^-1. Row i's pivot is made the only 1 in row i. */
int redist__gf2_inverse(int n, const uint64_t a[], uint64_t out[])
{
    uint64_t m[REDIST__GF2_MAX], e[REDIST__GF2_MAX];
    for (int j = 0; j < n; j++)
        m[j] = a[j] & redist__gf2_low(n);
    redist__gf2_identity(n, e);
    for (int i = 0; i < n; i++) {
        uint64_t row = (uint64_t)1 << i;
        int piv = i;
        while (piv < n && !(m[piv] & row))
            piv++;
        if (piv == n)
            return REDIST_ERR_ARG;
        uint64_t tm = m[i], te = e[i];
        m[i] = m[piv], e[i] = e[piv];
        m[piv] = tm, e[piv] = te;
        for (int k = 0; k < n; k++) {
            if (k != i && (m[k] & row)) {
                m[k] ^= m[i];
                e[k] ^= e[i];
            }
        }
    }
    memcpy(out, e, (size_t)n * sizeof *out);
    return REDIST_SUCCESS;
}

int redist__gf2_inverse_bmmc(int n, const uint64_t a[], uint64_t c, uint64_t out[], uint64_t *cout)
{
    uint64_t inv[REDIST__GF2_MAX];
    int err = redist__gf2_inverse(n, a, inv);
    if (err != REDIST_SUCCESS)
        return err;
    memcpy(out, inv, (size_t)n * sizeof *out);
    *cout = redist__gf2_mul_vec(n, inv, c);
    return REDIST_SUCCESS;
}

void redist__gf2_submatrix(const uint64_t a[], int row0, int nrows, int col0, int ncols,
                           uint64_t out[])
{
    for (int j = 0; j < ncols; j++)
        out[j] = row0 >= 64 ? 0 : (a[col0 + j] >> row0) & redist__gf2_low(nrows);
}

void redist__gf2_identity(int n, uint64_t out[])
{
    for (int j = 0; j < n; j++)
        out[j] = (uint64_t)1 << j;
}

void redist__gf2_rotate(int n, int k, uint64_t out[])
{
    int shift = n ? ((k % n) + n) % n : 0;
    for (int j = 0; j < n; j++)
        out[j] = (uint64_t)1 << ((j + shift) % n);
}

void redist__gf2_transpose(int a, int b, uint64_t out[])
{
    redist__gf2_rotate(a + b, a, out);
}

void redist__gf2_bit_reversal(int n, uint64_t out[])
{
    for (int j = 0; j < n; j++)
        out[j] = (uint64_t)1 << (n - 1 - j);
}

/* Matrix (6): x_j feeds y_j and y_(j-1). */
void redist__gf2_gray(int n, uint64_t out[])
{
    for (int j = 0; j < n; j++)
        out[j] = ((uint64_t)1 << j) | (j ? (uint64_t)1 << (j - 1) : 0);
}

/* Upper triangular: x_j feeds y_0..y_j. */
void redist__gf2_gray_inverse(int n, uint64_t out[])
{
    for (int j = 0; j < n; j++)
        out[j] = redist__gf2_low(j + 1);
}

/* Column j (source bit j of the actual index) has its 1 in row (target bit) pos(j). */
void redist__gf2_layout_q(int n, int p, int f, uint64_t out[])
{
    for (int j = 0; j < n; j++) {
        int row = j < f ? j : j < f + p ? j - f + (n - p) : j - p;
        out[j] = (uint64_t)1 << row;
    }
}

void redist__gf2_layout_q_inverse(int n, int p, int f, uint64_t out[])
{
    for (int j = 0; j < n; j++) {
        int row = j < f ? j : j < n - p ? j + p : j - (n - p) + f;
        out[j] = (uint64_t)1 << row;
    }
}
