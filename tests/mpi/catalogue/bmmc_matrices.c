/* The bad-input catalogue (tests/mpi/test_catalogue.c): the BMMC matrices. */
#include "catalogue.h"

/* ---- BMMC matrices (local) --------------------------------------------------------------- */

enum {
    BX_IDENT_NEG,
    BX_IDENT_65,
    BX_IDENT_NULL,
    BX_IDENT_NULL_N0,
    BX_TRANS_NEG,
    BX_TRANS_BIG,
    BX_TRANS_NULL,
    BX_BITREV_N,
    BX_VREV_NULL_C,
    BX_GRAY_N,
    BX_GRAYINV_NULL,
    BX_SHUFFLE_N,
    BX_SHUFFLE_KMIN,
    BX_LAYOUT_P_BIG,
    BX_LAYOUT_P_NEG,
    BX_LAYOUT_F_BIG,
    BX_LAYOUT_F_NEG,
    BX_LAYOUTINV_F_BIG,
    BX_COMPOSE_STRAY,
    BX_COMPOSE_C_STRAY,
    BX_COMPOSE_NULL_B,
    BX_COMPOSE_NULL_COUT,
    BX_INVERSE_SINGULAR,
    BX_INVERSE_NULL_OUT,
    BX_RANK_NULL,
    BX_RANK_STRAY,
    BX_RANK_N,
    BX_APPLY_BAD
};

static int run_bmmc_matrix(int v)
{
    uint64_t a[64], b[64], out[64], c = 0;
    redist_bmmc_identity(10, a);
    redist_bmmc_identity(10, b);
    switch (v) {
    case BX_IDENT_NEG:
        return redist_bmmc_identity(-1, out);
    case BX_IDENT_65:
        return redist_bmmc_identity(65, out);
    case BX_IDENT_NULL:
        return redist_bmmc_identity(10, NULL);
    case BX_IDENT_NULL_N0: /* an empty matrix needs no storage */
        return redist_bmmc_identity(0, NULL);
    case BX_TRANS_NEG:
        return redist_bmmc_transpose(-1, 3, out);
    case BX_TRANS_BIG:
        return redist_bmmc_transpose(40, 30, out);
    case BX_TRANS_NULL:
        return redist_bmmc_transpose(2, 3, NULL);
    case BX_BITREV_N:
        return redist_bmmc_bit_reversal(INT_MAX, out);
    case BX_VREV_NULL_C:
        return redist_bmmc_vector_reversal(10, out, NULL);
    case BX_GRAY_N:
        return redist_bmmc_gray(-5, out);
    case BX_GRAYINV_NULL:
        return redist_bmmc_gray_inverse(4, NULL);
    case BX_SHUFFLE_N:
        return redist_bmmc_shuffle(70, 1, out);
    case BX_SHUFFLE_KMIN: /* any k is legal, INT_MIN too */
        return redist_bmmc_shuffle(10, INT_MIN, out);
    case BX_LAYOUT_P_BIG:
        return redist_bmmc_layout(5, 6, 0, out);
    case BX_LAYOUT_P_NEG:
        return redist_bmmc_layout(5, -1, 0, out);
    case BX_LAYOUT_F_BIG:
        return redist_bmmc_layout(10, 3, 8, out);
    case BX_LAYOUT_F_NEG:
        return redist_bmmc_layout(10, 3, -1, out);
    case BX_LAYOUTINV_F_BIG:
        return redist_bmmc_layout_inverse(10, 3, INT_MAX, out);
    case BX_COMPOSE_STRAY:
        a[3] |= (uint64_t)1 << 10;
        return redist_bmmc_compose(10, a, 0, b, 0, out, &c);
    case BX_COMPOSE_C_STRAY:
        return redist_bmmc_compose(10, a, (uint64_t)1 << 63, b, 0, out, &c);
    case BX_COMPOSE_NULL_B:
        return redist_bmmc_compose(10, a, 0, NULL, 0, out, &c);
    case BX_COMPOSE_NULL_COUT:
        return redist_bmmc_compose(10, a, 0, b, 0, out, NULL);
    case BX_INVERSE_SINGULAR:
        a[4] = a[5];
        return redist_bmmc_inverse(10, a, 0, out, &c);
    case BX_INVERSE_NULL_OUT:
        return redist_bmmc_inverse(10, a, 0, NULL, &c);
    case BX_RANK_NULL:
        return redist_bmmc_rank(10, NULL);
    case BX_RANK_STRAY:
        a[9] = ~(uint64_t)0;
        return redist_bmmc_rank(10, a);
    case BX_RANK_N:
        return redist_bmmc_rank(-1, a);
    case BX_APPLY_BAD: /* no code to return: bad n or a NULL matrix gives c, never a crash */
        return redist_bmmc_apply(-1, a, 5, 3) == 5 && redist_bmmc_apply(65, a, 6, 3) == 6 &&
                       redist_bmmc_apply(10, NULL, 7, 3) == 7
                   ? REDIST_SUCCESS
                   : NOT_AS_DOCUMENTED;
    }
    return NOT_AS_DOCUMENTED;
}

