/*
 * The verdict: did the other variant regress, improve, stay within the noise
 * floor, or is nothing proven?
 *
 * "regressed" or "improved" needs both p < alpha (alpha = 1 - confidence)
 * and the whole confidence interval of the relative change beyond the noise
 * floor in the same direction: significance alone is not enough, because
 * with enough runs a 0.1 % change is significant yet nobody should act on it.
 * "within noise" needs the whole interval inside +-noise (a positive result:
 * any change is too small to matter). Everything else is "no difference
 * proven": the data cannot tell, and more runs may.
 */
#ifndef NETAB_STATS_VERDICT_H
#define NETAB_STATS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

enum stats_verdict_kind {
    STATS_NO_DIFFERENCE = 0,
    STATS_WITHIN_NOISE,
    STATS_IMPROVED,
    STATS_REGRESSED,
};

struct stats_verdict {
    enum stats_verdict_kind kind;
    /* Relative change other/baseline - 1 and its interval; NaN when on_difference. */
    double rel, rel_low, rel_high;
    /*
     * The ratio is undefined (the baseline's interval reaches zero or below),
     * so the verdict was decided on the difference of means: diff, its
     * interval and the floor as an absolute amount (noise * |baseline mean|).
     */
    bool on_difference;
    double diff, diff_low, diff_high, floor;
    bool significant;              /* p < alpha */
    bool significant_within_floor; /* significant, but the interval is not beyond the floor */
};

/*
 * Decides from the p-value, alpha, the relative change other/baseline - 1
 * with its interval and the noise floor (a fraction). The comparison with
 * the floor is exact: a change of exactly -noise is not beyond it. Callers
 * should compute rel as (other - baseline) / baseline, not as ratio - 1,
 * which would turn 99/100 into -0.010000000000000009. NaN or infinite bounds
 * give "no difference proven".
 */
void stats_verdict_decide(double p, double alpha, double rel, double rel_low, double rel_high,
                          double noise, bool lower_is_better, struct stats_verdict *out);

/*
 * The same rule on the difference of means other - baseline (diff, with
 * interval lo..hi) against an absolute floor (>= 0), for a baseline whose
 * ratio is undefined. Sets on_difference; rel and its interval are NaN.
 */
void stats_verdict_decide_diff(double p, double alpha, double diff, double lo, double hi,
                               double floor, bool lower_is_better, struct stats_verdict *out);

/*
 * The change v was decided on, into buf: "+2.53% [+1.20%, +3.84%]", or
 * "difference -60.8 [-68.4, -53.2]" when it was decided on the difference
 * (on_difference), so that no caller prints a NaN percentage.
 */
void stats_verdict_change(const struct stats_verdict *v, char *buf, size_t len);

/* "regressed", "improved", "within noise" or "no difference proven" (static strings). */
const char *stats_verdict_name(enum stats_verdict_kind k);

/*
 * One plain sentence explaining v (with noise as a fraction) into buf, e.g.
 * "statistically significant (p = 0.002) but not beyond the 1% noise floor".
 */
void stats_verdict_explain(const struct stats_verdict *v, double p, double noise, char *buf,
                           size_t len);

/*
 * Runs per variant needed to detect a change of noise * |mean_a| with 80 %
 * power at alpha by a two-sided test, given the observed variances: the
 * normal-approximation formula n = 2 (z_{1-alpha/2} + z_{0.8})^2 s^2 / delta^2
 * with s^2 the average of the two variances. Returns 0 when undefined (zero
 * mean or noise) and SIZE_MAX when it overflows.
 */
size_t stats_runs_needed(double var_a, double var_b, double mean_a, double noise, double alpha);

#endif
