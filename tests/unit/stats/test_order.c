/*
 * What the order of a set's values says (issue 17): a file in sorted order
 * is reported as sorted, not as drift; --order unknown makes no run-order
 * claim; values netab recorded in run order keep the drift check whatever
 * their shape.
 */
#include "test_helpers.h"
#include "netab_assert.h"

#include <errno.h>
#include <string.h>

#include "netab_assert.h"
#include "stats/opts.h"
#include "stats/warnings.h"

static struct stats_checks checks_of(const double *x, size_t n, enum stats_order order)
{
    struct stats_sample s;
    struct stats_checks c;
    assert_int_equal(stats_sample_init(&s, x, n), 0);
    stats_checks_compute(&s, order, &c);
    stats_sample_free(&s);
    return c;
}

/* The first warning of kind in the set's warnings, or NULL. */
static const char *warning_of(const double *x, size_t n, enum stats_order order, const char *kind)
{
    static struct stats_warning w[STATS_WARNING_MAX];
    struct stats_sample s;
    struct stats_checks c;
    size_t count = 0;
    assert_int_equal(stats_sample_init(&s, x, n), 0);
    stats_checks_compute(&s, order, &c);
    stats_checks_warnings(&c, &s, "aim9.txt", w, &count, STATS_WARNING_MAX);
    stats_sample_free(&s);
    for (size_t i = 0; i < count; i++)
        if (!strcmp(w[i].kind, kind))
            return w[i].message;
    return NULL;
}

static void test_sorted_file(void **state)
{
    (void)state;
    /* 15 published values per kernel, sorted, as in the AIM9 thread. */
    double up[15], down[15];
    for (int i = 0; i < 15; i++) {
        up[i] = 1000 + 3.5 * i + (i % 3) * 0.25;
        down[14 - i] = up[i];
    }
    struct stats_checks c = checks_of(up, 15, STATS_ORDER_FILE);
    assert_int_equal(c.sorted, 1);
    assert_false(c.drift);
    assert_true(isnan(c.spearman_rho));
    c = checks_of(down, 15, STATS_ORDER_FILE);
    assert_int_equal(c.sorted, -1);
    assert_false(c.drift);
    const char *m = warning_of(up, 15, STATS_ORDER_FILE, "sorted");
    assert_non_null(m);
    assert_non_null(strstr(m, "aim9.txt: values in ascending order, as if sorted"));
    assert_null(warning_of(up, 15, STATS_ORDER_FILE, "drift"));
    /* The same values recorded by netab in run order: a steady rise is drift. */
    c = checks_of(up, 15, STATS_ORDER_RUN);
    assert_int_equal(c.sorted, 0);
    assert_true(c.drift);
    ASSERT_EQ(c.spearman_rho, 1);
    assert_non_null(warning_of(up, 15, STATS_ORDER_RUN, "drift"));
    assert_null(warning_of(up, 15, STATS_ORDER_RUN, "sorted"));
}

/* Sorted only where chance would rarely give that order: ties and short sets are not. */
static void test_sorted_needs_evidence(void **state)
{
    (void)state;
    /* Seven distinct values in order: below the 8 values the drift check starts at. */
    const double seven[] = {1, 2, 3, 4, 5, 6, 7};
    assert_int_equal(checks_of(seven, 7, STATS_ORDER_FILE).sorted, 0);
    /* Eight in order, but seven of them tied: 2 * 7! / 8! = 25 % by chance. */
    const double ties[] = {5, 5, 5, 5, 5, 5, 5, 6};
    assert_int_equal(checks_of(ties, 8, STATS_ORDER_FILE).sorted, 0);
    /* Two tie groups of four: 2 * 4! 4! / 8! = 2.9 %, still not below 1 %. */
    const double halves[] = {5, 5, 5, 5, 6, 6, 6, 6};
    assert_int_equal(checks_of(halves, 8, STATS_ORDER_FILE).sorted, 0);
    /* Eight, two ties: 2 * 2! 2! / 8! = 0.02 %: sorted. */
    const double few_ties[] = {1, 1, 2, 3, 4, 5, 6, 6};
    assert_int_equal(checks_of(few_ties, 8, STATS_ORDER_FILE).sorted, 1);
    /* All equal: nothing sorted, nothing drifting. */
    const double flat[] = {3, 3, 3, 3, 3, 3, 3, 3, 3};
    struct stats_checks c = checks_of(flat, 9, STATS_ORDER_FILE);
    assert_int_equal(c.sorted, 0);
    assert_false(c.drift);
    /* One value out of place: not sorted, and the rise is drift as before. */
    double rise[20];
    for (int i = 0; i < 20; i++)
        rise[i] = 10 + i;
    rise[3] = 30;
    c = checks_of(rise, 20, STATS_ORDER_FILE);
    assert_int_equal(c.sorted, 0);
    assert_true(c.drift);
}

/* --order unknown: no drift, no sortedness, no rho, whatever the values do. */
static void test_order_unknown(void **state)
{
    (void)state;
    double rise[20];
    for (int i = 0; i < 20; i++)
        rise[i] = 10 + i;
    rise[3] = 30;
    struct stats_checks c = checks_of(rise, 20, STATS_ORDER_UNKNOWN);
    assert_false(c.drift);
    assert_int_equal(c.sorted, 0);
    assert_true(isnan(c.spearman_rho) && isnan(c.spearman_p));
    assert_int_equal(c.order, STATS_ORDER_UNKNOWN);
    assert_null(warning_of(rise, 20, STATS_ORDER_UNKNOWN, "drift"));
    assert_null(warning_of(rise, 20, STATS_ORDER_UNKNOWN, "sorted"));
}

/* --order's names: run is a file's run order (a sorted file told apart), unknown is none. */
static void test_order_parse(void **state)
{
    (void)state;
    enum stats_order o = STATS_ORDER_RUN;
    const struct opt row = {"order", 0, "O", "", opt_set_one_of, 0, 0, 0, stats_order_choices};
    char err[NB_ERRLEN];
    assert_int_equal(opt_set_one_of(&o, "run", &row, err, sizeof(err)), 0);
    ASSERT_EQ(o, STATS_ORDER_FILE);
    assert_int_equal(opt_set_one_of(&o, "unknown", &row, err, sizeof(err)), 0);
    ASSERT_EQ(o, STATS_ORDER_UNKNOWN);
    assert_int_equal(opt_set_one_of(&o, "file", &row, err, sizeof(err)), -EINVAL);
    assert_string_equal(err, "--order: 'file' is not one of run, unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorted_file),
        cmocka_unit_test(test_sorted_needs_evidence),
        cmocka_unit_test(test_order_unknown),
        cmocka_unit_test(test_order_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
