/*
 * compare's CPU cost decision on recorded runs (no process is started): with
 * other processes at a median 50 % of busy CPU the process figure decides
 * and its regression is the verdict, though the system-wide figure shows
 * none; at 10 % the system-wide figure decides; rr runs are judged per
 * transaction although their documents carry a per-KiB figure too. Runs the
 * hypervisor paused (steal) are counted and said in the text and the JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "netab_assert.h"
#include <math.h>

#include "compare/document.h"
#include "compare/result.h"
#include "compare/text.h"

#define NRUNS 6

/* Each run's steal_pct as analyse() records it (run i of 2 * NRUNS); NULL: none (NaN). */
static const double *run_steal;

/* Metric index of name in the campaign. */
static size_t at(const struct compare_campaign *c, const char *name)
{
    for (size_t i = 0; i < c->nmetrics; i++)
        if (!strcmp(c->metrics[i].name, name))
            return i;
    fail_msg("no metric %s", name);
    return 0;
}

/*
 * Two netab variants: throughput the same, the system-wide cost the same
 * within its noise, the process cost of "small" 30 % higher; others_pct as
 * given (NAN: absent). rr: the variants run tcp_rr, the figures are the
 * per-transaction ones (and a per-KiB pair that differs the other way, which
 * must not be used).
 */
static void analyse(double others, bool rr, struct compare_config *cfg,
                    struct compare_campaign *camp, struct compare_result *res)
{
    static const char *names[2] = {"big", "small"};
    memset(cfg, 0, sizeof(*cfg));
    cfg->nvariants = 2;
    /* The variants' test kind chooses the cost figures (judge_cost_choose()). */
    for (size_t v = 0; v < 2; v++) {
        cfg->variants[v].name = names[v];
        cfg->variants[v].spec.params.kind = rr ? TEST_TCP_RR : TEST_TCP_STREAM;
    }
    cfg->confidence = 0.95;
    cfg->noise = 0.01;
    char err[NB_ERRLEN];
    assert_int_equal(compare_campaign_init(camp, cfg, err, sizeof(err)), 0);
    memset(res, 0, sizeof(*res));
    res->c = camp;
    stats_opts_default(&res->opts);
    res->opts.confidence = cfg->confidence;
    res->opts.noise = cfg->noise;
    res->opts.seed = 1;
    res->runs = calloc(2 * NRUNS, sizeof(*res->runs));
    assert_non_null(res->runs);
    const char *sys = rr ? "local_demand_tran" : "local_demand";
    const char *proc = rr ? "local_process_demand_tran" : "local_process_demand";
    for (size_t v = 0; v < 2; v++)
        for (size_t k = 0; k < NRUNS; k++) {
            struct compare_run *r = &res->runs[res->nruns++];
            r->slot.variant = (unsigned)v;
            r->slot.round = (unsigned)k + 1;
            r->status = COMPARE_RUN_OK;
            r->others_pct = isnan(others) ? NAN : others + (double)k - 2.5;
            r->steal_pct = run_steal ? run_steal[res->nruns - 1] : NAN;
            r->values = malloc(camp->nmetrics * sizeof(double));
            assert_non_null(r->values);
            for (size_t i = 0; i < camp->nmetrics; i++)
                r->values[i] = NAN;
            double wobble = ((double)((k * 7) % 5) - 2) * 0.002;
            r->values[at(camp, "throughput")] = 950e6 * (1 + wobble);
            r->values[at(camp, sys)] = 17.0 * (1 + 20 * wobble);
            r->values[at(camp, proc)] = (v ? 0.26 : 0.2) * (1 + wobble);
            if (rr) {
                r->values[at(camp, "local_demand")] = (v ? 10 : 20) * (1 + wobble);
                r->values[at(camp, "local_process_demand")] = (v ? 1 : 2) * (1 + wobble);
            }
        }
    res->cap = res->nruns;
    res->rounds = NRUNS;
    assert_int_equal(compare_analyse(res), 0);
}

static const char *verdict(const struct compare_result *res, int m)
{
    return stats_verdict_name(res->metrics[m].r.cmps[0].c.verdict.kind);
}

