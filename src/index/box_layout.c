/* Box layouts (no MPI): their constructor, copies and the index their sides search
 * (boxes.c). Position p (rank ranks[p]) holds one box, an interval along every dimension
 * stored densely. Identical boxes are one replica class (replicas.c), its base the first
 * position holding it (found with a hash table of the corners, O(B) for B boxes), and the
 * nonempty boxes are sorted by their lower corner along every dimension (a radix sort, O(B)
 * per dimension) once, at creation, for boxes.c's sort and sweep.
 */
#include "index/index.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- the constructor ------------------------------------------------------------------ */

static int check_boxes(int ndims, const int64_t extent[], int nboxes, const int64_t lower[],
                       const int64_t upper[])
{
    for (int r = 0; r < nboxes; r++)
        for (int k = 0; k < ndims; k++) {
            int64_t lo = lower[(size_t)r * (size_t)ndims + (size_t)k];
            int64_t hi = upper[(size_t)r * (size_t)ndims + (size_t)k];
            if (lo < 0 || lo > extent[k])
                return redist__fail(REDIST_ERR_ARG,
                                    "lower[%d * %d + %d] = %lld (box %d) must be in [0, extent[%d] "
                                    "= %lld]",
                                    r, ndims, k, (long long)lo, r, k, (long long)extent[k]);
            if (hi < 0 || hi > extent[k])
                return redist__fail(REDIST_ERR_ARG,
                                    "upper[%d * %d + %d] = %lld (box %d) must be in [0, extent[%d] "
                                    "= %lld]",
                                    r, ndims, k, (long long)hi, r, k, (long long)extent[k]);
        }
    return REDIST_SUCCESS;
}

static int box_empty(const struct redist_layout_s *l, int p)
{
    return redist__box_extent(l, p, 0) == 0; /* 0 along every dimension when empty */
}

