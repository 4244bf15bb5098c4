/* The bad-input catalogue (tests/mpi/test_catalogue.c): redist_plan_create_batch. */
#include "catalogue.h"

/* ---- redist_plan_create_batch ------------------------------------------------------------ */

enum {
    BC_OK,
    BC_COUNT0,
    BC_COUNT_NEG,
    BC_NULL_SRC,
    BC_NULL_TYPES,
    BC_NULL_PLAN,
    BC_NULL_PLAN_LAST,
    BC_COUNT_DIFFERS,
    BC_COUNT0_LAST,
    BC_ALG_DIRECT,
    BC_ALG_UNKNOWN,
    BC_MAXBUF,
    BC_DATATYPE,
    BC_TYPE_NULL_ELEM,
    BC_LAYOUT_NULL_ELEM,
    BC_TYPE_VECTOR_ELEM,
    BC_SHAPES_ELEM,
    BC_COMM_NULL,
    BC_COMM_INTER,
    BC_OPT_CHECK,
    BC_OPT_TRANSPORT,
    BC_OPT_SHM,
    BC_D_TYPE,
    BC_D_LAYOUT,
    BC_D_CHECK,
    BC_D_ALPHA,
    BC_D_ALG
};

static int run_batch_create(int v)
{
    redist_layout src[3] = {Ls, Ld, Ls}, dst[3] = {Ld, Ls, Ld};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
    const redist_layout *ps_ = src, *pd_ = dst;
    const MPI_Datatype *pt = types;
    int count = 2, L = rank == last;
    MPI_Comm c = MPI_COMM_WORLD;
    redist_options o;
    redist_options_init(&o);
    redist_plan plan = garbage(), *pp = &plan;
    switch (v) {
    case BC_COUNT0:
        count = 0;
        break;
    case BC_COUNT_NEG:
        count = INT_MIN;
        break;
    case BC_NULL_SRC:
        ps_ = NULL;
        break;
    case BC_NULL_TYPES:
        pt = NULL;
        break;
    case BC_NULL_PLAN:
        pp = NULL;
        break;
    case BC_NULL_PLAN_LAST:
        pp = L ? NULL : pp;
        break;
    case BC_COUNT_DIFFERS:
        count = L ? 3 : 2;
        break;
    case BC_COUNT0_LAST:
        count = L ? 0 : 2;
        break;
    case BC_ALG_DIRECT:
        o.algorithm = "direct";
        break;
    case BC_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case BC_MAXBUF:
        o.max_buffer_bytes = 4096;
        break;
    case BC_DATATYPE:
        o.transport = REDIST_TRANSPORT_DATATYPE;
        break;
    case BC_TYPE_NULL_ELEM:
        types[1] = MPI_DATATYPE_NULL;
        break;
    case BC_LAYOUT_NULL_ELEM:
        dst[1] = L ? NULL : dst[1];
        break;
    case BC_TYPE_VECTOR_ELEM:
        types[0] = T_vec;
        break;
    case BC_SHAPES_ELEM:
        dst[1] = Ld_n1;
        break;
    case BC_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case BC_COMM_INTER:
        c = inter;
        break;
    case BC_OPT_CHECK:
        o.check_arguments = 42;
        break;
    case BC_OPT_TRANSPORT:
        o.transport = 7;
        break;
    case BC_OPT_SHM:
        o.shared_memory = -1;
        break;
    case BC_D_TYPE:
        types[1] = L ? MPI_FLOAT : types[1];
        break;
    case BC_D_LAYOUT:
        src[1] = L ? Ls_rev : src[1];
        dst[1] = L ? Ls_rev : dst[1];
        break;
    case BC_D_CHECK: /* execute's agreement is one collective the ranks must all make */
        o.check_arguments = !L;
        break;
    case BC_D_ALPHA:
        types[0] = MPI_DOUBLE;
        o.alpha[0] = L ? 3 : 1;
        break;
    case BC_D_ALG:
        o.algorithm = L ? "direct-async" : "auto";
        break;
    }
    return plan_done(redist_plan_create_batch(count, ps_, pd_, pt, c, &o, pp), pp);
}

