/*
 * The metric table (metric/metric.h) is the one description of a run's
 * figures: the store fills each column from the row's path, compare resolves
 * each name to the row's path, unit and direction, and the report reads each
 * of its metrics from the row's column or path with the row's direction and
 * scale. Each check builds a run document with a distinct value at every
 * row's path and follows it through the consumer.
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
#include <unistd.h>

#include "compare/metrics.h"
#include "experiment/experiment.h"
#include "input/json_path.h"
#include "metric/metric.h"
#include "metric/perf.h"
#include "metric/spec.h"
#include "report/metric.h"
#include "store/store.h"

/* Row i's value in the test document: distinct for every row, never a round number. */
static double value_of(size_t i)
{
    return 1000.25 + 17.5 * (double)i;
}

/* Sets doc's member at a dotted path, creating objects on the way. */
static void set_at(json_t *doc, const char *path, double v)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    json_t *o = doc;
    char *save = NULL, *k = strtok_r(buf, ".", &save);
    for (char *next; (next = strtok_r(NULL, ".", &save)); k = next) {
        if (!json_is_object(json_object_get(o, k)))
            json_object_set_new(o, k, json_object());
        o = json_object_get(o, k);
    }
    assert_int_equal(json_object_set_new(o, k, json_real(v)), 0);
}

/* A run document with value_of(i) at every row i's path. Caller frees. */
static char *document(void)
{
    size_t n;
    const struct metric *t = metric_all(&n);
    json_t *doc = json_object();
    for (size_t i = 0; i < n; i++)
        set_at(doc, t[i].path, value_of(i));
    char *s = json_dumps(doc, JSON_REAL_PRECISION(17));
    json_decref(doc);
    return s;
}

static void test_rows_well_formed(void **state)
{
    (void)state;
    size_t n;
    const struct metric *t = metric_all(&n);
    ASSERT_GE(n, 18);
    for (size_t i = 0; i < n; i++) {
        ASSERT_STARTS_WITH(t[i].path, "end.");
        assert_true(t[i].unit[0] && t[i].label[0] && t[i].title[0] && t[i].display[0]);
        ASSERT_GT(t[i].scale, 0);
        assert_true(t[i].kinds);
        assert_ptr_equal(metric_find(t[i].name), &t[i]);
        assert_ptr_equal(metric_find(t[i].path), &t[i]);
        assert_ptr_equal(metric_find(t[i].path + 4), &t[i]);
        if (t[i].column)
            assert_ptr_equal(metric_by_column(t[i].column), &t[i]);
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(t[i].name, t[j].name);
            assert_string_not_equal(t[i].path, t[j].path);
        }
    }
    assert_null(metric_find("nonsense"));
    assert_string_equal(metric_find("cpu.local.process_us_per_kib")->name, "local_process_demand");
    /* Each test kind has one local system-wide and one process CPU cost, and a pollution share. */
    const unsigned kinds[] = {METRIC_TCP_STREAM, METRIC_UDP_STREAM, METRIC_RR, METRIC_CRR};
    for (size_t k = 0; k < 4; k++) {
        const struct metric *sys = metric_with_flag(METRIC_COST_SYSTEM, kinds[k]);
        const struct metric *proc = metric_with_flag(METRIC_COST_PROCESS, kinds[k]);
        assert_non_null(sys);
        assert_non_null(proc);
        assert_string_equal(sys->unit, proc->unit);
        assert_true(sys->lower_is_better && proc->lower_is_better);
        assert_non_null(metric_with_flag(METRIC_POLLUTION, kinds[k]));
    }
    assert_int_equal(metric_kind_of("udp_rr"), METRIC_RR);
    assert_int_equal(metric_kind_of(NULL), METRIC_UNKNOWN);
}

