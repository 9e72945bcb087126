/*
 * The environment in the report model (report/env.h): env_diff()
 * rows of every JSON leaf type are held as typed facts and come back out of
 * creport_to_json() as env_diff() gave them, key order and all; every format
 * shows a value as the same compact JSON.
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
#include "report/env.h"
#include "envcap/envcap.h"

enum { N = 4 };

/* Snapshots of a and b: a leaf of each JSON type differs, one is only in a, one only in b. */
static const char env_a[] = "{\"kernel\": \"6.1\", \"cpus\": 8, \"mhz\": 2400.5, \"smt\": true,"
                            " \"flags\": {}, \"list\": [], \"gone\": null, \"only_a\": 1,"
                            " \"same\": \"x\"}";
static const char env_b[] = "{\"kernel\": \"6.1-\\\"p\\\"\", \"cpus\": -3, \"mhz\": 0.1,"
                            " \"smt\": false, \"flags\": [], \"list\": {}, \"gone\": 1e300,"
                            " \"same\": \"x\", \"only_b\": \"\\u00e9\"}";

static struct creport *build(void)
{
    struct store_experiment x = {.id = 5, .name = "env", .status = "done", .seed = 1};
    struct store_plan_row plan[N];
    struct store_run runs[N];
    memset(runs, 0, sizeof(runs));
    for (int n = 0; n < N; n++) {
        plan[n] = (struct store_plan_row){n, n % 2 ? "b" : "a", "", false, n / 2};
        struct store_run *r = &runs[n];
        r->id = n + 1;
        r->seq = n;
        r->status = STORE_RUN_OK;
        r->receiver_bps = (940 + n) * 1e6;
        r->sender_bps = r->local_us_per_kib = r->remote_us_per_kib = r->cpu_local_pct =
            r->cpu_remote_pct = r->transactions_per_second = r->latency_p50_us = r->latency_p99_us =
                r->lost_percent = NAN;
        r->env_json = (char *)(n % 2 ? env_b : env_a);
    }
    struct creport_opts o;
    creport_opts_default(&o);
    struct creport *r;
    char err[NB_ERRLEN];
    assert_int_equal(creport_build(&x, NULL, plan, N, runs, N, &o, &r, err, sizeof(err)), 0);
    return r;
}

static void test_json_as_env_diff_gave_it(void **state)
{
    (void)state;
    struct creport *r = build();
    json_t *a = json_loads(env_a, 0, NULL), *b = json_loads(env_b, 0, NULL);
    json_t *want = json_pack("[{s:s, s:s, s:I, s:I, s:o, s:[]}]", "variant", "b", "against", "a",
                             "baseline_run", (json_int_t)1, "run", (json_int_t)2, "differences",
                             env_diff(a, b), "identity_notes");
    json_t *j = creport_to_json(r);
    char *got = json_dumps(json_object_get(j, "env_differences"), JSON_COMPACT);
    char *w = json_dumps(want, JSON_COMPACT);
    assert_non_null(got);
    assert_string_equal(got, w);
    assert_int_equal(r->env_diffs[0].ndifferences, 9);
    free(got);
    free(w);
    json_decref(j);
    json_decref(want);
    json_decref(a);
    json_decref(b);
    creport_free(r);
}

/* The fact at path in r's only diff, or NULL. */
static const struct creport_env_fact *fact(const struct creport *r, const char *path)
{
    for (size_t i = 0; i < r->env_diffs[0].ndifferences; i++)
        if (!strcmp(r->env_diffs[0].differences[i].path, path))
            return &r->env_diffs[0].differences[i];
    return NULL;
}

static void test_typed_and_shown(void **state)
{
    (void)state;
    struct creport *r = build();
    assert_int_equal(r->nenv_diffs, 1);
    assert_string_equal(r->env_diffs[0].variant, "b");
    assert_string_equal(r->env_diffs[0].against, "a");
    assert_null(fact(r, "/same"));
    const struct creport_env_fact *f = fact(r, "/kernel");
    assert_int_equal(f->variant.kind, CREPORT_ENV_STRING);
    assert_string_equal(f->variant.s, "6.1-\"p\"");
    assert_string_equal(f->variant.shown, "\"6.1-\\\"p\\\"\"");
    f = fact(r, "/cpus");
    assert_int_equal(f->variant.kind, CREPORT_ENV_INT);
    assert_int_equal(f->variant.i, -3);
    f = fact(r, "/mhz");
    assert_int_equal(f->baseline.kind, CREPORT_ENV_REAL);
    ASSERT_EQ(f->baseline.d, 2400.5);
    f = fact(r, "/smt");
    assert_int_equal(f->baseline.kind, CREPORT_ENV_TRUE);
    assert_int_equal(f->variant.kind, CREPORT_ENV_FALSE);
    f = fact(r, "/flags");
    assert_int_equal(f->baseline.kind, CREPORT_ENV_OBJECT);
    assert_string_equal(f->variant.shown, "[]");
    f = fact(r, "/only_a");
    assert_int_equal(f->variant.kind, CREPORT_ENV_NULL);
    assert_string_equal(f->variant.shown, "null");
    f = fact(r, "/only_b");
    assert_int_equal(f->baseline.kind, CREPORT_ENV_NULL);
    assert_string_equal(f->variant.s, "\xc3\xa9");
    creport_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_as_env_diff_gave_it),
        cmocka_unit_test(test_typed_and_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
