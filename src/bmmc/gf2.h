/* Internal (not installed): bit-matrix algebra over GF(2) for BMMC permutations (pure code,
 * no MPI).
 *
 * [Cor97]: Cormen, "Performing BMMC Permutations Efficiently on Distributed-Memory
 * Multiprocessors with MPI" (docs/references.md): §2 (definition, Lemma 1,
 * representation), §6 (layout conversion Q), Appendix A (column basis and dependencies),
 * Appendix C (standard permutations).
 *
 * Representation (§2): an r x n matrix (r, n <= 64) is n columns; bit i of col[j] is A[i][j],
 * so the least significant bit of a word is the top row, as in the paper. A vector is one
 * word, bit i being x_i. A BMMC permutation maps index x to y = A x xor c. Bits of a vector
 * at or above the number of columns are ignored; outputs never have bits at or above the
 * number of rows set (as long as the inputs have none).
 */
#ifndef REDIST_BMMC_GF2_H
#define REDIST_BMMC_GF2_H

#include <stdint.h>

#define REDIST__GF2_MAX 64

/* The word with bits 0..bits-1 set (bits in 0..64). */
static inline uint64_t redist__gf2_low(int bits)
{
    return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

/* Index of the least significant set bit of x != 0. */
int redist__gf2_ctz(uint64_t x);
/* Number of set bits. */
int redist__gf2_popcount(uint64_t x);

/* ---- products and Lemma 1 ---------------------------------------------------------------- */
/* A x for the n columns of A (§2: y = A x as the xor of the columns A_j with x_j = 1). */
uint64_t redist__gf2_mul_vec(int n, const uint64_t a[], uint64_t x);
/* out = A B, B having nb columns (n rows, the number of columns of A). out may alias b. */
void redist__gf2_mul(int n, const uint64_t a[], int nb, const uint64_t b[], uint64_t out[]);
/* Lemma 1, composition: x -> A x xor ca first, then x' -> B x' xor cb; the composition is
   x -> (B A) x xor (B ca xor cb). out may alias a or b. */
void redist__gf2_compose(int n, const uint64_t a[], uint64_t ca, const uint64_t b[], uint64_t cb,
                         uint64_t out[], uint64_t *cout);

/* ---- rank, inverse, Appendix A ------------------------------------------------------------ */
/* Appendix A, for ncols <= 64 columns of any height: *basis gets bit j set iff column j is in
   the column basis, chosen from right to left (highest j first, as the paper does so that
   §4's trailing columns are preferred). If deps != NULL, deps[j] (ncols entries) gets the set
   of basis columns (bit i for column i) that sum to column j for a non-basis column j, and 0
   for a basis column. Returns the rank. */
int redist__gf2_basis(int ncols, const uint64_t cols[], uint64_t *basis, uint64_t deps[]);
/* Rank of the ncols columns. */
int redist__gf2_rank(int ncols, const uint64_t cols[]);
/* 1 if the n x n matrix is nonsingular over GF(2), else 0. */
int redist__gf2_is_nonsingular(int n, const uint64_t a[]);
/* out = A^-1 for an n x n matrix (Gauss-Jordan on columns); REDIST_ERR_ARG (out untouched)
   if A is singular. out may alias a. */
int redist__gf2_inverse(int n, const uint64_t a[], uint64_t out[]);
/* Lemma 1, inverse: (A^-1, A^-1 c); REDIST_ERR_ARG if A is singular. */
int redist__gf2_inverse_bmmc(int n, const uint64_t a[], uint64_t c, uint64_t out[], uint64_t *cout);

/* ---- submatrices -------------------------------------------------------------------------- */
/* out[j] = rows row0..row0+nrows-1 of column col0+j of A, for j < ncols (shifted down to
   bit 0). */
void redist__gf2_submatrix(const uint64_t a[], int row0, int nrows, int col0, int ncols,
                           uint64_t out[]);

/* ---- constructors (Appendix C, §6); n x n, complement 0 unless said ----------------------- */
void redist__gf2_identity(int n, uint64_t out[]);
/* Rotation of the index bits: bit i of x goes to bit (i + k) mod n of y (k any integer).
   k = 1 is the perfect shuffle, k = -1 the unshuffle (Appendix C: transposes of 2 x N/2 and
   N/2 x 2 matrices). */
void redist__gf2_rotate(int n, int k, uint64_t out[]);
/* Appendix C matrix transpose of a 2^a x 2^b matrix stored row-major: element (i, j), i the
   row (0 <= i < 2^a), j the column (0 <= j < 2^b), at index x = i 2^b + j, goes to index
   y = j 2^a + i, its place in the 2^b x 2^a transpose stored row-major. n = a + b; this is
   the rotation by a. */
void redist__gf2_transpose(int a, int b, uint64_t out[]);
/* Appendix C bit reversal: y_i = x_(n-1-i) (1s on the antidiagonal). */
void redist__gf2_bit_reversal(int n, uint64_t out[]);
/* Appendix C Gray code: y_i = x_i xor x_(i+1) (x_n = 0), matrix (6). */
void redist__gf2_gray(int n, uint64_t out[]);
/* Its inverse: y_i = x_i xor x_(i+1) xor ... xor x_(n-1). */
void redist__gf2_gray_inverse(int n, uint64_t out[]);
/* §6 Q for a layout whose p processor bits start at bit f (0 <= f <= n - p): it maps the
   global index x of the actual layout to its processor-major index (processor bits on top):
   bits 0..f-1 stay, bits f..f+p-1 (processor) go to n-p..n-1, bits f+p..n-1 go to
   f..n-p-1. The low n - p bits of Q x are the local offset of redist_plan_create_bmmc's
   layout rule, the high p bits the rank. Row blocks (f, n-p-f, p), column blocks (f, p,
   n-p-f), as the paper prints Q. */
void redist__gf2_layout_q(int n, int p, int f, uint64_t out[]);
/* Q^-1: processor-major index -> actual global index. */
void redist__gf2_layout_q_inverse(int n, int p, int f, uint64_t out[]);

#endif /* REDIST_BMMC_GF2_H */
