/*
 * report/pairs.h, the piece `netab report --pairs all` and `netab compare
 * --pairs all` share: the Bonferroni arithmetic, every pair of a set of
 * variants (b against a, in a report with a as the baseline), the pairs that
 * cannot be compared, and the sentence and line every output prints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "statsreport/pairs.h"
#include "statsreport/stats_report.h"

static const double base[] = {100, 101, 99, 100.5, 99.5, 100.2, 100.1, 99.8};
static const double slower[] = {90, 91, 89, 90.5, 89.5, 90.2, 90.1, 89.8};
static const double same[] = {100.1, 100.9, 99.2, 100.4, 99.6, 100.3, 100, 99.9};
static const double one[] = {50};
#define N(a) (sizeof(a) / sizeof(a[0]))
/* cmocka's float comparison rounds to float; these are doubles. */
#define assert_double_equal(a, b, eps) ASSERT_LE(fabs((double)(a) - (double)(b)), (eps))

static void test_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(report_pairs_count(0), 0);
    assert_int_equal(report_pairs_count(1), 0);
    assert_int_equal(report_pairs_count(2), 1);
    assert_int_equal(report_pairs_count(3), 3);
    assert_int_equal(report_pairs_count(5), 10);
    assert_double_equal(report_pairs_level(0.95, 3), 1 - 0.05 / 3, 1e-15);
    assert_double_equal(report_pairs_level(0.95, 1), 0.95, 0);
    assert_double_equal(report_pairs_level(0.95, 0), 0.95, 0);
    assert_double_equal(report_pairs_adjust(0.02, 3), 0.06, 1e-15);
    assert_double_equal(report_pairs_adjust(0.5, 3), 1, 0);
    assert_double_equal(report_pairs_adjust(0.02, 1), 0.02, 0);
    assert_double_equal(report_pairs_adjust(0.02, 0), 0.02, 0);
    /* A p that could not be computed proves nothing: it is held as 1. */
    assert_double_equal(report_pairs_adjust(NAN, 3), 1, 0);
}

/* welch_p of b against a alone, at confidence c. */
static double direct_p(const double *a, size_t na, const double *b, size_t nb, double c,
                       double *ci_low)
{
    struct stats_opts o;
    stats_opts_default(&o);
    o.confidence = c;
    struct stats_report r;
    char err[NB_ERRLEN];
    assert_int_equal(stats_report_init(&r, 2, &o), 0);
    assert_int_equal(stats_report_set_values(&r, 0, "a", "plain", NULL, a, na), 0);
    assert_int_equal(stats_report_set_values(&r, 1, "b", "plain", NULL, b, nb), 0);
    assert_int_equal(stats_report_analyse(&r, err, sizeof(err)), 0);
    double p = r.cmps[0].c.welch.p;
    *ci_low = r.cmps[0].c.diff_ci_low;
    stats_report_free(&r);
    return p;
}

static void test_every_pair(void **state)
{
    (void)state;
    const struct report_pair_set sets[] = {{"base", base, N(base), 100},
                                           {"slower", slower, N(slower), 90},
                                           {"same", same, N(same), 100},
                                           {"one", one, N(one), 50}};
    size_t k = report_pairs_count(N(sets));
    struct stats_opts o;
    stats_opts_default(&o);
    o.confidence = report_pairs_level(0.95, k);
    o.seed = 3;
    json_t *out = json_array(), *head = json_pack("{s:s}", "metric", "throughput");
    char err[NB_ERRLEN] = "";
    assert_int_equal(report_pairs_add(out, head, sets, N(sets), &o, k, err, sizeof(err)), 0);
    assert_int_equal(json_array_size(out), 6);
    const char *want[6][2] = {{"base", "slower"}, {"base", "same"},  {"base", "one"},
                              {"slower", "same"}, {"slower", "one"}, {"same", "one"}};
    for (size_t i = 0; i < 6; i++) {
        json_t *p = json_array_get(out, i);
        assert_string_equal(json_string_value(json_object_get(p, "metric")), "throughput");
        assert_string_equal(json_string_value(json_object_get(p, "a")), want[i][0]);
        assert_string_equal(json_string_value(json_object_get(p, "b")), want[i][1]);
        /* The head's members come first, as the report's "cell" and "metric" do. */
        assert_string_equal(json_object_iter_key(json_object_iter(p)), "metric");
        bool lone = !strcmp(want[i][1], "one");
        assert_int_equal(json_is_string(json_object_get(p, "not_compared")), lone);
        if (lone)
            continue;
        double wp = json_real_value(json_object_get(p, "welch_p"));
        assert_double_equal(json_real_value(json_object_get(p, "p_bonferroni")),
                            wp * 6 < 1 ? wp * 6 : 1, 1e-15);
    }
    json_t *bs = json_array_get(out, 0), *ss = json_array_get(out, 3);
    assert_string_equal(json_string_value(json_object_get(bs, "verdict")), "regressed");
    assert_string_equal(json_string_value(json_object_get(ss, "verdict")), "improved");
    /* The same comparison as made alone, with the interval of the corrected level. */
    double lo95, lo;
    double p95 = direct_p(base, N(base), slower, N(slower), 0.95, &lo95);
    double p = direct_p(base, N(base), slower, N(slower), o.confidence, &lo);
    assert_double_equal(json_real_value(json_object_get(bs, "welch_p")), p, 1e-15 * p + 1e-300);
    assert_double_equal(p, p95, 1e-15 * p + 1e-300);
    assert_double_equal(json_real_value(json_object_get(bs, "diff_ci_low")), lo, 1e-9);
    ASSERT_LT(lo, lo95); /* wider at 99.17 % than at 95 % */
    json_decref(head);
    json_decref(out);
}

static void test_words(void **state)
{
    (void)state;
    char b[512];
    report_pairs_correction(b, sizeof(b), 3, 1 - 0.05 / 3, 0.95);
    assert_string_equal(b, "Bonferroni over the 3 pairs of each cell: every interval (here and in "
                           "the tables above) is at 98.33% and every p is multiplied by 3 before "
                           "it is held against 0.05, so that each cell's family of comparisons "
                           "is at 95%.");
    report_pairs_correction(b, sizeof(b), 1, 0.95, 0.95);
    assert_string_equal(b, "One pair: no correction is needed.");
    json_t *p = json_pack("{s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:s}", "a", "x", "b", "y",
                          "decided_on", "ratio", "rel_change_pct", -33.27, "rel_change_ci_low_pct",
                          -33.51, "rel_change_ci_high_pct", -33.02, "welch_p", 7.5e-6,
                          "p_bonferroni", 2.2e-5, "verdict", "regressed");
    report_pair_line(p, 3, b, sizeof(b));
    assert_string_equal(b, "x -> y: -33.27% [-33.51, -33.02] p=7.5e-06 (x3: 2.2e-05) regressed");
    json_decref(p);
    p = json_pack("{s:s, s:s, s:s}", "a", "x", "b", "y", "not_compared", "too few");
    report_pair_line(p, 3, b, sizeof(b));
    assert_string_equal(b, "x -> y: not compared: too few");
    json_decref(p);
    json_t *c = report_pairs_correction_json(3, 1 - 0.05 / 3, 0.95);
    assert_string_equal(json_string_value(json_object_get(c, "method")), "bonferroni");
    assert_int_equal(json_integer_value(json_object_get(c, "pairs")), 3);
    assert_double_equal(json_real_value(json_object_get(c, "comparison_confidence")), 1 - 0.05 / 3,
                        0);
    json_decref(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_every_pair),
        cmocka_unit_test(test_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
