/* The bad-input catalogue (tests/mpi/test_catalogue.c): redist_plan_create_inter. */
#include "catalogue.h"

/* ---- redist_plan_create_inter ------------------------------------------------------------ */

enum {
    IN_OK,
    IN_INTRA,
    IN_COMM_NULL,
    IN_IS_SOURCE_2,
    IN_IS_SOURCE_2_LAST,
    IN_BOTH_SOURCE,
    IN_SWAPPED,
    IN_MIXED,
    IN_IS_SOURCE_2_RANK0,
    IN_SRC_BEYOND,
    IN_NULL_PLAN,
    IN_NULL_DST_LAST,
    IN_D_BLOCK,
    IN_ALG_UNKNOWN,
    IN_TYPE_NULL_LAST,
    IN_OPT_BAD
};

static int run_inter(int v)
{
    redist_layout s = LIs, d = LId;
    MPI_Comm c = inter;
    int src = is_src, L = rank == last;
    redist_options o;
    redist_options_init(&o);
    MPI_Datatype t = MPI_INT;
    redist_plan plan = garbage(), *pp = &plan;
    switch (v) {
    case IN_INTRA:
        c = MPI_COMM_WORLD;
        break;
    case IN_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case IN_IS_SOURCE_2:
        src = is_src ? 2 : 0;
        break;
    case IN_IS_SOURCE_2_LAST: /* the last rank is in the destination group */
        src = L ? 2 : src;
        break;
    case IN_BOTH_SOURCE:
        src = 1;
        break;
    case IN_SWAPPED: /* both groups claim the other side: legal, the plan goes the other way */
        src = !is_src;
        s = LId;
        d = LIs;
        break;
    case IN_MIXED: /* rank 1 (source group, with rank 0) claims the destination side */
        src = rank == 1 ? 0 : src;
        break;
    case IN_IS_SOURCE_2_RANK0: /* rank 0 shares the source group with rank 1 */
        src = rank == 0 ? 2 : src;
        break;
    case IN_SRC_BEYOND:
        s = LIs_beyond;
        break;
    case IN_NULL_PLAN:
        pp = NULL;
        break;
    case IN_NULL_DST_LAST:
        d = L ? NULL : d;
        break;
    case IN_D_BLOCK:
        s = L ? LIs_b5 : s;
        break;
    case IN_ALG_UNKNOWN:
        o.algorithm = "no-such-algorithm";
        break;
    case IN_TYPE_NULL_LAST:
        t = L ? MPI_DATATYPE_NULL : t;
        break;
    case IN_OPT_BAD:
        o.transport = 9;
        break;
    }
    return plan_done(redist_plan_create_inter(s, d, t, c, src, &o, pp), pp);
}

/* The entries of this file, in the catalogue's order. */
void add_inter_entries(void)
{
    const char *pi = "redist_plan_create_inter";
    E(pi, "valid (sanity)", run_inter, IN_OK, OK, NULL, MULTI);
    E(pi, "an intracommunicator", run_inter, IN_INTRA, ARG, "intracommunicator", MULTI);
    E(pi, "intercomm MPI_COMM_NULL", run_inter, IN_COMM_NULL, ARG, "intercomm", MULTI);
    E(pi, "is_source 2 in the source group", run_inter, IN_IS_SOURCE_2, ARG, "is_source", MULTI);
    E(pi, "is_source 2 on the last rank only", run_inter, IN_IS_SOURCE_2_LAST, ARG, "is_source",
      MULTI);
    E(pi, "is_source 1 in both groups", run_inter, IN_BOTH_SOURCE, ARG, "both groups", MULTI);
    E(pi, "the groups swap sides (legal)", run_inter, IN_SWAPPED, OK, NULL, MULTI);
    E(pi, "is_source 0 on one rank of the source group", run_inter, IN_MIXED, ARG, "within a group",
      MULTI3);
    E(pi, "is_source 2 on rank 0 only (the source group)", run_inter, IN_IS_SOURCE_2_RANK0, ARG,
      "within a group", MULTI3);
    E(pi, "a src rank == the source group's size", run_inter, IN_SRC_BEYOND, ARG, "source group",
      MULTI);
    E(pi, "plan (output) NULL", run_inter, IN_NULL_PLAN, ARG, "plan", MULTI);
    E(pi, "dst NULL on the last rank only", run_inter, IN_NULL_DST_LAST, ARG, "dst layout", MULTI);
    E(pi, "src block differs on the last rank", run_inter, IN_D_BLOCK, MIS, "src block", MULTI);
    E(pi, "unknown algorithm", run_inter, IN_ALG_UNKNOWN, UNK, "no-such-algorithm", MULTI);
    E(pi, "type MPI_DATATYPE_NULL on the last rank only", run_inter, IN_TYPE_NULL_LAST, ARG,
      "MPI_DATATYPE_NULL", MULTI);
    E(pi, "options.transport 9", run_inter, IN_OPT_BAD, ARG, "transport", MULTI);
}
