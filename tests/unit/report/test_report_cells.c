/*
 * The cells the user asks for (docs/report.md, "The cells you ask for"):
 * the template parser (metric/celltpl.h) on good and bad templates, the
 * rounding of an entry, and the cell table of a report fed to
 * creport_build() directly: its strings, marks and "(fails)" against
 * figures worked out by hand, and the layouts it refuses.
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
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/celltable.h"
#include "metric/celltpl.h"

#define THREAD                                                                                     \
    "tcp {tcp_stream:sender_throughput}/{tcp_stream:throughput} udp "                              \
    "{udp_stream:sender_throughput}/{udp_stream:throughput} cpu {cpu_remote}"

static void test_parse_thread_template(void **state)
{
    (void)state;
    struct celltpl t;
    char err[NB_ERRLEN] = "";
    ASSERT_EQ(celltpl_parse(THREAD, &t, err, sizeof(err)), 0);
    ASSERT_EQ(t.nph, 5);
    ASSERT_EQ(t.nparts, 10);
    assert_string_equal(t.parts[0].text, "tcp ");
    assert_string_equal(t.parts[1].test, "tcp_stream");
    assert_string_equal(t.parts[1].metric->name, "sender_throughput");
    assert_string_equal(t.parts[1].source, "{tcp_stream:sender_throughput}");
    assert_string_equal(t.parts[2].text, "/");
    assert_string_equal(t.parts[8].text, " cpu ");
    assert_null(t.parts[9].test);
    assert_string_equal(t.parts[9].metric->name, "cpu_remote");
    celltpl_free(&t);
    /* Braces doubled are literal; a metric may be named by its path. */
    ASSERT_EQ(celltpl_parse("{{x}} {end.cpu.remote.total_pct}}}", &t, err, sizeof(err)), 0);
    ASSERT_EQ(t.nparts, 3);
    assert_string_equal(t.parts[0].text, "{x} ");
    assert_string_equal(t.parts[1].metric->name, "cpu_remote");
    assert_string_equal(t.parts[2].text, "}");
    celltpl_free(&t);
}

/* Parsing s fails with -EINVAL and a message holding want; *out is left empty. */
static void refused(const char *s, const char *want)
{
    struct celltpl t;
    char err[NB_ERRLEN] = "";
    ASSERT_EQ(celltpl_parse(s, &t, err, sizeof(err)), -EINVAL);
    assert_null(t.parts);
    ASSERT_EQ(t.nph, 0);
    if (!strstr(err, want))
        fail_msg("'%s': '%s' does not say '%s'", s, err, want);
}

static void test_parse_refusals(void **state)
{
    (void)state;
    refused("tcp {tcp_stream:throughput", "'{tcp_stream:throughput' at byte 5 is never closed");
    refused("a {x{cpu_remote}}", "'{x' at byte 3 is never closed");
    refused("a } b {cpu_remote}", "a '}' at byte 3 closes no '{'");
    refused("x {} y", "'{}' names no metric");
    refused("{tcp_strem:throughput}", "{tcp_strem:throughput}: unknown test 'tcp_strem'");
    refused("{tcp_stream:thruput}", "{tcp_stream:thruput}: unknown metric 'thruput'");
    refused("{thruput}", "{thruput}: unknown metric 'thruput'");
    refused("{tcp_stream:loss}", "{tcp_stream:loss}: loss is not measured in tcp_stream runs");
    refused("{tcp_rr:throughput}", "throughput is not measured in tcp_rr runs");
    refused("just text", "no placeholder");
    refused("a\n{cpu_remote}", "a control character (\\x0a) at byte 2");
    char many[CELLTPL_MAX_LEN];
    many[0] = '\0';
    for (int i = 0; i <= CELLTPL_MAX_PH; i++)
        strcat(many, "{loss}");
    refused(many, "more than 32 placeholders");
    char longer[CELLTPL_MAX_LEN + 20];
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    refused(longer, "1043 bytes, at most 1024");
}

