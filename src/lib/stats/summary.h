/*
 * Description of one sample set: location, spread, percentiles and
 * confidence intervals of the mean (Student t) and of the median (bootstrap).
 */
#ifndef NETAB_STATS_SUMMARY_H
#define NETAB_STATS_SUMMARY_H

#include <stddef.h>

#include "stats/opts.h"
#include "stats/sample.h"
#include "util/err.h"

struct stats_summary {
    size_t n;
    double min, max, mean, median, stddev;
    double cv; /* stddev / |mean|; NaN when the mean is 0 */
    double p1, p5, p25, p75, p95, p99;
    double mean_ci_low, mean_ci_high;     /* Student t with n - 1 degrees of freedom */
    double median_ci_low, median_ci_high; /* bootstrap percentile interval */
    size_t median_resamples;              /* resamples behind the median interval */
};

/*
 * Fills out from s. Needs n >= 2 for the intervals (with n == 1 they are NaN).
 * Returns 0 or -ENOMEM (the bootstrap needs o->resamples doubles).
 */
NB_MUST_CHECK int stats_summary_compute(const struct stats_sample *s, const struct stats_opts *o,
                                        struct stats_summary *out);

#endif
