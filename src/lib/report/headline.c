/*
 * The headline table (headline.h): what a mail about the
 * experiment would show first, one row per variant and cell.
 */
#include "report/headline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/celltable.h"
#include "report/duts.h"
#include "report/tables.h"
#include "report/matrix.h"

#define W CREPORT_TEXT_WIDTH
#define VARIANT_MAX 14 /* longer variant names are cut with '~' */
#define VARIANT_MIN 8  /* ... and this short when even cell labels do not fit */
#define NCOL 6         /* cell, variant, mean, change, cost, change */

/*
 * The change and mark of en, "+0.7% *"; "" for the baseline. A change in
 * the metric's unit (the baseline's mean is 0, creport_change) carries that
 * unit, "+521 us/tran ?", so that no bare number stands beside percentages.
 */
static void change_mark(char *b, size_t n, const struct creport_entry *en, size_t v,
                        const char *unit)
{
    char x[32];
    if (!v) {
        b[0] = 0;
        return;
    }
    creport_fmt_change(x, sizeof(x), &en->chg, 1);
    bool diff = en->chg.kind == CREPORT_CHANGE_DIFF && unit && *unit;
    snprintf(b, n, "%s%s%s %c", x, diff ? " " : "", diff ? unit : "",
             en->chg.kind == CREPORT_CHANGE_NONE ? ' ' : creport_marker(en));
    size_t len = strlen(b);
    while (len && b[len - 1] == ' ')
        b[--len] = 0;
}

void creport_headline_row(const struct creport *r, size_t c, size_t v, struct creport_hl_row *o)
{
    const struct creport_entry *en = creport_at(r, v, c, (size_t)r->cells[c].decide);
    memset(o, 0, sizeof(*o));
    creport_fmt_num(o->mean, sizeof(o->mean), en->mean);
    /* Failures are data: a variant whose runs all failed says so in its cell. */
    if (!en->n && creport_fail_at(r, v, c)->failed)
        creport_fail_cell(r, v, c, o->mean, sizeof(o->mean));
    change_mark(o->change, sizeof(o->change), en, v, r->metrics[r->cells[c].decide].unit);
    if (r->cells[c].cost < 0)
        return;
    en = creport_at(r, v, c, (size_t)r->cells[c].cost);
    creport_fmt_num(o->cost, sizeof(o->cost), en->mean);
    change_mark(o->cost_change, sizeof(o->cost_change), en, v, r->metrics[r->cells[c].cost].unit);
}

bool creport_headline_same(const struct creport *r, size_t a, size_t b)
{
    return r->cells[a].decide == r->cells[b].decide && r->cells[a].cost == r->cells[b].cost;
}

/* The text of one table: [row][col], row 0 the header. */
struct hl_grid {
    size_t nrows;
    char (*t)[NCOL][48];
    size_t width[NCOL];
};

/* Whether cell c is in the table that starts at cell c0 (the model's grouping). */
static bool in_table(const struct creport *r, size_t c0, size_t c)
{
    return r->cells[c].table == (long)c0;
}

/* Whether cell c0 starts a table: it has a deciding metric that no earlier cell shares. */
static bool table_start(const struct creport *r, size_t c0)
{
    return r->cells[c0].table == (long)c0;
}

static void grid_fill(struct hl_grid *g, const struct creport *r, size_t c0, enum creport_heading h,
                      int vmax)
{
    const struct creport_metric *md = r->metrics;
    int d = r->cells[c0].decide, k = r->cells[c0].cost;
    const char *head[NCOL] = {"cell",
                              "variant",
                              md[d].label,
                              "change",
                              k >= 0 ? md[k].label : "",
                              k >= 0 ? "change" : ""};
    size_t row = 0;
    for (size_t j = 0; j < NCOL; j++)
        snprintf(g->t[0][j], sizeof(g->t[0][j]), "%s", head[j]);
    for (size_t c = c0; c < r->ncells; c++) {
        if (!in_table(r, c0, c))
            continue;
        for (size_t v = 0; v < r->nvariants; v++) {
            struct creport_hl_row x;
            char(*t)[48] = g->t[++row];
            creport_headline_row(r, c, v, &x);
            if (v)
                t[0][0] = 0;
            else
                creport_cell_heading(r, c, h, t[0], sizeof(t[0]));
            if (strlen(r->variants[v]) > (size_t)vmax)
                snprintf(t[1], sizeof(t[1]), "%.*s~", vmax - 1, r->variants[v]);
            else
                snprintf(t[1], sizeof(t[1]), "%s", r->variants[v]);
            snprintf(t[2], sizeof(t[2]), "%s", x.mean);
            snprintf(t[3], sizeof(t[3]), "%s", x.change);
            snprintf(t[4], sizeof(t[4]), "%s", x.cost);
            snprintf(t[5], sizeof(t[5]), "%s", x.cost_change);
        }
    }
    g->nrows = row + 1;
    for (size_t j = 0; j < NCOL; j++) {
        g->width[j] = 0;
        for (size_t i = 0; i < g->nrows; i++)
            if (strlen(g->t[i][j]) > g->width[j])
                g->width[j] = strlen(g->t[i][j]);
    }
}

