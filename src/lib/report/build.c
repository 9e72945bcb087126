/*
 * Building an experiment's matrix report from the results store: which runs
 * count, in which variant and cell, their medians and the comparisons with
 * the baseline. Printing is in text.c and data.c.
 */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/celltable.h"
#include "report/duts.h"
#include "report/env.h"
#include "judge/judge.h"
#include "metric/spec.h"
#include "report/counters.h"
#include "report/identity.h"
#include "report/steal.h"
#include "report/perfwarn.h"
#include "report/metric.h"
#include "report/model.h"
#include "report/codelayout.h"
#include "report/effects.h"
#include "report/matrix.h"
#include "report/pairs.h"
#include "report/place.h"
#include "report/profile.h"
#include "report/rundoc.h"
#include "statsreport/stats_report.h"
#include "stats/warnings.h"

const struct creport_metric *creport_metric_named(const struct creport *r, const char *name)
{
    size_t k = name ? creport_metric_index(r->metrics, r->nmetrics, name) : r->nmetrics;
    return k < r->nmetrics ? &r->metrics[k] : NULL;
}

void creport_opts_default(struct creport_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->confidence = JUDGE_CONFIDENCE_DEFAULT;
    o->noise = JUDGE_NOISE_DEFAULT;
}

unsigned creport_test_kind(const char *t)
{
    return metric_kind_of(t);
}

void creport_free(struct creport *r)
{
    if (!r)
        return;
    creport_model_free(r);
    if (r->entries)
        for (size_t i = 0; i < r->nvariants * r->ncells * r->nmetrics; i++) {
            free(r->entries[i].values);
            free(r->entries[i].sorted);
        }
    free(r->entries);
    creport_profiles_free(r);
    creport_metrics_free(r->metrics, r->nmetrics);
    for (size_t v = 0; r->variants && v < r->nvariants; v++)
        free(r->variants[v]);
    free(r->variants);
    creport_matrix_free(r);
    for (size_t c = 0; r->cells && c < r->ncells; c++) {
        free(r->cells[c].name);
        free(r->cells[c].test);
    }
    free(r->cells);
    free(r->metric_selected);
    free(r->order);
    free(r->n_measured);
    free(r->fails);
    creport_dutcols_free(r);
    creport_celltab_free(r->celltab);
    for (size_t i = 0; r->duts && i < r->nduts; i++)
        free(r->duts[i]);
    free(r->duts);
    free(r->name);
    free(r->status);
    creport_env_free(r);
    creport_counter_diffs_free(r);
    free(r->pairs);
    creport_effects_free(r);
    for (size_t v = 0; r->layouts && v < r->nvariants; v++)
        free(r->layouts[v]);
    free(r->layouts);
    creport_layout_hot_free(r);
    creport_code_layout_free(r);
    for (size_t i = 0; r->runlist && i < r->nrunlist; i++)
        free(r->runlist[i].values);
    free(r->runlist);
    for (size_t v = 0; r->commands && v < r->nvariants; v++)
        free(r->commands[v]);
    free(r->commands);
    free(r);
}

/* Appends a copy of name to *list unless present. Returns its index, or -1 when out of memory. */
static long add_name(char ***list, size_t *n, const char *name)
{
    long i = creport_find_name(*list, *n, name);
    if (i >= 0)
        return i;
    char **p = realloc(*list, (*n + 1) * sizeof(**list));
    if (!p)
        return -1;
    *list = p;
    if (!(p[*n] = strdup(name)))
        return -1;
    return (long)(*n)++;
}

