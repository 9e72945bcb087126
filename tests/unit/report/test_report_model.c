/*
 * netab report: the numbers of a report built from a store equal a
 * recomputation from the raw values (medians here, comparisons by calling
 * the statistics module directly); warm-ups and failed runs are excluded;
 * the text fits 72 columns; Markdown and CSV are well formed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../store/helpers.h"
#include "plot/plot.h"
#include "report/report.h"
#include "report/effects.h"
#include "report/plot.h"
#include "stats/compare.h"

#define NV 2
#define NC 3
#define ROUNDS 6 /* measured rounds; round 0 is a warm-up */
#define NM 17

static const char *const variants[NV] = {"base", "patched"};
static const char *const cells[NC] = {"streams=1,block=64K", "udp", "rr"};
static const char *const templates[NC] = {"tcp_stream.json", "udp_stream.json", "tcp_rr.json"};
static const uint64_t seed = 4242;

/* Values per (variant, cell, metric name), in run order, in display units. */
struct series {
    const char *metric;
    double v[ROUNDS];
    size_t n;
};
static struct series recorded[NV][NC][NM];

static struct series *series_for(int v, int c, const char *metric)
{
    for (int m = 0; m < NM; m++) {
        struct series *s = &recorded[v][c][m];
        if (!s->metric)
            s->metric = metric;
        if (!strcmp(s->metric, metric))
            return s;
    }
    fail_msg("too many metrics");
    return NULL;
}

static void set_path(json_t *doc, const char *a, const char *b, const char *c, double x)
{
    json_t *o = json_object_get(doc, a);
    if (c) {
        if (!json_object_get(o, b))
            json_object_set_new(o, b, json_object());
        o = json_object_get(o, b);
        b = c;
    }
    assert_non_null(o);
    assert_int_equal(json_object_set_new(o, b, json_real(x)), 0);
}

/* A result document for variant v, cell c, run k; warm-up and failed runs get absurd values. */
static char *make_doc(int v, int c, int k, bool record)
{
    char *t = fixture(templates[c]);
    assert_non_null(t);
    json_t *doc = json_loads(t, 0, NULL);
    free(t);
    assert_non_null(doc);
    json_t *end = json_object_get(doc, "end");
    double wobble = ((k * 7) % 5 - 2) * 0.004; /* deterministic spread of +-0.8 % */
    double big = record ? 1 : 1000;
    struct setting {
        const char *metric, *a, *b, *c;
        double value, scale;
    } set[NM];
    int n = 0;
    double cpu_l = (v ? 50 : 40) * (1 + wobble) * big, cpu_r = (v ? 30 : 31) * (1 - wobble) * big;
#define ADD(M, A, B, C, V, S) set[n++] = (struct setting){M, A, B, C, V, S}
    ADD("cpu_local", "cpu", "local", "total_pct", cpu_l, 1);
    ADD("cpu_remote", "cpu", "remote", "total_pct", cpu_r, 1);
    if (c == 0 || c == 1) {
        double recv = (c ? 900 : 20000) * (v ? 1.10 : 1) * (1 + wobble) * big;
        ADD("throughput", "receiver", "bits_per_second", NULL, recv * 1e6, 1e-6);
        ADD("sender_throughput", "sender", "bits_per_second", NULL, recv * 1.001e6, 1e-6);
    }
    /* UDP cells show their CPU cost like TCP cells (issue 10). */
    if (c == 0 || c == 1) {
        ADD("local_demand", "service_demand", "local_us_per_kib", NULL, 0.2 * (1 + wobble) * big,
            1);
        ADD("remote_demand", "service_demand", "remote_us_per_kib", NULL, 0.3 + 0.001 * k, 1);
        ADD("local_process_demand", "cpu", "local", "process_us_per_kib",
            (v ? 0.15 : 0.1) * (1 + wobble) * big, 1);
        ADD("remote_process_demand", "cpu", "remote", "process_us_per_kib", 0.12 + 0.001 * k, 1);
    }
    if (c == 1)
        ADD("loss", "receiver", "lost_percent", NULL, (v ? 0.5 : 0.4) + 0.01 * k, 1);
    if (c == 2) {
        ADD("transactions", "transactions_per_second", NULL, NULL,
            (v ? 27000 : 30000) * (1 + wobble) * big, 1);
        ADD("latency_p50", "latency_us", "p50", NULL, (v ? 36 : 33) + 0.1 * k, 1);
        ADD("latency_p99", "latency_us", "p99", NULL, 80 + wobble * 100, 1);
        ADD("local_demand_tran", "service_demand", "local_us_per_tran", NULL,
            (v ? 55 : 50) * (1 + wobble) * big, 1);
        ADD("remote_demand_tran", "service_demand", "remote_us_per_tran", NULL, 54 + 0.1 * k, 1);
        ADD("local_process_demand_tran", "cpu", "local", "process_us_per_tran",
            (v ? 20 : 18) * (1 + wobble) * big, 1);
        ADD("remote_process_demand_tran", "cpu", "remote", "process_us_per_tran", 19 + 0.1 * k, 1);
    }
#undef ADD
    /*
     * Other processes' share of busy CPU: the stream cell's runs are polluted (30 or 50 %, one
     * variant's median above the 25 % threshold), the UDP cell's are not; rr has none.
     */
    if (c < 2)
        set_path(end, "cpu", "local", "others_pct", c ? 5 + k : (v ? 50 : 30) + k);
    for (int i = 0; i < n; i++) {
        if (set[i].b)
            set_path(end, set[i].a, set[i].b, set[i].c, set[i].value);
        else
            assert_int_equal(json_object_set_new(end, set[i].a, json_real(set[i].value)), 0);
        if (record) {
            struct series *s = series_for(v, c, set[i].metric);
            s->v[s->n++] = set[i].value * set[i].scale;
        }
    }
    char *text = json_dumps(doc, JSON_REAL_PRECISION(17));
    json_decref(doc);
    return text;
}

