/* [LBP96]'s tables for R_x(K, P), cyclic(x) -> cyclic(Kx) on P processors (pure code).
 *
 * [LBP96] §3.3 and §4: the initial table S (row-major block numbers of one
 * superblock), the final table R (column-major), the destination processor table
 * P = S / K, and its generalized circulant form P_s with the send data location table D_s
 * (Theorem 2, Eq. 12-13; Corollary 1 for the incremental form). Every row of P_s is a
 * permutation of the processors (Theorem 1), so row i is a contention-free step.
 */
#include "index/circulant.h"
#include "index/index.h"

#include <stddef.h>

static int64_t mod(int64_t a, int64_t m)
{
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

/* Extended Euclid: returns g = gcd(a, b) and x, y with a x + b y = g. */
static int64_t ext_gcd(int64_t a, int64_t b, int64_t *x, int64_t *y)
{
    if (b == 0) {
        *x = 1;
        *y = 0;
        return a;
    }
    int64_t x1, y1, g = ext_gcd(b, a % b, &x1, &y1);
    *x = y1;
    *y = x1 - (a / b) * y1;
    return g;
}

int redist__rx_init(int64_t K, int64_t P, redist__rx *rx)
{
    if (rx == NULL || K < 1 || P < 1)
        return -1;
    int64_t x, y, g = ext_gcd(K, P, &x, &y);
    rx->K = K;
    rx->P = P;
    rx->G = g;
    rx->Kp = K / g;
    rx->Pp = P / g;
    /* K' x + P' y = 1, so n = x mod P' has n K' = 1 (mod P') and m = (n K' - 1) / P' is
       exact. n is taken in [1, P'] so that m >= 0 also when P' = 1. */
    int64_t xs, ys;
    ext_gcd(rx->Kp, rx->Pp, &xs, &ys);
    rx->n = mod(xs, rx->Pp);
    if (rx->n == 0)
        rx->n = rx->Pp;
    rx->m = (rx->n * rx->Kp - 1) / rx->Pp;
    return 0;
}

int64_t redist__rx_S(const redist__rx *rx, int64_t i, int64_t j)
{
    return i * rx->P + j;
}

int64_t redist__rx_R(const redist__rx *rx, int64_t i, int64_t j)
{
    return j * rx->K + i;
}

int64_t redist__rx_P(const redist__rx *rx, int64_t i, int64_t j)
{
    return redist__rx_S(rx, i, j) / rx->K;
}

/* Eq. (12): P_s(i, j) = {n (j1 - i1)} mod P' + P' {(i2 - j2) mod G}, with i = i1 G + i2 and
   j = j1 G + j2. */
int64_t redist__rx_Ps(const redist__rx *rx, int64_t i, int64_t j)
{
    int64_t i1 = i / rx->G, i2 = i % rx->G, j1 = j / rx->G, j2 = j % rx->G;
    return mod(rx->n * (j1 - i1), rx->Pp) + rx->Pp * mod(i2 - j2, rx->G);
}

/* Eq. (13): D_s(i, j) = {m (j1 - i1)} mod K' + K' {(i2 - j2) mod G}. */
int64_t redist__rx_Ds(const redist__rx *rx, int64_t i, int64_t j)
{
    int64_t i1 = i / rx->G, i2 = i % rx->G, j1 = j / rx->G, j2 = j % rx->G;
    return mod(rx->m * (j1 - i1), rx->Kp) + rx->Kp * mod(i2 - j2, rx->G);
}

/* Row i of P_r inverts row i of P_s: the column c with P_s(i, c) = j. Solving Eq. (12) for
   the column: with j = a + P' b (0 <= a < P', 0 <= b < G), c1 - i1 = K' a (mod P') since
   n K' = 1 (mod P'), and c2 = (i2 - b) mod G. */
int64_t redist__rx_Pr(const redist__rx *rx, int64_t i, int64_t j)
{
    int64_t i1 = i / rx->G, i2 = i % rx->G, a = j % rx->Pp, b = j / rx->Pp;
    int64_t c1 = mod(i1 + rx->Kp * a, rx->Pp), c2 = mod(i2 - b, rx->G);
    return c1 * rx->G + c2;
}

/* R'(i, j) = S'(i, P_r(i, j)) is the block that arrives at processor j in row i; its place
   in R (column-major, R(r, j) = jK + r) is its block number mod K. */
int64_t redist__rx_Dr(const redist__rx *rx, int64_t i, int64_t j)
{
    int64_t c = redist__rx_Pr(rx, i, j);
    return redist__rx_S(rx, redist__rx_Ds(rx, i, c), c) % rx->K;
}

/* Corollary 1's incremental form, walking down column j. An entry of P_s is a + P' b with
   a = n (j1 - i1) mod P' and b = (i2 - j2) mod G (Eq. 12): from row i to i + 1, b grows by
   one (mod G) and, when i + 1 starts a new submatrix row, a drops by n (mod P'). The
   corollary as printed adds (-n) mod P' to the whole entry, which carries into b whenever
   a + (-n mod P') >= P' (e.g. R_x(6, 9), rows 2 -> 3, column 3: it gives 3, Eq. 12 and
   Fig. 11 give 0), so the two parts are kept apart here. D_s likewise with m, K'. */
typedef struct column_walk {
    int64_t a, b, step, radix; /* entry = a + radix * b; a drops by step at each wrap */
} column_walk;

static void walk_next(column_walk *w, const redist__rx *rx, int64_t next_row)
{
    w->b = (w->b + 1) % rx->G;
    if (next_row % rx->G == 0)
        w->a = mod(w->a - w->step, w->radix);
}

int redist__rx_tables(const redist__rx *rx, int64_t *S, int64_t *R, int64_t *P, int64_t *Ps,
                      int64_t *Ds, int64_t *Pr, int64_t *Dr)
{
    if (rx == NULL)
        return -1;
    int64_t K = rx->K, np = rx->P;
    for (int64_t j = 0; j < np; j++) {
        int64_t j1 = j / rx->G, j2 = j % rx->G;
        column_walk ps = {mod(rx->n * j1, rx->Pp), mod(-j2, rx->G), rx->n, rx->Pp};
        column_walk ds = {mod(rx->m * j1, rx->Kp), mod(-j2, rx->G), rx->m, rx->Kp};
        for (int64_t i = 0; i < K; i++) {
            int64_t at = i * np + j;
            if (S)
                S[at] = redist__rx_S(rx, i, j);
            if (R)
                R[at] = redist__rx_R(rx, i, j);
            if (P)
                P[at] = redist__rx_P(rx, i, j);
            if (Ps)
                Ps[at] = ps.a + rx->Pp * ps.b;
            if (Ds)
                Ds[at] = ds.a + rx->Kp * ds.b;
            if (Pr)
                Pr[at] = redist__rx_Pr(rx, i, j);
            if (Dr)
                Dr[at] = redist__rx_Dr(rx, i, j);
            walk_next(&ps, rx, i + 1);
            walk_next(&ds, rx, i + 1);
        }
    }
    return 0;
}

int redist__table_detect(const struct redist_layout_s *src, const struct redist_layout_s *dst,
                         redist__table_case *tc)
{
    if (!src->plain || !dst->plain || src->ndims != dst->ndims ||
        !redist__same_global_shape(src, dst) || src->nprocs != dst->nprocs)
        return 0;
    for (int c = 0; c < src->nprocs; c++)
        if (src->ranks[c] != dst->ranks[c])
            return 0;
    int dim = -1;
    for (int k = 0; k < src->ndims; k++) {
        if (src->grid[k] != dst->grid[k] || src->first[k] != dst->first[k])
            return 0;
        if (src->block[k] != dst->block[k]) {
            if (dim >= 0)
                return 0; /* more than one dimension changes */
            dim = k;
        }
    }
    if (dim < 0)
        dim = 0; /* identical distributions: K = 1 along dimension 0 */
    int64_t x = src->block[dim], y = dst->block[dim], P = src->grid[dim];
    tc->dual = y < x;
    int64_t small = tc->dual ? y : x, large = tc->dual ? x : y;
    if (large % small != 0 || large / small > P || redist__rx_init(large / small, P, &tc->rx))
        return 0;
    tc->dim = dim;
    tc->n = src->extent[dim];
    tc->x = small;
    tc->first = src->first[dim];
    return 1;
}

int64_t redist__table_column(const struct redist_layout_s *l, const redist__table_case *tc,
                             int rank)
{
    int pos = redist__layout_position(l, rank);
    if (pos < 0)
        return -1;
    int coords[64];
    if (l->ndims > 64)
        return -1;
    redist__layout_coords_of(l, pos, coords);
    int64_t P = tc->rx.P;
    return ((coords[tc->dim] - tc->first) % P + P) % P;
}

int redist__table_rank(const struct redist_layout_s *l, const redist__table_case *tc, int rank,
                       int64_t col)
{
    int coords[64];
    int pos = redist__layout_position(l, rank);
    if (pos < 0 || l->ndims > 64)
        return -1;
    redist__layout_coords_of(l, pos, coords);
    coords[tc->dim] = (int)((col + tc->first) % tc->rx.P);
    return l->ranks[redist__layout_position_of(l, coords)];
}

int64_t redist__table_cross_section(const struct redist_layout_s *l, const redist__table_case *tc,
                                    int rank)
{
    int coords[64];
    int pos = redist__layout_position(l, rank);
    if (pos < 0 || l->ndims > 64)
        return 0;
    redist__layout_coords_of(l, pos, coords);
    int64_t n = 1;
    for (int k = 0; k < l->ndims; k++)
        if (k != tc->dim)
            n *= redist__local_extent(l, k, coords[k]);
    return n;
}

/* Row 0 is the identity iff P_s(0, j) = j for all j: with G = 1 that needs n = 1 mod P, i.e.
   K = 1; with G > 1, j = 1 needs P' (G - 1) = 1, i.e. K = P = 2 (Eq. 12; rowsched.c states
   the full argument). Closed form, so any P. */
int64_t redist__rx_moving_rows(const redist__rx *rx)
{
    return rx->K == 1 || (rx->K == 2 && rx->P == 2) ? rx->K - 1 : rx->K;
}
