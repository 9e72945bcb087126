/*
 * The experiment report for people: plain text that fits 72 columns (for
 * mailing lists) and Markdown. Tables have variants as rows and matrix cells
 * as columns, one table per metric; cells that do not fit side by side are
 * stacked into further tables rather than widening the line.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/campaign_report.h"
#include "report/campaign_report_counters.h"

#define W CREPORT_TEXT_WIDTH
#define VAL_W 8                           /* a mean */
#define CHG_W 6                           /* a change in percent */
#define COL_W (VAL_W + 1 + CHG_W + 1 + 1) /* "   20980 +2.5% *" */
#define LABEL_MAX 14

/* One character per verdict in the tables. */
static char marker(const struct creport_entry *en)
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

/* A value in at most VAL_W characters, with precision following magnitude. */
static void fmt_num(char *b, size_t n, double v)
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

/* A percentage with a sign, in at most 6 characters plus '%' when pct is set. */
static void fmt_pct(char *b, size_t n, double v, bool pct, int digits)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(b, n, "%s", v > 0 ? "+inf" : v < 0 ? "-inf" : "nan");
    else if (a >= 99999.5)
        snprintf(b, n, "%s", v > 0 ? ">+99999" : "<-99999");
    else if (a >= 99.95 || digits == 0)
        snprintf(b, n, "%+.0f%s", v, pct ? "%" : "");
    else if (a >= 9.995 || digits == 1)
        snprintf(b, n, "%+.1f%s", v, pct ? "%" : "");
    else
        snprintf(b, n, "%+.2f%s", v, pct ? "%" : "");
}

/* Prints text word-wrapped at W columns: first line after first, the rest after rest. */
static void wrap(FILE *f, const char *first, const char *rest, const char *text)
{
    const char *ind = first;
    while (*text) {
        size_t room = W - strlen(ind);
        size_t len = strlen(text);
        size_t cut = len;
        if (len > room) {
            cut = room;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            if (cut == 0) /* one word longer than the line: break it */
                cut = room;
        }
        fprintf(f, "%s%.*s\n", ind, (int)cut, text);
        text += cut;
        while (*text == ' ')
            text++;
        ind = rest;
    }
}

