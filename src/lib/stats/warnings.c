#include "stats/warnings.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>

static void check_outliers(const struct stats_sample *s, struct stats_checks *out)
{
    double q1 = stats_quantile_sorted(s->sorted, s->n, 0.25);
    double q3 = stats_quantile_sorted(s->sorted, s->n, 0.75);
    double iqr = q3 - q1;
    out->fence_low = q1 - 1.5 * iqr;
    out->fence_high = q3 + 1.5 * iqr;
    double far_low = q1 - 3 * iqr, far_high = q3 + 3 * iqr;
    out->outliers_low = out->outliers_high = out->outliers_far = 0;
    /* The set is sorted, so the outliers sit at both ends. */
    for (size_t i = 0; i < s->n && s->sorted[i] < out->fence_low; i++) {
        out->outliers_low++;
        out->outliers_far += s->sorted[i] < far_low;
    }
    for (size_t i = s->n; i > 0 && s->sorted[i - 1] > out->fence_high; i--) {
        out->outliers_high++;
        out->outliers_far += s->sorted[i - 1] > far_high;
    }
}

static void check_drift(const struct stats_sample *s, struct stats_checks *out)
{
    out->spearman_rho = out->spearman_p = NAN;
    out->drift = false;
    size_t n = s->n;
    if (n < 3)
        return;
    /* Pearson correlation of the value ranks with the run positions 1..n. */
    double nd = (double)n, mr = (nd + 1) / 2;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = (double)(i + 1) - mr, dy = s->rank[i] - mr;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if (syy == 0)
        return; /* all values equal: no trend to speak of */
    double rho = sxy / sqrt(sxx * syy);
    out->spearman_rho = rho;
    if (fabs(rho) >= 1) {
        out->spearman_p = 0;
    } else {
        double t = rho * sqrt((nd - 2) / (1 - rho * rho));
        out->spearman_p = fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(t), nd - 2));
    }
    out->drift =
        n >= STATS_DRIFT_MIN_N && out->spearman_p < STATS_DRIFT_P && fabs(rho) >= STATS_DRIFT_RHO;
}

static void check_bimodal(const struct stats_sample *s, struct stats_checks *out)
{
    out->bimodality = NAN;
    out->bimodal = false;
    size_t n = s->n;
    if (n < 4)
        return;
    double m2 = 0, m3 = 0, m4 = 0;
    for (size_t i = 0; i < n; i++) {
        double d = s->x[i] - s->mean, d2 = d * d;
        m2 += d2;
        m3 += d2 * d;
        m4 += d2 * d2;
    }
    double nd = (double)n;
    m2 /= nd;
    m3 /= nd;
    m4 /= nd;
    if (m2 <= 0)
        return;
    double g1 = m3 / pow(m2, 1.5), g2 = m4 / (m2 * m2) - 3;
    double G1 = g1 * sqrt(nd * (nd - 1)) / (nd - 2);
    double G2 = ((nd + 1) * g2 + 6) * (nd - 1) / ((nd - 2) * (nd - 3));
    double bc = (G1 * G1 + 1) / (G2 + 3 * (nd - 1) * (nd - 1) / ((nd - 2) * (nd - 3)));
    out->bimodality = bc;
    out->bimodal = n >= STATS_BIMODAL_MIN_N && bc > STATS_BIMODAL_BC;
}

void stats_checks_compute(const struct stats_sample *s, struct stats_checks *out)
{
    check_outliers(s, out);
    /* The fences were compared in the sample's frame; report them in the caller's units. */
    out->fence_low = stats_unframe_loc(s, out->fence_low);
    out->fence_high = stats_unframe_loc(s, out->fence_high);
    check_drift(s, out);
    check_bimodal(s, out);
    out->too_few = s->n < STATS_MIN_RUNS;
}

static struct stats_warning *next(struct stats_warning *w, size_t *count, size_t max,
                                  const char *kind, const char *set)
{
    if (*count >= max)
        return NULL;
    struct stats_warning *x = &w[(*count)++];
    x->kind = kind;
    x->set = set;
    return x;
}

void stats_checks_warnings(const struct stats_checks *c, const struct stats_sample *s,
                           const char *name, struct stats_warning *w, size_t *count, size_t max)
{
    struct stats_warning *x;
    size_t nout = c->outliers_low + c->outliers_high;
    if (nout && (x = next(w, count, max, "outliers", name)))
        snprintf(x->message, sizeof(x->message),
                 "%s: %zu of %zu values outside Tukey's fences [%.6g, %.6g] (%zu below, %zu "
                 "above, %zu beyond 3 IQR); kept in every statistic",
                 name, nout, s->n, c->fence_low, c->fence_high, c->outliers_low, c->outliers_high,
                 c->outliers_far);
    if (c->drift && (x = next(w, count, max, "drift", name)))
        snprintf(x->message, sizeof(x->message),
                 "%s: values %s with run order (Spearman rho = %.3f, p = %.3g); runs are not "
                 "independent (warm-up, throttling?)",
                 name, c->spearman_rho > 0 ? "rise" : "fall", c->spearman_rho, c->spearman_p);
    if (c->bimodal && (x = next(w, count, max, "bimodal", name)))
        snprintf(x->message, sizeof(x->message),
                 "%s: distribution looks bimodal (bimodality coefficient %.3f > 0.555); a mean "
                 "of two modes describes neither",
                 name, c->bimodality);
    if (c->too_few && (x = next(w, count, max, "too_few_runs", name)))
        snprintf(x->message, sizeof(x->message),
                 "%s: only %zu runs; at least %d are needed for intervals worth trusting", name,
                 s->n, STATS_MIN_RUNS);
}
