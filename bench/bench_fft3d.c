/* bench_fft3d: the transposes of a 3-D FFT described as boxes (redist_layout_create_boxes, as
 * FFT codes describe their decompositions), against the same move described as block-cyclic
 * layouts, MPI_Alltoallw with subarray datatypes and FFTW-MPI's transpose, in the same run
 * (docs/performance.md, "3-D FFT transposes").
 *
 *     mpiexec -n P build/bench_fft3d [--size N] [--reps R] [--warmup W] [--cases abc]
 *
 * N^3 complex doubles (default 256), indices (i0, i1, i2) row-major; q1 x q2 =
 * MPI_Dims_create(P, 2) (q1 >= q2; ranks row-major over the grid):
 *  (a) x-pencils -> y-pencils: i0 whole, i1 over q1, i2 over q2 -> i1 whole, i0 over q1, i2
 *      over q2 (each rank exchanges with the q1 ranks of its i2 part);
 *  (b) z-slabs -> x-pencils: i2 over P, i0 and i1 whole -> the x-pencils of (a), the move of a
 *      slab-to-pencil FFT code;
 *  (c) slabs -> transposed slabs, FFTW-MPI's transpose of a 3-D array: n0 x n1 x n2 split
 *      along n0 -> stored n1 x n0 x n2 split along n1 (options.permutation = {1, 0, 2}: the
 *      destination's axes are the source's 1, 0, 2), FFTW's blocks (fftw_mpi_local_size_many_
 *      transposed) as the boxes.
 * Methods: redist on boxes (auto), redist on the same move as block-cyclic layouts (grid g,
 * block ceil(n / g); auto), MPI_Alltoallw over all ranks with one subarray type per peer
 * (the hand-made way; (a) and (b)), and FFTW-MPI's fftw_mpi_plan_many_transpose (c; n2
 * complex elements as 2 n2 doubles per entry, FFTW_MEASURE) when built with libfftw3-mpi-dev.
 * Every method's result is compared once with the value of each element's global index,
 * every element (a wrong one: exit status 1). Then W untimed executes (default 2) and R
 * repetitions (default 7), the methods round-robin with a rotating start; a repetition is a
 * barrier, the call and the slowest rank's time. Printed per method: the median, fastest and
 * slowest repetition (ms), the plan's creation time, and for redist plans (redist_plan_stats)
 * auto's choice with its transport (dt: MPI derived datatypes, pack: packed buffers; +shm:
 * through the shared-memory window), the most messages and bytes a rank sends and the most
 * buffer bytes a rank's plan holds; then the ratios boxes / blocks, boxes / alltoallw, boxes /
 * FFTW-MPI.
 */
/* link: fftw3_mpi */
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"
#include "redist.h"

#ifdef REDIST_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

static int me, np, reps = 7, warmup = 2, failures;

/* One side of a move: an array of extents e in its own axes, split into g[k] parts along
   axis k (block ceil(e / g), rank r at row-major position r of g); lo/n: this rank's box. */
typedef struct side {
    int64_t e[3], lo[3], n[3];
    int g[3];
} side;

static void box_of(const side *s, int r, int64_t lo[3], int64_t n[3])
{
    int c[3] = {r / (s->g[1] * s->g[2]), r / s->g[2] % s->g[1], r % s->g[2]};
    for (int k = 0; k < 3; k++) {
        int64_t b = (s->e[k] + s->g[k] - 1) / s->g[k], at = b * c[k];
        lo[k] = at < s->e[k] ? at : s->e[k];
        n[k] = (lo[k] + b < s->e[k] ? lo[k] + b : s->e[k]) - lo[k];
    }
}

static side make_side(const int64_t e[3], const int g[3])
{
    side s;
    memcpy(s.e, e, sizeof s.e);
    memcpy(s.g, g, sizeof s.g);
    box_of(&s, me, s.lo, s.n);
    return s;
}

static int64_t volume(const side *s)
{
    return s->n[0] * s->n[1] * s->n[2];
}

