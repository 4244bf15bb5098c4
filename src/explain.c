/* What a plan would do, computed without MPI for any communicator size (explain,
 * simulate): the same pattern code and summaries a plan uses, evaluated for every rank in
 * turn. Cost: the sum over ranks of their plan-building cost. */
#include "explain.h"
#include "internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct rank_sides {
    redist__side send, recv;
    redist__msg self;
    int has_self;
} rank_sides;

static int sides_of(redist_layout src, redist_layout dst, int rank, rank_sides *s)
{
    memset(s, 0, sizeof *s);
    return redist__sides_create(src, dst, rank, &s->send, &s->recv, &s->self, &s->has_self);
}

static void sides_free(rank_sides *s)
{
    redist__side_free(&s->send);
    redist__side_free(&s->recv);
    if (s->has_self)
        redist__msg_free(&s->self);
}

static int check_pair(redist_layout src, redist_layout dst, int comm_size, int64_t elsize)
{
    if (src == NULL || dst == NULL || elsize <= 0 || comm_size < 1)
        return redist__fail(REDIST_ERR_ARG, "explain: bad argument");
    if (!redist__same_global_shape(src, dst))
        return redist__fail(REDIST_ERR_ARG, "src and dst describe different arrays");
    if (src->max_rank >= comm_size || dst->max_rank >= comm_size)
        return redist__fail(REDIST_ERR_ARG, "a layout uses rank %d but there are %d ranks",
                            src->max_rank > dst->max_rank ? src->max_rank : dst->max_rank,
                            comm_size);
    return REDIST_SUCCESS;
}

int redist__rank_traffic_compute(redist_layout src, redist_layout dst, int rank,
                                 int64_t elsize, redist__rank_traffic *out)
{
    if (out == NULL || rank < 0)
        return redist__fail(REDIST_ERR_ARG, "rank_traffic: bad argument");
    int err = check_pair(src, dst, INT_MAX, elsize);
    rank_sides s;
    if (err == REDIST_SUCCESS)
        err = sides_of(src, dst, rank, &s);
    if (err != REDIST_SUCCESS)
        return err;
    out->messages_sent = s.send.nmsgs;
    out->bytes_sent = s.send.total_elems * elsize;
    out->messages_received = s.recv.nmsgs;
    out->bytes_received = s.recv.total_elems * elsize;
    out->bytes_copied = s.has_self ? s.self.nelems * elsize : 0;
    out->peers_max = s.send.nmsgs > s.recv.nmsgs ? s.send.nmsgs : s.recv.nmsgs;
    sides_free(&s);
    return REDIST_SUCCESS;
}

int redist__explain(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                    const char *algorithm, redist__explanation *out)
{
    int err = check_pair(src, dst, comm_size, elsize);
    if (err != REDIST_SUCCESS || out == NULL)
        return err != REDIST_SUCCESS ? err : REDIST_ERR_ARG;
    const char *name = algorithm == NULL ? "auto" : algorithm;
    const redist__algorithm *a = redist__algorithm_by_name(name);
    if (a == NULL && strcmp(name, "auto") != 0)
        return redist__fail(REDIST_ERR_UNKNOWN_ALGORITHM, "unknown algorithm '%s'", name);
    memset(out, 0, sizeof *out);
    int64_t vmax[REDIST__S_NVALS] = {0}, v[REDIST__S_NVALS];
    unsigned char *flags = calloc((size_t)comm_size, 1);
    if (flags == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "explain");
    for (int r = 0; r < comm_size && err == REDIST_SUCCESS; r++) {
        rank_sides s;
        err = sides_of(src, dst, r, &s);
        if (err != REDIST_SUCCESS)
            break;
        int64_t sc = 0, dc = 0;
        redist_layout_local_size(src, r, &sc);
        redist_layout_local_size(dst, r, &dc);
        redist__summary_local(&s.send, &s.recv, s.has_self ? &s.self : NULL, sc, dc,
                              (size_t)elsize, v);
        for (int i = 0; i < REDIST__S_NVALS; i++)
            vmax[i] = v[i] > vmax[i] ? v[i] : vmax[i];
        redist__shift_flags(&s.send, r, comm_size, flags);
        out->total_messages += s.send.nmsgs;
        out->total_bytes += s.send.total_elems * elsize;
        if (s.send.nmsgs > out->max_messages_per_rank)
            out->max_messages_per_rank = s.send.nmsgs;
        if (s.send.total_elems * elsize > out->max_bytes_per_rank)
            out->max_bytes_per_rank = s.send.total_elems * elsize;
        sides_free(&s);
    }
    redist__summary sum;
    redist__summary_finish(vmax, flags, comm_size, (size_t)elsize, &sum);
    free(flags);
    if (err != REDIST_SUCCESS)
        return err;
    if (a == NULL) {
        a = redist__choose(&sum);
        if (a == NULL)
            return redist__fail(REDIST_ERR_NOT_APPLICABLE, "no algorithm applies");
    } else if (a->applicable(&sum) != REDIST_SUCCESS) {
        return redist__fail(REDIST_ERR_NOT_APPLICABLE, "'%s' cannot perform this "
                                                       "redistribution", name);
    }
    out->chosen = a->name;
    out->steps = a->steps(&sum);
    out->predicted_seconds = redist__predict(a, &sum);
    return REDIST_SUCCESS;
}