static void test_cell_num(void **state)
{
    (void)state;
    char b[32];
    static const struct {
        double v;
        const char *want;
    } cases[] = {{94.4, "94"},    {94.5001, "95"},   {9.44, "9.4"}, {9.96, "10"},    {1, "1.0"},
                 {0.944, "0.94"}, {0.0123, "0.012"}, {0, "0"},      {-5.55, "-5.5"}, {NAN, "-"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        creport_cell_num(b, sizeof(b), cases[i].v);
        assert_string_equal(b, cases[i].want);
    }
}

enum { VARS = 3, CELLS = 4, PER = 3, N = VARS * CELLS * PER };
static const char *const vars[VARS] = {"a", "b", "c"};
static const char *const cells[CELLS] = {"streams=1,test=tcp_stream", "streams=1,test=udp_stream",
                                         "streams=2,test=tcp_stream", "streams=2,test=udp_stream"};
static const char spec2[] = "{\"variants\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": "
                            "\"c\"}], \"matrix\": [{\"key\": \"streams\", \"values\": [1, 2]}, "
                            "{\"key\": \"test\", \"values\": [\"tcp_stream\", \"udp_stream\"]}]}";

/*
 * a: tcp receives 100, 101, 102 and sends 10 more; udp 50.00, 50.01, 50.02
 * both ways; remote CPU 10, 11, 12 in every cell. b: tcp twice a's plus 0
 * (an improvement), udp as a's (within noise), tcp's CPU 10 points more (a
 * regression). c: every run refused. Cells streams=2 have 1000 more in tcp.
 */
static void fill_run(struct store_run *run, int v, int c, int k)
{
    bool tcp = !(c & 1);
    double extra = c >= 2 ? 1000 : 0;
    double recv = tcp ? (v ? 200 : 100) + k + extra : 50 + 0.01 * k;
    run->receiver_bps = recv * 1e6;
    run->sender_bps = (recv + (tcp ? 10 : 0)) * 1e6;
    run->cpu_remote_pct = 10 + k + (v && tcp ? 10 : 0);
    run->local_us_per_kib = run->remote_us_per_kib = run->cpu_local_pct =
        run->transactions_per_second = run->latency_p50_us = run->latency_p99_us =
            run->lost_percent = run->local_process_us_per_kib = run->remote_process_us_per_kib =
                NAN;
    run->result_json =
        tcp ? "{\"test\": {\"test\": \"tcp_stream\"}}" : "{\"test\": {\"test\": \"udp_stream\"}}";
    if (v == 2) {
        run->status = STORE_RUN_FAILED;
        run->error = "cannot connect to 127.0.0.1 port 1: Connection refused";
        run->receiver_bps = run->sender_bps = run->cpu_remote_pct = NAN;
    }
}

/* The report of spec over the runs above with o's template; its creport_build() status. */
static int build_cells(const char *spec, const char *const *cell_names, const char *cell,
                       const char *columns, struct creport **r, char *err, size_t errlen)
{
    struct store_experiment x = {.id = 29, .name = "cells", .status = "done", .seed = 1};
    static struct store_plan_row plan[N];
    static struct store_run runs[N];
    size_t n = 0;
    memset(runs, 0, sizeof(runs));
    for (int k = 0; k < PER; k++)
        for (int c = 0; c < CELLS; c++)
            for (int v = 0; v < VARS; v++) {
                plan[n] = (struct store_plan_row){(int)n, (char *)vars[v], (char *)cell_names[c],
                                                  false, k};
                runs[n] = (struct store_run){.id = (int64_t)n + 1,
                                             .seq = (int)n,
                                             .status = STORE_RUN_OK,
                                             .variant = (char *)vars[v],
                                             .cell = (char *)cell_names[c]};
                fill_run(&runs[n], v, c, k);
                n++;
            }
    struct creport_opts o;
    creport_opts_default(&o);
    o.cell = cell;
    o.columns = columns;
    return creport_build(&x, spec, plan, n, runs, n, &o, r, err, errlen);
}

static int build(const char *spec, const char *cell, const char *columns, struct creport **r,
                 char *err, size_t errlen)
{
    return build_cells(spec, cells, cell, columns, r, err, errlen);
}

static const struct creport_cellbox *box(const struct creport *r, size_t v, size_t col)
{
    return &r->celltab->groups[0].boxes[v * r->celltab->ncols + col];
}

static void test_table_by_hand(void **state)
{
    (void)state;
    struct creport *r;
    char err[NB_ERRLEN] = "";
    ASSERT_EQ(build(spec2, THREAD, NULL, &r, err, sizeof(err)), 0);
    const struct creport_celltab *t = r->celltab;
    /* streams is the one axis besides test: the columns, chosen without --columns. */
    assert_string_equal(t->axis, "streams");
    ASSERT_EQ(t->ncols, 2);
    ASSERT_EQ(t->ngroups, 1);
    assert_string_equal(t->cols[0], "1");
    assert_string_equal(t->cols[1], "2");
    assert_string_equal(box(r, 0, 0)->text, "tcp 111/101 udp 50/50 cpu 11%");
    assert_string_equal(box(r, 0, 1)->text, "tcp 1111/1101 udp 50/50 cpu 11%");
    /* b: tcp improved, udp within noise; its CPU regressed in tcp, so the pooled one shows it. */
    assert_string_equal(box(r, 1, 0)->text, "tcp 211*/201* udp 50=/50= cpu 16%!");
    ASSERT_LE(fabs(box(r, 1, 0)->vals[4].value - 16), 1e-9);
    ASSERT_EQ(box(r, 1, 0)->vals[4].n, 6);
    ASSERT_LE(fabs(box(r, 1, 1)->vals[1].value - 1201), 1e-9);
    assert_string_equal(box(r, 1, 1)->vals[0].mark, "*");
    /* c: every run failed: the whole entry says so, each figure too. */
    assert_true(box(r, 2, 0)->fails);
    assert_string_equal(box(r, 2, 0)->text, "(fails)");
    assert_string_equal(box(r, 2, 1)->vals[4].text, "(fails)");
    ASSERT_EQ(box(r, 2, 1)->vals[4].failed, 6);
    /* JSON: the same strings and figures under cell_table. */
    json_t *doc = creport_to_json(r);
    const json_t *row = json_array_get(
        json_object_get(
            json_array_get(json_object_get(json_object_get(doc, "cell_table"), "tables"), 0),
            "rows"),
        1);
    const json_t *cell = json_array_get(json_object_get(row, "cells"), 0);
    assert_string_equal(json_string_value(json_object_get(row, "variant")), "b");
    assert_string_equal(json_string_value(json_object_get(cell, "text")),
                        "tcp 211*/201* udp 50=/50= cpu 16%!");
    const json_t *val = json_array_get(json_object_get(cell, "values"), 1);
    assert_string_equal(json_string_value(json_object_get(val, "mark")), "*");
    ASSERT_LE(fabs(json_real_value(json_object_get(val, "value")) - 201), 1e-9);
    json_decref(doc);
    creport_free(r);
}

/*
 * The same runs under the axis dut (its values the two DUTs): the columns
 * are the DUTs without --columns, as in the 8139 thread; with --columns and
 * a third axis, the rest makes one table per value.
 */
static void test_dut_columns(void **state)
{
    (void)state;
    static const char spec_dut[] =
        "{\"variants\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}], "
        "\"matrix\": [{\"key\": \"dut\", \"values\": [\"p3\", \"pe\"]}, {\"key\": \"test\", "
        "\"values\": [\"tcp_stream\", \"udp_stream\"]}]}";
    static const char *const dut_cells[CELLS] = {"dut=p3,test=tcp_stream", "dut=p3,test=udp_stream",
                                                 "dut=pe,test=tcp_stream",
                                                 "dut=pe,test=udp_stream"};
    struct creport *r;
    char err[NB_ERRLEN] = "";
    int rc = build_cells(spec_dut, dut_cells, THREAD, NULL, &r, err, sizeof(err));
    if (rc)
        fail_msg("%s", err);
    assert_string_equal(r->celltab->axis, "dut");
    assert_string_equal(r->celltab->cols[0], "p3");
    assert_string_equal(r->celltab->cols[1], "pe");
    assert_string_equal(box(r, 1, 1)->text, "tcp 1211*/1201* udp 50=/50= cpu 16%!");
    creport_free(r);
    /* --columns test's other axis: the DUTs become the tables' headings. */
    ASSERT_EQ(
        build_cells(spec_dut, dut_cells, "{tcp_stream:throughput}", "test", &r, err, sizeof(err)),
        -EINVAL);
    static const char spec_len[] =
        "{\"variants\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}], "
        "\"matrix\": [{\"key\": \"length\", \"values\": [\"8K\", \"64K\"]}, {\"key\": "
        "\"streams\", \"values\": [1]}, {\"key\": \"test\", \"values\": [\"tcp_stream\", "
        "\"udp_stream\"]}]}";
    static const char *const len_cells[CELLS] = {
        "length=8K,streams=1,test=tcp_stream", "length=8K,streams=1,test=udp_stream",
        "length=64K,streams=1,test=tcp_stream", "length=64K,streams=1,test=udp_stream"};
    ASSERT_EQ(build_cells(spec_len, len_cells, "{tcp_stream:throughput}", "streams", &r, err,
                          sizeof(err)),
              0);
    ASSERT_EQ(r->celltab->ncols, 1);
    ASSERT_EQ(r->celltab->ngroups, 2);
    assert_string_equal(r->celltab->groups[0].heading, "length=8K");
    assert_string_equal(r->celltab->groups[1].heading, "length=64K");
    assert_string_equal(r->celltab->groups[1].boxes[1].text, "1201*");
    creport_free(r);
}

/* Building with template and columns fails with -EINVAL and a message holding want. */
static void build_refused(const char *spec, const char *cell, const char *columns, const char *want)
{
    struct creport *r = NULL;
    char err[NB_ERRLEN] = "";
    ASSERT_EQ(build(spec, cell, columns, &r, err, sizeof(err)), -EINVAL);
    assert_null(r);
    if (!strstr(err, want))
        fail_msg("'%s' does not say '%s'", err, want);
}

static void test_layout_refusals(void **state)
{
    (void)state;
    build_refused(spec2, "{cpu_remote}", "length", "--columns length: the matrix has no such axis");
    build_refused(spec2, "{cpu_remote}", "test", "--columns test: the test axis folds");
    build_refused(spec2, "{tcp_rr:transactions}", NULL,
                  "{tcp_rr:transactions}: no cell of this experiment is tcp_rr");
    build_refused(spec2, "{tcp_stream:thruput}", NULL, "unknown metric 'thruput'");
    build_refused(spec2, NULL, "streams", "--columns streams: there is no cell template");
    /* Three axes besides test's place in the name: the plan's cells stay those four. */
    static const char spec3[] =
        "{\"variants\": [{\"name\": \"a\"}], \"matrix\": [{\"key\": \"streams\", \"values\": "
        "[1, 2]}, {\"key\": \"length\", \"values\": [\"8K\"]}, {\"key\": \"test\", \"values\": "
        "[\"tcp_stream\", \"udp_stream\"]}]}";
    build_refused(spec3, "{cpu_remote}", NULL, "the matrix has 2 besides test (streams, length)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_thread_template),
        cmocka_unit_test(test_parse_refusals),
        cmocka_unit_test(test_cell_num),
        cmocka_unit_test(test_table_by_hand),
        cmocka_unit_test(test_layout_refusals),
        cmocka_unit_test(test_dut_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
