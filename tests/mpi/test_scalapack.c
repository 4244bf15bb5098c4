/* threads: 1 4 */
/* link: scalapack */
/* redist_p?gemr2d, redist_p?trmr2d and the PBLAS transposes redist_p?tran* against
 * ScaLAPACK's own p?gemr2d_, p?trmr2d_ and p?tran*_ (Debian's libscalapack), element for
 * element, padding included.
 *
 * Random cases: a union context over all processes or a subset of them (gridinit in row or
 * column order, or gridmap in a random order and shape); A's and B's contexts on random
 * subsets of the union (disjoint, overlapping or identical, any shape and order, so that
 * some processes are in neither grid and pass CTXT = -1); random M, N, MB, NB (blocks
 * larger than the matrix too), RSRC, CSRC, sub-matrices (ia, ja, ib, jb, m, n; m or n = 0
 * sometimes) and LLD padding; the five types, and p?trmr2d for every uplo/diag. A third of
 * the cases are transposes instead (s, d, c, z; conjugating or not): A (n x m) and C (m x n)
 * on the union's own grid, as PBLAS requires, with alpha and beta among 0, 1 and other
 * dyadic values (complex ones too) on small integer data, so that every result is exact and
 * compared by value. Every local
 * array of B, padding included, starts with the same background values for both routines;
 * after the call both must be equal everywhere. Each case is called twice with redist (the
 * second call hits the plan cache). Contexts are freed after each case, so handles are reused
 * (the cache must notice a reused handle whose processes changed).
 *
 * Both results are also checked against an oracle of the test's own, computed on each
 * process from the fill formulas and the descriptors alone (every process can compute any
 * process's data). redist must match the oracle; where ScaLAPACK's result differs from it, the
 * test prints a note and goes on, as the error is the peer's: Debian 12's libscalapack-mpich
 * gets some single-precision cases wrong at 7 processes (pstrmr2d, pstranu, pctranc), where
 * its libscalapack-openmpi, redist and the oracle agree.
 *
 * This test links redist's entry points under their redist_ names only, so that pdgemr2d_
 * is ScaLAPACK's. Options: --seed S, --cases C, --case K. */
#include <complex.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

#include "support/blacs.h"

#define GEMR(t)                                                                                    \
    void p##t##gemr2d_(int *, int *, void *, int *, int *, int *, void *, int *, int *, int *,     \
                       int *)
#define TRMR(t)                                                                                    \
    void p##t##trmr2d_(char *, char *, int *, int *, void *, int *, int *, int *, void *, int *,   \
                       int *, int *, int *)
GEMR(s);
GEMR(d);
GEMR(c);
GEMR(z);
GEMR(i);
TRMR(s);
TRMR(d);
TRMR(c);
TRMR(z);
TRMR(i);

typedef void (*gemr_fn)(int *, int *, void *, int *, int *, int *, void *, int *, int *, int *,
                        int *);
typedef void (*trmr_fn)(char *, char *, int *, int *, void *, int *, int *, int *, void *, int *,
                        int *, int *, int *);
typedef void (*tran_fn)(int *, int *, void *, void *, int *, int *, int *, void *, void *, int *,
                        int *, int *);
#define TRAN(t)                                                                                    \
    void p##t##_(int *, int *, void *, void *, int *, int *, int *, void *, void *, int *, int *,  \
                 int *)
TRAN(stran);
TRAN(dtran);
TRAN(ctranu);
TRAN(ztranu);
TRAN(ctranc);
TRAN(ztranc);

typedef struct {
    const char *name;
    size_t size;
    gemr_fn scalapack_ge, redist_ge;
    trmr_fn scalapack_tr, redist_tr;
    tran_fn scalapack_tu, redist_tu, scalapack_tc, redist_tc; /* transposes: NULL for i */
    int parts;                                                /* 2 for complex */
    mtest_scalar scalar;
} type_t;