/* Variants: the spec's order, then any others in plan order; --baseline first. */
static int collect_variants(struct creport *r, json_t *spec, const struct store_plan_row *plan,
                            size_t nplan, char *err, size_t errlen)
{
    size_t nspec = spec_variant_count(spec);
    int e = 0;
    for (size_t i = 0; !e && i < nspec; i++) {
        const char *name = spec_variant_name(spec, i);
        if (name && add_name(&r->variants, &r->nvariants, name) < 0)
            e = -ENOMEM;
    }
    for (size_t i = 0; !e && i < nplan; i++)
        if (plan[i].variant && add_name(&r->variants, &r->nvariants, plan[i].variant) < 0)
            e = -ENOMEM;
    if (!e && r->opts.baseline)
        e = creport_move_baseline(r, r->opts.baseline, err, errlen);
    if (!e && !(r->layouts = calloc(r->nvariants ? r->nvariants : 1, sizeof(*r->layouts))))
        e = -ENOMEM;
    for (size_t i = 0; i < nspec; i++) {
        const char *name = spec_variant_name(spec, i);
        const char *layout = spec_variant_layout(spec, i);
        long v = name && layout && !e ? creport_find_name(r->variants, r->nvariants, name) : -1;
        if (v >= 0 && !r->layouts[v] && !(r->layouts[v] = strdup(layout)))
            e = -ENOMEM;
    }
    if (!e)
        e = creport_layout_hot_read(r, spec);
    return e;
}

/*
 * order: blocked (docs/experiment.md) runs each variant's runs together:
 * whatever drifts over time (temperature, other load) then differs between
 * the variants too, which the report must say. Returns 0 or -ENOMEM.
 */
static int warn_blocked_order(struct creport *r, json_t *spec)
{
    bool blocked = spec_order_blocked(spec);
    if (!blocked)
        return 0;
    return creport_env_warn(r, "order: blocked: each variant's runs came together, "
                               "so drift over time is confounded with the variant");
}

/* Selects metric m (shown and compared) after those selected, unless it is already. */
static void select_one(struct creport *r, size_t m)
{
    if (m < r->nmetrics && !r->metric_selected[m]) {
        r->metric_selected[m] = true;
        r->order[r->norder++] = m;
    }
}

static int select_metrics(struct creport *r, const struct creport_opts *o, char *err, size_t errlen)
{
    int e = creport_metrics_build(o->metrics, o->nmetrics, &r->metrics, &r->nmetrics, err, errlen);
    if (e)
        return e;
    r->metric_selected = calloc(r->nmetrics, sizeof(bool));
    r->order = calloc(r->nmetrics, sizeof(size_t));
    if (!r->metric_selected || !r->order)
        return -ENOMEM;
    if (!o->nmetrics) {
        for (size_t m = 0; m < r->nmetrics; m++) {
            /* Read for the CPU cost decision (cpu.h), shown when named. */
            const struct metric *t = metric_find(r->metrics[m].name);
            if (t && (t->flags & METRIC_POLLUTION))
                continue;
            r->metric_selected[m] = true;
            r->order[r->norder++] = m;
        }
    }
    for (size_t i = 0; i < o->nmetrics; i++)
        select_one(r, creport_metric_index(r->metrics, r->nmetrics, o->metrics[i]));
    /* The cell template's figures are compared too, after those --metric named. */
    for (size_t i = 0; r->celltab && i < r->celltab->nph; i++)
        select_one(r, creport_metric_index(r->metrics, r->nmetrics, r->celltab->ph[i].metric));
    return 0;
}

static int fill_values(struct creport *r, const struct creport_placed *p, size_t n)
{
    size_t nvc = r->nvariants * r->ncells;
    r->n_measured = calloc(nvc ? nvc : 1, sizeof(long));
    size_t ne = nvc * r->nmetrics;
    r->entries = calloc(ne ? ne : 1, sizeof(*r->entries));
    if (!r->n_measured || !r->entries)
        return -ENOMEM;
    for (size_t k = 0; k < n; k++)
        r->n_measured[p[k].v * r->ncells + p[k].c]++;
    for (size_t v = 0; v < r->nvariants; v++)
        for (size_t c = 0; c < r->ncells; c++)
            for (size_t m = 0; m < r->nmetrics; m++) {
                long cap = r->n_measured[v * r->ncells + c];
                struct creport_entry *en = creport_at(r, v, c, m);
                en->median = en->mean = NAN;
                if (!(en->values = malloc((size_t)(cap ? cap : 1) * sizeof(double))))
                    return -ENOMEM;
            }
    /* Runs are in id order, so values end up in run order, as the drift check needs. */
    for (size_t k = 0; k < n; k++)
        for (size_t m = 0; m < r->nmetrics; m++) {
            double x = r->runlist[p[k].listed].values[m]; /* read once, by creport_place_runs() */
            struct creport_entry *en = creport_at(r, p[k].v, p[k].c, m);
            if (isfinite(x))
                en->values[en->n++] = x;
        }
    for (size_t k = 0; k < n; k++)
        if (p[k].doc->order_unknown) /* imported runs (docs/store.md, "Run order") */
            for (size_t m = 0; m < r->nmetrics; m++)
                creport_at(r, p[k].v, p[k].c, m)->order_unknown = true;
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t m = 0; m < r->nmetrics; m++) {
            bool any = false;
            for (size_t v = 0; v < r->nvariants; v++)
                any |= creport_at(r, v, c, m)->n > 0;
            bool shown =
                any && r->metric_selected[m] && (r->metrics[m].tests & r->cells[c].test_kind);
            for (size_t v = 0; v < r->nvariants; v++)
                creport_at(r, v, c, m)->shown = shown;
        }
    return 0;
}

