/* The bad-input catalogue (tests/mpi/test_catalogue.c): the basic operations. */
#include "catalogue.h"

/* ---- the basic operations ---------------------------------------------------------------- */

enum {
    OP_BCAST,
    OP_REDUCE,
    OP_ALLREDUCE,
    OP_SCAN,
    OP_SCATTER,
    OP_GATHER,
    OP_ALLGATHER,
    OP_REDUCE_SCATTER,
    OP_ALLTOALL,
    OP_SHIFT,
    NOPS
};
static const char *const op_names[NOPS] = {
    "redist_bcast",    "redist_reduce", "redist_allreduce", "redist_scan",
    "redist_scatter",  "redist_gather", "redist_allgather", "redist_reduce_scatter",
    "redist_alltoall", "redist_shift"};
/* Two valid algorithm names of each (for the "differs" class). */
static const char *const op_algs[NOPS][2] = {
    {"tree", "ring"},      {"tree", "ring"},     {"reduce-bcast", "hypercube"},
    {"hypercube", "ring"}, {"tree", "linear"},   {"tree", "linear"},
    {"ring", "mesh"},      {"ring", "pairwise"}, {"ring", "pairwise"},
    {"ring", "mesh"}};

static int has_root(int op)
{
    return op == OP_BCAST || op == OP_REDUCE || op == OP_SCATTER || op == OP_GATHER;
}
static int has_op(int op)
{
    return op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_SCAN || op == OP_REDUCE_SCATTER;
}

enum {
    CC_OK,
    CC_ZERO_NULL,
    CC_COUNT_NEG,
    CC_COUNT_HUGE,
    CC_COUNT_DIFFERS,
    CC_TYPE_NULL,
    CC_TYPE_NULL_LAST,
    CC_TYPE_VECTOR,
    CC_TYPE_SIZE_DIFFERS,
    CC_TYPE_UNCOMMITTED,
    CC_TYPE_MIXED,
    CC_OP_TYPE_INVALID,
    CC_OP_TYPE_INVALID_IN_PLACE,
    CC_OP_USER_UNCOMMITTED,
    CC_OP_MIXED,
    CC_OP_PAIRS,
    CC_OP_MAXLOC_INT,
    CC_OP_CHAR,
    CC_OP_LAND_DOUBLE,
    CC_OP_REPLACE,
    CC_OP_NO_OP,
    CC_OP_F90,
    CC_COMM_NULL,
    CC_COMM_INTER,
    CC_ALG_UNKNOWN,
    CC_ALG_UNKNOWN_LAST,
    CC_ALG_DIFFERS,
    CC_ALG_HYPERCUBE,
    CC_SEND_NULL,
    CC_SEND_NULL_LAST,
    CC_RECV_NULL,
    CC_IN_PLACE_BAD,
    CC_IN_PLACE_BAD_LAST,
    CC_ROOT_NEG,
    CC_ROOT_SIZE,
    CC_ROOT_DIFFERS,
    CC_OP_NULL,
    CC_OP_DIFFERS,
    CC_OP_COMMUTE_DIFFERS,
    CC_SHIFT_DIFFERS,
    CC_SHIFT_EXTREME,
    CC_CHECKING_OFF_BAD,
    NCLASSES
};

static int call_op(int op, const void *s, void *r, int64_t count, MPI_Datatype t, MPI_Op o,
                   int root, int shift, MPI_Comm c, const char *alg)
{
    switch (op) {
    case OP_BCAST:
        return redist_bcast((void *)s, count, t, root, c, alg);
    case OP_REDUCE:
        return redist_reduce(s, r, count, t, o, root, c, alg);
    case OP_ALLREDUCE:
        return redist_allreduce(s, r, count, t, o, c, alg);
    case OP_SCAN:
        return redist_scan(s, r, count, t, o, c, alg);
    case OP_SCATTER:
        return redist_scatter(s, r, count, t, root, c, alg);
    case OP_GATHER:
        return redist_gather(s, r, count, t, root, c, alg);
    case OP_ALLGATHER:
        return redist_allgather(s, r, count, t, c, alg);
    case OP_REDUCE_SCATTER:
        return redist_reduce_scatter(s, r, count, t, o, c, alg);
    case OP_ALLTOALL:
        return redist_alltoall(s, r, count, t, c, alg);
    default:
        return redist_shift(s, r, count, t, shift, c, alg);
    }
}

