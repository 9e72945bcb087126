/* Unit tests for proto/msg: greetings and expected message types. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/msg.h"

static void test_hello_good(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    json_t *m = msg_hello();
    assert_string_equal(msg_type(m), "hello");
    assert_int_equal(msg_check_hello(m, err, sizeof(err)), 0);
    json_decref(m);

    json_t *w = msg_welcome();
    assert_int_equal(msg_check_welcome(w, err, sizeof(err)), 0);
    /* A welcome is not a hello. */
    assert_int_equal(msg_check_hello(w, err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "\"hello\""));
    json_decref(w);
}

static void test_hello_wrong_magic(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    json_t *m = json_pack("{s:s, s:s, s:i}", "type", "hello", "magic", "iperf", "version", 1);
    assert_int_equal(msg_check_hello(m, err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "does not speak the netab protocol"));
    json_decref(m);

    m = json_pack("{s:s, s:i}", "type", "hello", "version", 1);
    assert_int_equal(msg_check_hello(m, err, sizeof(err)), -EPROTO);
    json_decref(m);
}

static void test_hello_wrong_version(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    json_t *m = json_pack("{s:s, s:s, s:i, s:s}", "type", "hello", "magic", "netab", "version",
                          PROTO_VERSION + 1, "software", "netab 9.9");
    assert_int_equal(msg_check_hello(m, err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "version"));
    assert_non_null(strstr(err, "netab 9.9"));
    char want[32];
    snprintf(want, sizeof(want), "version %d", PROTO_VERSION + 1);
    assert_non_null(strstr(err, want));
    json_decref(m);

    /* A version that is not an integer counts as missing. */
    m = json_pack("{s:s, s:s, s:s}", "type", "hello", "magic", "netab", "version", "1");
    assert_int_equal(msg_check_hello(m, err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "no protocol version"));
    json_decref(m);
}

static void test_hello_missing_version(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    json_t *m = json_pack("{s:s, s:s}", "type", "hello", "magic", "netab");
    assert_int_equal(msg_check_hello(m, err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "version"));
    json_decref(m);
}

/* A peer string cut mid-character (%.64s) still makes an error reply that encodes. */
static void test_error_truncated_utf8(void **state)
{
    (void)state;
    char sw[80];
    memset(sw, 'a', 63);
    strcpy(sw + 63, "\xc3\xa9 and more"); /* byte 64 is the first half of U+00E9 */
    json_t *m = json_pack("{s:s, s:s, s:i, s:s}", "type", "hello", "magic", "netab", "version",
                          PROTO_VERSION + 1, "software", sw);
    char err[NB_ERRLEN] = "";
    assert_int_equal(msg_check_hello(m, err, sizeof(err)), -EPROTO);
    json_decref(m);
    json_t *e = msg_error("%s", err);
    assert_non_null(e);
    const char *text = json_string_value(json_object_get(e, "message"));
    assert_non_null(strstr(text, "aaaa?)")); /* the half character became '?' */
    json_decref(e);
    /* Invalid bytes anywhere, and a valid multi-byte character kept as it is. */
    e = msg_error("x\xff\xc0\x80y \xe2\x82\xac");
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "message")), "x???y \xe2\x82\xac");
    json_decref(e);
}

/* A peer's error message and software string reach err printable: ESC, BEL, CR as \xNN. */
static void test_peer_text_is_printable(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    json_t *m = json_pack("{s:s, s:s}", "type", "error", "message", "\x1b[2Jx\x07\r");
    assert_int_equal(msg_expect(m, "welcome", "server", err, sizeof(err)), -ECONNABORTED);
    assert_string_equal(err, "server: \\x1b[2Jx\\x07\\x0d");
    json_decref(m);
    m = json_pack("{s:s, s:s, s:i, s:s}", "type", "welcome", "magic", "netab", "version",
                  PROTO_VERSION + 1, "software", "a\x1b]0;t\x07");
    assert_int_equal(msg_check_welcome(m, err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "peer (a\\x1b]0;t\\x07) speaks"));
    json_decref(m);
}

static void test_expect(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    json_t *m = msg_simple("ready");
    assert_int_equal(msg_expect(m, "ready", "server", err, sizeof(err)), 0);
    assert_int_equal(msg_expect(m, "accept", "server", err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "\"accept\""));
    assert_non_null(strstr(err, "\"ready\""));
    json_decref(m);
}

static void test_expect_error_propagates(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    json_t *m = msg_error("server busy: %d tests running", 4);
    assert_int_equal(msg_expect(m, "accept", "server", err, sizeof(err)), -ECONNABORTED);
    assert_string_equal(err, "server: server busy: 4 tests running");
    /* A welcome check passes the peer's error on as well. */
    assert_int_equal(msg_check_welcome(m, err, sizeof(err)), -ECONNABORTED);
    assert_string_equal(err, "server: server busy: 4 tests running");
    json_decref(m);

    m = msg_simple("error");
    assert_int_equal(msg_expect(m, "accept", "client", err, sizeof(err)), -ECONNABORTED);
    assert_string_equal(err, "client: error without a message");
    json_decref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_good),
        cmocka_unit_test(test_error_truncated_utf8),
        cmocka_unit_test(test_peer_text_is_printable),
        cmocka_unit_test(test_hello_wrong_magic),
        cmocka_unit_test(test_hello_wrong_version),
        cmocka_unit_test(test_hello_missing_version),
        cmocka_unit_test(test_expect),
        cmocka_unit_test(test_expect_error_propagates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
