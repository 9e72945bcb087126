/*
 * The HTML report (`netab report --format html`): one self-contained file,
 * inline CSS and SVG, no script and no external reference, readable on a
 * phone and printed. Sections link to each other through the contents.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/html.h"
#include "report/celltable.h"
#include "report/env.h"
#include "report/tables.h"
#include "report/plot.h"
#include "report/svg.h"
#include "util/redact.h"

static const char css[] =
    "body{font-family:'DejaVu Sans',Verdana,sans-serif;margin:0 auto;max-width:62em;"
    "padding:0 1em;color:#111;background:#fff;line-height:1.4}\n"
    "h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #999;margin-top:1.6em}\n"
    "nav ol{columns:2;margin:0}\n"
    "table{border-collapse:collapse;margin:.5em 0}\n"
    "th,td{border:1px solid #bbb;padding:.2em .5em;text-align:right;vertical-align:top}\n"
    "th:first-child,td:first-child,td.v{text-align:left}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    "figure{margin:1em 0;break-inside:avoid}\n"
    "figure svg{max-width:100%;height:auto;display:block}\n"
    "figcaption{font-size:.9em;color:#333}\n"
    ".regressed{color:#a33c00;font-weight:bold}.improved{color:#00664a;font-weight:bold}\n"
    "code,pre{font-family:'DejaVu Sans Mono',monospace;font-size:.9em}\n"
    "pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.4em}\n"
    "@media (max-width:40em){body{padding:0 .4em}nav ol{columns:1}}\n"
    "@media print{nav{display:none}a{color:inherit;text-decoration:none}"
    "h2{break-after:avoid}}\n";

/* s with &, <, >, " escaped, and control bytes from outside text shown as \xNN. */
void creport_html_esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            /* An imported name's ESC or BEL is no character of a page: shown, not kept. */
            if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
                fprintf(f, "\\x%02x", (unsigned char)*s);
            else
                fputc(*s, f);
        }
    }
}

/* printf, escaped. */
void creport_html_escf(FILE *f, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    creport_html_esc(f, buf);
}

#define esc creport_html_esc
#define escf creport_html_escf

/* The most cell columns a means table has before it turns its cells into rows. */
#define HTML_MAX_COLUMNS 6

/*
 * A cell's name, escaped, with a line break allowed after each ',':
 * "test=tcp_stream,streams=1" would otherwise be one unbreakable word, and
 * a few of them side by side pushed tables past 1280 px.
 */
static void esc_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        char c[2] = {*s, 0};
        esc(f, c);
        if (*s == ',')
            fputs("<wbr>", f);
    }
}

static const char *cell_name(const struct creport *r, size_t c)
{
    return r->cells[c].name[0] ? r->cells[c].name : "default";
}

static const char *verdict_class(enum stats_verdict_kind k)
{
    return k == STATS_REGRESSED ? "regressed" : k == STATS_IMPROVED ? "improved" : "neutral";
}

/* The baseline's name for headings: --baseline moves it to variants[0]. */
static const char *baseline(const struct creport *r)
{
    return r->nvariants ? r->variants[0] : "none";
}

/*
 * The sections the page shows: every one by default (the page has no short
 * form), else those of --sections. The figures go with the tables, the
 * commands to reproduce with the runs; the summary is always shown.
 */
static unsigned html_sections(const struct creport *r)
{
    return r->opts.sections ? r->opts.sections : CREPORT_SEC_ALL;
}

