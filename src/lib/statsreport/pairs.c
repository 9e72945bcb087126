/*
 * Every pair of variants (pairs.h). Bonferroni rather than Holm: the reports
 * show intervals, and Bonferroni's one level for every interval of the family
 * is what an interval can carry; Holm's step-down adjusts p-values only and
 * would leave the intervals uncorrected.
 */
#include "statsreport/pairs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "statsreport/stats_report.h"
#include "util/textwrap.h"

/* The text reports' width (netab report, stats and compare). */
#define TEXT_WIDTH 72

size_t report_pairs_count(size_t nvariants)
{
    return nvariants * (nvariants - (nvariants > 0)) / 2;
}

double report_pairs_level(double family, size_t npairs)
{
    return npairs > 1 ? 1 - (1 - family) / (double)npairs : family;
}

double report_pairs_adjust(double p, size_t npairs)
{
    double adj = p * (double)(npairs > 1 ? npairs : 1);
    return adj < 1 ? adj : 1;
}

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* The reason a pair is not compared, as every output says it. */
static const char not_compared[] = "each variant needs 2 values or more";

json_t *report_pair_json(const struct report_pair *p, const char *a, const char *b)
{
    if (!p->compared)
        return json_pack("{s:s, s:s, s:I, s:I, s:s}", "a", a, "b", b, "n_a", (json_int_t)p->n_a,
                         "n_b", (json_int_t)p->n_b, "not_compared", not_compared);
    const struct stats_comparison *x = &p->c;
    return json_pack(
        "{s:s, s:s, s:I, s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "a", a,
        "b", b, "n_a", (json_int_t)p->n_a, "n_b", (json_int_t)p->n_b, "mean_a", num(p->mean_a),
        "mean_b", num(p->mean_b), "decided_on", x->verdict.on_difference ? "difference" : "ratio",
        "diff", num(x->diff), "diff_ci_low", num(x->diff_ci_low), "diff_ci_high",
        num(x->diff_ci_high), "rel_change_pct", num(x->verdict.rel * 100), "rel_change_ci_low_pct",
        num(x->verdict.rel_low * 100), "rel_change_ci_high_pct", num(x->verdict.rel_high * 100),
        "welch_p", num(x->welch.p), "p_bonferroni", num(p->p_bonferroni), "verdict",
        stats_verdict_name(x->verdict.kind));
}

/* Set va against every later set, in one report with va as its baseline, into out. */
static int pairs_from(const struct report_pair_set *sets, size_t nsets, size_t va,
                      const struct stats_opts *so, size_t npairs, struct report_pair *out,
                      char *err, size_t errlen)
{
    struct stats_report sr;
    size_t n = nsets - va;
    int e = stats_report_init(&sr, n, so);
    for (size_t i = 0; i < n && !e; i++)
        e = stats_report_set_values(&sr, i, sets[va + i].name, "pairs", NULL, sets[va + i].values,
                                    sets[va + i].n);
    if (!e)
        e = stats_report_analyse(&sr, err, errlen);
    for (size_t i = 1; i < n && !e; i++) {
        const struct stats_report_cmp *k = &sr.cmps[i - 1];
        const struct report_pair_set *a = &sets[va], *b = &sets[va + i];
        out[i - 1] = (struct report_pair){.a = va,
                                          .b = va + i,
                                          .n_a = a->n,
                                          .n_b = b->n,
                                          .mean_a = a->mean,
                                          .mean_b = b->mean,
                                          .compared = k->compared};
        if (k->compared) {
            out[i - 1].c = k->c;
            out[i - 1].p_bonferroni = report_pairs_adjust(k->c.welch.p, npairs);
        }
    }
    stats_report_free(&sr);
    return e;
}

int report_pairs_compute(const struct report_pair_set *sets, size_t nsets,
                         const struct stats_opts *so, size_t npairs, struct report_pair *out,
                         char *err, size_t errlen)
{
    for (size_t va = 0; va + 1 < nsets; va++) {
        int e = pairs_from(sets, nsets, va, so, npairs, out, err, errlen);
        if (e)
            return e;
        out += nsets - va - 1;
    }
    return 0;
}

/* head's members, then those of pair p. */
static json_t *pair_json(const json_t *head, const struct report_pair_set *sets,
                         const struct report_pair *p)
{
    json_t *o = head ? json_deep_copy(head) : json_object();
    json_t *more = report_pair_json(p, sets[p->a].name, sets[p->b].name);
    if (!o || !more || json_object_update(o, more)) {
        json_decref(more);
        json_decref(o);
        return NULL;
    }
    json_decref(more);
    return o;
}

int report_pairs_add(json_t *out, const json_t *head, const struct report_pair_set *sets,
                     size_t nsets, const struct stats_opts *so, size_t npairs, char *err,
                     size_t errlen)
{
    size_t k = report_pairs_count(nsets);
    struct report_pair *p = calloc(k ? k : 1, sizeof(*p));
    int e = p ? report_pairs_compute(sets, nsets, so, npairs, p, err, errlen) : -ENOMEM;
    for (size_t i = 0; i < k && !e; i++) {
        json_t *o = pair_json(head, sets, &p[i]);
        e = o && !json_array_append_new(out, o) ? 0 : -ENOMEM;
    }
    free(p);
    return e;
}

