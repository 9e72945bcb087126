/* Unit tests for proto/registry: attaching data connections to pending tests. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "proto/registry.h"
#include "util/clock.h"

#define NCONN 3

struct fixture {
    struct registry reg;
    struct pending_test t;
    int fds[NCONN];
    bool sends[NCONN];
    bool want[NCONN];
};

static struct fixture fx;

static int setup(void **state)
{
    memset(&fx, 0, sizeof(fx));
    registry_init(&fx.reg);
    for (int i = 0; i < TEST_COOKIE_LEN; i++)
        fx.t.cookie[i] = (uint8_t)(i + 1);
    fx.t.expected = NCONN;
    for (int i = 0; i < NCONN; i++)
        fx.fds[i] = -1;
    /* Streams 0 and 1 carry client data, stream 2 server data (like --bidir). */
    fx.want[2] = true;
    fx.t.fds = fx.fds;
    fx.t.server_sends = fx.sends;
    fx.t.want_server_sends = fx.want;
    registry_add(&fx.reg, &fx.t);
    *state = &fx;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    registry_remove(&fx.reg, &fx.t);
    registry_destroy(&fx.reg);
    return 0;
}

static struct datahdr hdr(uint32_t stream, bool server_sends)
{
    struct datahdr h = {.stream = stream, .server_sends = server_sends};
    memcpy(h.cookie, fx.t.cookie, TEST_COOKIE_LEN);
    return h;
}

static void test_unknown_cookie(void **state)
{
    (void)state;
    struct datahdr h = hdr(0, false);
    h.cookie[5] ^= 1;
    assert_int_equal(registry_attach(&fx.reg, &h, 10), -ENOENT);
    assert_int_equal(fx.t.attached, 0);
    assert_int_equal(fx.fds[0], -1);

    /* After removal the right cookie is unknown too. */
    registry_remove(&fx.reg, &fx.t);
    h = hdr(0, false);
    assert_int_equal(registry_attach(&fx.reg, &h, 10), -ENOENT);
}

static void test_bad_index_or_direction(void **state)
{
    (void)state;
    struct datahdr h = hdr(NCONN, false);
    assert_int_equal(registry_attach(&fx.reg, &h, 10), -EINVAL);
    h = hdr(UINT32_MAX, false);
    assert_int_equal(registry_attach(&fx.reg, &h, 10), -EINVAL);
    h = hdr(0, true);
    assert_int_equal(registry_attach(&fx.reg, &h, 10), -EINVAL);
    h = hdr(2, false);
    assert_int_equal(registry_attach(&fx.reg, &h, 10), -EINVAL);
    assert_int_equal(fx.t.attached, 0);
    for (int i = 0; i < NCONN; i++)
        assert_int_equal(fx.fds[i], -1);
}

static void test_attach_and_duplicate(void **state)
{
    (void)state;
    struct datahdr h = hdr(2, true);
    assert_int_equal(registry_attach(&fx.reg, &h, 12), 0);
    assert_int_equal(fx.fds[2], 12);
    assert_true(fx.sends[2]);
    assert_int_equal(fx.t.attached, 1);
    assert_int_equal(registry_attach(&fx.reg, &h, 13), -EEXIST);
    assert_int_equal(fx.fds[2], 12);
    assert_int_equal(fx.t.attached, 1);
}

static void test_wait_timeout(void **state)
{
    (void)state;
    struct datahdr h = hdr(0, false);
    assert_int_equal(registry_attach(&fx.reg, &h, 10), 0);
    uint64_t t0 = clock_now_ns();
    assert_int_equal(registry_wait(&fx.reg, &fx.t, t0 + 50000000ull), -ETIMEDOUT);
    ASSERT_GE(clock_now_ns() - t0, 40000000ull);
    assert_int_equal(fx.t.attached, 1);
}

static void *attach_later(void *arg)
{
    (void)arg;
    static const bool dirs[NCONN] = {false, false, true};
    for (int i = NCONN - 1; i >= 0; i--) {
        clock_sleep_until(clock_now_ns() + 5000000ull);
        struct datahdr h = hdr((uint32_t)i, dirs[i]);
        if (registry_attach(&fx.reg, &h, 20 + i))
            return (void *)1;
    }
    return NULL;
}

static void test_wait_success(void **state)
{
    (void)state;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, attach_later, NULL), 0);
    int rc = registry_wait(&fx.reg, &fx.t, clock_now_ns() + 5000000000ull);
    void *ret;
    pthread_join(th, &ret);
    assert_null(ret);
    assert_int_equal(rc, 0);
    assert_int_equal(fx.t.attached, NCONN);
    for (int i = 0; i < NCONN; i++)
        assert_int_equal(fx.fds[i], 20 + i);
    assert_false(fx.sends[0]);
    assert_true(fx.sends[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unknown_cookie, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_index_or_direction, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attach_and_duplicate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_wait_success, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
