/*
 * The statistics report of netab stats / compare / report: its numbers equal
 * the statistics module called directly, sets with too few values are
 * described or skipped as documented, and the text, JSON and CSV forms hold
 * what the report holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "statsreport/stats_report_plot.h"
#include "statsreport/stats_report.h"
#include "stats/compare.h"
#include "stats/verdict.h"

static const double base[] = {100, 101, 99, 100.5, 99.5, 100.2, 100.1, 99.8};
static const double slower[] = {90, 91, 89, 90.5, 89.5, 90.2, 90.1, 89.8};
static const double same[] = {100.1, 100.9, 99.2, 100.4, 99.6, 100.3, 100, 99.9};
#define N(a) (sizeof(a) / sizeof(a[0]))

/* A report of base, slower and same (named so that CSV must quote it), analysed. */
static void build(struct stats_report *r)
{
    struct stats_opts o;
    stats_opts_default(&o);
    o.seed = 7;
    char err[NB_ERRLEN] = "";
    assert_int_equal(stats_report_init(r, 3, &o), 0);
    assert_int_equal(stats_report_set_values(r, 0, "base", "plain", NULL, base, N(base)), 0);
    assert_int_equal(stats_report_set_values(r, 1, "slower", "plain", NULL, slower, N(slower)), 0);
    assert_int_equal(
        stats_report_set_values(r, 2, "same, \"again\"", "netab", "end.x", same, N(same)), 0);
    if (stats_report_analyse(r, err, sizeof(err)))
        fail_msg("analyse: %s", err);
}

static void test_numbers_equal_the_stats_module(void **state)
{
    (void)state;
    struct stats_report r;
    build(&r);
    assert_int_equal(r.sets[0].symbol, 'x');
    assert_int_equal(r.sets[1].symbol, '+');
    for (size_t i = 1; i < 3; i++) {
        const double *v = i == 1 ? slower : same;
        struct stats_sample a, b;
        struct stats_comparison want;
        /* The report computes in one frame for all sets (baseline's first value, 2^k). */
        const double *sets[] = {base, slower, same};
        const size_t ns[] = {N(base), N(base), N(base)};
        struct stats_frame fr;
        char err[NB_ERRLEN];
        assert_int_equal(stats_frame_choose(sets, ns, 3, &fr, err, sizeof(err)), 0);
        ASSERT_EQ(fr.offset, base[0]);
        assert_int_equal(stats_sample_init_frame(&a, base, N(base), &fr), 0);
        assert_int_equal(stats_sample_init_frame(&b, v, N(base), &fr), 0);
        assert_int_equal(stats_compare(&a, &b, &r.opts, &want), 0);
        const struct stats_report_cmp *m = &r.cmps[i - 1];
        assert_true(m->compared);
        assert_int_equal(m->other, i);
        ASSERT_EQ(m->c.diff, want.diff);
        ASSERT_EQ(m->c.welch.p, want.welch.p);
        ASSERT_EQ(m->c.ratio_ci_low, want.ratio_ci_low);
        assert_int_equal(m->c.verdict.kind, want.verdict.kind);
        stats_sample_free(&a);
        stats_sample_free(&b);
    }
    assert_int_equal(r.cmps[0].c.verdict.kind, STATS_REGRESSED);
    assert_int_equal(r.cmps[1].c.verdict.kind, STATS_WITHIN_NOISE);
    assert_true(stats_report_regressed(&r));
    assert_true(r.sets[1].described);
    ASSERT_LT(fabs(r.sets[1].sum.median - 90.05), 1e-12);
    stats_report_free(&r);
    assert_null(r.sets);
}

/* The campaign report's case: one value is described but not compared, none is neither. */
static void test_sets_with_too_few_values(void **state)
{
    (void)state;
    struct stats_report r;
    struct stats_opts o;
    stats_opts_default(&o);
    double one = 42;
    assert_int_equal(stats_report_init(&r, 3, &o), 0);
    assert_int_equal(stats_report_set_values(&r, 0, "base", "store", "m", base, N(base)), 0);
    assert_int_equal(stats_report_set_values(&r, 1, "one", "store", "m", &one, 1), 0);
    assert_int_equal(stats_report_set_values(&r, 2, "none", "store", "m", NULL, 0), 0);
    assert_int_equal(stats_report_analyse(&r, NULL, 0), 0);
    assert_true(r.sets[1].described);
    ASSERT_EQ(r.sets[1].sum.median, 42);
    assert_false(r.sets[2].described);
    assert_false(r.cmps[0].compared);
    assert_false(r.cmps[1].compared);
    assert_false(stats_report_regressed(&r));
    stats_report_free(&r);
}

