/* Messages (no MPI): a message's levels built from per-dimension runs, with this rank's
 * storage strides and a guess of the peer's, contiguous levels merged, and their release.
 * pattern.c builds them from the patterns of two grids, boxes.c from boxes.
 */
#include "index/index.h"

#include <stdlib.h>
#include <string.h>

void redist__msg_free(redist__msg *m)
{
    redist__free(m->levels);
    redist__free(m->owned_runs);
    redist__tiles_free(m->tiles);
    memset(m, 0, sizeof *m);
}

/* Dimension order of the message levels: the source's storage order, slowest first. */
int redist__level_dim(const struct redist_layout_s *src, int level)
{
    return src->storage[level];
}

/* When the fastest level is one run covering the whole local extent on both sides, it is
   contiguous with the next level out: fold the two into one level of longer runs, so whole
   rows (or the whole array) copy with one memcpy. */
int redist__merge_levels(redist__msg *m)
{
    int64_t total = 0;
    for (int l = 0; l < m->nlevels; l++)
        total += m->levels[l].nruns;
    while (m->nlevels >= 2) {
        redist__level *in = &m->levels[m->nlevels - 1], *out = &m->levels[m->nlevels - 2];
        const redist__run *r = in->runs;
        if (in->nruns != 1 || r->count != 1 || r->src_off != 0 || r->dst_off != 0 ||
            out->src_stride != in->src_stride * r->len ||
            out->dst_stride != in->dst_stride * r->len)
            break;
        if (m->owned_runs == NULL) {
            m->owned_runs = redist__malloc((size_t)total * sizeof *m->owned_runs);
            if (m->owned_runs == NULL)
                return REDIST_ERR_NOMEM;
            total = 0; /* now the fill level of owned_runs */
        }
        int64_t len = r->len;
        redist__run *scaled = m->owned_runs + total;
        for (int64_t i = 0; i < out->nruns; i++) {
            redist__run o = out->runs[i];
            scaled[i] = (redist__run){o.src_off * len, o.dst_off * len, o.len * len, o.count};
        }
        total += out->nruns;
        out->runs = scaled;
        out->src_period *= len;
        out->dst_period *= len;
        out->src_stride = in->src_stride;
        out->dst_stride = in->dst_stride;
        m->nlevels--;
    }
    return REDIST_SUCCESS;
}

/* The peer's strides: a guess (its ld is its own) that only decides whether levels merge,
   which keeps the element order: each side moves data with its own strides. Dense: this
   rank's ld with the peer's extents could make a stride pass 2^63 (redist__check_ld bounds it
   with this rank's extents only); dense, every stride is at most the peer's local array of
   the root, 2^62 elements. */
void redist__peer_strides(const struct redist_layout_s *l, const int coords[], int64_t stride[])
{
    int64_t s = 1;
    for (int i = 0; i < l->ndims; i++) {
        int k = l->storage[l->ndims - 1 - i];
        stride[k] = s;
        s *= redist__storage_extent(l, k, coords[k]);
    }
}

/* A level's period as the message uses it: 0 when no run of the peer repeats, since then no
   offset ever adds it (and a block near INT64_MAX would overflow the byte steps computed from
   it, in the copy walker and the datatypes alike). */
int64_t redist__used_period(const redist__run *runs, int64_t nruns, int64_t period)
{
    for (int64_t r = 0; r < nruns; r++)
        if (runs[r].count > 1)
            return period;
    return 0;
}

int redist__msg_from_runs(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                          int side, int rank, int peer, int src_pos, int dst_pos,
                          const redist__dim_runs *dims, redist__msg *m)
{
    int d = src->ndims, err = REDIST_SUCCESS;
    int64_t total = 0;
    for (int k = 0; k < d; k++)
        total += dims[k].nruns;
    int *sc = redist__malloc(2 * (size_t)d * sizeof *sc), *dc = sc ? sc + d : NULL;
    int64_t *ss = redist__malloc(2 * (size_t)d * sizeof *ss), *ds = ss ? ss + d : NULL;
    m->levels = redist__malloc((size_t)d * sizeof *m->levels);
    /* Twice the runs: redist__merge_levels writes the merged levels' rescaled runs after
       the first `total` of an owned array. */
    m->owned_runs = redist__malloc((size_t)(2 * total + 1) * sizeof *m->owned_runs);
    if (!sc || !ss || !m->levels || !m->owned_runs) {
        err = REDIST_ERR_NOMEM;
        goto done;
    }
    m->peer = peer;
    redist__layout_coords_of(src, src_pos, sc);
    redist__layout_coords_of(dst, dst_pos, dc);
    /* This rank's own strides on its side (both for its self part), a guess for the peer's
       (redist__peer_strides: it only decides whether levels merge). */
    int self = peer == rank, src_side = side == REDIST__SIDE_SRC;
    if (src_side || self)
        redist__storage_strides(src, sc, ss);
    else
        redist__peer_strides(src, sc, ss);
    if (!src_side || self)
        redist__storage_strides(dst, dc, ds);
    else
        redist__peer_strides(dst, dc, ds);
    m->nlevels = d;
    m->nelems = 1;
    int64_t at = 0;
    for (int l = 0; l < d; l++) {
        int k = redist__level_dim(src, l);
        redist__run *runs = m->owned_runs + at;
        int64_t elems = 0;
        for (int64_t r = 0; r < dims[k].nruns; r++) {
            runs[r] = dims[k].runs[r];
            elems += runs[r].len * runs[r].count;
        }
        at += dims[k].nruns;
        m->levels[l] = (redist__level){runs,
                                       dims[k].nruns,
                                       redist__used_period(runs, dims[k].nruns, dims[k].src_period),
                                       redist__used_period(runs, dims[k].nruns, dims[k].dst_period),
                                       ss[k],
                                       ds[k]};
        m->nelems *= elems;
    }
    err = redist__merge_levels(m);
done:
    redist__free(sc);
    redist__free(ss);
    if (err != REDIST_SUCCESS)
        redist__msg_free(m);
    return err;
}