static void print_head(FILE *f, const struct creport *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    escf(f, "netab report: experiment %lld %s", (long long)r->id, r->name);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
    escf(f, "netab report: experiment %lld \"%s\"", (long long)r->id, r->name);
    fputs("</h1>\n<nav aria-label=\"contents\"><ol>\n"
          "<li><a href=\"#summary\">Summary</a></li>\n",
          f);
    /* Only sections the page has, so that every link finds its anchor. */
    unsigned s = html_sections(r);
    if (s & CREPORT_SEC_HEADLINE)
        fputs("<li><a href=\"#headline\">Headline</a></li>\n", f);
    if (r->celltab && (s & CREPORT_SEC_HEADLINE))
        fputs("<li><a href=\"#cells\">Cell table</a></li>\n", f);
    if (s & CREPORT_SEC_TABLES)
        fputs("<li><a href=\"#tables\">Means per variant and cell</a></li>\n", f);
    if (s & CREPORT_SEC_CHANGES) {
        fputs("<li><a href=\"#changes\">", f);
        escf(f, "Changes against the baseline, %s", baseline(r));
        fputs("</a></li>\n", f);
    }
    if (r->pairs && (s & CREPORT_SEC_PAIRS))
        fputs("<li><a href=\"#pairs\">Every pair (deciding metric)</a></li>\n", f);
    if (r->neffects && (s & CREPORT_SEC_EFFECTS))
        fputs("<li><a href=\"#effects\">2x2 effects</a></li>\n", f);
    static const struct {
        unsigned bit;
        const char *link;
    } rest[] = {
        {CREPORT_SEC_TABLES, "<li><a href=\"#figures\">Figures</a></li>\n"},
        {CREPORT_SEC_VALUES, "<li><a href=\"#values\">Sorted values</a></li>\n"},
        {CREPORT_SEC_ENVIRONMENT,
         "<li><a href=\"#environment\">Environment and its differences</a></li>\n"},
        {CREPORT_SEC_WARNINGS, "<li><a href=\"#warnings\">Warnings</a></li>\n"},
        {CREPORT_SEC_RUNS, "<li><a href=\"#reproduce\">Commands to reproduce</a></li>\n"},
    };
    for (size_t i = 0; i < sizeof(rest) / sizeof(*rest); i++)
        if (s & rest[i].bit)
            fputs(rest[i].link, f);
    fputs("</ol></nav>\n", f);
}

static void print_summary(FILE *f, const struct creport *r)
{
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<p>", f);
    escf(f, "Status %s, seed %llu. Variants: ", r->status, (unsigned long long)r->seed);
    for (size_t v = 0; v < r->nvariants; v++) {
        esc(f, r->variants[v]);
        fputs(v ? (v + 1 < r->nvariants ? ", " : ".") : " (baseline)", f);
        if (!v && r->nvariants > 1)
            fputs(", ", f);
    }
    fputs("</p>\n<p>", f);
    const struct creport_run_counts *n = &r->runs;
    fprintf(f,
            "Runs: %ld planned, %ld measured, %ld warm-ups excluded; %ld failed, %ld "
            "interrupted.</p>\n<p>Verdicts: %zu improved, %zu regressed, %zu within noise, "
            "%zu no difference proven, %zu not compared.</p>\n",
            n->planned, n->measured, n->warmup, n->failed, n->interrupted, r->n_improved,
            r->n_regressed, r->n_within, r->n_unproven, r->n_nocmp);
    if (r->exit_status == 2) {
        fputs("<p class=\"regressed\" id=\"verdict\">NO VERDICT: ", f);
        creport_html_esc(f, r->exit_reason);
        fputs(" (exit status 2).</p>\n", f);
    } else if (r->n_regressed_deciding)
        fprintf(f,
                "<p class=\"regressed\" id=\"verdict\">REGRESSION: %zu deciding-metric "
                "comparison%s regressed (exit status 1).%s</p>\n",
                r->n_regressed_deciding, r->n_regressed_deciding == 1 ? "" : "s",
                html_sections(r) & CREPORT_SEC_CHANGES
                    ? " See <a href=\"#changes\">the changes</a>."
                    : "");
    else
        fputs("<p id=\"verdict\">No deciding metric regressed (exit status 0).</p>\n", f);
    fputs("</section>\n", f);
}

struct fig_ctx {
    FILE *f;
    size_t n;
    struct creport_svg_glyphs glyphs; /* defined by the page's figures so far */
};

