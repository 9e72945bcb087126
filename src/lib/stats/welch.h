/*
 * Welch's unequal-variance t-test and the matching confidence interval of
 * the difference of means (other - baseline), with Welch-Satterthwaite
 * degrees of freedom. Benchmark variants rarely share a variance, so the
 * pooled Student test would be wrong more often than it is simpler.
 */
#ifndef NETAB_STATS_WELCH_H
#define NETAB_STATS_WELCH_H

#include "stats/sample.h"

struct stats_welch {
    double diff;            /* mean(b) - mean(a) */
    double se;              /* standard error of diff */
    double t, df;           /* statistic and Welch-Satterthwaite degrees of freedom */
    double p;               /* two-sided p-value */
    double ci_low, ci_high; /* interval of diff at the requested confidence */
    double tq;              /* the t quantile used for the interval (Fieller reuses it) */
};

/*
 * Compares b against baseline a at confidence conf. Both need n >= 2.
 * When both variances are zero the test degenerates: p is 1 if the means are
 * equal and 0 otherwise, and the interval is the point diff.
 */
void stats_welch(const struct stats_sample *a, const struct stats_sample *b, double conf,
                 struct stats_welch *out);

#endif
