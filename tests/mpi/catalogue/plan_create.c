/* The bad-input catalogue (tests/mpi/test_catalogue.c): redist_plan_create. */
#include "catalogue.h"

/* ---- redist_plan_create ------------------------------------------------------------------ */

enum {
    PC_OK,
    PC_NULL_OPT,
    PC_SAME_LAYOUT,
    PC_NULL_PLAN,
    PC_NULL_PLAN_LAST,
    PC_NULL_SRC,
    PC_NULL_DST_LAST,
    PC_TYPE_NULL,
    PC_TYPE_NULL_LAST,
    PC_TYPE_VECTOR,
    PC_TYPE_RESIZED,
    PC_TYPE_PADDED,
    PC_TYPE_VECTOR_LAST,
    PC_TYPE_UNCOMMITTED,
    PC_TYPE_UNCOMMITTED_EXEC,
    PC_COMM_NULL,
    PC_COMM_INTER,
    PC_COMM_SELF,
    PC_RANK_BEYOND,
    PC_RANK_BEYOND_LAST,
    PC_SHAPES,
    PC_NDIMS,
    PC_LD_SMALL_LAST,
    PC_ALG_UNKNOWN,
    PC_ALG_EMPTY,
    PC_ALG_CASE,
    PC_ALG_UNKNOWN_LAST,
    PC_ALG_NA,
    PC_OPT_CHECK,
    PC_OPT_SHM,
    PC_OPT_TRANSPORT,
    PC_OPT_TRANSPORT_NEG,
    PC_OPT_HYBRID,
    PC_OPT_BMMC_METHOD,
    PC_OPT_SYNC,
    PC_OPT_CONJ,
    PC_OPT_MAXBUF_NEG,
    PC_OPT_MAXBUF_ONE,
    PC_OPT_MAXBUF_DATATYPE,
    PC_OPT_MAXBUF_NA,
    PC_OPT_A2A_UNKNOWN,
    PC_PERM_OK,
    PC_PERM_RANGE,
    PC_PERM_DUP,
    PC_PERM_SHAPE,
    PC_ALPHA_INT,
    PC_CONJ_INT,
    PC_ALPHA_IMAG_REAL,
    PC_ALPHA_DATATYPE,
    PC_ALPHA_ALLTOALLW,
    PC_D_SRC_BLOCK,
    PC_D_SRC_RANKS,
    PC_D_SRC_FIRST,
    PC_D_SRC_ORDER,
    PC_D_EXTENT,
    PC_D_DST_GRID,
    PC_D_NDIMS,
    PC_D_GEN,
    PC_D_WINDOW,
    PC_D_LD,
    PC_D_TYPE_SIZE,
    PC_D_TYPE_SAME_SIZE,
    PC_D_ALG,
    PC_D_ALG_AUTO,
    PC_D_OPT_NULL,
    PC_D_CHECK,
    PC_D_SHM,
    PC_D_TRANSPORT,
    PC_D_MAXBUF,
    PC_D_HYBRID,
    PC_D_BMMC_METHOD,
    PC_D_SYNC,
    PC_D_A2A,
    PC_D_A2A_NULL,
    PC_D_PERM,
    PC_D_PERM_IDENTITY,
    PC_D_ALPHA,
    PC_D_BETA,
    PC_D_CONJ,
    PC_TWO_ERRORS,
    PC_ERROR_AND_MISMATCH
};

