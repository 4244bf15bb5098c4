/* SPEC parsing and the layout formulas for the redist tool (see spec.h, docs/tool.md). */
#include "spec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_KEYS "n, block, procs, grid, first, ranks, order, boxes, pencil, slab, brick"

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int mul_overflows(int64_t a, int64_t b)
{
    return a != 0 && b > INT64_MAX / a;
}

static int is_replicated(const tool_spec *spec, int k)
{
    return spec->first[k] == REDIST_REPLICATED;
}

/* The dimensions a pencil or brick splits (over a grid of parts[k], 1 included). */
static int is_split(const tool_spec *spec, int k)
{
    return spec->shape == SPEC_BRICK || (spec->shape == SPEC_PENCIL && k != spec->axis);
}

int spec_parse_count_span(const char *p, const char *end, int64_t *value)
{
    int64_t v = 0;
    if (p == end || *p < '0' || *p > '9')
        return -1;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        int d = *p - '0';
        if (v > (INT64_MAX - d) / 10)
            return -2;
        v = v * 10 + d;
    }
    if (p < end && *p == '^') {
        int64_t e = 0, r = 1;
        p++;
        if (p == end || *p < '0' || *p > '9')
            return -1;
        for (; p < end && *p >= '0' && *p <= '9'; p++) {
            e = e * 10 + (*p - '0');
            if (e > 1000)
                e = 1000; /* any v >= 2 overflows long before */
        }
        for (int64_t i = 0; i < e; i++) {
            if (mul_overflows(r, v))
                return -2;
            r *= v;
            if (r <= 1)
                break; /* 0^e and 1^e */
        }
        v = r;
    } else if (p < end && (*p == 'k' || *p == 'M' || *p == 'G')) {
        int64_t f = *p == 'k' ? 1000 : *p == 'M' ? 1000000 : 1000000000;
        if (mul_overflows(v, f))
            return -2;
        v *= f;
        p++;
    }
    if (p != end)
        return -1;
    *value = v;
    return 0;
}

int spec_parse_count(const char *text, int64_t *value)
{
    return spec_parse_count_span(text, text + strlen(text), value);
}

const char *spec_excerpt(char buf[SPEC_EXCERPT], const char *text, size_t len)
{
    enum { SHOWN = SPEC_EXCERPT - 4 }; /* room for "..." and the terminator */
    if (len < SPEC_EXCERPT)
        snprintf(buf, SPEC_EXCERPT, "%.*s", (int)len, text);
    else
        snprintf(buf, SPEC_EXCERPT, "%.*s...", (int)SHOWN, text);
    return buf;
}

/* Splits `value` at 'x' into at most SPEC_MAX_DIMS counts, each >= minimum.
   Returns the number of parts, or -1 with err filled. */
static int parse_dims(const char *key, const char *value, int64_t minimum, int64_t maximum,
                      int64_t out[], char *err, size_t errlen)
{
    const char *what = minimum > 0 ? "a positive integer" : "a non-negative integer";
    char shown[SPEC_EXCERPT];
    int n = 0;
    for (const char *p = value;; n++) {
        const char *end = p + strcspn(p, "x");
        spec_excerpt(shown, p, (size_t)(end - p));
        if (n == SPEC_MAX_DIMS)
            return fail(err, errlen, "%s: too many dimensions (at most %d)", key, SPEC_MAX_DIMS);
        int rc = spec_parse_count_span(p, end, &out[n]);
        if (rc == -2)
            return fail(err, errlen, "%s: %s is too large", key, shown);
        if (rc != 0 || out[n] < minimum)
            return fail(err, errlen, "%s: expected %s, got '%s'", key, what, shown);
        if (out[n] > maximum)
            return fail(err, errlen, "%s: %s is too large (at most %lld)", key, shown,
                        (long long)maximum);
        if (*end == '\0')
            return n + 1;
        p = end + 1;
    }
}

/* One item of ranks=, the len characters at p: a rank, or an inclusive range a-b (a > b
   counts down). */
static int parse_rank_item(const char *p, size_t len, int64_t *a, int64_t *b, char *err,
                           size_t errlen)
{
    char shown[SPEC_EXCERPT];
    const char *end = p + len, *dash = memchr(p, '-', len);
    spec_excerpt(shown, p, len);
    if (dash) {
        if (spec_parse_count_span(p, dash, a) != 0 || spec_parse_count_span(dash + 1, end, b) != 0)
            return fail(err, errlen, "ranks: expected a range a-b of ranks, got '%s'", shown);
    } else if (spec_parse_count_span(p, end, a) == 0) {
        *b = *a;
    } else {
        return fail(err, errlen, "ranks: expected a rank or a range a-b, got '%s'", shown);
    }
    if (*a > INT32_MAX - 1 || *b > INT32_MAX - 1)
        return fail(err, errlen, "ranks: rank too large in '%s'", shown);
    return 0;
}

/* ranks: items separated by ':'. */
static int parse_ranks(const char *value, int **out, int *count, char *err, size_t errlen)
{
    int64_t total = 0;
    int *ranks = NULL;
    /* Two passes: count, then fill. */
    for (int pass = 0; pass < 2; pass++) {
        const char *p = value;
        int64_t k = 0;
        for (;;) {
            const char *end = strchr(p, ':');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            int64_t a, b;
            if (parse_rank_item(p, len, &a, &b, err, errlen) != 0) {
                free(ranks);
                return -1;
            }
            int64_t step = a <= b ? 1 : -1, n = (a <= b ? b - a : a - b) + 1;
            if (pass == 0) {
                total += n;
                if (total > INT32_MAX)
                    return fail(err, errlen, "ranks: too many ranks");
            } else {
                for (int64_t i = 0; i < n; i++)
                    ranks[k++] = (int)(a + i * step);
            }
            if (!end)
                break;
            p = end + 1;
        }
        if (pass == 0) {
            ranks = malloc((size_t)total * sizeof *ranks);
            if (!ranks)
                return fail(err, errlen, "ranks: out of memory");
        }
    }
    *out = ranks;
    *count = (int)total;
    return 0;
}

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int check_distinct(const int *ranks, int n, char *err, size_t errlen)
{
    int *sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
    if (!sorted)
        return fail(err, errlen, "ranks: out of memory");
    memcpy(sorted, ranks, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_int);
    for (int i = 1; i < n; i++) {
        if (sorted[i] == sorted[i - 1]) {
            int r = sorted[i];
            free(sorted);
            return fail(err, errlen, "ranks: rank %d appears twice", r);
        }
    }
    free(sorted);
    return 0;
}

