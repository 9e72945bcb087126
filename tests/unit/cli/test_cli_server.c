/* Unit tests for the option parser of 'netab server'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "capture.h"
#include "cli/cli.h"
#include "cli/cli_server.h"
#include "proto/server.h"

#define MAXARGS 16

/* Parses "server" followed by the NULL-terminated arguments, with stderr captured into *errout. */
static int parse_err(struct server_opts *o, char **errout, ...)
{
    static char *argv[MAXARGS + 1];
    int argc = 0;
    argv[argc++] = "server";
    va_list ap;
    va_start(ap, errout);
    for (char *a; (a = va_arg(ap, char *)) != NULL && argc < MAXARGS;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    struct capture c;
    capture_begin(&c, 2);
    int rc = cli_server_parse(argc, argv, o);
    char *text = capture_end(&c);
    if (errout)
        *errout = text;
    else
        free(text);
    return rc;
}

#define parse(o, ...) parse_err(o, NULL, __VA_ARGS__, NULL)

#define refused(...)                                                                               \
    do {                                                                                           \
        struct server_opts o_;                                                                     \
        int rc_ = parse(&o_, __VA_ARGS__);                                                         \
        if (rc_ != EXIT_USAGE)                                                                     \
            fail_msg("server %s returned %d, expected %d", #__VA_ARGS__, rc_, EXIT_USAGE);         \
    } while (0)

static void test_defaults(void **state)
{
    (void)state;
    struct server_opts o;
    memset(&o, 0x5a, sizeof(o));
    assert_int_equal(parse_err(&o, NULL, NULL), -1);
    assert_int_equal(o.cfg.port, 5301);
    assert_null(o.cfg.bind_addr);
    assert_int_equal(o.cfg.family, AF_UNSPEC);
    assert_int_equal(o.cfg.max_clients, 4);
    ASSERT_EQ(o.cfg.max_duration, 3600);
    assert_int_equal(o.cfg.max_streams, 128);
    assert_int_equal(o.cfg.idle_timeout_ms, 10000);
    assert_int_equal(o.cfg.liveness_timeout_ms, 5000);
    assert_int_equal(o.cfg.max_conn_per_addr, 8);
    assert_int_equal(o.cfg.max_pending, 256);
    ASSERT_EQ(o.cfg.max_test_memory, 256ull << 20);
    ASSERT_EQ(o.cfg.max_memory, 1024ull << 20);
    assert_false(o.cfg.one_off);
    assert_ptr_equal(o.cfg.log, stderr);
    assert_false(o.daemon);
    assert_null(o.logfile);
    assert_null(o.pidfile);
    assert_null(o.portfile);
    assert_null(o.auth_key_file);
    assert_null(o.cfg.auth_key);
}

static void test_options(void **state)
{
    (void)state;
    struct server_opts o;
    assert_int_equal(parse(&o, "-p", "0"), -1);
    assert_int_equal(o.cfg.port, 0);
    assert_int_equal(parse(&o, "--port", "6001", "-B", "127.0.0.1"), -1);
    assert_int_equal(o.cfg.port, 6001);
    assert_string_equal(o.cfg.bind_addr, "127.0.0.1");
    assert_int_equal(parse(&o, "-4"), -1);
    assert_int_equal(o.cfg.family, AF_INET);
    assert_int_equal(parse(&o, "-6", "--bind", "::1"), -1);
    assert_int_equal(o.cfg.family, AF_INET6);
    assert_string_equal(o.cfg.bind_addr, "::1");
    assert_int_equal(parse(&o, "-D1"), -1);
    assert_true(o.daemon);
    assert_true(o.cfg.one_off);
    assert_int_equal(parse(&o, "--daemon", "--one-off"), -1);
    assert_true(o.daemon);
    assert_true(o.cfg.one_off);
    assert_int_equal(parse(&o, "--max-clients", "8", "--max-duration", "60", "--max-streams", "16",
                           "--idle-timeout", "500"),
                     -1);
    assert_int_equal(o.cfg.max_clients, 8);
    ASSERT_EQ(o.cfg.max_duration, 60);
    assert_int_equal(o.cfg.max_streams, 16);
    assert_int_equal(o.cfg.idle_timeout_ms, 500);
    assert_int_equal(parse(&o, "--liveness-timeout", "2000", "--max-conn-per-addr", "3",
                           "--max-pending", "50", "--max-test-memory", "64M", "--max-memory", "2G"),
                     -1);
    assert_int_equal(o.cfg.liveness_timeout_ms, 2000);
    assert_int_equal(o.cfg.max_conn_per_addr, 3);
    assert_int_equal(o.cfg.max_pending, 50);
    ASSERT_EQ(o.cfg.max_test_memory, 64ull << 20);
    ASSERT_EQ(o.cfg.max_memory, 2ull << 30);
    assert_int_equal(
        parse(&o, "--logfile", "/tmp/l", "--pidfile", "/tmp/p", "--port-file", "/tmp/q"), -1);
    assert_string_equal(o.logfile, "/tmp/l");
    assert_string_equal(o.pidfile, "/tmp/p");
    assert_string_equal(o.portfile, "/tmp/q");
    assert_int_equal(parse(&o, "--auth-key", "/etc/netab/key"), -1);
    assert_string_equal(o.auth_key_file, "/etc/netab/key");
}

static void test_bad_usage(void **state)
{
    (void)state;
    refused("-p", "70000");
    refused("-p", "-1");
    refused("-p", "x");
    refused("--max-clients", "0");
    refused("--max-duration", "0");
    refused("--max-streams", "1025");
    refused("--idle-timeout", "10");
    refused("--liveness-timeout", "100");
    refused("--max-conn-per-addr", "0");
    refused("--max-pending", "0");
    refused("--max-test-memory", "lots");
    refused("-x");
    refused("--nosuch");
    refused("-p");
    refused("--logfile");
    refused("extra");

    struct server_opts o;
    char *err;
    assert_int_equal(parse_err(&o, &err, "-1x", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "unknown option '-x'"));
    free(err);
    assert_int_equal(parse_err(&o, &err, "--port", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "option '--port' needs a value"));
    free(err);
}

static void test_help_and_repeat(void **state)
{
    (void)state;
    struct server_opts o;
    struct capture c;
    capture_begin(&c, 1);
    int rc = parse(&o, "-hD");
    char *out = capture_end(&c);
    assert_int_equal(rc, EXIT_OK);
    assert_non_null(strstr(out, "usage: netab server"));
    free(out);
    /* The pending "D" of the cluster above must not carry over. */
    assert_int_equal(parse(&o, "-1"), -1);
    assert_false(o.daemon);
    assert_true(o.cfg.one_off);
}

/* The line a started server writes: its version, the port bound, the iperf3 port, the key. */
static void test_listening_line(void **state)
{
    (void)state;
    struct server_config cfg;
    server_config_defaults(&cfg);
    cfg.port = 0;
    cfg.bind_addr = "127.0.0.1";
    struct server *srv = NULL;
    char err[NB_ERRLEN], line[256], want[256];
    assert_int_equal(server_open(&srv, &cfg, err, sizeof(err)), 0);
    server_listening_text(srv, &cfg, line, sizeof(line));
    snprintf(want, sizeof(want), "netab server %s listening on port %u", NETAB_VERSION,
             server_port(srv));
    ASSERT_GT(server_port(srv), 0);
    assert_string_equal(line, want);
    server_free(srv);
    cfg.iperf3_port_on = true;
    cfg.iperf3_port = 0;
    assert_int_equal(server_open(&srv, &cfg, err, sizeof(err)), 0);
    server_listening_text(srv, &cfg, line, sizeof(line));
    snprintf(want, sizeof(want), " and iperf3 port %u", server_iperf3_port(srv));
    ASSERT_GT(server_iperf3_port(srv), 0);
    assert_non_null(strstr(line, want));
    server_free(srv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_options),
        cmocka_unit_test(test_bad_usage),      cmocka_unit_test(test_help_and_repeat),
        cmocka_unit_test(test_listening_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
