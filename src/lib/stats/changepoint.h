/*
 * Change points of a series by E-divisive means (Matteson and James, 2014,
 * the method of MongoDB's and Apache Otava's performance CI), pure
 * computation (docs/history.md).
 *
 * The series is split hierarchically: in every segment of the current
 * segmentation the split point maximising the energy statistic
 *
 *   Q(t) = t(m-t)/m * ( 2/(t(m-t)) sum|x_i - y_j| - 1/C(t,2) sum|x_i - x_k|
 *                       - 1/C(m-t,2) sum|y_j - y_l| )
 *
 * (x the t values before, y the m-t values after, both at least min_seg
 * long) is found, and the best of them over all segments is kept when a
 * permutation test says so: the values of every segment are shuffled within
 * it (seeded, so the result is repeatable) and the statistic recomputed;
 * the p-value is (1 + #{shuffled >= observed}) / (1 + shuffles). Splitting
 * stops at the first split whose p-value exceeds alpha, so a series without
 * any change reports one with probability at most alpha.
 */
#ifndef NETAB_STATS_CHANGEPOINT_H
#define NETAB_STATS_CHANGEPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct stats_cp_opts {
    double alpha;        /* significance of every split (default 0.01) */
    size_t min_seg;      /* the shortest segment (default 5): one outlier is no change */
    size_t permutations; /* shuffles per test (default 999) */
    uint64_t seed;       /* of the shuffles */
    double confidence;   /* level of the interval of each change (default 0.95) */
};

void stats_cp_opts_default(struct stats_cp_opts *o);

struct stats_changepoint {
    size_t index;             /* the first point after the change (0-based) */
    size_t n_before, n_after; /* points of the segments on either side */
    double mean_before, mean_after;
    double rel, rel_low, rel_high; /* mean_after / mean_before - 1 and its interval */
    double p;                      /* the permutation test's p-value when the split was made */
    double q;                      /* the energy statistic of the split */
};

/*
 * The change points of x[0..n-1] (every value finite) in ascending order;
 * *out is the caller's (free()), NULL when there are none. The interval of
 * each change is Welch's interval of the difference of the two adjacent
 * segments' means at o->confidence, divided by the mean before. Returns 0,
 * -EINVAL (a value not finite, min_seg < 2, alpha not in (0, 1)) or -ENOMEM.
 */
NB_MUST_CHECK int stats_changepoints(const double *x, size_t n, const struct stats_cp_opts *o,
                                     struct stats_changepoint **out, size_t *nout);

#endif