/* v = op * 100 + class. */
static int run_coll(int v)
{
    int op = v / 100, cls = v % 100, L = rank == last;
    const void *s = cbuf_s;
    void *r = cbuf_r;
    int64_t count = 2;
    MPI_Datatype t = MPI_INT;
    MPI_Op o = MPI_SUM;
    int root = 0, shift = 1;
    MPI_Comm c = MPI_COMM_WORLD, checking_off = MPI_COMM_NULL;
    const char *alg = NULL;
    switch (cls) {
    case CC_ZERO_NULL:
        count = 0;
        s = NULL;
        r = NULL;
        break;
    case CC_COUNT_NEG:
        count = -1;
        break;
    case CC_COUNT_HUGE:
        count = INT64_MAX / 2;
        break;
    case CC_COUNT_DIFFERS:
        count = L ? 3 : 2;
        break;
    case CC_TYPE_NULL:
        t = MPI_DATATYPE_NULL;
        break;
    case CC_TYPE_NULL_LAST:
        t = L ? MPI_DATATYPE_NULL : t;
        break;
    case CC_TYPE_VECTOR:
        t = T_vec;
        break;
    case CC_TYPE_SIZE_DIFFERS:
        t = L ? MPI_DOUBLE : t;
        break;
    case CC_TYPE_UNCOMMITTED:
        t = T_uncommitted;
        break;
    case CC_TYPE_MIXED:
        t = T_mixed;
        break;
    case CC_OP_TYPE_INVALID: /* MPI defines no bitwise and of doubles */
        t = MPI_DOUBLE;
        o = MPI_BAND;
        break;
    case CC_OP_TYPE_INVALID_IN_PLACE: /* once aborted the job; MPI_IN_PLACE where MPI allows it */
        t = MPI_DOUBLE;
        o = MPI_BAND;
        s = op != OP_REDUCE || rank == root ? MPI_IN_PLACE : s;
        break;
    case CC_OP_USER_UNCOMMITTED: /* the op gets the library's committed duplicate */
        t = T_uncommitted;
        o = op_noncommutative;
        break;
    case CC_OP_MIXED:
        t = T_mixed;
        break;
    case CC_OP_PAIRS:
        t = T_pairs;
        o = MPI_MAXLOC;
        break;
    case CC_OP_MAXLOC_INT:
        o = MPI_MAXLOC;
        break;
    case CC_OP_CHAR: /* MPI_CHAR is in none of MPI's classes for reductions */
        t = MPI_CHAR;
        break;
    case CC_OP_LAND_DOUBLE:
        t = MPI_DOUBLE;
        o = MPI_LAND;
        break;
    case CC_OP_REPLACE:
        o = MPI_REPLACE;
        break;
    case CC_OP_NO_OP:
        o = MPI_NO_OP;
        break;
    case CC_OP_F90:
        t = T_f90_real;
        break;
    case CC_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case CC_COMM_INTER:
        c = inter;
        break;
    case CC_ALG_UNKNOWN:
        alg = "no-such-algorithm";
        break;
    case CC_ALG_UNKNOWN_LAST:
        alg = L ? "no-such-algorithm" : op_algs[op][0];
        break;
    case CC_ALG_DIFFERS:
        alg = op_algs[op][L];
        break;
    case CC_ALG_HYPERCUBE:
        alg = "hypercube";
        break;
    case CC_SEND_NULL:
        s = NULL;
        break;
    case CC_SEND_NULL_LAST:
        s = L ? NULL : s;
        break;
    case CC_RECV_NULL:
        r = NULL;
        break;
    case CC_IN_PLACE_BAD: /* where MPI does not allow it */
        if (op == OP_BCAST || op == OP_SCATTER)
            s = MPI_IN_PLACE;
        else
            r = MPI_IN_PLACE;
        break;
    case CC_IN_PLACE_BAD_LAST: /* legal only at the root (reduce, gather: sendbuf; scatter:
                                  recvbuf), so not on the last rank */
        if (op == OP_SCATTER)
            r = L ? MPI_IN_PLACE : r;
        else
            s = L ? MPI_IN_PLACE : s;
        break;
    case CC_ROOT_NEG:
        root = -1;
        break;
    case CC_ROOT_SIZE:
        root = size;
        break;
    case CC_ROOT_DIFFERS:
        root = L ? last : 0;
        break;
    case CC_OP_NULL:
        o = MPI_OP_NULL;
        break;
    case CC_OP_DIFFERS:
        o = L ? MPI_PROD : MPI_SUM;
        break;
    case CC_OP_COMMUTE_DIFFERS:
        o = L ? op_noncommutative : MPI_SUM;
        break;
    case CC_SHIFT_DIFFERS:
        shift = L ? 2 : 1;
        break;
    case CC_SHIFT_EXTREME: /* any shift is legal: taken mod p */
        shift = INT_MIN;
        break;
    case CC_CHECKING_OFF_BAD: /* checking off: each rank's own verdict, bad everywhere */
        MPI_Comm_dup(MPI_COMM_WORLD, &checking_off);
        if (redist_coll_set_checking(checking_off, 0) != REDIST_SUCCESS)
            fail("redist_coll_set_checking(dup, 0): %s", redist_last_error_detail());
        c = checking_off;
        count = -5;
        break;
    }
    int rc = call_op(op, s, r, count, t, o, root, shift, c, alg);
    if (checking_off != MPI_COMM_NULL)
        MPI_Comm_free(&checking_off);
    return rc;
}

