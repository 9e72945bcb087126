/*
 * Text and Markdown of the campaign report's list sections: the 2x2
 * effects, every pair (--pairs all) and the counter differences. They
 * print what the model holds (r->effects, r->pairs, r->counter_diffs) and
 * compute nothing.
 */
#include "creport/campaign_report_sections.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "creport/campaign_report_counters.h"
#include "creport/campaign_report_layout.h"
#include "creport/campaign_report_matrix.h"
#include "statsreport/pairs.h"

/* A signed number in few characters: digits follow magnitude, no exponent below 1e7. */
static void signed_text(char *b, size_t n, double v)
{
    double a = fabs(v);
    snprintf(b, n,
             a >= 1e7    ? "%+.2e"
             : a >= 1000 ? "%+.0f"
             : a >= 100  ? "%+.1f"
             : a >= 1    ? "%+.2f"
                         : "%+.3g",
             v);
}

/* A bound of a percentage: one decimal below 100, none above. */
static void pct_text(char *b, size_t n, double v)
{
    snprintf(b, n, fabs(v) < 99.95 ? "%+.1f" : "%+.0f", v);
}

/*
 * The columns of an effect: "+13.9 [+10.7, +17.1]", "+13.8% [+10.7, +17.0]"
 * (or "-" without a reference to be a percentage of) and "p=6e-05".
 */
static void effect_text(const json_t *e, char *est, char *pct, char *p, size_t n)
{
    char lo[24], hi[24], x[24];
    signed_text(x, sizeof(x), json_real_value(json_object_get(e, "estimate")));
    signed_text(lo, sizeof(lo), json_real_value(json_object_get(e, "ci_low")));
    signed_text(hi, sizeof(hi), json_real_value(json_object_get(e, "ci_high")));
    snprintf(est, n, "%s [%s, %s]", x, lo, hi);
    if (json_is_real(json_object_get(e, "pct"))) {
        pct_text(x, sizeof(x), json_real_value(json_object_get(e, "pct")));
        pct_text(lo, sizeof(lo), json_real_value(json_object_get(e, "pct_ci_low")));
        pct_text(hi, sizeof(hi), json_real_value(json_object_get(e, "pct_ci_high")));
        snprintf(pct, n, "%s%% [%s, %s]", x, lo, hi);
    } else {
        snprintf(pct, n, "-");
    }
    snprintf(p, n, "p=%.2g", json_real_value(json_object_get(e, "p")));
}

void creport_effect_format(const json_t *e, struct creport_effect_text *t)
{
    snprintf(t->estimate, sizeof(t->estimate), "%+.4g [%+.4g, %+.4g]",
             json_real_value(json_object_get(e, "estimate")),
             json_real_value(json_object_get(e, "ci_low")),
             json_real_value(json_object_get(e, "ci_high")));
    if (json_is_real(json_object_get(e, "pct")))
        snprintf(t->pct, sizeof(t->pct), "%+.1f%% [%+.1f, %+.1f]",
                 json_real_value(json_object_get(e, "pct")),
                 json_real_value(json_object_get(e, "pct_ci_low")),
                 json_real_value(json_object_get(e, "pct_ci_high")));
    else
        snprintf(t->pct, sizeof(t->pct), "-");
    snprintf(t->p, sizeof(t->p), "%.2g", json_real_value(json_object_get(e, "p")));
}

/* The heading of design d: "variant (big, small) x streams (1, 2), test=udp_stream, loss". */
static void design_heading(const struct creport *r, const json_t *d, char *b, size_t n)
{
    const json_t *fa = json_object_get(d, "factor_a"), *fb = json_object_get(d, "factor_b");
    const json_t *la = json_object_get(fa, "levels"), *lb = json_object_get(fb, "levels");
    const char *slice = json_string_value(json_object_get(d, "slice"));
    const struct creport_metric *md =
        creport_metric_named(r, json_string_value(json_object_get(d, "metric")));
    snprintf(
        b, n, "%s (%s, %s) x %s (%s, %s)%s%s, %s:", json_string_value(json_object_get(fa, "name")),
        json_string_value(json_array_get(la, 0)), json_string_value(json_array_get(la, 1)),
        json_string_value(json_object_get(fb, "name")), json_string_value(json_array_get(lb, 0)),
        json_string_value(json_array_get(lb, 1)), slice && *slice ? ", " : "", slice ? slice : "",
        md ? md->label : json_string_value(json_object_get(d, "metric")));
}

