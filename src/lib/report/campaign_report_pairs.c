/*
 * Every pair of variants (campaign_report_pairs.h). Bonferroni rather than
 * Holm: the report shows intervals, and Bonferroni's one level for every
 * interval of the family is what an interval can carry; Holm's step-down
 * adjusts p-values only and would leave the intervals uncorrected.
 */
#include "report/campaign_report_pairs.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/campaign_report_layout.h"
#include "report/stats_report.h"

void creport_pairs_correct(struct creport *r)
{
    r->family_confidence = r->opts.confidence;
    r->npairs = r->nvariants * (r->nvariants - (r->nvariants > 0)) / 2;
    if (!r->opts.pairs_all || r->npairs < 2)
        return;
    r->opts.confidence = 1 - (1 - r->family_confidence) / (double)r->npairs;
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The comparison of b against a (variants va, vb) in cell c on metric m, as JSON. */
static json_t *pair_json(const struct creport *r, size_t va, size_t vb, size_t c, size_t m,
                         const struct stats_report_cmp *k)
{
    const struct creport_metric *md = r->metrics; /* built-ins, then --metric paths */
    const struct creport_entry *a = creport_at(r, va, c, m), *b = creport_at(r, vb, c, m);
    if (!k->compared)
        return json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:s}", "cell", r->cells[c].name, "metric",
                         md[m].name, "a", r->variants[va], "b", r->variants[vb], "n_a",
                         (json_int_t)a->n, "n_b", (json_int_t)b->n, "not_compared",
                         "each variant needs 2 values or more");
    const struct stats_comparison *x = &k->c;
    double adj = x->welch.p * (double)(r->npairs > 1 ? r->npairs : 1);
    return json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, "
                     "s:o, s:o, s:o, s:s}",
                     "cell", r->cells[c].name, "metric", md[m].name, "a", r->variants[va], "b",
                     r->variants[vb], "n_a", (json_int_t)a->n, "n_b", (json_int_t)b->n, "mean_a",
                     num(a->mean), "mean_b", num(b->mean), "decided_on",
                     x->verdict.on_difference ? "difference" : "ratio", "diff", num(x->diff),
                     "diff_ci_low", num(x->diff_ci_low), "diff_ci_high", num(x->diff_ci_high),
                     "rel_change_pct", num(x->verdict.rel * 100), "rel_change_ci_low_pct",
                     num(x->verdict.rel_low * 100), "rel_change_ci_high_pct",
                     num(x->verdict.rel_high * 100), "welch_p", num(x->welch.p), "p_bonferroni",
                     num(adj < 1 ? adj : 1), "verdict", stats_verdict_name(x->verdict.kind));
}

/* Variant va against every later variant in cell c, metric m. Returns 0 or a negative errno. */
static int pairs_from(struct creport *r, size_t va, size_t c, size_t m, const struct stats_opts *so,
                      char *err, size_t errlen)
{
    const struct creport_metric *md = r->metrics; /* built-ins, then --metric paths */
    struct stats_report sr;
    size_t n = r->nvariants - va;
    int e = stats_report_init(&sr, n, so);
    for (size_t i = 0; i < n && !e; i++) {
        const struct creport_entry *en = creport_at(r, va + i, c, m);
        e = stats_report_set_values(&sr, i, r->variants[va + i], "store", md[m].name, en->values,
                                    en->n);
    }
    if (!e)
        e = stats_report_analyse(&sr, err, errlen);
    for (size_t i = 1; i < n && !e; i++) {
        json_t *o = pair_json(r, va, va + i, c, m, &sr.cmps[i - 1]);
        e = o && !json_array_append_new(r->pairs, o) ? 0 : -ENOMEM;
    }
    stats_report_free(&sr);
    return e;
}

int creport_pairs(struct creport *r, uint64_t seed, char *err, size_t errlen)
{
    const struct creport_metric *md = r->metrics; /* built-ins, then --metric paths */
    if (!r->opts.pairs_all)
        return 0;
    if (!(r->pairs = json_array()))
        return -ENOMEM;
    struct stats_opts so;
    stats_opts_default(&so);
    so.confidence = r->opts.confidence;
    so.noise = r->opts.noise;
    so.seed = seed;
    for (size_t c = 0; c < r->ncells; c++) {
        int m = r->cells[c].decide;
        if (m < 0)
            continue;
        so.lower_is_better = md[m].lower_is_better;
        for (size_t va = 0; va + 1 < r->nvariants; va++) {
            int e = pairs_from(r, va, c, (size_t)m, &so, err, errlen);
            if (e)
                return e;
        }
    }
    return 0;
}

