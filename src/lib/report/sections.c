/*
 * Text and Markdown of the campaign report's list sections: the 2x2
 * effects, every pair (--pairs all) and the counter differences. They
 * print what the model holds (r->effects, r->pairs, r->counter_diffs) and
 * compute nothing.
 */
#include "report/sections.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/counters.h"
#include "report/effects.h"
#include "report/tables.h"
#include "report/matrix.h"
#include "report/pairs.h"
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
 * A figure of an effect as the printers show it: one the JSON holds as null
 * (not finite) shows as 0, as it always has when read back from there.
 */
static double shown(double v)
{
    return isfinite(v) ? v : 0;
}

/*
 * The columns of an effect: "+13.9 [+10.7, +17.1]", "+13.8% [+10.7, +17.0]"
 * (or "-" without a reference to be a percentage of) and "p=6e-05".
 */
static void effect_text(const struct stats_effect *e, char *est, char *pct, char *p, size_t n)
{
    char lo[24], hi[24], x[24];
    signed_text(x, sizeof(x), shown(e->estimate));
    signed_text(lo, sizeof(lo), shown(e->ci_low));
    signed_text(hi, sizeof(hi), shown(e->ci_high));
    snprintf(est, n, "%s [%s, %s]", x, lo, hi);
    if (isfinite(e->pct)) {
        pct_text(x, sizeof(x), e->pct);
        pct_text(lo, sizeof(lo), shown(e->pct_low));
        pct_text(hi, sizeof(hi), shown(e->pct_high));
        snprintf(pct, n, "%s%% [%s, %s]", x, lo, hi);
    } else {
        snprintf(pct, n, "-");
    }
    snprintf(p, n, "p=%.2g", shown(e->p));
}

void creport_effect_format(const struct stats_effect *e, struct creport_effect_text *t)
{
    snprintf(t->estimate, sizeof(t->estimate), "%+.4g [%+.4g, %+.4g]", shown(e->estimate),
             shown(e->ci_low), shown(e->ci_high));
    if (isfinite(e->pct))
        snprintf(t->pct, sizeof(t->pct), "%+.1f%% [%+.1f, %+.1f]", e->pct, shown(e->pct_low),
                 shown(e->pct_high));
    else
        snprintf(t->pct, sizeof(t->pct), "-");
    snprintf(t->p, sizeof(t->p), "%.2g", shown(e->p));
}

/* The heading of design d: "variant (big, small) x streams (1, 2), test=udp_stream, loss". */
static void design_heading(const struct creport *r, const struct creport_design *d, char *b,
                           size_t n)
{
    snprintf(b, n, "%s (%s, %s) x %s (%s, %s)%s%s, %s:", d->a.name, d->a.levels[0], d->a.levels[1],
             d->b.name, d->b.levels[0], d->b.levels[1], *d->slice ? ", " : "", d->slice,
             r->metrics[d->m].label);
}

void creport_effects_heading(const struct creport *r, const struct creport_design *d, char *b,
                             size_t n)
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
    if (!r->neffects)
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
    for (size_t i = 0; i < r->neffects; i++) {
        const struct creport_design *d = &r->effects[i];
        char head[512], line[256];
        if (i == CREPORT_EFFECTS_SHOWN) {
            snprintf(line, sizeof(line), "(%zu more designs in the JSON form, --format json.)",
                     r->neffects - i);
            creport_wrap(f, "", "  ", line);
            break;
        }
        design_heading(r, d, head, sizeof(head));
        creport_wrap(f, "", "    ", head);
        if (!d->computed) {
            snprintf(line, sizeof(line), "not computed: %s", CREPORT_EFFECTS_NOT_COMPUTED);
            creport_wrap(f, "  ", "    ", line);
            continue;
        }
        const struct stats_effect *rows[] = {&d->fx.a, &d->fx.b, &d->fx.interaction};
        char est[3][96], pct[3][96], p[3][96];
        size_t we = 0, wp = 0;
        for (int k = 0; k < 3; k++) {
            effect_text(rows[k], est[k], pct[k], p[k], sizeof(est[k]));
            we = strlen(est[k]) > we ? strlen(est[k]) : we;
            wp = strlen(pct[k]) > wp ? strlen(pct[k]) : wp;
        }
        for (int k = 0; k < 3; k++) {
            const char *name = k == 2 ? "interaction" : k ? d->b.name : d->a.name;
            char full[512];
            snprintf(full, sizeof(full), "%-11.11s  %-*s  %-*s  %s", name, (int)we, est[k], (int)wp,
                     pct[k], p[k]);
            creport_wrap(f, "  ", "      ", full);
        }
    }
}

