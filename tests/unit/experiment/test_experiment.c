/* Unit tests of the experiment module: loading, matrix cells, run arguments, JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "experiment/experiment.h"
#include "metric/spec.h"
#include "runspec/run_spec.h"

static struct experiment *load_ok(const char *path)
{
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    int err = experiment_load(path, &e, &errs);
    for (size_t i = 0; i < errs.n; i++)
        print_error("%s:%d:%d: %s\n", path, errs.v[i].line, errs.v[i].col, errs.v[i].msg);
    assert_int_equal(err, 0);
    assert_int_equal(errs.n, 0);
    assert_non_null(e);
    exp_errors_free(&errs);
    return e;
}

static void test_full_example(void **state)
{
    (void)state;
    struct experiment *e = load_ok(EXP_DATA_DIR "/full.yaml");
    assert_string_equal(e->name, "block-size");
    assert_int_equal(e->runs, 5);
    assert_int_equal(e->warmup, 1);
    assert_true(e->has_seed);
    assert_int_equal(e->seed, 11);
    ASSERT_EQ(e->cooldown, 2.0);
    assert_string_equal(e->prepare, "sync");
    assert_int_equal(e->reset, EXP_RESET_NONE);
    assert_int_equal(e->ntest, 3);
    assert_string_equal(e->test[0].key->name, "test");
    assert_string_equal(e->test[1].key->opt, "-t");
    assert_string_equal(e->test[2].value, "true");
    assert_int_equal(e->nvariants, 2);
    assert_string_equal(e->variants[1].name, "small");
    assert_string_equal(e->variants[1].setup, "true");
    assert_int_equal(e->variants[1].cpus, 2);
    assert_int_equal(e->variants[1].max_freq_mhz, 800);
    assert_int_equal(e->variants[0].line, 13);
    assert_null(e->variants[0].setup);
    assert_int_equal(e->naxes, 2);
    assert_string_equal(e->axes[0].key->name, "streams");
    assert_int_equal(e->axes[1].nvalues, 2);

    struct exp_plan plan;
    experiment_plan(e, &plan);
    assert_int_equal(plan.cells, 4);
    assert_int_equal(plan.runs, 48);
    ASSERT_EQ(plan.seconds, 48 * 12.0);
    assert_true(plan.lower_bound); /* set-up commands take unknown time */
    experiment_free(e);
}

static void test_shipped_example(void **state)
{
    (void)state;
    struct experiment *e = load_ok(EXP_EXAMPLES_DIR "/block-size.yaml");
    assert_int_equal(e->nvariants, 2);
    assert_int_equal(e->naxes, 0);
    struct exp_plan plan;
    experiment_plan(e, &plan);
    assert_int_equal(plan.runs, (size_t)(e->runs + e->warmup) * 2);
    assert_false(plan.lower_bound);
    experiment_free(e);
}

static void test_layout_paths(void **state)
{
    (void)state;
    /* Relative layout paths are resolved against the file's directory and kept absolute. */
    struct experiment *e = load_ok(EXP_DATA_DIR "/layout.yaml");
    char *dir = realpath(EXP_DATA_DIR, NULL);
    assert_non_null(dir);
    char want[4096];
    snprintf(want, sizeof(want), "%s/layout/base.map", dir);
    assert_string_equal(e->variants[0].layout, want);
    snprintf(want, sizeof(want), "%s/layout/patched.map", dir);
    assert_string_equal(e->variants[1].layout, want);
    assert_null(e->variants[2].layout);
    json_t *j = experiment_to_json(e);
    assert_non_null(j);
    json_t *v = json_array_get(json_object_get(j, "variants"), 1);
    assert_string_equal(json_string_value(json_object_get(v, "layout")), want);
    assert_true(
        json_is_null(json_object_get(json_array_get(json_object_get(j, "variants"), 2), "layout")));
    json_decref(j);
    free(dir);
    experiment_free(e);
}

