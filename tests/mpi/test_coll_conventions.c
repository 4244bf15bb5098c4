/* nprocs: 1 2 3 4 5 7 8 */
/* MPI's conventions for the basic communication operations ([GGKK03], src/coll/):
 *
 * 1. MPI_IN_PLACE where MPI allows it, against the MPI library's own collective called with
 *    the same MPI_IN_PLACE form, element by element, for every algorithm of the operation
 *    (redist_coll_algorithm_name) plus NULL and "auto" (an algorithm that returns
 *    REDIST_ERR_NOT_APPLICABLE on every rank is skipped, if redist_coll_predict says so or the
 *    op is a non-commutative reduce_scatter), every root, counts 0, 1 and 37 of MPI_INT
 *    (MPI_SUM, and a non-commutative 2x2 matrix product for the reductions) and 37 elements
 *    of a contiguous 3-double type (a non-commutative user op for the reductions):
 *    scatter (the root's recvbuf), gather (the root's sendbuf), allgather, alltoall,
 *    reduce_scatter (MPI_Reduce_scatter_block's form), shift (as MPI_Sendrecv_replace), reduce
 *    at the root, allreduce and scan. Every buffer has guard bytes on both sides; a root's
 *    sendbuf and every non-in-place sendbuf must stay unchanged, and a buffer of a call that
 *    failed must be untouched.
 * 2. MPI_IN_PLACE where MPI does not allow it: REDIST_ERR_ARG on every rank, whether one
 *    rank or all pass it, the detail naming MPI_IN_PLACE on every rank.
 * 3. Arguments that differ between ranks (count, root, algorithm, shift on the last rank):
 *    REDIST_ERR_MISMATCH on every rank, the detail naming the argument, no data written; then
 *    a correct call on the same communicator works. NULL and "auto" are the same algorithm;
 *    shifts that differ by a multiple of p are the same shift.
 * 4. A failure on one rank only (count -1 on rank 0, an unknown algorithm on the last rank):
 *    the same code on every rank, the detail naming the failing rank on every rank.
 * 5. Before MPI_Init every operation returns REDIST_ERR_MPI.
 * Every return code must be the same on every rank. Output: " No Errors" on success, else
 * one line per failed check and " Found N errors"; exit status non-zero on error.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redist.h"
#include "support/mtest.h"

#define W MPI_COMM_WORLD
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define GUARD 64
#define GUARD_BYTE 0xa5
#define JUNK 0x5a
#define MAXN 38 /* largest count of the MPI_INT calls of parts 2 to 4 */

static int rank, size, errs;

enum {
    OP_BCAST,
    OP_REDUCE,
    OP_ALLREDUCE,
    OP_SCAN,
    OP_SCATTER,
    OP_GATHER,
    OP_ALLGATHER,
    OP_REDUCE_SCATTER,
    OP_ALLTOALL,
    OP_SHIFT,
    NOPS
};
static const char *const opname[NOPS] = {"bcast",    "reduce", "allreduce", "scan",
                                         "scatter",  "gather", "allgather", "reduce_scatter",
                                         "alltoall", "shift"};

static int rooted(int op)
{
    return op == OP_BCAST || op == OP_REDUCE || op == OP_SCATTER || op == OP_GATHER;
}

static const char *nm(const char *a)
{
    return a != NULL ? a : "NULL";
}

/* ---- element kinds ------------------------------------------------------------------------ */

/* K_INT: MPI_INT with MPI_SUM; K_MAT: MPI_INT holding a packed 2x2 matrix over Z_256 with the
   (non-commutative) matrix product; K_T3: 3 contiguous doubles (a, b, c) with the
   (non-commutative) composition of affine maps x -> a x + b, c summed. */
enum { K_INT, K_MAT, K_T3 };
static MPI_Datatype t3;
static MPI_Op matop, affop;

/* inout = in o inout for affine maps (a, b) (x -> a x + b, applied right to left), c summed.
   The values are small integers: exact in double. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const double *x = in;
    double *y = inout;
    for (int i = 0; i < *len; i++, x += 3, y += 3) {
        double a = x[0] * y[0], b = x[0] * y[1] + x[1], c = x[2] + y[2];
        y[0] = a, y[1] = b, y[2] = c;
    }
}

static size_t esize(int k)
{
    return k == K_T3 ? 3 * sizeof(double) : sizeof(int);
}
static MPI_Datatype ktype(int k)
{
    return k == K_T3 ? t3 : MPI_INT;
}
static MPI_Op kop(int k)
{
    return k == K_INT ? MPI_SUM : k == K_MAT ? matop : affop;
}
static const char *kname(int k)
{
    return k == K_INT ? "int" : k == K_MAT ? "int matmul" : "3 doubles";
}

/* n elements of kind k, different for different seeds and positions. */
static void fill(int k, void *buf, int64_t n, int seed)
{
    for (int64_t i = 0; i < n; i++) {
        if (k == K_INT) {
            ((int *)buf)[i] = (int)((seed * 131 + i * 7) % 1999) - 500;
        } else if (k == K_MAT) {
            unsigned m00 = (unsigned)(seed + i) & 255, m01 = (unsigned)(seed * 3 + 1) & 255;
            unsigned m10 = (unsigned)(i * 5 + seed) & 255, m11 = ((unsigned)(seed ^ i) & 255) | 1;
            ((unsigned *)buf)[i] = m00 | m01 << 8 | m10 << 16 | m11 << 24;
        } else {
            double *d = (double *)buf + 3 * i;
            d[0] = (seed + i) % 3 == 0 ? -1.0 : 1.0;
            d[1] = (double)((seed * 13 + i * 7) % 19) - 9.0;
            d[2] = (double)seed * 100.0 + (double)i;
        }
    }
}

