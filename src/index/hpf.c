/* HPF index functions: [TCR96] §2 and Table 1, 0-based.
 *
 * The paper indexes arrays from 1 and processors from 0, with the ceiling division
 * CD(j, k) = (j + k - 1) / k and the ceiling remainder CR(j, k) = j - k CD(j, k). We write
 * g = g_p - 1 and l = l_p - 1 (p unchanged); then CD(g_p, m) - 1 = g / m and
 * m + CR(g_p, m) = g_p - m (CD(g_p, m) - 1), so every formula below is Table 1's with those
 * substitutions. All three kinds are cyclic(m) (block(m) with m P >= n, cyclic with m = 1),
 * which is exactly redist_layout's math (layout.c); each kind is nevertheless implemented
 * from its own column of Table 1 and the tests check that they agree.
 *
 * Overflow: inputs are int64_t up to INT64_MAX. No product below exceeds a valid global
 * index except where noted; m P is never formed (g / (m P) is computed as g / m / P, equal
 * for non-negative integers), and m P >= n is tested as m >= CD(n, P).
 */
#include "index/index.h"

/* CD(n, k) for n >= 0, k >= 1, without forming n + k - 1. */
static int64_t ceil_div(int64_t n, int64_t k)
{
    return n / k + (n % k != 0);
}

/* The block size m actually in force: HPF's BLOCK (m = 0) is BLOCK(CD(n, P)), at least 1;
   CYCLIC is CYCLIC(1). Only for a checked distribution. */
static int64_t block_size(const redist_hpf_dist *d)
{
    if (d->kind == REDIST_HPF_CYCLIC)
        return 1;
    if (d->kind == REDIST_HPF_BLOCK && d->m == 0) {
        int64_t m = ceil_div(d->n, d->P);
        return m > 0 ? m : 1;
    }
    return d->m;
}

int redist_hpf_check(const redist_hpf_dist *d)
{
    if (d == NULL)
        return redist__fail(REDIST_ERR_ARG, "hpf: NULL distribution");
    if (d->kind != REDIST_HPF_BLOCK && d->kind != REDIST_HPF_CYCLIC &&
        d->kind != REDIST_HPF_CYCLIC_M)
        return redist__fail(REDIST_ERR_ARG, "hpf: unknown kind %d", d->kind);
    if (d->n < 0)
        return redist__fail(REDIST_ERR_ARG, "hpf: n = %lld must be >= 0", (long long)d->n);
    if (d->P < 1)
        return redist__fail(REDIST_ERR_ARG, "hpf: P = %d must be >= 1", d->P);
    if (d->m < 0)
        return redist__fail(REDIST_ERR_ARG, "hpf: m = %lld must be >= 0", (long long)d->m);
    switch (d->kind) {
    case REDIST_HPF_CYCLIC:
        if (d->m > 1)
            return redist__fail(REDIST_ERR_ARG,
                                "hpf: CYCLIC takes m = 0 or 1 (got %lld); use CYCLIC_M",
                                (long long)d->m);
        break;
    case REDIST_HPF_CYCLIC_M:
        if (d->m == 0)
            return redist__fail(REDIST_ERR_ARG, "hpf: CYCLIC(m) needs m >= 1");
        break;
    default: /* BLOCK(m): [TCR96] §2, a valid block(m) needs m P >= N */
        if (d->m != 0 && d->m < ceil_div(d->n, d->P))
            return redist__fail(
                REDIST_ERR_ARG,
                "hpf: BLOCK(m = %lld) over P = %d cannot hold n = %lld (needs m*P >= n)",
                (long long)d->m, d->P, (long long)d->n);
        break;
    }
    return REDIST_SUCCESS;
}

static int check_global(const redist_hpf_dist *d, int64_t g)
{
    int err = redist_hpf_check(d);
    if (err != REDIST_SUCCESS)
        return err;
    if (g < 0 || g >= d->n)
        return redist__fail(REDIST_ERR_ARG, "hpf: global index %lld outside [0, %lld)",
                            (long long)g, (long long)d->n);
    return REDIST_SUCCESS;
}

