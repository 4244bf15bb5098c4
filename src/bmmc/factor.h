/* Internal (not installed): factoring a BMMC permutation and the pure pieces of performing it
 * ([Cor97] §4, §5, §6, Appendix B). No MPI: the executor adds the communication.
 *
 * [Cor97]: Cormen, "Performing BMMC Permutations Efficiently on Distributed-Memory
 * Multiprocessors with MPI" (docs/references.md).
 *
 * Indices. N = 2^n elements on P = 2^p processors, m = n - p offset bits. The user's layout
 * (redist_plan_create_bmmc, redist.h) puts global index x on processor (x >> f) & (P-1) at
 * local offset (x & (2^f - 1)) | ((x >> (f+p)) << f). That offset and processor are exactly
 * the low m and high p bits of Q x, Q being §6's conversion to processor-major (gf2.h). So the
 * plan performs the processor-major permutation A' = Q A Q^-1, c' = Q c (§6) on the very same
 * local arrays.
 *
 * Factoring (§3, §4): T (trailer) makes the trailing p x p submatrix nonsingular, R (reducer)
 * zeroes the non-basis columns of λ (the lower-left p x m submatrix), S (swapper, the paper's
 * Π) moves the rank(λ) basis columns to the right end of the left section:
 *     V = A' T R S,   W = (T R S)^-1,   A' = V W,
 * x' = W x is intraprocessor (eq. (1)) and y = V x' xor c' interprocessor (eq. (2)).
 *
 * Executing on processor k (0 <= k < P) with the local arrays data (input), out (output)
 * and temp (scratch), each local_count elements of es bytes:
 *
 *     redist__bmmc_intra(plan, k, data, temp, es);             // §5 eq. (1), Gray-code order
 *     for (r = 0; r < rounds; r++) {                           // r = the basis bits b
 *         to = redist__bmmc_target(plan, k, r);                // eq. (4), §5 line 3
 *         from = redist__bmmc_source(plan, k, r);              // eq. (5), §5 line 4
 *         block = temp + r * round_count * es;                 // what k sends in round r
 *         if (to != k)                                         // then also from != k
 *             MPI_Sendrecv_replace(block, round_count, type, to, tag, from, tag, comm, ...);
 *         redist__bmmc_place(plan, k, r, from, block, out, es); // §5 lines 6-8, Gray order
 *     }
 *
 * (MPI_Sendrecv variant: receive into a separate round_count buffer and place from it.
 * MPI_Alltoallv variant: send block r to target(k, r) and receive the block from source(k, r)
 * into slice r of a receive buffer, then place every slice.) Every round is a permutation of
 * the processors (source(target(k, r), r) = k), and target(k, r) = k iff source(k, r) = k.
 * A processor sends to itself in at most one round, and in the paper's round order that round
 * is not always r = 0 (it is the r with λ'' r = (δ̂ xor I) k xor c_hi, if any):
 * redist__bmmc_self_round tells which.
 */
#ifndef REDIST_BMMC_FACTOR_H
#define REDIST_BMMC_FACTOR_H

#include "bmmc/gf2.h"

#include <stddef.h>
#include <stdint.h>

/* Everything the executor needs; fixed size, no allocation, copyable. */
typedef struct redist__bmmc_plan {
    int n, p, f; /* 2^n elements, 2^p processors, processor bits at f */
    int m;       /* n - p: local offset bits */
    int rank;    /* rank(λ) (Lemma 3): 2^rank rounds */
    /* §6: the processor-major permutation A' = Q A Q^-1, c' = Q c. */
    uint64_t a[REDIST__GF2_MAX], c;
    /* §4: the factors and the matrices that build them (kept for checking). */
    uint64_t t[REDIST__GF2_MAX], r[REDIST__GF2_MAX], s[REDIST__GF2_MAX];
    uint64_t v[REDIST__GF2_MAX], w[REDIST__GF2_MAX];
    /* §5 pieces, each column cut to the rows it is used with: */
    uint64_t w_left[REDIST__GF2_MAX];  /* W': columns 0..m-1 of W, rows 0..m-1 */
    uint64_t w_right[REDIST__GF2_MAX]; /* W'': columns m..n-1 of W, rows 0..m-1 */
    uint64_t lambda[REDIST__GF2_MAX];  /* λ'': the rank basis columns of V's lower left, p rows */
    uint64_t delta[REDIST__GF2_MAX];   /* δ̂: V's trailing p x p submatrix (nonsingular) */
    uint64_t delta_inv[REDIST__GF2_MAX];
    uint64_t kappa[REDIST__GF2_MAX]; /* V's leading m x m submatrix (κ' then κ'') */
    uint64_t mu[REDIST__GF2_MAX];    /* V's upper right m x p submatrix */
    uint64_t c_lo, c_hi;             /* c' split: bits 0..m-1 and m..n-1 (shifted down) */
} redist__bmmc_plan;

