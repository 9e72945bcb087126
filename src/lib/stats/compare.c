#include "stats/compare.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "stats/bootstrap.h"
#include "stats/fieller.h"

/*
 * Bootstrap intervals of the median difference and ratio; O(resamples)
 * whatever n is. Works in the frame of a and b (o0 is the frame's origin, so
 * a true median is m + o0) and leaves the results in it.
 */
static int compare_medians(const struct stats_sample *a, const struct stats_sample *b,
                           const struct stats_opts *o, gsl_rng *rng, double *da, double *db,
                           struct stats_comparison *out)
{
    size_t r = o->resamples;
    double o0 = stats_frame_origin(a);
    double ma = stats_quantile_sorted(a->sorted, a->n, 0.5);
    double mb = stats_quantile_sorted(b->sorted, b->n, 0.5);
    bool ratio_ok = out->ratio_defined && ma + o0 > 0;
    out->median_diff = mb - ma;
    out->median_ratio = ratio_ok ? (mb + o0) / (ma + o0) : NAN;
    stats_boot_medians(a->sorted, a->n, rng, r, da);
    stats_boot_medians(b->sorted, b->n, rng, r, db);
    double *ratio = malloc(r * sizeof(*ratio));
    if (!ratio)
        return -ENOMEM;
    for (size_t i = 0; i < r; i++) {
        ratio[i] = da[i] + o0 > 0 ? (db[i] + o0) / (da[i] + o0) : NAN;
        db[i] -= da[i];
    }
    double tail = (1 - o->confidence) / 2;
    int err =
        stats_boot_percentile(db, r, tail, &out->median_diff_ci_low, &out->median_diff_ci_high);
    if (!err)
        err = stats_boot_percentile(ratio, r, tail, &out->median_ratio_ci_low,
                                    &out->median_ratio_ci_high);
    if (!err && !ratio_ok)
        out->median_ratio_ci_low = out->median_ratio_ci_high = NAN;
    out->median_resamples = r;
    free(ratio);
    return err;
}

/*
 * The ratio of means and its interval, as a relative change rel = diff /
 * mean(a) (written to *rel_lo, *rel_hi), so that a change of exactly the
 * noise floor compares equal to it. In the frame of a and b; ratios do not
 * depend on it.
 */
static int compare_ratio_of_means(const struct stats_sample *a, const struct stats_sample *b,
                                  const struct stats_opts *o, gsl_rng *rng, double *da, double *db,
                                  struct stats_comparison *out, double *rel_lo, double *rel_hi)
{
    out->ratio = out->ratio_ci_low = out->ratio_ci_high = NAN;
    *rel_lo = *rel_hi = NAN;
    out->ratio_resamples = 0;
    out->ratio_method = STATS_RATIO_FIELLER;
    if (!out->ratio_defined)
        return 0;
    double o0 = stats_frame_origin(a), Ma = a->mean + o0;
    out->ratio = 1 + (b->mean - a->mean) / Ma;
    size_t r = o->resamples, nmin = a->n < b->n ? a->n : b->n;
    double tail = stats_boot_expanded_tail(o->confidence, nmin, out->welch.df);
    /* Below one resample's worth of tail the percentile would just be the extreme draw. */
    if (a->n + b->n <= o->boot_means_cap && tail * (double)r >= 1) {
        stats_boot_means(a->x, a->n, rng, r, da);
        stats_boot_means(b->x, b->n, rng, r, db);
        for (size_t i = 0; i < r; i++)
            db[i] = da[i] + o0 > 0 ? (db[i] - da[i]) / (da[i] + o0) : NAN;
        out->ratio_method = STATS_RATIO_BOOTSTRAP;
        out->ratio_resamples = r;
        int err = stats_boot_percentile(db, r, tail, rel_lo, rel_hi);
        out->ratio_ci_low = 1 + *rel_lo;
        out->ratio_ci_high = 1 + *rel_hi;
        return err;
    }
    double lo, hi;
    int err = stats_fieller_ratio(Ma, a->var / (double)a->n, b->mean + o0, b->var / (double)b->n,
                                  out->welch.tq, &lo, &hi);
    /* An unbounded interval is a result, not a failure: the verdict handles it. */
    (void)err;
    out->ratio_ci_low = lo;
    out->ratio_ci_high = hi;
    *rel_lo = lo - 1;
    *rel_hi = hi - 1;
    return 0;
}

