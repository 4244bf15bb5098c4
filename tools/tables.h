/* The tables of Lim, Bhat and Prasanna (paper 000, section 3) for a 1-D cyclic(x) ->
 * cyclic(Kx) redistribution over P processors, or its dual cyclic(Kx) -> cyclic(x):
 *
 *   S   initial distribution table: K x P, column j lists the global block indices (blocks of
 *       x elements) processor p_j holds in the first superblock of P*K blocks, in local order;
 *   R   final distribution table, the same for the destination distribution;
 *   P   destination processor table: S with every block replaced by its destination
 *       processor (Fig. 3a);
 *   P_s, D_s  the generalized circulant form of P and the send data location table
 *       (Theorem 2, Eq. 12 and 13), given only when they hold for the pair (cyclic(x) ->
 *       cyclic(Kx), first owner 0 on both sides).
 *
 * S, R and P are computed from the layout formulas of the two specs, not from the paper's
 * closed forms; P_s and D_s come from Eq. 12/13 and are checked against S and P.
 * Processors are grid coordinates (p_j is coordinate j of the spec's 1-D grid).
 */
#ifndef REDIST_TOOL_TABLES_H
#define REDIST_TOOL_TABLES_H

#include <stdint.h>
#include <stdio.h>

#include "spec.h"

typedef struct tool_tables {
    int P, K;
    int64_t x;           /* the smaller block size */
    int dual;            /* 0: cyclic(x) -> cyclic(Kx); 1: cyclic(Kx) -> cyclic(x) */
    int ranks_differ;    /* the two specs map grid coordinates to different ranks */
    int64_t nblocks;     /* blocks of x elements in the array; entries >= nblocks lie beyond it */
    int64_t *S, *R, *Pt; /* K*P entries each, row i column j at [i*P + j] */
    int have_ps;         /* P_s and D_s below are valid */
    int64_t *Ps, *Ds;
    int G, Kp, Pp; /* gcd(K, P), K/G, P/G */
    int64_t n, m;  /* n*K' - m*P' = 1 */
} tool_tables;

/* Fills t for the pair, or returns -1 with the reason in why (the pair is not a 1-D
   cyclic(x) <-> cyclic(Kx) pair on the same number of processors, or is too large). */
int tables_compute(const tool_spec *from, const tool_spec *to, tool_tables *t, char *why,
                   size_t whylen);
/* Prints S, R, P (and P_s, D_s when valid) as text, each line starting with indent. */
void tables_print(FILE *f, const tool_tables *t, const char *indent);
/* Prints the tables as the value of a JSON object (no trailing newline). */
void tables_print_json(FILE *f, const tool_tables *t);
void tables_free(tool_tables *t);

#endif