#define G(f) ((gemr_fn)(void (*)(void))(f))
#define T(f) ((trmr_fn)(void (*)(void))(f))
#define X(f) ((tran_fn)(void (*)(void))(f))
static const type_t types[] = {
    {"s", 4, G(psgemr2d_), G(redist_psgemr2d), T(pstrmr2d_), T(redist_pstrmr2d), X(pstran_),
     X(redist_pstran), X(pstran_), X(redist_pstran), 1, MTEST_FLOAT},
    {"d", 8, G(pdgemr2d_), G(redist_pdgemr2d), T(pdtrmr2d_), T(redist_pdtrmr2d), X(pdtran_),
     X(redist_pdtran), X(pdtran_), X(redist_pdtran), 1, MTEST_DOUBLE},
    {"c", 8, G(pcgemr2d_), G(redist_pcgemr2d), T(pctrmr2d_), T(redist_pctrmr2d), X(pctranu_),
     X(redist_pctranu), X(pctranc_), X(redist_pctranc), 2, MTEST_FLOAT},
    {"z", 16, G(pzgemr2d_), G(redist_pzgemr2d), T(pztrmr2d_), T(redist_pztrmr2d), X(pztranu_),
     X(redist_pztranu), X(pztranc_), X(redist_pztranc), 2, MTEST_DOUBLE},
    {"i", 4, G(pigemr2d_), G(redist_pigemr2d), T(pitrmr2d_), T(redist_pitrmr2d), NULL, NULL, NULL,
     NULL, 1, MTEST_INT},
};

static int me, np, errs, calls_compared, peer_differs;
static uint64_t rng;

static int rnd(int lo, int hi) /* inclusive */
{
    return (int)mtest_rand(&rng, lo, hi);
}

/* A grid over the given processes (world ranks), rows x cols, placed column-major in the
   usermap as BLACS takes it; returns the context (-1 on processes outside). */
static int make_grid(const int *procs, int rows, int cols)
{
    int sys = 0, *map = malloc((size_t)(rows * cols) * sizeof *map);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            map[i + j * rows] = procs[i * cols + j];
    Cblacs_get(0, 0, &sys);
    Cblacs_gridmap(&sys, map, rows, rows, cols);
    free(map);
    return sys;
}

typedef struct {
    int ctxt, desc[9];
    int rows, cols;
    int64_t local;                /* elements of the local array, LLD x local columns */
    int pad;                      /* LLD = max(local rows, 1) + pad on every process */
    int myrow, mycol, local_rows; /* this process's place in the grid and its rows */
    const int *procs;             /* world rank of grid process (r, c): procs[r * cols + c] */
} matrix_t;

/* A descriptor for an M x N matrix on context ctxt (this process's part; -1 outside). */
static void make_matrix(matrix_t *mt, int ctxt, const int *procs, int rows, int cols, int m_needed,
                        int n_needed)
{
    memset(mt, 0, sizeof *mt);
    mt->ctxt = ctxt;
    mt->procs = procs;
    mt->rows = rows;
    mt->cols = cols;
    int M = m_needed + rnd(0, 9), N = n_needed + rnd(0, 9);
    int mb = rnd(0, 4) ? rnd(1, 6) : rnd(1, 50), nb = rnd(0, 4) ? rnd(1, 6) : rnd(1, 50);
    int rsrc = rnd(0, rows - 1), csrc = rnd(0, cols - 1), pad = rnd(0, 2) ? 0 : rnd(1, 3);
    int nprow = 0, npcol = 0, myrow = -1, mycol = -1;
    if (ctxt != -1)
        Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    int lr = 0, lc = 0;
    if (ctxt != -1 && myrow >= 0) {
        lr = numroc_(&M, &mb, &myrow, &rsrc, &nprow);
        lc = numroc_(&N, &nb, &mycol, &csrc, &npcol);
    }
    int lld = (lr > 1 ? lr : 1) + pad;
    mt->pad = pad;
    mt->myrow = myrow, mt->mycol = mycol, mt->local_rows = lr;
    int d[9] = {1, ctxt, M, N, mb, nb, rsrc, csrc, lld};
    memcpy(mt->desc, d, sizeof d);
    mt->local = ctxt != -1 && myrow >= 0 ? (int64_t)lld * lc : 0;
}

/* Byte k of local element i of process `rank`'s array filled with `salt`. */
static unsigned char fill_byte(int64_t i, size_t k, int salt, int rank)
{
    return (unsigned char)(i * 131 + (int64_t)k * 7 + salt * 31 + rank * 17 + 1);
}

static void fill(unsigned char *buf, int64_t n, size_t es, int salt)
{
    for (int64_t i = 0; i < n; i++)
        for (size_t k = 0; k < es; k++)
            buf[i * (int64_t)es + k] = fill_byte(i, k, salt, me);
}

/* Small nonzero integers, so that every product and sum of a transpose case is exact. */
static double fill_number(int64_t i, int k, int salt, int rank)
{
    return (double)(1 + (i * 7 + k * 5 + salt * 3 + rank * 11) % 29);
}

static void fill_numbers(const type_t *t, unsigned char *buf, int64_t n, int salt)
{
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < t->parts; k++)
            mtest_set_part(t->scalar, t->parts, buf, i, k, fill_number(i, k, salt, me));
}

