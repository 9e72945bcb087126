/* Unit tests for proto/datahdr: the data connection header and cookies. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/datahdr.h"

static void fill_cookie(uint8_t c[TEST_COOKIE_LEN])
{
    for (int i = 0; i < TEST_COOKIE_LEN; i++)
        c[i] = (uint8_t)(0xf1 - 17 * i);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct datahdr h = {.stream = 0x01020304, .server_sends = true}, back;
    fill_cookie(h.cookie);
    uint8_t buf[DATAHDR_LEN];
    datahdr_encode(&h, buf);
    assert_int_equal(DATAHDR_LEN, 28);
    assert_memory_equal(buf, "NDAT", 4);
    assert_memory_equal(buf + 4, h.cookie, TEST_COOKIE_LEN);
    static const uint8_t tail[8] = {1, 2, 3, 4, 0, 0, 0, 1};
    assert_memory_equal(buf + 20, tail, 8);
    assert_true(datahdr_is_data(buf));

    memset(&back, 0xaa, sizeof(back));
    assert_int_equal(datahdr_decode(buf, &back), 0);
    assert_memory_equal(back.cookie, h.cookie, TEST_COOKIE_LEN);
    assert_int_equal(back.stream, 0x01020304);
    assert_true(back.server_sends);

    h.server_sends = false;
    h.stream = 0;
    datahdr_encode(&h, buf);
    assert_int_equal(buf[27], 0);
    assert_int_equal(datahdr_decode(buf, &back), 0);
    assert_false(back.server_sends);
    assert_int_equal(back.stream, 0);
}

static void test_wrong_magic(void **state)
{
    (void)state;
    struct datahdr h = {.stream = 1}, back;
    fill_cookie(h.cookie);
    uint8_t buf[DATAHDR_LEN];
    datahdr_encode(&h, buf);
    buf[3] = 'X';
    assert_false(datahdr_is_data(buf));
    assert_int_equal(datahdr_decode(buf, &back), -EPROTO);
    /* A control frame's length prefix is never data. */
    static const uint8_t ctl[4] = {0, 0, 0, 40};
    assert_false(datahdr_is_data(ctl));
}

static void test_bad_direction(void **state)
{
    (void)state;
    struct datahdr h = {.stream = 1}, back;
    fill_cookie(h.cookie);
    uint8_t buf[DATAHDR_LEN];
    datahdr_encode(&h, buf);
    buf[27] = 2;
    assert_int_equal(datahdr_decode(buf, &back), -EPROTO);
    buf[27] = 1;
    buf[24] = 0x80;
    assert_int_equal(datahdr_decode(buf, &back), -EPROTO);
}

static void test_cookie_hex(void **state)
{
    (void)state;
    uint8_t c[TEST_COOKIE_LEN], back[TEST_COOKIE_LEN];
    fill_cookie(c);
    char hex[33];
    datahdr_cookie_to_hex(c, hex);
    assert_int_equal(strlen(hex), 32);
    /* 0xf1, 0xf1-17=0xe0, 0xcf, ... */
    assert_memory_equal(hex, "f1e0cf", 6);
    assert_int_equal(datahdr_cookie_from_hex(hex, back), 0);
    assert_memory_equal(back, c, TEST_COOKIE_LEN);

    assert_int_equal(datahdr_cookie_from_hex("00112233445566778899aabbccddeeff", back), 0);
    for (int i = 0; i < TEST_COOKIE_LEN; i++)
        assert_int_equal(back[i], 0x11 * i);
}

static void test_cookie_hex_malformed(void **state)
{
    (void)state;
    uint8_t back[TEST_COOKIE_LEN];
    static const char *const bad[] = {
        "",
        "00112233445566778899aabbccddeef",   /* 31 characters */
        "00112233445566778899aabbccddeeff0", /* 33 characters */
        "00112233445566778899aabbccddeefg",
        "0011223344556677 899aabbccddeeff",
        "00112233445566778899AABBCCDDEEFF", /* to_hex writes lowercase only */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (datahdr_cookie_from_hex(bad[i], back) != -EINVAL)
            fail_msg("cookie '%s' was accepted", bad[i]);
    assert_int_equal(datahdr_cookie_from_hex(NULL, back), -EINVAL);
}

static void test_cookie_new(void **state)
{
    (void)state;
    uint8_t a[TEST_COOKIE_LEN], b[TEST_COOKIE_LEN];
    assert_int_equal(datahdr_cookie_new(a), 0);
    assert_int_equal(datahdr_cookie_new(b), 0);
    /* Two 128-bit random cookies are equal with probability 2^-128. */
    assert_memory_not_equal(a, b, TEST_COOKIE_LEN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),           cmocka_unit_test(test_wrong_magic),
        cmocka_unit_test(test_bad_direction),        cmocka_unit_test(test_cookie_hex),
        cmocka_unit_test(test_cookie_hex_malformed), cmocka_unit_test(test_cookie_new),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
