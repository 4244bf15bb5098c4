/* Least squares for `redist calibrate`: a straight line y = a + b x through measured points,
 * weighted by 1 / y^2 so that every point counts by its relative error (a sweep from 0 B to
 * 4 MiB spans five decades; unweighted, the largest sizes would decide the start-up alone).
 * Also the threads' speedup limit from times at 1, 2, 4, ... threads. Pure arithmetic, no
 * MPI: unit_machine checks both.
 */
#include "model/model.h"

#include <math.h>

int redist__fit_line(const double *x, const double *y, int n, redist__fit *out)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        if (!(y[i] > 0) || !isfinite(x[i]) || !isfinite(y[i]))
            return -1;
        double w = 1.0 / (y[i] * y[i]);
        sw += w;
        sx += w * x[i];
        sy += w * y[i];
        sxx += w * x[i] * x[i];
        sxy += w * x[i] * y[i];
    }
    double det = sw * sxx - sx * sx;
    if (n < 2 || !(det > 1e-300 * sw * sxx))
        return -1; /* fewer than two distinct x */
    out->b = (sw * sxy - sx * sy) / det;
    out->a = (sy - out->b * sx) / sw;
    /* R^2 of the weighted fit: 1 - (weighted residual) / (weighted spread about the mean). */
    double mean = sy / sw, res = 0, tot = 0;
    for (int i = 0; i < n; i++) {
        double w = 1.0 / (y[i] * y[i]), f = out->a + out->b * x[i];
        res += w * (y[i] - f) * (y[i] - f);
        tot += w * (y[i] - mean) * (y[i] - mean);
    }
    out->r2 = tot > 0 ? 1.0 - res / tot : 1.0;
    return 0;
}

/* The time at one thread, or -1 if there is none or a time is not finite and > 0. */
static double one_thread_time(const int *threads, const double *seconds, int n)
{
    double t1 = -1;
    for (int i = 0; i < n; i++) {
        if (!(seconds[i] > 0) || !isfinite(seconds[i]))
            return -1;
        if (threads[i] == 1)
            t1 = seconds[i];
    }
    return t1;
}

/* The saturating law S(T) = T / (1 + (T - 1) / L) is linear in 1 / L once written as
   1/S - 1/T = (1 - 1/T) / L: a line through the origin, whose least-squares slope is
   sum x y / sum x^2 (unweighted: every y is a fraction of 1 already). */
int redist__fit_thread_limit(const int *threads, const double *seconds, int n, double *limit)
{
    double t1 = one_thread_time(threads, seconds, n), sxx = 0, sxy = 0;
    if (t1 < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        if (threads[i] < 2)
            continue;
        double inv_t = 1.0 / threads[i], x = 1.0 - inv_t, y = seconds[i] / t1 - inv_t;
        sxx += x * x;
        sxy += x * y;
    }
    if (!(sxx > 0))
        return -1; /* no point with more than one thread */
    /* sxy <= 0: speedups of T or more, no saturation seen */
    double l = sxy > sxx / REDIST__THREAD_LIMIT_MAX ? sxx / sxy : REDIST__THREAD_LIMIT_MAX;
    *limit = l < 1.0 ? 1.0 : l; /* slower with threads than without: no speedup, L = 1 */
    return 0;
}