static void test_cells_order(void **state)
{
    (void)state;
    struct experiment *e = load_ok(EXP_DATA_DIR "/full.yaml");
    struct exp_cell *cells;
    size_t n;
    assert_int_equal(experiment_cells(e, &cells, &n), 0);
    assert_int_equal(n, 4);
    const char *want[] = {"streams=1,test=tcp_stream", "streams=1,test=tcp_rr",
                          "streams=4,test=tcp_stream", "streams=4,test=tcp_rr"};
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(cells[i].name, want[i]);
        assert_int_equal(cells[i].nkv, 2);
        assert_string_equal(cells[i].kv[0].key->name, "streams");
    }
    assert_string_equal(cells[2].kv[0].value, "4");
    assert_string_equal(cells[3].kv[1].value, "tcp_rr");
    exp_cells_free(cells, n);
    experiment_free(e);
}

static void test_no_matrix_one_cell(void **state)
{
    (void)state;
    struct experiment *e = load_ok(EXP_EXAMPLES_DIR "/block-size.yaml");
    struct exp_cell *cells;
    size_t n;
    assert_int_equal(experiment_cells(e, &cells, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(cells[0].name, "default");
    assert_int_equal(cells[0].nkv, 0);
    exp_cells_free(cells, n);
    experiment_free(e);
}

static void assert_argv(char **argv, int argc, const char *const *want)
{
    int i = 0;
    for (; want[i]; i++) {
        assert_non_null(argv[i]);
        assert_string_equal(argv[i], want[i]);
    }
    assert_null(argv[i]);
    assert_int_equal(argc, i);
}

static void test_run_args(void **state)
{
    (void)state;
    struct experiment *e = load_ok(EXP_DATA_DIR "/full.yaml");
    struct exp_cell *cells;
    size_t n;
    char **argv;
    int argc;
    assert_int_equal(experiment_cells(e, &cells, &n), 0);
    /* The cell replaces test's --test in place and appends -P; the variant's opts come last. */
    assert_int_equal(experiment_run_args(e, &e->variants[1], &cells[3], &argv, &argc), 0);
    const char *want[] = {"run", "--test", "tcp_rr", "-t", "10",    "-N",     "-P",
                          "4",   "-l",     "16K",    "-C", "cubic", "--json", NULL};
    assert_argv(argv, argc, want);
    exp_argv_free(argv);
    /* Without a cell, only the test options and the variant's. */
    assert_int_equal(experiment_run_args(e, &e->variants[0], NULL, &argv, &argc), 0);
    const char *want0[] = {"run", "--test", "tcp_stream", "-t",     "10",
                           "-N",  "-l",     "128K",       "--json", NULL};
    assert_argv(argv, argc, want0);
    exp_argv_free(argv);
    exp_cells_free(cells, n);
    experiment_free(e);
}

static void test_split_words(void **state)
{
    (void)state;
    char **w, err[NB_ERRLEN];
    size_t n;
    assert_int_equal(
        exp_split_words("  -l 1K  -C 'a b' \"c\\\"d\" e\\ f '' ", &w, &n, err, sizeof(err)), 0);
    const char *want[] = {"-l", "1K", "-C", "a b", "c\"d", "e f", "", NULL};
    assert_argv(w, (int)n, want);
    exp_argv_free(w);
    assert_int_equal(exp_split_words("", &w, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 0);
    assert_null(w[0]);
    exp_argv_free(w);
    assert_int_equal(exp_split_words("$HOME `x`", &w, &n, err, sizeof(err)), 0);
    assert_string_equal(w[0], "$HOME"); /* nothing is expanded */
    exp_argv_free(w);
    assert_int_equal(exp_split_words("-l 'x", &w, &n, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "quote"));
    assert_int_equal(exp_split_words("-l \"x", &w, &n, err, sizeof(err)), -EINVAL);
    assert_int_equal(exp_split_words("x\\", &w, &n, err, sizeof(err)), -EINVAL);
}

static void test_to_json(void **state)
{
    (void)state;
    struct experiment *e = load_ok(EXP_DATA_DIR "/full.yaml");
    json_t *j = experiment_to_json(e);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "name")), "block-size");
    assert_int_equal(json_integer_value(json_object_get(j, "seed")), 11);
    json_t *test = json_object_get(j, "test");
    assert_true(json_is_true(json_object_get(test, "nodelay")));
    json_t *m = json_array_get(json_object_get(j, "matrix"), 0);
    assert_string_equal(json_string_value(json_object_get(m, "key")), "streams");
    assert_int_equal(json_integer_value(json_array_get(json_object_get(m, "values"), 1)), 4);
    json_t *v = json_array_get(json_object_get(j, "variants"), 0);
    assert_true(json_is_null(json_object_get(v, "setup")));
    json_decref(j);
    experiment_free(e);
}