/* The code a class must give for an operation (or 1: the class does not apply). */
static int coll_want(int op, int cls, const char **detail, int *when)
{
    *detail = NULL;
    *when = ANY;
    switch (cls) {
    case CC_OK:
    case CC_ZERO_NULL:
        return REDIST_SUCCESS;
    case CC_COUNT_NEG:
    case CC_CHECKING_OFF_BAD:
        *detail = "count";
        return REDIST_ERR_ARG;
    case CC_COUNT_HUGE:
        *detail = "2^62";
        return REDIST_ERR_ARG;
    case CC_COUNT_DIFFERS:
    case CC_TYPE_SIZE_DIFFERS:
        *detail = "count";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_TYPE_NULL:
    case CC_TYPE_NULL_LAST:
        *detail = "type";
        *when = cls == CC_TYPE_NULL_LAST ? MULTI : ANY;
        return REDIST_ERR_ARG;
    case CC_TYPE_VECTOR:
        *detail = "contiguous";
        return REDIST_ERR_UNSUPPORTED;
    case CC_TYPE_UNCOMMITTED: /* moved as bytes; reduced as the ints it holds */
    case CC_TYPE_MIXED:       /* moved as bytes; reductions: CC_OP_MIXED */
        return cls == CC_TYPE_MIXED && has_op(op) ? 1 : REDIST_SUCCESS;
    case CC_OP_USER_UNCOMMITTED:
    case CC_OP_PAIRS: /* MPI_MAXLOC on a derived type made of MPI_2INT */
        return has_op(op) ? REDIST_SUCCESS : 1;
    case CC_OP_TYPE_INVALID:
    case CC_OP_TYPE_INVALID_IN_PLACE:
    case CC_OP_LAND_DOUBLE:
        if (!has_op(op))
            return 1;
        *detail = "MPI_DOUBLE";
        return REDIST_ERR_ARG;
    case CC_OP_MIXED:
        if (!has_op(op))
            return 1;
        *detail = "more than one predefined type";
        return REDIST_ERR_ARG;
    case CC_OP_MAXLOC_INT:
        if (!has_op(op))
            return 1;
        *detail = "MPI_MAXLOC";
        return REDIST_ERR_ARG;
    case CC_OP_CHAR:
        if (!has_op(op))
            return 1;
        *detail = "MPI_CHAR";
        return REDIST_ERR_ARG;
    case CC_OP_REPLACE:
    case CC_OP_NO_OP:
        if (!has_op(op))
            return 1;
        *detail = "one-sided";
        return REDIST_ERR_ARG;
    case CC_OP_F90:
        if (!has_op(op))
            return 1;
        *detail = "Fortran 90";
        return REDIST_ERR_UNSUPPORTED;
    case CC_COMM_NULL:
        *detail = "MPI_COMM_NULL";
        return REDIST_ERR_ARG;
    case CC_COMM_INTER:
        *detail = "intercommunicator";
        *when = MULTI;
        return REDIST_ERR_UNSUPPORTED;
    case CC_ALG_UNKNOWN:
    case CC_ALG_UNKNOWN_LAST:
        *detail = "no-such-algorithm";
        *when = cls == CC_ALG_UNKNOWN_LAST ? MULTI : ANY;
        return REDIST_ERR_UNKNOWN_ALGORITHM;
    case CC_ALG_DIFFERS:
        *detail = "algorithm";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_ALG_HYPERCUBE: /* only reduce_scatter's hypercube needs a power of two */
        if (op != OP_REDUCE_SCATTER)
            return 1;
        *detail = "power of two";
        *when = NOT_POW2;
        return REDIST_ERR_NOT_APPLICABLE;
    case CC_SEND_NULL:
        *detail = "NULL";
        return REDIST_ERR_ARG;
    case CC_SEND_NULL_LAST: /* scatter reads sendbuf at the root only */
        *when = MULTI;
        if (op == OP_SCATTER)
            return REDIST_SUCCESS;
        *detail = "NULL";
        return REDIST_ERR_ARG;
    case CC_RECV_NULL:
        if (op == OP_BCAST)
            return 1;
        *detail = "NULL";
        return REDIST_ERR_ARG;
    case CC_IN_PLACE_BAD:
        *detail = "MPI_IN_PLACE";
        return REDIST_ERR_ARG;
    case CC_IN_PLACE_BAD_LAST:
        if (op != OP_REDUCE && op != OP_GATHER && op != OP_SCATTER)
            return 1;
        *detail = "MPI_IN_PLACE";
        *when = MULTI;
        return REDIST_ERR_ARG;
    case CC_ROOT_NEG:
    case CC_ROOT_SIZE:
        if (!has_root(op))
            return 1;
        *detail = "root";
        return REDIST_ERR_ARG;
    case CC_ROOT_DIFFERS:
        if (!has_root(op))
            return 1;
        *detail = "root";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_OP_NULL:
        if (!has_op(op))
            return 1;
        *detail = "op";
        return REDIST_ERR_ARG;
    case CC_OP_DIFFERS:
    case CC_OP_COMMUTE_DIFFERS:
        if (!has_op(op))
            return 1;
        *detail = "op";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_SHIFT_DIFFERS:
        if (op != OP_SHIFT)
            return 1;
        *detail = "shift";
        *when = MULTI;
        return REDIST_ERR_MISMATCH;
    case CC_SHIFT_EXTREME:
        return op == OP_SHIFT ? REDIST_SUCCESS : 1;
    }
    return 1;
}