void creport_effects_heading(const struct creport *r, const json_t *d, char *b, size_t n)
{
    design_heading(r, d, b, n);
    size_t len = strlen(b);
    if (len && b[len - 1] == ':')
        b[len - 1] = 0;
}

void creport_effects_intro(const struct creport *r, char *b, size_t n)
{
    snprintf(b, n,
             "Deciding metric, [%g%% CI], Welch standard error and degrees of freedom. Main "
             "effect: the mean over the other factor's levels of the change from a factor's "
             "first level to its second; interaction: (a2b2 - a1b2) - (a2b1 - a1b1); "
             "percentages of the cell where both factors are at their first level.",
             r->opts.confidence * 100);
}

void creport_print_effects_text(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *d;
    if (!json_array_size(r->effects))
        return;
    char intro[512];
    snprintf(intro, sizeof(intro),
             "2x2 effects, deciding metric, [%g%% CI] and p (Welch standard error and "
             "degrees of freedom): a main effect is the mean over the other factor's two "
             "levels of the change from its first level to its second; the interaction is "
             "(a2b2 - a1b2) - (a2b1 - a1b1). Percentages are of the mean of the cell where "
             "both factors are at their first level.",
             r->opts.confidence * 100);
    fputc('\n', f);
    creport_wrap(f, "", "  ", intro);
    json_array_foreach(r->effects, i, d)
    {
        char head[512], line[256];
        if (i == CREPORT_EFFECTS_SHOWN) {
            snprintf(line, sizeof(line), "(%zu more designs in the JSON form, --format json.)",
                     json_array_size(r->effects) - i);
            creport_wrap(f, "", "  ", line);
            break;
        }
        design_heading(r, d, head, sizeof(head));
        creport_wrap(f, "", "    ", head);
        if (json_is_string(json_object_get(d, "not_computed"))) {
            snprintf(line, sizeof(line), "not computed: %s",
                     json_string_value(json_object_get(d, "not_computed")));
            creport_wrap(f, "  ", "    ", line);
            continue;
        }
        static const char *const rows[] = {"main_a", "main_b", "interaction"};
        char est[3][96], pct[3][96], p[3][96];
        size_t we = 0, wp = 0;
        for (int k = 0; k < 3; k++) {
            effect_text(json_object_get(d, rows[k]), est[k], pct[k], p[k], sizeof(est[k]));
            we = strlen(est[k]) > we ? strlen(est[k]) : we;
            wp = strlen(pct[k]) > wp ? strlen(pct[k]) : wp;
        }
        for (int k = 0; k < 3; k++) {
            const char *name = k == 2
                                   ? "interaction"
                                   : json_string_value(json_object_get(
                                         json_object_get(d, k ? "factor_b" : "factor_a"), "name"));
            char full[512];
            snprintf(full, sizeof(full), "%-11.11s  %-*s  %-*s  %s", name, (int)we, est[k], (int)wp,
                     pct[k], p[k]);
            creport_wrap(f, "  ", "      ", full);
        }
    }
}

