/* bench_transpose: redist's transposes against their peers, on the same data in the same run
 * (docs/performance.md, "Transposes").
 *
 *     mpirun -np 4 build/bench_transpose [--reps R] [--n N] [--n3 N3] [--only 2d|3d]
 *
 * 2-D (PBLAS's case): C (N x N doubles) = beta C + alpha A^T on a 2-D grid of the P
 * processes (as square as P allows), A with MB x MB blocks and C with MB2 x MB2; block pairs
 * 32:128, 128:32, 64:64, for N (default 4096) and N - 96 (not a power of two), with
 * (alpha, beta) = (1, 0) and (2, 0.5). Methods: PBLAS pdtran_ (Debian's ScaLAPACK) and
 * redist_pdtran (the drop-in; the timed calls hit its plan cache). redist's C equals PBLAS's
 * (integer data, dyadic alpha and beta: exact), or the program exits with status 1.
 *
 * 3-D (FFT's case), N3^3 complex doubles (default 256):
 *  - pencils: x-pencils (z, y, x), x whole on each rank, z and y over a 2-D grid) to
 *    y-pencils (z, x, y) with the axes permuted (permutation 0,2,1; x over the grid);
 *  - slabs: (x, y, z) in slabs of x to (y, x, z) in slabs of y (permutation 1,0,2), the
 *    transpose FFTW-MPI does (fftw_mpi_plan_many_transpose, z pairs of doubles per element).
 * Methods: a redist plan (options.permutation; auto's choice), MPI_Alltoallw with derived
 * datatypes that permute the axes on the receive side (the hand-made way), and FFTW-MPI's
 * transpose (slabs; when built with libfftw3-mpi-dev). Every method's result is compared
 * with the formula, every element.
 *
 * Each method runs R times (default 7) round-robin after a verified warm-up; a repetition is
 * a barrier, the call and the slowest rank's time; the tables give medians in ms.
 */
/* link: scalapack */
/* link: fftw3_mpi */
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "redist.h"

#ifdef REDIST_HAVE_FFTW_MPI
#include <fftw3-mpi.h>
#endif

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(int *n, int *nb, int *iproc, int *isrc, int *nprocs);
void pdtran_(int *m, int *n, double *alpha, double *a, int *ia, int *ja, int *desca, double *beta,
             double *c, int *ic, int *jc, int *descc);

static int me, np, reps = 7, failures;

/* One timed repetition: barrier, fn, the slowest rank's seconds. */
typedef void (*method_fn)(void *ctx);
static double time_once(method_fn fn, void *ctx)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    fn(ctx);
    t = MPI_Wtime() - t;
    double worst = 0;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* Medians (ms) of nm methods run round-robin reps times. */
static void time_methods(int nm, method_fn *fn, void **ctx, double *ms)
{
    double *t = malloc((size_t)(nm * reps) * sizeof *t);
    for (int r = 0; r < reps; r++)
        for (int m = 0; m < nm; m++)
            t[m * reps + r] = time_once(fn[m], ctx[m]);
    for (int m = 0; m < nm; m++)
        ms[m] = 1e3 * bench_median(t + m * reps, reps);
    free(t);
}

static void factor(int p, int *rows, int *cols)
{
    int r = 1;
    for (int d = 1; d * d <= p; d++)
        if (p % d == 0)
            r = d;
    *rows = r;
    *cols = p / r;
}

static int all_ok(int wrong)
{
    int any = 0;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any == 0;
}

/* ---- 2-D: PBLAS's pdtran ---------------------------------------------------------------- */

typedef struct {
    int n, desca[9], descc[9];
    double alpha, beta, *a, *c, *c0;
    int64_t la, lc;
    int drop_in;
} tran_ctx;

static void matrix(int ctxt, int n, int nb, int desc[9], int64_t *local)
{
    int rows, cols, r, c, zero = 0;
    Cblacs_gridinfo(ctxt, &rows, &cols, &r, &c);
    int lr = numroc_(&n, &nb, &r, &zero, &rows), lc = numroc_(&n, &nb, &c, &zero, &cols);
    int d[9] = {1, ctxt, n, n, nb, nb, 0, 0, lr > 1 ? lr : 1};
    memcpy(desc, d, sizeof d);
    *local = (int64_t)d[8] * lc;
}

