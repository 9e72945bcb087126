/* Verdict rules, warnings, Fieller, the run-count estimate and the median bootstrap shortcut. */
#include "test_helpers.h"
#include "netab_assert.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>
#include <stdlib.h>
#include <string.h>

#include "stats/bootstrap.h"
#include "stats/compare.h"
#include "stats/fieller.h"
#include "stats/verdict.h"
#include "stats/warnings.h"

static struct stats_verdict decide(double p, double r, double lo, double hi, bool lower)
{
    struct stats_verdict v;
    /* The tests speak in ratios; the rule takes the relative change. */
    stats_verdict_decide(p, 0.05, r - 1, lo - 1, hi - 1, 0.01, lower, &v);
    return v;
}

/* Decided on the difference (a baseline crossing zero): an absolute floor, and words for it. */
static void test_verdict_on_difference(void **state)
{
    (void)state;
    struct stats_verdict v;
    stats_verdict_decide_diff(1e-6, 0.05, -60.8, -68.4, -53.2, 0.068, false, &v);
    assert_int_equal(v.kind, STATS_REGRESSED);
    assert_true(v.on_difference && isnan(v.rel));
    char buf[512];
    stats_verdict_change(&v, buf, sizeof(buf));
    assert_string_equal(buf, "difference -60.8 [-68.4, -53.2]");
    stats_verdict_explain(&v, 1e-6, 0.01, buf, sizeof(buf));
    assert_non_null(strstr(buf, "decided on the difference of means"));
    assert_null(strstr(buf, "nan"));
    /* Exactly at the floor is not beyond it. */
    stats_verdict_decide_diff(0.001, 0.05, 0.068, 0.068, 0.068, 0.068, false, &v);
    assert_int_equal(v.kind, STATS_WITHIN_NOISE);
    stats_verdict_decide(0.001, 0.05, -0.01, -0.01, -0.01, 0.01, false, &v);
    assert_int_equal(v.kind, STATS_WITHIN_NOISE);
    stats_verdict_change(&v, buf, sizeof(buf));
    assert_string_equal(buf, "-1.00% [-1.00%, -1.00%]");
}

static void test_verdict_rules(void **state)
{
    (void)state;
    struct stats_verdict v = decide(0.001, 0.95, 0.94, 0.96, false);
    assert_int_equal(v.kind, STATS_REGRESSED);
    assert_false(v.significant_within_floor);
    v = decide(0.001, 1.05, 1.03, 1.07, false);
    assert_int_equal(v.kind, STATS_IMPROVED);
    /* For latency the same rise is a regression, and a fall an improvement. */
    v = decide(0.001, 1.05, 1.03, 1.07, true);
    assert_int_equal(v.kind, STATS_REGRESSED);
    v = decide(0.001, 0.95, 0.94, 0.96, true);
    assert_int_equal(v.kind, STATS_IMPROVED);
    v = decide(0.5, 1.001, 0.995, 1.006, false);
    assert_int_equal(v.kind, STATS_WITHIN_NOISE);
    assert_false(v.significant);
    /* Significant, but the whole change is smaller than the floor. */
    v = decide(0.001, 1.004, 1.002, 1.006, false);
    assert_int_equal(v.kind, STATS_WITHIN_NOISE);
    assert_true(v.significant_within_floor);
    /* Significant, and the interval straddles the floor: nothing proven beyond it. */
    v = decide(0.001, 1.012, 1.005, 1.02, false);
    assert_int_equal(v.kind, STATS_NO_DIFFERENCE);
    assert_true(v.significant_within_floor);
    v = decide(0.3, 1.0, 0.97, 1.03, false);
    assert_int_equal(v.kind, STATS_NO_DIFFERENCE);
    assert_false(v.significant);
    /* An interval beyond the floor is not enough without significance. */
    v = decide(0.2, 0.95, 0.94, 0.96, false);
    assert_int_equal(v.kind, STATS_NO_DIFFERENCE);
    v = decide(0.001, NAN, -INFINITY, INFINITY, false);
    assert_int_equal(v.kind, STATS_NO_DIFFERENCE);
    assert_string_equal(stats_verdict_name(STATS_WITHIN_NOISE), "within noise");
    assert_string_equal(stats_verdict_name(STATS_NO_DIFFERENCE), "no difference proven");
}

