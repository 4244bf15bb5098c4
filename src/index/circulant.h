/* Internal (not installed): [LBP96]'s table view of cyclic(x) -> cyclic(Kx) redistribution,
 * R_x(K, P), and the schedules derived from it (pure code, no MPI).
 *
 * [LBP96]: Lim, Bhat, Prasanna, "Efficient Algorithms for Block-Cyclic Redistribution of
 * Arrays" (docs/references.md): §3.1 (tables S, R), §3.3 (the destination
 * processor table P), §4 Theorem 1 and 2 (P_s, D_s in generalized circulant form), Corollary
 * 1 (incremental form), Theorem 3 (direct, indirect, hybrid step counts).
 *
 * All tables are K x P, stored row-major: t[i * P + j] is row i, column (processor) j.
 * Indices are 0-based, as in the paper. Blocks are numbered within one superblock of K*P
 * blocks; the same tables serve every superblock.
 */
#ifndef REDIST_CIRCULANT_H
#define REDIST_CIRCULANT_H

#include <stdint.h>

/* The parameters of R_x(K, P): G = gcd(K, P), K = K'G, P = P'G, and n, m with
   n K' - m P' = 1 (extended Euclid; 1 <= n <= P', 0 <= m < K'). */
typedef struct redist__rx {
    int64_t K, P, G, Kp, Pp, n, m;
} redist__rx;

/* Fills *rx for K >= 1, P >= 1. Returns 0, or -1 for bad arguments. */
int redist__rx_init(int64_t K, int64_t P, redist__rx *rx);

/* Initial distribution table S (row-major global block indices, S(i, j) = iP + j), final
   table R (column-major, R(i, j) = jK + i) and destination processor table P(i, j) =
   S(i, j) / K ([LBP96] §3.3, Fig. 2, 3). */
int64_t redist__rx_S(const redist__rx *rx, int64_t i, int64_t j);
int64_t redist__rx_R(const redist__rx *rx, int64_t i, int64_t j);
int64_t redist__rx_P(const redist__rx *rx, int64_t i, int64_t j);

/* Theorem 2, Eq. (12), (13): the generalized circulant destination table P_s and the send
   data location table D_s (S'(i, j) = S(D_s(i, j), j), P_s(i, j) = P(D_s(i, j), j)). */
int64_t redist__rx_Ps(const redist__rx *rx, int64_t i, int64_t j);
int64_t redist__rx_Ds(const redist__rx *rx, int64_t i, int64_t j);
/* The receive side: P_r(i, .) is the inverse permutation of P_s(i, .)
   (R'(i, j) = S'(i, P_r(i, j))), and D_r the receive data location table
   (R'(i, j) = R(D_r(i, j), j)). */
int64_t redist__rx_Pr(const redist__rx *rx, int64_t i, int64_t j);
int64_t redist__rx_Dr(const redist__rx *rx, int64_t i, int64_t j);

/* Whole tables (K*P entries each, row-major), P_s and D_s by Corollary 1's incremental form
   down each column. Any output may be NULL. Returns 0, or -1 for bad arguments. */
int redist__rx_tables(const redist__rx *rx, int64_t *S, int64_t *R, int64_t *P, int64_t *Ps,
                      int64_t *Ds, int64_t *Pr, int64_t *Dr);

struct redist_layout_s;
/* The table case dimension by dimension ([TCR96] §2, [LBP96] §1): N-D layouts on the
   same ranks, identical in every dimension but `dim`, where the pair is R_x(K, P_dim) or its
   dual. Every line of processes along `dim` (fixed other coordinates) is then one table of
   its own, and all lines run the same schedule. */
typedef struct redist__table_case {
    redist__rx rx;
    int dual, dim;
    int64_t n, x; /* extent along dim, the small block */
    int first;    /* first coordinate along dim: table column c is coordinate (c + first) */
} redist__table_case;
int redist__table_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                         redist__table_case *tc);
/* Table column of `rank` (-1 if it is not in the layout), and the rank at column col of the
   same line. */
int64_t redist__table_column(const struct redist_layout_s *l, const redist__table_case *tc,
                             int rank);
int redist__table_rank(const struct redist_layout_s *l, const redist__table_case *tc, int rank,
                       int64_t col);
/* Elements of one block of the table at `rank` in the other dimensions: the product of its
   local extents there (1 for 1-D). */
int64_t redist__table_cross_section(const struct redist_layout_s *l, const redist__table_case *tc,
                                    int rank);

/* Rows of P_s that move data (not the identity): the direct schedule's steps. Only row 0
   can be the identity (Eq. 12 with j = 0 forces i2 = 0 and i1 = 0 mod P'). */
int64_t redist__rx_moving_rows(const redist__rx *rx);

#endif