static void test_polluted_uses_process(void **state)
{
    (void)state;
    struct compare_config cfg;
    struct compare_campaign camp;
    struct compare_result res;
    analyse(50, false, &cfg, &camp, &res);
    assert_int_equal(res.cpu.metric, (int)at(&camp, "local_process_demand"));
    assert_int_equal(res.cpu.system, (int)at(&camp, "local_demand"));
    assert_true(res.cpu.polluted);
    /* Medians of 47.5 .. 52.5 in steps of 1 over 6 runs: 50. */
    assert_float_equal(res.cpu.others_pct, 50, 1e-9);
    assert_string_equal(verdict(&res, res.cpu.metric), "regressed");
    assert_string_not_equal(verdict(&res, res.cpu.system), "regressed");
    assert_string_equal(verdict(&res, (int)camp.decide), "within noise");
    /* The exit status stays the deciding metric's. */
    assert_int_equal(res.exit_code, COMPARE_NO_REGRESSION);
    compare_result_free(&res);
    compare_campaign_free(&camp);
}

static void test_clean_uses_system(void **state)
{
    (void)state;
    struct compare_config cfg;
    struct compare_campaign camp;
    struct compare_result res;
    analyse(10, false, &cfg, &camp, &res);
    assert_int_equal(res.cpu.metric, (int)at(&camp, "local_demand"));
    assert_false(res.cpu.polluted);
    compare_result_free(&res);
    compare_campaign_free(&camp);
    /* Without the figure (older documents): unknown, not polluted, system-wide. */
    analyse(NAN, false, &cfg, &camp, &res);
    assert_int_equal(res.cpu.metric, (int)at(&camp, "local_demand"));
    assert_false(res.cpu.polluted);
    assert_true(isnan(res.cpu.others_pct));
    compare_result_free(&res);
    compare_campaign_free(&camp);
}

static void test_rr_per_transaction(void **state)
{
    (void)state;
    struct compare_config cfg;
    struct compare_campaign camp;
    struct compare_result res;
    analyse(50, true, &cfg, &camp, &res);
    assert_int_equal(res.cpu.metric, (int)at(&camp, "local_process_demand_tran"));
    assert_int_equal(res.cpu.system, (int)at(&camp, "local_demand_tran"));
    assert_string_equal(verdict(&res, res.cpu.metric), "regressed");
    compare_result_free(&res);
    compare_campaign_free(&camp);
    analyse(0, true, &cfg, &camp, &res);
    assert_int_equal(res.cpu.metric, (int)at(&camp, "local_demand_tran"));
    compare_result_free(&res);
    compare_campaign_free(&camp);
}

/*
 * Steal above 1% in 3 of the 11 runs that have the figure (one run has none,
 * one is exactly 1%, not above): one warning, the same in text and JSON.
 */
static void test_steal_warned(void **state)
{
    (void)state;
    static const double steal[2 * NRUNS] = {0, 0.2, 3.5, 1.0, 0, NAN, 0, 12.25, 0.9, 0, 7, 0};
    struct compare_config cfg;
    struct compare_campaign camp;
    struct compare_result res;
    run_steal = steal;
    analyse(10, false, &cfg, &camp, &res);
    run_steal = NULL;
    assert_int_equal(res.steal.runs, 11);
    assert_int_equal(res.steal.over, 3);
    assert_float_equal(res.steal.most, 12.25, 1e-12);
    const char *want = "the hypervisor took CPU time (steal) above 1% in 3 of 11 runs (up to "
                       "12.2%): while a vCPU waits neither end runs, so throughput dips and "
                       "latency grows at random";
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    compare_text_print(f, &res);
    assert_int_equal(fclose(f), 0);
    char line[400];
    snprintf(line, sizeof(line), "\nwarning: %s\nexit status ", want);
    assert_non_null(strstr(text, line));
    free(text);
    json_t *doc = compare_document(&res);
    assert_non_null(doc);
    json_t *w = json_object_get(doc, "warnings");
    assert_int_equal(json_array_size(w), 1);
    assert_string_equal(json_string_value(json_array_get(w, 0)), want);
    json_decref(doc);
    compare_result_free(&res);
    compare_campaign_free(&camp);
    /* No run above the threshold: no line, an empty array. */
    analyse(10, false, &cfg, &camp, &res);
    assert_int_equal(res.steal.over, 0);
    f = open_memstream(&text, &len);
    assert_non_null(f);
    compare_text_print(f, &res);
    assert_int_equal(fclose(f), 0);
    assert_null(strstr(text, "hypervisor"));
    free(text);
    doc = compare_document(&res);
    assert_int_equal(json_array_size(json_object_get(doc, "warnings")), 0);
    assert_true(json_is_array(json_object_get(doc, "warnings")));
    json_decref(doc);
    compare_result_free(&res);
    compare_campaign_free(&camp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polluted_uses_process),
        cmocka_unit_test(test_clean_uses_system),
        cmocka_unit_test(test_rr_per_transaction),
        cmocka_unit_test(test_steal_warned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
