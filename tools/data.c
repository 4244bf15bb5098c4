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

/* The index of name among names[first .. count - 1], or -1. */
static int name_index(const char *const names[], int first, int count, const char *name)
{
    for (int i = first; i < count; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

int tool_type_parse(const char *name, tool_type *type)
{
    int t = name_index(tool_type_names, 0, TOOL_NTYPES, name);
    if (t >= 0)
        *type = (tool_type)t;
    return t >= 0 ? 0 : -1;
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

/* ---- Partial sums ------------------------------------------------------------------------ */

const char *const tool_reduce_names[TOOL_NREDUCE] = {"",    "sum",  "prod", "max", "min", "land",
                                                     "lor", "lxor", "band", "bor", "bxor"};

int tool_reduce_parse(const char *name, tool_reduce *op)
{
    int i = name_index(tool_reduce_names, 1, TOOL_NREDUCE, name); /* not "": none */
    if (i >= 0)
        *op = (tool_reduce)i;
    return i >= 0 ? 0 : -1;
}

MPI_Op tool_reduce_op(tool_reduce op)
{
    switch (op) {
    case TOOL_REDUCE_SUM:
        return MPI_SUM;
    case TOOL_REDUCE_PROD:
        return MPI_PROD;
    case TOOL_REDUCE_MAX:
        return MPI_MAX;
    case TOOL_REDUCE_MIN:
        return MPI_MIN;
    case TOOL_REDUCE_LAND:
        return MPI_LAND;
    case TOOL_REDUCE_LOR:
        return MPI_LOR;
    case TOOL_REDUCE_LXOR:
        return MPI_LXOR;
    case TOOL_REDUCE_BAND:
        return MPI_BAND;
    case TOOL_REDUCE_BOR:
        return MPI_BOR;
    case TOOL_REDUCE_BXOR:
        return MPI_BXOR;
    default:
        return MPI_OP_NULL;
    }
}

const char *tool_reduce_refusal(tool_reduce op, tool_type type)
{
    if (op == TOOL_REDUCE_NONE || type == TOOL_INT)
        return NULL;
    if (type == TOOL_DOUBLE)
        return op <= TOOL_REDUCE_MIN ? NULL
                                     : "MPI defines the logical and bitwise ops (land, lor, lxor, "
                                       "band, bor, bxor) on integers only (use --type int)";
    if (type == TOOL_CHAR)
        return "MPI defines no reduction on MPI_CHAR (use --type int or double)";
    return "MPI defines no reduction on a derived type (use --type int or double)";
}

/* ---- Values -----------------------------------------------------------------------------
   Element with global row-major index g holds:
     char    the top byte of g * 0x9E3779B97F4A7C15 (neighbours differ)
     int     g mod 2^31
     double  g
     double3 (g, g + 0.25, -g)
   With partial sums (--reduce OP, int and double), the source holder with comm rank r holds,
   of the element of value v (above):
     sum               (r + 1) v
     prod              1 + (g + r) mod 8 (small factors, so that products stay exact)
     max, min          v + r
     land, lor, lxor   (g + r) mod 3 (0 is false, 1 and 2 true)
     band, bor, bxor   v xor ((r + 1) 0x9E3779B9 mod 2^31)
   int arithmetic wraps modulo 2^32; double values are whole numbers, exact below 2^53.     */

static unsigned char char_value(int64_t g)
{
    return (unsigned char)(((uint64_t)g * 0x9E3779B97F4A7C15ull) >> 56);
}

/* Holder r's part of element g (v: the element's value as above, g mod 2^31 for int). */
static int64_t part_value(tool_reduce op, int r, int64_t g, int64_t v)
{
    switch (op) {
    case TOOL_REDUCE_SUM:
        return (r + 1) * v;
    case TOOL_REDUCE_PROD:
        return 1 + (g + r) % 8;
    case TOOL_REDUCE_MAX:
    case TOOL_REDUCE_MIN:
        return v + r;
    case TOOL_REDUCE_LAND:
    case TOOL_REDUCE_LOR:
    case TOOL_REDUCE_LXOR:
        return (g + r) % 3;
    case TOOL_REDUCE_BAND:
    case TOOL_REDUCE_BOR:
    case TOOL_REDUCE_BXOR:
        return v ^ (int64_t)(((uint32_t)(r + 1) * 0x9E3779B9u) & 0x7fffffffu);
    default:
        return v;
    }
}

static int32_t part_int(tool_reduce op, int r, int64_t g)
{
    return (int32_t)(uint32_t)(uint64_t)part_value(op, r, g, g & 0x7fffffff);
}

static double part_double(tool_reduce op, int r, int64_t g)
{
    return (double)part_value(op, r, g, g);
}

/* a op b, as MPI's predefined ops compute them on MPI_INT32_T (wrapping) and MPI_DOUBLE. */
static int32_t combine_int(tool_reduce op, int32_t a, int32_t b)
{
    switch (op) {
    case TOOL_REDUCE_SUM:
        return (int32_t)((uint32_t)a + (uint32_t)b);
    case TOOL_REDUCE_PROD:
        return (int32_t)((uint32_t)a * (uint32_t)b);
    case TOOL_REDUCE_MAX:
        return a > b ? a : b;
    case TOOL_REDUCE_MIN:
        return a < b ? a : b;
    case TOOL_REDUCE_LAND:
        return a && b;
    case TOOL_REDUCE_LOR:
        return a || b;
    case TOOL_REDUCE_LXOR:
        return !a != !b;
    case TOOL_REDUCE_BAND:
        return a & b;
    case TOOL_REDUCE_BOR:
        return a | b;
    default:
        return a ^ b;
    }
}

static double combine_double(tool_reduce op, double a, double b)
{
    switch (op) {
    case TOOL_REDUCE_SUM:
        return a + b;
    case TOOL_REDUCE_PROD:
        return a * b;
    case TOOL_REDUCE_MAX:
        return a > b ? a : b;
    default:
        return a < b ? a : b;
    }
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
    int d = spec->ndims, coords[SPEC_MAX_DIMS] = {0};
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
    /* An irregular dimension's, a replicated dimension's or a box's local elements are one
       run. */
    int64_t b = spec_piece_run(spec, coords, fast), n = local[fast], offset = 0;
    for (;;) {
        int64_t base = 0;
        for (int s = 0; s < d - 1; s++) {
            int k = dims[s];
            base += spec_piece_global(spec, coords, k, idx[k]) * gstride[k];
        }
        for (int64_t l = 0; l < n;) {
            int64_t count = b - l % b;
            if (count > n - l)
                count = n - l;
            int64_t g = spec_piece_global(spec, coords, fast, l);
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
    const tool_expect *e; /* verify: scaling and partial sums (NULL: neither) */
    tool_reduce reduce;   /* fill: this rank's parts (TOOL_REDUCE_NONE: the values) */
    int rank;             /* fill: this rank */
    int *cand;            /* verify, partial sums from boxes: the boxes meeting the run */
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
    if (ctx->reduce != TOOL_REDUCE_NONE && ctx->type == TOOL_INT) {
        int32_t *p = (int32_t *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = part_int(ctx->reduce, ctx->rank, g);
        return;
    }
    if (ctx->reduce != TOOL_REDUCE_NONE) { /* double: tool_reduce_refusal keeps the others out */
        double *p = (double *)ctx->buf + offset;
        for (int64_t i = 0; i < count; i++, g += gs)
            p[i] = part_double(ctx->reduce, ctx->rank, g);
        return;
    }
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

/* ---- The reduction a destination element must hold ----------------------------------------
   Over the holders of its source element in e->from: a grid's positions whose coordinates
   match along every dimension that is not replicated, or the boxes that contain it. */

/* The multi-index of row-major index g of the spec's array. */
static void unravel(const tool_spec *spec, int64_t g, int64_t idx[])
{
    for (int k = spec->ndims - 1; k >= 0; k--) {
        int64_t e = spec->extent[k] > 0 ? spec->extent[k] : 1;
        idx[k] = g % e;
        g /= e;
    }
}

/* The boxes of `from` that meet the run of count elements from g by gs: they meet the box
   spanned by its first and last element (one index varies along a run). */
static int boxes_meeting(const tool_spec *from, int64_t g, int64_t gs, int64_t count, int *cand)
{
    int64_t a[SPEC_MAX_DIMS], b[SPEC_MAX_DIMS];
    int n = 0, d = from->ndims;
    unravel(from, g, a);
    unravel(from, g + (count - 1) * gs, b);
    for (int i = 0; i < from->nprocs; i++) {
        const int64_t *lo = from->lower + (size_t)i * d, *up = from->upper + (size_t)i * d;
        int meets = 1;
        for (int k = 0; meets && k < d; k++)
            meets = lo[k] <= (a[k] > b[k] ? a[k] : b[k]) && up[k] > (a[k] < b[k] ? a[k] : b[k]);
        if (meets)
            cand[n++] = i;
    }
    return n;
}

/* The comm ranks holding element idx of a grid spec: its positions along the dimensions that
   are not replicated, every position along the others (row-major). Returns how many. */
static int grid_holders(const tool_spec *from, const int64_t idx[], int *ranks)
{
    int d = from->ndims, coords[SPEC_MAX_DIMS], n = 0;
    for (int k = 0; k < d; k++)
        coords[k] = spec_coord_of(from, k, idx[k]);
    for (;;) {
        int64_t pos = 0;
        for (int k = 0; k < d; k++)
            pos = pos * from->grid[k] + coords[k];
        ranks[n++] = from->ranks[pos];
        int k = d - 1;
        for (; k >= 0; k--) {
            if (from->first[k] != REDIST_REPLICATED)
                continue;
            if (++coords[k] < from->grid[k])
                break;
            coords[k] = 0;
        }
        if (k < 0)
            return n;
    }
}

/* The reduction over the holders of source element g (ncand boxes in cand, for boxes):
   into *vi (int) or *vd (double). Returns the number of holders. */
static int reduce_over_holders(const data_ctx *ctx, int ncand, int64_t g, int32_t *vi, double *vd)
{
    const tool_spec *from = ctx->e->from;
    int64_t idx[SPEC_MAX_DIMS];
    int *ranks = ctx->cand + from->nprocs, n = 0, d = from->ndims;
    unravel(from, g, idx);
    if (spec_is_boxes(from)) {
        for (int c = 0; c < ncand; c++) {
            const int64_t *lo = from->lower + (size_t)ctx->cand[c] * d;
            const int64_t *up = from->upper + (size_t)ctx->cand[c] * d;
            int in = 1;
            for (int k = 0; in && k < d; k++)
                in = lo[k] <= idx[k] && idx[k] < up[k];
            if (in)
                ranks[n++] = from->ranks[ctx->cand[c]];
        }
    } else {
        n = grid_holders(from, idx, ranks);
    }
    for (int h = 0; h < n; h++) {
        if (ctx->type == TOOL_INT) {
            int32_t x = part_int(ctx->e->reduce, ranks[h], g);
            *vi = h ? combine_int(ctx->e->reduce, *vi, x) : x;
        } else {
            double x = part_double(ctx->e->reduce, ranks[h], g);
            *vd = h ? combine_double(ctx->e->reduce, *vd, x) : x;
        }
    }
    return n;
}

/* Whether local element `at`, of source index g, is not the reduction over its holders (ncand
   boxes in ctx->cand for boxes). An element no source holds (a plan refuses that) is wrong. */
static int partial_bad(const data_ctx *ctx, int ncand, int64_t at, int64_t g)
{
    int32_t vi = 0;
    double vd = 0;
    if (reduce_over_holders(ctx, ncand, g, &vi, &vd) == 0)
        return 1;
    if (ctx->type == TOOL_INT)
        return ((const int32_t *)ctx->buf)[at] != vi;
    if (ctx->e->scaled)
        return scaled_bad(ctx->e, ((const double *)ctx->buf)[at], vd);
    return ((const double *)ctx->buf)[at] != vd;
}

/* Whether local element `at`, of source index g, is not g's value (scaled, if e says so). */
static int plain_bad(const data_ctx *ctx, int64_t at, int64_t g)
{
    switch (ctx->type) {
    case TOOL_CHAR:
        return ((const unsigned char *)ctx->buf)[at] != char_value(g);
    case TOOL_INT:
        return ((const int32_t *)ctx->buf)[at] != (int32_t)(g & 0x7fffffff);
    case TOOL_DOUBLE:
        return ctx->e != NULL && ctx->e->scaled
                   ? scaled_bad(ctx->e, ((const double *)ctx->buf)[at], (double)g)
                   : ((const double *)ctx->buf)[at] != (double)g;
    default: {
        const double *p = (const double *)ctx->buf + 3 * at;
        return p[0] != (double)g || p[1] != (double)g + 0.25 || p[2] != -(double)g;
    }
    }
}

static void verify_run(void *vctx, int64_t offset, int64_t g, int64_t gs, int64_t count)
{
    data_ctx *ctx = vctx;
    int partial = ctx->e != NULL && ctx->e->reduce != TOOL_REDUCE_NONE;
    int ncand = partial && spec_is_boxes(ctx->e->from)
                    ? boxes_meeting(ctx->e->from, g, gs, count, ctx->cand)
                    : 0;
    int64_t wrong = 0, first = -1;
    for (int64_t i = 0; i < count; i++, g += gs) {
        if (partial ? partial_bad(ctx, ncand, offset + i, g) : plain_bad(ctx, offset + i, g)) {
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
   index (with reduce, rank's part of it). */
static void fill_values(const tool_spec *spec, int rank, tool_type type, tool_reduce reduce,
                        void *local)
{
    data_ctx ctx = {type, local, 0, INT64_MAX, NULL, reduce, rank, NULL};
    walk_runs(spec, rank, NULL, fill_run, &ctx);
}

void tool_expect_init(tool_expect *e, const tool_spec *from, const int *permute, int scaled,
                      double alpha, double beta, double start, tool_reduce reduce)
{
    e->reduce = reduce;
    e->from = from;
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
    data_ctx ctx = {type, (void *)local, 0, INT64_MAX, e, TOOL_REDUCE_NONE, rank, NULL};
    if (e != NULL && e->reduce != TOOL_REDUCE_NONE) {
        /* the candidate boxes of a run, then the holders of an element */
        ctx.cand = malloc(2 * (size_t)e->from->nprocs * sizeof *ctx.cand);
        if (ctx.cand == NULL) {
            *first_bad = INT64_MAX;
            return -1;
        }
    }
    walk_runs(spec, rank, e != NULL ? e->gstride : NULL, verify_run, &ctx);
    free(ctx.cand);
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

int tool_layout_agrees(const tool_spec *spec, redist_layout layout, int rank)
{
    int coords[SPEC_MAX_DIMS] = {0}, lib[SPEC_MAX_DIMS] = {0};
    int64_t local[SPEC_MAX_DIMS] = {0}, shape[SPEC_MAX_DIMS];
    int in = spec_coords_of_rank(spec, rank, coords);
    if (in)
        spec_local_extents(spec, coords, local);
    if (redist_layout_local_shape(layout, rank, shape) != REDIST_SUCCESS)
        return -1;
    for (int k = 0; k < spec->ndims; k++)
        if (shape[k] != local[k])
            return -1;
    if (spec_is_boxes(spec)) /* a box layout's positions are its ranks */
        return 0;
    if (redist_layout_coords(layout, rank, lib) != in)
        return -1;
    for (int k = 0; in && k < spec->ndims; k++)
        if (lib[k] != coords[k])
            return -1;
    return 0;
}

int tool_arrays_alloc(tool_arrays *a, const tool_spec *from, const tool_spec *to, tool_type type,
                      tool_reduce reduce, int rank, MPI_Comm comm)
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
        fill_values(from, rank, type, reduce, a->src);
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
    if (tool_agree_status(my_wrong < 0, comm) != 0)
        return -1; /* a rank could not check */
    MPI_Allreduce(&my_wrong, &wrong, 1, MPI_INT64_T, MPI_SUM, comm);
    if (first_bad)
        MPI_Allreduce(&my_first, first_bad, 1, MPI_INT64_T, MPI_MIN, comm);
    return wrong;
}
