/*
 * Unit tests for profdiff: five baseline and five other runs' profiles with
 * known shares. The interval of a function that grew is checked against
 * reference values computed once with scipy 1.10 (Welch: ttest_ind with
 * equal_var=False, the interval from t.ppf(0.975, Welch-Satterthwaite df)):
 *   A: base [10, 11, 12, 10.5, 11.5], other [14, 15, 13.5, 14.5, 15.5]:
 *      +3.5 [2.3469979324833146, 4.653002067516685], p 0.00011263854912686899
 *   E: base [5, 6, 4, 5.5, 4.5], other [5.2, 5.8, 4.4, 5.1, 4.9]:
 *      +0.08 [-0.9186697065500226, 1.0786697065500226]
 * A function only in the other runs appeared, one only in the baseline
 * vanished, and one listed in a single other run is neither.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "profdiff/profdiff.h"

static json_t *run(const char *names[], const double shares[], size_t n)
{
    json_t *fns = json_array();
    for (size_t i = 0; i < n; i++)
        if (shares[i] > 0)
            json_array_append_new(fns, json_pack("{s:s, s:s, s:I, s:f, s:[]}", "symbol", names[i],
                                                 "module", "[kernel]", "samples", (json_int_t)1,
                                                 "share_pct", shares[i], "callers"));
    return json_pack("{s:s, s:o}", "event", "cpu-clock", "functions", fns);
}

static const struct profdiff_row *find(const struct profdiff *d, const char *sym)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->rows[i].symbol, sym))
            return &d->rows[i];
    return NULL;
}

static void test_groups(void **state)
{
    (void)state;
    const char *names[] = {"A", "C", "D", "E", "F"};
    const double base[5][5] = {{10, 0, 3, 5, 0},
                               {11, 0, 3.2, 6, 0},
                               {12, 0, 2.8, 4, 0},
                               {10.5, 0, 3.1, 5.5, 0},
                               {11.5, 0, 2.9, 4.5, 0}};
    const double other[5][5] = {{14, 2, 0, 5.2, 0},
                                {15, 2, 0, 5.8, 0},
                                {13.5, 2, 0, 4.4, 0},
                                {14.5, 2, 0, 5.1, 0},
                                {15.5, 0, 0, 4.9, 1}};
    json_t *b[6], *o[5];
    for (int i = 0; i < 5; i++) {
        b[i] = run(names, base[i], 5);
        o[i] = run(names, other[i], 5);
    }
    b[5] = json_pack("{s:s, s:s}", "event", "cpu-clock", "why", "perf_event_paranoid=2");
    struct profdiff d;
    char err[NB_ERRLEN];
    assert_int_equal(profdiff_compute((const json_t *const *)b, 6, (const json_t *const *)o, 5,
                                      0.95, 10, &d, err, sizeof(err)),
                     0);
    assert_int_equal(d.base_runs, 5); /* the run without a profile is left out */
    assert_int_equal(d.other_runs, 5);
    const struct profdiff_row *a = find(&d, "A"), *c = find(&d, "C"), *dd = find(&d, "D"),
                              *e = find(&d, "E"), *f = find(&d, "F");
    assert_non_null(a);
    assert_true(a->have_interval);
    assert_float_equal(a->other_pct - a->base_pct, 3.5, 1e-9);
    assert_float_equal(a->w.ci_low, 2.3469979324833146, 1e-9);
    assert_float_equal(a->w.ci_high, 4.653002067516685, 1e-9);
    assert_float_equal(a->w.p, 0.00011263854912686899, 1e-9);
    assert_string_equal(profdiff_word(a), "grew");
    assert_string_equal(profdiff_word(c), "appeared");
    assert_float_equal(c->other_pct, 1.6, 1e-9);
    assert_string_equal(profdiff_word(dd), "vanished");
    assert_float_equal(e->w.ci_low, -0.9186697065500226, 1e-9);
    assert_float_equal(e->w.ci_high, 1.0786697065500226, 1e-9);
    assert_string_equal(profdiff_word(e), "within noise");
    assert_non_null(f);
    assert_int_equal(f->kind, PROFDIFF_CHANGED); /* one run of five: neither appeared nor new */
    /* Verdicts first, then the largest change: A (+3.5), D (-3.0), C (+1.6). */
    assert_string_equal(d.rows[0].symbol, "A");
    assert_string_equal(d.rows[1].symbol, "D");
    assert_string_equal(d.rows[2].symbol, "C");
    json_t *j = profdiff_json(&d);
    assert_int_equal(json_array_size(json_object_get(j, "functions")), d.n);
    assert_true(json_is_null(
        json_object_get(json_array_get(json_object_get(j, "functions"), 2), "ci_low")));
    json_decref(j);
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    profdiff_text(mf, "Profile, cell x, new vs base:", &d);
    fclose(mf);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        assert_in_range(strlen(line), 1, 72);
    free(text);
    profdiff_free(&d);
    /* Nothing to compare against. */
    assert_int_equal(profdiff_compute((const json_t *const *)b + 5, 1, (const json_t *const *)o, 5,
                                      0.95, 10, &d, err, sizeof(err)),
                     -EINVAL);
    assert_non_null(strstr(err, "baseline"));
    for (int i = 0; i < 5; i++) {
        json_decref(b[i]);
        json_decref(o[i]);
    }
    json_decref(b[5]);
}

/*
 * A run with its full list: {"samples": total, "functions": [the top one],
 * "full": {"functions": {"[kernel]": {A: a, G: g}}, "omitted_functions":
 * omitted, ...}}. G is below the top list, so only the full list knows it.
 */