/* A box's hash: its corners, word by word, each mixed (MurmurHash3's finalizer). */
static uint64_t box_hash(const struct redist_layout_s *l, int p)
{
    const int64_t *c = redist__box_lower(l, p);
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2 * l->ndims; i++) {
        h ^= (uint64_t)c[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    return h;
}

static int same_box(const struct redist_layout_s *l, int a, int b)
{
    const int64_t *x = redist__box_lower(l, a), *y = redist__box_lower(l, b);
    for (int i = 0; i < 2 * l->ndims; i++)
        if (x[i] != y[i])
            return 0;
    return 1;
}

/* A key and its position, for the radix sorts below. */
typedef struct keyed {
    uint64_t key;
    int pos;
} keyed;

/* Sorts v[0 .. m) by key, stably: a radix sort by bytes, as many passes as the largest key
   has bytes (O(m) per pass, each pass two streaming sweeps over 256 buckets: cache-friendly
   where a hash table or a comparison sort of 2^16 boxes is not). tmp: m entries. */
static void radix_sort(keyed *v, int m, keyed *tmp)
{
    uint64_t most = 0;
    for (int i = 0; i < m; i++)
        most |= v[i].key;
    for (int shift = 0; shift < 64 && (most >> shift) != 0; shift += 8) {
        int64_t count[257] = {0};
        for (int i = 0; i < m; i++)
            count[((v[i].key >> shift) & 0xff) + 1]++;
        for (int d = 0; d < 256; d++)
            count[d + 1] += count[d];
        for (int i = 0; i < m; i++)
            tmp[count[(v[i].key >> shift) & 0xff]++] = v[i];
        memcpy(v, tmp, (size_t)m * sizeof *v);
    }
}

/* Replica classes: identical nonempty boxes, found by sorting the boxes' hashes (equal boxes
   then lie together; a run of equal hashes is split by comparing corners); each class's base
   is its first position, its members in position order. An empty box is a class of its own. */
static int find_classes(struct redist_layout_s *l, keyed *v, keyed *tmp)
{
    int n = l->nprocs, m = 0;
    for (int p = 0; p < n; p++) {
        l->box_class[p] = p;
        if (!box_empty(l, p))
            v[m++] = (keyed){box_hash(l, p), p};
    }
    radix_sort(v, m, tmp); /* stable: positions increase within a run of equal hashes */
    for (int i = 0, j; i < m; i = j) {
        for (j = i + 1; j < m && v[j].key == v[i].key;)
            j++;
        for (int a = i; a < j; a++) /* a collision of different boxes is rare: pairwise */
            for (int b = i; b < a && l->box_class[v[a].pos] == v[a].pos; b++)
                if (l->box_class[v[b].pos] == v[b].pos && same_box(l, v[b].pos, v[a].pos))
                    l->box_class[v[a].pos] = v[b].pos;
    }
    for (int p = 0; p < n; p++) /* members per class, then where each class starts */
        l->box_nmembers[l->box_class[p]]++;
    for (int p = 0, at = 0; p < n; p++)
        if (l->box_class[p] == p) {
            l->box_member_at[p] = at;
            at += l->box_nmembers[p];
            l->box_nmembers[p] = 0; /* refilled below */
        }
    for (int p = 0; p < n; p++) {
        int base = l->box_class[p];
        l->box_members[l->box_member_at[base] + l->box_nmembers[base]++] = p;
    }
    return REDIST_SUCCESS;
}

/* Replica classes and the sweep's index: the nonempty boxes by lower corner along every
   dimension, and the longest box along each. */
static int index_boxes(struct redist_layout_s *l)
{
    int n = l->nprocs, d = l->ndims;
    keyed *v = redist__malloc(((size_t)n + 1) * sizeof *v);
    keyed *tmp = redist__malloc(((size_t)n + 1) * sizeof *tmp);
    l->box_class = redist__malloc((size_t)n * sizeof *l->box_class);
    l->box_members = redist__malloc((size_t)n * sizeof *l->box_members);
    l->box_member_at = redist__calloc((size_t)n, sizeof *l->box_member_at);
    l->box_nmembers = redist__calloc((size_t)n, sizeof *l->box_nmembers);
    l->box_maxlen = redist__calloc((size_t)d, sizeof *l->box_maxlen);
    int err = v && tmp && l->box_class && l->box_members && l->box_member_at && l->box_nmembers &&
                      l->box_maxlen
                  ? find_classes(l, v, tmp)
                  : REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS) {
        l->box_nonempty = 0;
        for (int p = 0; p < n; p++) /* a replica is nonempty: its base's emptiness was seen */
            l->box_nonempty += l->box_class[p] != p || !box_empty(l, p);
        size_t m = (size_t)l->box_nonempty;
        if ((l->box_by_lo = redist__malloc(((size_t)d * m + 1) * sizeof *l->box_by_lo)) == NULL)
            err = REDIST_ERR_NOMEM;
    }
    for (int k = 0; err == REDIST_SUCCESS && k < d; k++) {
        int *lo = l->box_by_lo + (size_t)k * (size_t)l->box_nonempty, m = 0;
        for (int p = 0; p < n; p++) {
            if (l->box_class[p] == p && box_empty(l, p))
                continue;
            int64_t at = redist__box_lower(l, p)[k], len = redist__box_upper(l, p)[k] - at;
            v[m++] = (keyed){(uint64_t)at, p};
            l->box_maxlen[k] = len > l->box_maxlen[k] ? len : l->box_maxlen[k];
        }
        radix_sort(v, m, tmp);
        for (int i = 0; i < m; i++)
            lo[i] = v[i].pos;
    }
    redist__free(v);
    redist__free(tmp);
    return err;
}

/* The grid part of a box layout of nboxes positions (ranks NULL: 0, 1, ...): the fields as
   box layouts keep them (grid (nboxes, 1, ...), blocks 1), not plain. */
static int box_grid_part(int ndims, const int64_t extent[], int nboxes, const int ranks[],
                         int order, struct redist_layout_s **out)
{
    int64_t *block = redist__malloc((size_t)ndims * sizeof *block);
    int *grid = redist__malloc((size_t)ndims * sizeof *grid);
    int err = block && grid ? REDIST_SUCCESS : redist__fail(REDIST_ERR_NOMEM, "layout");
    for (int k = 0; err == REDIST_SUCCESS && k < ndims; k++) {
        block[k] = 1;
        grid[k] = k == 0 ? nboxes : 1;
    }
    if (err == REDIST_SUCCESS) /* checks extents, order */
        err = redist_layout_create(ndims, extent, block, grid, NULL, ranks, order, out);
    redist__free(block);
    redist__free(grid);
    if (err == REDIST_SUCCESS)
        (*out)->plain = 0;
    return err;
}

/* A box layout with room for its boxes (l->box allocated, not filled), their count 1. */
static int new_box_layout(int ndims, const int64_t extent[], int nboxes, const int ranks[],
                          int order, struct redist_layout_s **out)
{
    int err = box_grid_part(ndims, extent, nboxes, ranks, order, out);
    size_t bytes = 2 * (size_t)ndims * (size_t)nboxes * sizeof(int64_t);
    if (err == REDIST_SUCCESS && (((*out)->box = redist__malloc(bytes)) == NULL ||
                                  ((*out)->box_refs = redist__malloc(sizeof(int))) == NULL))
        err = redist__fail(REDIST_ERR_NOMEM, "layout");
    if (err == REDIST_SUCCESS)
        *(*out)->box_refs = 1;
    else
        redist_layout_free(out);
    return err;
}