/* ---- buffers with guard bytes ------------------------------------------------------------- */

static char *gbuf(size_t bytes)
{
    char *b = malloc(bytes + 2 * GUARD);
    if (b == NULL) {
        printf("[rank %d] out of memory\n", rank);
        MPI_Abort(W, 2);
    }
    memset(b, GUARD_BYTE, bytes + 2 * GUARD);
    return b + GUARD;
}

static void gfree(char *p)
{
    if (p != NULL)
        free(p - GUARD);
}

static char *gcopy(const char *p, size_t bytes)
{
    char *c = gbuf(bytes);
    memcpy(c, p, bytes);
    return c;
}

static void guards(const char *p, size_t bytes, const char *what, const char *name)
{
    for (int i = 0; i < GUARD; i++)
        if ((unsigned char)p[-1 - i] != GUARD_BYTE || (unsigned char)p[bytes + i] != GUARD_BYTE) {
            errs++;
            printf("[rank %d] %s: written outside %s (%zu bytes): guard byte %s%d changed\n", rank,
                   what, name, bytes, (unsigned char)p[-1 - i] != GUARD_BYTE ? "-" : "+",
                   (unsigned char)p[-1 - i] != GUARD_BYTE ? i + 1 : i);
            return;
        }
}

static void show(char *out, size_t len, int k, const char *p)
{
    if (k == K_T3) {
        const double *d = (const double *)p;
        snprintf(out, len, "(%g, %g, %g)", d[0], d[1], d[2]);
    } else {
        int v;
        memcpy(&v, p, sizeof v);
        snprintf(out, len, k == K_MAT ? "0x%08x" : "%d", v);
    }
}

/* Element by element: got must equal want (n elements of kind k). */
static void same(const char *got, const char *want, int64_t n, int k, const char *what,
                 const char *part)
{
    size_t es = esize(k);
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(got + i * es, want + i * es, es) != 0) {
            if (first < 0)
                first = i;
            bad++;
        }
    if (bad > 0) {
        char g[96], w[96];
        show(g, sizeof g, k, got + first * es);
        show(w, sizeof w, k, want + first * es);
        errs++;
        printf("[rank %d] %s: %s: %lld of %lld elements wrong, first [%lld] = %s, expected %s\n",
               rank, what, part, (long long)bad, (long long)n, (long long)first, g, w);
    }
}

/* ---- return codes --------------------------------------------------------------------------- */

/* The code every rank returned (MPI_MIN and MPI_MAX over the ranks must agree); the minimum
   if they differ (an error, reported). */
static int agree(int rc, const char *what)
{
    int v[2] = {rc, -rc}, m[2];
    MPI_Allreduce(v, m, 2, MPI_INT, MPI_MIN, W);
    if (m[0] != -m[1] && rank == 0) {
        errs++;
        printf("%s: different codes on different ranks (min %d %s, max %d %s)\n", what, m[0],
               redist_error_name(m[0]), -m[1], redist_error_name(-m[1]));
    }
    return m[0];
}

/* rc must be want on every rank; returns whether it is. */
static int expect_code(int rc, int want, const char *what)
{
    const char *detail = redist_last_error_detail();
    int got = agree(rc, what);
    if (got != want && rank == 0) {
        errs++;
        printf("%s: returned %d (%s), expected %d (%s); detail: %s\n", what, got,
               redist_error_name(got), want, redist_error_name(want), rc < 0 ? detail : "");
    }
    return got == want;
}

/* detail is this rank's redist_last_error_detail() right after the failed call. */
static void detail_has(const char *detail, const char *needle, const char *what)
{
    if (detail == NULL || strstr(detail, needle) == NULL) {
        errs++;
        printf("[rank %d] %s: the detail \"%s\" does not mention \"%s\"\n", rank, what,
               detail != NULL ? detail : "(NULL)", needle);
    }
}

static int is_default(const char *alg)
{
    return alg == NULL || strcmp(alg, "auto") == 0;
}