static void wrapf(FILE *f, const char *first, const char *rest, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void wrapf(FILE *f, const char *first, const char *rest, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    wrap(f, first, rest, buf);
}

static const char *cell_display(const struct creport *r, size_t c)
{
    return r->cells[c].name[0] ? r->cells[c].name : "(all)";
}

/* A column heading: the cell's name if it fits, else "cN" (see the legend). */
static void cell_heading(const struct creport *r, size_t c, char *b, size_t n)
{
    const char *name = cell_display(r, c);
    if (strlen(name) <= COL_W)
        snprintf(b, n, "%s", name);
    else
        snprintf(b, n, "c%zu", c + 1);
}

static size_t label_width(const struct creport *r)
{
    size_t w = strlen("variant");
    for (size_t v = 0; v < r->nvariants; v++)
        if (strlen(r->variants[v]) > w)
            w = strlen(r->variants[v]);
    return w > LABEL_MAX ? LABEL_MAX : w;
}

static void print_label(FILE *f, const char *s, size_t lw)
{
    if (strlen(s) <= lw)
        fprintf(f, "%-*s", (int)lw, s);
    else
        fprintf(f, "%.*s~", (int)lw - 1, s);
}

/*
 * One table: variants as rows, the cells in cols[0..n-1] as columns, chunked
 * so that every line fits W. entry(v, c) writes the table cell's text.
 */
typedef void (*cell_text_fn)(const struct creport *r, size_t v, size_t c, size_t m, char *b,
                             size_t n);

static void print_table(FILE *f, const struct creport *r, const size_t *cols, size_t ncols,
                        size_t m, cell_text_fn entry)
{
    size_t lw = label_width(r);
    size_t per = (W - lw) / (COL_W + 1);
    if (per < 1)
        per = 1;
    for (size_t start = 0; start < ncols; start += per) {
        size_t end = start + per < ncols ? start + per : ncols;
        if (start)
            fputc('\n', f);
        char head[256];
        int hu = 0;
        for (size_t i = start; i < end; i++) {
            char h[64];
            cell_heading(r, cols[i], h, sizeof(h));
            /* Over the median when it fits there, else across the column. */
            if (strlen(h) <= VAL_W)
                hu += snprintf(head + hu, sizeof(head) - (size_t)hu, " %*s%*s", VAL_W, h,
                               COL_W - VAL_W, "");
            else
                hu += snprintf(head + hu, sizeof(head) - (size_t)hu, " %-*s", COL_W, h);
        }
        while (hu > 0 && head[hu - 1] == ' ')
            head[--hu] = '\0';
        print_label(f, "variant", lw);
        fprintf(f, "%s\n", head);
        for (size_t v = 0; v < r->nvariants; v++) {
            char line[256];
            int u = 0;
            for (size_t i = start; i < end; i++) {
                char b[64];
                entry(r, v, cols[i], m, b, sizeof(b));
                u += snprintf(line + u, sizeof(line) - (size_t)u, " %-*s", COL_W, b);
            }
            while (u > 0 && line[u - 1] == ' ')
                line[--u] = '\0';
            print_label(f, r->variants[v], lw);
            fprintf(f, "%s\n", line);
        }
    }
}

static void metric_entry(const struct creport *r, size_t v, size_t c, size_t m, char *b, size_t n)
{
    const struct creport_entry *en = creport_at(r, v, c, m);
    char val[32], chg[32] = "";
    /* The mean: the statistic the change and the verdict beside it are computed on. */
    fmt_num(val, sizeof(val), en->mean);
    if (en->has_cmp && en->cmp.verdict.on_difference)
        fmt_pct(chg, sizeof(chg), en->cmp.diff, false, 1); /* no ratio: the difference */
    else if (en->has_cmp)
        fmt_pct(chg, sizeof(chg), en->cmp.verdict.rel * 100, true, 1);
    else if (v)
        snprintf(chg, sizeof(chg), "n/a");
    snprintf(b, n, "%*s %*s %c", VAL_W, val, CHG_W, chg, marker(en));
}

static void n_entry(const struct creport *r, size_t v, size_t c, size_t m, char *b, size_t n)
{
    (void)m;
    snprintf(b, n, "%*ld", VAL_W, r->n_measured[v * r->ncells + c]);
}

static void print_metric_tables(FILE *f, const struct creport *r, size_t *cols)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    for (size_t i = 0; i < r->norder; i++) {
        size_t m = r->order[i], ncols = 0;
        for (size_t c = 0; c < r->ncells; c++)
            if (creport_at(r, 0, c, m)->shown)
                cols[ncols++] = c;
        if (!ncols)
            continue;
        fprintf(f, "\n%s, %s (%s is better)\n", md[m].title, md[m].unit,
                md[m].lower_is_better ? "lower" : "higher");
        print_table(f, r, cols, ncols, m, metric_entry);
    }
}

/* "+2.53% [+1.20, +3.84]", or "diff -60.8 [-68.4, -53.2]" when the ratio is undefined. */
static void change_text(const struct stats_comparison *c, char *b, size_t n)
{
    char x[16], lo[16], hi[16];
    if (c->verdict.on_difference) {
        snprintf(b, n, "diff %+.3g [%+.3g, %+.3g] (baseline reaches 0)", c->diff, c->diff_ci_low,
                 c->diff_ci_high);
        return;
    }
    fmt_pct(x, sizeof(x), c->verdict.rel * 100, true, 2);
    fmt_pct(lo, sizeof(lo), c->verdict.rel_low * 100, false, 2);
    fmt_pct(hi, sizeof(hi), c->verdict.rel_high * 100, false, 2);
    snprintf(b, n, "%s [%s, %s]", x, lo, hi);
}

