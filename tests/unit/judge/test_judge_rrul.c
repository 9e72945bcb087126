/*
 * rrul runs judged like every other (issue 31): hand-written run documents
 * shaped as docs/json.md's end.rrul go through the metric table's lookup,
 * compare's and the report's readers and the judgement. The deciding figure
 * is rpm (higher is better), the round trips are lower is better, and a figure
 * a phase could not measure (JSON null: no probe answered) is not available,
 * never a 0 that would judge as the best latency there is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "netab_assert.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/metrics.h"
#include "engine/params.h"
#include "judge/judge.h"
#include "report/metric.h"
#include "report/report.h"
#include "stats/compare.h"
#include "store/store.h"

/* One PHASE object of the spec; p50 < 0 writes the round trips as null (no probe answered). */
static void phase(char *buf, size_t len, double p50, double p99, double loss)
{
    char rt[512];
    if (p50 < 0)
        snprintf(rt, sizeof(rt),
                 "\"p50_us\": null, \"p90_us\": null, \"p99_us\": null, \"p999_us\": null, "
                 "\"max_us\": null, \"min_us\": null, \"mean_us\": null");
    else
        snprintf(rt, sizeof(rt),
                 "\"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, \"p999_us\": %.1f, "
                 "\"max_us\": %.1f, \"min_us\": %.1f, \"mean_us\": %.1f",
                 p50, (p50 + p99) / 2, p99, p99 * 1.1, p99 * 1.2, p50 * 0.8, p50 * 1.05);
    snprintf(buf, len,
             "{\"probes_sent\": 800, \"probes_received\": %d, \"probes_lost\": %d, "
             "\"loss_percent\": %s, \"duplicates\": 0, \"reordered\": 0, %s, "
             "\"tcp_transactions_per_second\": 40.5, \"tcp_p50_us\": 190000, "
             "\"tcp_p99_us\": 230000, \"up_bits_per_second\": 4.8e7, "
             "\"down_bits_per_second\": 4.7e7, \"load_srtt_us\": 180000}",
             p50 < 0 ? 0 : 800 - (int)(loss * 8), p50 < 0 ? 800 : (int)(loss * 8),
             p50 < 0 ? "100.0" : (loss < 0 ? "null" : "2.0"), rt);
}

/*
 * A `netab run --test rrul --json` document: idle p50 idle_us, loaded p50/p99 as
 * given (loaded_p50 < 0: no loaded probe answered, so the loaded figures, the
 * increase and rpm are null). Caller frees.
 */