static void test_load_buffer_defaults(void **state)
{
    (void)state;
    static const char y[] = "name: d\nvariants:\n  - name: a\n";
    struct exp_errors errs = {0};
    struct experiment *e;
    assert_int_equal(experiment_load_buffer(y, strlen(y), &e, &errs), 0);
    assert_int_equal(e->runs, 5);
    assert_int_equal(e->warmup, 1);
    assert_false(e->has_seed);
    assert_int_equal(e->ntest, 0);
    experiment_free(e);
    exp_errors_free(&errs);
}

/* Loads y; returns the experiment, or NULL with the first error in msg. */
static struct experiment *load_text(const char *y, char *msg, size_t len)
{
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    int rc = experiment_load_buffer(y, strlen(y), &e, &errs);
    snprintf(msg, len, "%s", errs.n ? errs.v[0].msg : "");
    exp_errors_free(&errs);
    if (rc) {
        experiment_free(e);
        return NULL;
    }
    return e;
}

/* layout: {hot: [...]}: the report's hot patterns, checked, kept in order, in the spec. */
static void test_layout_hot(void **state)
{
    (void)state;
    char msg[NB_ERRLEN];
    struct experiment *e = load_text("name: h\nlayout:\n  hot: [v7_dma_*, \"tcp_v4_rcv\"]\n"
                                     "variants:\n  - name: a\n",
                                     msg, sizeof(msg));
    if (!e)
        fail_msg("load failed: %s", msg);
    ASSERT_EQ(e->nlayout_hot, 2);
    assert_string_equal(e->layout_hot[0], "v7_dma_*");
    assert_string_equal(e->layout_hot[1], "tcp_v4_rcv");
    json_t *j = experiment_to_json(e);
    assert_non_null(j);
    ASSERT_EQ(spec_layout_hot_count(j), 2);
    assert_string_equal(spec_layout_hot(j, 0), "v7_dma_*");
    assert_string_equal(spec_layout_hot(j, 1), "tcp_v4_rcv");
    json_decref(j);
    experiment_free(e);

    /* Without the section the spec has no layout member at all (as older specs). */
    e = load_text("name: h\nvariants:\n  - name: a\n", msg, sizeof(msg));
    assert_non_null(e);
    j = experiment_to_json(e);
    assert_null(json_object_get(j, "layout"));
    ASSERT_EQ(spec_layout_hot_count(j), 0);
    json_decref(j);
    experiment_free(e);

    static const struct {
        const char *yaml, *want;
    } bad[] = {
        {"layout:\n  hot: [\"v7_dma_[inv\"]\n", "pattern 'v7_dma_[inv': it opens a '['"},
        {"layout:\n  hot: [\"v7 dma\"]\n", "pattern 'v7 dma': it holds a blank"},
        {"layout:\n  hot: []\n", "layout: 'hot' must be a non-empty list"},
        {"layout:\n  hot: v7_dma_*\n", "layout: 'hot' must be a non-empty list"},
        {"layout:\n  hott: [x]\n", "hott"},
        {"layout: x\n", "layout"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char y[256];
        snprintf(y, sizeof(y), "name: h\n%svariants:\n  - name: a\n", bad[i].yaml);
        e = load_text(y, msg, sizeof(msg));
        assert_null(e);
        if (!strstr(msg, bad[i].want))
            fail_msg("%s: message '%s' lacks '%s'", bad[i].yaml, msg, bad[i].want);
    }
}

/* bitrate: reaches udp_stream runs only; a rate no run takes is an error, not ignored. */
static void test_bitrate_udp_only(void **state)
{
    (void)state;
    char msg[512];
    struct experiment *e = load_text("name: b\ntest:\n  bitrate: 10M\nmatrix:\n"
                                     "  test: [tcp_stream, udp_stream]\nvariants:\n  - name: a\n",
                                     msg, sizeof(msg));
    assert_non_null(e);
    struct exp_cell *cells;
    size_t n;
    assert_int_equal(experiment_cells(e, &cells, &n), 0);
    assert_int_equal(n, 2);
    struct run_spec spec;
    char **argv, err[256];
    assert_int_equal(
        experiment_run_spec(e, &e->variants[0], &cells[0], &spec, &argv, err, sizeof(err)), 0);
    const char *tcp[] = {"run", "--test", "tcp_stream", "--json", NULL};
    assert_argv(argv, 4, tcp);
    exp_argv_free(argv);
    assert_int_equal(
        experiment_run_spec(e, &e->variants[0], &cells[1], &spec, &argv, err, sizeof(err)), 0);
    const char *udp[] = {"run", "-b", "10M", "--test", "udp_stream", "--json", NULL};
    assert_argv(argv, 6, udp);
    assert_int_equal(spec.params.rate_bps, 10000000);
    exp_argv_free(argv);
    exp_cells_free(cells, n);
    experiment_free(e);
    /* Only TCP: refused, naming the key. */
    assert_null(
        load_text("name: b\ntest:\n  bitrate: 10M\nvariants:\n  - name: a\n", msg, sizeof(msg)));
    assert_non_null(strstr(msg, "bitrate: paces udp_stream runs only"));
    /* A variant's own -b on tcp_stream paces it (issue 32), as netab run -b does. */
    e = load_text("name: b\nvariants:\n  - name: a\n    opts: \"-b 1M\"\n", msg, sizeof(msg));
    assert_non_null(e);
    assert_int_equal(experiment_cells(e, &cells, &n), 0);
    assert_int_equal(
        experiment_run_spec(e, &e->variants[0], &cells[0], &spec, &argv, err, sizeof(err)), 0);
    assert_int_equal(spec.params.tx.pace_bps, 1000000);
    exp_argv_free(argv);
    exp_cells_free(cells, n);
    experiment_free(e);
    /* ... and on a test it cannot pace, refused like netab run -b. */
    assert_null(load_text("name: b\ntest:\n  test: tcp_rr\nvariants:\n  - name: a\n"
                          "    opts: \"-b 1M\"\n",
                          msg, sizeof(msg)));
    assert_non_null(strstr(msg, "-b paces udp_stream and tcp_stream only"));
}

/* opts: "" is a variant without options of its own. */
static void test_empty_opts(void **state)
{
    (void)state;
    char msg[512];
    struct experiment *e = load_text(
        "name: o\nvariants:\n  - name: a\n    opts: \"\"\n  - name: b\n", msg, sizeof(msg));
    assert_non_null(e);
    assert_null(e->variants[0].opts);
    char **argv;
    int argc;
    assert_int_equal(experiment_run_args(e, &e->variants[0], NULL, &argv, &argc), 0);
    const char *want[] = {"run", "--json", NULL};
    assert_argv(argv, argc, want);
    exp_argv_free(argv);
    experiment_free(e);
}

/* A dut: section and hooks in both forms: what the campaign is given, defaults included. */
static void test_dut(void **state)
{
    (void)state;
    static const char y[] = "name: d\n"
                            "order: blocked\n"
                            "dut:\n"
                            "  ssh: root@198.18.0.2\n"
                            "  ssh_opts: -i /k\n"
                            "prepare: {run: sync, on: dut}\n"
                            "variants:\n"
                            "  - name: a\n"
                            "    boot: kexec-a\n"
                            "    expect: ^a$\n"
                            "    setup: {run: s, on: local}\n"
                            "    teardown: {run: t, on: dut}\n"
                            "  - name: b\n"
                            "    boot: {run: kexec-b, on: local}\n"
                            "    setup: plain\n";
    struct exp_errors errs = {0};
    struct experiment *e;
    assert_int_equal(experiment_load_buffer(y, strlen(y), &e, &errs), 0);
    assert_int_equal(e->order, EXP_ORDER_BLOCKED);
    assert_non_null(e->dut);
    assert_string_equal(e->dut->ssh, "root@198.18.0.2");
    assert_string_equal(e->dut->ssh_opts, "-i /k");
    assert_null(e->dut->server);
    assert_null(e->dut->identity);
    assert_int_equal(e->dut->port, 0);
    assert_true(e->dut->start_server);
    ASSERT_EQ(e->dut->boot_timeout, EXP_DUT_BOOT_TIMEOUT_S);
    assert_string_equal(e->prepare, "sync");
    assert_true(e->prepare_on_dut);
    const struct exp_variant *a = &e->variants[0], *b = &e->variants[1];
    assert_string_equal(a->boot, "kexec-a");
    assert_string_equal(a->expect, "^a$");
    assert_string_equal(a->setup, "s");
    assert_false(a->setup_on_dut);
    assert_true(a->teardown_on_dut);
    assert_string_equal(b->boot, "kexec-b"); /* the boot runs on the DUT whatever its form says */
    assert_null(b->expect);
    assert_string_equal(b->setup, "plain");
    assert_false(b->setup_on_dut);
    json_t *j = experiment_to_json(e);
    assert_string_equal(json_string_value(json_object_get(j, "order")), "blocked");
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "dut"), "ssh")),
                        "root@198.18.0.2");
    json_decref(j);
    experiment_free(e);
    exp_errors_free(&errs);
}

