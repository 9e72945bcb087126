/*
 * Unit tests for engine/window, the -O omit window: what streams did during
 * the warm-up is really taken off the report (bytes, transactions, lost
 * requests, latencies), the measured seconds start at the opening, and UDP
 * datagram counts stay whole-test. The streams are set up by hand, with no
 * threads, and the clock is whatever the test passes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/window.h"
#include "measure/histogram.h"

#define S 1000000000ull /* one second in ns */
#define T0 (1000 * S)   /* any start time */

static struct stream_set *make_set(const enum stream_role *roles, int n)
{
    struct stream_set *set = calloc(1, sizeof(*set));
    assert_non_null(set);
    set->streams = calloc((size_t)n, sizeof(*set->streams));
    assert_non_null(set->streams);
    set->n = n;
    for (int i = 0; i < n; i++) {
        struct stream *s = &set->streams[i];
        s->id = i;
        s->fd = -1;
        s->role = roles[i];
        s->sender = stream_role_sends(roles[i]) || roles[i] == ROLE_RR_CLIENT ||
                    roles[i] == ROLE_CRR_CLIENT;
        if (roles[i] == ROLE_RR_CLIENT || roles[i] == ROLE_CRR_CLIENT) {
            s->latency = malloc(sizeof(*s->latency));
            assert_non_null(s->latency);
            hist_init(s->latency);
        }
    }
    return set;
}

static void free_set(struct stream_set *set)
{
    for (int i = 0; i < set->n; i++)
        free(set->streams[i].latency);
    free(set->streams);
    free(set);
}

static void count(struct stream *s, uint64_t bytes, uint64_t packets, uint64_t lost)
{
    atomic_store(&s->bytes, bytes);
    atomic_store(&s->packets, packets);
    atomic_store(&s->lost, lost);
}

/* TCP: warm-up bytes are off both ends, and the seconds start at the opening. */
static void tcp_warmup_bytes_excluded(void **state)
{
    (void)state;
    const enum stream_role roles[] = {ROLE_TCP_SEND, ROLE_TCP_RECV};
    struct stream_set *set = make_set(roles, 2);
    struct stream *snd = &set->streams[0], *rcv = &set->streams[1];
    struct window w;
    assert_int_equal(window_begin(&w, set, 2.0, T0, NULL), 0);
    assert_false(w.open);
    rcv->first_ns = T0 + S / 10; /* the first byte came during the warm-up */
    count(snd, 1000, 0, 0);
    count(rcv, 900, 0, 0);
    window_tick(&w, set, T0 + S); /* still warming up */
    assert_false(w.open);
    count(snd, 5000, 0, 0);
    count(rcv, 4000, 0, 0);
    window_tick(&w, set, T0 + 2 * S + S / 2); /* the first tick after 2 s opens it */
    assert_true(w.open);
    assert_int_equal(w.measure_ns, T0 + 2 * S + S / 2);
    count(snd, 12000, 0, 0);
    count(rcv, 12000, 0, 0);
    snd->end_ns = T0 + 4 * S + S / 2;
    rcv->end_ns = T0 + 5 * S;
    struct side_report r;
    assert_int_equal(window_close(&w, set, &r, T0 + 5 * S), 0);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.streams[0].bytes, 7000);
    assert_int_equal(r.streams[0].total_bytes, 12000);
    assert_float_equal(r.streams[0].seconds, 2.0, 1e-9);
    assert_int_equal(r.streams[1].bytes, 8000);
    assert_int_equal(r.streams[1].total_bytes, 12000);
    /* Its first byte was warm-up: its clock starts at the opening, not at that byte. */
    assert_float_equal(r.streams[1].seconds, 2.5, 1e-9);
    side_report_free(&r);
    window_free(&w);
    free_set(set);
}

/* Without -O the window is open from the start and every byte counts. */
static void no_omit_counts_everything(void **state)
{
    (void)state;
    const enum stream_role roles[] = {ROLE_TCP_SEND};
    struct stream_set *set = make_set(roles, 1);
    struct window w;
    assert_int_equal(window_begin(&w, set, 0, T0, NULL), 0);
    assert_true(w.open);
    assert_int_equal(w.measure_ns, T0);
    count(&set->streams[0], 3000, 0, 0);
    window_tick(&w, set, T0 + S);
    set->streams[0].end_ns = T0 + 3 * S;
    struct side_report r;
    assert_int_equal(window_close(&w, set, &r, T0 + 3 * S), 0);
    assert_int_equal(r.streams[0].bytes, 3000);
    assert_float_equal(r.streams[0].seconds, 3.0, 1e-9);
    side_report_free(&r);
    window_free(&w);
    free_set(set);
}

