/* Unit tests for util/units: parsing of sizes, rates, durations, integers; formatting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "util/units.h"

static void size_ok(const char *s, uint64_t want)
{
    char err[NB_ERRLEN] = "";
    uint64_t v = 0;
    int rc = units_parse_size(s, &v, err, sizeof(err));
    if (rc != 0)
        fail_msg("units_parse_size('%s') failed: %s", s, err);
    assert_int_equal(v, want);
}

/* Checks the return code and that the message quotes the offending value. */
static void size_bad(const char *s, int want_rc)
{
    char err[NB_ERRLEN] = "";
    uint64_t v = 12345;
    int rc = units_parse_size(s, &v, err, sizeof(err));
    if (rc != want_rc)
        fail_msg("units_parse_size('%s') returned %d, expected %d", s, rc, want_rc);
    assert_int_equal(v, 12345);
    char quoted[64];
    snprintf(quoted, sizeof(quoted), "'%s'", s);
    if (!strstr(err, quoted))
        fail_msg("message for '%s' does not name it: %s", s, err);
}

static void rate_ok(const char *s, uint64_t want)
{
    char err[NB_ERRLEN] = "";
    uint64_t v = 0;
    int rc = units_parse_rate(s, &v, err, sizeof(err));
    if (rc != 0)
        fail_msg("units_parse_rate('%s') failed: %s", s, err);
    assert_int_equal(v, want);
}

static void rate_bad(const char *s, int want_rc)
{
    char err[NB_ERRLEN] = "";
    uint64_t v = 12345;
    int rc = units_parse_rate(s, &v, err, sizeof(err));
    if (rc != want_rc)
        fail_msg("units_parse_rate('%s') returned %d, expected %d", s, rc, want_rc);
    assert_int_equal(v, 12345);
    assert_non_null(strstr(err, s));
}

static void test_size_good(void **state)
{
    (void)state;
    size_ok("0", 0);
    size_ok("131072", 131072);
    size_ok("128K", 128 * 1024);
    size_ok("128k", 128 * 1024);
    size_ok("128Ki", 128 * 1024);
    size_ok("128ki", 128 * 1024);
    size_ok("1M", 1048576);
    size_ok("1m", 1048576);
    size_ok("1Mi", 1048576);
    size_ok("2G", 2ULL << 30);
    size_ok("2Gi", 2ULL << 30);
    size_ok("1.5M", 1572864);
    size_ok("1.50000M", 1572864);
    size_ok(".5K", 512);
    size_ok("1.K", 1024);
    size_ok("0.25K", 256);
    size_ok("18446744073709551615", UINT64_MAX);
    /* 2^64 / 2^30 = 2^34: the largest whole number of GiB is 2^34 - 1. */
    size_ok("17179869183G", (UINT64_C(17179869183) << 30));
}

