/* The JSON document of `netab compare --json`: every number is computed already. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "compare/document.h"
#include "metric/metric.h"
#include "statsreport/pairs.h"
#include "judge/judge.h"

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
        /* A --flows figure no run had: as if there were no such metric, like before flows. */
        if (!m->ok && m->m->flows && i != c->decide)
            continue;
        json_t *o = json_pack("{s:s, s:o, s:s, s:s, s:b}", "name", m->m->name, "path",
                              str_or_null(m->m->path), "unit", m->m->unit, "direction",
                              judge_direction(m->m->lower_is_better), "decides", i == c->decide);
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
        "threshold_pct", JUDGE_POLLUTED_PCT, "verdicts", verdicts ? verdicts : json_null());
}

json_t *compare_document(const struct compare_result *res)
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
        "{s:s, s:I, s:o, s:o, s:o, s:f, s:s, s:o, s:o, s:o, s:I, s:s, s:b, s:o}", "netab_version",
        NETAB_VERSION, "seed", (json_int_t)cfg->seed, "variants", vars ? vars : json_null(),
        "common_opts", common ? common : json_null(), "schedule", sched ? sched : json_null(),
        "timeout", res->c->timeout, "metric", res->c->metrics[res->c->decide].name, "runs",
        runs_json(res), "metrics", metrics_json(res), "verdicts", verdicts ? verdicts : json_null(),
        "exit_status", (json_int_t)res->exit_code, "exit_reason", res->exit_reason, "interrupted",
        res->interrupted, "stopped_early",
        res->stopped_early[0] ? json_string(res->stopped_early) : json_null());
    char steal[320];
    json_t *warnings = json_array();
    if (warnings && metric_steal_sentence(&res->steal, steal, sizeof(steal)))
        json_array_append_new(warnings, json_string(steal));
    if (doc && (json_object_set_new(doc, "cpu_cost", cpu_cost_json(res)) ||
                json_object_set_new(doc, "warnings", warnings ? warnings : json_null()) ||
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
    return doc;
}
