/*
 * The inputs of netab issue 10, section 5, where a figure used to be wrong:
 * a baseline crossing zero, values near 1e154 and 1e-310, values 1e15 plus
 * small integers, 99.9 % confidence on two values and a change of exactly
 * the noise floor. Reference figures come from exact rational arithmetic and
 * scipy (reference/make_edge_reference.py); the text and JSON reports must
 * never show nan, inf or a wrapped integer.
 */
#include "test_helpers.h"
#include "netab_assert.h"

#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/edge_reference.h"
#include "statsreport/stats_report.h"
#include "stats/bootstrap.h"
#include "stats/verdict.h"

/* Builds and analyses the report of baseline a against b at confidence conf. */
static void analyse(struct stats_report *r, const double *a, size_t na, const double *b, size_t nb,
                    double conf, bool lower)
{
    struct stats_opts o;
    stats_opts_default(&o);
    o.confidence = conf;
    o.lower_is_better = lower;
    assert_int_equal(stats_report_init(r, 2, &o), 0);
    assert_int_equal(stats_report_set_values(r, 0, "base", "plain", NULL, a, na), 0);
    assert_int_equal(stats_report_set_values(r, 1, "other", "plain", NULL, b, nb), 0);
    char err[NB_ERRLEN] = "";
    int rc = stats_report_analyse(r, err, sizeof(err));
    if (rc)
        fail_msg("analyse: %s", err);
}

/* True if word occurs in s as a token of its own (not inside a longer word). */
static bool has_token(const char *s, const char *word)
{
    size_t wl = strlen(word);
    for (const char *p = s; (p = strstr(p, word)); p++) {
        bool before = p == s || !isalpha((unsigned char)p[-1]);
        bool after = !isalpha((unsigned char)p[wl]);
        if (before && after)
            return true;
    }
    return false;
}

/* The text, JSON and CSV reports of r contain no nan, inf or wrapped size_t. */
static void assert_printable(const struct stats_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(stats_report_print_text(r, f), 0);
    assert_int_equal(stats_report_print_csv(r, f), 0);
    json_t *doc = stats_report_json(r);
    assert_non_null(doc);
    assert_int_equal(json_dumpf(doc, f, JSON_REAL_PRECISION(17)), 0);
    json_decref(doc);
    fclose(f);
    const char *bad[] = {"nan", "inf", "18446744073709551615"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (has_token(buf, bad[i]))
            fail_msg("the report shows '%s':\n%s", bad[i], buf);
    free(buf);
}

static void test_reference_cases(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof(edge_cases) / sizeof(edge_cases[0]); k++) {
        const struct edge_case *e = &edge_cases[k];
        print_message("case %s\n", e->name);
        struct stats_report r;
        analyse(&r, e->a, e->na, e->b, e->nb, e->conf, false);
        const struct stats_summary *sa = &r.sets[0].sum, *sb = &r.sets[1].sum;
        const struct stats_comparison *c = &r.cmps[0].c;
        assert_true(r.cmps[0].compared);
        ASSERT_REL(sa->mean, e->mean_a, 1e-14);
        ASSERT_REL(sb->mean, e->mean_b, 1e-14);
        /* Subnormals carry fewer digits: 1e-310 holds about 13. */
        ASSERT_REL(sa->stddev, e->sd_a, 1e-9);
        ASSERT_REL(sb->stddev, e->sd_b, 1e-9);
        ASSERT_REL(c->diff, e->diff, 1e-9);
        ASSERT_REL(c->diff_ci_low, e->diff_ci_low, 1e-8);
        ASSERT_REL(c->diff_ci_high, e->diff_ci_high, 1e-8);
        ASSERT_REL(c->welch.t, e->welch_t, 1e-9);
        ASSERT_REL(c->welch.df, e->welch_df, 1e-9);
        ASSERT_REL(c->welch.p, e->welch_p, 1e-6);
        /* GSL's t quantile at 1 df and 99.95 % is good to about 1e-9. */
        ASSERT_REL(c->base_ci_low, e->base_ci_low, 1e-8);
        ASSERT_REL(c->base_ci_high, e->base_ci_high, 1e-8);
        assert_int_equal(c->ratio_defined, e->ratio_defined);
        if (e->ratio_defined) {
            ASSERT_REL(c->diff_pct, e->diff_pct, 1e-9);
            ASSERT_REL(c->ratio, 1 + e->diff_pct / 100, 1e-12);
            assert_true(isfinite(c->ratio_ci_low) && isfinite(c->ratio_ci_high));
        } else {
            assert_true(isnan(c->diff_pct) && isnan(c->ratio));
            assert_true(c->verdict.on_difference);
        }
        assert_printable(&r);
        stats_report_free(&r);
    }
}