/* One figure as inline SVG with its caption; ids get a per-figure prefix. */
static int print_figure(void *arg, const struct creport_figure *fig, plot_draw_fn draw,
                        const void *data)
{
    struct fig_ctx *x = arg;
    char idp[32], *svg;
    size_t len;
    snprintf(idp, sizeof(idp), "f%zu-", x->n++);
    int e = plot_svg_string(fig->width, fig->height, draw, data, idp, &svg, &len);
    if (e)
        return e;
    fprintf(x->f, "<figure id=\"fig-%s\" data-kind=\"%s\" data-points=\"%zu\">\n", fig->name,
            fig->kind, fig->npoints);
    /* The root element gets its role and a text alternative, the caption. */
    const char *open = strstr(svg, "<svg");
    size_t at = open ? (size_t)(open - svg) + 4 : 0;
    fwrite(svg, 1, at, x->f);
    if (open) {
        fputs(" role=\"img\" aria-label=\"", x->f);
        esc(x->f, fig->caption);
        fputc('"', x->f);
    }
    e = creport_svg_write(x->f, svg + at, len - at, &x->glyphs);
    free(svg);
    if (e)
        return e;
    fputs("<figcaption>", x->f);
    esc(x->f, fig->caption);
    fputs(" <a href=\"#summary\">Back to the summary</a>.</figcaption>\n</figure>\n", x->f);
    return 0;
}

static int print_figures(FILE *f, const struct creport *r)
{
    fputs("<section id=\"figures\">\n<h2>Figures</h2>\n", f);
    struct fig_ctx x = {f, 0, {0}};
    int e = creport_figures(r, print_figure, &x);
    creport_svg_glyphs_free(&x.glyphs);
    if (!x.n)
        fputs("<p>No cell has measured runs of a deciding metric yet.</p>\n", f);
    fputs("</section>\n", f);
    return e;
}

/*
 * One entry of a means table: variant v in cell c on metric m, the mean
 * and its change as the text table shows them, with the verdict in words.
 */
static void print_entry(FILE *f, const struct creport *r, size_t v, size_t c, size_t m)
{
    const struct creport_entry *en = creport_at(r, v, c, m);
    char mean[32], chg[40];
    if (!en->shown || en->n == 0) {
        fputs("<td>-</td>", f);
        return;
    }
    creport_fmt_num(mean, sizeof(mean), en->mean);
    fprintf(f, "<td>%s (n = %zu)", mean, en->n);
    if (en->has_cmp && en->chg.kind != CREPORT_CHANGE_NONE) {
        creport_fmt_change(chg, sizeof(chg), &en->chg, 1);
        fprintf(f, "<br><span class=\"%s\">%s %s</span>", verdict_class(en->cmp.verdict.kind), chg,
                stats_verdict_name(en->cmp.verdict.kind));
    } else if (v) {
        fputs("<br>", f);
        escf(f, "not compared: %s", en->why);
    }
    fputs("</td>", f);
}

/*
 * The mean of each variant, metric m in each cell, with its change and
 * verdict: variants as rows and cells as columns, or with --transpose the
 * other way round, as in the text and Markdown tables.
 */
