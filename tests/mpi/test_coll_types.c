/* nprocs: 1 2 3 4 5 7 8 */
/* The reductions (redist_reduce, redist_allreduce, redist_scan, redist_reduce_scatter) on every
 * predefined op x every predefined type, and on derived types, with MPI's DEFAULT error
 * handlers (MPI_ERRORS_ARE_FATAL): an error MPI raised inside the library on a handle it did
 * not create would abort the job. Against the MPI standard's table (MPI 4.0
 * §6.9.2, written here per type, independently of the library's per-class table) and MPI's
 * own MPI_Allreduce (on a duplicate whose handler returns) as the reference:
 *
 *   - a pair the standard defines, on a contiguous type: SUCCESS on every rank, and every
 *     byte of the result equal to MPI's (or REDIST_ERR_UNSUPPORTED where this MPI refuses a
 *     pair the standard defines); the same for an uncommitted contiguous type of 3 such
 *     elements (reduced as 3 elements of the predefined type), through every algorithm;
 *   - a pair it does not define (MPI_BAND on MPI_DOUBLE, MPI_MAXLOC on MPI_INT, MPI_SUM on
 *     MPI_CHAR, MPI_REPLACE, MPI_NO_OP, a struct of two types): REDIST_ERR_ARG everywhere;
 *     a padded pair type (MPI_DOUBLE_INT): REDIST_ERR_UNSUPPORTED (not contiguous);
 *   - a user-defined op on an uncommitted derived type, through every algorithm: SUCCESS
 *     and MPI's result (the op receives a committed type); on a predefined type the op
 *     receives the caller's own handle.
 *
 * Every datatype the library made (its duplicates, the contents it read) is freed. MPI's
 * reference runs only on the pairs the standard defines (MPICH 4.0 aborts inside
 * MPI_Reduce on some others, whatever the handler). Output: " No Errors" or " Found N
 * errors".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

static int rank, size, errs;
static MPI_Comm ref; /* MPI's reference collectives: a duplicate of WORLD whose handler returns */

enum { COUNT = 5, MAX_BYTES = 32 }; /* elements per block; the largest predefined type */

/* How the test writes values into an element (small integers: every reduction is exact). */
typedef enum {
    K_INT,
    K_FLOAT,
    K_COMPLEX,
    K_BOOL,
    K_PAIR_II,
    K_PAIR_FI,
    K_PAIR_FF,
    K_PAIR_DD,
    K_ZERO /* a format the test does not know: zeros */
} kind;

typedef struct {
    MPI_Datatype t;
    const char *name;
    kind k;
    const char *ops; /* the predefined ops the standard defines on it, space separated */
} type_case;

#define INTEGER_OPS "MPI_MAX MPI_MIN MPI_SUM MPI_PROD MPI_BAND MPI_BOR MPI_BXOR"
#define C_INTEGER_OPS INTEGER_OPS " MPI_LAND MPI_LOR MPI_LXOR"
#define FLOAT_OPS "MPI_MAX MPI_MIN MPI_SUM MPI_PROD"
#define COMPLEX_OPS "MPI_SUM MPI_PROD"
#define LOGICAL_OPS "MPI_LAND MPI_LOR MPI_LXOR"
#define PAIR_OPS "MPI_MAXLOC MPI_MINLOC"

static type_case types[80];
static int ntypes;

static void add_type(MPI_Datatype t, const char *name, kind k, const char *ops)
{
    if (t != MPI_DATATYPE_NULL && ntypes < (int)(sizeof types / sizeof types[0]))
        types[ntypes++] = (type_case){t, name, k, ops};
}

#define T(t, k, ops) add_type(t, #t, k, ops)