/* The side as a redist layout: every rank's box, or the block distribution they come from. */
static redist_layout layout_of(const side *s, int boxes)
{
    redist_layout l = NULL;
    if (!boxes) {
        int64_t block[3];
        for (int k = 0; k < 3; k++)
            block[k] = (s->e[k] + s->g[k] - 1) / s->g[k];
        redist_layout_create(3, s->e, block, s->g, NULL, NULL, REDIST_ROW_MAJOR, &l);
        return l;
    }
    int64_t *lo = malloc((size_t)np * 3 * sizeof *lo), *hi = malloc((size_t)np * 3 * sizeof *hi);
    for (int r = 0; r < np; r++) {
        int64_t n[3];
        box_of(s, r, lo + 3 * r, n);
        for (int k = 0; k < 3; k++)
            hi[3 * r + k] = lo[3 * r + k] + n[k];
    }
    redist_layout_create_boxes(3, s->e, np, lo, hi, REDIST_ROW_MAJOR, &l);
    free(lo);
    free(hi);
    return l;
}

/* The value every method must deliver for the source's element at global index i. */
static double complex value(const int64_t e[3], const int64_t i[3])
{
    return (double)((i[0] * e[1] + i[1]) * e[2] + i[2]) + I * (double)(i[0] - 2 * i[2]);
}

static void fill(const side *s, double complex *a)
{
    int64_t i[3], at = 0;
    for (i[0] = s->lo[0]; i[0] < s->lo[0] + s->n[0]; i[0]++)
        for (i[1] = s->lo[1]; i[1] < s->lo[1] + s->n[1]; i[1]++)
            for (i[2] = s->lo[2]; i[2] < s->lo[2] + s->n[2]; i[2]++)
                a[at++] = value(s->e, i);
}

/* The wrong elements of b, the destination d's local array, whose axis j is the source's
   axis perm[j] (source extents e). */
static int64_t wrong(const side *d, const int perm[3], const int64_t e[3], const double complex *b)
{
    int64_t h[3], g[3], at = 0, bad = 0;
    for (h[0] = d->lo[0]; h[0] < d->lo[0] + d->n[0]; h[0]++)
        for (h[1] = d->lo[1]; h[1] < d->lo[1] + d->n[1]; h[1]++)
            for (h[2] = d->lo[2]; h[2] < d->lo[2] + d->n[2]; h[2]++) {
                for (int j = 0; j < 3; j++)
                    g[perm[j]] = h[j];
                bad += b[at++] != value(e, g);
            }
    return bad;
}

/* ---- the methods ------------------------------------------------------------------------ */

enum { BOXES, BLOCKS, ALLTOALLW, FFTW, NMETHODS };
static const char *method_names[NMETHODS] = {"boxes", "blocks", "alltoallw", "fftw-mpi"};

typedef struct move {
    side src, dst;
    int perm[3];
    double complex *a, *b;
    int on[NMETHODS];
    double plan_ms[NMETHODS];
    redist_plan plan[2]; /* BOXES, BLOCKS */
    int *scount, *rcount, *displ;
    MPI_Datatype *stype, *rtype;
#ifdef REDIST_HAVE_FFTW_MPI
    fftw_plan fftw;
#endif
} move;

/* The part of box (lo, n) that lies in box (lo2, n2) (same axes), as a subarray type of the
   first box's dense row-major array; MPI_DATATYPE_NULL if they do not meet. */
static MPI_Datatype piece(const int64_t lo[3], const int64_t n[3], const int64_t lo2[3],
                          const int64_t n2[3])
{
    int sizes[3], sub[3], start[3];
    for (int k = 0; k < 3; k++) {
        int64_t from = lo[k] > lo2[k] ? lo[k] : lo2[k];
        int64_t to = lo[k] + n[k] < lo2[k] + n2[k] ? lo[k] + n[k] : lo2[k] + n2[k];
        if (to <= from)
            return MPI_DATATYPE_NULL;
        sizes[k] = (int)n[k];
        sub[k] = (int)(to - from);
        start[k] = (int)(from - lo[k]);
    }
    MPI_Datatype t;
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_C_DOUBLE_COMPLEX, &t);
    MPI_Type_commit(&t);
    return t;
}

/* MPI_Alltoallw's arguments for a move without a permutation: to every rank the part of my
   source box in its destination box, from every rank the part of its source box in mine. */
