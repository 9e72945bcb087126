/* The experiment report as data: CSV (one row per variant, cell, metric) and JSON. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/codelayout.h"
#include "report/counters.h"
#include "report/cpu.h"
#include "report/effects.h"
#include "report/pairs.h"
#include "report/profile.h"
#include "report/duts.h"
#include "report/env.h"
#include "report/celltable.h"
#include "report/headline.h"
#include "report/tables.h"
#include "report/fails.h"
#include "statsreport/pairs.h"
#include "statsreport/stats_report.h"
#include "util/csv.h"
#include "judge/judge.h"

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static const char *direction(const struct creport_metric *m)
{
    return judge_direction(m->lower_is_better);
}

/* The unit of en's change: "%" of the baseline's mean, "pp", or the metric's own. */
static const char *change_unit(const struct creport_metric *md, const struct creport_entry *en)
{
    static const char *const units[] = {NULL, "%", "pp", NULL};
    return units[en->chg.kind] ? units[en->chg.kind] : md->unit;
}

/*
 * The change as every format shows it (struct creport_change): its unit
 * ("%" of the baseline's mean, "pp" percentage points, or the metric's unit
 * for a difference), figures and the text the other formats print.
 */
static json_t *change_json(const struct creport_metric *md, const struct creport_entry *en)
{
    char text[128];
    creport_fmt_change_full(text, sizeof(text), &en->chg);
    return json_pack("{s:s, s:o, s:o, s:o, s:s}", "unit", change_unit(md, en), "value",
                     num(en->chg.value), "ci_low", num(en->chg.lo), "ci_high", num(en->chg.hi),
                     "text", text);
}

static json_t *comparison_json(const struct creport_metric *md, const struct creport_entry *base,
                               const struct creport_entry *en)
{
    if (!en->has_cmp)
        return json_null();
    const struct stats_comparison *c = &en->cmp;
    json_t *o = json_object();
    if (!o)
        return NULL;
    int e = 0;
    e |= json_object_set_new(o, "baseline_n", json_integer((json_int_t)base->n));
    e |= json_object_set_new(o, "baseline_median", num(base->median));
    e |= json_object_set_new(o, "baseline_mean", num(base->mean));
    e |= json_object_set_new(o, "decided_on",
                             json_string(c->verdict.on_difference ? "difference" : "ratio"));
    e |= json_object_set_new(o, "diff", num(c->diff));
    e |= json_object_set_new(o, "diff_pct", num(c->diff_pct));
    e |= json_object_set_new(o, "rel_change_pct", num(c->verdict.rel * 100));
    e |= json_object_set_new(o, "rel_change_ci_low_pct", num(c->verdict.rel_low * 100));
    e |= json_object_set_new(o, "rel_change_ci_high_pct", num(c->verdict.rel_high * 100));
    e |= json_object_set_new(o, "ratio", num(c->ratio));
    e |= json_object_set_new(o, "ratio_ci_low", num(c->ratio_ci_low));
    e |= json_object_set_new(o, "ratio_ci_high", num(c->ratio_ci_high));
    e |= json_object_set_new(
        o, "ratio_method",
        json_string(c->ratio_method == STATS_RATIO_BOOTSTRAP ? "bootstrap" : "fieller"));
    e |= json_object_set_new(o, "median_ratio", num(c->median_ratio));
    e |= json_object_set_new(o, "welch_p", num(c->welch.p));
    e |= json_object_set_new(o, "mannwhitney_p", num(c->mw.p));
    e |= json_object_set_new(o, "verdict", json_string(stats_verdict_name(c->verdict.kind)));
    e |= json_object_set_new(o, "verdict_detail", json_string(en->detail));
    e |= json_object_set_new(o, "significant", json_boolean(c->verdict.significant));
    e |= json_object_set_new(o, "change", change_json(md, en));
    e |= json_object_set_new(o, "runs_needed",
                             c->runs_needed < STATS_REPORT_RUNS_COUNTABLE
                                 ? json_integer((json_int_t)c->runs_needed)
                                 : json_null());
    if (e) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *results_json(const struct creport *r)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    json_t *a = json_array();
    for (size_t c = 0; a && c < r->ncells; c++)
        for (size_t i = 0; i < r->norder; i++) {
            size_t m = r->order[i];
            if (!creport_at(r, 0, c, m)->shown)
                continue;
            for (size_t v = 0; v < r->nvariants; v++) {
                const struct creport_entry *en = creport_at(r, v, c, m);
                json_t *vals = json_array(), *sorted = json_array();
                for (size_t k = 0; vals && k < en->n; k++)
                    json_array_append_new(vals, json_real(en->values[k]));
                for (size_t k = 0; sorted && k < en->n; k++)
                    json_array_append_new(sorted, json_real(en->sorted[k]));
                json_t *cmp = v ? comparison_json(&md[m], creport_at(r, 0, c, m), en) : json_null();
                json_t *o =
                    vals && cmp && sorted
                        ? json_pack("{s:s, s:s, s:s, s:s, s:b, s:I, s:o, s:o, s:o, s:o, s:o, s:s?}",
                                    "variant", r->variants[v], "cell", r->cells[c].name, "metric",
                                    md[m].name, "unit", md[m].unit, "deciding",
                                    (int)m == r->cells[c].decide, "n", (json_int_t)en->n, "median",
                                    num(en->median), "mean", num(en->mean), "values", vals,
                                    "sorted", sorted, "comparison", cmp, "no_comparison",
                                    v && !en->has_cmp ? en->why : NULL)
                        : NULL;
                if (!o || json_array_append_new(a, o)) {
                    json_decref(a);
                    return NULL;
                }
            }
        }
    return a;
}