void creport_print_effects_markdown(FILE *f, const struct creport *r)
{
    if (!r->neffects)
        return;
    char intro[512];
    creport_effects_intro(r, intro, sizeof(intro));
    fprintf(f, "\n### 2x2 effects\n\n%s\n", intro);
    for (size_t i = 0; i < r->neffects; i++) {
        const struct creport_design *d = &r->effects[i];
        char head[512];
        if (i == CREPORT_EFFECTS_SHOWN) {
            fprintf(f, "\n%zu more designs are in the JSON form (`--format json`).\n",
                    r->neffects - i);
            break;
        }
        creport_effects_heading(r, d, head, sizeof(head));
        fputs("\n**", f);
        creport_md_text(f, head);
        fputs("**\n\n", f);
        if (!d->computed) {
            fprintf(f, "Not computed: %s.\n", CREPORT_EFFECTS_NOT_COMPUTED);
            continue;
        }
        fputs("| effect | estimate [CI] | % of reference [CI] | p |\n|---|---:|---:|---:|\n", f);
        const struct stats_effect *rows[] = {&d->fx.a, &d->fx.b, &d->fx.interaction};
        for (int k = 0; k < 3; k++) {
            const char *name = k == 2 ? "interaction" : k ? d->b.name : d->a.name;
            struct creport_effect_text t;
            creport_effect_format(rows[k], &t);
            fputs("| ", f);
            creport_md_text(f, name);
            fprintf(f, " | %s | %s | %s |\n", t.estimate, t.pct, t.p);
        }
    }
}

/* The display name of cell c: "(all)" for a report without cells' names. */
static const char *cell_name(const struct creport *r, size_t c)
{
    return r->cells[c].name[0] ? r->cells[c].name : "(all)";
}

void creport_print_pairs_text(FILE *f, const struct creport *r)
{
    if (!r->pairs)
        return;
    report_pairs_print_intro(f, r->npairs, r->opts.confidence, r->family_confidence);
    for (size_t i = 0; i < r->npair_rows; i++) {
        const struct creport_pair *p = &r->pairs[i];
        char line[512];
        if (!i || strcmp(r->cells[p->c].name, r->cells[p[-1].c].name)) {
            snprintf(line, sizeof(line), "%s, %s:", cell_name(r, p->c), r->metrics[p->m].label);
            creport_wrap(f, "", "    ", line);
        }
        report_pairs_print_pair(f, &p->p, r->variants[p->p.a], r->variants[p->p.b], r->npairs);
    }
}

void creport_print_pairs_markdown(FILE *f, const struct creport *r)
{
    if (!r->pairs)
        return;
    char intro[512];
    report_pairs_correction(intro, sizeof(intro), r->npairs, r->opts.confidence,
                            r->family_confidence);
    fprintf(f,
            "\n### Every pair (deciding metric)\n\n%s\n\n| cell | first | second | change "
            "[CI] | p | p x %zu | verdict |\n|---|---|---|---:|---:|---:|---|\n",
            intro, r->npairs > 1 ? r->npairs : 1);
    for (size_t i = 0; i < r->npair_rows; i++) {
        const struct report_pair *p = &r->pairs[i].p;
        char chg[128] = "-";
        if (p->compared)
            report_pair_change_of(p, chg, sizeof(chg));
        fputs("| ", f);
        creport_md_text(f, cell_name(r, r->pairs[i].c));
        fputs(" | ", f);
        creport_md_text(f, r->variants[p->a]);
        fputs(" | ", f);
        creport_md_text(f, r->variants[p->b]);
        if (p->compared)
            fprintf(f, " | %s | %.2g | %.2g | %s |\n", chg,
                    isfinite(p->c.welch.p) ? p->c.welch.p : 0,
                    isfinite(p->p_bonferroni) ? p->p_bonferroni : 0,
                    stats_verdict_name(p->c.verdict.kind));
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
