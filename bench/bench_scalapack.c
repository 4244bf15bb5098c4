/* bench_scalapack: redist's drop-in redist_pdgemr2d against ScaLAPACK's own pdgemr2d_ and
 * against a redist plan's execute, on the same data in the same run (docs/performance.md).
 *
 *     mpirun -np 4 build/bench_scalapack [--size N] [--reps R] [--pad P]
 *            [--sweep MB:MB2,...] [--order-b R|C]
 *
 * An N x N matrix of doubles (default 4096) on a 2-D grid of the P processes (as square as
 * P allows, row order) with MB x MB blocks is copied to the same matrix with MB2 x MB2
 * blocks on the same processes, whose grid is in row order or (--order-b C) column order.
 * --pad P adds P rows of padding to every local array's LLD (both sides). Default sweep:
 * 1:2, 2:4, 4:8, 8:16, 16:32, 32:128, 64:100, 128:128.
 *
 * Methods, run round-robin R times each (default 7) after one verified warm-up: pdgemr2d_
 * (ScaLAPACK), redist_pdgemr2d (its first call plans and caches; the timed ones hit the
 * cache) and the execute of a redist plan made from the same descriptors. Each repetition is
 * a barrier, the call, and the slowest rank's time; the table gives medians, the speedup
 * over pdgemr2d_ and the cached call's time over the plan's execute. redist's B equals
 * ScaLAPACK's, padding included, or the program exits with status 1.
 */
/* link: scalapack */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "redist.h"

