/*
 * Unit tests for util/pattern: matching with and without PATTERN_LINES,
 * positions and the capture group, and the patterns that made glibc's
 * regcomp take gigabytes or regexec run for seconds, each now a refusal or
 * an error naming the limit.
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
#include "netab_assert.h"

#include "util/pattern.h"

static struct pattern *compiled(const char *re, unsigned flags)
{
    struct pattern *p = NULL;
    char err[NB_ERRLEN] = "";
    if (pattern_compile(&p, re, flags, err, sizeof(err)))
        fail_msg("%s: %s", re, err);
    return p;
}

static int find(const struct pattern *p, const char *s, size_t from, size_t m[4])
{
    char err[NB_ERRLEN];
    return pattern_find(p, s, strlen(s), from, m, err, sizeof(err));
}

static void test_lines(void **state)
{
    (void)state;
    const char *identity = "build_id: 3f2a\nrelease: 6.1.0-27-amd64\nmodule: veth";
    size_t m[4];
    struct pattern *p = compiled("^release: 6\\.1\\.0-[0-9]+-amd64$", PATTERN_LINES);
    assert_int_equal(find(p, identity, 0, m), 1);
    assert_int_equal(m[0], 15);
    assert_int_equal(m[1], 15 + strlen("release: 6.1.0-27-amd64"));
    pattern_free(p);
    p = compiled("^release: 6\\.1\\.0-[0-9]+-amd64$", 0);
    assert_int_equal(find(p, identity, 0, m), 0); /* ^ is the text's start only */
    pattern_free(p);
    p = compiled("[[:digit:]]+-amd64", 0); /* POSIX classes work */
    assert_int_equal(find(p, identity, 0, m), 1);
    assert_int_equal(m[0], strlen("build_id: 3f2a\nrelease: 6.1.0-"));
    pattern_free(p);
}

static void test_groups_and_offsets(void **state)
{
    (void)state;
    size_t m[4];
    struct pattern *p = compiled("value ([0-9]+)", 0);
    assert_int_equal(pattern_groups(p), 1);
    const char *out = "value 12\nvalue 345\n";
    assert_int_equal(find(p, out, 0, m), 1);
    assert_int_equal(m[2], 6);
    assert_int_equal(m[3], 8);
    assert_int_equal(find(p, out, m[1], m), 1);
    assert_int_equal(m[2], 15);
    assert_int_equal(m[3], 18);
    assert_int_equal(find(p, out, m[1], m), 0);
    pattern_free(p);
    p = compiled("(a)|b", 0);
    assert_int_equal(find(p, "xb", 0, m), 1);
    assert_int_equal(m[0], 1);
    ASSERT_EQ(m[2], SIZE_MAX); /* group 1 took no part */
    ASSERT_EQ(m[3], SIZE_MAX);
    pattern_free(p);
    p = compiled("(a)(b)(?:c)", 0);
    assert_int_equal(pattern_groups(p), 2);
    assert_int_equal(find(p, "xabc", 0, m), 1); /* more groups than are returned */
    ASSERT_EQ(m[0], 1);
    ASSERT_EQ(m[1], 4);
    ASSERT_EQ(m[2], 1);
    ASSERT_EQ(m[3], 2);
    pattern_free(p);
}

static void expect_refusal(const char *re, const char *why)
{
    struct pattern *p = (struct pattern *)1;
    char err[NB_ERRLEN] = "";
    assert_int_equal(pattern_compile(&p, re, PATTERN_LINES, err, sizeof(err)), -EINVAL);
    assert_null(p);
    if (!strstr(err, why))
        fail_msg("%s: error '%s' does not say '%s'", re, err, why);
}

