/* redist_plan_create_bmmc: plans a BMMC permutation ([Cor97]; the layout rule is redist.h's).
 * The same three phases as redist_plan_create (plan.c): local checks and fingerprints, one
 * agreement and the plan's shared part (the plan constructor, planner/construct.c), then the
 * factoring and buffers (bmmc/perform.c) and a last agreement. */
#include "api/api.h"
#include "bmmc/bmmc.h"

#include <stdlib.h>
#include <string.h>

static int check_bmmc(int n, int f, const uint64_t columns[], uint64_t complement,
                      MPI_Datatype type, int size, const redist_options *opt, redist_plan *plan,
                      size_t *elsize, int *p, redist__bmmc_plan *bp)
{
    if (plan == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan: NULL output pointer");
    *p = redist__log2_exact(size);
    if (*p < 0)
        return redist__fail(REDIST_ERR_ARG,
                            "bmmc: the communicator has %d ranks, not a power of two", size);
    if (n < *p)
        return redist__fail(REDIST_ERR_ARG, "bmmc: n = %d is less than lg P = %d (N < P)", n, *p);
    const char *name = opt && opt->algorithm ? opt->algorithm : "auto";
    if (strcmp(name, "auto") != 0 && strcmp(name, "bmmc") != 0)
        return redist__algorithm_by_name(name) != NULL
                   ? redist__fail(REDIST_ERR_NOT_APPLICABLE,
                                  "algorithm '%s' cannot perform a BMMC permutation: only bmmc "
                                  "(auto's choice) runs a BMMC plan",
                                  name)
                   : redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    if (opt != NULL && (opt->permutation != NULL || redist__options_scale(opt)))
        return redist__fail(REDIST_ERR_ARG,
                            "bmmc: options.permutation, alpha, beta and conjugate are for layout "
                            "plans (a BMMC plan's matrix permutes the index bits itself)");
    int err = redist__check_options(opt, size);
    if (err != REDIST_SUCCESS)
        return err;
    if (opt != NULL && redist__memory_served(opt->memory) != REDIST_MEMORY_HOST) /* its rounds
                                                                  read the arrays on the host */
        return redist__fail(REDIST_ERR_UNSUPPORTED, "bmmc: host memory only");
    err = redist__element_size(type, elsize);
    if (err != REDIST_SUCCESS)
        return err;
    /* As for layouts: at most 2^62 elements, fewer than 2^63 bytes (so that no byte count of
       a rank's part overflows). */
    if (n > 62 || ((int64_t)1 << n) > INT64_MAX / (int64_t)*elsize)
        return redist__fail(REDIST_ERR_ARG,
                            "bmmc: 2^%d elements of %zu bytes: an array has at most 2^62 "
                            "elements and fewer than 2^63 bytes",
                            n, *elsize);
    return redist__bmmc_plan_init(n, *p, f, columns, complement, bp);
}

static void bmmc_fingerprints(int n, int f, const uint64_t columns[], uint64_t complement,
                              size_t elsize, const redist_options *opt, redist__fingerprints *fp)
{
    fp->n = 0;
    redist__fp_add(fp, "n", &n, sizeof n);
    redist__fp_add(fp, "f", &f, sizeof f);
    int ncols = columns != NULL && n > 0 && n <= 64 ? n : 0;
    redist__fp_add(fp, "columns", columns, (size_t)ncols * sizeof *columns);
    redist__fp_add(fp, "complement", &complement, sizeof complement);
    redist__fp_add(fp, "the element size of type", &elsize, sizeof elsize);
    redist__fp_options(fp, opt);
}

/* After the plan's shared part: the factoring's buffers (bmmc/perform.c), agreed, and the
   statistics. Frees pl on failure. */
static int setup_bmmc(struct redist_plan_s *pl, redist__bmmc_plan *bp, redist_plan *plan)
{
    pl->algo = redist__algorithm_by_name("bmmc");
    pl->src_count = pl->dst_count = redist__bmmc_local_count(bp);
    int err = redist__agree(pl->comm, pl->rank,
                            redist__bmmc_setup(pl, bp, (uint64_t)pl->rank, NULL), NULL);
    if (err == REDIST_SUCCESS) {
        pl->stats.steps = (int)redist__bmmc_rounds(bp);
        pl->algo->local_stats(pl, &pl->stats);
        err = redist__stats_maxima(pl);
    }
    if (err != REDIST_SUCCESS) {
        redist__plan_destroy(pl);
        return err;
    }
    *plan = pl;
    return REDIST_SUCCESS;
}

int redist_plan_create_bmmc(int n, int f, const uint64_t columns[], uint64_t complement,
                            MPI_Datatype type, MPI_Comm comm, const redist_options *opt,
                            redist_plan *plan)
{
    int size = 0, rank = 0;
    int err = redist__plan_prologue(comm, plan, &rank, &size);
    if (err != REDIST_SUCCESS)
        return err;
    size_t elsize = 0;
    int p = 0;
    redist__bmmc_plan bp;
    err = check_bmmc(n, f, columns, complement, type, size, opt, plan, &elsize, &p, &bp);
    redist__fingerprints fp;
    bmmc_fingerprints(n, f, columns, complement, elsize, opt, &fp);
    /* The machine's parameters serve its prediction only: bmmc has no choice to make. */
    redist__plan_basis basis = {comm, type, elsize, opt, NULL};
    struct redist_plan_s *pl = NULL;
    err = redist__plan_new(&basis, err, &fp, &pl);
    return err == REDIST_SUCCESS ? setup_bmmc(pl, &bp, plan) : err;
}
