/*
 * Checks that make a result suspect. They only warn: no value is ever
 * dropped or changed, because a silently cleaned data set hides exactly the
 * surprises a benchmark should expose.
 *
 *  - Outliers: values beyond Tukey's fences, Q1 - 1.5 IQR and Q3 + 1.5 IQR
 *    ("far" beyond 3 IQR).
 *  - Drift: Spearman's rank correlation of value against run order, with the
 *    t approximation for its p-value; it catches monotone trends (warm-up,
 *    thermal throttling, a filling disk) without assuming linearity and costs
 *    O(n) once ranks exist. Checked from 8 values on: below that the t
 *    approximation calls any monotone triple a certain trend.
 *  - Bimodality: Sarle's bimodality coefficient
 *    BC = (g^2 + 1) / (k + 3 (n-1)^2 / ((n-2)(n-3))) with bias-corrected
 *    skewness g and excess kurtosis k; BC > 5/9 (the value of a uniform
 *    distribution) suggests two modes. Checked from 10 values on, since
 *    smaller sets give too noisy moments.
 *  - Sorted: values in ascending or descending order where the order is only
 *    said to be run order (a file): from STATS_DRIFT_MIN_N values on, and
 *    only when a random arrangement of these values (with their ties) would
 *    be in order with probability 2 * prod(t_j!) / n! below
 *    STATS_SORTED_CHANCE. Published values are often sorted; a sorted set
 *    has Spearman's rho = +-1 whatever the runs did, so no drift is claimed
 *    and the warning says what the order means either way.
 *  - Too few runs: fewer than STATS_MIN_RUNS values.
 * With the order unknown (--order unknown) neither drift nor sortedness is
 * judged, and Spearman's rho is not computed.
 */
#ifndef NETAB_STATS_WARNINGS_H
#define NETAB_STATS_WARNINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/opts.h"
#include "stats/sample.h"

#define STATS_MIN_RUNS 5
#define STATS_DRIFT_P 0.01  /* drift is reported below this p-value ... */
#define STATS_DRIFT_RHO 0.1 /* ... and above this |rho|, so huge sets don't cry wolf */
#define STATS_DRIFT_MIN_N 8
#define STATS_SORTED_CHANCE 0.01
#define STATS_BIMODAL_BC (5.0 / 9.0)
#define STATS_BIMODAL_MIN_N 10

struct stats_checks {
    double fence_low, fence_high;       /* Tukey fences at 1.5 IQR */
    size_t outliers_low, outliers_high; /* values beyond them */
    size_t outliers_far;                /* of those, values beyond 3 IQR */
    double spearman_rho, spearman_p;    /* value vs run order; NaN for n < 3 or no run order */
    int sorted;                         /* +1 ascending, -1 descending, 0 not taken for sorted */
    enum stats_order order;             /* what the order was taken to say */
    double bimodality;                  /* Sarle's BC; NaN for n < 4 */
    bool too_few, drift, bimodal;
};

/*
 * Runs every check on s, whose order means what order says (drift and
 * sortedness above). Pure computation; the drift check borrows a 1 MiB
 * block of scratch when it can (and works in a small one when not).
 */
void stats_checks_compute(const struct stats_sample *s, enum stats_order order,
                          struct stats_checks *out);

enum { STATS_WARNING_MAX = 8, STATS_WARNING_LEN = 256 };

struct stats_warning {
    const char *kind; /* "outliers", "drift", "sorted", "bimodal", "too_few_runs", ... (static) */
    const char *set;  /* the set's name; borrowed from the caller */
    char message[STATS_WARNING_LEN];
};

/*
 * Appends a warning for each failed check of the set called name to
 * w[*count..max-1] and advances *count; warnings beyond max are dropped
 * (there are at most four per set). name must outlive w.
 */
void stats_checks_warnings(const struct stats_checks *c, const struct stats_sample *s,
                           const char *name, struct stats_warning *w, size_t *count, size_t max);

#endif
