/*
 * Each stored run's documents are parsed once per report (issue 29): every
 * json_loads() the report builder makes is counted (the test is linked with
 * --wrap=json_loads), and each run's params, result and env text must be
 * among them exactly once, for one experiment (creport_build()) and for
 * several (creport_load_many(), whose labels read the runs' kernels before
 * the report is built). The record's fields are checked against documents
 * written by hand.
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

#include "report/report.h"
#include "report/metric.h"
#include "report/multi.h"
#include "report/rundoc.h"
#include "store/store.h"

/* Every text json_loads() was given while counting, in order. */
static char *parsed[256];
static size_t nparsed;
static bool counting;

json_t *__real_json_loads(const char *input, size_t flags, json_error_t *error);
json_t *__wrap_json_loads(const char *input, size_t flags, json_error_t *error);
int __real_store_run_list(struct store *db, int64_t experiment_id, bool with_raw,
                          struct store_run **out, size_t *n, char *err, size_t errlen);
int __wrap_store_run_list(struct store *db, int64_t experiment_id, bool with_raw,
                          struct store_run **out, size_t *n, char *err, size_t errlen);

json_t *__wrap_json_loads(const char *input, size_t flags, json_error_t *error)
{
    if (counting && input) {
        ASSERT_LT(nparsed, sizeof(parsed) / sizeof(parsed[0]));
        parsed[nparsed++] = strdup(input);
    }
    return __real_json_loads(input, flags, error);
}

/* The store reads its own documents when it lists runs (store_runinfo.c): not the report's. */
int __wrap_store_run_list(struct store *db, int64_t experiment_id, bool with_raw,
                          struct store_run **out, size_t *n, char *err, size_t errlen)
{
    bool was = counting;
    counting = false;
    int e = __real_store_run_list(db, experiment_id, with_raw, out, n, err, errlen);
    counting = was;
    return e;
}

static void count_start(void)
{
    nparsed = 0;
    counting = true;
}

static void count_stop(void)
{
    counting = false;
    for (size_t i = 0; i < nparsed; i++)
        free(parsed[i]);
    nparsed = 0;
}

/* How often text was parsed since count_start(). */
static size_t times_parsed(const char *text)
{
    size_t n = 0;
    for (size_t i = 0; i < nparsed; i++)
        n += !strcmp(parsed[i], text);
    return n;
}

enum { PER = 4, N = 2 * PER };

static char *print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *print(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    ASSERT_GT(vasprintf(&s, fmt, ap), 0);
    va_end(ap);
    return s;
}

/* Run k (id k + 1) of variant v: each document names its run, so that no two are the same text. */
static void fill_run(struct store_run *r, size_t k, int v)
{
    memset(r, 0, sizeof(*r));
    r->id = (int64_t)k + 1;
    r->seq = (int)k + 1;
    r->status = STORE_RUN_OK;
    r->receiver_bps = 1e9 * (1 + 0.1 * v) + 1e6 * (double)k;
    r->sender_bps = r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct =
        r->cpu_remote_pct = r->transactions_per_second = r->latency_p50_us = r->latency_p99_us =
            r->lost_percent = r->local_process_us_per_kib = r->remote_process_us_per_kib = NAN;
    r->params_json = print("{\"run\": %zu, \"argv\": [\"netab\", \"run\", \"--seed\", \"%zu\"]%s}",
                           k, k, v ? ", \"import\": {\"order\": \"unknown\"}" : "");
    r->result_json =
        print("{\"run\": %zu, \"test\": {\"test\": \"tcp_stream\"}, \"host\": {\"remote\": "
              "{\"identity\": {\"build_id\": \"remote%d\"}}}, \"end\": {\"perf\": {\"local\": "
              "{\"task_clock\": %zu, \"context_switches\": %d}}, \"cpu\": {\"local\": "
              "{\"steal_pct\": 0}}}}",
              k, v, 100 + k, v ? 5000 : 1000);
    r->env_json = print("{\"run\": %zu, \"kernel\": \"6.1\", \"identity\": {\"build_id\": \"%s\"}}",
                        k, v ? "bbbbbbbbbbbb2222" : "aaaaaaaaaaaa1111");
}

