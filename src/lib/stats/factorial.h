/*
 * Effects of a 2x2 design: two factors of two levels each (for example the
 * variant, baseline or patched, and a matrix axis, tcp_stream or
 * udp_stream), four cells of independent runs. Each main effect is the
 * difference between a factor's levels averaged over the other factor's
 * levels; the interaction is how much the one factor's effect changes with
 * the other's level. All three are linear contrasts of the four cell means,
 * so each gets a Welch-style interval: the standard error from the cells'
 * own variances and sizes, Welch-Satterthwaite degrees of freedom and a
 * Student t quantile (GSL). Pure computation; no I/O.
 */
#ifndef NETAB_STATS_FACTORIAL_H
#define NETAB_STATS_FACTORIAL_H

#include <stddef.h>

#include "util/err.h"

/* One cell: the mean, the sample variance (n - 1 denominator) and the count of its values. */
struct stats_cell {
    double mean, var;
    size_t n;
};

/* An effect (a contrast of cell means) with its interval and two-sided p-value. */
struct stats_effect {
    double estimate;
    double se;              /* standard error; 0 when every cell's variance is 0 */
    double df;              /* Welch-Satterthwaite; INFINITY when se is 0 */
    double ci_low, ci_high; /* at the requested confidence */
    double p;               /* t test of estimate = 0; 1 or 0 when se is 0 */
    /* estimate and interval in percent of the mean of cell[0][0]; NaN unless that mean > 0 */
    double pct, pct_low, pct_high;
};

struct stats_2x2 {
    struct stats_effect a;           /* main effect of factor A: mean over B of (a2 - a1) */
    struct stats_effect b;           /* main effect of factor B: mean over A of (b2 - b1) */
    struct stats_effect interaction; /* (a2b2 - a1b2) - (a2b1 - a1b1) */
};

/*
 * The effects of the design cell[a][b] (a, b = 0 for a factor's first,
 * reference level) at confidence conf in (0, 1). The percentages treat the
 * reference cell's mean as exact, so their intervals are the absolute ones
 * scaled, not ratio intervals. Returns 0, or -EINVAL when a cell has fewer
 * than 2 values, a mean or variance is not finite, or conf is outside (0, 1).
 */
NB_MUST_CHECK int stats_factorial_2x2(const struct stats_cell cell[2][2], double conf,
                                      struct stats_2x2 *out);

#endif
