/* Unit tests for engine/params: JSON encoding, decoding and validation. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "engine/params.h"
#include "engine/path_rx.h"

static const char *const all_keys[] = {
    "test",      "duration",    "bytes",         "streams", "reverse",    "bidir",
    "block",     "sockbuf",     "mss",           "nodelay", "congestion", "omit",
    "interval",  "server_cpu",  "rate",          "gso",     "gro",        "req_size",
    "resp_size", "outstanding", "rr_timeout_ms", "linger0"};
#define NKEYS (sizeof(all_keys) / sizeof(all_keys[0]))

static void assert_params_equal(const struct test_params *a, const struct test_params *b)
{
    assert_int_equal(a->kind, b->kind);
    ASSERT_EQ(a->duration_s, b->duration_s);
    assert_int_equal(a->bytes, b->bytes);
    assert_int_equal(a->streams, b->streams);
    assert_int_equal(a->reverse, b->reverse);
    assert_int_equal(a->bidir, b->bidir);
    assert_int_equal(a->block, b->block);
    assert_int_equal(a->sockbuf, b->sockbuf);
    assert_int_equal(a->mss, b->mss);
    assert_int_equal(a->nodelay, b->nodelay);
    assert_string_equal(a->cc, b->cc);
    ASSERT_EQ(a->omit_s, b->omit_s);
    ASSERT_EQ(a->interval_s, b->interval_s);
    assert_int_equal(a->server_cpu, b->server_cpu);
    assert_int_equal(a->rate_bps, b->rate_bps);
    assert_int_equal(a->gso, b->gso);
    assert_int_equal(a->gro, b->gro);
    assert_int_equal(a->req_size, b->req_size);
    assert_int_equal(a->resp_size, b->resp_size);
    assert_int_equal(a->outstanding, b->outstanding);
    assert_int_equal(a->rr_timeout_ms, b->rr_timeout_ms);
    assert_int_equal(a->linger0, b->linger0);
    assert_int_equal(a->perf, b->perf);
}

/* A valid parameter set with no field at its default. */
static void unusual_params(struct test_params *p)
{
    params_defaults(p);
    p->duration_s = 2.5;
    p->bytes = 3ull << 40;
    p->streams = 7;
    p->bidir = true;
    p->block = 1000;
    p->sockbuf = 4u << 20;
    p->mss = 1400;
    p->nodelay = true;
    strcpy(p->cc, "bbr");
    p->omit_s = 0.75;
    p->interval_s = 0.25;
    p->server_cpu = 3;
    p->rate_bps = 123456789;
    p->req_size = 77;
    p->resp_size = 999;
    p->outstanding = 5;
    p->rr_timeout_ms = 321;
}

/* Decodes obj expecting failure; the message must contain want. */
static void decode_fails(json_t *obj, const char *want)
{
    struct test_params p;
    char err[NB_ERRLEN] = "";
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
    int rc = params_from_json(obj, &p, err, sizeof(err));
    if (rc != -EINVAL)
        fail_msg("%s decoded with %d, expected -EINVAL", text, rc);
    if (!strstr(err, want))
        fail_msg("%s: message '%s' lacks '%s'", text, err, want);
    free(text);
}

/* Encodes the unusual set with key replaced by val (NULL: removed); checks the error. */
static void field_fails(const char *key, json_t *val, const char *want)
{
    struct test_params p;
    unusual_params(&p);
    json_t *obj = params_to_json(&p);
    if (val)
        json_object_set_new(obj, key, val);
    else
        json_object_del(obj, key);
    decode_fails(obj, want);
    json_decref(obj);
}

static void test_defaults(void **state)
{
    (void)state;
    struct test_params p;
    params_defaults(&p);
    assert_int_equal(p.kind, TEST_TCP_STREAM);
    ASSERT_EQ(p.duration_s, 10);
    assert_int_equal(p.streams, 1);
    assert_int_equal(p.block, 128 * 1024);
    assert_int_equal(p.server_cpu, -1);
    char err[NB_ERRLEN];
    assert_int_equal(params_validate(&p, err, sizeof(err)), 0);
    assert_int_equal(params_connections(&p), 1);
    p.streams = 5;
    p.bidir = true;
    assert_int_equal(params_connections(&p), 10);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct test_params p, back;
    char err[NB_ERRLEN] = "";
    unusual_params(&p);
    json_t *obj = params_to_json(&p);
    assert_int_equal(json_object_size(obj), NKEYS);
    assert_string_equal(json_string_value(json_object_get(obj, "test")), "tcp_stream");
    memset(&back, 0x5a, sizeof(back));
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_params_equal(&p, &back);
    json_decref(obj);

    params_defaults(&p);
    p.reverse = true;
    obj = params_to_json(&p);
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_params_equal(&p, &back);
    json_decref(obj);
}

