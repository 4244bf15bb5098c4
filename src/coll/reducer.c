/* How the reductions apply an op to the user's elements, decided before anything moves and
 * without ever letting MPI raise an error on a handle the library does not own.
 *
 * MPI_Reduce_local names no communicator: an error in it goes to MPI's default handler,
 * MPI_ERRORS_ARE_FATAL unless the user changed it, so the library never hands it a pair MPI
 * could refuse:
 *
 * - a predefined op is checked against MPI's table (MPI 4.0 §6.9.2: which classes of
 *   predefined types each op is defined on; MPI_REPLACE and MPI_NO_OP belong to one-sided
 *   accumulates only). A derived type (committed or not) made of one predefined type the op
 *   is defined on is reduced as that many elements of the predefined type, as MPICH allows
 *   and Open MPI does not: the same result on both. Then the pair is tried once on the
 *   library's own duplicate of MPI_COMM_SELF, whose handler returns, so that an MPI lacking an
 *   op the standard defines gives REDIST_ERR_UNSUPPORTED instead of an abort later.
 * - a user-defined op works on any type; MPI requires a committed one, so a derived type is
 *   replaced by the library's committed duplicate (MPI_Type_dup, MPI_Type_commit), which the
 *   op receives as its datatype argument. A predefined type is passed as it is.
 */
#include "coll/coll.h"

#include <string.h>

enum { /* MPI's classes of predefined types (MPI 4.0 §6.9.2) */
       C_INTEGER = 1,
       FORTRAN_INTEGER = 2,
       FLOATING_POINT = 4,
       LOGICAL = 8,
       COMPLEX = 16,
       BYTE = 32,
       MULTI_LANGUAGE = 64,
       PAIR = 128 /* MPI_MINLOC and MPI_MAXLOC's value-index pairs */
};

static int listed(MPI_Datatype t, const MPI_Datatype *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t == list[i])
            return 1;
    return 0;
}

#define LISTED(t, list) listed(t, list, sizeof list / sizeof list[0])

/* The classes of a predefined type (0: in none, e.g. MPI_CHAR or MPI_WCHAR). */
static unsigned type_classes(MPI_Datatype t)
{
    const MPI_Datatype c_integer[] = {MPI_INT,
                                      MPI_LONG,
                                      MPI_SHORT,
                                      MPI_UNSIGNED_SHORT,
                                      MPI_UNSIGNED,
                                      MPI_UNSIGNED_LONG,
                                      MPI_LONG_LONG_INT,
                                      MPI_LONG_LONG,
                                      MPI_UNSIGNED_LONG_LONG,
                                      MPI_SIGNED_CHAR,
                                      MPI_UNSIGNED_CHAR,
                                      MPI_INT8_T,
                                      MPI_INT16_T,
                                      MPI_INT32_T,
                                      MPI_INT64_T,
                                      MPI_UINT8_T,
                                      MPI_UINT16_T,
                                      MPI_UINT32_T,
                                      MPI_UINT64_T};
    /* The optional Fortran types of fixed size: each where this MPI defines it. */
    const MPI_Datatype fortran_integer[] = {
        MPI_INTEGER,
#ifdef MPI_INTEGER1
        MPI_INTEGER1,
#endif
#ifdef MPI_INTEGER2
        MPI_INTEGER2,
#endif
#ifdef MPI_INTEGER4
        MPI_INTEGER4,
#endif
#ifdef MPI_INTEGER8
        MPI_INTEGER8,
#endif
#ifdef MPI_INTEGER16
        MPI_INTEGER16,
#endif
    };
    const MPI_Datatype floating_point[] = {
        MPI_FLOAT,  MPI_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_LONG_DOUBLE,
#ifdef MPI_REAL2
        MPI_REAL2,
#endif
#ifdef MPI_REAL4
        MPI_REAL4,
#endif
#ifdef MPI_REAL8
        MPI_REAL8,
#endif
#ifdef MPI_REAL16
        MPI_REAL16,
#endif
    };
    const MPI_Datatype logical[] = {MPI_LOGICAL, MPI_C_BOOL, MPI_CXX_BOOL};
    const MPI_Datatype complex[] = {
        MPI_COMPLEX,
        MPI_C_COMPLEX,
        MPI_C_FLOAT_COMPLEX,
        MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX,
        MPI_CXX_FLOAT_COMPLEX,
        MPI_CXX_DOUBLE_COMPLEX,
        MPI_CXX_LONG_DOUBLE_COMPLEX,
        MPI_DOUBLE_COMPLEX,
#ifdef MPI_COMPLEX4
        MPI_COMPLEX4,
#endif
#ifdef MPI_COMPLEX8
        MPI_COMPLEX8,
#endif
#ifdef MPI_COMPLEX16
        MPI_COMPLEX16,
#endif
#ifdef MPI_COMPLEX32
        MPI_COMPLEX32,
#endif
    };
    const MPI_Datatype multi_language[] = {MPI_AINT, MPI_OFFSET, MPI_COUNT};
    const MPI_Datatype pair[] = {MPI_FLOAT_INT, MPI_DOUBLE_INT,        MPI_LONG_INT,
                                 MPI_2INT,      MPI_SHORT_INT,         MPI_LONG_DOUBLE_INT,
                                 MPI_2REAL,     MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
    if (t == MPI_DATATYPE_NULL) /* an optional type this MPI lacks */
        return 0;
    return (LISTED(t, c_integer) ? C_INTEGER : 0) |
           (LISTED(t, fortran_integer) ? FORTRAN_INTEGER : 0) |
           (LISTED(t, floating_point) ? FLOATING_POINT : 0) | (LISTED(t, logical) ? LOGICAL : 0) |
           (LISTED(t, complex) ? COMPLEX : 0) | (t == MPI_BYTE ? BYTE : 0) |
           (LISTED(t, multi_language) ? MULTI_LANGUAGE : 0) | (LISTED(t, pair) ? PAIR : 0);
}

typedef struct {
    const char *name;
    unsigned classes; /* the classes of types MPI defines it on (0: none, for reductions) */
} predefined_op;

/* 1 and *out if op is one of MPI's predefined ops. */
static int predefined(MPI_Op op, predefined_op *out)
{
    const unsigned integer = C_INTEGER | FORTRAN_INTEGER | MULTI_LANGUAGE;
    const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                          MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                          MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    const predefined_op info[] = {{"MPI_MAX", integer | FLOATING_POINT},
                                  {"MPI_MIN", integer | FLOATING_POINT},
                                  {"MPI_SUM", integer | FLOATING_POINT | COMPLEX},
                                  {"MPI_PROD", integer | FLOATING_POINT | COMPLEX},
                                  {"MPI_LAND", C_INTEGER | LOGICAL},
                                  {"MPI_BAND", integer | BYTE},
                                  {"MPI_LOR", C_INTEGER | LOGICAL},
                                  {"MPI_BOR", integer | BYTE},
                                  {"MPI_LXOR", C_INTEGER | LOGICAL},
                                  {"MPI_BXOR", integer | BYTE},
                                  {"MPI_MAXLOC", PAIR},
                                  {"MPI_MINLOC", PAIR},
                                  {"MPI_REPLACE", 0},
                                  {"MPI_NO_OP", 0}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i]) {
            *out = info[i];
            return 1;
        }
    return 0;
}