static void list_types(void)
{
    T(MPI_INT, K_INT, C_INTEGER_OPS);
    T(MPI_LONG, K_INT, C_INTEGER_OPS);
    T(MPI_SHORT, K_INT, C_INTEGER_OPS);
    T(MPI_UNSIGNED_SHORT, K_INT, C_INTEGER_OPS);
    T(MPI_UNSIGNED, K_INT, C_INTEGER_OPS);
    T(MPI_UNSIGNED_LONG, K_INT, C_INTEGER_OPS);
    T(MPI_LONG_LONG_INT, K_INT, C_INTEGER_OPS);
    T(MPI_UNSIGNED_LONG_LONG, K_INT, C_INTEGER_OPS);
    T(MPI_SIGNED_CHAR, K_INT, C_INTEGER_OPS);
    T(MPI_UNSIGNED_CHAR, K_INT, C_INTEGER_OPS);
    T(MPI_INT8_T, K_INT, C_INTEGER_OPS);
    T(MPI_INT16_T, K_INT, C_INTEGER_OPS);
    T(MPI_INT32_T, K_INT, C_INTEGER_OPS);
    T(MPI_INT64_T, K_INT, C_INTEGER_OPS);
    T(MPI_UINT8_T, K_INT, C_INTEGER_OPS);
    T(MPI_UINT16_T, K_INT, C_INTEGER_OPS);
    T(MPI_UINT32_T, K_INT, C_INTEGER_OPS);
    T(MPI_UINT64_T, K_INT, C_INTEGER_OPS);
    T(MPI_INTEGER, K_INT, INTEGER_OPS);
#ifdef MPI_INTEGER1
    T(MPI_INTEGER1, K_INT, INTEGER_OPS);
#endif
#ifdef MPI_INTEGER2
    T(MPI_INTEGER2, K_INT, INTEGER_OPS);
#endif
#ifdef MPI_INTEGER4
    T(MPI_INTEGER4, K_INT, INTEGER_OPS);
#endif
#ifdef MPI_INTEGER8
    T(MPI_INTEGER8, K_INT, INTEGER_OPS);
#endif
    T(MPI_AINT, K_INT, INTEGER_OPS);
    T(MPI_OFFSET, K_INT, INTEGER_OPS);
    T(MPI_COUNT, K_INT, INTEGER_OPS);
    T(MPI_FLOAT, K_FLOAT, FLOAT_OPS);
    T(MPI_DOUBLE, K_FLOAT, FLOAT_OPS);
    T(MPI_REAL, K_FLOAT, FLOAT_OPS);
    T(MPI_DOUBLE_PRECISION, K_FLOAT, FLOAT_OPS);
    T(MPI_LONG_DOUBLE, K_FLOAT, FLOAT_OPS);
#ifdef MPI_REAL4
    T(MPI_REAL4, K_FLOAT, FLOAT_OPS);
#endif
#ifdef MPI_REAL8
    T(MPI_REAL8, K_FLOAT, FLOAT_OPS);
#endif
    T(MPI_LOGICAL, K_BOOL, LOGICAL_OPS);
    T(MPI_C_BOOL, K_BOOL, LOGICAL_OPS);
    T(MPI_C_FLOAT_COMPLEX, K_COMPLEX, COMPLEX_OPS);
    T(MPI_C_DOUBLE_COMPLEX, K_COMPLEX, COMPLEX_OPS);
    T(MPI_COMPLEX, K_COMPLEX, COMPLEX_OPS);
    T(MPI_DOUBLE_COMPLEX, K_COMPLEX, COMPLEX_OPS);
#ifdef MPI_COMPLEX8
    T(MPI_COMPLEX8, K_COMPLEX, COMPLEX_OPS);
#endif
#ifdef MPI_COMPLEX16
    T(MPI_COMPLEX16, K_COMPLEX, COMPLEX_OPS);
#endif
    T(MPI_C_LONG_DOUBLE_COMPLEX, K_ZERO, COMPLEX_OPS);
    T(MPI_BYTE, K_INT, "MPI_BAND MPI_BOR MPI_BXOR");
    T(MPI_CHAR, K_INT, "");
    T(MPI_WCHAR, K_INT, "");
    T(MPI_2INT, K_PAIR_II, PAIR_OPS);
    T(MPI_2INTEGER, K_PAIR_II, PAIR_OPS);
    T(MPI_FLOAT_INT, K_PAIR_FI, PAIR_OPS);
    T(MPI_2REAL, K_PAIR_FF, PAIR_OPS);
    T(MPI_2DOUBLE_PRECISION, K_PAIR_DD, PAIR_OPS);
    T(MPI_DOUBLE_INT, K_ZERO, PAIR_OPS); /* padded: not contiguous */
    T(MPI_LONG_INT, K_ZERO, PAIR_OPS);
    T(MPI_SHORT_INT, K_ZERO, PAIR_OPS);
}

