/* Agreement: every rank of a collective call returns the same code, with the same detail.
 *
 * A collective entry point checks its arguments locally, with no early return, and then
 * calls redist__agree once: one MPI_Allreduce carries the worst local status and, for every
 * argument that must be the same on all ranks, the minimum and maximum of its fingerprint.
 * Only on failure do more collectives follow (every rank knows it failed, so every rank
 * makes them): the failing rank's detail is broadcast, or, for a mismatch, the first
 * argument that differs is named with a rank whose value differs from rank 0's.
 */
#include "exec/agree.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

int redist__check_mpi(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized)
        return redist__fail(REDIST_ERR_MPI, "MPI is not initialized: call MPI_Init first");
    if (finalized)
        return redist__fail(REDIST_ERR_MPI, "MPI is already finalized");
    return REDIST_SUCCESS;
}

void redist__fp_add(redist__fingerprints *fp, const char *name, const void *data, size_t n)
{
    if (fp->n >= REDIST__MAX_FINGERPRINTS)
        return; /* a programming error caught by the unit tests, not a user's */
    uint64_t h = redist__hash_bytes(1469598103934665603ull, data, n);
    fp->f[fp->n++] = (redist__fingerprint){name, h};
}

void redist__fp_add_string(redist__fingerprints *fp, const char *name, const char *s)
{
    redist__fp_add(fp, name, s != NULL ? s : "", s != NULL ? strlen(s) + 1 : 0);
}

void redist__fp_layout(redist__fingerprints *fp, const char *const names[REDIST__LAYOUT_FIELDS],
                       const struct redist_layout_s *l)
{
    size_t d = l != NULL ? (size_t)l->ndims : 0, np = l != NULL ? (size_t)l->nprocs : 0;
    redist__fp_add(fp, names[0], l != NULL ? &l->ndims : NULL, l != NULL ? sizeof l->ndims : 0);
    redist__fp_add(fp, names[1], l != NULL ? l->extent : NULL, d * sizeof(int64_t));
    if (l != NULL && l->box != NULL) { /* boxes: their corners are the blocks */
        uint64_t h =
            redist__hash_bytes(1469598103934665603ull, l->box, 2 * d * np * sizeof(int64_t));
        redist__fp_add(fp, names[2], &h, sizeof h);
    } else if (l != NULL && l->gen != NULL) { /* irregular blocks: their sizes are the blocks */
        uint64_t h = redist__hash_bytes(1469598103934665603ull, l->block, d * sizeof(int64_t));
        for (size_t k = 0; k < d; k++)
            if (l->gen[k] != NULL)
                h = redist__hash_bytes(h, l->gen[k], ((size_t)l->grid[k] + 1) * sizeof(int64_t));
        redist__fp_add(fp, names[2], &h, sizeof h);
    } else {
        redist__fp_add(fp, names[2], l != NULL ? l->block : NULL, d * sizeof(int64_t));
    }
    /* The user's grid and first: a replicated dimension's processes and REDIST_REPLICATED. */
    redist__fp_add(fp, names[3], l != NULL ? l->pgrid : NULL, d * sizeof(int));
    uint64_t first =
        l != NULL ? redist__hash_bytes(1469598103934665603ull, l->first, d * sizeof(int)) : 0;
    for (size_t k = 0; l != NULL && l->rep != NULL && k < d; k++)
        first = redist__hash_bytes(first, &l->rep[k], sizeof l->rep[k]);
    redist__fp_add(fp, names[4], l != NULL ? &first : NULL, l != NULL ? sizeof first : 0);
    redist__fp_add(fp, names[5], l != NULL ? l->ranks : NULL, np * sizeof(int));
    redist__fp_add(fp, names[6], l != NULL ? &l->order : NULL, l != NULL ? sizeof l->order : 0);
    redist__fp_add(fp, names[7], l != NULL ? l->phase : NULL, d * sizeof(int64_t));
}

void redist__fp_layout_pair(redist__fingerprints *fp, const struct redist_layout_s *src,
                            const struct redist_layout_s *dst)
{
    static const char *const src_names[REDIST__LAYOUT_FIELDS] = {
        "src ndims", "src extent", "src block (or boxes)", "src grid", "src first",
        "src ranks", "src order",  "src window offset"};
    static const char *const dst_names[REDIST__LAYOUT_FIELDS] = {
        "dst ndims", "dst extent", "dst block (or boxes)", "dst grid", "dst first",
        "dst ranks", "dst order",  "dst window offset"};
    redist__fp_layout(fp, src_names, src);
    redist__fp_layout(fp, dst_names, dst);
}

/* The failing rank's detail, sent to every rank (the code is already agreed): every rank,
   the failing one included, ends with "rank N: <detail>". */
static int share_failure(MPI_Comm comm, int rank, int code, int who)
{
    char detail[REDIST__DETAIL_LEN];
    memset(detail, 0, sizeof detail);
    if (rank == who)
        strncpy(detail, redist_last_error_detail(), sizeof detail - 1);
    int ok = MPI_Bcast(detail, (int)sizeof detail, MPI_CHAR, who, comm) == MPI_SUCCESS;
    detail[sizeof detail - 1] = '\0';
    if (ok && detail[0] != '\0')
        return redist__fail(code, "rank %d: %s", who, detail);
    return redist__fail(code, "rank %d reported: %s", who, redist_strerror(code));
}