/* The store's headline columns are exactly the table's, each filled from the row's path. */
static void test_store_agrees(void **state)
{
    (void)state;
    size_t n;
    const struct metric *t = metric_all(&n);
    size_t with_column = 0;
    for (size_t i = 0; i < n; i++)
        with_column += t[i].column != NULL;
    assert_int_equal(store_headline_count(), with_column);
    for (size_t i = 0; i < store_headline_count(); i++)
        assert_non_null(metric_by_column(store_headline_column(i)));

    char dir[] = "/tmp/netab-metric-XXXXXX", path[64], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.db", dir);
    struct store *s;
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &s, err, sizeof(err)), 0);
    int64_t id;
    assert_int_equal(store_run_begin(s, 0, 0, NULL, NULL, NULL, NULL, &id, err, sizeof(err)), 0);
    char *doc = document();
    assert_int_equal(store_run_finish(s, id, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err)), 0);
    struct store_run r;
    assert_int_equal(store_run_get(s, id, &r, err, sizeof(err)), 0);
    for (size_t i = 0; i < n; i++)
        if (t[i].column) {
            double got = store_run_figure(&r, t[i].column);
            if (got != value_of(i))
                fail_msg("column %s holds %.17g, row %s's path %s has %.17g", t[i].column, got,
                         t[i].name, t[i].path, value_of(i));
        }
    store_run_free(&r);
    free(doc);
    store_close(s);
    unlink(path);
    rmdir(dir);
}

/* compare's named metrics are the METRIC_COMPARE rows: same name, path, unit, direction. */
static void test_compare_agrees(void **state)
{
    (void)state;
    size_t n, nb, k = 0;
    const struct metric *t = metric_all(&n);
    const struct compare_metric *b = compare_builtin_metrics(&nb);
    for (size_t i = 0; i < n; i++) {
        const struct compare_metric *c = compare_metric_find(t[i].name);
        if (!(t[i].flags & METRIC_COMPARE)) {
            assert_null(c);
            continue;
        }
        assert_non_null(c);
        assert_ptr_equal(c, &b[k++]); /* in table order */
        assert_string_equal(c->path, t[i].path);
        assert_string_equal(c->unit, t[i].unit);
        assert_int_equal(c->lower_is_better, t[i].lower_is_better);
        assert_int_equal(c->always, (t[i].flags & METRIC_ALWAYS) != 0);
        assert_int_equal(c->flows, (t[i].flags & METRIC_WHERE_PRESENT) != 0);
        /*
         * A figure listed only where present is in end.flows or end.rrul only, never in a
         * run without flows or of another kind; an rrul figure applies to rrul runs alone.
         */
        bool rrul = !strncmp(t[i].path, "end.rrul.", 9);
        assert_int_equal(!strncmp(t[i].path, "end.flows.", 10) || rrul, c->flows);
        assert_int_equal(rrul, t[i].kinds == METRIC_RRUL);
        assert_ptr_equal(compare_metric_find(t[i].path + 4), c);
    }
    assert_int_equal(k, nb);
    /* compare reads each one at that path of a run's output. */
    char *doc = document(), err[256];
    for (size_t i = 0; i < n; i++) {
        double v;
        if (!(t[i].flags & METRIC_COMPARE))
            continue;
        assert_int_equal(compare_metric_from_json(doc, compare_metric_find(t[i].name)->path, &v,
                                                  err, sizeof(err)),
                         0);
        ASSERT_EQ(v, value_of(i));
    }
    free(doc);
}

/* The report's built-in metrics are the METRIC_REPORT rows, read from column or path, scaled. */
static void test_report_agrees(void **state)
{
    (void)state;
    size_t n, nm, k = 0;
    const struct metric *t = metric_all(&n);
    struct creport_metric *m;
    char err[256];
    assert_int_equal(creport_metrics_build(NULL, 0, &m, &nm, err, sizeof(err)), 0);
    /* A run whose columns hold value_of(i) (as the store filled them) and whose document too. */
    struct store_run run = {.result_json = document()};
    char dir[] = "/tmp/netab-metric-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.db", dir);
    struct store *s;
    int64_t id;
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &s, err, sizeof(err)), 0);
    assert_int_equal(store_run_begin(s, 0, 0, NULL, NULL, NULL, NULL, &id, err, sizeof(err)), 0);
    assert_int_equal(
        store_run_finish(s, id, STORE_RUN_OK, 0, NULL, run.result_json, err, sizeof(err)), 0);
    free(run.result_json);
    assert_int_equal(store_run_get(s, id, &run, err, sizeof(err)), 0);
    for (size_t i = 0; i < n; i++) {
        if (!(t[i].flags & METRIC_REPORT))
            continue;
        size_t j = creport_metric_index(m, nm, t[i].name);
        ASSERT_LT(j, nm);
        assert_int_equal(j, k++); /* in table order */
        assert_string_equal(m[j].path, t[i].path);
        if (t[i].column) { /* the same store column, or none on both sides */
            assert_non_null(m[j].column);
            assert_string_equal(m[j].column, t[i].column);
        } else {
            assert_null(m[j].column);
        }
        assert_string_equal(m[j].unit, t[i].display);
        assert_int_equal(m[j].lower_is_better, t[i].lower_is_better);
        assert_int_equal(m[j].tests, t[i].kinds);
        assert_int_equal(creport_metric_index(m, nm, t[i].path + 4), j);
        json_t *doc = run.result_json ? json_loads(run.result_json, 0, NULL) : NULL;
        double want = value_of(i) * t[i].scale, got = creport_metric_value(&m[j], &run, doc);
        json_decref(doc);
        if (!(fabs(got - want) <= 1e-12 * want))
            fail_msg("report's %s is %.17g, want %.17g", t[i].name, got, want);
    }
    assert_int_equal(k, nm);
    creport_metrics_free(m, nm);
    store_run_free(&run);
    store_close(s);
    unlink(path);
    rmdir(dir);
}