/* The raw key=value texts of one spec and what the steps below learn on the way. */
enum {
    K_N,
    K_BLOCK,
    K_PROCS,
    K_GRID,
    K_FIRST,
    K_RANKS,
    K_ORDER,
    K_BOXES,
    K_PENCIL,
    K_SLAB,
    K_BRICK,
    K_COUNT
};
static const char *const spec_keys[K_COUNT] = {"n",     "block", "procs",  "grid", "first", "ranks",
                                               "order", "boxes", "pencil", "slab", "brick"};
typedef struct spec_fields {
    const char *value[K_COUNT]; /* NULL: not given */
    int default_procs;
    int64_t procs; /* 0 until known */
    int nranks;    /* entries of ranks= */
} spec_fields;

static int find_key(const char *key)
{
    for (int i = 0; i < K_COUNT; i++)
        if (strcmp(key, spec_keys[i]) == 0)
            return i;
    return strcmp(key, "N") == 0 ? K_N : -1;
}

/* Cuts the copy of the text into items and records each key's value (pointing into it). */
static int split_items(char *copy, spec_fields *f, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    for (char *item = copy; item;) {
        char *next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        char *eq = strchr(item, '=');
        if (!*item)
            return fail(err, errlen, "empty item (a stray comma?)");
        if (!eq && strcmp(item, "brick") != 0) /* brick is the one key without a value */
            return fail(err, errlen, "'%s': expected key=value (keys: %s)",
                        spec_excerpt(shown, item, strlen(item)), SPEC_KEYS);
        if (eq)
            *eq = '\0';
        int k = find_key(item);
        if (k < 0)
            return fail(err, errlen, "unknown key '%s' (keys: %s)",
                        spec_excerpt(shown, item, strlen(item)), SPEC_KEYS);
        if (f->value[k])
            return fail(err, errlen, "%s given twice", spec_keys[k]);
        if (k == K_BRICK && eq)
            return fail(err, errlen, "brick takes no value (write brick, not brick=...)");
        if (eq && !eq[1])
            return fail(err, errlen, "%s: empty value", spec_keys[k]);
        f->value[k] = eq ? eq + 1 : item + strlen(item);
        item = next;
    }
    return 0;
}

static int parse_extents(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    if (!f->value[K_N])
        return fail(err, errlen, "missing n (the extents, e.g. n=1000 or n=4000x4000)");
    int nd = parse_dims("n", f->value[K_N], 0, REDIST_MAX_EXTENT, spec->extent, err, errlen);
    spec->ndims = nd;
    if (nd < 0)
        return -1;
    int64_t total = 1;
    for (int k = 0; k < nd; k++) {
        int64_t e = spec->extent[k] > 0 ? spec->extent[k] : 1; /* as the library counts */
        if (mul_overflows(total, e) || total * e > REDIST_MAX_EXTENT)
            return fail(err, errlen, "n: the array has more than 2^62 elements");
        total *= e;
    }
    return 0;
}

/* One dimension's irregular sizes, the text [p, end) holding at least one '+': the sizes
   into spec->sizes[k] (allocated here), the largest into spec->block[k]. */
static int parse_gen_sizes(tool_spec *spec, int k, const char *p, const char *end, char *err,
                           size_t errlen)
{
    char shown[SPEC_EXCERPT];
    const char *start = p;
    int count = 1;
    for (const char *q = p; q < end; q++)
        count += *q == '+';
    if ((spec->sizes[k] = calloc((size_t)count, sizeof *spec->sizes[k])) == NULL)
        return fail(err, errlen, "out of memory");
    spec->nsizes[k] = count;
    spec->block[k] = 1;
    for (int i = 0; i < count; i++) {
        const char *stop = memchr(p, '+', (size_t)(end - p));
        stop = stop ? stop : end;
        if (stop == p)
            return fail(err, errlen, "block: an empty size in '%s'",
                        spec_excerpt(shown, start, (size_t)(end - start)));
        if (spec_parse_count_span(p, stop, &spec->sizes[k][i]) != 0)
            return fail(err, errlen, "block: '%s' is not a block size >= 0",
                        spec_excerpt(shown, p, (size_t)(stop - p)));
        if (spec->sizes[k][i] > spec->block[k])
            spec->block[k] = spec->sizes[k][i];
        p = stop + 1;
    }
    return 0;
}

/* block=3+3+2+2 (one dimension) or 3+3+2+2x64 (per dimension, x between dimensions): the
   block sizes of an irregular dimension, each >= 0; their count must match the grid and their
   sum the extent (check_gen_sizes, once the grid is known). Any length: a split over many
   ranks is long. */
static int parse_gen_block(tool_spec *spec, const char *value, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    int nd = spec->ndims, k = 0;
    for (const char *p = value; k < nd; k++) {
        const char *end = p + strcspn(p, "x");
        if (end == p)
            return fail(err, errlen,
                        "block: expected sizes like 3+3+2+2 or a block per dimension, got '%s'",
                        spec_excerpt(shown, value, strlen(value)));
        if (memchr(p, '+', (size_t)(end - p)) != NULL) {
            if (parse_gen_sizes(spec, k, p, end, err, errlen) != 0)
                return -1;
        } else if (spec_parse_count_span(p, end, &spec->block[k]) != 0 || spec->block[k] < 1) {
            return fail(err, errlen, "block: '%s' is not a block size >= 1",
                        spec_excerpt(shown, p, (size_t)(end - p)));
        }
        p = end;
        if (*p == 'x')
            p++;
        else if (k + 1 < nd)
            break;
        else if (*p)
            return fail(err, errlen, "block: '%s' has more dimensions than n",
                        spec_excerpt(shown, value, strlen(value)));
    }
    if (k < nd)
        return fail(err, errlen, "block has %d dimensions but n has %d", k + 1, nd);
    return 0;
}

