/*
 * Failed runs in plain numbers (issue 29, "failures are data"): a word
 * where a value is expected is counted by its word and never read as a
 * number; a header's words, a misspelt number and a file of words are
 * still refused with the file and the line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "input/input.h"
#include "netab_assert.h"

/* Parses text as plain numbers of file "f.txt", column col (0: the first). */
static int parse(const char *text, unsigned col, struct input_values *v, char *err)
{
    struct input_opts o = {.format = INPUT_AUTO, .column = col};
    memset(v, 0, sizeof(*v));
    err[0] = '\0';
    return input_parse_buffer("f.txt", text, strlen(text), &o, v, err, NB_ERRLEN);
}

/* The AIM9 thread's rows: column 3 holds three numbers and two -EINTR, in file order. */
static void test_aim9_column(void **state)
{
    (void)state;
    const char *rows = "#  .22   .28-rc2-gsmthg\n"
                       "240700 232398 224194\n"
                       "241187 236722 227610\n"
                       "256407 239912 234017\n"
                       "257329 240022 -EINTR\n"
                       "259560 241352 -EINTR\n";
    struct input_values v;
    char err[NB_ERRLEN];
    ASSERT_EQ(parse(rows, 3, &v, err), 0);
    ASSERT_EQ(v.format, INPUT_PLAIN);
    ASSERT_EQ(v.n, 3);
    ASSERT_EQ(v.v[0], 224194.0);
    ASSERT_EQ(v.v[2], 234017.0);
    ASSERT_EQ(v.fails.n, 2);
    ASSERT_EQ(v.fails.nwords, 1);
    assert_string_equal(v.fails.words[0].word, "-EINTR");
    ASSERT_EQ(v.fails.words[0].count, 2);
    input_values_free(&v);
    /* Column 2 of the same rows has no failure. */
    ASSERT_EQ(parse(rows, 2, &v, err), 0);
    ASSERT_EQ(v.n, 5);
    ASSERT_EQ(v.fails.n, 0);
    input_values_free(&v);
}

/* Several words in one column, each counted in order of first appearance. */
static void test_words_counted(void **state)
{
    (void)state;
    struct input_values v;
    char err[NB_ERRLEN];
    ASSERT_EQ(parse("timeout\n10\nFAILED\n11\ntimeout\n12 # a comment\nE_CONN:reset\n", 0, &v, err),
              0);
    ASSERT_EQ(v.n, 3);
    ASSERT_EQ(v.fails.n, 4);
    ASSERT_EQ(v.fails.nwords, 3);
    assert_string_equal(v.fails.words[0].word, "timeout");
    ASSERT_EQ(v.fails.words[0].count, 2);
    assert_string_equal(v.fails.words[1].word, "FAILED");
    ASSERT_EQ(v.fails.words[1].count, 1);
    assert_string_equal(v.fails.words[2].word, "E_CONN:reset");
    input_values_free(&v);
}

static void expect_error(const char *text, unsigned col, const char *msg)
{
    struct input_values v;
    char err[NB_ERRLEN];
    int rc = parse(text, col, &v, err);
    input_values_free(&v);
    ASSERT_EQ(rc, -EINVAL);
    if (!strstr(err, msg))
        fail_msg("wanted an error containing \"%s\", got \"%s\"", msg, err);
}

/* What is not a failure word stays an error naming the file and the line. */
static void test_not_failures(void **state)
{
    (void)state;
    /* A header: a line of words only, however they look. */
    expect_error("off on\n1 2\n", 1,
                 "f.txt:1: 'off' is not a number, and the line holds no number");
    expect_error("-EINTR -EINTR\n", 2, "f.txt:1: '-EINTR' is not a number, and the line holds no");
    /* Starts like a number, or holds other characters. */
    expect_error("1\n1.5x\n", 0, "f.txt:2: '1.5x' is not a number");
    expect_error("1\n.28-rc2\n", 0, "f.txt:2: '.28-rc2' is not a number");
    expect_error("1\nGSO/TSO\n", 0, "f.txt:2: 'GSO/TSO' is not a number");
    expect_error("1\n--\n", 0, "f.txt:2: '--' is not a number");
    expect_error("1\n-\n", 0, "f.txt:2: '-' is not a number");
    /* nan and inf read as numbers: not finite, not failures. */
    expect_error("1\nnan\n", 0, "f.txt:2: 'nan' is not a finite number");
    /* Longer than INPUT_FAIL_WORD_MAX. */
    expect_error("1\nabcdefghijklmnopqrstuvwxyzabcdefg\n", 0,
                 "f.txt:2: 'abcdefghijklmnopqrstuvwxyzabcdefg' is not a number");
    /* A 17th different word: a file of words, not of failed runs. */
    char text[1024] = "";
    for (int i = 0; i <= INPUT_FAIL_WORDS_MAX; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "w%d\n", i);
    expect_error(text, 0, "f.txt:17: 'w16' is not a number, and no more than 16 different words");
}

/* The shape of a failure word (input.h). */
static void test_failure_word(void **state)
{
    (void)state;
    const char *yes[] = {"-EINTR", "FAILED", "timeout", "_x", "E_TIMEOUT", "rc:1", "err.2"};
    const char *no[] = {"", "-", "-1", "1a", ".x", "a/b", "a,b", "-_a", "+x"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!input_is_failure_word(yes[i], strlen(yes[i])))
            fail_msg("'%s' should be a failure word", yes[i]);
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (input_is_failure_word(no[i], strlen(no[i])))
            fail_msg("'%s' should not be a failure word", no[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aim9_column),
        cmocka_unit_test(test_words_counted),
        cmocka_unit_test(test_not_failures),
        cmocka_unit_test(test_failure_word),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