static const char env_base[] = "{\"kernel\": \"6.1.0\", \"cpufreq\": {\"governor\": \"powersave\"},"
                               " \"sysctl\": {\"net.core.rmem_max\": 212992},"
                               " \"load\": {\"avg1\": 0.1}}";
static const char env_patched[] = "{\"kernel\": \"6.1.0-patched\", \"cpufreq\": {\"governor\": "
                                  "\"powersave\"}, \"sysctl\": {\"net.core.rmem_max\": 4194304},"
                                  " \"load\": {\"avg1\": 0.3}}";

static char dir[256], dbpath[300];
static int64_t exp_id;
static long n_failed, n_interrupted;

static void run_one(struct store *db, int seq, int v, int c, enum store_run_status st, char *doc)
{
    char err[NB_ERRLEN];
    int64_t id;
    assert_int_equal(store_run_begin(db, exp_id, seq, variants[v], cells[c], NULL,
                                     v ? env_patched : env_base, &id, err, sizeof(err)),
                     0);
    assert_int_equal(
        store_run_finish(db, id, st, st == STORE_RUN_OK ? 0 : 1, NULL, doc, err, sizeof(err)), 0);
    free(doc);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/netab-report-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(dbpath, sizeof(dbpath), "%s/r.db", dir);
    memset(recorded, 0, sizeof(recorded));
    struct store *db;
    char err[NB_ERRLEN];
    assert_int_equal(store_open(dbpath, STORE_OPEN_CREATE, &db, err, sizeof(err)), 0);

    /* The plan lists "patched" first; the spec's order (base first) must win. */
    struct store_plan_entry plan[(ROUNDS + 1) * NV * NC];
    int n = 0;
    for (int round = 0; round <= ROUNDS; round++)
        for (int c = 0; c < NC; c++)
            for (int k = 0; k < NV; k++) {
                int v = (round + k + 1) % NV;
                plan[n] = (struct store_plan_entry){n, variants[v], cells[c], round == 0, round};
                n++;
            }
    const char spec[] = "{\"name\": \"t\", \"variants\": [{\"name\": \"base\"}, {\"name\": "
                        "\"patched\"}]}";
    assert_int_equal(store_experiment_create(db, "report-test", NULL, spec, seed, plan, (size_t)n,
                                             &exp_id, err, sizeof(err)),
                     0);
    for (int i = 0; i < n; i++) {
        int v = !strcmp(plan[i].variant, "patched");
        int c = 0;
        while (strcmp(cells[c], plan[i].cell))
            c++;
        /* Every fifth seq first fails, every seventh is first interrupted. */
        if (i % 5 == 1) {
            run_one(db, i, v, c, STORE_RUN_FAILED, make_doc(v, c, plan[i].round, false));
            n_failed++;
        }
        if (i % 7 == 3) {
            run_one(db, i, v, c, STORE_RUN_INTERRUPTED, NULL);
            n_interrupted++;
        }
        run_one(db, i, v, c, STORE_RUN_OK, make_doc(v, c, plan[i].round, !plan[i].warmup));
    }
    store_close(db);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rm_tree(dir);
    return 0;
}

static struct creport *load(const struct creport_opts *o)
{
    struct store *db;
    char err[NB_ERRLEN];
    struct creport *r = NULL;
    assert_int_equal(store_open(dbpath, STORE_OPEN_READONLY, &db, err, sizeof(err)), 0);
    int e = creport_load(db, exp_id, o, &r, err, sizeof(err));
    if (e)
        fail_msg("creport_load: %s", err);
    store_close(db);
    return r;
}

