/*
 * The renderers compute nothing (issue 29): each is given a model built by
 * hand (model_fixture.h) whose figures the data could not give, and must
 * print them as the model says: a mean of 42.5 over the values 1, 2 and 3,
 * a change of +12.5 % that the means would make +82.9 %, a verdict of
 * regressed for a rise of a higher-is-better metric, run and verdict counts
 * that add up to nothing. What only recomputing could give must not appear.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "model_fixture.h"
#include "plot/plot.h"
#include "netab_assert.h"

/* Figures that a renderer would print only by recomputing them from the values. */
static const char *const recomputed[] = {
    "2.00",  /* zebra-base's mean of 3 1 2, as a table shows a mean */
    "5.00",  /* quokka-v2's mean of 6 4 5 */
    "+82.9", /* quokka-v2's change of the means 77.75 against 42.5 */
    "+150",  /* the change of the values' means, 5 against 2 */
    "+83%",  /* the same as a rounded percentage */
};

static void has(const char *out, const char *needle)
{
    if (!strstr(out, needle)) {
        fprintf(stderr, "missing \"%s\" in:\n%s\n", needle, out);
        fail();
    }
}

static void lacks(const char *out, const char *needle)
{
    if (strstr(out, needle)) {
        fprintf(stderr, "unexpected \"%s\" at:\n%.200s\n", needle, strstr(out, needle));
        fail();
    }
}

static void lacks_recomputed(const char *out)
{
    for (size_t i = 0; i < sizeof(recomputed) / sizeof(*recomputed); i++)
        lacks(out, recomputed[i]);
}

/* What every human-readable format shows of the model: names, figures, failures. */
static void shows_model(const char *out)
{
    has(out, "menagerie");
    has(out, "zebra-base");
    has(out, "quokka-v2");
    has(out, "okapi=7");
    has(out, "okapi=9");
    has(out, "gnu Mb/s");
    has(out, "42.50");
    has(out, "77.75");
    has(out, "0.625");
    has(out, "0.875");
    has(out, "555.5");
    has(out, "+12.5%");
    has(out, "-7.5%");
    has(out, "(fails: yak stampede)");
    has(out, "1 of 4 failed: hiccup: gremlin in the wire");
    has(out, "4 of 4 failed: peer vanished: yak herd stampede");
    lacks_recomputed(out);
}

static int print_text(const struct creport *r, FILE *f)
{
    return creport_print_text(r, f);
}

static int print_markdown(const struct creport *r, FILE *f)
{
    return creport_print_markdown(r, f);
}

static int print_csv(const struct creport *r, FILE *f)
{
    return creport_print_csv(r, f);
}

static int print_html(const struct creport *r, FILE *f)
{
    return creport_print_html(r, NULL, f);
}

static int print_values_text(const struct creport *r, FILE *f)
{
    return creport_print_values_text(r, f);
}

static int print_values_markdown(const struct creport *r, FILE *f)
{
    return creport_print_values_markdown(r, f);
}

/* The typed sections of the text report, in full. */
static void test_text(void **state)
{
    (void)state;
    struct creport *r = model_fixture(CREPORT_SEC_HEADLINE | CREPORT_SEC_CHANGES |
                                      CREPORT_SEC_TABLES | CREPORT_SEC_DETAILS |
                                      CREPORT_SEC_VALUES | CREPORT_SEC_RUNS | CREPORT_SEC_VERDICT);
    char *out = model_fixture_render(r, print_text);
    assert_non_null(out);
    shows_model(out);
    /* The headline: the change with the model's verdict mark, the cost likewise. */
    has(out, "+12.5% !");
    has(out, "-7.5% =");
    /* The changes and details: the model's interval, p and verdict, at its confidence. */
    has(out, "+12.5% [+4.25, +21.5]");
    has(out, "-7.50% [-9.25, -5.50]");
    has(out, "wombat-regressed (p 0.0123)");
    has(out, "wombat-within (p 0.0456)");
    has(out, "[90% CI]");
    has(out, "not compared: quokka ran off");
    /* The sorted values are the model's sorted, not the values sorted. */
    has(out, "11.5");
    has(out, "16.5");
    /* The run counts and measured runs per cell as set, not the entries' n. */
    has(out, "Runs: 1001 planned, 502 measured, 203 warm-ups excluded; 104 failed, 5\n"
             "  interrupted");
    has(out, "zebra-base       31       32\nquokka-v2        33        0\n");
    has(out, "Noise floor 3%, confidence 90%");
    has(out, "Verdicts: 11 improved, 12 regressed, 13 within noise, 14 no difference\n"
             "  proven, 15 not compared.");
    has(out, "REGRESSION: 3 deciding-metric comparisons regressed");
    free(out);
    creport_free(r);
}

