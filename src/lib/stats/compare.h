/*
 * Baseline a against another set b: every estimate, interval, test and the
 * verdict that `netab stats` and `netab compare` report.
 */
#ifndef NETAB_STATS_COMPARE_H
#define NETAB_STATS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/mannwhitney.h"
#include "stats/opts.h"
#include "stats/sample.h"
#include "stats/verdict.h"
#include "stats/welch.h"
#include "util/err.h"

enum stats_ratio_method {
    STATS_RATIO_BOOTSTRAP, /* expanded percentile bootstrap of resampled means */
    STATS_RATIO_FIELLER,   /* Fieller's interval with Welch degrees of freedom */
};

struct stats_comparison {
    /* Difference of means, other - baseline, Welch interval. */
    double diff, diff_ci_low, diff_ci_high;
    double diff_pct; /* 100 * diff / mean(a) */
    /* Ratio of means, other / baseline; NaN when the baseline mean is not positive. */
    double ratio, ratio_ci_low, ratio_ci_high;
    enum stats_ratio_method ratio_method;
    size_t ratio_resamples; /* 0 for Fieller */
    /* Medians: difference and ratio, both with bootstrap percentile intervals. */
    double median_diff, median_diff_ci_low, median_diff_ci_high;
    double median_ratio, median_ratio_ci_low, median_ratio_ci_high;
    size_t median_resamples;
    struct stats_welch welch;
    struct stats_mw mw;
    struct stats_verdict verdict;
    size_t runs_needed; /* per variant, to resolve a noise-floor-sized change */
};

/*
 * Compares b against baseline a under the options o. Both sets need n >= 2.
 * The ratio of means is bootstrapped (o->resamples resamples, expanded
 * percentile interval, see bootstrap.h) when
 * a->n + b->n <= o->boot_means_cap, and otherwise uses Fieller's interval,
 * which at such sizes is as accurate and costs nothing. The ratio and the
 * verdict need a positive baseline mean; otherwise they are NaN and
 * "no difference proven". Returns 0, -EINVAL (n < 2) or -ENOMEM.
 */
NB_MUST_CHECK int stats_compare(const struct stats_sample *a, const struct stats_sample *b,
                                const struct stats_opts *o, struct stats_comparison *out);

#endif
