/* pencil_transpose: the transposes of a parallel 3-D FFT, for users of FFTW-MPI, heFFTe,
 * P3DFFT or 2DECOMP&FFT who want to see (or do) the data movement themselves.
 *
 * An NZ x NY x NX array of doubles, a[z][y][x] with x fastest, is cut into pencils on a
 * P0 x P1 process grid (MPI_Dims_create). A 3-D FFT transforms along one axis at a time, and
 * for that each rank needs whole lines along the axis, stored contiguously:
 *
 *     x-pencils   local a[z][y][x]   z split over P0, y over P1, whole x lines (the input)
 *     y-pencils   local a[z][x][y]   z split over P0, x over P1, whole y lines
 *     z-pencils   local a[y][x][z]   y split over P0, x over P1, whole z lines
 *
 * Each change of pencils is one redist plan between two layouts. The option
 * redist_options.permutation reorders the axes of the local arrays in the same pass (the
 * local transpose that FFT libraries do around their all-to-all). The x -> y transpose only
 * exchanges data within a row of P1 ranks, y -> z within a column of P0 ranks: the plan finds
 * that out by itself (see "messages per rank" in the output).
 *
 * The "FFT" here is a stand-in: along each contiguous line it computes the line's sum (the
 * zero-frequency coefficient) and checks it. Every element holds its global index
 * (z NY + y) NX + x and is checked after each transpose. Each plan is executed -r times and
 * timed.
 *
 *     mpiexec -n 4 build/examples/pencil_transpose [-n NZxNYxNX | -n N] [-r REPEATS]
 */
#include <redist.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every redist function returns REDIST_SUCCESS (0) or a negative REDIST_ERR_* code, the same
   code on every rank for collective calls. An example simply stops on an error. */
static void check(int rc, const char *what)
{
    if (rc == REDIST_SUCCESS)
        return;
    fprintf(stderr, "pencil_transpose: %s: %s (%s)\n", what, redist_strerror(rc),
            redist_last_error_detail());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One pencil decomposition: local dimension j of the array is axis[j] of the global array
   (0 = z, 1 = y, 2 = x), split in blocks over grid[j] ranks; the last one is never split. */
typedef struct {
    const char *name;
    int axis[3];
    int64_t extent[3], block[3];
    int grid[3];
    redist_layout layout;
    int64_t shape[3]; /* this rank's local extents (all 0 if it holds nothing) */
    int coords[3];    /* this rank's grid coordinates */
    double *a;        /* this rank's local array, row-major (dimension 2 fastest) */
} pencils;

static void make_pencils(pencils *p, const char *name, int a0, int a1, int a2, const int64_t n[3],
                         int p0, int p1, int rank)
{
    p->name = name;
    p->axis[0] = a0, p->axis[1] = a1, p->axis[2] = a2;
    p->grid[0] = p0, p->grid[1] = p1, p->grid[2] = 1;
    for (int j = 0; j < 3; j++) {
        p->extent[j] = n[p->axis[j]];
        /* A block distribution is cyclic(b) with b = ceil(extent / grid): one block per rank
           (the last ranks may get fewer elements, or none). */
        p->block[j] = p->extent[j] > 0 ? (p->extent[j] + p->grid[j] - 1) / p->grid[j] : 1;
    }
    check(redist_layout_create(3, p->extent, p->block, p->grid, NULL, NULL, REDIST_ROW_MAJOR,
                               &p->layout),
          "redist_layout_create");
    check(redist_layout_local_shape(p->layout, rank, p->shape), "redist_layout_local_shape");
    if (redist_layout_coords(p->layout, rank, p->coords) != 1) /* every rank is in the grid */
        check(REDIST_ERR_ARG, "redist_layout_coords");
    int64_t count;
    check(redist_layout_local_size(p->layout, rank, &count), "redist_layout_local_size");
    p->a = malloc((size_t)(count > 0 ? count : 1) * sizeof *p->a);
    if (p->a == NULL)
        check(REDIST_ERR_NOMEM, "malloc");
}

/* The value of global element (z, y, x): its index in the global array. */
static double value(const int64_t n[3], const int64_t g[3])
{
    return (double)((g[0] * n[1] + g[1]) * n[2] + g[2]);
}

/* Visits every local element: fills it (fill = 1) or counts the wrong ones. Local index l
   along dimension j is global index coords[j] * block[j] + l (block distribution). */
static int64_t fill_or_check(pencils *p, const int64_t n[3], int fill)
{
    int64_t wrong = 0, i = 0, g[3];
    for (int64_t l0 = 0; l0 < p->shape[0]; l0++)
        for (int64_t l1 = 0; l1 < p->shape[1]; l1++)
            for (int64_t l2 = 0; l2 < p->shape[2]; l2++, i++) {
                g[p->axis[0]] = p->coords[0] * p->block[0] + l0;
                g[p->axis[1]] = p->coords[1] * p->block[1] + l1;
                g[p->axis[2]] = p->coords[2] * p->block[2] + l2;
                if (fill)
                    p->a[i] = value(n, g);
                else
                    wrong += p->a[i] != value(n, g);
            }
    return wrong;
}

/* The stand-in for a 1-D FFT along every local line (the contiguous last dimension): the sum
   of the line, compared with the closed form. A real code would call its FFT here. */
static int64_t fft_stand_in(const pencils *p, const int64_t n[3])
{
    const int64_t len = p->shape[2], stride[3] = {n[1] * n[2], n[2], 1};
    int64_t wrong = 0, g[3];
    for (int64_t l0 = 0; l0 < p->shape[0]; l0++)
        for (int64_t l1 = 0; l1 < p->shape[1]; l1++) {
            const double *line = p->a + (l0 * p->shape[1] + l1) * len;
            double sum = 0;
            for (int64_t k = 0; k < len; k++)
                sum += line[k];
            /* The line starts at global element g (index 0 along the line's axis) and its
               values step by that axis' stride. */
            g[p->axis[0]] = p->coords[0] * p->block[0] + l0;
            g[p->axis[1]] = p->coords[1] * p->block[1] + l1;
            g[p->axis[2]] = 0;
            double expect =
                (double)len * value(n, g) + (double)(stride[p->axis[2]] * (len * (len - 1) / 2));
            wrong += sum != expect;
        }
    return wrong;
}

/* Plans the move from pencils `from` to pencils `to`. permutation[j] is the dimension of
   `from` that becomes dimension j of `to` (numpy's transpose(axes) convention). */
static redist_plan plan_transpose(const pencils *from, const pencils *to)
{
    int permutation[3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++)
            if (from->axis[k] == to->axis[j])
                permutation[j] = k;
    redist_options opt;
    redist_options_init(&opt); /* defaults: algorithm "auto" */
    opt.permutation = permutation;
    redist_plan plan;
    check(redist_plan_create(from->layout, to->layout, MPI_DOUBLE, MPI_COMM_WORLD, &opt, &plan),
          "redist_plan_create");
    return plan;
}

/* Executes the plan `repeats` times and reports the mean time of the slowest rank. */
static void transpose(redist_plan plan, const pencils *from, pencils *to, int repeats, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int r = 0; r < repeats; r++)
        check(redist_execute(plan, from->a, to->a), "redist_execute");
    t = (MPI_Wtime() - t) / repeats;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    redist_stats st;
    check(redist_plan_stats(plan, &st), "redist_plan_stats");
    if (rank == 0)
        printf("  %s -> %s: %s, at most %lld message(s) per rank, %.1f us per transpose\n",
               from->name, to->name, redist_plan_algorithm(plan),
               (long long)st.max_messages_per_rank, t * 1e6);
}