static void type_name(MPI_Datatype t, char name[MPI_MAX_OBJECT_NAME])
{
    int len = 0;
    name[0] = '\0';
    if (MPI_Type_get_name(t, name, &len) != MPI_SUCCESS || name[0] == '\0')
        strcpy(name, "a derived type");
}

/* Whether this MPI reduces base with op: one element on the library's own duplicate of
   MPI_COMM_SELF (its handler returns), so that a refusal comes back as a code. */
static int mpi_reduces(MPI_Datatype base, MPI_Op op)
{
    MPI_Comm self;
    _Alignas(16) char in[64] = {0}, out[64] = {0};
    MPI_Aint lb = 0, extent = 0;
    if (redist__coll_self(&self) != REDIST_SUCCESS ||
        MPI_Type_get_extent(base, &lb, &extent) != MPI_SUCCESS || lb != 0 ||
        extent > (MPI_Aint)sizeof in)
        return 0;
    return MPI_Reduce(in, out, 1, base, op, 0, self) == MPI_SUCCESS;
}

/* A predefined op on type (elsize bytes): the predefined type to reduce and how many of it
   one element holds. */
static int for_predefined(MPI_Datatype type, size_t elsize, const predefined_op *op, MPI_Op handle,
                          redist__coll_reducer *r)
{
    if (op->classes == 0)
        return redist__fail(REDIST_ERR_ARG,
                            "op %s is for one-sided accumulates only (MPI_Accumulate); MPI "
                            "defines no reduction with it",
                            op->name);
    MPI_Datatype base;
    int err = redist__type_base(type, &base);
    if (err != REDIST_SUCCESS)
        return redist__fail_context(err, "op %s is predefined: ", op->name);
    char name[MPI_MAX_OBJECT_NAME];
    type_name(base, name);
    int size = 0;
    if (!(type_classes(base) & op->classes) || MPI_Type_size(base, &size) != MPI_SUCCESS ||
        size <= 0)
        return redist__fail(REDIST_ERR_ARG,
                            "op %s is not defined on %s%s (MPI 4.0 6.9.2: a predefined op "
                            "applies to the predefined types of its classes)",
                            op->name, name, base == type ? "" : ", the elements of type");
    if (!mpi_reduces(base, handle))
        return redist__fail(REDIST_ERR_UNSUPPORTED, "this MPI does not reduce %s with %s", name,
                            op->name);
    r->type = base;
    r->per_element = (int64_t)(elsize / (size_t)size);
    return REDIST_SUCCESS;
}

/* A user-defined op: the type itself if predefined, else the library's committed duplicate. */
static int for_user_op(MPI_Datatype type, redist__coll_reducer *r)
{
    int ni, na, nd, combiner;
    if (MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "type is not a valid datatype");
    if (combiner == MPI_COMBINER_NAMED) {
        r->type = type;
        return REDIST_SUCCESS;
    }
    MPI_Datatype dup = MPI_DATATYPE_NULL;
    if (MPI_Type_dup(type, &dup) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Type_dup failed");
    r->type = dup;
    r->owned = 1;
    if (MPI_Type_commit(&r->type) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "MPI_Type_commit failed");
    return REDIST_SUCCESS;
}

int redist__coll_reducer_make(MPI_Datatype type, size_t elsize, MPI_Op op, redist__coll_reducer *r)
{
    *r = (redist__coll_reducer){MPI_DATATYPE_NULL, 1, 0};
    if (op == MPI_OP_NULL)
        return redist__fail(REDIST_ERR_ARG, "op is MPI_OP_NULL");
    predefined_op known;
    int err =
        predefined(op, &known) ? for_predefined(type, elsize, &known, op, r) : for_user_op(type, r);
    if (err != REDIST_SUCCESS)
        redist__coll_reducer_free(r);
    return err;
}

void redist__coll_reducer_free(redist__coll_reducer *r)
{
    if (r->owned && r->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&r->type);
    *r = (redist__coll_reducer){MPI_DATATYPE_NULL, 1, 0};
}
