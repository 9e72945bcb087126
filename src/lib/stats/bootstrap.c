#include "stats/bootstrap.h"

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats/sample.h"

gsl_rng *stats_boot_rng(unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
    if (r)
        gsl_rng_set(r, seed);
    return r;
}

/* Maps a uniform order statistic u in [0, 1) to an index into n sorted values. */
static size_t index_of(double u, size_t n)
{
    size_t k = (size_t)(u * (double)n);
    return k < n ? k : n - 1;
}

void stats_boot_medians(const double *sorted, size_t n, gsl_rng *rng, size_t r, double *out)
{
    if (n == 1) {
        for (size_t i = 0; i < r; i++)
            out[i] = sorted[0];
        return;
    }
    if (n % 2) {
        double m = (double)(n + 1) / 2;
        for (size_t i = 0; i < r; i++)
            out[i] = sorted[index_of(gsl_ran_beta(rng, m, (double)n - m + 1), n)];
        return;
    }
    /*
     * For even n the median averages the order statistics m and m + 1. Given
     * U(m) = u, the other n - m uniforms lie above u, and the smallest of them
     * is u + (1 - u) Beta(1, n - m).
     */
    double m = (double)n / 2;
    for (size_t i = 0; i < r; i++) {
        double u1 = gsl_ran_beta(rng, m, (double)n - m + 1);
        double u2 = u1 + (1 - u1) * gsl_ran_beta(rng, 1, (double)n - m);
        out[i] = 0.5 * (sorted[index_of(u1, n)] + sorted[index_of(u2, n)]);
    }
}

void stats_boot_means(const double *x, size_t n, gsl_rng *rng, size_t r, double *out)
{
    /*
     * taus2 yields 32 random bits per call; the multiply-shift maps them to
     * [0, n) with a bias below n / 2^32, negligible for the sizes resampled
     * here (n is capped by the caller far below 2^32).
     */
    for (size_t i = 0; i < r; i++) {
        double sum = 0;
        for (size_t j = 0; j < n; j++) {
            uint64_t k = ((uint64_t)gsl_rng_get(rng) * (uint64_t)n) >> 32;
            sum += x[k];
        }
        out[i] = sum / (double)n;
    }
}

static int cmp_double_nan_last(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y))
        return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

int stats_boot_percentile(double *draws, size_t r, double conf, double *lo, double *hi)
{
    if (r < 2)
        return -EINVAL;
    qsort(draws, r, sizeof(*draws), cmp_double_nan_last);
    double a = (1 - conf) / 2;
    *lo = stats_quantile_sorted(draws, r, a);
    *hi = stats_quantile_sorted(draws, r, 1 - a);
    return 0;
}