static void tran_call(void *vctx)
{
    tran_ctx *x = vctx;
    int one = 1;
    memcpy(x->c, x->c0, (size_t)x->lc * sizeof *x->c); /* beta C reads the same C each time */
    (x->drop_in ? redist_pdtran : pdtran_)(&x->n, &x->n, &x->alpha, x->a, &one, &one, x->desca,
                                           &x->beta, x->c, &one, &one, x->descc);
}

static void copy_c0(void *vctx)
{
    tran_ctx *x = vctx;
    memcpy(x->c, x->c0, (size_t)x->lc * sizeof *x->c);
}

static void bench_2d(int n0)
{
    int rows, cols, ctxt = 0;
    factor(np, &rows, &cols);
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", rows, cols);
    static const int pairs[][2] = {{32, 128}, {128, 32}, {64, 64}};
    static const double scal[][2] = {{1.0, 0.0}, {2.0, 0.5}};
    if (me == 0)
        printf("2-D: C = beta C + alpha A^T, doubles, %d x %d grid, median of %d (ms; the C "
               "copy that restores C each call, timed alone, subtracted)\n"
               "%6s %9s %11s %10s %10s %8s\n",
               rows, cols, reps, "n", "blocks", "alpha,beta", "pdtran", "redist", "speedup");
    for (int s = 0; s < 2; s++)
        for (int sz = 0; sz < 2; sz++)
            for (int p = 0; p < 3; p++) {
                int n = sz ? n0 - 96 : n0;
                tran_ctx x = {.n = n, .alpha = scal[s][0], .beta = scal[s][1]};
                matrix(ctxt, n, pairs[p][0], x.desca, &x.la);
                matrix(ctxt, n, pairs[p][1], x.descc, &x.lc);
                x.a = malloc((size_t)(x.la + 1) * sizeof *x.a);
                x.c = malloc((size_t)(x.lc + 1) * sizeof *x.c);
                x.c0 = malloc((size_t)(x.lc + 1) * sizeof *x.c0);
                double *want = malloc((size_t)(x.lc + 1) * sizeof *want);
                for (int64_t i = 0; i < x.la; i++)
                    x.a[i] = (double)((i * 7 + me * 13) % 1009);
                for (int64_t i = 0; i < x.lc; i++)
                    x.c0[i] = (double)((i * 3 + me * 5) % 997);
                tran_call(&x); /* PBLAS's answer */
                memcpy(want, x.c, (size_t)x.lc * sizeof *want);
                x.drop_in = 1;
                tran_call(&x);
                int wrong = memcmp(want, x.c, (size_t)x.lc * sizeof *want) != 0;
                if (!all_ok(wrong)) {
                    failures++;
                    if (me == 0)
                        printf("redist_pdtran differs from pdtran_ (n %d, blocks %d:%d)\n", n,
                               pairs[p][0], pairs[p][1]);
                }
                tran_ctx xp = x, xr = x;
                xp.drop_in = 0;
                method_fn fn[3] = {tran_call, tran_call, copy_c0};
                void *ctx[3] = {&xp, &xr, &x};
                double ms[3];
                time_methods(3, fn, ctx, ms);
                double pd = ms[0] - ms[2], rd = ms[1] - ms[2];
                if (me == 0)
                    printf("%6d %5d:%-3d %5g,%-5g %10.2f %10.2f %8.2f\n", n, pairs[p][0],
                           pairs[p][1], x.alpha, x.beta, pd, rd, pd / rd);
                free(x.a);
                free(x.c);
                free(x.c0);
                free(want);
            }
    Cblacs_gridexit(ctxt);
}

/* ---- 3-D: pencils and slabs ------------------------------------------------------------- */

/* Element (i0, i1, i2) of the source array, as the value every method must deliver. */
static double complex value3(int64_t i0, int64_t i1, int64_t i2)
{
    return (double)(i0 * 1000003 + i1 * 1009 + i2) + I * (double)(i2 - i0);
}

/* A block distribution of n over p (block ceil(n / p)): coordinate c's first index, count. */
static void block_range(int64_t n, int p, int c, int64_t *lo, int64_t *cnt)
{
    int64_t b = (n + p - 1) / p;
    *lo = b * c < n ? b * c : n;
    *cnt = *lo + b < n ? b : n - *lo;
}

