/*
 * Table layout for the experiment report. A table is built as a grid of
 * strings first and measured, so that the headings can be chosen by whether
 * the whole table fits: the cells' own values when they do, a shortened
 * form next, labels with a legend last. Only when not even labels fit are
 * the columns split over several tables (then headed in full, since each
 * part has room), with a pointer to --transpose.
 */
#include "report/tables.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W CREPORT_TEXT_WIDTH
#define GAP 2      /* spaces between columns */
#define ROW_MAX 24 /* the widest row label: variant names are cut, cell headings fall back */
#define CELL_LEN 96

void creport_fmt_num(char *b, size_t n, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(b, n, "-");
    else if (a >= 1e7)
        snprintf(b, n, "%.2e", v);
    else if (a >= 1000)
        snprintf(b, n, "%.0f", v);
    else if (a >= 100)
        snprintf(b, n, "%.1f", v);
    else if (a >= 1)
        snprintf(b, n, "%.2f", v);
    else
        snprintf(b, n, "%.3f", v);
}

void creport_fmt_value(char *b, size_t n, double v)
{
    snprintf(b, n, "%.6g", v);
}

void creport_fmt_pct(char *b, size_t n, double v, bool pct, int digits)
{
    double a = fabs(v);
    /* Never "nan" or "inf": an unbounded interval's end says so in words. */
    if (isnan(v))
        snprintf(b, n, "n/a");
    else if (isinf(v))
        snprintf(b, n, "%s", v > 0 ? "+unbounded" : "-unbounded");
    else if (a >= 99999.5)
        snprintf(b, n, "%s", v > 0 ? ">+99999" : "<-99999");
    else if (a >= 99.95 || digits == 0)
        snprintf(b, n, "%+.0f%s", v, pct ? "%" : "");
    else if (a >= 9.995 || digits == 1)
        snprintf(b, n, "%+.1f%s", v, pct ? "%" : "");
    else
        snprintf(b, n, "%+.2f%s", v, pct ? "%" : "");
}

void creport_fmt_change(char *b, size_t n, const struct creport_change *c, int digits)
{
    char x[32];
    switch (c->kind) {
    case CREPORT_CHANGE_NONE:
        snprintf(b, n, "n/a");
        return;
    case CREPORT_CHANGE_PCT:
        creport_fmt_pct(b, n, c->value, true, digits);
        return;
    case CREPORT_CHANGE_PP:
        creport_fmt_pct(x, sizeof(x), c->value, false, digits);
        snprintf(b, n, "%spp", x);
        return;
    case CREPORT_CHANGE_DIFF:
        /* No ratio: the difference, in the metric's unit, which may be far beyond +-99999. */
        if (fabs(c->value) >= 99999.5 && isfinite(c->value))
            snprintf(b, n, "%+.2e", c->value);
        else
            creport_fmt_pct(b, n, c->value, false, digits);
        return;
    }
}

void creport_fmt_change_ci(char *b, size_t n, const struct creport_change *c, int digits)
{
    /* The bounds in the change's unit, which the change before them states. */
    char lo[32], hi[32];
    struct creport_change l = {CREPORT_CHANGE_DIFF, c->lo, 0, 0};
    struct creport_change h = {CREPORT_CHANGE_DIFF, c->hi, 0, 0};
    creport_fmt_change(lo, sizeof(lo), &l, digits);
    creport_fmt_change(hi, sizeof(hi), &h, digits);
    snprintf(b, n, "[%s, %s]", lo, hi);
}

void creport_fmt_change_full(char *b, size_t n, const struct creport_change *c)
{
    char x[32], ci[80];
    creport_fmt_change(x, sizeof(x), c, 2);
    creport_fmt_change_ci(ci, sizeof(ci), c, 2);
    if (c->kind == CREPORT_CHANGE_NONE)
        snprintf(b, n, "n/a");
    else if (c->kind == CREPORT_CHANGE_DIFF)
        snprintf(b, n, "diff %s %s (baseline reaches 0)", x, ci);
    else
        snprintf(b, n, "%s %s", x, ci);
}