/* Whether algorithm alg of op applies at this p (with a commutative op), by the model. */
static int applies(int op, const char *alg)
{
    double s = 0;
    return is_default(alg) || redist_coll_predict(opname[op], alg, size, 64.0, 1e-5, 1e-9, &s,
                                                  NULL) != REDIST_ERR_NOT_APPLICABLE;
}

/* NULL, "auto" and every algorithm of op; returns how many. */
static int algorithms(int op, const char *out[16])
{
    int n = 0;
    out[n++] = NULL;
    out[n++] = "auto";
    const char *a;
    for (int i = 0; n < 16 && (a = redist_coll_algorithm_name(opname[op], i)) != NULL; i++)
        out[n++] = a;
    return n;
}

/* The call of part 1 returned rc: 1 if it succeeded everywhere (compare the data), 0 if it
   was skipped as not applicable, or failed (reported). */
static int outcome(int rc, int op, const char *alg, int k, const char *what)
{
    const char *detail = redist_last_error_detail();
    rc = agree(rc, what);
    if (rc == REDIST_SUCCESS)
        return 1;
    int na_ok = !is_default(alg) && (!applies(op, alg) || (op == OP_REDUCE_SCATTER && k != K_INT));
    if (rc == REDIST_ERR_NOT_APPLICABLE && na_ok)
        return 0;
    if (rank == 0) {
        errs++;
        printf("%s: returned %d (%s), expected REDIST_SUCCESS; detail: %s\n", what, rc,
               redist_error_name(rc), detail);
    }
    return 0;
}

/* ---- part 1: MPI_IN_PLACE where MPI allows it --------------------------------------------- */

static void label(char *what, size_t len, int op, const char *alg, int k, int64_t n, int root,
                  int shift)
{
    int m = snprintf(what, len, "%s in place, %s, %s, count %lld", opname[op], nm(alg), kname(k),
                     (long long)n);
    if (rooted(op))
        snprintf(what + m, len - (size_t)m, ", root %d, p %d", root, size);
    else if (op == OP_SHIFT)
        snprintf(what + m, len - (size_t)m, ", shift %d, p %d", shift, size);
    else
        snprintf(what + m, len - (size_t)m, ", p %d", size);
}

/* scatter: MPI_IN_PLACE as the root's recvbuf (the root's block stays in its sendbuf). */
static void ip_scatter(const char *alg, int k, int64_t n, int root, const char *what)
{
    size_t blk = (size_t)n * esize(k), all = blk * (size_t)size;
    MPI_Datatype t = ktype(k);
    int at_root = rank == root;
    char *s = gbuf(all), *r = gbuf(blk), *ref;
    fill(k, s, n * size, 1000 + root);
    memset(r, JUNK, blk);
    char *s0 = gcopy(s, all);
    ref = gcopy(r, blk);
    int rc =
        redist_scatter(at_root ? s : NULL, at_root ? MPI_IN_PLACE : (void *)r, n, t, root, W, alg);
    if (outcome(rc, OP_SCATTER, alg, k, what))
        MPI_Scatter(at_root ? s0 : NULL, (int)n, t, at_root ? MPI_IN_PLACE : (void *)ref, (int)n, t,
                    root, W);
    if (at_root)
        same(s, s0, n * size, k, what, "the root's sendbuf (must stay unchanged)");
    else
        same(r, ref, n, k, what, "recvbuf");
    guards(s, all, what, "sendbuf");
    guards(r, blk, what, "recvbuf");
    gfree(s), gfree(r), gfree(s0), gfree(ref);
}

/* gather: MPI_IN_PLACE as the root's sendbuf (its block already in place in recvbuf). */
static void ip_gather(const char *alg, int k, int64_t n, int root, const char *what)
{
    size_t blk = (size_t)n * esize(k), all = blk * (size_t)size;
    MPI_Datatype t = ktype(k);
    int at_root = rank == root;
    char *s = gbuf(blk), *r = gbuf(all);
    fill(k, s, n, rank * 31 + root);
    memset(r, JUNK, all);
    if (at_root)
        fill(k, r + (size_t)root * blk, n, rank * 31 + root);
    char *s0 = gcopy(s, blk), *ref = gcopy(r, all);
    int rc = redist_gather(at_root ? MPI_IN_PLACE : s, at_root ? r : NULL, n, t, root, W, alg);
    if (outcome(rc, OP_GATHER, alg, k, what))
        MPI_Gather(at_root ? MPI_IN_PLACE : s0, (int)n, t, at_root ? ref : NULL, (int)n, t, root,
                   W);
    if (at_root)
        same(r, ref, n * size, k, what, "the root's recvbuf");
    else
        same(s, s0, n, k, what, "sendbuf (must stay unchanged)");
    guards(s, blk, what, "sendbuf");
    guards(r, all, what, "recvbuf");
    gfree(s), gfree(r), gfree(s0), gfree(ref);
}

