/* Runs of iperf3 and iperf2 output as netab import records them (src/lib/input/input_runs.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_docs.h"
#include "input/input_runs.h"

/* The file's text (NUL-terminated), which the test frees. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

static void assert_close(double got, double want)
{
    if (!(fabs(got - want) <= 1e-12 * fabs(want))) {
        fprintf(stderr, "got %.17g, want %.17g\n", got, want);
        fail();
    }
}

/* Parses text, expecting n runs; the caller frees *runs. */
static struct input_run *parse_ok(const char *text, size_t len, enum input_format f, size_t n)
{
    struct input_run *runs = NULL;
    size_t got = 0;
    char err[512] = "";
    int rc = input_runs_parse("f.txt", text, len, f, &runs, &got, err, sizeof(err));
    if (rc)
        fprintf(stderr, "unexpected error: %s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(got, n);
    return runs;
}

/* Expects -EINVAL with every piece of want in the message. */
static void parse_bad(const char *text, enum input_format f, const char *want1, const char *want2)
{
    struct input_run *runs = (struct input_run *)1;
    size_t n = 7;
    char err[512] = "";
    int rc = input_runs_parse("f.txt", text, strlen(text), f, &runs, &n, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    assert_null(runs);
    assert_int_equal(n, 0);
    if (!strstr(err, want1) || (want2 && !strstr(err, want2))) {
        fprintf(stderr, "message '%s' lacks '%s' / '%s'\n", err, want1, want2 ? want2 : "");
        fail();
    }
}

/* A real iperf3 TCP document: the receiver's view, the sender's, CPU, kernel, the original. */
static void test_iperf3_tcp(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(INPUT_DATA, "iperf3_tcp.json", &len);
    struct input_run *r = parse_ok(text, len, INPUT_AUTO, 1);
    assert_int_equal(r->tool, INPUT_IPERF3);
    assert_string_equal(r->test, "tcp_stream");
    assert_int_equal(r->line, 1);
    assert_close(r->receiver_bps, 18495688481.366653);
    assert_close(r->sender_bps, 18505756399.19327);
    assert_close(r->cpu_local_pct, 95.22638060707757);
    assert_true(isnan(r->lost_percent));
    assert_string_equal(r->kernel, "6.18.44-fc-v1045");
    json_t *doc = input_run_document(r, "/old/a.json", text);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "import"), "tool")),
                        "iperf3");
    json_t *recv = json_object_get(json_object_get(doc, "end"), "receiver");
    assert_close(json_number_value(json_object_get(recv, "bits_per_second")), 18495688481.366653);
    /* A figure iperf3 did not give is absent, never 0. */
    assert_null(json_object_get(recv, "lost_percent"));
    assert_true(json_equal(json_object_get(doc, "iperf3"), r->original));
    assert_null(json_object_get(doc, "iperf2_text"));
    json_decref(doc);
    input_runs_free(r, 1);
    free(text);
}

/* iperf3 3.12 UDP: end.sum is the sender's view, sum_received the receiver's. */
static void test_iperf3_udp(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(INPUT_DATA, "iperf3_udp.json", &len);
    struct input_run *r = parse_ok(text, len, INPUT_IPERF3, 1);
    assert_string_equal(r->test, "udp_stream");
    assert_close(r->receiver_bps, 10221908.941206818);
    assert_close(r->lost_percent, 0);
    assert_close(r->jitter_ms, 0.1006769797293849);
    input_runs_free(r, 1);
    free(text);
}

/* Documents concatenated (iperf3 -J >> f) and arrays: one run each, lines counted. */
static void test_iperf3_many(void **state)
{
    (void)state;
    const char *two = "{\"start\": {\"version\": \"iperf 3.9\"},\n"
                      " \"end\": {\"sum_received\": {\"bits_per_second\": 1e9}}}\n"
                      "\n{\"start\": {\"version\": \"iperf 3.9\"},\n"
                      " \"end\": {\"sum_received\": {\"bits_per_second\": 2e9}}}\n";
    struct input_run *r = parse_ok(two, strlen(two), INPUT_AUTO, 2);
    assert_close(r[0].receiver_bps, 1e9);
    assert_close(r[1].receiver_bps, 2e9);
    assert_int_equal(r[0].index, 0);
    assert_int_equal(r[1].index, 1);
    assert_int_equal(r[1].line, 4);
    input_runs_free(r, 2);
    const char *arr = "[{\"end\": {\"sum_received\": {\"bits_per_second\": 3}}},"
                      " {\"end\": {\"sum_received\": {\"bits_per_second\": 4}}}]";
    r = parse_ok(arr, strlen(arr), INPUT_AUTO, 2);
    assert_close(r[1].receiver_bps, 4);
    input_runs_free(r, 2);
}

static void test_iperf3_bad(void **state)
{
    (void)state;
    parse_bad("{\"start\": {\"version\": \"iperf 3.12\"}, \"error\": \"unable to connect\"}",
              INPUT_AUTO, "f.txt:1:", "unable to connect");
    parse_bad("{\"netab\": \"0.1.0\", \"end\": {}}", INPUT_AUTO, "f.txt:1: not an iperf3",
              "netab runs import");
    parse_bad("{\"a\": 1}", INPUT_IPERF3, "not an iperf3 -J document", NULL);
    parse_bad("{\"end\": {\"sum_received\": {\"bits_per_second\": 1e9}}}\n{\"end\": \n", INPUT_AUTO,
              "f.txt:3: invalid JSON", NULL);
    parse_bad("{\"end\": {\"sum_received\": {\"bytes\": 5}}}", INPUT_AUTO,
              "no finite 'end.sum_received.bits_per_second'", NULL);
    parse_bad("  \n\n", INPUT_AUTO, "f.txt: the file is empty", NULL);
    parse_bad("", INPUT_IPERF3, "empty", NULL);
    parse_bad("[]", INPUT_AUTO, "no run", NULL);
}

