/* Sequences of redistributions (phases.h). */
#include "algo/phases.h"
#include "algo/algo.h"

#include <stdlib.h>
#include <string.h>

struct redist__phases {
    int n, current;
    redist_plan plan[REDIST__MAX_PHASES];
    redist_layout mid[REDIST__MAX_PHASES]; /* mid[0 .. n-2] */
    char *buf[REDIST__MAX_PHASES];         /* their local arrays */
    int on_device; /* device plans: buf[] is device memory the plan owns (staging_array) */
};

void redist__phases_free(redist__phases *ph)
{
    if (ph == NULL)
        return;
    for (int i = 0; i < REDIST__MAX_PHASES; i++) {
        redist_plan_free(&ph->plan[i]);
        redist_layout_free(&ph->mid[i]);
        if (!ph->on_device)
            redist__free(ph->buf[i]);
    }
    redist__free(ph);
}

int redist__phases_create(struct redist_plan_s *p, int n, redist_layout mid[],
                          const char *const names[], int d, int synchronous_receive,
                          redist__phases **out)
{
    redist__phases *ph = redist__calloc(1, sizeof *ph);
    *out = ph;
    int err = ph != NULL && n >= 1 && n <= REDIST__MAX_PHASES ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    if (ph != NULL) /* a device plan's phases are device plans: the middle stays on the device */
        ph->on_device = p->device != NULL;
    for (int i = 0; i + 1 < n; i++) {
        int64_t count = 0;
        if (ph != NULL)
            ph->mid[i] = mid[i];
        else
            redist_layout_free(&mid[i]);
        if (ph == NULL || mid[i] == NULL)
            continue;
        redist_layout_local_size(ph->mid[i], p->rank, &count);
        size_t bytes = (size_t)count * p->elsize + 1;
        ph->buf[i] =
            ph->on_device ? redist__staging_array(p, bytes) : redist__plan_buffer(p, bytes);
        if (ph->buf[i] == NULL)
            err = REDIST_ERR_NOMEM;
    }
    if (ph != NULL)
        ph->n = n;
    for (int i = 0; i < n; i++) { /* every rank creates every phase, whatever happened */
        redist_options opt;
        redist_options_init(&opt);
        opt.algorithm = names[i];
        opt.hybrid_degree = d;
        opt.synchronous_receive = synchronous_receive;
        opt.check_arguments = 0;
        /* a device plan's phases are device plans on every rank: p->opt.memory is agreed,
           p->device is only whether this rank has a backend */
        if (p->opt.memory != REDIST_MEMORY_HOST) {
            opt.memory = p->opt.memory;
            opt.stream = p->opt.stream;
        }
        if (i == 0) /* the first phase reads the source: partial values, if they are */
            opt.reduce = p->opt.reduce;
        if (i == n - 1) { /* the last phase writes the destination: it scales */
            memcpy(opt.alpha, p->opt.alpha, sizeof opt.alpha);
            memcpy(opt.beta, p->opt.beta, sizeof opt.beta);
            opt.conjugate = p->opt.conjugate;
        }
        redist_layout from = i == 0 ? p->src : ph ? ph->mid[i - 1] : NULL;
        redist_layout to = i == n - 1 ? p->dst : ph ? ph->mid[i] : NULL;
        redist_plan tmp = NULL;
        int rc = redist__plan_create_child(p, from, to, &opt, err, ph ? &ph->plan[i] : &tmp);
        if (rc != REDIST_SUCCESS && err == REDIST_SUCCESS)
            err = rc;
        redist_plan_free(&tmp);
    }
    return err;
}

static int start_phase(struct redist_plan_s *p, redist__phases *ph)
{
    int i = ph->current;
    const void *from = i == 0 ? (const void *)p->cur_src : ph->buf[i - 1];
    void *to = i == ph->n - 1 ? (void *)p->cur_dst : ph->buf[i];
    /* A dry outer execution (bad buffers on this rank) runs every phase dry: the phases'
       plans do not agree on arguments themselves (check_arguments 0), so a phase that
       refused the buffers would leave the other ranks waiting for its messages. */
    return redist__start_inner(ph->plan[i], from, to, p->dry);
}

int redist__phases_start(struct redist_plan_s *p, redist__phases *ph)
{
    ph->current = 0;
    return start_phase(p, ph);
}

int redist__phases_progress(struct redist_plan_s *p, redist__phases *ph, int blocking, int *done)
{
    *done = 0;
    while (ph->current < ph->n) {
        int phase_done = 1, err = blocking ? redist_wait(ph->plan[ph->current])
                                           : redist_test(ph->plan[ph->current], &phase_done);
        if (err != REDIST_SUCCESS)
            return err;
        if (!phase_done)
            return REDIST_SUCCESS;
        if (++ph->current < ph->n && (err = start_phase(p, ph)) != REDIST_SUCCESS)
            return err;
    }
    *done = 1;
    return REDIST_SUCCESS;
}

