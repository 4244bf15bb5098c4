/* x-to-kx: [TCR96]'s X_TO_KX algorithm (§4, Fig. 5) for cyclic(x) -> cyclic(y), y = k x.
 *
 * Send, when k <= P and P mod k = 0: local block i of size x goes to
 * (p/k + (i mod k) (P/k)) mod P, a stored sequence of k processors; otherwise each block's
 * destination is computed as ((i P + p)/k) mod P. Receive: sub-block i of every local block
 * of size y comes from (p_s + i) mod P, p_s = (k p) mod P; synchronous (all packets, then
 * one scan of the local array) or asynchronous (each packet placed on arrival, stride y),
 * the plan option synchronous_receive. Index work is per block of x. One step.
 */
#include "algo/p001.h"

typedef redist__p001_ratio state;

static int applicable(const redist__case *c)
{
    return c->s.same_line && c->s.y % c->s.x == 0 ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static void pack(struct redist_plan_s *p);
static void unpack_all(struct redist_plan_s *p, redist__p001 *t);
static void unpack_one(struct redist_plan_s *p, redist__p001 *t, int64_t q);

static int setup(struct redist_plan_s *p)
{
    int err = redist__p001_ratio_setup(p, pack, unpack_one, unpack_all);
    return err;
}

/* Destination of local block i (size x). */
static int64_t destination(const state *s, int64_t i)
{
    const redist__p001 *t = &s->st;
    if (s->stored)
        return redist__xk_dest_stored(s->k, t->P, t->me, i);
    return redist__xk_dest(s->k, t->P, t->me, i);
}

static void pack(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    redist__p001 *t = &s->st;
    int64_t es = (int64_t)p->elsize;
    for (int64_t i = 0; i * t->x < p->src_count; i++) {
        int64_t at = i * t->x, len = p->src_count - at < t->x ? p->src_count - at : t->x;
        redist__p001_append(t, destination(s, i), p->cur_src + at * es, len, p->elsize);
    }
}

static void unpack_all(struct redist_plan_s *p, redist__p001 *t)
{
    state *s = p->algo_state;
    int64_t es = (int64_t)p->elsize;
    for (int64_t at = 0; at < p->dst_count; at += t->y) /* each local block of size y */
        for (int64_t i = 0; i < s->k && at + i * t->x < p->dst_count; i++) {
            int64_t from = at + i * t->x;
            int64_t len = p->dst_count - from < t->x ? p->dst_count - from : t->x;
            redist__p001_read(t, redist__xk_source(s->k, t->P, t->me, i), p->cur_dst + from * es,
                              len, p->elsize);
        }
}

/* The asynchronous method: the packet from q holds the sub-blocks i with (p_s + i) mod P = q
   of every local block of size y (stride y; several per block when k > P), in that order. */
static void unpack_one(struct redist_plan_s *p, redist__p001 *t, int64_t q)
{
    state *s = p->algo_state;
    int64_t es = (int64_t)p->elsize, ps = (s->k * t->me) % t->P;
    int64_t i0 = ((q - ps) % t->P + t->P) % t->P;
    for (int64_t block = 0; block < p->dst_count; block += t->y)
        for (int64_t i = i0; i < s->k; i += t->P) {
            int64_t at = block + i * t->x;
            if (at >= p->dst_count)
                break;
            int64_t len = p->dst_count - at < t->x ? p->dst_count - at : t->x;
            redist__p001_read(t, q, p->cur_dst + at * es, len, p->elsize);
        }
}

const redist__algorithm redist__algo_x_to_kx = {
    .name = "x-to-kx",
    .applicable = applicable,
    .steps = redist__one_step,
    .predict = redist__p001_predict_ratio,
    .transports = REDIST__T_PACK,
    .check_options = redist__p001_check_options,
    .fingerprint_options = redist__p001_fingerprint_options,
    .setup = setup,
    .start = redist__p001_start,
    .progress = redist__p001_algo_progress,
    .destroy = redist__p001_destroy,
    .packs = 1,
};
