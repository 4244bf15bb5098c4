/* SPEC strings of the redist tool: one layout written as key=value pairs: a block-cyclic grid
 * (with irregular blocks and replicated dimensions), or one box per rank (a file of boxes, or
 * the pencils, slabs and bricks of FFT codes).
 *
 *     n=1000000,block=4,procs=8
 *     n=4000x4000,block=64x64,grid=2x2,order=col
 *     n=64x64,grid=2x2,first=0x-1
 *     n=64x64x64,pencil=0,procs=4
 *     n=64x64,boxes=boxes.txt
 *
 * The grammar is in docs/tool.md. Parsing is pure (no MPI), so every rank that parses the
 * same text reaches the same verdict and no rank is left waiting for another.
 *
 * The index functions below restate the layout contract of redist.h (global index g along
 * dimension k lives on coordinate ((g / block) + first) mod grid at local index
 * (g / (block * grid)) * block + g % block; along a replicated dimension every coordinate
 * holds g at local index g; a box holds g at g - lower). The tool uses them independently of
 * the library to fill and check data and to draw the paper's tables.
 */
#ifndef REDIST_TOOL_SPEC_H
#define REDIST_TOOL_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "redist.h"

#define SPEC_MAX_DIMS 8

/* What a spec describes: a grid, or boxes (one per rank) from a file or a shorthand. */
typedef enum { SPEC_GRID, SPEC_BOXES, SPEC_PENCIL, SPEC_SLAB, SPEC_BRICK } spec_shape;

typedef struct tool_spec {
    int ndims;
    int64_t extent[SPEC_MAX_DIMS];
    int64_t block[SPEC_MAX_DIMS];
    int grid[SPEC_MAX_DIMS];
    int first[SPEC_MAX_DIMS]; /* REDIST_REPLICATED (-1): replicated along the dimension */
    int order;                /* REDIST_ROW_MAJOR or REDIST_COL_MAJOR */
    int nprocs;               /* product of grid (boxes: the number of boxes) */
    int *ranks;   /* nprocs ranks, grid coordinates in row-major order; never NULL after parse */
    int max_rank; /* largest entry of ranks */
    /* Irregular blocks (block=3+3+2+2): NULL, or grid[k] sizes whose prefix sums gen[k] holds
       (grid[k] + 1 entries): block i = [gen[k][i], gen[k][i + 1]) on coordinate
       (first[k] + i) mod grid[k]; block[k] is then the largest size (at least 1). */
    int64_t *sizes[SPEC_MAX_DIMS], *gen[SPEC_MAX_DIMS];
    int nsizes[SPEC_MAX_DIMS];
    /* Boxes (shape other than SPEC_GRID): nprocs boxes, box i held by comm rank ranks[i]:
       [lower[i*ndims + k], upper[i*ndims + k]) along each dimension k, lower <= upper. block,
       grid, first and the irregular sizes are unused (block 1, grid 1, first 0). */
    spec_shape shape;
    int64_t *lower, *upper;
    char *file;               /* SPEC_BOXES: the file's name as given */
    int axis;                 /* SPEC_PENCIL, SPEC_SLAB: the dimension held whole */
    int parts[SPEC_MAX_DIMS]; /* the shorthands: pieces along each dimension (1: whole) */
} tool_spec;

/* Parses `text` into `spec`. default_procs > 0 stands for procs= when the text names none of
   procs, grid or ranks (nor boxes=); 0 makes that an error. Returns 0, or -1 with one line
   "field: what is wrong" in err (no trailing newline), or -2 if the only thing missing is
   the number of processes (default_procs was 0). spec needs spec_free either way. */
int spec_parse(const char *text, int default_procs, tool_spec *spec, char *err, size_t errlen);
void spec_free(tool_spec *spec);

/* Where boxes=FILE's text comes from: a reader returns the whole text of the file at path
   (malloc'd, NUL-terminated, freed by the caller), or NULL with one line in err. NULL (the
   default) reads the file: spec_read_file. `run` sets one that reads it on rank 0 and
   broadcasts it, so that every rank parses the same text and reaches the same verdict. */
