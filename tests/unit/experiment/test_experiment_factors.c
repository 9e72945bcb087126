/*
 * Unit tests of factors: (docs/experiment.md, "Factors"): a 2 x 2 design
 * over the variants is loaded and written into the spec; every other shape
 * is refused with an error at its line and column naming what is wrong.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "experiment/experiment.h"
#include "experiment/summary.h"
#include "metric/spec.h"

/* An expected error: position and a piece of its message. */
struct want {
    int line, col;
    const char *text;
};

/* Loads yaml, expects -EINVAL and exactly the errors in want[0..n), in order. */
static void expect_errors(const char *yaml, const struct want *want, size_t n)
{
    struct exp_errors errs = {0};
    struct experiment *e = (struct experiment *)1;
    int err = experiment_load_buffer(yaml, strlen(yaml), &e, &errs);
    for (size_t i = 0; i < errs.n; i++)
        print_message("%d:%d: %s\n", errs.v[i].line, errs.v[i].col, errs.v[i].msg);
    assert_int_equal(err, -EINVAL);
    assert_null(e);
    assert_int_equal(errs.n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(errs.v[i].line, want[i].line);
        assert_int_equal(errs.v[i].col, want[i].col);
        if (!strstr(errs.v[i].msg, want[i].text))
            fail_msg("error %zu is '%s', wanted '%s'", i, errs.v[i].msg, want[i].text);
    }
    exp_errors_free(&errs);
}

#define EXPECT(yaml, ...)                                                                          \
    do {                                                                                           \
        const struct want w_[] = {__VA_ARGS__};                                                    \
        expect_errors(yaml, w_, sizeof(w_) / sizeof(w_[0]));                                       \
    } while (0)

/* The ARM router NAT thread's design: cherry-pick x alignment, a level given as a number. */
static const char good[] = "name: nat\n"
                           "variants:\n"
                           "  - {name: base, factors: {pick: without, align: default}}\n"
                           "  - {name: al, factors: {pick: without, align: 64}}\n"
                           "  - {name: cp, factors: {pick: with, align: default}}\n"
                           "  - {name: both, factors: {pick: with, align: 64}}\n";

static void test_design_loaded_and_in_spec(void **state)
{
    (void)state;
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    assert_int_equal(experiment_load_buffer(good, strlen(good), &e, &errs), 0);
    assert_int_equal(errs.n, 0);
    assert_int_equal(e->nvariants, 4);
    assert_int_equal(e->variants[3].nfactors, 2);
    assert_string_equal(e->variants[3].factors[0].name, "pick");
    assert_string_equal(e->variants[3].factors[0].level, "with");
    assert_string_equal(e->variants[3].factors[1].level, "64");
    /* The spec the store keeps: the names in file order, each variant's levels as strings. */
    json_t *j = experiment_to_json(e);
    char *text = json_dumps(j, 0);
    json_t *spec = spec_parse(text);
    assert_int_equal(spec_factor_count(spec), 2);
    assert_string_equal(spec_factor_name(spec, 0), "pick");
    assert_string_equal(spec_factor_name(spec, 1), "align");
    assert_string_equal(spec_variant_level(spec, 1, "align"), "64");
    assert_string_equal(spec_variant_level(spec, 2, "pick"), "with");
    assert_null(spec_variant_level(spec, 2, "size"));
    json_decref(spec);
    free(text);
    json_decref(j);
    /* validate's summary names the design, each factor's levels in variant order. */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    experiment_summary_print(out, "nat.yaml", e);
    fclose(out);
    if (!strstr(buf, "\ndesign:       2 x 2: pick (without, with) x align (default, 64) over the "
                     "variants; main effects and interaction in the report\n"))
        fail_msg("no design line in:\n%s", buf);
    free(buf);
    experiment_free(e);
}

static void test_no_factors_no_member(void **state)
{
    (void)state;
    static const char yaml[] = "name: x\nvariants:\n  - name: a\n  - name: b\n";
    struct exp_errors errs = {0};
    struct experiment *e = NULL;
    assert_int_equal(experiment_load_buffer(yaml, strlen(yaml), &e, &errs), 0);
    json_t *j = experiment_to_json(e);
    assert_null(json_object_get(j, "factors"));
    assert_null(json_object_get(json_array_get(json_object_get(j, "variants"), 0), "factors"));
    assert_int_equal(spec_factor_count(j), 0);
    json_decref(j);
    experiment_free(e);
}

