/* Unit tests for engine/side_report: the JSON a server sends as its result. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/side_report.h"

#define N 3

/* A report with distinct, exactly representable values in every field. */
static void make_report(struct side_report *r)
{
    memset(r, 0, sizeof(*r));
    r->streams = calloc(N, sizeof(*r->streams));
    r->n = N;
    for (int i = 0; i < N; i++) {
        struct side_stream *s = &r->streams[i];
        s->id = i;
        s->server_sends = i == 2;
        s->sender = i != 2;
        s->bytes = (1ull << 40) + 1000u * (unsigned)i;
        s->total_bytes = s->bytes + 4096;
        s->seconds = 10.25 + i;
        s->tcpinfo.valid = i != 1;
        s->tcpinfo.retransmits = 7u * (unsigned)i;
        s->tcpinfo.rtt_us = 30 + (unsigned)i;
        s->tcpinfo.rttvar_us = 5;
        s->tcpinfo.snd_cwnd = 10 * (unsigned)(i + 1);
        s->tcpinfo.snd_mss = 65483;
    }
    r->cpu_valid = true;
    r->cpu = (struct cpu_usage){.total_pct = 12.5,
                                .user_pct = 2.25,
                                .system_pct = 8,
                                .softirq_pct = 2,
                                .irq_pct = 0.25,
                                .steal_pct = 0,
                                .proc_pct = 150.5,
                                .busy_us = 1.25e7,
                                .proc_us = 1.5e7,
                                .seconds = 10,
                                .online_cpus = 8};
    snprintf(r->host.hostname, sizeof(r->host.hostname), "bench-a");
    snprintf(r->host.kernel, sizeof(r->host.kernel), "6.1.0-18-amd64");
    snprintf(r->host.cpu_model, sizeof(r->host.cpu_model), "Some CPU @ 3.0GHz");
    r->host.online_cpus = 8;
}

/* Encodes a good report, lets edit spoil it, and expects decoding to fail with want. */
static void decode_fails(void (*edit)(json_t *), int expected, const char *want)
{
    struct side_report r, back;
    make_report(&r);
    json_t *obj = side_report_to_json(&r);
    edit(obj);
    char err[NB_ERRLEN] = "";
    int rc = side_report_from_json(obj, expected, &back, err, sizeof(err));
    assert_int_equal(rc, -EPROTO);
    if (!strstr(err, want))
        fail_msg("message '%s' lacks '%s'", err, want);
    /* On failure nothing is left for the caller to free. */
    assert_null(back.streams);
    assert_int_equal(back.n, 0);
    json_decref(obj);
    side_report_free(&r);
}

static json_t *stream1(json_t *obj)
{
    return json_array_get(json_object_get(obj, "streams"), 1);
}

static void no_edit(json_t *o)
{
    (void)o;
}

static void test_round_trip(void **state)
{
    (void)state;
    struct side_report r, back;
    make_report(&r);
    json_t *obj = side_report_to_json(&r);
    char err[NB_ERRLEN] = "";
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_int_equal(back.n, N);
    for (int i = 0; i < N; i++) {
        const struct side_stream *a = &r.streams[i], *b = &back.streams[i];
        assert_int_equal(a->id, b->id);
        assert_int_equal(a->server_sends, b->server_sends);
        assert_int_equal(a->sender, b->sender);
        assert_int_equal(a->bytes, b->bytes);
        assert_int_equal(a->total_bytes, b->total_bytes);
        assert_true(a->seconds == b->seconds);
        assert_int_equal(a->tcpinfo.valid, b->tcpinfo.valid);
        assert_int_equal(a->tcpinfo.retransmits, b->tcpinfo.retransmits);
        assert_int_equal(a->tcpinfo.rtt_us, b->tcpinfo.rtt_us);
        assert_int_equal(a->tcpinfo.rttvar_us, b->tcpinfo.rttvar_us);
        assert_int_equal(a->tcpinfo.snd_cwnd, b->tcpinfo.snd_cwnd);
        assert_int_equal(a->tcpinfo.snd_mss, b->tcpinfo.snd_mss);
    }
    assert_true(back.cpu_valid);
    assert_true(back.cpu.total_pct == 12.5);
    assert_true(back.cpu.user_pct == 2.25);
    assert_true(back.cpu.system_pct == 8);
    assert_true(back.cpu.softirq_pct == 2);
    assert_true(back.cpu.irq_pct == 0.25);
    assert_true(back.cpu.proc_pct == 150.5);
    assert_true(back.cpu.busy_us == 1.25e7);
    assert_true(back.cpu.proc_us == 1.5e7);
    assert_true(back.cpu.seconds == 10);
    assert_int_equal(back.cpu.online_cpus, 8);
    assert_string_equal(back.host.hostname, "bench-a");
    assert_string_equal(back.host.kernel, "6.1.0-18-amd64");
    assert_string_equal(back.host.cpu_model, "Some CPU @ 3.0GHz");
    assert_int_equal(back.host.online_cpus, 8);
    side_report_free(&back);
    assert_null(back.streams);
    json_decref(obj);

    /* Without CPU figures the report says null and decodes as not valid. */
    r.cpu_valid = false;
    obj = side_report_to_json(&r);
    assert_true(json_is_null(json_object_get(obj, "cpu")));
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_false(back.cpu_valid);
    side_report_free(&back);
    json_decref(obj);
    side_report_free(&r);
}

