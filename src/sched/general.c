/* general: paper 001's element-wise General Method (§5.1), the baseline the paper improves
 * on. Send: for every local element, its global index under the source distribution, then
 * its destination processor under the new one (Table 1); append it to that packet. Receive
 * (synchronous): for every local element of the new distribution, its global index, then its
 * source processor; read it from that packet. Asynchronous: each arriving packet is placed
 * by scanning the local array for the elements that come from its sender (the array is
 * scanned P times, as the paper notes). Per-element index work by design; one step.
 */
#include "p001.h"

#include <stdlib.h>

typedef struct state {
    redist__p001 st;
} state;

static int setup(struct redist_plan_s *p)
{
    state *s = calloc(1, sizeof *s);
    if (s == NULL)
        return REDIST_ERR_NOMEM;
    p->algo_state = s;
    s->st.sync = p->synchronous_receive;
    return redist__p001_setup(p, &s->st);
}

static void destroy(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    if (s == NULL)
        return;
    redist__p001_free(&s->st);
    free(s);
    p->algo_state = NULL;
}

static void pack(struct redist_plan_s *p, redist__p001 *t)
{
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

static int start(struct redist_plan_s *p)
{
    state *s = p->algo_state;
    int err = redist__p001_post_receives(p, &s->st);
    if (err != REDIST_SUCCESS)
        return err;
    if (!p->dry && s->st.me >= 0)
        pack(p, &s->st);
    return redist__p001_post_sends(p, &s->st);
}

static int progress(struct redist_plan_s *p, int blocking, int *done)
{
    state *s = p->algo_state;
    return redist__p001_progress(p, &s->st, blocking, done, unpack_one, unpack_all);
}

const redist__algorithm redist__algo_general = {
    .name = "general",
    .applicable = redist__p001_applicable,
    .steps = redist__one_step,
    .setup = setup,
    .start = start,
    .progress = progress,
    .destroy = destroy,
    .packs = 1,
};
