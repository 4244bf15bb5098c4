/* Serial tests of scaling while unpacking (src/index/scale.c): for float, double, float
 * complex and double complex, contiguous and strided, every combination of alpha and beta
 * among 0, 1 and others (complex ones for the complex kinds) and conjugation, the result of
 * redist__scale_move is compared with the formula written out here in long double. With
 * beta = 0 the destination starts as NaN and must not show through (never read); with
 * alpha = 0 the source is NaN and must not show through either (BLAS: not referenced). */
#include "index/scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/check.h"

enum { N = 37, MAXSTEP = 3 };

static const double values[][2] = {{0, 0}, {1, 0}, {-2.5, 0}, {0, 1}, {0.5, -3}, {-1.25, 0.75}};
#define NVALUES ((int)(sizeof values / sizeof values[0]))

static int is_complex(int kind)
{
    return kind == REDIST__COMPLEX8 || kind == REDIST__COMPLEX16;
}

static int is_float(int kind)
{
    return kind == REDIST__REAL4 || kind == REDIST__COMPLEX8;
}

/* Element j's part c (0 real, 1 imaginary) of an array of `kind`, and setting it. */
static long double get(const char *a, int kind, int64_t j, int c)
{
    if (is_float(kind)) {
        float v;
        memcpy(&v, a + (j * (is_complex(kind) ? 2 : 1) + c) * 4, 4);
        return v;
    }
    double v;
    memcpy(&v, a + (j * (is_complex(kind) ? 2 : 1) + c) * 8, 8);
    return v;
}

static void set(char *a, int kind, int64_t j, int c, double v)
{
    if (is_float(kind)) {
        float f = (float)v;
        memcpy(a + (j * (is_complex(kind) ? 2 : 1) + c) * 4, &f, 4);
    } else {
        memcpy(a + (j * (is_complex(kind) ? 2 : 1) + c) * 8, &v, 8);
    }
}

static void one_case(int kind, const double alpha[2], const double beta[2], int conj, int dstep,
                     int sstep)
{
    int parts = is_complex(kind) ? 2 : 1;
    size_t es = (is_float(kind) ? 4 : 8) * (size_t)parts;
    char *s = malloc(N * MAXSTEP * es), *d = malloc(N * MAXSTEP * es),
         *d0 = malloc(N * MAXSTEP * es);
    int alpha_zero = alpha[0] == 0 && alpha[1] == 0, beta_zero = beta[0] == 0 && beta[1] == 0;
    for (int64_t j = 0; j < N * MAXSTEP; j++)
        for (int c = 0; c < parts; c++) {
            set(s, kind, j, c, alpha_zero ? NAN : (double)((j * 7 + c * 3) % 23) - 11.0);
            set(d, kind, j, c, beta_zero ? NAN : (double)((j * 5 + c) % 19) * 0.5 - 4.0);
        }
    memcpy(d0, d, N * MAXSTEP * es);
    redist__scale sc = {kind,       conj && parts == 2,   beta_zero,
                        alpha_zero, {alpha[0], alpha[1]}, {beta[0], beta[1]}};
    redist__scale_move(&sc, d, dstep * (int64_t)es, s, sstep * (int64_t)es, N);
    for (int64_t j = 0; j < N * MAXSTEP; j++) {
        if (j % dstep != 0 || j / dstep >= N) { /* untouched: bit for bit (NaN too) */
            CHECK(memcmp(d + j * (int64_t)es, d0 + j * (int64_t)es, es) == 0,
                  "kind %d: element %lld outside the run changed", kind, (long long)j);
            continue;
        }
        int64_t i = j / dstep;
        long double xr = alpha_zero ? 0 : get(s, kind, i * sstep, 0);
        long double xi = parts == 2 && !alpha_zero ? get(s, kind, i * sstep, 1) : 0;
        long double yr = beta_zero ? 0 : get(d0, kind, j, 0);
        long double yi = parts == 2 && !beta_zero ? get(d0, kind, j, 1) : 0;
        if (conj && parts == 2)
            xi = -xi;
        long double want[2] = {alpha[0] * xr - alpha[1] * xi + beta[0] * yr - beta[1] * yi,
                               alpha[0] * xi + alpha[1] * xr + beta[0] * yi + beta[1] * yr};
        for (int c = 0; c < parts; c++) {
            long double got = get(d, kind, j, c);
            CHECK(!isnan((double)got) && fabsl(got - want[c]) <= 1e-5L * (1 + fabsl(want[c])),
                  "kind %d alpha (%g,%g) beta (%g,%g) conj %d steps %d/%d: element %lld part %d "
                  "= %Lg, want %Lg",
                  kind, alpha[0], alpha[1], beta[0], beta[1], conj, dstep, sstep, (long long)i, c,
                  got, want[c]);
        }
    }
    free(s), free(d), free(d0);
}

int main(void)
{
    int cases = 0;
    for (int kind = REDIST__REAL4; kind <= REDIST__COMPLEX16; kind++)
        for (int a = 0; a < NVALUES; a++)
            for (int b = 0; b < NVALUES; b++) {
                if (!is_complex(kind) && (values[a][1] != 0 || values[b][1] != 0))
                    continue;
                for (int conj = 0; conj < 2; conj++)
                    for (int steps = 0; steps < 4; steps++) {
                        one_case(kind, values[a], values[b], conj, 1 + (steps & 1) * 2,
                                 1 + (steps >> 1));
                        cases++;
                    }
            }
    if (failures)
        fprintf(stderr, "test_scale: %ld failures\n", failures);
    else
        printf("test_scale: %d cases of alpha, beta, conjugation and steps, every element\n",
               cases);
    return failures != 0;
}
