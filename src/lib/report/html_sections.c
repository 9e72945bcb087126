/*
 * Sections of the HTML report (html.c) that walk the model's
 * pairs, effects and headline: each a table whose figures are the strings
 * the text and Markdown formats print.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/sections.h"
#include "report/headline.h"
#include "report/duts.h"
#include "report/effects.h"
#include "report/html.h"
#include "report/matrix.h"
#include "report/fails.h"
#include "report/pairs.h"
#include "statsreport/pairs.h"

#define esc creport_html_esc
#define escf creport_html_escf

/* A verdict's class, as verdict_class() gives it. */
static const char *verdict_kind_class(enum stats_verdict_kind k)
{
    return k == STATS_REGRESSED ? "regressed" : k == STATS_IMPROVED ? "improved" : "neutral";
}

/* One row of the pairs table: cell, first, second, change [CI], p, corrected p, verdict. */
static void print_pair(FILE *f, const struct creport *r, const struct creport_pair *x)
{
    const struct report_pair *p = &x->p;
    const char *c = r->cells[x->c].name;
    fputs("<tr><td>", f);
    esc(f, c[0] ? c : "(all)");
    fputs("</td><td>", f);
    esc(f, r->variants[p->a]);
    fputs("</td><td>", f);
    esc(f, r->variants[p->b]);
    if (!p->compared) {
        fputs("</td><td>not compared</td><td></td><td></td><td></td></tr>\n", f);
        return;
    }
    char chg[128];
    report_pair_change_of(p, chg, sizeof(chg));
    fputs("</td><td>", f);
    esc(f, chg);
    /* A p the JSON holds as null shows as 0, as the Markdown's does. */
    fprintf(f, "</td><td>%.2g</td><td>%.2g</td><td class=\"%s\">",
            isfinite(p->c.welch.p) ? p->c.welch.p : 0,
            isfinite(p->p_bonferroni) ? p->p_bonferroni : 0, verdict_kind_class(p->c.verdict.kind));
    esc(f, stats_verdict_name(p->c.verdict.kind));
    fputs("</td></tr>\n", f);
}

/* --pairs all: every pair of each cell on its deciding metric, worded as in Markdown. */
void creport_html_pairs(FILE *f, const struct creport *r)
{
    char intro[512];
    if (!r->pairs)
        return;
    report_pairs_correction(intro, sizeof(intro), r->npairs, r->opts.confidence,
                            r->family_confidence);
    fputs("<section id=\"pairs\">\n<h2>Every pair (deciding metric)</h2>\n<p id=\"correction\">",
          f);
    esc(f, intro);
    fprintf(f,
            "</p>\n<div class=\"scroll\"><table class=\"pairs\">\n<tr><th scope=\"col\">cell</th>"
            "<th scope=\"col\">first</th><th scope=\"col\">second</th>"
            "<th scope=\"col\">change [CI]</th><th scope=\"col\">p</th>"
            "<th scope=\"col\">p x %zu</th><th scope=\"col\">verdict</th></tr>\n",
            r->npairs > 1 ? r->npairs : 1);
    for (size_t i = 0; i < r->npair_rows; i++)
        print_pair(f, r, &r->pairs[i]);
    fputs("</table></div>\n</section>\n", f);
}

/* One effect of a design as a table row, its numbers as the Markdown prints them. */
static void print_effect(FILE *f, const char *name, const char *key, const struct stats_effect *e)
{
    fprintf(f, "<tr data-effect=\"%s\"><th scope=\"row\">", key);
    esc(f, name);
    struct creport_effect_text t;
    creport_effect_format(e, &t);
    fprintf(f, "</th><td>%s</td><td>%s</td><td>%s</td></tr>\n", t.estimate, t.pct, t.p);
}

/* Design d (number i of r->effects) as a table captioned by its heading. */
static void print_design(FILE *f, const struct creport *r, const struct creport_design *d, size_t i)
{
    char head[512];
    creport_effects_heading(r, d, head, sizeof(head));
    if (!d->computed) {
        fputs("<p><strong>", f);
        esc(f, head);
        fputs("</strong>: ", f);
        escf(f, "Not computed: %s.", CREPORT_EFFECTS_NOT_COMPUTED);
        fputs("</p>\n", f);
        return;
    }
    fprintf(f, "<div class=\"scroll\"><table class=\"effects\" data-design=\"%zu\">\n<caption>", i);
    esc(f, head);
    fputs("</caption>\n<tr><th scope=\"col\">effect</th><th scope=\"col\">estimate [CI]</th>"
          "<th scope=\"col\">% of reference [CI]</th><th scope=\"col\">p</th></tr>\n",
          f);
    print_effect(f, d->a.name, "main_a", &d->fx.a);
    print_effect(f, d->b.name, "main_b", &d->fx.b);
    print_effect(f, "interaction", "interaction", &d->fx.interaction);
    fputs("</table></div>\n", f);
}

