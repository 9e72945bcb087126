/* Unit tests for the option parser of 'netab run'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "capture.h"
#include "cli/cli.h"
#include "cli/cli_run.h"

#define MAXARGS 16

/* Parses "run" followed by the NULL-terminated arguments, with stderr captured into *errout. */
static int parse_err(struct run_spec *o, char **errout, ...)
{
    static char *argv[MAXARGS + 1];
    int argc = 0;
    argv[argc++] = "run";
    va_list ap;
    va_start(ap, errout);
    for (char *a; (a = va_arg(ap, char *)) != NULL && argc < MAXARGS;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    struct capture c;
    capture_begin(&c, 2);
    int rc = cli_run_parse(argc, argv, o);
    char *text = capture_end(&c);
    if (errout)
        *errout = text;
    else
        free(text);
    return rc;
}

#define parse(o, ...) parse_err(o, NULL, __VA_ARGS__, NULL)

/* Expects the arguments to be refused as bad usage. */
#define refused(...)                                                                               \
    do {                                                                                           \
        struct run_spec o_;                                                                        \
        int rc_ = parse(&o_, __VA_ARGS__);                                                         \
        if (rc_ != EXIT_USAGE)                                                                     \
            fail_msg("run %s returned %d, expected %d", #__VA_ARGS__, rc_, EXIT_USAGE);            \
    } while (0)

static void test_defaults(void **state)
{
    (void)state;
    struct run_spec o;
    memset(&o, 0x5a, sizeof(o));
    assert_int_equal(parse_err(&o, NULL, NULL), -1);
    assert_null(o.host);
    assert_false(o.json);
    assert_int_equal(o.params.kind, TEST_TCP_STREAM);
    ASSERT_EQ(o.params.duration_s, 10);
    assert_int_equal(o.params.bytes, 0);
    assert_int_equal(o.params.streams, 1);
    assert_false(o.params.reverse);
    assert_false(o.params.bidir);
    assert_int_equal(o.params.block, 131072);
    assert_int_equal(o.params.sockbuf, 0);
    assert_int_equal(o.params.mss, 0);
    assert_false(o.params.nodelay);
    assert_string_equal(o.params.cc, "");
    ASSERT_EQ(o.params.omit_s, 0);
    ASSERT_EQ(o.params.interval_s, 1);
    assert_int_equal(o.params.server_cpu, -1);
    assert_int_equal(o.client.port, 5301);
    assert_int_equal(o.client.family, AF_UNSPEC);
    assert_int_equal(o.client.cport, 0);
    assert_int_equal(o.client.cpu, -1);
    assert_null(o.client.bind_addr);
    assert_int_equal(o.client.connect_timeout_ms, 5000);
    assert_int_equal(o.client.idle_timeout_ms, 10000);
}

static void test_test_options(void **state)
{
    (void)state;
    struct run_spec o;
    assert_int_equal(parse(&o, "-t", "2.5"), -1);
    ASSERT_EQ(o.params.duration_s, 2.5);
    assert_int_equal(parse(&o, "--time", "30"), -1);
    ASSERT_EQ(o.params.duration_s, 30);
    assert_int_equal(parse(&o, "-n", "10M"), -1);
    assert_int_equal(o.params.bytes, 10ull * 1024 * 1024);
    assert_int_equal(parse(&o, "-n", "3K"), -1);
    assert_int_equal(o.params.bytes, 3072);
    assert_int_equal(parse(&o, "--bytes", "2G"), -1);
    assert_int_equal(o.params.bytes, 2ull << 30);
    assert_int_equal(parse(&o, "-n", "12345"), -1);
    assert_int_equal(o.params.bytes, 12345);
    assert_int_equal(parse(&o, "-P", "4"), -1);
    assert_int_equal(o.params.streams, 4);
    assert_int_equal(parse(&o, "-R"), -1);
    assert_true(o.params.reverse);
    assert_false(o.params.bidir);
    assert_int_equal(parse(&o, "--bidir", "-P", "3"), -1);
    assert_true(o.params.bidir);
    assert_false(o.params.reverse);
    assert_int_equal(params_connections(&o.params), 6);
    assert_int_equal(parse(&o, "-l", "64K"), -1);
    assert_int_equal(o.params.block, 65536);
    assert_int_equal(parse(&o, "-w", "1M"), -1);
    assert_int_equal(o.params.sockbuf, 1048576);
    assert_int_equal(parse(&o, "-M", "1400"), -1);
    assert_int_equal(o.params.mss, 1400);
    assert_int_equal(parse(&o, "-N"), -1);
    assert_true(o.params.nodelay);
    assert_int_equal(parse(&o, "-C", "bbr"), -1);
    assert_string_equal(o.params.cc, "bbr");
    assert_int_equal(parse(&o, "-O", "2"), -1);
    ASSERT_EQ(o.params.omit_s, 2);
    assert_int_equal(parse(&o, "--test", "tcp_stream"), -1);
    assert_int_equal(o.params.kind, TEST_TCP_STREAM);
}

static void test_output_and_connection_options(void **state)
{
    (void)state;
    struct run_spec o;
    assert_int_equal(parse(&o, "-A", "0,1"), -1);
    assert_int_equal(o.client.cpu, 0);
    assert_int_equal(o.params.server_cpu, 1);
    assert_int_equal(parse(&o, "-A", "3"), -1);
    assert_int_equal(o.client.cpu, 3);
    assert_int_equal(o.params.server_cpu, -1);
    assert_int_equal(parse(&o, "-i", "0.5"), -1);
    ASSERT_EQ(o.params.interval_s, 0.5);
    assert_int_equal(parse(&o, "-i", "0"), -1);
    ASSERT_EQ(o.params.interval_s, 0);
    assert_int_equal(parse(&o, "--cport", "6000"), -1);
    assert_int_equal(o.client.cport, 6000);
    assert_int_equal(parse(&o, "-4"), -1);
    assert_int_equal(o.client.family, AF_INET);
    assert_int_equal(parse(&o, "-6"), -1);
    assert_int_equal(o.client.family, AF_INET6);
    assert_int_equal(parse(&o, "-c", "::1", "-p", "5999"), -1);
    assert_string_equal(o.host, "::1");
    assert_int_equal(o.client.port, 5999);
    assert_int_equal(parse(&o, "--client", "127.0.0.2", "--port", "1"), -1);
    assert_string_equal(o.host, "127.0.0.2");
    assert_int_equal(o.client.port, 1);
    assert_int_equal(parse(&o, "-B", "127.0.0.3"), -1);
    assert_string_equal(o.client.bind_addr, "127.0.0.3");
    assert_int_equal(parse(&o, "-J"), -1);
    assert_true(o.json);
    assert_int_equal(parse(&o, "--connect-timeout", "250", "--idle-timeout", "700"), -1);
    assert_int_equal(o.client.connect_timeout_ms, 250);
    assert_int_equal(o.client.idle_timeout_ms, 700);
    /* Short options cluster, and a value may be attached. */
    assert_int_equal(parse(&o, "-NRP2", "-t3"), -1);
    assert_true(o.params.nodelay);
    assert_true(o.params.reverse);
    assert_int_equal(o.params.streams, 2);
    ASSERT_EQ(o.params.duration_s, 3);
}

static void test_bad_values(void **state)
{
    (void)state;
    refused("-t", "abc");
    refused("-t", "0");
    refused("-P", "0");
    refused("-P", "129");
    refused("-l", "10Q");
    refused("-l", "0");
    refused("-l", "17M");
    refused("-n", "0");
    refused("-p", "70000");
    refused("-p", "0");
    refused("--cport", "65536");
    refused("--test", "nosuch");
    refused("-R", "--bidir");
    refused("-M", "50");
    refused("-w", "2G");
    refused("-C", "abcdefghijklmnopq");
    refused("-C", "Bad!");
    refused("-O", "-1");
    refused("-i", "0.05");
    refused("-A", "4096");
    refused("-A", "1,x");
    refused("-A", "");
    refused("--idle-timeout", "99");
}

static void test_bad_syntax(void **state)
{
    (void)state;
    refused("-x");
    refused("--nosuch");
    refused("-t");
    refused("--time");
    refused("-P", "2", "extra");

    struct run_spec o;
    char *err;
    assert_int_equal(parse_err(&o, &err, "-x", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "unknown option '-x'"));
    free(err);
    /* An unknown option inside a cluster is named itself, not its neighbour. */
    assert_int_equal(parse_err(&o, &err, "-xR", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "unknown option '-x'"));
    free(err);
    assert_int_equal(parse_err(&o, &err, "--nosuch", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "unknown option '--nosuch'"));
    free(err);
    assert_int_equal(parse_err(&o, &err, "-P", "1", "-t", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "option '-t' needs a value"));
    free(err);
    assert_int_equal(parse_err(&o, &err, "-R", "--bidir", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "--reverse and --bidir"));
    free(err);
}

static void test_help(void **state)
{
    (void)state;
    struct run_spec o;
    struct capture c;
    capture_begin(&c, 1);
    int rc = parse(&o, "--help");
    char *out = capture_end(&c);
    assert_int_equal(rc, EXIT_OK);
    assert_non_null(strstr(out, "usage: netab run"));
    free(out);
    capture_begin(&c, 1);
    rc = parse(&o, "-P", "2", "-h");
    out = capture_end(&c);
    assert_int_equal(rc, EXIT_OK);
    free(out);
}

/*
 * A parse that stops inside the cluster "-hR" must not leak into the next
 * one: with optind = 1 glibc kept a pointer to the pending "R".
 */
static void test_repeated_parses(void **state)
{
    (void)state;
    struct run_spec o;
    struct capture c;
    capture_begin(&c, 1);
    int rc = parse(&o, "-hR");
    free(capture_end(&c));
    assert_int_equal(rc, EXIT_OK);
    assert_int_equal(parse(&o, "-t", "5"), -1);
    assert_false(o.params.reverse);
    ASSERT_EQ(o.params.duration_s, 5);

    refused("-xN");
    assert_int_equal(parse(&o, "-P", "3"), -1);
    assert_false(o.params.nodelay);
    assert_int_equal(o.params.streams, 3);

    for (int i = 0; i < 3; i++) {
        assert_int_equal(parse(&o, "-R", "-n", "1K"), -1);
        assert_true(o.params.reverse);
        assert_int_equal(o.params.bytes, 1024);
        refused("-P", "0");
    }
}

/* With --json a usage error produces exactly one JSON document on stdout. */
static void json_error_once(const char *opt, const char *val, const char *want)
{
    struct run_spec o;
    struct capture c;
    capture_begin(&c, 1);
    int rc = parse(&o, "--json", opt, val);
    char *out = capture_end(&c);
    assert_int_equal(rc, EXIT_USAGE);
    if (count_of(out, "\"netab_version\"") != 1)
        fail_msg("--json %s %s printed: %s", opt, val, out);
    json_error_t jerr;
    json_t *doc = json_loads(out, 0, &jerr);
    if (!doc)
        fail_msg("--json %s %s printed invalid JSON (%s): %s", opt, val, jerr.text, out);
    const char *msg = json_string_value(json_object_get(doc, "error"));
    assert_non_null(msg);
    if (!strstr(msg, want))
        fail_msg("error '%s' lacks '%s'", msg, want);
    json_decref(doc);
    free(out);
}

/*
 * --json-stream: a usage error is two lines, the error event and the end
 * event holding the --json document; with --json too it is refused and
 * stdout stays empty (a reader expects one of the two forms).
 */
static void test_json_stream(void **state)
{
    (void)state;
    struct run_spec o;
    assert_int_equal(parse(&o, "--json-stream", "-i", "0.5"), -1);
    assert_true(o.json_stream);
    assert_false(o.json);
    struct capture c;
    char *err;
    capture_begin(&c, 1);
    int rc = parse_err(&o, &err, "--json-stream", "--json", NULL);
    char *out = capture_end(&c);
    assert_int_equal(rc, EXIT_USAGE);
    assert_string_equal(out, "");
    if (!strstr(err, "--json and --json-stream cannot be combined"))
        fail_msg("--json --json-stream: stderr '%s'", err);
    free(out);
    free(err);
    capture_begin(&c, 1);
    rc = parse(&o, "-t", "abc", "--json-stream");
    out = capture_end(&c);
    assert_int_equal(rc, EXIT_USAGE);
    char *nl = strchr(out, '\n');
    assert_non_null(nl);
    json_t *ev = json_loadb(out, (size_t)(nl - out), 0, NULL);
    json_t *end = json_loads(nl + 1, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(ev, "event")), "error");
    assert_string_equal(json_string_value(json_object_get(end, "event")), "end");
    const char *msg = json_string_value(json_object_get(json_object_get(end, "data"), "error"));
    assert_non_null(msg);
    assert_string_equal(json_string_value(json_object_get(ev, "data")), msg);
    json_decref(ev);
    json_decref(end);
    free(out);
}

static void test_json_usage_errors(void **state)
{
    (void)state;
    json_error_once("-n", "0", "byte count must be positive");
    json_error_once("-l", "0", "block size must be positive");
    json_error_once("--test", "nosuch", "unknown test 'nosuch'");
    json_error_once("-t", "abc", "abc");
    json_error_once("-P", "0", "0");
    json_error_once("-R", "--bidir", "--reverse and --bidir");
    json_error_once("--plot", "t.txt", "--plot t.txt: the figure's format follows the file name");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_test_options),
        cmocka_unit_test(test_output_and_connection_options),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_bad_syntax),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_repeated_parses),
        cmocka_unit_test(test_json_usage_errors),
        cmocka_unit_test(test_json_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