/* The entries of this file, in the catalogue's order. */
void add_bmmc_matrix_entries(void)
{
    E("redist_bmmc_identity", "n < 0", run_bmmc_matrix, BX_IDENT_NEG, ARG, "n = -1", ANY);
    E("redist_bmmc_identity", "n 65", run_bmmc_matrix, BX_IDENT_65, ARG, "n = 65", ANY);
    E("redist_bmmc_identity", "columns NULL", run_bmmc_matrix, BX_IDENT_NULL, ARG, "NULL", ANY);
    E("redist_bmmc_identity", "n 0, columns NULL (legal)", run_bmmc_matrix, BX_IDENT_NULL_N0, OK,
      NULL, ANY);
    E("redist_bmmc_transpose", "a < 0", run_bmmc_matrix, BX_TRANS_NEG, ARG, "a = -1", ANY);
    E("redist_bmmc_transpose", "a + b > 64", run_bmmc_matrix, BX_TRANS_BIG, ARG, "a + b", ANY);
    E("redist_bmmc_transpose", "columns NULL", run_bmmc_matrix, BX_TRANS_NULL, ARG, "NULL", ANY);
    E("redist_bmmc_bit_reversal", "n INT_MAX", run_bmmc_matrix, BX_BITREV_N, ARG, "n =", ANY);
    E("redist_bmmc_vector_reversal", "complement NULL", run_bmmc_matrix, BX_VREV_NULL_C, ARG,
      "complement", ANY);
    E("redist_bmmc_gray", "n < 0", run_bmmc_matrix, BX_GRAY_N, ARG, "n =", ANY);
    E("redist_bmmc_gray_inverse", "columns NULL", run_bmmc_matrix, BX_GRAYINV_NULL, ARG, "NULL",
      ANY);
    E("redist_bmmc_shuffle", "n 70", run_bmmc_matrix, BX_SHUFFLE_N, ARG, "n =", ANY);
    E("redist_bmmc_shuffle", "k INT_MIN (legal)", run_bmmc_matrix, BX_SHUFFLE_KMIN, OK, NULL, ANY);
    E("redist_bmmc_layout", "p > n", run_bmmc_matrix, BX_LAYOUT_P_BIG, ARG, "p", ANY);
    E("redist_bmmc_layout", "p < 0", run_bmmc_matrix, BX_LAYOUT_P_NEG, ARG, "p", ANY);
    E("redist_bmmc_layout", "f > n - p", run_bmmc_matrix, BX_LAYOUT_F_BIG, ARG, "f", ANY);
    E("redist_bmmc_layout", "f < 0", run_bmmc_matrix, BX_LAYOUT_F_NEG, ARG, "f", ANY);
    E("redist_bmmc_layout_inverse", "f INT_MAX", run_bmmc_matrix, BX_LAYOUTINV_F_BIG, ARG, "f",
      ANY);
    E("redist_bmmc_compose", "a column with a bit at or above n", run_bmmc_matrix, BX_COMPOSE_STRAY,
      ARG, "column 3", ANY);
    E("redist_bmmc_compose", "a complement with a bit at or above n", run_bmmc_matrix,
      BX_COMPOSE_C_STRAY, ARG, "complement", ANY);
    E("redist_bmmc_compose", "b NULL", run_bmmc_matrix, BX_COMPOSE_NULL_B, ARG, "NULL", ANY);
    E("redist_bmmc_compose", "cout NULL", run_bmmc_matrix, BX_COMPOSE_NULL_COUT, ARG, "cout", ANY);
    E("redist_bmmc_inverse", "a singular matrix", run_bmmc_matrix, BX_INVERSE_SINGULAR, ARG,
      "singular", ANY);
    E("redist_bmmc_inverse", "out NULL", run_bmmc_matrix, BX_INVERSE_NULL_OUT, ARG, "NULL", ANY);
    E("redist_bmmc_rank", "a NULL", run_bmmc_matrix, BX_RANK_NULL, ARG, "NULL", ANY);
    E("redist_bmmc_rank", "a column with bits above n", run_bmmc_matrix, BX_RANK_STRAY, ARG,
      "column 9", ANY);
    E("redist_bmmc_rank", "n < 0", run_bmmc_matrix, BX_RANK_N, ARG, "n =", ANY);
    EF("redist_bmmc_apply", "n < 0, n 65, a NULL: returns c, no crash", run_bmmc_matrix,
       BX_APPLY_BAD, OK, NULL, ANY, F_NO_DETAIL);
}
