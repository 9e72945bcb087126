/*
 * The latency-under-load test's probe statistics (rrul/probe_stats.h)
 * against values computed independently. The reference for the 20 round
 * trips below, in Python (Hyndman-Fan type 7, statistics.quantiles'
 * method='inclusive' agrees: p90 18.1):
 *
 *   v = sorted([5,1,9,3,7,2,8,4,10,6,100,11,12,13,14,15,16,17,18,19])
 *   def q(p):
 *       h = (len(v) - 1) * p; i = int(h)
 *       return v[i] + (h - i) * (v[min(i + 1, len(v) - 1)] - v[i])
 *   [q(p) for p in (.5, .9, .99, .999)]  # 10.5, 18.1, 84.61, 98.461
 *   sum(v) / 20                           # 14.5
 *   sum(v[:19]) / 19                      # 10.0: the top 5 % (one value) left out
 *   60000 / 10.0                          # RPM 6000
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "netab_assert.h"
#include "rrul/probe_stats.h"

static const double twenty[20] = {5,   1,  9,  3,  7,  2,  8,  4,  10, 6,
                                  100, 11, 12, 13, 14, 15, 16, 17, 18, 19};

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) + 1))
        fail_msg("got %.17g, want %.17g", got, want);
}

static void test_percentiles_exact(void **state)
{
    (void)state;
    double v[20];
    for (int i = 0; i < 20; i++)
        v[i] = twenty[i];
    struct probe_summary s;
    probe_summarize(v, 20, &s);
    ASSERT_EQ(s.n, 20);
    near(s.p50, 10.5);
    near(s.p90, 18.1);
    near(s.p99, 84.61);
    near(s.p999, 98.461);
    near(s.min, 1);
    near(s.max, 100);
    near(s.mean, 14.5);
    /* Sorted in place: the trimmed mean reads the ascending values. */
    for (int i = 1; i < 20; i++)
        ASSERT_LE(v[i - 1], v[i]);
}

static void test_nothing_is_nan(void **state)
{
    (void)state;
    struct probe_summary s;
    probe_summarize(NULL, 0, &s);
    ASSERT_EQ(s.n, 0);
    assert_true(isnan(s.p50));
    assert_true(isnan(s.max));
    assert_true(isnan(s.mean));
    assert_true(isnan(probe_trimmed_mean(NULL, 0)));
    double rpm, lo, hi;
    ASSERT_EQ(probe_rpm(NULL, 0, 0.95, &rpm, &lo, &hi), -EDOM);
    assert_true(isnan(rpm));
    assert_true(isnan(lo));
}

static void test_trimmed_mean_leaves_out_top_five_percent(void **state)
{
    (void)state;
    double v[20];
    for (int i = 0; i < 20; i++)
        v[i] = twenty[i];
    struct probe_summary s;
    probe_summarize(v, 20, &s);
    near(probe_trimmed_mean(v, 20), 10.0);
    /* 19 values: floor(0.95) = 0 left out, the plain mean of 1..19. */
    near(probe_trimmed_mean(v, 19), 10.0);
    /* 40 values 1..40: the top 2 left out, mean of 1..38 = 19.5. */
    double w[40];
    for (int i = 0; i < 40; i++)
        w[i] = i + 1;
    near(probe_trimmed_mean(w, 40), 19.5);
}

static void test_rpm_and_interval(void **state)
{
    (void)state;
    double v[20];
    for (int i = 0; i < 20; i++)
        v[i] = twenty[i];
    struct probe_summary s;
    probe_summarize(v, 20, &s);
    double rpm, lo, hi, rpm2, lo2, hi2;
    ASSERT_EQ(probe_rpm(v, 20, 0.95, &rpm, &lo, &hi), 0);
    near(rpm, 6000);
    ASSERT_LT(lo, rpm);
    ASSERT_GT(hi, rpm);
    /* Seeded: the same round trips give the same interval. */
    ASSERT_EQ(probe_rpm(v, 20, 0.95, &rpm2, &lo2, &hi2), 0);
    ASSERT_EQ(lo, lo2);
    ASSERT_EQ(hi, hi2);
    /* Round trips all 2 ms: 30000 RPM, and no spread to make an interval of. */
    double same[100];
    for (int i = 0; i < 100; i++)
        same[i] = 2.0;
    ASSERT_EQ(probe_rpm(same, 100, 0.95, &rpm, &lo, &hi), 0);
    near(rpm, 30000);
    near(lo, 30000);
    near(hi, 30000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_exact),
        cmocka_unit_test(test_nothing_is_nan),
        cmocka_unit_test(test_trimmed_mean_leaves_out_top_five_percent),
        cmocka_unit_test(test_rpm_and_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
