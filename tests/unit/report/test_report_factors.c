/*
 * The 2 x 2 design the variants' factors: declare (docs/report.md, "2×2
 * effects"), from runs fed to creport_build() directly: its effects against
 * figures worked out by hand, the reference cell following --baseline, a
 * cell with one value "not computed", and a stored spec whose factors are
 * no 2 x 2 giving no design.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include "netab_assert.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/effects.h"

/* size: small/big x nodelay: off/on; the baseline a is (small, off). */
static const char spec_2x2[] =
    "{\"factors\": [\"size\", \"nodelay\"], \"variants\": ["
    "{\"name\": \"a\", \"factors\": {\"size\": \"small\", \"nodelay\": \"off\"}},"
    "{\"name\": \"b\", \"factors\": {\"size\": \"small\", \"nodelay\": \"on\"}},"
    "{\"name\": \"c\", \"factors\": {\"size\": \"big\", \"nodelay\": \"off\"}},"
    "{\"name\": \"d\", \"factors\": {\"size\": \"big\", \"nodelay\": \"on\"}}]}";

enum { VARS = 4, PER = 3, N = VARS * PER };
static const char *const vars[VARS] = {"a", "b", "c", "d"};
/* Cell means 110, 210, 310, 510 Mbit/s, each with variance 100. */
static const double base[VARS] = {100, 200, 300, 500};

/* The report of spec over runs of every variant (runs[v] of them), interleaved. */
static struct creport *build(const char *spec, const char *baseline, const int runs_of[VARS])
{
    struct store_experiment x = {.id = 29, .name = "factors", .status = "done", .seed = 1};
    struct store_plan_row plan[N];
    struct store_run runs[N];
    size_t n = 0;
    memset(runs, 0, sizeof(runs));
    for (int k = 0; k < PER; k++)
        for (int v = 0; v < VARS; v++) {
            if (k >= runs_of[v])
                continue;
            plan[n] = (struct store_plan_row){(int)n, (char *)vars[v], "default", false, k};
            runs[n] =
                (struct store_run){.id = (int64_t)n + 1, .seq = (int)n, .status = STORE_RUN_OK};
            runs[n].receiver_bps = (base[v] + 10 * k) * 1e6;
            runs[n].sender_bps = runs[n].local_us_per_kib = runs[n].remote_us_per_kib =
                runs[n].cpu_local_pct = runs[n].cpu_remote_pct = runs[n].transactions_per_second =
                    runs[n].latency_p50_us = runs[n].latency_p99_us = runs[n].lost_percent = NAN;
            n++;
        }
    struct creport_opts o;
    creport_opts_default(&o);
    o.baseline = baseline;
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, spec, plan, n, runs, n, &o, &r, err, sizeof(err)), 0);
    return r;
}

/* x equals want to 1e-9, relative to want's size when it is over 1. */
#define NEAR(x, want) ASSERT_LE(fabs((x) - (double)(want)), 1e-9 * (1 + fabs((double)(want))))

static void test_effects_by_hand(void **state)
{
    (void)state;
    static const int all[VARS] = {PER, PER, PER, PER};
    struct creport *r = build(spec_2x2, NULL, all);
    assert_int_equal(r->neffects, 1);
    const struct creport_design *d = &r->effects[0];
    assert_string_equal(creport_design_kind_name(d->kind), "factors");
    assert_string_equal(d->slice, "");
    assert_string_equal(d->a.levels[0], "small");
    assert_string_equal(d->b.levels[1], "on");
    assert_true(d->computed);
    /* main A = ((310 - 110) + (510 - 210)) / 2, main B = ((210 - 110) + (510 - 310)) / 2. */
    NEAR(d->fx.a.estimate, 250);
    NEAR(d->fx.b.estimate, 150);
    NEAR(d->fx.interaction.estimate, 100);
    /* SE sqrt(4 * 0.25 * 100 / 3), df 8, t(0.975, 8) = 2.3060041350333704. */
    NEAR(d->fx.a.se, sqrt(100.0 / 3));
    NEAR(d->fx.a.df, 8);
    NEAR(d->fx.a.ci_low, 250 - 2.3060041350333704 * sqrt(100.0 / 3));
    NEAR(d->fx.interaction.ci_high, 100 + 2.3060041350333704 * sqrt(400.0 / 3));
    NEAR(d->fx.b.pct, 100 * 150.0 / 110);
    creport_free(r);
}

static void test_baseline_is_reference(void **state)
{
    (void)state;
    static const int all[VARS] = {PER, PER, PER, PER};
    struct creport *r = build(spec_2x2, "d", all);
    const struct creport_design *d = &r->effects[0];
    assert_string_equal(d->a.levels[0], "big");
    assert_string_equal(d->b.levels[0], "on");
    assert_string_equal(r->variants[d->cells[0][0].v], "d");
    NEAR(d->fx.a.estimate, -250);
    NEAR(d->fx.b.estimate, -150);
    NEAR(d->fx.interaction.estimate, 100);
    NEAR(d->fx.a.pct, -100 * 250.0 / 510);
    creport_free(r);
}

static void test_one_value_not_computed(void **state)
{
    (void)state;
    static const int short_c[VARS] = {PER, PER, 1, PER};
    struct creport *r = build(spec_2x2, NULL, short_c);
    assert_int_equal(r->neffects, 1);
    assert_false(r->effects[0].computed);
    /* The JSON says why and has no effects. */
    json_t *doc = creport_to_json(r);
    const json_t *d = json_array_get(json_object_get(doc, "effects"), 0);
    assert_string_equal(json_string_value(json_object_get(d, "not_computed")),
                        "every cell needs 2 values or more");
    assert_true(json_is_null(json_object_get(d, "main_a")));
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(d, "cells"), 2), "variant")),
                        "c");
    json_decref(doc);
    creport_free(r);
}

static void test_stored_spec_not_2x2(void **state)
{
    (void)state;
    /* Hand-made or future specs: three levels of size, or one factor, are no design. */
    static const char three[] =
        "{\"factors\": [\"size\", \"nodelay\"], \"variants\": ["
        "{\"name\": \"a\", \"factors\": {\"size\": \"small\", \"nodelay\": \"off\"}},"
        "{\"name\": \"b\", \"factors\": {\"size\": \"small\", \"nodelay\": \"on\"}},"
        "{\"name\": \"c\", \"factors\": {\"size\": \"big\", \"nodelay\": \"off\"}},"
        "{\"name\": \"d\", \"factors\": {\"size\": \"huge\", \"nodelay\": \"on\"}}]}";
    static const char one[] = "{\"factors\": [\"size\"], \"variants\": ["
                              "{\"name\": \"a\", \"factors\": {\"size\": \"small\"}},"
                              "{\"name\": \"b\", \"factors\": {\"size\": \"small\"}},"
                              "{\"name\": \"c\", \"factors\": {\"size\": \"big\"}},"
                              "{\"name\": \"d\", \"factors\": {\"size\": \"big\"}}]}";
    static const int all[VARS] = {PER, PER, PER, PER};
    struct creport *r = build(three, NULL, all);
    assert_int_equal(r->neffects, 0);
    creport_free(r);
    r = build(one, NULL, all);
    assert_int_equal(r->neffects, 0);
    creport_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_effects_by_hand),
        cmocka_unit_test(test_baseline_is_reference),
        cmocka_unit_test(test_one_value_not_computed),
        cmocka_unit_test(test_stored_spec_not_2x2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
