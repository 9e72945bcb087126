/*
 * Unit tests for measure/jitter. Expected values come from a worked example
 * and from a plain double-precision loop written here, separate from the
 * module's modular-arithmetic code.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "measure/jitter.h"

static struct jitter *jitter_new(void)
{
    struct jitter *j = malloc(sizeof(*j));
    assert_non_null(j);
    jitter_init(j);
    return j;
}

static void test_worked_example(void **state)
{
    (void)state;
    /*
     * send     0  1000  2000  3000
     * arrival 500 1700  2400  3800
     * transit 500  700   400   800
     * D            200  -300   400
     * J  0 -> 0 + (200 - 0)/16             = 12.5
     *      -> 12.5 + (300 - 12.5)/16       = 30.46875
     *      -> 30.46875 + (400 - 30.46875)/16 = 53.564453125
     * mean |D| = 300; p99 of {200, 300, 400} is rank 3, 400.
     * All are binary fractions, so the comparison is exact.
     */
    static const int64_t send[] = {0, 1000, 2000, 3000}, arr[] = {500, 1700, 2400, 3800};
    struct jitter *j = jitter_new();
    jitter_record(j, send[0], arr[0]);
    ASSERT_EQ(jitter_rfc3550_ns(j), 0.0); /* one arrival: no D yet */
    jitter_record(j, send[1], arr[1]);
    ASSERT_EQ(jitter_rfc3550_ns(j), 12.5);
    jitter_record(j, send[2], arr[2]);
    ASSERT_EQ(jitter_rfc3550_ns(j), 30.46875);
    jitter_record(j, send[3], arr[3]);
    ASSERT_EQ(jitter_rfc3550_ns(j), 53.564453125);
    ASSERT_EQ(jitter_mean_abs_ns(j), 300.0);
    ASSERT_EQ(jitter_p99_abs_ns(j), 400.0);
    assert_int_equal(hist_count(&j->abs_d), 3);
    free(j);
}

static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * Random stream in arrival order: sends every 10 us, delay 50 us plus an
 * exponential-ish tail, and some send times swapped (reordering). The
 * expectation is the textbook loop in double.
 */
static void test_random_against_loop(void **state)
{
    (void)state;
    enum { N = 50000 };
    static int64_t send[N], arr[N];
    static double absd[N];
    rng_state = 42;
    for (int i = 0; i < N; i++) {
        send[i] = 1000000 + (int64_t)i * 10000;
        double u = ((double)(rng_next() >> 11) + 1.0) / 9007199254740992.0;
        arr[i] = send[i] + 50000 + (int64_t)(-log(u) * 20000.0);
    }
    /* Reorder: swap the arrival slots of neighbours now and then. */
    for (int i = 1; i < N; i++)
        if (rng_next() % 20 == 0) {
            int64_t t = send[i];
            send[i] = send[i - 1];
            send[i - 1] = t;
        }

    struct jitter *j = jitter_new();
    double want = 0.0, sum = 0.0, prev = 0.0;
    for (int i = 0; i < N; i++) {
        jitter_record(j, send[i], arr[i]);
        double transit = (double)arr[i] - (double)send[i];
        if (i > 0) {
            double d = fabs(transit - prev);
            want += (d - want) / 16.0;
            absd[i - 1] = d;
            sum += d;
        }
        prev = transit;
    }
    ASSERT_LE(fabs(jitter_rfc3550_ns(j) - want), 1e-9 * want);
    ASSERT_LE(fabs(jitter_mean_abs_ns(j) - sum / (N - 1)), 1e-9 * sum / (N - 1));
    qsort(absd, N - 1, sizeof(absd[0]), cmp_double);
    double p99 = absd[(99 * (N - 1) + 99) / 100 - 1]; /* nearest rank ceil(0.99 n) */
    ASSERT_LE(fabs(jitter_p99_abs_ns(j) - p99), 0.01 * p99);
    free(j);
}

static void test_constant_delay(void **state)
{
    (void)state;
    struct jitter *j = jitter_new();
    for (int64_t i = 0; i < 1000; i++)
        jitter_record(j, i * 1000, i * 1000 + 123456);
    ASSERT_EQ(jitter_rfc3550_ns(j), 0.0);
    ASSERT_EQ(jitter_mean_abs_ns(j), 0.0);
    ASSERT_EQ(jitter_p99_abs_ns(j), 0.0);
    assert_int_equal(hist_count(&j->abs_d), 999);
    free(j);
}

static void test_alternating_delay(void **state)
{
    (void)state;
    /* Delays 100 and 300 us alternate: |D| is always 200 us and J -> 200 us. */
    const double dd = 200000.0;
    struct jitter *j = jitter_new();
    for (int64_t i = 0; i < 2000; i++) {
        jitter_record(j, i * 1000000, i * 1000000 + (i % 2 ? 300000 : 100000));
        /* After k = i values of D, J = dd * (1 - (15/16)^k). */
        double want = dd * (1.0 - pow(15.0 / 16.0, (double)i));
        ASSERT_LE(fabs(jitter_rfc3550_ns(j) - want), 1e-9 * dd);
    }
    ASSERT_LE(fabs(jitter_rfc3550_ns(j) - dd), 1e-9 * dd);
    ASSERT_EQ(jitter_mean_abs_ns(j), dd);
    ASSERT_EQ(jitter_p99_abs_ns(j), dd);
    free(j);
}

static void test_clock_offset(void **state)
{
    (void)state;
    /* The same stream seen by receivers whose clocks are offset, even to wrapping. */
    static const int64_t offsets[] = {0, 1000000000000LL, -3600000000000LL, INT64_MAX, INT64_MIN};
    struct jitter *ref = NULL;
    for (size_t k = 0; k < sizeof(offsets) / sizeof(offsets[0]); k++) {
        struct jitter *j = jitter_new();
        rng_state = 7;
        for (int64_t i = 0; i < 5000; i++) {
            int64_t send = i * 20000;
            uint64_t arr = (uint64_t)send + 40000 + rng_next() % 30000 + (uint64_t)offsets[k];
            jitter_record(j, send, (int64_t)arr);
        }
        if (!ref) {
            ref = j;
            ASSERT_GT(jitter_rfc3550_ns(ref), 1000.0);
            continue;
        }
        ASSERT_EQ(jitter_rfc3550_ns(j), jitter_rfc3550_ns(ref));
        ASSERT_EQ(jitter_mean_abs_ns(j), jitter_mean_abs_ns(ref));
        ASSERT_EQ(jitter_p99_abs_ns(j), jitter_p99_abs_ns(ref));
        free(j);
    }
    free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example), cmocka_unit_test(test_random_against_loop),
        cmocka_unit_test(test_constant_delay), cmocka_unit_test(test_alternating_delay),
        cmocka_unit_test(test_clock_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
