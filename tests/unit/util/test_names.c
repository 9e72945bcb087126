/*
 * Unit tests for util/names: the experiment file's name rule, the cell
 * rule, and the message that shows a hostile name printable.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "util/names.h"

static void test_rules(void **state)
{
    (void)state;
    assert_true(name_valid("patched-v2.1_x"));
    assert_false(name_valid(""));
    assert_false(name_valid(NULL));
    assert_false(name_valid("a b"));
    assert_false(name_valid("=HYPERLINK(1)"));
    assert_false(name_valid("x\x1b[2J"));
    char longest[NAME_MAX_LEN + 2];
    memset(longest, 'a', sizeof(longest) - 1);
    longest[NAME_MAX_LEN + 1] = '\0';
    assert_false(name_valid(longest));
    longest[NAME_MAX_LEN] = '\0';
    assert_true(name_valid(longest));
    assert_true(name_cell_valid("streams=4,test=tcp_rr"));
    assert_true(name_cell_valid("default"));
    assert_false(name_cell_valid("=cmd|' /c calc'!A0"));
    assert_false(name_cell_valid("a\tb"));
}

static void test_message(void **state)
{
    (void)state;
    char err[256];
    ASSERT_EQ(name_check("--variant", "ok", false, err, sizeof(err)), 0);
    ASSERT_EQ(name_check("--variant", "a\x1b]0;t\x07", false, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--variant 'a\\x1b]0;t\\x07' may only use letters, digits, '.', "
                             "'_' and '-' (at most 64)");
    ASSERT_EQ(name_check("--cell", "+x", true, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--cell '+x' is not a cell name: it may only use letters, digits, "
                             "'.', '_', '-', '=' and ',' (at most 256)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