/* A 3-D array of extents e (row-major), block-distributed along the dimensions with grid
   g > 1 over ranks in row-major order: this rank's box. */
typedef struct {
    int64_t e[3], lo[3], cnt[3];
    int g[3];
} box3;

static void box_of(box3 *b, const int64_t e[3], const int g[3], int rank)
{
    int c[3] = {rank / (g[1] * g[2]), rank / g[2] % g[1], rank % g[2]};
    for (int k = 0; k < 3; k++) {
        b->e[k] = e[k];
        b->g[k] = g[k];
        block_range(e[k], g[k], c[k], &b->lo[k], &b->cnt[k]);
    }
}

static int64_t box_size(const box3 *b)
{
    return b->cnt[0] * b->cnt[1] * b->cnt[2];
}

typedef struct {
    box3 src, dst;
    int perm[3]; /* dst dimension j is src dimension perm[j] */
    double complex *a, *b;
    redist_plan plan;
    /* alltoallw */
    int *counts, *sdispl, *rdispl;
    MPI_Datatype *stypes, *rtypes;
#ifdef REDIST_HAVE_FFTW_MPI
    fftw_plan fftw;
#endif
} move3;

static redist_layout layout3(const box3 *b)
{
    int64_t blk[3];
    for (int k = 0; k < 3; k++)
        blk[k] = (b->e[k] + b->g[k] - 1) / b->g[k];
    redist_layout l = NULL;
    redist_layout_create(3, b->e, blk, b->g, NULL, NULL, REDIST_ROW_MAJOR, &l);
    return l;
}

static void fill3(const move3 *m)
{
    const box3 *s = &m->src;
    int64_t at = 0;
    for (int64_t i = 0; i < s->cnt[0]; i++)
        for (int64_t j = 0; j < s->cnt[1]; j++)
            for (int64_t k = 0; k < s->cnt[2]; k++)
                m->a[at++] = value3(s->lo[0] + i, s->lo[1] + j, s->lo[2] + k);
}

/* Every destination element against the source's value at the permuted index. */
static int check3(const move3 *m)
{
    const box3 *d = &m->dst;
    int64_t at = 0, h[3], g[3];
    for (h[0] = d->lo[0]; h[0] < d->lo[0] + d->cnt[0]; h[0]++)
        for (h[1] = d->lo[1]; h[1] < d->lo[1] + d->cnt[1]; h[1]++)
            for (h[2] = d->lo[2]; h[2] < d->lo[2] + d->cnt[2]; h[2]++) {
                for (int j = 0; j < 3; j++)
                    g[m->perm[j]] = h[j];
                if (m->b[at++] != value3(g[0], g[1], g[2]))
                    return 1;
            }
    return 0;
}

/* The intersection of box a (in src coordinates) with box b given in dst coordinates: lo
   and count per src dimension; 0 if empty. */
static int overlap(const box3 *s, const box3 *d, const int perm[3], int64_t lo[3], int64_t cnt[3])
{
    for (int j = 0; j < 3; j++) {
        int k = perm[j];
        int64_t a = s->lo[k] > d->lo[j] ? s->lo[k] : d->lo[j];
        int64_t e = s->lo[k] + s->cnt[k] < d->lo[j] + d->cnt[j] ? s->lo[k] + s->cnt[k]
                                                                : d->lo[j] + d->cnt[j];
        if (e <= a)
            return 0;
        lo[k] = a;
        cnt[k] = e - a;
    }
    return 1;
}

/* The datatype of the piece lo/cnt (src coordinates) inside a local box, enumerated in the
   source's order (dimension 0 slowest): strides of the box's storage, whose dimension j is
   src dimension perm[j] (the identity on the source side). */
