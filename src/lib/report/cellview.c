/*
 * The cell table in every format (celltable.h): each
 * renderer prints the strings the model built and computes nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/celltable.h"
#include "report/html.h"
#include "report/tables.h"

#define W CREPORT_TEXT_WIDTH

/* Column col's heading: the axis's value, "(all)" for the one column of a report without one. */
static const char *col_heading(const struct creport_celltab *t, size_t col)
{
    return t->cols[col][0] ? t->cols[col] : "(all)";
}

/* The sentence above the table, after lead: what its rows, columns and marks are. */
static void describe(char *b, size_t n, const struct creport *r, const char *lead)
{
    const struct creport_celltab *t = r->celltab;
    snprintf(b, n,
             "%s are the variants, columns %s%s; each placeholder's mean, marked against %s: * "
             "improved, ! regressed, = within noise, ? not proven.",
             lead, t->axis ? "the axis " : "all cells together", t->axis ? t->axis : "",
             r->nvariants ? r->variants[0] : "the baseline");
}

/* The widest of the variants' names and "variant". */
static size_t label_width(const struct creport *r)
{
    size_t w = strlen("variant");
    for (size_t v = 0; v < r->nvariants; v++)
        w = strlen(r->variants[v]) > w ? strlen(r->variants[v]) : w;
    return w;
}

/* The widest entry of column col in group g, its heading included. */
static size_t col_width(const struct creport *r, const struct creport_cellgroup *g, size_t col)
{
    const struct creport_celltab *t = r->celltab;
    size_t w = strlen(col_heading(t, col));
    for (size_t v = 0; v < r->nvariants; v++) {
        size_t k = strlen(g->boxes[v * t->ncols + col].text);
        w = k > w ? k : w;
    }
    return w;
}

/*
 * An entry as the lines of a column cw wide, the thread's way (one test's
 * figures to a line): the entry splits before each word that starts with a
 * letter ("tcp 94/94 udp 96/96 cpu 15%" -> "tcp 94/94", "udp 96/96",
 * "cpu 15%"), and the pieces are packed greedily into lines of at most cw.
 * Returns the number of lines (at most max, each in lines[k], NUL-ended),
 * or 0 when a piece is wider than cw or they do not fit.
 */
