/* bench_plan: plan cost must not grow with the number of elements.
 *
 * For fixed blocks and grids, builds every rank's messages (the pure part of
 * redist_plan_create: pattern, run groups, N-D messages) for a small and a huge array and
 * prints the time ratio and the number of run groups stored. No MPI launch is needed and
 * no array is allocated, so 10^10 elements are fine.
 *
 *   build/bench_plan [--reps R]
 */
#include "index/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct pair_spec {
    const char *name;
    int ndims;
    int64_t small[2], large[2];
    int64_t sblock[2], dblock[2];
    int sgrid[2], dgrid[2];
} pair_spec;

static const pair_spec cases[] = {
    {"1-D cyclic(3) on 4 -> cyclic(7) on 5", 1, {1000000}, {10000000000LL}, {3}, {7}, {4}, {5}},
    {"1-D cyclic(1) on 4 -> cyclic(3) on 4", 1, {1000000}, {10000000000LL}, {1}, {3}, {4}, {4}},
    {"1-D block 64 on 8 -> cyclic(5) on 3", 1, {1000000}, {10000000000LL}, {64}, {5}, {8}, {3}},
    {"2-D 36x36 on 2x2 -> 128x128 on 2x2",
     2,
     {1000, 1000},
     {100000, 100000},
     {36, 36},
     {128, 128},
     {2, 2},
     {2, 2}},
    {"2-D 32x32 on 1x2 -> 48x48 on 2x2",
     2,
     {1000, 1000},
     {100000, 100000},
     {32, 32},
     {48, 48},
     {1, 2},
     {2, 2}},
};

/* Seconds to build the messages of every rank; *runs gets the run groups stored. */
static double build_all(const pair_spec *c, const int64_t extent[], int reps, int64_t *runs)
{
    redist_layout s = NULL, d = NULL;
    redist_layout_create(c->ndims, extent, c->sblock, c->sgrid, NULL, NULL, REDIST_COL_MAJOR, &s);
    redist_layout_create(c->ndims, extent, c->dblock, c->dgrid, NULL, NULL, REDIST_COL_MAJOR, &d);
    int nranks = s->nprocs > d->nprocs ? s->nprocs : d->nprocs;
    double best = 1e30;
    for (int rep = 0; rep < reps; rep++) {
        double t0 = now();
        *runs = 0;
        for (int r = 0; r < nranks; r++) {
            redist__side send, recv;
            redist__msg self;
            int has_self = 0;
            if (redist__sides_create(s, d, r, &send, &recv, &self, &has_self) != 0) {
                fprintf(stderr, "bench_plan: %s: building messages failed\n", c->name);
                exit(1);
            }
            *runs += redist__side_runs(&send) + redist__side_runs(&recv);
            redist__side_free(&send);
            redist__side_free(&recv);
            if (has_self)
                redist__msg_free(&self);
        }
        double t = now() - t0;
        best = t < best ? t : best;
    }
    redist_layout_free(&s);
    redist_layout_free(&d);
    return best;
}

static double elements(const int64_t *e, int n)
{
    double x = 1;
    for (int i = 0; i < n; i++)
        x *= (double)e[i];
    return x;
}

int main(int argc, char **argv)
{
    int reps = 20;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = atoi(argv[++i]);
    printf("plan build time (all ranks' messages, best of %d) for a small and a huge array\n",
           reps);
    printf("%-40s %10s %10s %10s %10s %8s %8s\n", "case", "elements", "time", "elements", "time",
           "ratio", "runs");
    int worst_ok = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const pair_spec *c = &cases[i];
        int64_t runs_small = 0, runs_large = 0;
        double ts = build_all(c, c->small, reps, &runs_small);
        double tl = build_all(c, c->large, reps, &runs_large);
        double ratio = tl / ts;
        worst_ok &= ratio <= 2.0;
        printf("%-40s %10.0e %8.1fus %10.0e %8.1fus %8.2f %4lld/%lld\n", c->name,
               elements(c->small, c->ndims), ts * 1e6, elements(c->large, c->ndims), tl * 1e6,
               ratio, (long long)runs_small, (long long)runs_large);
    }
    printf("%s\n", worst_ok ? "every ratio within 2x" : "some ratio above 2x");
    return 0;
}
