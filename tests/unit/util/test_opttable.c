/*
 * Option tables (util/opttable.h): each option reaches its setter with its
 * value, in the order given; exact names only, with a hint for a typo; a
 * setter's refusal and a missing value are errors naming the option; the
 * help prints every option of the table at column 23. The parser prints
 * nothing (tests/unit/cli/test_cli_opts.c: what the CLI prints for it).
 * A table with a given records which options a parse met (opt_given()).
 */
#include <errno.h>
#include <limits.h>
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
#include "util/err.h"
#include "util/opttable.h"

struct args {
    const char *db, *out, *level;
    bool json, four, level_given;
    int order[4]; /* which setter ran when: 1 = --count */
    int count, calls;
};

static int set_count(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct args *a = field;
    if (strcmp(value, "1") && strcmp(value, "2"))
        return err_set(err, errlen, EINVAL, "--%s: '%s' is not 1 or 2", o->name, value);
    a->count = value[0] - '0';
    a->order[a->calls++ % 4] = 1;
    return 0;
}

/* --level[=N]: given, with or without its value. */
static int set_level(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    struct args *a = field;
    (void)o;
    (void)err;
    (void)errlen;
    a->level_given = true;
    a->level = value;
    return 0;
}

static const struct opt opts[] = {
    {"db", 0, "PATH", "the database\nsecond line", opt_set_string, offsetof(struct args, db), 0, 0,
     NULL},
    {"json", 0, NULL, "JSON output", opt_set_true, offsetof(struct args, json), 0, 0, NULL},
    {"output", 'o', "FILE", "write FILE", opt_set_nonempty, offsetof(struct args, out), 0, 0, NULL},
    {"count", 0, "N", "1 or 2", set_count, 0, 0, 0, NULL},
    {"", 0, NULL, "a heading", NULL, 0, 0, 0, NULL},
    {"", '4', NULL, "four", opt_set_true, offsetof(struct args, four), 0, 0, NULL},
    {"level", 0, "[N]", "a level", set_level, 0, 0, 0, NULL},
    {0},
};

static const struct opt_table cmd = {
    .name = "demo", .usage = "usage: demo\noptions:\n", .tail = "the end\n", .opts = opts};

/* Parses the NULL-terminated words after "demo"; returns opt_table_parse()'s answer. */
static enum opt_parsed parse(struct args *a, char **err_text, ...)
{
    char *argv[16] = {"demo"};
    int argc = 1;
    va_list ap;
    va_start(ap, err_text);
    for (char *w; argc < 15 && (w = va_arg(ap, char *));)
        argv[argc++] = w;
    va_end(ap);
    memset(a, 0, sizeof(*a));
    char err[NB_ERRLEN * 4] = "";
    enum opt_parsed rc = opt_table_parse(&cmd, argc, argv, a, err, sizeof(err));
    *err_text = strdup(err);
    assert_non_null(*err_text);
    return rc;
}

static void test_values_reach_their_fields(void **state)
{
    (void)state;
    struct args a;
    char *err;
    ASSERT_EQ(parse(&a, &err, "--db", "x.db", "-o", "f", "--json", "--count", "2", "rest", NULL),
              OPT_GO_ON);
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
    ASSERT_EQ(parse(&a, &err, "-4", "--level", "x", NULL), OPT_GO_ON);
    assert_true(a.four);
    assert_true(a.level_given);
    assert_null(a.level); /* an optional value only as --level=N: "x" is an operand */
    free(err);
    ASSERT_EQ(parse(&a, &err, "--level=3", NULL), OPT_GO_ON);
    assert_string_equal(a.level, "3");
    free(err);
    ASSERT_EQ(parse(&a, &err, "--4", NULL), OPT_ERROR);
    assert_non_null(strstr(err, "unknown option '--4'"));
    free(err);
}

