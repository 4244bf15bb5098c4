/* redist_plan_create: the public layout plan constructor, phases 1 and 2; the planner
 * (src/planner/) does the rest.
 *
 * 1. Local checks, with no early return: every rank computes its own status and the
 *    fingerprints of its arguments.
 * 2. One agreement step (agree.c), made by the plan constructor (planner/construct.c) on
 *    the plan's duplicate of the communicator: every rank learns the worst status, and
 *    whether every rank passed the same layouts, element size, algorithm and options
 *    (REDIST_ERR_MISMATCH naming the first that differs otherwise). From here on every rank
 *    takes the same branches.
 * 3. Setup (planner/planner.c): the messages, the case, the algorithm chosen from the
 *    registry's table handed down here, its transport, buffers and setup.
 */
#include "api/api.h"
#include "coll/coll.h"

#include <string.h>

static const char *algorithm_name(const redist_options *opt)
{
    return opt == NULL || opt->algorithm == NULL ? "auto" : opt->algorithm;
}

/* A flag option must be 0 or 1: other values are more likely a mix-up of fields than a
   request. */
static int check_flag(int value, const char *name)
{
    return value == 0 || value == 1
               ? REDIST_SUCCESS
               : redist__fail(REDIST_ERR_ARG, "%s = %d must be 0 or 1", name, value);
}

int redist__check_options(const redist_options *opt, int comm_size)
{
    if (opt == NULL)
        return REDIST_SUCCESS;
    int err = check_flag(opt->check_arguments, "check_arguments");
    if (err == REDIST_SUCCESS)
        err = check_flag(opt->shared_memory, "shared_memory");
    if (err == REDIST_SUCCESS)
        err = check_flag(opt->conjugate, "conjugate");
    if (err != REDIST_SUCCESS)
        return err;
    if (opt->transport < REDIST_TRANSPORT_AUTO || opt->transport > REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_ARG, "transport = %d is not a REDIST_TRANSPORT_* value",
                            opt->transport);
    if (opt->max_buffer_bytes < 0)
        return redist__fail(REDIST_ERR_ARG, "max_buffer_bytes = %lld is negative",
                            (long long)opt->max_buffer_bytes);
    if (opt->max_buffer_bytes > 0 && opt->transport == REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_ARG,
                            "max_buffer_bytes (bounded mode, packed chunks) and transport = "
                            "REDIST_TRANSPORT_DATATYPE exclude each other");
    if (redist__options_scale(opt) && opt->transport == REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_ARG,
                            "alpha, beta and conjugate are applied while unpacking: transport = "
                            "REDIST_TRANSPORT_DATATYPE (MPI unpacks) excludes them");
    if (opt->memory < REDIST_MEMORY_HOST || opt->memory > REDIST_MEMORY_AUTO)
        return redist__fail(REDIST_ERR_ARG, "memory = %d is not a REDIST_MEMORY_* value",
                            opt->memory);
    /* AUTO with no device backend here is host memory (redist__memory_served); where one
       loads, this rank's ARG fails every rank, as the plan would be a device plan */
    if (redist__memory_served(opt->memory) != REDIST_MEMORY_HOST &&
        opt->transport == REDIST_TRANSPORT_DATATYPE)
        return redist__fail(REDIST_ERR_ARG,
                            "memory = REDIST_MEMORY_%s and transport = REDIST_TRANSPORT_DATATYPE "
                            "exclude each other (MPI cannot read device memory: device plans "
                            "pack)",
                            opt->memory == REDIST_MEMORY_CUDA ? "CUDA" : "AUTO");
    return redist__check_algorithm_options(opt, comm_size);
}

/* The scaling the options ask of type (phase 1): float, double and their complex types;
   real ones with real alpha and beta. */
static int check_scaling(const redist_options *opt, MPI_Datatype type)
{
    if (!redist__options_scale(opt))
        return REDIST_SUCCESS;
    int kind = redist__scale_kind(type);
    if (kind == 0)
        return redist__fail(REDIST_ERR_ARG,
                            "alpha, beta and conjugate apply to float, double and their complex "
                            "types; other types only copy (alpha = 1, beta = 0)");
    if ((kind == REDIST__REAL4 || kind == REDIST__REAL8) &&
        (opt->alpha[1] != 0.0 || opt->beta[1] != 0.0))
        return redist__fail(REDIST_ERR_ARG,
                            "a real type with a complex alpha or beta (imaginary part not 0)");
    return REDIST_SUCCESS;
}

/* Partial sums (phase 1): MPI defines the op on the type, as the basic reductions require. */
static int check_reduce(const redist_options *opt, MPI_Datatype type, size_t elsize)
{
    if (opt == NULL || opt->reduce == MPI_OP_NULL)
        return REDIST_SUCCESS;
    if (redist__memory_served(opt->memory) != REDIST_MEMORY_HOST) /* AUTO without a device: host */
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "options.reduce (partial sums) reduces on the host: device memory "
                            "(options.memory) is not supported with it");
    redist__coll_reducer r;
    int err = redist__coll_reducer_make(type, elsize, opt->reduce, &r);
    redist__coll_reducer_free(&r);
    return err == REDIST_SUCCESS ? err : redist__fail_context(err, "options.reduce");
}