/* r->stats_warnings as the JSON lists them; NULL when out of memory. */
static json_t *stats_warnings_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->nstats_warnings; i++) {
        const struct creport_stats_warning *w = &r->stats_warnings[i];
        if (json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s}", "variant", w->variant,
                                               "cell", w->cell, "metric", w->metric, "kind",
                                               w->kind, "message", w->message))) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

/* r->warning_summary, its sentences as strings; NULL when out of memory. */
static json_t *warning_summary_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < r->nwarning_summary; i++)
        if (json_array_append_new(a, json_string(r->warning_summary[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

/*
 * The members that only some reports have, or that came later, added to
 * root; NULL (root released) when out of memory.
 */
static json_t *add_members(json_t *root, const struct creport *r)
{
    int e = 0;
    /* Differential profiles of profiled runs (profile.h); [] when none. */
    e |= json_object_set_new(root, "profile_diffs", creport_profile_json(r));
    /* Each cell's CPU cost decision (cpu.h); [] when none. */
    e |= json_object_set_new(root, "cpu_cost", creport_cpu_json(r));
    /* Counters that differ between variants (counters.h); [] when none. */
    e |= json_object_set_new(root, "counter_differences", creport_counters_json(r));
    /* The headline table and the warnings aggregated, as the short text report shows them. */
    e |= json_object_set_new(root, "headline", creport_headline_json(r));
    /* The cells the user asked for (celltable.h): only with a template. */
    if (r->celltab)
        e |= json_object_set_new(root, "cell_table", creport_celltable_json(r));
    /* Failed runs per variant and cell (fails.h), [] when none. */
    e |= json_object_set_new(root, "failures", creport_fails_json(r));
    e |= json_object_set_new(root, "warning_summary", warning_summary_json(r));
    /* 2x2 designs (effects.h), [] when there is none. */
    e |= json_object_set_new(root, "effects", creport_effects_json(r));
    /* --pairs all: every pair and the correction that applies to every comparison. */
    if (r->pairs)
        e |= json_object_set_new(root, "pairs", creport_pairs_json(r)) |
             json_object_set_new(
                 root, "correction",
                 report_pairs_correction_json(r->npairs, r->opts.confidence, r->family_confidence));
    /* Several named DUTs (duts.h): only then, so older readers see no change. */
    if (r->nduts)
        e |= json_object_set_new(root, "duts", creport_duts_json(r));
    /* Only a report with layout files has the member, so older readers see no change. */
    if (r->layout)
        e |= json_object_set_new(root, "layout", creport_code_layout_json(r));
    if (e) {
        json_decref(root);
        return NULL;
    }
    return root;
}

json_t *creport_to_json(const struct creport *r)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    json_t *variants = json_array(), *cells = json_array(), *metrics = json_array();
    int e = !variants || !cells || !metrics;
    for (size_t v = 0; !e && v < r->nvariants; v++)
        e |= json_array_append_new(variants, json_string(r->variants[v]));
    for (size_t c = 0; !e && c < r->ncells; c++) {
        json_t *n = json_array();
        for (size_t v = 0; n && v < r->nvariants; v++)
            json_array_append_new(n, json_integer(r->n_measured[v * r->ncells + c]));
        int d = r->cells[c].decide;
        e |= json_array_append_new(cells,
                                   json_pack("{s:s, s:s, s:s?, s:o?}", "name", r->cells[c].name,
                                             "test", r->cells[c].test, "deciding_metric",
                                             d >= 0 ? md[d].name : NULL, "n_measured", n));
    }
    for (size_t i = 0; !e && i < r->norder; i++) {
        const struct creport_metric *m = &md[r->order[i]];
        e |= json_array_append_new(metrics, json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", m->name,
                                                      "label", m->label, "title", m->title, "unit",
                                                      m->unit, "direction", direction(m)));
    }
    json_t *results = e ? NULL : results_json(r);
    /* The model's environment as env_diff() and env_warnings_summary() gave it. */
    json_t *env_diff_doc = creport_env_diffs_json(r);
    json_t *env_warning_doc = creport_env_warnings_json(r);
    json_t *stats = results ? stats_warnings_json(r) : NULL;
    json_t *root =
        results ? json_pack("{s:i, s:{s:I, s:s, s:s, s:I}, s:s, s:f, s:f, s:o, s:o, s:o, s:o,"
                            " s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:O, s:O, s:O,"
                            " s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:i, s:s}",
                            "report_version", 1, "experiment", "id", (json_int_t)r->id, "name",
                            r->name, "status", r->status, "seed", (json_int_t)r->seed, "baseline",
                            r->nvariants ? r->variants[0] : "", "confidence", r->opts.confidence,
                            "noise_pct", r->opts.noise * 100, "variants", variants, "cells", cells,
                            "metrics", metrics, "results", results, "runs", "planned",
                            (json_int_t)r->runs.planned, "measured", (json_int_t)r->runs.measured,
                            "warmup", (json_int_t)r->runs.warmup, "failed",
                            (json_int_t)r->runs.failed, "interrupted",
                            (json_int_t)r->runs.interrupted, "running", (json_int_t)r->runs.running,
                            "env_differences", env_diff_doc, "env_warnings", env_warning_doc,
                            "stats_warnings", stats, "summary", "improved",
                            (json_int_t)r->n_improved, "regressed", (json_int_t)r->n_regressed,
                            "within_noise", (json_int_t)r->n_within, "no_difference_proven",
                            (json_int_t)r->n_unproven, "not_compared", (json_int_t)r->n_nocmp,
                            "regressed_deciding", (json_int_t)r->n_regressed_deciding,
                            "exit_status", r->exit_status, "exit_reason", r->exit_reason)
                : NULL;
    if (!root) {
        /* json_pack steals "o" references only on success. */
        json_decref(variants);
        json_decref(cells);
        json_decref(metrics);
        json_decref(results);
    }
    json_decref(env_diff_doc);
    json_decref(env_warning_doc);
    json_decref(stats); /* "O": the document holds its own reference */
    root = root ? add_members(root, r) : NULL;
    if (root && creport_json_select(root, r->opts.sections)) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* One row per (variant, cell, metric) through the shared CSV writer (util/csv.h). */
/* The entry's values in ascending order, ';'-separated, as one CSV field. Returns 0 or -ENOMEM. */
static int sorted_cell(struct csv *w, const struct creport_entry *en)
{
    const double *s = en->sorted;
    /* Each number and its separator fit in CSV_NUMBER_LEN + 1 bytes. */
    char *text = malloc(en->n * (CSV_NUMBER_LEN + 1) + 1);
    if (!text)
        return -ENOMEM;
    size_t u = 0;
    text[0] = 0;
    for (size_t k = 0; k < en->n; k++) {
        if (k)
            text[u++] = ';';
        u += csv_format_number(text + u, CSV_NUMBER_LEN, s[k]);
    }
    csv_text(w, text);
    free(text);
    return 0;
}

/* The fails column: "(fails: SHORT) N of M failed: REASON", the count alone when some ran. */
static void fails_cell(struct csv *w, const struct creport *r, size_t v, size_t c)
{
    char cell[64], text[300], both[400];
    creport_fail_cell(r, v, c, cell, sizeof(cell));
    creport_fail_text(r, v, c, text, sizeof(text));
    snprintf(both, sizeof(both), "%s%s%s", cell, *cell ? " " : "", text);
    if (*both)
        csv_text(w, both);
    else
        csv_empty(w);
}

int creport_print_csv(const struct creport *r, FILE *f)
{
    static const char *const head[] = {
        "variant", "cell",          "test",   "metric",      "unit",   "direction", "deciding",
        "median",  "mean",          "n",      "diff_pct",    "ci_low", "ci_high",   "p",
        "verdict", "sorted_values", "change", "change_unit", "fails"};
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    struct csv w;
    csv_init(&w, f, CSV_LF);
    csv_header(&w, head, sizeof(head) / sizeof(head[0]));
    /* --sections headline alone: the headline's rows, each cell's deciding metric. */
    unsigned s = r->opts.sections;
    bool deciding_only = s && !(s & ~(unsigned)CREPORT_SEC_HEADLINE);
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t i = 0; i < r->norder; i++) {
            size_t m = r->order[i];
            if (!creport_at(r, 0, c, m)->shown || (deciding_only && (int)m != r->cells[c].decide))
                continue;
            for (size_t v = 0; v < r->nvariants; v++) {
                const struct creport_entry *en = creport_at(r, v, c, m);
                csv_text(&w, r->variants[v]);
                csv_text(&w, r->cells[c].name);
                csv_text(&w, r->cells[c].test);
                csv_text(&w, md[m].name);
                csv_text(&w, md[m].unit);
                csv_text(&w, direction(&md[m]));
                csv_integer(&w, (int)m == r->cells[c].decide);
                csv_number(&w, en->median);
                csv_number(&w, en->mean);
                csv_integer(&w, (long long)en->n);
                if (en->has_cmp) {
                    const struct stats_comparison *cp = &en->cmp;
                    csv_number(&w, cp->verdict.rel * 100);
                    csv_number(&w, cp->verdict.rel_low * 100);
                    csv_number(&w, cp->verdict.rel_high * 100);
                    csv_number(&w, cp->welch.p);
                    csv_text(&w, stats_verdict_name(cp->verdict.kind));
                } else {
                    for (int k = 0; k < 4; k++)
                        csv_empty(&w);
                    csv_text(&w, v ? "not compared" : "baseline");
                }
                if (sorted_cell(&w, en))
                    return -ENOMEM;
                /* The change as the other formats show it (pp for metrics in %). */
                if (en->chg.kind == CREPORT_CHANGE_NONE) {
                    csv_empty(&w);
                    csv_empty(&w);
                } else {
                    csv_number(&w, en->chg.value);
                    csv_text(&w, change_unit(&md[m], en));
                }
                fails_cell(&w, r, v, c);
                csv_end(&w);
            }
        }
    return csv_status(&w);
}