json_t *report_pairs_correction_json(size_t npairs, double confidence, double family)
{
    return json_pack("{s:s, s:I, s:f, s:f}", "method", "bonferroni", "pairs", (json_int_t)npairs,
                     "family_confidence", family, "comparison_confidence", confidence);
}

void report_pairs_correction(char *b, size_t n, size_t npairs, double confidence, double family)
{
    if (npairs > 1)
        snprintf(b, n,
                 "Bonferroni over the %zu pairs of each cell: every interval (here and in the "
                 "tables above) is at %.4g%% and every p is multiplied by %zu before it is "
                 "held against %g, so that each cell's family of comparisons is at %g%%.",
                 npairs, confidence * 100, npairs, 1 - family, family * 100);
    else
        snprintf(b, n, "One pair: no correction is needed.");
}

/* The change with its interval: on the difference of means or the relative change in %. */
static void change_text(char *b, size_t n, bool diff, double x, double lo, double hi)
{
    if (diff)
        snprintf(b, n, "diff %+.3g [%+.3g, %+.3g]", x, lo, hi);
    else
        snprintf(b, n, "%+.2f%% [%+.2f, %+.2f]", x, lo, hi);
}

void report_pair_change(const json_t *p, char *b, size_t n)
{
    bool diff = !strcmp(json_string_value(json_object_get(p, "decided_on")), "difference");
    const char *k[3] = {"diff", "diff_ci_low", "diff_ci_high"};
    if (!diff) {
        k[0] = "rel_change_pct";
        k[1] = "rel_change_ci_low_pct";
        k[2] = "rel_change_ci_high_pct";
    }
    change_text(b, n, diff, json_real_value(json_object_get(p, k[0])),
                json_real_value(json_object_get(p, k[1])),
                json_real_value(json_object_get(p, k[2])));
}

/*
 * A figure as the lines print it: one the JSON holds as null (not finite)
 * prints as 0, as the lines have always read it back from there.
 */
static double shown(double v)
{
    return isfinite(v) ? v : 0;
}

void report_pair_change_of(const struct report_pair *p, char *b, size_t n)
{
    const struct stats_comparison *x = &p->c;
    if (x->verdict.on_difference)
        change_text(b, n, true, shown(x->diff), shown(x->diff_ci_low), shown(x->diff_ci_high));
    else
        change_text(b, n, false, shown(x->verdict.rel * 100), shown(x->verdict.rel_low * 100),
                    shown(x->verdict.rel_high * 100));
}

/* The line of a compared pair: names, change, p, corrected p and verdict. */
static void line_text(char *b, size_t n, const char *x, const char *y, const char *chg, double p,
                      size_t npairs, double adj, const char *verdict)
{
    snprintf(b, n, "%s -> %s: %s p=%.2g (x%zu: %.2g) %s", x, y, chg, p, npairs > 1 ? npairs : 1,
             adj, verdict);
}

void report_pair_line(const json_t *p, size_t npairs, char *b, size_t n)
{
    const char *x = json_string_value(json_object_get(p, "a"));
    const char *y = json_string_value(json_object_get(p, "b"));
    char chg[128];
    if (json_is_string(json_object_get(p, "not_compared"))) {
        snprintf(b, n, "%s -> %s: not compared: %s", x, y,
                 json_string_value(json_object_get(p, "not_compared")));
        return;
    }
    report_pair_change(p, chg, sizeof(chg));
    line_text(b, n, x, y, chg, json_real_value(json_object_get(p, "welch_p")), npairs,
              json_real_value(json_object_get(p, "p_bonferroni")),
              json_string_value(json_object_get(p, "verdict")));
}

void report_pair_line_of(const struct report_pair *p, const char *a, const char *bname,
                         size_t npairs, char *b, size_t n)
{
    char chg[128];
    if (!p->compared) {
        snprintf(b, n, "%s -> %s: not compared: %s", a, bname, not_compared);
        return;
    }
    report_pair_change_of(p, chg, sizeof(chg));
    line_text(b, n, a, bname, chg, shown(p->c.welch.p), npairs, shown(p->p_bonferroni),
              stats_verdict_name(p->c.verdict.kind));
}

void report_pairs_print_intro(FILE *f, size_t npairs, double confidence, double family)
{
    char intro[512];
    report_pairs_correction(intro, sizeof(intro), npairs, confidence, family);
    fprintf(f, "\nEvery pair, deciding metric: change of the second against the first.\n");
    text_wrap(f, TEXT_WIDTH, "", "  ", intro);
}

void report_pairs_print_line(FILE *f, const json_t *p, size_t npairs)
{
    char line[512];
    report_pair_line(p, npairs, line, sizeof(line));
    text_wrap(f, TEXT_WIDTH, "  ", "      ", line);
}

void report_pairs_print_pair(FILE *f, const struct report_pair *p, const char *a, const char *b,
                             size_t npairs)
{
    char line[512];
    report_pair_line_of(p, a, b, npairs, line, sizeof(line));
    text_wrap(f, TEXT_WIDTH, "  ", "      ", line);
}
