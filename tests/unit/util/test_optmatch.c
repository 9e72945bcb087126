/* util/optmatch: exact long option names, and "did you mean" hints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "netab_assert.h"
#include "util/optmatch.h"

static const struct option opts[] = {
    {"time", required_argument, NULL, 't'},     {"timeout", required_argument, NULL, 'T'},
    {"parallel", required_argument, NULL, 'P'}, {"reverse", no_argument, NULL, 'R'},
    {"json", no_argument, NULL, 'J'},           {NULL, 0, NULL, 0},
};

/* Parses argv (NULL-terminated) with optmatch_next; returns the options seen as a string. */
static void parse(char **argv, char *seen, size_t len)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    optind = 0;
    opterr = 0;
    size_t n = 0;
    int c;
    while ((c = optmatch_next(argc, argv, ":t:P:RJ", opts)) != -1 && n + 1 < len)
        seen[n++] = (char)c;
    seen[n] = '\0';
}

static void test_exact_names(void **state)
{
    (void)state;
    char seen[16];
    parse((char *[]){"x", "--time", "1", "--timeout=2", "-R", "--json", NULL}, seen, sizeof(seen));
    assert_string_equal(seen, "tTRJ");
}

static void test_abbreviations_refused(void **state)
{
    (void)state;
    char seen[16];
    /* A unique prefix getopt_long would take as --parallel. */
    char *a[] = {"x", "--par", "2", NULL};
    parse(a, seen, sizeof(seen));
    assert_string_equal(seen, "?");
    assert_int_equal(optopt, 0);
    assert_string_equal(a[optind - 1], "--par"); /* named as typed, not its value */
    char *b[] = {"x", "--rev", NULL};
    parse(b, seen, sizeof(seen));
    assert_string_equal(seen, "?");
    assert_string_equal(b[optind - 1], "--rev");
    char *c[] = {"x", "--par=2", NULL};
    parse(c, seen, sizeof(seen));
    assert_string_equal(seen, "?");
    assert_string_equal(c[optind - 1], "--par=2");
    /* A missing value of an abbreviation is still the abbreviation's fault. */
    char *d[] = {"x", "--par", NULL};
    parse(d, seen, sizeof(seen));
    assert_string_equal(seen, "?");
    /* A value for an option without one: optopt 0, so it is named as typed. */
    char *f[] = {"x", "--json=1", NULL};
    optind = 0;
    assert_int_equal(optmatch_next(2, f, ":t:P:RJ", opts), '?'); /* callers stop at '?' */
    assert_int_equal(optopt, 0);
    /* A value that looks like an option belongs to its exact option. */
    char *e[] = {"x", "--time", "--par", NULL};
    parse(e, seen, sizeof(seen));
    assert_string_equal(seen, "t");
}

static void test_hints(void **state)
{
    (void)state;
    char h[128];
    assert_string_equal(optmatch_hint("--paralel", opts, h, sizeof(h)),
                        "; did you mean '--parallel'?");
    assert_string_equal(optmatch_hint("--tmie=1", opts, h, sizeof(h)), "; did you mean '--time'?");
    /* "--ti" abbreviates both: both are named. */
    assert_string_equal(optmatch_hint("--ti", opts, h, sizeof(h)),
                        "; did you mean '--time' or '--timeout'?");
    assert_string_equal(optmatch_hint("--jsno", opts, h, sizeof(h)), "; did you mean '--json'?");
    assert_string_equal(optmatch_hint("--frobnicate", opts, h, sizeof(h)), "");
    assert_string_equal(optmatch_hint("--json=1", opts, h, sizeof(h)), "; '--json' takes no value");
    assert_string_equal(optmatch_hint("-x", opts, h, sizeof(h)), "");
    const char *cmds[] = {"run", "runs", "compare", "server"};
    assert_string_equal(optmatch_closest("comapre", cmds, 4, h, sizeof(h)),
                        "; did you mean 'compare'?");
    assert_string_equal(optmatch_closest("ru", cmds, 4, h, sizeof(h)),
                        "; did you mean 'run' or 'runs'?");
    assert_string_equal(optmatch_closest("zz", cmds, 4, h, sizeof(h)), "");
    /* A buffer too small for the hint gets a cut one, never an overflow. */
    char tiny[8];
    assert_string_equal(optmatch_closest("comapre", cmds, 4, tiny, sizeof(tiny)), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_names),
        cmocka_unit_test(test_abbreviations_refused),
        cmocka_unit_test(test_hints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
