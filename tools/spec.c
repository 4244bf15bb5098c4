/* SPEC parsing and the layout formulas for the redist tool (see spec.h, docs/tool.md). */
#include "spec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_KEYS "n, block, procs, grid, first, ranks, order"

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

int spec_parse_count(const char *text, int64_t *value)
{
    const char *p = text;
    int64_t v = 0;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        int d = *p - '0';
        if (v > (INT64_MAX - d) / 10)
            return -2;
        v = v * 10 + d;
    }
    if (*p == '^') {
        int64_t e = 0, r = 1;
        p++;
        if (*p < '0' || *p > '9')
            return -1;
        for (; *p >= '0' && *p <= '9'; p++) {
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
    } else if (*p == 'k' || *p == 'M' || *p == 'G') {
        int64_t f = *p == 'k' ? 1000 : *p == 'M' ? 1000000 : 1000000000;
        if (mul_overflows(v, f))
            return -2;
        v *= f;
        p++;
    }
    if (*p != '\0')
        return -1;
    *value = v;
    return 0;
}

/* Splits `value` at 'x' into at most SPEC_MAX_DIMS counts, each >= minimum.
   Returns the number of parts, or -1 with err filled. */
static int parse_dims(const char *key, const char *value, int64_t minimum, int64_t maximum,
                      int64_t out[], char *err, size_t errlen)
{
    const char *what = minimum > 0 ? "a positive integer" : "a non-negative integer";
    char buf[256];
    int n = 0;
    const char *p = value;
    for (;;) {
        const char *end = strchr(p, 'x');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= sizeof buf)
            return fail(err, errlen, "%s: value too long", key);
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (n == SPEC_MAX_DIMS)
            return fail(err, errlen, "%s: too many dimensions (at most %d)", key, SPEC_MAX_DIMS);
        int64_t v;
        int rc = spec_parse_count(buf, &v);
        if (rc == -2)
            return fail(err, errlen, "%s: %s is too large", key, buf);
        if (rc != 0 || v < minimum)
            return fail(err, errlen, "%s: expected %s, got '%s'", key, what, buf);
        if (v > maximum)
            return fail(err, errlen, "%s: %s is too large (at most %lld)", key, buf,
                        (long long)maximum);
        out[n++] = v;
        if (!end)
            break;
        p = end + 1;
    }
    return n;
}