static void print_details(FILE *f, const struct creport *r)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    if (r->nvariants < 2)
        return;
    fprintf(f, "\nChanges against %s: mean, [%g%% CI], Welch p; > deciding\n", r->variants[0],
            r->opts.confidence * 100);
    for (size_t v = 1; v < r->nvariants; v++)
        for (size_t c = 0; c < r->ncells; c++) {
            bool any = false;
            for (size_t i = 0; i < r->norder; i++)
                any |= creport_at(r, v, c, r->order[i])->shown;
            if (!any)
                continue;
            wrapf(f, "", "    ", "%s @ %s%s%s%s:", r->variants[v], cell_display(r, c),
                  r->cells[c].test[0] ? " (" : "", r->cells[c].test,
                  r->cells[c].test[0] ? ")" : "");
            for (size_t i = 0; i < r->norder; i++) {
                size_t m = r->order[i];
                const struct creport_entry *en = creport_at(r, v, c, m);
                if (!en->shown)
                    continue;
                const char *lead = (int)m == r->cells[c].decide ? "> " : "  ";
                if (!en->has_cmp) {
                    wrapf(f, lead, "    ", "%-11s not compared: %s", md[m].label, en->why);
                    continue;
                }
                char chg[96], p[32];
                change_text(&en->cmp, chg, sizeof(chg));
                snprintf(p, sizeof(p), "%.2g", en->cmp.welch.p);
                wrapf(f, lead, "    ", "%-11s %s p=%s %s", md[m].label, chg, p,
                      stats_verdict_name(en->cmp.verdict.kind));
            }
        }
}

static void print_json_leaf(char *b, size_t n, json_t *v)
{
    char *s = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    snprintf(b, n, "%s", s ? s : "null");
    free(s);
}

/* The one-line gist of a layout summary: hot functions moved, all moved, size change. */
static void layout_gist(const json_t *sum, char *b, size_t n)
{
    const json_t *hot = json_object_get(sum, "hot"), *size = json_object_get(sum, "size");
    snprintf(b, n,
             "%lld of %lld hot functions (%lld of %lld in all) changed offset; size %+lld bytes",
             (long long)json_integer_value(json_object_get(hot, "offset_changed")),
             (long long)json_integer_value(json_object_get(hot, "in_both")),
             (long long)json_integer_value(json_object_get(sum, "offset_changed")),
             (long long)json_integer_value(json_object_get(sum, "common")),
             (long long)json_integer_value(json_object_get(size, "delta")));
}

/* The "Code layout" section: each variant's layout file against the baseline's. */
static void print_layout(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *x;
    if (!json_array_size(r->layout))
        return;
    fprintf(f, "Code layout against %s (netab layout, built-in network hot set):\n",
            r->variants[0]);
    json_array_foreach(r->layout, i, x)
    {
        const char *name = json_string_value(json_object_get(x, "variant"));
        const json_t *sum = json_object_get(x, "summary");
        if (!json_is_object(sum)) {
            wrapf(f, "  ", "    ", "%s: not compared: %s", name,
                  json_string_value(json_object_get(x, "error")));
            continue;
        }
        char gist[256];
        layout_gist(sum, gist, sizeof(gist));
        wrapf(f, "  ", "    ", "%s: %s.", name, gist);
        wrap(f, "    ", "    ", json_string_value(json_object_get(sum, "verdict")));
    }
}

