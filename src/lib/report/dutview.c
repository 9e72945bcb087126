/*
 * The DUT columns of the headline in every format (duts.h):
 * rows are the variants, columns the DUTs, each entry the deciding metric's
 * mean and its change against the baseline with the verdict mark, the very
 * strings of creport_headline_row(). Computes nothing.
 */
#include <stdio.h>
#include <string.h>

#include "report/duts.h"
#include "report/headline.h"
#include "report/html.h"
#include "report/tables.h"

#define ENTRY_MAX 96

/* Variant v's entry in column k of g: "9412.3 +0.7% *", "-" where there is none. */
static void entry(const struct creport *r, const struct creport_dutgroup *g, size_t k, size_t v,
                  char *b, size_t n)
{
    long c = g->cells[k];
    if (c < 0 || r->cells[c].decide < 0) {
        snprintf(b, n, "-");
        return;
    }
    struct creport_hl_row x;
    creport_headline_row(r, (size_t)c, v, &x);
    snprintf(b, n, "%s%s%s", x.mean, *x.change ? " " : "", x.change);
}

void creport_print_dutcols_text(FILE *f, const struct creport *r)
{
    const struct creport_dutcols *d = r->dutcols;
    char b[ENTRY_MAX], s[512];
    creport_duts_sentence(r, s, sizeof(s));
    if (*s)
        creport_wrap(f, "", "  ", s);
    for (size_t i = 0; d && i < d->ngroups; i++) {
        const struct creport_dutgroup *g = &d->groups[i];
        long c0 = g->first;
        if (c0 < 0)
            continue;
        fprintf(f, "\nBy DUT%s%s (%s, change against %s):\n", *g->heading ? ", " : "", g->heading,
                r->metrics[r->cells[c0].decide].label, r->variants[0]);
        /* Columns as wide as their widest entry: a DUT's figures stay under its name. */
        size_t vw = strlen("variant"), w[64] = {0};
        for (size_t v = 0; v < r->nvariants; v++)
            vw = strlen(r->variants[v]) > vw ? strlen(r->variants[v]) : vw;
        for (size_t k = 0; k < d->ncols && k < 64; k++) {
            w[k] = strlen(d->cols[k]);
            for (size_t v = 0; v < r->nvariants; v++) {
                entry(r, g, k, v, b, sizeof(b));
                w[k] = strlen(b) > w[k] ? strlen(b) : w[k];
            }
        }
        fprintf(f, "%-*s", (int)vw, "variant");
        for (size_t k = 0; k < d->ncols && k < 64; k++)
            fprintf(f, "  %-*s", k + 1 < d->ncols ? (int)w[k] : 0, d->cols[k]);
        fputc('\n', f);
        for (size_t v = 0; v < r->nvariants; v++) {
            fprintf(f, "%-*s", (int)vw, r->variants[v]);
            for (size_t k = 0; k < d->ncols && k < 64; k++) {
                entry(r, g, k, v, b, sizeof(b));
                fprintf(f, "  %-*s", k + 1 < d->ncols ? (int)w[k] : 0, b);
            }
            fputc('\n', f);
        }
    }
}

void creport_print_dutcols_markdown(FILE *f, const struct creport *r)
{
    const struct creport_dutcols *d = r->dutcols;
    char b[ENTRY_MAX], s[512];
    creport_duts_sentence(r, s, sizeof(s));
    if (*s) {
        fputs("\n", f);
        creport_md_text(f, s);
        fputs("\n", f);
    }
    for (size_t i = 0; d && i < d->ngroups; i++) {
        const struct creport_dutgroup *g = &d->groups[i];
        long c0 = g->first;
        if (c0 < 0)
            continue;
        fprintf(f, "\n**By DUT%s", *g->heading ? ", " : "");
        creport_md_text(f, g->heading);
        fputs("** (", f);
        creport_md_text(f, r->metrics[r->cells[c0].decide].label);
        fputs(")\n\n| variant |", f);
        for (size_t k = 0; k < d->ncols; k++) {
            fputc(' ', f);
            creport_md_text(f, d->cols[k]);
            fputs(" |", f);
        }
        fputs("\n|---|", f);
        for (size_t k = 0; k < d->ncols; k++)
            fputs("---:|", f);
        fputc('\n', f);
        for (size_t v = 0; v < r->nvariants; v++) {
            fputs("| ", f);
            creport_md_text(f, r->variants[v]);
            fputs(" |", f);
            for (size_t k = 0; k < d->ncols; k++) {
                entry(r, g, k, v, b, sizeof(b));
                fputc(' ', f);
                creport_md_text(f, b);
                fputs(" |", f);
            }
            fputc('\n', f);
        }
    }
}

