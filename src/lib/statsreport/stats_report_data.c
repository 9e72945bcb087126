/*
 * The statistics report as data: the JSON document of docs/stats.md and the
 * CSV tables of `netab stats --csv`. Printing only: every number is computed
 * already.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "statsreport/stats_report.h"
#include "stats/verdict.h"
#include "util/csv.h"
#include "judge/judge.h"

/* JSON has no NaN or infinity: such values become null. */
static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *warnings_json(const struct stats_warning *w, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{s:s, s:s?, s:s}", "kind", w[i].kind, "set", w[i].set,
                                           "message", w[i].message));
    return a;
}

/* The failed runs by word: [{"word": "-EINTR", "count": 2}], in order of first appearance. */
static json_t *failures_json(const struct input_failures *f)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < f->nwords; i++)
        json_array_append_new(a, json_pack("{s:s, s:I}", "word", f->words[i].word, "count",
                                           (json_int_t)f->words[i].count));
    return a;
}

static json_t *set_json(const struct stats_report_set *s)
{
    const struct stats_summary *m = &s->sum;
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "name", json_string(s->name));
    json_object_set_new(o, "format", json_string(s->format ? s->format : ""));
    json_object_set_new(o, "metric", json_string(s->metric));
    json_object_set_new(o, "n", json_integer((json_int_t)m->n));
    const struct {
        const char *k;
        double v;
    } f[] = {
        {"mean", m->mean},
        {"median", m->median},
        {"stddev", m->stddev},
        {"min", m->min},
        {"max", m->max},
        {"cv", m->cv},
        {"mean_ci_low", m->mean_ci_low},
        {"mean_ci_high", m->mean_ci_high},
        {"median_ci_low", m->median_ci_low},
        {"median_ci_high", m->median_ci_high},
        {"p1", m->p1},
        {"p5", m->p5},
        {"p25", m->p25},
        {"p75", m->p75},
        {"p95", m->p95},
        {"p99", m->p99},
        {"spearman_rho", s->checks.spearman_rho},
        {"spearman_p", s->checks.spearman_p},
        {"bimodality_coefficient", s->checks.bimodality},
        {"tukey_fence_low", s->checks.fence_low},
        {"tukey_fence_high", s->checks.fence_high},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        json_object_set_new(o, f[i].k, num(f[i].v));
    /* What the values' order was taken to mean: Spearman's rho is null unless "run". */
    const struct stats_checks *k = &s->checks;
    json_object_set_new(o, "order",
                        json_string(k->sorted > 0                     ? "ascending"
                                    : k->sorted < 0                   ? "descending"
                                    : k->order == STATS_ORDER_UNKNOWN ? "unknown"
                                                                      : "run"));
    json_object_set_new(o, "median_resamples", json_integer((json_int_t)m->median_resamples));
    json_object_set_new(
        o, "outliers",
        json_integer((json_int_t)(s->checks.outliers_low + s->checks.outliers_high)));
    json_object_set_new(o, "warnings", warnings_json(s->warnings, s->nwarnings));
    json_object_set_new(o, "failed", json_integer((json_int_t)s->fails.n));
    json_object_set_new(o, "failures", failures_json(&s->fails));
    return o;
}

static json_t *cmp_json(const struct stats_report *r, const struct stats_report_cmp *m)
{
    const struct stats_comparison *c = &m->c;
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "baseline", json_string(r->sets[0].name));
    json_object_set_new(o, "other", json_string(r->sets[m->other].name));
    const struct {
        const char *k;
        double v;
    } f[] = {
        {"diff", c->diff},
        {"diff_ci_low", c->diff_ci_low},
        {"diff_ci_high", c->diff_ci_high},
        {"diff_pct", c->diff_pct},
        {"ratio", c->ratio},
        {"ratio_ci_low", c->ratio_ci_low},
        {"ratio_ci_high", c->ratio_ci_high},
        {"welch_t", c->welch.t},
        {"welch_df", c->welch.df},
        {"welch_p", c->welch.p},
        {"mannwhitney_u", c->mw.u},
        {"mannwhitney_p", c->mw.p},
        {"median_diff", c->median_diff},
        {"median_diff_ci_low", c->median_diff_ci_low},
        {"median_diff_ci_high", c->median_diff_ci_high},
        {"median_ratio", c->median_ratio},
        {"median_ratio_ci_low", c->median_ratio_ci_low},
        {"median_ratio_ci_high", c->median_ratio_ci_high},
        {"rel_change", c->verdict.rel},
        {"rel_change_ci_low", c->verdict.rel_low},
        {"rel_change_ci_high", c->verdict.rel_high},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        json_object_set_new(o, f[i].k, num(f[i].v));
    json_object_set_new(o, "ratio_method",
                        json_string(!c->ratio_defined ? "none"
                                    : c->ratio_method == STATS_RATIO_BOOTSTRAP
                                        ? "bootstrap-percentile"
                                        : "fieller"));
    json_object_set_new(o, "ratio_resamples", json_integer((json_int_t)c->ratio_resamples));
    json_object_set_new(o, "median_resamples", json_integer((json_int_t)c->median_resamples));
    json_object_set_new(o, "mannwhitney_exact", json_boolean(c->mw.exact));
    json_object_set_new(o, "verdict", json_string(stats_verdict_name(c->verdict.kind)));
    char why[512];
    stats_verdict_explain(&c->verdict, c->welch.p, r->opts.noise, why, sizeof(why));
    json_object_set_new(o, "verdict_detail", json_string(why));
    json_object_set_new(o, "significant", json_boolean(c->verdict.significant));
    json_object_set_new(o, "significant_within_noise",
                        json_boolean(c->verdict.significant_within_floor));
    /* A count too large to mean anything (or to fit) is null, never a wrapped integer. */
    json_object_set_new(o, "runs_needed",
                        c->runs_needed < STATS_REPORT_RUNS_COUNTABLE
                            ? json_integer((json_int_t)c->runs_needed)
                            : json_null());
    json_object_set_new(o, "ratio_defined", json_boolean(c->ratio_defined));
    json_object_set_new(o, "decided_on",
                        json_string(c->verdict.on_difference ? "difference" : "ratio"));
    json_object_set_new(o, "warnings", warnings_json(m->warnings, m->nwarnings));
    return o;
}

