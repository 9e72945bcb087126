/*
 * Coverage of the ratio-of-means interval: in seeded synthetic A/B
 * experiments with a known true ratio, the 95 % interval must contain it
 * 93-97 % of the time (the binomial standard error with 1,000 experiments is
 * 0.7 %, so a correct method fails this with well under 1 % probability,
 * and a method that under-covers by 3 points fails it almost surely).
 *
 * Both interval methods for the ratio of means (expanded percentile
 * bootstrap and Fieller) are checked, on normal and on skewed (lognormal)
 * data, and the bootstrap interval of the ratio of medians as well. Each experiment has 40 runs per
 * variant, a realistic campaign size. To keep the test at a few seconds under sanitizers, the
 * bootstrap uses 1,000 resamples per experiment instead of the production 10,000; that only adds
 * Monte Carlo noise to the interval ends, not bias.
 */
#include "test_helpers.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>

#include "stats/compare.h"

#define EXPERIMENTS 1000
#define RUNS 30
#define TRUE_RATIO 0.97

enum dist { NORMAL, LOGNORMAL };

/*
 * Draws one variant scaled by scale: normal with mean 1000 * scale and a 3 %
 * spread, or lognormal 1000 * scale * exp(N(0, 0.3)); in both families the
 * ratio of the true means of two variants is the ratio of their scales.
 */
static void draw(gsl_rng *r, enum dist d, double scale, double *x)
{
    for (size_t i = 0; i < RUNS; i++)
        x[i] = d == NORMAL ? 1000 * scale * (1 + gsl_ran_gaussian(r, 0.03))
                           : 1000 * scale * exp(gsl_ran_gaussian(r, 0.3));
}

/* Fraction of experiments whose interval (of means, or of medians) covers TRUE_RATIO. */
static void coverage(enum dist d, size_t cap, double *cov_mean, double *cov_median)
{
    struct stats_opts o;
    stats_opts_default(&o);
    /* Fieller needs no resampling; the medians' bootstrap is not checked there. */
    o.resamples = cap ? 1000 : 200;
    o.boot_means_cap = cap;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(r);
    /* Both methods see the same experiments, so their coverages compare pairwise. */
    gsl_rng_set(r, 12345 + (unsigned long)d * 7);
    size_t hit = 0, hit_med = 0;
    double a[RUNS], b[RUNS];
    for (size_t e = 0; e < EXPERIMENTS; e++) {
        draw(r, d, 1.0, a);
        draw(r, d, TRUE_RATIO, b);
        struct stats_sample sa, sb;
        struct stats_comparison c;
        assert_int_equal(stats_sample_init(&sa, a, RUNS), 0);
        assert_int_equal(stats_sample_init(&sb, b, RUNS), 0);
        o.seed = e + 1;
        assert_int_equal(stats_compare(&sa, &sb, &o, &c), 0);
        assert_int_equal(c.ratio_method, cap ? STATS_RATIO_BOOTSTRAP : STATS_RATIO_FIELLER);
        hit += c.ratio_ci_low <= TRUE_RATIO && TRUE_RATIO <= c.ratio_ci_high;
        hit_med += c.median_ratio_ci_low <= TRUE_RATIO && TRUE_RATIO <= c.median_ratio_ci_high;
        stats_sample_free(&sa);
        stats_sample_free(&sb);
    }
    gsl_rng_free(r);
    *cov_mean = (double)hit / EXPERIMENTS;
    *cov_median = (double)hit_med / EXPERIMENTS;
}

static void check(const char *what, double cov)
{
    print_message("%s: coverage %.1f%%\n", what, cov * 100);
    if (!(cov >= 0.93 && cov <= 0.97)) {
        print_error("%s: 95%% interval covered the true ratio in %.1f%% of %d experiments, "
                    "outside 93-97%%\n",
                    what, cov * 100, EXPERIMENTS);
        fail();
    }
}

/*
 * Percentile intervals of medians of 30 values are conservative: the median
 * only takes a few distinct values across resamples, so the quantiles snap
 * outwards. The upper bound is therefore relaxed to 98.5 %; under-coverage
 * is still held to the same 93 %.
 */
static void check_median(const char *what, double cov)
{
    print_message("%s: coverage %.1f%%\n", what, cov * 100);
    if (!(cov >= 0.93 && cov <= 0.985)) {
        print_error("%s: 95%% interval covered the true ratio in %.1f%% of %d experiments, "
                    "outside 93-98.5%%\n",
                    what, cov * 100, EXPERIMENTS);
        fail();
    }
}

static void test_bootstrap_normal(void **state)
{
    (void)state;
    double m, med;
    coverage(NORMAL, 2 * RUNS, &m, &med);
    check("bootstrap ratio of means, normal", m);
    check_median("bootstrap ratio of medians, normal", med);
}

static void test_bootstrap_lognormal(void **state)
{
    (void)state;
    double m, med;
    coverage(LOGNORMAL, 2 * RUNS, &m, &med);
    check("bootstrap ratio of means, lognormal", m);
    check_median("bootstrap ratio of medians, lognormal", med);
}

static void test_fieller_normal(void **state)
{
    (void)state;
    double m, med;
    coverage(NORMAL, 0, &m, &med);
    check("Fieller ratio of means, normal", m);
}

static void test_fieller_lognormal(void **state)
{
    (void)state;
    double m, med;
    coverage(LOGNORMAL, 0, &m, &med);
    check("Fieller ratio of means, lognormal", m);
}

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bootstrap_normal),
        cmocka_unit_test(test_bootstrap_lognormal),
        cmocka_unit_test(test_fieller_normal),
        cmocka_unit_test(test_fieller_lognormal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
