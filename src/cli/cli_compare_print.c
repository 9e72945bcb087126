/* Text and JSON reports of `netab compare`. Printing only: every number is computed already. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_compare.h"
#include "metric/metric.h"
#include "statsreport/pairs.h"

static void print_header(const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    size_t ok = 0, failed = 0, warm = 0;
    for (size_t i = 0; i < res->nruns; i++) {
        if (res->runs[i].slot.warmup)
            warm++;
        else if (res->runs[i].status == COMPARE_RUN_OK)
            ok++;
        else
            failed++;
    }
    printf("netab compare: %zu variants, baseline '%s'; seed %llu\n", cfg->nvariants,
           cfg->variants[0].name, (unsigned long long)cfg->seed);
    for (size_t v = 0; v < cfg->nvariants; v++) {
        const struct compare_variant *x = &cfg->variants[v];
        printf("  %-12s %s%s%s\n", x->name, x->cmd ? x->cmd : "netab run", x->opts ? " " : "",
               x->opts ? x->opts : "");
    }
    printf("schedule: %u measured round%s + %u warm-up, shuffled and interleaved; %zu runs ok, "
           "%zu failed, %zu warm-up discarded\n",
           res->rounds, res->rounds == 1 ? "" : "s", cfg->warmup, ok, failed, warm);
    if (res->adaptive)
        printf("adaptive: target +-%g%%, %u of %u planned looks, %s; intervals at %g%% "
               "(Bonferroni over the looks%s)\n",
               cfg->until_ci * 100, res->looks_done, res->looks_planned,
               res->target_reached ? "target reached" : "TARGET NOT REACHED",
               res->opts.confidence * 100, res->pairs && res->npairs > 1 ? " and the pairs" : "");
    for (size_t i = 0; i < res->nruns; i++) {
        const struct compare_run *r = &res->runs[i];
        if (r->status != COMPARE_RUN_OK)
            printf("failed: run %u (round %u%s, %s): %s\n", r->slot.seq, r->slot.round,
                   r->slot.warmup ? ", warm-up" : "", cfg->variants[r->slot.variant].name,
                   r->error);
    }
}

/* --pairs all: the section `netab report --pairs all` prints, for the one cell of a compare. */
static void print_pairs(const struct compare_result *res)
{
    const struct compare_metric_report *d = &res->metrics[res->c->decide];
    size_t i;
    json_t *p;
    if (!res->pairs)
        return;
    report_pairs_print_intro(stdout, res->npairs, res->opts.confidence, res->family_confidence);
    printf("%s:%s%s\n", d->m->name, d->ok ? "" : " not compared: ", d->ok ? "" : d->why);
    json_array_foreach(res->pairs, i, p)
    {
        report_pairs_print_line(stdout, p, res->npairs);
    }
}

/* Why CPU cost is decided on the figure it is (docs/compare.md, "CPU cost"). */
static void print_cpu_basis(const struct compare_result *res)
{
    const struct compare_cpu_cost *k = &res->cpu;
    const char *used = res->c->metrics[k->metric].name;
    if (k->polluted && k->system >= 0)
        printf("CPU cost is decided on %s: the system-wide figure %s is polluted, other "
               "processes took %.0f%% of the busy CPU time (a variant's median; the threshold "
               "is %g%%)\n",
               used, res->c->metrics[k->system].name, k->others_pct, METRIC_POLLUTED_PCT);
    else if (isfinite(k->others_pct))
        printf("CPU cost is decided on %s: other processes took %.0f%% of the busy CPU time "
               "(below the %g%% threshold)\n",
               used, k->others_pct, METRIC_POLLUTED_PCT);
    else
        printf("CPU cost is decided on %s\n", used);
}

/* One line per variant: the deciding metric's verdict and the CPU cost's, side by side. */
static void print_cpu_cost(const struct compare_result *res)
{
    const struct compare_campaign *c = res->c;
    const struct compare_metric_report *d = &res->metrics[c->decide];
    if (res->cpu.metric < 0 || (int)c->decide == res->cpu.metric || !d->ok)
        return;
    const struct compare_metric_report *k = &res->metrics[res->cpu.metric];
    for (size_t v = 1; v < c->cfg->nvariants; v++) {
        const struct stats_verdict *vd = &k->r.cmps[v - 1].c.verdict;
        char chg[128];
        stats_verdict_change(vd, chg, sizeof(chg));
        printf("CPU cost: %s vs %s: %s %s, %s\n", c->cfg->variants[v].name,
               c->cfg->variants[0].name, k->m->name, stats_verdict_name(vd->kind), chg);
    }
    print_cpu_basis(res);
    for (size_t v = 1; v < c->cfg->nvariants; v++)
        printf("summary: %s vs %s: %s %s, CPU cost %s\n", c->cfg->variants[v].name,
               c->cfg->variants[0].name, d->m->name,
               stats_verdict_name(d->r.cmps[v - 1].c.verdict.kind),
               stats_verdict_name(k->r.cmps[v - 1].c.verdict.kind));
}