/*
 * A --flows, rrul or --perf counter figure (METRIC_WHERE_PRESENT) selected by default stays
 * selected only where some cell shows it: a report without flows or rrul runs
 * lists no such metric (JSON "metrics", the tables), exactly as before they
 * existed. One named
 * by --metric or the cell template stays, as any named metric does.
 */
static void drop_absent_flow_metrics(struct creport *r, const struct creport_opts *o)
{
    size_t k = 0;
    for (size_t i = 0; i < r->norder; i++) {
        size_t m = r->order[i];
        const struct metric *t = r->metrics[m].owned ? NULL : metric_find(r->metrics[m].name);
        bool keep = o->nmetrics || !t || !(t->flags & METRIC_WHERE_PRESENT);
        for (size_t c = 0; c < r->ncells && !keep; c++)
            keep = creport_at(r, 0, c, m)->shown;
        for (size_t j = 0; r->celltab && j < r->celltab->nph && !keep; j++)
            keep = creport_metric_index(r->metrics, r->nmetrics, r->celltab->ph[j].metric) == m;
        if (keep)
            r->order[k++] = m;
        else
            r->metric_selected[m] = false;
    }
    r->norder = k;
}

static void choose_deciders(struct creport *r, const struct creport_opts *o)
{
    for (size_t c = 0; c < r->ncells; c++) {
        struct creport_cell *cell = &r->cells[c];
        if (o->nmetrics) {
            for (size_t i = 0; i < r->norder && cell->decide < 0; i++)
                if (creport_at(r, 0, c, r->order[i])->shown)
                    cell->decide = (int)r->order[i];
            continue;
        }
        /* Without --metric, the judgement's figure for the cell's test kind, when shown. */
        const struct metric *d = judge_decider(cell->test_kind);
        size_t m = creport_metric_index(r->metrics, r->nmetrics, d->name);
        if (m < r->nmetrics && creport_at(r, 0, c, m)->shown)
            cell->decide = (int)m;
    }
}

/* Counts comparison en of cell c, metric m into the verdict totals. */
static void count_verdict(struct creport *r, size_t c, size_t m, const struct creport_entry *en)
{
    switch (en->cmp.verdict.kind) {
    case STATS_IMPROVED:
        r->n_improved++;
        break;
    case STATS_REGRESSED:
        r->n_regressed++;
        r->n_regressed_deciding += (int)m == r->cells[c].decide;
        break;
    case STATS_WITHIN_NOISE:
        r->n_within++;
        break;
    case STATS_NO_DIFFERENCE:
        r->n_unproven++;
        break;
    }
}

/*
 * Copies what the statistics report sr says about variant v (> 0) of cell
 * c, metric m into its entry: the comparison, or why there is none; for the
 * deciding metric, a warning when too few runs resolve the noise floor.
 */
