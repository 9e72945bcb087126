/* Unit tests for layout/layout_files: two symbol files read and compared, and bad inputs. */
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

#include "layout/layout_files.h"

/* Writes text to a new temporary file whose name is left in path. */
static void write_tmp(char *path, const char *text)
{
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
}

/* nm -S maps: f grows by 8 bytes; g moves from offset 32 (two lines) to a line start (one). */
static const char old_map[] = "0000000000001000 0000000000000020 T f\n"
                              "0000000000001020 0000000000000030 T g\n";
static const char new_map[] = "0000000000001000 0000000000000028 T f\n"
                              "0000000000001040 0000000000000030 T g\n"
                              "0000000000001080 0000000000000010 T h\n";

static void test_compare_files(void **state)
{
    (void)state;
    char old_path[] = "/tmp/netab-test-lf-old-XXXXXX", new_path[] = "/tmp/netab-test-lf-new-XXXXXX";
    write_tmp(old_path, old_map);
    write_tmp(new_path, new_map);
    char err[NB_ERRLEN] = "";
    struct layout_files f;
    int rc = layout_files_compare(old_path, new_path, NULL, 64, &f, err, sizeof(err));
    if (rc)
        fail_msg("layout_files_compare failed (%d): %s", rc, err);
    assert_int_equal(f.old.n, 2);
    assert_int_equal(f.new.n, 3);
    assert_int_equal(f.diff.line, 64);
    assert_int_equal(f.diff.common, 2);
    assert_int_equal(f.diff.added, 1);
    assert_int_equal(f.diff.removed, 0);
    assert_int_equal(f.diff.offset_changed, 1);
    assert_int_equal(f.diff.lines_changed, 1);
    assert_int_equal(f.diff.grow, 1);
    assert_int_equal(f.diff.old_total, 0x20 + 0x30);
    assert_int_equal(f.diff.new_total, 0x28 + 0x30 + 0x10);
    layout_files_free(&f);
    unlink(old_path);
    unlink(new_path);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    char good[] = "/tmp/netab-test-lf-good-XXXXXX", bad[] = "/tmp/netab-test-lf-bad-XXXXXX";
    write_tmp(good, old_map);
    write_tmp(bad, "this is no symbol map\n");
    char err[NB_ERRLEN] = "";
    struct layout_files f;
    /* A garbage NEW file: a bad input (not out of memory), named in the message. */
    int rc = layout_files_compare(good, bad, NULL, 64, &f, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    assert_non_null(strstr(err, bad));
    assert_null(f.old.syms);
    assert_null(f.diff.fns);
    layout_files_free(&f);
    /* Two good files but a line size that is no power of two. */
    rc = layout_files_compare(good, good, NULL, 48, &f, err, sizeof(err));
    assert_int_equal(rc, -EINVAL);
    assert_non_null(strstr(err, "48 is not a power of two"));
    assert_null(f.old.syms);
    /* A missing OLD file: its errno, and NEW is never read. */
    unlink(bad);
    err[0] = '\0';
    rc = layout_files_compare(bad, good, NULL, 64, &f, err, sizeof(err));
    assert_int_equal(rc, -ENOENT);
    assert_non_null(strstr(err, bad));
    assert_null(f.new.syms);
    unlink(good);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_files),
        cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