/* The differential profile of each variant against the baseline, where the runs were profiled. */
static void print_profiles(const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    for (size_t v = 1; v < cfg->nvariants; v++) {
        struct profdiff d;
        char err[NB_ERRLEN], title[160];
        if (compare_profdiff(res, v, 10, &d, err, sizeof(err)))
            continue;
        snprintf(title, sizeof(title),
                 "\nprofile: %.40s vs %.40s (share of samples):", cfg->variants[v].name,
                 cfg->variants[0].name);
        profdiff_text(stdout, title, &d);
        profdiff_free(&d);
    }
}

static json_t *profiles_json(const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    json_t *a = json_array();
    for (size_t v = 1; a && v < cfg->nvariants; v++) {
        struct profdiff d;
        char err[NB_ERRLEN];
        if (compare_profdiff(res, v, 10, &d, err, sizeof(err)))
            continue;
        json_t *o = profdiff_json(&d);
        profdiff_free(&d);
        if (o)
            json_object_update_new(o, json_pack("{s:s, s:s}", "variant", cfg->variants[v].name,
                                                "against", cfg->variants[0].name));
        json_array_append_new(a, o);
    }
    return a;
}

void cli_compare_print_text(const struct compare_result *res)
{
    const struct compare_campaign *c = res->c;
    print_header(res);
    for (size_t i = 0; i < c->nmetrics; i++) {
        const struct compare_metric_report *m = &res->metrics[i];
        /* Metrics the test does not have (latency of a stream test) are not worth a line. */
        if (!m->ok && !m->m->always && i != c->decide)
            continue;
        printf("\n== %s: %s%s%s%s, %s is better%s ==\n", m->m->name,
               m->m->path ? m->m->path : "regex match", *m->m->unit ? " (" : "", m->m->unit,
               *m->m->unit ? ")" : "", m->m->lower_is_better ? "lower" : "higher",
               i == c->decide ? "; decides the exit status" : "");
        if (!m->ok) {
            printf("not reported: %s\n", m->why);
            continue;
        }
        /* A write error sticks to stdout, and cli_compare() checks stdout at the end. */
        if (stats_report_print_text(&m->r, stdout))
            continue;
    }
    print_pairs(res);
    printf("\n");
    const struct compare_metric_report *d = &res->metrics[c->decide];
    if (d->ok)
        for (size_t v = 1; v < c->cfg->nvariants; v++) {
            const struct stats_verdict *vd = &d->r.cmps[v - 1].c.verdict;
            char chg[128];
            stats_verdict_change(vd, chg, sizeof(chg));
            printf("result: %s vs %s: %s %s, %s\n", c->cfg->variants[v].name,
                   c->cfg->variants[0].name, d->m->name, stats_verdict_name(vd->kind), chg);
        }
    print_cpu_cost(res);
    print_profiles(res);
    printf("exit status %d: %s\n", res->exit_code, res->exit_reason);
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *runs_json(const struct compare_result *res)
{
    const struct compare_campaign *c = res->c;
    json_t *a = json_array();
    for (size_t i = 0; a && i < res->nruns; i++) {
        const struct compare_run *r = &res->runs[i];
        json_t *m = json_object();
        for (size_t k = 0; m && k < c->nmetrics; k++)
            if (isfinite(r->values[k]))
                json_object_set_new(m, c->metrics[k].name, json_real(r->values[k]));
        json_array_append_new(
            a, json_pack("{s:s, s:I, s:I, s:b, s:s, s:f, s:o, s:o}", "variant",
                         c->cfg->variants[r->slot.variant].name, "round", (json_int_t)r->slot.round,
                         "seq", (json_int_t)r->slot.seq, "warmup", r->slot.warmup, "status",
                         r->status == COMPARE_RUN_OK ? "ok" : "failed", "seconds", r->seconds,
                         "metrics", m ? m : json_null(), "error",
                         r->status == COMPARE_RUN_OK ? json_null() : json_string(r->error)));
    }
    return a;
}

static json_t *metrics_json(const struct compare_result *res)
{
    const struct compare_campaign *c = res->c;
    json_t *a = json_array();
    for (size_t i = 0; a && i < c->nmetrics; i++) {
        const struct compare_metric_report *m = &res->metrics[i];
        json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:b}", "name", m->m->name, "path",
                              str_or_null(m->m->path), "unit", m->m->unit, "direction",
                              m->m->lower_is_better ? "lower-is-better" : "higher-is-better",
                              "decides", i == c->decide);
        if (!o)
            continue;
        json_object_set_new(o, "stats", m->ok ? stats_report_json(&m->r) : json_null());
        json_object_set_new(o, "not_reported", m->ok ? json_null() : json_string(m->why));
        json_array_append_new(a, o);
    }
    return a;
}