/* allgather: each rank's block already at its place in recvbuf. */
static void ip_allgather(const char *alg, int k, int64_t n, const char *what)
{
    size_t blk = (size_t)n * esize(k), all = blk * (size_t)size;
    MPI_Datatype t = ktype(k);
    char *r = gbuf(all);
    memset(r, JUNK, all);
    fill(k, r + (size_t)rank * blk, n, rank * 17 + 3);
    char *ref = gcopy(r, all);
    int rc = redist_allgather(MPI_IN_PLACE, r, n, t, W, alg);
    if (outcome(rc, OP_ALLGATHER, alg, k, what))
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ref, (int)n, t, W);
    same(r, ref, n * size, k, what, "recvbuf");
    guards(r, all, what, "recvbuf");
    gfree(r), gfree(ref);
}

/* alltoall: the p blocks to send are in recvbuf. */
static void ip_alltoall(const char *alg, int k, int64_t n, const char *what)
{
    size_t blk = (size_t)n * esize(k), all = blk * (size_t)size;
    MPI_Datatype t = ktype(k);
    char *r = gbuf(all);
    fill(k, r, n * size, rank * 41 + 5);
    char *ref = gcopy(r, all);
    int rc = redist_alltoall(MPI_IN_PLACE, r, n, t, W, alg);
    if (outcome(rc, OP_ALLTOALL, alg, k, what))
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ref, (int)n, t, W);
    same(r, ref, n * size, k, what, "recvbuf");
    guards(r, all, what, "recvbuf");
    gfree(r), gfree(ref);
}

/* reduce_scatter: the p input blocks are in recvbuf, the result in its first block
   (MPI_Reduce_scatter_block's MPI_IN_PLACE). */
static void ip_reduce_scatter(const char *alg, int k, int64_t n, const char *what)
{
    size_t blk = (size_t)n * esize(k), all = blk * (size_t)size;
    MPI_Datatype t = ktype(k);
    char *r = gbuf(all);
    fill(k, r, n * size, rank * 23 + 9);
    char *ref = gcopy(r, all);
    int rc = redist_reduce_scatter(MPI_IN_PLACE, r, n, t, kop(k), W, alg);
    if (outcome(rc, OP_REDUCE_SCATTER, alg, k, what)) {
        MPI_Reduce_scatter_block(MPI_IN_PLACE, ref, (int)n, t, kop(k), W);
        same(r, ref, n, k, what, "recvbuf's first block");
    } else {
        same(r, ref, n * size, k, what, "recvbuf after a failed call");
    }
    guards(r, all, what, "recvbuf");
    gfree(r), gfree(ref);
}

/* shift: the block is in recvbuf and replaced (MPI_Sendrecv_replace). */
static void ip_shift(const char *alg, int k, int64_t n, int shift, const char *what)
{
    size_t blk = (size_t)n * esize(k);
    MPI_Datatype t = ktype(k);
    char *r = gbuf(blk);
    fill(k, r, n, rank * 19 + 1);
    char *ref = gcopy(r, blk);
    int rc = redist_shift(MPI_IN_PLACE, r, n, t, shift, W, alg);
    if (outcome(rc, OP_SHIFT, alg, k, what)) {
        int q = (int)(((int64_t)shift % size + size) % size);
        MPI_Sendrecv_replace(ref, (int)n, t, (rank + q) % size, 77, (rank - q + size) % size, 77, W,
                             MPI_STATUS_IGNORE);
    }
    same(r, ref, n, k, what, "recvbuf");
    guards(r, blk, what, "recvbuf");
    gfree(r), gfree(ref);
}

/* reduce: MPI_IN_PLACE as the root's sendbuf; the other ranks pass recvbuf NULL. */
static void ip_reduce(const char *alg, int k, int64_t n, int root, const char *what)
{
    size_t blk = (size_t)n * esize(k);
    MPI_Datatype t = ktype(k);
    int at_root = rank == root;
    char *b = gbuf(blk);
    fill(k, b, n, rank * 29 + root);
    char *ref = gcopy(b, blk);
    int rc =
        redist_reduce(at_root ? MPI_IN_PLACE : b, at_root ? b : NULL, n, t, kop(k), root, W, alg);
    if (outcome(rc, OP_REDUCE, alg, k, what))
        MPI_Reduce(at_root ? MPI_IN_PLACE : ref, at_root ? ref : NULL, (int)n, t, kop(k), root, W);
    same(b, ref, n, k, what, at_root ? "the root's recvbuf" : "sendbuf (must stay unchanged)");
    guards(b, blk, what, at_root ? "recvbuf" : "sendbuf");
    gfree(b), gfree(ref);
}

