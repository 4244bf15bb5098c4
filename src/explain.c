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
    return redist__check_array_bytes(src, (size_t)elsize);
}

int redist__rank_traffic_compute(redist_layout src, redist_layout dst, int rank, int64_t elsize,
                                 redist__rank_traffic *out)
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

/* The global summary of a pair over comm_size ranks, plus the totals explain reports.
   Computing it visits every rank, so the last one is kept (per thread): explain asks for
   every algorithm of the same pair in turn. */
typedef struct pair_summary {
    uint64_t key;
    redist__summary sum;
    int64_t total_messages, total_bytes, max_messages, max_bytes;
} pair_summary;

static _Thread_local pair_summary cached;
static _Thread_local int cached_valid;

static int summarize_pair(redist_layout src, redist_layout dst, int comm_size, int64_t elsize,
                          pair_summary *out)
{
    uint64_t key = redist__layout_hash(dst, redist__layout_hash(src, 1469598103934665603ull));
    key = redist__hash_bytes(key, &comm_size, sizeof comm_size);
    key = redist__hash_bytes(key, &elsize, sizeof elsize);
    if (cached_valid && cached.key == key) {
        *out = cached;
        return REDIST_SUCCESS;
    }
    memset(out, 0, sizeof *out);
    int64_t vmax[REDIST__S_NVALS] = {0}, v[REDIST__S_NVALS];
    unsigned char *flags = calloc((size_t)comm_size, 1);
    if (flags == NULL)
        return redist__fail(REDIST_ERR_NOMEM, "explain");
    int err = REDIST_SUCCESS;
    for (int r = 0; r < comm_size; r++) {
        rank_sides s;
        err = sides_of(src, dst, r, &s);
        if (err != REDIST_SUCCESS)
            break;
        int64_t sc = 0, dc = 0;
        redist_layout_local_size(src, r, &sc);
        redist_layout_local_size(dst, r, &dc);
        redist__summary_local(&s.send, &s.recv, s.has_self ? &s.self : NULL, sc, dc, (size_t)elsize,
                              v);
        for (int i = 0; i < REDIST__S_NVALS; i++)
            vmax[i] = v[i] > vmax[i] ? v[i] : vmax[i];
        redist__shift_flags(&s.send, r, comm_size, flags);
        out->total_messages += s.send.nmsgs;
        out->total_bytes += s.send.total_elems * elsize;
        sides_free(&s);
    }
    redist__summary_finish(vmax, flags, comm_size, (size_t)elsize, &out->sum);
    redist__summary_tables(&out->sum, src, dst, -1);
    free(flags);
    if (err != REDIST_SUCCESS)
        return err;
    out->key = key;
    cached = *out;
    cached_valid = 1;
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
    pair_summary ps;
    err = summarize_pair(src, dst, comm_size, elsize, &ps);
    if (err != REDIST_SUCCESS)
        return err;
    if (a == NULL) {
        a = redist__choose(&ps.sum);
        if (a == NULL)
            return redist__fail(REDIST_ERR_NOT_APPLICABLE, "no algorithm applies");
    } else if (a->applicable(&ps.sum) != REDIST_SUCCESS) {
        return redist__fail(REDIST_ERR_NOT_APPLICABLE,
                            "'%s' cannot perform this "
                            "redistribution",
                            name);
    }
    memset(out, 0, sizeof *out);
    out->chosen = a->name;
    out->steps = a->steps(&ps.sum);
    out->transport = redist__choose_transport(a, &ps.sum, REDIST_TRANSPORT_AUTO);
    out->predicted_seconds = redist__predict_transport(a, &ps.sum, out->transport);
    out->total_messages = ps.total_messages;
    out->total_bytes = ps.total_bytes;
    out->max_messages_per_rank = ps.sum.max_sent_messages;
    out->max_bytes_per_rank = ps.sum.max_sent_bytes;
    int64_t own[4];
    if (a->explain != NULL && a->explain(src, dst, &ps.sum, own) == REDIST_SUCCESS) {
        out->max_messages_per_rank = own[0];
        out->max_bytes_per_rank = own[1];
        out->total_messages = own[2];
        out->total_bytes = own[3];
    }
    return REDIST_SUCCESS;
}
