/* The bad-input catalogue (tests/mpi/test_catalogue.c): redist_relabel. */
#include "catalogue.h"

/* ---- redist_relabel ------------------------------------------------------------------------ */

enum {
    RL_OK,
    RL_NULL_KEPT_MOVED,
    RL_NULL_SRC,
    RL_NULL_DST,
    RL_NULL_OUT,
    RL_NULL_OUT_LAST,
    RL_SHAPES,
    RL_BEYOND,
    RL_COMM_NULL,
    RL_COMM_INTER,
    RL_D_DST,
    RL_D_SRC
};

static int run_relabel(int v)
{
    int *out = malloc(sizeof(int) * (size_t)(size + 1));
    int64_t kept = -1, moved = -1, *pk = &kept, *pm = &moved;
    redist_layout s = Ls, d = Ld;
    MPI_Comm c = MPI_COMM_WORLD;
    int *po = out, L = rank == last;
    switch (v) {
    case RL_NULL_KEPT_MOVED:
        pk = pm = NULL;
        break;
    case RL_NULL_SRC:
        s = NULL;
        break;
    case RL_NULL_DST:
        d = NULL;
        break;
    case RL_NULL_OUT:
        po = NULL;
        break;
    case RL_NULL_OUT_LAST:
        po = L ? NULL : po;
        break;
    case RL_SHAPES:
        d = Ld_n1;
        break;
    case RL_BEYOND:
        d = L_beyond;
        break;
    case RL_COMM_NULL:
        c = MPI_COMM_NULL;
        break;
    case RL_COMM_INTER:
        c = inter;
        break;
    case RL_D_DST: /* a different number of positions on the last rank */
        d = L ? Ld_sub : d;
        break;
    case RL_D_SRC:
        s = L ? Ls_b5 : s;
        break;
    }
    int rc = redist_relabel(s, d, c, po, pk, pm);
    free(out);
    return rc;
}

/* The entries of this file, in the catalogue's order. */
void add_relabel_entries(void)
{
    const char *rl = "redist_relabel";
    E(rl, "valid (sanity)", run_relabel, RL_OK, OK, NULL, ANY);
    E(rl, "kept and moved NULL (legal)", run_relabel, RL_NULL_KEPT_MOVED, OK, NULL, ANY);
    E(rl, "src NULL", run_relabel, RL_NULL_SRC, ARG, "NULL", ANY);
    E(rl, "dst NULL", run_relabel, RL_NULL_DST, ARG, "NULL", ANY);
    E(rl, "ranks_out NULL", run_relabel, RL_NULL_OUT, ARG, "NULL", ANY);
    E(rl, "ranks_out NULL on the last rank only", run_relabel, RL_NULL_OUT_LAST, ARG, "NULL",
      MULTI);
    E(rl, "src and dst extents differ", run_relabel, RL_SHAPES, ARG, "different arrays", ANY);
    E(rl, "a layout rank == comm size", run_relabel, RL_BEYOND, ARG, "rank", ANY);
    E(rl, "comm MPI_COMM_NULL", run_relabel, RL_COMM_NULL, ARG, "MPI_COMM_NULL", ANY);
    E(rl, "an intercommunicator", run_relabel, RL_COMM_INTER, UNS, "intercommunicator", MULTI);
    E(rl, "dst's grid differs on the last rank", run_relabel, RL_D_DST, MIS, "dst", MULTI);
    E(rl, "src's block differs on the last rank", run_relabel, RL_D_SRC, MIS, "src block", MULTI);
}