/* allreduce and scan: the input is in recvbuf. */
static void ip_allreduce_scan(int op, const char *alg, int k, int64_t n, const char *what)
{
    size_t blk = (size_t)n * esize(k);
    MPI_Datatype t = ktype(k);
    char *r = gbuf(blk);
    fill(k, r, n, rank * 37 + op);
    char *ref = gcopy(r, blk);
    int rc = op == OP_SCAN ? redist_scan(MPI_IN_PLACE, r, n, t, kop(k), W, alg)
                           : redist_allreduce(MPI_IN_PLACE, r, n, t, kop(k), W, alg);
    if (outcome(rc, op, alg, k, what)) {
        if (op == OP_SCAN)
            MPI_Scan(MPI_IN_PLACE, ref, (int)n, t, kop(k), W);
        else
            MPI_Allreduce(MPI_IN_PLACE, ref, (int)n, t, kop(k), W);
    }
    same(r, ref, n, k, what, "recvbuf");
    guards(r, blk, what, "recvbuf");
    gfree(r), gfree(ref);
}

static void in_place_case(int op, const char *alg, int k, int64_t n, int root, int shift)
{
    char what[192];
    label(what, sizeof what, op, alg, k, n, root, shift);
    switch (op) {
    case OP_SCATTER:
        ip_scatter(alg, k, n, root, what);
        break;
    case OP_GATHER:
        ip_gather(alg, k, n, root, what);
        break;
    case OP_ALLGATHER:
        ip_allgather(alg, k, n, what);
        break;
    case OP_ALLTOALL:
        ip_alltoall(alg, k, n, what);
        break;
    case OP_REDUCE_SCATTER:
        ip_reduce_scatter(alg, k, n, what);
        break;
    case OP_SHIFT:
        ip_shift(alg, k, n, shift, what);
        break;
    case OP_REDUCE:
        ip_reduce(alg, k, n, root, what);
        break;
    default:
        ip_allreduce_scan(op, alg, k, n, what);
        break;
    }
}

static void test_in_place(void)
{
    static const struct {
        int k;
        int64_t n;
    } data_cases[] = {{K_INT, 0}, {K_INT, 1}, {K_INT, 37}, {K_T3, 37}},
      red_cases[] = {{K_INT, 0}, {K_INT, 1}, {K_INT, 37}, {K_MAT, 1}, {K_MAT, 37}, {K_T3, 37}};
    for (int op = 0; op < NOPS; op++) {
        if (op == OP_BCAST) /* no in-place form */
            continue;
        int reduction =
            op == OP_REDUCE || op == OP_ALLREDUCE || op == OP_SCAN || op == OP_REDUCE_SCATTER;
        int ncases = reduction ? N(red_cases) : N(data_cases);
        const char *algs[16];
        int na = algorithms(op, algs);
        for (int c = 0; c < ncases; c++) {
            int k = reduction ? red_cases[c].k : data_cases[c].k;
            int64_t n = reduction ? red_cases[c].n : data_cases[c].n;
            for (int a = 0; a < na; a++) {
                if (op == OP_SHIFT)
                    for (int sh = -1; sh <= size; sh++)
                        in_place_case(op, algs[a], k, n, 0, sh);
                else if (rooted(op))
                    for (int root = 0; root < size; root++)
                        in_place_case(op, algs[a], k, n, root, 0);
                else
                    in_place_case(op, algs[a], k, n, 0, 0);
            }
        }
    }
}

/* ---- plain MPI_INT / MPI_SUM calls for parts 2 to 5 ---------------------------------------- */

/* One call of op; bcast's buf is r. */
static int call(int op, const void *s, void *r, int64_t n, int root, int shift, const char *alg)
{
    switch (op) {
    case OP_BCAST:
        return redist_bcast(r, n, MPI_INT, root, W, alg);
    case OP_REDUCE:
        return redist_reduce(s, r, n, MPI_INT, MPI_SUM, root, W, alg);
    case OP_ALLREDUCE:
        return redist_allreduce(s, r, n, MPI_INT, MPI_SUM, W, alg);
    case OP_SCAN:
        return redist_scan(s, r, n, MPI_INT, MPI_SUM, W, alg);
    case OP_SCATTER:
        return redist_scatter(s, r, n, MPI_INT, root, W, alg);
    case OP_GATHER:
        return redist_gather(s, r, n, MPI_INT, root, W, alg);
    case OP_ALLGATHER:
        return redist_allgather(s, r, n, MPI_INT, W, alg);
    case OP_REDUCE_SCATTER:
        return redist_reduce_scatter(s, r, n, MPI_INT, MPI_SUM, W, alg);
    case OP_ALLTOALL:
        return redist_alltoall(s, r, n, MPI_INT, W, alg);
    default:
        return redist_shift(s, r, n, MPI_INT, shift, W, alg);
    }
}