static MPI_Datatype piece_type(const box3 *box, const int perm[3], const int64_t lo[3],
                               const int64_t cnt[3], MPI_Aint *displ)
{
    MPI_Aint stride_of[3], s = (MPI_Aint)sizeof(double complex);
    for (int j = 2; j >= 0; j--) { /* the box's own row-major strides, by src dimension */
        stride_of[perm[j]] = s;
        s *= (MPI_Aint)box->cnt[j];
    }
    *displ = 0;
    for (int j = 0; j < 3; j++)
        *displ += (MPI_Aint)(lo[perm[j]] - box->lo[j]) * stride_of[perm[j]];
    MPI_Datatype t = MPI_C_DOUBLE_COMPLEX, next;
    for (int k = 2; k >= 0; k--) {
        MPI_Type_create_hvector((int)cnt[k], 1, stride_of[k], t, &next);
        if (t != MPI_C_DOUBLE_COMPLEX)
            MPI_Type_free(&t);
        t = next;
    }
    MPI_Type_commit(&t);
    return t;
}

static void setup_alltoallw(move3 *m)
{
    static const int identity[3] = {0, 1, 2};
    m->counts = calloc((size_t)np, sizeof(int));
    m->sdispl = calloc((size_t)np, sizeof(int));
    m->rdispl = calloc((size_t)np, sizeof(int));
    m->stypes = malloc((size_t)np * sizeof *m->stypes);
    m->rtypes = malloc((size_t)np * sizeof *m->rtypes);
    for (int r = 0; r < np; r++) {
        box3 other_dst, other_src;
        box_of(&other_dst, m->dst.e, m->dst.g, r);
        box_of(&other_src, m->src.e, m->src.g, r);
        int64_t lo[3], cnt[3];
        MPI_Aint d = 0;
        m->stypes[r] = m->rtypes[r] = MPI_BYTE;
        if (overlap(&m->src, &other_dst, m->perm, lo, cnt)) { /* what I send to r */
            m->stypes[r] = piece_type(&m->src, identity, lo, cnt, &d);
            m->sdispl[r] = (int)d;
            m->counts[r] = 1;
        }
        if (overlap(&other_src, &m->dst, m->perm, lo, cnt)) { /* what r sends me */
            m->rtypes[r] = piece_type(&m->dst, m->perm, lo, cnt, &d);
            m->rdispl[r] = (int)d;
        }
    }
}

static void run_alltoallw(void *vm)
{
    move3 *m = vm;
    int *rcounts = malloc((size_t)np * sizeof *rcounts);
    for (int r = 0; r < np; r++)
        rcounts[r] = m->rtypes[r] != MPI_BYTE;
    MPI_Alltoallw(m->a, m->counts, m->sdispl, m->stypes, m->b, rcounts, m->rdispl, m->rtypes,
                  MPI_COMM_WORLD);
    free(rcounts);
}

static void run_redist(void *vm)
{
    move3 *m = vm;
    redist_execute(m->plan, m->a, m->b);
}

#ifdef REDIST_HAVE_FFTW_MPI
static void run_fftw(void *vm)
{
    move3 *m = vm;
    fftw_execute(m->fftw);
}
#endif

static void free3(move3 *m)
{
    for (int r = 0; m->stypes && r < np; r++) {
        if (m->stypes[r] != MPI_BYTE)
            MPI_Type_free(&m->stypes[r]);
        if (m->rtypes[r] != MPI_BYTE)
            MPI_Type_free(&m->rtypes[r]);
    }
    free(m->counts), free(m->sdispl), free(m->rdispl), free(m->stypes), free(m->rtypes);
    redist_plan_free(&m->plan);
#ifdef REDIST_HAVE_FFTW_MPI
    if (m->fftw != NULL)
        fftw_destroy_plan(m->fftw);
#endif
}