/* 8, 9, 10, 11, -4 against -50 ... -58: ratio undefined, decided on the difference. */
static void test_zero_crossing_verdict(void **state)
{
    (void)state;
    const struct edge_case *e = &edge_cases[0];
    struct stats_report r;
    analyse(&r, e->a, e->na, e->b, e->nb, 0.95, false);
    const struct stats_report_cmp *m = &r.cmps[0];
    assert_int_equal(m->c.verdict.kind, STATS_REGRESSED);
    ASSERT_REL(m->c.verdict.floor, 0.01 * 6.8, 1e-12);
    bool warned = false;
    for (size_t i = 0; i < m->nwarnings; i++)
        warned |= !strcmp(m->warnings[i].kind, "ratio_undefined") &&
                  strstr(m->warnings[i].message, "reaches zero");
    assert_true(warned);
    assert_true(stats_report_regressed(&r));
    stats_report_free(&r);
    /* Lower is better: the same fall is an improvement. */
    analyse(&r, e->a, e->na, e->b, e->nb, 0.95, true);
    assert_int_equal(r.cmps[0].c.verdict.kind, STATS_IMPROVED);
    stats_report_free(&r);
}

/* The same shape at 1e154 and at 1e-310 gives the verdict and p of the unit-scale data. */
static void test_scale_free(void **state)
{
    (void)state;
    const double a[] = {1.0, 1.1, 0.9, 1.05, 0.95}, b[] = {1.2, 1.3, 1.1, 1.25, 1.15};
    struct stats_report unit, huge, tiny;
    analyse(&unit, a, 5, b, 5, 0.95, false);
    analyse(&huge, edge_cases[1].a, 5, edge_cases[1].b, 5, 0.95, false);
    analyse(&tiny, edge_cases[2].a, 5, edge_cases[2].b, 5, 0.95, false);
    assert_int_equal(unit.cmps[0].c.verdict.kind, STATS_IMPROVED);
    assert_int_equal(huge.cmps[0].c.verdict.kind, STATS_IMPROVED);
    assert_int_equal(tiny.cmps[0].c.verdict.kind, STATS_IMPROVED);
    ASSERT_REL(huge.cmps[0].c.welch.p, unit.cmps[0].c.welch.p, 1e-9);
    ASSERT_REL(tiny.cmps[0].c.welch.p, unit.cmps[0].c.welch.p, 1e-9);
    ASSERT_REL(huge.sets[0].sum.cv, unit.sets[0].sum.cv, 1e-12);
    ASSERT_REL(tiny.sets[0].sum.cv, unit.sets[0].sum.cv, 1e-9);
    ASSERT_EQ(huge.cmps[0].c.runs_needed, unit.cmps[0].c.runs_needed);
    ASSERT_EQ(tiny.cmps[0].c.runs_needed, unit.cmps[0].c.runs_needed);
    /* Above 1e154 the old code printed stddev inf and "about 18446744073709551615 runs". */
    double a160[5], b160[5];
    for (size_t i = 0; i < 5; i++) {
        a160[i] = a[i] * 1e160;
        b160[i] = b[i] * 1e160;
    }
    struct stats_report big;
    analyse(&big, a160, 5, b160, 5, 0.95, false);
    ASSERT_REL(big.sets[0].sum.stddev, unit.sets[0].sum.stddev * 1e160, 1e-12);
    ASSERT_REL(big.cmps[0].c.welch.p, unit.cmps[0].c.welch.p, 1e-9);
    ASSERT_EQ(big.cmps[0].c.runs_needed, unit.cmps[0].c.runs_needed);
    assert_printable(&big);
    stats_report_free(&big);
    stats_report_free(&unit);
    stats_report_free(&huge);
    stats_report_free(&tiny);
}