/* The MPI library's own collective for call(). */
static void mpi_call(int op, const void *s, void *r, int n, int root, int shift)
{
    int q = (int)(((int64_t)shift % size + size) % size);
    switch (op) {
    case OP_BCAST:
        MPI_Bcast(r, n, MPI_INT, root, W);
        break;
    case OP_REDUCE:
        MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, W);
        break;
    case OP_ALLREDUCE:
        MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, W);
        break;
    case OP_SCAN:
        MPI_Scan(s, r, n, MPI_INT, MPI_SUM, W);
        break;
    case OP_SCATTER:
        MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, W);
        break;
    case OP_GATHER:
        MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, W);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, W);
        break;
    case OP_REDUCE_SCATTER:
        MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, W);
        break;
    case OP_ALLTOALL:
        MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, W);
        break;
    default:
        MPI_Sendrecv(s, n, MPI_INT, (rank + q) % size, 78, r, n, MPI_INT, (rank - q + size) % size,
                     78, W, MPI_STATUS_IGNORE);
        break;
    }
}

/* Elements of recvbuf that call() defines on this rank. */
static int64_t result_count(int op, int64_t n, int root)
{
    switch (op) {
    case OP_REDUCE:
        return rank == root ? n : 0;
    case OP_GATHER:
        return rank == root ? n * size : 0;
    case OP_ALLGATHER:
    case OP_ALLTOALL:
        return n * size;
    default:
        return n;
    }
}

typedef struct {
    char *s, *r, *r0;
} bufs;
static size_t bufs_bytes(void)
{
    return (size_t)size * MAXN * sizeof(int);
}

/* sendbuf: p * MAXN values of this rank; recvbuf: junk (bcast: the root's data at the root). */
static bufs bufs_new(int op, int root)
{
    bufs b;
    size_t cap = bufs_bytes();
    b.s = gbuf(cap);
    b.r = gbuf(cap);
    fill(K_INT, b.s, (int64_t)(cap / sizeof(int)), rank * 7 + op);
    memset(b.r, JUNK, cap);
    if (op == OP_BCAST && rank == root)
        fill(K_INT, b.r, (int64_t)(cap / sizeof(int)), 500 + root);
    b.r0 = gcopy(b.r, cap);
    return b;
}

static void bufs_free(bufs *b, const char *what)
{
    size_t cap = bufs_bytes();
    guards(b->s, cap, what, "sendbuf");
    guards(b->r, cap, what, "recvbuf");
    gfree(b->s), gfree(b->r), gfree(b->r0);
}

/* A correct call (algorithm alg on this rank, shift on this rank) must succeed and match the
   MPI library's result. */
static void plain_ok(int op, const char *alg, int64_t n, int root, int shift, const char *what)
{
    bufs b = bufs_new(op, root);
    int rc = call(op, b.s, b.r, n, root, shift, alg);
    if (expect_code(rc, REDIST_SUCCESS, what)) {
        mpi_call(op, b.s, b.r0, (int)n, root, shift);
        same(b.r, b.r0, result_count(op, n, root), K_INT, what, "recvbuf");
    }
    bufs_free(&b, what);
}

/* ---- part 2: MPI_IN_PLACE where MPI does not allow it -------------------------------------- */

enum { SEND = 1, RECV = 2 };
enum { W_ALL, W_ROOT, W_NONROOT, W_NONROOTS, W_LAST };
static const char *const where_name[] = {"every rank", "the root", "one non-root", "every non-root",
                                         "the last rank"};

static void bad_in_place(int op, int which, int where, int root, const char *alg)
{
    int me = where == W_ALL || (where == W_ROOT && rank == root) ||
             (where == W_NONROOT && rank == (root + size - 1) % size) ||
             (where == W_NONROOTS && rank != root) || (where == W_LAST && rank == size - 1);
    char what[192];
    snprintf(what, sizeof what, "%s, %s MPI_IN_PLACE on %s, %s, root %d, p %d", opname[op],
             which == (SEND | RECV) ? "sendbuf and recvbuf"
             : which == SEND        ? "sendbuf"
             : op == OP_BCAST       ? "buf"
                                    : "recvbuf",
             where_name[where], nm(alg), root, size);
    bufs b = bufs_new(op, root);
    const void *sp = me && (which & SEND) ? MPI_IN_PLACE : b.s;
    void *rp = me && (which & RECV) ? MPI_IN_PLACE : b.r;
    int rc = call(op, sp, rp, 5, root, 1, alg);
    char detail[600];
    snprintf(detail, sizeof detail, "%s", redist_last_error_detail());
    expect_code(rc, REDIST_ERR_ARG, what);
    if (rc == REDIST_ERR_ARG)
        detail_has(detail, "MPI_IN_PLACE", what);
    same(b.r, b.r0, (int64_t)size * MAXN, K_INT, what, "recvbuf after a failed call");
    bufs_free(&b, what);
}

/* Both buffers MPI_IN_PLACE at the root of a scatter or gather: run last (phase 1), so that a
   crash there does not hide the other results. */
static int both_at_root(int op, int which, int where)
{
    return (op == OP_SCATTER || op == OP_GATHER) && which == (SEND | RECV) && where == W_ROOT;
}