/* One experiment: every run's three documents parsed once while the report is built. */
static void test_build_parses_once(void **state)
{
    (void)state;
    static const char spec[] = "{\"variants\": [{\"name\": \"base\"}, {\"name\": \"new\"}]}";
    struct store_experiment x = {.id = 29, .name = "once", .status = "done", .seed = 1};
    struct store_plan_row plan[N];
    struct store_run runs[N];
    for (size_t k = 0; k < N; k++) {
        int v = (int)(k % 2);
        plan[k] =
            (struct store_plan_row){(int)k + 1, v ? "new" : "base", "default", false, (int)(k / 2)};
        fill_run(&runs[k], k, v);
    }
    const char *names[] = {"throughput", "perf.local.task_clock"};
    struct creport_opts o;
    creport_opts_default(&o);
    o.metrics = names;
    o.nmetrics = 2;
    struct creport *r;
    char err[NB_ERRLEN];
    count_start();
    assert_int_equal(creport_build(&x, spec, plan, N, runs, N, &o, &r, err, sizeof(err)), 0);
    for (size_t k = 0; k < N; k++) {
        ASSERT_EQ(times_parsed(runs[k].params_json), 1);
        ASSERT_EQ(times_parsed(runs[k].result_json), 1);
        ASSERT_EQ(times_parsed(runs[k].env_json), 1);
    }
    count_stop();
    /* What the builder took from the documents, read once. */
    assert_string_equal(r->cells[0].test, "tcp_stream");
    assert_non_null(r->commands[0]);
    assert_string_equal(r->commands[0], "netab run --seed 0");
    assert_string_equal(r->commands[1], "netab run --seed 1");
    size_t m = creport_metric_index(r->metrics, r->nmetrics, "perf.local.task_clock");
    ASSERT_LT(m, r->nmetrics);
    ASSERT_EQ(r->nrunlist, N);
    for (size_t k = 0; k < N; k++)
        ASSERT_EQ(r->runlist[k].values[m], 100 + k);
    assert_false(creport_at(r, 0, 0, m)->order_unknown);
    assert_true(creport_at(r, 1, 0, m)->order_unknown);
    creport_free(r);
    for (size_t k = 0; k < N; k++) {
        free(runs[k].params_json);
        free(runs[k].result_json);
        free(runs[k].env_json);
    }
}

/* The record's fields, against documents written by hand. */
static void test_rundoc_fields(void **state)
{
    (void)state;
    struct store_run runs[3];
    memset(runs, 0, sizeof(runs));
    runs[0].id = 7;
    runs[0].params_json = "{\"import\": {\"order\": \"unknown\"}}";
    runs[0].env_json = "{\"kernel\": \"6.1\", \"identity\": {\"build_id\": \"abc\"}}";
    runs[0].result_json = "{\"test\": {\"test\": \"udp_rr\"}, \"end\": {\"cpu\": {\"local\": "
                          "{\"steal_pct\": 2.5}, \"remote\": {\"steal_pct\": 4}}}}";
    /* No environment capture: the kernel is the result's (imported runs). */
    runs[1].id = 8;
    runs[1].params_json = "{\"import\": {\"order\": \"known\"}}";
    runs[1].env_json = "{\"kernel\": \"\"}";
    runs[1].result_json = "{\"host\": {\"local\": {\"kernel\": \"5.15\"}}}";
    /* Nothing stored, or no JSON. */
    runs[2].id = 9;
    runs[2].result_json = "not json";
    struct creport_rundoc *d = NULL;
    count_start();
    assert_int_equal(creport_rundocs_parse(runs, 3, &d), 0);
    ASSERT_EQ(nparsed, 7); /* every text there is, once */
    count_stop();
    assert_string_equal(d[0].test, "udp_rr");
    assert_string_equal(d[0].kernel, "6.1");
    assert_string_equal(d[0].build_id, "abc");
    assert_true(d[0].order_unknown);
    ASSERT_EQ(d[0].steal_pct, 4);
    assert_ptr_equal(d[0].run, &runs[0]);
    assert_null(d[1].test);
    assert_string_equal(d[1].kernel, "5.15");
    assert_null(d[1].build_id);
    assert_false(d[1].order_unknown);
    assert_true(isnan(d[1].steal_pct));
    assert_null(d[2].params);
    assert_null(d[2].result);
    assert_null(d[2].env);
    assert_null(d[2].kernel);
    assert_ptr_equal(creport_rundoc_find(d, 3, 8), &d[1]);
    assert_null(creport_rundoc_find(d, 3, 10));
    creport_rundocs_free(d, 3);
}