static void test_size_bad(void **state)
{
    (void)state;
    size_bad("", -EINVAL);
    size_bad("10Q", -EINVAL);
    size_bad("10 M", -EINVAL);
    size_bad(" 10", -EINVAL);
    size_bad("10M ", -EINVAL);
    size_bad("-1", -EINVAL);
    size_bad("+1", -EINVAL);
    size_bad("K", -EINVAL);
    size_bad(".", -EINVAL);
    size_bad(".K", -EINVAL);
    size_bad("nan", -EINVAL);
    size_bad("inf", -EINVAL);
    size_bad("1e3", -EINVAL);
    size_bad("0x10", -EINVAL);
    size_bad("10KB", -EINVAL);
    size_bad("10KiB", -EINVAL);
    size_bad("10T", -EINVAL);
    size_bad("1.2.3", -EINVAL);
    size_bad("1.3K", -EINVAL); /* 1331.2 bytes is not a whole number */
    size_bad("0.5", -EINVAL);
    size_bad("18446744073709551616", -ERANGE);
    size_bad("99999999999999999999999", -ERANGE);
    size_bad("17179869184G", -ERANGE);
    size_bad("16777216T", -EINVAL);
    size_bad("99999999999999999999Q", -EINVAL);
    size_bad("1.0000000000000000001K", -EINVAL);

    char err[NB_ERRLEN];
    uint64_t v;
    assert_int_equal(units_parse_size("10Q", &v, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "'10Q' is not a valid size (expected a number with optional K, M, "
                             "G, Ki, Mi or Gi)");
    /* A NULL error buffer is allowed. */
    assert_int_equal(units_parse_size("x", &v, NULL, 0), -EINVAL);
    assert_int_equal(units_parse_size(NULL, &v, err, sizeof(err)), -EINVAL);
}

static void test_rate(void **state)
{
    (void)state;
    rate_ok("0", 0);
    rate_ok("100", 100);
    rate_ok("100K", 100000);
    rate_ok("100k", 100000);
    rate_ok("100M", 100000000);
    rate_ok("1G", 1000000000);
    rate_ok("1.5G", 1500000000);
    rate_ok("1.5g", 1500000000);
    rate_ok("10Mi", 10485760);
    rate_ok("10mi", 10485760);
    rate_ok("1Ki", 1024);
    rate_ok("1Gi", 1073741824);
    rate_ok("0.001K", 1);
    rate_ok("18446744073709551615", UINT64_MAX);
    rate_ok("18446744073.709551615G", UINT64_MAX);
    rate_bad("", -EINVAL);
    rate_bad("10Q", -EINVAL);
    rate_bad("10 M", -EINVAL);
    rate_bad("-5M", -EINVAL);
    rate_bad("M", -EINVAL);
    rate_bad("nan", -EINVAL);
    rate_bad("infinity", -EINVAL);
    rate_bad("18446744073709551616", -ERANGE);
    rate_bad("18446744074G", -ERANGE);
}

static void test_seconds(void **state)
{
    (void)state;
    char err[NB_ERRLEN];
    double d = -1;
    assert_int_equal(units_parse_seconds("10", &d, err, sizeof(err)), 0);
    ASSERT_EQ(d, 10.0);
    assert_int_equal(units_parse_seconds("0.5", &d, err, sizeof(err)), 0);
    ASSERT_EQ(d, 0.5);
    assert_int_equal(units_parse_seconds("0", &d, err, sizeof(err)), 0);
    ASSERT_EQ(d, 0.0);
    const char *bad[] = {"", "-1", "abc", "1s", " 1", "nan", "inf", "1e2", ".", "0x1", "1,5"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        d = 42;
        if (units_parse_seconds(bad[i], &d, err, sizeof(err)) != -EINVAL)
            fail_msg("'%s' was accepted as a duration", bad[i]);
        ASSERT_EQ(d, 42);
        assert_non_null(strstr(err, bad[i]));
    }
    char huge[400];
    memset(huge, '9', sizeof(huge) - 1);
    huge[sizeof(huge) - 1] = '\0';
    assert_int_equal(units_parse_seconds(huge, &d, err, sizeof(err)), -ERANGE);
}

static void test_int(void **state)
{
    (void)state;
    char err[NB_ERRLEN];
    long v = 0;
    assert_int_equal(units_parse_int("5", 1, 128, &v, err, sizeof(err)), 0);
    assert_int_equal(v, 5);
    assert_int_equal(units_parse_int("1", 1, 128, &v, err, sizeof(err)), 0);
    assert_int_equal(v, 1);
    assert_int_equal(units_parse_int("128", 1, 128, &v, err, sizeof(err)), 0);
    assert_int_equal(v, 128);
    assert_int_equal(units_parse_int("-3", -5, 5, &v, err, sizeof(err)), 0);
    assert_int_equal(v, -3);
    v = 7;
    assert_int_equal(units_parse_int("129", 1, 128, &v, err, sizeof(err)), -ERANGE);
    assert_string_equal(err, "'129' is out of range (expected an integer from 1 to 128)");
    assert_int_equal(units_parse_int("0", 1, 128, &v, err, sizeof(err)), -ERANGE);
    assert_int_equal(units_parse_int("99999999999999999999", 1, 128, &v, err, sizeof(err)),
                     -ERANGE);
    assert_int_equal(v, 7);
    const char *bad[] = {"", "-", "+5", " 5", "5 ", "5x", "0x10", "1.0", "abc"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (units_parse_int(bad[i], 0, 100, &v, err, sizeof(err)) != -EINVAL)
            fail_msg("'%s' was accepted as an integer", bad[i]);
        assert_non_null(strstr(err, "from 0 to 100"));
    }
    assert_int_equal(v, 7);
}

static void rate_fmt(double v, const char *want)
{
    char buf[64];
    units_format_rate(v, buf, sizeof(buf));
    assert_string_equal(buf, want);
}

static void bytes_fmt(double v, const char *want)
{
    char buf[64];
    units_format_bytes(v, buf, sizeof(buf));
    assert_string_equal(buf, want);
}

static void test_format(void **state)
{
    (void)state;
    rate_fmt(941e6, "941 Mbit/s");
    rate_fmt(9.41e9, "9.41 Gbit/s");
    rate_fmt(94.1e9, "94.1 Gbit/s");
    rate_fmt(999.7e6, "1.00 Gbit/s");
    rate_fmt(999.4e6, "999 Mbit/s");
    rate_fmt(1e3, "1.00 Kbit/s");
    rate_fmt(512, "512 bit/s");
    rate_fmt(0, "0 bit/s");
    rate_fmt(2.5e12, "2.50 Tbit/s");
    rate_fmt(2.5e15, "2500 Tbit/s");

    bytes_fmt(100, "100 B");
    bytes_fmt(0, "0 B");
    bytes_fmt(1023, "1023 B");
    bytes_fmt(512 * 1024.0, "512 KiB");
    bytes_fmt(1.1 * 1024 * 1024 * 1024, "1.10 GiB");
    bytes_fmt(1536, "1.50 KiB");
    bytes_fmt(1024.0 * 1024 - 1, "1.00 MiB");
    bytes_fmt(10.5 * 1024 * 1024, "10.5 MiB");

    /* A small buffer truncates instead of overflowing. */
    char small[4];
    units_format_rate(941e6, small, sizeof(small));
    assert_string_equal(small, "941");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_good), cmocka_unit_test(test_size_bad),
        cmocka_unit_test(test_rate),      cmocka_unit_test(test_seconds),
        cmocka_unit_test(test_int),       cmocka_unit_test(test_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