static int parse_block(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    int64_t v[SPEC_MAX_DIMS];
    int nd = spec->ndims, n;
    if (f->value[K_BLOCK] && strchr(f->value[K_BLOCK], '+'))
        return parse_gen_block(spec, f->value[K_BLOCK], err, errlen);
    if (!f->value[K_BLOCK]) {
        for (int k = 0; k < nd; k++)
            spec->block[k] = 1;
        return 0;
    }
    if ((n = parse_dims("block", f->value[K_BLOCK], 1, INT64_MAX, v, err, errlen)) < 0)
        return -1;
    if (n != 1 && n != nd)
        return fail(err, errlen, "block has %d dimensions but n has %d", n, nd);
    for (int k = 0; k < nd; k++)
        spec->block[k] = v[n == 1 ? 0 : k];
    return 0;
}

static int parse_procs(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    const char *value = f->value[K_PROCS];
    (void)spec;
    if (!value)
        return 0;
    if (spec_parse_count(value, &f->procs) != 0 || f->procs < 1)
        return fail(err, errlen, "procs: expected a positive integer, got '%s'",
                    spec_excerpt(shown, value, strlen(value)));
    if (f->procs > INT32_MAX)
        return fail(err, errlen, "procs: %s is too large",
                    spec_excerpt(shown, value, strlen(value)));
    return 0;
}

static int parse_rank_list(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    if (!f->value[K_RANKS])
        return 0;
    return parse_ranks(f->value[K_RANKS], &spec->ranks, &f->nranks, err, errlen);
}

/* grid= as given, which must agree with procs=. */
static int parse_grid_value(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    int64_t v[SPEC_MAX_DIMS], p = 1;
    const char *value = f->value[K_GRID];
    int nd = spec->ndims, n = parse_dims("grid", value, 1, INT32_MAX, v, err, errlen);
    if (n < 0)
        return -1;
    if (n != nd)
        return fail(err, errlen, "grid has %d dimension%s but n has %d", n, n == 1 ? "" : "s", nd);
    for (int k = 0; k < nd; k++) {
        spec->grid[k] = (int)v[k];
        p *= v[k];
        if (p > INT32_MAX)
            return fail(err, errlen, "grid: %s has too many processes",
                        spec_excerpt(shown, value, strlen(value)));
    }
    int rc = 0;
    if (f->procs && f->procs != p)
        rc = fail(err, errlen, "procs=%lld but grid=%s has %lld processes", (long long)f->procs,
                  spec_excerpt(shown, value, strlen(value)), (long long)p);
    f->procs = p;
    return rc;
}

/* Without grid=, the processes (procs=, else as many as ranks=, else the caller's default)
   line up along the first dimension. */
static int parse_grid(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    int rc = 0;
    if (f->value[K_GRID]) {
        rc = parse_grid_value(spec, f, err, errlen);
    } else {
        if (!f->procs)
            f->procs = f->value[K_RANKS] ? f->nranks : f->default_procs;
        if (f->procs < 1)
            rc = fail(err, errlen, "missing procs, grid or ranks (how many processes hold it)") -
                 1; /* -2: the caller may retry with a default */
        for (int k = 0; k < spec->ndims; k++)
            spec->grid[k] = k == 0 ? (int)f->procs : 1;
    }
    spec->nprocs = (int)f->procs;
    return rc;
}

/* first=: per dimension a grid coordinate, or -1 (also r or rep): replicated. */
static int parse_first(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    int v[SPEC_MAX_DIMS], nd = spec->ndims, n = 0;
    if (!f->value[K_FIRST])
        return 0;
    for (const char *p = f->value[K_FIRST];; n++) {
        const char *end = p + strcspn(p, "x");
        size_t len = (size_t)(end - p);
        int64_t c;
        if (n == SPEC_MAX_DIMS)
            return fail(err, errlen, "first: too many dimensions (at most %d)", SPEC_MAX_DIMS);
        if ((len == 2 && !strncmp(p, "-1", 2)) || (len == 1 && *p == 'r') ||
            (len == 3 && !strncmp(p, "rep", 3)))
            v[n] = REDIST_REPLICATED;
        else if (spec_parse_count_span(p, end, &c) == 0 && c <= INT32_MAX)
            v[n] = (int)c;
        else
            return fail(err, errlen,
                        "first: expected a grid coordinate or -1 (replicated), got '%s'",
                        spec_excerpt(shown, p, len));
        if (*end == '\0')
            break;
        p = end + 1;
    }
    n++;
    if (n != 1 && n != nd)
        return fail(err, errlen, "first has %d dimensions but n has %d", n, nd);
    for (int k = 0; k < nd; k++) {
        spec->first[k] = v[n == 1 ? 0 : k];
        if (spec->first[k] >= spec->grid[k])
            return fail(err, errlen,
                        "first: coordinate %d must be below the grid extent %d (dimension %d)",
                        spec->first[k], spec->grid[k], k);
    }
    return 0;
}

/* ranks= must name each process of the grid once; without it, rank i is process i. */
static int check_rank_list(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    if (f->value[K_RANKS]) {
        if (f->nranks != spec->nprocs)
            return fail(err, errlen, "ranks lists %d rank%s but the grid has %d processes",
                        f->nranks, f->nranks == 1 ? "" : "s", spec->nprocs);
        return check_distinct(spec->ranks, f->nranks, err, errlen);
    }
    spec->ranks = malloc((size_t)spec->nprocs * sizeof *spec->ranks);
    if (!spec->ranks)
        return fail(err, errlen, "out of memory");
    for (int i = 0; i < spec->nprocs; i++)
        spec->ranks[i] = i;
    return 0;
}

static int parse_order(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    const char *o = f->value[K_ORDER];
    if (!o)
        return 0;
    if (!strcmp(o, "row") || !strcmp(o, "r") || !strcmp(o, "row-major") || !strcmp(o, "C"))
        spec->order = REDIST_ROW_MAJOR;
    else if (!strcmp(o, "col") || !strcmp(o, "c") || !strcmp(o, "column") ||
             !strcmp(o, "col-major") || !strcmp(o, "column-major") || !strcmp(o, "F"))
        spec->order = REDIST_COL_MAJOR;
    else
        return fail(err, errlen, "order: expected row or col, got '%s'",
                    spec_excerpt(shown, o, strlen(o)));
    return 0;
}

