#include "stats/fieller.h"

#include <errno.h>
#include <math.h>

int stats_fieller_ratio(double ma, double va, double mb, double vb, double tq, double *lo,
                        double *hi)
{
    /*
     * The interval is the set of r with (mb - r ma)^2 <= tq^2 (vb + r^2 va),
     * a quadratic r^2 A - 2 r B + C <= 0 that is a bounded interval only when
     * A > 0, i.e. when the baseline mean is itself significant.
     */
    double t2 = tq * tq;
    double A = ma * ma - t2 * va;
    double B = ma * mb;
    double C = mb * mb - t2 * vb;
    double disc = B * B - A * C;
    if (A <= 0 || disc < 0) {
        *lo = -INFINITY;
        *hi = INFINITY;
        return -EDOM;
    }
    double s = sqrt(disc);
    double r1 = (B - s) / A, r2 = (B + s) / A;
    *lo = fmin(r1, r2);
    *hi = fmax(r1, r2);
    return 0;
}