static double median_of(const double *x, size_t n)
{
    double *s = malloc(n * sizeof(*s));
    memcpy(s, x, n * sizeof(*s));
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

static void assert_close(double a, double b)
{
    if (!(fabs(a - b) <= 1e-9 * fmax(1, fabs(b))))
        fail_msg("%.17g != %.17g", a, b);
}

static void check_cpu_cost(json_t *j);

/* Every number in the JSON report equals a recomputation from the raw values. */
static void test_numbers_match_recomputation(void **state)
{
    (void)state;
    struct creport_opts o;
    creport_opts_default(&o);
    o.noise = 0.02;
    struct creport *r = load(&o);
    json_t *j = creport_to_json(r);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_array_get(json_object_get(j, "variants"), 0)),
                        "base");
    assert_string_equal(json_string_value(json_object_get(j, "baseline")), "base");
    json_t *jc = json_object_get(j, "cells");
    assert_int_equal(json_array_size(jc), NC);
    for (int c = 0; c < NC; c++)
        assert_string_equal(
            json_string_value(json_object_get(json_array_get(jc, (size_t)c), "name")), cells[c]);
    json_t *runs = json_object_get(j, "runs");
    assert_int_equal(json_integer_value(json_object_get(runs, "measured")), ROUNDS * NV * NC);
    assert_int_equal(json_integer_value(json_object_get(runs, "warmup")), NV * NC);
    assert_int_equal(json_integer_value(json_object_get(runs, "failed")), n_failed);
    assert_int_equal(json_integer_value(json_object_get(runs, "interrupted")), n_interrupted);

    size_t checked = 0, compared = 0, i;
    json_t *e;
    json_array_foreach(json_object_get(j, "results"), i, e)
    {
        const char *vn = json_string_value(json_object_get(e, "variant"));
        const char *cn = json_string_value(json_object_get(e, "cell"));
        const char *mn = json_string_value(json_object_get(e, "metric"));
        int v = !strcmp(vn, "patched"), c = 0;
        while (strcmp(cells[c], cn))
            c++;
        struct series *s = series_for(v, c, mn);
        if (s->n == 0)
            fail_msg("metric %s shown for cell %s without values", mn, cn);
        /* Warm-ups and failed runs carry values 1000x larger: n and median exclude them. */
        assert_int_equal(json_integer_value(json_object_get(e, "n")), ROUNDS);
        assert_close(json_number_value(json_object_get(e, "median")), median_of(s->v, s->n));
        double mean = 0;
        for (size_t k = 0; k < s->n; k++)
            mean += s->v[k] / (double)s->n;
        assert_close(json_number_value(json_object_get(e, "mean")), mean);
        checked++;
        json_t *cmp = json_object_get(e, "comparison");
        if (!v) {
            assert_true(json_is_null(cmp));
            continue;
        }
        assert_true(json_is_object(cmp));
        struct series *b = series_for(0, c, mn);
        struct stats_sample sa, sb;
        struct stats_opts so;
        struct stats_comparison want;
        stats_opts_default(&so);
        so.confidence = 0.95;
        so.noise = 0.02;
        so.seed = seed;
        so.lower_is_better = metric_find(mn)->lower_is_better;
        assert_int_equal(stats_sample_init(&sa, b->v, b->n), 0);
        assert_int_equal(stats_sample_init(&sb, s->v, s->n), 0);
        assert_int_equal(stats_compare(&sa, &sb, &so, &want), 0);
        assert_close(json_number_value(json_object_get(cmp, "rel_change_pct")),
                     want.verdict.rel * 100);
        assert_close(json_number_value(json_object_get(cmp, "rel_change_ci_low_pct")),
                     want.verdict.rel_low * 100);
        assert_close(json_number_value(json_object_get(cmp, "rel_change_ci_high_pct")),
                     want.verdict.rel_high * 100);
        assert_close(json_number_value(json_object_get(cmp, "welch_p")), want.welch.p);
        assert_close(json_number_value(json_object_get(cmp, "diff_pct")), want.diff_pct);
        assert_string_equal(json_string_value(json_object_get(cmp, "verdict")),
                            stats_verdict_name(want.verdict.kind));
        stats_sample_free(&sa);
        stats_sample_free(&sb);
        compared++;
    }
    /*
     * tcp: 8 metrics, udp: 9 (CPU cost, system-wide and process), rr: 9 (CPU on every test,
     * cost per transaction).
     */
    assert_int_equal(checked, NV * (8 + 9 + 9));
    assert_int_equal(compared, checked / 2);

    /* Known outcomes: tcp throughput +10 % improved, rr transactions -10 % regressed (exit 1). */
    assert_int_equal(creport_exit_status(r), 1);
    assert_int_equal(json_integer_value(json_object_get(j, "exit_status")), 1);
    ASSERT_GE(r->n_improved, 2);
    assert_int_equal(r->n_regressed_deciding, 1);

    /* Environment: the baseline's governor warning once; kernel and rmem_max differ, load ignored.
     */
    json_t *w = json_object_get(j, "env_warnings");
    assert_int_equal(json_array_size(w), 1);
    json_t *d =
        json_object_get(json_array_get(json_object_get(j, "env_differences"), 0), "differences");
    assert_int_equal(json_array_size(d), 2);
    check_cpu_cost(j);
    json_decref(j);
    creport_free(r);
}

/*
 * The CPU cost decision: the process figure where some variant's median others_pct reaches
 * 25 % (the stream cell: 30 + k and 50 + k for k = 1..6, medians 33.5 and 53.5), the
 * system-wide one elsewhere (UDP: 8.5; rr: none, per transaction); each verdict is the one
 * of that figure's own comparison.
 */
static void check_cpu_cost(json_t *j)
{
    static const char *const want[NC] = {"local_process_demand", "local_demand",
                                         "local_demand_tran"};
    json_t *cost = json_object_get(j, "cpu_cost");
    assert_int_equal(json_array_size(cost), NC);
    for (size_t c = 0; c < NC; c++) {
        json_t *k = json_array_get(cost, c);
        assert_string_equal(json_string_value(json_object_get(k, "cell")), cells[c]);
        assert_string_equal(json_string_value(json_object_get(k, "metric")), want[c]);
        assert_int_equal(json_is_true(json_object_get(k, "polluted")), c == 0);
        double others = json_number_value(json_object_get(k, "others_pct"));
        if (c == 0)
            assert_close(others, 53.5);
        else if (c == 1)
            assert_close(others, 8.5);
        else
            assert_true(json_is_null(json_object_get(k, "others_pct")));
        size_t i, found = 0;
        json_t *e;
        json_array_foreach(json_object_get(j, "results"), i, e)
        {
            if (strcmp(json_string_value(json_object_get(e, "cell")), cells[c]) ||
                strcmp(json_string_value(json_object_get(e, "metric")), want[c]) ||
                strcmp(json_string_value(json_object_get(e, "variant")), "patched"))
                continue;
            json_t *vd = json_array_get(json_object_get(k, "verdicts"), 0);
            assert_string_equal(json_string_value(json_object_get(vd, "variant")), "patched");
            assert_string_equal(
                json_string_value(json_object_get(vd, "verdict")),
                json_string_value(json_object_get(json_object_get(e, "comparison"), "verdict")));
            found++;
        }
        assert_int_equal(found, 1);
    }
}

/* Not inlined: GCC 12 then takes the memstream buffer for a dangling local. */
__attribute__((noinline)) static char *render(const struct creport *r, int which)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    /* These tests check the whole report (--full); the short default has its own. */
    struct creport full = *r;
    full.opts.sections = CREPORT_SEC_ALL;
    int e = which == 0   ? creport_print_text(&full, f)
            : which == 1 ? creport_print_markdown(r, f)
            : which == 2 ? creport_print_csv(r, f)
                         : creport_print_html(r, NULL, f);
    assert_int_equal(e, 0);
    fclose(f);
    return buf;
}