static size_t grid_total(const struct hl_grid *g)
{
    size_t total = 0;
    for (size_t j = 0; j < NCOL; j++)
        total += g->width[j] + (j && g->width[j] ? 2 : 0);
    return total;
}

/*
 * Prints the grid: labels left-aligned, figures right-aligned, a change
 * column left-aligned after its figure so that the marks line up.
 */
static void grid_print(FILE *f, const struct hl_grid *g)
{
    for (size_t i = 0; i < g->nrows; i++) {
        char line[512];
        size_t u = 0;
        for (size_t j = 0; j < NCOL && u < sizeof(line); j++) {
            if (!g->width[j])
                continue;
            bool left = j < 2 || ((j == 3 || j == 5) && i > 0);
            u += (size_t)snprintf(line + u, sizeof(line) - u, "%s%*s", j ? "  " : "",
                                  left ? -(int)g->width[j] : (int)g->width[j], g->t[i][j]);
        }
        u = u < sizeof(line) ? u : sizeof(line) - 1;
        while (u && line[u - 1] == ' ')
            line[--u] = 0;
        fprintf(f, "%s\n", line);
    }
}

/* The headline tables in text (the DUTs as columns when the matrix has them). */
static int headline_text(FILE *f, const struct creport *r, bool *legend)
{
    /* Several DUTs: the sentence, and with the axis dut the DUTs as the columns instead. */
    if (r->nduts)
        creport_print_dutcols_text(f, r);
    if (r->dutcols && r->dutcols->ngroups)
        return 0;
    struct hl_grid g = {0};
    g.t = calloc(r->ncells * r->nvariants + 1, sizeof(*g.t));
    if (!g.t)
        return -ENOMEM;
    bool first = true;
    for (size_t c0 = 0; c0 < r->ncells; c0++) {
        if (!table_start(r, c0))
            continue;
        enum creport_heading h = CREPORT_HEAD_FULL;
        for (; h <= CREPORT_HEAD_LABEL; h++) {
            grid_fill(&g, r, c0, h, VARIANT_MAX);
            if (grid_total(&g) <= W)
                break;
        }
        if (h > CREPORT_HEAD_LABEL)
            h = CREPORT_HEAD_LABEL;
        /* A change in a unit ("+0.0 us/KiB", a baseline of 0) is wide: variants give way. */
        if (grid_total(&g) > W)
            grid_fill(&g, r, c0, h, VARIANT_MIN);
        *legend |= h == CREPORT_HEAD_LABEL;
        if (!first)
            fputc('\n', f);
        grid_print(f, &g);
        first = false;
    }
    free(g.t);
    return 0;
}

