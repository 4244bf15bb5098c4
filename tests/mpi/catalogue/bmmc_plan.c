/* The bad-input catalogue (tests/mpi/test_catalogue.c): redist_plan_create_bmmc. */
#include "catalogue.h"

/* ---- redist_plan_create_bmmc ------------------------------------------------------------- */

enum {
    BM_OK,
    BM_NOT_POW2,
    BM_N_LT_P,
    BM_N_NEG,
    BM_N_65,
    BM_N_64,
    BM_N_62,
    BM_N_HUGE,
    BM_F_NEG,
    BM_F_BIG,
    BM_COLS_NULL,
    BM_SINGULAR,
    BM_STRAY,
    BM_COMPL_STRAY,
    BM_NULL_PLAN,
    BM_ALG_NA,
    BM_ALG_UNKNOWN,
    BM_OPT_PERM,
    BM_OPT_ALPHA,
    BM_OPT_METHOD,
    BM_TYPE_NULL,
    BM_TYPE_VECTOR,
    BM_COMM_NULL,
    BM_COMM_INTER,
    BM_D_COLS,
    BM_D_N,
    BM_D_F,
    BM_D_COMPL,
    BM_D_METHOD,
    BM_D_TYPE,
    BM_SINGULAR_LAST
};

static int run_bmmc_plan(int v)
{
    static const int perm[1] = {0};
    uint64_t cols[64];
    int n = bmmc_n > 0 ? bmmc_n : 8, f = 0, L = rank == last, lg = 0;
    while ((1 << lg) < size)
        lg++;
    uint64_t comp = 0;
    redist_bmmc_identity(n, cols);
    const uint64_t *pc = cols;
    MPI_Datatype t = MPI_DOUBLE;
    MPI_Comm c = MPI_COMM_WORLD;
    redist_options o;
    redist_options_init(&o);
    redist_plan plan = garbage(), *pp = &plan;
    switch (v) {
    case BM_N_LT_P:
        n = 0;
        break;
    case BM_N_NEG:
        n = -1;
        break;
    case BM_N_65:
        n = 65;
        break;
    case BM_N_64: /* 2^64 elements: more than an array may have */
        n = 64;
        redist_bmmc_identity(n, cols);
        break;
    case BM_N_62: /* 2^62 doubles: more bytes than int64_t counts */
        n = 62;
        redist_bmmc_identity(n, cols);
        break;
    case BM_N_HUGE: /* 2^50 doubles */
        n = 50;
        redist_bmmc_identity(n, cols);
        break;
    case BM_F_NEG:
        f = -1;
        break;
    case BM_F_BIG:
        f = n - lg + 1;
        break;
    case BM_COLS_NULL:
        pc = NULL;
        break;
    case BM_SINGULAR:
        cols[1] = cols[0];
        break;
    case BM_STRAY:
        cols[0] |= (uint64_t)1 << n;
        break;
    case BM_COMPL_STRAY:
        comp = (uint64_t)1 << 63;
        break;
    case BM_NULL_PLAN:
        pp = NULL;
        break;
    case BM_ALG_NA:
        o.algorithm = "direct";
        break;
    case BM_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case BM_OPT_PERM:
        o.permutation = perm;
        break;
    case BM_OPT_ALPHA:
        o.alpha[0] = 2;
        break;
    case BM_OPT_METHOD:
        o.bmmc_method = 3;
        break;
    case BM_TYPE_NULL:
        t = MPI_DATATYPE_NULL;
        break;
    case BM_TYPE_VECTOR:
        t = T_vec;
        break;
    case BM_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case BM_COMM_INTER:
        c = inter;
        break;
    case BM_D_COLS: /* a permutation of the local bits on the last rank */
        if (L) {
            uint64_t x = cols[0];
            cols[0] = cols[1];
            cols[1] = x;
        }
        break;
    case BM_D_N:
        n = L ? n + 1 : n;
        redist_bmmc_identity(n, cols);
        break;
    case BM_D_F:
        f = L ? 1 : 0;
        break;
    case BM_D_COMPL:
        comp = L ? 1 : 0;
        break;
    case BM_D_METHOD:
        o.bmmc_method = L ? 2 : 0;
        break;
    case BM_D_TYPE:
        t = L ? MPI_INT : t;
        break;
    case BM_SINGULAR_LAST:
        cols[1] = L ? cols[0] : cols[1];
        break;
    }
    return plan_done(redist_plan_create_bmmc(n, f, pc, comp, t, c, &o, pp), pp);
}

