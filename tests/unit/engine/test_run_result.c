/* Unit tests for engine/result: per-direction totals from both sides' reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "engine/run_result.h"

/*
 * A --bidir test with two streams each way: connections 0 and 1 carry
 * client-to-server data, 2 and 3 server-to-client. Each side reports every
 * connection, as sender or receiver.
 */
#define NCONN 4
static const bool server_sends[NCONN] = {false, false, true, true};
static const uint64_t client_bytes[NCONN] = {1000000, 2000000, 2900000, 4100000};
static const uint64_t server_bytes[NCONN] = {990000, 1999000, 3000000, 4200000};
static const double client_secs[NCONN] = {10.0, 10.5, 9.5, 9.75};
static const double server_secs[NCONN] = {9.9, 10.25, 10.0, 10.1};
static const uint32_t client_retr[NCONN] = {3, 4, 50, 60};
static const uint32_t server_retr[NCONN] = {70, 80, 5, 6};

static void fill_side(struct side_report *s, bool is_server, const uint64_t *bytes,
                      const double *secs, const uint32_t *retr)
{
    s->n = NCONN;
    s->streams = calloc(NCONN, sizeof(*s->streams));
    for (int i = 0; i < NCONN; i++) {
        struct side_stream *st = &s->streams[i];
        st->id = i;
        st->server_sends = server_sends[i];
        st->sender = server_sends[i] == is_server;
        st->bytes = bytes[i];
        st->total_bytes = bytes[i] + 100;
        st->seconds = secs[i];
        st->tcpinfo.retransmits = retr[i];
    }
}

static void make_result(struct run_result *r)
{
    run_result_init(r);
    r->params.bidir = true;
    r->params.streams = 2;
    r->have_local = r->have_remote = true;
    fill_side(&r->local, false, client_bytes, client_secs, client_retr);
    fill_side(&r->remote, true, server_bytes, server_secs, server_retr);
}

/* The expected totals of one direction (dir 0, 1) or both (-1), computed here. */
static struct direction_totals expect(int dir, bool with_remote)
{
    struct direction_totals t = {0};
    for (int i = 0; i < NCONN; i++) {
        if (dir >= 0 && server_sends[i] != (dir == 1))
            continue;
        bool client_sent = !server_sends[i];
        if (client_sent) {
            t.sender_bytes += client_bytes[i];
            t.retransmits += client_retr[i];
            t.streams++;
            t.sender_seconds =
                client_secs[i] > t.sender_seconds ? client_secs[i] : t.sender_seconds;
            if (with_remote) {
                t.receiver_bytes += server_bytes[i];
                if (server_secs[i] > t.receiver_seconds)
                    t.receiver_seconds = server_secs[i];
            }
        } else {
            t.receiver_bytes += client_bytes[i];
            if (client_secs[i] > t.receiver_seconds)
                t.receiver_seconds = client_secs[i];
            if (with_remote) {
                t.sender_bytes += server_bytes[i];
                t.retransmits += server_retr[i];
                t.streams++;
                if (server_secs[i] > t.sender_seconds)
                    t.sender_seconds = server_secs[i];
            }
        }
    }
    return t;
}

static void check(const struct run_result *r, int dir, bool with_remote)
{
    struct direction_totals got, want = expect(dir, with_remote);
    memset(&got, 0xff, sizeof(got));
    run_result_totals(r, dir, &got);
    assert_int_equal(got.sender_bytes, want.sender_bytes);
    assert_int_equal(got.receiver_bytes, want.receiver_bytes);
    ASSERT_EQ(got.sender_seconds, want.sender_seconds);
    ASSERT_EQ(got.receiver_seconds, want.receiver_seconds);
    assert_int_equal(got.retransmits, want.retransmits);
    assert_int_equal(got.streams, want.streams);
}

static void test_totals_both_sides(void **state)
{
    (void)state;
    struct run_result r;
    make_result(&r);
    check(&r, 0, true);
    check(&r, 1, true);
    check(&r, -1, true);

    /* Literal figures for the client-to-server direction, as a cross-check. */
    struct direction_totals t;
    run_result_totals(&r, 0, &t);
    assert_int_equal(t.sender_bytes, 3000000);
    assert_int_equal(t.receiver_bytes, 2989000);
    ASSERT_EQ(t.sender_seconds, 10.5);
    ASSERT_EQ(t.receiver_seconds, 10.25);
    assert_int_equal(t.retransmits, 7);
    assert_int_equal(t.streams, 2);
    run_result_totals(&r, 1, &t);
    assert_int_equal(t.sender_bytes, 7200000);
    assert_int_equal(t.receiver_bytes, 7000000);
    assert_int_equal(t.retransmits, 11);
    run_result_totals(&r, -1, &t);
    assert_int_equal(t.sender_bytes, 10200000);
    assert_int_equal(t.receiver_bytes, 9989000);
    assert_int_equal(t.streams, 4);
    run_result_free(&r);
    assert_null(r.local.streams);
    assert_null(r.remote.streams);
}

/* Without the server's report only the client's own counts are summed. */
static void test_totals_local_only(void **state)
{
    (void)state;
    struct run_result r;
    make_result(&r);
    r.have_remote = false;
    check(&r, 0, false);
    check(&r, 1, false);
    check(&r, -1, false);
    struct direction_totals t;
    run_result_totals(&r, 1, &t);
    assert_int_equal(t.sender_bytes, 0);
    assert_int_equal(t.streams, 0);
    assert_int_equal(t.receiver_bytes, 7000000);
    run_result_free(&r);
}

static void test_totals_empty(void **state)
{
    (void)state;
    struct run_result r;
    run_result_init(&r);
    struct direction_totals t;
    memset(&t, 0xff, sizeof(t));
    run_result_totals(&r, -1, &t);
    assert_int_equal(t.sender_bytes, 0);
    assert_int_equal(t.receiver_bytes, 0);
    assert_int_equal(t.streams, 0);
    ASSERT_EQ(t.sender_seconds, 0);
    run_result_free(&r);
}

static void test_intervals(void **state)
{
    (void)state;
    struct run_result r;
    run_result_init(&r);
    for (int i = 0; i < 200; i++) {
        struct interval_report iv = {.start = i, .end = i + 1, .sent = 10u * i, .received = i};
        assert_int_equal(run_result_add_interval(&r, &iv), 0);
    }
    assert_int_equal(r.nintervals, 200);
    ASSERT_GE(r.cap_intervals, 200);
    assert_int_equal(r.intervals[199].sent, 1990);
    ASSERT_EQ(r.intervals[150].start, 150);
    run_result_free(&r);
    assert_null(r.intervals);
    assert_int_equal(r.nintervals, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals_both_sides),
        cmocka_unit_test(test_totals_local_only),
        cmocka_unit_test(test_totals_empty),
        cmocka_unit_test(test_intervals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
