/* Replicated grid dimensions and replicas (no MPI): ScaLAPACK's RSRC/CSRC = -1, DTensor's
 * Replicate. Along a replicated dimension every process of the user's grid holds the whole
 * extent, so the index math sees that dimension as a grid of one coordinate (block = the
 * extent) and the processes along it as replicas of one another: positions that differ only
 * along replicated dimensions hold the same elements. Boxes (boxes.c) that are identical are
 * replicas too.
 *
 * A destination's replicas all receive. A source's replicas hold the same values, so each
 * destination rank takes an element from one of them: itself if it is one (nothing moves),
 * else one on d's node if the plan knows the nodes (node_of, at most
 * REDIST__NODE_CHOICE_MAX replicas: the check is per message), spread evenly over them, else
 * replica (d + base) mod R for destination rank d and the replica class's first position
 * `base`: the destination ranks are spread evenly over the R replicas, and classes whose
 * replicas are the same ranks start at different replicas, so every replica sends about 1/R
 * of the bytes. Every rank computes the same choice from the layouts and the nodes, which
 * every rank has alike (an allgather at plan creation).
 */
#include "index/index.h"

#include <stdlib.h>

int redist__box_replicas(const struct redist_layout_s *l, int base)
{
    return l->box_nmembers[base];
}

int redist__box_replica(const struct redist_layout_s *l, int base, int j)
{
    return l->box_members[l->box_member_at[base] + j];
}

/* Position stride of dimension k: the positions of one step along it (row-major). */
static int position_stride(const struct redist_layout_s *l, int k)
{
    int s = 1;
    for (int i = k + 1; i < l->ndims; i++)
        s *= l->pgrid[i];
    return s;
}

int redist__replica_position(const struct redist_layout_s *l, int base, int j)
{
    if (l->box != NULL)
        return redist__box_replica(l, base, j);
    for (int k = l->ndims - 1; k >= 0 && j > 0; k--) {
        if (l->rep == NULL || !l->rep[k])
            continue;
        base += (j % l->pgrid[k]) * position_stride(l, k);
        j /= l->pgrid[k];
    }
    return base;
}

int redist__base_position(const struct redist_layout_s *l, int position)
{
    if (l->box != NULL)
        return l->box_class[position];
    if (l->rep == NULL)
        return position;
    int coords_pos = 0;
    for (int k = 0; k < l->ndims; k++) {
        int stride = position_stride(l, k), digit = position / stride % l->pgrid[k];
        coords_pos += l->rep[k] ? 0 : digit * stride;
    }
    return coords_pos;
}

int redist__replica_count(const struct redist_layout_s *l, int base)
{
    return l->box != NULL ? redist__box_replicas(l, base) : l->nreplicas;
}

int redist__source_holder(const struct redist_layout_s *src, int base, int dst_rank)
{
    int R = redist__replica_count(src, base);
    if (R == 1)
        return src->ranks[base];
    int pos = redist__layout_position(src, dst_rank);
    if (pos >= 0 && redist__base_position(src, pos) == base)
        return dst_rank; /* the destination holds these elements itself */
    int j = (int)(((int64_t)dst_rank + base) % R);
    if (src->node_of != NULL && R <= REDIST__NODE_CHOICE_MAX) { /* a replica on d's node */
        int here = 0, node = src->node_of[dst_rank];
        for (int i = 0; i < R; i++)
            here += src->node_of[src->ranks[redist__replica_position(src, base, i)]] == node;
        for (int i = 0, k = j % (here > 0 ? here : 1); here > 0 && i < R; i++) {
            int r = src->ranks[redist__replica_position(src, base, i)];
            if (src->node_of[r] == node && k-- == 0)
                return r;
        }
    }
    return src->ranks[redist__replica_position(src, base, j)];
}

int redist__has_replicas(const struct redist_layout_s *l)
{
    if (l->box == NULL)
        return l->nreplicas > 1;
    for (int p = 0; p < l->nprocs; p++)
        if (l->box_class[p] != p)
            return 1;
    return 0;
}

int redist__shared_elements(const struct redist_layout_s *l)
{
    if (redist__has_replicas(l))
        return 1;
    if (l->box == NULL)
        return 0;
    int64_t array = 1, held = 0; /* held saturates past the array: no overflow */
    for (int k = 0; k < l->ndims; k++)
        array *= l->extent[k]; /* at most 2^62: checked at creation */
    for (int p = 0; p < l->nprocs && held <= array; p++) {
        int64_t v = 1;
        for (int k = 0; k < l->ndims && v > 0; k++) {
            int64_t e = redist__box_extent(l, p, k);
            v = e > 0 && v > (array - held) / e ? array - held + 1 : v * e;
        }
        held += v;
    }
    return held > array;
}
