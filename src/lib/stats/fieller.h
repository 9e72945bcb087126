/*
 * Fieller's confidence interval for a ratio of two independent means,
 * mean(b) / mean(a). Unlike the delta method it is exact under normality of
 * the means and asymmetric like the ratio itself; it costs O(1), which is why
 * large sets use it instead of resampling the means.
 */
#ifndef NETAB_STATS_FIELLER_H
#define NETAB_STATS_FIELLER_H

#include "util/err.h"

/*
 * ma, mb: the means; va, vb: their squared standard errors (var / n);
 * tq: the t (or z) quantile for the wanted confidence. Writes the interval
 * into lo, hi and returns 0, or returns -EDOM when the baseline mean is not
 * significantly different from zero (the interval is then unbounded and lo,
 * hi are set to -inf, +inf).
 */
NB_MUST_CHECK int stats_fieller_ratio(double ma, double va, double mb, double vb, double tq,
                                      double *lo, double *hi);

#endif
