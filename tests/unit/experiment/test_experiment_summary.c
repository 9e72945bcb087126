/*
 * What `netab experiment validate` prints: the summary of a valid file
 * (examples/block-size.yaml: 2 variants x 1 cell, 4 runs + 1 warm-up, each
 * 1 s + 0.5 s cooldown) and the errors of an invalid one with positions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "experiment/summary.h"
#include "netab_assert.h"

/* What loading (and, when valid, summarising) path prints, into text (NUL-terminated). */
static char text[8192];

static char *capture(const char *path, struct experiment **e, int *rc)
{
    memset(text, 0, sizeof(text));
    FILE *out = fmemopen(text, sizeof(text) - 1, "w");
    assert_non_null(out);
    *rc = experiment_load_print(path, e, out);
    if (!*rc)
        experiment_summary_print(out, path, *e);
    assert_int_equal(fclose(out), 0);
    return text;
}

static void test_summary(void **state)
{
    (void)state;
    struct experiment *e = NULL;
    int rc;
    char *t = capture(EXP_EXAMPLES_DIR "/block-size.yaml", &e, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(t, "block-size.yaml: valid\n"));
    assert_non_null(strstr(t, "experiment:   block-size\n"));
    assert_non_null(strstr(t, "variants:     2 (big, small)\n"));
    /* (4 + 1) runs x 2 variants x 1 cell; each 1 s measured + 0.5 s cooldown: 15 s. */
    assert_non_null(strstr(t, "runs:         10 = (4 runs + 1 warm-up) x 2 variants x 1 cells\n"));
    assert_non_null(strstr(t, "duration:     about 15s (time + omit + cooldown 0.5 s per run)\n"));
    assert_non_null(strstr(t, "seed:         11\n"));
    experiment_free(e);
}

static void test_errors(void **state)
{
    (void)state;
    struct experiment *e = NULL;
    int rc;
    char *t = capture(EXP_DATA_DIR "/bad_syntax.yaml", &e, &rc);
    ASSERT_LT(rc, 0);
    assert_null(e);
    /* Every error with the file's name and its position. */
    assert_non_null(strstr(t, "bad_syntax.yaml:"));
    ASSERT_EQ(strncmp(strstr(t, "bad_syntax.yaml:") + strlen("bad_syntax.yaml:"), "4:", 2), 0);
    t = capture(EXP_DATA_DIR "/no-such-file.yaml", &e, &rc);
    ASSERT_LT(rc, 0);
    assert_non_null(strstr(t, "no-such-file.yaml: cannot open: No such file or directory\n"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