static void alltoallw_setup(move *m)
{
    m->scount = calloc((size_t)np, sizeof(int));
    m->rcount = calloc((size_t)np, sizeof(int));
    m->displ = calloc((size_t)np, sizeof(int));
    m->stype = malloc((size_t)np * sizeof *m->stype);
    m->rtype = malloc((size_t)np * sizeof *m->rtype);
    for (int r = 0; r < np; r++) {
        int64_t lo[3], n[3];
        box_of(&m->dst, r, lo, n);
        m->stype[r] = piece(m->src.lo, m->src.n, lo, n);
        box_of(&m->src, r, lo, n);
        m->rtype[r] = piece(m->dst.lo, m->dst.n, lo, n);
        m->scount[r] = m->stype[r] != MPI_DATATYPE_NULL;
        m->rcount[r] = m->rtype[r] != MPI_DATATYPE_NULL;
        if (!m->scount[r])
            m->stype[r] = MPI_BYTE;
        if (!m->rcount[r])
            m->rtype[r] = MPI_BYTE;
    }
}

static void run(move *m, int method)
{
    int rc = MPI_SUCCESS;
    switch (method) {
    case BOXES:
    case BLOCKS:
        rc = redist_execute(m->plan[method], m->a, m->b);
        break;
    case ALLTOALLW:
        rc = MPI_Alltoallw(m->a, m->scount, m->displ, m->stype, m->b, m->rcount, m->displ, m->rtype,
                           MPI_COMM_WORLD);
        break;
    default:
#ifdef REDIST_HAVE_FFTW_MPI
        fftw_execute(m->fftw);
#endif
        break;
    }
    if (rc != 0) {
        fprintf(stderr, "bench_fft3d: %s failed on rank %d\n", method_names[method], me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static double slowest(double mine)
{
    double worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* A redist plan of the move on boxes or blocks; its creation time. */
static void plan_redist(move *m, int method)
{
    redist_layout ls = layout_of(&m->src, method == BOXES);
    redist_layout ld = layout_of(&m->dst, method == BOXES);
    redist_options opt;
    redist_options_init(&opt);
    opt.permutation = m->perm;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    int rc =
        redist_plan_create(ls, ld, MPI_C_DOUBLE_COMPLEX, MPI_COMM_WORLD, &opt, &m->plan[method]);
    m->plan_ms[method] = 1e3 * slowest(MPI_Wtime() - t);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
    m->on[method] = rc == REDIST_SUCCESS;
    if (rc != REDIST_SUCCESS) {
        failures++;
        if (me == 0)
            printf("  %-10s plan: %s (%s)\n", method_names[method], redist_error_name(rc),
                   redist_last_error_detail());
    }
}

#ifdef REDIST_HAVE_FFTW_MPI
/* FFTW-MPI's transpose of n0 x n1 entries of 2 n2 doubles, if its blocks are the move's. */
static void plan_fftw(move *m)
{
    ptrdiff_t nn[2] = {m->src.e[0], m->src.e[1]}, n0, s0, n1, s1;
    fftw_mpi_local_size_many_transposed(2, nn, 2 * m->src.e[2], FFTW_MPI_DEFAULT_BLOCK,
                                        FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &n0, &s0, &n1, &s1);
    int same = n0 == m->src.n[0] && (n0 == 0 || s0 == m->src.lo[0]) && n1 == m->dst.n[0] &&
               (n1 == 0 || s1 == m->dst.lo[0]);
    MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!same) {
        failures++;
        if (me == 0)
            printf("  fftw-mpi   its blocks are not the slabs of this move: not timed\n");
        return;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    m->fftw = fftw_mpi_plan_many_transpose(
        m->src.e[0], m->src.e[1], 2 * m->src.e[2], FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK,
        (double *)m->a, (double *)m->b, MPI_COMM_WORLD, FFTW_MEASURE);
    m->plan_ms[FFTW] = 1e3 * slowest(MPI_Wtime() - t);
    m->on[FFTW] = m->fftw != NULL;
}

/* The doubles FFTW-MPI asks its arrays to have room for. */
static int64_t fftw_room(const int64_t e[3])
{
    ptrdiff_t nn[2] = {e[0], e[1]}, n0, s0, n1, s1;
    return fftw_mpi_local_size_many_transposed(2, nn, 2 * e[2], FFTW_MPI_DEFAULT_BLOCK,
                                               FFTW_MPI_DEFAULT_BLOCK, MPI_COMM_WORLD, &n0, &s0,
                                               &n1, &s1);
}
#endif

static void free_move(move *m)
{
    for (int r = 0; m->stype != NULL && r < np; r++) {
        if (m->scount[r])
            MPI_Type_free(&m->stype[r]);
        if (m->rcount[r])
            MPI_Type_free(&m->rtype[r]);
    }
    free(m->scount), free(m->rcount), free(m->displ), free(m->stype), free(m->rtype);
    redist_plan_free(&m->plan[BOXES]);
    redist_plan_free(&m->plan[BLOCKS]);
#ifdef REDIST_HAVE_FFTW_MPI
    if (m->fftw != NULL)
        fftw_destroy_plan(m->fftw);
#endif
    free(m->a);
    free(m->b);
}

/* The largest value of x over the ranks. */
static int64_t most(int64_t x)
{
    int64_t y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    return y;
}

/* t: the method's repetitions (sorted here: the median, then the fastest and the slowest);
   returns the median. */
static double print_row(const move *m, int method, double *t)
{
    double med = bench_median(t, reps), lo = t[0], hi = t[reps - 1];
    if (method <= BLOCKS) {
        redist_stats st;
        redist_plan_stats(m->plan[method], &st);
        int64_t buffers = most(st.buffer_bytes);
        char how[64];
        snprintf(how, sizeof how, "%s/%s%s", redist_plan_algorithm(m->plan[method]),
                 st.transport == REDIST_TRANSPORT_DATATYPE ? "dt" : "pack",
                 st.shared_memory ? "+shm" : "");
        if (me == 0)
            printf("  %-10s %-22s %9.1f %9.2f %9.2f %9.2f %8lld %10.1f %10.1f\n",
                   method_names[method], how, m->plan_ms[method], med, lo, hi,
                   (long long)st.max_messages_per_rank, (double)st.max_bytes_per_rank / 1048576.0,
                   (double)buffers / 1048576.0);
    } else if (me == 0) {
        printf("  %-10s %-22s %9.1f %9.2f %9.2f %9.2f %8s %10s %10s\n", method_names[method],
               method == ALLTOALLW ? "subarray types" : "FFTW_MEASURE", m->plan_ms[method], med, lo,
               hi, "-", "-", "-");
    }
    return med;
}

/* One case: the move src -> dst (dst's axis j is src's axis perm[j]) by every method on. */
static void bench_case(const char *name, const side *src, const side *dst, const int perm[3],
                       int peer)
{
    move m;
    memset(&m, 0, sizeof m);
    m.src = *src;
    m.dst = *dst;
    memcpy(m.perm, perm, sizeof m.perm);
    int64_t na = volume(src), nb = volume(dst);
#ifdef REDIST_HAVE_FFTW_MPI
    if (peer == FFTW) { /* FFTW may ask for more room than the slabs */
        int64_t room = (fftw_room(src->e) + 1) / 2;
        na = na > room ? na : room;
        nb = nb > room ? nb : room;
    }
#endif
    size_t abytes = (size_t)(na + 1) * sizeof(double complex);
    size_t bbytes = (size_t)(nb + 1) * sizeof(double complex);
    m.a = malloc(abytes);
    m.b = malloc(bbytes);
    if (m.a == NULL || m.b == NULL) {
        fprintf(stderr, "bench_fft3d: rank %d: no memory for %zu + %zu bytes\n", me, abytes,
                bbytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(m.a, 0, abytes); /* touched: no first-touch page faults inside the timing */
    memset(m.b, 0, bbytes);
    if (me == 0)
        printf("\n%s\n  %-10s %-22s %9s %9s %9s %9s %8s %10s %10s\n", name, "method", "algorithm",
               "plan ms", "median", "fastest", "slowest", "messages", "MiB sent", "buffer MiB");
    plan_redist(&m, BOXES);
    plan_redist(&m, BLOCKS);
    if (peer == ALLTOALLW) {
        alltoallw_setup(&m);
        m.on[ALLTOALLW] = 1;
    }
#ifdef REDIST_HAVE_FFTW_MPI
    if (peer == FFTW)
        plan_fftw(&m); /* FFTW_MEASURE writes the arrays: before the fill */
#else
    if (peer == FFTW && me == 0)
        printf("  fftw-mpi   FFTW-MPI not built (libfftw3-mpi-dev not found, or built for "
               "another MPI): not compared\n");
#endif
    int on[NMETHODS], non = 0;
    for (int k = 0; k < NMETHODS; k++) {
        if (!m.on[k])
            continue;
        on[non++] = k;
        fill(&m.src, m.a); /* FFTW's transpose may use its input as scratch */
        memset(m.b, 0xff, (size_t)nb * sizeof *m.b); /* NaNs: an element not written is wrong */
        run(&m, k);
        int64_t bad = wrong(&m.dst, m.perm, m.src.e, m.b), all = 0;
        MPI_Allreduce(&bad, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (all != 0) {
            failures++;
            if (me == 0)
                printf("  %-10s WRONG: %lld elements differ from their global index's value\n",
                       method_names[k], (long long)all);
        }
        for (int w = 0; w < warmup; w++)
            run(&m, k);
    }
    double *t = malloc((size_t)(NMETHODS * reps) * sizeof *t);
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < non; i++) {
            int k = on[(r + i) % non];
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run(&m, k);
            t[k * reps + r] = 1e3 * slowest(MPI_Wtime() - t0);
        }
    double med[NMETHODS];
    for (int i = 0; i < non; i++) {
        int k = on[i];
        med[k] = print_row(&m, k, t + k * reps);
    }
    if (me == 0 && m.on[BOXES]) {
        printf("  ratios:");
        for (int k = BLOCKS; k < NMETHODS; k++)
            if (m.on[k])
                printf("  boxes / %s %.2f", method_names[k], med[BOXES] / med[k]);
        printf("\n");
    }
    free(t);
    free_move(&m);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
#ifdef REDIST_HAVE_FFTW_MPI
    fftw_mpi_init();
#endif
    int64_t n = 256;
    const char *cases = "abc";
    int bad_args = argc % 2 == 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--size"))
            n = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--warmup"))
            warmup = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cases"))
            cases = argv[i + 1];
        else
            bad_args = 1;
    }
    if (bad_args || n < 1 || n > 2048 || reps < 1 || warmup < 0) {
        if (me == 0)
            fprintf(stderr, "usage: bench_fft3d [--size N (1..2048)] [--reps R] [--warmup W] "
                            "[--cases abc]\n");
        MPI_Finalize();
        return 2;
    }
    int q[2] = {0, 0};
    MPI_Dims_create(np, 2, q);
    double gib = 16.0 * (double)n * (double)n * (double)n / 1073741824.0;
    double machine = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    if (me == 0)
        printf("bench_fft3d: %lld^3 complex doubles on %d ranks (pencil grid %d x %d), median, "
               "fastest and slowest of %d repetitions after %d warm-up executes, each the "
               "slowest rank's time (ms)\nmemory: an array is %.2f GiB (%.2f GiB per rank); a "
               "case holds a source and a destination array (%.2f GiB) and its plans' buffers "
               "(buffer MiB, per rank); this machine has %.1f GiB\n",
               (long long)n, np, q[0], q[1], reps, warmup, gib, gib / np, 2 * gib,
               machine / 1073741824.0);
    int64_t e[3] = {n, n, n};
    int identity[3] = {0, 1, 2}, swap01[3] = {1, 0, 2};
    int gx[3] = {1, q[0], q[1]}, gy[3] = {q[0], 1, q[1]}, gz[3] = {1, 1, np}, g0[3] = {np, 1, 1};
    side xpen = make_side(e, gx), ypen = make_side(e, gy), zslab = make_side(e, gz);
    int64_t et[3] = {e[1], e[0], e[2]}; /* the transposed slabs' axes: n1, n0, n2 */
    side slab0 = make_side(e, g0), slab1 = make_side(et, g0);
    char name[160];
    if (strchr(cases, 'a')) {
        snprintf(name, sizeof name,
                 "(a) x-pencils -> y-pencils, %d x %d grid (i0 whole, i1 over %d -> i1 whole, i0 "
                 "over %d; i2 over %d)",
                 q[0], q[1], q[0], q[0], q[1]);
        bench_case(name, &xpen, &ypen, identity, ALLTOALLW);
    }
    if (strchr(cases, 'b')) {
        snprintf(name, sizeof name,
                 "(b) z-slabs -> x-pencils (i2 over %d -> i1 over %d, i2 over %d; i0 whole)", np,
                 q[0], q[1]);
        bench_case(name, &zslab, &xpen, identity, ALLTOALLW);
    }
    if (strchr(cases, 'c')) {
        snprintf(name, sizeof name,
                 "(c) slabs -> transposed slabs, FFTW-MPI's transpose (n0 x n1 x n2 over %d along "
                 "n0 -> stored n1 x n0 x n2 over %d along n1)",
                 np, np);
        bench_case(name, &slab0, &slab1, swap01, FFTW);
    }
#ifdef REDIST_HAVE_FFTW_MPI
    fftw_mpi_cleanup();
#endif
    if (me == 0 && failures)
        printf("\nbench_fft3d: %d failure(s)\n", failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