/* ---- The oracle: where global element (gi, gj) (0-based) of a matrix lives ------------- */
typedef struct {
    int rank;      /* world rank of the owner */
    int64_t local; /* its index in the owner's local array */
} place_t;

/* Coordinate and local index of global index g, cyclic(b) over p processes from src. */
static void cyclic(int64_t g, int b, int p, int src, int *coord, int64_t *local)
{
    *coord = (int)((src + g / b) % p);
    *local = g / ((int64_t)b * p) * b + g % b;
}

static place_t place_of(const matrix_t *mt, int64_t gi, int64_t gj)
{
    const int *d = mt->desc;
    int r, c;
    int64_t li, lj;
    cyclic(gi, d[4], mt->rows, d[6], &r, &li);
    cyclic(gj, d[5], mt->cols, d[7], &c, &lj);
    int M = d[2], mb = d[4], rsrc = d[6], nprow = mt->rows;
    int lr = numroc_(&M, &mb, &r, &rsrc, &nprow);
    place_t pl = {mt->procs[r * mt->cols + c], li + lj * ((lr > 1 ? lr : 1) + mt->pad)};
    return pl;
}

/* Global (gi, gj) of this process's local element l; 0 if l is LLD padding. */
static int global_of(const matrix_t *mt, int64_t l, int64_t *gi, int64_t *gj)
{
    const int *d = mt->desc;
    int64_t li = l % d[8], lj = l / d[8];
    if (li >= mt->local_rows)
        return 0;
    *gi = mtest_global_of(li, d[4], mt->rows, d[6], mt->myrow);
    *gj = mtest_global_of(lj, d[5], mt->cols, d[7], mt->mycol);
    return 1;
}

/* Whether element (i, j) of an m x n sub-matrix is in p?trmr2d's trapezoid (docs/scalapack.md:
   column j (1-based) of an upper one holds rows 1 .. min(max(m - n, 0) + j - unit, m), of a
   lower one rows max(1, j - max(n - m, 0) + unit) .. m). */
static int in_trapezoid(char uplo, char diag, int m, int n, int64_t i, int64_t j)
{
    int64_t unit = diag == 'U', row = i + 1, col = j + 1;
    if (uplo == 'U')
        return row <= (m - n > 0 ? m - n : 0) + col - unit;
    return row >= col - (n - m > 0 ? n - m : 0) + unit;
}

/* What p?gemr2d / p?trmr2d leave in this process's local array of B (filled with salt 2 before),
   A filled with salt 1 on every process. */
static void oracle_copy(unsigned char *out, const matrix_t *A, const matrix_t *B, size_t es, int m,
                        int n, int ia, int ja, int ib, int jb, char uplo, char diag)
{
    fill(out, B->local, es, 2);
    for (int64_t l = 0; l < B->local; l++) {
        int64_t gi, gj;
        if (!global_of(B, l, &gi, &gj))
            continue;
        int64_t i = gi - (ib - 1), j = gj - (jb - 1);
        if (i < 0 || i >= m || j < 0 || j >= n || (uplo && !in_trapezoid(uplo, diag, m, n, i, j)))
            continue;
        place_t from = place_of(A, ia - 1 + i, ja - 1 + j);
        for (size_t k = 0; k < es; k++)
            out[l * (int64_t)es + k] = fill_byte(from.local, k, 1, from.rank);
    }
}

/* What p?tran* leave in C: sub(C) := beta sub(C) + alpha op(sub(A)), computed exactly on the
   small integers and dyadic scalars of the cases. */
static void oracle_tran(const type_t *t, int conj, unsigned char *out, const matrix_t *A,
                        const matrix_t *C, int m, int n, int ia, int ja, int ic, int jc,
                        const double alpha[2], const double beta[2])
{
    fill_numbers(t, out, C->local, 2);
    for (int64_t l = 0; l < C->local; l++) {
        int64_t gi, gj;
        if (!global_of(C, l, &gi, &gj))
            continue;
        int64_t i = gi - (ic - 1), j = gj - (jc - 1);
        if (i < 0 || i >= m || j < 0 || j >= n)
            continue;
        place_t from = place_of(A, ia - 1 + j, ja - 1 + i); /* op(A)(i, j) = A(j, i) */
        double a[2] = {fill_number(from.local, 0, 1, from.rank), 0.0},
               c[2] = {mtest_get_part(t->scalar, t->parts, out, l, 0), 0.0};
        if (t->parts == 2) {
            a[1] = fill_number(from.local, 1, 1, from.rank) * (conj ? -1.0 : 1.0);
            c[1] = mtest_get_part(t->scalar, t->parts, out, l, 1);
        }
        double re = beta[0] * c[0] - beta[1] * c[1] + alpha[0] * a[0] - alpha[1] * a[1],
               im = beta[0] * c[1] + beta[1] * c[0] + alpha[0] * a[1] + alpha[1] * a[0];
        mtest_set_part(t->scalar, t->parts, out, l, 0, re);
        if (t->parts == 2)
            mtest_set_part(t->scalar, t->parts, out, l, 1, im);
    }
}