typedef char *(*spec_reader)(const char *path, char *err, size_t errlen);
void spec_set_reader(spec_reader reader);
/* The default reader: the file's text (at most SPEC_MAX_FILE bytes), or NULL with err. */
enum { SPEC_MAX_FILE = 1 << 30 };
char *spec_read_file(const char *path, char *err, size_t errlen);

/* 1 if the spec is boxes (a file or a shorthand), 0 for a grid. */
int spec_is_boxes(const tool_spec *spec);
/* 1 if some grid dimension is replicated (first=-1). */
int spec_has_replicated(const tool_spec *spec);
/* What the canonical form does not say at a glance, for people: "pencil along 0 over a 2x2
   grid", "4 boxes from boxes.txt", "replicated along dimension 1"; NULL for a plain grid (or
   out of memory). The caller frees it. */
char *spec_describe(const tool_spec *spec);

/* The canonical form, e.g. "n=48,block=2,grid=4,first=0,ranks=0-3,order=row" or
   "n=64x64x64,pencil=0,procs=4,ranks=0-3,order=row", whole however long (an irregular split
   over many ranks): a string the caller frees, NULL if out of memory. */
char *spec_format(const tool_spec *spec);
/* The rank list compressed into ranges ("0-3", "3:1:2:0", "0-3:8-11"), as spec_format. */
char *spec_format_ranks(const tool_spec *spec);

/* A library layout for the spec; returns a REDIST_* code. Boxes: a box layout over ranks
   0 .. max_rank, the ranks the spec does not name holding empty boxes. */
int spec_layout(const tool_spec *spec, redist_layout *layout);
/* The same with every rank of the spec lowered by shift (an intercommunicator's group
   numbering); ranks below shift must not be in the spec. */
int spec_layout_shifted(const tool_spec *spec, int shift, redist_layout *layout);

int64_t spec_elements(const tool_spec *spec); /* product of the extents */

/* Grid coordinates of comm rank `rank` (boxes: coords[0] is its box's index): 1 and
   coords[] filled if the rank is in the layout, else 0. */
int spec_coords_of_rank(const tool_spec *spec, int rank, int coords[]);
/* Local extents at grid coordinates coords[] (boxes: of box coords[0]; all 0 for an empty
   box, as redist_layout_local_shape gives them). */
void spec_local_extents(const tool_spec *spec, const int coords[], int64_t local[]);
/* Number of elements comm rank `rank` holds (0 if it is not in the layout). */
int64_t spec_local_count(const tool_spec *spec, int rank);
/* Elements all ranks hold together: spec_elements, or more where elements have several holders
   (replicated dimensions, overlapping boxes), less where boxes leave some out. */
int64_t spec_held_count(const tool_spec *spec);
/* Along dimension dim, for the piece at coords[] (as spec_coords_of_rank gives them): the
   global index of local index l, and how many consecutive local indices from a multiple of
   it are consecutive global indices (a block; a whole irregular block, replicated dimension
   or box). */
int64_t spec_piece_global(const tool_spec *spec, const int coords[], int dim, int64_t l);
int64_t spec_piece_run(const tool_spec *spec, const int coords[], int dim);

/* The grid formulas along one dimension (not for boxes; along a replicated dimension every
   coordinate holds g: spec_coord_of says 0). */
int spec_coord_of(const tool_spec *spec, int dim, int64_t g);
int64_t spec_local_index_of(const tool_spec *spec, int dim, int64_t g);
/* The inverse: global index of local index l on coordinate c. */
int64_t spec_global_index_of(const tool_spec *spec, int dim, int coord, int64_t l);

/* Parses a count: decimal digits with an optional k, M or G suffix (10^3, 10^6, 10^9) or a
   power a^b (2^22). Returns 0 on success, -1 if the text is not such a number, -2 if it
   does not fit in 63 bits. */
int spec_parse_count(const char *text, int64_t *value);
/* The same for the characters [text, end), which need no terminator. */
int spec_parse_count_span(const char *text, const char *end, int64_t *value);

/* User text quoted in a message: the len characters at text, or their first
   SPEC_EXCERPT - 4 and "..." when longer, into buf. Returns buf. Messages stay one readable
   line however long the input; the input itself has no length limit. */
enum { SPEC_EXCERPT = 64 };
const char *spec_excerpt(char buf[SPEC_EXCERPT], const char *text, size_t len);

#endif