static void test_wrong_stream_count(void **state)
{
    (void)state;
    decode_fails(no_edit, N + 1, "wrong number of streams (expected 4)");
    decode_fails(no_edit, N - 1, "wrong number of streams (expected 2)");
}

static void drop_streams(json_t *o)
{
    json_object_set_new(o, "streams", json_string("3"));
}

static void test_no_streams(void **state)
{
    (void)state;
    decode_fails(drop_streams, N, "no streams");
}

static void drop_seconds(json_t *o)
{
    json_object_del(stream1(o), "seconds");
}
static void string_sender(json_t *o)
{
    json_object_set_new(stream1(o), "sender", json_string("yes"));
}
static void id_out_of_range(json_t *o)
{
    json_object_set_new(stream1(o), "id", json_integer(N));
}
static void no_tcpinfo(json_t *o)
{
    json_object_del(stream1(o), "tcpinfo");
}
static void bad_rtt(json_t *o)
{
    json_object_set_new(json_object_get(stream1(o), "tcpinfo"), "rtt_us", json_real(5e9));
}
static void stream_not_object(json_t *o)
{
    json_array_set_new(json_object_get(o, "streams"), 1, json_integer(1));
}

static void test_malformed_stream(void **state)
{
    (void)state;
    decode_fails(drop_seconds, N, "stream 1 is malformed");
    decode_fails(string_sender, N, "stream 1 is malformed");
    decode_fails(id_out_of_range, N, "stream 1 is malformed");
    decode_fails(no_tcpinfo, N, "stream 1 is malformed");
    decode_fails(bad_rtt, N, "stream 1 is malformed");
    decode_fails(stream_not_object, N, "stream 1 is malformed");
}

static void negative_bytes(json_t *o)
{
    json_object_set_new(stream1(o), "bytes", json_integer(-1));
}
static void negative_total(json_t *o)
{
    json_object_set_new(stream1(o), "total_bytes", json_real(-4096));
}
static void negative_seconds(json_t *o)
{
    json_object_set_new(stream1(o), "seconds", json_real(-0.5));
}

static void test_negative_values(void **state)
{
    (void)state;
    decode_fails(negative_bytes, N, "stream 1 is malformed");
    decode_fails(negative_total, N, "stream 1 is malformed");
    decode_fails(negative_seconds, N, "stream 1 is malformed");
}

static void bad_cpu(json_t *o)
{
    json_object_set_new(json_object_get(o, "cpu"), "total_pct", json_real(250));
}

static void test_malformed_cpu(void **state)
{
    (void)state;
    decode_fails(bad_cpu, N, "CPU figures are malformed");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_wrong_stream_count),
        cmocka_unit_test(test_no_streams),      cmocka_unit_test(test_malformed_stream),
        cmocka_unit_test(test_negative_values), cmocka_unit_test(test_malformed_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