/* Fills x with n normal values (seeded) of the given mean and sd. */
static void normal(double *x, size_t n, double mean, double sd, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    assert_non_null(r);
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = mean + gsl_ran_gaussian(r, sd);
    gsl_rng_free(r);
}

static enum stats_verdict_kind compare_kind(const double *a, const double *b, size_t n, bool lower)
{
    struct stats_sample sa, sb;
    struct stats_opts o;
    struct stats_comparison c;
    stats_opts_default(&o);
    o.lower_is_better = lower;
    assert_int_equal(stats_sample_init(&sa, a, n), 0);
    assert_int_equal(stats_sample_init(&sb, b, n), 0);
    assert_int_equal(stats_compare(&sa, &sb, &o, &c), 0);
    stats_sample_free(&sa);
    stats_sample_free(&sb);
    return c.verdict.kind;
}

static void test_verdict_end_to_end(void **state)
{
    (void)state;
    double a[30], b[30];
    normal(a, 30, 1000, 5, 1);
    normal(b, 30, 950, 5, 2);
    assert_int_equal(compare_kind(a, b, 30, false), STATS_REGRESSED);
    assert_int_equal(compare_kind(a, b, 30, true), STATS_IMPROVED);
    normal(b, 30, 1000, 5, 3);
    assert_int_equal(compare_kind(a, b, 30, false), STATS_WITHIN_NOISE);
    /* Spread of 20 % with 5 runs: nothing can be told. */
    normal(a, 5, 1000, 200, 4);
    normal(b, 5, 1000, 200, 5);
    assert_int_equal(compare_kind(a, b, 5, false), STATS_NO_DIFFERENCE);
}

static struct stats_checks checks_of(const double *x, size_t n)
{
    struct stats_sample s;
    struct stats_checks c;
    assert_int_equal(stats_sample_init(&s, x, n), 0);
    stats_checks_compute(&s, STATS_ORDER_RUN, &c);
    stats_sample_free(&s);
    return c;
}

static void test_warnings(void **state)
{
    (void)state;
    double x[60];
    normal(x, 30, 100, 1, 6);
    struct stats_checks c = checks_of(x, 30);
    assert_false(c.drift);
    assert_false(c.bimodal);
    assert_false(c.too_few);
    size_t base = c.outliers_low + c.outliers_high;
    x[7] = 1000;
    c = checks_of(x, 30);
    assert_int_equal(c.outliers_low + c.outliers_high, base + 1);
    ASSERT_GE(c.outliers_far, 1);
    /* A steady rise of 0.3 sd per run is drift. */
    normal(x, 30, 100, 1, 7);
    for (size_t i = 0; i < 30; i++)
        x[i] += 0.3 * (double)i;
    c = checks_of(x, 30);
    assert_true(c.drift);
    ASSERT_GT(c.spearman_rho, 0.8);
    /* Two clusters far apart. */
    normal(x, 60, 100, 1, 8);
    for (size_t i = 0; i < 60; i += 2)
        x[i] += 20;
    c = checks_of(x, 60);
    assert_true(c.bimodal);
    c = checks_of(x, 3);
    assert_true(c.too_few);

    struct stats_sample s;
    struct stats_warning w[STATS_WARNING_MAX];
    size_t n = 0;
    const double few[] = {1, 2, 3};
    assert_int_equal(stats_sample_init(&s, few, 3), 0);
    stats_checks_compute(&s, STATS_ORDER_RUN, &c);
    stats_checks_warnings(&c, &s, "few.txt", w, &n, STATS_WARNING_MAX);
    stats_sample_free(&s);
    assert_int_equal(n, 1);
    assert_string_equal(w[0].kind, "too_few_runs");
    assert_non_null(strstr(w[0].message, "few.txt"));
}

