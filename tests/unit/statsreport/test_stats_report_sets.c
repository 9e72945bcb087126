/*
 * netab stats' sets read into the statistics report (stats_report_sets.c):
 * each set gets its values in file order under the name it is shown as,
 * with the format read; a --column per set takes that set's column; a set
 * that cannot be read stops the reading with its reader's sentence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "statsreport/stats_report_sets.h"

static char dir[] = "/tmp/netab-sets-XXXXXX";
static char base_path[64], other_path[64], missing_path[64];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    ASSERT_GT(fputs(text, f) + 1, 0);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(base_path, sizeof(base_path), "%s/base", dir);
    snprintf(other_path, sizeof(other_path), "%s/other", dir);
    snprintf(missing_path, sizeof(missing_path), "%s/missing", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(base_path);
    unlink(other_path);
    return rmdir(dir);
}

/* Reads the arguments args[0..n-1] (FILE, NAME=FILE or "--column N") into r. */
static int read_args(struct stats_report *r, const char *const *args, size_t n, char *err,
                     size_t errlen)
{
    struct input_set v[8] = {0};
    struct input_sets s = {.v = v};
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(args[i], "--column"))
            input_sets_column(&s, (unsigned)atoi(args[++i]));
        else
            input_sets_add(&s, args[i]);
    }
    assert_int_equal(input_sets_resolve(&s, err, errlen), 0);
    struct stats_opts o;
    stats_opts_default(&o);
    assert_int_equal(stats_report_init(r, s.n, &o), 0);
    struct input_opts in = {0};
    return stats_report_read_sets(r, &s, &in, err, errlen);
}

static void test_sets_in_order_with_names(void **state)
{
    (void)state;
    write_file(base_path, "1 10\n2 20\n3 30\n");
    write_file(other_path, "4 40\n5 50\n");
    char named[80], err[NB_ERRLEN * 2] = "";
    snprintf(named, sizeof(named), "new=%s", other_path);
    const char *args[] = {base_path, named};
    struct stats_report r = {0};
    assert_int_equal(read_args(&r, args, 2, err, sizeof(err)), 0);
    ASSERT_EQ(r.nsets, 2);
    assert_string_equal(r.sets[0].name, base_path);
    assert_string_equal(r.sets[0].format, "plain");
    ASSERT_EQ(r.sets[0].n, 3);
    const double want0[] = {1, 2, 3}, want1[] = {4, 5};
    assert_memory_equal(r.sets[0].values, want0, sizeof(want0));
    assert_string_equal(r.sets[1].name, "new");
    ASSERT_EQ(r.sets[1].n, 2);
    assert_memory_equal(r.sets[1].values, want1, sizeof(want1));
    stats_report_free(&r);
}

/* Two --column options: each set its own column, shown as FILE:COLUMN. */
static void test_column_per_set(void **state)
{
    (void)state;
    write_file(base_path, "1 10\n2 20\n3 30\n");
    char err[NB_ERRLEN * 2] = "", want[80];
    const char *args[] = {"--column", "1", base_path, "--column", "2", base_path};
    struct stats_report r = {0};
    assert_int_equal(read_args(&r, args, 6, err, sizeof(err)), 0);
    const double want1[] = {10, 20, 30};
    assert_memory_equal(r.sets[1].values, want1, sizeof(want1));
    snprintf(want, sizeof(want), "%s:2", base_path);
    assert_string_equal(r.sets[1].name, want);
    stats_report_free(&r);
}

/* A set that cannot be read: its reader's sentence, and no later set is read. */
static void test_unreadable_set(void **state)
{
    (void)state;
    write_file(base_path, "1\n2\n3\n");
    char err[NB_ERRLEN * 2] = "";
    const char *args[] = {base_path, missing_path, base_path};
    struct stats_report r = {0};
    ASSERT_LT(read_args(&r, args, 3, err, sizeof(err)), 0);
    assert_non_null(strstr(err, missing_path));
    ASSERT_EQ(r.sets[0].n, 3);
    ASSERT_EQ(r.sets[2].n, 0);
    stats_report_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sets_in_order_with_names),
        cmocka_unit_test(test_column_per_set),
        cmocka_unit_test(test_unreadable_set),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
