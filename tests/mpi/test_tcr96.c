/* threads: 3 4 */
/* [TCR96] on real data: cyclic(x) -> cyclic(y) for every x, y in 1..12 on all P ranks,
 * with general, ky-to-y, x-to-kx, gcd and lcm, each with the synchronous and the
 * asynchronous receive method, N with partial blocks and smaller than one block, first
 * coordinate 0 or not. Then N-D arrays "dimension by dimension" (§2): 2-D and 3-D, every
 * dimension's blocks changing at once, grids from the factors of P, first coordinates not
 * 0, both storage orders on either side, ranks in reverse order. Every element checked;
 * ky-to-y and x-to-kx must say NOT_APPLICABLE (on every rank) exactly when some dimension's
 * x is not a multiple of its y, or y of x; general, gcd and lcm always apply.
 */
#include <redist.h>

#include "support/mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

static double value_of(int64_t g)
{
    return (double)g * 3.0 + 1.0;
}

static const char *const algorithms[] = {"general", "ky-to-y", "x-to-kx", "gcd", "lcm"};

/* Plans algorithms[i] (receive method sync), checks that it refuses exactly when expect_na,
   and runs it once into b (pre-filled with -1; execute, or start and test). Returns 0 if it
   refused, else 1 with *rc the execution's code. */
static int plan_and_run(redist_layout src, redist_layout dst, int i, int sync, int expect_na,
                        const double *a, double *b, int64_t nb, int rank, const char *label,
                        int *rc)
{
    redist_options opt;
    redist_options_init(&opt);
    opt.algorithm = algorithms[i];
    opt.synchronous_receive = sync;
    redist_plan plan = NULL;
    *rc = redist_plan_create(src, dst, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan);
    if (expect_na != (*rc == REDIST_ERR_NOT_APPLICABLE)) {
        errs++;
        printf("[%d] %s %s: plan_create %d (%s), expected %s\n", rank, label, opt.algorithm, *rc,
               redist_strerror(*rc), expect_na ? "NOT_APPLICABLE" : "success");
    }
    if (*rc != REDIST_SUCCESS)
        return 0;
    for (int64_t l = 0; l < nb; l++)
        b[l] = -1.0;
    if ((i + sync) % 2) {
        *rc = redist_start(plan, a, nb ? b : NULL);
        int done = 0;
        while (*rc == REDIST_SUCCESS && !done)
            *rc = redist_test(plan, &done);
    } else {
        *rc = redist_execute(plan, a, nb ? b : NULL);
    }
    redist_plan_free(&plan);
    return 1;
}

static void report(int rank, const char *label, int i, int sync, int rc, int64_t bad)
{
    if (rc == REDIST_SUCCESS && bad == 0)
        return;
    errs++;
    printf("[%d] %s %s sync=%d: rc %d, %lld wrong\n", rank, label, algorithms[i], sync, rc,
           (long long)bad);
}

static void run_case(int64_t n, int64_t x, int64_t y, int first, int rank, int P)
{
    redist_layout src = NULL, dst = NULL;
    int grid = P;
    redist_layout_create(1, &n, &x, &grid, &first, NULL, REDIST_ROW_MAJOR, &src);
    redist_layout_create(1, &n, &y, &grid, &first, NULL, REDIST_ROW_MAJOR, &dst);
    int64_t ns = 0, nd = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &nd);
    double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(nd + 1) * sizeof *b);
    for (int64_t l = 0; l < ns; l++)
        a[l] = value_of(mtest_global_of(l, x, P, first, rank));
    char label[96];
    snprintf(label, sizeof label, "n=%lld x=%lld y=%lld first=%d", (long long)n, (long long)x,
             (long long)y, first);
    for (int i = 0; i < 5; i++)
        for (int sync = 0; sync < 2; sync++) {
            int rc, expect_na = (i == 1 && x % y != 0) || (i == 2 && y % x != 0);
            if (!plan_and_run(src, dst, i, sync, expect_na, a, b, nd, rank, label, &rc))
                continue;
            int64_t bad = 0;
            for (int64_t l = 0; l < nd; l++)
                bad += b[l] != value_of(mtest_global_of(l, y, P, first, rank));
            report(rank, label, i, sync, rc, bad);
        }
    free(a);
    free(b);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

/* Fills (check = 0) or counts the wrong elements of (check = 1) this rank's local array of
   layout l: element = value_of(global row-major index). */
static int64_t walk_nd(redist_layout l, int nd, const int64_t *n, const int64_t *b, const int *grid,
                       const int *first, int order, int rank, double *a, int check)
{
    int64_t count = 0, shape[3] = {1, 1, 1}, bad = 0;
    int coords[3] = {0, 0, 0};
    redist_layout_local_size(l, rank, &count);
    if (count == 0 || redist_layout_coords(l, rank, coords) != 1)
        return 0;
    redist_layout_local_shape(l, rank, shape);
    for (int64_t i = 0; i < count; i++) {
        int64_t g = mtest_global_linear(nd, n, b, grid, first, order, shape, coords, i);
        if (check)
            bad += a[i] != value_of(g);
        else
            a[i] = value_of(g);
    }
    return bad;
}