/* perf is optional (addition 3): absent means false, sent only when true, a boolean when sent. */
static void test_perf_optional(void **state)
{
    (void)state;
    struct test_params p, back;
    char err[NB_ERRLEN] = "";
    params_defaults(&p);
    json_t *obj = params_to_json(&p);
    assert_null(json_object_get(obj, "perf"));
    back.perf = true;
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_false(back.perf);
    json_decref(obj);
    p.perf = true;
    obj = params_to_json(&p);
    assert_true(json_is_true(json_object_get(obj, "perf")));
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_true(back.perf);
    json_object_set_new(obj, "perf", json_integer(1));
    assert_int_not_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "perf"));
    json_decref(obj);
}

/* send path (issue 32): its members only when set, round-tripped, checked and refused by name. */
static void test_send_path(void **state)
{
    (void)state;
    struct test_params p, back;
    char err[NB_ERRLEN] = "";
    params_defaults(&p);
    json_t *obj = params_to_json(&p);
    assert_null(json_object_get(obj, "send_path"));
    assert_null(json_object_get(obj, "tcp_rate"));
    json_decref(obj);
    p.tx = (struct path_tx_params){.mode = PATH_TX_MSG_ZEROCOPY,
                                   .pace_bps = 1000000000,
                                   .fq_rate_bps = 2000000000,
                                   .notsent_lowat = 16384};
    obj = params_to_json(&p);
    assert_string_equal(json_string_value(json_object_get(obj, "send_path")), "msg_zerocopy");
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_memory_equal(&back.tx, &p.tx, sizeof(p.tx));
    json_object_set_new(obj, "send_path", json_string("copy"));
    decode_fails(obj, "send_path");
    json_object_set_new(obj, "send_path", json_string("sendfile"));
    json_object_set_new(obj, "fq_rate", json_integer(0));
    decode_fails(obj, "fq_rate");
    json_object_set_new(obj, "fq_rate", json_integer(1000));
    json_object_set_new(obj, "notsent_lowat", json_string("16K"));
    decode_fails(obj, "notsent_lowat");
    json_object_del(obj, "notsent_lowat");
    json_object_set_new(obj, "test", json_string("udp_stream"));
    json_object_set_new(obj, "block", json_integer(1460));
    decode_fails(obj, "-Z applies to tcp_stream, not udp_stream");
    json_decref(obj);
}

/*
 * receive and socket paths (issue 32): optional keys, sent only when set,
 * decoded back, and refused when malformed or on a test they do not apply to.
 */