int redist_layout_create_boxes(int ndims, const int64_t extent[], int nboxes, const int64_t lower[],
                               const int64_t upper[], int order, redist_layout *layout)
{
    if (layout == NULL)
        return redist__fail(REDIST_ERR_ARG, "layout: NULL output pointer");
    *layout = NULL;
    if (ndims < 1)
        return redist__fail(REDIST_ERR_ARG, "ndims = %d must be >= 1", ndims);
    if (nboxes < 1)
        return redist__fail(REDIST_ERR_ARG, "nboxes = %d must be >= 1", nboxes);
    if (extent == NULL || lower == NULL || upper == NULL)
        return redist__fail(REDIST_ERR_ARG, "%s: NULL array",
                            extent == NULL  ? "extent"
                            : lower == NULL ? "lower"
                                            : "upper");
    struct redist_layout_s *l = NULL;
    int err = new_box_layout(ndims, extent, nboxes, NULL, order, &l);
    if (err == REDIST_SUCCESS)
        err = check_boxes(ndims, extent, nboxes, lower, upper);
    size_t per = (size_t)ndims;
    for (int r = 0; err == REDIST_SUCCESS && r < nboxes; r++) {
        memcpy(l->box + (size_t)r * 2 * per, lower + (size_t)r * per, per * sizeof *lower);
        memcpy(l->box + ((size_t)r * 2 + 1) * per, upper + (size_t)r * per, per * sizeof *upper);
    }
    if (err == REDIST_SUCCESS && index_boxes(l) != REDIST_SUCCESS)
        err = redist__fail(REDIST_ERR_NOMEM, "layout: the boxes' index");
    if (err != REDIST_SUCCESS) {
        redist_layout_free(&l);
        return err;
    }
    *layout = l;
    return REDIST_SUCCESS;
}

/* A window's fields (its offset from the root, the root's extents, ld, storage order) as l
   has them, dimension j of l being dimension perm[j] of c (perm NULL: the identity). */
static void copy_window_fields(struct redist_layout_s *c, const struct redist_layout_s *l,
                               const int *perm)
{
    for (int j = 0; j < l->ndims; j++) {
        int to = perm != NULL ? perm[j] : j;
        c->start[to] = l->start[j];
        c->root_extent[to] = l->root_extent[j];
        c->ld[to] = l->ld[j];
        c->storage[j] = perm != NULL ? perm[l->storage[j]] : l->storage[j];
    }
    c->dense = l->dense;
}

/* A copy that shares l's box arrays (they never change after creation): the grid part's
   arrays of its own, O(nboxes) as for a grid layout's copy. */
static struct redist_layout_s *shared_copy(const struct redist_layout_s *l)
{
    struct redist_layout_s *c = NULL;
    if (box_grid_part(l->ndims, l->extent, l->nprocs, l->ranks, l->order, &c) != REDIST_SUCCESS)
        return NULL;
    __atomic_add_fetch(l->box_refs, 1, __ATOMIC_ACQ_REL);
    c->box_refs = l->box_refs;
    c->box = l->box;
    c->box_class = l->box_class;
    c->box_members = l->box_members;
    c->box_member_at = l->box_member_at;
    c->box_nmembers = l->box_nmembers;
    c->box_by_lo = l->box_by_lo;
    c->box_maxlen = l->box_maxlen;
    c->box_nonempty = l->box_nonempty;
    c->box_root = l->box_root;
    copy_window_fields(c, l, NULL);
    return c;
}

/* Corners [n][2][d] of `from` into `to`, dimension j becoming dimension perm[j]. */
static void permute_corners(int64_t *to, const int64_t *from, size_t n, size_t d, const int *perm)
{
    for (size_t i = 0; i < 2 * n; i++) /* each lower and each upper corner */
        for (size_t j = 0; j < d; j++)
            to[i * d + (size_t)perm[j]] = from[i * d + j];
}

/* The copy takes the index as it is: shared (no permutation), or with its dimensions
   renamed. A plan copies its layouts, and rebuilding the index would cost it the sorts. */