char creport_marker(const struct creport_entry *en)
{
    if (!en->has_cmp)
        return ' ';
    switch (en->cmp.verdict.kind) {
    case STATS_IMPROVED:
        return '*';
    case STATS_REGRESSED:
        return '!';
    case STATS_WITHIN_NOISE:
        return '=';
    case STATS_NO_DIFFERENCE:
        break;
    }
    return '?';
}

/* Rows and columns of strings; [0] of each row is its label. */
struct grid {
    size_t nrows, ncols;
    char corner[16];
    char (*rowh)[CELL_LEN];
    char (*colh)[CELL_LEN];
    char (*cell)[CELL_LEN]; /* [row * ncols + col] */
    size_t *width;          /* [ncols] */
    size_t w0;              /* the label column */
    bool cells_in_rows;     /* transposed */
};

static void grid_free(struct grid *g)
{
    free(g->rowh);
    free(g->colh);
    free(g->cell);
    free(g->width);
}

static int grid_alloc(struct grid *g, size_t nrows, size_t ncols)
{
    *g = (struct grid){nrows,
                       ncols,
                       "",
                       calloc(nrows + 1, CELL_LEN),
                       calloc(ncols + 1, CELL_LEN),
                       calloc(nrows * ncols + 1, CELL_LEN),
                       calloc(ncols + 1, sizeof(size_t)),
                       0,
                       false};
    if (g->rowh && g->colh && g->cell && g->width)
        return 0;
    grid_free(g);
    return -ENOMEM;
}

/* Measures every column; row labels count up to ROW_MAX (longer ones are cut when printed). */
static void grid_measure(struct grid *g)
{
    g->w0 = strlen(g->corner);
    for (size_t i = 0; i < g->nrows; i++) {
        size_t l = strlen(g->rowh[i]);
        g->w0 = l > g->w0 ? (l > ROW_MAX ? ROW_MAX : l) : g->w0;
    }
    for (size_t j = 0; j < g->ncols; j++) {
        g->width[j] = strlen(g->colh[j]);
        for (size_t i = 0; i < g->nrows; i++) {
            size_t l = strlen(g->cell[i * g->ncols + j]);
            g->width[j] = l > g->width[j] ? l : g->width[j];
        }
    }
}

static size_t grid_width(const struct grid *g, size_t from, size_t to)
{
    size_t w = g->w0;
    for (size_t j = from; j < to; j++)
        w += GAP + g->width[j];
    return w;
}

/* Whether the row labels fit: variant names may be cut, cell headings (transposed) may not. */
static bool rows_fit(const struct grid *g)
{
    if (!g->cells_in_rows)
        return true;
    for (size_t i = 0; i < g->nrows; i++)
        if (strlen(g->rowh[i]) > ROW_MAX)
            return false;
    return true;
}

/* Whether every part grid_print() makes holds two columns (or the only one). */
static bool pairs_fit(const struct grid *g)
{
    for (size_t j = 0; j < g->ncols; j += 2)
        if (grid_width(g, j, j + 2 < g->ncols ? j + 2 : g->ncols) > W)
            return false;
    return true;
}

static void print_label(FILE *f, const char *s, size_t w)
{
    if (strlen(s) <= w)
        fprintf(f, "%-*s", (int)w, s);
    else
        fprintf(f, "%.*s~", (int)w - 1, s);
}

/* Prints one line: label, then columns [from, to) right-aligned, without trailing spaces. */
static void grid_line(FILE *f, const struct grid *g, const char *label, char (*text)[CELL_LEN],
                      size_t stride, size_t from, size_t to)
{
    char line[1024];
    size_t u = 0;
    for (size_t j = from; j < to && u < sizeof(line); j++)
        u += (size_t)snprintf(line + u, sizeof(line) - u, "%*s%*s", GAP, "", (int)g->width[j],
                              text[j * stride]);
    u = u < sizeof(line) ? u : sizeof(line) - 1;
    while (u > 0 && line[u - 1] == ' ')
        line[--u] = 0;
    print_label(f, label, g->w0);
    fprintf(f, "%s\n", u ? line : "");
}

