/*
 * Unit tests for results across flows (issue 30): Jain's fairness index and
 * the per-flow spread (engine/flowstat) against values worked by hand, and
 * the sparse per-flow histogram (measure/flowhist), whose merge into a
 * struct histogram must equal recording every value into it directly,
 * bucket for bucket: merged percentiles are those of all transactions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "engine/flowstat.h"
#include "measure/flowhist.h"
#include "measure/histogram.h"

static void jain_by_hand(void **state)
{
    (void)state;
    const double equal[] = {3, 3, 3, 3};
    ASSERT_EQ(flowstat_jain(equal, 4), 1.0);
    /* One flow took everything: 4^2 / (4 * 4^2) = 1/4 = 1/n. */
    const double one[] = {4, 0, 0, 0};
    ASSERT_EQ(flowstat_jain(one, 4), 0.25);
    /* (1+2+3+4)^2 / (4 * (1+4+9+16)) = 100 / 120. */
    const double ramp[] = {1, 2, 3, 4};
    ASSERT_LT(fabs(flowstat_jain(ramp, 4) - 100.0 / 120.0), 1e-15);
    /* Undefined: no flows, or none got anything. */
    const double none[] = {0, 0};
    ASSERT_EQ(flowstat_jain(none, 2), -1.0);
    ASSERT_EQ(flowstat_jain(equal, 0), -1.0);
}

static void spread_by_hand(void **state)
{
    (void)state;
    /* 0..9 shuffled: nearest rank of p = ceil(p/100 * 10). */
    const double v[] = {5, 1, 4, 0, 3, 2, 9, 8, 7, 6};
    struct flow_spread s;
    ASSERT_EQ(flowstat_spread(v, 10, &s), 0);
    ASSERT_EQ(s.n, 10);
    ASSERT_EQ(s.min, 0.0);
    ASSERT_EQ(s.p1, 0.0);     /* rank 1 */
    ASSERT_EQ(s.p10, 0.0);    /* rank 1 */
    ASSERT_EQ(s.median, 4.0); /* rank 5 */
    ASSERT_EQ(s.p90, 8.0);    /* rank 9 */
    ASSERT_EQ(s.max, 9.0);
    ASSERT_EQ(s.sum, 45.0);
    ASSERT_EQ(s.mean, 4.5);
    ASSERT_EQ(s.zero, 1);
    /* 45^2 / (10 * 285) */
    ASSERT_LT(fabs(s.jain - 2025.0 / 2850.0), 1e-15);
    /* The input is left as it was (the spread sorts a copy). */
    ASSERT_EQ(v[0], 5.0);
    ASSERT_EQ(flowstat_spread(v, 0, &s), 0);
    ASSERT_EQ(s.n, 0);
    ASSERT_EQ(s.jain, -1.0);
}

static const uint64_t values[] = {0,     1,      100,     127,        128,          200,
                                  255,   256,    300,     400,        1000,         4097,
                                  65535, 123456, 9999999, 1000000000, 987654321012, 1000};

/* Every value into a and, split between two flows, into f[0] and f[1]. */
static void record_both(struct histogram *a, struct flowhist *f)
{
    size_t n = sizeof(values) / sizeof(values[0]);
    for (size_t i = 0; i < n; i++) {
        hist_record(a, values[i]);
        flowhist_record(&f[i % 2], values[i]);
    }
}

static void merge_equals_direct(void **state)
{
    (void)state;
    struct histogram *direct = malloc(sizeof(*direct)), *merged = malloc(sizeof(*merged));
    assert_non_null(direct);
    assert_non_null(merged);
    hist_init(direct);
    hist_init(merged);
    struct flowhist f[2];
    flowhist_init(&f[0]);
    flowhist_init(&f[1]);
    record_both(direct, f);
    flowhist_merge(merged, &f[0]);
    flowhist_merge(merged, &f[1]);
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        ASSERT_EQ(atomic_load(&merged->bucket[i]), atomic_load(&direct->bucket[i]));
    ASSERT_EQ(hist_count(merged), hist_count(direct));
    ASSERT_EQ(hist_min(merged), 0);
    ASSERT_EQ(hist_max(merged), 987654321012ull);
    ASSERT_EQ(hist_mean(merged), hist_mean(direct));
    for (double p = 0; p <= 100; p += 0.5)
        ASSERT_EQ(hist_percentile(merged, p), hist_percentile(direct, p));
    ASSERT_EQ(f[0].count + f[1].count, sizeof(values) / sizeof(values[0]));
    flowhist_free(&f[0]);
    flowhist_free(&f[1]);
    free(direct);
    free(merged);
}

static void merge_by_hand(void **state)
{
    (void)state;
    /* Values below 256 have buckets of their own: the merged percentiles are exact. */
    struct flowhist a, b;
    flowhist_init(&a);
    flowhist_init(&b);
    flowhist_record(&a, 100);
    flowhist_record(&a, 200);
    flowhist_record(&a, 30);
    flowhist_record(&b, 250);
    struct histogram *h = malloc(sizeof(*h));
    assert_non_null(h);
    hist_init(h);
    flowhist_merge(h, &a);
    flowhist_merge(h, &b);
    ASSERT_EQ(hist_count(h), 4);
    ASSERT_EQ(hist_percentile(h, 50), 100.0); /* rank 2 of 30, 100, 200, 250 */
    ASSERT_EQ(hist_percentile(h, 75), 200.0); /* rank 3 */
    ASSERT_EQ(hist_percentile(h, 99), 250.0); /* rank 4 */
    ASSERT_EQ(hist_mean(h), 145.0);
    /* An empty flow adds nothing. */
    struct flowhist e;
    flowhist_init(&e);
    flowhist_merge(h, &e);
    ASSERT_EQ(hist_count(h), 4);
    ASSERT_EQ(hist_min(h), 30);
    free(h);
    flowhist_free(&a);
    flowhist_free(&b);
}

static void rows_on_demand(void **state)
{
    (void)state;
    struct flowhist f;
    flowhist_init(&f);
    ASSERT_EQ(flowhist_rows_bytes(&f), 0);
    /* 1 is in row 0 (values 0..127); 1000 in row 3 (slot (2 << 7) + (1000 >> 2) = 506). */
    flowhist_record(&f, 1);
    flowhist_record(&f, 1000);
    flowhist_record(&f, 1001);
    ASSERT_EQ(flowhist_rows_bytes(&f), 2 * 128 * sizeof(uint32_t));
    ASSERT_EQ(f.count, 3);
    ASSERT_EQ(f.sum, 2002);
    ASSERT_EQ(f.dropped, 0);
    flowhist_free(&f);
    ASSERT_EQ(flowhist_rows_bytes(&f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jain_by_hand),        cmocka_unit_test(spread_by_hand),
        cmocka_unit_test(merge_equals_direct), cmocka_unit_test(merge_by_hand),
        cmocka_unit_test(rows_on_demand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
