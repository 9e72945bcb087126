/* Parsers of `netab stats` input: every format, autodetection and file:line errors. */
#include "test_helpers.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "input/input.h"
#include "netab_assert.h"

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
    expect_error("1\n2\n3\n4\n5\n6\n12abc\n", INPUT_AUTO, NULL, 0,
                 "f.txt:7: '12abc' is not a number");
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

/* Reads a committed iperf2 output (data/iperf2/) and checks every run's value. */
static void expect_file(const char *file, const char *metric, const double *want, size_t n)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/iperf2/%s", STATS_DATA, file);
    struct input_opts o = {.format = INPUT_AUTO, .metric = metric};
    struct input_values v = {0};
    char err[NB_ERRLEN] = "";
    int rc = input_read_path(path, &o, &v, err, sizeof(err));
    if (rc)
        fail_msg("%s: %s", file, err);
    assert_int_equal(v.format, INPUT_IPERF2);
    if (v.n != n)
        fail_msg("%s: %zu runs, wanted %zu", file, v.n, n);
    for (size_t i = 0; i < n; i++)
        ASSERT_REL(v.v[i], want[i], 1e-12);
    input_values_free(&v);
}

/* Real iperf 2.1.8 outputs: one value per run, by report structure (issue 10). */
static void test_iperf2_real(void **state)
{
    (void)state;
    const double tcp[] = {4.25e9, 5.95e9, 14.4e9};
    expect_file("tcp_p2_client.txt", NULL, tcp, 3); /* the old parser found 4 runs */
    expect_file("tcp_p2_server.txt", NULL, tcp, 3);
    const double udp[] = {829e6, 833e6, 786e6};
    expect_file("udp_client.txt", NULL, udp, 3);
    const double lossy[] = {2.87e9, 2.13e9},
                 lossy_loss[] = {100.0 * 31137 / 287584, 100.0 * 97229 / 287568};
    expect_file("udp_lossy_client.txt", NULL, lossy, 2);
    expect_file("udp_lossy_client.txt", "loss", lossy_loss, 2);
    /* -P 2 UDP: the streams' server reports summed, not the sender's [SUM]. */
    const double p2[] = {258e6 + 253e6, 314e6 + 285e6};
    const double p2_loss[] = {100.0 * (4777 + 5073) / (26753 + 26606),
                              100.0 * (58 + 2485) / (26755 + 26754)};
    const double p2_jitter[] = {0.001, 0.000};
    expect_file("udp_p2_client.txt", NULL, p2, 2);
    expect_file("udp_p2_client.txt", "loss", p2_loss, 2);
    expect_file("udp_p2_client.txt", "jitter", p2_jitter, 2);
    const double server[] = {1.07e6, 475e6};
    expect_file("udp_server.txt", NULL, server, 2);
}

