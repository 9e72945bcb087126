#include "rrul/probe_stats.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>

#include "stats/bootstrap.h"
#include "stats/sample.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void probe_summarize(double *v, size_t n, struct probe_summary *out)
{
    out->n = n;
    if (!n) {
        out->p50 = out->p90 = out->p99 = out->p999 = out->max = out->min = out->mean = NAN;
        return;
    }
    qsort(v, n, sizeof(*v), cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    out->p50 = stats_quantile_sorted(v, n, 0.5);
    out->p90 = stats_quantile_sorted(v, n, 0.9);
    out->p99 = stats_quantile_sorted(v, n, 0.99);
    out->p999 = stats_quantile_sorted(v, n, 0.999);
    out->min = v[0];
    out->max = v[n - 1];
    out->mean = sum / (double)n;
}

/* How many of n values the trimmed mean keeps: all but the largest floor(n * trim). */
static size_t kept(size_t n)
{
    return n - (size_t)floor((double)n * PROBE_RPM_TRIM);
}

double probe_trimmed_mean(const double *sorted, size_t n)
{
    if (!n)
        return NAN;
    size_t k = kept(n);
    double sum = 0;
    for (size_t i = 0; i < k; i++)
        sum += sorted[i];
    return sum / (double)k;
}

/*
 * One resample's trimmed mean without sorting it: n draws counted per index
 * of the sorted values, then the smallest kept(n) of them summed in order.
 */
static double resampled_trimmed_mean(const double *sorted, size_t n, uint32_t *count, gsl_rng *rng)
{
    for (size_t i = 0; i < n; i++)
        count[i] = 0;
    for (size_t i = 0; i < n; i++)
        count[gsl_rng_uniform_int(rng, n)]++;
    size_t want = kept(n), have = 0;
    double sum = 0;
    for (size_t i = 0; i < n && have < want; i++) {
        size_t take = count[i] < want - have ? count[i] : want - have;
        sum += (double)take * sorted[i];
        have += take;
    }
    return sum / (double)want;
}

/*
 * Resamples: 1000, fewer for many round trips (each costs n draws), never
 * under 200: 10^8 draws at most beyond 500,000 round trips.
 */
static size_t resamples(size_t n)
{
    size_t r = n ? (size_t)(1e8 / (double)n) : 1000;
    return r > 1000 ? 1000 : r < 200 ? 200 : r;
}

int probe_rpm(const double *sorted_ms, size_t n, double conf, double *rpm, double *lo, double *hi)
{
    *rpm = *lo = *hi = NAN;
    double tm = probe_trimmed_mean(sorted_ms, n);
    if (!n || !(tm > 0))
        return -EDOM;
    *rpm = 60000.0 / tm;
    size_t nr = resamples(n);
    double *draws = malloc(nr * sizeof(double));
    uint32_t *count = malloc(n * sizeof(uint32_t));
    gsl_rng *rng = stats_boot_rng(31);
    int rc = draws && count && rng ? 0 : -ENOMEM;
    for (size_t r = 0; !rc && r < nr; r++) {
        double m = resampled_trimmed_mean(sorted_ms, n, count, rng);
        draws[r] = m > 0 ? 60000.0 / m : INFINITY;
    }
    double a, b;
    if (!rc && !stats_boot_percentile(draws, nr, (1 - conf) / 2, &a, &b)) {
        *lo = a;
        *hi = b;
    }
    free(draws);
    free(count);
    if (rng)
        gsl_rng_free(rng);
    return rc;
}