static void test_refusals_name_the_option(void **state)
{
    (void)state;
    struct args a;
    char *err;
    ASSERT_EQ(parse(&a, &err, "--count", "3", NULL), OPT_ERROR);
    assert_string_equal(err, "--count: '3' is not 1 or 2");
    free(err);
    ASSERT_EQ(parse(&a, &err, "--jsn", NULL), OPT_ERROR);
    assert_string_equal(err, "unknown option '--jsn'; did you mean '--json'?");
    free(err);
    /* A unique prefix is not the option (issue 21: a typo never means another option). */
    ASSERT_EQ(parse(&a, &err, "--js", NULL), OPT_ERROR);
    assert_non_null(strstr(err, "unknown option '--js'"));
    assert_false(a.json);
    free(err);
    ASSERT_EQ(parse(&a, &err, "--db", NULL), OPT_ERROR);
    assert_string_equal(err, "option '--db' needs a value");
    free(err);
    ASSERT_EQ(parse(&a, &err, "-o", "", NULL), OPT_ERROR);
    assert_string_equal(err, "--output: the value must not be empty");
    free(err);
}

static void test_help_from_the_table(void **state)
{
    (void)state;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    opt_table_help(&cmd, f);
    ASSERT_EQ(fclose(f), 0);
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
    /* -h and --help stop the parse; the caller prints the help. */
    struct args a;
    char *err;
    ASSERT_EQ(parse(&a, &err, "--json", "--help", "--db", NULL), OPT_HELP);
    assert_true(a.json);
    assert_null(a.db);
    assert_string_equal(err, "");
    free(err);
    ASSERT_EQ(parse(&a, &err, "-h", NULL), OPT_HELP);
    free(err);
}