/* Prints the grid, split into as few tables as keep every line within W. */
static void grid_print(FILE *f, const struct grid *g)
{
    for (size_t from = 0; from < g->ncols;) {
        size_t to = from + 1;
        while (to < g->ncols && grid_width(g, from, to + 1) <= W)
            to++;
        if (from)
            fputc('\n', f);
        grid_line(f, g, g->corner, g->colh, 1, from, to);
        for (size_t i = 0; i < g->nrows; i++)
            grid_line(f, g, g->rowh[i], g->cell + i * g->ncols, 1, from, to);
        from = to;
    }
}

/* The cells a table of metric m shows (all for CREPORT_TABLE_N); returns how many. */
static size_t table_cells(const struct creport *r, size_t m, size_t *cols)
{
    size_t n = 0;
    for (size_t c = 0; c < r->ncells; c++)
        if (m == CREPORT_TABLE_N || creport_at(r, 0, c, m)->shown)
            cols[n++] = c;
    return n;
}

/* The value, change and mark of variant v in cell c; val and chg are 32 bytes. */
static void entry_parts(const struct creport *r, size_t v, size_t c, size_t m, char *val, char *chg,
                        char *mark)
{
    chg[0] = 0;
    *mark = ' ';
    if (m == CREPORT_TABLE_N) {
        snprintf(val, 32, "%ld", r->n_measured[v * r->ncells + c]);
        return;
    }
    const struct creport_entry *en = creport_at(r, v, c, m);
    creport_fmt_num(val, 32, en->mean);
    if (en->chg.kind != CREPORT_CHANGE_NONE || v)
        creport_fmt_change(chg, 32, &en->chg, 1);
    *mark = creport_marker(en);
}

/*
 * Fills g's entries: for each column, the values right-aligned to the
 * column's widest, then the changes likewise and the mark, so that numbers
 * line up down a column whichever way the table is turned.
 */
static void fill_entries(struct grid *g, const struct creport *r, const size_t *cols, size_t m)
{
    bool tr = r->opts.transpose;
    for (size_t j = 0; j < g->ncols; j++) {
        size_t vw = 0, cw = 0;
        bool marks = false;
        char val[32], chg[32], mark;
        for (int pass = 0; pass < 2; pass++)
            for (size_t i = 0; i < g->nrows; i++) {
                size_t v = tr ? j : i, c = cols[tr ? i : j];
                entry_parts(r, v, c, m, val, chg, &mark);
                if (!pass) {
                    vw = strlen(val) > vw ? strlen(val) : vw;
                    cw = strlen(chg) > cw ? strlen(chg) : cw;
                    marks |= mark != ' ';
                } else if (cw || marks) {
                    snprintf(g->cell[i * g->ncols + j], CELL_LEN, "%*s %*s %c", (int)vw, val,
                             (int)cw, chg, mark);
                } else {
                    snprintf(g->cell[i * g->ncols + j], CELL_LEN, "%*s", (int)vw, val);
                }
            }
    }
}

/* Builds the table of metric m over cols[0..n-1] with cell headings in style h. */
static int build(struct grid *g, const struct creport *r, const size_t *cols, size_t n, size_t m,
                 enum creport_heading h)
{
    bool tr = r->opts.transpose;
    int e = tr ? grid_alloc(g, n, r->nvariants) : grid_alloc(g, r->nvariants, n);
    if (e)
        return e;
    g->cells_in_rows = tr;
    snprintf(g->corner, sizeof(g->corner), "%s", tr ? "cell" : "variant");
    for (size_t v = 0; v < r->nvariants; v++)
        snprintf(tr ? g->colh[v] : g->rowh[v], CELL_LEN, "%s", r->variants[v]);
    for (size_t i = 0; i < n; i++)
        creport_cell_heading(r, cols[i], h, tr ? g->rowh[i] : g->colh[i], CELL_LEN);
    fill_entries(g, r, cols, m);
    grid_measure(g);
    return 0;
}

