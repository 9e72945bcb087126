/*
 * Unit tests for proto/iperf3_wire, iperf3_doc and engine/udp_wire's iperf3
 * formats: the bytes iperf3 puts on the wire, written down here from its
 * observed traffic (Debian's iperf3 3.12), against netab's encoders and
 * decoders.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/udp_wire.h"
#include "proto/iperf3_doc.h"
#include "proto/iperf3_wire.h"
#include "netab_assert.h"

static void test_cookie(void **state)
{
    (void)state;
    char c[IPERF3_COOKIE_LEN];
    assert_int_equal(iperf3_cookie_make(c), 0);
    assert_int_equal(strlen(c), 36);
    assert_true(iperf3_cookie_valid((const uint8_t *)c));
    const uint8_t good[IPERF3_COOKIE_LEN] = "abcdefghijklmnopqrstuvwxyz234567abcd";
    assert_true(iperf3_cookie_valid(good));
    uint8_t bad[IPERF3_COOKIE_LEN];
    memcpy(bad, good, sizeof(bad));
    bad[5] = '8'; /* not in base32's alphabet */
    assert_false(iperf3_cookie_valid(bad));
    memcpy(bad, good, sizeof(bad));
    bad[36] = 'a'; /* no terminating NUL */
    assert_false(iperf3_cookie_valid(bad));
    /* netab's frames (a length whose first byte is 0) and data headers are never a cookie. */
    assert_false(iperf3_cookie_prefix((const uint8_t *)"\0\0\0\x40", 4));
    assert_false(iperf3_cookie_prefix((const uint8_t *)"NDAT", 4));
    assert_true(iperf3_cookie_prefix(good, 4));
}

static void test_stream_ids(void **state)
{
    (void)state;
    /* iperf3 numbers its streams 1, 3, 4, 5, ... in the order they are made. */
    assert_int_equal(iperf3_stream_id(0), 1);
    assert_int_equal(iperf3_stream_id(1), 3);
    assert_int_equal(iperf3_stream_id(4), 6);
    assert_int_equal(iperf3_stream_index(1, 4), 0);
    assert_int_equal(iperf3_stream_index(3, 4), 1);
    assert_int_equal(iperf3_stream_index(5, 4), 3);
    assert_int_equal(iperf3_stream_index(2, 4), -1);
    assert_int_equal(iperf3_stream_index(6, 4), -1);
    assert_int_equal(iperf3_stream_index(0, 4), -1);
}