static void print_footer(FILE *f, const struct creport *r, size_t *cols)
{
    fprintf(f, "\n-- \n");
    wrapf(f, "", "  ", "Experiment %lld \"%s\" (%s), seed %llu.", (long long)r->id, r->name,
          r->status, (unsigned long long)r->seed);
    wrapf(f, "", "  ",
          "Runs: %ld planned, %ld measured, %ld warm-ups excluded; %ld failed, %ld "
          "interrupted%s (attempts, not used).",
          r->runs.planned, r->runs.measured, r->runs.warmup, r->runs.failed, r->runs.interrupted,
          r->runs.running ? ", some still running" : "");
    fprintf(f, "Measured runs (n) per variant and cell:\n");
    for (size_t c = 0; c < r->ncells; c++)
        cols[c] = c;
    print_table(f, r, cols, r->ncells, 0, n_entry);
    bool legend = false;
    for (size_t c = 0; c < r->ncells; c++)
        legend |= strlen(cell_display(r, c)) > COL_W || r->cells[c].test[0];
    if (legend) {
        fprintf(f, "Cells:\n");
        for (size_t c = 0; c < r->ncells; c++) {
            char h[64];
            cell_heading(r, c, h, sizeof(h));
            wrapf(f, "  ", "      ", "%s%s%s%s%s%s", strcmp(h, cell_display(r, c)) ? h : "",
                  strcmp(h, cell_display(r, c)) ? " = " : "", cell_display(r, c),
                  r->cells[c].test[0] ? " (" : "", r->cells[c].test,
                  r->cells[c].test[0] ? ")" : "");
        }
    }
    wrapf(f, "", "  ",
          "Noise floor %g%%, confidence %g%%: a change is improved or regressed only when p "
          "< %g and its whole interval lies beyond the floor; within noise when the whole "
          "interval lies inside it. Marks: * improved, ! regressed, = within noise, ? no "
          "difference proven.",
          r->opts.noise * 100, r->opts.confidence * 100, 1 - r->opts.confidence);

    print_layout(f, r);
    size_t i, j;
    json_t *d, *x;
    if (json_array_size(r->env_diffs)) {
        fprintf(f, "Environment differences from %s (first ok run of each):\n", r->variants[0]);
        json_array_foreach(r->env_diffs, i, d)
        {
            json_t *diffs = json_object_get(d, "differences");
            const char *name = json_string_value(json_object_get(d, "variant"));
            json_array_foreach(json_object_get(d, "identity_notes"), j, x)
            {
                wrapf(f, "  ", "    ", "%s: %s", name, json_string_value(x));
            }
            if (!json_array_size(diffs))
                wrapf(f, "  ", "    ", "%s: none", name);
            json_array_foreach(diffs, j, x)
            {
                char a[256], b[256];
                print_json_leaf(a, sizeof(a), json_object_get(x, "a"));
                print_json_leaf(b, sizeof(b), json_object_get(x, "b"));
                wrapf(f, "  ", "    ", "%s: %s: %s -> %s", name,
                      json_string_value(json_object_get(x, "path")), a, b);
            }
        }
    }
    creport_print_counters(f, r);
    if (json_array_size(r->env_warnings)) {
        fprintf(f, "Environment warnings (any run):\n");
        json_array_foreach(r->env_warnings, i, x) wrap(f, "- ", "  ", json_string_value(x));
    }
    if (json_array_size(r->stats_warnings)) {
        fprintf(f, "Statistics warnings (deciding metrics):\n");
        json_array_foreach(r->stats_warnings, i, x)
        {
            wrapf(f, "- ", "  ", "%s @ %s, %s: %s",
                  json_string_value(json_object_get(x, "variant")),
                  json_string_value(json_object_get(x, "cell")),
                  json_string_value(json_object_get(x, "metric")),
                  json_string_value(json_object_get(x, "message")));
        }
    }
    wrapf(f, "", "  ",
          "Verdicts: %zu improved, %zu regressed, %zu within noise, %zu no difference "
          "proven, %zu not compared.",
          r->n_improved, r->n_regressed, r->n_within, r->n_unproven, r->n_nocmp);
    if (r->n_regressed_deciding)
        wrapf(f, "", "  ",
              "REGRESSION: %zu deciding-metric comparison%s regressed (exit status 1).",
              r->n_regressed_deciding, r->n_regressed_deciding == 1 ? "" : "s");
    else
        wrapf(f, "", "  ", "No deciding-metric comparison regressed.");
}