static void test_bad_in_place(int phase)
{
    static const struct {
        int op, which, where;
    } cases[] = {
        {OP_BCAST, RECV, W_ALL},
        {OP_BCAST, RECV, W_ROOT},
        {OP_BCAST, RECV, W_NONROOT},
        {OP_BCAST, RECV, W_LAST},
        {OP_REDUCE, RECV, W_ALL},
        {OP_REDUCE, RECV, W_ROOT},
        {OP_REDUCE, SEND | RECV, W_ROOT},
        {OP_REDUCE, SEND, W_NONROOT},
        {OP_SCATTER, RECV, W_NONROOT},
        {OP_SCATTER, RECV, W_NONROOTS},
        {OP_SCATTER, RECV, W_ALL},
        {OP_SCATTER, SEND, W_ROOT},
        {OP_SCATTER, SEND, W_ALL},
        {OP_SCATTER, SEND | RECV, W_ROOT},
        {OP_GATHER, SEND, W_NONROOT},
        {OP_GATHER, SEND, W_NONROOTS},
        {OP_GATHER, SEND, W_ALL},
        {OP_GATHER, RECV, W_ROOT},
        {OP_GATHER, RECV, W_ALL},
        {OP_GATHER, SEND | RECV, W_ROOT},
        {OP_ALLREDUCE, RECV, W_ALL},
        {OP_ALLREDUCE, RECV, W_LAST},
        {OP_ALLREDUCE, SEND | RECV, W_ALL},
        {OP_SCAN, RECV, W_ALL},
        {OP_SCAN, RECV, W_LAST},
        {OP_SCAN, SEND | RECV, W_ALL},
        {OP_ALLGATHER, RECV, W_ALL},
        {OP_ALLGATHER, RECV, W_LAST},
        {OP_ALLGATHER, SEND | RECV, W_ALL},
        {OP_REDUCE_SCATTER, RECV, W_ALL},
        {OP_REDUCE_SCATTER, RECV, W_LAST},
        {OP_REDUCE_SCATTER, SEND | RECV, W_ALL},
        {OP_ALLTOALL, RECV, W_ALL},
        {OP_ALLTOALL, RECV, W_LAST},
        {OP_ALLTOALL, SEND | RECV, W_ALL},
        {OP_SHIFT, RECV, W_ALL},
        {OP_SHIFT, RECV, W_LAST},
        {OP_SHIFT, SEND | RECV, W_ALL},
    };
    for (int c = 0; c < N(cases); c++) {
        int op = cases[c].op, which = cases[c].which, where = cases[c].where;
        if (both_at_root(op, which, where) != phase)
            continue;
        /* At p = 1 there is no non-root, and the root's in-place forms are valid. */
        if (size == 1 && (where == W_NONROOT || where == W_NONROOTS ||
                          (where == W_ALL && ((op == OP_SCATTER && which == RECV) ||
                                              (op == OP_GATHER && which == SEND)))))
            continue;
        const char *algs[16];
        int na = algorithms(op, algs);
        for (int a = 0; a < na; a++) { /* NULL, "auto" and every algorithm that applies */
            if (!applies(op, algs[a]))
                continue;
            bad_in_place(op, which, where, 0, algs[a]);
            if (rooted(op) && size > 1)
                bad_in_place(op, which, where, size - 1, algs[a]);
        }
    }
}

/* ---- part 3: arguments that differ between ranks ------------------------------------------- */

/* The last rank passes n_last, root_last, alg_last, shift_last; the others 37, 0, alg, 1. */
static void mismatch(int op, const char *field, int64_t n_last, int root_last, const char *alg,
                     const char *alg_last, int shift_last)
{
    int last = rank == size - 1;
    char what[192];
    snprintf(
        what, sizeof what,
        "%s mismatch of %s (last rank: count %lld, root %d, %s, shift %d; others: count 37, root 0, %s, shift 1), p %d",
        opname[op], field, (long long)n_last, root_last, nm(alg_last), shift_last, nm(alg), size);
    bufs b = bufs_new(op, 0);
    int rc = call(op, b.s, b.r, last ? n_last : 37, last ? root_last : 0, last ? shift_last : 1,
                  last ? alg_last : alg);
    char detail[600];
    snprintf(detail, sizeof detail, "%s", redist_last_error_detail());
    expect_code(rc, REDIST_ERR_MISMATCH, what);
    if (rc == REDIST_ERR_MISMATCH)
        detail_has(detail, field, what);
    same(b.r, b.r0, (int64_t)size * MAXN, K_INT, what, "recvbuf after a failed call");
    bufs_free(&b, what);
    /* Nothing left in flight: a correct call on the same communicator works. */
    snprintf(what, sizeof what, "%s, %s, count 37, after a mismatch of %s, p %d", opname[op],
             nm(alg), field, size);
    plain_ok(op, alg, 37, 0, 1, what);
}