/* Every section of the Markdown report. */
static void test_markdown(void **state)
{
    (void)state;
    struct creport *r = model_fixture(0);
    char *out = model_fixture_render(r, print_markdown);
    assert_non_null(out);
    shows_model(out);
    has(out, "| okapi=7 | zebra-base | 42.50 |");
    has(out, "| quokka-v2 | 77.75 | +12.5% ! | 0.875 | -7.5% = |");
    has(out,
        "- quokka-v2 @ okapi=7: +12.5% [+4.25, +21.5], wombat-regressed (p 0.0123) (deciding)");
    has(out, "- quokka-v2 @ okapi=9: not compared: quokka ran off");
    has(out, "[90% CI]");
    has(out, "| 1 | 11.5 | 14.5 |");
    has(out, "| 2 | 62.5 |  |");
    has(out, "| zebra-base | 31 | 32 |\n| quokka-v2 | 33 | 0 |\n");
    has(out,
        "- Runs: 1001 planned, 502 measured, 203 warm-ups excluded, 104 failed, 5 interrupted");
    has(out, "- Noise floor 3%, confidence 90%");
    has(out, "- Verdicts: 11 improved, 12 regressed, 13 within noise, 14 no difference proven, "
             "15 not compared");
    has(out, "**A deciding metric regressed** (exit status 1): the fixture's own exit reason");
    free(out);
    creport_free(r);
}

/* One row per variant, cell and metric: the model's median, mean, change and sorted values. */
static void test_csv(void **state)
{
    (void)state;
    struct creport *r = model_fixture(0);
    char *out = model_fixture_render(r, print_csv);
    assert_non_null(out);
    has(out, "zebra-base,okapi=7,tcp_stream,gnu_rate,Mbit/"
             "s,higher_is_better,1,17.25,42.5,3,,,,,baseline,"
             "11.5;12.5;13.5,,,1 of 4 failed: hiccup: gremlin in the wire\n");
    has(out,
        "quokka-v2,okapi=7,tcp_stream,gnu_rate,Mbit/s,higher_is_better,1,33.125,77.75,3,12.5,4.25,"
        "21.5,0.0123,regressed,14.5;15.5;16.5,12.5,%,\n");
    has(out, "quokka-v2,okapi=7,tcp_stream,yak_cost,us/"
             "KiB,lower_is_better,0,0.75,0.875,3,-7.5,-9.25,-5.5,"
             "0.0456,within noise,30;31;32,-7.5,%,\n");
    has(out,
        "quokka-v2,okapi=9,tcp_stream,gnu_rate,Mbit/s,higher_is_better,1,,,0,,,,,not compared,,,,"
        "(fails: yak stampede) 4 of 4 failed: peer vanished: yak herd stampede\n");
    /* Neither the values' medians nor their order. */
    lacks(out, ",2,2,3,");
    lacks(out, "1;2;3");
    lacks(out, "4;5;6");
    free(out);
    creport_free(r);
}

static double number_at(json_t *root, const char *path)
{
    json_t *v = json_object_get(root, path);
    if (!json_is_number(v))
        fail_msg("no number %s", path);
    return json_number_value(v);
}