json_t *stats_report_json(const struct stats_report *r)
{
    json_t *doc = json_object(), *sets = json_array(), *cmps = json_array();
    if (!doc || !sets || !cmps) {
        json_decref(doc);
        json_decref(sets);
        json_decref(cmps);
        return NULL;
    }
    json_object_set_new(doc, "confidence", json_real(r->opts.confidence));
    json_object_set_new(doc, "noise_pct", json_real(r->opts.noise * 100));
    json_object_set_new(doc, "direction", json_string(judge_direction(r->opts.lower_is_better)));
    json_object_set_new(doc, "seed", json_integer((json_int_t)r->opts.seed));
    json_object_set_new(doc, "resamples", json_integer((json_int_t)r->opts.resamples));
    for (size_t i = 0; i < r->nsets; i++)
        json_array_append_new(sets, set_json(&r->sets[i]));
    for (size_t i = 0; i + 1 < r->nsets; i++)
        json_array_append_new(cmps, cmp_json(r, &r->cmps[i]));
    json_object_set_new(doc, "sets", sets);
    json_object_set_new(doc, "comparisons", cmps);
    return doc;
}

static void print_sets_csv(const struct stats_report *r, struct csv *w)
{
    static const char *const head[] = {
        "name", "n",   "mean",        "median",       "stddev",        "min",
        "max",  "cv",  "mean_ci_low", "mean_ci_high", "median_ci_low", "median_ci_high",
        "p5",   "p95", "outliers",    "failed",       "failures"};
    csv_header(w, head, sizeof(head) / sizeof(head[0]));
    for (size_t i = 0; i < r->nsets; i++) {
        const struct stats_report_set *s = &r->sets[i];
        const struct stats_summary *m = &s->sum;
        csv_text(w, s->name);
        csv_integer(w, (long long)m->n);
        double v[] = {m->mean, m->median,      m->stddev,       m->min,           m->max,
                      m->cv,   m->mean_ci_low, m->mean_ci_high, m->median_ci_low, m->median_ci_high,
                      m->p5,   m->p95};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
            csv_number(w, v[k]);
        csv_integer(w, (long long)(s->checks.outliers_low + s->checks.outliers_high));
        csv_integer(w, (long long)s->fails.n);
        char words[INPUT_FAIL_WORDS_MAX * (INPUT_FAIL_WORD_MAX + 24)] = "";
        stats_report_failures_text(&s->fails, ";", words, sizeof(words));
        csv_text(w, words);
        csv_end(w);
    }
}

static void print_comparisons_csv(const struct stats_report *r, struct csv *w)
{
    static const char *const head[] = {"baseline",      "other",    "diff",          "diff_ci_low",
                                       "diff_ci_high",  "diff_pct", "ratio",         "ratio_ci_low",
                                       "ratio_ci_high", "welch_p",  "mannwhitney_p", "verdict",
                                       "warnings"};
    csv_header(w, head, sizeof(head) / sizeof(head[0]));
    for (size_t i = 0; i + 1 < r->nsets; i++) {
        const struct stats_report_cmp *m = &r->cmps[i];
        const struct stats_comparison *c = &m->c;
        csv_text(w, r->sets[0].name);
        csv_text(w, r->sets[m->other].name);
        double v[] = {c->diff,         c->diff_ci_low,   c->diff_ci_high, c->diff_pct, c->ratio,
                      c->ratio_ci_low, c->ratio_ci_high, c->welch.p,      c->mw.p};
        for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
            csv_number(w, v[k]);
        csv_text(w, stats_verdict_name(c->verdict.kind));
        char all[STATS_REPORT_CMP_WARNINGS * 24] = "";
        size_t used = 0;
        for (size_t k = 0; k < m->nwarnings && used < sizeof(all); k++)
            used += (size_t)snprintf(all + used, sizeof(all) - used, "%s%s", k ? ";" : "",
                                     m->warnings[k].kind);
        csv_text(w, all);
        csv_end(w);
    }
}

int stats_report_print_csv(const struct stats_report *r, FILE *f)
{
    struct csv w;
    csv_init(&w, f, CSV_LF);
    print_sets_csv(r, &w);
    csv_end(&w); /* the empty line between the two tables */
    print_comparisons_csv(r, &w);
    return csv_status(&w);
}