static int usage(int rank, const char *prog)
{
    if (rank == 0)
        fprintf(stderr, "usage: %s [-n NZxNYxNX | -n N] [-r REPEATS]\n", prog);
    MPI_Finalize();
    return 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int64_t n[3] = {24, 20, 16}; /* NZ, NY, NX */
    int repeats = 10;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage(rank, argv[0]);
        long long a, b, c;
        if (strcmp(argv[i], "-n") == 0 && sscanf(argv[i + 1], "%lldx%lldx%lld", &a, &b, &c) == 3)
            n[0] = a, n[1] = b, n[2] = c;
        else if (strcmp(argv[i], "-n") == 0 && sscanf(argv[i + 1], "%lld", &a) == 1)
            n[0] = n[1] = n[2] = a;
        else if (strcmp(argv[i], "-r") == 0)
            repeats = atoi(argv[i + 1]);
        else
            return usage(rank, argv[0]);
    }
    if (n[0] < 0 || n[1] < 0 || n[2] < 0 || repeats < 1)
        return usage(rank, argv[0]);

    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    pencils x, y, z;
    make_pencils(&x, "x-pencils", 0, 1, 2, n, dims[0], dims[1], rank); /* a[z][y][x] */
    make_pencils(&y, "y-pencils", 0, 2, 1, n, dims[0], dims[1], rank); /* a[z][x][y] */
    make_pencils(&z, "z-pencils", 1, 2, 0, n, dims[0], dims[1], rank); /* a[y][x][z] */
    if (rank == 0)
        printf("pencil_transpose: %lld x %lld x %lld doubles on a %d x %d grid\n", (long long)n[0],
               (long long)n[1], (long long)n[2], dims[0], dims[1]);

    /* Plan once (collective: every rank calls, also one that holds nothing). */
    redist_plan x_to_y = plan_transpose(&x, &y), y_to_z = plan_transpose(&y, &z);

    int64_t wrong[2] = {0, 0}; /* elements, line sums */
    fill_or_check(&x, n, 1);
    wrong[1] += fft_stand_in(&x, n); /* "FFT" along x */
    transpose(x_to_y, &x, &y, repeats, rank);
    wrong[0] += fill_or_check(&y, n, 0);
    wrong[1] += fft_stand_in(&y, n); /* along y */
    transpose(y_to_z, &y, &z, repeats, rank);
    wrong[0] += fill_or_check(&z, n, 0);
    wrong[1] += fft_stand_in(&z, n); /* along z */

    MPI_Allreduce(MPI_IN_PLACE, wrong, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (wrong[0] == 0 && wrong[1] == 0)
            printf("pencil_transpose: verified: every element of both transposes and every line "
                   "sum right (%lld elements)\n",
                   (long long)(n[0] * n[1] * n[2]));
        else
            printf("pencil_transpose: FAILED: %lld wrong elements, %lld wrong line sums\n",
                   (long long)wrong[0], (long long)wrong[1]);
    }

    check(redist_plan_free(&x_to_y), "redist_plan_free"); /* collective */
    check(redist_plan_free(&y_to_z), "redist_plan_free");
    pencils *all[3] = {&x, &y, &z};
    for (int k = 0; k < 3; k++) {
        redist_layout_free(&all[k]->layout);
        free(all[k]->a);
    }
    MPI_Finalize();
    return wrong[0] == 0 && wrong[1] == 0 ? 0 : 1;
}
