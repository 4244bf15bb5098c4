/* The redist tool's data: element types, local arrays whose elements hold a value computed
   from their global index, and the check of every destination element against it. */
#ifndef REDIST_TOOL_DATA_H
#define REDIST_TOOL_DATA_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "redist.h"
#include "spec.h"

/* ---- Element types (--type) ------------------------------------------------------------- */
typedef enum { TOOL_CHAR, TOOL_INT, TOOL_DOUBLE, TOOL_DOUBLE3, TOOL_NTYPES } tool_type;
extern const char *const tool_type_names[TOOL_NTYPES];
extern const int tool_type_sizes[TOOL_NTYPES];
/* Returns 0 and sets *type, or -1 for an unknown name. */
int tool_type_parse(const char *name, tool_type *type);
/* The MPI datatype of a tool type; double3 is a new committed type the caller frees. */
MPI_Datatype tool_mpi_type(tool_type type);

/* ---- Partial sums (--reduce) ------------------------------------------------------------- */
typedef enum {
    TOOL_REDUCE_NONE,
    TOOL_REDUCE_SUM,
    TOOL_REDUCE_PROD,
    TOOL_REDUCE_MAX,
    TOOL_REDUCE_MIN,
    TOOL_REDUCE_LAND,
    TOOL_REDUCE_LOR,
    TOOL_REDUCE_LXOR,
    TOOL_REDUCE_BAND,
    TOOL_REDUCE_BOR,
    TOOL_REDUCE_BXOR,
    TOOL_NREDUCE
} tool_reduce;
extern const char *const tool_reduce_names[TOOL_NREDUCE]; /* "", "sum", "prod", ... */
/* Returns 0 and sets *op for sum, prod, max, min, land, lor, lxor, band, bor or bxor; -1
   otherwise. */
int tool_reduce_parse(const char *name, tool_reduce *op);
/* The MPI predefined op (MPI_OP_NULL for TOOL_REDUCE_NONE). */
MPI_Op tool_reduce_op(tool_reduce op);
/* NULL if MPI defines op on the type, else why not (a sentence for a usage error). */
const char *tool_reduce_refusal(tool_reduce op, tool_type type);

/* ---- A spec pair's layouts and local arrays ---------------------------------------------- */
/* The library layouts of both specs: a REDIST_* code (this rank's verdict only). Whatever was
   created is left in *src and *dst for tool_layouts_free, which takes NULLs. */
int tool_layouts(const tool_spec *from, const tool_spec *to, redist_layout *src,
                 redist_layout *dst);
void tool_layouts_free(redist_layout *src, redist_layout *dst);

typedef struct tool_arrays {
    void *src, *dst;
    int64_t nsrc, ndst; /* local elements of this rank */
    size_t el;          /* bytes per element */
} tool_arrays;
/* Collective: allocates this rank's source and destination arrays of the pair and fills the
   source with the values below (with reduce, this rank's parts of them). 0, or -1 on every
   rank when any rank is out of memory (then nothing is left allocated). */
int tool_arrays_alloc(tool_arrays *a, const tool_spec *from, const tool_spec *to, tool_type type,
                      tool_reduce reduce, int rank, MPI_Comm comm);
/* Checks the tool's formulas for rank against the library's layout of the spec: the local
   shape (redist_layout_local_shape) and, for a grid, the grid coordinates
   (redist_layout_coords). 0 if they agree, else -1. */
int tool_layout_agrees(const tool_spec *spec, redist_layout layout, int rank);
/* Fills the destination with a byte pattern, so that elements a plan never writes show up
   as wrong. */
void tool_arrays_poison(tool_arrays *a);
void tool_arrays_free(tool_arrays *a);

/* ---- Values: value = f(global row-major index) ------------------------------------------
   tool_arrays_alloc fills each source element with the value of its global index (data.c
   lists them per type); the verify functions check each destination element against it.
   With partial sums each source holder holds a part of the value (data.c lists them per op),
   and a destination element must hold the reduction of its source holders' parts. */
/* What a destination element must hold when the plan transforms: the value of source element
   sum_j h_j gstride[j] for destination element h (an axis permutation: the source's row-major
   strides, permuted), or with reduce the reduction of that element's parts over its holders
   in `from`, times alpha, plus beta times `start` (the value every destination element held
   before one scaled execute). */
typedef struct tool_expect {
    int64_t gstride[SPEC_MAX_DIMS];
    int scaled;
    double alpha, beta, start;
    tool_reduce reduce;
    const tool_spec *from;
} tool_expect;
/* The expectation of a plan from `from` whose destination dimension j is the source's
   permute[j] (permute NULL: no permutation), with scaling and partial sums (from must outlive
   the expectation). */
void tool_expect_init(tool_expect *e, const tool_spec *from, const int *permute, int scaled,
                      double alpha, double beta, double start, tool_reduce reduce);
/* Collective: the number of wrong destination elements over all ranks; with first_bad, also
   the smallest wrong global row-major index (INT64_MAX if none). -1 on every rank if a rank
   ran out of memory checking partial sums. */
int64_t tool_verify_all(const tool_spec *to, int rank, tool_type type, const void *dst,
                        MPI_Comm comm, int64_t *first_bad);
/* The same against an expectation (tool_expect; NULL: the plain one). */
int64_t tool_verify_all_expect(const tool_spec *to, int rank, tool_type type, const void *dst,
                               const tool_expect *e, MPI_Comm comm, int64_t *first_bad);

#endif