/* A ScaLAPACK result that differs from the oracle: the peer's error, noted, not failed. */
static void note_peer(const char *what, int64_t element)
{
    peer_differs++;
    printf("[rank %d] note: ScaLAPACK's own result differs from the oracle at element %lld of "
           "the local array: %s\n",
           me, (long long)element, what);
}

/* A transpose: sub(C) (m x n) := beta sub(C) + alpha op(sub(A)), sub(A) n x m, both on
   the union's grid (PBLAS's single context). */
static void tran_case(int index, int uctxt, const int *procs, int ur, int uc)
{
    static const double dyadic[] = {0.0, 1.0, -1.0, 0.5, 2.0, -3.0};
    const type_t *t = &types[rnd(0, 3)];
    int conj = t->parts == 2 && rnd(0, 1);
    int m = rnd(0, 9) ? rnd(1, 30) : 0, n = rnd(0, 9) ? rnd(1, 30) : 0;
    double alpha[2] = {dyadic[rnd(0, 5)], t->parts == 2 ? dyadic[rnd(0, 5)] : 0.0};
    double beta[2] = {dyadic[rnd(0, 5)], t->parts == 2 ? dyadic[rnd(0, 5)] : 0.0};
    matrix_t A, C;
    make_matrix(&A, uctxt, procs, ur, uc, n, m);
    make_matrix(&C, uctxt, procs, ur, uc, m, n);
    int ia = rnd(1, A.desc[2] - n + 1), ja = rnd(1, A.desc[3] - m + 1);
    int ic = rnd(1, C.desc[2] - m + 1), jc = rnd(1, C.desc[3] - n + 1);
    if (uctxt == -1)
        return;
    size_t es = t->size;
    unsigned char al[16], be[16];
    for (int k = 0; k < t->parts; k++) {
        mtest_set_part(t->scalar, t->parts, al, 0, k, alpha[k]);
        mtest_set_part(t->scalar, t->parts, be, 0, k, beta[k]);
    }
    unsigned char *a = malloc((size_t)(A.local + 1) * es),
                  *want = malloc((size_t)(C.local + 1) * es),
                  *got = malloc((size_t)(C.local + 1) * es),
                  *oracle = malloc((size_t)(C.local + 1) * es);
    fill_numbers(t, a, A.local, 1);
    fill_numbers(t, want, C.local, 2);
    (conj ? t->scalapack_tc : t->scalapack_tu)(&m, &n, al, a, &ia, &ja, A.desc, be, want, &ic, &jc,
                                               C.desc);
    oracle_tran(t, conj, oracle, &A, &C, m, n, ia, ja, ic, jc, alpha, beta);
    for (int call = 0; call < 2; call++) {
        fill_numbers(t, got, C.local, 2);
        (conj ? t->redist_tc : t->redist_tu)(&m, &n, al, a, &ia, &ja, A.desc, be, got, &ic, &jc,
                                             C.desc);
        const char *detail = NULL;
        int rc = redist_scalapack_last_error(&detail);
        char what[200];
        snprintf(what, sizeof what,
                 "case %d call %d p%stran%s m=%d n=%d alpha=(%g,%g) beta=(%g,%g) grid %dx%d A "
                 "%dx%d blocks %dx%d ia=%d ja=%d C %dx%d blocks %dx%d ic=%d jc=%d",
                 index, call, t->name, conj ? "c" : "u", m, n, alpha[0], alpha[1], beta[0], beta[1],
                 ur, uc, A.desc[2], A.desc[3], A.desc[4], A.desc[5], ia, ja, C.desc[2], C.desc[3],
                 C.desc[4], C.desc[5], ic, jc);
        if (rc != REDIST_SUCCESS)
            mtest_fail(&errs, me, what, "%s: %s", redist_strerror(rc), detail);
        int64_t bad = mtest_first_difference(t->scalar, t->parts, got, oracle, C.local);
        if (bad)
            mtest_fail(&errs, me, what, "element %lld of C's local array: %g, want %g",
                       (long long)bad - 1, mtest_get_part(t->scalar, t->parts, got, bad - 1, 0),
                       mtest_get_part(t->scalar, t->parts, oracle, bad - 1, 0));
        if (call == 0 &&
            (bad = mtest_first_difference(t->scalar, t->parts, want, oracle, C.local)) != 0)
            note_peer(what, bad - 1);
        calls_compared++;
    }
    free(a);
    free(want);
    free(got);
    free(oracle);
}

