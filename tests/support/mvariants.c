/* Every variant of a plan over one pair of layouts (mvariants.h). */
#include "support/mvariants.h"

#include <stdlib.h>
#include <string.h>

#include "support/mdevice.h"
#include "support/mtest.h"

/* Executes k so far (REDIST_TEST_MEMORY=auto: which arrays are on the device). */
static int nexec;

/* Two runs of one plan (execute, then start + test): 1 if any element came out wrong. */
static int run_plan(redist_plan plan, const mtest_case_io *io, void *da, void *db, int me,
                    const char *name, int index, int ai, int *errs)
{
    size_t abytes = (size_t)io->na * sizeof(double), bbytes = (size_t)io->nb * sizeof(double);
    for (int run = 0; run < 2; run++) {
        if (io->a)
            io->fill(io->ctx, io->a);
        for (int64_t i = 0; i < io->nb; i++)
            io->b[i] = -1.0;
        int sd = mtest_on_device(nexec, 0), dd = mtest_on_device(nexec++, 1);
        void *x = mtest_device_in(io->a, da, abytes, sd),
             *y = mtest_device_in(io->b, db, bbytes, dd);
        int rc;
        if (run == 0) {
            rc = redist_execute(plan, x, y);
        } else {
            int done = 0;
            rc = redist_start(plan, x, y);
            while (rc == REDIST_SUCCESS && !done)
                rc = redist_test(plan, &done);
        }
        mtest_device_out(io->b, db, bbytes, dd);
        int64_t bad = rc != REDIST_SUCCESS ? 1 : io->check(io->ctx, io->b);
        if (bad)
            mtest_fail(errs, me, name, "case %d (variant %d) run %d: %s, %lld wrong", index, ai,
                       run, redist_strerror(rc), (long long)bad);
        if (!mtest_all_same(bad != 0) || bad) /* every rank leaves together */
            return 1;
    }
    return 0;
}

int mtest_every_variant(redist_layout src, redist_layout dst, const mtest_case_io *io, int index,
                        int *errs)
{
    int me = 0, plans = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    size_t abytes = (size_t)io->na * sizeof(double), bbytes = (size_t)io->nb * sizeof(double);
    void *da = mtest_device_alloc(abytes), *db = mtest_device_alloc(bbytes); /* device twins */
    int memory = mtest_test_memory(), nalg = redist_algorithm_count();
    for (int ai = -1; ai < nalg + 4; ai++) {
        redist_options opt;
        const char *name = mtest_variant(ai, &opt);
        opt.memory = memory;
        opt.permutation = io->perm;
        opt.reduce = io->reduce;
        int partial = io->reduce != MPI_OP_NULL;
        if (io->scaled && ai == nalg + 1)
            continue; /* the datatype transport does not scale (REDIST_ERR_ARG) */
        if (io->scaled) {
            opt.alpha[0] = io->alpha;
            opt.beta[0] = io->beta;
        }
        if (partial && ai >= nalg)
            break; /* bounded and the transports' variants: the reducing algorithms have none */
        if (partial && memory != REDIST_MEMORY_HOST) { /* partial sums reduce on the host */
            redist_plan plan = NULL;
            int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
            if (rc != REDIST_ERR_UNSUPPORTED || !mtest_all_same(rc))
                mtest_fail(errs, me, name,
                           "case %d: reduce with device memory: %s, not "
                           "UNSUPPORTED on every rank",
                           index, redist_error_name(rc));
            redist_plan_free(&plan);
            break;
        }
        redist_plan plan = NULL;
        int rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
        if (!mtest_all_same(rc))
            mtest_fail(errs, me, name, "case %d: plan_create returned different codes", index);
        if (mtest_device_refused(errs, me, name, index, ai == nalg + 1, rc, &plan))
            continue; /* device plans pack */
        if (partial && strcmp(name, "auto") != 0 && strncmp(name, "reduce-", 7) != 0 &&
            rc != REDIST_ERR_NOT_APPLICABLE) {
            mtest_fail(errs, me, name, "case %d: a partial source: %s, not NOT_APPLICABLE", index,
                       redist_error_name(rc));
            redist_plan_free(&plan);
            continue;
        }
        if (rc == REDIST_ERR_NOT_APPLICABLE && ai >= 0 && ai < nalg)
            continue;
        if (rc != REDIST_SUCCESS) {
            mtest_fail(errs, me, name, "case %d: plan_create: %s (%s)", index, redist_strerror(rc),
                       redist_last_error_detail());
            continue;
        }
        plans++;
        run_plan(plan, io, da, db, me, name, index, ai, errs);
        redist_plan_free(&plan);
    }
    mtest_device_free(da);
    mtest_device_free(db);
    return plans;
}

double mtest_value_of(int nd, const int64_t g[])
{
    double v = 1;
    for (int k = 0; k < nd; k++)
        v = v * 1000.0 + (double)g[k];
    return v;
}

int64_t mtest_oracle_walk(int nd, const int64_t extent[], const int64_t stride[],
                          int (*locate)(const void *ctx, int k, int64_t g, int64_t *local),
                          const void *ctx, const int *perm, double *a, int check)
{
    return mtest_oracle_walk_weighted(nd, extent, stride, locate, NULL, 0.0, ctx, perm, a, check);
}

int64_t mtest_oracle_walk_weighted(int nd, const int64_t extent[], const int64_t stride[],
                                   int (*locate)(const void *ctx, int k, int64_t g, int64_t *local),
                                   double (*weight)(const void *ctx, const int64_t g[]),
                                   double shift, const void *ctx, const int *perm, double *a,
                                   int check)
{
    int64_t total = 1, bad = 0;
    int64_t *h = malloc(2 * (size_t)nd * sizeof *h), *g = h + nd;
    for (int k = 0; k < nd; k++)
        total *= extent[k];
    for (int64_t lin = 0; lin < total; lin++) {
        int64_t off = 0, rest = lin;
        int in = 1;
        for (int k = nd - 1; k >= 0; k--) {
            h[k] = rest % extent[k];
            rest /= extent[k];
        }
        for (int k = 0; k < nd && in; k++) {
            int64_t l = 0;
            in = locate(ctx, k, h[k], &l);
            off += l * stride[k];
        }
        if (!in)
            continue;
        for (int j = 0; j < nd; j++)
            g[perm != NULL ? perm[j] : j] = h[j];
        double want = mtest_value_of(nd, g) * (weight != NULL ? weight(ctx, g) : 1.0) + shift;
        if (!check)
            a[off] = want;
        else if (a[off] != want)
            bad++;
    }
    free(h);
    return bad;
}
