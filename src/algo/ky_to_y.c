/* ky-to-y: [TCR96]'s KY_TO_Y algorithm (§3, Fig. 2) for cyclic(x) -> cyclic(y), x = k y.
 *
 * Send: processor p sends sub-block i of every local block of size x to (p_d + i) mod P,
 * p_d = (k p) mod P: the sequence of k destinations is computed once and reused. Receive,
 * when k <= P and P mod k = 0: local block i of size y comes from
 * (p/k + (i mod k) (P/k)) mod P, again a stored sequence of k processors; synchronous
 * (all packets, then one scan) or asynchronous (each packet placed on arrival, its blocks
 * with stride x), the plan option synchronous_receive. Otherwise the source of each block is
 * computed as ((i P + p)/k) mod P and the synchronous method is used, as in the paper.
 * Index work is per block of y, not per element. One step.
 */
#include "algo/p001.h"

typedef redist__p001_ratio state;

static int applicable(const redist__case *c)
{
    return c->s.same_line && c->s.x % c->s.y == 0 ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static void pack(struct redist_plan_s *p);
static void unpack_all(struct redist_plan_s *p, redist__p001 *t);
static void unpack_one(struct redist_plan_s *p, redist__p001 *t, int64_t q);

static int setup(struct redist_plan_s *p)
{
    int err = redist__p001_ratio_setup(p, pack, unpack_one, unpack_all);
    state *s = p->algo_state;
    if (s != NULL) /* no stored sequence: the synchronous method, as in the paper */
        s->st.sync |= !s->stored;
    return err;
}

static void pack(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    redist__p001 *t = &s->st;
    int64_t es = (int64_t)p->elsize;
    for (int64_t at = 0; at < p->src_count; at += t->x) /* each local block of size x */
        for (int64_t i = 0; i < s->k && at + i * t->y < p->src_count; i++) {
            int64_t from = at + i * t->y,
                    len = p->src_count - from < t->y ? p->src_count - from : t->y;
            redist__p001_append(t, redist__ky_dest(s->k, t->P, t->me, i), p->cur_src + from * es,
                                len, p->elsize);
        }
}

/* Source of local block i (size y). */
static int64_t source(const state *s, int64_t i)
{
    const redist__p001 *t = &s->st;
    if (s->stored)
        return redist__ky_source_stored(s->k, t->P, t->me, i);
    return redist__ky_source(s->k, t->P, t->me, i);
}

static void unpack_all(struct redist_plan_s *p, redist__p001 *t)
{
    state *s = p->algo_state;
    int64_t es = (int64_t)p->elsize;
    for (int64_t i = 0; i * t->y < p->dst_count; i++) {
        int64_t at = i * t->y, len = p->dst_count - at < t->y ? p->dst_count - at : t->y;
        redist__p001_read(t, source(s, i), p->cur_dst + at * es, len, p->elsize);
    }
}

/* The asynchronous method: the packet from q fills blocks i0, i0 + k, ... (stride x). */
static void unpack_one(struct redist_plan_s *p, redist__p001 *t, int64_t q)
{
    state *s = p->algo_state;
    int64_t es = (int64_t)p->elsize;
    for (int64_t i0 = 0; i0 < s->k; i0++) {
        if (source(s, i0) != q)
            continue;
        for (int64_t at = i0 * t->y; at < p->dst_count; at += t->x) {
            int64_t len = p->dst_count - at < t->y ? p->dst_count - at : t->y;
            redist__p001_read(t, q, p->cur_dst + at * es, len, p->elsize);
        }
    }
}

const redist__algorithm redist__algo_ky_to_y = {
    .name = "ky-to-y",
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