static void test_text_fits_72_columns(void **state)
{
    (void)state;
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r = load(&o);
    char *t = render(r, 0);
    size_t lines = 0;
    for (char *p = t, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        assert_non_null(nl);
        if (nl - p > CREPORT_TEXT_WIDTH)
            fail_msg("line longer than %d columns: '%.*s'", CREPORT_TEXT_WIDTH, (int)(nl - p), p);
        lines++;
    }
    ASSERT_GT(lines, 20);
    assert_non_null(strstr(t, "improved"));
    assert_non_null(strstr(t, "regressed"));
    assert_non_null(strstr(t, "net.core.rmem_max"));
    if (getenv("REPORT_TEST_PRINT"))
        fputs(t, stdout);
    free(t);
    creport_free(r);
}

/* Splits one CSV record (RFC 4180, no embedded line breaks); returns the field count. */
static size_t csv_fields(const char *line, size_t len)
{
    size_t n = 1;
    bool quoted = false;
    for (size_t i = 0; i < len; i++) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == ',' && !quoted)
            n++;
    }
    assert_false(quoted);
    return n;
}

static void test_csv_and_markdown_parse(void **state)
{
    (void)state;
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r = load(&o);
    char *csv = render(r, 2);
    size_t want = 0, rows = 0;
    for (char *p = csv, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        size_t n = csv_fields(p, (size_t)(nl - p));
        if (!want)
            want = n;
        assert_int_equal(n, want);
        rows++;
    }
    /*
     * mean is the 9th column; the 16th holds each entry's values sorted,
     * ';'-separated; the 17th and 18th the change and its unit; the 19th
     * the failed runs.
     */
    assert_int_equal(want, 19);
    assert_int_equal(rows, 1 + NV * (8 + 9 + 9));
    /* The cell name with a comma is quoted. */
    assert_non_null(strstr(csv, "\"streams=1,block=64K\""));
    free(csv);

    char *md = render(r, 1);
    size_t tables = 0, cols = 0;
    bool in_table = false;
    for (char *p = md, *nl; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        size_t len = (size_t)(nl - p);
        if (len && p[0] == '|') {
            ASSERT_EQ(p[len - 1], '|');
            size_t bars = 0;
            for (size_t i = 0; i < len; i++)
                bars += p[i] == '|' && (i == 0 || p[i - 1] != '\\');
            if (!in_table) {
                cols = bars;
                tables++;
            }
            assert_int_equal(bars, cols);
            in_table = true;
        } else {
            in_table = false;
        }
    }
    ASSERT_GE(tables, 10);
    free(md);
    creport_free(r);
}

static void test_metric_selection(void **state)
{
    (void)state;
    struct creport_opts o;
    creport_opts_default(&o);
    const char *const only[] = {"cpu_local"};
    o.metrics = only;
    o.nmetrics = 1;
    struct creport *r = load(&o);
    /* CPU decides now: patched uses more CPU everywhere, a regression. */
    for (size_t c = 0; c < r->ncells; c++)
        assert_string_equal(r->metrics[r->cells[c].decide].name, "cpu_local");
    assert_int_equal(creport_exit_status(r), 1);
    creport_free(r);

    const char *const bad[] = {"bogus"};
    o.metrics = bad;
    struct store *db;
    char err[NB_ERRLEN];
    assert_int_equal(store_open(dbpath, STORE_OPEN_READONLY, &db, err, sizeof(err)), 0);
    assert_int_equal(creport_load(db, exp_id, &o, &r, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "bogus"));
    creport_opts_default(&o);
    assert_int_equal(creport_load(db, exp_id + 100, &o, &r, err, sizeof(err)), -ENOENT);
    store_close(db);
}

/* Where s first occurs in t, or -1. */
static long offset_of(const char *t, const char *s)
{
    const char *p = strstr(t, s);
    return p ? (long)(p - t) : -1;
}