/* The same in Markdown. */
static void headline_markdown(FILE *f, const struct creport *r)
{
    if (r->nduts)
        creport_print_dutcols_markdown(f, r);
    if (r->dutcols && r->dutcols->ngroups)
        return;
    for (size_t c0 = 0; c0 < r->ncells; c0++) {
        if (!table_start(r, c0))
            continue;
        int d = r->cells[c0].decide, k = r->cells[c0].cost;
        fputs("\n| cell | variant | ", f);
        creport_md_text(f, r->metrics[d].label);
        fputs(" | change |", f);
        if (k >= 0) {
            fputc(' ', f);
            creport_md_text(f, r->metrics[k].label);
            fputs(" | change |", f);
        }
        fputs(k >= 0 ? "\n|---|---|---:|---|---:|---|\n" : "\n|---|---|---:|---|\n", f);
        for (size_t c = c0; c < r->ncells; c++)
            for (size_t v = 0; in_table(r, c0, c) && v < r->nvariants; v++) {
                struct creport_hl_row x;
                char head[96];
                creport_headline_row(r, c, v, &x);
                creport_cell_heading(r, c, CREPORT_HEAD_FULL, head, sizeof(head));
                fputs("| ", f);
                creport_md_text(f, v ? "" : head);
                fputs(" | ", f);
                creport_md_text(f, r->variants[v]);
                fputs(" | ", f);
                creport_md_text(f, x.mean);
                fputs(" | ", f);
                creport_md_text(f, x.change);
                if (k >= 0) {
                    fprintf(f, " | %s | ", x.cost);
                    creport_md_text(f, x.cost_change);
                }
                fputs(" |\n", f);
            }
    }
}

/* The headline, then the cells the user asked for (--cell), which belong to its section. */
int creport_print_headline_text(FILE *f, const struct creport *r, bool *legend)
{
    int e = headline_text(f, r, legend);
    return e ? e : creport_print_celltable_text(f, r);
}

void creport_print_headline_markdown(FILE *f, const struct creport *r)
{
    headline_markdown(f, r);
    creport_print_celltable_markdown(f, r);
}

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

/* The change's figure in its unit (creport_change), null for the baseline or none. */
static json_t *change_value(const struct creport_entry *en)
{
    return en->chg.kind == CREPORT_CHANGE_NONE ? json_null() : num(en->chg.value);
}

static const char *verdict(const struct creport_entry *en)
{
    return en->has_cmp ? stats_verdict_name(en->cmp.verdict.kind) : NULL;
}

/* One variant's row of the JSON headline: the figures and the strings every format shows. */
static json_t *row_json(const struct creport *r, size_t c, size_t v)
{
    struct creport_hl_row x;
    creport_headline_row(r, c, v, &x);
    const struct creport_entry *en = creport_at(r, v, c, (size_t)r->cells[c].decide);
    int k = r->cells[c].cost;
    const struct creport_entry *ce = k >= 0 ? creport_at(r, v, c, (size_t)k) : NULL;
    char fails[300];
    creport_fail_text(r, v, c, fails, sizeof(fails));
    return json_pack("{s:s, s:I, s:o, s:s, s:o, s:s?, s:s, s:o, s:s, s:o, s:s?, s:s, s:I, s:s?}",
                     "variant", r->variants[v], "n", (json_int_t)en->n, "mean", num(en->mean),
                     "mean_text", x.mean, "change", change_value(en), "verdict", verdict(en),
                     "change_text", x.change, "cost_mean", ce ? num(ce->mean) : json_null(),
                     "cost_text", x.cost, "cost_change", ce ? change_value(ce) : json_null(),
                     "cost_verdict", ce ? verdict(ce) : NULL, "cost_change_text", x.cost_change,
                     "failed", (json_int_t)creport_fail_at(r, v, c)->failed, "fails",
                     *fails ? fails : NULL);
}

json_t *creport_headline_json(const struct creport *r)
{
    json_t *a = json_array();
    for (size_t c = 0; a && c < r->ncells; c++) {
        int d = r->cells[c].decide, k = r->cells[c].cost;
        if (d < 0)
            continue;
        char head[96];
        creport_cell_heading(r, c, CREPORT_HEAD_FULL, head, sizeof(head));
        json_t *rows = json_array();
        for (size_t v = 0; rows && v < r->nvariants; v++)
            if (json_array_append_new(rows, row_json(r, c, v))) {
                json_decref(rows);
                rows = NULL;
            }
        json_t *o = rows ? json_pack("{s:s, s:s, s:s, s:s?, s:o}", "cell", r->cells[c].name,
                                     "heading", head, "metric", r->metrics[d].name, "cost_metric",
                                     k >= 0 ? r->metrics[k].name : NULL, "rows", rows)
                         : NULL;
        if (!o || json_array_append_new(a, o)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}
