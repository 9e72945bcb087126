#include "stats/verdict.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

/*
 * The shared rule on an interval lo..hi of a change (relative or absolute)
 * against a floor of the same kind: beyond it means strictly beyond.
 */
static void classify(double lo, double hi, double floor, bool lower_is_better,
                     struct stats_verdict *out)
{
    out->kind = STATS_NO_DIFFERENCE;
    if (isfinite(lo) && isfinite(hi)) {
        /* Express the interval as a gain, so one rule serves both directions. */
        double glo = lower_is_better ? -hi : lo;
        double ghi = lower_is_better ? -lo : hi;
        if (out->significant && glo > floor)
            out->kind = STATS_IMPROVED;
        else if (out->significant && ghi < -floor)
            out->kind = STATS_REGRESSED;
        else if (glo >= -floor && ghi <= floor)
            out->kind = STATS_WITHIN_NOISE;
    }
    out->significant_within_floor =
        out->significant && out->kind != STATS_IMPROVED && out->kind != STATS_REGRESSED;
}

void stats_verdict_decide(double p, double alpha, double rel, double rel_low, double rel_high,
                          double noise, bool lower_is_better, struct stats_verdict *out)
{
    out->rel = rel;
    out->rel_low = rel_low;
    out->rel_high = rel_high;
    out->on_difference = false;
    out->diff = out->diff_low = out->diff_high = out->floor = NAN;
    out->significant = p < alpha;
    classify(rel_low, rel_high, noise, lower_is_better, out);
}

void stats_verdict_decide_diff(double p, double alpha, double diff, double lo, double hi,
                               double floor, bool lower_is_better, struct stats_verdict *out)
{
    out->rel = out->rel_low = out->rel_high = NAN;
    out->on_difference = true;
    out->diff = diff;
    out->diff_low = lo;
    out->diff_high = hi;
    out->floor = floor;
    out->significant = p < alpha;
    classify(lo, hi, floor, lower_is_better, out);
}

void stats_verdict_change(const struct stats_verdict *v, char *buf, size_t len)
{
    if (v->on_difference)
        snprintf(buf, len, "difference %+.6g [%+.6g, %+.6g]", v->diff, v->diff_low, v->diff_high);
    else
        snprintf(buf, len, "%+.2f%% [%+.2f%%, %+.2f%%]", v->rel * 100, v->rel_low * 100,
                 v->rel_high * 100);
}

const char *stats_verdict_name(enum stats_verdict_kind k)
{
    switch (k) {
    case STATS_REGRESSED:
        return "regressed";
    case STATS_IMPROVED:
        return "improved";
    case STATS_WITHIN_NOISE:
        return "within noise";
    case STATS_NO_DIFFERENCE:
        break;
    }
    return "no difference proven";
}

/* The explanation of a verdict decided on the difference of means. */
static void explain_difference(const struct stats_verdict *v, double p, double noise, char *buf,
                               size_t len)
{
    const char *why = "the ratio is undefined because the baseline's interval reaches zero, so "
                      "this is decided on the difference of means";
    char fl[64];
    snprintf(fl, sizeof(fl), "%g%% of the baseline's |mean|, %.3g", noise * 100, v->floor);
    switch (v->kind) {
    case STATS_REGRESSED:
    case STATS_IMPROVED:
        snprintf(buf, len,
                 "%s: difference %+.6g (interval %+.6g .. %+.6g) lies wholly beyond the noise "
                 "floor (%s) and is statistically significant (p = %.3g); %s",
                 stats_verdict_name(v->kind), v->diff, v->diff_low, v->diff_high, fl, p, why);
        return;
    case STATS_WITHIN_NOISE:
        snprintf(buf, len,
                 "within noise: the whole interval %+.6g .. %+.6g of the difference lies inside "
                 "+-%.3g (%s); %s",
                 v->diff_low, v->diff_high, v->floor, fl, why);
        return;
    case STATS_NO_DIFFERENCE:
        break;
    }
    if (!isfinite(v->diff_low) || !isfinite(v->diff_high))
        snprintf(buf, len, "no difference proven: the difference has no bounded interval; %s", why);
    else
        snprintf(buf, len,
                 "no difference proven: p = %.3g and the interval %+.6g .. %+.6g of the "
                 "difference does not lie beyond the noise floor (%s); %s",
                 p, v->diff_low, v->diff_high, fl, why);
}

void stats_verdict_explain(const struct stats_verdict *v, double p, double noise, char *buf,
                           size_t len)
{
    if (v->on_difference) {
        explain_difference(v, p, noise, buf, len);
        return;
    }
    double np = noise * 100;
    switch (v->kind) {
    case STATS_REGRESSED:
    case STATS_IMPROVED:
        snprintf(buf, len,
                 "%s: change %+.2f%% (interval %+.2f%% .. %+.2f%%) lies wholly beyond the %g%% "
                 "noise floor and is statistically significant (p = %.3g)",
                 stats_verdict_name(v->kind), v->rel * 100, v->rel_low * 100, v->rel_high * 100, np,
                 p);
        return;
    case STATS_WITHIN_NOISE:
        snprintf(buf, len,
                 "within noise: the whole interval %+.2f%% .. %+.2f%% lies inside +-%g%%%s",
                 v->rel_low * 100, v->rel_high * 100, np,
                 v->significant ? "; the difference is statistically significant but not beyond "
                                  "the noise floor"
                                : "");
        return;
    case STATS_NO_DIFFERENCE:
        break;
    }
    if (!isfinite(v->rel_low) || !isfinite(v->rel_high))
        snprintf(buf, len, "no difference proven: the relative change has no bounded interval");
    else if (v->significant)
        snprintf(buf, len,
                 "no difference proven beyond the noise floor: the difference is statistically "
                 "significant (p = %.3g) but its interval %+.2f%% .. %+.2f%% reaches inside the "
                 "%g%% floor",
                 p, v->rel_low * 100, v->rel_high * 100, np);
    else
        snprintf(buf, len,
                 "no difference proven: p = %.3g and the interval %+.2f%% .. %+.2f%% is too wide "
                 "to tell a change from the %g%% noise floor",
                 p, v->rel_low * 100, v->rel_high * 100, np);
}

size_t stats_runs_needed(double var_a, double var_b, double mean_a, double noise, double alpha)
{
    double delta = noise * fabs(mean_a);
    if (!(delta > 0) || !(alpha > 0 && alpha < 1))
        return 0;
    double z = gsl_cdf_ugaussian_Pinv(1 - alpha / 2) + gsl_cdf_ugaussian_Pinv(0.8);
    double n = ceil(2 * z * z * ((var_a + var_b) / 2) / (delta * delta));
    if (!(n < (double)SIZE_MAX / 2))
        return SIZE_MAX;
    return n < 2 ? 2 : (size_t)n;
}