void creport_print_dutcols_html(FILE *f, const struct creport *r)
{
    const struct creport_dutcols *d = r->dutcols;
    char b[ENTRY_MAX], s[512];
    creport_duts_sentence(r, s, sizeof(s));
    if (*s) {
        fputs("<p>", f);
        creport_html_esc(f, s);
        fputs("</p>\n", f);
    }
    for (size_t i = 0; d && i < d->ngroups; i++) {
        const struct creport_dutgroup *g = &d->groups[i];
        long c0 = g->first;
        if (c0 < 0)
            continue;
        fputs("<table class=\"headline duts\">\n<caption>", f);
        creport_html_escf(f, "By DUT%s%s (%s)", *g->heading ? ", " : "", g->heading,
                          r->metrics[r->cells[c0].decide].label);
        fputs("</caption>\n<tr><th>variant</th>", f);
        for (size_t k = 0; k < d->ncols; k++) {
            fputs("<th>", f);
            creport_html_esc(f, d->cols[k]);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
        for (size_t v = 0; v < r->nvariants; v++) {
            fputs("<tr><th>", f);
            creport_html_esc(f, r->variants[v]);
            fputs("</th>", f);
            for (size_t k = 0; k < d->ncols; k++) {
                entry(r, g, k, v, b, sizeof(b));
                fputs("<td class=\"num\">", f);
                creport_html_esc(f, b);
                fputs("</td>", f);
            }
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
    }
}

/* One table of the JSON: its rows' entries are the strings the other formats show. */
static json_t *group_json(const struct creport *r, const struct creport_dutgroup *g, long c0)
{
    const struct creport_dutcols *d = r->dutcols;
    json_t *cols = json_array(), *rows = json_array();
    char b[ENTRY_MAX];
    for (size_t k = 0; cols && k < d->ncols; k++)
        json_array_append_new(cols, json_string(d->cols[k]));
    for (size_t v = 0; rows && v < r->nvariants; v++) {
        json_t *entries = json_array();
        for (size_t k = 0; entries && k < d->ncols; k++) {
            entry(r, g, k, v, b, sizeof(b));
            json_array_append_new(entries, json_string(b));
        }
        json_array_append_new(
            rows, json_pack("{s:s, s:o*}", "variant", r->variants[v], "entries", entries));
    }
    return json_pack("{s:s, s:s, s:o*, s:o*}", "heading", g->heading, "metric",
                     r->metrics[r->cells[c0].decide].name, "columns", cols, "rows", rows);
}

json_t *creport_duts_json(const struct creport *r)
{
    json_t *names = json_array(), *tables = json_array();
    for (size_t i = 0; names && i < r->nduts; i++)
        json_array_append_new(names, json_string(r->duts[i]));
    for (size_t i = 0; tables && r->dutcols && i < r->dutcols->ngroups; i++) {
        long c0 = r->dutcols->groups[i].first;
        if (c0 >= 0)
            json_array_append_new(tables, group_json(r, &r->dutcols->groups[i], c0));
    }
    return json_pack("{s:o*, s:b, s:o*}", "names", names, "concurrent", r->duts_concurrent,
                     "tables", tables);
}