/* Loads text from memory; fails the test on any error. */
static struct experiment *load_duts(const char *text)
{
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    int err = experiment_load_buffer(text, strlen(text), &e, &errs);
    for (size_t i = 0; i < errs.n; i++)
        print_message("%d:%d: %s\n", errs.v[i].line, errs.v[i].col, errs.v[i].msg);
    assert_int_equal(err, 0);
    exp_errors_free(&errs);
    return e;
}

/* duts: as a list and as a mapping, the axis dut, a variant's dut: and the spec's members. */
static void test_duts(void **state)
{
    (void)state;
    static const char list[] = "name: m\nparallel: duts\nduts:\n"
                               "  - {name: p3, ssh: root@198.18.1.2, port: 5400}\n"
                               "  - {name: pe, ssh: root@198.18.2.2}\n"
                               "test: {streams: 2}\nvariants:\n  - name: a\n"
                               "matrix:\n  dut: [pe, p3]\n  streams: [1, 4]\n";
    struct experiment *e = load_duts(list);
    ASSERT_EQ(e->nduts, 2);
    assert_true(e->named_duts && e->parallel_duts);
    assert_null(e->dut); /* several: no single DUT of every run */
    assert_string_equal(e->duts[0].name, "p3");
    ASSERT_EQ(e->duts[0].port, 5400);
    struct exp_cell *cells;
    size_t n;
    assert_int_equal(experiment_cells(e, &cells, &n), 0);
    ASSERT_EQ(n, 4);
    assert_string_equal(cells[0].name, "dut=pe,streams=1");
    /* The axis's order is the file's: pe first, which is DUT 1. */
    ASSERT_EQ(experiment_run_dut(e, &e->variants[0], &cells[0]), 1);
    ASSERT_EQ(experiment_run_dut(e, &e->variants[0], &cells[3]), 0);
    char **argv;
    int argc;
    assert_int_equal(experiment_run_args(e, &e->variants[0], &cells[3], &argv, &argc), 0);
    for (int i = 0; i < argc; i++)
        assert_true(strcmp(argv[i], "dut") && strcmp(argv[i], "p3")); /* not a run option */
    assert_string_equal(argv[2], "4"); /* -P from the cell replaces the test's 2 */
    exp_argv_free(argv);
    exp_cells_free(cells, n);
    json_t *j = experiment_to_json(e);
    assert_non_null(j);
    ASSERT_EQ(json_array_size(json_object_get(j, "duts")), 2);
    assert_string_equal(json_string_value(json_object_get(j, "parallel")), "duts");
    assert_null(json_object_get(j, "dut"));
    json_decref(j);
    experiment_free(e);

    static const char map[] = "name: m\nduts:\n  p3: {ssh: root@198.18.1.2}\n"
                              "  pe: {ssh: root@198.18.2.2}\nvariants:\n"
                              "  - {name: a, dut: pe}\n  - {name: b, dut: p3}\n";
    e = load_duts(map);
    ASSERT_EQ(e->nduts, 2);
    assert_false(e->parallel_duts);
    assert_string_equal(e->duts[1].name, "pe");
    ASSERT_EQ(experiment_run_dut(e, &e->variants[0], NULL), 1);
    ASSERT_EQ(experiment_run_dut(e, &e->variants[1], NULL), 0);
    experiment_free(e);

    /* A single dut: is the DUT of every run, unnamed, as before. */
    e = load_duts("name: s\ndut: {ssh: root@198.18.1.2}\nvariants:\n  - name: a\n");
    ASSERT_EQ(e->nduts, 1);
    assert_ptr_equal(e->dut, &e->duts[0]);
    assert_null(e->duts[0].name);
    assert_false(e->named_duts);
    ASSERT_EQ(experiment_run_dut(e, &e->variants[0], NULL), 0);
    experiment_free(e);
}