static int run_plan_create(int v)
{
    static const int perm10[2] = {1, 0}, perm01[2] = {0, 1}, perm00[2] = {0, 0}, perm02[2] = {0, 2};
    redist_layout s = Ls, d = Ld;
    MPI_Datatype t = MPI_INT;
    MPI_Comm c = MPI_COMM_WORLD;
    redist_options o;
    redist_options_init(&o);
    const redist_options *po = &o;
    redist_plan plan = garbage(), *pp = &plan;
    int L = rank == last; /* the rank whose argument differs */
    switch (v) {
    case PC_NULL_OPT:
        po = NULL;
        break;
    case PC_SAME_LAYOUT:
        d = s;
        break;
    case PC_NULL_PLAN:
        pp = NULL;
        break;
    case PC_NULL_PLAN_LAST:
        pp = L ? NULL : pp;
        break;
    case PC_NULL_SRC:
        s = NULL;
        break;
    case PC_NULL_DST_LAST:
        d = L ? NULL : d;
        break;
    case PC_TYPE_NULL:
        t = MPI_DATATYPE_NULL;
        break;
    case PC_TYPE_NULL_LAST:
        t = L ? MPI_DATATYPE_NULL : t;
        break;
    case PC_TYPE_VECTOR:
        t = T_vec;
        break;
    case PC_TYPE_RESIZED:
        t = T_resized;
        break;
    case PC_TYPE_PADDED:
        t = MPI_DOUBLE_INT;
        break;
    case PC_TYPE_VECTOR_LAST:
        t = L ? T_vec : t;
        break;
    case PC_TYPE_UNCOMMITTED:
        t = T_uncommitted;
        break;
    case PC_TYPE_UNCOMMITTED_EXEC: { /* alltoallv hands the plan's type to MPI */
        o.algorithm = "alltoallv";
        int rc = plan_done(redist_plan_create(s, d, T_uncommitted, c, &o, pp), NULL);
        if (all_ranks(rc == REDIST_SUCCESS)) {
            rc = redist_execute(plan, S, D);
            redist_plan_free(&plan);
        }
        return rc;
    }
    case PC_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case PC_COMM_INTER:
        c = inter;
        break;
    case PC_COMM_SELF:
        c = MPI_COMM_SELF;
        break;
    case PC_RANK_BEYOND:
        s = L_beyond;
        break;
    case PC_RANK_BEYOND_LAST:
        d = L ? L_beyond : d;
        break;
    case PC_SHAPES:
        d = Ld_n1;
        break;
    case PC_NDIMS:
        d = L2d;
        break;
    case PC_LD_SMALL_LAST:
        s = L ? L2s_ld_small : L2s;
        d = L2d;
        break;
    case PC_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case PC_ALG_EMPTY:
        o.algorithm = "";
        break;
    case PC_ALG_CASE:
        o.algorithm = "DIRECT";
        break;
    case PC_ALG_UNKNOWN_LAST:
        o.algorithm = L ? "no-such-algorithm" : "direct";
        break;
    case PC_ALG_NA: /* a layout pair is no BMMC permutation */
        o.algorithm = "bmmc";
        break;
    case PC_OPT_CHECK:
        o.check_arguments = 42;
        break;
    case PC_OPT_SHM:
        o.shared_memory = 2;
        break;
    case PC_OPT_TRANSPORT:
        o.transport = 7;
        break;
    case PC_OPT_TRANSPORT_NEG:
        o.transport = -1;
        break;
    case PC_OPT_HYBRID:
        o.hybrid_degree = -5;
        break;
    case PC_OPT_BMMC_METHOD:
        o.bmmc_method = 3;
        break;
    case PC_OPT_SYNC:
        o.synchronous_receive = -1;
        break;
    case PC_OPT_CONJ:
        o.conjugate = 2;
        break;
    case PC_OPT_MAXBUF_NEG:
        o.max_buffer_bytes = INT64_MIN;
        break;
    case PC_OPT_MAXBUF_ONE:
        o.max_buffer_bytes = 1;
        break;
    case PC_OPT_MAXBUF_DATATYPE:
        o.max_buffer_bytes = 4096;
        o.transport = REDIST_TRANSPORT_DATATYPE;
        break;
    case PC_OPT_MAXBUF_NA:
        o.max_buffer_bytes = 4096;
        o.algorithm = "alltoallv";
        break;
    case PC_OPT_A2A_UNKNOWN:
        o.algorithm = "alltoall-padded";
        o.alltoall_algorithm = "bogus";
        break;
    case PC_PERM_OK:
        s = L2s;
        d = L2t;
        o.permutation = perm10;
        break;
    case PC_PERM_RANGE:
        s = L2s;
        d = L2t;
        o.permutation = perm02;
        break;
    case PC_PERM_DUP:
        s = L2s;
        d = L2t;
        o.permutation = perm00;
        break;
    case PC_PERM_SHAPE:
        s = L2s;
        d = L2d;
        o.permutation = perm10;
        break;
    case PC_ALPHA_INT:
        o.alpha[0] = 2;
        break;
    case PC_CONJ_INT:
        o.conjugate = 1;
        break;
    case PC_ALPHA_IMAG_REAL:
        t = MPI_DOUBLE;
        o.alpha[1] = 1;
        break;
    case PC_ALPHA_DATATYPE:
        t = MPI_DOUBLE;
        o.alpha[0] = 2;
        o.transport = REDIST_TRANSPORT_DATATYPE;
        break;
    case PC_ALPHA_ALLTOALLW:
        t = MPI_DOUBLE;
        o.alpha[0] = 2;
        o.algorithm = "alltoallw";
        break;
    case PC_D_SRC_BLOCK:
        s = L ? Ls_b5 : s;
        break;
    case PC_D_SRC_RANKS:
        s = L ? Ls_rev : s;
        break;
    case PC_D_SRC_FIRST:
        s = L ? Ls_first : s;
        break;
    case PC_D_SRC_ORDER:
        s = L ? Ls_col : s;
        break;
    case PC_D_EXTENT:
        s = L ? Ls_n1 : s;
        d = L ? Ld_n1 : d;
        break;
    case PC_D_DST_GRID:
        d = L ? Ld_sub : d;
        break;
    case PC_D_NDIMS:
        s = L ? L2s : s;
        d = L ? L2d : d;
        break;
    case PC_D_GEN:
        s = L ? Lgen2 : Lgen;
        break;
    case PC_D_WINDOW:
        s = L ? Lw2 : Lw1;
        break;
    case PC_D_LD: /* each rank's own padding: legal */
        s = L2s_ld;
        d = L2d;
        break;
    case PC_D_TYPE_SIZE:
        t = L ? MPI_DOUBLE : t;
        break;
    case PC_D_TYPE_SAME_SIZE: /* the element size is compared, not the type: legal */
        t = L ? MPI_FLOAT : t;
        break;
    case PC_D_ALG:
        o.algorithm = L ? "direct" : "direct-async";
        break;
    case PC_D_ALG_AUTO: /* NULL and "auto" are the same choice: legal */
        o.algorithm = L ? NULL : "auto";
        break;
    case PC_D_OPT_NULL: /* NULL options and initialised defaults agree: legal */
        po = L ? NULL : po;
        break;
    case PC_D_CHECK:
        o.check_arguments = !L;
        break;
    case PC_D_SHM:
        o.shared_memory = !L;
        break;
    case PC_D_TRANSPORT:
        o.transport = L ? REDIST_TRANSPORT_PACK : REDIST_TRANSPORT_DATATYPE;
        break;
    case PC_D_MAXBUF:
        o.max_buffer_bytes = L ? 4096 : 0;
        break;
    case PC_D_HYBRID:
        o.hybrid_degree = L ? 2 : -1;
        break;
    case PC_D_BMMC_METHOD:
        o.bmmc_method = L ? 1 : 0;
        break;
    case PC_D_SYNC:
        o.synchronous_receive = L;
        break;
    case PC_D_A2A:
        o.algorithm = "alltoall-padded";
        o.alltoall_algorithm = L ? "ring" : "pairwise";
        break;
    case PC_D_A2A_NULL:
        o.algorithm = "alltoall-padded";
        o.alltoall_algorithm = L ? NULL : "auto";
        break;
    case PC_D_PERM:
        s = Lsq_s;
        d = Lsq_d;
        o.permutation = L ? perm10 : NULL;
        break;
    case PC_D_PERM_IDENTITY: /* the same effect, compared as given */
        s = Lsq_s;
        d = Lsq_d;
        o.permutation = L ? perm01 : NULL;
        break;
    case PC_D_ALPHA:
        t = MPI_DOUBLE;
        o.alpha[0] = L ? 2 : 1;
        break;
    case PC_D_BETA:
        t = MPI_DOUBLE;
        o.beta[0] = L ? 1 : 0;
        break;
    case PC_D_CONJ:
        t = MPI_C_DOUBLE_COMPLEX;
        o.conjugate = L;
        break;
    case PC_TWO_ERRORS: /* ARG on rank 0, UNKNOWN_ALGORITHM on the last: the smallest code */
        s = rank == 0 ? NULL : s;
        o.algorithm = L ? "no-such-algorithm" : NULL;
        break;
    case PC_ERROR_AND_MISMATCH: /* a bad argument on one rank beats a difference elsewhere */
        s = rank == 0 ? Ls_b5 : s;
        pp = L ? NULL : pp;
        break;
    }
    return plan_done(redist_plan_create(s, d, t, c, po, pp), pp);
}

