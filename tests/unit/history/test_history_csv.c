/*
 * history_from_csv(): labels (quoted or not), a header, CRLF, comments, and
 * every bad input; history_from_stores() without a store: the default one.
 */
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

#include "history/history.h"
#include "store/store.h"
#include "netab_assert.h"

static char path[64];

static void write_file(const char *text)
{
    strcpy(path, "/tmp/netab-history-csv-XXXXXX");
    int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_good_input(void **state)
{
    (void)state;
    write_file("label,value\r\n"
               "# a comment\r\n"
               "\r\n"
               "night 1,1000.5\r\n"
               "\"v6.18, rc1\",990\r\n"
               "\"say \"\"hi\"\"\", 1e3 \r\n"
               "a,b,7\n");
    struct history h;
    char err[256];
    assert_int_equal(history_from_csv(path, &h, err, sizeof(err)), 0);
    assert_int_equal(h.n, 1);
    const struct history_series *s = &h.series[0];
    assert_null(s->variant);
    assert_int_equal(s->n, 4);
    assert_string_equal(s->pts[0].label, "night 1");
    ASSERT_EQ(s->pts[0].value, 1000.5);
    assert_string_equal(s->pts[1].label, "v6.18, rc1");
    ASSERT_EQ(s->pts[1].value, 990);
    assert_string_equal(s->pts[2].label, "say \"hi\"");
    ASSERT_EQ(s->pts[2].value, 1000);
    /* An unquoted label keeps its commas: the value is after the last one. */
    assert_string_equal(s->pts[3].label, "a,b");
    ASSERT_EQ(s->pts[3].value, 7);
    assert_string_equal(h.metric, "value");
    history_free(&h);
    unlink(path);
}

/* Each bad input is refused with the line and what is wrong. */
static void refused(const char *text, const char *needle)
{
    write_file(text);
    struct history h;
    char err[256] = "";
    assert_int_equal(history_from_csv(path, &h, err, sizeof(err)), -EINVAL);
    if (!strstr(err, needle))
        fail_msg("'%s' does not say '%s'", err, needle);
    history_free(&h);
    unlink(path);
}

static void test_bad_input(void **state)
{
    (void)state;
    refused("a,1\nb,zz\n", ":2: 'zz' is not a finite number");
    refused("a,1\nno comma\n", ":2: not 'label,value'");
    refused("a,1\nb,nan\n", ":2: 'nan'");
    refused("a,1\nb,1e999\n", ":2:");
    refused("\"open,1\n", ":1: not 'label,value'");
    refused("label,value\n", "no values");
    refused("", "no values");
    struct history h;
    char err[256];
    assert_int_equal(history_from_csv("/nonexistent/x.csv", &h, err, sizeof(err)), -ENOENT);
    assert_non_null(strstr(err, "/nonexistent/x.csv"));
    history_free(&h);
}

/* --by's names, and nothing else. */
static void test_by_parse(void **state)
{
    (void)state;
    enum history_by by = HISTORY_BY_EXPERIMENT;
    const struct opt row = {"by", 0, "WHAT", "", opt_set_choice, 0, 0, 0, history_by_choices};
    char err[NB_ERRLEN];
    assert_int_equal(opt_set_choice(&by, "kernel", &row, err, sizeof(err)), 0);
    ASSERT_EQ(by, HISTORY_BY_KERNEL);
    assert_int_equal(opt_set_choice(&by, "commit", &row, err, sizeof(err)), 0);
    ASSERT_EQ(by, HISTORY_BY_COMMIT);
    assert_int_equal(opt_set_choice(&by, "experiment", &row, err, sizeof(err)), 0);
    ASSERT_EQ(by, HISTORY_BY_EXPERIMENT);
    assert_int_equal(opt_set_choice(&by, "Kernel", &row, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--by: 'Kernel' is not experiment, commit or kernel");
    assert_int_equal(opt_set_choice(&by, "", &row, err, sizeof(err)), -EINVAL);
}

/* No --db: $NETAB_DB's store (here an empty one), else no HOME is said. */
static void test_default_store(void **state)
{
    (void)state;
    char db[] = "/tmp/netab-history-db-XXXXXX", err[NB_ERRLEN];
    ASSERT_GE(mkstemp(db), 0);
    unlink(db);
    struct store *st = NULL;
    assert_int_equal(store_open(db, STORE_OPEN_CREATE, &st, err, sizeof(err)), 0);
    store_close(st);
    setenv("NETAB_DB", db, 1);
    struct history h;
    assert_int_equal(
        history_from_stores(NULL, 0, NULL, NULL, HISTORY_BY_EXPERIMENT, &h, err, sizeof(err)),
        -ENOENT);
    assert_string_equal(err, "no successful run has throughput");
    history_free(&h);
    unlink(db);
    unsetenv("NETAB_DB");
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    unsetenv("HOME");
    unsetenv("XDG_DATA_HOME");
    assert_int_equal(
        history_from_stores(NULL, 0, NULL, NULL, HISTORY_BY_EXPERIMENT, &h, err, sizeof(err)),
        -ENOENT);
    ASSERT_STARTS_WITH(err, "no results database path: give --db PATH or set NETAB_DB");
    history_free(&h);
    if (home)
        setenv("HOME", home, 1);
    free(home);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_input),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_by_parse),
        cmocka_unit_test(test_default_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