/* The structural cases of issue 10 in small synthetic form. */
static void test_iperf2_structure(void **state)
{
    (void)state;
    /* A stream's line ending 2 % after the [SUM] is not a run of its own. */
    const double sum[] = {1.8e9};
    expect_values("[  4]  0.0-10.2 sec  1.00 GBytes   859 Mbits/sec\n"
                  "[  3]  0.0-10.0 sec  1.10 GBytes   945 Mbits/sec\n"
                  "[SUM]  0.0-10.0 sec  2.10 GBytes  1.80 Gbits/sec\n",
                  INPUT_IPERF2, NULL, sum, 1, INPUT_IPERF2);
    /* A UDP server report ending well before the client's line is still the run's value. */
    const double early[] = {700e6};
    expect_values("Client connecting to 127.0.0.1, UDP port 5001\n"
                  "[  3]  0.0-10.0 sec  1.16 GBytes  1.00 Gbits/sec\n"
                  "[  3] Sent 850000 datagrams\n"
                  "[  3] Server Report:\n"
                  "[  3]  0.0- 9.5 sec   793 MBytes   700 Mbits/sec   0.050 ms 250000/850000 "
                  "(29%)\n",
                  INPUT_AUTO, NULL, early, 1, INPUT_IPERF2);
    /* iperf2's standard out-of-order notice does not reject the file. */
    const double ooo[] = {948e6};
    expect_values("Client connecting to 127.0.0.1, UDP port 5001\n"
                  "[  3]  0.0-10.0 sec  1.10 GBytes   950 Mbits/sec\n"
                  "[  3] Server Report:\n"
                  "[  3]  0.0-10.0 sec  1.10 GBytes   948 Mbits/sec   0.045 ms   37/806000 (0%)\n"
                  "[  3]  0.0-10.0 sec  12 datagrams received out-of-order\n",
                  INPUT_AUTO, NULL, ooo, 1, INPUT_IPERF2);
    /* An error quotes its own line only, never the lines after it. */
    struct input_values v;
    char err[NB_ERRLEN];
    assert_int_equal(parse("Client connecting to x\n[  3]  0.0-1.0 sec 1 MBytes 8 Mbats/sec\r\n"
                           "NEXT LINE\n",
                           INPUT_AUTO, NULL, 0, &v, err),
                     -EINVAL);
    input_values_free(&v);
    assert_non_null(strstr(err, "'[  3]  0.0-1.0 sec 1 MBytes 8 Mbats/sec'"));
    assert_null(strstr(err, "NEXT"));
    /* Streams without their [SUM] are an error, not one run per stream. */
    expect_error("Client connecting to x\n[  4]  0.0-10.0 sec 1 GBytes 859 Mbits/sec\n"
                 "[  3]  0.0-10.0 sec 1 GBytes 945 Mbits/sec\n",
                 INPUT_AUTO, NULL, 0, "2 streams but no [SUM] line");
}

static void test_formats_and_files(void **state)
{
    (void)state;
    /* The formats' words (`netab stats --format`), each a name input_format_name() gives back. */
    enum input_format f = INPUT_AUTO;
    const struct opt row = {"format", 0, "F", "", opt_set_one_of, 0, 0, 0, input_format_choices};
    char err[NB_ERRLEN];
    assert_int_equal(opt_set_one_of(&f, "iperf2", &row, err, sizeof(err)), 0);
    ASSERT_EQ(f, INPUT_IPERF2);
    assert_int_equal(opt_set_one_of(&f, "csv", &row, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--format: 'csv' is not one of plain, netab, iperf3, iperf2, auto");
    for (const struct opt_choice *c = input_format_choices; c->word; c++)
        assert_string_equal(input_format_name((enum input_format)c->value), c->word);
    struct input_values v = {0};
    struct input_opts o = {0};
    int rc = input_read_path("/nonexistent/netab-stats-test", &o, &v, err, sizeof(err));
    assert_int_equal(rc, -ENOENT);
    assert_non_null(strstr(err, "cannot open /nonexistent/netab-stats-test"));
    const char bin[] = "1\n\0 2\n";
    rc = input_parse_buffer("b.bin", bin, sizeof(bin) - 1, &o, &v, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    assert_non_null(strstr(err, "b.bin: contains NUL bytes"));
}

/* input_read_set(): a set needs two values; the message names the set as shown. */
static void test_read_set(void **state)
{
    (void)state;
    char path[] = "/tmp/netab-read-set-XXXXXX";
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("42.5\n", f);
    fclose(f);
    struct input_values v = {0};
    struct input_opts o = {0};
    char err[NB_ERRLEN];
    assert_int_equal(input_read_set(path, "old", &o, &v, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "old: only one value; at least two values are needed");
    assert_null(v.v);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("43.5\n", f);
    fclose(f);
    assert_int_equal(input_read_set(path, "old", &o, &v, err, sizeof(err)), 0);
    assert_int_equal(v.n, 2);
    ASSERT_REL(v.v[1], 43.5, 0);
    input_values_free(&v);
    f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(input_read_set(path, "empty", &o, &v, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "empty: no values; at least two values are needed");
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_netab_json),
        cmocka_unit_test(test_iperf3),
        cmocka_unit_test(test_iperf2),
        cmocka_unit_test(test_iperf2_real),
        cmocka_unit_test(test_iperf2_structure),
        cmocka_unit_test(test_formats_and_files),
        cmocka_unit_test(test_read_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