static void test_refusals(void **state)
{
    (void)state;
    /* 1.7 GB in glibc's regcomp; "(a*){1,10000}" over 1.5 GB. */
    expect_refusal("((a{1,100}){1,100}){1,100}",
                   "'((a{1,100}){1,100}){1,100}' is not a valid regular expression: regular "
                   "expression is too large");
    expect_refusal("(a*){1,10000}", "regular expression is too large");
    /* Over 10 s in glibc's regcomp. */
    expect_refusal("((a*)*){1,250}{2}", "quantifier does not follow a repeatable item");
    expect_refusal("((", "missing closing parenthesis (at character 3)");
    char *longre = malloc(PATTERN_MAX_LEN + 2);
    assert_non_null(longre);
    memset(longre, 'a', PATTERN_MAX_LEN + 1);
    longre[PATTERN_MAX_LEN + 1] = '\0';
    expect_refusal(longre, "is 1025 characters long; at most 1024 are allowed");
    longre[PATTERN_MAX_LEN] = '\0';
    struct pattern *p = compiled(longre, 0);
    pattern_free(p);
    free(longre);
}

static int find_err(const struct pattern *p, const char *s, char *err, size_t errlen)
{
    size_t m[4];
    return pattern_find(p, s, strlen(s), 0, m, err, errlen);
}

/* Catastrophic backtracking ends at a limit with an error, not a hang. */
static void test_match_limits(void **state)
{
    (void)state;
    char s[4200], err[NB_ERRLEN] = "";
    memset(s, 'a', 40);
    strcpy(s + 40, "b");
    struct pattern *p = compiled("(a+)+$", 0);
    assert_int_equal(find_err(p, s, err, sizeof(err)), -E2BIG);
    assert_non_null(
        strstr(err, "matching '(a+)+$' against 41 bytes reached its backtracking limit"));
    pattern_free(p);
    /*
     * PCRE2 counts its limit afresh at each start position: 2^19 steps at
     * each of 1000 positions took 17 s with a per-position limit of 10^6.
     * The budget is spread over the positions, so this is an error too.
     */
    memset(s, 'x', 1000);
    s[1000] = '\0';
    p = compiled("(?:.|.){19}$", PATTERN_LINES);
    assert_int_equal(find_err(p, s, err, sizeof(err)), -E2BIG);
    assert_non_null(strstr(err, "against 1000 bytes reached its backtracking limit"));
    pattern_free(p);
    /* 200 runs of 18 a's and a '!': each start position fails within its share. */
    s[0] = '\0';
    for (int i = 0; i < 200; i++)
        strcat(s, "aaaaaaaaaaaaaaaaaa!");
    p = compiled("(a+)+$", 0);
    assert_int_equal(find_err(p, s, err, sizeof(err)), -E2BIG);
    pattern_free(p);
    /* 500 groups in a repeated group: every backtracking frame holds them all (650 MB). */
    char many[1100] = "(?:";
    for (int i = 0; i < 500; i++)
        strcat(many, "()");
    strcat(many, ".)*$");
    p = compiled(many, 0);
    memset(s, 'y', 300);
    s[300] = '\0';
    assert_int_equal(find_err(p, s, err, sizeof(err)), -E2BIG);
    assert_non_null(strstr(err, "against 300 bytes reached its memory limit"));
    pattern_free(p);
    /* The wrapped form glibc took seconds over compiles and matches here. */
    p = compiled("(((a*)*){1,250}){2}", 0);
    size_t m[4];
    assert_int_equal(find(p, "aaa", 0, m), 1);
    pattern_free(p);
}

/* Bytes, not UTF-8: (*UTF) is refused, and any byte can be matched. */
static void test_bytes(void **state)
{
    (void)state;
    expect_refusal("(*UTF)v ([0-9]+)", "UTF is disabled");
    expect_refusal("a\\Cb", "using \\C is disabled");
    struct pattern *p = compiled("v ?([0-9]*)", 0);
    const char text[] = "v 1\n\xc3\xa9\xff v 2\n";
    size_t m[4], from = 0, len = sizeof(text) - 1;
    int n = 0, rc;
    char err[NB_ERRLEN];
    while (from <= len && (rc = pattern_find(p, text, len, from, m, err, sizeof(err))) == 1) {
        n++;
        from = pattern_next_from(m);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, 2);
    pattern_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),    cmocka_unit_test(test_groups_and_offsets),
        cmocka_unit_test(test_refusals), cmocka_unit_test(test_match_limits),
        cmocka_unit_test(test_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