static const char *const class_names[NCLASSES] = {
    "valid (sanity)",
    "count 0 with NULL buffers (legal)",
    "count < 0",
    "count * element size * p >= 2^62",
    "count differs on the last rank",
    "type MPI_DATATYPE_NULL",
    "type MPI_DATATYPE_NULL on the last rank only",
    "non-contiguous type",
    "element size differs on the last rank",
    "an uncommitted contiguous type",
    "an uncommitted struct of an int and a float",
    "MPI_BAND on MPI_DOUBLE (an op the type does not have)",
    "MPI_BAND on MPI_DOUBLE, sendbuf MPI_IN_PLACE",
    "a user-defined op on an uncommitted contiguous type",
    "MPI_SUM on an uncommitted struct of an int and a float",
    "MPI_MAXLOC on an uncommitted contiguous type of MPI_2INT",
    "MPI_MAXLOC on MPI_INT (not a pair type)",
    "MPI_SUM on MPI_CHAR (in no class of types of reductions)",
    "MPI_LAND on MPI_DOUBLE",
    "MPI_REPLACE (one-sided accumulates only)",
    "MPI_NO_OP (one-sided accumulates only)",
    "MPI_SUM on a Fortran 90 parameterized type (MPI_Type_create_f90_real)",
    "comm MPI_COMM_NULL",
    "an intercommunicator",
    "unknown algorithm",
    "unknown algorithm on the last rank only",
    "algorithm differs on the last rank",
    "hypercube on a p that is not a power of two",
    "sendbuf NULL with count > 0",
    "sendbuf NULL on the last rank only",
    "recvbuf NULL with count > 0",
    "MPI_IN_PLACE where MPI does not allow it",
    "MPI_IN_PLACE on a rank that is not the root",
    "root < 0",
    "root == comm size",
    "root differs on the last rank",
    "op MPI_OP_NULL",
    "op differs on the last rank (MPI_PROD, MPI_SUM elsewhere)",
    "a non-commutative op on the last rank, MPI_SUM elsewhere",
    "shift differs on the last rank",
    "shift INT_MIN (legal)",
    "checking off, count < 0 on every rank"};