/* An experiment of one variant "k" whose run k stores fill_run()'s documents; returns its id. */
static int64_t experiment(struct store *db, size_t first, int v)
{
    struct store_plan_entry plan[PER];
    char err[512];
    for (size_t i = 0; i < PER; i++)
        plan[i] = (struct store_plan_entry){(int)i + 1, "k", "default", false, (int)i + 1};
    int64_t id, run;
    assert_int_equal(store_experiment_create(db, "e", "x", "{\"variants\": [{\"name\": \"k\"}]}", 1,
                                             plan, PER, &id, err, sizeof(err)),
                     0);
    for (size_t i = 0; i < PER; i++) {
        struct store_run r;
        fill_run(&r, first + i, v);
        assert_int_equal(store_run_begin(db, id, (int)i + 1, "k", "default", r.params_json,
                                         r.env_json, &run, err, sizeof(err)),
                         0);
        assert_int_equal(
            store_run_finish(db, run, STORE_RUN_OK, 0, NULL, r.result_json, err, sizeof(err)), 0);
        free(r.params_json);
        free(r.result_json);
        free(r.env_json);
    }
    assert_int_equal(store_experiment_set_status(db, id, "done", err, sizeof(err)), 0);
    return id;
}

/*
 * Several experiments labelled by kernel: the labels (the kernel and the
 * build ID of each run) and the report come from one parse of each run.
 */
static void test_many_parse_once(void **state)
{
    (void)state;
    char dir[] = "/tmp/netab-rundoc-XXXXXX", path[64], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/s.db", dir);
    struct store *db;
    assert_int_equal(store_open(path, STORE_OPEN_CREATE, &db, err, sizeof(err)), 0);
    int64_t ids[2] = {experiment(db, 0, 0), experiment(db, PER, 1)};
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    count_start();
    assert_int_equal(creport_load_many(db, ids, 2, CREPORT_LABEL_KERNEL, &o, &r, err, sizeof(err)),
                     0);
    for (size_t k = 0; k < N; k++) {
        struct store_run w;
        fill_run(&w, k, k >= PER);
        ASSERT_EQ(times_parsed(w.params_json), 1);
        ASSERT_EQ(times_parsed(w.result_json), 1);
        ASSERT_EQ(times_parsed(w.env_json), 1);
        free(w.params_json);
        free(w.result_json);
        free(w.env_json);
    }
    count_stop();
    assert_int_equal(r->nvariants, 2);
    assert_string_equal(r->variants[0], "6.1@aaaaaaaaaaaa");
    assert_string_equal(r->variants[1], "6.1@bbbbbbbbbbbb");
    assert_string_equal(r->cells[0].test, "tcp_stream");
    creport_free(r);
    store_close(db);
    const char *suffix[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        char p[96];
        snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
        unlink(p);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_parses_once),
        cmocka_unit_test(test_rundoc_fields),
        cmocka_unit_test(test_many_parse_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
