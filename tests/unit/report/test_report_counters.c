/*
 * netab report's counters section: figures whose medians differ by more
 * than 10% between a variant and the baseline in the same cell are listed,
 * with medians over the measured ok runs only (warm-ups and failed runs
 * left out); absent kernel counters count as 0; figures missing from a
 * variant's runs (NETAB_NO_COUNTERS) are not compared.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"
#include "report/counters.h"
#include "report/rundoc.h"
#include "report/sections.h"

#define NRUNS 8

static char *doc(double cs, long rcvbuf, bool kernel)
{
    char *s = malloc(512);
    if (kernel)
        snprintf(s, 512,
                 "{\"end\": {\"perf\": {\"local\": {\"context_switches\": %g, \"ipc\": null}},"
                 " \"kernel\": {\"remote\": {\"Udp\": {\"RcvbufErrors\": %ld}},"
                 " \"local\": {\"Tcp\": {\"OutSegs\": 5}}}}}",
                 cs, rcvbuf);
    else
        snprintf(s, 512, "{\"end\": {\"perf\": {\"local\": null}, \"kernel\": {\"local\": null}}}");
    return s;
}

static const struct creport_counter_diff *find(const struct creport *r, const char *variant,
                                               const char *figure)
{
    for (size_t i = 0; i < r->ncounter_diffs; i++) {
        const struct creport_counter_diff *d = &r->counter_diffs[i];
        if (!strcmp(d->variant, variant) && !strcmp(d->figure, figure))
            return d;
    }
    return NULL;
}

static void test_counter_diffs(void **state)
{
    (void)state;
    char *variants[3] = {"base", "patched", "same"};
    struct creport_cell cell = {.name = "default", .test = "udp_stream"};
    struct creport r = {.variants = variants, .nvariants = 3, .cells = &cell, .ncells = 1};
    struct store_plan_row plan[3 * NRUNS];
    struct store_run runs[3 * NRUNS];
    memset(runs, 0, sizeof(runs));
    for (int v = 0; v < 3; v++)
        for (int k = 0; k < NRUNS; k++) {
            int i = v * NRUNS + k;
            plan[i] = (struct store_plan_row){.seq = i + 1, .warmup = k == 0};
            runs[i].seq = i + 1;
            runs[i].variant = variants[v];
            runs[i].cell = "default";
            /* Run 1 of each variant failed: its absurd figures must not count. */
            runs[i].status = k == 1 ? STORE_RUN_FAILED : STORE_RUN_OK;
            double cs = (k == 0 || k == 1) ? 1e9 : (v == 1 ? 3000 : 1000) + k;
            /* The baseline never dropped (the counter stays absent); patched drops 40..46. */
            runs[i].result_json = doc(cs, v == 1 ? 40 + k : 0, true);
            if (v == 0) {
                /* 1000 switches, 9000 in the warm-up and the failed run (left out). */
                free(runs[i].result_json);
                char buf[256];
                snprintf(buf, sizeof(buf),
                         "{\"end\": {\"perf\": {\"local\": {\"context_switches\": %d}}, "
                         "\"kernel\": {\"remote\": {\"Tcp\": {\"OutSegs\": 1}}}}}",
                         k < 2 ? 9000 : 1000);
                runs[i].result_json = strdup(buf);
            }
        }
    struct creport_rundoc *docs = NULL;
    assert_int_equal(creport_rundocs_parse(runs, 3 * NRUNS, &docs), 0);
    assert_int_equal(creport_counter_diffs(&r, plan, 3 * NRUNS, docs, 3 * NRUNS), 0);
    creport_rundocs_free(docs, 3 * NRUNS);
    const struct creport_counter_diff *cs = find(&r, "patched", "end.perf.local.context_switches");
    assert_non_null(cs);
    assert_float_equal(cs->baseline, 1000, 0);
    /* Measured ok runs k = 2..7: 3002..3007, median 3004.5. */
    assert_float_equal(cs->value, 3004.5, 1e-9);
    assert_int_equal(cs->runs, 6);
    assert_true(cs->has_change_pct);
    assert_float_equal(cs->change_pct, 200.45, 1e-9);
    const struct creport_counter_diff *rb =
        find(&r, "patched", "end.kernel.remote.Udp.RcvbufErrors");
    assert_non_null(rb);
    assert_float_equal(rb->baseline, 0, 0);
    assert_float_equal(rb->value, 44.5, 1e-9);
    /* No percentage of a baseline of 0: the JSON says null. */
    assert_false(rb->has_change_pct);
    /* "same" is within 10% of the baseline (1002..1007 vs 1000): not listed. */
    assert_null(find(&r, "same", "end.perf.local.context_switches"));
    /* ipc is null everywhere: never compared. */
    assert_null(find(&r, "patched", "end.perf.local.ipc"));
    json_t *j = creport_counters_json(&r);
    assert_int_equal(json_array_size(j), r.ncounter_diffs);
    const json_t *jrb = json_array_get(j, (size_t)(rb - r.counter_diffs));
    assert_true(json_is_null(json_object_get(jrb, "change_pct")));
    assert_int_equal(json_integer_value(json_object_get(jrb, "baseline_runs")), 6);
    json_decref(j);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    creport_print_counters(f, &r);
    fclose(f);
    assert_non_null(strstr(text, "patched @ default: perf.local.context_switches: 1000 -> 3004"));
    assert_non_null(strstr(text, "kernel.remote.Udp.RcvbufErrors: 0 -> 44.5"));
    /* Mailing-list text: no line wider than 72 columns. */
    for (char *line = text; *line;) {
        size_t w = strcspn(line, "\n");
        if (w > 72)
            fail_msg("line wider than 72 columns: %.*s", (int)w, line);
        line += w + (line[w] == '\n');
    }
    free(text);
    creport_counter_diffs_free(&r);
    for (int i = 0; i < 3 * NRUNS; i++)
        free(runs[i].result_json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_diffs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