int creport_print_text(const struct creport *r, FILE *f)
{
    size_t *cols = calloc(r->ncells ? r->ncells : 1, sizeof(*cols));
    if (!cols)
        return -ENOMEM;
    wrapf(f, "", "  ", "netab report: experiment %lld \"%s\"", (long long)r->id, r->name);
    char list[1024] = "";
    for (size_t v = 0, u = 0; v < r->nvariants && u < sizeof(list); v++)
        u += (size_t)snprintf(list + u, sizeof(list) - u, "%s%s%s", v ? ", " : "", r->variants[v],
                              v ? "" : " (baseline)");
    wrapf(f, "", "  ", "Variants: %s", r->nvariants ? list : "none");
    if (!r->runs.measured)
        fprintf(f, "\nNo measured ok runs yet.\n");
    else
        wrapf(f, "", "  ",
              "Entries: the mean of the measured runs and, for other variants, the change of "
              "the mean against the baseline, on which the verdict mark is decided.");
    print_metric_tables(f, r, cols);
    print_details(f, r);
    int e = creport_print_values_text(r, f);
    print_footer(f, r, cols);
    free(cols);
    if (e)
        return e;
    return ferror(f) ? -EIO : 0;
}

/* --- Markdown ------------------------------------------------------------ */

/* Writes s with '|' escaped, so that it stays inside its table cell. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
}

static void md_metric_tables(FILE *f, const struct creport *r)
{
    size_t nm;
    const struct creport_metric *md = creport_report_metrics(r, &nm);
    for (size_t i = 0; i < r->norder; i++) {
        size_t m = r->order[i];
        bool any = false;
        for (size_t c = 0; c < r->ncells; c++)
            any |= creport_at(r, 0, c, m)->shown;
        if (!any)
            continue;
        fprintf(f, "\n### %s, %s (%s is better)\n\n| variant |", md[m].title, md[m].unit,
                md[m].lower_is_better ? "lower" : "higher");
        for (size_t c = 0; c < r->ncells; c++)
            if (creport_at(r, 0, c, m)->shown) {
                fputc(' ', f);
                md_text(f, cell_display(r, c));
                fputs(" |", f);
            }
        fputs("\n|---|", f);
        for (size_t c = 0; c < r->ncells; c++)
            if (creport_at(r, 0, c, m)->shown)
                fputs("---:|", f);
        fputc('\n', f);
        for (size_t v = 0; v < r->nvariants; v++) {
            fputs("| ", f);
            md_text(f, r->variants[v]);
            fputs(" |", f);
            for (size_t c = 0; c < r->ncells; c++) {
                const struct creport_entry *en = creport_at(r, v, c, m);
                if (!en->shown)
                    continue;
                char val[32], chg[96];
                fmt_num(val, sizeof(val), en->mean);
                fprintf(f, " %s", val);
                if (en->has_cmp) {
                    change_text(&en->cmp, chg, sizeof(chg));
                    fprintf(f, " (%s %s)", chg, stats_verdict_name(en->cmp.verdict.kind));
                }
                fputs(" |", f);
            }
            fputc('\n', f);
        }
    }
}

/* The code layout section as a table: one row per variant with a layout file. */
static void md_layout(FILE *f, const struct creport *r)
{
    size_t i;
    json_t *x;
    if (!json_array_size(r->layout))
        return;
    fprintf(f, "\n### Code layout against ");
    md_text(f, r->variants[0]);
    fprintf(f, "\n\n| variant | layout | verdict |\n|---|---|---|\n");
    json_array_foreach(r->layout, i, x)
    {
        const json_t *sum = json_object_get(x, "summary");
        char gist[256] = "not compared";
        if (json_is_object(sum))
            layout_gist(sum, gist, sizeof(gist));
        fputs("| ", f);
        md_text(f, json_string_value(json_object_get(x, "variant")));
        fputs(" | ", f);
        md_text(f, gist);
        fputs(" | ", f);
        md_text(f, json_is_object(sum) ? json_string_value(json_object_get(sum, "verdict"))
                                       : json_string_value(json_object_get(x, "error")));
        fputs(" |\n", f);
    }
}