/* Names the first argument whose fingerprints differ and the lowest rank where it differs
   from rank 0's. */
static int name_mismatch(MPI_Comm comm, int rank, const redist__fingerprints *fp, int field)
{
    uint64_t root = fp->f[field].hash;
    int who = INT_MAX, differs = 0;
    if (MPI_Bcast(&root, 1, MPI_UINT64_T, 0, comm) == MPI_SUCCESS) {
        differs = root != fp->f[field].hash ? rank : INT_MAX;
        if (MPI_Allreduce(&differs, &who, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
            who = INT_MAX; /* the detail then names no rank */
    }
    if (who == INT_MAX)
        return redist__fail(REDIST_ERR_MISMATCH, "the ranks passed different values of %s",
                            fp->f[field].name);
    return redist__fail(REDIST_ERR_MISMATCH,
                        "the ranks passed different values of %s (rank %d differs from rank 0)",
                        fp->f[field].name, who);
}

int redist__agree(MPI_Comm comm, int rank, int err, const redist__fingerprints *fp)
{
    /* The most negative code wins, and among the ranks reporting it the lowest: one key
       (code + 128) * 2^32 + rank keeps the pair together under MPI_MIN. Fingerprints travel
       as (h, -h) halved so that MIN gives their minimum and maximum at once. */
    int nf = fp != NULL ? fp->n : 0;
    int64_t v[1 + 2 * REDIST__MAX_FINGERPRINTS];
    int64_t none = INT64_MAX;
    v[0] = err != 0 ? ((int64_t)(err + 128) << 32) + rank : none;
    for (int i = 0; i < nf; i++) {
        int64_t h = (int64_t)(fp->f[i].hash >> 2);
        v[1 + 2 * i] = h;
        v[2 + 2 * i] = -h;
    }
    if (MPI_Allreduce(MPI_IN_PLACE, v, 1 + 2 * nf, MPI_INT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_MPI, "agreement (MPI_Allreduce) failed");
    if (v[0] != none)
        return share_failure(comm, rank, (int)((v[0] >> 32) - 128), (int)(v[0] & 0xffffffff));
    for (int i = 0; i < nf; i++)
        if (v[1 + 2 * i] != -v[2 + 2 * i])
            return name_mismatch(comm, rank, fp, i);
    return REDIST_SUCCESS;
}

/* Size of a contiguous element type, or an error for types we cannot copy as bytes. */
int redist__element_size(MPI_Datatype type, size_t *elsize)
{
    if (type == MPI_DATATYPE_NULL)
        return redist__fail(REDIST_ERR_ARG, "type is MPI_DATATYPE_NULL");
    int size = 0;
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    if (MPI_Type_size(type, &size) != MPI_SUCCESS ||
        MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return redist__fail(REDIST_ERR_ARG, "type is not a valid datatype");
    if (size <= 0)
        return redist__fail(REDIST_ERR_ARG, "type has size %d; elements must have data", size);
    if (lb != 0 || true_lb != 0 || (MPI_Aint)size != extent || extent != true_extent)
        return redist__fail(
            REDIST_ERR_UNSUPPORTED,
            "type is not contiguous (size %d, extent %ld, lower bound %ld): only contiguous element types are supported",
            size, (long)extent, (long)lb);
    *elsize = (size_t)size;
    return REDIST_SUCCESS;
}

/* The kind of a predefined type, C's or Fortran's name for it alike (0: none). */
static int scale_kind_of_named(MPI_Datatype t)
{
    if (t == MPI_FLOAT || t == MPI_REAL || t == MPI_REAL4)
        return REDIST__REAL4;
    if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_REAL8)
        return REDIST__REAL8;
    if (t == MPI_C_FLOAT_COMPLEX || t == MPI_COMPLEX || t == MPI_COMPLEX8)
        return REDIST__COMPLEX8;
    if (t == MPI_C_DOUBLE_COMPLEX || t == MPI_DOUBLE_COMPLEX || t == MPI_COMPLEX16)
        return REDIST__COMPLEX16;
    return 0;
}

int redist__scale_kind(MPI_Datatype type)
{
    int ni = 0, na = 0, nd = 0, combiner = 0;
    if (MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    if (combiner == MPI_COMBINER_NAMED)
        return scale_kind_of_named(type);
    if (combiner != MPI_COMBINER_DUP || nd != 1)
        return 0;
    MPI_Datatype inner = MPI_DATATYPE_NULL; /* a dup of a dup ...: follow the chain */
    if (MPI_Type_get_contents(type, 0, 0, 1, NULL, NULL, &inner) != MPI_SUCCESS)
        return 0;
    int kind = redist__scale_kind(inner);
    if (MPI_Type_get_envelope(inner, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&inner);
    return kind;
}
