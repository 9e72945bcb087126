/*
 * A sample set prepared once for every statistic that needs order or ranks.
 *
 * The statistics code needs the values in run order (for drift), sorted (for
 * medians, percentiles, fences and Mann-Whitney) and as ranks in run order
 * (for the Spearman trend test). Sorting a million values is the most
 * expensive step of `netab stats`, so it happens once, here.
 */
#ifndef NETAB_STATS_SAMPLE_H
#define NETAB_STATS_SAMPLE_H

#include <stddef.h>

#include "util/err.h"

struct stats_sample {
    const double *x; /* values in run order; borrowed from the caller */
    double *sorted;  /* ascending copy; owned by the sample */
    double *rank;    /* rank[i] is the average rank (1-based) of x[i]; owned */
    size_t n;
    double sum;    /* sum of x, accumulated with Kahan compensation */
    double mean;   /* arithmetic mean */
    double var;    /* unbiased sample variance (n - 1 denominator) */
    size_t n_ties; /* values that share their value with another value */
};

/*
 * Prepares s from x[0..n-1]. x must stay alive and unchanged while s is used;
 * every value must be finite (the input layer guarantees it). Returns 0,
 * -EINVAL if n < 1 or a value is not finite, or -ENOMEM. On failure s holds
 * nothing that needs freeing. Release with stats_sample_free().
 */
NB_MUST_CHECK int stats_sample_init(struct stats_sample *s, const double *x, size_t n);

/* Frees what stats_sample_init() allocated; safe on a zeroed struct. */
void stats_sample_free(struct stats_sample *s);

/*
 * The p-quantile (0 <= p <= 1) of a sorted array by linear interpolation
 * between order statistics (Hyndman-Fan type 7, the default of R and numpy).
 */
double stats_quantile_sorted(const double *sorted, size_t n, double p);

#endif