/* {metric, system_metric, polluted, others_pct, threshold_pct, verdicts}: as the text says. */
static json_t *cpu_cost_json(const struct compare_result *res)
{
    const struct compare_cpu_cost *k = &res->cpu;
    const struct compare_campaign *c = res->c;
    json_t *verdicts = json_array();
    for (size_t v = 1; verdicts && k->metric >= 0 && v < c->cfg->nvariants; v++)
        json_array_append_new(
            verdicts,
            json_pack("{s:s, s:s}", "variant", c->cfg->variants[v].name, "verdict",
                      stats_verdict_name(res->metrics[k->metric].r.cmps[v - 1].c.verdict.kind)));
    return json_pack(
        "{s:o, s:o, s:b, s:o, s:f, s:o}", "metric",
        k->metric >= 0 ? json_string(c->metrics[k->metric].name) : json_null(), "system_metric",
        k->system >= 0 ? json_string(c->metrics[k->system].name) : json_null(), "polluted",
        k->polluted, "others_pct", isfinite(k->others_pct) ? json_real(k->others_pct) : json_null(),
        "threshold_pct", METRIC_POLLUTED_PCT, "verdicts", verdicts ? verdicts : json_null());
}

int cli_compare_print_json(const struct compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    json_t *vars = json_array(), *common = json_array();
    for (size_t v = 0; vars && v < cfg->nvariants; v++) {
        const struct compare_variant *x = &cfg->variants[v];
        json_array_append_new(vars, json_pack("{s:s, s:o, s:o, s:o, s:o}", "name", x->name, "opts",
                                              str_or_null(x->opts), "cmd", str_or_null(x->cmd),
                                              "setup", str_or_null(x->setup), "teardown",
                                              str_or_null(x->teardown)));
    }
    for (size_t i = 0; common && i < cfg->ncommon; i++)
        json_array_append_new(common, json_string(cfg->common[i]));
    const struct compare_metric_report *d = &res->metrics[res->c->decide];
    json_t *verdicts = json_array();
    for (size_t v = 1; verdicts && d->ok && v < cfg->nvariants; v++)
        json_array_append_new(verdicts,
                              json_pack("{s:s, s:s}", "variant", cfg->variants[v].name, "verdict",
                                        stats_verdict_name(d->r.cmps[v - 1].c.verdict.kind)));
    json_t *sched = json_pack(
        "{s:I, s:I, s:I, s:b, s:o, s:o, s:I, s:I, s:o, s:f, s:o, s:f}", "runs",
        (json_int_t)cfg->runs, "warmup", (json_int_t)cfg->warmup, "rounds", (json_int_t)res->rounds,
        "adaptive", res->adaptive, "until_ci_pct",
        res->adaptive ? json_real(cfg->until_ci * 100) : json_null(), "max_runs",
        res->adaptive ? json_integer(cfg->max_runs) : json_null(), "looks_planned",
        (json_int_t)res->looks_planned, "looks_done", (json_int_t)res->looks_done, "target_reached",
        res->adaptive ? json_boolean(res->target_reached) : json_null(), "confidence_used",
        res->opts.confidence, "prepare", str_or_null(cfg->prepare), "cooldown", cfg->cooldown);
    json_t *doc = json_pack(
        "{s:s, s:I, s:o, s:o, s:o, s:f, s:s, s:o, s:o, s:o, s:I, s:s, s:b}", "netab_version",
        NETAB_VERSION, "seed", (json_int_t)cfg->seed, "variants", vars ? vars : json_null(),
        "common_opts", common ? common : json_null(), "schedule", sched ? sched : json_null(),
        "timeout", res->c->timeout, "metric", res->c->metrics[res->c->decide].name, "runs",
        runs_json(res), "metrics", metrics_json(res), "verdicts", verdicts ? verdicts : json_null(),
        "exit_status", (json_int_t)res->exit_code, "exit_reason", res->exit_reason, "interrupted",
        res->interrupted);
    if (doc && (json_object_set_new(doc, "cpu_cost", cpu_cost_json(res)) ||
                json_object_set_new(doc, "profile_diffs", profiles_json(res)))) {
        json_decref(doc);
        doc = NULL;
    }
    /* --pairs all: the members `netab report --pairs all` has, with the same meaning. */
    if (doc && res->pairs &&
        (json_object_set(doc, "pairs", res->pairs) ||
         json_object_set_new(doc, "correction",
                             report_pairs_correction_json(res->npairs, res->opts.confidence,
                                                          res->family_confidence)))) {
        json_decref(doc);
        doc = NULL;
    }
    if (!doc)
        return -ENOMEM;
    int rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(doc);
    putchar('\n');
    return rc ? -ENOMEM : 0;
}
