/*
 * Unit tests for proto/loglimit: which events are logged in full, and
 * that the summaries count every other one, per host and kind, at the
 * window's end (next event, timer or shutdown). Time is passed in, so
 * windows are exact.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proto/loglimit.h"

#define S 1000000000ull

static struct sockaddr_storage addr(const char *ip, uint16_t port)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    inet_pton(AF_INET, ip, &sin->sin_addr);
    return ss;
}

/* One host: `burst` lines in full, then counts by kind in one summary at the window's end. */
static void test_burst_then_summary(void **state)
{
    (void)state;
    struct loglimit l;
    loglimit_init(&l, 3);
    char sum[1024];
    int full = 0;
    for (int i = 0; i < 3000; i++) {
        struct sockaddr_storage a = addr("127.0.0.1", (uint16_t)(1000 + i));
        const char *kind = i % 5 == 4 ? "bad greeting" : "authentication failed";
        full += loglimit_event(&l, &a, kind, 100 * S + (uint64_t)i * 1000000, sum, sizeof(sum));
        assert_string_equal(sum, ""); /* all within 3 s: one window */
    }
    assert_int_equal(full, 3);
    /* The server's timer is set for the window's end. */
    assert_int_equal(loglimit_next_due(&l), 110 * S);
    /* Not yet due at 109.9 s, due at 110 s. */
    assert_false(loglimit_due(&l, 109 * S + S / 2, false, sum, sizeof(sum)));
    assert_true(loglimit_due(&l, 110 * S, false, sum, sizeof(sum)));
    /* Of the first three (authentication failed), none is folded: 2,997 are, 600 greetings. */
    assert_string_equal(sum, "refused or closed 2,997 more connections from 127.0.0.1 in the last "
                             "10 s: authentication failed \u00d72,397, bad greeting \u00d7600");
    assert_false(loglimit_due(&l, 110 * S, true, sum, sizeof(sum)));
    assert_int_equal(loglimit_next_due(&l), UINT64_MAX);
    loglimit_destroy(&l);
}

/* A host's next event after its window closes that window first: the caller logs the summary. */
static void test_next_event_closes_window(void **state)
{
    (void)state;
    struct loglimit l;
    loglimit_init(&l, 1);
    struct sockaddr_storage a = addr("198.18.0.1", 5);
    char sum[1024];
    assert_true(loglimit_event(&l, &a, "x", 0, sum, sizeof(sum)));
    assert_false(loglimit_event(&l, &a, "x", S, sum, sizeof(sum)));
    assert_true(loglimit_event(&l, &a, "y", 12 * S, sum, sizeof(sum)));
    assert_string_equal(sum, "refused or closed 1 more connections from 198.18.0.1 in the last 12 "
                             "s: x \u00d71");
    /* At shutdown every window closes; one with nothing folded says nothing. */
    assert_false(loglimit_due(&l, 13 * S, true, sum, sizeof(sum)));
    loglimit_destroy(&l);
}

/* Hosts are limited apart, all together at 4 x burst; a full table shares one entry. */
static void test_hosts_and_global(void **state)
{
    (void)state;
    struct loglimit l;
    loglimit_init(&l, 2);
    char sum[1024], ip[32];
    int full = 0;
    for (int h = 0; h < 40; h++) /* 40 hosts, 3 events each */
        for (int k = 0; k < 3; k++) {
            snprintf(ip, sizeof(ip), "10.0.0.%d", h + 1);
            struct sockaddr_storage a = addr(ip, 1);
            full += loglimit_event(&l, &a, "k", S, sum, sizeof(sum));
        }
    assert_int_equal(full, 8); /* the global burst */
    int lines = 0;
    unsigned long long folded = 0;
    bool others = false;
    while (loglimit_due(&l, 20 * S, false, sum, sizeof(sum))) {
        lines++;
        unsigned long long n = 0;
        assert_int_equal(sscanf(sum, "refused or closed %llu more", &n), 1);
        folded += n;
        others |= strstr(sum, "from other addresses") != NULL;
    }
    assert_int_equal(folded, 40 * 3 - 8);
    assert_true(others);
    assert_int_equal(lines, LOGLIMIT_HOSTS + 1);
    loglimit_destroy(&l);
}

/* More kinds than a host's table holds are counted as "other reasons", never lost. */
static void test_many_kinds(void **state)
{
    (void)state;
    struct loglimit l;
    loglimit_init(&l, 1);
    static const char *const kinds[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    struct sockaddr_storage a = addr("127.0.0.2", 9);
    char sum[1024];
    assert_true(loglimit_event(&l, &a, "first", 0, sum, sizeof(sum)));
    for (int i = 0; i < 10; i++)
        assert_false(loglimit_event(&l, &a, kinds[i], 1, sum, sizeof(sum)));
    assert_true(loglimit_due(&l, 2, true, sum, sizeof(sum)));
    assert_non_null(strstr(sum, "10 more connections"));
    assert_non_null(strstr(sum, "a \u00d71, b \u00d71"));
    assert_non_null(strstr(sum, "other reasons \u00d73"));
    loglimit_destroy(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_summary),
        cmocka_unit_test(test_next_event_closes_window),
        cmocka_unit_test(test_hosts_and_global),
        cmocka_unit_test(test_many_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