enum { SC_OFF_ON, SC_ON_2, SC_DIFFERS, SC_COMM_NULL, SC_INTER };

static int run_set_checking(int v)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int rc;
    switch (v) {
    case SC_OFF_ON:
        rc = redist_coll_set_checking(c, 0);
        if (rc == REDIST_SUCCESS)
            rc = redist_coll_set_checking(c, 1);
        break;
    case SC_ON_2:
        rc = redist_coll_set_checking(c, 2);
        break;
    case SC_DIFFERS:
        rc = redist_coll_set_checking(c, rank == last ? 0 : 1);
        break;
    case SC_COMM_NULL:
        rc = redist_coll_set_checking(MPI_COMM_NULL, 1);
        break;
    default:
        rc = redist_coll_set_checking(inter, 1);
        break;
    }
    MPI_Comm_free(&c);
    return rc;
}

/* The entries of this file, in the catalogue's order. */
void add_coll_entries(void)
{
    for (int op = 0; op < NOPS; op++)
        for (int cls = 0; cls < NCLASSES; cls++) {
            const char *detail;
            int when, want = coll_want(op, cls, &detail, &when);
            if (want <= 0)
                add(op_names[op], class_names[cls], run_coll, op * 100 + cls, want, detail, when,
                    0);
        }
    const char *sc = "redist_coll_set_checking";
    E(sc, "off, then on (sanity)", run_set_checking, SC_OFF_ON, OK, NULL, ANY);
    E(sc, "on 2", run_set_checking, SC_ON_2, ARG, "on = 2", ANY);
    E(sc, "on differs on the last rank", run_set_checking, SC_DIFFERS, MIS, "on", MULTI);
    E(sc, "comm MPI_COMM_NULL", run_set_checking, SC_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(sc, "an intercommunicator", run_set_checking, SC_INTER, UNS, "intercommunicator", MULTI);
}