/* The result of variant v, cell c, metric name in the JSON document. */
static json_t *result(json_t *root, const char *v, const char *c, const char *metric)
{
    size_t i;
    json_t *x;
    json_array_foreach(json_object_get(root, "results"), i, x)
    {
        if (!strcmp(json_string_value(json_object_get(x, "variant")), v) &&
            !strcmp(json_string_value(json_object_get(x, "cell")), c) &&
            !strcmp(json_string_value(json_object_get(x, "metric")), metric))
            return x;
    }
    fail_msg("no result %s @ %s, %s", v, c, metric);
    return NULL;
}

/* The JSON document: every figure as the model holds it. */
static void test_json(void **state)
{
    (void)state;
    struct creport *r = model_fixture(0);
    json_t *root = creport_to_json(r);
    assert_non_null(root);
    json_t *base = result(root, "zebra-base", "okapi=7", "gnu_rate");
    ASSERT_EQ(number_at(base, "mean"), 42.5);
    ASSERT_EQ(number_at(base, "median"), 17.25);
    assert_int_equal(json_integer_value(json_object_get(base, "n")), 3);
    ASSERT_EQ(json_number_value(json_array_get(json_object_get(base, "values"), 0)), 3);
    ASSERT_EQ(json_number_value(json_array_get(json_object_get(base, "sorted"), 0)), 11.5);
    json_t *q = result(root, "quokka-v2", "okapi=7", "gnu_rate");
    ASSERT_EQ(number_at(q, "mean"), 77.75);
    ASSERT_EQ(number_at(q, "median"), 33.125);
    json_t *cmp = json_object_get(q, "comparison");
    assert_string_equal(json_string_value(json_object_get(cmp, "verdict")), "regressed");
    ASSERT_EQ(number_at(cmp, "welch_p"), 0.0123);
    ASSERT_EQ(number_at(cmp, "baseline_mean"), 42.5);
    ASSERT_EQ(number_at(cmp, "rel_change_pct"), 12.5);
    json_t *chg = json_object_get(cmp, "change");
    ASSERT_EQ(number_at(chg, "value"), 12.5);
    ASSERT_EQ(number_at(chg, "ci_low"), 4.25);
    ASSERT_EQ(number_at(chg, "ci_high"), 21.5);
    assert_string_equal(json_string_value(json_object_get(chg, "text")), "+12.5% [+4.25, +21.5]");
    json_t *gone = result(root, "quokka-v2", "okapi=9", "gnu_rate");
    assert_string_equal(json_string_value(json_object_get(gone, "no_comparison")),
                        "quokka ran off");
    json_t *runs = json_object_get(root, "runs");
    ASSERT_EQ(number_at(runs, "planned"), 1001);
    ASSERT_EQ(number_at(runs, "measured"), 502);
    ASSERT_EQ(number_at(runs, "failed"), 104);
    json_t *sum = json_object_get(root, "summary");
    ASSERT_EQ(number_at(sum, "improved"), 11);
    ASSERT_EQ(number_at(sum, "regressed_deciding"), 3);
    ASSERT_EQ(number_at(root, "exit_status"), 1);
    assert_string_equal(json_string_value(json_object_get(root, "exit_reason")),
                        "the fixture's own exit reason");
    json_t *cell = json_array_get(json_object_get(root, "cells"), 0);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(cell, "n_measured"), 1)),
                     33);
    json_t *row = json_array_get(
        json_object_get(json_array_get(json_object_get(root, "headline"), 0), "rows"), 1);
    assert_string_equal(json_string_value(json_object_get(row, "mean_text")), "77.75");
    assert_string_equal(json_string_value(json_object_get(row, "change_text")), "+12.5% !");
    assert_string_equal(json_string_value(json_object_get(row, "cost_change_text")), "-7.5% =");
    json_t *fail = json_array_get(json_object_get(root, "failures"), 1);
    assert_string_equal(json_string_value(json_object_get(fail, "reason")),
                        "peer vanished: yak herd stampede");
    assert_int_equal(json_integer_value(json_object_get(fail, "failed")), 4);
    json_decref(root);
    creport_free(r);
}