static void test_mismatch(void)
{
    if (size < 2)
        return;
    for (int op = 0; op < NOPS; op++) {
        const char *algs[16], *app[16];
        int na = algorithms(op, algs), napp = 0;
        for (int a = 0; a < na; a++)
            if (applies(op, algs[a]))
                app[napp++] = algs[a];
        for (int a = 0; a < napp; a++) {
            mismatch(op, "count", 36, 0, app[a], app[a], 1);
            mismatch(op, "count", 0, 0, app[a], app[a], 1);
            mismatch(op, "count", MAXN, 0, app[a], app[a], 1);
            if (rooted(op))
                mismatch(op, "root", 37, size - 1, app[a], app[a], 1);
            if (op == OP_SHIFT)
                mismatch(op, "shift", 37, 0, app[a], app[a], 2);
        }
        /* two explicit algorithms that both apply (app[0], app[1] are NULL and "auto") */
        if (napp >= 4) {
            mismatch(op, "algorithm", 37, 0, app[2], app[3], 1);
            mismatch(op, "algorithm", 37, 0, app[3], app[2], 1);
        } else {
            errs++;
            printf("[rank %d] %s: fewer than two algorithms apply at p %d\n", rank, opname[op],
                   size);
        }
        /* NULL and "auto" are the same algorithm; a shift by 1 + p is a shift by 1. */
        char what[128];
        snprintf(what, sizeof what, "%s, NULL on even ranks and \"auto\" on odd ranks, p %d",
                 opname[op], size);
        plain_ok(op, rank % 2 ? "auto" : NULL, 37, size - 1, 1, what);
        if (op == OP_SHIFT) {
            snprintf(what, sizeof what, "shift by 1 + p on the last rank, by 1 elsewhere, p %d",
                     size);
            plain_ok(op, NULL, 37, 0, rank == size - 1 ? 1 + size : 1, what);
        }
    }
}

/* ---- part 4: a failure on one rank -------------------------------------------------------- */

static void one_rank_fails(int op, int who, int64_t n_bad, const char *alg_bad, int want)
{
    char what[192];
    snprintf(what, sizeof what, "%s with %s on rank %d only, p %d", opname[op],
             alg_bad != NULL ? "an unknown algorithm" : "count -1", who, size);
    bufs b = bufs_new(op, 0);
    int rc = call(op, b.s, b.r, rank == who ? n_bad : 5, 0, 1, rank == who ? alg_bad : NULL);
    char detail[600], needle[32];
    snprintf(detail, sizeof detail, "%s", redist_last_error_detail());
    snprintf(needle, sizeof needle, "rank %d", who);
    expect_code(rc, want, what);
    if (rc == want)
        detail_has(detail, needle, what);
    same(b.r, b.r0, (int64_t)size * MAXN, K_INT, what, "recvbuf after a failed call");
    bufs_free(&b, what);
    snprintf(what, sizeof what, "%s, count 5, after a failure on rank %d only, p %d", opname[op],
             who, size);
    plain_ok(op, NULL, 5, 0, 1, what);
}

static void test_one_rank(void)
{
    for (int op = 0; op < NOPS; op++) {
        one_rank_fails(op, 0, -1, NULL, REDIST_ERR_ARG);
        one_rank_fails(op, size - 1, 5, "no-such-algorithm", REDIST_ERR_UNKNOWN_ALGORITHM);
    }
}

/* ---- part 5: before MPI_Init --------------------------------------------------------------- */

static int before_init[NOPS + 1];

static void call_before_init(void)
{
    static int s[64 * MAXN], r[64 * MAXN];
    for (int op = 0; op < NOPS; op++)
        before_init[op] = call(op, s, r, 1, 0, 1, NULL);
    before_init[NOPS] = redist_allreduce(MPI_IN_PLACE, r, 1, MPI_INT, MPI_SUM, W, NULL);
}

static void test_before_init(void)
{
    for (int op = 0; op <= NOPS; op++) {
        char what[96];
        snprintf(what, sizeof what, "%s before MPI_Init",
                 op < NOPS ? opname[op] : "allreduce (MPI_IN_PLACE)");
        expect_code(before_init[op], REDIST_ERR_MPI, what);
    }
}

int main(int argc, char **argv)
{
    call_before_init(); /* first: MPI is not initialized yet */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &size);
    MPI_Type_contiguous(3, MPI_DOUBLE, &t3);
    MPI_Type_commit(&t3);
    MPI_Op_create(mtest_matmul_fn, 0, &matop);
    MPI_Op_create(affine_fn, 0, &affop);
    test_before_init();
    test_in_place();
    test_bad_in_place(0);
    test_mismatch();
    test_one_rank();
    test_bad_in_place(1);
    MPI_Op_free(&matop);
    MPI_Op_free(&affop);
    MPI_Type_free(&t3);
    return mtest_finalize(errs);
}