void redist__phases_stats(const redist__phases *ph, redist_stats *st)
{
    st->messages_sent = st->messages_received = 0;
    st->bytes_sent = st->bytes_received = st->bytes_copied = 0;
    for (int i = 0; ph != NULL && i < ph->n; i++) {
        redist_stats s;
        redist_plan_stats(ph->plan[i], &s);
        st->messages_sent += s.messages_sent;
        st->messages_received += s.messages_received;
        st->bytes_sent += s.bytes_sent;
        st->bytes_received += s.bytes_received;
        st->bytes_copied += s.bytes_copied;
        st->buffer_bytes += s.buffer_bytes;
    }
}

int redist__phases_plan_start(struct redist_plan_s *p)
{
    return redist__phases_start(p, p->algo_state);
}

int redist__phases_plan_progress(struct redist_plan_s *p, int blocking, int *done)
{
    return redist__phases_progress(p, p->algo_state, blocking, done);
}

void redist__phases_plan_destroy(struct redist_plan_s *p)
{
    redist__phases_free(p->algo_state);
    p->algo_state = NULL;
}

void redist__phases_plan_stats(const struct redist_plan_s *p, redist_stats *st)
{
    redist__phases_stats(p->algo_state, st);
}

int redist__slab_layout(const struct redist_layout_s *src, int size, redist_layout *out)
{
    int d = src->ndims, longest = 0;
    for (int k = 1; k < d; k++)
        longest = src->extent[k] > src->extent[longest] ? k : longest;
    int64_t *lo = redist__malloc((size_t)size * (size_t)d * sizeof *lo);
    int64_t *hi = redist__malloc((size_t)size * (size_t)d * sizeof *hi);
    int err = lo != NULL && hi != NULL ? REDIST_SUCCESS : REDIST_ERR_NOMEM;
    int64_t n = src->extent[longest];
    for (int r = 0; err == REDIST_SUCCESS && r < size; r++)
        for (int k = 0; k < d; k++) {
            int64_t *l = lo + (size_t)r * (size_t)d + k, *h = hi + (size_t)r * (size_t)d + k;
            *l = k == longest ? n / size * r + (r < n % size ? r : n % size) : 0;
            *h = k == longest ? *l + n / size + (r < n % size) : src->extent[k];
        }
    if (err == REDIST_SUCCESS)
        err = redist_layout_create_boxes(d, src->extent, size, lo, hi, src->order, out);
    redist__free(lo);
    redist__free(hi);
    return err;
}

int redist__phases_traffic(redist_layout src, const redist_layout mid[], int n, redist_layout dst,
                           int64_t elsize, redist__traffic_summary *out)
{
    int *members = NULL, nmembers = 0;
    int err = redist__member_ranks(src, dst, &members, &nmembers);
    *out = (redist__traffic_summary){0};
    for (int k = 0; err == REDIST_SUCCESS && k < nmembers; k++) {
        int64_t msgs = 0, bytes = 0;
        for (int i = 0; err == REDIST_SUCCESS && i < n; i++) {
            redist__rank_traffic t;
            err = redist__rank_traffic_compute(i == 0 ? src : mid[i - 1], i == n - 1 ? dst : mid[i],
                                               members[k], elsize, &t);
            msgs += t.messages_sent;
            bytes += t.bytes_sent;
        }
        out->max_messages_per_rank =
            msgs > out->max_messages_per_rank ? msgs : out->max_messages_per_rank;
        out->max_bytes_per_rank = bytes > out->max_bytes_per_rank ? bytes : out->max_bytes_per_rank;
        out->total_messages += msgs;
        out->total_bytes += bytes;
    }
    redist__free(members);
    return err;
}

int redist__slab_phases_steps(const redist__case *c, const redist__machine *m,
                              const redist_options *opt)
{
    (void)c, (void)m, (void)opt;
    return 2;
}

/* Collective: every rank makes the same calls (the layouts are the same everywhere). */
int redist__slab_phases_setup(struct redist_plan_s *p, const char *first, const char *second)
{
    redist_layout mid[1] = {NULL};
    int err = redist__slab_layout(p->src, p->size, &mid[0]);
    const char *names[2] = {first, second};
    redist__phases *ph = NULL;
    int rc = redist__phases_create(p, err == REDIST_SUCCESS ? 2 : 1, mid, names, -1, 0, &ph);
    p->algo_state = ph;
    return err != REDIST_SUCCESS ? err : rc;
}

int redist__slab_phases_explain(const redist__case *c, const redist__machine *m,
                                const redist_options *opt, redist__traffic_summary *out)
{
    (void)m, (void)opt;
    redist_layout mid[1] = {NULL};
    int err = redist__slab_layout(c->src, c->t.comm_size, &mid[0]);
    if (err == REDIST_SUCCESS)
        err = redist__phases_traffic((redist_layout)c->src, mid, 2, (redist_layout)c->dst,
                                     (int64_t)c->t.elsize, out);
    redist_layout_free(&mid[0]);
    return err;
}