static void test_rx_paths(void **state)
{
    (void)state;
    struct test_params p, back;
    char err[NB_ERRLEN] = "";
    params_defaults(&p);
    json_t *obj = params_to_json(&p);
    static const char *const keys[] = {"skip_rx_copy", "busy_poll_us", "mptcp", "io_uring", "ktls"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        assert_null(json_object_get(obj, keys[i]));
    json_decref(obj);
    p.skip_rx_copy = p.mptcp = p.ktls = true;
    p.busy_poll_us = 50;
    p.io_uring = PATH_URING_ZC;
    obj = params_to_json(&p);
    assert_string_equal(json_string_value(json_object_get(obj, "io_uring")), "zc");
    assert_int_equal(json_integer_value(json_object_get(obj, "busy_poll_us")), 50);
    memset(&back, 0, sizeof(back));
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_true(back.skip_rx_copy && back.mptcp && back.ktls);
    assert_int_equal(back.busy_poll_us, 50);
    assert_int_equal(back.io_uring, PATH_URING_ZC);
    struct {
        const char *key;
        json_t *val;
        const char *want;
    } bad[] = {
        {"busy_poll_us", json_integer(0), "busy_poll_us"},
        {"busy_poll_us", json_integer(1000001), "busy_poll_us"},
        {"busy_poll_us", json_string("50"), "busy_poll_us"},
        {"io_uring", json_string("off"), "io_uring"},
        {"io_uring", json_string("sqpoll"), "io_uring"},
        {"io_uring", json_true(), "io_uring"},
        {"mptcp", json_integer(1), "mptcp"},
        {"skip_rx_copy", json_string("yes"), "skip_rx_copy"},
        {"test", json_string("tcp_rr"), "applies to tcp_stream only"},
        {"flows", json_integer(1), "not with --flows"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *o = json_deep_copy(obj);
        json_object_set_new(o, bad[i].key, bad[i].val);
        decode_fails(o, bad[i].want);
        json_decref(o);
    }
    json_decref(obj);
}

static void test_missing_fields(void **state)
{
    (void)state;
    for (size_t i = 0; i < NKEYS; i++) {
        char want[40];
        snprintf(want, sizeof(want), "\"%s\"", all_keys[i]);
        field_fails(all_keys[i], NULL, want);
    }
}

static void test_wrong_types(void **state)
{
    (void)state;
    field_fails("test", json_integer(0), "\"test\"");
    field_fails("duration", json_string("10"), "\"duration\" is not a number");
    field_fails("omit", json_true(), "\"omit\" is not a number");
    field_fails("interval", json_null(), "\"interval\" is not a number");
    field_fails("bytes", json_real(1e6), "\"bytes\"");
    field_fails("streams", json_real(1.5), "\"streams\"");
    field_fails("streams", json_string("2"), "\"streams\"");
    field_fails("block", json_false(), "\"block\"");
    field_fails("reverse", json_integer(1), "\"reverse\"");
    field_fails("bidir", json_string("true"), "\"bidir\"");
    field_fails("nodelay", json_integer(0), "\"nodelay\"");
    field_fails("congestion", json_integer(1), "\"congestion\"");
    field_fails("server_cpu", json_string("1"), "\"server_cpu\"");
    field_fails("mss", json_real(1400), "\"mss\"");

    json_t *arr = json_array();
    decode_fails(arr, "not a JSON object");
    json_decref(arr);
}

static void test_out_of_range(void **state)
{
    (void)state;
    /* One sentence for a value out of range, whichever side (it said "0..128" for 129). */
    field_fails("streams", json_integer(0), "streams 0 is out of range 1..128");
    field_fails("streams", json_integer(129), "streams 129 is out of range 1..128");
    field_fails("streams", json_integer(1000), "streams 1000 is out of range 1..128");
    field_fails("outstanding", json_integer(0), "outstanding 0 is out of range 1..");
    field_fails("outstanding", json_integer(PARAMS_MAX_OUTSTANDING + 1), "outstanding");
    field_fails("streams", json_integer(1ll << 40), "\"streams\"");
    field_fails("streams", json_integer(-1), "\"streams\"");
    field_fails("block", json_integer(0), "block size 0");
    field_fails("block", json_integer(PARAMS_MAX_BLOCK + 1), "block size 16777217 is out of range");
    field_fails("duration", json_real(-1), "duration -1");
    field_fails("duration", json_integer(0), "duration 0");
    /* JSON has no NaN or infinity: json_real refuses them, so a huge value stands in. */
    assert_null(json_real(NAN));
    field_fails("duration", json_real(1e300), "duration 1e+300");
    field_fails("duration", json_real(PARAMS_MAX_DURATION + 1), "duration");
    field_fails("interval", json_real(0.05), "interval 0.05");
    field_fails("interval", json_real(-1), "interval -1");
    field_fails("omit", json_real(-0.5), "omit -0.5");
    field_fails("omit", json_real(3601), "omit 3601");
    field_fails("mss", json_integer(50), "MSS 50");
    field_fails("mss", json_integer(70000), "MSS 70000 is out of range 88..65535");
    field_fails("sockbuf", json_integer(2ll << 30), "above 1 GiB");
    field_fails("bytes", json_integer(-1), "\"bytes\"");
    field_fails("server_cpu", json_integer(-2), "\"server_cpu\"");
    field_fails("server_cpu", json_integer(4096), "\"server_cpu\"");
    field_fails("test", json_string("udp_flood"), "unknown test \"udp_flood\"");

    /* The edges themselves are accepted. */
    struct test_params p, back;
    char err[NB_ERRLEN] = "";
    unusual_params(&p);
    p.bidir = false;
    p.streams = PARAMS_MAX_STREAMS;
    p.block = PARAMS_MAX_BLOCK;
    p.duration_s = PARAMS_MAX_DURATION;
    p.interval_s = 0;
    p.mss = 88;
    p.server_cpu = -1;
    json_t *obj = params_to_json(&p);
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_params_equal(&p, &back);
    json_decref(obj);
}

static void test_unknown_key(void **state)
{
    (void)state;
    field_fails("window", json_integer(65536), "unknown test parameter \"window\"");
    field_fails("", json_integer(0), "unknown test parameter \"\"");
}

static void test_reverse_bidir(void **state)
{
    (void)state;
    field_fails("reverse", json_true(), "--reverse and --bidir");
    struct test_params p;
    params_defaults(&p);
    p.reverse = p.bidir = true;
    char err[NB_ERRLEN] = "";
    assert_int_equal(params_validate(&p, err, sizeof(err)), -EINVAL);
}

static void test_cc_name(void **state)
{
    (void)state;
    field_fails("congestion", json_string("bbr;reboot"), "invalid characters");
    field_fails("congestion", json_string("Cubic"), "invalid characters");
    field_fails("congestion", json_string("a b"), "invalid characters");
    field_fails("congestion", json_string("../cubic"), "invalid characters");
    field_fails("congestion", json_string("abcdefghijklmnop"), "too long");

    struct test_params p, back;
    char err[NB_ERRLEN] = "";
    unusual_params(&p);
    strcpy(p.cc, "htcp-2_x");
    json_t *obj = params_to_json(&p);
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_string_equal(back.cc, "htcp-2_x");
    json_decref(obj);
    /* The longest name that fits: 15 characters. */
    strcpy(p.cc, "abcdefghijklmno");
    obj = params_to_json(&p);
    assert_int_equal(params_from_json(obj, &back, err, sizeof(err)), 0);
    assert_string_equal(back.cc, "abcdefghijklmno");
    json_decref(obj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),       cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_missing_fields), cmocka_unit_test(test_wrong_types),
        cmocka_unit_test(test_out_of_range),   cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_reverse_bidir),  cmocka_unit_test(test_cc_name),
        cmocka_unit_test(test_perf_optional),  cmocka_unit_test(test_send_path),
        cmocka_unit_test(test_rx_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