static void set_max_rank(tool_spec *spec)
{
    spec->max_rank = 0;
    for (int i = 0; i < spec->nprocs; i++)
        if (spec->ranks[i] > spec->max_rank)
            spec->max_rank = spec->ranks[i];
}

/* The steps in order: later ones rely on what earlier ones set (the grid needs procs and
   ranks, first needs the grid), and the first failure is the one reported. */
/* Irregular dimensions: one size per grid coordinate, summing to the extent; their prefix
   sums. */
static int check_gen_sizes(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    (void)f;
    for (int k = 0; k < spec->ndims; k++) {
        if (!spec->sizes[k])
            continue;
        if (spec->first[k] == REDIST_REPLICATED)
            return fail(err, errlen,
                        "block: dimension %d is replicated (first -1): it takes no irregular "
                        "sizes",
                        k);
        if (spec->nsizes[k] != spec->grid[k])
            return fail(err, errlen,
                        "block: %d sizes along dimension %d, but the grid has %d there",
                        spec->nsizes[k], k, spec->grid[k]);
        if ((spec->gen[k] = malloc(((size_t)spec->grid[k] + 1) * sizeof *spec->gen[k])) == NULL)
            return fail(err, errlen, "out of memory");
        spec->gen[k][0] = 0;
        for (int i = 0; i < spec->grid[k]; i++) {
            spec->gen[k][i + 1] = spec->gen[k][i] + spec->sizes[k][i];
            if (spec->gen[k][i + 1] > spec->extent[k])
                break;
        }
        if (spec->gen[k][spec->grid[k]] != spec->extent[k])
            return fail(err, errlen, "block: the sizes along dimension %d do not sum to n = %lld",
                        k, (long long)spec->extent[k]);
    }
    return 0;
}

/* ---- Boxes: boxes=FILE, pencil=AXIS, slab=AXIS, brick ------------------------------------ */

static spec_reader current_reader; /* NULL: spec_read_file */

void spec_set_reader(spec_reader reader)
{
    current_reader = reader;
}

char *spec_read_file(const char *path, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    spec_excerpt(shown, path, strlen(path));
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fail(err, errlen, "boxes: cannot read '%s': %s", shown, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text != NULL) {
        len += fread(text + len, 1, cap - len - 1, f);
        if (len + 1 < cap || feof(f) || ferror(f))
            break;
        char *grown = cap > SPEC_MAX_FILE ? NULL : realloc(text, 2 * cap);
        if (grown == NULL) {
            free(text);
            text = NULL;
            break;
        }
        text = grown;
        cap *= 2;
    }
    const char *why = text == NULL && cap > SPEC_MAX_FILE ? "larger than 1 GiB"
                      : text == NULL                      ? "out of memory"
                      : ferror(f)                         ? "a read failed"
                                                          : NULL;
    fclose(f);
    if (why == NULL) {
        text[len] = '\0';
        if (strlen(text) != len)
            why = "it holds a NUL byte: not a text file";
    }
    if (why != NULL) {
        free(text);
        fail(err, errlen, "boxes: cannot read '%s': %s", shown, why);
        return NULL;
    }
    return text;
}

/* The shorthands' and the file's keys: what a box spec takes besides its shape. */
static int check_box_keys(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    static const int shapes[] = {K_BOXES, K_PENCIL, K_SLAB, K_BRICK};
    static const int grid_keys[] = {K_BLOCK, K_GRID, K_FIRST};
    int given = -1;
    for (int i = 0; i < 4; i++) {
        if (!f->value[shapes[i]])
            continue;
        if (given >= 0)
            return fail(err, errlen,
                        "%s and %s exclude each other (a spec is one of boxes, pencil, "
                        "slab or brick)",
                        spec_keys[given], spec_keys[shapes[i]]);
        given = shapes[i];
    }
    for (int i = 0; i < 3; i++)
        if (f->value[grid_keys[i]])
            return fail(err, errlen,
                        "%s: not with %s (boxes take n, procs, ranks and order; a grid takes "
                        "block, grid and first)",
                        spec_keys[grid_keys[i]], spec_keys[given]);
    if (given == K_BOXES && f->value[K_PROCS])
        return fail(err, errlen, "procs: not with boxes (the file has a line per rank)");
    spec->shape = given == K_BOXES    ? SPEC_BOXES
                  : given == K_PENCIL ? SPEC_PENCIL
                  : given == K_SLAB   ? SPEC_SLAB
                                      : SPEC_BRICK;
    for (int k = 0; k < spec->ndims; k++) {
        spec->block[k] = 1;
        spec->grid[k] = 1;
        spec->first[k] = 0;
        spec->parts[k] = 1;
    }
    return 0;
}

/* Room for count boxes. */
static int alloc_boxes(tool_spec *spec, int64_t count, char *err, size_t errlen)
{
    size_t cells = (size_t)count * (size_t)spec->ndims;
    spec->lower = calloc(cells ? cells : 1, sizeof *spec->lower);
    spec->upper = calloc(cells ? cells : 1, sizeof *spec->upper);
    if (spec->lower == NULL || spec->upper == NULL)
        return fail(err, errlen, "out of memory for %lld boxes", (long long)count);
    spec->nprocs = (int)count;
    return 0;
}

