/* Public BMMC matrix constructors and algebra (redist.h, "BMMC matrices ([Cor97])"): thin
 * checked wrappers over gf2.c. Pure code, no MPI. */
#include "bmmc/gf2.h"

#include "core/core.h"

static int check_n(const char *fn, int n)
{
    if (n < 0 || n > REDIST__GF2_MAX)
        return redist__fail(REDIST_ERR_ARG, "%s: n = %d must be in 0..64", fn, n);
    return REDIST_SUCCESS;
}

static int check_out(const char *fn, int n, const void *out)
{
    int err = check_n(fn, n);
    if (err == REDIST_SUCCESS && n > 0 && !out)
        err = redist__fail(REDIST_ERR_ARG, "%s: columns is NULL", fn);
    return err;
}

/* An n x n input matrix: no bits at or above row n. */
static int check_matrix(const char *fn, int n, const uint64_t a[])
{
    int err = check_out(fn, n, a);
    for (int j = 0; err == REDIST_SUCCESS && j < n; j++) {
        if (a[j] & ~redist__gf2_low(n))
            err = redist__fail(REDIST_ERR_ARG, "%s: column %d has bits at or above row n = %d", fn,
                               j, n);
    }
    return err;
}

static int check_vector(const char *fn, int n, uint64_t c)
{
    if (c & ~redist__gf2_low(n))
        return redist__fail(REDIST_ERR_ARG, "%s: complement has bits at or above bit n = %d", fn,
                            n);
    return REDIST_SUCCESS;
}

int redist_bmmc_identity(int n, uint64_t columns[])
{
    int err = check_out("redist_bmmc_identity", n, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_identity(n, columns);
    return err;
}

int redist_bmmc_transpose(int a, int b, uint64_t columns[])
{
    if (a < 0 || b < 0 || a + b > REDIST__GF2_MAX)
        return redist__fail(REDIST_ERR_ARG,
                            "redist_bmmc_transpose: a = %d, b = %d: need a, b >= 0, a + b <= 64", a,
                            b);
    int err = check_out("redist_bmmc_transpose", a + b, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_transpose(a, b, columns);
    return err;
}

int redist_bmmc_bit_reversal(int n, uint64_t columns[])
{
    int err = check_out("redist_bmmc_bit_reversal", n, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_bit_reversal(n, columns);
    return err;
}

int redist_bmmc_vector_reversal(int n, uint64_t columns[], uint64_t *complement)
{
    int err = check_out("redist_bmmc_vector_reversal", n, columns);
    if (err == REDIST_SUCCESS && !complement)
        err = redist__fail(REDIST_ERR_ARG, "redist_bmmc_vector_reversal: complement is NULL");
    if (err == REDIST_SUCCESS) {
        redist__gf2_identity(n, columns);
        *complement = redist__gf2_low(n);
    }
    return err;
}

int redist_bmmc_gray(int n, uint64_t columns[])
{
    int err = check_out("redist_bmmc_gray", n, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_gray(n, columns);
    return err;
}

int redist_bmmc_gray_inverse(int n, uint64_t columns[])
{
    int err = check_out("redist_bmmc_gray_inverse", n, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_gray_inverse(n, columns);
    return err;
}

int redist_bmmc_shuffle(int n, int k, uint64_t columns[])
{
    int err = check_out("redist_bmmc_shuffle", n, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_rotate(n, k, columns);
    return err;
}

static int check_layout(const char *fn, int n, int p, int f, const uint64_t columns[])
{
    int err = check_out(fn, n, columns);
    if (err == REDIST_SUCCESS && (p < 0 || p > n || f < 0 || f > n - p))
        err = redist__fail(REDIST_ERR_ARG,
                           "%s: need 0 <= p <= n and 0 <= f <= n - p (n = %d, p = %d, f = %d)", fn,
                           n, p, f);
    return err;
}

int redist_bmmc_layout(int n, int p, int f, uint64_t columns[])
{
    int err = check_layout("redist_bmmc_layout", n, p, f, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_layout_q(n, p, f, columns);
    return err;
}

int redist_bmmc_layout_inverse(int n, int p, int f, uint64_t columns[])
{
    int err = check_layout("redist_bmmc_layout_inverse", n, p, f, columns);
    if (err == REDIST_SUCCESS)
        redist__gf2_layout_q_inverse(n, p, f, columns);
    return err;
}

int redist_bmmc_compose(int n, const uint64_t a[], uint64_t ca, const uint64_t b[], uint64_t cb,
                        uint64_t out[], uint64_t *cout)
{
    const char *fn = "redist_bmmc_compose";
    int err = check_matrix(fn, n, a);
    if (err == REDIST_SUCCESS)
        err = check_matrix(fn, n, b);
    if (err == REDIST_SUCCESS)
        err = check_out(fn, n, out);
    if (err == REDIST_SUCCESS)
        err = check_vector(fn, n, ca);
    if (err == REDIST_SUCCESS)
        err = check_vector(fn, n, cb);
    if (err == REDIST_SUCCESS && !cout)
        err = redist__fail(REDIST_ERR_ARG, "%s: cout is NULL", fn);
    if (err == REDIST_SUCCESS)
        redist__gf2_compose(n, a, ca, b, cb, out, cout);
    return err;
}

int redist_bmmc_inverse(int n, const uint64_t a[], uint64_t c, uint64_t out[], uint64_t *cout)
{
    const char *fn = "redist_bmmc_inverse";
    int err = check_matrix(fn, n, a);
    if (err == REDIST_SUCCESS)
        err = check_out(fn, n, out);
    if (err == REDIST_SUCCESS)
        err = check_vector(fn, n, c);
    if (err == REDIST_SUCCESS && !cout)
        err = redist__fail(REDIST_ERR_ARG, "%s: cout is NULL", fn);
    if (err == REDIST_SUCCESS && redist__gf2_inverse_bmmc(n, a, c, out, cout) != REDIST_SUCCESS)
        err = redist__fail(REDIST_ERR_ARG, "%s: the matrix is singular over GF(2)", fn);
    return err;
}

int redist_bmmc_rank(int n, const uint64_t a[])
{
    int err = check_matrix("redist_bmmc_rank", n, a);
    return err == REDIST_SUCCESS ? redist__gf2_rank(n, a) : err;
}

uint64_t redist_bmmc_apply(int n, const uint64_t a[], uint64_t c, uint64_t x)
{
    if (n < 0 || n > REDIST__GF2_MAX || (n > 0 && !a))
        return c;
    return redist__gf2_mul_vec(n, a, x) ^ c;
}