/* The entries of this file, in the catalogue's order. */
void add_bmmc_plan_entries(void)
{
    const char *bm = "redist_plan_create_bmmc";
    E(bm, "valid (sanity)", run_bmmc_plan, BM_OK, OK, NULL, POW2);
    E(bm, "comm size not a power of two", run_bmmc_plan, BM_NOT_POW2, ARG, "power of two",
      NOT_POW2);
    E(bm, "n < lg P", run_bmmc_plan, BM_N_LT_P, ARG, "lg P", POW2 | MULTI);
    E(bm, "n < 0", run_bmmc_plan, BM_N_NEG, ARG, "n = -1", POW2);
    E(bm, "n 65", run_bmmc_plan, BM_N_65, ARG, "n", POW2);
    E(bm, "n 64 (2^64 elements)", run_bmmc_plan, BM_N_64, ARG, "2^62", POW2);
    E(bm, "n 62 of doubles (2^65 bytes)", run_bmmc_plan, BM_N_62, ARG, "2^63 bytes", POW2);
    E(bm, "n 50 (2^50 doubles)", run_bmmc_plan, BM_N_HUGE, NOMEM, NULL, POW2);
    E(bm, "f < 0", run_bmmc_plan, BM_F_NEG, ARG, "f", POW2);
    E(bm, "f > n - lg P", run_bmmc_plan, BM_F_BIG, ARG, "f", POW2);
    E(bm, "columns NULL", run_bmmc_plan, BM_COLS_NULL, ARG, "NULL", POW2);
    E(bm, "a singular matrix", run_bmmc_plan, BM_SINGULAR, ARG, "singular", POW2);
    E(bm, "a column with a bit at or above n", run_bmmc_plan, BM_STRAY, ARG, "column 0", POW2);
    E(bm, "complement with a bit at or above n", run_bmmc_plan, BM_COMPL_STRAY, ARG, "complement",
      POW2);
    E(bm, "plan (output) NULL", run_bmmc_plan, BM_NULL_PLAN, ARG, "plan", POW2);
    E(bm, "algorithm direct", run_bmmc_plan, BM_ALG_NA, NA, "direct", POW2);
    E(bm, "unknown algorithm", run_bmmc_plan, BM_ALG_UNKNOWN, UNK, "no-such-algorithm", POW2);
    E(bm, "options.permutation", run_bmmc_plan, BM_OPT_PERM, ARG, "permutation", POW2);
    E(bm, "options.alpha", run_bmmc_plan, BM_OPT_ALPHA, ARG, "alpha", POW2);
    E(bm, "options.bmmc_method 3", run_bmmc_plan, BM_OPT_METHOD, ARG, "bmmc_method", POW2);
    E(bm, "type MPI_DATATYPE_NULL", run_bmmc_plan, BM_TYPE_NULL, ARG, "MPI_DATATYPE_NULL", POW2);
    E(bm, "a vector type", run_bmmc_plan, BM_TYPE_VECTOR, UNS, "contiguous", POW2);
    E(bm, "comm MPI_COMM_NULL", run_bmmc_plan, BM_COMM_NULL, ARG, "MPI_COMM_NULL", POW2);
    E(bm, "an intercommunicator", run_bmmc_plan, BM_COMM_INTER, UNS, "intercommunicator",
      POW2 | MULTI);
    E(bm, "columns differ on the last rank", run_bmmc_plan, BM_D_COLS, MIS, "columns",
      POW2 | MULTI);
    E(bm, "n differs on the last rank", run_bmmc_plan, BM_D_N, MIS, "n", POW2 | MULTI);
    E(bm, "f differs on the last rank", run_bmmc_plan, BM_D_F, MIS, "f", POW2 | MULTI);
    E(bm, "complement differs on the last rank", run_bmmc_plan, BM_D_COMPL, MIS, "complement",
      POW2 | MULTI);
    E(bm, "options.bmmc_method differs on the last rank", run_bmmc_plan, BM_D_METHOD, MIS,
      "options.bmmc_method", POW2 | MULTI);
    E(bm, "element size differs on the last rank", run_bmmc_plan, BM_D_TYPE, MIS, "element size",
      POW2 | MULTI);
    E(bm, "a singular matrix on the last rank only", run_bmmc_plan, BM_SINGULAR_LAST, ARG,
      "singular", POW2 | MULTI);
}