/* The report's value of built-in metric name in the run document text. */
static double report_value(const char *name, const char *text)
{
    struct creport_metric *m;
    size_t nm;
    char err[256];
    assert_int_equal(creport_metrics_build(NULL, 0, &m, &nm, err, sizeof(err)), 0);
    size_t j = creport_metric_index(m, nm, name);
    ASSERT_LT(j, nm);
    json_t *doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    struct store_run run = {0};
    double v = creport_metric_value(&m[j], &run, doc);
    json_decref(doc);
    creport_metrics_free(m, nm);
    return v;
}

/*
 * --perf's figures in hand-written documents as `netab run --perf` writes
 * them (docs/json.md): counted on the threads, counted on the pinned CPU
 * (end.perf.SIDE.system), and unavailable (no PMU) or not asked for.
 */
static void test_perf_figures(void **state)
{
    (void)state;
    /* 2 cycles and 3 instructions a byte, 6 icache misses per 3,000 instructions. */
    static const char threads[] =
        "{\"test\": {\"perf\": true}, \"end\": {\"perf\": {\"local\": {\"cycles\": 2e9,"
        " \"instructions\": 3e9, \"l1i_misses\": 6e6, \"unavailable\": {}, \"ipc\": 1.5,"
        " \"cycles_per_byte\": 2.0, \"instructions_per_kib\": 3072, \"system\": null}}}}";
    ASSERT_EQ(report_value("cycles_local", threads), 2048);
    ASSERT_EQ(report_value("ipc_local", threads), 1.5);
    ASSERT_LT(fabs(report_value("l1i_misses_local", threads) - 6.144), 1e-9);
    assert_true(isnan(report_value("l1i_misses_remote", threads)));
    /* Pinned: the ratios are the CPU's, and so are the misses. */
    static const char pinned[] =
        "{\"test\": {\"perf\": true}, \"end\": {\"perf\": {\"remote\": {\"cycles\": null,"
        " \"instructions\": null, \"l1i_misses\": null, \"unavailable\": {\"cycles\": \"x\"},"
        " \"ipc\": 0.5, \"cycles_per_byte\": 4.0, \"instructions_per_kib\": 2048,"
        " \"system\": {\"instructions\": 1e9, \"l1i_misses\": 1e6, \"unavailable\": {}}}}}}";
    ASSERT_EQ(report_value("cycles_remote", pinned), 4096);
    ASSERT_LT(fabs(report_value("l1i_misses_remote", pinned) - 2.048), 1e-9);
    const struct metric *cyc = metric_find("cycles_remote"), *l1i = metric_find("l1i_misses_local");
    json_t *pd = json_loads(pinned, 0, NULL);
    assert_null(metric_perf_unavailable(pd, cyc)); /* the CPU's cycles were there */
    json_decref(pd);
    /* No PMU: no figure, and the document's reason for it. */
    static const char vm[] =
        "{\"test\": {\"perf\": true}, \"end\": {\"perf\": {\"local\": {\"cycles\": null,"
        " \"instructions\": null, \"l1i_misses\": null, \"unavailable\": {\"cycles\":"
        " \"no PMU in this virtual machine\", \"l1i_misses\": \"no PMU in this virtual machine\"},"
        " \"ipc\": null, \"cycles_per_byte\": null, \"instructions_per_kib\": null,"
        " \"system\": null}}}}";
    for (size_t i = 0; i < 3; i++)
        assert_true(isnan(report_value(
            (const char *[]){"cycles_local", "ipc_local", "l1i_misses_local"}[i], vm)));
    json_t *doc = json_loads(vm, 0, NULL);
    assert_string_equal(metric_perf_unavailable(doc, l1i), "no PMU in this virtual machine");
    assert_null(metric_perf_unavailable(doc, cyc)); /* the remote end: no --perf figures */
    /* Without --perf every run says "collected only with --perf": that is no reason to tell. */
    json_object_set_new(json_object_get(doc, "test"), "perf", json_false());
    assert_null(metric_perf_unavailable(doc, l1i));
    json_decref(doc);
    /* Each is a report metric with a direction, listed only where a run has it. */
    const char *names[] = {"cycles_local", "cycles_remote",    "ipc_local",
                           "ipc_remote",   "l1i_misses_local", "l1i_misses_remote"};
    for (size_t i = 0; i < 6; i++) {
        const struct metric *t = metric_find(names[i]);
        assert_non_null(t);
        assert_true((t->flags & METRIC_REPORT) && (t->flags & METRIC_PERF));
        assert_int_equal(t->lower_is_better, strncmp(names[i], "ipc", 3) != 0);
    }
}