static void one_case(int index)
{
    int sys_world = 0;
    Cblacs_get(0, 0, &sys_world);
    /* The union: all processes or a random subset, in a random shape and order. */
    int *all = malloc((size_t)np * sizeof *all);
    for (int i = 0; i < np; i++)
        all[i] = i;
    mtest_shuffle(&rng, all, np);
    int nu = rnd(0, 2) ? np : rnd(1, np), ur, uc;
    mtest_factor(&rng, nu, &ur, &uc);
    int uctxt = make_grid(all, ur, uc);
    if (rnd(0, 2) == 0) {
        tran_case(index, uctxt, all, ur, uc);
        if (uctxt != -1)
            Cblacs_gridexit(uctxt);
        free(all);
        return;
    }
    /* A's and B's grids on subsets of the union (drawn from its first nu of `all`). */
    int pa = rnd(1, nu), pb = rnd(1, nu), ar, ac, br, bc;
    int *sa = malloc((size_t)nu * sizeof *sa), *sb = malloc((size_t)nu * sizeof *sb);
    memcpy(sa, all, (size_t)nu * sizeof *sa);
    memcpy(sb, all, (size_t)nu * sizeof *sb);
    mtest_shuffle(&rng, sa, nu);
    if (rnd(0, 3) == 0)
        memcpy(sb, sa, (size_t)nu * sizeof *sb); /* the same processes */
    else
        mtest_shuffle(&rng, sb, nu);
    if (rnd(0, 3) == 0 && nu >= 2) { /* disjoint sets */
        pa = rnd(1, nu - 1);
        pb = nu - pa;
        memcpy(sb, sa + pa, (size_t)pb * sizeof *sb);
    }
    mtest_factor(&rng, pa, &ar, &ac);
    mtest_factor(&rng, pb, &br, &bc);
    int actxt = make_grid(sa, ar, ac), bctxt = make_grid(sb, br, bc);
    int m = rnd(0, 9) ? rnd(1, 30) : 0, n = rnd(0, 9) ? rnd(1, 30) : 0;
    matrix_t A, B;
    make_matrix(&A, actxt, sa, ar, ac, m, n);
    make_matrix(&B, bctxt, sb, br, bc, m, n);
    int ia = rnd(1, A.desc[2] - m + 1), ja = rnd(1, A.desc[3] - n + 1);
    int ib = rnd(1, B.desc[2] - m + 1), jb = rnd(1, B.desc[3] - n + 1);
    const type_t *t = &types[rnd(0, 4)];
    int tri = rnd(0, 2) == 0;
    char uplo = rnd(0, 1) ? 'U' : 'L', diag = rnd(0, 1) ? 'U' : 'N';
    if (uctxt != -1) { /* processes of the union call; the others are not part of it */
        size_t es = t->size;
        unsigned char *a = malloc((size_t)(A.local + 1) * es),
                      *want = malloc((size_t)(B.local + 1) * es),
                      *got = malloc((size_t)(B.local + 1) * es),
                      *oracle = malloc((size_t)(B.local + 1) * es);
        oracle_copy(oracle, &A, &B, es, m, n, ia, ja, ib, jb, tri ? uplo : 0, diag);
        fill(a, A.local, es, 1);
        fill(want, B.local, es, 2);
        if (tri)
            t->scalapack_tr(&uplo, &diag, &m, &n, a, &ia, &ja, A.desc, want, &ib, &jb, B.desc,
                            &uctxt);
        else
            t->scalapack_ge(&m, &n, a, &ia, &ja, A.desc, want, &ib, &jb, B.desc, &uctxt);
        for (int call = 0; call < 2; call++) {
            fill(got, B.local, es, 2);
            if (tri)
                t->redist_tr(&uplo, &diag, &m, &n, a, &ia, &ja, A.desc, got, &ib, &jb, B.desc,
                             &uctxt);
            else
                t->redist_ge(&m, &n, a, &ia, &ja, A.desc, got, &ib, &jb, B.desc, &uctxt);
            const char *detail = NULL;
            int rc = redist_scalapack_last_error(&detail);
            char what[160];
            snprintf(what, sizeof what,
                     "case %d call %d p%s%s m=%d n=%d A %dx%d (%d,%d) blocks %dx%d ia=%d ja=%d "
                     "B %dx%d (%d,%d) blocks %dx%d ib=%d jb=%d %c%c",
                     index, call, t->name, tri ? "trmr2d" : "gemr2d", m, n, ar, ac, A.desc[2],
                     A.desc[3], A.desc[4], A.desc[5], ia, ja, br, bc, B.desc[2], B.desc[3],
                     B.desc[4], B.desc[5], ib, jb, tri ? uplo : ' ', tri ? diag : ' ');
            if (rc != REDIST_SUCCESS)
                mtest_fail(&errs, me, what, "%s: %s", redist_strerror(rc), detail);
            int64_t bad = 0, peer_bad = 0;
            for (int64_t i = 0; i < B.local * (int64_t)es; i++) {
                if (got[i] != oracle[i] && bad++ == 0)
                    mtest_fail(&errs, me, what, "byte %lld of B's local array differs",
                               (long long)i);
                if (call == 0 && want[i] != oracle[i] && peer_bad++ == 0)
                    note_peer(what, i / (int64_t)es);
            }
            calls_compared++;
        }
        free(a);
        free(want);
        free(got);
        free(oracle);
    }
    if (actxt != -1)
        Cblacs_gridexit(actxt);
    if (bctxt != -1)
        Cblacs_gridexit(bctxt);
    if (uctxt != -1)
        Cblacs_gridexit(uctxt);
    free(all);
    free(sa);
    free(sb);
}

