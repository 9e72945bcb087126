/* Unit tests for proto/conntab: counting and shedding unproven connections. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/conntab.h"

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

/* Counts are per host (ports ignored); the oldest of a host is shed first. */
static void test_shed_oldest_per_host(void **state)
{
    (void)state;
    struct conntab t;
    assert_int_equal(conntab_init(&t, 8), 0);
    struct sockaddr_storage a1 = addr("127.0.0.1", 1000), a2 = addr("127.0.0.1", 1001),
                            b = addr("127.0.0.2", 1000);
    assert_int_equal(conntab_add(&t, 10, &a1, 300, 0), 0);
    assert_int_equal(conntab_add(&t, 11, &b, 100, 0), 0);
    assert_int_equal(conntab_add(&t, 12, &a2, 200, 0), 0);
    assert_int_equal(conntab_count(&t, &a1), 2);
    assert_int_equal(conntab_count(&t, &b), 1);
    assert_int_equal(conntab_count(&t, NULL), 3);
    struct conn_slot v;
    assert_int_equal(conntab_shed_oldest(&t, &a1, "per address", &v), 0);
    assert_int_equal(v.fd, 12); /* accepted at 200, before fd 10 at 300 */
    assert_string_equal(v.why, "per address");
    assert_int_equal(conntab_count(&t, &a1), 1);
    assert_int_equal(conntab_shed_oldest(&t, NULL, "pending", &v), 0);
    assert_int_equal(v.fd, 11); /* the oldest of all */
    assert_true(conntab_is_shed(&t, 11));
    assert_string_equal(conntab_shed_reason(&t, 11), "pending");
    assert_string_equal(conntab_shed_reason(&t, 12), "per address");
    assert_null(conntab_shed_reason(&t, 10));
    /* A shed connection is never admitted: its test would run on a connection told to go. */
    assert_int_equal(conntab_prove(&t, 11), -ECONNABORTED);
    assert_int_equal(conntab_count(&t, NULL), 1);
    conntab_destroy(&t);
}

/* Proven connections are neither counted nor shed; removed ones free their slot. */
static void test_proven_and_removed(void **state)
{
    (void)state;
    struct conntab t;
    assert_int_equal(conntab_init(&t, 2), 0);
    struct sockaddr_storage a = addr("198.18.0.1", 5);
    assert_int_equal(conntab_add(&t, 3, &a, 1, 0), 0);
    assert_int_equal(conntab_add(&t, 4, &a, 2, 0), 0);
    assert_int_equal(conntab_add(&t, 5, &a, 3, 0), -ENOSPC);
    assert_int_equal(conntab_prove(&t, 3), 0);
    assert_int_equal(conntab_count(&t, &a), 1);
    struct conn_slot v;
    assert_int_equal(conntab_shed_oldest(&t, &a, "x", &v), 0);
    assert_int_equal(v.fd, 4);
    assert_int_equal(conntab_shed_oldest(&t, &a, "x", &v), -ENOENT);
    assert_null(conntab_shed_reason(&t, 3)); /* proven: never shed */
    conntab_remove(&t, 4);
    assert_int_equal(conntab_add(&t, 5, &a, 3, 0), 0);
    assert_true(conntab_loop_owned(&t, 5));
    conntab_to_thread(&t, 5);
    assert_false(conntab_loop_owned(&t, 5));
    conntab_destroy(&t);
}

/* Only loop-owned connections past their deadline expire, each once. */
static void test_expired(void **state)
{
    (void)state;
    struct conntab t;
    assert_int_equal(conntab_init(&t, 4), 0);
    struct sockaddr_storage a = addr("127.0.0.1", 1);
    assert_int_equal(conntab_add(&t, 7, &a, 0, 100), 0);
    assert_int_equal(conntab_add(&t, 8, &a, 0, 500), 0);
    assert_int_equal(conntab_add(&t, 9, &a, 0, 100), 0);
    conntab_to_thread(&t, 9);
    /* The event loop's next wake: the nearest loop-owned deadline. */
    assert_int_equal(conntab_next_deadline(&t), 100);
    int out[4];
    assert_int_equal(conntab_expired(&t, 200, out, 4), 1);
    assert_int_equal(out[0], 7);
    assert_int_equal(conntab_expired(&t, 200, out, 4), 0);
    assert_int_equal(conntab_next_deadline(&t), 500);
    assert_int_equal(conntab_count(&t, NULL), 2);
    conntab_remove(&t, 8);
    assert_int_equal(conntab_next_deadline(&t), UINT64_MAX);
    conntab_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shed_oldest_per_host),
        cmocka_unit_test(test_proven_and_removed),
        cmocka_unit_test(test_expired),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