void redist__fp_options(redist__fingerprints *fp, const redist_options *opt)
{
    redist_options d; /* NULL options mean the defaults */
    redist_options_init(&d);
    const redist_options *o = opt != NULL ? opt : &d;
    redist__fp_add_string(fp, "algorithm", algorithm_name(opt));
    redist__fp_add(fp, "options.check_arguments", &o->check_arguments, sizeof(int));
    redist__fp_add(fp, "options.shared_memory", &o->shared_memory, sizeof(int));
    redist__fp_add(fp, "options.transport", &o->transport, sizeof(int));
    redist__fp_add(fp, "options.memory", &o->memory, sizeof(int));
    redist__fp_add(fp, "options.max_buffer_bytes", &o->max_buffer_bytes, sizeof(int64_t));
    redist__fp_add(fp, "options.alpha", o->alpha, sizeof o->alpha);
    redist__fp_add(fp, "options.beta", o->beta, sizeof o->beta);
    redist__fp_add(fp, "options.conjugate", &o->conjugate, sizeof o->conjugate);
    int reduces = o->reduce != MPI_OP_NULL;
    redist__fp_add(fp, "options.reduce", &reduces, sizeof reduces);
    if (reduces)
        redist__coll_fingerprint_op(fp, o->reduce);
    redist__fingerprint_algorithm_options(fp, o);
}

int redist__check_pair(redist_layout src, redist_layout dst, int size, const redist_options *opt)
{
    const char *name = algorithm_name(opt);
    if (strcmp(name, "auto") != 0 && redist__algorithm_by_name(name) == NULL)
        return redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    const int *perm = opt != NULL ? opt->permutation : NULL;
    int err =
        src->ndims == dst->ndims ? redist__check_permutation(src->ndims, perm) : REDIST_SUCCESS;
    if (err != REDIST_SUCCESS)
        return err;
    if (!redist__permuted_shape_matches(src, dst, perm))
        return redist__fail(REDIST_ERR_ARG,
                            perm ? "dst's extents are not src's permuted by options.permutation"
                                 : "src and dst describe different arrays (ndims or extents "
                                   "differ)");
    err = redist__check_options(opt, size);
    if (err != REDIST_SUCCESS)
        return err;
    if (src->max_rank >= size || dst->max_rank >= size)
        return redist__fail(REDIST_ERR_ARG,
                            "%s layout uses rank %d but the communicator has %d ranks",
                            src->max_rank >= size ? "src" : "dst",
                            src->max_rank >= size ? src->max_rank : dst->max_rank, size);
    return REDIST_SUCCESS;
}

/* Phase 1: everything a rank can check alone. */
static int check_locally(redist_layout src, redist_layout dst, MPI_Datatype type, int rank,
                         int size, const redist_options *opt, redist_plan *plan, size_t *elsize)
{
    if (plan == NULL)
        return redist__fail(REDIST_ERR_ARG, "plan: NULL output pointer");
    if (src == NULL || dst == NULL)
        return redist__fail(REDIST_ERR_ARG, "%s layout is NULL", src == NULL ? "src" : "dst");
    int err = redist__check_pair(src, dst, size, opt);
    if (err != REDIST_SUCCESS)
        return err;
    err = redist__element_size(type, elsize);
    if (err == REDIST_SUCCESS)
        err = check_scaling(opt, type);
    if (err == REDIST_SUCCESS)
        err = check_reduce(opt, type, *elsize);
    if (err == REDIST_SUCCESS) /* this rank's padded local arrays (its own ld) */
        err = redist__check_ld(src, rank);
    if (err == REDIST_SUCCESS)
        err = redist__check_ld(dst, rank);
    if (err != REDIST_SUCCESS)
        return err;
    return redist__check_array_bytes(src, *elsize);
}

/* Fingerprints of everything that must be the same on every rank. */
static void arguments_fingerprints(redist_layout src, redist_layout dst, size_t elsize,
                                   const redist_options *opt, redist__fingerprints *fp)
{
    fp->n = 0;
    redist__fp_layout_pair(fp, src, dst);
    redist__fp_add(fp, "the element size of type", &elsize, sizeof elsize);
    redist__fp_options(fp, opt);
    const int *perm = opt != NULL ? opt->permutation : NULL;
    redist__fp_add(fp, "options.permutation", perm,
                   perm != NULL && src != NULL ? (size_t)src->ndims * sizeof *perm : 0);
}

int redist__plan_prologue(MPI_Comm comm, redist_plan *plan, int *rank, int *size)
{
    redist__clear_error();
    if (plan != NULL)
        *plan = NULL;
    int inter = 0;
    if (redist__check_mpi() != REDIST_SUCCESS)
        return REDIST_ERR_MPI;
    if (comm == MPI_COMM_NULL)
        return redist__fail(REDIST_ERR_ARG, "comm is MPI_COMM_NULL");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || MPI_Comm_size(comm, size) != 0 ||
        MPI_Comm_rank(comm, rank) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "comm is not a valid communicator");
    if (inter)
        return redist__fail(REDIST_ERR_UNSUPPORTED, "intercommunicators are not supported yet");
    return REDIST_SUCCESS;
}

int redist_plan_create(redist_layout src, redist_layout dst, MPI_Datatype type, MPI_Comm comm,
                       const redist_options *opt, redist_plan *plan)
{
    int size = 0, rank = 0;
    int err = redist__plan_prologue(comm, plan, &rank, &size);
    if (err != REDIST_SUCCESS)
        return err;

    /* Phase 1. */
    size_t elsize = 0;
    err = check_locally(src, dst, type, rank, size, opt, plan, &elsize);
    redist__fingerprints fp;
    arguments_fingerprints(err == REDIST_SUCCESS ? src : NULL, err == REDIST_SUCCESS ? dst : NULL,
                           elsize, opt, &fp);

    /* Phase 2 and the plan's shared part, on its private duplicate of comm; phase 3. */
    redist__plan_basis basis = {comm, type, elsize, opt, NULL};
    struct redist_plan_s *p = NULL;
    err = redist__plan_new(&basis, err, &fp, &p);
    if (err != REDIST_SUCCESS)
        return err;
    return redist__plan_layouts(p, redist__registry(), src, dst, algorithm_name(opt), plan);
}
