/*
 * Bootstrap resampling, seeded and deterministic.
 *
 * Medians are resampled in O(1) per resample whatever n is: the k-th order
 * statistic of n draws from the empirical distribution is sorted[floor(n U)]
 * where U is the k-th order statistic of n standard uniforms, and that has a
 * Beta(k, n - k + 1) distribution. Drawing U from GSL's Beta sampler is
 * therefore the same, in distribution, as drawing n values with replacement
 * and selecting their median, without touching n values. This is what lets
 * `netab stats` run 10,000 median resamples on a million values in
 * microseconds.
 *
 * Means have no such shortcut: a resampled mean needs n draws. Callers
 * decide when that is affordable (see stats_opts.boot_means_cap).
 */
#ifndef NETAB_STATS_BOOTSTRAP_H
#define NETAB_STATS_BOOTSTRAP_H

#include <gsl/gsl_rng.h>
#include <stddef.h>

#include "util/err.h"

/* A GSL generator (taus2) seeded with seed; NULL if out of memory. Free with gsl_rng_free. */
gsl_rng *stats_boot_rng(unsigned long seed);

/* Writes r medians of bootstrap resamples of sorted[0..n-1] (ascending) into out[0..r-1]. */
void stats_boot_medians(const double *sorted, size_t n, gsl_rng *rng, size_t r, double *out);

/* Writes r means of bootstrap resamples of x[0..n-1] into out[0..r-1]; costs r * n draws. */
void stats_boot_means(const double *x, size_t n, gsl_rng *rng, size_t r, double *out);

/*
 * Percentile interval at confidence conf from draws[0..r-1], which it sorts
 * in place. NaN draws (for example a ratio over a zero) are sorted last and
 * make the interval NaN if they reach the upper quantile. Returns 0 or
 * -EINVAL when r < 2.
 */
NB_MUST_CHECK int stats_boot_percentile(double *draws, size_t r, double conf, double *lo,
                                        double *hi);

#endif