/* 1e15 + small integers: the difference keeps its digits (it was 0.25 for 0.2). */
static void test_offset_precision(void **state)
{
    (void)state;
    const struct edge_case *e = &edge_cases[3];
    struct stats_report r;
    analyse(&r, e->a, e->na, e->b, e->nb, 0.95, false);
    ASSERT_REL(r.cmps[0].c.diff, 0.2, 1e-14);
    ASSERT_REL(r.cmps[0].c.median_diff, 0.0, 1e-14);
    ASSERT_REL(r.cmps[0].c.diff_pct, 2e-14, 1e-12);
    stats_report_free(&r);
}

/* Two values at 99.9 %: the expanded bootstrap tail underflowed and the comparison failed. */
static void test_confidence_999_two_values(void **state)
{
    (void)state;
    ASSERT_GT(stats_boot_expanded_tail(0.999, 2, 1.0), 0);
    const struct edge_case *e = &edge_cases[4];
    struct stats_report r;
    analyse(&r, e->a, e->na, e->b, e->nb, 0.999, false);
    /* The tail is beyond what 10,000 resamples resolve: Fieller's interval instead. */
    assert_int_equal(r.cmps[0].c.ratio_method, STATS_RATIO_FIELLER);
    assert_int_equal(r.cmps[0].c.verdict.kind, STATS_NO_DIFFERENCE);
    stats_report_free(&r);
}

/* 100 x5 against 99 x5 is exactly -1 %: not beyond a 1 % floor, so within noise. */
static void test_exact_floor(void **state)
{
    (void)state;
    const double a[] = {100, 100, 100, 100, 100}, b[] = {99, 99, 99, 99, 99};
    const double c[] = {101, 101, 101, 101, 101};
    struct stats_report r;
    analyse(&r, a, 5, b, 5, 0.95, false);
    ASSERT_EQ(r.cmps[0].c.verdict.rel, -0.01);
    ASSERT_EQ(r.cmps[0].c.verdict.rel_low, -0.01);
    ASSERT_EQ(r.cmps[0].c.verdict.rel_high, -0.01);
    assert_int_equal(r.cmps[0].c.verdict.kind, STATS_WITHIN_NOISE);
    assert_true(r.cmps[0].c.verdict.significant_within_floor);
    assert_printable(&r);
    stats_report_free(&r);
    analyse(&r, a, 5, c, 5, 0.95, true);
    assert_int_equal(r.cmps[0].c.verdict.kind, STATS_WITHIN_NOISE);
    stats_report_free(&r);
    /* Just beyond the floor is a regression. */
    const double d[] = {98.99, 98.99, 98.99, 98.99, 98.99};
    analyse(&r, a, 5, d, 5, 0.95, false);
    assert_int_equal(r.cmps[0].c.verdict.kind, STATS_REGRESSED);
    stats_report_free(&r);
}

/* Values whose differences leave the double range are refused with a sentence. */
static void test_refuses_beyond_range(void **state)
{
    (void)state;
    const double a[] = {1e308, 1.1e308, 0.9e308}, b[] = {-1e308, -1.2e308, -0.9e308};
    struct stats_opts o;
    stats_opts_default(&o);
    struct stats_report r;
    assert_int_equal(stats_report_init(&r, 2, &o), 0);
    assert_int_equal(stats_report_set_values(&r, 0, "base", "plain", NULL, a, 3), 0);
    assert_int_equal(stats_report_set_values(&r, 1, "other", "plain", NULL, b, 3), 0);
    char err[NB_ERRLEN] = "";
    assert_int_equal(stats_report_analyse(&r, err, sizeof(err)), -ERANGE);
    assert_non_null(strstr(err, "too far apart to compare in double precision"));
    stats_report_free(&r);
}

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_cases),
        cmocka_unit_test(test_zero_crossing_verdict),
        cmocka_unit_test(test_scale_free),
        cmocka_unit_test(test_offset_precision),
        cmocka_unit_test(test_confidence_999_two_values),
        cmocka_unit_test(test_exact_floor),
        cmocka_unit_test(test_refuses_beyond_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