static void test_udp_header(void **state)
{
    (void)state;
    char buf[32];
    /* 5.000250 s, datagram seq 0 = iperf3 count 1, in the 64-bit format. */
    udp_wire_put_as(UDP_WIRE_IPERF3_64, buf, 7, 0, 5000250000ull);
    static const uint8_t want64[16] = {0, 0, 0, 5, 0, 0, 0, 250, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_memory_equal(buf, want64, sizeof(want64));
    uint32_t id = 7;
    uint64_t seq = 99, sent = 0;
    assert_int_equal(udp_wire_get_as(UDP_WIRE_IPERF3_64, buf, 16, &id, &seq, &sent), 0);
    assert_int_equal(seq, 0);
    assert_int_equal(sent, 5000250000ull);
    assert_int_equal(id, 7);
    udp_wire_put_as(UDP_WIRE_IPERF3_32, buf, 0, 41, 0);
    static const uint8_t want32[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 42};
    assert_memory_equal(buf, want32, sizeof(want32));
    assert_int_equal(udp_wire_get_as(UDP_WIRE_IPERF3_32, buf, 12, &id, &seq, &sent), 0);
    assert_int_equal(seq, 41);
    /* Too short, count 0, microseconds of a second or more: not iperf3's. */
    assert_int_equal(udp_wire_get_as(UDP_WIRE_IPERF3_64, buf, 15, &id, &seq, &sent), -EPROTO);
    memset(buf, 0, 16);
    assert_int_equal(udp_wire_get_as(UDP_WIRE_IPERF3_64, buf, 16, &id, &seq, &sent), -EPROTO);
    buf[15] = 1;
    buf[5] = 0x0f; /* 0x0f0000 = 983040 us: still valid */
    assert_int_equal(udp_wire_get_as(UDP_WIRE_IPERF3_64, buf, 16, &id, &seq, &sent), 0);
    buf[5] = 0x10; /* 1048576 us */
    assert_int_equal(udp_wire_get_as(UDP_WIRE_IPERF3_64, buf, 16, &id, &seq, &sent), -EPROTO);
}

static json_t *parse(const char *text, bool strict)
{
    json_t *doc = NULL;
    char err[NB_ERRLEN];
    int rc = iperf3_json_parse(text, strlen(text), strict, &doc, err, sizeof(err));
    return rc ? NULL : doc;
}

static void test_params_from_iperf3(void **state)
{
    (void)state;
    /* What iperf3 3.12 sends for -c -u -b 200M -t 2 -P 2 --bidir -l 1400 --udp-counters-64bit. */
    json_t *doc = parse("{\"udp\":true,\"omit\":0,\"time\":2,\"num\":0,\"blockcount\":0,"
                        "\"parallel\":2,\"bidirectional\":true,\"len\":1400,\"bandwidth\":"
                        "200000000,\"pacing_timer\":1000,\"udp_counters_64bit\":1,"
                        "\"client_version\":\"3.12\"}",
                        true);
    assert_non_null(doc);
    struct iperf3_limits lim = {.max_streams = 8, .max_duration = 60};
    struct test_params p;
    struct iperf3_request req;
    params_defaults(&p);
    char err[NB_ERRLEN] = "";
    assert_int_equal(iperf3_params_from_json(doc, &lim, &p, &req, err, sizeof(err)), 0);
    assert_int_equal(p.kind, TEST_UDP_STREAM);
    assert_int_equal(p.streams, 2);
    assert_true(p.bidir);
    assert_int_equal(p.block, 1400);
    assert_int_equal(p.rate_bps, 200000000);
    assert_true(req.udp64);
    assert_string_equal(req.version, "3.12");
    ASSERT_EQ(p.duration_s, 2.0);
    /* iperf3's -l 16, below netab's own 24-byte header: accepted for an iperf3 peer. */
    json_t *small = parse("{\"udp\":true,\"time\":2,\"parallel\":1,\"len\":16}", true);
    assert_non_null(small);
    assert_int_equal(iperf3_params_from_json(small, &lim, &p, &req, err, sizeof(err)), 0);
    ASSERT_EQ(p.block, 16);
    assert_int_equal(params_validate(&p, err, sizeof(err)), -EINVAL); /* netab's own minimum */
    assert_non_null(strstr(err, "out of range 24..65507"));
    json_decref(small);
    /* Four connections against --max-streams 3: refused, naming the limit. */
    lim.max_streams = 3;
    assert_int_equal(iperf3_params_from_json(doc, &lim, &p, &req, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "--max-streams"));
    json_decref(doc);
}

/* What iperf3 3.12 sends for -c -R -Z --fq-rate 200M -b 300M -t 2, captured from its socket. */
static const char iperf3_paths_doc[] =
    "{\"tcp\":true,\"omit\":0,\"time\":2,\"num\":0,\"blockcount\":0,\"parallel\":1,"
    "\"reverse\":true,\"len\":131072,\"bandwidth\":300000000,\"fqrate\":200000000,"
    "\"pacing_timer\":1000,\"zerocopy\":1,\"client_version\":\"3.12\"}";

/* The server sends as iperf3's own sender would: sendfile, its pacing and its fq rate. */
static void test_params_send_path(void **state)
{
    (void)state;
    struct iperf3_limits lim = {.max_streams = 8, .max_duration = 60};
    struct test_params p;
    struct iperf3_request req;
    char err[NB_ERRLEN] = "";
    json_t *doc = parse(iperf3_paths_doc, true);
    assert_non_null(doc);
    params_defaults(&p);
    assert_int_equal(iperf3_params_from_json(doc, &lim, &p, &req, err, sizeof(err)), 0);
    assert_true(p.reverse);
    assert_int_equal(p.tx.mode, PATH_TX_SENDFILE);
    assert_int_equal(p.tx.pace_bps, 300000000);
    assert_int_equal(p.tx.fq_rate_bps, 200000000);
    assert_int_equal(params_validate(&p, err, sizeof(err)), 0);
    json_decref(doc);
    /* UDP: the rate is the datagrams' own; -Z and the fq rate leave the send path alone. */
    doc = parse("{\"udp\":true,\"time\":2,\"parallel\":1,\"bandwidth\":1000000,"
                "\"fqrate\":5000000,\"zerocopy\":1}",
                true);
    params_defaults(&p);
    assert_int_equal(iperf3_params_from_json(doc, &lim, &p, &req, err, sizeof(err)), 0);
    assert_int_equal(p.rate_bps, 1000000);
    assert_int_equal(p.tx.mode, PATH_TX_COPY);
    assert_int_equal(p.tx.fq_rate_bps, 0);
    json_decref(doc);
}

static void test_params_refused(void **state)
{
    (void)state;
    static const struct {
        const char *doc, *says;
    } cases[] = {
        {"{\"tcp\":true,\"time\":2,\"parallel\":\"2\"}", "'parallel' must be an integer"},
        {"{\"tcp\":true,\"time\":99999,\"parallel\":1}", "'time'"},
        {"{\"tcp\":true,\"udp\":true,\"time\":2}", "exactly one"},
        {"{\"time\":2,\"parallel\":1}", "exactly one"},
        {"{\"sctp\":true,\"time\":2}", "SCTP"},
        {"{\"tcp\":true,\"time\":2,\"authtoken\":\"x\"}", "authentication"},
        {"{\"tcp\":true,\"time\":2,\"fqrate\":400000000001}", "'fqrate'"},
        {"{\"tcp\":true,\"time\":2,\"zerocopy\":2}", "'zerocopy' must be"},
        {"{\"tcp\":true,\"time\":0,\"num\":0}", "neither a time nor a size"},
        {"{\"tcp\":true,\"time\":2,\"len\":0}", "'len'"},
        {"{\"tcp\":true,\"time\":2,\"congestion\":\"a/b\"}", "congestion"},
        {"{\"tcp\":true,\"time\":2,\"title\":{}}", "'title'"},
        /* Below iperf3's own UDP minimum (its 16-byte header). */
        {"{\"udp\":true,\"time\":2,\"len\":15}", "UDP datagram size 15 is out of range 16..65507"},
    };
    struct iperf3_limits lim = {.max_streams = 128, .max_duration = 3600};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *doc = parse(cases[i].doc, true);
        assert_non_null(doc);
        struct test_params p;
        struct iperf3_request req;
        params_defaults(&p);
        char err[NB_ERRLEN] = "";
        assert_int_equal(iperf3_params_from_json(doc, &lim, &p, &req, err, sizeof(err)), -EINVAL);
        if (!strstr(err, cases[i].says))
            fail_msg("%s: '%s' does not say '%s'", cases[i].doc, err, cases[i].says);
        json_decref(doc);
    }
    /* Duplicate keys are refused in a parameter document, accepted in results. */
    assert_null(parse("{\"tcp\":true,\"time\":2,\"time\":3}", true));
    json_t *dup = parse("{\"a\":1,\"a\":2}", false);
    assert_non_null(dup);
    json_decref(dup);
}

