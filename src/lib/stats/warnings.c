#include "stats/warnings.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
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

/*
 * The first index k >= from with sorted[k] > v (above: true) or >= v
 * (above: false), by exponential then binary search from `from`: O(log d)
 * for a distance d, and local in memory while d is small.
 */
static size_t gallop(const double *sorted, size_t n, size_t from, double v, bool above)
{
    size_t lo = from, step = 1, hi = from;
    while (hi < n && (above ? sorted[hi] <= v : sorted[hi] < v)) {
        lo = hi + 1;
        hi = from + step;
        step *= 2;
    }
    if (hi > n)
        hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (above ? sorted[mid] <= v : sorted[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct ranked {
    double v;
    size_t i;
};

static int ranked_cmp(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

enum { DRIFT_BLOCK = 65536, DRIFT_BLOCK_STACK = 1024 };

/*
 * Sums of Spearman's correlation of value rank against run position:
 * sxy = sum (i + 1 - mr)(r_i - mr), syy = sum (r_i - mr)^2, with r_i the
 * average rank of x[i] in s->sorted. Ranks come block by block of run
 * order: a block's values are sorted (DRIFT_BLOCK pairs, 1 MiB, or a small
 * block on the stack if that cannot be had) and found in s->sorted by
 * galloping forward from the previous one, so that ten million values cost
 * no array of ranks and no random search each: the steps between a block's
 * values in s->sorted are short (n / DRIFT_BLOCK on average).
 */
static void spearman_sums(const struct stats_sample *s, double mr, double *sxy, double *syy)
{
    struct ranked small[DRIFT_BLOCK_STACK];
    size_t n = s->n, bs = n < DRIFT_BLOCK ? n : DRIFT_BLOCK;
    struct ranked *blk = bs > DRIFT_BLOCK_STACK ? malloc(bs * sizeof(*blk)) : NULL;
    if (!blk) {
        blk = small;
        bs = bs < DRIFT_BLOCK_STACK ? bs : DRIFT_BLOCK_STACK;
    }
    *sxy = *syy = 0;
    for (size_t start = 0; start < n; start += bs) {
        size_t m = n - start < bs ? n - start : bs, pos = 0;
        for (size_t j = 0; j < m; j++)
            blk[j] = (struct ranked){s->x[start + j], start + j};
        qsort(blk, m, sizeof(*blk), ranked_cmp);
        double r = 0;
        for (size_t j = 0; j < m; j++) {
            if (j == 0 || blk[j].v != blk[j - 1].v) {
                pos = gallop(s->sorted, n, pos, blk[j].v, false);
                size_t end = gallop(s->sorted, n, pos, blk[j].v, true);
                r = ((double)(pos + 1) + (double)end) / 2; /* ties share their average rank */
            }
            double dx = (double)(blk[j].i + 1) - mr, dy = r - mr;
            *sxy += dx * dy;
            *syy += dy * dy;
        }
    }
    if (blk != small)
        free(blk);
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
    double sxy, syy, sxx = nd * (nd * nd - 1) / 12; /* sum of (i - mr)^2 over 1..n */
    spearman_sums(s, mr, &sxy, &syy);
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

/*
 * +1 when s's values, in their order, never fall, -1 when they never rise,
 * and a random arrangement of them would be so ordered with probability
 * 2 * prod(t_j!) / n! < STATS_SORTED_CHANCE (t_j the sizes of tie groups);
 * else 0.
 */
static int check_sorted(const struct stats_sample *s)
{
    size_t n = s->n;
    if (n < STATS_DRIFT_MIN_N || s->sorted[0] == s->sorted[n - 1])
        return 0;
    bool up = true, down = true;
    for (size_t i = 1; i < n && (up || down); i++) {
        up = up && s->x[i - 1] <= s->x[i];
        down = down && s->x[i - 1] >= s->x[i];
    }
    if (!up && !down)
        return 0;
    double log_chance = log(2.0) - lgamma((double)n + 1);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s->sorted[j] == s->sorted[i])
            j++;
        log_chance += lgamma((double)(j - i) + 1);
        i = j;
    }
    if (!(log_chance < log(STATS_SORTED_CHANCE)))
        return 0;
    return up ? 1 : -1;
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

void stats_checks_compute(const struct stats_sample *s, enum stats_order order,
                          struct stats_checks *out)
{
    check_outliers(s, out);
    /* The fences were compared in the sample's frame; report them in the caller's units. */
    out->fence_low = stats_unframe_loc(s, out->fence_low);
    out->fence_high = stats_unframe_loc(s, out->fence_high);
    out->order = order;
    out->sorted = order == STATS_ORDER_FILE ? check_sorted(s) : 0;
    if (order == STATS_ORDER_UNKNOWN || out->sorted) {
        /* No run order, or none to be told from a sorted file: no rho, no drift claim. */
        out->spearman_rho = out->spearman_p = NAN;
        out->drift = false;
    } else {
        check_drift(s, out);
    }
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
    if (c->sorted && (x = next(w, count, max, "sorted", name)))
        snprintf(x->message, sizeof(x->message),
                 "%s: values in %s order, as if sorted: that order says nothing of run order, "
                 "so drift is not judged (were it run order, every run was %s the last: not "
                 "independent)",
                 name, c->sorted > 0 ? "ascending" : "descending",
                 c->sorted > 0 ? "at or above" : "at or below");
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