/* Extreme values of one argument of pdgemr2d or pdtran (on a 1 x np grid, A and B alike):
   refused on every process, with no overflow on the way (which the sanitizer build would
   report), or accepted where they mean nothing. */
static void extreme_cases(int ctxt, const int desc[9], double *a, double *b)
{
    enum { M = -1, IA = -2 }; /* else the index of the desca entry */
    static const struct {
        const char *what;
        int tran, arg, value, last_only, want;
    } cases[] = {{"pdgemr2d: m = INT_MAX", 0, M, INT_MAX, 0, REDIST_ERR_ARG},
                 {"pdgemr2d: ia = INT_MAX", 0, IA, INT_MAX, 0, REDIST_ERR_ARG},
                 {"pdgemr2d: ia = INT_MIN on the last process", 0, IA, INT_MIN, 1, REDIST_ERR_ARG},
                 {"pdgemr2d: RSRC = INT_MIN on the last process", 0, 6, INT_MIN, 1, REDIST_ERR_ARG},
                 {"pdgemr2d: LLD = INT_MIN on the last process", 0, 8, INT_MIN, 1, REDIST_ERR_ARG},
                 {"pdgemr2d: MB = INT_MAX (one process row)", 0, 4, INT_MAX, 0, REDIST_SUCCESS},
                 {"pdtran: m = INT_MAX", 1, M, INT_MAX, 0, REDIST_ERR_ARG},
                 {"pdtran: ia = INT_MIN", 1, IA, INT_MIN, 0, REDIST_ERR_ARG},
                 {"pdtran: DTYPE = INT_MIN on the last process", 1, 0, INT_MIN, 1, REDIST_ERR_ARG},
                 {"pdtran: desca[CTXT] = -1 on the last process", 1, 1, -1, 1, REDIST_ERR_ARG},
                 {"pdtran: MB = INT_MAX (one process row)", 1, 4, INT_MAX, 0, REDIST_SUCCESS}};
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
        int m = 8, n = 8, ia = 1, one = 1, da[9], db[9], set = !cases[k].last_only || me == np - 1;
        double alpha = 1.0, beta = 0.0;
        memcpy(da, desc, sizeof da);
        memcpy(db, desc, sizeof db);
        if (set)
            *(cases[k].arg == M    ? &m
              : cases[k].arg == IA ? &ia
                                   : &da[cases[k].arg]) = cases[k].value;
        if (cases[k].tran)
            redist_pdtran(&m, &n, &alpha, a, &ia, &one, da, &beta, b, &one, &one, db);
        else
            redist_pdgemr2d(&m, &n, a, &ia, &one, da, b, &one, &one, db, &ctxt);
        const char *detail = NULL;
        int rc = redist_scalapack_last_error(&detail);
        if (rc != cases[k].want)
            mtest_fail(&errs, me, "extreme", "%s: got %s (%s), want %s", cases[k].what,
                       redist_strerror(rc), detail, redist_strerror(cases[k].want));
    }
}

