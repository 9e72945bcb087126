/*
 * Option tables (cli/cli_opts.h): each option reaches its setter with its
 * value, in the order given; exact names only, with a hint for a typo; a
 * setter's refusal and a missing value are usage errors naming the option;
 * the help prints every option of the table at column 23.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "cli/cli.h"
#include "cli/cli_opts.h"
#include "netab_assert.h"
#include "util/err.h"

struct args {
    const char *db, *out, *level;
    bool json, four, level_given;
    int order[4]; /* which setter ran when: 1 = --count */
    int count, calls;
};

static int set_count(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    struct args *a = field;
    if (strcmp(value, "1") && strcmp(value, "2"))
        return err_set(err, errlen, EINVAL, "--%s: '%s' is not 1 or 2", o->name, value);
    a->count = value[0] - '0';
    a->order[a->calls++ % 4] = 1;
    return 0;
}

/* --level[=N]: given, with or without its value. */
static int set_level(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    struct args *a = field;
    (void)o;
    (void)err;
    (void)errlen;
    a->level_given = true;
    a->level = value;
    return 0;
}

static const struct cli_opt opts[] = {
    {"db", 0, "PATH", "the database\nsecond line", cli_set_string, offsetof(struct args, db), 0, 0},
    {"json", 0, NULL, "JSON output", cli_set_true, offsetof(struct args, json), 0, 0},
    {"output", 'o', "FILE", "write FILE", cli_set_nonempty, offsetof(struct args, out), 0, 0},
    {"count", 0, "N", "1 or 2", set_count, 0, 0, 0},
    {"", 0, NULL, "a heading", NULL, 0, 0, 0},
    {"", '4', NULL, "four", cli_set_true, offsetof(struct args, four), 0, 0},
    {"level", 0, "[N]", "a level", set_level, 0, 0, 0},
    {0},
};

static const struct cli_cmd cmd = {
    .name = "demo", .usage = "usage: demo\noptions:\n", .tail = "the end\n", .opts = opts};

/* Parses the NULL-terminated words after "demo"; returns cli_opts_parse()'s answer. */
static int parse(struct args *a, char **err_text, ...)
{
    char *argv[16] = {"demo"};
    int argc = 1;
    va_list ap;
    va_start(ap, err_text);
    for (char *w; argc < 15 && (w = va_arg(ap, char *));)
        argv[argc++] = w;
    va_end(ap);
    memset(a, 0, sizeof(*a));
    struct capture c;
    capture_begin(&c, 2);
    int rc = cli_opts_parse(&cmd, argc, argv, a);
    *err_text = capture_end(&c);
    return rc;
}

static void test_values_reach_their_fields(void **state)
{
    (void)state;
    struct args a;
    char *err;
    ASSERT_EQ(parse(&a, &err, "--db", "x.db", "-o", "f", "--json", "--count", "2", "rest", NULL),
              -1);
    assert_string_equal(a.db, "x.db");
    assert_string_equal(a.out, "f");
    assert_true(a.json);
    ASSERT_EQ(a.count, 2);
    ASSERT_EQ(a.calls, 1);
    assert_string_equal(err, "");
    free(err);
}

static void test_short_only_and_optional_values(void **state)
{
    (void)state;
    struct args a;
    char *err;
    ASSERT_EQ(parse(&a, &err, "-4", "--level", "x", NULL), -1);
    assert_true(a.four);
    assert_true(a.level_given);
    assert_null(a.level); /* an optional value only as --level=N: "x" is an operand */
    free(err);
    ASSERT_EQ(parse(&a, &err, "--level=3", NULL), -1);
    assert_string_equal(a.level, "3");
    free(err);
    ASSERT_EQ(parse(&a, &err, "--4", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "unknown option '--4'"));
    free(err);
}

static void test_refusals_name_the_option(void **state)
{
    (void)state;
    struct args a;
    char *err;
    ASSERT_EQ(parse(&a, &err, "--count", "3", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "netab demo: --count: '3' is not 1 or 2"));
    free(err);
    ASSERT_EQ(parse(&a, &err, "--jsn", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "unknown option '--jsn'; did you mean '--json'?"));
    free(err);
    /* A unique prefix is not the option (issue 21: a typo never means another option). */
    ASSERT_EQ(parse(&a, &err, "--js", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "unknown option '--js'"));
    assert_false(a.json);
    free(err);
    ASSERT_EQ(parse(&a, &err, "--db", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "option '--db' needs a value"));
    free(err);
    ASSERT_EQ(parse(&a, &err, "-o", "", NULL), EXIT_USAGE);
    assert_non_null(strstr(err, "--output: the value must not be empty"));
    free(err);
}

static void test_help_from_the_table(void **state)
{
    (void)state;
    struct capture c;
    capture_begin(&c, 1);
    cli_opts_help(&cmd, stdout);
    char *out = capture_end(&c);
    assert_string_equal(out, "usage: demo\noptions:\n"
                             "  --db PATH            the database\n"
                             "                       second line\n"
                             "  --json               JSON output\n"
                             "  -o, --output FILE    write FILE\n"
                             "  --count N            1 or 2\n"
                             "a heading\n"
                             "  -4                   four\n"
                             "  --level[=N]          a level\n"
                             "  -h, --help           this text\n"
                             "the end\n");
    free(out);
    struct args a;
    char *err;
    capture_begin(&c, 1);
    int rc = parse(&a, &err, "--help", NULL);
    char *help = capture_end(&c);
    ASSERT_EQ(rc, EXIT_OK);
    assert_non_null(strstr(help, "  -o, --output FILE    write FILE\n"));
    free(help);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_reach_their_fields),
        cmocka_unit_test(test_refusals_name_the_option),
        cmocka_unit_test(test_short_only_and_optional_values),
        cmocka_unit_test(test_help_from_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