/* The page without its figures, whose drawing is numbers: glyph outlines and coordinates. */
static char *without_svg(const char *page)
{
    char *out = calloc(strlen(page) + 1, 1), *o = out;
    assert_non_null(out);
    for (const char *p = page, *svg; *p;) {
        svg = strstr(p, "<svg");
        const char *end = svg ? strstr(svg, "</svg>") : NULL;
        size_t n = svg && end ? (size_t)(svg - p) : strlen(p);
        memcpy(o, p, n);
        o += n;
        p = svg && end ? end + strlen("</svg>") : p + n;
    }
    return out;
}

/* The HTML page: summary, headline, tables, changes, sorted values and commands. */
static void test_html(void **state)
{
    (void)state;
    struct creport *r = model_fixture(0);
    char *page = model_fixture_render(r, print_html);
    assert_non_null(page);
    has(page, "<svg");
    char *out = without_svg(page);
    free(page);
    shows_model(out);
    has(out, "Runs: 1001 planned, 502 measured, 203 warm-ups excluded; 104 failed, 5 interrupted.");
    has(out, "Verdicts: 11 improved, 12 regressed, 13 within noise, 14 no difference proven, "
             "15 not compared.");
    has(out, "REGRESSION: 3 deciding-metric comparisons regressed");
    has(out, "<td>42.50</td>");
    has(out, "<td>42.50 (n = 3)</td>");
    has(out, "<span class=\"regressed\">+12.5% regressed</span>");
    has(out, "<td>+12.5%</td><td>[+4.25, +21.5]</td><td>0.012</td><td class=\"regressed\">"
             "regressed</td>");
    has(out, "not compared: quokka ran off");
    has(out, "<td>11.5</td><td>14.5</td>");
    has(out, "netab run --no-stripes");
    free(out);
    creport_free(r);
}

/* The sorted values: the model's sorted, deciding metric, one column per variant. */
static void test_values(void **state)
{
    (void)state;
    struct creport *r = model_fixture(0);
    char *out = model_fixture_render(r, print_values_text);
    assert_non_null(out);
    has(out, "Sorted values of gnu Mb/s, every measured run, ascending,\nin okapi=7:\n");
    has(out, "   #  zebra-base   quokka-v2\n"
             "   1        11.5        14.5\n"
             "   2        12.5        15.5\n"
             "   3        13.5        16.5\n");
    has(out, "   1        61.5            \n   2        62.5            \n");
    free(out);
    out = model_fixture_render(r, print_values_markdown);
    assert_non_null(out);
    has(out, "**Sorted values: Gnu gallop rate (Mbit/s), okapi=7**");
    has(out, "| 1 | 11.5 | 14.5 |\n| 2 | 12.5 | 15.5 |\n| 3 | 13.5 | 16.5 |\n");
    has(out, "| 2 | 62.5 |  |\n");
    lacks(out, "| 1 | 1 |");
    free(out);
    creport_free(r);
}

/*
 * The short text report (sections 0): the verdict tallies, the CPU line and
 * the failed runs are the model's (a headline of 21 comparisons that no
 * entry gives), never counted from the entries at print time.
 */
static void test_text_brief(void **state)
{
    (void)state;
    struct creport *r = model_fixture(0);
    r->exit_status = 2; /* the model's word: no verdict somewhere, though 3 regressed */
    char *out = model_fixture_render(r, creport_print_text);
    assert_non_null(out);
    has(out, "NO VERDICT: the fixture's own exit reason (exit status 2).");
    lacks(out, "(exit status 1)");
    has(out, "+12.5% !");
    has(out, "REGRESSION: 3 deciding-metric comparisons regressed");
    has(out, "headline (21): ");
    has(out, "others (17): ");
    has(out, "yak grooming decides, says the fixture");
    lacks(out, "1 regressed, 1 within noise, 2 not compared");
    free(out);
    creport_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),       cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_csv),        cmocka_unit_test(test_json),
        cmocka_unit_test(test_html),       cmocka_unit_test(test_values),
        cmocka_unit_test(test_text_brief),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    plot_shutdown(); /* fontconfig's caches (the HTML's figures), for LeakSanitizer */
    return failed;
}
