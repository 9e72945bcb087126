/* Unit tests for proto/frame: encoding, decoding, validation and socket I/O. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "proto/frame.h"
#include "util/clock.h"

/* Builds a frame by hand: the 4-byte big-endian length, then body. */
static size_t make_frame(uint8_t *buf, uint32_t len, const char *body)
{
    buf[0] = (uint8_t)(len >> 24);
    buf[1] = (uint8_t)(len >> 16);
    buf[2] = (uint8_t)(len >> 8);
    buf[3] = (uint8_t)len;
    size_t n = body ? strlen(body) : 0;
    if (n)
        memcpy(buf + 4, body, n);
    return 4 + n;
}

/* Decodes a hand-made frame whose length matches its body. */
static int decode_body(const char *body, json_t **out, char *err)
{
    uint8_t buf[256];
    size_t n = make_frame(buf, (uint32_t)strlen(body), body);
    size_t consumed = 0;
    *out = NULL;
    return frame_decode(buf, n, out, &consumed, err, NB_ERRLEN);
}

static void test_round_trip(void **state)
{
    (void)state;
    json_t *msg = json_pack("{s:s, s:i, s:s}", "type", "start", "n", 42, "s", "h\u00e9llo");
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(frame_encode(msg, &buf, &len), 0);
    char *text = json_dumps(msg, JSON_COMPACT);
    size_t tlen = strlen(text);
    assert_int_equal(len, 4 + tlen);
    assert_int_equal(buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3], tlen);
    assert_memory_equal(buf + 4, text, tlen);

    json_t *out = NULL;
    size_t consumed = 0;
    char err[NB_ERRLEN] = "";
    assert_int_equal(frame_decode(buf, len, &out, &consumed, err, sizeof(err)), 0);
    assert_int_equal(consumed, len);
    assert_true(json_equal(msg, out));
    json_decref(out);
    free(text);
    free(buf);
    json_decref(msg);
}

/* A buffer holding a frame followed by more bytes consumes only that frame. */
static void test_decode_consumes_one_frame(void **state)
{
    (void)state;
    uint8_t buf[128];
    /* The length covers the 12 bytes of JSON and leaves 'X' for the next frame. */
    size_t n = make_frame(buf, 12, "{\"type\":\"a\"}X");
    json_t *out = NULL;
    size_t consumed = 0;
    char err[NB_ERRLEN];
    assert_int_equal(frame_decode(buf, n, &out, &consumed, err, sizeof(err)), 0);
    assert_int_equal(consumed, 16);
    assert_string_equal(json_string_value(json_object_get(out, "type")), "a");
    json_decref(out);
}

static void test_truncated(void **state)
{
    (void)state;
    uint8_t buf[64];
    size_t n = make_frame(buf, 12, "{\"type\":\"a\"}");
    json_t *out = NULL;
    size_t consumed = 99;
    char err[NB_ERRLEN];
    for (size_t i = 0; i < n; i++) {
        /* Partial header (i < 4) and partial body both ask for more bytes. */
        int rc = frame_decode(buf, i, &out, &consumed, err, sizeof(err));
        if (rc != -EAGAIN)
            fail_msg("prefix of %zu bytes gave %d, expected -EAGAIN", i, rc);
        assert_null(out);
        assert_int_equal(consumed, 99);
    }
}

static void test_oversized(void **state)
{
    (void)state;
    uint8_t buf[8];
    size_t n = make_frame(buf, FRAME_MAX + 1, NULL);
    json_t *out = NULL;
    size_t consumed = 0;
    char err[NB_ERRLEN] = "";
    assert_int_equal(frame_decode(buf, n, &out, &consumed, err, sizeof(err)), -EMSGSIZE);
    assert_null(out);
    assert_non_null(strstr(err, "65536"));

    /* The limit itself is allowed: only the body is missing. */
    n = make_frame(buf, FRAME_MAX, NULL);
    assert_int_equal(frame_decode(buf, n, &out, &consumed, err, sizeof(err)), -EAGAIN);
    assert_int_equal(frame_check_length(FRAME_MAX, err, sizeof(err)), 0);
    assert_int_equal(frame_check_length(UINT32_MAX, err, sizeof(err)), -EMSGSIZE);
}