/* A word of the option's choices: its value, or the word; any other word is refused by name. */
static void test_choices(void **state)
{
    (void)state;
    const struct opt by = {"by",
                           0,
                           "K",
                           "",
                           opt_set_choice,
                           0,
                           0,
                           0,
                           OPT_CHOICES({"experiment", 4}, {"commit", 5}, {"kernel", 6})};
    const struct opt order = {
        "order", 0, "O", "", opt_set_one_of, 0, 0, 0, OPT_CHOICES({"run", 1}, {"unknown", 2})};
    const struct opt ext = {
        "plot-format", 0, "F", "", opt_set_word, 0, 0, 0, OPT_CHOICES({"png", 0}, {"svg", 0})};
    char err[NB_ERRLEN];
    int v = -1;
    const char *w = NULL;
    ASSERT_EQ(opt_set_choice(&v, "commit", &by, err, sizeof(err)), 0);
    ASSERT_EQ(v, 5);
    ASSERT_EQ(opt_set_choice(&v, "Commit", &by, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--by: 'Commit' is not experiment, commit or kernel");
    ASSERT_EQ(v, 5);
    ASSERT_EQ(opt_set_one_of(&v, "unknown", &order, err, sizeof(err)), 0);
    ASSERT_EQ(v, 2);
    ASSERT_EQ(opt_set_one_of(&v, "", &order, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--order: '' is not one of run, unknown");
    ASSERT_EQ(opt_set_word(&w, "svg", &ext, err, sizeof(err)), 0);
    assert_string_equal(w, "svg");
    ASSERT_EQ(opt_set_word(&w, "pdf", &ext, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--plot-format: 'pdf' is not png or svg");
}

/* A table that records which options it met: no setter needs to. */
struct recorded {
    const char *name, *base;
    unsigned seed;
    bool lower;
    int family;
    struct opt_given given;
};

static const struct opt recorded_opts[] = {
    {"name", 'n', "N", "", opt_set_string, offsetof(struct recorded, name), 0, 0, NULL},
    {"", 0, NULL, "a heading", NULL, 0, 0, 0, NULL},
    {"seed", 0, "S", "", opt_set_unsigned, offsetof(struct recorded, seed), 0, 9, NULL},
    {"lower", 0, NULL, "", opt_set_true, offsetof(struct recorded, lower), 0, 0, NULL},
    {"higher", 0, NULL, "", opt_set_false, offsetof(struct recorded, lower), 0, 0, NULL},
    {"base", 0, "B", "", opt_set_string_once, offsetof(struct recorded, base), 0, 0, NULL},
    {"", '4', NULL, "", opt_set_const, offsetof(struct recorded, family), 4, 0, NULL},
    {"", '6', NULL, "", opt_set_const, offsetof(struct recorded, family), 6, 0, NULL},
    {0},
};

static const struct opt_table recorded_cmd = {.name = "rec",
                                              .usage = "usage: rec\n",
                                              .opts = recorded_opts,
                                              .given = OPT_GIVEN_AT(struct recorded, given)};

static enum opt_parsed parse_recorded(struct recorded *r, char *err, size_t errlen, int argc,
                                      char **argv)
{
    memset(r, 0, sizeof(*r));
    return opt_table_parse(&recorded_cmd, argc, argv, r, err, errlen);
}

static void test_given_is_recorded(void **state)
{
    (void)state;
    struct recorded r;
    char err[NB_ERRLEN] = "";
    char *argv[] = {"rec", "-n", "x", "--higher", "--lower", "--seed", "0", NULL};
    ASSERT_EQ(parse_recorded(&r, err, sizeof(err), 7, argv), OPT_GO_ON);
    /* By either name; a value equal to the default is still given. */
    assert_true(opt_given(&recorded_cmd, &r, "name"));
    assert_true(opt_given(&recorded_cmd, &r, "seed"));
    assert_true(opt_given(&recorded_cmd, &r, "lower"));
    assert_true(opt_given(&recorded_cmd, &r, "higher"));
    assert_true(r.lower); /* the last of two setters of one field wins */
    char *argv4[] = {"rec", "-6", "-4", NULL};
    ASSERT_EQ(parse_recorded(&r, err, sizeof(err), 3, argv4), OPT_GO_ON);
    ASSERT_EQ(r.family, 4); /* a constant setter: the row's lo */
    ASSERT_EQ(parse_recorded(&r, err, sizeof(err), 7, argv), OPT_GO_ON);
    assert_false(opt_given(&recorded_cmd, &r, "base"));
    assert_false(opt_given(&recorded_cmd, &r, "nonesuch"));
    /* A table that records nothing says nothing was given. */
    assert_false(opt_given(&cmd, &r, "name"));
    /* A parse starts afresh, even over a set left from an earlier one. */
    char *argv2[] = {"rec", "--base", "a", NULL};
    ASSERT_EQ(opt_table_parse(&recorded_cmd, 3, argv2, &r, err, sizeof(err)), OPT_GO_ON);
    assert_true(opt_given(&recorded_cmd, &r, "base"));
    assert_false(opt_given(&recorded_cmd, &r, "seed"));
    /* A refused value is not given. */
    char *argv3[] = {"rec", "--seed", "10", NULL};
    ASSERT_EQ(parse_recorded(&r, err, sizeof(err), 3, argv3), OPT_ERROR);
    assert_false(opt_given(&recorded_cmd, &r, "seed"));
}

/* Whole numbers into a long, up to LONG_MAX when the row's hi is INT64_MAX. */
static void test_long(void **state)
{
    (void)state;
    const struct opt id = {"experiment", 0, "ID", "", opt_set_long, 0, 0, (double)INT64_MAX, NULL};
    const struct opt top = {"top", 0, "N", "", opt_set_long, 0, 0, 1000, NULL};
    char err[NB_ERRLEN];
    long v = -1;
    ASSERT_EQ(opt_set_long(&v, "9223372036854775807", &id, err, sizeof(err)), 0);
    ASSERT_EQ(v, LONG_MAX);
    ASSERT_EQ(opt_set_long(&v, "0", &id, err, sizeof(err)), 0);
    ASSERT_EQ(v, 0);
    ASSERT_EQ(opt_set_long(&v, "1001", &top, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "--top: "));
    ASSERT_EQ(opt_set_long(&v, "-1", &id, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, "--experiment: "));
    ASSERT_EQ(v, 0);
}

static void test_string_once(void **state)
{
    (void)state;
    struct recorded r;
    char err[NB_ERRLEN] = "";
    char *argv[] = {"rec", "--base", "a", "--base", "b", NULL};
    ASSERT_EQ(parse_recorded(&r, err, sizeof(err), 5, argv), OPT_ERROR);
    assert_string_equal(err, "--base given twice");
    assert_string_equal(r.base, "a");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_reach_their_fields),
        cmocka_unit_test(test_refusals_name_the_option),
        cmocka_unit_test(test_short_only_and_optional_values),
        cmocka_unit_test(test_help_from_the_table),
        cmocka_unit_test(test_choices),
        cmocka_unit_test(test_given_is_recorded),
        cmocka_unit_test(test_string_once),
        cmocka_unit_test(test_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
