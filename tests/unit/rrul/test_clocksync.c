/*
 * The one-way delay's clock rule (measure/clocksync.h) on hand-built clock
 * states: the same boot id (and time namespace) reads one clock; different
 * hosts need both clocks synchronised and their summed maxerror at most a
 * tenth of the idle one-way p50; a server before addition 6 sends no clock
 * and gets the old reason; a malformed clock member is refused.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "measure/clocksync.h"
#include "netab_assert.h"

#define BOOT_A "24024596-d87f-4941-9555-ba744e5f9a77"
#define BOOT_B "0b7c2f4e-1a2b-4c3d-8e9f-001122334455"
#define TIME_NS_INIT 4026531834u /* the initial time namespace's inode */

static struct clock_info host(const char *boot, uint64_t time_ns, bool synced, int64_t maxerror)
{
    struct clock_info ci = {.time_ns = time_ns,
                            .have_adj = true,
                            .synced = synced,
                            .maxerror_us = maxerror,
                            .esterror_us = maxerror / 4};
    strcpy(ci.boot_id, boot);
    return ci;
}

static void test_same_boot_id_is_one_clock(void **state)
{
    (void)state;
    /* Unsynchronised and with a huge bound: irrelevant, it is one clock. */
    struct clock_info a = host(BOOT_A, TIME_NS_INIT, false, 16000000),
                      b = host(BOOT_A, TIME_NS_INIT, false, 16000000);
    char why[192];
    assert_int_equal(clock_choose(&a, &b, why, sizeof(why)), STAMP_MONOTONIC);
    assert_non_null(strstr(why, "same host: boot id " BOOT_A));
    assert_true(clock_judge(STAMP_MONOTONIC, &a, &b, 3, 2, why, sizeof(why)));
    assert_non_null(strstr(why, "same host"));
    /* No time namespaces at either end (before Linux 5.6): still one clock. */
    a.time_ns = b.time_ns = 0;
    assert_int_equal(clock_choose(&a, &b, why, sizeof(why)), STAMP_MONOTONIC);
}

static void test_other_time_namespace_is_not(void **state)
{
    (void)state;
    struct clock_info a = host(BOOT_A, TIME_NS_INIT, true, 10),
                      b = host(BOOT_A, TIME_NS_INIT + 7, true, 10);
    char why[192];
    assert_int_equal(clock_choose(&a, &b, why, sizeof(why)), STAMP_NONE);
    assert_non_null(strstr(why, "different time namespaces"));
}

static void test_other_host_synchronised(void **state)
{
    (void)state;
    struct clock_info a = host(BOOT_A, TIME_NS_INIT, true, 300),
                      b = host(BOOT_B, TIME_NS_INIT, true, 200);
    char why[192];
    assert_int_equal(clock_choose(&a, &b, why, sizeof(why)), STAMP_REALTIME);
    assert_non_null(strstr(why, "up to 500 us"));
    /* 500 us against 10 ms one way: 5%, counts. */
    assert_true(clock_judge(STAMP_REALTIME, &a, &b, 10000, 12000, why, sizeof(why)));
    assert_non_null(strstr(why, "synchronised"));
}

static void test_other_host_bound_too_large(void **state)
{
    (void)state;
    struct clock_info a = host(BOOT_A, TIME_NS_INIT, true, 300),
                      b = host(BOOT_B, TIME_NS_INIT, true, 200);
    char why[192];
    assert_int_equal(clock_choose(&a, &b, why, sizeof(why)), STAMP_REALTIME);
    /* 500 us against a 4 ms down p50 (the smaller): 12.5%, does not. */
    assert_false(clock_judge(STAMP_REALTIME, &a, &b, 6000, 4000, why, sizeof(why)));
    assert_non_null(strstr(why, "up to 500 us (maxerror: this end 300, the server 200)"));
    assert_non_null(strstr(why, "more than 10% of the idle one-way p50 (4000.0 us)"));
    /* Exactly 10%: counts. */
    assert_true(clock_judge(STAMP_REALTIME, &a, &b, 5000, 5000, why, sizeof(why)));
    /* No idle stamp to weigh against. */
    assert_false(clock_judge(STAMP_REALTIME, &a, &b, NAN, NAN, why, sizeof(why)));
    assert_non_null(strstr(why, "no idle probe"));
}