static void run_nd(int nd, const int64_t *n, const int *grid, const int *first, const int64_t *x,
                   const int64_t *y, int order_src, int order_dst, int reverse, int rank, int P)
{
    int ranks[64];
    for (int i = 0; i < P; i++)
        ranks[i] = reverse ? P - 1 - i : i;
    redist_layout src = NULL, dst = NULL;
    redist_layout_create(nd, n, x, grid, first, ranks, order_src, &src);
    redist_layout_create(nd, n, y, grid, first, ranks, order_dst, &dst);
    int64_t ns = 0, ndst = 0;
    redist_layout_local_size(src, rank, &ns);
    redist_layout_local_size(dst, rank, &ndst);
    double *a = malloc((size_t)(ns + 1) * sizeof *a), *b = malloc((size_t)(ndst + 1) * sizeof *b);
    walk_nd(src, nd, n, x, grid, first, order_src, rank, a, 0);
    int ky = 1, xk = 1;
    for (int k = 0; k < nd; k++) {
        ky &= x[k] % y[k] == 0;
        xk &= y[k] % x[k] == 0;
    }
    char label[160];
    snprintf(
        label, sizeof label, "%dD n=%lldx%lldx%lld x=%lldx%lldx%lld y=%lldx%lldx%lld orders %d/%d",
        nd, (long long)n[0], (long long)n[1], (long long)n[2], (long long)x[0], (long long)x[1],
        (long long)x[2], (long long)y[0], (long long)y[1], (long long)y[2], order_src, order_dst);
    for (int i = 0; i < 5; i++)
        for (int sync = 0; sync < 2; sync++) {
            int rc, expect_na = (i == 1 && !ky) || (i == 2 && !xk);
            if (!plan_and_run(src, dst, i, sync, expect_na, ns ? a : NULL, b, ndst, rank, label,
                              &rc))
                continue;
            int64_t bad = walk_nd(dst, nd, n, y, grid, first, order_dst, rank, b, 1);
            report(rank, label, i, sync, rc, bad);
        }
    free(a);
    free(b);
    redist_layout_free(&src);
    redist_layout_free(&dst);
}

/* N-D cases: block pairs from a small set (ratios in both directions, equal, neither), each
   dimension changing, extents with partial blocks. */
static void nd_cases(int rank, int P)
{
    static const int64_t blocks[][2] = {{1, 3}, {6, 2}, {4, 4}, {2, 5}, {12, 1}, {3, 9}};
    unsigned seed = 12345;
    for (int t = 0; t < 24; t++) {
        int nd = 2 + t % 2, grid[3] = {P, 1, 1}, first[3] = {0, 0, 0};
        if (P % 2 == 0 && t % 3) /* a 2 x P/2 (x 1) grid */
            grid[0] = 2, grid[1] = P / 2;
        int64_t n[3] = {1, 1, 1}, x[3] = {1, 1, 1}, y[3] = {1, 1, 1};
        for (int k = 0; k < nd; k++) {
            seed = seed * 1103515245u + 12345u;
            int pick = (int)((seed >> 16) % 6);
            int flip = (int)((seed >> 8) % 2);
            x[k] = blocks[pick][flip], y[k] = blocks[pick][1 - flip];
            /* all-ratio pairs on even t, so ky-to-y or x-to-kx applies to every dimension */
            if (t % 2 == 0 && x[k] % y[k] && y[k] % x[k])
                y[k] = x[k] * 2;
            n[k] = (nd == 2 ? 23 : 9) + (int64_t)((seed >> 4) % 7);
            first[k] = grid[k] > 1 ? grid[k] - 1 : 0;
        }
        run_nd(nd, n, grid, first, x, y, t % 4 < 2 ? REDIST_ROW_MAJOR : REDIST_COL_MAJOR,
               t % 3 == 0 ? REDIST_COL_MAJOR : REDIST_ROW_MAJOR, t % 5 == 0, rank, P);
        if (t % 2 == 0) { /* the same with the roles swapped: the other ratio algorithm */
            run_nd(nd, n, grid, first, y, x, REDIST_ROW_MAJOR, REDIST_ROW_MAJOR, t % 5 == 1, rank,
                   P);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int64_t x = 1; x <= 12; x++)
        for (int64_t y = 1; y <= 12; y++) {
            int64_t big = x * y * P * 3 + x + 1, small = (x < y ? x : y) - 1;
            run_case(big, x, y, 0, rank, P);
            run_case(small > 0 ? small : 1, x, y, P > 1 ? 1 : 0, rank, P);
        }
    nd_cases(rank, P);
    return mtest_finalize(errs);
}
