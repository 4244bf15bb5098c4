/* Fuzz target: the tool's SPEC parser (tools/spec.c) on arbitrary text.
 *
 * The input is the SPEC text itself (up to its first NUL), so the corpus is readable; the
 * input's length mod 5 is the default process count (0: none, so that a SPEC without procs,
 * grid or ranks is the "missing procs" error, -2).
 *
 * spec_parse returns 0, -1 or -2 (only without a default), never crashes or leaks; an error
 * is one non-empty line (unless it quotes a line break of the text). A parsed spec keeps the
 * grammar's limits (docs/tool.md: at most 8 dimensions, extents and their product at most 2^62,
 * blocks >= 1, a grid whose product is the process count, first coordinates inside it or -1
 * (replicated), distinct ranks >= 0, irregular sizes summing to the extent; boxes inside the
 * extents, the shorthands' boxes a partition of the array), gives a layout (spec_layout
 * succeeds for up to 2^16 processes), and its index formulas agree with the library's on
 * sampled indices and ranks. spec_format's canonical form parses back to the same spec and
 * formats to the same text. boxes=FILE reads no file here: the "file name" is the file's text,
 * ';' standing for a line break (text_as_file).
 */
#include "fuzz.h"
#include "index/index.h"
#include "spec.h"

#include <string.h>

enum { MAX_TEXT = 4096, MAX_LAYOUT_PROCS = 65536 };

FZ_ASAN_OPTIONS("allocator_may_return_null=1:max_allocation_size_mb=64")

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

/* The reader of boxes=FILE here: the name itself, ';' read as a line break. */
static char *text_as_file(const char *path, char *err, size_t errlen)
{
    size_t n = strlen(path);
    char *text = malloc(n + 1);
    if (text == NULL) {
        snprintf(err, errlen, "boxes: out of memory");
        return NULL;
    }
    for (size_t i = 0; i <= n; i++)
        text[i] = path[i] == ';' ? '\n' : path[i];
    return text;
}

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A box spec: every box inside the extents; the shorthands' boxes partition the array. */
static void check_boxes(const tool_spec *s)
{
    __int128 volume = 0, elements = 1;
    FZ_CHECK(s->nprocs >= 1 && s->lower != NULL && s->upper != NULL, "%d boxes", s->nprocs);
    FZ_CHECK((s->shape == SPEC_BOXES) == (s->file != NULL), "shape %d, file", (int)s->shape);
    for (int k = 0; k < s->ndims; k++) {
        FZ_CHECK(s->block[k] == 1 && s->grid[k] == 1 && s->first[k] == 0 && s->gen[k] == NULL,
                 "a box spec's grid fields of dimension %d", k);
        elements *= s->extent[k];
    }
    for (int i = 0; i < s->nprocs; i++) {
        __int128 v = 1;
        for (int k = 0; k < s->ndims; k++) {
            int64_t lo = s->lower[(size_t)i * s->ndims + k],
                    up = s->upper[(size_t)i * s->ndims + k];
            FZ_CHECK(0 <= lo && lo <= up && up <= s->extent[k], "box %d: [%lld, %lld) of %lld", i,
                     (long long)lo, (long long)up, (long long)s->extent[k]);
            v *= up - lo;
        }
        volume += v;
    }
    FZ_CHECK(s->shape == SPEC_BOXES || volume == elements,
             "the shorthand's boxes hold %lld elements of %lld", (long long)volume,
             (long long)elements);
}