static void test_results(void **state)
{
    (void)state;
    /* iperf3 3.12 writes -1 as 18446744073709551615 in these two members. */
    json_t *doc = parse(
        "{\"cpu_util_total\":41.2,\"cpu_util_user\":2.2,\"cpu_util_system\":39.0,"
        "\"sender_has_retransmits\":18446744073709551615,\"streams\":[{\"id\":3,\"bytes\":"
        "1187377962,\"retransmits\":18446744073709551615,\"jitter\":0,\"errors\":0,\"packets\":"
        "0,\"start_time\":0,\"end_time\":2.000393},{\"id\":1,\"bytes\":5,\"retransmits\":7,"
        "\"jitter\":0.5,\"errors\":3,\"packets\":10}]}",
        false);
    assert_non_null(doc);
    struct iperf3_results r;
    char err[NB_ERRLEN] = "";
    assert_int_equal(iperf3_results_from_json(doc, 2, &r, err, sizeof(err)), 0);
    assert_int_equal(r.sender_has_retransmits, -1);
    const struct iperf3_stream_result *s = iperf3_results_find(&r, 3);
    assert_non_null(s);
    assert_int_equal(s->bytes, 1187377962ull);
    assert_int_equal(s->retransmits, -1);
    ASSERT_GT(s->end_time, 2.0);
    ASSERT_LT(s->end_time, 2.001);
    assert_int_equal(iperf3_results_find(&r, 1)->errors, 3);
    iperf3_results_free(&r);
    /* A test of one stream has no stream 3, and not two lines. */
    assert_int_equal(iperf3_results_from_json(doc, 1, &r, err, sizeof(err)), -EPROTO);
    assert_non_null(strstr(err, "streams"));
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cookie),           cmocka_unit_test(test_stream_ids),
        cmocka_unit_test(test_udp_header),       cmocka_unit_test(test_params_from_iperf3),
        cmocka_unit_test(test_params_refused),   cmocka_unit_test(test_results),
        cmocka_unit_test(test_params_send_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
