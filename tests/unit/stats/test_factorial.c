/*
 * The 2x2 design's effects (stats/factorial.h) against values computed
 * independently: a short Python script using only the standard library
 * (statistics.mean and .variance for the cells; the contrasts, their
 * Welch-Satterthwaite degrees of freedom, and the Student t CDF by Simpson's
 * rule over the density with 20000 intervals, the 97.5 % quantile by
 * bisection). Its inputs, the four cells' values:
 *   [0][0] 100, 102, 98, 101          [0][1] 150, 149, 155
 *   [1][0] 110, 111, 109.5, 112, 110.5 [1][1] 170, 165, 172, 168
 * and its output, pasted below:
 *   cell (0,0) 100.25 2.9166666666666665 4    cell (0,1) 151.33333333333334 10.333333333333334 3
 *   cell (1,0) 110.6 0.925 5                   cell (1,1) 168.75 8.916666666666666 4
 *   a est 13.88333333 se 1.283333333 df 5.582359895 lo 10.68529277 hi 17.0813739
 *     p 5.91014e-05 pct 13.84871155
 *   b est 54.61666667 se 1.283333333 df 5.582359895 lo 51.4186261 hi 57.81470723
 *     p 3.13951e-08 pct 54.4804655
 *   i est 7.066666667 se 2.566666667 df 5.582359895 lo 0.6705855387 hi 13.46274779
 *     p 0.03573 pct 7.049044057
 */
#include "test_helpers.h"
#include "netab_assert.h"

#include <errno.h>

#include "stats/factorial.h"

static const struct stats_cell design[2][2] = {
    {{100.25, 2.9166666666666665, 4}, {151.33333333333334, 10.333333333333334, 3}},
    {{110.6, 0.925, 5}, {168.75, 8.916666666666666, 4}},
};

static void check(const struct stats_effect *e, double est, double se, double df, double lo,
                  double hi, double p, double pct)
{
    ASSERT_REL(e->estimate, est, 1e-9);
    ASSERT_REL(e->se, se, 1e-9);
    ASSERT_REL(e->df, df, 1e-9);
    ASSERT_REL(e->ci_low, lo, 1e-7);
    ASSERT_REL(e->ci_high, hi, 1e-7);
    ASSERT_REL(e->p, p, 1e-4);
    ASSERT_REL(e->pct, pct, 1e-9);
    ASSERT_REL(e->pct_low, 100 * lo / 100.25, 1e-7);
    ASSERT_REL(e->pct_high, 100 * hi / 100.25, 1e-7);
}

static void test_against_reference(void **state)
{
    (void)state;
    struct stats_2x2 r;
    assert_int_equal(stats_factorial_2x2(design, 0.95, &r), 0);
    check(&r.a, 13.88333333, 1.283333333, 5.582359895, 10.68529277, 17.0813739, 5.91014e-05,
          13.84871155);
    check(&r.b, 54.61666667, 1.283333333, 5.582359895, 51.4186261, 57.81470723, 3.13951e-08,
          54.4804655);
    check(&r.interaction, 7.066666667, 2.566666667, 5.582359895, 0.6705855387, 13.46274779, 0.03573,
          7.049044057);
}

/* No spread in any cell: exact estimates, point intervals; bad inputs are refused. */
static void test_degenerate_and_invalid(void **state)
{
    (void)state;
    struct stats_cell c[2][2] = {{{10, 0, 3}, {20, 0, 3}}, {{12, 0, 3}, {22, 0, 3}}};
    struct stats_2x2 r;
    assert_int_equal(stats_factorial_2x2(c, 0.95, &r), 0);
    ASSERT_REL(r.a.estimate, 2, 1e-12);
    ASSERT_REL(r.b.estimate, 10, 1e-12);
    ASSERT_EQ(r.interaction.estimate, 0);
    ASSERT_EQ(r.interaction.p, 1);
    ASSERT_EQ(r.a.ci_low, r.a.ci_high);
    ASSERT_EQ(r.a.p, 0);
    assert_true(isinf(r.a.df));
    c[0][0].mean = -1; /* a reference mean that is not positive has no percentages */
    assert_int_equal(stats_factorial_2x2(c, 0.95, &r), 0);
    assert_true(isnan(r.a.pct) && isnan(r.b.pct_low));
    c[1][1].n = 1;
    assert_int_equal(stats_factorial_2x2(c, 0.95, &r), -EINVAL);
    c[1][1].n = 3;
    c[0][1].var = NAN;
    assert_int_equal(stats_factorial_2x2(c, 0.95, &r), -EINVAL);
    c[0][1].var = 1;
    assert_int_equal(stats_factorial_2x2(c, 1, &r), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_reference),
        cmocka_unit_test(test_degenerate_and_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