static void print_metric_table(FILE *f, const struct creport *r, size_t m)
{
    const struct creport_metric *md = &creport_report_metrics(r, &(size_t){0})[m];
    /* More cells than fit 1280 px side by side: as rows, unless the variants are as many. */
    bool tr = r->opts.transpose || (r->ncells > HTML_MAX_COLUMNS && r->nvariants < r->ncells);
    size_t nrows = tr ? r->ncells : r->nvariants, ncols = tr ? r->nvariants : r->ncells;
    fputs("<div class=\"scroll\"><table class=\"means\" data-metric=\"", f);
    esc(f, md->name);
    fputs("\">\n<caption>", f);
    escf(f, "%s, %s (%s is better): mean of the measured runs; changes against %s", md->title,
         md->unit, md->lower_is_better ? "lower" : "higher", baseline(r));
    fprintf(f, "</caption>\n<tr><th scope=\"col\">%s</th>", tr ? "cell" : "variant");
    for (size_t j = 0; j < ncols; j++) {
        fputs("<th scope=\"col\">", f);
        if (tr)
            esc(f, r->variants[j]);
        else
            esc_cell(f, cell_name(r, j));
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < nrows; i++) {
        fputs("<tr><th scope=\"row\">", f);
        if (tr)
            esc_cell(f, cell_name(r, i));
        else
            esc(f, r->variants[i]);
        fputs("</th>", f);
        for (size_t j = 0; j < ncols; j++)
            print_entry(f, r, tr ? j : i, tr ? i : j, m);
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

static void print_tables(FILE *f, const struct creport *r)
{
    fputs("<section id=\"tables\">\n<h2>Means per variant and cell</h2>\n", f);
    for (size_t i = 0; i < r->norder; i++) {
        bool any = false;
        for (size_t c = 0; c < r->ncells; c++)
            any |= creport_at(r, 0, c, r->order[i])->shown;
        if (any)
            print_metric_table(f, r, r->order[i]);
    }
    fputs("</section>\n", f);
}

/* Every comparison: change of the mean, its interval, Welch p and the verdict. */
static void print_changes(FILE *f, const struct creport *r)
{
    const struct creport_metric *mt = creport_report_metrics(r, &(size_t){0});
    fputs("<section id=\"changes\">\n<h2>", f);
    escf(f, "Changes against the baseline, %s", baseline(r));
    fputs("</h2>\n", f);
    fprintf(f,
            "<p>Mean change with its %g%% interval, Welch's p and the verdict against the "
            "%g%% noise floor; the deciding metric of each cell is marked.</p>\n",
            100 * r->opts.confidence, 100 * r->opts.noise);
    fputs("<div class=\"scroll\"><table>\n<tr><th scope=\"col\">variant @ cell</th>"
          "<th scope=\"col\">metric</th><th scope=\"col\">change</th>"
          "<th scope=\"col\">interval</th><th scope=\"col\">p</th>"
          "<th scope=\"col\">verdict</th></tr>\n",
          f);
    for (size_t c = 0; c < r->ncells; c++)
        for (size_t v = 1; v < r->nvariants; v++)
            for (size_t i = 0; i < r->norder; i++) {
                size_t m = r->order[i];
                const struct creport_entry *en = creport_at(r, v, c, m);
                if (!en->shown)
                    continue;
                fputs("<tr><td>", f);
                escf(f, "%s @ ", r->variants[v]);
                esc_cell(f, cell_name(r, c));
                fputs("</td><td>", f);
                escf(f, "%s%s", mt[m].label, (int)m == r->cells[c].decide ? " (deciding)" : "");
                if (!en->has_cmp) {
                    fputs("</td><td colspan=\"4\">", f);
                    escf(f, "not compared: %s", en->why);
                    fputs("</td></tr>\n", f);
                    continue;
                }
                const struct stats_verdict *vd = &en->cmp.verdict;
                char chg[40], ci[80];
                creport_fmt_change(chg, sizeof(chg), &en->chg, 2);
                creport_fmt_change_ci(ci, sizeof(ci), &en->chg, 2);
                fprintf(
                    f,
                    "</td><td>%s%s</td><td>%s%s</td><td>%.2g</td><td class=\"%s\">%s</td></tr>\n",
                    en->chg.kind == CREPORT_CHANGE_DIFF ? "diff " : "", chg, ci,
                    en->chg.kind == CREPORT_CHANGE_DIFF ? " (baseline reaches 0)" : "",
                    en->cmp.welch.p, verdict_class(vd->kind), stats_verdict_name(vd->kind));
            }
    fputs("</table></div>\n</section>\n", f);
}

/* The deciding metric's values of each cell, sorted, one column per variant. */
static int print_values(FILE *f, const struct creport *r)
{
    const struct creport_metric *mt = creport_report_metrics(r, &(size_t){0});
    fputs("<section id=\"values\">\n<h2>Sorted values</h2>\n", f);
    for (size_t c = 0; c < r->ncells; c++) {
        int m = r->cells[c].decide;
        if (m < 0)
            continue;
        size_t rows = 0;
        char x[32];
        for (size_t v = 0; v < r->nvariants; v++)
            if (creport_at(r, v, c, (size_t)m)->n > rows)
                rows = creport_at(r, v, c, (size_t)m)->n;
        fputs("<div class=\"scroll\"><table class=\"sorted\">\n<caption>", f);
        escf(f, "%s (%s) in %s, every measured run, ascending", mt[m].title, mt[m].unit,
             cell_name(r, c));
        fputs("</caption>\n<tr><th scope=\"col\">#</th>", f);
        for (size_t v = 0; v < r->nvariants; v++) {
            fputs("<th scope=\"col\">", f);
            esc(f, r->variants[v]);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
        for (size_t i = 0; i < rows; i++) {
            fprintf(f, "<tr><td>%zu</td>", i + 1);
            for (size_t v = 0; v < r->nvariants; v++) {
                const struct creport_entry *en = creport_at(r, v, c, (size_t)m);
                if (i < en->n)
                    creport_fmt_value(x, sizeof(x), en->sorted[i]);
                fprintf(f, "<td>%s</td>", i < en->n ? x : "");
            }
            fputs("</tr>\n", f);
        }
        fputs("</table></div>\n", f);
    }
    fputs("</section>\n", f);
    return 0;
}

/* A JSON value as compact text, escaped. */
static void print_environment(FILE *f, const struct creport *r)
{
    fputs("<section id=\"environment\">\n<h2>Environment and its differences</h2>\n", f);
    if (!r->nenv_diffs)
        fputs("<p>Every variant's first measured run had the baseline's environment, as far "
              "as netab captures it (or nothing was captured).</p>\n",
              f);
    for (size_t i = 0; i < r->nenv_diffs; i++) {
        const struct creport_env_diff *d = &r->env_diffs[i];
        fputs("<div class=\"scroll\"><table>\n<caption>", f);
        escf(f, "%s (run %lld) against %s (run %lld): %zu difference%s", d->variant,
             (long long)d->run, d->against, (long long)d->baseline_run, d->ndifferences,
             d->ndifferences == 1 ? "" : "s");
        fputs("</caption>\n<tr><th scope=\"col\">fact</th><th scope=\"col\">baseline</th>"
              "<th scope=\"col\">variant</th></tr>\n",
              f);
        for (size_t k = 0; k < d->ndifferences; k++) {
            fputs("<tr><td><code>", f);
            esc(f, d->differences[k].path);
            fputs("</code></td><td>", f);
            esc(f, d->differences[k].baseline.shown);
            fputs("</td><td>", f);
            esc(f, d->differences[k].variant.shown);
            fputs("</td></tr>\n", f);
        }
        fputs("</table></div>\n", f);
        for (size_t k = 0; k < d->nidentity_notes; k++) {
            fputs("<p><strong>", f);
            esc(f, d->identity_notes[k]);
            fputs("</strong></p>\n", f);
        }
    }
    fputs("</section>\n", f);
}

static void print_warnings(FILE *f, const struct creport *r)
{
    size_t i;
    fputs("<section id=\"warnings\">\n<h2>Warnings</h2>\n", f);
    if (!r->nenv_warnings && !r->nstats_warnings)
        fputs("<p>None.</p>\n", f);
    if (r->nenv_warnings) {
        fputs("<h3>About the machine, while the runs ran</h3>\n<ul>\n", f);
        for (i = 0; i < r->nenv_warnings; i++) {
            fputs("<li>", f);
            esc(f, r->env_warnings[i]);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    if (r->nstats_warnings) {
        /* One sentence per kind first, as the text says it; every set's warning on request. */
        fputs("<h3>About the numbers</h3>\n<ul class=\"warning-summary\">\n", f);
        for (i = 0; i < r->nwarning_summary; i++) {
            if (i < r->nenv_warnings)
                continue; /* listed above */
            fputs("<li>", f);
            esc(f, r->warning_summary[i]);
            fputs("</li>\n", f);
        }
        fprintf(f, "</ul>\n<details><summary>Every warning (%zu)</summary>\n<ul>\n",
                r->nstats_warnings);
        for (i = 0; i < r->nstats_warnings; i++) {
            const struct creport_stats_warning *x = &r->stats_warnings[i];
            fputs("<li>", f);
            escf(f, "%s @ %s, %s: %s", x->variant, x->cell, x->metric, x->message);
            fputs("</li>\n", f);
        }
        fputs("</ul>\n</details>\n", f);
    }
    fputs("</section>\n", f);
}

static void print_reproduce(FILE *f, const struct creport *r, const char *const *cmd)
{
    fputs("<section id=\"reproduce\">\n<h2>Commands to reproduce</h2>\n", f);
    fputs("<p>This report:</p>\n<pre>", f);
    /* What was asked, as it was asked; a --db URL's password never reaches the page. */
    char id[24];
    snprintf(id, sizeof(id), "%lld", (long long)r->id);
    const char *const fallback[] = {"report", id, "--format", "html", NULL};
    const char *const *words = cmd ? cmd : fallback;
    size_t n = 0;
    while (words[n])
        n++;
    char *line = redact_command(words, n);
    fputs("netab ", f);
    esc(f, line ? line : "report");
    fputs(" &gt; report.html", f);
    free(line);
    fputs("</pre>\n<p>Each variant's measured runs ran this command (its first run shown; the "
          "experiment file is kept in the store with the plan):</p>\n",
          f);
    for (size_t v = 0; v < r->nvariants; v++) {
        fputs("<p>", f);
        esc(f, r->variants[v]);
        fputs(":</p>\n<pre>", f);
        /* The model holds it redacted (place.c). */
        esc(f, r->commands && r->commands[v] ? r->commands[v] : "(no measured run)");
        fputs("</pre>\n", f);
    }
    fputs("</section>\n", f);
}

int creport_print_html(const struct creport *r, const char *const *cmd, FILE *f)
{
    print_head(f, r);
    fputs("<main>\n", f);
    /* What a reader needs first, the numbers; the figures that explain them after. */
    unsigned s = html_sections(r);
    print_summary(f, r);
    if (s & CREPORT_SEC_HEADLINE) {
        creport_html_headline(f, r);
        creport_print_celltable_html(f, r);
    }
    if (s & CREPORT_SEC_TABLES)
        print_tables(f, r);
    if (s & CREPORT_SEC_CHANGES)
        print_changes(f, r);
    if (s & CREPORT_SEC_PAIRS)
        creport_html_pairs(f, r);
    if (s & CREPORT_SEC_EFFECTS)
        creport_html_effects(f, r);
    if (s & CREPORT_SEC_PROFILE)
        creport_html_profile(f, r);
    int e = s & CREPORT_SEC_TABLES ? print_figures(f, r) : 0;
    if (!e && (s & CREPORT_SEC_VALUES))
        e = print_values(f, r);
    if (!e && (s & CREPORT_SEC_ENVIRONMENT))
        print_environment(f, r);
    if (!e && (s & CREPORT_SEC_WARNINGS))
        print_warnings(f, r);
    if (!e && (s & CREPORT_SEC_RUNS))
        print_reproduce(f, r, cmd);
    fprintf(f, "</main>\n<footer><p>Written by netab %s.</p></footer>\n</body>\n</html>\n",
            NETAB_VERSION);
    if (e)
        return e;
    return ferror(f) ? -EIO : 0;
}