/* report: {cell, columns}: stored in the spec as the report reads it; bad ones refused at their
 * line. */
static void test_report_cell(void **state)
{
    (void)state;
    char msg[NB_ERRLEN];
    static const char base[] = "name: h\nvariants:\n  - name: a\nmatrix:\n  streams: [1, 2]\n"
                               "  length: [8K]\n  test: [tcp_stream, udp_stream]\n";
    char y[512];
    snprintf(y, sizeof(y),
             "%sreport:\n  cell: 'r {tcp_stream:throughput} c {cpu_remote}'\n"
             "  columns: streams\n",
             base);
    struct experiment *e = load_text(y, msg, sizeof(msg));
    if (!e)
        fail_msg("load failed: %s", msg);
    assert_string_equal(e->report_cell, "r {tcp_stream:throughput} c {cpu_remote}");
    assert_string_equal(e->report_columns, "streams");
    json_t *j = experiment_to_json(e);
    assert_string_equal(spec_report_cell(j), "r {tcp_stream:throughput} c {cpu_remote}");
    assert_string_equal(spec_report_columns(j), "streams");
    json_decref(j);
    experiment_free(e);

    static const struct {
        const char *yaml, *want;
    } bad[] = {
        {"report: {cell: 'x {tcp_stream:thruput}', columns: streams}\n",
         "report: cell template: {tcp_stream:thruput}: unknown metric 'thruput'"},
        {"report: {cell: 'x {cpu_remote', columns: streams}\n", "is never closed with '}'"},
        {"report: {cell: 'x {cpu_remote}', columns: test}\n", "columns: test: the test axis"},
        {"report: {cell: 'x {cpu_remote}', columns: mss}\n", "'mss' is no axis of the matrix"},
        {"report: {cell: 'x {cpu_remote}'}\n", "the matrix has 2 axes besides test"},
        {"report: {columns: streams}\n", "'columns' goes with 'cell'"},
        {"report: {cel: x}\n", "cel"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(y, sizeof(y), "%s%s", base, bad[i].yaml);
        e = load_text(y, msg, sizeof(msg));
        assert_null(e);
        if (!strstr(msg, bad[i].want))
            fail_msg("%s: message '%s' lacks '%s'", bad[i].yaml, msg, bad[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_example),
        cmocka_unit_test(test_shipped_example),
        cmocka_unit_test(test_layout_paths),
        cmocka_unit_test(test_cells_order),
        cmocka_unit_test(test_no_matrix_one_cell),
        cmocka_unit_test(test_run_args),
        cmocka_unit_test(test_split_words),
        cmocka_unit_test(test_to_json),
        cmocka_unit_test(test_load_buffer_defaults),
        cmocka_unit_test(test_dut),
        cmocka_unit_test(test_duts),
        cmocka_unit_test(test_bitrate_udp_only),
        cmocka_unit_test(test_empty_opts),
        cmocka_unit_test(test_layout_hot),
        cmocka_unit_test(test_report_cell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
