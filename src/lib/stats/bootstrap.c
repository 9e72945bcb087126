#include "stats/bootstrap.h"

#include <errno.h>
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>

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

struct xoshiro {
    uint64_t s[4];
};

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro_next(struct xoshiro *g)
{
    uint64_t *s = g->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Seeds the four words with splitmix64, as xoshiro's authors recommend. */
static void xoshiro_seed(struct xoshiro *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        g->s[i] = z ^ (z >> 31);
    }
}

void stats_boot_means(const double *x, size_t n, gsl_rng *rng, size_t r, double *out)
{
    struct xoshiro g;
    xoshiro_seed(&g, ((uint64_t)gsl_rng_get(rng) << 32) | gsl_rng_get(rng));
    /*
     * The multiply-shift maps 32 random bits to [0, n) with a bias below
     * n / 2^32, negligible for the sizes resampled here (the caller caps n
     * far below 2^32).
     */
    for (size_t i = 0; i < r; i++) {
        double sum = 0;
        for (size_t j = 0; j < n; j++) {
            uint64_t k = ((xoshiro_next(&g) >> 32) * (uint64_t)n) >> 32;
            sum += x[k];
        }
        out[i] = sum / (double)n;
    }
}

double stats_boot_expanded_tail(double conf, size_t n, double df)
{
    double a = (1 - conf) / 2;
    if (n < 2 || !(df > 0))
        return a;
    double t = gsl_cdf_tdist_Pinv(1 - a, df);
    double tail = gsl_cdf_ugaussian_P(-sqrt((double)n / (double)(n - 1)) * t);
    /* 99.9 % on two values asks for Phi(-900), which underflows to 0: keep it positive. */
    return tail > DBL_MIN ? tail : DBL_MIN;
}

/*
 * Hoare-style quickselect: afterwards a[k] holds the k-th smallest of
 * a[0..n-1], with nothing larger before it and nothing smaller after it.
 * Linear on average; the median-of-three pivot avoids the sorted-input trap.
 */
static double select_kth(double *a, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double x = a[lo], y = a[mid], z = a[hi];
        double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return a[k];
}

/* The type-7 p-quantile of a[0..n-1] (finite values), reordering a. */
static double quantile_select(double *a, size_t n, double p)
{
    double h = (double)(n - 1) * p;
    size_t k = (size_t)floor(h);
    double v = select_kth(a, n, k);
    if (k + 1 >= n || h == (double)k)
        return v;
    double next = a[k + 1];
    for (size_t i = k + 2; i < n; i++)
        next = a[i] < next ? a[i] : next;
    return v + (h - (double)k) * (next - v);
}

int stats_boot_percentile(double *draws, size_t r, double tail, double *lo, double *hi)
{
    if (r < 2 || !(tail > 0 && tail < 0.5))
        return -EINVAL;
    /* NaN draws (a ratio over a zero) rank above everything, as if infinite. */
    size_t m = 0;
    for (size_t i = 0; i < r; i++)
        if (!isnan(draws[i]))
            draws[m++] = draws[i];
    double h_lo = (double)(r - 1) * tail, h_hi = (double)(r - 1) * (1 - tail);
    if (m < 2 || (size_t)ceil(h_lo) >= m) {
        *lo = *hi = NAN;
        return 0;
    }
    /* Quantiles are taken over all r draws; scaling p keeps the index the same within m. */
    *lo = quantile_select(draws, m, h_lo / (double)(m - 1));
    *hi = (size_t)ceil(h_hi) >= m ? NAN : quantile_select(draws, m, h_hi / (double)(m - 1));
    return 0;
}