/* Many cells with long names and long variant names: tables stack, nothing overflows. */
static void test_wide_matrix_stacks(void **state)
{
    (void)state;
    enum { CELLS = 9, PER = 3 };
    struct store_experiment x = {.id = 9, .name = "wide", .status = "done", .seed = 1};
    struct store_plan_row plan[CELLS * 2 * PER];
    struct store_run runs[CELLS * 2 * PER];
    char names[CELLS][64];
    memset(runs, 0, sizeof(runs));
    size_t n = 0;
    for (int c = 0; c < CELLS; c++)
        snprintf(names[c], sizeof(names[c]), "streams=%d,block=%dK,congestion=bbr", c, 1 << c);
    for (int k = 0; k < PER; k++)
        for (int c = 0; c < CELLS; c++)
            for (int v = 0; v < 2; v++) {
                plan[n] = (struct store_plan_row){(int)n, v ? "a-very-long-variant-name-2" : "b",
                                                  names[c], false, k};
                struct store_run *r = &runs[n];
                r->id = (int64_t)n + 1;
                r->seq = (int)n;
                r->status = STORE_RUN_OK;
                r->receiver_bps = 1e9 * (1 + 0.01 * k + 0.02 * v);
                r->sender_bps = r->receiver_bps;
                r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct = r->cpu_remote_pct =
                    r->transactions_per_second = r->latency_p50_us = r->latency_p99_us =
                        r->lost_percent = NAN;
                n++;
            }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, NULL, plan, n, runs, n, &o, &r, err, sizeof(err)), 0);
    assert_int_equal(r->ncells, CELLS);
    /*
     * Side by side not even labels fit: the tables split, each part headed
     * by labels in the plan's order, and the text says that --transpose
     * lists the cells as rows. Transposed, labels and a legend fit.
     */
    for (int tr = 0; tr < 2; tr++) {
        r->opts.transpose = tr;
        char *t = render(r, 0);
        if (getenv("REPORT_TEST_PRINT"))
            fputs(t, stdout);
        for (char *p = t, *nl; *p; p = nl + 1) {
            nl = strchr(p, '\n');
            if (nl - p > CREPORT_TEXT_WIDTH)
                fail_msg("line longer than %d columns: '%.*s'", CREPORT_TEXT_WIDTH, (int)(nl - p),
                         p);
        }
        if (!tr) {
            assert_non_null(strstr(t, "9 cells do not fit side by side: --transpose"));
            long c1 = offset_of(t, " c1 "), c9 = offset_of(t, " c9\n");
            ASSERT_GE(c1, 0);
            ASSERT_GT(c9, c1);
            assert_non_null(strstr(t, "Cells:\n  c1   streams=0,block=1K,congestion=bbr\n"));
        } else {
            assert_null(strstr(t, "do not fit side by side"));
            assert_non_null(strstr(t, "\nc9  "));
            assert_non_null(strstr(t, "Cells:\n  c1   streams=0,block=1K,congestion=bbr\n"));
            assert_non_null(strstr(t, "  c9   streams=8,block=256K,congestion=bbr\n"));
        }
        free(t);
    }
    /* HTML: nine cells do not fit 1280 px side by side, so the means tables turn them into rows. */
    r->opts.transpose = false;
    char *h = render(r, 3);
    assert_non_null(strstr(h, "<table class=\"means\""));
    assert_non_null(strstr(h, "<tr><th scope=\"col\">cell</th><th scope=\"col\">b</th>"));
    assert_non_null(strstr(h, "<th scope=\"row\">streams=8,<wbr>block=256K,<wbr>congestion=bbr"));
    free(h);
    creport_free(r);
}

/*
 * Issue 11: cells follow the experiment file's matrix (first axis slowest),
 * not the shuffled plan, and are headed by their values: in full where the
 * table fits, shortened ("tcp 1") where only that fits, never by labels here.
 */
static void test_matrix_order_and_headings(void **state)
{
    (void)state;
    enum { CELLS = 6, PER = 2 };
    static const char spec[] =
        "{\"variants\": [{\"name\": \"base\"}, {\"name\": \"new\"}], \"matrix\": "
        "[{\"key\": \"test\", \"values\": [\"tcp_stream\", \"udp_stream\"]}, "
        "{\"key\": \"streams\", \"values\": [1, 2, 3]}]}";
    static const char *const names[CELLS] = {
        "test=tcp_stream,streams=1", "test=tcp_stream,streams=2", "test=tcp_stream,streams=3",
        "test=udp_stream,streams=1", "test=udp_stream,streams=2", "test=udp_stream,streams=3"};
    static const int shuffled[CELLS] = {4, 1, 5, 0, 3, 2}; /* the plan's first visits */
    struct store_experiment x = {.id = 11, .name = "order", .status = "done", .seed = 1};
    struct store_plan_row plan[CELLS * 2 * PER];
    struct store_run runs[CELLS * 2 * PER];
    memset(runs, 0, sizeof(runs));
    size_t n = 0;
    for (int k = 0; k < PER; k++)
        for (int i = 0; i < CELLS; i++)
            for (int v = 0; v < 2; v++) {
                plan[n] = (struct store_plan_row){(int)n, v ? "new" : "base",
                                                  (char *)names[shuffled[i]], false, k};
                struct store_run *r = &runs[n];
                r->id = (int64_t)n + 1;
                r->seq = (int)n;
                r->status = STORE_RUN_OK;
                r->receiver_bps = 1e9 * (1 + 0.01 * k + 0.02 * v + 0.1 * shuffled[i]);
                r->sender_bps = r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct =
                    r->cpu_remote_pct = r->transactions_per_second = r->latency_p50_us =
                        r->latency_p99_us = r->lost_percent = NAN;
                n++;
            }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, spec, plan, n, runs, n, &o, &r, err, sizeof(err)), 0);
    assert_int_equal(r->ncells, CELLS);
    assert_int_equal(r->naxes, 2);
    for (int c = 0; c < CELLS; c++)
        assert_string_equal(r->cells[c].name, names[c]);
    assert_string_equal(r->cells[4].values[0], "udp_stream");
    assert_string_equal(r->cells[4].values[1], "2");
    char *t = render(r, 0);
    if (getenv("REPORT_TEST_PRINT"))
        fputs(t, stdout);
    /* The runs table has room for the shortened values only. */
    assert_non_null(strstr(t, "\nvariant  tcp 1  tcp 2  tcp 3  udp 1  udp 2  udp 3\n"));
    /* The throughput table splits into parts headed in full, in matrix order. */
    long a = offset_of(t, "tcp_stream 1"), b = offset_of(t, "tcp_stream 3"),
         c = offset_of(t, "udp_stream 1"), d = offset_of(t, "udp_stream 3");
    ASSERT_GE(a, 0);
    ASSERT_LT(a, b);
    ASSERT_LT(b, c);
    ASSERT_LT(c, d);
    assert_null(strstr(t, "Cells:"));
    free(t);
    /* A 2x2 design needs an axis of two values: test, in each of the three streams. */
    assert_int_equal(r->neffects, 3);
    assert_string_equal(r->effects[0].slice, "streams=1");
    creport_free(r);
}

/* Boolean axes are headed by words: "tcp_stream send" / "tcp_stream recv", "nodelay"/"no-nodelay".
 */
