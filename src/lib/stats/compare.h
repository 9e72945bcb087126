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
    double diff_pct; /* 100 * diff / mean(a); NaN when the ratio is undefined */
    /*
     * Ratios need a baseline that is clearly positive: its mean's interval
     * (Student t, the set's summary interval) must lie wholly above zero.
     * Otherwise ratio_defined is false, every ratio and relative figure is
     * NaN and the verdict is decided on the difference of means.
     */
    bool ratio_defined;
    double base_ci_low, base_ci_high; /* that interval of the baseline mean */
    /* Ratio of means, other / baseline, computed as 1 + diff / mean(a). */
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
 * Compares b against baseline a under the options o. Both sets need n >= 2
 * and the same frame (stats_sample_init_frame() with one stats_frame; the
 * identity frame of stats_sample_init() will do for ordinary values); every
 * figure is returned in the caller's units. The ratio of means is
 * bootstrapped (o->resamples resamples, expanded percentile interval, see
 * bootstrap.h) when a->n + b->n <= o->boot_means_cap and the expanded tail
 * is one the resamples can resolve (at least 1 / resamples); otherwise it
 * uses Fieller's interval, which costs nothing and may be unbounded. A
 * baseline whose interval reaches zero has no ratio (see ratio_defined).
 * Returns 0, -EINVAL (n < 2, frames differ) or -ENOMEM.
 */
NB_MUST_CHECK int stats_compare(const struct stats_sample *a, const struct stats_sample *b,
                                const struct stats_opts *o, struct stats_comparison *out);

#endif
