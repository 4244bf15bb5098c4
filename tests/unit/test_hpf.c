/* Serial tests of the HPF index functions ([TCR96], Table 1), no MPI_Init.
 *
 * Exhaustive over n in 0..60, P in 1..7, m in 1..9 (and m = 0 for BLOCK): a brute-force
 * simulation that deals the elements out in order (blocks of m round-robin, each processor
 * filling its local array from 0) gives the owner and local index of every g; the library
 * must agree, global() must invert (owner, local), every (p, l) with l < local_count must
 * map to a distinct g, and the counts must sum to n and equal redist_layout_local_size of
 * redist_hpf_layout's layout. Then bad arguments, and large values (n ~ 2^40 and m near
 * INT64_MAX) against closed forms.
 */
#include "redist.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

#define NMAX 60
#define PMAX 7
#define MMAX 9

static const char *kind_name(int kind)
{
    return kind == REDIST_HPF_BLOCK ? "BLOCK" : kind == REDIST_HPF_CYCLIC ? "CYCLIC" : "CYCLIC_M";
}

/* Deals n elements out in blocks of b, round-robin from processor 0. */
static void brute(int64_t n, int64_t b, int P, int owner[], int64_t local[], int64_t count[])
{
    for (int p = 0; p < P; p++)
        count[p] = 0;
    for (int64_t g = 0; g < n; g++) {
        int p = (int)((g / b) % P);
        owner[g] = p;
        local[g] = count[p]++;
    }
}