static char *rrul_doc(double idle_us, double loaded_p50, double loaded_p99, double rpm)
{
    char idle[1024], loaded[1024], rec[1024], inc[256], rpms[128];
    phase(idle, sizeof(idle), idle_us, idle_us * 2, 0);
    phase(loaded, sizeof(loaded), loaded_p50, loaded_p99, 2.0);
    phase(rec, sizeof(rec), idle_us, idle_us * 2, 0);
    if (loaded_p50 < 0) {
        snprintf(inc, sizeof(inc),
                 "{\"p50_us\": null, \"p50_ratio\": null, \"p99_us\": null, \"p99_ratio\": null}");
        snprintf(rpms, sizeof(rpms), "\"rpm\": null, \"rpm_ci_low\": null, \"rpm_ci_high\": null");
    } else {
        snprintf(inc, sizeof(inc),
                 "{\"p50_us\": %.1f, \"p50_ratio\": %.3f, \"p99_us\": %.1f, \"p99_ratio\": %.3f}",
                 loaded_p50 - idle_us, loaded_p50 / idle_us, loaded_p99 - idle_us * 2,
                 loaded_p99 / (idle_us * 2));
        snprintf(rpms, sizeof(rpms), "\"rpm\": %.2f, \"rpm_ci_low\": %.2f, \"rpm_ci_high\": %.2f",
                 rpm, rpm * 0.97, rpm * 1.03);
    }
    size_t len = 6000;
    char *doc = malloc(len);
    assert_non_null(doc);
    snprintf(doc, len,
             "{\"test\": {\"test\": \"rrul\", \"duration\": 8}, \"intervals\": [{\"rrul\": "
             "{\"phase\": \"idle\", \"p50_us\": %.1f, \"p99_us\": %.1f, \"probes_lost\": 0, "
             "\"up_bits_per_second\": 0, \"down_bits_per_second\": 0}}], "
             "\"end\": {\"cpu\": {\"local\": {\"total_pct\": 12.5}}, \"rrul\": {"
             "\"probe_rate\": 100, \"load_flows\": 4, \"load\": \"both\", "
             "\"phases\": {\"idle\": [0.0, 2.0], \"loaded\": [2.0, 10.0], "
             "\"recovery\": [10.0, 12.0]}, \"idle\": %s, \"loaded\": %s, \"recovery\": %s, "
             "\"increase\": %s, %s, \"one_way\": {\"available\": false, \"reason\": \"the "
             "ends' clocks are not known to agree\"}}}}",
             idle_us, idle_us * 2, idle, loaded, rec, inc, rpms);
    json_error_t je;
    json_t *check = json_loads(doc, 0, &je);
    if (!check)
        fail_msg("hand-written document is not JSON: %s at %d", je.text, je.position);
    json_decref(check);
    return doc;
}

/* The spec's table: name, path, unit, direction; every one an rrul figure only. */
static const struct {
    const char *name, *path, *unit;
    bool lower;
} spec[] = {
    {"rrul_loaded_p50", "end.rrul.loaded.p50_us", "us", true},
    {"rrul_loaded_p99", "end.rrul.loaded.p99_us", "us", true},
    {"rrul_idle_p50", "end.rrul.idle.p50_us", "us", true},
    {"rrul_increase_p50", "end.rrul.increase.p50_us", "us", true},
    {"rrul_increase_p99", "end.rrul.increase.p99_us", "us", true},
    {"rpm", "end.rrul.rpm", "1/min", false},
    {"rrul_probe_loss", "end.rrul.loaded.loss_percent", "%", true},
};
#define NSPEC (sizeof(spec) / sizeof(spec[0]))

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < NSPEC; i++) {
        const struct metric *m = metric_find(spec[i].name);
        if (!m)
            fail_msg("no metric %s", spec[i].name);
        assert_string_equal(m->path, spec[i].path);
        assert_string_equal(m->unit, spec[i].unit);
        assert_int_equal(m->lower_is_better, spec[i].lower);
        assert_int_equal(m->kinds, METRIC_RRUL);
        assert_true(m->flags & METRIC_COMPARE);
        assert_true(m->flags & METRIC_REPORT);
        assert_true(m->flags & METRIC_WHERE_PRESENT);
        assert_null(m->column); /* read from the stored document, as the flows figures are */
        assert_ptr_equal(metric_find(spec[i].path + 4), m);
        assert_ptr_equal(compare_metric_find(spec[i].name)->path, m->path);
    }
    assert_int_equal(metric_kind_of("rrul"), METRIC_RRUL);
    assert_int_equal(creport_test_kind("rrul"), CREPORT_RRUL);
    /* An rrul figure never applies to the other kinds, nor they (but CPU) to rrul. */
    assert_false(metric_find("rpm")->kinds & (METRIC_STREAMS | METRIC_RR | METRIC_CRR));
    assert_false(metric_find("throughput")->kinds & METRIC_RRUL);
    assert_true(metric_find("cpu_local")->kinds & METRIC_RRUL);
    /* The test kind's name, as `netab run --test` and the document's test.test spell it. */
    enum test_kind k;
    assert_int_equal(params_kind_from_name("rrul", &k), 0);
    assert_int_equal(k, TEST_RRUL);
    assert_string_equal(params_kind_name(TEST_RRUL), "rrul");
}