/* One corner of a line of a boxes file, the text [p, end): ndims counts joined by x. */
static int parse_corner(const tool_spec *spec, const char *p, const char *end, int64_t out[],
                        const char *where, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    const char *start = p;
    int n = 0;
    for (;; n++) {
        const char *x = memchr(p, 'x', (size_t)(end - p));
        const char *stop = x ? x : end;
        int64_t v;
        if (n == spec->ndims || spec_parse_count_span(p, stop, &v) != 0)
            break;
        out[n] = v;
        if (x == NULL)
            return n + 1 == spec->ndims
                       ? 0
                       : fail(err, errlen, "%s: corner '%s' has %d dimension%s but n has %d", where,
                              spec_excerpt(shown, start, (size_t)(end - start)), n + 1,
                              n ? "s" : "", spec->ndims);
        p = x + 1;
    }
    if (n == spec->ndims)
        return fail(err, errlen, "%s: corner '%s' has more dimensions than n (%d)", where,
                    spec_excerpt(shown, start, (size_t)(end - start)), spec->ndims);
    return fail(err, errlen,
                "%s: expected a corner of counts joined by x (e.g. 0x0 or 32x64), "
                "got '%s'",
                where, spec_excerpt(shown, start, (size_t)(end - start)));
}

/* One box line, [p, end): two corners separated by blanks, within the extents. */
static int parse_box_line(tool_spec *spec, int64_t i, const char *p, const char *end,
                          const char *where, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    const char *line = p, *blank = " \t";
    int nd = spec->ndims;
    const char *a = p, *a_end = a;
    while (a_end < end && !strchr(blank, *a_end))
        a_end++;
    const char *b = a_end;
    while (b < end && strchr(blank, *b))
        b++;
    const char *b_end = b;
    while (b_end < end && !strchr(blank, *b_end))
        b_end++;
    const char *rest = b_end;
    while (rest < end && strchr(blank, *rest))
        rest++;
    if (b == b_end || rest != end)
        return fail(err, errlen,
                    "%s: expected a lower and an upper corner (e.g. 0x0x0 16x64x64), got '%s'",
                    where, spec_excerpt(shown, line, (size_t)(end - line)));
    int64_t *lo = spec->lower + i * nd, *up = spec->upper + i * nd;
    if (parse_corner(spec, a, a_end, lo, where, err, errlen) != 0 ||
        parse_corner(spec, b, b_end, up, where, err, errlen) != 0)
        return -1;
    for (int k = 0; k < nd; k++) {
        if (up[k] > spec->extent[k])
            return fail(err, errlen,
                        "%s: the upper corner's %lld is beyond n = %lld along "
                        "dimension %d",
                        where, (long long)up[k], (long long)spec->extent[k], k);
        if (lo[k] > up[k])
            return fail(err, errlen,
                        "%s: the upper corner is below the lower one along "
                        "dimension %d (%lld < %lld; an empty box has equal corners)",
                        where, k, (long long)up[k], (long long)lo[k]);
    }
    return 0;
}

/* boxes=FILE: one line per rank, "LOWER UPPER" (corners as n is written: 0x0x0 16x64x64);
   blank lines and lines starting with # are skipped. Two passes: count, then parse. */