/* The 2x2 designs' main effects and interaction, the first CREPORT_EFFECTS_SHOWN. */
void creport_html_effects(FILE *f, const struct creport *r)
{
    char intro[512];
    if (!r->neffects)
        return;
    creport_effects_intro(r, intro, sizeof(intro));
    fputs("<section id=\"effects\">\n<h2>2x2 effects</h2>\n<p>", f);
    esc(f, intro);
    fputs("</p>\n", f);
    for (size_t i = 0; i < r->neffects; i++) {
        if (i == CREPORT_EFFECTS_SHOWN) {
            fprintf(f,
                    "<p>%zu more designs are in the JSON form (<code>--format json</code>).</p>\n",
                    r->neffects - i);
            break;
        }
        print_design(f, r, &r->effects[i], i);
    }
    fputs("</section>\n", f);
}

/* The header row of the headline table of cells sharing c's metrics. */
static void headline_head(FILE *f, const struct creport *r, size_t c)
{
    int d = r->cells[c].decide, k = r->cells[c].cost;
    fputs("<tr><th scope=\"col\">cell</th><th scope=\"col\">variant</th><th scope=\"col\">", f);
    esc(f, r->metrics[d].label);
    fputs("</th><th scope=\"col\">change</th>", f);
    if (k >= 0) {
        fputs("<th scope=\"col\">", f);
        esc(f, r->metrics[k].label);
        fputs("</th><th scope=\"col\">change</th>", f);
    }
    fputs("</tr>\n", f);
}

/* One variant's row; the cell's heading (rowspan over its variants) on the first. */
static void headline_row(FILE *f, const struct creport *r, size_t c, size_t v)
{
    struct creport_hl_row x;
    creport_headline_row(r, c, v, &x);
    fputs("<tr>", f);
    if (!v) {
        char head[96];
        creport_cell_heading(r, c, CREPORT_HEAD_FULL, head, sizeof(head));
        fprintf(f, "<th scope=\"row\" rowspan=\"%zu\">", r->nvariants);
        esc(f, head);
        fputs("</th>", f);
    }
    fputs("<td class=\"v\">", f);
    esc(f, r->variants[v]);
    fputs("</td><td>", f);
    esc(f, x.mean);
    fputs("</td><td>", f);
    esc(f, x.change);
    fputs("</td>", f);
    if (r->cells[c].cost >= 0) {
        fprintf(f, "<td>%s</td><td>", x.cost);
        esc(f, x.cost_change);
        fputs("</td>", f);
    }
    fputs("</tr>\n", f);
}

/* The failed runs of each variant and cell, a list item each (fails.h). */
static void html_fails(FILE *f, const struct creport *r)
{
    if (!creport_any_fails(r))
        return;
    fputs("<h3>Failed runs (not compared as numbers)</h3>\n<ul class=\"fails\">\n", f);
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t v = 0; v < r->nvariants; v++) {
            char why[300];
            creport_fail_text(r, v, c, why, sizeof(why));
            if (!*why)
                continue;
            fputs("<li>", f);
            escf(f, "%s @ %s: %s", r->variants[v], r->cells[c].name[0] ? r->cells[c].name : "(all)",
                 why);
            fputs("</li>\n", f);
        }
    fputs("</ul>\n", f);
}

void creport_html_headline(FILE *f, const struct creport *r)
{
    if (!r->runs.measured && !creport_any_fails(r))
        return;
    fputs("<section id=\"headline\">\n<h2>Headline</h2>\n<p>", f);
    escf(f,
         "Each cell's deciding metric and CPU cost: the mean of the measured runs and the change "
         "of the mean against %s. Marks: * improved, ! regressed, = within noise, ? no "
         "difference proven.",
         r->nvariants ? r->variants[0] : "the baseline");
    fputs("</p>\n", f);
    if (r->nduts)
        creport_print_dutcols_html(f, r);
    if (r->dutcols && r->dutcols->ngroups) {
        fputs("</section>\n", f);
        return;
    }
    bool open = false;
    for (size_t c = 0, c0 = 0; c < r->ncells; c++) {
        if (r->cells[c].decide < 0)
            continue;
        if (!open || !creport_headline_same(r, c0, c)) {
            if (open)
                fputs("</table>\n", f);
            fputs("<table class=\"headline\">\n", f);
            headline_head(f, r, c);
            open = true;
            c0 = c;
        }
        for (size_t v = 0; v < r->nvariants; v++)
            headline_row(f, r, c, v);
    }
    if (open)
        fputs("</table>\n", f);
    html_fails(f, r);
    fputs("</section>\n", f);
}
