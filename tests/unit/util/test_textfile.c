/* Unit tests for util/textfile: the cap and the refusal of binary input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/textfile.h"

static FILE *file_of(const char *bytes, size_t len)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    rewind(f);
    return f;
}

static void test_reads_text(void **state)
{
    (void)state;
    FILE *f = file_of("1\n2\n3\n", 6);
    char *buf;
    size_t len;
    assert_int_equal(textfile_read(f, 100, &buf, &len), 0);
    assert_int_equal(len, 6);
    assert_string_equal(buf, "1\n2\n3\n");
    free(buf);
    fclose(f);
}

/* Exactly the cap is fine; one byte more is -EFBIG, also past the first 64 KiB read. */
static void test_cap(void **state)
{
    (void)state;
    size_t n = 200000;
    char *big = malloc(n);
    memset(big, 'x', n);
    char *buf;
    size_t len;
    FILE *f = file_of(big, n);
    assert_int_equal(textfile_read(f, n, &buf, &len), 0);
    assert_int_equal(len, n);
    free(buf);
    fclose(f);
    f = file_of(big, n);
    assert_int_equal(textfile_read(f, n - 1, &buf, &len), -EFBIG);
    assert_null(buf);
    fclose(f);
    free(big);
}

/* A NUL byte makes it a binary file, with its offset. */
static void test_binary(void **state)
{
    (void)state;
    FILE *f = file_of("12\n\0\n", 5);
    char *buf;
    size_t len;
    assert_int_equal(textfile_read(f, 100, &buf, &len), -EILSEQ);
    assert_null(buf);
    assert_int_equal(len, 3);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_text),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_binary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
