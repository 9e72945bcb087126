/*
 * Unit tests for measure/histogram. Every expected percentile is computed
 * here from the sorted raw values (qsort, nearest rank in integer arithmetic),
 * independently of the histogram's own rank and bucket code.
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "measure/histogram.h"

#define N 100000

/* splitmix64: a small seeded generator, so every run sees the same data. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
/* Uniform in (0, 1]. */
static double rng_unit(void)
{
    return ((double)(rng_next() >> 11) + 1.0) / 9007199254740992.0;
}
static double rng_normal(void)
{
    return sqrt(-2.0 * log(rng_unit())) * cos(2.0 * M_PI * rng_unit());
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest rank for a percentile given in parts per million: ceil(ppm * n / 1e6). */
static uint64_t exact_percentile(const uint64_t *sorted, size_t n, uint64_t ppm)
{
    uint64_t rank = (ppm * n + 999999) / 1000000;
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

static void assert_close(double got, double want, const char *what, double ppm)
{
    double tol = fmax(0.01 * want, 1.0);
    if (fabs(got - want) > tol)
        fail_msg("%s at p%g: got %.1f, want %.1f (tolerance %.1f)", what, ppm / 10000.0, got, want,
                 tol);
}

static struct histogram *hist_new(void)
{
    struct histogram *h = malloc(sizeof(*h));
    assert_non_null(h);
    hist_init(h);
    return h;
}

/* Records v[0..n), then checks every reported figure against the sorted copy. */
static void check_against_exact(const char *what, uint64_t *v, size_t n)
{
    struct histogram *h = hist_new();
    long double sum = 0;
    for (size_t i = 0; i < n; i++) {
        hist_record(h, v[i]);
        sum += v[i];
    }
    qsort(v, n, sizeof(*v), cmp_u64);

    assert_int_equal(hist_count(h), n);
    assert_int_equal(hist_min(h), v[0]);
    assert_int_equal(hist_max(h), v[n - 1]);
    assert_int_equal(hist_overflow(h), 0);
    double mean = (double)(sum / n);
    ASSERT_LE(fabs(hist_mean(h) - mean), 1e-9 * mean + 1e-9);

    static const uint64_t key[] = {500000, 900000, 990000, 999000, 999900, 1000000};
    for (size_t k = 0; k < sizeof(key) / sizeof(key[0]); k++)
        assert_close(hist_percentile(h, key[k] / 10000.0), exact_percentile(v, n, key[k]), what,
                     key[k]);
    /* And a sweep over the whole range, every half percent. */
    for (uint64_t ppm = 0; ppm <= 1000000; ppm += 5000)
        assert_close(hist_percentile(h, ppm / 10000.0), exact_percentile(v, n, ppm), what, ppm);
    /* The extremes are exact, not bucket midpoints. */
    ASSERT_EQ(hist_percentile(h, 100.0), (double)v[n - 1]);
    ASSERT_EQ(hist_percentile(h, 0.0), (double)v[0]);
    free(h);
}

static void test_uniform(void **state)
{
    (void)state;
    static uint64_t v[N];
    rng_state = 1;
    for (size_t i = 0; i < N; i++)
        v[i] = rng_next() % 1000000;
    check_against_exact("uniform", v, N);
}

static void test_exponential(void **state)
{
    (void)state;
    static uint64_t v[N];
    rng_state = 2;
    for (size_t i = 0; i < N; i++)
        v[i] = (uint64_t)(-log(rng_unit()) * 50000.0);
    check_against_exact("exponential", v, N);
}

static void test_lognormal_heavy_tail(void **state)
{
    (void)state;
    static uint64_t v[N];
    rng_state = 3;
    /* sigma 2.5: p99.99 is about 10^4 times the median. */
    for (size_t i = 0; i < N; i++)
        v[i] = (uint64_t)exp(log(20000.0) + 2.5 * rng_normal());
    check_against_exact("lognormal", v, N);
}

static void test_constant(void **state)
{
    (void)state;
    static uint64_t v[N];
    for (size_t i = 0; i < N; i++)
        v[i] = 123456789;
    check_against_exact("constant", v, N);
}

static void test_zero_and_one(void **state)
{
    (void)state;
    static uint64_t v[N];
    rng_state = 4;
    for (size_t i = 0; i < N; i++)
        v[i] = rng_next() % 10 == 0; /* 10% ones: p90 is 0, p99 is 1 */
    check_against_exact("zero-one", v, N);
}

static void test_small_exact(void **state)
{
    (void)state;
    /* Every value below 256 has its own bucket, so each is reported exactly. */
    for (uint64_t x = 0; x < 300; x++) {
        struct histogram *h = hist_new();
        hist_record(h, x);
        hist_record(h, x);
        hist_record(h, x + 1000);
        double p50 = hist_percentile(h, 50.0);
        if (x < 256)
            ASSERT_EQ(p50, (double)x);
        else
            ASSERT_LE(fabs(p50 - (double)x), x / 256.0);
        free(h);
    }
}

static void test_very_large(void **state)
{
    (void)state;
    static uint64_t v[N];
    rng_state = 5;
    for (size_t i = 0; i < N; i++)
        v[i] = (rng_next() >> 1) | (1ULL << 62); /* [2^62, 2^63) */
    v[17] = HIST_MAX_VALUE;
    check_against_exact("very large", v, N);
}

static void test_overflow_clamp(void **state)
{
    (void)state;
    struct histogram *h = hist_new();
    hist_record(h, 1000);
    hist_record(h, HIST_MAX_VALUE); /* the top itself is not overflow */
    hist_record(h, HIST_MAX_VALUE + 1);
    hist_record(h, UINT64_MAX); /* e.g. (uint64_t)-1 from a clock stepping back */
    assert_int_equal(hist_count(h), 4);
    assert_int_equal(hist_overflow(h), 2);
    assert_int_equal(hist_max(h), HIST_MAX_VALUE);
    /* Rank 3 of 4 is a clamped value: the top bucket's midpoint; rank 4 the exact max. */
    assert_close(hist_percentile(h, 75.0), (double)HIST_MAX_VALUE, "clamped", 750000);
    ASSERT_EQ(hist_percentile(h, 100.0), (double)HIST_MAX_VALUE);
    ASSERT_EQ(hist_percentile(h, 25.0), 1000.0);
    /* The sum is 1000 + 3 * (2^63 - 1), past 2^64, and the mean still exact. */
    long double want = (1000.0L + 3.0L * (long double)HIST_MAX_VALUE) / 4.0L;
    ASSERT_EQ(hist_mean(h), (double)want);
    free(h);
}

static void test_empty(void **state)
{
    (void)state;
    struct histogram *h = hist_new();
    assert_int_equal(hist_count(h), 0);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_max(h), 0);
    ASSERT_EQ(hist_mean(h), 0.0);
    ASSERT_EQ(hist_percentile(h, 99.0), 0.0);
    free(h);
}

/* Records a, snapshots, records b, snapshots; checks the interval equals b alone. */
static void check_interval(uint64_t *a, size_t na, uint64_t *b, size_t nb, int extremes_in_b)
{
    struct histogram *h = hist_new(), *before = hist_new(), *now = hist_new(), *iv = hist_new();
    struct histogram *bonly = hist_new();
    for (size_t i = 0; i < na; i++)
        hist_record(h, a[i]);
    hist_snapshot(h, before);
    long double sum = 0;
    for (size_t i = 0; i < nb; i++) {
        hist_record(h, b[i]);
        hist_record(bonly, b[i]);
        sum += b[i];
    }
    hist_snapshot(h, now);
    hist_subtract(iv, now, before);

    /* The buckets must be exactly those of b recorded alone. */
    assert_memory_equal(iv->bucket, bonly->bucket, sizeof(iv->bucket));
    assert_int_equal(hist_count(iv), nb);
    ASSERT_LE(fabs(hist_mean(iv) - (double)(sum / nb)), 1e-9 * (double)(sum / nb));
    qsort(b, nb, sizeof(*b), cmp_u64);
    if (extremes_in_b) {
        assert_int_equal(hist_min(iv), b[0]);
        assert_int_equal(hist_max(iv), b[nb - 1]);
    } else {
        assert_close((double)hist_min(iv), (double)b[0], "interval min", 0);
        assert_close((double)hist_max(iv), (double)b[nb - 1], "interval max", 1000000);
    }
    for (uint64_t ppm = 0; ppm <= 1000000; ppm += 10000)
        assert_close(hist_percentile(iv, ppm / 10000.0), exact_percentile(b, nb, ppm), "interval",
                     ppm);
    free(h), free(before), free(now), free(iv), free(bonly);
}

static void test_subtract(void **state)
{
    (void)state;
    static uint64_t a[N / 2], b[N / 2];
    rng_state = 6;
    /* b spans beyond a on both sides: the interval's min and max are exact. */
    for (size_t i = 0; i < N / 2; i++) {
        a[i] = 100000 + rng_next() % 100000;
        b[i] = 50000 + rng_next() % 200000;
    }
    check_interval(a, N / 2, b, N / 2, 1);
    /* b lies inside a's range: min and max come from buckets, within 1%. */
    for (size_t i = 0; i < N / 2; i++) {
        a[i] = 100000 + rng_next() % 100000;
        b[i] = 120000 + rng_next() % 50000;
    }
    check_interval(a, N / 2, b, N / 2, 0);
    /* Nothing before. */
    check_interval(a, 0, b, N / 2, 1);
}

static void test_subtract_empty_interval(void **state)
{
    (void)state;
    struct histogram *h = hist_new(), *s = hist_new(), *iv = hist_new();
    hist_record(h, 5);
    hist_snapshot(h, s);
    hist_subtract(iv, s, s);
    assert_int_equal(hist_count(iv), 0);
    assert_int_equal(hist_min(iv), 0);
    assert_int_equal(hist_max(iv), 0);
    ASSERT_EQ(hist_mean(iv), 0.0);
    free(h), free(s), free(iv);
}

static void test_merge(void **state)
{
    (void)state;
    static uint64_t all[N];
    struct histogram *a = hist_new(), *b = hist_new(), *whole = hist_new();
    rng_state = 7;
    for (size_t i = 0; i < N; i++) {
        /* Two different shapes, so the merged percentiles depend on both. */
        all[i] = i % 2 ? rng_next() % 1000 : 1000000 + rng_next() % 5000000;
        hist_record(i % 2 ? a : b, all[i]);
        hist_record(whole, all[i]);
    }
    hist_merge(a, b);
    assert_memory_equal(a->bucket, whole->bucket, sizeof(a->bucket));
    assert_int_equal(hist_count(a), N);
    assert_int_equal(hist_min(a), hist_min(whole));
    assert_int_equal(hist_max(a), hist_max(whole));
    ASSERT_EQ(hist_mean(a), hist_mean(whole));
    qsort(all, N, sizeof(*all), cmp_u64);
    for (uint64_t ppm = 0; ppm <= 1000000; ppm += 10000)
        assert_close(hist_percentile(a, ppm / 10000.0), exact_percentile(all, N, ppm), "merge",
                     ppm);

    /* Merging into an empty histogram copies; merging an empty one changes nothing. */
    struct histogram *e = hist_new();
    hist_merge(e, whole);
    assert_memory_equal(e, whole, sizeof(*e));
    hist_init(e);
    hist_merge(whole, e);
    assert_memory_equal(a->bucket, whole->bucket, sizeof(a->bucket));
    assert_int_equal(hist_min(whole), all[0]);
    free(a), free(b), free(whole), free(e);
}

/* A reader snapshots while the writer records: every snapshot is self-consistent. */
static struct histogram *live;
static atomic_int writer_done;
static void *writer(void *arg)
{
    (void)arg;
    for (uint64_t i = 1; i <= 2000000; i++)
        hist_record(live, i % 5000);
    atomic_store(&writer_done, 1);
    return NULL;
}

static void test_concurrent_reader(void **state)
{
    (void)state;
    live = hist_new();
    struct histogram *snap = hist_new();
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
    uint64_t last = 0;
    int done;
    do {
        done = atomic_load(&writer_done);
        hist_snapshot(live, snap);
        uint64_t n = hist_count(snap);
        ASSERT_GE(n, last); /* counts never go backwards */
        last = n;
        if (n) {
            double p = hist_percentile(snap, 50.0);
            ASSERT_GE(p, 0.0);
            ASSERT_LE(p, 4999.0);
        }
    } while (!done);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(last, 2000000);
    free(live), free(snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uniform),
        cmocka_unit_test(test_exponential),
        cmocka_unit_test(test_lognormal_heavy_tail),
        cmocka_unit_test(test_constant),
        cmocka_unit_test(test_zero_and_one),
        cmocka_unit_test(test_small_exact),
        cmocka_unit_test(test_very_large),
        cmocka_unit_test(test_overflow_clamp),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_subtract),
        cmocka_unit_test(test_subtract_empty_interval),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_concurrent_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