int creport_text_table(FILE *f, const struct creport *r, size_t m, bool *legend)
{
    size_t *cols = calloc(r->ncells + 1, sizeof(*cols));
    size_t n = cols ? table_cells(r, m, cols) : 0;
    struct grid g;
    int e = cols ? 0 : -ENOMEM;
    for (int h = CREPORT_HEAD_FULL; !e && n && h <= CREPORT_HEAD_LABEL; h++) {
        if ((e = build(&g, r, cols, n, m, (enum creport_heading)h)))
            break;
        if (grid_width(&g, 0, g.ncols) <= W && rows_fit(&g)) {
            grid_print(f, &g);
            *legend |= h == CREPORT_HEAD_LABEL;
            grid_free(&g);
            free(cols);
            return 0;
        }
        grid_free(&g);
    }
    if (!e && n) {
        /*
         * Nothing fits side by side: split the columns, headed in full when
         * each part still holds two of them, else by labels.
         */
        enum creport_heading h = CREPORT_HEAD_FULL;
        if (!(e = build(&g, r, cols, n, m, h)) && !(rows_fit(&g) && pairs_fit(&g))) {
            grid_free(&g);
            h = CREPORT_HEAD_LABEL;
            e = build(&g, r, cols, n, m, h);
        }
        if (!e) {
            grid_print(f, &g);
            grid_free(&g);
            *legend |= h == CREPORT_HEAD_LABEL;
            if (!r->opts.transpose)
                fprintf(f, "(%zu cells do not fit side by side: --transpose lists them as rows.)\n",
                        n);
        }
    }
    free(cols);
    return e;
}

void creport_print_legend(FILE *f, const struct creport *r)
{
    fprintf(f, "Cells:\n");
    for (size_t c = 0; c < r->ncells; c++) {
        char h[CELL_LEN], line[3 * CELL_LEN];
        creport_cell_heading(r, c, CREPORT_HEAD_LABEL, h, sizeof(h));
        snprintf(line, sizeof(line), "  %-4s %s%s%s%s", h,
                 r->cells[c].name[0] ? r->cells[c].name : "(all)", r->cells[c].test[0] ? " (" : "",
                 r->cells[c].test, r->cells[c].test[0] ? ")" : "");
        fprintf(f, "%.*s\n", W, line);
    }
}

void creport_md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '*')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

/*
 * Markdown: the same grid, headed in full (a renderer wraps what a terminal
 * cannot), marks escaped; the changes' intervals are in the list below the
 * table, so that no column grows wide.
 */
void creport_md_table(FILE *f, const struct creport *r, size_t m)
{
    size_t *cols = calloc(r->ncells + 1, sizeof(*cols));
    size_t n = cols ? table_cells(r, m, cols) : 0;
    struct grid g;
    if (!n || build(&g, r, cols, n, m, CREPORT_HEAD_FULL)) {
        free(cols);
        return;
    }
    fprintf(f, "| %s |", g.corner);
    for (size_t j = 0; j < g.ncols; j++) {
        fputc(' ', f);
        creport_md_text(f, g.colh[j]);
        fputs(" |", f);
    }
    fputs("\n|---|", f);
    for (size_t j = 0; j < g.ncols; j++)
        fputs("---:|", f);
    fputc('\n', f);
    for (size_t i = 0; i < g.nrows; i++) {
        fputs("| ", f);
        creport_md_text(f, g.rowh[i]);
        fputs(" |", f);
        for (size_t j = 0; j < g.ncols; j++) {
            char *s = g.cell[i * g.ncols + j];
            size_t len = strlen(s);
            while (len && s[len - 1] == ' ')
                s[--len] = 0;
            while (*s == ' ')
                s++;
            fputc(' ', f);
            creport_md_text(f, s);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    grid_free(&g);
    free(cols);
}
