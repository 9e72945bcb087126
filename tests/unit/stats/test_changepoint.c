/*
 * E-divisive change points (stats/changepoint.h) on seeded synthetic series:
 * a -5 % shift at point 40 of 60 with 1 % noise is found within one point,
 * at most 5 of 100 flat series report a change at the default significance,
 * and a single outlier is not a change.
 */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "stats/changepoint.h"
#include "netab_assert.h"

/* 60 points of mean 1000 and CV 1 %, from `shift_at` on shifted by `shift` (a fraction). */
static void series(gsl_rng *r, double *x, size_t n, size_t shift_at, double shift)
{
    for (size_t i = 0; i < n; i++)
        x[i] = 1000 * (1 + (i >= shift_at ? shift : 0)) + gsl_ran_gaussian(r, 10);
}

static void test_shift_found(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    size_t found = 0, covered = 0;
    for (unsigned long seed = 1; seed <= 10; seed++) {
        gsl_rng_set(r, seed);
        double x[60];
        series(r, x, 60, 40, -0.05);
        struct stats_cp_opts o;
        stats_cp_opts_default(&o);
        o.seed = seed;
        struct stats_changepoint *cp;
        size_t n;
        assert_int_equal(stats_changepoints(x, 60, &o, &cp, &n), 0);
        assert_int_equal(n, 1);
        printf("seed %lu: change at %zu: %.0f -> %.0f, %+.2f%% [%+.2f, %+.2f], p %.3g\n", seed,
               cp[0].index, cp[0].mean_before, cp[0].mean_after, cp[0].rel * 100,
               cp[0].rel_low * 100, cp[0].rel_high * 100, cp[0].p);
        ASSERT_GE(cp[0].index, 39);
        ASSERT_LE(cp[0].index, 41);
        ASSERT_LT(cp[0].rel_low, cp[0].rel);
        ASSERT_LT(cp[0].rel, cp[0].rel_high);
        covered += cp[0].rel_low < -0.05 && cp[0].rel_high > -0.05;
        ASSERT_LE(cp[0].p, o.alpha);
        assert_int_equal(cp[0].n_before + cp[0].n_after, 60);
        found++;
        free(cp);
    }
    assert_int_equal(found, 10);
    /* 95 % intervals: missing the true -5 % three times in ten would be a 1 % event. */
    ASSERT_GE(covered, 8);
    gsl_rng_free(r);
}

static void test_flat_false_positives(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12345);
    size_t with_change = 0;
    for (unsigned seed = 1; seed <= 100; seed++) {
        double x[60];
        series(r, x, 60, 60, 0);
        struct stats_cp_opts o;
        stats_cp_opts_default(&o);
        o.seed = seed;
        struct stats_changepoint *cp;
        size_t n;
        assert_int_equal(stats_changepoints(x, 60, &o, &cp, &n), 0);
        with_change += n > 0;
        free(cp);
    }
    printf("%zu of 100 flat series report a change point at alpha 0.01\n", with_change);
    ASSERT_LE(with_change, 5);
    gsl_rng_free(r);
}

static void test_outlier_and_errors(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    double x[60];
    series(r, x, 60, 60, 0);
    x[30] = 2000; /* one wild value is not a shift of the series */
    struct stats_cp_opts o;
    stats_cp_opts_default(&o);
    struct stats_changepoint *cp;
    size_t n;
    assert_int_equal(stats_changepoints(x, 60, &o, &cp, &n), 0);
    assert_int_equal(n, 0);
    assert_null(cp);
    /* Too short for two segments: nothing, not an error. */
    assert_int_equal(stats_changepoints(x, 9, &o, &cp, &n), 0);
    assert_int_equal(n, 0);
    x[3] = NAN;
    assert_int_equal(stats_changepoints(x, 60, &o, &cp, &n), -EINVAL);
    x[3] = 1000;
    o.min_seg = 1;
    assert_int_equal(stats_changepoints(x, 60, &o, &cp, &n), -EINVAL);
    gsl_rng_free(r);
}

/* Two shifts are both found, in order, with the means of their own segments. */
static void test_two_shifts(void **state)
{
    (void)state;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 99);
    double x[90];
    for (size_t i = 0; i < 90; i++)
        x[i] = (i < 30 ? 1000 : i < 60 ? 1100 : 1050) + gsl_ran_gaussian(r, 10);
    struct stats_cp_opts o;
    stats_cp_opts_default(&o);
    struct stats_changepoint *cp;
    size_t n;
    assert_int_equal(stats_changepoints(x, 90, &o, &cp, &n), 0);
    assert_int_equal(n, 2);
    ASSERT_GE(cp[0].index, 29);
    ASSERT_LE(cp[0].index, 31);
    ASSERT_GE(cp[1].index, 59);
    ASSERT_LE(cp[1].index, 61);
    assert_float_equal(cp[0].mean_before, 1000, 10);
    assert_float_equal(cp[0].mean_after, 1100, 10);
    assert_float_equal(cp[1].mean_after, 1050, 10);
    free(cp);
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift_found),
        cmocka_unit_test(test_flat_false_positives),
        cmocka_unit_test(test_outlier_and_errors),
        cmocka_unit_test(test_two_shifts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