static void check_dist(const redist_hpf_dist *d)
{
    int64_t n = d->n, b = d->m;
    int P = d->P;
    if (d->kind == REDIST_HPF_CYCLIC)
        b = 1;
    else if (d->kind == REDIST_HPF_BLOCK && b == 0)
        b = n == 0 ? 1 : (n + P - 1) / P;
    if (d->kind == REDIST_HPF_BLOCK)
        CHECK(b * P >= n, "test bug: BLOCK(%lld) P %d n %lld", (long long)b, P, (long long)n);

    int owner[NMAX + 1];
    int64_t local[NMAX + 1], count[PMAX], gl[PMAX][NMAX + 1];
    brute(n, b, P, owner, local, count);
    CHECK(redist_hpf_check(d) == REDIST_SUCCESS, "%s n %lld m %lld P %d: check failed",
          kind_name(d->kind), (long long)n, (long long)d->m, P);

#define CTX kind_name(d->kind), (long long)n, (long long)d->m, P
    for (int64_t g = 0; g < n; g++) {
        int p = redist_hpf_owner(d, g);
        int64_t l = redist_hpf_local(d, g);
        CHECK(p == owner[g], "%s n %lld m %lld P %d: owner(%lld) = %d, brute %d", CTX, (long long)g,
              p, owner[g]);
        CHECK(l == local[g], "%s n %lld m %lld P %d: local(%lld) = %lld, brute %lld", CTX,
              (long long)g, (long long)l, (long long)local[g]);
        if (p >= 0 && p < P && l >= 0) {
            int64_t back = redist_hpf_global(d, p, l);
            CHECK(back == g, "%s n %lld m %lld P %d: global(%d, %lld) = %lld, want %lld", CTX, p,
                  (long long)l, (long long)back, (long long)g);
        }
        if (d->kind == REDIST_HPF_BLOCK) /* block(m): contiguous, local = g - m p */
            CHECK(p == (int)(g / b) && l == g - b * p, "%s: not contiguous", kind_name(d->kind));
    }
    CHECK(redist_hpf_owner(d, n) < 0 && redist_hpf_owner(d, -1) < 0,
          "%s n %lld m %lld P %d: owner accepts g out of range", CTX);
    CHECK(redist_hpf_local(d, n) < 0 && redist_hpf_local(d, -1) < 0,
          "%s n %lld m %lld P %d: local accepts g out of range", CTX);

    /* every (p, l) with l < local_count maps to a distinct g, owned by p at l */
    char seen[NMAX + 1];
    memset(seen, 0, sizeof seen);
    int64_t total = 0;
    redist_layout lay = NULL;
    int err = redist_hpf_layout(d, NULL, &lay);
    CHECK(err == REDIST_SUCCESS && lay != NULL, "%s n %lld m %lld P %d: layout: %s", CTX,
          redist_error_name(err));
    for (int p = 0; p < P; p++) {
        int64_t c = redist_hpf_local_count(d, p);
        CHECK(c == count[p], "%s n %lld m %lld P %d: local_count(%d) = %lld, brute %lld", CTX, p,
              (long long)c, (long long)count[p]);
        if (lay != NULL) {
            int64_t size = -1, shape = -1;
            redist_layout_local_size(lay, p, &size);
            redist_layout_local_shape(lay, p, &shape);
            CHECK(size == c && shape == c,
                  "%s n %lld m %lld P %d: p %d: count %lld, layout size %lld shape %lld", CTX, p,
                  (long long)c, (long long)size, (long long)shape);
        }
        if (c < 0 || c > NMAX)
            continue;
        total += c;
        for (int64_t l = 0; l < c; l++) {
            int64_t g = redist_hpf_global(d, p, l);
            gl[p][l] = g;
            CHECK(g >= 0 && g < n, "%s n %lld m %lld P %d: global(%d, %lld) = %lld", CTX, p,
                  (long long)l, (long long)g);
            if (g < 0 || g >= n)
                continue;
            CHECK(!seen[g], "%s n %lld m %lld P %d: global %lld hit twice", CTX, (long long)g);
            seen[g] = 1;
            CHECK(owner[g] == p && local[g] == l,
                  "%s n %lld m %lld P %d: global(%d, %lld) = %lld, brute has it at (%d, %lld)", CTX,
                  p, (long long)l, (long long)g, owner[g], (long long)local[g]);
        }
        CHECK(redist_hpf_global(d, p, c) < 0 && redist_hpf_global(d, p, -1) < 0,
              "%s n %lld m %lld P %d: global accepts l out of range on %d", CTX, p);
        for (int64_t l = 1; l < c; l++) /* local order follows global order */
            CHECK(gl[p][l] > gl[p][l - 1], "%s n %lld m %lld P %d: p %d not increasing", CTX, p);
    }
    CHECK(total == n, "%s n %lld m %lld P %d: counts sum to %lld", CTX, (long long)total);
    CHECK(redist_hpf_local_count(d, -1) < 0 && redist_hpf_local_count(d, P) < 0,
          "%s n %lld m %lld P %d: local_count accepts bad p", CTX);
    CHECK(redist_hpf_global(d, -1, 0) < 0 && redist_hpf_global(d, P, 0) < 0,
          "%s n %lld m %lld P %d: global accepts bad p", CTX);
#undef CTX
    redist_layout_free(&lay);
}

/* The same layout as redist_layout_create would give: layouts agree index for index. */
static void check_equivalences(void)
{
    /* BLOCK(m) with m P >= n is CYCLIC(m); CYCLIC is CYCLIC(1). */
    for (int64_t n = 0; n <= NMAX; n++)
        for (int P = 1; P <= PMAX; P++)
            for (int64_t m = 1; m <= MMAX; m++) {
                redist_hpf_dist blk = {REDIST_HPF_BLOCK, n, m, P};
                redist_hpf_dist cyc = {REDIST_HPF_CYCLIC_M, n, m, P};
                redist_hpf_dist one = {REDIST_HPF_CYCLIC, n, 1, P};
                redist_hpf_dist c1 = {REDIST_HPF_CYCLIC_M, n, 1, P};
                for (int64_t g = 0; g < n; g++) {
                    if (m * P >= n)
                        CHECK(redist_hpf_owner(&blk, g) == redist_hpf_owner(&cyc, g) &&
                                  redist_hpf_local(&blk, g) == redist_hpf_local(&cyc, g),
                              "BLOCK(%lld) != CYCLIC(%lld) at n %lld P %d g %lld", (long long)m,
                              (long long)m, (long long)n, P, (long long)g);
                    CHECK(redist_hpf_owner(&one, g) == redist_hpf_owner(&c1, g) &&
                              redist_hpf_local(&one, g) == redist_hpf_local(&c1, g),
                          "CYCLIC != CYCLIC(1) at n %lld P %d g %lld", (long long)n, P,
                          (long long)g);
                }
            }
}