static void bench_3d_case(const char *name, const int64_t e[3], const int gs[3], const int gd[3],
                          const int perm[3], int with_fftw)
{
    move3 m;
    memset(&m, 0, sizeof m);
    int64_t ed[3];
    for (int j = 0; j < 3; j++)
        ed[j] = e[perm[j]];
    box_of(&m.src, e, gs, me);
    box_of(&m.dst, ed, gd, me);
    memcpy(m.perm, perm, sizeof m.perm);
    m.a = malloc((size_t)(box_size(&m.src) + 1) * sizeof *m.a);
    m.b = malloc((size_t)(box_size(&m.dst) + 1) * sizeof *m.b);
    fill3(&m);
    redist_layout ls = layout3(&m.src), ld = layout3(&m.dst);
    redist_options opt;
    redist_options_init(&opt);
    opt.permutation = perm;
    int rc = redist_plan_create(ls, ld, MPI_C_DOUBLE_COMPLEX, MPI_COMM_WORLD, &opt, &m.plan);
    redist_layout_free(&ls);
    redist_layout_free(&ld);
    if (rc != REDIST_SUCCESS) {
        if (me == 0)
            printf("%s: plan: %s (%s)\n", name, redist_strerror(rc), redist_last_error_detail());
        failures++;
        return;
    }
    setup_alltoallw(&m);
    method_fn fn[3] = {run_redist, run_alltoallw, NULL};
    const char *names[3] = {"redist", "alltoallw", "fftw-mpi"};
    int nm = 2;
#ifdef REDIST_HAVE_FFTW_MPI
    if (with_fftw) { /* (x, y, z) in slabs of x -> (y, x, z) in slabs of y, z complex pairs */
        m.fftw = fftw_mpi_plan_many_transpose(e[0], e[1], 2 * e[2], FFTW_MPI_DEFAULT_BLOCK,
                                              FFTW_MPI_DEFAULT_BLOCK, (double *)m.a, (double *)m.b,
                                              MPI_COMM_WORLD, FFTW_MEASURE);
        fill3(&m); /* FFTW_MEASURE may overwrite the arrays */
        fn[nm++] = run_fftw;
    }
#else
    (void)with_fftw;
#endif
    void *ctx[3] = {&m, &m, &m};
    for (int i = 0; i < nm; i++) { /* verified warm-up */
        memset(m.b, 0, (size_t)box_size(&m.dst) * sizeof *m.b);
        fn[i](&m);
        if (!all_ok(check3(&m))) {
            failures++;
            if (me == 0)
                printf("%s: %s delivered a wrong element\n", name, names[i]);
        }
    }
    double ms[3];
    time_methods(nm, fn, ctx, ms);
    if (me == 0) {
        printf("%-34s %-13s %10.2f %10.2f", name, redist_plan_algorithm(m.plan), ms[0], ms[1]);
        if (nm > 2)
            printf(" %10.2f", ms[2]);
        else
            printf(" %10s", "-");
        printf(" %8.2f", ms[1] / ms[0]);
        if (nm > 2)
            printf(" %8.2f", ms[2] / ms[0]);
        printf("\n");
    }
    free3(&m);
    free(m.a);
    free(m.b);
}

static void bench_3d(int n)
{
    int r, c;
    factor(np, &r, &c);
    int64_t e[3] = {n, n, n};
    if (me == 0)
        printf("\n3-D: %d^3 complex doubles (%.0f MB), median of %d (ms)\n%-34s %-13s %10s %10s "
               "%10s %8s %8s\n",
               n, 16.0 * n * n * n / 1e6, reps, "case", "algorithm", "redist", "alltoallw",
               "fftw-mpi", "a2aw/rd", "fftw/rd");
    char name[64];
    snprintf(name, sizeof name, "pencils x->y (0,2,1), grid %dx%d", r, c);
    int gs[3] = {r, c, 1}, gd[3] = {r, c, 1}, pz[3] = {0, 2, 1};
    bench_3d_case(name, e, gs, gd, pz, 0);
    int ss[3] = {np, 1, 1}, sd[3] = {np, 1, 1}, px[3] = {1, 0, 2};
    snprintf(name, sizeof name, "slabs x->y (1,0,2), %d slabs", np);
    bench_3d_case(name, e, ss, sd, px, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&me, &np);
#ifdef REDIST_HAVE_FFTW_MPI
    fftw_mpi_init();
#endif
    int n = 4096, n3 = 256, do2 = 1, do3 = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n3"))
            n3 = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--only")) {
            do2 = !strcmp(argv[i + 1], "2d");
            do3 = !strcmp(argv[i + 1], "3d");
        }
    }
    if (reps < 1 || n < 200 || n3 < 8) {
        if (me == 0)
            fprintf(stderr, "bench_transpose: bad arguments\n");
        MPI_Finalize();
        return 2;
    }
    if (do2)
        bench_2d(n);
    if (do3)
        bench_3d(n3);
#ifdef REDIST_HAVE_FFTW_MPI
    fftw_mpi_cleanup();
#endif
    MPI_Finalize();
    return failures ? 1 : 0;
}