static void test_three_levels(void **state)
{
    (void)state;
    EXPECT("name: x\n"
           "variants:\n"
           "  - {name: a, factors: {pick: without, align: default}}\n"
           "  - {name: b, factors: {pick: without, align: 64}}\n"
           "  - {name: c, factors: {pick: with, align: default}}\n"
           "  - {name: d, factors: {pick: with, align: 32}}\n",
           {6, 24,
            "factors: 'align' has 3 levels (default, 64, 32); a 2 x 2 design needs exactly "
            "two levels of each factor"});
}

static void test_one_level(void **state)
{
    (void)state;
    EXPECT("name: x\n"
           "variants:\n"
           "  - {name: a, factors: {pick: without, align: default}}\n"
           "  - {name: b, factors: {pick: with, align: default}}\n",
           {3, 24, "factors: 'align' has 1 level (default)"});
}

static void test_three_factors(void **state)
{
    (void)state;
    EXPECT("name: x\n"
           "variants:\n"
           "  - {name: a, factors: {p: '0', q: '0', r: '0'}}\n"
           "  - {name: b, factors: {p: '1', q: '0', r: '0'}}\n",
           {3, 24,
            "factors: a 2 x 2 design needs exactly two factors, and variant 'a' names 3 (p, q, "
            "r)"});
}

static void test_missing_and_repeated_combination(void **state)
{
    (void)state;
    /* Three variants: one combination missing. */
    EXPECT("name: x\n"
           "variants:\n"
           "  - {name: a, factors: {pick: without, align: default}}\n"
           "  - {name: b, factors: {pick: without, align: 64}}\n"
           "  - {name: c, factors: {pick: with, align: default}}\n",
           {3, 24,
            "factors: no variant has pick=with, align=64; a 2 x 2 design needs a variant for "
            "each of the four combinations"});
    /* Four variants, one combination twice, so another is missing. */
    EXPECT("name: x\n"
           "variants:\n"
           "  - {name: a, factors: {pick: without, align: default}}\n"
           "  - {name: b, factors: {pick: without, align: 64}}\n"
           "  - {name: c, factors: {pick: with, align: default}}\n"
           "  - {name: d, factors: {align: default, pick: with}}\n",
           {3, 24, "factors: no variant has pick=with, align=64"},
           {6, 24, "variant 'd': factors: pick=with, align=default is also variant 'c''s"});
}

static void test_names_differ(void **state)
{
    (void)state;
    EXPECT(
        "name: x\n"
        "variants:\n"
        "  - {name: a, factors: {pick: without, align: default}}\n"
        "  - name: b\n"
        "  - {name: c, factors: {pick: with, size: big}}\n",
        {4, 5,
         "variant 'b' has no 'factors'; when one variant has them, every variant names "
         "the same factors (pick, align)"},
        {5, 24, "variant 'c': factors: 'size' is not one of variant 'a''s factors (pick, align)"},
        {5, 24, "variant 'c': factors: no 'align' (variant 'a' names pick, align"});
}

static void test_bad_forms(void **state)
{
    (void)state;
    EXPECT(
        "name: x\n"
        "variants:\n"
        "  - {name: a, factors: [pick, align]}\n"
        "  - {name: b, factors: {}}\n"
        "  - {name: c, factors: {'two words': x, align: [1, 2], pick: '', p: a, p: b}}\n",
        {3, 24, "variant 1: 'factors' must be a mapping of factor names to levels, not a list"},
        {4, 24, "variant 2: 'factors' is empty: name each factor and this variant's level of it"},
        {5, 25, "variant 3: a factor's name may only use letters, digits, '.', '_' and '-'"},
        {5, 48, "variant 3: factor 'align': the level must be a single value"},
        {5, 62,
         "variant 3: factor 'pick': the level must be a single value, a string of 1 to "
         "64 printable characters, not an empty string"},
        {5, 72, "variant 3: duplicate factor 'p'"});
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_design_loaded_and_in_spec),
        cmocka_unit_test(test_no_factors_no_member),
        cmocka_unit_test(test_three_levels),
        cmocka_unit_test(test_one_level),
        cmocka_unit_test(test_three_factors),
        cmocka_unit_test(test_missing_and_repeated_combination),
        cmocka_unit_test(test_names_differ),
        cmocka_unit_test(test_bad_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