static void test_other_host_unsynchronised(void **state)
{
    (void)state;
    struct clock_info a = host(BOOT_A, TIME_NS_INIT, true, 10),
                      b = host(BOOT_B, TIME_NS_INIT, false, 10);
    char why[192];
    assert_int_equal(clock_choose(&a, &b, why, sizeof(why)), STAMP_NONE);
    assert_non_null(strstr(why, "the server's clock: it is not synchronised"));
    assert_null(strstr(why, "this end's"));
    assert_int_equal(clock_choose(&b, &a, why, sizeof(why)), STAMP_NONE);
    assert_non_null(strstr(why, "this end's clock: it is not synchronised"));
    assert_null(strstr(why, "the server's"));
    a.have_adj = false;
    assert_int_equal(clock_choose(&a, &b, why, sizeof(why)), STAMP_NONE);
    assert_non_null(strstr(why, "this end's clock: its state is unknown"));
    assert_non_null(strstr(why, "; the server's clock: it is not synchronised"));
    assert_false(clock_judge(STAMP_NONE, &a, &b, 1, 1, why, sizeof(why)));
}

static void test_accept_round_trip_and_old_server(void **state)
{
    (void)state;
    struct clock_info local = host(BOOT_A, TIME_NS_INIT, true, 10), peer;
    char why[192], err[192];
    bool have;
    enum stamp_clock c;
    /* A server before addition 6: an accept with no clock member. */
    json_t *old = json_loads("{\"type\":\"accept\",\"cookie\":\"5d0e3c9b1f2a47e8a0b4c6d8e2f1a3b5\","
                             "\"udp_ports\":[40731]}",
                             0, NULL);
    assert_int_equal(
        clock_from_accept(old, &local, &peer, &have, &c, why, sizeof(why), err, sizeof(err)), 0);
    assert_false(have);
    assert_int_equal(c, STAMP_NONE);
    assert_string_equal(why, "not measured: both ends' clocks not compared in this version (the "
                             "server is another process)");
    /* This version's: encoded by clock_info_to_json(), read back. */
    struct clock_info srv = host(BOOT_B, TIME_NS_INIT, true, 250);
    json_object_set_new(old, "clock", clock_info_to_json(&srv));
    assert_int_equal(
        clock_from_accept(old, &local, &peer, &have, &c, why, sizeof(why), err, sizeof(err)), 0);
    assert_true(have);
    assert_int_equal(c, STAMP_REALTIME);
    assert_string_equal(peer.boot_id, BOOT_B);
    assert_int_equal(peer.time_ns, TIME_NS_INIT);
    assert_int_equal(peer.maxerror_us, 250);
    assert_int_equal(peer.esterror_us, 62);
    assert_true(peer.synced);
    json_decref(old);
}

static void test_malformed_clock_refused(void **state)
{
    (void)state;
    static const char *bad[] = {
        "{\"clock\": 1}",
        "{\"clock\": {\"boot_id\": \"not-a-boot-id\"}}",
        "{\"clock\": {\"boot_id\": \"" BOOT_A "\", \"time_ns\": -1}}",
        "{\"clock\": {\"realtime\": {\"synchronised\": true, \"maxerror_us\": -5, "
        "\"esterror_us\": 0}}}",
        "{\"clock\": {\"realtime\": {\"synchronised\": 1, \"maxerror_us\": 5, "
        "\"esterror_us\": 0}}}",
        "{\"clock\": {\"realtime\": {\"synchronised\": true, \"maxerror_us\": 5}}}",
    };
    struct clock_info local = host(BOOT_A, TIME_NS_INIT, true, 10), peer;
    char why[192], err[192];
    bool have;
    enum stamp_clock c;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        json_t *m = json_loads(bad[i], 0, NULL);
        assert_non_null(m);
        assert_int_equal(
            clock_from_accept(m, &local, &peer, &have, &c, why, sizeof(why), err, sizeof(err)),
            -EPROTO);
        assert_non_null(strstr(err, "server's clock is malformed"));
        json_decref(m);
    }
    /* Nulls are "unknown", not malformed: a different host whose clock state is unknown. */
    json_t *m = json_loads(
        "{\"clock\": {\"boot_id\": null, \"time_ns\": null, \"realtime\": null}}", 0, NULL);
    assert_int_equal(
        clock_from_accept(m, &local, &peer, &have, &c, why, sizeof(why), err, sizeof(err)), 0);
    assert_int_equal(c, STAMP_NONE);
    assert_non_null(strstr(why, "the server's clock: its state is unknown"));
    json_decref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_boot_id_is_one_clock),
        cmocka_unit_test(test_other_time_namespace_is_not),
        cmocka_unit_test(test_other_host_synchronised),
        cmocka_unit_test(test_other_host_bound_too_large),
        cmocka_unit_test(test_other_host_unsynchronised),
        cmocka_unit_test(test_accept_round_trip_and_old_server),
        cmocka_unit_test(test_malformed_clock_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
