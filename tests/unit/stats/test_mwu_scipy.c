/*
 * Mann-Whitney p against scipy: 200 seeded pairs of 3 to 40 values
 * (data/mwu_reference.json, written once by reference/make_mwu_reference.py
 * with scipy 1.10's mannwhitneyu(a, b, alternative="two-sided"), method
 * auto), within 1e-9 relative, with the same choice of method. Then the
 * exact distribution where scipy cannot go, against closed forms.
 */
#include "test_helpers.h"

#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <stdlib.h>

#include "stats/mannwhitney.h"
#include "netab_assert.h"

#define TOL 1e-9

/* A sample of the JSON array arr (stats_sample_init sorts it, as netab stats does). */
static void sample_of(json_t *arr, struct stats_sample *s, double **store)
{
    size_t n = json_array_size(arr);
    ASSERT_GE(n, 3);
    *store = malloc(n * sizeof(**store));
    assert_non_null(*store);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(arr, i);
        assert_true(json_is_number(v));
        (*store)[i] = json_number_value(v);
    }
    assert_int_equal(stats_sample_init(s, *store, n), 0);
}

static void test_scipy_pairs(void **state)
{
    (void)state;
    json_error_t je;
    json_t *doc = json_load_file(STATS_DATA "/mwu_reference.json", 0, &je);
    if (!doc)
        print_error("%s: %s\n", STATS_DATA "/mwu_reference.json", je.text);
    assert_non_null(doc);
    json_t *pairs = json_object_get(doc, "pairs");
    assert_int_equal(json_array_size(pairs), 200);
    size_t exact = 0, unequal_exact = 0;
    for (size_t k = 0; k < json_array_size(pairs); k++) {
        json_t *c = json_array_get(pairs, k);
        struct stats_sample a, b;
        double *va, *vb;
        sample_of(json_object_get(c, "a"), &a, &va);
        sample_of(json_object_get(c, "b"), &b, &vb);
        struct stats_mw mw;
        stats_mannwhitney(&a, &b, &mw);
        print_message("pair %zu: %zu vs %zu\n", k, a.n, b.n);
        assert_int_equal(mw.exact, json_is_true(json_object_get(c, "exact")));
        ASSERT_REL(mw.u, json_number_value(json_object_get(c, "u")), 0);
        ASSERT_REL(mw.p, json_number_value(json_object_get(c, "p")), TOL);
        exact += mw.exact;
        unequal_exact += mw.exact && (a.n > 8 || b.n > 8);
        stats_sample_free(&a);
        stats_sample_free(&b);
        free(va);
        free(vb);
    }
    /* Both methods, and the case netab used to get wrong (one side small), are covered. */
    ASSERT_GE(exact, 20);
    ASSERT_LE(exact, 180);
    ASSERT_GE(unequal_exact, 10);
    json_decref(doc);
}

/* A sample whose sorted values are v[0..n-1] (already ascending); Mann-Whitney reads only those. */
static struct stats_sample sorted_sample(double *v, size_t n)
{
    struct stats_sample s = {0};
    s.sorted = v;
    s.n = n;
    return s;
}

/*
 * Two values among n = 2,000,000: U = k has floor(k / 2) + 1 arrangements
 * for k <= n (partitions of k into at most two parts), out of C(n + 2, 2).
 * scipy 1.10 would need a table of 3 * (n + 1) * (U + 1) doubles for this.
 */
static void test_exact_two_among_millions(void **state)
{
    (void)state;
    size_t n = 2000000;
    double *b = malloc(n * sizeof(*b));
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        b[i] = (double)i;
    const size_t us[] = {0, 1, 100, 12345, 1999999};
    for (size_t t = 0; t < sizeof(us) / sizeof(us[0]); t++) {
        /* -0.5 lies below every b (adds 0 to U), u - 0.5 above u of them. */
        double a[2] = {-0.5, (double)us[t] - 0.5};
        if (us[t] == 0)
            a[1] = -0.25;
        struct stats_sample sa = sorted_sample(a, 2), sb = sorted_sample(b, n);
        struct stats_mw mw;
        stats_mannwhitney(&sa, &sb, &mw);
        double cdf = 0, total = (double)(n + 2) * (double)(n + 1) / 2;
        for (size_t k = 0; k <= us[t]; k++)
            cdf += (double)(k / 2 + 1);
        assert_true(mw.exact);
        ASSERT_REL(mw.u, (double)us[t], 0);
        ASSERT_REL(mw.p, 2 * cdf / total, TOL);
    }
    free(b);
}

/*
 * Eight values among 200 against the plain recurrence f(i, j, u) =
 * f(i - 1, j, u - j) + f(i, j - 1, u), an independent way to the same counts.
 */
static void test_exact_eight_against_recurrence(void **state)
{
    (void)state;
    enum { M = 8, N = 200, MN = M * N };
    static double f[M + 1][N + 1][MN + 1];
    for (int i = 0; i <= M; i++)
        for (int j = 0; j <= N; j++)
            for (int u = 0; u <= i * j; u++)
                f[i][j][u] =
                    i == 0 || j == 0 ? u == 0 : f[i][j - 1][u] + (u >= j ? f[i - 1][j][u - j] : 0);
    double b[N], a[M];
    for (int j = 0; j < N; j++)
        b[j] = j;
    const int us[] = {0, 3, 77, 400, 799, 800, 801, 1234, 1600};
    for (size_t t = 0; t < sizeof(us) / sizeof(us[0]); t++) {
        /* a[i] lies above c[i] values of b; the c sum to U. */
        int left = us[t];
        for (int i = M - 1; i >= 0; i--) {
            int c = left > N ? N : left;
            left -= c;
            a[i] = c - 0.5;
        }
        for (int i = 0; i + 1 < M; i++) /* ascending, distinct from each other */
            if (a[i + 1] <= a[i])
                a[i + 1] = a[i] + 1e-3;
        struct stats_sample sa = sorted_sample(a, M), sb = sorted_sample(b, N);
        struct stats_mw mw;
        stats_mannwhitney(&sa, &sb, &mw);
        double lo = us[t] < MN - us[t] ? us[t] : MN - us[t], cdf = 0;
        for (int u = 0; u <= lo; u++)
            cdf += f[M][N][u];
        double total = 0;
        for (int u = 0; u <= MN; u++)
            total += f[M][N][u];
        print_message("U = %d\n", us[t]);
        assert_true(mw.exact);
        ASSERT_REL(mw.u, us[t], 0);
        ASSERT_REL(mw.p, fmin(1, 2 * cdf / total), TOL);
    }
}

/* Past STATS_MW_EXACT_CELLS the normal approximation is used, even with one small set. */
static void test_exact_cells_limit(void **state)
{
    (void)state;
    size_t n = STATS_MW_EXACT_CELLS / 2 + 1;
    double *b = malloc(n * sizeof(*b)), a[2] = {-1, 1e12};
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        b[i] = (double)i;
    struct stats_sample sa = sorted_sample(a, 2), sb = sorted_sample(b, n);
    struct stats_mw mw;
    stats_mannwhitney(&sa, &sb, &mw);
    assert_false(mw.exact);
    sb.n = n - 1; /* 2 * (n - 1) is exactly the limit */
    stats_mannwhitney(&sa, &sb, &mw);
    assert_true(mw.exact);
    free(b);
}

int main(void)
{
    gsl_set_error_handler_off();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scipy_pairs),
        cmocka_unit_test(test_exact_two_among_millions),
        cmocka_unit_test(test_exact_eight_against_recurrence),
        cmocka_unit_test(test_exact_cells_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