/* Real iperf2 logs: one run per [SUM] line, UDP from the server reports with loss and jitter. */
static void test_iperf2_real(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp(IPERF2_DATA, "tcp_p2_client.txt", &len);
    struct input_run *r = parse_ok(text, len, INPUT_AUTO, 3);
    const double tcp[] = {4.25e9, 5.95e9, 14.4e9};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(r[i].tool, INPUT_IPERF2);
        assert_string_equal(r[i].test, "tcp_stream");
        assert_int_equal(r[i].index, i);
        assert_close(r[i].receiver_bps, tcp[i]);
        assert_true(isnan(r[i].lost_percent));
    }
    json_t *doc = input_run_document(&r[2], "/old/tcp.txt", text);
    assert_string_equal(json_string_value(json_object_get(doc, "iperf2_text")), text);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "import"), "index")),
                     2);
    json_decref(doc);
    input_runs_free(r, 3);
    free(text);
    text = slurp(IPERF2_DATA, "udp_client.txt", &len);
    r = parse_ok(text, len, INPUT_IPERF2, 3);
    assert_string_equal(r[0].test, "udp_stream");
    assert_close(r[0].receiver_bps, 829e6);
    assert_close(r[2].receiver_bps, 786e6);
    assert_close(r[2].lost_percent, 100.0 * 4459 / 71331);
    assert_close(r[0].jitter_ms, 0.001);
    input_runs_free(r, 3);
    free(text);
}

static void test_iperf2_bad(void **state)
{
    (void)state;
    /* A client that never printed its final line: nothing to import. */
    parse_bad("------------------------------------------------------------\n"
              "Client connecting to 127.0.0.1, TCP port 5001\n"
              "[  1] local 127.0.0.1 port 4 connected with 127.0.0.1 port 5001\n",
              INPUT_AUTO, "f.txt: no iperf2 run", NULL);
    parse_bad("Client connecting to x\n[  3]  0.0-30.0 sec  2.71 GBytes   776 Mbats/sec\n",
              INPUT_AUTO, "f.txt:2: malformed iperf2 interval line", NULL);
    /* An iperf2 log starts with '[' too; it is not taken for JSON. */
    const char *log = "[  1] 0.0000-1.0000 sec  1.00 MBytes  8.00 Mbits/sec\n";
    struct input_run *r = parse_ok(log, strlen(log), INPUT_AUTO, 1);
    assert_int_equal(r->tool, INPUT_IPERF2);
    assert_close(r->receiver_bps, 8e6);
    input_runs_free(r, 1);
    parse_bad("hello\n", INPUT_AUTO, "no iperf2 run", NULL);
    /* A log that is not UTF-8 (a Latin-1 host name) is kept with '?' for the bad bytes. */
    const char *latin1 = "Client connecting to h\xe9te, TCP port 5001\n"
                         "[  1] 0.0000-1.0000 sec  1.00 MBytes  8.00 Mbits/sec\n";
    r = parse_ok(latin1, strlen(latin1), INPUT_AUTO, 1);
    json_t *doc = input_run_document(r, "/old/\xff.txt", latin1);
    assert_non_null(doc);
    assert_non_null(strstr(json_string_value(json_object_get(doc, "iperf2_text")), "h?te"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "import"), "file")),
                        "/old/?.txt");
    json_decref(doc);
    input_runs_free(r, 1);
}

/*
 * input_docs_read(): a file's runs appended as texts the store takes, and
 * a file that cannot be read or parsed adds nothing.
 */
static void test_docs_read(void **state)
{
    (void)state;
    struct input_docs d = {0};
    char err[512];
    size_t n = 0;
    const char *tool = NULL;
    assert_int_equal(
        input_docs_read(INPUT_DATA "/iperf3_tcp.json", INPUT_AUTO, &d, &n, &tool, err, sizeof(err)),
        0);
    assert_int_equal(n, 1);
    assert_int_equal(d.n, 1);
    assert_string_equal(tool, "iperf3");
    json_t *doc = json_loads(d.docs[0].result_json, 0, NULL);
    json_t *recv = json_object_get(json_object_get(doc, "end"), "receiver");
    assert_close(json_number_value(json_object_get(recv, "bits_per_second")), 18495688481.366653);
    json_decref(doc);
    json_t *params = json_loads(d.docs[0].params_json, 0, NULL);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(params, "import"), "tool")), "iperf3");
    json_decref(params);
    assert_non_null(strstr(d.docs[0].argv_text, "imported: iperf3 -J output /"));
    assert_non_null(strstr(d.docs[0].argv_text, "iperf3_tcp.json, run 1"));
    /* A missing file, then a file that is no run file: d keeps the first file's run only. */
    assert_int_equal(
        input_docs_read(INPUT_DATA "/none.json", INPUT_AUTO, &d, &n, &tool, err, sizeof(err)),
        -ENOENT);
    assert_non_null(strstr(err, "cannot open " INPUT_DATA "/none.json"));
    assert_int_equal(
        input_docs_read(INPUT_DATA "/README.md", INPUT_IPERF3, &d, &n, &tool, err, sizeof(err)),
        -EINVAL);
    assert_int_equal(d.n, 1);
    input_docs_free(&d);
    assert_int_equal(d.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iperf3_tcp),  cmocka_unit_test(test_iperf3_udp),
        cmocka_unit_test(test_iperf3_many), cmocka_unit_test(test_iperf3_bad),
        cmocka_unit_test(test_iperf2_real), cmocka_unit_test(test_iperf2_bad),
        cmocka_unit_test(test_docs_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
