/* bisect_judge(): which side of the midpoint between GOOD and BAD an interval lies. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bisect/judge.h"

/* BAD halves the throughput (-50 %): the midpoint is -25 %. */
static void test_regression(void **state)
{
    (void)state;
    assert_int_equal(bisect_judge(-0.51, -0.49, -0.5), BISECT_BAD);
    assert_int_equal(bisect_judge(-0.02, +0.01, -0.5), BISECT_GOOD);
    /* Still like GOOD: a change of -20 % is closer to GOOD than to BAD. */
    assert_int_equal(bisect_judge(-0.22, -0.18, -0.5), BISECT_GOOD);
    /* The interval holds the midpoint: more runs, or skip. */
    assert_int_equal(bisect_judge(-0.30, -0.20, -0.5), BISECT_UNDECIDED);
    /* Exactly on the midpoint is not beyond it. */
    assert_int_equal(bisect_judge(-0.25, -0.10, -0.5), BISECT_UNDECIDED);
    assert_int_equal(bisect_judge(-0.40, -0.25, -0.5), BISECT_UNDECIDED);
}

/* BAD raised the metric (+30 %: a latency that grew): the sides swap. */
static void test_increase(void **state)
{
    (void)state;
    assert_int_equal(bisect_judge(0.25, 0.35, 0.3), BISECT_BAD);
    assert_int_equal(bisect_judge(-0.05, 0.05, 0.3), BISECT_GOOD);
    assert_int_equal(bisect_judge(0.10, 0.20, 0.3), BISECT_UNDECIDED);
}

static void test_no_interval(void **state)
{
    (void)state;
    assert_int_equal(bisect_judge(NAN, -0.4, -0.5), BISECT_UNDECIDED);
    assert_int_equal(bisect_judge(-0.6, NAN, -0.5), BISECT_UNDECIDED);
    assert_int_equal(bisect_judge(-0.6, -0.5, 0), BISECT_UNDECIDED);
    assert_int_equal(bisect_judge(-0.6, -0.5, NAN), BISECT_UNDECIDED);
    assert_string_equal(bisect_decision_name(BISECT_SKIP), "skip");
    assert_string_equal(bisect_decision_name(BISECT_BAD), "bad");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regression),
        cmocka_unit_test(test_increase),
        cmocka_unit_test(test_no_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