static void md_footer(FILE *f, const struct creport *r)
{
    size_t i, j;
    json_t *d, *x;
    fprintf(f, "\n### Runs\n\n| variant |");
    for (size_t c = 0; c < r->ncells; c++) {
        fputc(' ', f);
        md_text(f, cell_display(r, c));
        fputs(" |", f);
    }
    fputs("\n|---|", f);
    for (size_t c = 0; c < r->ncells; c++)
        fputs("---:|", f);
    fputc('\n', f);
    for (size_t v = 0; v < r->nvariants; v++) {
        fputs("| ", f);
        md_text(f, r->variants[v]);
        fputs(" |", f);
        for (size_t c = 0; c < r->ncells; c++)
            fprintf(f, " %ld |", r->n_measured[v * r->ncells + c]);
        fputc('\n', f);
    }
    fprintf(f,
            "\n- Experiment %lld \"%s\" (%s), seed %llu\n- Runs: %ld planned, %ld measured, %ld "
            "warm-ups excluded, %ld failed, %ld interrupted\n- Noise floor %g%%, confidence "
            "%g%%\n- Verdicts: %zu improved, %zu regressed, %zu within noise, %zu no difference "
            "proven, %zu not compared\n- %s\n",
            (long long)r->id, r->name, r->status, (unsigned long long)r->seed, r->runs.planned,
            r->runs.measured, r->runs.warmup, r->runs.failed, r->runs.interrupted,
            r->opts.noise * 100, r->opts.confidence * 100, r->n_improved, r->n_regressed,
            r->n_within, r->n_unproven, r->n_nocmp,
            r->n_regressed_deciding ? "**A deciding metric regressed** (exit status 1)"
                                    : "No deciding metric regressed");
    md_layout(f, r);
    if (json_array_size(r->env_diffs)) {
        fprintf(f,
                "\n### Environment differences from %s\n\n| variant | fact | %s | variant |\n"
                "|---|---|---|---|\n",
                r->variants[0], r->variants[0]);
        json_array_foreach(r->env_diffs, i, d)
        {
            json_array_foreach(json_object_get(d, "identity_notes"), j, x)
            {
                fputs("| ", f);
                md_text(f, json_string_value(json_object_get(d, "variant")));
                fputs(" | build | ", f);
                md_text(f, json_string_value(x));
                fputs(" | |\n", f);
            }
            json_array_foreach(json_object_get(d, "differences"), j, x)
            {
                char a[256], b[256];
                print_json_leaf(a, sizeof(a), json_object_get(x, "a"));
                print_json_leaf(b, sizeof(b), json_object_get(x, "b"));
                fputs("| ", f);
                md_text(f, json_string_value(json_object_get(d, "variant")));
                fputs(" | `", f);
                md_text(f, json_string_value(json_object_get(x, "path")));
                fputs("` | ", f);
                md_text(f, a);
                fputs(" | ", f);
                md_text(f, b);
                fputs(" |\n", f);
            }
        }
    }
    if (json_array_size(r->env_warnings) || json_array_size(r->stats_warnings)) {
        fprintf(f, "\n### Warnings\n\n");
        json_array_foreach(r->env_warnings, i, x) fprintf(f, "- %s\n", json_string_value(x));
        json_array_foreach(r->stats_warnings, i, x)
        {
            fprintf(f, "- %s @ %s, %s: %s\n", json_string_value(json_object_get(x, "variant")),
                    json_string_value(json_object_get(x, "cell")),
                    json_string_value(json_object_get(x, "metric")),
                    json_string_value(json_object_get(x, "message")));
        }
    }
}

int creport_print_markdown(const struct creport *r, FILE *f)
{
    fprintf(f, "## netab report: experiment %lld \"", (long long)r->id);
    md_text(f, r->name);
    fprintf(f, "\"\n\nBaseline: **");
    md_text(f, r->nvariants ? r->variants[0] : "none");
    fprintf(f,
            "**. Each entry: the mean of the measured runs; for other variants the change of "
            "the mean against the baseline [%g%% CI] and the verdict, both computed on the "
            "mean (medians are in the JSON and CSV forms).\n",
            r->opts.confidence * 100);
    md_metric_tables(f, r);
    int e = creport_print_values_markdown(r, f);
    md_footer(f, r);
    if (e)
        return e;
    return ferror(f) ? -EIO : 0;
}