typedef struct {
    MPI_Op op;
    const char *name;
} op_case;

static const op_case *ops(int *n)
{
    static op_case list[14];
    const op_case all[] = {
        {MPI_MAX, "MPI_MAX"},         {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
        {MPI_PROD, "MPI_PROD"},       {MPI_LAND, "MPI_LAND"},     {MPI_BAND, "MPI_BAND"},
        {MPI_LOR, "MPI_LOR"},         {MPI_BOR, "MPI_BOR"},       {MPI_LXOR, "MPI_LXOR"},
        {MPI_BXOR, "MPI_BXOR"},       {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
        {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"}};
    memcpy(list, all, sizeof all);
    *n = (int)(sizeof all / sizeof all[0]);
    return list;
}

static int standard_defines(const type_case *tc, const char *op)
{
    size_t n = strlen(op);
    for (const char *p = strstr(tc->ops, op); p != NULL; p = strstr(p + 1, op))
        if ((p == tc->ops || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Small values from (rank, element): 0..3, so that sums and products stay exact. */
static int value(int who, int i)
{
    return (who * 7 + i * 3 + 1) % 4;
}

static void put_int(char *at, size_t bytes, int v)
{
    memset(at, 0, bytes);
    at[0] = (char)v; /* little or big endian alike for the test's purpose: v < 128 */
    if (bytes > 1) {
        int one = 1;
        if (*(char *)&one == 0) { /* big endian: the value's byte is the last */
            at[0] = 0;
            at[bytes - 1] = (char)v;
        }
    }
}

static void put_real(char *at, size_t bytes, int v)
{
    if (bytes == sizeof(float)) {
        float f = (float)v;
        memcpy(at, &f, sizeof f);
    } else if (bytes == sizeof(double)) {
        double d = v;
        memcpy(at, &d, sizeof d);
    } else {
        memset(at, 0, bytes);
    }
}

/* Element i (es bytes) of kind k written for rank `who`. */
static void fill_element(char *at, size_t es, kind k, int who, int i)
{
    int v = value(who, i), w = value(who + 1, i + 2);
    memset(at, 0, es);
    switch (k) {
    case K_INT:
        put_int(at, es, v);
        break;
    case K_BOOL:
        put_int(at, es, v & 1);
        break;
    case K_FLOAT:
        put_real(at, es, v);
        break;
    case K_COMPLEX:
        put_real(at, es / 2, v);
        put_real(at + es / 2, es / 2, w);
        break;
    case K_PAIR_II:
    case K_PAIR_FI:
    case K_PAIR_FF:
    case K_PAIR_DD: { /* (value, index): the index is a rank, as MINLOC/MAXLOC expect */
        size_t half = k == K_PAIR_DD ? sizeof(double) : sizeof(int);
        if (k == K_PAIR_II)
            put_int(at, half, v);
        else
            put_real(at, half, v);
        if (k == K_PAIR_FF || k == K_PAIR_DD)
            put_real(at + half, half, who);
        else
            put_int(at + half, half, who);
        break;
    }
    case K_ZERO:
        break;
    }
}

static void fill(char *buf, int64_t n, size_t es, kind k, int who)
{
    for (int64_t i = 0; i < n; i++)
        fill_element(buf + i * (int64_t)es, es, k, who, (int)(i % 1000));
}

enum { R_REDUCE, R_ALLREDUCE, R_SCAN, R_REDUCE_SCATTER, NREDUCTIONS };
static const char *const reduction_names[NREDUCTIONS] = {"reduce", "allreduce", "scan",
                                                         "reduce_scatter"};

/* Reduction r by redist, on WORLD with its default handler (reduce: to the last rank). */
static int by_redist(int r, const char *algorithm, const void *send, void *out, int64_t count,
                     MPI_Datatype t, MPI_Op op)
{
    switch (r) {
    case R_REDUCE:
        return redist_reduce(send, out, count, t, op, size - 1, MPI_COMM_WORLD, algorithm);
    case R_ALLREDUCE:
        return redist_allreduce(send, out, count, t, op, MPI_COMM_WORLD, algorithm);
    case R_SCAN:
        return redist_scan(send, out, count, t, op, MPI_COMM_WORLD, algorithm);
    default:
        return redist_reduce_scatter(send, out, count, t, op, MPI_COMM_WORLD, algorithm);
    }
}

/* The same by MPI on ref (its handler returns): whether every rank's MPI did it. */
static int by_mpi(int r, const void *send, void *want, int count, MPI_Datatype t, MPI_Op op)
{
    int rc;
    switch (r) {
    case R_REDUCE:
        rc = MPI_Reduce(send, want, count, t, op, size - 1, ref);
        break;
    case R_ALLREDUCE:
        rc = MPI_Allreduce(send, want, count, t, op, ref);
        break;
    case R_SCAN:
        rc = MPI_Scan(send, want, count, t, op, ref);
        break;
    default:
        rc = MPI_Reduce_scatter_block(send, want, count, t, op, ref);
        break;
    }
    int all = 0, ok = rc == MPI_SUCCESS;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static char *send_buf, *out_buf, *want_buf; /* size blocks of 3 COUNT of the largest type */
static size_t buf_bytes;

/* Checks one call: the same code on every rank, the expected one, and every byte of the
   result this rank holds (reduce: the root) equal to MPI's. */
static void check(const char *what, int rc, int want_rc, int mpi_ok, int r, int64_t bytes)
{
    if (!mtest_all_same(rc))
        mtest_fail(&errs, rank, what, "different codes on different ranks (%s here)",
                   redist_error_name(rc));
    if (rc == REDIST_ERR_UNSUPPORTED && want_rc == REDIST_SUCCESS && !mpi_ok)
        return; /* this MPI lacks a pair the standard defines: refused, not aborted */
    if (rc != want_rc) {
        mtest_fail(&errs, rank, what, "returned %s, expected %s (%s)", redist_error_name(rc),
                   redist_error_name(want_rc), redist_last_error_detail());
        return;
    }
    if (rc != REDIST_SUCCESS)
        return;
    if (!mpi_ok) {
        mtest_fail(&errs, rank, what, "redist reduced a pair that MPI refused");
        return;
    }
    int64_t n = r == R_REDUCE && rank != size - 1 ? 0 : bytes;
    for (int64_t i = 0; i < n; i++)
        if (out_buf[i] != want_buf[i]) {
            mtest_fail(&errs, rank, what, "byte %lld of the result differs from MPI's",
                       (long long)i);
            return;
        }
}

/* Fills the input (p blocks for reduce_scatter) and clears both results. */
static void prepare(int r, int64_t elements, size_t es, kind k)
{
    fill(send_buf, (r == R_REDUCE_SCATTER ? size : 1) * elements, es, k, rank);
    memset(out_buf, 0x5a, buf_bytes);
    memset(want_buf, 0x5a, buf_bytes);
}

/* Every reduction of op on the predefined type tc, then on an uncommitted contiguous type of
   3 of them (which MPI's reference reduces as 3 times as many elements of tc). */
static void predefined_pair(const type_case *tc, const op_case *oc)
{
    int es = 0;
    MPI_Aint lb, extent;
    MPI_Type_size(tc->t, &es);
    MPI_Type_get_extent(tc->t, &lb, &extent);
    int contiguous = lb == 0 && extent == es && es <= MAX_BYTES;
    int want = !contiguous                      ? REDIST_ERR_UNSUPPORTED
               : standard_defines(tc, oc->name) ? REDIST_SUCCESS
                                                : REDIST_ERR_ARG;
    char what[200];
    for (int r = 0; r < NREDUCTIONS; r++) {
        prepare(r, COUNT, (size_t)es, contiguous ? tc->k : K_ZERO);
        int rc = by_redist(r, NULL, send_buf, out_buf, COUNT, tc->t, oc->op);
        /* MPI itself only where the standard defines the pair: MPICH 4.0 passes MPI_LAND on
           MPI_FLOAT to an assertion that aborts, whatever the handler. */
        int mpi_ok = want == REDIST_SUCCESS && by_mpi(r, send_buf, want_buf, COUNT, tc->t, oc->op);
        snprintf(what, sizeof what, "%s, %s on %s", reduction_names[r], oc->name, tc->name);
        check(what, rc, want, mpi_ok, r, COUNT * es);
        if (want != REDIST_SUCCESS)
            continue;
        MPI_Datatype three; /* never committed */
        MPI_Type_contiguous(3, tc->t, &three);
        prepare(r, 3 * COUNT, (size_t)es, tc->k);
        rc = by_redist(r, NULL, send_buf, out_buf, COUNT, three, oc->op);
        mpi_ok = mpi_ok && by_mpi(r, send_buf, want_buf, 3 * COUNT, tc->t, oc->op);
        snprintf(what, sizeof what, "%s, %s on an uncommitted contiguous type of 3 %s",
                 reduction_names[r], oc->name, tc->name);
        check(what, rc, want, mpi_ok, r, 3 * COUNT * es);
        MPI_Type_free(&three);
    }
}

/* a op b = a + b on 3 ints, with a check that MPI handed the op a usable type. */
static MPI_Datatype expected_handle = MPI_DATATYPE_NULL;
static int handle_mismatches;
static void add_triples(void *in, void *inout, int *len, MPI_Datatype *t)
{
    int size_of = 0;
    MPI_Type_size(*t, &size_of);
    if (expected_handle != MPI_DATATYPE_NULL && *t != expected_handle)
        handle_mismatches++;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len * (size_of / (int)sizeof(int)); i++)
        b[i] += a[i];
}

/* A derived type (committed or not) through every algorithm of every reduction: a predefined
   op on contiguous(3, MPI_INT) (reduced as ints: the split into pieces must fall on whole
   ints) and a user-defined op on the same type, against MPI on the ints or on the committed
   equivalent. */
static void every_algorithm(int committed)
{
    MPI_Datatype three, three_committed;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_contiguous(3, MPI_INT, &three_committed);
    MPI_Type_commit(&three_committed);
    if (committed)
        MPI_Type_commit(&three);
    MPI_Op user;
    MPI_Op_create(add_triples, 1, &user);
    const MPI_Op op_list[2] = {MPI_SUM, user};
    const char *op_names[2] = {"MPI_SUM", "a user-defined op"};
    char what[200];
    for (int r = 0; r < NREDUCTIONS; r++)
        for (int o = 0; o < 2; o++)
            for (int i = -1;; i++) {
                const char *alg = i < 0 ? NULL : redist_coll_algorithm_name(reduction_names[r], i);
                if (i >= 0 && alg == NULL)
                    break;
                int64_t count = 1 + (i + 2) * 7 % 23; /* 1 .. 23 triples: uneven pieces */
                prepare(r, 3 * count, sizeof(int), K_INT);
                int rc = by_redist(r, alg, send_buf, out_buf, count, three, op_list[o]);
                /* MPI's reference: 3 count ints for MPI_SUM (Open MPI has no predefined op on
                   derived types), count committed triples for the user's op. */
                int mpi_ok = o == 0
                                 ? by_mpi(r, send_buf, want_buf, 3 * (int)count, MPI_INT, MPI_SUM)
                                 : by_mpi(r, send_buf, want_buf, (int)count, three_committed, user);
                int want = alg != NULL && strcmp(alg, "hypercube") == 0 && r == R_REDUCE_SCATTER &&
                                   (size & (size - 1)) != 0
                               ? REDIST_ERR_NOT_APPLICABLE
                               : REDIST_SUCCESS;
                snprintf(what, sizeof what, "%s (%s), %s on %s contiguous(3, MPI_INT), count %lld",
                         reduction_names[r], alg ? alg : "auto", op_names[o],
                         committed ? "a committed" : "an uncommitted", (long long)count);
                check(what, rc, want, mpi_ok, r, 3 * count * (int64_t)sizeof(int));
            }
    MPI_Op_free(&user);
    MPI_Type_free(&three);
    MPI_Type_free(&three_committed);
}

/* A user-defined op on a predefined type receives the caller's own handle. */
static void user_op_handle(void)
{
    MPI_Op user;
    MPI_Op_create(add_triples, 1, &user);
    expected_handle = MPI_INT;
    handle_mismatches = 0;
    prepare(R_ALLREDUCE, 3 * COUNT, sizeof(int), K_INT);
    int rc = redist_allreduce(send_buf, out_buf, 3 * COUNT, MPI_INT, user, MPI_COMM_WORLD, NULL);
    if (rc != REDIST_SUCCESS || handle_mismatches != 0)
        mtest_fail(&errs, rank, "user-defined op on MPI_INT",
                   "%s, the op saw another handle %d times", redist_error_name(rc),
                   handle_mismatches);
    expected_handle = MPI_DATATYPE_NULL;
    MPI_Op_free(&user);
}

/* A struct of an int and a float (contiguous, committed or not) under a predefined op. */
static void mixed_struct(void)
{
    int lengths[2] = {1, 1};
    MPI_Aint at[2] = {0, sizeof(int)};
    MPI_Datatype parts[2] = {MPI_INT, MPI_FLOAT}, mixed;
    MPI_Type_create_struct(2, lengths, at, parts, &mixed);
    for (int r = 0; r < NREDUCTIONS; r++) {
        prepare(r, 2 * COUNT, sizeof(int), K_INT);
        int rc = by_redist(r, NULL, send_buf, out_buf, COUNT, mixed, MPI_SUM);
        char what[120];
        snprintf(what, sizeof what, "%s, MPI_SUM on a struct of MPI_INT and MPI_FLOAT",
                 reduction_names[r]);
        check(what, rc, REDIST_ERR_ARG, 0, r, 0);
    }
    MPI_Type_free(&mixed);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* WORLD and SELF keep MPI's default handlers: that is the point of the test. */
    MPI_Comm_dup(MPI_COMM_WORLD, &ref);
    MPI_Comm_set_errhandler(ref, MPI_ERRORS_RETURN);
    buf_bytes = (size_t)size * 3 * COUNT * MAX_BYTES + 23 * 3 * sizeof(int) * (size_t)size;
    send_buf = calloc(buf_bytes, 1);
    out_buf = calloc(buf_bytes, 1);
    want_buf = calloc(buf_bytes, 1);
    list_types();
    long types_before = mtest_live_types();
    int nops;
    const op_case *op_list = ops(&nops);
    for (int t = 0; t < ntypes; t++)
        for (int o = 0; o < nops; o++)
            predefined_pair(&types[t], &op_list[o]);
    every_algorithm(0);
    every_algorithm(1);
    user_op_handle();
    mixed_struct();
    /* The library's duplicates and the types MPI_Type_get_contents returned: all freed. */
    if (mtest_live_types() != types_before)
        mtest_fail(&errs, rank, "datatypes", "%ld live before the reductions, %ld after",
                   types_before, mtest_live_types());
    if (rank == 0)
        printf("test_coll_types: %d predefined types x %d predefined ops, 4 reductions\n", ntypes,
               nops);
    free(send_buf);
    free(out_buf);
    free(want_buf);
    MPI_Comm_free(&ref);
    return mtest_finalize(errs);
}
