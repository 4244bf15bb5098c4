/* Internal (not installed): [LBP96]'s communication schedules for R_x(K, P) as row
 * transformations of the generalized circulant table P_s (pure code, no MPI).
 *
 * [LBP96]: Lim, Bhat, Prasanna, "Efficient Algorithms for Block-Cyclic Redistribution of
 * Arrays" (docs/references.md): §3.4 (Eq. 1, Fig. 5, 6: cyclic shifts that align
 * the diagonals of a generalized circulant matrix), Fig. 8-10 (direct, indirect and hybrid
 * schedules for R_x(6, 9)), Theorem 3 and its proof, Corollary 2.
 *
 * Model (proof of Theorem 3). The K x P table P_s (K <= P, circulant.h) holds one *unit* per
 * entry: unit (i, j) is the block that processor j holds in row i of S'; it must end in
 * column (processor) P_s(i, j) of the same row. A step is a set of rows and a permutation
 * to[] of the P processors: every processor c sends all the units it currently holds in
 * those rows to processor to[c] in one message (to[c] == c: no message). A step is
 * contention free by construction (every processor sends at most one message and receives
 * at most one). Units never change row; every cell of the table always holds exactly one
 * unit.
 */
#ifndef REDIST_ROWSCHED_H
#define REDIST_ROWSCHED_H

#include "index/circulant.h"

#include <stdint.h>

typedef struct redist__row_step {
    int64_t nrows; /* rows moved in this step */
    int64_t *rows; /* [nrows], ascending */
    int64_t *to;   /* [P], a permutation: column c's units in these rows go to column to[c] */
} redist__row_step;

typedef struct redist__row_schedule {
    int64_t K, P, nsteps;
    redist__row_step *steps; /* [nsteps], in execution order */
} redist__row_schedule;

/* The builders overwrite *out (without freeing it) and return 0, REDIST_ERR_ARG (rx NULL,
   K < 1 or K > P: Theorem 3 assumes K <= P) or REDIST_ERR_NOMEM; on failure *out is empty.
   Free a schedule with redist__rowsched_free. */

/* Theorem 3 (i): K steps, step i moves row i by P_s(i, .) (Fig. 8). All K steps are kept,
   also a row that is the identity (only row 0 can be, e.g. K = 1): it sends no message. */
int redist__rowsched_direct(const redist__rx *rx, redist__row_schedule *out);

/* Theorem 3 (ii), Fig. 6 and 9: ceil(log2 K') steps of circular shifts of submatrix rows,
   ceil(log2 G) steps of circular shifts within the G-column groups, then one permutation of
   whole columns (all rows), omitted when it is the identity. So exactly
   redist__rowsched_max_degree(rx) + 1 steps, or one less. Every shift step moves at most
   K/2 rows (Corollary 2's N/(2P) per processor). */
int redist__rowsched_indirect(const redist__rx *rx, redist__row_schedule *out);

/* Theorem 3 (iii), Fig. 10: d' = min(d, max_degree) shift steps of the indirect schedule,
   then one step per set of rows whose remaining moves are identical (found by comparing the
   rows, never assumed), with that common permutation; sets that need no move are omitted.
   d = 0 is the direct schedule; d >= max_degree gives the indirect schedule. The shift steps
   commute, so the d' steps are split between submatrix shifts (d1) and in-group shifts (d2)
   to leave the fewest distinct rows: at most d' + min over d1 + d2 = d' of
   ceil(K'/2^d1) ceil(G/2^d2) steps. That is Theorem 3's d + ceil(K/2^d) when K' or G is a
   power of two, but can exceed it otherwise (K = 9, P = 12, d = 1: 7 steps, not 6). */
int redist__rowsched_hybrid(const redist__rx *rx, int d, redist__row_schedule *out);

/* ceil(log2 K') + ceil(log2 G): the indirect schedule's shift steps, the largest useful d.
   REDIST_ERR_ARG if rx is NULL or K > P. */
int redist__rowsched_max_degree(const redist__rx *rx);

/* The shift table of any exchange on P ranks (K = P rows; row r at column j is the message
   from j to (j + r) mod P; row 0 never moves): Bruck's log-step schedule, ceil(log2 P)
   steps, or with d >= 0 its hybrid, d bit-steps then one step per value of r >> d. */
int redist__rowsched_bruck(int64_t P, int d, redist__row_schedule *out);
int redist__rowsched_bruck_steps(int64_t P, int d);

/* Step counts of the schedules above (their nsteps), in closed form: nothing is built, O(log K)
   time for any P (rowsched.c derives the forms from Eq. 12). -1 on a bad argument or
   K > INT_MAX. */
int redist__rowsched_indirect_steps(const redist__rx *rx);
int redist__rowsched_hybrid_steps(const redist__rx *rx, int d);
/* Multiphase over the prime factors of K on P processors: the direct steps summed over the
   phases (a factor above P is an all-to-all phase, P - 1 steps) and the number of phases. */
void redist__multiphase_counts(int64_t K, int64_t P, int *steps, int *phases);

/* Frees the steps and empties *s; safe on an empty or partly built schedule. */
void redist__rowsched_free(redist__row_schedule *s);

typedef struct redist__rowsched_stats {
    int64_t steps;                 /* s->nsteps */
    int64_t messages;              /* (step, c) with to[c] != c and at least one unit moved */
    int64_t unit_moves;            /* units moved, a relayed unit once per move */
    int64_t max_units_per_message; /* largest message, in units */
    int64_t relayed_units;         /* units moved more than once */
} redist__rowsched_stats;

/* Simulates s on the K x P table of units. Returns 0 if every step's rows are distinct and in
   range and its to[] is a permutation of the P columns (so every unit is in exactly one place
   at all times), and every unit (i, j) ends in column P_s(i, j); fills *st. Otherwise
   REDIST_ERR_ARG (malformed schedule, or K, P not those of rx), REDIST_ERR_MISMATCH (a unit
   ends in the wrong column) or REDIST_ERR_NOMEM, with *st partly filled. */
int redist__rowsched_check(const redist__rx *rx, const redist__row_schedule *s,
                           redist__rowsched_stats *st);

#endif
