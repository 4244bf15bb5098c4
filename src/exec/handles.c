/* The library's calls on MPI handles it did not create (the user's communicators and
 * datatypes).
 *
 * MPI raises an error on the handler of the communicator a call names, or, for a call that
 * names none (MPI_Type_*, MPI_Reduce_local), on a default handler: MPI_ERRORS_ARE_FATAL
 * unless the user changed it. The library must return codes, never abort, so it asks only
 * what MPI answers without error for any valid handle (sizes, extents, envelopes, contents,
 * ranks, whether a communicator is an intercommunicator), and does everything else on its own
 * duplicates, which carry MPI_ERRORS_RETURN. Duplicating is the one call left on the user's
 * communicator that can fail for a valid one (MPI out of context ids); it runs with the
 * communicator's handler set to MPI_ERRORS_RETURN and the user's handler put back after.
 */
#include "exec/agree.h"

/* MPI_ERRORS_RETURN on comm for one call: returns whether the handler was swapped. */
static int quiet_begin(MPI_Comm comm, MPI_Errhandler *saved)
{
    *saved = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_get_errhandler(comm, saved) != MPI_SUCCESS) {
        *saved = MPI_ERRHANDLER_NULL;
        return 0;
    }
    return MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) == MPI_SUCCESS;
}

/* comm's own handler back, and the reference MPI_Comm_get_errhandler returned freed. */
static void quiet_end(MPI_Comm comm, int swapped, MPI_Errhandler *saved)
{
    if (swapped)
        MPI_Comm_set_errhandler(comm, *saved);
    if (*saved != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(saved);
}

int redist__comm_dup(MPI_Comm comm, MPI_Comm *dup)
{
    MPI_Errhandler saved;
    int swapped = quiet_begin(comm, &saved);
    int rc = MPI_Comm_dup(comm, dup);
    quiet_end(comm, swapped, &saved);
    if (rc != MPI_SUCCESS) {
        *dup = MPI_COMM_NULL;
        return redist__fail(REDIST_ERR_MPI, "MPI_Comm_dup failed");
    }
    MPI_Comm_set_errhandler(*dup, MPI_ERRORS_RETURN);
    return REDIST_SUCCESS;
}

/* A datatype handle MPI_Type_get_contents returned: derived ones are the caller's to free. */
static void free_returned(MPI_Datatype *t)
{
    int ni, na, nd, combiner;
    if (MPI_Type_get_envelope(*t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(t);
}

/* The leaves of t's constructor tree: *base is set to the first, and each other must be the
   same predefined type. */
static int leaves(MPI_Datatype t, MPI_Datatype *base)
{
    int ni = 0, na = 0, nd = 0, combiner = 0;
    if (MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "type is not a valid datatype");
    if (combiner == MPI_COMBINER_NAMED) {
        if (*base == MPI_DATATYPE_NULL)
            *base = t;
        return *base == t ? REDIST_SUCCESS
                          : redist__fail(REDIST_ERR_ARG, "type is made of more than one "
                                                         "predefined type");
    }
    if (nd == 0) /* MPI_Type_create_f90_*: a parameterized type, no constructor tree */
        return redist__fail(REDIST_ERR_UNSUPPORTED,
                            "type is a Fortran 90 parameterized type (MPI_Type_create_f90_*)");
    int *ints = redist__malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    MPI_Aint *addrs = redist__malloc(sizeof(MPI_Aint) * (size_t)(na > 0 ? na : 1));
    MPI_Datatype *types = redist__malloc(sizeof(MPI_Datatype) * (size_t)nd);
    int err = ints != NULL && addrs != NULL && types != NULL
                  ? REDIST_SUCCESS
                  : redist__fail(REDIST_ERR_NOMEM, "the contents of type");
    if (err == REDIST_SUCCESS &&
        MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) != MPI_SUCCESS)
        err = redist__fail(REDIST_ERR_ARG, "type's contents cannot be read");
    else if (err == REDIST_SUCCESS) {
        for (int i = 0; i < nd; i++) {
            if (err == REDIST_SUCCESS)
                err = leaves(types[i], base);
            free_returned(&types[i]);
        }
    }
    redist__free(ints);
    redist__free(addrs);
    redist__free(types);
    return err;
}

int redist__type_base(MPI_Datatype type, MPI_Datatype *base)
{
    *base = MPI_DATATYPE_NULL;
    int err = leaves(type, base);
    if (err != REDIST_SUCCESS)
        *base = MPI_DATATYPE_NULL;
    return err;
}