/* The entries of this file, in the catalogue's order. */
void add_plan_create_entries(void)
{
    const char *pc = "redist_plan_create";
    E(pc, "valid (sanity)", run_plan_create, PC_OK, OK, NULL, ANY);
    E(pc, "options NULL (the defaults)", run_plan_create, PC_NULL_OPT, OK, NULL, ANY);
    E(pc, "one layout object as src and dst (legal)", run_plan_create, PC_SAME_LAYOUT, OK, NULL,
      ANY);
    E(pc, "plan (output) NULL", run_plan_create, PC_NULL_PLAN, ARG, "plan", ANY);
    E(pc, "plan (output) NULL on the last rank only", run_plan_create, PC_NULL_PLAN_LAST, ARG,
      "plan", MULTI);
    E(pc, "src NULL", run_plan_create, PC_NULL_SRC, ARG, "src layout is NULL", ANY);
    E(pc, "dst NULL on the last rank only", run_plan_create, PC_NULL_DST_LAST, ARG,
      "dst layout is NULL", MULTI);
    E(pc, "type MPI_DATATYPE_NULL", run_plan_create, PC_TYPE_NULL, ARG, "MPI_DATATYPE_NULL", ANY);
    E(pc, "type MPI_DATATYPE_NULL on the last rank only", run_plan_create, PC_TYPE_NULL_LAST, ARG,
      "MPI_DATATYPE_NULL", MULTI);
    E(pc, "a vector type with gaps", run_plan_create, PC_TYPE_VECTOR, UNS, "contiguous", ANY);
    E(pc, "a resized type (extent > size)", run_plan_create, PC_TYPE_RESIZED, UNS, "contiguous",
      ANY);
    E(pc, "a padded pair type (MPI_DOUBLE_INT)", run_plan_create, PC_TYPE_PADDED, UNS, "contiguous",
      ANY);
    E(pc, "a vector type on the last rank only", run_plan_create, PC_TYPE_VECTOR_LAST, UNS,
      "contiguous", MULTI);
    E(pc, "an uncommitted contiguous type (the plan commits its duplicate)", run_plan_create,
      PC_TYPE_UNCOMMITTED, OK, NULL, ANY);
    E(pc, "an uncommitted contiguous type, alltoallv, executed", run_plan_create,
      PC_TYPE_UNCOMMITTED_EXEC, OK, NULL, ANY);
    E(pc, "comm MPI_COMM_NULL", run_plan_create, PC_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(pc, "an intercommunicator", run_plan_create, PC_COMM_INTER, UNS, "intercommunicator", MULTI);
    E(pc, "MPI_COMM_SELF with layouts over all ranks", run_plan_create, PC_COMM_SELF, ARG,
      "communicator has 1", MULTI);
    E(pc, "a layout rank == comm size", run_plan_create, PC_RANK_BEYOND, ARG, "uses rank", ANY);
    E(pc, "a layout rank == comm size on the last rank only", run_plan_create, PC_RANK_BEYOND_LAST,
      ARG, "uses rank", MULTI);
    E(pc, "src and dst extents differ", run_plan_create, PC_SHAPES, ARG, "different arrays", ANY);
    E(pc, "src and dst ndims differ", run_plan_create, PC_NDIMS, ARG, "different arrays", ANY);
    E(pc, "ld below the local extent on the last rank only", run_plan_create, PC_LD_SMALL_LAST, ARG,
      "ld[1]", MULTI);
    E(pc, "unknown algorithm", run_plan_create, PC_ALG_UNKNOWN, UNK, "no-such-algorithm", ANY);
    E(pc, "algorithm \"\"", run_plan_create, PC_ALG_EMPTY, UNK, "unknown algorithm", ANY);
    E(pc, "algorithm \"DIRECT\" (names are case-sensitive)", run_plan_create, PC_ALG_CASE, UNK,
      "DIRECT", ANY);
    E(pc, "unknown algorithm on the last rank only", run_plan_create, PC_ALG_UNKNOWN_LAST, UNK,
      "no-such-algorithm", MULTI);
    E(pc, "algorithm bmmc for a layout pair", run_plan_create, PC_ALG_NA, NA, "bmmc", ANY);
    E(pc, "options.check_arguments 42", run_plan_create, PC_OPT_CHECK, ARG, "check_arguments", ANY);
    E(pc, "options.shared_memory 2", run_plan_create, PC_OPT_SHM, ARG, "shared_memory", ANY);
    E(pc, "options.transport 7", run_plan_create, PC_OPT_TRANSPORT, ARG, "transport", ANY);
    E(pc, "options.transport -1", run_plan_create, PC_OPT_TRANSPORT_NEG, ARG, "transport", ANY);
    E(pc, "options.hybrid_degree -5", run_plan_create, PC_OPT_HYBRID, ARG, "hybrid_degree", ANY);
    E(pc, "options.bmmc_method 3", run_plan_create, PC_OPT_BMMC_METHOD, ARG, "bmmc_method", ANY);
    E(pc, "options.synchronous_receive -1", run_plan_create, PC_OPT_SYNC, ARG,
      "synchronous_receive", ANY);
    E(pc, "options.conjugate 2", run_plan_create, PC_OPT_CONJ, ARG, "conjugate", ANY);
    E(pc, "options.max_buffer_bytes INT64_MIN", run_plan_create, PC_OPT_MAXBUF_NEG, ARG,
      "max_buffer_bytes", ANY);
    E(pc, "options.max_buffer_bytes 1 (< two elements)", run_plan_create, PC_OPT_MAXBUF_ONE, ARG,
      "max_buffer_bytes", ANY);
    E(pc, "options.max_buffer_bytes with the datatype transport", run_plan_create,
      PC_OPT_MAXBUF_DATATYPE, ARG, "max_buffer_bytes", ANY);
    E(pc, "options.max_buffer_bytes with alltoallv", run_plan_create, PC_OPT_MAXBUF_NA, NA,
      "alltoallv", ANY);
    E(pc, "options.alltoall_algorithm unknown", run_plan_create, PC_OPT_A2A_UNKNOWN, UNK, "bogus",
      ANY);
    E(pc, "options.permutation (1, 0) (sanity)", run_plan_create, PC_PERM_OK, OK, NULL, ANY);
    E(pc, "options.permutation entry out of range", run_plan_create, PC_PERM_RANGE, ARG,
      "permutation[1]", ANY);
    E(pc, "options.permutation entry repeated", run_plan_create, PC_PERM_DUP, ARG, "permutation[1]",
      ANY);
    E(pc, "options.permutation against dst's extents", run_plan_create, PC_PERM_SHAPE, ARG,
      "permutation", ANY);
    E(pc, "options.alpha with MPI_INT", run_plan_create, PC_ALPHA_INT, ARG, "alpha", ANY);
    E(pc, "options.conjugate with MPI_INT", run_plan_create, PC_CONJ_INT, ARG, "conjugate", ANY);
    E(pc, "a complex alpha with MPI_DOUBLE", run_plan_create, PC_ALPHA_IMAG_REAL, ARG, "complex",
      ANY);
    E(pc, "options.alpha with the datatype transport", run_plan_create, PC_ALPHA_DATATYPE, ARG,
      "alpha", ANY);
    E(pc, "options.alpha with alltoallw", run_plan_create, PC_ALPHA_ALLTOALLW, NA, "alltoallw",
      ANY);
    E(pc, "src block differs on the last rank", run_plan_create, PC_D_SRC_BLOCK, MIS, "src block",
      MULTI);
    E(pc, "src ranks differ on the last rank", run_plan_create, PC_D_SRC_RANKS, MIS, "src ranks",
      MULTI);
    E(pc, "src first differs on the last rank", run_plan_create, PC_D_SRC_FIRST, MIS, "src first",
      MULTI);
    E(pc, "src order differs on the last rank", run_plan_create, PC_D_SRC_ORDER, MIS, "src order",
      MULTI);
    E(pc, "extents differ on the last rank", run_plan_create, PC_D_EXTENT, MIS, "src extent",
      MULTI);
    E(pc, "dst grid differs on the last rank", run_plan_create, PC_D_DST_GRID, MIS, "dst grid",
      MULTI);
    E(pc, "ndims differ on the last rank", run_plan_create, PC_D_NDIMS, MIS, "src ndims", MULTI);
    E(pc, "irregular block sizes differ on the last rank", run_plan_create, PC_D_GEN, MIS,
      "src block", MULTI);
    E(pc, "a window's offset differs on the last rank", run_plan_create, PC_D_WINDOW, MIS,
      "src window offset", MULTI);
    E(pc, "ld differs between ranks (legal: each rank's own)", run_plan_create, PC_D_LD, OK, NULL,
      ANY);
    E(pc, "element size differs on the last rank", run_plan_create, PC_D_TYPE_SIZE, MIS,
      "element size", MULTI);
    E(pc, "MPI_FLOAT on the last rank, MPI_INT elsewhere (same size: legal)", run_plan_create,
      PC_D_TYPE_SAME_SIZE, OK, NULL, ANY);
    E(pc, "algorithm differs on the last rank", run_plan_create, PC_D_ALG, MIS, "algorithm", MULTI);
    E(pc, "algorithm NULL on the last rank, \"auto\" elsewhere (legal)", run_plan_create,
      PC_D_ALG_AUTO, OK, NULL, ANY);
    E(pc, "options NULL on the last rank, defaults elsewhere (legal)", run_plan_create,
      PC_D_OPT_NULL, OK, NULL, ANY);
    E(pc, "options.check_arguments differs on the last rank", run_plan_create, PC_D_CHECK, MIS,
      "options.check_arguments", MULTI);
    E(pc, "options.shared_memory differs on the last rank", run_plan_create, PC_D_SHM, MIS,
      "options.shared_memory", MULTI);
    E(pc, "options.transport differs on the last rank", run_plan_create, PC_D_TRANSPORT, MIS,
      "options.transport", MULTI);
    E(pc, "options.max_buffer_bytes differs on the last rank", run_plan_create, PC_D_MAXBUF, MIS,
      "options.max_buffer_bytes", MULTI);
    E(pc, "options.hybrid_degree differs on the last rank", run_plan_create, PC_D_HYBRID, MIS,
      "options.hybrid_degree", MULTI);
    E(pc, "options.bmmc_method differs on the last rank", run_plan_create, PC_D_BMMC_METHOD, MIS,
      "options.bmmc_method", MULTI);
    E(pc, "options.synchronous_receive differs on the last rank", run_plan_create, PC_D_SYNC, MIS,
      "options.synchronous_receive", MULTI);
    E(pc, "options.alltoall_algorithm differs on the last rank", run_plan_create, PC_D_A2A, MIS,
      "options.alltoall_algorithm", MULTI);
    E(pc, "options.alltoall_algorithm NULL on the last rank, \"auto\" elsewhere", run_plan_create,
      PC_D_A2A_NULL, MIS, "options.alltoall_algorithm", MULTI);
    E(pc, "options.permutation on the last rank only", run_plan_create, PC_D_PERM, MIS,
      "options.permutation", MULTI);
    E(pc, "the identity permutation on the last rank, NULL elsewhere", run_plan_create,
      PC_D_PERM_IDENTITY, MIS, "options.permutation", MULTI);
    E(pc, "options.alpha differs on the last rank", run_plan_create, PC_D_ALPHA, MIS,
      "options.alpha", MULTI);
    E(pc, "options.beta differs on the last rank", run_plan_create, PC_D_BETA, MIS, "options.beta",
      MULTI);
    E(pc, "options.conjugate differs on the last rank", run_plan_create, PC_D_CONJ, MIS,
      "options.conjugate", MULTI);
    E(pc, "ARG on rank 0, UNKNOWN_ALGORITHM on the last: the smallest code", run_plan_create,
      PC_TWO_ERRORS, UNK, "no-such-algorithm", MULTI);
    E(pc, "a bad argument on the last rank, a difference on rank 0: the error", run_plan_create,
      PC_ERROR_AND_MISMATCH, ARG, "plan", MULTI);
}