static void check_layout_ranks(void)
{
    redist_hpf_dist d = {REDIST_HPF_CYCLIC_M, 50, 3, 4};
    int ranks[4] = {7, 2, 5, 0};
    redist_layout lay = NULL;
    CHECK(redist_hpf_layout(&d, ranks, &lay) == REDIST_SUCCESS, "layout with ranks");
    for (int p = 0; p < 4 && lay != NULL; p++) {
        int64_t size = -1;
        int coord = -1;
        redist_layout_local_size(lay, ranks[p], &size);
        CHECK(size == redist_hpf_local_count(&d, p), "ranks: p %d size %lld", p, (long long)size);
        CHECK(redist_layout_coords(lay, ranks[p], &coord) == 1 && coord == p,
              "ranks: p %d coord %d", p, coord);
    }
    CHECK(redist_layout_nprocs(lay) == 4 && redist_layout_ndims(lay) == 1, "ranks: shape");
    redist_layout_free(&lay);
    int dup[4] = {1, 1, 2, 3};
    lay = NULL;
    CHECK(redist_hpf_layout(&d, dup, &lay) == REDIST_ERR_ARG && lay == NULL, "duplicate ranks");
}

static void check_errors(void)
{
    const redist_hpf_dist bad[] = {
        {REDIST_HPF_BLOCK, -1, 0, 2},    /* n < 0 */
        {REDIST_HPF_CYCLIC_M, 10, 2, 0}, /* P < 1 */
        {REDIST_HPF_CYCLIC_M, 10, 2, -3},
        {REDIST_HPF_BLOCK, 10, -1, 2},    /* m < 0 */
        {REDIST_HPF_CYCLIC_M, 10, -2, 2}, /* m < 0 */
        {REDIST_HPF_CYCLIC_M, 10, 0, 2},  /* CYCLIC(0) */
        {REDIST_HPF_CYCLIC, 10, 2, 2},    /* CYCLIC with m > 1 */
        {REDIST_HPF_BLOCK, 10, 4, 2},     /* m P < n */
        {REDIST_HPF_BLOCK, 11, 5, 2},     /* m P = n - 1 */
        {REDIST_HPF_BLOCK, INT64_MAX, INT64_MAX / 8, 7},
        {3, 10, 2, 2}, /* unknown kind */
        {-1, 10, 2, 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const redist_hpf_dist *d = &bad[i];
        redist_layout lay = (redist_layout)1;
        CHECK(redist_hpf_check(d) == REDIST_ERR_ARG, "bad[%zu]: check accepted", i);
        CHECK(redist_last_error_detail()[0] != '\0', "bad[%zu]: no detail", i);
        CHECK(redist_hpf_owner(d, 0) == REDIST_ERR_ARG, "bad[%zu]: owner", i);
        CHECK(redist_hpf_local(d, 0) == REDIST_ERR_ARG, "bad[%zu]: local", i);
        CHECK(redist_hpf_global(d, 0, 0) == REDIST_ERR_ARG, "bad[%zu]: global", i);
        CHECK(redist_hpf_local_count(d, 0) == REDIST_ERR_ARG, "bad[%zu]: local_count", i);
        CHECK(redist_hpf_layout(d, NULL, &lay) == REDIST_ERR_ARG && lay == NULL, "bad[%zu]: layout",
              i);
    }
    CHECK(redist_hpf_check(NULL) == REDIST_ERR_ARG, "check(NULL)");
    CHECK(redist_hpf_owner(NULL, 0) == REDIST_ERR_ARG, "owner(NULL)");
    CHECK(redist_hpf_local(NULL, 0) == REDIST_ERR_ARG, "local(NULL)");
    CHECK(redist_hpf_global(NULL, 0, 0) == REDIST_ERR_ARG, "global(NULL)");
    CHECK(redist_hpf_local_count(NULL, 0) == REDIST_ERR_ARG, "local_count(NULL)");
    redist_hpf_dist ok = {REDIST_HPF_CYCLIC, 10, 0, 3};
    CHECK(redist_hpf_layout(&ok, NULL, NULL) == REDIST_ERR_ARG, "layout(NULL out)");
    CHECK(redist_hpf_layout(NULL, NULL, &(redist_layout){NULL}) == REDIST_ERR_ARG,
          "layout(NULL d)");
    /* valid edge cases */
    const redist_hpf_dist good[] = {
        {REDIST_HPF_BLOCK, 0, 0, 1},
        {REDIST_HPF_BLOCK, 10, 5, 2},
        {REDIST_HPF_CYCLIC, 10, 0, 3},
        {REDIST_HPF_CYCLIC, 10, 1, 3},
        {REDIST_HPF_CYCLIC_M, 0, 1, 1},
        {REDIST_HPF_BLOCK, INT64_MAX, 0, 7},
        {REDIST_HPF_BLOCK, 5, INT64_MAX, 7},
        {REDIST_HPF_CYCLIC_M, INT64_MAX, INT64_MAX, 1},
        {REDIST_HPF_BLOCK, INT64_MAX, INT64_MAX / 7 + 1, 7},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CHECK(redist_hpf_check(&good[i]) == REDIST_SUCCESS, "good[%zu]: %s", i,
              redist_last_error_detail());
}

/* Large values against the closed forms, evaluated here independently; then values near
   INT64_MAX, where m*P would overflow. */
static void check_large(void)
{
    const int64_t T40 = (int64_t)1 << 40;
    const int64_t ns[] = {T40, T40 + 12345, T40 * 3 + 7};
    const int Ps[] = {1, 7, 64, 1000};
    const int64_t ms[] = {1, 3, 1000, (int64_t)1 << 20, 0};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof Ps / sizeof Ps[0]; b++)
            for (size_t c = 0; c < sizeof ms / sizeof ms[0]; c++)
                for (int kind = 0; kind < 3; kind++) {
                    int64_t n = ns[a], m = ms[c];
                    int P = Ps[b];
                    if (kind == REDIST_HPF_CYCLIC)
                        m = m > 1 ? 1 : m;
                    if (kind == REDIST_HPF_CYCLIC_M && m == 0)
                        continue;
                    if (kind == REDIST_HPF_BLOCK && m != 0 && m * P < n)
                        m = n / P + 1 + (int64_t)c; /* some valid BLOCK(m) */
                    redist_hpf_dist d = {kind, n, m, P};
                    CHECK(redist_hpf_check(&d) == REDIST_SUCCESS, "large: check %s",
                          redist_last_error_detail());
                    int64_t bsz = kind == REDIST_HPF_CYCLIC ? 1 : m == 0 ? (n + P - 1) / P : m;
                    /* closed form count: NUMROC */
                    int64_t sum = 0;
                    for (int p = 0; p < P; p++) {
                        int64_t nb = n / bsz, cnt = (nb / P) * bsz;
                        if (p < nb % P)
                            cnt += bsz;
                        else if (p == nb % P)
                            cnt += n % bsz;
                        int64_t got = redist_hpf_local_count(&d, p);
                        CHECK(got == cnt,
                              "large %s n %lld m %lld P %d: count(%d) = %lld, want %lld",
                              kind_name(kind), (long long)n, (long long)m, P, p, (long long)got,
                              (long long)cnt);
                        sum += got;
                    }
                    CHECK(sum == n, "large: counts sum to %lld, n %lld", (long long)sum,
                          (long long)n);
                    const int64_t gs[] = {0,          1,       bsz - 1, bsz,  n / 2,
                                          n / 3 + 17, n - bsz, n - 2,   n - 1};
                    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++) {
                        int64_t g = gs[i];
                        if (g < 0 || g >= n)
                            continue;
                        int p = (int)((g / bsz) % P);
                        int64_t l = g / (bsz * P) * bsz + g % bsz; /* bsz P < 2^53 here */
                        CHECK(redist_hpf_owner(&d, g) == p && redist_hpf_local(&d, g) == l &&
                                  redist_hpf_global(&d, p, l) == g,
                              "large %s n %lld m %lld P %d g %lld: (%d, %lld) want (%d, %lld)",
                              kind_name(kind), (long long)n, (long long)m, P, (long long)g,
                              redist_hpf_owner(&d, g), (long long)redist_hpf_local(&d, g), p,
                              (long long)l);
                    }
                }
    /* near INT64_MAX: no overflow in m*P, p*m or (g / (m P)) */
    redist_hpf_dist huge_m = {REDIST_HPF_BLOCK, 5, INT64_MAX, 7};
    CHECK(redist_hpf_local_count(&huge_m, 0) == 5 && redist_hpf_local_count(&huge_m, 6) == 0,
          "huge m: counts");
    CHECK(redist_hpf_owner(&huge_m, 4) == 0 && redist_hpf_local(&huge_m, 4) == 4 &&
              redist_hpf_global(&huge_m, 0, 4) == 4,
          "huge m: index");
    redist_hpf_dist huge_c = {REDIST_HPF_CYCLIC_M, INT64_MAX, INT64_MAX / 3, 5};
    int64_t g = INT64_MAX - 1, m = INT64_MAX / 3; /* block 3 (the last, partial), on p 3 */
    CHECK(redist_hpf_owner(&huge_c, g) == 3 && redist_hpf_local(&huge_c, g) == g - 3 * m &&
              redist_hpf_global(&huge_c, 3, g - 3 * m) == g,
          "huge cyclic(m): index");
    CHECK(redist_hpf_local_count(&huge_c, 3) == INT64_MAX - 3 * m &&
              redist_hpf_local_count(&huge_c, 4) == 0 && redist_hpf_local_count(&huge_c, 0) == m,
          "huge cyclic(m): counts");
    redist_hpf_dist huge_b = {REDIST_HPF_BLOCK, INT64_MAX, 0, 7};
    int64_t bm = INT64_MAX / 7 + (INT64_MAX % 7 != 0); /* CD(n, P) */
    CHECK(redist_hpf_owner(&huge_b, INT64_MAX - 1) == 6 &&
              redist_hpf_local(&huge_b, INT64_MAX - 1) == INT64_MAX - 1 - 6 * bm &&
              redist_hpf_local_count(&huge_b, 6) == INT64_MAX - 6 * bm &&
              redist_hpf_local_count(&huge_b, 0) == bm,
          "huge BLOCK: index");
}

int main(void)
{
    for (int64_t n = 0; n <= NMAX; n++)
        for (int P = 1; P <= PMAX; P++) {
            redist_hpf_dist d = {REDIST_HPF_CYCLIC, n, 0, P};
            check_dist(&d);
            d.m = 1;
            check_dist(&d);
            d = (redist_hpf_dist){REDIST_HPF_BLOCK, n, 0, P};
            check_dist(&d);
            for (int64_t m = 1; m <= MMAX; m++) {
                d = (redist_hpf_dist){REDIST_HPF_CYCLIC_M, n, m, P};
                check_dist(&d);
                d = (redist_hpf_dist){REDIST_HPF_BLOCK, n, m, P};
                if (m * P >= n)
                    check_dist(&d);
                else
                    CHECK(redist_hpf_check(&d) == REDIST_ERR_ARG,
                          "BLOCK(%lld) P %d n %lld accepted", (long long)m, P, (long long)n);
            }
        }
    check_equivalences();
    check_layout_ranks();
    check_errors();
    check_large();
    if (failures == 0)
        printf(" No Errors\n");
    else
        printf(" Found %ld errors\n", failures);
    return failures == 0 ? 0 : 1;
}