static void test_decider(void **state)
{
    (void)state;
    const struct metric *d = judge_decider_of_test("rrul");
    assert_ptr_equal(d, metric_find("rpm"));
    assert_ptr_equal(d, judge_decider(METRIC_RRUL));
    assert_false(d->lower_is_better);
    assert_string_equal(judge_direction(d->lower_is_better), "higher_is_better");
    assert_string_equal(judge_direction(metric_find("rrul_loaded_p50")->lower_is_better),
                        "lower_is_better");
    /* The decider of the document's own kind, as history finds it. */
    char *doc = rrul_doc(400, 9000, 14000, 6500);
    json_t *j = json_loads(doc, 0, NULL);
    const char *test = json_string_value(json_object_get(json_object_get(j, "test"), "test"));
    assert_ptr_equal(judge_decider_of_test(test), d);
    json_decref(j);
    free(doc);
}

/* compare reads each figure at its path; null is "has no", never 0. */
static void test_compare_reads(void **state)
{
    (void)state;
    char *doc = rrul_doc(400, 195000, 230000, 310.5), err[256];
    const double want[] = {195000, 230000, 400, 194600, 229200, 310.5, 2.0};
    for (size_t i = 0; i < NSPEC; i++) {
        double v = -1;
        assert_int_equal(compare_metric_from_json(doc, spec[i].path, &v, err, sizeof(err)), 0);
        ASSERT_EQ(v, want[i]);
    }
    free(doc);
    doc = rrul_doc(400, -1, -1, 0);
    for (size_t i = 0; i < NSPEC; i++) {
        double v = -1;
        int rc = compare_metric_from_json(doc, spec[i].path, &v, err, sizeof(err));
        if (!strcmp(spec[i].name, "rrul_idle_p50")) {
            assert_int_equal(rc, 0);
            ASSERT_EQ(v, 400.0);
        } else if (!strcmp(spec[i].name, "rrul_probe_loss")) {
            assert_int_equal(rc, 0); /* every loaded probe lost: 100 %, a figure */
            ASSERT_EQ(v, 100.0);
        } else {
            assert_int_equal(rc, -ENOENT);
            ASSERT_STARTS_WITH(err, "the output has no");
            ASSERT_EQ(v, -1.0); /* untouched: not available, not 0 */
        }
    }
    free(doc);
    /* A tcp_stream document has no rrul figure at all. */
    double v;
    assert_int_equal(
        compare_metric_from_json("{\"end\": {\"receiver\": {\"bits_per_second\": 1e9}}}",
                                 "end.rrul.rpm", &v, err, sizeof(err)),
        -ENOENT);
}

/* The report reads the figures scaled to its display units; null is NaN (no value). */
static void test_report_reads(void **state)
{
    (void)state;
    struct creport_metric *m;
    size_t nm;
    char err[256];
    assert_int_equal(creport_metrics_build(NULL, 0, &m, &nm, err, sizeof(err)), 0);
    struct store_run run = {0};
    char *text = rrul_doc(400, 195000, 230000, 310.5);
    json_t *doc = json_loads(text, 0, NULL);
    size_t p50 = creport_metric_index(m, nm, "rrul_loaded_p50");
    size_t rpm = creport_metric_index(m, nm, "rpm");
    ASSERT_LT(p50, nm);
    ASSERT_LT(rpm, nm);
    assert_string_equal(m[p50].unit, "ms");
    ASSERT_EQ(creport_metric_value(&m[p50], &run, doc), 195.0);
    ASSERT_EQ(creport_metric_value(&m[rpm], &run, doc), 310.5);
    assert_true(m[p50].tests & creport_test_kind("rrul"));
    assert_false(m[p50].tests & creport_test_kind("tcp_stream"));
    json_decref(doc);
    free(text);
    text = rrul_doc(400, -1, -1, 0);
    doc = json_loads(text, 0, NULL);
    assert_true(isnan(creport_metric_value(&m[p50], &run, doc)));
    assert_true(isnan(creport_metric_value(&m[rpm], &run, doc)));
    json_decref(doc);
    free(text);
    creport_metrics_free(m, nm);
}