static void test_boolean_headings(void **state)
{
    (void)state;
    static const char spec[] = "{\"matrix\": [{\"key\": \"reverse\", \"values\": [false, true]}, "
                               "{\"key\": \"nodelay\", \"values\": [true, false]}]}";
    static const char *const names[4] = {"reverse=false,nodelay=true",
                                         "reverse=false,nodelay=false", "reverse=true,nodelay=true",
                                         "reverse=true,nodelay=false"};
    struct store_experiment x = {.id = 12, .name = "bool", .status = "done", .seed = 1};
    struct store_plan_row plan[8];
    struct store_run runs[8];
    memset(runs, 0, sizeof(runs));
    for (int k = 0; k < 8; k++) {
        plan[k] = (struct store_plan_row){k, "only", (char *)names[3 - k % 4], false, k / 4};
        runs[k] = (struct store_run){.id = k + 1, .seq = k, .status = STORE_RUN_OK};
        runs[k].receiver_bps = 1e9 * (1 + 0.01 * k);
        runs[k].sender_bps = runs[k].local_us_per_kib = runs[k].remote_us_per_kib =
            runs[k].cpu_local_pct = runs[k].cpu_remote_pct = runs[k].transactions_per_second =
                runs[k].latency_p50_us = runs[k].latency_p99_us = runs[k].lost_percent = NAN;
    }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, spec, plan, 8, runs, 8, &o, &r, err, sizeof(err)), 0);
    char *t = render(r, 0);
    if (getenv("REPORT_TEST_PRINT"))
        fputs(t, stdout);
    long a = offset_of(t, "send nodelay"), b = offset_of(t, "send no-nodelay"),
         c = offset_of(t, "recv nodelay"), d = offset_of(t, "recv no-nodelay");
    ASSERT_GE(a, 0);
    ASSERT_LT(a, b);
    ASSERT_LT(b, c);
    ASSERT_LT(c, d);
    free(t);
    /* One variant, two axes of two values: one design, reverse x nodelay. */
    assert_int_equal(r->neffects, 1);
    assert_string_equal(r->effects[0].a.name, "reverse");
    creport_free(r);
}

/* Five variants over a 2 x 3 matrix make 12 designs: text shows 8 and says so, JSON has 12. */
static void test_effects_capped(void **state)
{
    (void)state;
    enum { VARS = 5, CELLS = 6, PER = 2, N = VARS * CELLS * PER };
    static const char spec[] = "{\"matrix\": [{\"key\": \"a\", \"values\": [\"x\", \"y\"]}, "
                               "{\"key\": \"b\", \"values\": [1, 2, 3]}]}";
    static const char *const names[CELLS] = {"a=x,b=1", "a=x,b=2", "a=x,b=3",
                                             "a=y,b=1", "a=y,b=2", "a=y,b=3"};
    static const char *const vars[VARS] = {"v0", "v1", "v2", "v3", "v4"};
    struct store_experiment x = {.id = 13, .name = "cap", .status = "done", .seed = 1};
    struct store_plan_row plan[N];
    struct store_run runs[N];
    memset(runs, 0, sizeof(runs));
    for (int k = 0; k < N; k++) {
        int v = k % VARS, c = (k / VARS) % CELLS;
        plan[k] = (struct store_plan_row){k, (char *)vars[v], (char *)names[c], false,
                                          k / (VARS * CELLS)};
        runs[k] = (struct store_run){.id = k + 1, .seq = k, .status = STORE_RUN_OK};
        runs[k].receiver_bps = 1e9 * (1 + 0.01 * (k / (VARS * CELLS)) + 0.02 * v + 0.1 * c);
        runs[k].sender_bps = runs[k].local_us_per_kib = runs[k].remote_us_per_kib =
            runs[k].cpu_local_pct = runs[k].cpu_remote_pct = runs[k].transactions_per_second =
                runs[k].latency_p50_us = runs[k].latency_p99_us = runs[k].lost_percent = NAN;
    }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, spec, plan, N, runs, N, &o, &r, err, sizeof(err)), 0);
    assert_int_equal(r->neffects, 12);
    char *t = render(r, 0);
    assert_non_null(strstr(t, "(4 more designs in the JSON form, --format json.)"));
    size_t designs = 0;
    for (const char *p = t; (p = strstr(p, "\nvariant (v0, ")); p++)
        designs++;
    assert_int_equal(designs, 8);
    free(t);
    creport_free(r);
}

/*
 * Issue 10: an entry showed the median next to the change of the mean, so
 * that "gso-fixed 2514 +5.9%" could sit on a lower median. Entries now show
 * the mean; the footer aggregates environment warnings over the runs.
 */
