/* Least squares for `redist calibrate`: a straight line y = a + b x through measured points,
 * weighted by 1 / y^2 so that every point counts by its relative error (a sweep from 0 B to
 * 4 MiB spans five decades; unweighted, the largest sizes would decide the start-up alone).
 * Pure arithmetic, no MPI: unit_fit checks it.
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