void creport_print_effects_markdown(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *d;
    if (!json_array_size(r->effects))
        return;
    char intro[512];
    creport_effects_intro(r, intro, sizeof(intro));
    fprintf(f, "\n### 2x2 effects\n\n%s\n", intro);
    json_array_foreach(r->effects, i, d)
    {
        char head[512];
        if (i == CREPORT_EFFECTS_SHOWN) {
            fprintf(f, "\n%zu more designs are in the JSON form (`--format json`).\n",
                    json_array_size(r->effects) - i);
            break;
        }
        creport_effects_heading(r, d, head, sizeof(head));
        fputs("\n**", f);
        creport_md_text(f, head);
        fputs("**\n\n", f);
        if (json_is_string(json_object_get(d, "not_computed"))) {
            fprintf(f, "Not computed: %s.\n",
                    json_string_value(json_object_get(d, "not_computed")));
            continue;
        }
        fputs("| effect | estimate [CI] | % of reference [CI] | p |\n|---|---:|---:|---:|\n", f);
        static const char *const rows[] = {"main_a", "main_b", "interaction"};
        for (int k = 0; k < 3; k++) {
            const json_t *e = json_object_get(d, rows[k]);
            const char *name = k == 2
                                   ? "interaction"
                                   : json_string_value(json_object_get(
                                         json_object_get(d, k ? "factor_b" : "factor_a"), "name"));
            struct creport_effect_text t;
            creport_effect_format(e, &t);
            fputs("| ", f);
            creport_md_text(f, name);
            fprintf(f, " | %s | %s | %s |\n", t.estimate, t.pct, t.p);
        }
    }
}

void creport_print_pairs_text(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *p;
    const char *cell = NULL;
    if (!r->pairs)
        return;
    report_pairs_print_intro(f, r->npairs, r->opts.confidence, r->family_confidence);
    json_array_foreach(r->pairs, i, p)
    {
        const char *c = json_string_value(json_object_get(p, "cell"));
        char line[512];
        if (!cell || strcmp(cell, c)) {
            const struct creport_metric *md =
                creport_metric_named(r, json_string_value(json_object_get(p, "metric")));
            snprintf(line, sizeof(line), "%s, %s:", c[0] ? c : "(all)",
                     md ? md->label : json_string_value(json_object_get(p, "metric")));
            creport_wrap(f, "", "    ", line);
            cell = c;
        }
        report_pairs_print_line(f, p, r->npairs);
    }
}

void creport_print_pairs_markdown(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *p;
    if (!r->pairs)
        return;
    char intro[512];
    report_pairs_correction(intro, sizeof(intro), r->npairs, r->opts.confidence,
                            r->family_confidence);
    fprintf(f,
            "\n### Every pair (deciding metric)\n\n%s\n\n| cell | first | second | change "
            "[CI] | p | p x %zu | verdict |\n|---|---|---|---:|---:|---:|---|\n",
            intro, r->npairs > 1 ? r->npairs : 1);
    json_array_foreach(r->pairs, i, p)
    {
        char chg[128] = "-";
        bool cmp = !json_is_string(json_object_get(p, "not_compared"));
        if (cmp)
            report_pair_change(p, chg, sizeof(chg));
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

/*
 * One difference, within the report's 72 columns: on one line when it fits,
 * else the variant and cell on a line of their own and the figure below.
 */
static void print_one(FILE *f, const struct creport_counter_diff *d)
{
    const char *cell = d->cell;
    const char *fig = d->figure + 4; /* no "end." */
    char who[160], what[160];
    snprintf(who, sizeof(who), "%.60s%s%.60s", d->variant, cell && *cell ? " @ " : "",
             cell ? cell : "");
    int n = snprintf(what, sizeof(what), "%s: %.4g -> %.4g", fig, d->baseline, d->value);
    if (d->has_change_pct && n > 0 && (size_t)n < sizeof(what))
        snprintf(what + n, sizeof(what) - (size_t)n, " (%+.1f%%)", d->change_pct);
    if (2 + strlen(who) + 2 + strlen(what) <= 72)
        fprintf(f, "  %s: %s\n", who, what);
    else
        fprintf(f, "  %.68s:\n    %s\n", who, what);
}

void creport_print_counter_list(FILE *f, const struct creport *r,
                                const struct creport_counter_diff *list, size_t n,
                                const char *where)
{
    if (!n)
        return;
    char head[256];
    snprintf(head, sizeof(head),
             "Counter differences from %.30s (medians, over %g%% apart%s%s):", r->variants[0],
             CREPORT_COUNTER_DIFF * 100, where ? ", " : "", where ? where : "");
    creport_wrap(f, "", "  ", head);
    for (size_t i = 0; i < n; i++)
        print_one(f, &list[i]);
}

void creport_print_counters(FILE *f, const struct creport *r)
{
    creport_print_counter_list(f, r, r->counter_diffs, r->ncounter_diffs, NULL);
}
