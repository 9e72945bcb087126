/*
 * The CLI's side of the option tables (cli/cli_opts.h): a parse's answer as
 * an exit status, with "netab CMD: ..." and the --help pointer on stderr or
 * the help on stdout; the setters compare and report share. The table
 * parser itself: tests/unit/util/test_opttable.c.
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
    const char *db;
    bool json;
};

static const struct opt opts[] = {
    {"db", 0, "PATH", "the database", opt_set_nonempty, offsetof(struct args, db), 0, 0, NULL},
    {"json", 0, NULL, "JSON output", opt_set_true, offsetof(struct args, json), 0, 0, NULL},
    {0},
};

static const struct opt_table cmd = {
    .name = "demo", .usage = "usage: demo\noptions:\n", .tail = "the end\n", .opts = opts};

/* cli_opts_parse() of the words after "demo" (NULL-terminated); *out and *err: what it printed. */
static int parse(struct args *a, char **out, char **err, ...)
{
    char *argv[8] = {"demo"};
    int argc = 1;
    va_list ap;
    va_start(ap, err);
    for (char *w; argc < 7 && (w = va_arg(ap, char *));)
        argv[argc++] = w;
    va_end(ap);
    memset(a, 0, sizeof(*a));
    struct capture o, e;
    capture_begin(&o, 1);
    capture_begin(&e, 2);
    int rc = cli_opts_parse(&cmd, argc, argv, a);
    *err = capture_end(&e);
    *out = capture_end(&o);
    return rc;
}

static void test_exit_statuses(void **state)
{
    (void)state;
    struct args a;
    char *out, *err;
    ASSERT_EQ(parse(&a, &out, &err, "--json", "--db", "x.db", "rest", NULL), -1);
    assert_true(a.json);
    assert_string_equal(a.db, "x.db");
    assert_string_equal(out, "");
    assert_string_equal(err, "");
    free(out);
    free(err);
    ASSERT_EQ(parse(&a, &out, &err, "--db", "", NULL), EXIT_USAGE);
    assert_string_equal(out, "");
    assert_string_equal(err, "netab demo: --db: the value must not be empty\n"
                             "(see 'netab demo --help')\n");
    free(out);
    free(err);
    ASSERT_EQ(parse(&a, &out, &err, "--jsn", NULL), EXIT_USAGE);
    assert_string_equal(err, "netab demo: unknown option '--jsn'; did you mean '--json'?\n"
                             "(see 'netab demo --help')\n");
    free(out);
    free(err);
    ASSERT_EQ(parse(&a, &out, &err, "--help", NULL), EXIT_OK);
    assert_string_equal(out, "usage: demo\noptions:\n"
                             "  --db PATH            the database\n"
                             "  --json               JSON output\n"
                             "  -h, --help           this text\n"
                             "the end\n");
    assert_string_equal(err, "");
    free(out);
    free(err);
}

/* The setters compare and report share: --pairs and --noise. */
static void test_shared_setters(void **state)
{
    (void)state;
    const struct opt noise = {"noise", 0, "PCT", "", cli_set_noise, 0, 0, 100, NULL};
    const struct opt pairs = {"pairs", 0, "all", "", cli_set_pairs, 0, 0, 0, NULL};
    char err[NB_ERRLEN];
    double v = -1;
    bool all = false;
    assert_int_equal(cli_set_noise(&v, "2.5", &noise, err, sizeof(err)), 0);
    ASSERT_EQ(v, 0.025);
    assert_int_equal(cli_set_noise(&v, "0", &noise, err, sizeof(err)), 0);
    ASSERT_EQ(v, 0);
    assert_int_equal(cli_set_noise(&v, "100", &noise, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--noise: '100' is not a number strictly between 0 and 100");
    assert_int_equal(cli_set_noise(&v, "-1", &noise, err, sizeof(err)), -EINVAL);
    assert_int_equal(cli_set_pairs(&all, "all", &pairs, err, sizeof(err)), 0);
    assert_true(all);
    assert_int_equal(cli_set_pairs(&all, "baseline", &pairs, err, sizeof(err)), 0);
    assert_false(all);
    assert_int_equal(cli_set_pairs(&all, "some", &pairs, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--pairs: 'some' is not all or baseline");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_statuses),
        cmocka_unit_test(test_shared_setters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