static int parse_box_text(tool_spec *spec, const char *path, const char *text, char *err,
                          size_t errlen)
{
    char shown[SPEC_EXCERPT], where[SPEC_EXCERPT + 32];
    int64_t count = 0;
    spec_excerpt(shown, path, strlen(path));
    for (int pass = 0; pass < 2; pass++) {
        int64_t i = 0, lineno = 0;
        for (const char *p = text; *p;) {
            const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
            const char *q = p, *next = nl ? nl + 1 : end;
            lineno++;
            while (end > q && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
                end--;
            while (q < end && (*q == ' ' || *q == '\t'))
                q++;
            p = next;
            if (q == end || *q == '#')
                continue;
            if (pass == 0 && ++count > INT32_MAX)
                return fail(err, errlen, "boxes: '%s' has more than 2^31 - 1 boxes", shown);
            snprintf(where, sizeof where, "boxes: %s:%lld", shown, (long long)lineno);
            if (pass == 1 && parse_box_line(spec, i++, q, end, where, err, errlen) != 0)
                return -1;
        }
        if (pass == 0 && count == 0)
            return fail(err, errlen,
                        "boxes: '%s' holds no boxes (one line per rank: a lower and an upper "
                        "corner, e.g. 0x0 32x64)",
                        shown);
        if (pass == 0 && alloc_boxes(spec, count, err, errlen) != 0)
            return -1;
    }
    return 0;
}

static int parse_box_file(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    const char *path = f->value[K_BOXES];
    size_t len = strlen(path);
    if ((spec->file = malloc(len + 1)) == NULL)
        return fail(err, errlen, "out of memory");
    memcpy(spec->file, path, len + 1);
    char *text = (current_reader ? current_reader : spec_read_file)(path, err, errlen);
    if (text == NULL)
        return -1;
    int rc = parse_box_text(spec, path, text, err, errlen);
    free(text);
    return rc;
}

/* m near-equal factors of p, the smaller first: factor i is the largest divisor d of what
   remains, r, with d^(m - i) <= r (8 over 3: 2x2x2; 12 over 2: 3x4; 6 over 3: 1x2x3). */
static void near_equal_factors(int64_t p, int m, int parts[])
{
    for (int i = 0; i < m; i++) {
        int64_t best = 1;
        for (int64_t d = 1; i + 1 < m && d <= p; d++) {
            int64_t power = 1;
            int fits = 1;
            for (int j = 0; j < m - i && fits; j++) {
                fits = power <= p / d;
                power *= d;
            }
            if (!fits)
                break;
            if (p % d == 0)
                best = d;
        }
        parts[i] = (int)(i + 1 == m ? p : best);
        p /= parts[i];
    }
}

/* pencil=AXIS and slab=AXIS: a dimension index of n, which needs at least 2 dimensions. */
static int parse_axis(tool_spec *spec, const char *key, const char *value, char *err, size_t errlen)
{
    char shown[SPEC_EXCERPT];
    int64_t a;
    if (spec_parse_count(value, &a) != 0 || strspn(value, "0123456789") != strlen(value))
        return fail(err, errlen, "%s: expected a dimension (0 to %d), got '%s'", key,
                    spec->ndims - 1, spec_excerpt(shown, value, strlen(value)));
    if (spec->ndims < 2)
        return fail(err, errlen,
                    "%s: needs at least 2 dimensions (n=AxB...); a 1-D array splits "
                    "as brick",
                    key);
    if (a >= spec->ndims)
        return fail(err, errlen, "%s: dimension %lld, but n has %d (0 to %d)", key, (long long)a,
                    spec->ndims, spec->ndims - 1);
    spec->axis = (int)a;
    return 0;
}

/* pencil, slab, brick: the pieces along each dimension, then the boxes of the grid of pieces
   (row-major over the split dimensions, the last fastest): piece c of p along an extent n
   starts at c (n / p) + min(c, n mod p), the first n mod p pieces one longer. */
static int make_shorthand_boxes(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    int nd = spec->ndims, split[SPEC_MAX_DIMS], m = 0, factors[SPEC_MAX_DIMS];
    int64_t p = f->procs ? f->procs : f->value[K_RANKS] ? f->nranks : f->default_procs;
    if (spec->shape == SPEC_PENCIL &&
        parse_axis(spec, "pencil", f->value[K_PENCIL], err, errlen) != 0)
        return -1;
    if (spec->shape == SPEC_SLAB && parse_axis(spec, "slab", f->value[K_SLAB], err, errlen) != 0)
        return -1;
    if (p < 1)
        return fail(err, errlen, "missing procs, grid or ranks (how many processes hold it)") - 1;
    for (int k = 0; k < nd; k++)
        if (is_split(spec, k) || (spec->shape == SPEC_SLAB && m == 0 && k != spec->axis))
            split[m++] = k;
    near_equal_factors(p, m, factors);
    for (int j = 0; j < m; j++)
        spec->parts[split[j]] = factors[j];
    if (alloc_boxes(spec, p, err, errlen) != 0)
        return -1;
    for (int64_t i = 0; i < p; i++) {
        int64_t rest = i;
        for (int k = nd - 1; k >= 0; k--) {
            int64_t parts = spec->parts[k], c = rest % parts, n = spec->extent[k];
            rest /= parts;
            int64_t start = c * (n / parts) + (c < n % parts ? c : n % parts);
            spec->lower[i * nd + k] = start;
            spec->upper[i * nd + k] = start + n / parts + (c < n % parts);
        }
    }
    return 0;
}

static int make_boxes(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    if (spec->shape == SPEC_BOXES)
        return parse_box_file(spec, f, err, errlen);
    return make_shorthand_boxes(spec, f, err, errlen);
}

/* ranks= names the holder of each box once; without it, rank i holds box i. */
static int check_box_ranks(tool_spec *spec, spec_fields *f, char *err, size_t errlen)
{
    if (f->value[K_RANKS] && f->nranks != spec->nprocs)
        return fail(err, errlen, "ranks lists %d rank%s but there are %d boxes", f->nranks,
                    f->nranks == 1 ? "" : "s", spec->nprocs);
    if (f->procs && f->procs != spec->nprocs)
        return fail(err, errlen, "procs=%lld but there are %d boxes", (long long)f->procs,
                    spec->nprocs);
    return check_rank_list(spec, f, err, errlen);
}

typedef int (*spec_step)(tool_spec *spec, spec_fields *f, char *err, size_t errlen);
static const spec_step spec_steps[] = {parse_extents,   parse_block, parse_procs,
                                       parse_rank_list, parse_grid,  parse_first,
                                       check_rank_list, parse_order, check_gen_sizes};
static const spec_step box_steps[] = {parse_extents, check_box_keys,  parse_procs, parse_rank_list,
                                      make_boxes,    check_box_ranks, parse_order};

int spec_parse(const char *text, int default_procs, tool_spec *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    spec->order = REDIST_ROW_MAJOR;
    if (!text || !*text)
        return fail(err, errlen, "empty spec (expected e.g. n=1000000,block=4,procs=8)");
    char *copy = malloc(strlen(text) + 1);
    if (!copy)
        return fail(err, errlen, "out of memory");
    strcpy(copy, text);
    spec_fields f;
    memset(&f, 0, sizeof f);
    f.default_procs = default_procs;
    int rc = split_items(copy, &f, err, errlen);
    int boxes = f.value[K_BOXES] || f.value[K_PENCIL] || f.value[K_SLAB] || f.value[K_BRICK];
    const spec_step *steps = boxes ? box_steps : spec_steps;
    size_t nsteps =
        boxes ? sizeof box_steps / sizeof box_steps[0] : sizeof spec_steps / sizeof spec_steps[0];
    for (size_t i = 0; !rc && i < nsteps; i++)
        rc = steps[i](spec, &f, err, errlen);
    if (!rc)
        set_max_rank(spec);
    free(copy);
    return rc;
}

void spec_free(tool_spec *spec)
{
    free(spec->ranks);
    free(spec->lower);
    free(spec->upper);
    free(spec->file);
    spec->ranks = NULL;
    spec->lower = spec->upper = NULL;
    spec->file = NULL;
    for (int k = 0; k < SPEC_MAX_DIMS; k++) {
        free(spec->sizes[k]);
        free(spec->gen[k]);
        spec->sizes[k] = spec->gen[k] = NULL;
    }
}

/* A growing string: text appended with printf formats, NULL text once out of memory. */
typedef struct text_buf {
    char *text;
    size_t len, cap;
} text_buf;

static void append(text_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->text == NULL || n < 0)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = 2 * (b->len + (size_t)n + 1);
        char *grown = realloc(b->text, cap);
        if (grown == NULL) {
            free(b->text);
            b->text = NULL;
            return;
        }
        b->text = grown;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static text_buf text_start(void)
{
    text_buf b = {malloc(64), 0, 64};
    if (b.text)
        b.text[0] = '\0';
    return b;
}

static void append_ranks(text_buf *b, const tool_spec *spec)
{
    for (int i = 0; i < spec->nprocs;) {
        int j = i;
        while (j + 1 < spec->nprocs && spec->ranks[j + 1] == spec->ranks[j] + 1)
            j++;
        if (j > i)
            append(b, "%s%d-%d", i ? ":" : "", spec->ranks[i], spec->ranks[j]);
        else
            append(b, "%s%d", i ? ":" : "", spec->ranks[i]);
        i = j + 1;
    }
}

char *spec_format_ranks(const tool_spec *spec)
{
    text_buf b = text_start();
    append_ranks(&b, spec);
    return b.text;
}

/* A box spec's canonical form: n, its shape, the ranks, the order. */
static void append_box_spec(text_buf *b, const tool_spec *spec)
{
    if (spec->shape == SPEC_BOXES)
        append(b, ",boxes=%s", spec->file);
    else if (spec->shape == SPEC_BRICK)
        append(b, ",brick,procs=%d", spec->nprocs);
    else
        append(b, ",%s=%d,procs=%d", spec->shape == SPEC_PENCIL ? "pencil" : "slab", spec->axis,
               spec->nprocs);
    append(b, ",ranks=");
    append_ranks(b, spec);
    append(b, ",order=%s", spec->order == REDIST_COL_MAJOR ? "col" : "row");
}

char *spec_format(const tool_spec *spec)
{
    text_buf b = text_start();
    append(&b, "n=");
    for (int k = 0; k < spec->ndims; k++)
        append(&b, "%s%lld", k ? "x" : "", (long long)spec->extent[k]);
    if (spec_is_boxes(spec)) {
        append_box_spec(&b, spec);
        return b.text;
    }
    append(&b, ",block=");
    for (int k = 0; k < spec->ndims; k++) {
        if (spec->gen[k] == NULL) {
            append(&b, "%s%lld", k ? "x" : "", (long long)spec->block[k]);
            continue;
        }
        for (int i = 0; i < spec->grid[k]; i++)
            append(&b, "%s%lld", i ? "+" : k ? "x" : "", (long long)spec->sizes[k][i]);
    }
    append(&b, ",grid=");
    for (int k = 0; k < spec->ndims; k++)
        append(&b, "%s%d", k ? "x" : "", spec->grid[k]);
    append(&b, ",first=");
    for (int k = 0; k < spec->ndims; k++)
        append(&b, "%s%d", k ? "x" : "", spec->first[k]);
    append(&b, ",ranks=");
    append_ranks(&b, spec);
    append(&b, ",order=%s", spec->order == REDIST_COL_MAJOR ? "col" : "row");
    return b.text;
}

/* "0x1" or "0, 1 and 2" style lists of dimensions: the dimensions k with want(k). */
static void append_dims(text_buf *b, const tool_spec *spec, int (*want)(const tool_spec *, int))
{
    int n = 0, total = 0;
    for (int k = 0; k < spec->ndims; k++)
        total += want(spec, k);
    for (int k = 0; k < spec->ndims; k++)
        if (want(spec, k)) {
            n++;
            append(b, "%s%d", n == 1 ? "" : n == total ? " and " : ", ", k);
        }
}

int spec_is_boxes(const tool_spec *spec)
{
    return spec->shape != SPEC_GRID;
}

int spec_has_replicated(const tool_spec *spec)
{
    for (int k = 0; !spec_is_boxes(spec) && k < spec->ndims; k++)
        if (is_replicated(spec, k))
            return 1;
    return 0;
}

char *spec_describe(const tool_spec *spec)
{
    if (!spec_is_boxes(spec) && !spec_has_replicated(spec))
        return NULL;
    text_buf b = text_start();
    int replicated = 0;
    for (int k = 0; k < spec->ndims; k++)
        replicated += is_replicated(spec, k);
    switch (spec->shape) {
    case SPEC_GRID:
        append(&b, "replicated along dimension%s ", replicated > 1 ? "s" : "");
        append_dims(&b, spec, is_replicated);
        break;
    case SPEC_BOXES:
        append(&b, "%d box%s from %s", spec->nprocs, spec->nprocs == 1 ? "" : "es", spec->file);
        break;
    default: { /* the shorthands: over a grid of the split dimensions, or along one of them */
        int split = 0, one = spec->axis == 0 ? 1 : 0; /* a slab splits its first other one */
        for (int k = 0; k < spec->ndims; k++)
            split += is_split(spec, k);
        if (spec->shape == SPEC_BRICK)
            append(&b, "brick%s", split == 1 ? ": " : " over a ");
        else
            append(&b, "%s along %d%s", spec->shape == SPEC_SLAB ? "slab" : "pencil", spec->axis,
                   spec->shape == SPEC_SLAB || split == 1 ? ", " : " over a ");
        if (spec->shape == SPEC_SLAB || split == 1) {
            append(&b, "dimension %d split over %d rank%s", spec->shape == SPEC_BRICK ? 0 : one,
                   spec->nprocs, spec->nprocs == 1 ? "" : "s");
            break;
        }
        for (int k = 0, n = 0; k < spec->ndims; k++)
            if (is_split(spec, k))
                append(&b, "%s%d", n++ ? "x" : "", spec->parts[k]);
        append(&b, " grid");
    }
    }
    return b.text;
}

/* Boxes: a box layout over ranks shift .. max_rank (numbered from 0), the ranks the spec does
   not name holding empty boxes. */
static int box_layout(const tool_spec *spec, int shift, redist_layout *layout)
{
    int nd = spec->ndims, nboxes = spec->max_rank - shift + 1;
    size_t cells = (size_t)nboxes * (size_t)nd;
    int64_t *lo = calloc(cells, sizeof *lo), *up = calloc(cells, sizeof *up);
    int rc = lo != NULL && up != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    for (int i = 0; rc == REDIST_SUCCESS && i < spec->nprocs; i++) {
        size_t at = (size_t)(spec->ranks[i] - shift) * (size_t)nd;
        memcpy(lo + at, spec->lower + (size_t)i * nd, (size_t)nd * sizeof *lo);
        memcpy(up + at, spec->upper + (size_t)i * nd, (size_t)nd * sizeof *up);
    }
    if (rc == REDIST_SUCCESS)
        rc = redist_layout_create_boxes(nd, spec->extent, nboxes, lo, up, spec->order, layout);
    free(lo);
    free(up);
    return rc;
}

int spec_layout_shifted(const tool_spec *spec, int shift, redist_layout *layout)
{
    *layout = NULL;
    if (spec_is_boxes(spec))
        return box_layout(spec, shift, layout);
    const int64_t *sizes[SPEC_MAX_DIMS];
    for (int k = 0; k < spec->ndims; k++)
        sizes[k] = spec->gen[k] ? spec->sizes[k] : NULL;
    int *ranks = malloc((size_t)spec->nprocs * sizeof *ranks);
    if (ranks == NULL)
        return REDIST_ERR_NOMEM;
    for (int i = 0; i < spec->nprocs; i++)
        ranks[i] = spec->ranks[i] - shift;
    int rc = redist_layout_create_gen_block(spec->ndims, spec->extent, spec->block, spec->grid,
                                            spec->first, ranks, spec->order, sizes, layout);
    free(ranks);
    return rc;
}

int spec_layout(const tool_spec *spec, redist_layout *layout)
{
    return spec_layout_shifted(spec, 0, layout);
}

/* An irregular dimension's block of global index g (the last i with gen[i] <= g). */
static int64_t gen_block_of(const tool_spec *spec, int dim, int64_t g)
{
    int lo = 0, hi = spec->grid[dim];
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (spec->gen[dim][mid] <= g)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int64_t spec_elements(const tool_spec *spec)
{
    int64_t n = 1;
    for (int k = 0; k < spec->ndims; k++)
        n *= spec->extent[k];
    return n;
}

int spec_coords_of_rank(const tool_spec *spec, int rank, int coords[])
{
    for (int i = 0; i < spec->nprocs; i++) {
        if (spec->ranks[i] != rank)
            continue;
        int rest = i;
        for (int k = spec->ndims - 1; k >= 0; k--) {
            coords[k] = rest % spec->grid[k];
            rest /= spec->grid[k];
        }
        if (spec_is_boxes(spec))
            coords[0] = i; /* the box's index */
        return 1;
    }
    return 0;
}

int spec_coord_of(const tool_spec *spec, int dim, int64_t g)
{
    if (is_replicated(spec, dim))
        return 0;
    if (spec->gen[dim])
        return (int)((gen_block_of(spec, dim, g) + spec->first[dim]) % spec->grid[dim]);
    return (int)((g / spec->block[dim] + spec->first[dim]) % spec->grid[dim]);
}

int64_t spec_local_index_of(const tool_spec *spec, int dim, int64_t g)
{
    if (is_replicated(spec, dim))
        return g;
    if (spec->gen[dim])
        return g - spec->gen[dim][gen_block_of(spec, dim, g)];
    int64_t b = spec->block[dim];
    return (g / b / spec->grid[dim]) * b + g % b; /* no b * grid: blocks go up to INT64_MAX */
}

int64_t spec_global_index_of(const tool_spec *spec, int dim, int coord, int64_t l)
{
    int64_t b = spec->block[dim], p = spec->grid[dim];
    int64_t shift = ((int64_t)coord - spec->first[dim] + p) % p; /* block offset in a course */
    if (is_replicated(spec, dim))
        return l;
    if (spec->gen[dim])
        return spec->gen[dim][shift] + l;
    return ((l / b) * p + shift) * b + l % b;
}

void spec_local_extents(const tool_spec *spec, const int coords[], int64_t local[])
{
    for (int k = 0; k < spec->ndims; k++) {
        if (spec_is_boxes(spec) || is_replicated(spec, k)) {
            size_t at = (size_t)coords[0] * (size_t)spec->ndims + (size_t)k;
            local[k] = spec_is_boxes(spec) ? spec->upper[at] - spec->lower[at] : spec->extent[k];
            continue;
        }
        /* Full courses of b*p elements give b each; the rest starts with this coordinate's
           block after `shift` others. b*p and shift*b are formed only where they are at most
           n (blocks go up to INT64_MAX). */
        int64_t b = spec->block[k], p = spec->grid[k], n = spec->extent[k];
        int64_t shift = ((int64_t)coords[k] - spec->first[k] + p) % p;
        if (spec->gen[k]) {
            local[k] = spec->gen[k][shift + 1] - spec->gen[k][shift];
            continue;
        }
        int fits = b <= n / p;
        int64_t full = fits ? n / (b * p) : 0, rest = fits ? n % (b * p) : n;
        int64_t extra = shift == 0 || b <= rest / shift ? rest - shift * b : -1;
        local[k] = full * b + (extra < 0 ? 0 : extra > b ? b : extra);
    }
    for (int k = 0; spec_is_boxes(spec) && k < spec->ndims; k++)
        if (local[k] == 0) { /* an empty box holds nothing along every dimension (as the
                                library's local shape says) */
            for (int j = 0; j < spec->ndims; j++)
                local[j] = 0;
            break;
        }
}

int64_t spec_held_count(const tool_spec *spec)
{
    int64_t held = 0;
    for (int i = 0; spec_is_boxes(spec) && i < spec->nprocs; i++) {
        int64_t volume = 1;
        for (int k = 0; k < spec->ndims; k++)
            volume *=
                spec->upper[(size_t)i * spec->ndims + k] - spec->lower[(size_t)i * spec->ndims + k];
        held += volume;
    }
    if (spec_is_boxes(spec))
        return held;
    held = spec_elements(spec);
    for (int k = 0; k < spec->ndims; k++)
        held *= is_replicated(spec, k) ? spec->grid[k] : 1;
    return held;
}

int64_t spec_local_count(const tool_spec *spec, int rank)
{
    int coords[SPEC_MAX_DIMS] = {0};
    int64_t local[SPEC_MAX_DIMS], count = 1;
    if (!spec_coords_of_rank(spec, rank, coords))
        return 0;
    spec_local_extents(spec, coords, local);
    for (int k = 0; k < spec->ndims; k++)
        count *= local[k];
    return count;
}

int64_t spec_piece_global(const tool_spec *spec, const int coords[], int dim, int64_t l)
{
    if (spec_is_boxes(spec))
        return spec->lower[(size_t)coords[0] * (size_t)spec->ndims + (size_t)dim] + l;
    return spec_global_index_of(spec, dim, coords[dim], l);
}

int64_t spec_piece_run(const tool_spec *spec, const int coords[], int dim)
{
    if (spec_is_boxes(spec) || is_replicated(spec, dim) || spec->gen[dim]) {
        int64_t local[SPEC_MAX_DIMS];
        spec_local_extents(spec, coords, local);
        return local[dim] > 0 ? local[dim] : 1;
    }
    return spec->block[dim];
}