static void test_entry_shows_what_the_change_is_on(void **state)
{
    (void)state;
    enum { PER = 5 };
    static const double base[PER] = {2400, 2410, 2390, 2405, 2395};
    static const double gso[PER] = {2300, 2310, 2320, 2900, 2950}; /* median 2320, mean 2556 */
    struct store_experiment x = {.id = 3, .name = "gso", .status = "done", .seed = 1};
    struct store_plan_row plan[2 * PER];
    struct store_run runs[2 * PER];
    char env[2 * PER][160];
    memset(runs, 0, sizeof(runs));
    size_t n = 0;
    for (int k = 0; k < PER; k++)
        for (int v = 0; v < 2; v++) {
            plan[n] = (struct store_plan_row){(int)n, v ? "gso-fixed" : "base", "", false, k};
            struct store_run *r = &runs[n];
            r->id = (int64_t)n + 1;
            r->seq = (int)n;
            r->status = STORE_RUN_OK;
            r->receiver_bps = (v ? gso : base)[k] * 1e6;
            r->sender_bps = r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct =
                r->cpu_remote_pct = r->transactions_per_second = r->latency_p50_us =
                    r->latency_p99_us = r->lost_percent = NAN;
            snprintf(env[n], sizeof(env[n]),
                     "{\"load\": {\"avg1\": %.2f}, \"noise_processes\": [{\"comm\": \"make\", "
                     "\"pid\": %zu}, {\"comm\": \"cc1\", \"pid\": %zu}]}",
                     n < 3 ? 1.5 : 0.1, 1000 + n, 2000 + n);
            r->env_json = env[n];
            n++;
        }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, NULL, plan, n, runs, n, &o, &r, err, sizeof(err)), 0);
    char *t = render(r, 0);
    if (getenv("REPORT_TEST_PRINT"))
        fputs(t, stdout);
    assert_non_null(strstr(t, "\ngso-fixed  2556 +6.5% ?\n"));
    /* The median appears only in the sorted values, never as an entry beside the change. */
    assert_null(strstr(t, "gso-fixed  2320"));
    /* One line per kind of warning, not one per process per run. */
    assert_non_null(strstr(t, "1-minute load average above 0.5 in 3 of 10 runs"));
    assert_non_null(strstr(t, "competing benchmark processes in 10 of 10 runs: make x10, cc1"));
    assert_null(strstr(t, "pid"));
    free(t);
    json_t *j = creport_to_json(r);
    json_t *res = json_object_get(j, "results"), *e;
    size_t i;
    bool seen = false;
    json_array_foreach(
        res, i, e) if (!strcmp(json_string_value(json_object_get(e, "variant")), "gso-fixed") &&
                       !strcmp(json_string_value(json_object_get(e, "metric")), "throughput"))
    {
        seen = true;
        assert_close(json_number_value(json_object_get(e, "mean")), 2556);
        assert_close(json_number_value(json_object_get(e, "median")), 2320);
    }
    assert_true(seen);
    assert_int_equal(json_array_size(json_object_get(j, "env_warnings")), 2);
    json_decref(j);
    creport_free(r);
}

/* Wrapped lines continue after a newline and spaces: s rewritten as one line. */
static void flatten(char *s)
{
    for (char *p = s, *q = s; (*q = *p); p++, q++)
        if (*p == '\n')
            for (*q = ' '; p[1] == ' '; p++)
                ;
}

/*
 * A change of +1.0% with a narrow interval (about +0.9% .. +1.1%) and a tiny
 * p: significant, yet not wholly beyond the 1% floor, so "no difference
 * proven". Every line that prints that verdict says why in the same line
 * (--full's details, Markdown's list), and the short report counts it
 * beside the headline's verdicts.
 */
static void test_significant_but_not_proven(void **state)
{
    (void)state;
    enum { PER = 5 };
    static const double base[PER] = {1000, 1001, 999, 1000.5, 999.5};
    struct store_experiment x = {.id = 4, .name = "floor", .status = "done", .seed = 1};
    struct store_plan_row plan[2 * PER];
    struct store_run runs[2 * PER];
    memset(runs, 0, sizeof(runs));
    size_t n = 0;
    for (int k = 0; k < PER; k++)
        for (int v = 0; v < 2; v++) {
            plan[n] = (struct store_plan_row){(int)n, v ? "b" : "a", "", false, k};
            struct store_run *r = &runs[n];
            r->id = (int64_t)n + 1;
            r->seq = (int)n;
            r->status = STORE_RUN_OK;
            r->receiver_bps = (base[k] + (v ? 10 : 0)) * 1e6;
            r->sender_bps = r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct =
                r->cpu_remote_pct = r->transactions_per_second = r->latency_p50_us =
                    r->latency_p99_us = r->lost_percent = NAN;
            n++;
        }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, NULL, plan, n, runs, n, &o, &r, err, sizeof(err)), 0);
    const struct creport_entry *en = creport_at(r, 1, 0, (size_t)r->cells[0].decide);
    ASSERT_EQ(en->cmp.verdict.kind, STATS_NO_DIFFERENCE);
    ASSERT_LT(en->cmp.welch.p, 1e-6);
    char *t = render(r, 0), *md = render(r, 1);
    if (getenv("REPORT_TEST_PRINT"))
        fputs(t, stdout);
    flatten(t);
    assert_non_null(strstr(t, "no difference proven (p = "));
    assert_non_null(strstr(t, "reaches inside the 1% noise floor)"));
    assert_non_null(strstr(md, "no difference proven (p = "));
    assert_non_null(strstr(md, "% .. +1.1% reaches inside the 1% noise floor) (deciding)"));
    free(t);
    free(md);
    /* The short default report: one statement with the count and why. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(creport_print_text(r, f), 0);
    fclose(f);
    assert_non_null(strstr(buf, "  headline (2): 1 within noise, 1 no difference proven\n"));
    flatten(buf);
    assert_non_null(strstr(buf, "1 headline \"no difference proven\" with p < 0.05: the interval "
                                "reaches inside the 1% noise floor "));
    assert_null(strstr(buf, "Changes found"));
    free(buf);
    creport_free(r);
}

/*
 * Runs paused by the hypervisor: each run's larger steal_pct of its two ends
 * is counted when above 1%; runs without a result or a CPU block are not
 * runs measured, and exactly 1% is not above.
 */