/* The spec reader reads what experiment_to_json() writes; unknown shapes read as absent. */
static void test_spec_round_trip(void **state)
{
    (void)state;
    static const char y[] = "name: s\n"
                            "order: blocked\n"
                            "matrix:\n"
                            "  streams: [1, 4]\n"
                            "  test: [tcp_stream, udp_stream, tcp_rr]\n"
                            "variants:\n"
                            "  - name: a\n"
                            "    layout: /tmp/a.map\n"
                            "  - name: b\n";
    struct exp_errors errs = {0};
    struct experiment *e;
    assert_int_equal(experiment_load_buffer(y, strlen(y), &e, &errs), 0);
    json_t *j = experiment_to_json(e);
    char *text = json_dumps(j, 0);
    json_t *spec = spec_parse(text);
    assert_non_null(spec);
    assert_int_equal(spec_variant_count(spec), 2);
    assert_string_equal(spec_variant_name(spec, 0), "a");
    assert_string_equal(spec_variant_name(spec, 1), "b");
    assert_string_equal(spec_variant_layout(spec, 0), "/tmp/a.map");
    assert_null(spec_variant_layout(spec, 1));
    assert_true(spec_order_blocked(spec));
    assert_int_equal(spec_axis_count(spec), 2);
    assert_string_equal(spec_axis_key(spec, 0), "streams");
    assert_int_equal(spec_axis_size(spec, 0), 2);
    assert_int_equal(json_integer_value(spec_axis_value(spec, 0, 1)), 4);
    assert_string_equal(spec_axis_key(spec, 1), "test");
    assert_int_equal(spec_axis_size(spec, 1), 3);
    assert_string_equal(json_string_value(spec_axis_value(spec, 1, 2)), "tcp_rr");
    assert_null(spec_axis_value(spec, 1, 3));
    json_decref(spec);
    free(text);
    json_decref(j);
    experiment_free(e);
    exp_errors_free(&errs);
    /* Not JSON, the wrong shapes, nothing: absent, never a crash. */
    assert_null(spec_parse("{"));
    assert_null(spec_parse(NULL));
    spec = spec_parse("{\"variants\": 3, \"matrix\": [{\"key\": 1}], \"order\": true}");
    assert_int_equal(spec_variant_count(spec), 0);
    assert_null(spec_variant_name(spec, 0));
    assert_false(spec_order_blocked(spec));
    assert_int_equal(spec_axis_count(spec), 1);
    assert_null(spec_axis_key(spec, 0));
    assert_int_equal(spec_axis_size(spec, 0), 0);
    json_decref(spec);
    assert_int_equal(spec_variant_count(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_well_formed), cmocka_unit_test(test_store_agrees),
        cmocka_unit_test(test_compare_agrees),   cmocka_unit_test(test_report_agrees),
        cmocka_unit_test(test_spec_round_trip),  cmocka_unit_test(test_perf_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