/* Runs a printer into memory; returns the text (caller frees). */
static char *render(const struct stats_report *r, int csv)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(csv ? stats_report_print_csv(r, f) : stats_report_print_text(r, f), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void test_text(void **state)
{
    (void)state;
    struct stats_report r;
    build(&r);
    char *t = render(&r, 0);
    ASSERT_STARTS_WITH(t, "+-----");
    assert_non_null(strstr(t, "+ slower vs x base (baseline); higher is better; 95% intervals"));
    assert_non_null(strstr(t, "verdict: regressed"));
    assert_non_null(strstr(t, "verdict: within noise"));
    /* Every plot line is the 72-column plot between two borders. */
    for (char *p = t, *nl; *p == '+' || *p == '|'; p = nl + 1) {
        nl = strchr(p, '\n');
        assert_int_equal(nl - p, 74);
    }
    free(t);
    r.plot = false;
    t = render(&r, 0);
    ASSERT_STARTS_WITH(t, "    ");
    assert_null(strstr(t, "+-----"));
    free(t);
    stats_report_free(&r);
}

static void test_json(void **state)
{
    (void)state;
    struct stats_report r;
    build(&r);
    json_t *doc = stats_report_json(&r);
    assert_non_null(doc);
    json_t *sets = json_object_get(doc, "sets"), *cmps = json_object_get(doc, "comparisons");
    assert_int_equal(json_array_size(sets), 3);
    assert_int_equal(json_array_size(cmps), 2);
    json_t *s2 = json_array_get(sets, 2);
    assert_string_equal(json_string_value(json_object_get(s2, "name")), "same, \"again\"");
    assert_string_equal(json_string_value(json_object_get(s2, "format")), "netab");
    assert_string_equal(json_string_value(json_object_get(s2, "metric")), "end.x");
    json_t *c0 = json_array_get(cmps, 0);
    assert_string_equal(json_string_value(json_object_get(c0, "other")), "slower");
    assert_string_equal(json_string_value(json_object_get(c0, "verdict")), "regressed");
    ASSERT_EQ(json_real_value(json_object_get(c0, "diff")), r.cmps[0].c.diff);
    json_decref(doc);
    stats_report_free(&r);
}

/* Fields of one CSV record (RFC 4180, no line breaks inside fields). */
static size_t fields(const char *line, size_t len)
{
    size_t n = 1;
    int quoted = 0;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == ',' && !quoted)
            n++;
    }
    return n;
}

static void test_csv(void **state)
{
    (void)state;
    struct stats_report r;
    build(&r);
    /* A set's failed runs close its row: their number and their words. */
    r.sets[1].fails = (struct input_failures){.n = 3, .nwords = 2};
    snprintf(r.sets[1].fails.words[0].word, sizeof(r.sets[1].fails.words[0].word), "-EINTR");
    r.sets[1].fails.words[0].count = 2;
    snprintf(r.sets[1].fails.words[1].word, sizeof(r.sets[1].fails.words[1].word), "timeout");
    r.sets[1].fails.words[1].count = 1;
    char *t = render(&r, 1);
    size_t want[] = {17, 17, 17, 17, 0, 13, 13, 13};
    size_t line = 0;
    for (char *p = t, *nl; *p; p = nl + 1, line++) {
        nl = strchr(p, '\n');
        assert_non_null(nl);
        ASSERT_LT(line, N(want));
        assert_int_equal(nl == p ? 0 : fields(p, (size_t)(nl - p)), want[line]);
    }
    assert_int_equal(line, N(want));
    assert_non_null(strstr(t, "\nbase,8,100.0125,"));
    assert_non_null(strstr(t, ",outliers,failed,failures\n"));
    /* A field starting with '-' that is not a number is guarded for spreadsheets (util/csv). */
    assert_non_null(strstr(t, ",3,'-EINTR x2;timeout x1\n"));
    assert_non_null(strstr(t, "\n\"same, \"\"again\"\"\",8,"));
    assert_non_null(strstr(t, "\nbase,slower,-10,"));
    assert_non_null(strstr(t, ",regressed,"));
    free(t);
    t = render(&r, 0);
    assert_non_null(
        strstr(t, "    failed 3 of 11 runs, not in the figures: -EINTR x2, timeout x1\n"));
    free(t);
    stats_report_free(&r);
}

/* The axis label of sets read from files: the first set's format and metric. */
static void test_input_axis(void **state)
{
    (void)state;
    struct stats_report r;
    build(&r);
    char b[200];
    stats_report_input_axis(&r, b, sizeof(b));
    assert_string_equal(b, "value (plain input)");
    r.sets[0].format = "iperf3";
    snprintf(r.sets[0].metric, sizeof(r.sets[0].metric), "end.receiver.bits_per_second");
    stats_report_input_axis(&r, b, sizeof(b));
    assert_string_equal(b, "bit/s (iperf3 input: end.receiver.bits_per_second)");
    stats_report_free(&r);
}

/* Every set up to STATS_REPORT_MARKS (compare's most variants) has its own text mark. */
static void test_marks_distinct(void **state)
{
    (void)state;
    struct stats_opts o;
    stats_opts_default(&o);
    struct stats_report r;
    ASSERT_EQ(stats_report_init(&r, STATS_REPORT_MARKS, &o), 0);
    for (size_t i = 0; i < STATS_REPORT_MARKS; i++) {
        assert_null(strchr(" |_AM", r.sets[i].symbol));
        for (size_t j = 0; j < i; j++)
            ASSERT_NE(r.sets[i].symbol, r.sets[j].symbol);
    }
    ASSERT_LE(STATS_REPORT_MAX_SETS, STATS_REPORT_MARKS);
    stats_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_equal_the_stats_module),
        cmocka_unit_test(test_input_axis),
        cmocka_unit_test(test_sets_with_too_few_values),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_marks_distinct),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
