/* Unit tests for util/csv: RFC 4180 quoting, separators, round-trip numbers, errors. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "util/csv.h"

/* An in-memory stream and a writer on it. */
struct sink {
    char *buf;
    size_t len;
    FILE *f;
    struct csv w;
};

static void sink_open(struct sink *s, enum csv_eol eol)
{
    s->buf = NULL;
    s->len = 0;
    s->f = open_memstream(&s->buf, &s->len);
    assert_non_null(s->f);
    csv_init(&s->w, s->f, eol);
}

/* Closes the stream and checks that it holds exactly want. */
static void sink_expect(struct sink *s, const char *want)
{
    assert_int_equal(csv_status(&s->w), 0);
    assert_int_equal(fclose(s->f), 0);
    assert_string_equal(s->buf, want);
    free(s->buf);
}

static void test_plain_text_is_not_quoted(void **state)
{
    (void)state;
    struct sink s;
    sink_open(&s, CSV_LF);
    csv_text(&s.w, "base");
    csv_text(&s.w, "streams=1 block=64K");
    csv_text(&s.w, "");
    csv_text(&s.w, NULL);
    csv_end(&s.w);
    sink_expect(&s, "base,streams=1 block=64K,,\n");
}

static void test_quoting(void **state)
{
    (void)state;
    struct sink s;
    sink_open(&s, CSV_LF);
    csv_text(&s.w, "a,b");
    csv_text(&s.w, "say \"hi\"");
    csv_text(&s.w, "two\nlines");
    csv_text(&s.w, "cr\rhere");
    csv_text(&s.w, "\"");
    csv_end(&s.w);
    sink_expect(&s, "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\"cr\rhere\",\"\"\"\"\n");
}

/*
 * CSV injection: a text field a spreadsheet would evaluate gets a leading ',
 * inside the quotes when it is quoted; numbers, negative ones included, and
 * text that merely contains = or - stay as they are.
 */
static void test_formulas_are_neutralised(void **state)
{
    (void)state;
    struct sink s;
    sink_open(&s, CSV_LF);
    csv_text(&s.w, "=HYPERLINK(\"http://x\")");
    csv_text(&s.w, "+cmd|/c calc");
    csv_text(&s.w, "@SUM(A1)");
    csv_text(&s.w, "-2+3");
    csv_text(&s.w, "\tx");
    csv_text(&s.w, "\rx");
    csv_end(&s.w);
    csv_text(&s.w, "-1.5");
    csv_text(&s.w, "-");
    csv_text(&s.w, "streams=1");
    csv_text(&s.w, "a-b");
    csv_number(&s.w, -2.5);
    csv_integer(&s.w, -3);
    csv_end(&s.w);
    sink_expect(&s,
                "\"'=HYPERLINK(\"\"http://x\"\")\",'+cmd|/c calc,'@SUM(A1),'-2+3,'\tx,\"'\rx\"\n"
                "-1.5,-,streams=1,a-b,-2.5,-3\n");
    assert_true(csv_formula_like("=1"));
    assert_false(csv_formula_like("-7e3"));
    assert_false(csv_formula_like("-2;-1.5;3"));
    assert_true(csv_formula_like("-2;=1"));
    assert_true(csv_formula_like("-2;"));
    assert_false(csv_formula_like(""));
    assert_false(csv_formula_like(NULL));
}

static void test_separators_and_line_ends(void **state)
{
    (void)state;
    struct sink s;
    sink_open(&s, CSV_CRLF);
    static const char *const names[] = {"id", "name", "value"};
    csv_header(&s.w, names, 3);
    csv_integer(&s.w, -42);
    csv_empty(&s.w);
    csv_number(&s.w, 1.5);
    csv_end(&s.w);
    csv_end(&s.w); /* an empty line, as between the two tables of `netab stats --csv` */
    csv_empty(&s.w);
    csv_empty(&s.w);
    csv_end(&s.w);
    sink_expect(&s, "id,name,value\r\n-42,,1.5\r\n\r\n,\r\n");
}

static void expect_number(double v, const char *want)
{
    char buf[CSV_NUMBER_LEN];
    size_t n = csv_format_number(buf, sizeof(buf), v);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

static void test_number_format(void **state)
{
    (void)state;
    expect_number(57.471, "57.471");
    expect_number(0.1, "0.1");
    expect_number(0.1 + 0.2, "0.30000000000000004");
    expect_number(9.405, "9.405");
    expect_number(2.256275518e10, "22562755180");
    expect_number(1e300, "1e+300");
    expect_number(5.6200352436475515e-18, "5.6200352436475515e-18");
    expect_number(-0.39400000000000013, "-0.39400000000000013");
    expect_number(0, "0");
    expect_number(-3, "-3");
    expect_number(NAN, "");
    expect_number(INFINITY, "");
    expect_number(-INFINITY, "");
}

/* Significant digits of a %g number: leading zeros and the exponent do not count. */
static size_t significant_digits(const char *s)
{
    size_t n = 0;
    bool leading = true;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s < '0' || *s > '9')
            continue;
        leading &= *s == '0';
        n += !leading;
    }
    return n;
}

/* Every finite double reads back exactly, and with no more digits than needed. */
static void test_numbers_round_trip(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof(v));
        if (!isfinite(v))
            continue;
        char buf[CSV_NUMBER_LEN];
        ASSERT_GT(csv_format_number(buf, sizeof(buf), v), 0);
        double back = strtod(buf, NULL);
        if (back != v)
            fail_msg("%.17g was written as %s, which reads back as %.17g", v, buf, back);
        /* One digit fewer than the writer chose would lose the value. */
        size_t digits = significant_digits(buf);
        if (digits > 15) {
            char shorter[400]; /* what %g may write, however unlikely */
            snprintf(shorter, sizeof(shorter), "%.*g", (int)digits - 1, v);
            if (strtod(shorter, NULL) == v)
                fail_msg("%s has more digits than %s, which reads back the same", buf, shorter);
        }
    }
}

static void test_non_finite_numbers_are_empty_fields(void **state)
{
    (void)state;
    struct sink s;
    sink_open(&s, CSV_LF);
    csv_text(&s.w, "x");
    csv_number(&s.w, NAN);
    csv_number(&s.w, INFINITY);
    csv_number(&s.w, -INFINITY);
    csv_number(&s.w, 2.5);
    csv_end(&s.w);
    sink_expect(&s, "x,,,,2.5\n");
}

static void test_write_error_is_reported(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        fail_msg("cannot open /dev/full: %s", strerror(errno));
    struct csv w;
    csv_init(&w, f, CSV_LF);
    csv_text(&w, "lost");
    csv_end(&w);
    fflush(f);
    assert_int_equal(csv_status(&w), -EIO);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_text_is_not_quoted),
        cmocka_unit_test(test_quoting),
        cmocka_unit_test(test_formulas_are_neutralised),
        cmocka_unit_test(test_separators_and_line_ends),
        cmocka_unit_test(test_number_format),
        cmocka_unit_test(test_numbers_round_trip),
        cmocka_unit_test(test_non_finite_numbers_are_empty_fields),
        cmocka_unit_test(test_write_error_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