/* A test (-n) that ended inside its warm-up reports an empty window, not its warm-up. */
static void ended_inside_warmup_is_empty(void **state)
{
    (void)state;
    const enum stream_role roles[] = {ROLE_TCP_SEND};
    struct stream_set *set = make_set(roles, 1);
    struct window w;
    assert_int_equal(window_begin(&w, set, 5.0, T0, NULL), 0);
    count(&set->streams[0], 4096, 0, 0);
    set->streams[0].end_ns = T0 + S;
    struct side_report r;
    assert_int_equal(window_close(&w, set, &r, T0 + 2 * S), 0);
    assert_int_equal(r.streams[0].bytes, 0);
    assert_int_equal(r.streams[0].total_bytes, 4096);
    assert_float_equal(r.streams[0].seconds, 0.0, 0);
    assert_false(r.cpu_valid);
    side_report_free(&r);
    window_free(&w);
    free_set(set);
}

/*
 * rr: transactions, lost requests and latencies of the warm-up are not
 * counted against the measured seconds (they once were: transactions per
 * second came out too high by the warm-up's share).
 */
static void rr_warmup_transactions_excluded(void **state)
{
    (void)state;
    const enum stream_role roles[] = {ROLE_RR_CLIENT};
    struct stream_set *set = make_set(roles, 1);
    struct stream *s = &set->streams[0];
    struct window w;
    assert_int_equal(window_begin(&w, set, 1.0, T0, NULL), 0);
    /* Warm-up: 10 slow transactions (5 ms), one request lost. */
    for (int i = 0; i < 10; i++)
        hist_record(s->latency, 5000000);
    count(s, 10 * 200, 10, 1);
    window_tick(&w, set, T0 + S);
    assert_true(w.open);
    /* Measured: 30 fast transactions (100 us), two more requests lost. */
    for (int i = 0; i < 30; i++)
        hist_record(s->latency, 100000);
    count(s, 40 * 200, 40, 3);
    s->end_ns = T0 + 4 * S;
    struct side_report r;
    assert_int_equal(window_close(&w, set, &r, T0 + 4 * S), 0);
    assert_int_equal(r.streams[0].packets, 30);
    assert_int_equal(r.streams[0].lost, 2);
    assert_int_equal(r.streams[0].bytes, 30 * 200);
    assert_float_equal(r.streams[0].seconds, 3.0, 1e-9);
    struct histogram *lat = malloc(sizeof(*lat));
    assert_non_null(lat);
    assert_int_equal(window_latency(&w, set, lat), 0);
    assert_int_equal(hist_count(lat), 30);
    /* No 5 ms warm-up transaction left: the max is the 100 us bucket (within 0.39%). */
    assert_in_range(hist_max(lat), 99600, 100400);
    assert_in_range(hist_percentile(lat, 99.9), 99600, 100400);
    free(lat);
    side_report_free(&r);
    window_free(&w);
    free_set(set);
}

/* Without -O the latencies are the whole test's. */
static void rr_no_omit_latency_is_everything(void **state)
{
    (void)state;
    const enum stream_role roles[] = {ROLE_CRR_CLIENT, ROLE_CRR_CLIENT};
    struct stream_set *set = make_set(roles, 2);
    struct window w;
    assert_int_equal(window_begin(&w, set, 0, T0, NULL), 0);
    assert_null(w.omit_latency);
    hist_record(set->streams[0].latency, 7000);
    hist_record(set->streams[1].latency, 9000);
    struct side_report r;
    assert_int_equal(window_close(&w, set, &r, T0 + S), 0);
    struct histogram *lat = malloc(sizeof(*lat));
    assert_non_null(lat);
    assert_int_equal(window_latency(&w, set, lat), 0);
    assert_int_equal(hist_count(lat), 2);
    assert_int_equal(hist_min(lat), 7000);
    assert_int_equal(hist_max(lat), 9000);
    free(lat);
    side_report_free(&r);
    window_free(&w);
    free_set(set);
}

/* UDP: bytes are windowed, datagram counts stay whole-test so that loss compares like with like. */
static void udp_packets_stay_whole_test(void **state)
{
    (void)state;
    const enum stream_role roles[] = {ROLE_UDP_SEND};
    struct stream_set *set = make_set(roles, 1);
    struct window w;
    assert_int_equal(window_begin(&w, set, 1.0, T0, NULL), 0);
    count(&set->streams[0], 100 * 1000, 100, 0);
    window_tick(&w, set, T0 + S);
    count(&set->streams[0], 300 * 1000, 300, 0);
    set->streams[0].end_ns = T0 + 3 * S;
    struct side_report r;
    assert_int_equal(window_close(&w, set, &r, T0 + 3 * S), 0);
    assert_int_equal(r.streams[0].bytes, 200 * 1000);
    assert_int_equal(r.streams[0].packets, 300);
    side_report_free(&r);
    window_free(&w);
    free_set(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tcp_warmup_bytes_excluded),
        cmocka_unit_test(no_omit_counts_everything),
        cmocka_unit_test(ended_inside_warmup_is_empty),
        cmocka_unit_test(rr_warmup_transactions_excluded),
        cmocka_unit_test(rr_no_omit_latency_is_everything),
        cmocka_unit_test(udp_packets_stay_whole_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