/* ranks: items separated by ':', each a rank or an inclusive range a-b (a > b counts down). */
static int parse_ranks(const char *value, int **out, int *count, char *err, size_t errlen)
{
    int64_t total = 0;
    int *ranks = NULL;
    /* Two passes: count, then fill. */
    for (int pass = 0; pass < 2; pass++) {
        const char *p = value;
        int64_t k = 0;
        for (;;) {
            char buf[128];
            const char *end = strchr(p, ':');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            if (len == 0 || len >= sizeof buf) {
                free(ranks);
                return fail(err, errlen, "ranks: expected a rank or a range a-b, got '%.*s'",
                            (int)(len < 64 ? len : 64), p);
            }
            memcpy(buf, p, len);
            buf[len] = '\0';
            char *dash = strchr(buf, '-');
            int64_t a, b;
            if (dash) {
                *dash = '\0';
                if (spec_parse_count(buf, &a) != 0 || spec_parse_count(dash + 1, &b) != 0) {
                    *dash = '-';
                    free(ranks);
                    return fail(err, errlen, "ranks: expected a range a-b of ranks, got '%s'", buf);
                }
            } else if (spec_parse_count(buf, &a) == 0) {
                b = a;
            } else {
                free(ranks);
                return fail(err, errlen, "ranks: expected a rank or a range a-b, got '%s'", buf);
            }
            if (a > INT32_MAX - 1 || b > INT32_MAX - 1) {
                free(ranks);
                return fail(err, errlen, "ranks: rank too large in '%.*s'", (int)len, p);
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

int spec_parse(const char *text, int default_procs, tool_spec *spec, char *err, size_t errlen)
{
    memset(spec, 0, sizeof *spec);
    spec->order = REDIST_ROW_MAJOR;
    if (!text || !*text)
        return fail(err, errlen, "empty spec (expected e.g. n=1000000,block=4,procs=8)");

    const char *keys[] = {"n", "block", "procs", "grid", "first", "ranks", "order"};
    enum { K_N, K_BLOCK, K_PROCS, K_GRID, K_FIRST, K_RANKS, K_ORDER, K_COUNT };
    char *value[K_COUNT] = {0};
    char *copy = malloc(strlen(text) + 1);
    if (!copy)
        return fail(err, errlen, "out of memory");
    strcpy(copy, text);

    int rc = 0;
    for (char *item = copy; item && !rc;) {
        char *next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        char *eq = strchr(item, '=');
        if (!*item) {
            rc = fail(err, errlen, "empty item (a stray comma?)");
            break;
        }
        if (!eq) {
            rc = fail(err, errlen, "'%s': expected key=value (keys: %s)", item, SPEC_KEYS);
            break;
        }
        *eq = '\0';
        int k = -1;
        for (int i = 0; i < K_COUNT; i++)
            if (strcmp(item, keys[i]) == 0)
                k = i;
        if (strcmp(item, "N") == 0)
            k = K_N;
        if (k < 0)
            rc = fail(err, errlen, "unknown key '%s' (keys: %s)", item, SPEC_KEYS);
        else if (value[k])
            rc = fail(err, errlen, "%s given twice", keys[k]);
        else if (!eq[1])
            rc = fail(err, errlen, "%s: empty value", keys[k]);
        else
            value[k] = eq + 1;
        item = next;
    }

    int64_t v[SPEC_MAX_DIMS];
    int nd = 0, n;
    int64_t procs = 0;
    if (!rc && !value[K_N])
        rc = fail(err, errlen, "missing n (the extents, e.g. n=1000 or n=4000x4000)");
    if (!rc) {
        nd = parse_dims("n", value[K_N], 0, REDIST_MAX_EXTENT, spec->extent, err, errlen);
        rc = nd < 0 ? -1 : 0;
        spec->ndims = nd;
    }
    if (!rc) {
        int64_t total = 1;
        for (int k = 0; k < nd && !rc; k++) {
            int64_t e = spec->extent[k] > 0 ? spec->extent[k] : 1; /* as the library counts */
            if (mul_overflows(total, e) || total * e > REDIST_MAX_EXTENT)
                rc = fail(err, errlen, "n: the array has more than 2^62 elements");
            else
                total *= e;
        }
    }
    if (!rc) {
        if (!value[K_BLOCK]) {
            for (int k = 0; k < nd; k++)
                spec->block[k] = 1;
        } else if ((n = parse_dims("block", value[K_BLOCK], 1, INT64_MAX, v, err, errlen)) < 0) {
            rc = -1;
        } else if (n != 1 && n != nd) {
            rc = fail(err, errlen, "block has %d dimensions but n has %d", n, nd);
        } else {
            for (int k = 0; k < nd; k++)
                spec->block[k] = v[n == 1 ? 0 : k];
        }
    }
    if (!rc && value[K_PROCS]) {
        if (spec_parse_count(value[K_PROCS], &procs) != 0 || procs < 1)
            rc = fail(err, errlen, "procs: expected a positive integer, got '%s'", value[K_PROCS]);
        else if (procs > INT32_MAX)
            rc = fail(err, errlen, "procs: %s is too large", value[K_PROCS]);
    }
    int *ranks = NULL, nranks = 0;
    if (!rc && value[K_RANKS])
        rc = parse_ranks(value[K_RANKS], &ranks, &nranks, err, errlen);
    spec->ranks = ranks;
    if (!rc && value[K_GRID]) {
        if ((n = parse_dims("grid", value[K_GRID], 1, INT32_MAX, v, err, errlen)) < 0) {
            rc = -1;
        } else if (n != nd) {
            rc =
                fail(err, errlen, "grid has %d dimension%s but n has %d", n, n == 1 ? "" : "s", nd);
        } else {
            int64_t p = 1;
            for (int k = 0; k < nd; k++) {
                spec->grid[k] = (int)v[k];
                p *= v[k];
                if (p > INT32_MAX) {
                    rc = fail(err, errlen, "grid: %s has too many processes", value[K_GRID]);
                    break;
                }
            }
            if (!rc && procs && procs != p)
                rc = fail(err, errlen, "procs=%lld but grid=%s has %lld processes",
                          (long long)procs, value[K_GRID], (long long)p);
            procs = p;
        }
    } else if (!rc) {
        if (!procs)
            procs = value[K_RANKS] ? nranks : default_procs;
        if (procs < 1)
            rc = fail(err, errlen, "missing procs, grid or ranks (how many processes hold it)") -
                 1; /* -2: the caller may retry with a default */
        for (int k = 0; k < nd; k++)
            spec->grid[k] = k == 0 ? (int)procs : 1;
    }
    spec->nprocs = (int)procs;
    if (!rc && value[K_FIRST]) {
        if ((n = parse_dims("first", value[K_FIRST], 0, INT32_MAX, v, err, errlen)) < 0) {
            rc = -1;
        } else if (n != 1 && n != nd) {
            rc = fail(err, errlen, "first has %d dimensions but n has %d", n, nd);
        } else {
            for (int k = 0; k < nd && !rc; k++) {
                spec->first[k] = (int)v[n == 1 ? 0 : k];
                if (spec->first[k] >= spec->grid[k])
                    rc = fail(err, errlen,
                              "first: coordinate %d must be below the grid extent %d "
                              "(dimension %d)",
                              spec->first[k], spec->grid[k], k);
            }
        }
    }
    if (!rc && value[K_RANKS]) {
        if (nranks != spec->nprocs)
            rc = fail(err, errlen, "ranks lists %d rank%s but the grid has %d processes", nranks,
                      nranks == 1 ? "" : "s", spec->nprocs);
        else
            rc = check_distinct(ranks, nranks, err, errlen);
    }
    if (!rc && !value[K_RANKS]) {
        spec->ranks = malloc((size_t)spec->nprocs * sizeof *spec->ranks);
        if (!spec->ranks)
            rc = fail(err, errlen, "out of memory");
        else
            for (int i = 0; i < spec->nprocs; i++)
                spec->ranks[i] = i;
    }
    if (!rc && value[K_ORDER]) {
        const char *o = value[K_ORDER];
        if (!strcmp(o, "row") || !strcmp(o, "r") || !strcmp(o, "row-major") || !strcmp(o, "C"))
            spec->order = REDIST_ROW_MAJOR;
        else if (!strcmp(o, "col") || !strcmp(o, "c") || !strcmp(o, "column") ||
                 !strcmp(o, "col-major") || !strcmp(o, "column-major") || !strcmp(o, "F"))
            spec->order = REDIST_COL_MAJOR;
        else
            rc = fail(err, errlen, "order: expected row or col, got '%s'", o);
    }
    if (!rc) {
        spec->max_rank = 0;
        for (int i = 0; i < spec->nprocs; i++)
            if (spec->ranks[i] > spec->max_rank)
                spec->max_rank = spec->ranks[i];
    }
    free(copy);
    return rc;
}

void spec_free(tool_spec *spec)
{
    free(spec->ranks);
    spec->ranks = NULL;
}

static void append(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
    if (*pos >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *pos, len - *pos, fmt, ap);
    va_end(ap);
    if (n > 0)
        *pos += (size_t)n;
}

void spec_format_ranks(const tool_spec *spec, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < spec->nprocs;) {
        int j = i;
        while (j + 1 < spec->nprocs && spec->ranks[j + 1] == spec->ranks[j] + 1)
            j++;
        if (j > i)
            append(buf, len, &pos, "%s%d-%d", i ? ":" : "", spec->ranks[i], spec->ranks[j]);
        else
            append(buf, len, &pos, "%s%d", i ? ":" : "", spec->ranks[i]);
        i = j + 1;
    }
    if (pos >= len && len > 4)
        strcpy(buf + len - 4, "...");
}

void spec_format(const tool_spec *spec, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    append(buf, len, &pos, "n=");
    for (int k = 0; k < spec->ndims; k++)
        append(buf, len, &pos, "%s%lld", k ? "x" : "", (long long)spec->extent[k]);
    append(buf, len, &pos, ",block=");
    for (int k = 0; k < spec->ndims; k++)
        append(buf, len, &pos, "%s%lld", k ? "x" : "", (long long)spec->block[k]);
    append(buf, len, &pos, ",grid=");
    for (int k = 0; k < spec->ndims; k++)
        append(buf, len, &pos, "%s%d", k ? "x" : "", spec->grid[k]);
    append(buf, len, &pos, ",first=");
    for (int k = 0; k < spec->ndims; k++)
        append(buf, len, &pos, "%s%d", k ? "x" : "", spec->first[k]);
    char ranks[256];
    spec_format_ranks(spec, ranks, sizeof ranks);
    append(buf, len, &pos, ",ranks=%s,order=%s", ranks,
           spec->order == REDIST_COL_MAJOR ? "col" : "row");
}

int spec_layout(const tool_spec *spec, redist_layout *layout)
{
    return redist_layout_create(spec->ndims, spec->extent, spec->block, spec->grid, spec->first,
                                spec->ranks, spec->order, layout);
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
        return 1;
    }
    return 0;
}

int spec_coord_of(const tool_spec *spec, int dim, int64_t g)
{
    return (int)((g / spec->block[dim] + spec->first[dim]) % spec->grid[dim]);
}

int64_t spec_local_index_of(const tool_spec *spec, int dim, int64_t g)
{
    int64_t b = spec->block[dim];
    return (g / b / spec->grid[dim]) * b + g % b; /* no b * grid: blocks go up to INT64_MAX */
}

int64_t spec_global_index_of(const tool_spec *spec, int dim, int coord, int64_t l)
{
    int64_t b = spec->block[dim], p = spec->grid[dim];
    int64_t shift = ((int64_t)coord - spec->first[dim] + p) % p; /* block offset in a course */
    return ((l / b) * p + shift) * b + l % b;
}

void spec_local_extents(const tool_spec *spec, const int coords[], int64_t local[])
{
    for (int k = 0; k < spec->ndims; k++) {
        /* Full courses of b*p elements give b each; the rest starts with this coordinate's
           block after `shift` others. b*p and shift*b are formed only where they are at most
           n (blocks go up to INT64_MAX). */
        int64_t b = spec->block[k], p = spec->grid[k], n = spec->extent[k];
        int64_t shift = ((int64_t)coords[k] - spec->first[k] + p) % p;
        int fits = b <= n / p;
        int64_t full = fits ? n / (b * p) : 0, rest = fits ? n % (b * p) : n;
        int64_t extra = shift == 0 || b <= rest / shift ? rest - shift * b : -1;
        local[k] = full * b + (extra < 0 ? 0 : extra > b ? b : extra);
    }
}

int64_t spec_local_count(const tool_spec *spec, int rank)
{
    int coords[SPEC_MAX_DIMS];
    int64_t local[SPEC_MAX_DIMS], count = 1;
    if (!spec_coords_of_rank(spec, rank, coords))
        return 0;
    spec_local_extents(spec, coords, local);
    for (int k = 0; k < spec->ndims; k++)
        count *= local[k];
    return count;
}
