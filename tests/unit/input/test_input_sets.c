/*
 * NAME=FILE in `netab stats`: which arguments name a set, which are files
 * whose names hold '=', and which are refused as ambiguous, in a directory
 * of files made for the purpose; the names the sets are shown under, and
 * which --column each set is read from.
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

#include "input/input_sets.h"
#include "netab_assert.h"

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
    touch("my set=b");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    const char *files[] = {"base.txt", "a=b", "b", "x=1.txt", "my set=b"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        unlink(files[i]);
    return rmdir(dir);
}

/* Splits arg; expects rc, the name and the path. */
static void expect(const char *arg, int rc, const char *name, const char *path)
{
    char got[INPUT_SET_NAME_MAX + 1], err[NB_ERRLEN] = "";
    const char *p = NULL;
    int r = input_set_split(arg, got, &p, err, sizeof(err));
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
    /* Not a NAME, but the whole argument is a file: that file. */
    expect("my set=b", 0, "", "my set=b");
    /* The longest NAME. */
    char longname[INPUT_SET_NAME_MAX + 16];
    memset(longname, 'n', INPUT_SET_NAME_MAX);
    strcpy(longname + INPUT_SET_NAME_MAX, "=base.txt");
    char want[INPUT_SET_NAME_MAX + 1];
    memset(want, 'n', INPUT_SET_NAME_MAX);
    want[INPUT_SET_NAME_MAX] = '\0';
    expect(longname, 0, want, "base.txt");
}

/* Text before the '=' that is no NAME, and no file of the whole name: refused, naming both. */
static void test_bad_name(void **state)
{
    (void)state;
    char name[INPUT_SET_NAME_MAX + 1], err[NB_ERRLEN];
    const char *p;
    ASSERT_EQ(input_set_split("align+align=base.txt", name, &p, err, sizeof(err)), -EINVAL);
    ASSERT_STARTS_WITH(err, "'align+align=base.txt': 'align+align' is not a set name "
                            "(NAME=FILE: a NAME is 1 to 64 of letters, digits, '_', '.' and '-', "
                            "and does not start with '-'), nor is 'align+align=base.txt' a file");
    /* Empty, a leading '-', a space, one character too long. */
    ASSERT_EQ(input_set_split("=base.txt", name, &p, err, sizeof(err)), -EINVAL);
    ASSERT_STARTS_WITH(err, "'=base.txt': '' is not a set name");
    ASSERT_EQ(input_set_split("-x=base.txt", name, &p, err, sizeof(err)), -EINVAL);
    ASSERT_STARTS_WITH(err, "'-x=base.txt': '-x' is not a set name");
    ASSERT_EQ(input_set_split("my set=base.txt", name, &p, err, sizeof(err)), -EINVAL);
    ASSERT_STARTS_WITH(err, "'my set=base.txt': 'my set' is not a set name");
    char longname[INPUT_SET_NAME_MAX + 16];
    memset(longname, 'n', INPUT_SET_NAME_MAX + 1);
    strcpy(longname + INPUT_SET_NAME_MAX + 1, "=base.txt");
    ASSERT_EQ(input_set_split(longname, name, &p, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "is not a set name"));
}

static void test_refused(void **state)
{
    (void)state;
    char name[INPUT_SET_NAME_MAX + 1], err[NB_ERRLEN];
    const char *p;
    /* Both a file "a=b" and the set a from a file "b": ambiguous, with both ways out. */
    assert_int_equal(input_set_split("a=b", name, &p, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'a=b' is both a file and the set a from the file b"));
    assert_non_null(strstr(err, "write ./a=b for the file or a=./b for the named set"));
    expect("a=./b", 0, "a", "./b");
    assert_int_equal(input_set_split("old=", name, &p, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "'old=' names the set old but no file"));
}

/* Sets from args, with --column N before the argument "@N" (columns[] as given). */
static int resolve(struct input_sets *s, struct input_set *v, const char *const *args, size_t n,
                   char *err, size_t errlen)
{
    *s = (struct input_sets){.v = v};
    for (size_t i = 0; i < n; i++)
        if (args[i][0] == '@')
            input_sets_column(s, (unsigned)atoi(args[i] + 1));
        else
            input_sets_add(s, args[i]);
    return input_sets_resolve(s, err, errlen);
}

static void test_sets_columns(void **state)
{
    (void)state;
    struct input_set v[8];
    struct input_sets s;
    char err[NB_ERRLEN], shown[256];
    /* One --column, even after the files, applies to every file; names stay the files'. */
    const char *one[] = {"base.txt", "b", "@3"};
    assert_int_equal(resolve(&s, v, one, 3, err, sizeof(err)), 0);
    ASSERT_EQ(s.n, 2);
    ASSERT_EQ(v[0].column, 3);
    ASSERT_EQ(v[1].column, 3);
    input_sets_shown(&s, 1, shown, sizeof(shown));
    assert_string_equal(shown, "b");
    /* Several: each to the files after it; the same file shown with its column. */
    const char *two[] = {"@1", "base.txt", "@2", "base.txt", "new=b", "-"};
    assert_int_equal(resolve(&s, v, two, 6, err, sizeof(err)), 0);
    ASSERT_EQ(v[0].column, 1);
    ASSERT_EQ(v[1].column, 2);
    input_sets_shown(&s, 0, shown, sizeof(shown));
    assert_string_equal(shown, "base.txt:1");
    input_sets_shown(&s, 1, shown, sizeof(shown));
    assert_string_equal(shown, "base.txt:2");
    input_sets_shown(&s, 2, shown, sizeof(shown));
    assert_string_equal(shown, "new");
    input_sets_shown(&s, 3, shown, sizeof(shown));
    assert_string_equal(shown, "<stdin>:2");
    /* One of several after the last file would apply to nothing. */
    const char *late[] = {"@1", "base.txt", "@2"};
    assert_int_equal(resolve(&s, v, late, 3, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "--column 2 follows the last file"));
}

static void test_sets_names_apart(void **state)
{
    (void)state;
    struct input_set v[4];
    struct input_sets s;
    char err[NB_ERRLEN];
    /* A NAME another set shows (as its NAME or as its file) is refused. */
    const char *twice[] = {"x=base.txt", "x=b"};
    assert_int_equal(resolve(&s, v, twice, 2, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "two sets would be shown as 'x'"));
    const char *file[] = {"b=base.txt", "b"};
    assert_int_equal(resolve(&s, v, file, 2, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "two sets would be shown as 'b'"));
    const char *ok[] = {"old=base.txt", "new=base.txt"};
    assert_int_equal(resolve(&s, v, ok, 2, err, sizeof(err)), 0);
    assert_string_equal(v[1].path, "base.txt");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named),        cmocka_unit_test(test_not_named),
        cmocka_unit_test(test_refused),      cmocka_unit_test(test_bad_name),
        cmocka_unit_test(test_sets_columns), cmocka_unit_test(test_sets_names_apart),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
