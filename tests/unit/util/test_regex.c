/*
 * Unit tests for util/regex: the unrolled size of a pattern counted by hand,
 * the refusals (too large, back-reference, too long, invalid) and that an
 * accepted pattern is compiled with the caller's flags.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/regex.h"

/* Each weight counted by hand: atoms times the copies glibc makes of them. */
static void test_weights(void **state)
{
    (void)state;
    static const struct {
        const char *re;
        double weight;
    } cases[] = {
        {"abc", 3},
        {"a{3}", 3},
        {"a{2,}", 3}, /* two copies and a starred one */
        {"a{2,5}b", 6},
        {"(ab){2}", 4},
        {"(a|bc)+", 6},  /* a+ is aa* */
        {"[a-z]{5}", 5}, /* a bracket is one atom */
        {"[]{}[:digit:]]{4}", 4},
        {"\\{1000\\}", 6}, /* escaped braces are literals */
        {"a{", 2},         /* no interval: a literal brace */
        {"(a{1,100}){1,100}", 10000},
        {"((a{1,100}){1,100}){1,100}", 1e6},
        {"(x(y{10}))", 11},
        {"((a", 1}, /* unclosed groups still count what they hold */
        {"^release: 6\\.1\\.0-[0-9]+-amd64$", 25},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double w = regex_weight(cases[i].re);
        if (w != cases[i].weight)
            fail_msg("%s: weight %.0f, want %.0f", cases[i].re, w, cases[i].weight);
    }
}

static void expect_refusal(const char *re, const char *why)
{
    regex_t r;
    char err[NB_ERRLEN] = "";
    assert_int_equal(regex_compile(&r, re, 0, err, sizeof(err)), -EINVAL);
    if (!strstr(err, why))
        fail_msg("%s: error '%s' does not say '%s'", re, err, why);
}

static void test_refusals(void **state)
{
    (void)state;
    expect_refusal("((a{1,100}){1,100}){1,100}",
                   "is too large once its repetitions are unrolled (1000000 atoms, at most 10000)");
    expect_refusal("(a{1,100}){1,101}", "(10100 atoms");
    expect_refusal("(a)\\1", "uses a back-reference");
    expect_refusal("((", "is not a valid extended regular expression");
    expect_refusal("a{3,2}", "is not a valid extended regular expression");
    char *longre = malloc(REGEX_MAX_LEN + 2);
    assert_non_null(longre);
    memset(longre, 'a', REGEX_MAX_LEN + 1);
    longre[REGEX_MAX_LEN + 1] = '\0';
    expect_refusal(longre, "is 1025 characters long; at most 1024 are allowed");
    longre[REGEX_MAX_LEN] = '\0';
    regex_t r;
    char err[NB_ERRLEN];
    assert_int_equal(regex_compile(&r, longre, REG_NOSUB, err, sizeof(err)), 0);
    regfree(&r);
    free(longre);
}

/* Accepted patterns behave as regcomp with REG_EXTENDED and the given flags. */
static void test_compiles_with_flags(void **state)
{
    (void)state;
    regex_t r;
    char err[NB_ERRLEN];
    assert_int_equal(regex_compile(&r, "^release: 6\\.", REG_NOSUB | REG_NEWLINE, err, sizeof(err)),
                     0);
    assert_int_equal(regexec(&r, "build: x\nrelease: 6.1.0", 0, NULL, 0), 0);
    regfree(&r);
    assert_int_equal(regex_compile(&r, "^release: 6\\.", REG_NOSUB, err, sizeof(err)), 0);
    assert_int_equal(regexec(&r, "build: x\nrelease: 6.1.0", 0, NULL, 0), REG_NOMATCH);
    regfree(&r);
    regmatch_t m[2];
    assert_int_equal(regex_compile(&r, "rate ([0-9]+) ok", 0, err, sizeof(err)), 0);
    assert_int_equal(r.re_nsub, 1);
    assert_int_equal(regexec(&r, "rate 42 ok", 2, m, 0), 0);
    assert_int_equal(m[1].rm_so, 5);
    assert_int_equal(m[1].rm_eo, 7);
    regfree(&r);
    /* The bound itself is accepted and compiles. */
    assert_int_equal(regex_compile(&r, "(a{1,100}){1,100}", REG_NOSUB, err, sizeof(err)), 0);
    assert_int_equal(regexec(&r, "aaaa", 0, NULL, 0), 0);
    regfree(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_compiles_with_flags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
