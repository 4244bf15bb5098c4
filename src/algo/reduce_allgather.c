/* reduce-allgather: partial sums in two phases, as an all-reduce is a reduce-scatter and an
 * all-gather (MPICH's and Open MPI's large-message all-reduce; [GGKK03]'s all-reduce). Phase
 * 1 reduces the source's partial values into a middle layout that holds each element once,
 * spread over every rank of the plan (slabs of the longest dimension: rank r holds slab r),
 * with reduce-direct; phase 2 moves the reduced middle to every destination holder with the
 * best plain algorithm (auto), alpha and beta applied there. Where the destination is
 * replicated (Partial -> Replicate), each rank then receives about (P - 1)/P of the array in
 * each phase, instead of (P - 1) partial copies of it with reduce-direct. Cost:
 *   2 (T_d + (P - 1) T_m) + 2 (P - 1)/P L (tau_d + 2 c) + L c,
 * L the most bytes a rank holds (its destination, replicated: the whole array), c a byte's
 * copy (packing, unpacking, the reduction's pass). The middle arrays are allocated at plan
 * time (algo/phases.c).
 */
#include "algo/algo.h"
#include "algo/phases.h"

static int applicable(const redist__case *c)
{
    return c->s.reduce ? REDIST_SUCCESS : REDIST_ERR_NOT_APPLICABLE;
}

static int steps(const redist__case *c, const redist__machine *m, const redist_options *opt)
{
    (void)c, (void)m, (void)opt;
    return 2;
}

static double predict(const redist__case *c, const redist__machine *m, const redist_options *opt,
                      int transport)
{
    (void)opt, (void)transport;
    double P = (double)c->t.comm_size, L = (double)c->t.max_local_bytes;
    double share = P > 1 ? (P - 1.0) / P : 0.0;
    return 2.0 * (m->startup + m->per_message * (P - 1.0)) +
           2.0 * share * L * (m->per_byte + 2.0 * m->copy_per_byte) + L * m->copy_per_byte;
}

/* The middle layout: along the longest dimension, rank r of `size` holds slab r (sizes as
   even as the extent allows), the whole extent along the others. */
static int middle_layout(const struct redist_layout_s *src, int size, redist_layout *out)
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

/* Collective: every rank makes the same calls (the layouts are the same everywhere). */
static int setup(struct redist_plan_s *p)
{
    redist_layout mid[1] = {NULL};
    int err = middle_layout(p->src, p->size, &mid[0]);
    const char *names[2] = {"reduce-direct", "auto"};
    redist__phases *ph = NULL;
    int rc = redist__phases_create(p, err == REDIST_SUCCESS ? 2 : 1, mid, names, -1, 0, &ph);
    p->algo_state = ph;
    return err != REDIST_SUCCESS ? err : rc;
}

const redist__algorithm redist__algo_reduce_allgather = {
    .name = "reduce-allgather",
    .applicable = applicable,
    .why_not = "needs options.reduce (partial sums)",
    .steps = steps,
    .predict = predict,
    .transports = REDIST__T_PACK,
    .setup = setup,
    REDIST__PHASES_RUN,
    .dry_needs_buffers = 1,
    .reduces = 1,
};
