/* bench_boxes_plan: planning boxes costs what planning the same blocks costs.
 *
 * A 3-D pencil transpose over 2^16 ranks (x-pencils on a 256 x 256 grid -> y-pencils), once
 * as block distributions (redist_layout_create, one block per process along the split
 * dimensions) and once as the same boxes (redist_layout_create_boxes). For each, the time one
 * rank spends planning without MPI, as redist_plan_create does: its copies of both layouts
 * and its messages (redist__sides_create: the sweep over the boxes, or the grids' patterns),
 * the median over sample ranks and the ratio boxes / blocks; and, apart, the time to create
 * the two layouts (once per program: the boxes' index). No MPI launch and no array: the pure
 * part of redist_plan_create, as bench_plan measures it for grids.
 *
 *   build/bench_boxes_plan [--side Q] [--n N] [--samples S]   (Q x Q ranks, N^3 elements)
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

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The pencil along `axis` of rank r on a q x q grid over the other two dimensions (block
   distribution, the first blocks one larger where n % q != 0). */
static void pencil(int64_t n, int q, int axis, int r, int64_t lo[3], int64_t hi[3])
{
    int c[2] = {r / q, r % q}, j = 0;
    for (int k = 0; k < 3; k++) {
        if (k == axis) {
            lo[k] = 0, hi[k] = n;
            continue;
        }
        int64_t b = (n + q - 1) / q, at = c[j++] * b;
        lo[k] = at < n ? at : n;
        hi[k] = at + b < n ? at + b : n;
    }
}

static int make_boxes(int64_t n, int q, int axis, redist_layout *out)
{
    int P = q * q;
    int64_t *lo = malloc((size_t)P * 3 * sizeof *lo), *hi = malloc((size_t)P * 3 * sizeof *hi);
    int64_t extent[3] = {n, n, n};
    for (int r = 0; lo && hi && r < P; r++)
        pencil(n, q, axis, r, lo + 3 * r, hi + 3 * r);
    int err = lo && hi ? redist_layout_create_boxes(3, extent, P, lo, hi, REDIST_ROW_MAJOR, out)
                       : REDIST_ERR_NOMEM;
    free(lo);
    free(hi);
    return err;
}

static int make_blocks(int64_t n, int q, int axis, redist_layout *out)
{
    int64_t extent[3] = {n, n, n}, block[3];
    int grid[3];
    for (int k = 0; k < 3; k++) {
        grid[k] = k == axis ? 1 : q;
        block[k] = k == axis ? n : (n + q - 1) / q;
    }
    return redist_layout_create(3, extent, block, grid, NULL, NULL, REDIST_ROW_MAJOR, out);
}

/* Seconds one rank plans, as redist_plan_create does without MPI: its copies of the two
   layouts, then its messages. */
static double plan_rank(redist_layout src, redist_layout dst, int rank, int64_t *msgs)
{
    double t0 = now();
    struct redist_layout_s *s = redist__layout_copy(src), *d = redist__layout_copy(dst);
    redist__side send, recv;
    redist__msg self;
    int has_self = 0;
    int err = s && d ? redist__sides_create(s, d, rank, &send, &recv, &self, &has_self)
                     : REDIST_ERR_NOMEM;
    double t = now() - t0;
    if (err != REDIST_SUCCESS) {
        fprintf(stderr, "bench_boxes_plan: %s (%s)\n", redist_error_name(err),
                redist_last_error_detail());
        exit(1);
    }
    *msgs = send.nmsgs + recv.nmsgs + has_self;
    redist__side_free(&send);
    redist__side_free(&recv);
    if (has_self)
        redist__msg_free(&self);
    redist_layout_free(&s);
    redist_layout_free(&d);
    return t;
}

int main(int argc, char **argv)
{
    int q = 256, samples = 16;
    int64_t n = 4096;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--side"))
            q = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            n = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--samples"))
            samples = atoi(argv[i + 1]);
    }
    int P = q * q;
    double *t[2], made[2];
    int64_t msgs[2] = {0, 0};
    for (int kind = 0; kind < 2; kind++) {
        redist_layout src = NULL, dst = NULL;
        double t0 = now();
        int err = kind ? make_boxes(n, q, 0, &src) : make_blocks(n, q, 0, &src);
        if (err == REDIST_SUCCESS)
            err = kind ? make_boxes(n, q, 1, &dst) : make_blocks(n, q, 1, &dst);
        made[kind] = now() - t0;
        if (err != REDIST_SUCCESS) {
            fprintf(stderr, "bench_boxes_plan: %s\n", redist_last_error_detail());
            return 1;
        }
        t[kind] = malloc((size_t)samples * sizeof *t[kind]);
        for (int s = 0; s < samples; s++) {
            int rank = (int)((int64_t)s * (P - 1) / (samples > 1 ? samples - 1 : 1));
            t[kind][s] = plan_rank(src, dst, rank, &msgs[kind]);
        }
        qsort(t[kind], (size_t)samples, sizeof *t[kind], compare_double);
        redist_layout_free(&src);
        redist_layout_free(&dst);
    }
    double blocks = t[0][samples / 2], boxes = t[1][samples / 2];
    printf("x-pencils -> y-pencils of %lld^3 elements over %d x %d = %d ranks, median of %d "
           "ranks\n",
           (long long)n, q, q, P, samples);
    printf("  planning one rank (the plan's layout copies and its messages):\n");
    printf("    blocks (redist_layout_create)        %10.3f ms, %lld messages\n", blocks * 1e3,
           (long long)msgs[0]);
    printf("    boxes  (redist_layout_create_boxes)  %10.3f ms, %lld messages\n", boxes * 1e3,
           (long long)msgs[1]);
    printf("    boxes / blocks                       %10.2fx\n", boxes / blocks);
    printf("  creating the two layouts, once per program (the boxes' index: hashes, sorts):\n");
    printf("    blocks %.3f ms, boxes %.3f ms\n", made[0] * 1e3, made[1] * 1e3);
    free(t[0]);
    free(t[1]);
    return 0;
}
