/* Parsers of `netab stats` input: every format, autodetection and file:line errors. */
#include "test_helpers.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "input/input.h"

/* Parses text as file "f.txt" and returns the result code; values land in v. */
static int parse(const char *text, enum input_format f, const char *metric, unsigned column,
                 struct input_values *v, char *err)
{
    struct input_opts o = {.format = f, .metric = metric, .column = column};
    memset(v, 0, sizeof(*v));
    err[0] = '\0';
    return input_parse_buffer("f.txt", text, strlen(text), &o, v, err, NB_ERRLEN);
}

static void expect_values(const char *text, enum input_format f, const char *metric,
                          const double *want, size_t n, enum input_format detected)
{
    struct input_values v;
    char err[NB_ERRLEN];
    int rc = parse(text, f, metric, 0, &v, err);
    if (rc)
        print_error("unexpected error: %s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(v.n, n);
    for (size_t i = 0; i < n; i++)
        ASSERT_REL(v.v[i], want[i], 1e-12);
    assert_int_equal(v.format, detected);
    input_values_free(&v);
}

static void expect_error(const char *text, enum input_format f, const char *metric, unsigned column,
                         const char *msg)
{
    struct input_values v;
    char err[NB_ERRLEN];
    int rc = parse(text, f, metric, column, &v, err);
    input_values_free(&v);
    if (!rc || !strstr(err, msg)) {
        print_error("wanted an error containing \"%s\", got rc %d \"%s\"\n", msg, rc, err);
        fail();
    }
}

static void test_plain(void **state)
{
    (void)state;
    const double w[] = {1, 2.5, 300, -4};
    expect_values("1\n# comment\n\n  2.5  # trailing\r\n3e2\n-4", INPUT_AUTO, NULL, w, 4,
                  INPUT_PLAIN);
    struct input_values v;
    char err[NB_ERRLEN];
    assert_int_equal(parse("run1 10 x\nrun2 20 y\n", INPUT_PLAIN, NULL, 2, &v, err), 0);
    assert_int_equal(v.n, 2);
    ASSERT_REL(v.v[1], 20, 1e-12);
    input_values_free(&v);
    expect_error("1\n2\n3\n4\n5\n6\nabc\n", INPUT_AUTO, NULL, 0, "f.txt:7: 'abc' is not a number");
    expect_error("1\nnan\n", INPUT_AUTO, NULL, 0, "f.txt:2: 'nan' is not a finite number");
    expect_error("inf\n", INPUT_PLAIN, NULL, 0, "f.txt:1: 'inf' is not a finite number");
    expect_error("1e999\n", INPUT_PLAIN, NULL, 0, "f.txt:1: '1e999' is not a finite number");
    expect_error("1.5x\n", INPUT_PLAIN, NULL, 0, "f.txt:1: '1.5x' is not a number");
    expect_error("1 2\n3\n", INPUT_PLAIN, NULL, 2, "f.txt:2: no column 2");
    /* An empty file is not an error for the parser; the CLI needs two values. */
    assert_int_equal(parse("# nothing\n\n", INPUT_AUTO, NULL, 0, &v, err), 0);
    assert_int_equal(v.n, 0);
    input_values_free(&v);
}

static void test_netab_json(void **state)
{
    (void)state;
    const double w[] = {9.4e9, 9.1e9};
    expect_values("{\"end\":{\"receiver\":{\"bits_per_second\":9.4e9}}}\n"
                  "{\"end\":{\"receiver\":{\"bits_per_second\":9.1e9}}}\n",
                  INPUT_AUTO, NULL, w, 2, INPUT_NETAB);
    expect_values("[{\"end\":{\"receiver\":{\"bits_per_second\":9.4e9}}},\n"
                  " {\"end\":{\"receiver\":{\"bits_per_second\":9.1e9}}}]\n",
                  INPUT_AUTO, NULL, w, 2, INPUT_NETAB);
    const double cost[] = {0.25, 0.5};
    expect_values("{\"end\":{\"service_demand\":{\"local_us_per_kib\":0.25}}}\n"
                  "{\"end\":{\"service_demand\":{\"local_us_per_kib\":0.5}}}\n",
                  INPUT_NETAB, "end.service_demand.local_us_per_kib", cost, 2, INPUT_NETAB);
    const double idx[] = {7};
    expect_values("{\"end\":{\"streams\":[{\"x\":1},{\"x\":7}]}}", INPUT_NETAB, "end.streams.1.x",
                  idx, 1, INPUT_NETAB);
    expect_error("{\"end\":{\"receiver\":{\"bits_per_second\":1}}}\n{\"end\":{}}\n", INPUT_AUTO,
                 NULL, 0, "f.txt:2: the document has no 'end.receiver.bits_per_second'");
    expect_error("{\"end\":{\"receiver\":{\"bits_per_second\":\"fast\"}}}\n", INPUT_AUTO, NULL, 0,
                 "f.txt:1: 'end.receiver.bits_per_second' is not a number");
    expect_error("{\"a\":1}\n{\"a\":", INPUT_AUTO, "a", 0, "f.txt:2: invalid JSON");
    expect_error("[1, 2]", INPUT_NETAB, NULL, 0, "f.txt:1: expected a JSON object");
}

static const char iperf3_tcp[] = "{\n  \"start\": {\"version\": \"iperf 3.12\"},\n  \"end\": {\n"
                                 "    \"sum_sent\": {\"bits_per_second\": 9.5e9},\n"
                                 "    \"sum_received\": {\"bits_per_second\": 9.4e9}\n  }\n}\n"
                                 "{\n  \"start\": {\"version\": \"iperf 3.12\"},\n  \"end\": {\n"
                                 "    \"sum_sent\": {\"bits_per_second\": 9.3e9},\n"
                                 "    \"sum_received\": {\"bits_per_second\": 9.2e9}\n  }\n}\n";

static void test_iperf3(void **state)
{
    (void)state;
    const double recv[] = {9.4e9, 9.2e9}, sent[] = {9.5e9, 9.3e9};
    expect_values(iperf3_tcp, INPUT_AUTO, NULL, recv, 2, INPUT_IPERF3);
    expect_values(iperf3_tcp, INPUT_AUTO, "end.sum_sent.bits_per_second", sent, 2, INPUT_IPERF3);
    const double udp[] = {1.05e6}, jitter[] = {0.02};
    const char *u = "{\"start\":{\"version\":\"iperf 3.12\"},\"end\":{\"sum\":{"
                    "\"bits_per_second\":1.05e6,\"jitter_ms\":0.02,\"lost_percent\":0}}}";
    expect_values(u, INPUT_AUTO, NULL, udp, 1, INPUT_IPERF3);
    expect_values(u, INPUT_IPERF3, "end.sum.jitter_ms", jitter, 1, INPUT_IPERF3);
    /* iperf3 3.12 UDP: end.sum is the sender's view; the default is what was received. */
    const double recv_udp[] = {0.9e6};
    expect_values("{\"start\":{\"version\":\"iperf 3.12\"},\"end\":{"
                  "\"sum\":{\"bits_per_second\":1.05e6,\"lost_percent\":14},"
                  "\"sum_sent\":{\"bits_per_second\":1.05e6},"
                  "\"sum_received\":{\"bits_per_second\":0.9e6}}}",
                  INPUT_AUTO, NULL, recv_udp, 1, INPUT_IPERF3);
    expect_error("{\"start\":{},\"end\":{},\"error\":\"unable to connect to server\"}",
                 INPUT_IPERF3, NULL, 0, "f.txt:1: the run reported an error: unable to connect");
}

static const char iperf2_tcp[] =
    "------------------------------------------------------------\n"
    "Client connecting to 127.0.0.1, TCP port 5001\n"
    "TCP window size: 2.50 MByte (default)\n"
    "------------------------------------------------------------\n"
    "[  3] local 127.0.0.1 port 51514 connected with 127.0.0.1 port 5001\n"
    "[ ID] Interval       Transfer     Bandwidth\n"
    "[  3]  0.0-30.0 sec  2.71 GBytes   776 Mbits/sec\n"
    "------------------------------------------------------------\n"
    "Client connecting to 127.0.0.1, TCP port 5001\n"
    "------------------------------------------------------------\n"
    "[  3] local 127.0.0.1 port 51516 connected with 127.0.0.1 port 5001\n"
    "[ ID] Interval       Transfer     Bandwidth\n"
    "[  3]  0.0- 1.0 sec   100 MBytes   839 Mbits/sec\n"
    "[  3]  1.0- 2.0 sec   101 MBytes   847 Mbits/sec\n"
    "[  3]  0.0- 2.0 sec   201 MBytes   843 Mbits/sec\n";

static const char iperf2_parallel[] =
    "Client connecting to 127.0.0.1, TCP port 5001\n"
    "[  4] local 127.0.0.1 port 1 connected with 127.0.0.1 port 5001\n"
    "[  3] local 127.0.0.1 port 2 connected with 127.0.0.1 port 5001\n"
    "[  4]  0.0-10.0 sec  1.00 GBytes   859 Mbits/sec\n"
    "[  3]  0.0-10.0 sec  1.10 GBytes   945 Mbits/sec\n"
    "[SUM]  0.0-10.0 sec  2.10 GBytes  1.80 Gbits/sec\n";

static const char iperf2_udp[] =
    "Client connecting to 127.0.0.1, UDP port 5001\n"
    "[  3] local 127.0.0.1 port 3 connected with 127.0.0.1 port 5001\n"
    "[  3]  0.0-60.0 sec  6.62 GBytes   950 Mbits/sec\n"
    "[  3] Sent 4838564 datagrams\n"
    "[  3] Server Report:\n"
    "[  3]  0.0-60.0 sec  6.62 GBytes   948 Mbits/sec   0.045 ms   37/4838564 (0.00076%)\n";

static void test_iperf2(void **state)
{
    (void)state;
    const double tcp[] = {776e6, 843e6};
    expect_values(iperf2_tcp, INPUT_AUTO, NULL, tcp, 2, INPUT_IPERF2);
    const double par[] = {1.80e9};
    expect_values(iperf2_parallel, INPUT_AUTO, NULL, par, 1, INPUT_IPERF2);
    const double udp[] = {948e6}, jit[] = {0.045}, loss[] = {100.0 * 37 / 4838564};
    expect_values(iperf2_udp, INPUT_AUTO, NULL, udp, 1, INPUT_IPERF2);
    expect_values(iperf2_udp, INPUT_IPERF2, "jitter", jit, 1, INPUT_IPERF2);
    expect_values(iperf2_udp, INPUT_IPERF2, "loss", loss, 1, INPUT_IPERF2);
    const double bytes[] = {2.71 * 1024 * 1024 * 1024, 201.0 * 1024 * 1024};
    expect_values(iperf2_tcp, INPUT_IPERF2, "transfer", bytes, 2, INPUT_IPERF2);
    /* Runs appended without headers are split where time starts over. */
    const double two[] = {843e6, 850e6};
    expect_values("[  3]  0.0- 1.0 sec   100 MBytes   839 Mbits/sec\n"
                  "[  3]  1.0- 2.0 sec   101 MBytes   847 Mbits/sec\n"
                  "[  3]  0.0- 2.0 sec   201 MBytes   843 Mbits/sec\n"
                  "[  3]  0.0- 1.0 sec   100 MBytes   845 Mbits/sec\n"
                  "[  3]  1.0- 2.0 sec   101 MBytes   855 Mbits/sec\n"
                  "[  3]  0.0- 2.0 sec   202 MBytes   850 Mbits/sec\n",
                  INPUT_IPERF2, NULL, two, 2, INPUT_IPERF2);
    expect_error(iperf2_tcp, INPUT_IPERF2, "jitter", 0, "needs a UDP server report");
    expect_error(iperf2_tcp, INPUT_IPERF2, "speed", 0, "unknown iperf2 metric 'speed'");
    expect_error("Client connecting to x\n[  3]  0.0-30.0 sec  2.71 GBytes   776 Mbats/sec\n",
                 INPUT_AUTO, NULL, 0, "f.txt:2: malformed iperf2 interval line");
    expect_error("Client connecting to x\n[  3]  0.0- 1.0 sec 1 MBytes 8 Mbits/sec\n"
                 "[  3]  1.0- 2.0 sec 1 MBytes 8 Mbits/sec\n",
                 INPUT_AUTO, NULL, 0, "f.txt:2: iperf2 run has no final 0.0-2.0 line");
}

static void test_formats_and_files(void **state)
{
    (void)state;
    enum input_format f;
    assert_int_equal(input_parse_format("iperf2", &f), 0);
    assert_int_equal(f, INPUT_IPERF2);
    assert_int_equal(input_parse_format("csv", &f), -EINVAL);
    struct input_values v = {0};
    char err[NB_ERRLEN];
    struct input_opts o = {0};
    int rc = input_read_path("/nonexistent/netab-stats-test", &o, &v, err, sizeof(err));
    assert_int_equal(rc, -ENOENT);
    assert_non_null(strstr(err, "cannot open /nonexistent/netab-stats-test"));
    const char bin[] = "1\n\0 2\n";
    rc = input_parse_buffer("b.bin", bin, sizeof(bin) - 1, &o, &v, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    assert_non_null(strstr(err, "b.bin: contains NUL bytes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_netab_json),
        cmocka_unit_test(test_iperf3),
        cmocka_unit_test(test_iperf2),
        cmocka_unit_test(test_formats_and_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