static json_t *full_run(json_int_t total, json_int_t a, json_int_t g, json_int_t omitted)
{
    json_t *top =
        json_pack("[{s:s, s:s, s:I, s:f, s:[]}]", "symbol", "A", "module", "[kernel]", "samples", a,
                  "share_pct", 100.0 * (double)a / (double)total, "callers");
    json_t *fns = json_pack("{s:{s:I, s:I}}", "[kernel]", "A", a, "G", g);
    return json_pack("{s:s, s:I, s:o, s:{s:o, s:I, s:I}}", "event", "cpu-clock", "samples", total,
                     "functions", top, "full", "functions", fns, "omitted_functions", omitted,
                     "omitted_samples", omitted ? (json_int_t)1 : (json_int_t)0);
}

static void test_full(void **state)
{
    (void)state;
    /* G: 2%, 3% of the baseline's runs and 5%, 6% of the others': exact, not counted as 0. */
    json_t *b[2] = {full_run(1000, 500, 20, 0), full_run(1000, 510, 30, 0)};
    json_t *o[2] = {full_run(1000, 400, 50, 0), full_run(1000, 410, 60, 0)};
    struct profdiff d;
    char err[NB_ERRLEN];
    assert_int_equal(profdiff_compute((const json_t *const *)b, 2, (const json_t *const *)o, 2,
                                      0.95, 10, &d, err, sizeof(err)),
                     0);
    const struct profdiff_row *g = find(&d, "G");
    assert_non_null(g);
    assert_float_equal(g->base_pct, 2.5, 1e-9);
    assert_float_equal(g->other_pct, 5.5, 1e-9);
    assert_int_equal(g->kind, PROFDIFF_CHANGED);
    assert_float_equal(d.floor_pct, 0, 0); /* nothing was left out of any list */
    profdiff_free(&d);
    /* A run whose list left a function out: what is missing is below its smallest share. */
    json_decref(o[1]);
    o[1] = full_run(1000, 410, 60, 1);
    assert_int_equal(profdiff_compute((const json_t *const *)b, 2, (const json_t *const *)o, 2,
                                      0.95, 10, &d, err, sizeof(err)),
                     0);
    assert_float_equal(d.floor_pct, 6.0, 1e-9);
    profdiff_free(&d);
    for (int i = 0; i < 2; i++) {
        json_decref(b[i]);
        json_decref(o[i]);
    }
}

/*
 * A run with a group of cycles, instructions, L1-icache misses: function A
 * with counts c (cycles), i (instructions), m (misses) and the shares s of
 * each event's count. events names the group (NULL: none).
 */
static json_t *group_run(const char *events, double c, double i, double m, double s)
{
    json_t *r = full_run(1000, 500, 20, 0);
    json_t *a = json_array_get(json_object_get(r, "functions"), 0);
    json_object_set_new(a, "counts", json_pack("[f, f, f]", c, i, m));
    json_object_set_new(a, "shares_pct", json_pack("[f, f, f]", 50.0, s, s));
    if (events)
        json_object_set_new(
            r, "group",
            json_pack("{s:[s, s, s]}", "events", events, "instructions", "L1-icache-load-misses"));
    return r;
}

/* Each change's group figures per side: IPC and misses per 1k of summed counts, mean shares. */
static void test_group_figures(void **state)
{
    (void)state;
    json_t *b[2] = {group_run("cycles", 100, 200, 2, 40), group_run("cycles", 300, 400, 6, 60)};
    json_t *o[2] = {group_run("cycles", 100, 100, 3, 20), group_run("cycles", 100, 100, 1, 30)};
    struct profdiff d;
    char err[NB_ERRLEN];
    assert_int_equal(profdiff_compute((const json_t *const *)b, 2, (const json_t *const *)o, 2,
                                      0.95, 10, &d, err, sizeof(err)),
                     0);
    assert_int_equal(d.nev, 3);
    assert_string_equal(d.ev[2], "L1-icache-load-misses");
    const struct profdiff_row *a = find(&d, "A");
    assert_non_null(a);
    assert_float_equal(a->g.ipc[0], 1.5, 1e-12);               /* 600 / 400 */
    assert_float_equal(a->g.ipc[1], 1.0, 1e-12);               /* 200 / 200 */
    assert_float_equal(a->g.l1i_mpki[0], 13.3333333333, 1e-6); /* 8 / 600 x 1000 */
    assert_float_equal(a->g.l1i_mpki[1], 20.0, 1e-12);         /* 4 / 200 x 1000 */
    assert_float_equal(a->g.share[0][1], 50.0, 1e-12);
    assert_float_equal(a->g.share[1][2], 25.0, 1e-12);
    assert_true(isnan(find(&d, "G")->g.ipc[0])); /* not in the top list: no counts */
    json_t *j = profdiff_json(&d);
    assert_int_equal(json_array_size(json_object_get(j, "events")), 3);
    json_decref(j);
    profdiff_free(&d);
    /* Another group in one run: no group figures, the shares as before. */
    json_decref(o[1]);
    o[1] = group_run("task-clock", 100, 100, 1, 30);
    assert_int_equal(profdiff_compute((const json_t *const *)b, 2, (const json_t *const *)o, 2,
                                      0.95, 10, &d, err, sizeof(err)),
                     0);
    assert_int_equal(d.nev, 0);
    j = profdiff_json(&d);
    assert_null(json_object_get(j, "events"));
    json_decref(j);
    profdiff_free(&d);
    for (int i = 0; i < 2; i++) {
        json_decref(b[i]);
        json_decref(o[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_groups), cmocka_unit_test(test_full),
                                       cmocka_unit_test(test_group_figures)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
