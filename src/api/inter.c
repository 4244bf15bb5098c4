/* redist_plan_create_inter: a redistribution between two groups joined by an
 * intercommunicator: the separate data-parallel tasks of [SD96] §1, which may be two programs
 * of one MPMD launch, a program and the one it spawned, or two jobs that met through
 * MPI_Comm_connect / MPI_Comm_accept.
 *
 * The two groups are merged into one intracommunicator (MPI_Intercomm_merge), the source
 * group first: source rank r is merged rank r, destination rank r is merged rank P_src + r.
 * The destination layout is renumbered so, and the plan is an ordinary plan over the merged
 * communicator between two disjoint process sets; every algorithm that applies to disjoint
 * sets applies here, the others say REDIST_ERR_NOT_APPLICABLE. Every rank of both groups calls
 * this, and every error is agreed across both (the merged communicator's agreement). The
 * plan owns a duplicate of the merged communicator; execute with (src, NULL) on the source
 * side and (NULL, dst) on the destination side.
 */
#include "api/api.h"

#include <stdlib.h>
#include <string.h>

/* Local checks before the merge: what a rank can tell alone. */
static int check_inter(MPI_Comm intercomm, int is_source, redist_plan *plan, int *local,
                       int *remote)
{
    redist__clear_error();
    if (plan != NULL)
        *plan = NULL;
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    int inter = 0;
    if (intercomm == MPI_COMM_NULL || MPI_Comm_test_inter(intercomm, &inter) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "intercomm is not a valid communicator");
    if (!inter)
        return redist__fail(REDIST_ERR_ARG, "intercomm is an intracommunicator: use "
                                            "redist_plan_create");
    if (MPI_Comm_size(intercomm, local) != MPI_SUCCESS ||
        MPI_Comm_remote_size(intercomm, remote) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Comm_size of intercomm failed");
    (void)is_source;
    return REDIST_SUCCESS;
}

/* is_source must be one value per group before the groups are merged (MPI_Intercomm_merge's
   `high` must be; MPICH hangs otherwise): each group learns the other group's minimum and
   maximum through the intercommunicator, judges them, and sends its verdict back, so that
   every rank of both groups knows both verdicts. Collective over both groups, whatever
   is_source is. */
static int check_sides(MPI_Comm intercomm, int is_source)
{
    int side = is_source == 0 || is_source == 1 ? is_source : 2; /* 2: not a side (later) */
    int mine[2] = {side, -side}, theirs[2] = {0, 0};
    int other_ok = 0, mine_ok = 0;
    if (MPI_Allreduce(mine, theirs, 2, MPI_INT, MPI_MIN, intercomm) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce over intercomm failed");
    other_ok = theirs[0] == -theirs[1];
    if (MPI_Allreduce(&other_ok, &mine_ok, 1, MPI_INT, MPI_MIN, intercomm) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce over intercomm failed");
    if (!mine_ok || !other_ok)
        return redist__fail(REDIST_ERR_ARG, "is_source differs within a group: every rank of a "
                                            "group must pass the same value (1 in one group, 0 "
                                            "in the other)");
    return REDIST_SUCCESS;
}

/* Checks that need the merged communicator: is_source is 0 or 1 and opposite in the two
   groups (the source group then holds merged ranks 0 .. P_src - 1), and each layout fits its
   group. Returns this rank's status (the caller agrees on it). */
static int check_groups(MPI_Comm merged, int is_source, int p_src, int p_dst, redist_layout src,
                        redist_layout dst, redist_plan *plan)
{
    int rank = 0;
    MPI_Comm_rank(merged, &rank);
    int placed = (is_source == 1) == (rank < p_src), all = 0;
    if (MPI_Allreduce(&placed, &all, 1, MPI_INT, MPI_MIN, merged) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Allreduce failed");
    if (is_source != 0 && is_source != 1)
        return redist__fail(REDIST_ERR_ARG, "is_source = %d must be 0 or 1", is_source);
    if (!all)
        return redist__fail(REDIST_ERR_ARG,
                            "both groups passed is_source = %d: one group must "
                            "pass 1 (the source) and the other 0",
                            is_source);
    if (plan == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan: NULL output pointer");
    if (src == NULL || dst == NULL)
        return redist__fail(REDIST_ERR_ARG, "%s layout is NULL", src == NULL ? "src" : "dst");
    if (src->max_rank >= p_src)
        return redist__fail(REDIST_ERR_ARG,
                            "src layout uses rank %d but the source group has %d ranks",
                            src->max_rank, p_src);
    if (dst->max_rank >= p_dst)
        return redist__fail(REDIST_ERR_ARG,
                            "dst layout uses rank %d but the destination group has %d ranks",
                            dst->max_rank, p_dst);
    return REDIST_SUCCESS;
}

/* dst (a window and its padding included) with every rank moved past the source group's;
   adding a constant keeps the order of the ranks, so by_rank stays valid. */
static int renumbered(redist_layout dst, int p_src, redist_layout *out)
{
    *out = redist__layout_copy(dst);
    if (*out == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "renumbered destination layout");
    for (int i = 0; i < dst->nprocs; i++)
        (*out)->ranks[i] += p_src;
    (*out)->max_rank += p_src;
    return REDIST_SUCCESS;
}

int redist_plan_create_inter(redist_layout src, redist_layout dst, MPI_Datatype type,
                             MPI_Comm intercomm, int is_source, const redist_options *opt,
                             redist_plan *plan)
{
    int local = 0, remote = 0;
    int err = check_inter(intercomm, is_source, plan, &local, &remote);
    if (err != REDIST_SUCCESS)
        return err;
    /* The checks' collectives and the merge run on the library's duplicate, so that no error
       is raised on the user's intercommunicator (whose handler may abort). */
    MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
    if (redist__comm_dup(intercomm, &inter) != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    err = check_sides(inter, is_source);
    if (err == REDIST_SUCCESS && MPI_Intercomm_merge(inter, is_source != 1, &merged) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_MPI, "MPI_Intercomm_merge failed");
    MPI_Comm_free(&inter);
    if (err != REDIST_SUCCESS)
        return err;
    int p_src = is_source == 1 ? local : remote, p_dst = is_source == 1 ? remote : local;
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    int rank = 0;
    MPI_Comm_rank(merged, &rank);
    err = check_groups(merged, is_source, p_src, p_dst, src, dst, plan);
    redist_layout moved = NULL;
    if (err == REDIST_SUCCESS)
        err = renumbered(dst, p_src, &moved);
    err = redist__agree(merged, rank, err, NULL);
    if (err == REDIST_SUCCESS)
        err = redist_plan_create(src, moved, type, merged, opt, plan);
    redist_layout_free(&moved);
    MPI_Comm_free(&merged); /* the plan keeps its own duplicate */
    return err;
}