/* Factors once (§6 then §4). REDIST_ERR_ARG (with a detail) for n outside 0..64, p outside
   0..n, f outside 0..n-p, n - p > 62 (N/P must fit int64_t), columns NULL, a column or the
   complement with bits at or above n, or a singular A. columns[j] bit i = A[i][j]. */
int redist__bmmc_plan_init(int n, int p, int f, const uint64_t columns[], uint64_t complement,
                           redist__bmmc_plan *out);

int64_t redist__bmmc_local_count(const redist__bmmc_plan *b); /* N/P = 2^m */
int64_t redist__bmmc_rounds(const redist__bmmc_plan *b);      /* 2^rank(λ) */
int64_t redist__bmmc_round_count(const redist__bmmc_plan *b); /* N/(2^rank P) per round */

/* §5 intraprocessor permutation (eq. (1)) on processor k: temp[W'j xor W''k] = data[j] for
   every local offset j, visited in Gray-code order (Appendix B: O(1) word operations per
   element). data and temp must not overlap. Part `part` of nparts (threads: the parts write
   disjoint elements and together all of them; 0 of 1 for all). */
void redist__bmmc_intra(const redist__bmmc_plan *b, uint64_t k, const void *data, void *temp,
                        size_t es, int part, int nparts);

/* Eq. (4), §5 line 3: the processor k sends round's block to: λ'' round xor δ̂ k xor c_hi. */
uint64_t redist__bmmc_target(const redist__bmmc_plan *b, uint64_t k, int64_t round);
/* Eq. (5), §5 line 4: the processor k receives from: δ̂^-1 (k xor λ'' round xor c_hi). */
uint64_t redist__bmmc_source(const redist__bmmc_plan *b, uint64_t k, int64_t round);
/* The round in which k sends to itself, or -1 if none. */
int64_t redist__bmmc_self_round(const redist__bmmc_plan *b, uint64_t k);

/* §5 lines 6-8 on processor k: block holds the round_count elements that source sent in
   round (element j of the block has x' = (j | round << (m - rank), source)); each goes to
   out[κ' j xor κ'' round xor μ source xor c_lo], in Gray-code order. block and out must not
   overlap. Part `part` of nparts, as redist__bmmc_intra. */
void redist__bmmc_place(const redist__bmmc_plan *b, uint64_t k, int64_t round, uint64_t source,
                        const void *block, void *out, size_t es, int part, int nparts);

/* The block-cyclic case (index.h, redist__bpc_detect): cyclic(2^f1) is the BMMC layout f1,
   and cyclic(2^f1) -> cyclic(2^f2) is y = Q_f1^-1 Q_f2 x in layout f1. The matrix, the rounds
   of its factoring (0 if it cannot be factored), and the same from a layout pair (0 if the
   pair is not a bit permutation). */
void redist__bpc_matrix(int n, int p, int f1, int f2, uint64_t a[]);
int redist__bpc_rounds_of(int n, int p, int f1, int f2);
struct redist_layout_s;
int redist__bpc_rounds(const struct redist_layout_s *src, const struct redist_layout_s *dst);

#endif /* REDIST_BMMC_FACTOR_H */
