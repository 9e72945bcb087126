/* Unit tests for engine/side_report: the JSON a server sends as its result. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "engine/counters.h"
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
        ASSERT_EQ(a->seconds, b->seconds);
        assert_int_equal(a->tcpinfo.valid, b->tcpinfo.valid);
        assert_int_equal(a->tcpinfo.retransmits, b->tcpinfo.retransmits);
        assert_int_equal(a->tcpinfo.rtt_us, b->tcpinfo.rtt_us);
        assert_int_equal(a->tcpinfo.rttvar_us, b->tcpinfo.rttvar_us);
        assert_int_equal(a->tcpinfo.snd_cwnd, b->tcpinfo.snd_cwnd);
        assert_int_equal(a->tcpinfo.snd_mss, b->tcpinfo.snd_mss);
    }
    assert_true(back.cpu_valid);
    ASSERT_EQ(back.cpu.total_pct, 12.5);
    ASSERT_EQ(back.cpu.user_pct, 2.25);
    ASSERT_EQ(back.cpu.system_pct, 8);
    ASSERT_EQ(back.cpu.softirq_pct, 2);
    ASSERT_EQ(back.cpu.irq_pct, 0.25);
    ASSERT_EQ(back.cpu.proc_pct, 150.5);
    ASSERT_EQ(back.cpu.busy_us, 1.25e7);
    ASSERT_EQ(back.cpu.proc_us, 1.5e7);
    ASSERT_EQ(back.cpu.seconds, 10);
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

static json_t *counters1(json_t *o)
{
    return json_object_get(stream1(o), "counters");
}
static void negative_stalled(json_t *o)
{
    json_object_set_new(counters1(o), "stalled_us", json_integer(-1));
}
static void string_stalled(json_t *o)
{
    json_object_set_new(counters1(o), "stalled_us", json_string("370372"));
}

/* A paced sender's stalls and the schedule time it gave up (protocol addition 4). */
static void test_stalls_round_trip(void **state)
{
    (void)state;
    struct side_report r, back;
    make_report(&r);
    r.streams[1].stalls = 3;
    r.streams[1].stalled_us = 370372;
    json_t *obj = side_report_to_json(&r);
    char err[NB_ERRLEN] = "";
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_int_equal(back.streams[1].stalls, 3);
    assert_int_equal(back.streams[1].stalled_us, 370372);
    assert_int_equal(back.streams[0].stalled_us, 0);
    side_report_free(&back);
    /* A server before addition 4 sends no stalled_us: taken as 0, the stalls still counted. */
    json_object_del(counters1(obj), "stalled_us");
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_int_equal(back.streams[1].stalls, 3);
    assert_int_equal(back.streams[1].stalled_us, 0);
    side_report_free(&back);
    json_decref(obj);
    side_report_free(&r);
    decode_fails(negative_stalled, N, "counters for stream 1 are malformed");
    decode_fails(string_stalled, N, "counters for stream 1 are malformed");
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

/* Adds the counters of protocol addition 1: per-CPU figures, kernel deltas, perf. */
static void add_counters(struct side_report *r)
{
    r->pinned_cpu = 1;
    r->nper_cpu = 2;
    r->per_cpu = calloc(2, sizeof(*r->per_cpu));
    r->per_cpu[0] = (struct percpu_usage){0, 12.5, 2.5, 8, 2, 0, 1.25e6};
    r->per_cpu[1] = (struct percpu_usage){1, 97.25, 10, 46, 41.25, 0, 9.725e6};
    struct kc_snapshot d = {0};
    d.have_mib = true;
    assert_int_equal(kc_set_add(&d.mib, "Udp", "RcvbufErrors", 1234), 0);
    assert_int_equal(kc_set_add(&d.mib, "TcpExt", "TCPLossProbes", 5), 0);
    r->kernel = counters_kernel_json(&d);
    kc_snapshot_free(&d);
    struct perfctr_delta p = {0};
    p.valid[PERFCTR_TASK_CLOCK] = true;
    p.value[PERFCTR_TASK_CLOCK] = 2.5e9;
    p.running_frac[PERFCTR_TASK_CLOCK] = 1;
    p.valid[PERFCTR_CYCLES] = p.valid[PERFCTR_INSTRUCTIONS] = true;
    p.value[PERFCTR_CYCLES] = 4e9;
    p.value[PERFCTR_INSTRUCTIONS] = 5e9;
    p.running_frac[PERFCTR_CYCLES] = 0.5;
    p.running_frac[PERFCTR_INSTRUCTIONS] = 1;
    snprintf(p.why[PERFCTR_L1I_MISSES], sizeof(p.why[0]), "no PMU in this virtual machine");
    r->perf = counters_perf_json(&p, &p, 1, false, 1u << 30, 2.0);
}

static void test_counters_round_trip(void **state)
{
    (void)state;
    struct side_report r, back;
    make_report(&r);
    add_counters(&r);
    json_t *obj = side_report_to_json(&r);
    char err[NB_ERRLEN];
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_int_equal(back.pinned_cpu, 1);
    assert_int_equal(back.nper_cpu, 2);
    assert_float_equal(back.per_cpu[1].softirq_pct, 41.25, 0);
    double us;
    assert_true(side_report_pinned_busy_us(&back, &us));
    assert_float_equal(us, 9.725e6, 0);
    long long v;
    assert_true(side_report_kernel_get(&back, "Udp", "RcvbufErrors", &v));
    assert_int_equal(v, 1234);
    assert_false(side_report_kernel_get(&back, "Udp", "InErrors", &v));
    double x;
    assert_true(side_report_perf_get(&back, "ipc", &x));
    assert_float_equal(x, 1.25, 1e-12);
    assert_true(side_report_perf_get(&back, "cycles_per_byte", &x));
    assert_float_equal(x, 4e9 / (1u << 30), 1e-12);
    assert_false(side_report_perf_get(&back, "l1i_misses", &x));
    json_t *mux = json_object_get(json_object_get(back.perf, "multiplexed"), "cycles");
    assert_float_equal(json_number_value(mux), 0.5, 0);
    json_decref(obj);
    side_report_free(&r);
    side_report_free(&back);
}

/* A peer before addition 1 sends none of it: the report decodes, with nothing pinned. */
static void test_counters_absent(void **state)
{
    (void)state;
    struct side_report r, back;
    make_report(&r);
    json_t *obj = side_report_to_json(&r);
    json_object_del(obj, "pinned_cpu");
    json_object_del(json_object_get(obj, "cpu"), "per_cpu");
    char err[NB_ERRLEN];
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_int_equal(back.pinned_cpu, -1);
    assert_null(back.per_cpu);
    assert_null(back.kernel);
    assert_null(back.perf);
    json_decref(obj);
    side_report_free(&r);
    side_report_free(&back);
}

static json_t *encoded_with_counters(void)
{
    struct side_report r;
    make_report(&r);
    add_counters(&r);
    json_t *obj = side_report_to_json(&r);
    side_report_free(&r);
    return obj;
}

static void expect_refused(json_t *obj, const char *want)
{
    struct side_report back;
    char err[NB_ERRLEN] = "";
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), -EPROTO);
    if (!strstr(err, want))
        fail_msg("message '%s' lacks '%s'", err, want);
    assert_null(back.per_cpu);
    assert_null(back.kernel);
    json_decref(obj);
}

