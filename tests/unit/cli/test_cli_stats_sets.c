/*
 * NAME=FILE in `netab stats`: which arguments name a set, which are files
 * whose names hold '=', and which are refused as ambiguous, in a directory
 * of files made for the purpose.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli/cli_stats_sets.h"

static char dir[] = "/tmp/netab-stats-sets-XXXXXX";

static void touch(const char *name)
{
    FILE *f = fopen(name, "w");
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir) || chdir(dir))
        return -1;
    touch("base.txt");
    touch("a=b");
    touch("b");
    touch("x=1.txt");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    const char *files[] = {"base.txt", "a=b", "b", "x=1.txt"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        unlink(files[i]);
    return rmdir(dir);
}

/* Splits arg; expects rc, the name and the path. */
static void expect(const char *arg, int rc, const char *name, const char *path)
{
    char got[CLI_SET_NAME_MAX + 1], err[NB_ERRLEN] = "";
    const char *p = NULL;
    int r = cli_stats_split_set(arg, got, &p, err, sizeof(err));
    if (r != rc)
        fail_msg("%s: rc %d, wanted %d (%s)", arg, r, rc, err);
    if (!rc) {
        assert_string_equal(got, name);
        assert_string_equal(p, path);
    }
}

static void test_named(void **state)
{
    (void)state;
    expect("base.txt", 0, "", "base.txt");
    expect("old=base.txt", 0, "old", "base.txt");
    expect("v1.2_rc-3=base.txt", 0, "v1.2_rc-3", "base.txt");
    expect("in=-", 0, "in", "-");
    /* The file part need not exist yet: reading it says so. */
    expect("new=missing.txt", 0, "new", "missing.txt");
    /* Only the first '=' splits. */
    expect("k=x=1.txt", 0, "k", "x=1.txt");
}

static void test_not_named(void **state)
{
    (void)state;
    /* A file whose name holds '=' and whose part after it is no file. */
    expect("x=1.txt", 0, "", "x=1.txt");
    /* A '/' before the '=' is never a NAME: the way to say "this is a file". */
    expect("./a=b", 0, "", "./a=b");
    expect("dir/k=v", 0, "", "dir/k=v");
    /* Not a NAME: empty, a leading '-', a space, too long. */
    expect("=base.txt", 0, "", "=base.txt");
    expect("-x=base.txt", 0, "", "-x=base.txt");
    expect("my set=base.txt", 0, "", "my set=base.txt");
    char longname[CLI_SET_NAME_MAX + 16];
    memset(longname, 'n', CLI_SET_NAME_MAX + 1);
    strcpy(longname + CLI_SET_NAME_MAX + 1, "=base.txt");
    expect(longname, 0, "", longname);
    longname[CLI_SET_NAME_MAX] = '=';
    strcpy(longname + CLI_SET_NAME_MAX + 1, "base.txt");
    longname[CLI_SET_NAME_MAX - 1] = 'n';
    char want[CLI_SET_NAME_MAX + 1];
    memset(want, 'n', CLI_SET_NAME_MAX);
    want[CLI_SET_NAME_MAX] = '\0';
    expect(longname, 0, want, "base.txt");
}

static void test_refused(void **state)
{
    (void)state;
    char name[CLI_SET_NAME_MAX + 1], err[NB_ERRLEN];
    const char *p;
    /* Both a file "a=b" and the set a from a file "b": ambiguous, with both ways out. */
    assert_int_equal(cli_stats_split_set("a=b", name, &p, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'a=b' is both a file and the set a from the file b"));
    assert_non_null(strstr(err, "write ./a=b for the file or a=./b for the named set"));
    expect("a=./b", 0, "a", "./b");
    assert_int_equal(cli_stats_split_set("old=", name, &p, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'old=' names the set old but no file"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named),
        cmocka_unit_test(test_not_named),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
