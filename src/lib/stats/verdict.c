#include "stats/verdict.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

void stats_verdict_decide(double p, double alpha, double ratio, double ratio_low, double ratio_high,
                          double noise, bool lower_is_better, struct stats_verdict *out)
{
    out->rel = ratio - 1;
    out->rel_low = ratio_low - 1;
    out->rel_high = ratio_high - 1;
    out->significant = p < alpha;
    out->kind = STATS_NO_DIFFERENCE;
    if (isfinite(out->rel_low) && isfinite(out->rel_high)) {
        /* Express the interval as a gain, so one rule serves both directions. */
        double glo = lower_is_better ? -out->rel_high : out->rel_low;
        double ghi = lower_is_better ? -out->rel_low : out->rel_high;
        if (out->significant && glo > noise)
            out->kind = STATS_IMPROVED;
        else if (out->significant && ghi < -noise)
            out->kind = STATS_REGRESSED;
        else if (glo >= -noise && ghi <= noise)
            out->kind = STATS_WITHIN_NOISE;
    }
    out->significant_within_floor =
        out->significant && out->kind != STATS_IMPROVED && out->kind != STATS_REGRESSED;
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

void stats_verdict_explain(const struct stats_verdict *v, double p, double noise, char *buf,
                           size_t len)
{
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
                 v->significant ? "; the difference is statistically significant but smaller "
                                  "than the noise floor"
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