int redist_hpf_owner(const redist_hpf_dist *d, int64_t g)
{
    int err = check_global(d, g);
    if (err != REDIST_SUCCESS)
        return err;
    int64_t m = block_size(d), P = d->P;
    switch (d->kind) {
    case REDIST_HPF_BLOCK: /* Table 1: p = CD(g_p, m) - 1 */
        return (int)(g / m);
    case REDIST_HPF_CYCLIC: /* Table 1: p = mod(g_p - 1, P) */
        return (int)(g % P);
    default: /* CYCLIC(m), Table 1: p = mod(CD(g_p, m) - 1, P) */
        return (int)((g / m) % P);
    }
}

int64_t redist_hpf_local(const redist_hpf_dist *d, int64_t g)
{
    int err = check_global(d, g);
    if (err != REDIST_SUCCESS)
        return err;
    int64_t m = block_size(d), P = d->P;
    switch (d->kind) {
    case REDIST_HPF_BLOCK: /* Table 1: l_p = m + CR(g_p, m) = g_p - m (CD(g_p, m) - 1) */
        return g - m * (g / m);
    case REDIST_HPF_CYCLIC: /* Table 1: l_p = (g_p - 1) / P + 1 */
        return g / P;
    default: /* CYCLIC(m), Table 1: l_p = mod(g_p - 1, m) + 1 + ((g_p - 1) / (m P)) m; the
                table prints g_p / (m P), which is off for g_p a multiple of m P */
        return g % m + (g / m / P) * m;
    }
}

int64_t redist_hpf_local_count(const redist_hpf_dist *d, int p)
{
    int err = redist_hpf_check(d);
    if (err != REDIST_SUCCESS)
        return err;
    if (p < 0 || p >= d->P)
        return redist__fail(REDIST_ERR_ARG, "hpf: processor %d outside [0, %d)", p, d->P);
    int64_t n = d->n, m = block_size(d), P = d->P;
    switch (d->kind) {
    case REDIST_HPF_BLOCK: { /* processor p holds g_p in [p m + 1, (p + 1) m] (paper §2) */
        int64_t nblocks = ceil_div(n, m); /* <= P */
        if (p < nblocks - 1)
            return m;
        return p == nblocks - 1 ? n - (int64_t)p * m : 0;
    }
    case REDIST_HPF_CYCLIC: /* g_p = (l_p - 1) P + p + 1 <= n */
        return n / P + (p < n % P);
    default: { /* CYCLIC(m): whole blocks dealt round-robin, then the partial one */
        int64_t full = n / m, count = (full / P) * m, r = full % P;
        if (p < r)
            count += m;
        else if (p == r)
            count += n % m;
        return count;
    }
    }
}

int64_t redist_hpf_global(const redist_hpf_dist *d, int p, int64_t l)
{
    int64_t count = redist_hpf_local_count(d, p);
    if (count < 0)
        return count;
    if (l < 0 || l >= count)
        return redist__fail(REDIST_ERR_ARG,
                            "hpf: local index %lld outside [0, %lld) on processor %d", (long long)l,
                            (long long)count, p);
    /* (p, l) holds an element, so every value below is at most that global index < n. */
    int64_t m = block_size(d), P = d->P;
    switch (d->kind) {
    case REDIST_HPF_BLOCK: /* Table 1: g_p = l_p + m p */
        return l + m * p;
    case REDIST_HPF_CYCLIC: /* Table 1: g_p = (l_p - 1) P + p + 1 */
        return l * P + p;
    default: /* CYCLIC(m), Table 1: g_p = mod(l_p - 1, m) + 1 + (P ((l_p - 1) / m) + p) m */
        return l % m + (P * (l / m) + p) * m;
    }
}

int redist_hpf_layout(const redist_hpf_dist *d, const int ranks[], redist_layout *layout)
{
    if (layout == NULL)
        return redist__fail(REDIST_ERR_ARG, "hpf_layout: NULL output pointer");
    *layout = NULL;
    int err = redist_hpf_check(d);
    if (err != REDIST_SUCCESS)
        return err;
    int64_t n = d->n, m = block_size(d);
    int P = d->P;
    return redist_layout_create(1, &n, &m, &P, NULL, ranks, REDIST_ROW_MAJOR, layout);
}
