#include "stats/summary.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "stats/bootstrap.h"

void stats_opts_default(struct stats_opts *o)
{
    o->confidence = 0.95;
    o->noise = 0.01;
    o->lower_is_better = false;
    o->seed = 1;
    o->resamples = 10000;
    /* 10,000 values means at most 10^8 draws for 10,000 resamples: well under a second. */
    o->boot_means_cap = 10000;
    o->order = STATS_ORDER_RUN;
}

/* Run order as a file says, so a sorted file is told apart. */
const struct opt_choice stats_order_choices[] = {
    {"run", STATS_ORDER_FILE},
    {"unknown", STATS_ORDER_UNKNOWN},
    {NULL, 0},
};
/* Turns every figure of out, computed in s's frame, back into the caller's units. */
static void summary_unframe(const struct stats_sample *s, struct stats_summary *out)
{
    double *loc[] = {
        &out->min,         &out->max,          &out->mean,          &out->median,        &out->p1,
        &out->p5,          &out->p25,          &out->p75,           &out->p95,           &out->p99,
        &out->mean_ci_low, &out->mean_ci_high, &out->median_ci_low, &out->median_ci_high};
    for (size_t i = 0; i < sizeof(loc) / sizeof(loc[0]); i++)
        *loc[i] = stats_unframe_loc(s, *loc[i]);
    out->stddev = stats_unframe_spread(s, out->stddev);
}

int stats_summary_compute(const struct stats_sample *s, const struct stats_opts *o,
                          struct stats_summary *out)
{
    size_t n = s->n;
    out->n = n;
    out->min = s->sorted[0];
    out->max = s->sorted[n - 1];
    out->mean = s->mean;
    out->median = stats_quantile_sorted(s->sorted, n, 0.5);
    out->stddev = sqrt(s->var);
    /* The coefficient of variation needs the true mean, which the frame shifted. */
    double mean = s->mean + stats_frame_origin(s);
    out->cv = mean != 0 ? out->stddev / fabs(mean) : NAN;
    out->p1 = stats_quantile_sorted(s->sorted, n, 0.01);
    out->p5 = stats_quantile_sorted(s->sorted, n, 0.05);
    out->p25 = stats_quantile_sorted(s->sorted, n, 0.25);
    out->p75 = stats_quantile_sorted(s->sorted, n, 0.75);
    out->p95 = stats_quantile_sorted(s->sorted, n, 0.95);
    out->p99 = stats_quantile_sorted(s->sorted, n, 0.99);
    out->mean_ci_low = out->mean_ci_high = NAN;
    out->median_ci_low = out->median_ci_high = NAN;
    out->median_resamples = 0;
    if (n < 2) {
        summary_unframe(s, out);
        return 0;
    }

    double t = gsl_cdf_tdist_Pinv(1 - (1 - o->confidence) / 2, (double)(n - 1));
    double half = t * out->stddev / sqrt((double)n);
    out->mean_ci_low = out->mean - half;
    out->mean_ci_high = out->mean + half;

    double *draws = malloc(o->resamples * sizeof(*draws));
    gsl_rng *rng = stats_boot_rng(o->seed);
    int err = 0;
    if (!draws || !rng) {
        err = -ENOMEM;
        goto out;
    }
    stats_boot_medians(s->sorted, n, rng, o->resamples, draws);
    err = stats_boot_percentile(draws, o->resamples, (1 - o->confidence) / 2, &out->median_ci_low,
                                &out->median_ci_high);
    if (!err)
        out->median_resamples = o->resamples;
out:
    summary_unframe(s, out);
    if (rng)
        gsl_rng_free(rng);
    free(draws);
    return err;
}