static size_t wrap_entry(const char *s, size_t cw, char lines[][W + 1], size_t max)
{
    size_t n = 0, len = 0;
    while (*s) {
        const char *e = s + 1;
        while (*e && !(e[-1] == ' ' && ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z'))))
            e++;
        size_t k = (size_t)(e - s);
        while (k && s[k - 1] == ' ')
            k--;
        if (k > cw)
            return 0;
        if (n && len + 1 + k <= cw) {
            lines[n - 1][len++] = ' ';
        } else {
            if (n == max)
                return 0;
            len = 0;
            n++;
        }
        memcpy(lines[n - 1] + len, s, k);
        len += k;
        lines[n - 1][len] = '\0';
        s = e;
    }
    return n;
}

/* Lines an entry may take when wrapped. */
#define WRAP_LINES 8

/*
 * Whether every entry of group g wraps into columns of at most cw: then
 * widths[col] holds each column's width.
 */
static bool wrap_measure(const struct creport *r, const struct creport_cellgroup *g, size_t cw,
                         size_t *widths)
{
    const struct creport_celltab *t = r->celltab;
    char lines[WRAP_LINES][W + 1];
    for (size_t col = 0; col < t->ncols; col++) {
        widths[col] = strlen(col_heading(t, col));
        if (widths[col] > cw)
            return false;
        for (size_t v = 0; v < r->nvariants; v++) {
            size_t n = wrap_entry(g->boxes[v * t->ncols + col].text, cw, lines, WRAP_LINES);
            if (!n)
                return false;
            for (size_t k = 0; k < n; k++)
                widths[col] = strlen(lines[k]) > widths[col] ? strlen(lines[k]) : widths[col];
        }
    }
    return true;
}

/* One text line: the label, then each column's piece padded to its width, trailing blanks cut. */
static void wrap_line(FILE *f, const char *label, size_t lw, const char *const *pieces,
                      const size_t *widths, size_t ncols)
{
    char line[4096];
    size_t u = (size_t)snprintf(line, sizeof(line), "%-*s", (int)lw, label);
    for (size_t col = 0; col < ncols && u < sizeof(line); col++)
        u += (size_t)snprintf(line + u, sizeof(line) - u, "  %-*s", (int)widths[col], pieces[col]);
    u = u < sizeof(line) ? u : sizeof(line) - 1;
    while (u && line[u - 1] == ' ')
        line[--u] = '\0';
    fprintf(f, "%s\n", line);
}

/*
 * The width cw every entry of group g wraps into so that all its columns
 * stand side by side in 72 columns, each column's width in widths[] (64 at
 * most); false when some
 * entry cannot be wrapped that narrow.
 */
static bool wrap_plan(const struct creport *r, const struct creport_cellgroup *g, size_t lw,
                      size_t *cw, size_t *widths)
{
    size_t ncols = r->celltab->ncols;
    if (!ncols || lw + 2 * ncols >= W || ncols > 64)
        return false;
    *cw = (W - lw - 2 * ncols) / ncols;
    return wrap_measure(r, g, *cw, widths);
}

/*
 * Group g with every column side by side, each entry wrapped into lines
 * of at most cw (the mailing-list thread's table), as wrap_plan() measured
 * it; a variant's row starts with its name, its further lines with blanks.
 */
static void text_wrapped(FILE *f, const struct creport *r, const struct creport_cellgroup *g,
                         size_t lw, size_t cw, const size_t *widths)
{
    const struct creport_celltab *t = r->celltab;
    const char *pieces[64];
    char(*lines)[WRAP_LINES][W + 1] = malloc(t->ncols * sizeof(*lines));
    for (size_t col = 0; col < t->ncols; col++)
        pieces[col] = col_heading(t, col);
    wrap_line(f, "variant", lw, pieces, widths, t->ncols);
    for (size_t v = 0; lines && v < r->nvariants; v++) {
        size_t n[64], rows = 0;
        for (size_t col = 0; col < t->ncols; col++) {
            n[col] = wrap_entry(g->boxes[v * t->ncols + col].text, cw, lines[col], WRAP_LINES);
            rows = n[col] > rows ? n[col] : rows;
        }
        for (size_t k = 0; k < rows; k++) {
            for (size_t col = 0; col < t->ncols; col++)
                pieces[col] = k < n[col] ? lines[col][k] : "";
            wrap_line(f, k ? "" : r->variants[v], lw, pieces, widths, t->ncols);
        }
    }
    if (!lines)
        fputs("(out of memory)\n", f);
    free(lines);
}

/* Columns [c0, c1) of group g as a text table, labels left, entries left-aligned. */
static void text_chunk(FILE *f, const struct creport *r, const struct creport_cellgroup *g,
                       size_t c0, size_t c1, size_t lw)
{
    const struct creport_celltab *t = r->celltab;
    const char *pieces[W];
    size_t widths[W];
    for (size_t col = c0; col < c1; col++) {
        widths[col - c0] = col_width(r, g, col);
        pieces[col - c0] = col_heading(t, col);
    }
    wrap_line(f, "variant", lw, pieces, widths, c1 - c0);
    for (size_t v = 0; v < r->nvariants; v++) {
        for (size_t col = c0; col < c1; col++)
            pieces[col - c0] = g->boxes[v * t->ncols + col].text;
        wrap_line(f, r->variants[v], lw, pieces, widths, c1 - c0);
    }
}

int creport_print_celltable_text(FILE *f, const struct creport *r)
{
    const struct creport_celltab *t = r->celltab;
    char about[512];
    if (!t)
        return 0;
    describe(about, sizeof(about), r, "Cell table: rows");
    fputc('\n', f);
    creport_wrap(f, "", "  ", about);
    size_t lw = label_width(r);
    for (size_t g = 0; g < t->ngroups; g++) {
        const struct creport_cellgroup *grp = &t->groups[g];
        size_t all = lw, cw, widths[64];
        for (size_t col = 0; col < t->ncols; col++)
            all += 2 + col_width(r, grp, col);
        if (all > W && wrap_plan(r, grp, lw, &cw, widths)) {
            fputc('\n', f);
            if (grp->heading[0])
                fprintf(f, "%s:\n", grp->heading);
            text_wrapped(f, r, grp, lw, cw, widths);
            continue;
        }
        /* As many columns per table as fit 72 columns; a wider single one stands alone. */
        for (size_t c0 = 0; c0 < t->ncols;) {
            size_t c1 = c0 + 1, width = lw + 2 + col_width(r, grp, c0);
            while (c1 < t->ncols && width + 2 + col_width(r, grp, c1) <= W)
                width += 2 + col_width(r, grp, c1++);
            fputc('\n', f);
            if (grp->heading[0])
                fprintf(f, "%s:\n", grp->heading);
            text_chunk(f, r, grp, c0, c1, lw);
            c0 = c1;
        }
    }
    return ferror(f) ? -EIO : 0;
}

void creport_print_celltable_markdown(FILE *f, const struct creport *r)
{
    const struct creport_celltab *t = r->celltab;
    char about[512];
    if (!t)
        return;
    describe(about, sizeof(about), r, "Rows");
    fputs("\n### Cell table\n\n", f);
    creport_md_text(f, about);
    fputc('\n', f);
    for (size_t g = 0; g < t->ngroups; g++) {
        const struct creport_cellgroup *grp = &t->groups[g];
        if (grp->heading[0]) {
            fputs("\n**", f);
            creport_md_text(f, grp->heading);
            fputs("**\n", f);
        }
        fputs("\n| variant |", f);
        for (size_t col = 0; col < t->ncols; col++) {
            fputc(' ', f);
            creport_md_text(f, col_heading(t, col));
            fputs(" |", f);
        }
        fputs("\n|---|", f);
        for (size_t col = 0; col < t->ncols; col++)
            fputs("---|", f);
        for (size_t v = 0; v < r->nvariants; v++) {
            fputs("\n| ", f);
            creport_md_text(f, r->variants[v]);
            for (size_t col = 0; col < t->ncols; col++) {
                fputs(" | ", f);
                creport_md_text(f, grp->boxes[v * t->ncols + col].text);
            }
            fputs(" |", f);
        }
        fputc('\n', f);
    }
}

/* s between the tags open and close, s escaped. */
static void html_tagged(FILE *f, const char *open, const char *s, const char *close)
{
    fputs(open, f);
    creport_html_esc(f, s);
    fputs(close, f);
}

void creport_print_celltable_html(FILE *f, const struct creport *r)
{
    const struct creport_celltab *t = r->celltab;
    char about[512];
    if (!t)
        return;
    describe(about, sizeof(about), r, "Rows");
    fputs("<section id=\"cells\">\n<h2>Cell table</h2>\n", f);
    html_tagged(f, "<p>", about, "</p>\n");
    for (size_t g = 0; g < t->ngroups; g++) {
        const struct creport_cellgroup *grp = &t->groups[g];
        if (grp->heading[0])
            html_tagged(f, "<h3>", grp->heading, "</h3>\n");
        fputs("<table class=\"cells\">\n<tr><th>variant</th>", f);
        for (size_t col = 0; col < t->ncols; col++)
            html_tagged(f, "<th>", col_heading(t, col), "</th>");
        fputs("</tr>\n", f);
        for (size_t v = 0; v < r->nvariants; v++) {
            html_tagged(f, "<tr><th>", r->variants[v], "</th>");
            for (size_t col = 0; col < t->ncols; col++)
                html_tagged(f, "<td>", grp->boxes[v * t->ncols + col].text, "</td>");
            fputs("</tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    fputs("</section>\n", f);
}

static json_t *num_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* One entry: its text and each placeholder's figure, mark and counts. */
static json_t *box_json(const struct creport_celltab *t, const struct creport_cellbox *b,
                        const char *column)
{
    json_t *vals = json_array();
    for (size_t i = 0; vals && i < t->nph; i++) {
        const struct creport_cellval *x = &b->vals[i];
        if (json_array_append_new(
                vals, json_pack("{s:s, s:o, s:s, s:s, s:I, s:I}", "placeholder", t->ph[i].source,
                                "value", num_or_null(x->value), "mark", x->mark, "text", x->text,
                                "n", (json_int_t)x->n, "failed", (json_int_t)x->failed))) {
            json_decref(vals);
            return NULL;
        }
    }
    return vals ? json_pack("{s:s, s:s, s:b, s:o}", "column", column, "text", b->text, "fails",
                            b->fails, "values", vals)
                : NULL;
}

/* One table: its heading and a row per variant. */
static json_t *group_json(const struct creport *r, const struct creport_cellgroup *g)
{
    const struct creport_celltab *t = r->celltab;
    json_t *rows = json_array();
    for (size_t v = 0; rows && v < r->nvariants; v++) {
        json_t *cells = json_array();
        for (size_t col = 0; cells && col < t->ncols; col++)
            if (json_array_append_new(cells,
                                      box_json(t, &g->boxes[v * t->ncols + col], t->cols[col]))) {
                json_decref(cells);
                cells = NULL;
            }
        if (!cells || json_array_append_new(rows, json_pack("{s:s, s:o}", "variant", r->variants[v],
                                                            "cells", cells))) {
            json_decref(rows);
            rows = NULL;
        }
    }
    return rows ? json_pack("{s:s, s:o}", "heading", g->heading, "rows", rows) : NULL;
}

json_t *creport_celltable_json(const struct creport *r)
{
    const struct creport_celltab *t = r->celltab;
    if (!t)
        return NULL;
    json_t *ph = json_array(), *cols = json_array(), *tables = json_array();
    int e = !ph || !cols || !tables;
    for (size_t i = 0; !e && i < t->nph; i++)
        e |= json_array_append_new(ph, json_pack("{s:s, s:s?, s:s, s:s}", "placeholder",
                                                 t->ph[i].source, "test", t->ph[i].test, "metric",
                                                 t->ph[i].metric, "unit", t->ph[i].unit));
    for (size_t col = 0; !e && col < t->ncols; col++)
        e |= json_array_append_new(cols, json_string(t->cols[col]));
    for (size_t g = 0; !e && g < t->ngroups; g++)
        e |= json_array_append_new(tables, group_json(r, &t->groups[g]));
    if (e) {
        json_decref(ph);
        json_decref(cols);
        json_decref(tables);
        return NULL;
    }
    return json_pack("{s:s, s:s?, s:o, s:o, s:o}", "template", t->template, "columns_axis", t->axis,
                     "columns", cols, "placeholders", ph, "tables", tables);
}