static void test_steal_is_warned(void **state)
{
    (void)state;
    enum { N = 8 };
    static const char *const results[N] = {
        "{\"end\": {\"cpu\": {\"local\": {\"steal_pct\": 0.2}, \"remote\": {\"steal_pct\": 0}}}}",
        "{\"end\": {\"cpu\": {\"local\": {\"steal_pct\": 3.5}, \"remote\": {\"steal_pct\": 0.1}}}}",
        "{\"end\": {\"cpu\": {\"local\": {\"steal_pct\": 0}, \"remote\": {\"steal_pct\": 12.3}}}}",
        "{\"end\": {\"cpu\": {\"local\": {\"steal_pct\": 1.0}}}}",
        "{\"end\": {\"sender\": {}}}",
        NULL,
        "{\"end\": {\"cpu\": {\"remote\": {\"steal_pct\": 0.9}}}}",
        "not JSON",
    };
    struct store_experiment x = {.id = 4, .name = "steal", .status = "done", .seed = 1};
    struct store_plan_row plan[N];
    struct store_run runs[N];
    memset(runs, 0, sizeof(runs));
    for (int n = 0; n < N; n++) {
        plan[n] = (struct store_plan_row){n, n % 2 ? "b" : "a", "", false, n / 2};
        struct store_run *r = &runs[n];
        r->id = n + 1;
        r->seq = n;
        r->status = STORE_RUN_OK;
        r->receiver_bps = (940 + n) * 1e6;
        r->sender_bps = r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct =
            r->cpu_remote_pct = r->transactions_per_second = r->latency_p50_us = r->latency_p99_us =
                r->lost_percent = NAN;
        r->result_json = (char *)results[n];
    }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, NULL, plan, N, runs, N, &o, &r, err, sizeof(err)), 0);
    json_t *j = creport_to_json(r);
    json_t *w = json_object_get(j, "env_warnings");
    assert_int_equal(json_array_size(w), 1);
    assert_string_equal(json_string_value(json_array_get(w, 0)),
                        "the hypervisor took CPU time (steal) above 1% in 2 of 5 runs (up to "
                        "12.3%): while a vCPU waits neither end runs, so throughput dips and "
                        "latency grows at random");
    json_decref(j);
    creport_free(r);
    /* Below the threshold in every run: no sentence. */
    for (int n = 0; n < N; n++)
        runs[n].result_json = n == 1 || n == 2 ? (char *)results[0] : (char *)results[n];
    assert_int_equal(creport_build(&x, NULL, plan, N, runs, N, &o, &r, err, sizeof(err)), 0);
    j = creport_to_json(r);
    assert_int_equal(json_array_size(json_object_get(j, "env_warnings")), 0);
    json_decref(j);
    creport_free(r);
}

/* Counts the non-overlapping occurrences of needle in hay. */
static size_t occurrences(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/*
 * The HTML report: self-contained, one figure per cell and kind plus the
 * heatmap, each distribution with one point per measured run, the run
 * order with warm-ups too; --plot DIR writes the same figures as files.
 */
static void test_html_and_figures(void **state)
{
    (void)state;
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r = load(&o);
    /* Every ok run of the plan, in run order: measured and warm-ups. */
    assert_int_equal(r->nrunlist, (size_t)(r->runs.measured + r->runs.warmup));
    for (size_t i = 1; i < r->nrunlist; i++)
        ASSERT_GT(r->runlist[i].seq, r->runlist[i - 1].seq);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    const char *const cmd[] = {"report", "--db", "/x/results.db", "7", "--format", "html", NULL};
    assert_int_equal(creport_print_html(r, cmd, f), 0);
    fclose(f);
    assert_memory_equal(buf, "<!DOCTYPE html>", 15);
    assert_null(strstr(buf, "<script"));
    assert_null(strstr(buf, "src="));
    assert_null(strstr(buf, "https:"));
    assert_int_equal(occurrences(buf, "<figure "), NC * 3 + 1);
    assert_int_equal(occurrences(buf, "<svg"), NC * 3 + 1);
    assert_int_equal(occurrences(buf, "data-kind=\"distribution\""), NC);
    assert_int_equal(occurrences(buf, "data-kind=\"forest\""), NC);
    assert_int_equal(occurrences(buf, "data-kind=\"runorder\""), NC);
    assert_int_equal(occurrences(buf, "data-kind=\"heatmap\""), 1);
    /* Each distribution: both variants' measured runs (ROUNDS each), as points. */
    char want[64];
    snprintf(want, sizeof(want), "data-kind=\"distribution\" data-points=\"%d\"", NV * ROUNDS);
    assert_int_equal(occurrences(buf, want), NC);
    snprintf(want, sizeof(want), "data-kind=\"runorder\" data-points=\"%d\"", NV * (ROUNDS + 1));
    assert_int_equal(occurrences(buf, want), NC);
    /* Figures do not share ids: the second figure's glyphs are its own. */
    assert_non_null(strstr(buf, "id=\"f1-glyph"));
    assert_non_null(
        strstr(buf, "netab report --db /x/results.db 7 --format html &gt; report.html"));
    assert_non_null(strstr(buf, "<section id=\"values\">"));
    free(buf);

    char figs[300];
    snprintf(figs, sizeof(figs), "%s/figs", dir);
    char err[NB_ERRLEN] = "";
    size_t n = 0;
    assert_int_equal(creport_plot_dir(r, figs, "svg", 0, 0, NULL, &n, err, sizeof(err)), 0);
    assert_int_equal(n, NC * 3 + 1);
    char path[400];
    snprintf(path, sizeof(path), "%s/heatmap-all-throughput.svg", figs);
    assert_int_equal(access(path, R_OK), 0);
    creport_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_match_recomputation),
        cmocka_unit_test(test_text_fits_72_columns),
        cmocka_unit_test(test_csv_and_markdown_parse),
        cmocka_unit_test(test_html_and_figures),
        cmocka_unit_test(test_metric_selection),
        cmocka_unit_test(test_wide_matrix_stacks),
        cmocka_unit_test(test_matrix_order_and_headings),
        cmocka_unit_test(test_boolean_headings),
        cmocka_unit_test(test_effects_capped),
        cmocka_unit_test(test_entry_shows_what_the_change_is_on),
        cmocka_unit_test(test_steal_is_warned),
        cmocka_unit_test(test_significant_but_not_proven),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    plot_shutdown(); /* fontconfig's caches, for LeakSanitizer */
    return failed;
}
