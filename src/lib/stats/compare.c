#include "stats/compare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "stats/bootstrap.h"
#include "stats/fieller.h"

/* Bootstrap intervals of the median difference and ratio; O(resamples) whatever n is. */
static int compare_medians(const struct stats_sample *a, const struct stats_sample *b,
                           const struct stats_opts *o, gsl_rng *rng, double *da, double *db,
                           struct stats_comparison *out)
{
    size_t r = o->resamples;
    double ma = stats_quantile_sorted(a->sorted, a->n, 0.5);
    double mb = stats_quantile_sorted(b->sorted, b->n, 0.5);
    out->median_diff = mb - ma;
    out->median_ratio = ma > 0 ? mb / ma : NAN;
    stats_boot_medians(a->sorted, a->n, rng, r, da);
    stats_boot_medians(b->sorted, b->n, rng, r, db);
    double *ratio = malloc(r * sizeof(*ratio));
    if (!ratio)
        return -ENOMEM;
    for (size_t i = 0; i < r; i++) {
        ratio[i] = da[i] > 0 ? db[i] / da[i] : NAN;
        db[i] -= da[i];
    }
    double tail = (1 - o->confidence) / 2;
    int err =
        stats_boot_percentile(db, r, tail, &out->median_diff_ci_low, &out->median_diff_ci_high);
    if (!err)
        err = stats_boot_percentile(ratio, r, tail, &out->median_ratio_ci_low,
                                    &out->median_ratio_ci_high);
    if (!err && !(ma > 0))
        out->median_ratio_ci_low = out->median_ratio_ci_high = NAN;
    out->median_resamples = r;
    free(ratio);
    return err;
}

static int compare_ratio_of_means(const struct stats_sample *a, const struct stats_sample *b,
                                  const struct stats_opts *o, gsl_rng *rng, double *da, double *db,
                                  struct stats_comparison *out)
{
    out->ratio = out->ratio_ci_low = out->ratio_ci_high = NAN;
    out->ratio_resamples = 0;
    out->ratio_method = STATS_RATIO_FIELLER;
    if (!(a->mean > 0))
        return 0;
    out->ratio = b->mean / a->mean;
    if (a->n + b->n <= o->boot_means_cap) {
        size_t r = o->resamples;
        stats_boot_means(a->x, a->n, rng, r, da);
        stats_boot_means(b->x, b->n, rng, r, db);
        for (size_t i = 0; i < r; i++)
            db[i] = da[i] > 0 ? db[i] / da[i] : NAN;
        out->ratio_method = STATS_RATIO_BOOTSTRAP;
        out->ratio_resamples = r;
        size_t nmin = a->n < b->n ? a->n : b->n;
        double tail = stats_boot_expanded_tail(o->confidence, nmin, out->welch.df);
        return stats_boot_percentile(db, r, tail, &out->ratio_ci_low, &out->ratio_ci_high);
    }
    double lo, hi;
    int err = stats_fieller_ratio(a->mean, a->var / (double)a->n, b->mean, b->var / (double)b->n,
                                  out->welch.tq, &lo, &hi);
    /* An unbounded interval is a result, not a failure: the verdict handles it. */
    (void)err;
    out->ratio_ci_low = lo;
    out->ratio_ci_high = hi;
    return 0;
}

int stats_compare(const struct stats_sample *a, const struct stats_sample *b,
                  const struct stats_opts *o, struct stats_comparison *out)
{
    if (a->n < 2 || b->n < 2 || o->resamples < 2)
        return -EINVAL;
    stats_welch(a, b, o->confidence, &out->welch);
    out->diff = out->welch.diff;
    out->diff_ci_low = out->welch.ci_low;
    out->diff_ci_high = out->welch.ci_high;
    out->diff_pct = a->mean != 0 ? 100 * out->diff / a->mean : NAN;
    stats_mannwhitney(a, b, &out->mw);

    int err = 0;
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
        err = compare_ratio_of_means(a, b, o, rng, da, db, out);
    if (err)
        goto out;
    double alpha = 1 - o->confidence;
    stats_verdict_decide(out->welch.p, alpha, out->ratio, out->ratio_ci_low, out->ratio_ci_high,
                         o->noise, o->lower_is_better, &out->verdict);
    out->runs_needed = stats_runs_needed(a->var, b->var, a->mean, o->noise, alpha);
out:
    if (rng)
        gsl_rng_free(rng);
    free(da);
    free(db);
    return err;
}