static void test_fieller_and_runs(void **state)
{
    (void)state;
    double lo, hi;
    /* With an exact baseline the interval is (mb +- t se_b) / ma. */
    assert_int_equal(stats_fieller_ratio(10, 0, 5, 1, 2, &lo, &hi), 0);
    ASSERT_REL(lo, 0.3, 1e-12);
    ASSERT_REL(hi, 0.7, 1e-12);
    /* A baseline mean indistinguishable from zero gives no bounded interval. */
    assert_int_equal(stats_fieller_ratio(1, 1, 5, 1, 2, &lo, &hi), -EDOM);
    /* n = 2 (1.959964 + 0.841621)^2 * 1 / 1 = 15.7 -> 16. */
    assert_int_equal(stats_runs_needed(1, 1, 100, 0.01, 0.05), 16);
    assert_int_equal(stats_runs_needed(1, 1, 0, 0.01, 0.05), 0);
}

/*
 * The O(1) median resampling must have the distribution of "draw n values
 * with replacement, take the median": for odd n, P(median <= x_(k)) is
 * P(Binomial(n, k/n) >= (n+1)/2).
 */
static void test_median_bootstrap_distribution(void **state)
{
    (void)state;
    enum { N = 7, R = 200000 };
    const double sorted[N] = {1, 2, 3, 4, 5, 6, 7};
    double *d = malloc(R * sizeof(*d));
    assert_non_null(d);
    gsl_rng *r = stats_boot_rng(42);
    assert_non_null(r);
    stats_boot_medians(sorted, N, r, R, d);
    gsl_rng_free(r);
    for (int k = 1; k <= N; k++) {
        size_t le = 0;
        for (size_t i = 0; i < R; i++)
            le += d[i] <= sorted[k - 1];
        double exact = 0, p = (double)k / N;
        for (int j = (N + 1) / 2; j <= N; j++)
            exact += gsl_sf_choose(N, (unsigned)j) * pow(p, j) * pow(1 - p, N - j);
        double got = (double)le / R;
        print_message("k=%d P=%.4f exact=%.4f\n", k, got, exact);
        ASSERT_LT(fabs(got - exact), 0.005);
    }
    free(d);
}

static void test_bootstrap_is_deterministic(void **state)
{
    (void)state;
    double a[20], b[20];
    normal(a, 20, 10, 1, 9);
    normal(b, 20, 11, 1, 10);
    struct stats_sample sa, sb;
    struct stats_opts o;
    struct stats_comparison c1, c2, c3;
    stats_opts_default(&o);
    assert_int_equal(stats_sample_init(&sa, a, 20), 0);
    assert_int_equal(stats_sample_init(&sb, b, 20), 0);
    assert_int_equal(stats_compare(&sa, &sb, &o, &c1), 0);
    assert_int_equal(stats_compare(&sa, &sb, &o, &c2), 0);
    o.seed = 2;
    assert_int_equal(stats_compare(&sa, &sb, &o, &c3), 0);
    assert_int_equal(c1.ratio_method, STATS_RATIO_BOOTSTRAP);
    assert_int_equal(c1.ratio_resamples, 10000);
    ASSERT_EQ(c1.ratio_ci_low, c2.ratio_ci_low);
    ASSERT_EQ(c1.ratio_ci_high, c2.ratio_ci_high);
    ASSERT_EQ(c1.median_ratio_ci_low, c2.median_ratio_ci_low);
    /* Another seed draws other resamples: the interval moves at one end at least. */
    if (c1.ratio_ci_low == c3.ratio_ci_low)
        ASSERT_NE(c1.ratio_ci_high, c3.ratio_ci_high);
    ASSERT_LT(c1.ratio_ci_low, c1.ratio);
    ASSERT_LT(c1.ratio, c1.ratio_ci_high);
    stats_sample_free(&sa);
    stats_sample_free(&sb);
}

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verdict_rules),
        cmocka_unit_test(test_verdict_on_difference),
        cmocka_unit_test(test_verdict_end_to_end),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_fieller_and_runs),
        cmocka_unit_test(test_median_bootstrap_distribution),
        cmocka_unit_test(test_bootstrap_is_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