/* The entries of this file, in the catalogue's order. */
void add_batch_entries(void)
{
    const char *pb = "redist_plan_create_batch";
    E(pb, "valid (sanity)", run_batch_create, BC_OK, OK, NULL, ANY);
    E(pb, "count 0", run_batch_create, BC_COUNT0, ARG, "count", ANY);
    E(pb, "count INT_MIN", run_batch_create, BC_COUNT_NEG, ARG, "count", ANY);
    E(pb, "src list NULL", run_batch_create, BC_NULL_SRC, ARG, "NULL", ANY);
    E(pb, "types list NULL", run_batch_create, BC_NULL_TYPES, ARG, "NULL", ANY);
    E(pb, "plan (output) NULL", run_batch_create, BC_NULL_PLAN, ARG, "plan", ANY);
    E(pb, "plan (output) NULL on the last rank only", run_batch_create, BC_NULL_PLAN_LAST, ARG,
      "plan", MULTI);
    E(pb, "count differs on the last rank", run_batch_create, BC_COUNT_DIFFERS, MIS, "count",
      MULTI);
    E(pb, "count 0 on the last rank only", run_batch_create, BC_COUNT0_LAST, ARG, "count", MULTI);
    E(pb, "algorithm direct", run_batch_create, BC_ALG_DIRECT, NA, "direct", ANY);
    E(pb, "unknown algorithm", run_batch_create, BC_ALG_UNKNOWN, UNK, "no-such-algorithm", ANY);
    E(pb, "options.max_buffer_bytes", run_batch_create, BC_MAXBUF, UNS, "bounded", ANY);
    E(pb, "the datatype transport", run_batch_create, BC_DATATYPE, UNS, "datatype", ANY);
    E(pb, "types[1] MPI_DATATYPE_NULL", run_batch_create, BC_TYPE_NULL_ELEM, ARG,
      "MPI_DATATYPE_NULL", ANY);
    E(pb, "dst[1] NULL on the last rank only", run_batch_create, BC_LAYOUT_NULL_ELEM, ARG,
      "dst layout is NULL", MULTI);
    E(pb, "types[0] a vector type", run_batch_create, BC_TYPE_VECTOR_ELEM, UNS, "contiguous", ANY);
    E(pb, "src[1] and dst[1] of different arrays", run_batch_create, BC_SHAPES_ELEM, ARG,
      "different arrays", ANY);
    E(pb, "comm MPI_COMM_NULL", run_batch_create, BC_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(pb, "an intercommunicator", run_batch_create, BC_COMM_INTER, UNS, "intercommunicator", MULTI);
    E(pb, "options.check_arguments 42", run_batch_create, BC_OPT_CHECK, ARG, "check_arguments",
      ANY);
    E(pb, "options.transport 7", run_batch_create, BC_OPT_TRANSPORT, ARG, "transport", ANY);
    E(pb, "options.shared_memory -1", run_batch_create, BC_OPT_SHM, ARG, "shared_memory", ANY);
    E(pb, "types[1]'s size differs on the last rank", run_batch_create, BC_D_TYPE, MIS,
      "element size", MULTI);
    E(pb, "array 1's layouts differ on the last rank", run_batch_create, BC_D_LAYOUT, MIS, "ranks",
      MULTI);
    E(pb, "options.check_arguments differs on the last rank", run_batch_create, BC_D_CHECK, MIS,
      "options.check_arguments", MULTI);
    E(pb, "options.alpha differs on the last rank", run_batch_create, BC_D_ALPHA, MIS,
      "options.alpha", MULTI);
    E(pb, "algorithm \"direct-async\" on the last rank, \"auto\" elsewhere", run_batch_create,
      BC_D_ALG, MIS, "algorithm", MULTI);
}
