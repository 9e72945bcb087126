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

/*
 * Writes r means of bootstrap resamples of x[0..n-1] into out[0..r-1]; costs
 * r * n index draws. Those come from a xoshiro256** generator seeded from rng,
 * inlined because GSL's generic gsl_rng_get() call costs ~6 ns, five times
 * the whole rest of the loop.
 */
void stats_boot_means(const double *x, size_t n, gsl_rng *rng, size_t r, double *out);

/*
 * The tail probability for an "expanded" percentile interval (Hesterberg,
 * "What teachers should know about the bootstrap", 2015): the plain
 * percentile interval is too narrow for small samples, because the bootstrap
 * distribution has the spread of the plug-in variance (divisor n, not n - 1)
 * and normal rather than t tails. Using the quantiles at
 * Phi(-sqrt(n / (n - 1)) t_{1-a/2, df}) instead of a/2 corrects both to
 * first order. n is the smaller sample size and df the Welch degrees of
 * freedom; the correction vanishes as they grow. The result is never below
 * DBL_MIN (it would underflow to 0 for two values at 99.9 %); a tail below
 * 1 / resamples cannot be resolved by the bootstrap, and stats_compare()
 * then uses Fieller's interval.
 */
double stats_boot_expanded_tail(double conf, size_t n, double df);

/*
 * Percentile interval from draws[0..r-1], which it reorders in place
 * (quickselect, O(r), rather than a full sort): the
 * quantiles at tail and 1 - tail (tail = (1 - confidence) / 2 for the plain
 * percentile interval). NaN draws (for example a ratio over a zero) count as larger than
 * any value and make an interval end NaN if they reach its quantile. Returns 0 or
 * -EINVAL when r < 2 or tail is not in (0, 0.5).
 */
NB_MUST_CHECK int stats_boot_percentile(double *draws, size_t r, double tail, double *lo,
                                        double *hi);

#endif