/*
 * Judges the metric called name of deep's runs against shallow's (the
 * baseline), each read from its documents as compare reads them.
 */
static enum stats_verdict_kind judge(const char *name, char **shallow, char **deep, size_t n,
                                     struct stats_comparison *out)
{
    const struct compare_metric *cm = compare_metric_find(name);
    assert_non_null(cm);
    double a[8], b[8];
    char err[256];
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(compare_metric_from_json(shallow[i], cm->path, &a[i], err, sizeof(err)),
                         0);
        assert_int_equal(compare_metric_from_json(deep[i], cm->path, &b[i], err, sizeof(err)), 0);
    }
    struct stats_sample sa, sb;
    struct stats_opts o;
    stats_opts_default(&o);
    o.lower_is_better = cm->lower_is_better;
    assert_int_equal(stats_sample_init(&sa, a, n), 0);
    assert_int_equal(stats_sample_init(&sb, b, n), 0);
    assert_int_equal(stats_compare(&sa, &sb, &o, out), 0);
    stats_sample_free(&sa);
    stats_sample_free(&sb);
    return out->verdict.kind;
}

/*
 * The case: a deep buffer (~195 ms loaded) against a shallow one
 * (~9 ms) regresses every loaded latency figure and rpm, each with an
 * interval on the difference; the idle round trip, the same path idle, does
 * not change beyond the noise floor.
 */
static void test_judged(void **state)
{
    (void)state;
    enum { N = 5 };
    char *shallow[N], *deep[N];
    for (size_t i = 0; i < N; i++) {
        double j = (double)i - 2;
        double s50 = 8700 + 150 * j, d50 = 195000 + 2500 * j;
        shallow[i] = rrul_doc(400 + j, s50, s50 * 1.6, 60000 / (s50 / 1000));
        deep[i] = rrul_doc(400 - j, d50, d50 * 1.2, 60000 / (d50 / 1000));
    }
    struct stats_comparison c;
    const char *worse[] = {"rrul_loaded_p50", "rrul_loaded_p99", "rrul_increase_p50",
                           "rrul_increase_p99", "rpm"};
    for (size_t i = 0; i < sizeof(worse) / sizeof(worse[0]); i++) {
        enum stats_verdict_kind v = judge(worse[i], shallow, deep, N, &c);
        if (v != STATS_REGRESSED)
            fail_msg("%s: verdict %d, want regressed", worse[i], (int)v);
        assert_true(isfinite(c.diff_ci_low) && isfinite(c.diff_ci_high));
        ASSERT_LT(c.diff_ci_low, c.diff_ci_high);
    }
    /* rpm is worse by falling: its interval lies below zero, the round trips' above. */
    judge("rpm", shallow, deep, N, &c);
    ASSERT_LT(c.diff_ci_high, 0.0);
    judge("rrul_loaded_p50", shallow, deep, N, &c);
    ASSERT_GT(c.diff_ci_low, 100000.0);
    /* And the other way round, shallow against deep, improved. */
    assert_int_equal(judge("rpm", deep, shallow, N, &c), STATS_IMPROVED);
    assert_int_equal(judge("rrul_loaded_p50", deep, shallow, N, &c), STATS_IMPROVED);
    assert_int_not_equal(judge("rrul_idle_p50", shallow, deep, N, &c), STATS_REGRESSED);
    for (size_t i = 0; i < N; i++) {
        free(shallow[i]);
        free(deep[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),         cmocka_unit_test(test_decider),
        cmocka_unit_test(test_compare_reads), cmocka_unit_test(test_report_reads),
        cmocka_unit_test(test_judged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