/* "+2.53% [+1.20, +3.84]", or "diff +5.1 [...]" when the ratio is undefined. */
static void change(const json_t *p, char *b, size_t n)
{
    bool diff = !strcmp(json_string_value(json_object_get(p, "decided_on")), "difference");
    const char *k[3] = {"diff", "diff_ci_low", "diff_ci_high"};
    if (!diff) {
        k[0] = "rel_change_pct";
        k[1] = "rel_change_ci_low_pct";
        k[2] = "rel_change_ci_high_pct";
    }
    double x = json_real_value(json_object_get(p, k[0]));
    double lo = json_real_value(json_object_get(p, k[1]));
    double hi = json_real_value(json_object_get(p, k[2]));
    if (diff)
        snprintf(b, n, "diff %+.3g [%+.3g, %+.3g]", x, lo, hi);
    else
        snprintf(b, n, "%+.2f%% [%+.2f, %+.2f]", x, lo, hi);
}

/* The sentence that states the correction. */
static void correction(const struct creport *r, char *b, size_t n)
{
    if (r->npairs > 1)
        snprintf(b, n,
                 "Bonferroni over the %zu pairs of each cell: every interval (here and in the "
                 "tables above) is at %.4g%% and every p is multiplied by %zu before it is "
                 "held against %g, so that each cell's family of comparisons is at %g%%.",
                 r->npairs, r->opts.confidence * 100, r->npairs, 1 - r->family_confidence,
                 r->family_confidence * 100);
    else
        snprintf(b, n, "One pair: no correction is needed.");
}

void creport_pairs_change_text(const json_t *p, char *b, size_t n)
{
    change(p, b, n);
}

void creport_pairs_correction_text(const struct creport *r, char *b, size_t n)
{
    correction(r, b, n);
}

void creport_print_pairs_text(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *p;
    const char *cell = NULL;
    if (!r->pairs)
        return;
    char intro[512];
    correction(r, intro, sizeof(intro));
    fprintf(f, "\nEvery pair, deciding metric: change of the second against the first.\n");
    creport_wrap(f, "", "  ", intro);
    json_array_foreach(r->pairs, i, p)
    {
        const char *c = json_string_value(json_object_get(p, "cell"));
        char line[512], chg[128];
        if (!cell || strcmp(cell, c)) {
            const struct creport_metric *md =
                creport_metric_named(r, json_string_value(json_object_get(p, "metric")));
            snprintf(line, sizeof(line), "%s, %s:", c[0] ? c : "(all)",
                     md ? md->label : json_string_value(json_object_get(p, "metric")));
            creport_wrap(f, "", "    ", line);
            cell = c;
        }
        const char *a = json_string_value(json_object_get(p, "a"));
        const char *b = json_string_value(json_object_get(p, "b"));
        if (json_is_string(json_object_get(p, "not_compared"))) {
            snprintf(line, sizeof(line), "%s -> %s: not compared: %s", a, b,
                     json_string_value(json_object_get(p, "not_compared")));
        } else {
            change(p, chg, sizeof(chg));
            snprintf(line, sizeof(line), "%s -> %s: %s p=%.2g (x%zu: %.2g) %s", a, b, chg,
                     json_real_value(json_object_get(p, "welch_p")), r->npairs > 1 ? r->npairs : 1,
                     json_real_value(json_object_get(p, "p_bonferroni")),
                     json_string_value(json_object_get(p, "verdict")));
        }
        creport_wrap(f, "  ", "      ", line);
    }
}

void creport_print_pairs_markdown(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *p;
    if (!r->pairs)
        return;
    char intro[512];
    correction(r, intro, sizeof(intro));
    fprintf(f,
            "\n### Every pair (deciding metric)\n\n%s\n\n| cell | first | second | change "
            "[CI] | p | p x %zu | verdict |\n|---|---|---|---:|---:|---:|---|\n",
            intro, r->npairs > 1 ? r->npairs : 1);
    json_array_foreach(r->pairs, i, p)
    {
        char chg[128] = "-";
        bool cmp = !json_is_string(json_object_get(p, "not_compared"));
        if (cmp)
            change(p, chg, sizeof(chg));
        fputs("| ", f);
        const char *c = json_string_value(json_object_get(p, "cell"));
        creport_md_text(f, c[0] ? c : "(all)");
        fputs(" | ", f);
        creport_md_text(f, json_string_value(json_object_get(p, "a")));
        fputs(" | ", f);
        creport_md_text(f, json_string_value(json_object_get(p, "b")));
        if (cmp)
            fprintf(f, " | %s | %.2g | %.2g | %s |\n", chg,
                    json_real_value(json_object_get(p, "welch_p")),
                    json_real_value(json_object_get(p, "p_bonferroni")),
                    json_string_value(json_object_get(p, "verdict")));
        else
            fputs(" | not compared | | | |\n", f);
    }
}