static void check_spec(const tool_spec *s)
{
    FZ_CHECK(s->ndims >= 1 && s->ndims <= SPEC_MAX_DIMS, "ndims %d", s->ndims);
    FZ_CHECK(s->order == REDIST_ROW_MAJOR || s->order == REDIST_COL_MAJOR, "order %d", s->order);
    if (spec_is_boxes(s))
        check_boxes(s);
    __int128 elements = 1, procs = 1;
    for (int k = 0; k < s->ndims; k++) {
        FZ_CHECK(s->extent[k] >= 0 && s->extent[k] <= REDIST_MAX_EXTENT, "extent[%d] = %lld", k,
                 (long long)s->extent[k]);
        elements *= s->extent[k] > 0 ? s->extent[k] : 1;
        FZ_CHECK(s->block[k] >= 1, "block[%d] = %lld", k, (long long)s->block[k]);
        FZ_CHECK(s->grid[k] >= 1, "grid[%d] = %d", k, s->grid[k]);
        FZ_CHECK((s->first[k] >= 0 || s->first[k] == REDIST_REPLICATED) && s->first[k] < s->grid[k],
                 "first[%d] = %d of grid %d", k, s->first[k], s->grid[k]);
        procs *= s->grid[k];
        FZ_CHECK((s->sizes[k] == NULL) == (s->gen[k] == NULL), "sizes and gen of dimension %d", k);
        if (s->gen[k] != NULL) {
            FZ_CHECK(s->nsizes[k] == s->grid[k], "%d sizes for grid %d", s->nsizes[k], s->grid[k]);
            __int128 sum = 0;
            int64_t largest = 1;
            for (int i = 0; i < s->grid[k]; i++) {
                FZ_CHECK(s->sizes[k][i] >= 0, "size %lld", (long long)s->sizes[k][i]);
                FZ_CHECK(s->gen[k][i] == sum, "prefix sum %d of dimension %d", i, k);
                sum += s->sizes[k][i];
                largest = s->sizes[k][i] > largest ? s->sizes[k][i] : largest;
            }
            FZ_CHECK(sum == s->extent[k] && s->gen[k][s->grid[k]] == sum,
                     "sizes of dimension %d sum to %lld, extent %lld", k, (long long)sum,
                     (long long)s->extent[k]);
            FZ_CHECK(s->block[k] == largest, "block[%d] = %lld, largest size %lld", k,
                     (long long)s->block[k], (long long)largest);
        }
    }
    FZ_CHECK(elements <= REDIST_MAX_EXTENT, "more than 2^62 elements");
    FZ_CHECK(spec_is_boxes(s) || procs == s->nprocs, "grid product %lld, nprocs %d",
             (long long)procs, s->nprocs);
    FZ_CHECK(s->ranks != NULL, "ranks NULL after a successful parse");
    int max_rank = 0;
    for (int i = 0; i < s->nprocs; i++) {
        FZ_CHECK(s->ranks[i] >= 0, "ranks[%d] = %d", i, s->ranks[i]);
        max_rank = s->ranks[i] > max_rank ? s->ranks[i] : max_rank;
    }
    FZ_CHECK(max_rank == s->max_rank, "max_rank %d, expected %d", s->max_rank, max_rank);
    if (s->nprocs <= 4096) { /* distinct (larger lists: the layout's check below) */
        int *sorted = malloc((size_t)s->nprocs * sizeof *sorted);
        FZ_CHECK(sorted != NULL, "out of memory");
        memcpy(sorted, s->ranks, (size_t)s->nprocs * sizeof *sorted);
        qsort(sorted, (size_t)s->nprocs, sizeof *sorted, compare_int);
        for (int i = 1; i < s->nprocs; i++)
            FZ_CHECK(sorted[i] != sorted[i - 1], "rank %d twice", sorted[i]);
        free(sorted);
    }
}

/* The spec's formulas against the library's layout: samples of every dimension, and the
   local counts of some ranks. */
static void check_against_layout(const tool_spec *s, redist_layout l)
{
    for (int k = 0; !spec_is_boxes(s) && k < s->ndims; k++) {
        int64_t n = s->extent[k], b = s->block[k] < n ? s->block[k] : n; /* no overflow */
        int64_t cand[] = {0,     1,     2,     b - 1, b,         b + 1,
                          n / 2, n - 2, n - 1, n / 3, n / 7 * 5, b <= n / 3 ? 3 * b - 1 : 0};
        for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
            int64_t g = cand[i];
            if (g < 0 || g >= n)
                continue;
            int c = spec_coord_of(s, k, g);
            int64_t li = spec_local_index_of(s, k, g);
            FZ_CHECK(c == redist__owner(l, k, g),
                     "dim %d index %lld: spec says coordinate %d, "
                     "the library %d",
                     k, (long long)g, c, redist__owner(l, k, g));
            FZ_CHECK(li == redist__local_index(l, k, g),
                     "dim %d index %lld: spec says local %lld, the library %lld", k, (long long)g,
                     (long long)li, (long long)redist__local_index(l, k, g));
            FZ_CHECK(spec_global_index_of(s, k, c, li) == g,
                     "dim %d: spec_global_index_of(%d, %lld) = %lld, expected %lld", k, c,
                     (long long)li, (long long)spec_global_index_of(s, k, c, li), (long long)g);
        }
    }
    for (int i = 0; i < s->nprocs && i < 16; i++) {
        int rank = s->ranks[(int64_t)i * 7919 % s->nprocs], coords[SPEC_MAX_DIMS];
        int64_t shape[SPEC_MAX_DIMS], local[SPEC_MAX_DIMS], count = 0;
        FZ_CHECK(spec_coords_of_rank(s, rank, coords) == 1, "rank %d not found", rank);
        spec_local_extents(s, coords, local);
        FZ_CHECK(redist_layout_local_shape(l, rank, shape) == 0, "local_shape");
        for (int k = 0; k < s->ndims; k++)
            FZ_CHECK(local[k] == shape[k], "rank %d dim %d: spec says %lld local, the library %lld",
                     rank, k, (long long)local[k], (long long)shape[k]);
        FZ_CHECK(redist_layout_local_size(l, rank, &count) == 0 &&
                     count == spec_local_count(s, rank),
                 "rank %d: local count %lld, spec %lld", rank, (long long)count,
                 (long long)spec_local_count(s, rank));
    }
    FZ_CHECK(spec_local_count(s, s->max_rank + 1) == 0, "a rank outside the grid holds elements");
}

