/*
 * Unit tests for util/printable: control bytes, DEL and C1 controls as \xNN,
 * everything else (UTF-8 text included) unchanged, truncation that never
 * cuts an escape, and the stream form with and without newlines kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "util/printable.h"

static void test_copy_escapes_controls(void **state)
{
    (void)state;
    char buf[128];
    /* ESC [2J, an OSC title ended by BEL, CR and a fake line: all visible, none obeyed. */
    const char *hostile = "a\x1b[2Jb\x1b]0;pwned\x07\r\nFAKE\x7f";
    size_t need = printable_copy(buf, sizeof(buf), hostile);
    assert_string_equal(buf, "a\\x1b[2Jb\\x1b]0;pwned\\x07\\x0d\\x0aFAKE\\x7f");
    ASSERT_EQ(need, strlen(buf));
    assert_false(printable_needed(buf));
    assert_true(printable_needed(hostile));
    /* UTF-8 text stays; the C1 control CSI (U+009B) does not. */
    printable_copy(buf, sizeof(buf),
                   "caf\xc3\xa9 \xc2\x9b"
                   "31m \xc2\xa0");
    assert_string_equal(buf, "caf\xc3\xa9 \\xc2\\x9b"
                             "31m \xc2\xa0");
    assert_false(printable_needed("caf\xc3\xa9 \xc2\xa0"));
    assert_false(printable_needed(NULL));
    printable_copy(buf, sizeof(buf), NULL);
    assert_string_equal(buf, "");
}

static void test_copy_truncates_whole_escapes(void **state)
{
    (void)state;
    char buf[8];
    /* "ab" + "\x1b" (4) fits 7 bytes; the next escape does not, and no half of it is written. */
    size_t need = printable_copy(buf, sizeof(buf),
                                 "ab\x1b\x1b"
                                 "cd");
    ASSERT_EQ(need, 2 + 4 + 4 + 2);
    assert_string_equal(buf, "ab\\x1b");
    ASSERT_EQ(printable_copy(NULL, 0, "\x07x"), 5);
    char *d = printable_dup("x\ty");
    assert_string_equal(d, "x\\x09y");
    free(d);
}

/* printable_write() into memory: what the stream received. */
static char *written(const char *text, bool keep_newlines)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    ASSERT_EQ(printable_write(f, text, strlen(text), keep_newlines), 0);
    ASSERT_EQ(fclose(f), 0);
    return buf;
}

static void test_write_keeps_lines_when_asked(void **state)
{
    (void)state;
    char *a = written("one\n\x1b[31mtwo\r\n", true);
    assert_string_equal(a, "one\n\\x1b[31mtwo\\x0d\n");
    char *b = written("one\n\x1b[31mtwo\r\n", false);
    assert_string_equal(b, "one\\x0a\\x1b[31mtwo\\x0d\\x0a");
    free(a);
    free(b);
}

static char *vprinted(const char *fmt, ...)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    va_list ap;
    va_start(ap, fmt);
    ASSERT_EQ(printable_vfprintf(f, fmt, ap), 0);
    va_end(ap);
    ASSERT_EQ(fclose(f), 0);
    return buf;
}

/* A formatted message that quotes a peer's words: its control bytes escaped, newlines kept. */
static void test_vfprintf(void **state)
{
    (void)state;
    char *a = vprinted("server said: %s (%d)\n",
                       "\x1b]0;title\x07"
                       "boom",
                       7);
    assert_string_equal(a, "server said: \\x1b]0;title\\x07boom (7)\n");
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_escapes_controls),
        cmocka_unit_test(test_copy_truncates_whole_escapes),
        cmocka_unit_test(test_write_keeps_lines_when_asked),
        cmocka_unit_test(test_vfprintf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