void Cblacs_pinfo(int *me, int *np);
void Cblacs_get(int ctxt, int what, int *val);
void Cblacs_gridinit(int *ctxt, char *order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(int *n, int *nb, int *iproc, int *isrc, int *nprocs);
void pdgemr2d_(int *m, int *n, double *a, int *ia, int *ja, int *desca, double *b, int *ib, int *jb,
               int *descb, int *ictxt);

typedef struct {
    int ctxt, desc[9];
    int64_t local;
    double *data;
} matrix_t;

static int me, np;

static void make_matrix(matrix_t *mt, int ctxt, int n, int nb, int pad)
{
    int rows, cols, r, c, zero = 0;
    Cblacs_gridinfo(ctxt, &rows, &cols, &r, &c);
    int lr = numroc_(&n, &nb, &r, &zero, &rows), lc = numroc_(&n, &nb, &c, &zero, &cols);
    int lld = (lr > 1 ? lr : 1) + pad;
    int d[9] = {1, ctxt, n, n, nb, nb, 0, 0, lld};
    memcpy(mt->desc, d, sizeof d);
    mt->ctxt = ctxt;
    mt->local = (int64_t)lld * lc;
    mt->data = malloc((size_t)(mt->local + 1) * sizeof *mt->data);
    for (int64_t i = 0; i < mt->local; i++)
        mt->data[i] = (double)(i % 1000003) + 1e7 * me;
}

/* A plan over MPI_COMM_WORLD from a descriptor (the processes of ctxt map to world ranks
   in gridinit's order: row order, or column order). */
static redist_layout layout_of(const matrix_t *mt, int col_order)
{
    int rows, cols, r, c;
    Cblacs_gridinfo(mt->ctxt, &rows, &cols, &r, &c);
    int *ranks = malloc((size_t)np * sizeof *ranks);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            ranks[i * cols + j] = col_order ? j * rows + i : i * cols + j;
    int64_t ext[2] = {mt->desc[2], mt->desc[3]}, blk[2] = {mt->desc[4], mt->desc[5]},
            ld[2] = {mt->desc[8], 0};
    int grid[2] = {rows, cols};
    redist_layout parent = NULL, w = NULL;
    redist_layout_create(2, ext, blk, grid, NULL, ranks, REDIST_COL_MAJOR, &parent);
    redist_layout_create_window(parent, NULL, NULL, ld, &w);
    redist_layout_free(&parent);
    free(ranks);
    return w;
}

enum { M_SCALAPACK, M_CALL, M_EXECUTE, NMETHODS };

static double run_once(int method, int n, matrix_t *a, matrix_t *b, redist_plan plan, int ctxt)
{
    int one = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    if (method == M_SCALAPACK)
        pdgemr2d_(&n, &n, a->data, &one, &one, a->desc, b->data, &one, &one, b->desc, &ctxt);
    else if (method == M_CALL)
        redist_pdgemr2d(&n, &n, a->data, &one, &one, a->desc, b->data, &one, &one, b->desc, &ctxt);
    else
        redist_execute(plan, a->data, b->data);
    t = MPI_Wtime() - t;
    double most = 0;
    MPI_Allreduce(&t, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return most;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&me, &np);
    int n = 4096, reps = 7, pad = 0, col_b = 0;
    const char *sweep = "1:2,2:4,4:8,8:16,16:32,32:128,64:100,128:128";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--size"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--pad"))
            pad = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sweep"))
            sweep = argv[i + 1];
        else if (!strcmp(argv[i], "--order-b"))
            col_b = argv[i + 1][0] == 'C';
    }
    int rows = 1;
    for (int d = 1; d * d <= np; d++)
        if (np % d == 0)
            rows = d;
    int ctxt_a = 0, ctxt_b = 0, ctxt_all = 0;
    Cblacs_get(0, 0, &ctxt_a);
    Cblacs_gridinit(&ctxt_a, "R", rows, np / rows);
    Cblacs_get(0, 0, &ctxt_b);
    Cblacs_gridinit(&ctxt_b, col_b ? "C" : "R", rows, np / rows);
    Cblacs_get(0, 0, &ctxt_all);
    Cblacs_gridinit(&ctxt_all, "R", 1, np);
    if (me == 0)
        printf("bench_scalapack: %d x %d doubles, %d processes (%d x %d, B in %s order), LLD "
               "padding %d, median of %d\n"
               "%-10s %12s %12s %12s %10s %12s\n",
               n, n, np, rows, np / rows, col_b ? "column" : "row", pad, reps, "blocks",
               "pdgemr2d_", "redist call", "plan execute", "speedup", "call/execute");
    int failed = 0;
    char *list = strdup(sweep);
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int mb = 0, mb2 = 0;
        if (sscanf(tok, "%d:%d", &mb, &mb2) != 2 || mb < 1 || mb2 < 1)
            continue;
        matrix_t a, want, got;
        make_matrix(&a, ctxt_a, n, mb, pad);
        make_matrix(&want, ctxt_b, n, mb2, pad);
        make_matrix(&got, ctxt_b, n, mb2, pad);
        redist_layout la = layout_of(&a, 0), lb = layout_of(&got, col_b);
        redist_plan plan = NULL;
        redist_plan_create(la, lb, MPI_DOUBLE, MPI_COMM_WORLD, NULL, &plan);
        /* Warm-up and check: redist's whole local B equals ScaLAPACK's. */
        run_once(M_SCALAPACK, n, &a, &want, plan, ctxt_all);
        run_once(M_CALL, n, &a, &got, plan, ctxt_all);
        int bad = memcmp(want.data, got.data, (size_t)got.local * sizeof(double)) != 0, any = 0;
        run_once(M_EXECUTE, n, &a, &got, plan, ctxt_all);
        bad |= memcmp(want.data, got.data, (size_t)got.local * sizeof(double)) != 0;
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        failed |= any;
        double *t = malloc((size_t)(NMETHODS * reps) * sizeof *t), med[NMETHODS];
        for (int r = 0; r < reps; r++)
            for (int m = 0; m < NMETHODS; m++)
                t[m * reps + r] =
                    run_once(m, n, &a, m == M_SCALAPACK ? &want : &got, plan, ctxt_all);
        for (int m = 0; m < NMETHODS; m++)
            med[m] = bench_median(t + m * reps, reps);
        if (me == 0)
            printf("%4d->%-4d %9.3f ms %9.3f ms %9.3f ms %9.2fx %11.3f%s\n", mb, mb2,
                   med[M_SCALAPACK] * 1e3, med[M_CALL] * 1e3, med[M_EXECUTE] * 1e3,
                   med[M_SCALAPACK] / med[M_CALL], med[M_CALL] / med[M_EXECUTE],
                   any ? "   WRONG RESULT" : "");
        free(t);
        redist_plan_free(&plan);
        redist_layout_free(&la);
        redist_layout_free(&lb);
        free(a.data);
        free(want.data);
        free(got.data);
    }
    free(list);
    Cblacs_gridexit(ctxt_a);
    Cblacs_gridexit(ctxt_b);
    Cblacs_gridexit(ctxt_all);
    MPI_Finalize();
    return failed;
}