struct redist_layout_s *redist__boxes_copy(const struct redist_layout_s *l, const int *perm)
{
    if (perm == NULL)
        return shared_copy(l);
    size_t d = (size_t)l->ndims, n = (size_t)l->nprocs, m = (size_t)l->box_nonempty;
    int64_t *extent = redist__malloc(d * sizeof *extent);
    struct redist_layout_s *c = NULL;
    for (size_t j = 0; extent != NULL && j < d; j++)
        extent[perm[j]] = l->extent[j];
    if (extent == NULL ||
        new_box_layout(l->ndims, extent, l->nprocs, l->ranks, l->order, &c) != 0) {
        redist__free(extent);
        return NULL;
    }
    redist__free(extent);
    c->box_class = redist__malloc(n * sizeof *c->box_class);
    c->box_members = redist__malloc(n * sizeof *c->box_members);
    c->box_member_at = redist__malloc(n * sizeof *c->box_member_at);
    c->box_nmembers = redist__malloc(n * sizeof *c->box_nmembers);
    c->box_maxlen = redist__malloc(d * sizeof *c->box_maxlen);
    c->box_by_lo = redist__malloc((d * m + 1) * sizeof *c->box_by_lo);
    if (l->box_root != NULL)
        c->box_root = redist__malloc(2 * d * n * sizeof *c->box_root);
    if (!c->box_class || !c->box_members || !c->box_member_at || !c->box_nmembers ||
        !c->box_maxlen || !c->box_by_lo || (l->box_root != NULL && c->box_root == NULL)) {
        redist_layout_free(&c);
        return NULL;
    }
    permute_corners(c->box, l->box, n, d, perm);
    if (l->box_root != NULL)
        permute_corners(c->box_root, l->box_root, n, d, perm);
    for (size_t j = 0; j < d; j++) {
        size_t to = (size_t)perm[j];
        c->box_maxlen[to] = l->box_maxlen[j];
        memcpy(c->box_by_lo + to * m, l->box_by_lo + j * m, m * sizeof *c->box_by_lo);
    }
    memcpy(c->box_class, l->box_class, n * sizeof *c->box_class);
    memcpy(c->box_members, l->box_members, n * sizeof *c->box_members);
    memcpy(c->box_member_at, l->box_member_at, n * sizeof *c->box_member_at);
    memcpy(c->box_nmembers, l->box_nmembers, n * sizeof *c->box_nmembers);
    c->box_nonempty = l->box_nonempty;
    copy_window_fields(c, l, perm);
    return c;
}

/* ---- windows -------------------------------------------------------------------------- */

/* A window of a box layout: a box layout of the window's extents whose boxes are the
   parent's clipped to the window and moved to its origin, so that the sides' sweep and the
   replica classes see the window's own boxes (two ranks whose boxes differ only outside the
   window hold the same elements in it: replicas). The elements stay where the root puts
   them: box_root keeps the root's boxes, whose arrays give the storage strides (layout.c's
   storage extent) and where the window's box begins in them (window.c's storage base). */
int redist__boxes_window(const struct redist_layout_s *parent, const int64_t offset[],
                         const int64_t count[], const int64_t ld[], struct redist_layout_s **out)
{
    size_t d = (size_t)parent->ndims, n = (size_t)parent->nprocs;
    int64_t *extent = redist__malloc(d * sizeof *extent);
    struct redist_layout_s *w = NULL;
    int err = extent != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    for (size_t k = 0; err == REDIST_SUCCESS && k < d; k++)
        extent[k] = count != NULL ? count[k] : parent->extent[k] - (offset ? offset[k] : 0);
    if (err == REDIST_SUCCESS)
        err =
            new_box_layout(parent->ndims, extent, parent->nprocs, parent->ranks, parent->order, &w);
    if (err == REDIST_SUCCESS &&
        (w->box_root = redist__malloc(2 * d * n * sizeof *w->box_root)) == NULL)
        err = REDIST_ERR_NOMEM;
    if (err == REDIST_SUCCESS) {
        const int64_t *root = parent->box_root != NULL ? parent->box_root : parent->box;
        memcpy(w->box_root, root, 2 * d * n * sizeof *w->box_root);
        copy_window_fields(w, parent, NULL);
        for (size_t i = 0; i < 2 * d * n; i++) { /* clipped to [offset, offset + count) */
            size_t k = i % d;
            int64_t at = parent->box[i] - (offset ? offset[k] : 0);
            w->box[i] = at < 0 ? 0 : at > extent[k] ? extent[k] : at;
        }
        w->dense = 1;
        for (size_t k = 0; k < d; k++) {
            w->start[k] += offset ? offset[k] : 0;
            w->ld[k] = ld != NULL ? ld[k] : w->ld[k];
            w->dense &= w->start[k] == 0 && extent[k] == w->root_extent[k] && w->ld[k] == 0;
        }
        err = index_boxes(w);
    }
    redist__free(extent);
    if (err != REDIST_SUCCESS) {
        redist_layout_free(&w);
        return redist__fail(REDIST_ERR_NOMEM, "window layout");
    }
    *out = w;
    return REDIST_SUCCESS;
}