static void test_length_zero(void **state)
{
    (void)state;
    uint8_t buf[8];
    size_t n = make_frame(buf, 0, NULL);
    json_t *out = NULL;
    size_t consumed = 0;
    char err[NB_ERRLEN] = "";
    assert_int_equal(frame_decode(buf, n, &out, &consumed, err, sizeof(err)), -EMSGSIZE);
    assert_non_null(strstr(err, "length 0"));
}

static void test_http_peer(void **state)
{
    (void)state;
    const char *req = "GET / HTTP/1.1\r\n\r\n";
    json_t *out = NULL;
    size_t consumed = 0;
    char err[NB_ERRLEN] = "";
    int rc = frame_decode((const uint8_t *)req, strlen(req), &out, &consumed, err, sizeof(err));
    assert_int_equal(rc, -EMSGSIZE);
    assert_non_null(strstr(err, "does not speak the netab protocol"));
    assert_non_null(strstr(err, "\"GET \""));
}

static void test_bad_bodies(void **state)
{
    (void)state;
    static const struct {
        const char *body, *msg;
    } cases[] = {
        {"not json", "not valid JSON"},
        {"{\"type\":\"a\"", "not valid JSON"},
        {"[\"type\", \"a\"]", "not a JSON object"},
        {"\"hello\"", "not valid JSON"}, /* jansson refuses bare values by default */
        {"{\"kind\":\"a\"}", "no string field \"type\""},
        {"{\"type\":1}", "no string field \"type\""},
        {"{\"type\":null}", "no string field \"type\""},
        {"{\"type\":\"a\",\"type\":\"b\"}", "not valid JSON"},
        {"{\"type\":\"a\",\"x\":1,\"x\":2}", "not valid JSON"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *out = NULL;
        char err[NB_ERRLEN] = "";
        int rc = decode_body(cases[i].body, &out, err);
        if (rc != -EPROTO || out)
            fail_msg("body %s gave %d, expected -EPROTO", cases[i].body, rc);
        if (!strstr(err, cases[i].msg))
            fail_msg("body %s: message '%s' lacks '%s'", cases[i].body, err, cases[i].msg);
    }
}

static void test_encode_too_large(void **state)
{
    (void)state;
    char *big = malloc(FRAME_MAX + 1);
    memset(big, 'x', FRAME_MAX);
    big[FRAME_MAX] = '\0';
    json_t *msg = json_pack("{s:s, s:s}", "type", "a", "pad", big);
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(frame_encode(msg, &buf, &len), -EMSGSIZE);
    assert_null(buf);
    json_decref(msg);
    free(big);
}

static void test_send_recv(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    json_t *msg = json_pack("{s:s, s:[i,i,i]}", "type", "result", "v", 1, 2, 3);
    char err[NB_ERRLEN] = "";
    uint64_t deadline = clock_now_ns() + 2000000000ull;
    assert_int_equal(frame_send(sv[0], msg, deadline, err, sizeof(err)), 0);
    assert_int_equal(frame_send(sv[0], msg, deadline, err, sizeof(err)), 0);
    for (int i = 0; i < 2; i++) {
        json_t *out = NULL;
        assert_int_equal(frame_recv(sv[1], &out, deadline, err, sizeof(err)), 0);
        assert_true(json_equal(msg, out));
        json_decref(out);
    }
    json_decref(msg);
    close(sv[0]);
    close(sv[1]);
}

/*
 * A frame above FRAME_MAX: encoded and received only where the larger limit
 * is asked for (a client reading "result"); everywhere else refused. A child
 * writes, since the frame may not fit the socket buffer.
 */
static void test_large_result(void **state)
{
    (void)state;
    size_t padlen = FRAME_MAX + 1000;
    char *pad = malloc(padlen + 1);
    assert_non_null(pad);
    memset(pad, 'x', padlen);
    pad[padlen] = '\0';
    json_t *msg = json_pack("{s:s, s:s}", "type", "result", "pad", pad);
    free(pad);
    uint8_t *buf = NULL;
    size_t len = 0;
    assert_int_equal(frame_encode(msg, &buf, &len), -EMSGSIZE);
    assert_int_equal(frame_encode_max(msg, FRAME_RESULT_MAX, &buf, &len), 0);
    ASSERT_GT(len, FRAME_MAX);
    free(buf);
    char err[NB_ERRLEN] = "";
    assert_int_equal(
        frame_check_length_max(FRAME_RESULT_MAX + 1, FRAME_RESULT_MAX, err, sizeof(err)),
        -EMSGSIZE);
    assert_non_null(strstr(err, "1048576"));
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        signal(SIGPIPE, SIG_IGN);
        close(sv[1]);
        uint64_t d = clock_now_ns() + 5000000000ull;
        int a = frame_send_max(sv[0], msg, FRAME_RESULT_MAX, d, err, sizeof(err));
        int b = frame_send_max(sv[0], msg, FRAME_RESULT_MAX, d, err, sizeof(err));
        _exit(a == 0 && (b == 0 || b == -EPIPE || b == -ECONNRESET) ? 0 : 1);
    }
    close(sv[0]);
    uint64_t deadline = clock_now_ns() + 5000000000ull;
    json_t *out = NULL;
    assert_int_equal(frame_recv_max(sv[1], &out, FRAME_RESULT_MAX, deadline, err, sizeof(err)), 0);
    assert_true(json_equal(msg, out));
    json_decref(out);
    assert_int_equal(frame_recv(sv[1], &out, deadline, err, sizeof(err)), -EMSGSIZE);
    assert_non_null(strstr(err, "65536"));
    close(sv[1]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    json_decref(msg);
}

static void test_recv_timeout(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char err[NB_ERRLEN] = "";
    json_t *out = NULL;
    uint64_t t0 = clock_now_ns();
    assert_int_equal(frame_recv(sv[1], &out, t0 + 50000000ull, err, sizeof(err)), -ETIMEDOUT);
    ASSERT_GE(clock_now_ns() - t0, 40000000ull);
    assert_non_null(strstr(err, "timed out"));
    assert_null(out);

    /* Silence in the middle of a body times out too. */
    uint8_t buf[16];
    size_t n = make_frame(buf, 12, "{\"ty");
    assert_int_equal(write(sv[0], buf, n), (ssize_t)n);
    t0 = clock_now_ns();
    assert_int_equal(frame_recv(sv[1], &out, t0 + 50000000ull, err, sizeof(err)), -ETIMEDOUT);
    assert_null(out);
    close(sv[0]);
    close(sv[1]);
}

static void test_recv_peer_close(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uint8_t buf[16];
    size_t n = make_frame(buf, 12, "{\"ty");
    assert_int_equal(write(sv[0], buf, n), (ssize_t)n);
    close(sv[0]);
    char err[NB_ERRLEN] = "";
    json_t *out = NULL;
    int rc = frame_recv(sv[1], &out, clock_now_ns() + 2000000000ull, err, sizeof(err));
    assert_int_equal(rc, -ECONNRESET);
    assert_null(out);
    /* Four of the twelve body bytes arrived. */
    assert_non_null(strstr(err, "4 of 12 bytes"));
    close(sv[1]);

    /* A close before a whole header is a reset as well. */
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(write(sv[0], buf, 2), 2);
    close(sv[0]);
    rc = frame_recv(sv[1], &out, clock_now_ns() + 2000000000ull, err, sizeof(err));
    assert_int_equal(rc, -ECONNRESET);
    assert_non_null(strstr(err, "2 of 4 bytes"));
    close(sv[1]);
}

/* A bad prefix on the wire is refused before any body is read. */
static void test_recv_oversized(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uint8_t buf[8];
    size_t n = make_frame(buf, 0x7fffffff, NULL);
    assert_int_equal(write(sv[0], buf, n), (ssize_t)n);
    char err[NB_ERRLEN] = "";
    json_t *out = NULL;
    int rc = frame_recv(sv[1], &out, clock_now_ns() + 2000000000ull, err, sizeof(err));
    assert_int_equal(rc, -EMSGSIZE);
    assert_non_null(strstr(err, "limit"));
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),     cmocka_unit_test(test_decode_consumes_one_frame),
        cmocka_unit_test(test_truncated),      cmocka_unit_test(test_oversized),
        cmocka_unit_test(test_length_zero),    cmocka_unit_test(test_http_peer),
        cmocka_unit_test(test_bad_bodies),     cmocka_unit_test(test_encode_too_large),
        cmocka_unit_test(test_send_recv),      cmocka_unit_test(test_large_result),
        cmocka_unit_test(test_recv_timeout),   cmocka_unit_test(test_recv_peer_close),
        cmocka_unit_test(test_recv_oversized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
