/* Unit tests for util/textfile: the cap and the refusal of binary input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cmocka.h>

#include "netab_assert.h"
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

/* textfile_load(): a file by its path, and the sentences of its refusals. */
static void test_load(void **state)
{
    (void)state;
    char path[] = "/tmp/netab-textfile-XXXXXX", err[NB_ERRLEN * 2];
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    assert_int_equal(write(fd, "{}\n\0x", 5), 5);
    assert_int_equal(close(fd), 0);
    char *buf = NULL;
    size_t len = 0;
    assert_int_equal(textfile_load(path, 100, "a JSON document", &buf, &len, err, sizeof(err)),
                     -EILSEQ);
    assert_null(buf);
    assert_non_null(strstr(err, "a binary file (it holds a NUL byte), not a JSON document"));
    assert_int_equal(truncate(path, 3), 0);
    assert_int_equal(textfile_load(path, 2, "a JSON document", &buf, &len, err, sizeof(err)),
                     -EFBIG);
    assert_non_null(strstr(err, "larger than 0 MiB"));
    assert_int_equal(textfile_load(path, 100, "a JSON document", &buf, &len, err, sizeof(err)), 0);
    ASSERT_EQ(len, 3);
    assert_string_equal(buf, "{}\n");
    free(buf);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(textfile_load(path, 100, "a JSON document", &buf, &len, err, sizeof(err)),
                     -ENOENT);
    assert_non_null(strstr(err, "cannot read /tmp/netab-textfile-"));
    assert_non_null(strstr(err, ": No such file or directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_text),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