static int take_comparison(struct creport *r, const struct stats_report *sr, size_t v, size_t c,
                           size_t m)
{
    const struct creport_entry *base = creport_at(r, 0, c, m);
    struct creport_entry *en = creport_at(r, v, c, m);
    if (!sr->cmps[v - 1].compared) {
        size_t have = base->n < 2 ? base->n : en->n;
        const struct creport_fail *f = creport_fail_at(r, base->n < 2 ? 0 : v, c);
        if (f->failed)
            /* Failures are data: the cell says why no verdict was made. */
            snprintf(en->why, sizeof(en->why), "%s: %zu of %zu runs failed (%s)",
                     base->n < 2 ? "the baseline" : "this variant", f->failed, f->failed + f->ok,
                     f->short_reason);
        else
            snprintf(en->why, sizeof(en->why), "%s has %zu value%s (2 are needed)",
                     base->n < 2 ? "the baseline" : "this variant", have, have == 1 ? "" : "s");
        r->n_nocmp++;
        return 0;
    }
    en->cmp = sr->cmps[v - 1].c;
    en->has_cmp = true;
    count_verdict(r, c, m, en);
    if ((int)m != r->cells[c].decide || en->cmp.runs_needed <= en->n ||
        en->cmp.runs_needed <= base->n)
        return 0;
    char msg[STATS_WARNING_LEN];
    if (en->cmp.runs_needed >= STATS_REPORT_RUNS_COUNTABLE)
        snprintf(msg, sizeof(msg),
                 "more than %zu runs per variant are needed to resolve a %g%% change (have %zu "
                 "and %zu)",
                 (size_t)STATS_REPORT_RUNS_COUNTABLE, r->opts.noise * 100, base->n, en->n);
    else
        snprintf(msg, sizeof(msg),
                 "about %zu runs per variant are needed to resolve a %g%% change (have %zu and "
                 "%zu)",
                 en->cmp.runs_needed, r->opts.noise * 100, base->n, en->n);
    return creport_stats_warning_add(r, v, c, m, "underpowered", msg);
}

/*
 * Cell c, metric m through the shared statistics report (report/stats_report.h),
 * one set per variant: medians, each variant compared with the baseline where
 * both have two values, and for the deciding metric the sets' warnings
 * (outliers, drift, bimodality, too few runs).
 */
static int compare_cell_metric(struct creport *r, size_t c, size_t m, const struct stats_opts *so)
{
    struct stats_report sr;
    int e = stats_report_init(&sr, r->nvariants, so);
    for (size_t v = 0; v < r->nvariants && !e; v++) {
        const struct creport_entry *en = creport_at(r, v, c, m);
        e = stats_report_set_values(&sr, v, r->variants[v], "store", r->metrics[m].name, en->values,
                                    en->n);
        sr.sets[v].order_unknown = en->order_unknown;
    }
    if (!e)
        e = stats_report_analyse(&sr, NULL, 0);
    /* Per variant its set's warnings, then its comparison's: the order the JSON lists them. */
    bool deciding = (int)m == r->cells[c].decide;
    for (size_t v = 0; v < r->nvariants && !e; v++) {
        const struct stats_report_set *set = &sr.sets[v];
        if (set->described) {
            creport_at(r, v, c, m)->median = set->sum.median;
            creport_at(r, v, c, m)->mean = set->sum.mean;
            creport_at(r, v, c, m)->sum = set->sum;
            creport_at(r, v, c, m)->has_sum = true;
            for (size_t i = 0; deciding && i < set->nwarnings && !e; i++)
                e = creport_stats_warning_add(r, v, c, m, set->warnings[i].kind,
                                              set->warnings[i].message);
            /* Instead of a drift warning: why there is none (the summary says it once). */
            if (deciding && set->order_unknown && !e)
                e = creport_stats_warning_add(
                    r, v, c, m, "order_unknown",
                    "drift not judged: the run order of imported runs is unknown");
        }
        if (v && !e)
            e = take_comparison(r, &sr, v, c, m);
    }
    stats_report_free(&sr);
    return e;
}

/* Medians everywhere; comparisons with the baseline where both sides have two values. */
static int compare_all(struct creport *r, const struct store_experiment *x)
{
    struct stats_opts so;
    stats_opts_default(&so);
    so.confidence = r->opts.confidence;
    so.noise = r->opts.noise;
    so.seed = x->seed;
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t m = 0; m < r->nmetrics; m++) {
            if (!creport_at(r, 0, c, m)->shown)
                continue;
            so.lower_is_better = r->metrics[m].lower_is_better;
            int e = compare_cell_metric(r, c, m, &so);
            if (e)
                return e;
        }
    return 0;
}

/* The named DUTs (the headline's columns when the matrix has the axis dut) and how they ran. */
static int collect_duts(struct creport *r, const json_t *spec)
{
    size_t n = spec_dut_count(spec);
    r->duts_concurrent = spec_parallel_duts(spec);
    if (!n)
        return 0;
    if (!(r->duts = calloc(n, sizeof(*r->duts))))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const char *name = spec_dut_name(spec, i);
        if (name && !(r->duts[r->nduts++] = strdup(name)))
            return -ENOMEM;
    }
    return 0;
}

