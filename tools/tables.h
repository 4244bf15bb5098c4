/* The tables of Lim, Bhat and Prasanna ([LBP96] §3-4) for a 1-D cyclic(x) ->
 * cyclic(Kx) redistribution over P processors, R_x(K, P), or its dual cyclic(Kx) -> cyclic(x):
 *
 *   S   initial distribution table: K x P, column j lists the global block indices (blocks of
 *       x elements) processor p_j holds in the first superblock of P*K blocks, in local order;
 *   R   final distribution table, the same for the destination distribution;
 *   P   destination processor table: S with every block replaced by its destination
 *       processor (Fig. 3a);
 *   P_s, D_s  the generalized circulant form of P and the send data location table
 *       (Theorem 2, Eq. 12 and 13), S' = S(D_s(i, j), j) the blocks step i sends;
 *   P_r, D_r  the source processor table (row i inverts row i of P_s) and the receive data
 *       location table, R' = R(D_r(i, j), j) the blocks step i delivers.
 *
 * Every table comes from the library's pure table module (src/circulant.h, redist__rx_*);
 * this file only lays them out and prints them. The dual uses the tables of R_x(K, P) with
 * the roles of S and R swapped (paper §3.1: S column-major, R row-major) and runs its
 * schedule backwards (step i sends along P_r from rows D_r, receives into rows D_s).
 * P_s, D_s, P_r, D_r (and S', R') are given for K <= P only (K > P is all-to-all).
 * Columns are the paper's processors: p_c is grid coordinate (c + first) mod P, with the
 * same first on both sides.
 */
#ifndef REDIST_TOOL_TABLES_H
#define REDIST_TOOL_TABLES_H

#include <stdint.h>
#include <stdio.h>

#include "circulant.h"
#include "spec.h"

typedef struct tool_tables {
    int P, K;
    int64_t x;        /* the smaller block size */
    int dual;         /* 0: cyclic(x) -> cyclic(Kx); 1: cyclic(Kx) -> cyclic(x) */
    int first;        /* the first coordinate of both sides: p_c is coordinate (c + first) % P */
    int ranks_differ; /* the two specs map grid coordinates to different ranks */
    int64_t nblocks;  /* blocks of x elements in the array; entries >= nblocks lie beyond it */
    redist__rx rx;    /* R_x(K, P): G, K', P', n, m */
    /* The pair's tables, K*P entries each, row i column j at [i*P + j]: S initial, R final,
       Pt destination processors. For the dual, S is R_x's R and R is R_x's S. */
    int64_t *S, *R, *Pt;
    int have_ps; /* K <= P: the tables below are valid */
    /* R_x(K, P)'s schedule tables, whichever the direction, and Sp = S', Rp = R' of R_x
       (S'(i, j) = S_x(D_s(i, j), j), R'(i, j) = R_x(D_r(i, j), j)). */
    int64_t *Ps, *Ds, *Pr, *Dr, *Sp, *Rp;
} tool_tables;

/* Fills t for the pair, or returns -1 with the reason in why (the pair is not a 1-D
   cyclic(x) <-> cyclic(Kx) pair on the same number of processors with the same first
   coordinate, or is too large). */
int tables_compute(const tool_spec *from, const tool_spec *to, tool_tables *t, char *why,
                   size_t whylen);
/* Prints the tables as text, each line starting with indent: S, R, P, then with full every
   schedule table (forward: S', P_s, D_s, R', P_r, D_r; dual: R', P_r, D_r, S', P_s, D_s),
   else only the two that drive the sends (forward P_s, D_s; dual P_r, D_r). */
void tables_print(FILE *f, const tool_tables *t, const char *indent, int full);
/* Prints the tables as the value of a JSON object (no trailing newline). */
void tables_print_json(FILE *f, const tool_tables *t);
void tables_free(tool_tables *t);

#endif
