/* general: [TCR96]'s element-wise General Method (§5.1), the baseline the paper improves
 * on. Send: for every local element, its global index under the source distribution, then
 * its destination processor under the new one (Table 1); append it to that packet. Receive
 * (synchronous): for every local element of the new distribution, its global index, then its
 * source processor; read it from that packet. Asynchronous: each arriving packet is placed
 * by scanning the local array for the elements that come from its sender (the array is
 * scanned P times, as the paper notes). Per-element index work by design; one step.
 * Cost: the transport's moves, one start-up, a message cost per peer, and the index
 * arithmetic of every local element (about 2 ns each here):
 *   T_d + M t_msg + the moves of the transport + 2e-9 N_local.
 */
#include "algo/p001.h"

static void pack(struct redist_plan_s *p);
static void unpack_all(struct redist_plan_s *p, redist__p001 *t);
static void unpack_one(struct redist_plan_s *p, redist__p001 *t, int64_t q);

static int setup(struct redist_plan_s *p)
{
    return redist__p001_create(p, sizeof(redist__p001), pack, unpack_one, unpack_all);
}

static void pack(struct redist_plan_s *p)
{
    redist__p001 *t = p->algo_state;
    int64_t count = p->src_count, es = (int64_t)p->elsize;
    for (int64_t l = 0; l < count; l++) {
        int64_t g = redist__p001_global(l, t->x, t->P, t->me);
        redist__p001_append(t, redist__p001_owner(g, t->y, t->P), p->cur_src + l * es, 1,
                            p->elsize);
    }
}

static void unpack_all(struct redist_plan_s *p, redist__p001 *t)
{
    int64_t count = p->dst_count, es = (int64_t)p->elsize;
    for (int64_t l = 0; l < count; l++) {
        int64_t g = redist__p001_global(l, t->y, t->P, t->me);
        redist__p001_read(t, redist__p001_owner(g, t->x, t->P), p->cur_dst + l * es, 1, p->elsize);
    }
}

static void unpack_one(struct redist_plan_s *p, redist__p001 *t, int64_t q)
{
    int64_t count = p->dst_count, es = (int64_t)p->elsize;
    for (int64_t l = 0; l < count; l++) {
        int64_t g = redist__p001_global(l, t->y, t->P, t->me);
        if (redist__p001_owner(g, t->x, t->P) == q)
            redist__p001_read(t, q, p->cur_dst + l * es, 1, p->elsize);
    }
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt;
    return redist__cost_moves(c, m, transport) + m->startup +
           m->per_message * (double)c->t.max_messages +
           2e-9 * (double)c->t.max_local_bytes / (double)c->t.elsize;
}

const redist__algorithm redist__algo_general = {
    .name = "general",
    .applicable = redist__p001_applicable,
    .steps = redist__one_step,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .check_options = redist__p001_check_options,
    .fingerprint_options = redist__p001_fingerprint_options,
    .setup = setup,
    .start = redist__p001_start,
    .progress = redist__p001_algo_progress,
    .destroy = redist__p001_destroy,
    .packs = 1,
};