int creport_build_docs(const struct store_experiment *x, const char *spec_json,
                       const struct store_plan_row *plan, size_t nplan,
                       const struct creport_rundoc *runs, size_t nruns,
                       const struct creport_opts *o, struct creport **out, char *err, size_t errlen)
{
    struct creport *r = calloc(1, sizeof(*r));
    struct creport_placed *p = NULL;
    /* The spec parsed once for the variants, the cells and the order. */
    json_t *spec = spec_json ? json_loads(spec_json, 0, NULL) : NULL;
    size_t np = 0;
    int e = -ENOMEM;
    *out = NULL;
    if (!r)
        goto out;
    r->id = x->id;
    r->seed = x->seed;
    r->opts = *o;
    r->opts.metrics = NULL;
    r->opts.nmetrics = 0;
    r->runs.planned = (long)nplan;
    r->name = strdup(x->name ? x->name : "");
    r->status = strdup(x->status ? x->status : "");
    if (!r->name || !r->status)
        goto out;
    /* The cell template first: the report compares its figures too. */
    if ((e = creport_celltab_parse(o->cell ? o->cell : spec_report_cell(spec),
                                   o->columns ? o->columns : spec_report_columns(spec), &r->celltab,
                                   err, errlen)) ||
        (e = select_metrics(r, o, err, errlen)))
        goto out;
    if ((e = collect_duts(r, spec)) || (e = collect_variants(r, spec, plan, nplan, err, errlen)) ||
        (e = creport_collect_cells(r, spec, plan, nplan)) ||
        (e = creport_place_runs(r, plan, nplan, runs, nruns, &p, &np)) ||
        (e = creport_find_tests(r, p, np)) || (e = fill_values(r, p, np)) ||
        (e = creport_counter_diffs(r, plan, nplan, runs, nruns)) ||
        (e = creport_profiles(r, p, np)))
        goto out;
    drop_absent_flow_metrics(r, o);
    choose_deciders(r, o);
    creport_pairs_correct(r);
    e = creport_env_warnings(r, runs, nruns);
    if (!e)
        e = creport_steal_warning(r, runs, nruns);
    if (!e)
        e = creport_perf_warning(r, runs, nruns);
    if (!e)
        e = warn_blocked_order(r, spec);
    if (!e)
        e = compare_all(r, x);
    if (!e)
        e = creport_pairs(r, x->seed, err, errlen);
    if (!e)
        e = creport_effects(r, spec);
    if (!e)
        e = creport_env_differences(r, p, np);
    if (!e)
        e = creport_identity_notes(r, runs, nruns);
    if (!e)
        e = creport_model_finish(r);
    if (!e)
        e = creport_dutcols_build(r);
    if (!e)
        e = creport_celltab_build(r, err, errlen);
out:
    free(p);
    json_decref(spec);
    if (e == -ENOMEM)
        err_set(err, errlen, ENOMEM, "out of memory building the report");
    if (e) {
        creport_free(r);
        return e;
    }
    *out = r;
    return 0;
}

int creport_load(struct store *db, int64_t id, const struct creport_opts *o, struct creport **out,
                 char *err, size_t errlen)
{
    struct store_experiment x;
    char *spec = NULL;
    struct store_plan_row *plan = NULL;
    struct store_run *runs = NULL;
    size_t nplan = 0, nruns = 0;
    *out = NULL;
    int e = store_experiment_get(db, id, &x, &spec, NULL, err, errlen);
    if (e)
        return e;
    e = store_plan_list(db, id, &plan, &nplan, err, errlen);
    if (!e)
        e = store_run_list(db, id, true, &runs, &nruns, err, errlen);
    if (!e)
        e = creport_build(&x, spec, plan, nplan, runs, nruns, o, out, err, errlen);
    store_run_list_free(runs, nruns);
    store_plan_list_free(plan, nplan);
    store_experiment_free(&x);
    free(spec);
    return e;
}

int creport_exit_status(const struct creport *r)
{
    return r->exit_status;
}
