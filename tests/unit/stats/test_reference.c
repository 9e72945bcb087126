/*
 * Compares the statistics module with reference values computed by R
 * (reference/make_reference.R, output checked in as reference/reference.h).
 */
#include "test_helpers.h"
#include "netab_assert.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>

#include "reference/reference.h"
#include "stats/compare.h"
#include "stats/mannwhitney.h"
#include "stats/summary.h"
#include "stats/warnings.h"
#include "stats/welch.h"

#define NCASES (sizeof(ref_cases) / sizeof(ref_cases[0]))
#define TOL 1e-6

static void init_pair(const struct ref_case *c, struct stats_sample *a, struct stats_sample *b)
{
    assert_int_equal(stats_sample_init(a, c->a, c->na), 0);
    assert_int_equal(stats_sample_init(b, c->b, c->nb), 0);
}

static void test_welch(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const struct ref_case *c = &ref_cases[i];
        struct stats_sample a, b;
        struct stats_welch w95, w90;
        print_message("case %s\n", c->name);
        init_pair(c, &a, &b);
        stats_welch(&a, &b, 0.95, &w95);
        stats_welch(&a, &b, 0.90, &w90);
        ASSERT_REL(w95.p, c->welch_p, TOL);
        ASSERT_REL(w95.df, c->welch_df, TOL);
        ASSERT_REL(w95.ci_low, c->diff_ci95_low, TOL);
        ASSERT_REL(w95.ci_high, c->diff_ci95_high, TOL);
        ASSERT_REL(w90.ci_low, c->diff_ci90_low, TOL);
        ASSERT_REL(w90.ci_high, c->diff_ci90_high, TOL);
        stats_sample_free(&a);
        stats_sample_free(&b);
    }
}

static void test_mannwhitney(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const struct ref_case *c = &ref_cases[i];
        struct stats_sample a, b;
        struct stats_mw mw;
        print_message("case %s\n", c->name);
        init_pair(c, &a, &b);
        stats_mannwhitney(&a, &b, &mw);
        assert_int_equal(mw.exact, c->mw_exact);
        ASSERT_REL(mw.u, c->mw_u, TOL);
        ASSERT_REL(mw.p, c->mw_p, TOL);
        stats_sample_free(&a);
        stats_sample_free(&b);
    }
}

static void test_summary(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const struct ref_case *c = &ref_cases[i];
        struct stats_sample a;
        struct stats_summary s95, s99;
        struct stats_opts o;
        print_message("case %s\n", c->name);
        stats_opts_default(&o);
        assert_int_equal(stats_sample_init(&a, c->a, c->na), 0);
        assert_int_equal(stats_summary_compute(&a, &o, &s95), 0);
        o.confidence = 0.99;
        assert_int_equal(stats_summary_compute(&a, &o, &s99), 0);
        ASSERT_REL(s95.mean_ci_low, c->a_mean_ci95_low, TOL);
        ASSERT_REL(s95.mean_ci_high, c->a_mean_ci95_high, TOL);
        ASSERT_REL(s99.mean_ci_low, c->a_mean_ci99_low, TOL);
        ASSERT_REL(s99.mean_ci_high, c->a_mean_ci99_high, TOL);
        ASSERT_REL(s95.p5, c->a_p5, TOL);
        ASSERT_REL(s95.p25, c->a_p25, TOL);
        ASSERT_REL(s95.median, c->a_median, TOL);
        ASSERT_REL(s95.p75, c->a_p75, TOL);
        ASSERT_REL(s95.p95, c->a_p95, TOL);
        ASSERT_REL(s95.stddev, c->a_sd, TOL);
        /* The bootstrap interval of the median must bracket the median. */
        ASSERT_LE(s95.median_ci_low, s95.median);
        ASSERT_LE(s95.median, s95.median_ci_high);
        stats_sample_free(&a);
    }
}

static void test_spearman(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const struct ref_case *c = &ref_cases[i];
        struct stats_sample a;
        struct stats_checks k;
        print_message("case %s\n", c->name);
        assert_int_equal(stats_sample_init(&a, c->a, c->na), 0);
        stats_checks_compute(&a, STATS_ORDER_RUN, &k);
        ASSERT_REL(k.spearman_rho, c->a_spearman_rho, TOL);
        ASSERT_REL(k.spearman_p, c->a_spearman_p, TOL);
        stats_sample_free(&a);
    }
}

/* The exact test's smallest p for 3 vs 3 separated values is 2 / C(6, 3) = 0.1. */
static void test_mannwhitney_exact_by_hand(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3}, y[] = {4, 5, 6};
    struct stats_sample a, b;
    struct stats_mw mw;
    assert_int_equal(stats_sample_init(&a, x, 3), 0);
    assert_int_equal(stats_sample_init(&b, y, 3), 0);
    stats_mannwhitney(&a, &b, &mw);
    assert_true(mw.exact);
    ASSERT_REL(mw.u, 0, TOL);
    ASSERT_REL(mw.p, 0.1, TOL);
    stats_mannwhitney(&b, &a, &mw);
    ASSERT_REL(mw.u, 9, TOL);
    ASSERT_REL(mw.p, 0.1, TOL);
    stats_sample_free(&a);
    stats_sample_free(&b);
}

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_welch),
        cmocka_unit_test(test_mannwhitney),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_spearman),
        cmocka_unit_test(test_mannwhitney_exact_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