/*
 * Whether ratios are defined: the baseline mean's t interval (in the frame)
 * lies wholly above zero. Fills ratio_defined and base_ci_* (unframed).
 */
static void baseline_interval(const struct stats_sample *a, const struct stats_opts *o,
                              struct stats_comparison *out)
{
    double Ma = a->mean + stats_frame_origin(a);
    double t = gsl_cdf_tdist_Pinv(1 - (1 - o->confidence) / 2, (double)(a->n - 1));
    double half = t * sqrt(a->var / (double)a->n);
    out->base_ci_low = stats_unframe_loc(a, a->mean - half);
    out->base_ci_high = stats_unframe_loc(a, a->mean + half);
    out->ratio_defined = Ma - half > 0;
}

/* Turns the differences computed in the frame back into the caller's units. */
static void compare_unframe(const struct stats_sample *a, struct stats_comparison *out)
{
    double *v[] = {&out->welch.diff,         &out->welch.se,    &out->welch.ci_low,
                   &out->welch.ci_high,      &out->median_diff, &out->median_diff_ci_low,
                   &out->median_diff_ci_high};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        *v[i] = stats_unframe_spread(a, *v[i]);
    out->diff = out->welch.diff;
    out->diff_ci_low = out->welch.ci_low;
    out->diff_ci_high = out->welch.ci_high;
}

int stats_compare(const struct stats_sample *a, const struct stats_sample *b,
                  const struct stats_opts *o, struct stats_comparison *out)
{
    if (a->n < 2 || b->n < 2 || o->resamples < 2 || a->offset != b->offset || a->exp != b->exp)
        return -EINVAL;
    stats_welch(a, b, o->confidence, &out->welch);
    baseline_interval(a, o, out);
    double Ma = a->mean + stats_frame_origin(a);
    out->diff_pct = out->ratio_defined ? 100 * out->welch.diff / Ma : NAN;
    stats_mannwhitney(a, b, &out->mw);

    int err = 0;
    double rel_lo, rel_hi;
    double *da = malloc(o->resamples * sizeof(*da));
    double *db = malloc(o->resamples * sizeof(*db));
    /* A seed distinct from the per-set summaries keeps the streams independent. */
    gsl_rng *rng = stats_boot_rng((unsigned long)(o->seed * 2654435761u + 17));
    if (!da || !db || !rng) {
        err = -ENOMEM;
        goto out;
    }
    err = compare_medians(a, b, o, rng, da, db, out);
    if (!err)
        err = compare_ratio_of_means(a, b, o, rng, da, db, out, &rel_lo, &rel_hi);
    if (err)
        goto out;
    double alpha = 1 - o->confidence;
    out->runs_needed = stats_runs_needed(a->var, b->var, Ma, o->noise, alpha);
    double rel = out->welch.diff / Ma;
    compare_unframe(a, out);
    if (out->ratio_defined)
        stats_verdict_decide(out->welch.p, alpha, rel, rel_lo, rel_hi, o->noise, o->lower_is_better,
                             &out->verdict);
    else
        stats_verdict_decide_diff(out->welch.p, alpha, out->diff, out->diff_ci_low,
                                  out->diff_ci_high, stats_unframe_spread(a, o->noise * fabs(Ma)),
                                  o->lower_is_better, &out->verdict);
out:
    if (rng)
        gsl_rng_free(rng);
    free(da);
    free(db);
    return err;
}