/* On an np x 1 grid, C plain (n x n in 3 x 3 blocks): a replicated A (RSRC = -1, the same
   on every process), which PBLAS and redist accept, every element of C checked; and a DTYPE
   2 descriptor whose first block is not MB, which PBLAS accepts and redist cannot describe:
   REDIST_ERR_UNSUPPORTED on every process when there is something to move and more than one
   process row; SUCCESS for m = 0 or alpha = 0 with beta = 1 (nothing to do, as in PBLAS) or
   on one process row (where it means nothing). */
static void pblas_replicated_cases(void)
{
    int ctxt = 0, n = 12, one = 1, zero = 0, three = 3;
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", np, 1);
    int rows = numroc_(&n, &three, &me, &zero, &np);
    double *a = calloc((size_t)(n * n), sizeof *a), *c = calloc((size_t)(n * n), sizeof *c);
    for (int j = 0; j < n; j++) /* A(i, j) = 100 i + j on every replica */
        for (int i = 0; i < n; i++)
            a[i + j * n] = 100.0 * i + j;
    double alpha = 1.0, beta = 0.0;
    int replicated[9] = {1, ctxt, n, n, 3, 3, -1, 0, n}, plain[9] = {1, ctxt, n, n, 3, 3, 0, 0, n};
    int first_block[11] = {2, ctxt, n, n, 2, 3, 3, 3, 0, 0, n};
    int *descs[2] = {replicated, first_block};
    for (int k = 0; k < 6; k++) { /* m = 0, then m = 8, then alpha = 0 with beta = 1 */
        int m = k < 2 ? 0 : 8, quick = k >= 4;
        int want = m > 0 && !quick && np > 1 && k % 2 ? REDIST_ERR_UNSUPPORTED : REDIST_SUCCESS;
        alpha = quick ? 0.0 : 1.0;
        beta = quick ? 1.0 : 0.0;
        for (int i = 0; i < n * n; i++)
            c[i] = -1.0;
        redist_pdtran(&m, &m, &alpha, a, &one, &one, descs[k % 2], &beta, c, &one, &one, plain);
        const char *detail = NULL;
        int rc = redist_scalapack_last_error(&detail);
        if (rc != want)
            mtest_fail(&errs, me, "pblas",
                       "pdtran m = %d, alpha %g, beta %g, A %s: got %s (%s), "
                       "want %s",
                       m, alpha, beta, k % 2 ? "with a first block of 2 rows" : "replicated",
                       redist_strerror(rc), detail, redist_strerror(want));
        int moved = rc == REDIST_SUCCESS && m > 0 && !quick;
        for (int j = 0; j < n; j++) /* C(i, j) = A(j, i) in the m x m corner, else untouched */
            for (int li = 0; li < rows; li++) {
                int i = (int)mtest_global_of(li, 3, np, 0, me);
                double want_c = moved && i < m && j < m ? 100.0 * j + i : -1.0;
                if (c[li + j * n] != want_c) {
                    mtest_fail(&errs, me, "pblas", "pdtran m = %d, A %s: C(%d, %d) = %g, want %g",
                               m, k % 2 ? "with a first block of 2 rows" : "replicated", i, j,
                               c[li + j * n], want_c);
                    j = n;
                    break;
                }
            }
    }
    free(a);
    free(c);
    Cblacs_gridexit(ctxt);
}

/* Arguments that differ between processes or are wrong on one: every process gets the same
   code, and none waits for the others. */