static void test_counters_malformed(void **state)
{
    (void)state;
    json_t *o = encoded_with_counters();
    json_object_set_new(json_object_get(o, "kernel"), "Bad/Group", json_object());
    expect_refused(o, "kernel counter group");
    o = encoded_with_counters();
    json_object_set_new(json_object_get(json_object_get(o, "kernel"), "Udp"), "RcvbufErrors",
                        json_string("many"));
    expect_refused(o, "kernel counter Udp.RcvbufErrors");
    o = encoded_with_counters();
    json_object_set_new(json_object_get(o, "perf"), "cycles", json_real(-1));
    expect_refused(o, "perf counters are malformed");
    o = encoded_with_counters();
    json_object_set_new(json_object_get(o, "perf"), "surprise", json_integer(1));
    expect_refused(o, "perf counters are malformed");
    o = encoded_with_counters();
    json_object_del(json_object_get(o, "perf"), "page_faults");
    expect_refused(o, "perf counters are malformed");
    o = encoded_with_counters();
    json_object_set_new(json_object_get(json_object_get(o, "perf"), "multiplexed"), "cycles",
                        json_real(1.5));
    expect_refused(o, "perf counters are malformed");
    o = encoded_with_counters();
    json_t *pc = json_object_get(json_object_get(o, "cpu"), "per_cpu");
    json_object_set_new(json_array_get(pc, 0), "total_pct", json_real(180));
    expect_refused(o, "CPU figures are malformed");
    o = encoded_with_counters();
    json_object_set_new(o, "pinned_cpu", json_integer(99999));
    expect_refused(o, "pinned CPU");
    o = encoded_with_counters();
    json_object_set_new(json_object_get(stream1(o), "socket_buffers"), "send", json_integer(-5));
    expect_refused(o, "counters for stream 1");
}

/* The server's build identity travels in its result and comes back the same. */
static void test_identity_round_trip(void **state)
{
    (void)state;
    struct side_report r, back;
    char err[NB_ERRLEN] = "";
    make_report(&r);
    /* A server that sends none (older netab): none, and no error. */
    json_t *obj = side_report_to_json(&r);
    assert_null(json_object_get(obj, "identity"));
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_false(back.have_identity);
    side_report_free(&back);
    json_decref(obj);

    r.have_identity = true;
    r.identity.module.builtin = 0;
    snprintf(r.identity.release, sizeof(r.identity.release), "6.1.0-18-amd64");
    snprintf(r.identity.build_id, sizeof(r.identity.build_id), "3f2a00ff");
    snprintf(r.identity.module.name, sizeof(r.identity.module.name), "veth");
    snprintf(r.identity.module.srcversion, sizeof(r.identity.module.srcversion), "1A2B");
    obj = side_report_to_json(&r);
    assert_int_equal(side_report_from_json(obj, N, &back, err, sizeof(err)), 0);
    assert_true(back.have_identity);
    assert_memory_equal(&back.identity, &r.identity, sizeof(r.identity));
    side_report_free(&back);
    json_decref(obj);
    side_report_free(&r);
}

static void bad_identity(json_t *o)
{
    json_object_set_new(o, "identity", json_pack("{s:s}", "build_id", "not hex"));
}

static void identity_not_object(json_t *o)
{
    json_object_set_new(o, "identity", json_integer(7));
}

static void test_identity_malformed(void **state)
{
    (void)state;
    decode_fails(bad_identity, N, "peer's build identity is malformed: identity.build_id");
    decode_fails(identity_not_object, N, "identity is not a JSON object");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),          cmocka_unit_test(test_wrong_stream_count),
        cmocka_unit_test(test_no_streams),          cmocka_unit_test(test_malformed_stream),
        cmocka_unit_test(test_negative_values),     cmocka_unit_test(test_malformed_cpu),
        cmocka_unit_test(test_counters_round_trip), cmocka_unit_test(test_counters_absent),
        cmocka_unit_test(test_counters_malformed),  cmocka_unit_test(test_identity_round_trip),
        cmocka_unit_test(test_identity_malformed),  cmocka_unit_test(test_stalls_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