static void check_same(const tool_spec *a, const tool_spec *b, const char *text)
{
    int same = a->ndims == b->ndims && a->order == b->order && a->nprocs == b->nprocs &&
               a->max_rank == b->max_rank && a->shape == b->shape && a->axis == b->axis;
    for (size_t i = 0; same && spec_is_boxes(a) && i < (size_t)a->nprocs * a->ndims; i++)
        same = a->lower[i] == b->lower[i] && a->upper[i] == b->upper[i];
    for (int k = 0; same && k < a->ndims; k++) {
        same = a->extent[k] == b->extent[k] && a->block[k] == b->block[k] &&
               a->grid[k] == b->grid[k] && a->first[k] == b->first[k] &&
               (a->gen[k] == NULL) == (b->gen[k] == NULL);
        for (int i = 0; same && a->gen[k] != NULL && i < a->grid[k]; i++)
            same = a->sizes[k][i] == b->sizes[k][i];
    }
    for (int i = 0; same && i < a->nprocs; i++)
        same = a->ranks[i] == b->ranks[i];
    FZ_CHECK(same, "the canonical form '%s' parses to a different spec", text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_TEXT)
        return 0;
    char text[MAX_TEXT + 1], err[256];
    memcpy(text, data, size);
    text[size] = '\0';
    int default_procs = (int)(size % 5);
    tool_spec spec;
    spec_set_reader(text_as_file);
    memset(err, 0, sizeof err);
    int rc = spec_parse(text, default_procs, &spec, err, sizeof err);
    FZ_CHECK(rc == 0 || rc == -1 || (rc == -2 && default_procs == 0), "spec_parse returns %d", rc);
    if (rc != 0) {
        /* One line, unless it quotes a line break of the text. */
        FZ_CHECK(err[0] != '\0' && strlen(err) < sizeof err &&
                     (strchr(err, '\n') == NULL || strchr(text, '\n') != NULL),
                 "error message '%s'", err);
        spec_free(&spec);
        return 0;
    }
    check_spec(&spec);
    /* a box layout has a box for every rank up to the largest (empty for the others) */
    if (spec.nprocs <= MAX_LAYOUT_PROCS &&
        (!spec_is_boxes(&spec) || spec.max_rank < MAX_LAYOUT_PROCS)) {
        redist_layout l = NULL;
        rc = spec_layout(&spec, &l);
        FZ_CHECK(rc == 0, "spec_layout of '%s' returns %d (%s)", text, rc,
                 redist_last_error_detail());
        check_against_layout(&spec, l);
        redist_layout_free(&l);
    }

    /* The canonical form round trip: the form is whole however long (NULL only when memory
       runs out, which this target allows); not sorted again past 2^20 processes. */
    char *canon = spec_format(&spec);
    if (canon != NULL && spec.nprocs <= (1 << 20)) {
        tool_spec back;
        rc = spec_parse(canon, 0, &back, err, sizeof err);
        FZ_CHECK(rc == 0, "the canonical form '%s' of '%s' does not parse: %s", canon, text, err);
        check_same(&spec, &back, canon);
        char *again = spec_format(&back);
        FZ_CHECK(again == NULL || strcmp(canon, again) == 0,
                 "canonical form '%s' formats again as '%s'", canon, again);
        free(again);
        spec_free(&back);
    }
    free(canon);
    spec_free(&spec);
    return 0;
}