static void hostile_cases(void)
{
    int ctxt = 0, rows = 1, cols = np, zero = 0;
    Cblacs_get(0, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", rows, cols);
    int n = 12, nb = 3, r, c, nr, nc;
    Cblacs_gridinfo(ctxt, &nr, &nc, &r, &c);
    int lc = numroc_(&n, &nb, &c, &zero, &nc), one = 1;
    int desc[9] = {1, ctxt, n, n, nb, nb, 0, 0, n};
    double *a = calloc((size_t)(n * lc + 1), sizeof *a),
           *b = calloc((size_t)(n * lc + 1), sizeof *b);
    static const struct {
        const char *what;
        int want;
    } cases[] = {
        {"m differs on the last process", REDIST_ERR_MISMATCH},
        {"m = 0 with garbage descriptors, ia and ictxt (nothing read)", REDIST_SUCCESS},
        {"LLD too small on the last process", REDIST_ERR_ARG},
        {"DTYPE 2 on the first process (p?gemr2d never reads it)", REDIST_SUCCESS},
        {"NB differs on the last process (of a 1 x np grid)", REDIST_ERR_MISMATCH},
        {"pzgemr2d on the last process, pdgemr2d elsewhere", REDIST_ERR_MISMATCH},
        {"ia past the matrix", REDIST_ERR_ARG},
        {"m = n = 0 with garbage descriptors", REDIST_SUCCESS},
        {"pdtran: alpha differs on the last process", REDIST_ERR_MISMATCH},
        {"pdtran: C in another context", REDIST_ERR_ARG},
        {"pdtran: alpha = 0, beta = 1 (C untouched)", REDIST_SUCCESS},
        {"pdtrmr2d: uplo 'X' (lower) on the last process, 'U' elsewhere", REDIST_ERR_MISMATCH}};
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
        int m = 8, nn = 8, da[9], db[9], ia = 1, last = me == np - 1;
        memcpy(da, desc, sizeof da);
        memcpy(db, desc, sizeof db);
        if (k == 0 && last && np > 1)
            m = 7;
        int ictxt = ctxt;
        if (k == 1) { /* ScaLAPACK returns before reading anything else, on every process */
            m = 0;
            da[1] = db[1] = da[2] = db[4] = ia = ictxt = -77;
        }
        if (k == 2 && last)
            db[8] = 1;
        if (k == 3 && me == 0)
            da[0] = 2;
        if (k == 4 && last && np > 1) /* MB would mean nothing: one process row */
            db[5] = 4;
        if (k == 6)
            ia = 10;
        if (k == 7) {
            m = nn = 0;
            da[2] = -5;
            db[4] = 0;
        }
        if (k == 11) { /* lower on one process, upper elsewhere: told everywhere, nobody waits */
            char uplo = last ? 'X' : 'U', diag = 'N';
            redist_pdtrmr2d(&uplo, &diag, &m, &nn, a, &ia, &one, da, b, &one, &one, db, &ctxt);
        } else if (k >= 8) { /* transposes */
            double alpha = k == 8 && last ? 3.0 : k == 10 ? 0.0 : 1.0, beta = k == 10 ? 1.0 : 0.0;
            if (k == 9)
                db[1] = ctxt + 1000;
            for (int i = 0; k == 10 && i < n * lc; i++)
                b[i] = 0.0 / 0.0; /* NaN: neither read nor written */
            redist_pdtran(&m, &nn, &alpha, a, &ia, &one, da, &beta, b, &one, &one, db);
            for (int i = 0; k == 10 && i < n * lc; i++)
                if (b[i] == b[i]) {
                    mtest_fail(&errs, me, "hostile", "alpha = 0, beta = 1 changed C");
                    break;
                }
        } else if (k == 5 && last && np > 1) {
            double complex *za = calloc((size_t)(n * lc + 1), sizeof *za),
                           *zb = calloc((size_t)(n * lc + 1), sizeof *zb);
            redist_pzgemr2d(&m, &nn, za, &ia, &one, da, zb, &one, &one, db, &ctxt);
            free(za);
            free(zb);
        } else {
            redist_pdgemr2d(&m, &nn, a, &ia, &one, da, b, &one, &one, db, &ictxt);
        }
        const char *detail = NULL;
        int rc = redist_scalapack_last_error(&detail), want = cases[k].want;
        if ((k == 0 || k == 4 || k == 5 || k == 8 || k == 11) && np == 1)
            want = REDIST_SUCCESS; /* nothing differs with one process */
        if (rc != want)
            mtest_fail(&errs, me, "hostile", "%s: got %s (%s), want %s", cases[k].what,
                       redist_strerror(rc), detail, redist_strerror(want));
    }
    extreme_cases(ctxt, desc, a, b);
    pblas_replicated_cases();
    free(a);
    free(b);
    Cblacs_gridexit(ctxt);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&me, &np);
    uint64_t seed = 20261123;
    int cases = 120, only = -1;
    mtest_case_args(argc, argv, &seed, &cases, &only);
    for (int i = 0; i < cases; i++) {
        rng = mtest_case_state(seed, i);
        if (only < 0 || only == i)
            one_case(i);
    }
    if (only < 0)
        hostile_cases();
    int total = 0, differs = 0;
    MPI_Reduce(&calls_compared, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&peer_differs, &differs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%d calls checked against the oracle over %d cases; ScaLAPACK's own result "
               "differs from it on %d process-calls\n",
               total, cases, differs);
    return mtest_finalize(errs);
}
