/* E-divisive means change points (stats/changepoint.h). */
#include "stats/changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sample.h"
#include "stats/welch.h"

void stats_cp_opts_default(struct stats_cp_opts *o)
{
    *o = (struct stats_cp_opts){
        .alpha = 0.01, .min_seg = 5, .permutations = 999, .seed = 1, .confidence = 0.95};
}

/* splitmix64: the shuffles' generator, the same numbers on every platform. */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void shuffle(double *x, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_rand(s) % i);
        double t = x[i - 1];
        x[i - 1] = x[j];
        x[j] = t;
    }
}

/*
 * The best split of x[0..m-1] with both sides at least min_seg long: *at
 * is its index, the return value its Q (-INFINITY when m is too short).
 * O(m^2): moving the split by one moves one value from the right to the
 * left, changing the three sums by that value's distances to each side.
 */
static double best_split(const double *x, size_t m, size_t min_seg, size_t *at)
{
    if (m < 2 * min_seg)
        return -INFINITY;
    double wl = 0, wr = 0, b = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t j = i + 1; j < m; j++)
            wr += fabs(x[i] - x[j]);
    double best = -INFINITY;
    for (size_t t = 1; t < m; t++) {
        /* x[t-1] moves from the right side to the left. */
        double to_left = 0, to_right = 0;
        for (size_t i = 0; i + 1 < t; i++)
            to_left += fabs(x[t - 1] - x[i]);
        for (size_t j = t; j < m; j++)
            to_right += fabs(x[t - 1] - x[j]);
        wl += to_left;
        wr -= to_right;
        b += to_right - to_left;
        if (t < min_seg || m - t < min_seg)
            continue;
        double l = (double)t, r = (double)(m - t);
        double e = 2 * b / (l * r) - wl / (l * (l - 1) / 2) - wr / (r * (r - 1) / 2);
        double q = l * r / (double)m * e;
        if (q > best) {
            best = q;
            *at = t;
        }
    }
    return best;
}

/* Over every segment [cuts[k], cuts[k+1]): the best split; *seg its segment. */
static double best_of_segments(const double *x, const size_t *cuts, size_t ncuts, size_t min_seg,
                               size_t *seg, size_t *at)
{
    double best = -INFINITY;
    for (size_t k = 0; k + 1 < ncuts; k++) {
        size_t t = 0;
        double q = best_split(x + cuts[k], cuts[k + 1] - cuts[k], min_seg, &t);
        if (q > best) {
            best = q;
            *seg = k;
            *at = cuts[k] + t;
        }
    }
    return best;
}

/*
 * The permutation p-value of the best split q among the segments: each
 * shuffle permutes every segment within itself. Stops early once the split
 * can no longer be significant (most shuffles of a flat series).
 */
static double permutation_p(const double *x, size_t n, const size_t *cuts, size_t ncuts, double q,
                            const struct stats_cp_opts *o, uint64_t *rng, double *work)
{
    size_t exceed = 0, r;
    double limit = o->alpha * (double)(o->permutations + 1) - 1;
    for (r = 0; r < o->permutations; r++) {
        memcpy(work, x, n * sizeof(*x));
        for (size_t k = 0; k + 1 < ncuts; k++)
            shuffle(work + cuts[k], cuts[k + 1] - cuts[k], rng);
        size_t seg, at;
        if (best_of_segments(work, cuts, ncuts, o->min_seg, &seg, &at) >= q)
            exceed++;
        if ((double)exceed > limit)
            return (double)(exceed + 1) / (double)(r + 2);
    }
    return (double)(exceed + 1) / (double)(o->permutations + 1);
}

/* The before/after statistics of the change at cuts[k] (segments k-1 and k). */
static void describe(const double *x, const size_t *cuts, size_t k, double conf,
                     struct stats_changepoint *c)
{
    const double *a = x + cuts[k - 1], *b = x + cuts[k];
    size_t na = cuts[k] - cuts[k - 1], nb = cuts[k + 1] - cuts[k];
    struct stats_sample sa, sb;
    c->index = cuts[k];
    c->n_before = na;
    c->n_after = nb;
    c->rel = c->rel_low = c->rel_high = NAN;
    if (stats_sample_init(&sa, a, na))
        return;
    if (stats_sample_init(&sb, b, nb)) {
        stats_sample_free(&sa);
        return;
    }
    c->mean_before = sa.mean;
    c->mean_after = sb.mean;
    struct stats_welch w;
    stats_welch(&sa, &sb, conf, &w);
    if (sa.mean != 0) {
        double m = fabs(sa.mean);
        c->rel = w.diff / m;
        c->rel_low = w.ci_low / m;
        c->rel_high = w.ci_high / m;
    }
    stats_sample_free(&sa);
    stats_sample_free(&sb);
}

/* Inserts v into the ascending array a of *n values. */
static void insert_sorted(size_t *a, size_t *n, size_t v)
{
    size_t i = *n;
    while (i > 0 && a[i - 1] > v) {
        a[i] = a[i - 1];
        i--;
    }
    a[i] = v;
    (*n)++;
}

int stats_changepoints(const double *x, size_t n, const struct stats_cp_opts *o,
                       struct stats_changepoint **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (o->min_seg < 2 || !(o->alpha > 0 && o->alpha < 1))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return -EINVAL;
    size_t maxcuts = n / o->min_seg + 2;
    size_t *cuts = malloc(maxcuts * sizeof(*cuts)), ncuts = 2;
    double *work = malloc((n ? n : 1) * sizeof(*work));
    double *pv = calloc(maxcuts, sizeof(*pv)), *qv = calloc(maxcuts, sizeof(*qv));
    int rc = cuts && work && pv && qv ? 0 : -ENOMEM;
    uint64_t rng = o->seed;
    if (!rc) {
        cuts[0] = 0;
        cuts[1] = n;
    }
    while (!rc && ncuts < maxcuts) {
        size_t seg = 0, at = 0;
        double q = best_of_segments(x, cuts, ncuts, o->min_seg, &seg, &at);
        if (!isfinite(q))
            break;
        double p = permutation_p(x, n, cuts, ncuts, q, o, &rng, work);
        if (p > o->alpha)
            break;
        insert_sorted(cuts, &ncuts, at);
        /* Remember the test of the split at its place among the cuts. */
        for (size_t k = 1; k + 1 < ncuts; k++)
            if (cuts[k] == at) {
                memmove(pv + k + 1, pv + k, (ncuts - 2 - k) * sizeof(*pv));
                memmove(qv + k + 1, qv + k, (ncuts - 2 - k) * sizeof(*qv));
                pv[k] = p;
                qv[k] = q;
            }
    }
    if (!rc && ncuts > 2 && !(*out = calloc(ncuts - 2, sizeof(**out))))
        rc = -ENOMEM;
    for (size_t k = 1; !rc && k + 1 < ncuts; k++) {
        describe(x, cuts, k, o->confidence, &(*out)[k - 1]);
        (*out)[k - 1].p = pv[k];
        (*out)[k - 1].q = qv[k];
    }
    if (!rc)
        *nout = ncuts - 2;
    free(cuts);
    free(work);
    free(pv);
    free(qv);
    return rc;
}
