/* The redist tool's data (data.h): element types, local arrays whose elements hold a value
 * computed from their global index, and the check of every destination element. */
#define _POSIX_C_SOURCE 200809L

#include "data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *const tool_type_names[TOOL_NTYPES] = {"char", "int", "double", "double3"};
const int tool_type_sizes[TOOL_NTYPES] = {1, 4, 8, 24};

int tool_type_parse(const char *name, tool_type *type)
{
    for (int t = 0; t < TOOL_NTYPES; t++) {
        if (strcmp(name, tool_type_names[t]) == 0) {
            *type = (tool_type)t;
            return 0;
        }
    }
    return -1;
}

MPI_Datatype tool_mpi_type(tool_type type)
{
    MPI_Datatype t;
    switch (type) {
    case TOOL_CHAR:
        return MPI_CHAR;
    case TOOL_INT:
        return MPI_INT32_T;
    case TOOL_DOUBLE:
        return MPI_DOUBLE;
    default:
        MPI_Type_contiguous(3, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        return t;
    }
}

/* ---- Values -----------------------------------------------------------------------------
   Element with global row-major index g holds:
     char    the top byte of g * 0x9E3779B97F4A7C15 (neighbours differ)
     int     g mod 2^31
     double  g
     double3 (g, g + 0.25, -g)                                                              */

static unsigned char char_value(int64_t g)
{
    return (unsigned char)(((uint64_t)g * 0x9E3779B97F4A7C15ull) >> 56);
}

/* Calls fn for each run of consecutive local elements along the fastest local dimension
   that lies in one block: local offsets offset .. offset+count-1 hold global row-major
   indices g0, g0 + gstride, ... */
typedef void (*run_fn)(void *ctx, int64_t offset, int64_t g0, int64_t gstride, int64_t count);

/* The global index of element h is sum_k h_k gstride[k]: the spec's own row-major strides
   (gstride_in NULL), or another array's (an axis permutation's source). */
static void walk_runs(const tool_spec *spec, int rank, const int64_t *gstride_in, run_fn fn,
                      void *ctx)
{
    int d = spec->ndims, coords[SPEC_MAX_DIMS];
    int64_t local[SPEC_MAX_DIMS], gstride[SPEC_MAX_DIMS], idx[SPEC_MAX_DIMS] = {0};
    if (!spec_coords_of_rank(spec, rank, coords))
        return;
    spec_local_extents(spec, coords, local);
    for (int k = 0; k < d; k++)
        if (local[k] == 0)
            return;
    gstride[d - 1] = 1;
    for (int k = d - 2; k >= 0; k--)
        gstride[k] = gstride[k + 1] * spec->extent[k + 1];
    if (gstride_in != NULL)
        memcpy(gstride, gstride_in, (size_t)d * sizeof *gstride);
    /* The local storage order from slowest to fastest dimension. */
    int dims[SPEC_MAX_DIMS];
    for (int k = 0; k < d; k++)
        dims[k] = spec->order == REDIST_COL_MAJOR ? d - 1 - k : k;
    int fast = dims[d - 1];
    /* An irregular dimension's local elements are one block: one run. */
    int64_t b = spec->gen[fast] ? local[fast] : spec->block[fast], n = local[fast], offset = 0;
    for (;;) {
        int64_t base = 0;
        for (int s = 0; s < d - 1; s++) {
            int k = dims[s];
            base += spec_global_index_of(spec, k, coords[k], idx[k]) * gstride[k];
        }
        for (int64_t l = 0; l < n;) {
            int64_t count = b - l % b;
            if (count > n - l)
                count = n - l;
            int64_t g = spec_global_index_of(spec, fast, coords[fast], l);
            fn(ctx, offset + l, base + g * gstride[fast], gstride[fast], count);
            l += count;
        }
        offset += n;
        int s = d - 2;
        for (; s >= 0; s--) {
            int k = dims[s];
            if (++idx[k] < local[k])
                break;
            idx[k] = 0;
        }
        if (s < 0)
            break;
    }
}

typedef struct data_ctx {
    tool_type type;
    void *buf;
    int64_t wrong, first_bad;
    const tool_expect *e; /* verify: scaling (NULL: none) */
} data_ctx;

/* beta start + alpha x, to the library's rounding or one unit of it (a contracted multiply-add
   rounds once). */
static int scaled_bad(const tool_expect *e, double got, double x)
{
    double want = e->beta * e->start + e->alpha * x;
    return !(fabs(got - want) <= 4e-16 * (fabs(want) + fabs(e->beta * e->start)));
}

static void fill_run(void *vctx, int64_t offset, int64_t g, int64_t gs, int64_t count)
{
    data_ctx *ctx = vctx;
    switch (ctx->type) {
    case TOOL_CHAR: {
        unsigned char *p = (unsigned char *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = char_value(g);
        break;
    }
    case TOOL_INT: {
        int32_t *p = (int32_t *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = (int32_t)(g & 0x7fffffff);
        break;
    }
    case TOOL_DOUBLE: {
        double *p = (double *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = (double)g;
        break;
    }
    default: {
        double *p = (double *)ctx->buf + 3 * offset;
        for (int64_t i = 0; i < count; i++, g += gs) {
            p[3 * i] = (double)g;
            p[3 * i + 1] = (double)g + 0.25;
            p[3 * i + 2] = -(double)g;
        }
        break;
    }
    }
}

static void verify_run(void *vctx, int64_t offset, int64_t g, int64_t gs, int64_t count)
{
    data_ctx *ctx = vctx;
    int64_t wrong = 0, first = -1;
    for (int64_t i = 0; i < count; i++, g += gs) {
        int bad;
        switch (ctx->type) {
        case TOOL_CHAR:
            bad = ((const unsigned char *)ctx->buf)[offset + i] != char_value(g);
            break;
        case TOOL_INT:
            bad = ((const int32_t *)ctx->buf)[offset + i] != (int32_t)(g & 0x7fffffff);
            break;
        case TOOL_DOUBLE:
            bad = ctx->e != NULL && ctx->e->scaled
                      ? scaled_bad(ctx->e, ((const double *)ctx->buf)[offset + i], (double)g)
                      : ((const double *)ctx->buf)[offset + i] != (double)g;
            break;
        default: {
            const double *p = (const double *)ctx->buf + 3 * (offset + i);
            bad = p[0] != (double)g || p[1] != (double)g + 0.25 || p[2] != -(double)g;
            break;
        }
        }
        if (bad) {
            if (!wrong)
                first = g;
            wrong++;
        }
    }
    /* Runs are visited in local order, not global order: keep the smallest. */
    if (wrong && first < ctx->first_bad)
        ctx->first_bad = first;
    ctx->wrong += wrong;
}

/* Fills rank's local array of the layout in spec with the value of each element's global
   index. */
static void fill_values(const tool_spec *spec, int rank, tool_type type, void *local)
{
    data_ctx ctx = {type, local, 0, INT64_MAX, NULL};
    walk_runs(spec, rank, NULL, fill_run, &ctx);
}

void tool_expect_init(tool_expect *e, const tool_spec *from, const int *permute, int scaled,
                      double alpha, double beta, double start)
{
    int64_t own[SPEC_MAX_DIMS];
    int d = from->ndims;
    own[d - 1] = 1;
    for (int k = d - 2; k >= 0; k--)
        own[k] = own[k + 1] * from->extent[k + 1];
    for (int j = 0; j < d; j++) /* destination dimension j is the source's permute[j] */
        e->gstride[j] = own[permute != NULL ? permute[j] : j];
    e->scaled = scaled;
    e->alpha = alpha;
    e->beta = beta;
    e->start = start;
}

/* Counts rank's local elements whose value is not the expected one (e NULL: the plain one),
   and sets *first_bad to the smallest wrong global row-major index (INT64_MAX if none). */
static int64_t count_wrong(const tool_spec *spec, int rank, tool_type type, const void *local,
                           const tool_expect *e, int64_t *first_bad)
{
    data_ctx ctx = {type, (void *)local, 0, INT64_MAX, e};
    walk_runs(spec, rank, e != NULL ? e->gstride : NULL, verify_run, &ctx);
    *first_bad = ctx.first_bad;
    return ctx.wrong;
}

int tool_layouts(const tool_spec *from, const tool_spec *to, redist_layout *src, redist_layout *dst)
{
    *src = *dst = NULL;
    int rc = spec_layout(from, src);
    if (rc == REDIST_SUCCESS)
        rc = spec_layout(to, dst);
    return rc;
}

void tool_layouts_free(redist_layout *src, redist_layout *dst)
{
    if (*src)
        redist_layout_free(src);
    if (*dst)
        redist_layout_free(dst);
}

int tool_arrays_alloc(tool_arrays *a, const tool_spec *from, const tool_spec *to, tool_type type,
                      int rank, MPI_Comm comm)
{
    a->el = (size_t)tool_type_sizes[type];
    a->nsrc = spec_local_count(from, rank);
    a->ndst = spec_local_count(to, rank);
    /* redist_execute takes NULL for a source a rank does not hold, never for a destination:
       an empty one still gets an element. */
    a->src = a->nsrc ? malloc((size_t)a->nsrc * a->el) : NULL;
    a->dst = malloc((size_t)(a->ndst ? a->ndst : 1) * a->el);
    if (tool_agree_status((a->nsrc && !a->src) || !a->dst, comm)) {
        tool_arrays_free(a);
        return -1;
    }
    if (a->src)
        fill_values(from, rank, type, a->src);
    return 0;
}

void tool_arrays_poison(tool_arrays *a)
{
    memset(a->dst, 0xA5, (size_t)(a->ndst ? a->ndst : 1) * a->el);
}

void tool_arrays_free(tool_arrays *a)
{
    free(a->src);
    free(a->dst);
    a->src = a->dst = NULL;
}

int64_t tool_verify_all(const tool_spec *to, int rank, tool_type type, const void *dst,
                        MPI_Comm comm, int64_t *first_bad)
{
    return tool_verify_all_expect(to, rank, type, dst, NULL, comm, first_bad);
}

int64_t tool_verify_all_expect(const tool_spec *to, int rank, tool_type type, const void *dst,
                               const tool_expect *e, MPI_Comm comm, int64_t *first_bad)
{
    int64_t my_first, my_wrong = count_wrong(to, rank, type, dst, e, &my_first), wrong;
    MPI_Allreduce(&my_wrong, &wrong, 1, MPI_INT64_T, MPI_SUM, comm);
    if (first_bad)
        MPI_Allreduce(&my_first, first_bad, 1, MPI_INT64_T, MPI_MIN, comm);
    return wrong;
}
