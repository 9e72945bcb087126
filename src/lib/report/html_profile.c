/*
 * The HTML report's differential profiles (profile.h): per
 * comparison a bar figure of the functions' change in share, with the
 * interval drawn as a whisker, and the same rows as a table. Rendering
 * only: the numbers are the model's (r->profdiffs).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/hotplace.h"
#include "report/html.h"
#include "report/profile.h"

#define ROW_H 18
#define LABEL_W 230
#define BAR_W 400

static const char *colour(const struct profdiff_row *row)
{
    return row->verdict > 0 ? "#d55e00" : row->verdict < 0 ? "#0072b2" : "#999999";
}

/* The largest distance from 0 any bar or whisker reaches, for a symmetric scale. */
static double reach(const struct profdiff *d)
{
    double m = 0.1;
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *row = &d->rows[i];
        m = fmax(m, fabs(row->other_pct - row->base_pct));
        if (row->have_interval && row->kind == PROFDIFF_CHANGED)
            m = fmax(m, fmax(fabs(row->w.ci_low), fabs(row->w.ci_high)));
    }
    return m;
}

static void bars(FILE *f, const struct profdiff *d)
{
    double m = reach(d), mid = LABEL_W + BAR_W / 2.0, k = (BAR_W / 2.0 - 4) / m;
    int h = (int)d->n * ROW_H + 24;
    fprintf(f,
            "<svg class=\"profdiff\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
            "role=\"img\" aria-label=\"change in share of samples, percentage points\">\n",
            LABEL_W + BAR_W + 70, h, LABEL_W + BAR_W + 70, h);
    fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", mid, mid,
            h - 20);
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *row = &d->rows[i];
        double y = (double)i * ROW_H, x = mid + k * (row->other_pct - row->base_pct);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"12\">", LABEL_W - 6,
                y + 13);
        /* The label column holds about 32 characters; the table has the whole name. */
        creport_html_escf(f, "%.30s%s", row->symbol, strlen(row->symbol) > 30 ? "..." : "");
        fprintf(f,
                "</text>\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
                "fill=\"%s\"/>\n",
                fmin(x, mid), y + 3, fabs(x - mid), ROW_H - 6, colour(row));
        if (row->have_interval && row->kind == PROFDIFF_CHANGED)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
                    mid + k * row->w.ci_low, y + ROW_H / 2.0, mid + k * row->w.ci_high,
                    y + ROW_H / 2.0);
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\">%+.1f</text>\n", LABEL_W + BAR_W + 4,
                y + 13, row->other_pct - row->base_pct);
    }
    fprintf(f,
            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">change in share "
            "of samples, points (&#177;%.1f at the edges)</text>\n</svg>\n",
            mid, h - 6, m);
}

static void table(FILE *f, const struct profdiff *d)
{
    fputs("<div class=\"scroll\"><table class=\"profdiff\">\n<tr><th scope=\"col\">function"
          "</th><th scope=\"col\">module</th><th scope=\"col\">base %</th><th scope=\"col\">"
          "new %</th><th scope=\"col\">change, points [CI]</th><th scope=\"col\">verdict</th>"
          "</tr>\n",
          f);
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_row *row = &d->rows[i];
        fputs("<tr><td>", f);
        creport_html_esc(f, row->symbol);
        fputs("</td><td>", f);
        creport_html_esc(f, row->module);
        fprintf(f, "</td><td>%.2f</td><td>%.2f</td><td>%+.2f", row->base_pct, row->other_pct,
                row->other_pct - row->base_pct);
        if (row->have_interval && row->kind == PROFDIFF_CHANGED)
            fprintf(f, " [%+.2f, %+.2f]", row->w.ci_low, row->w.ci_high);
        fprintf(f, "</td><td class=\"%s\">%s</td></tr>\n",
                row->verdict > 0   ? "regressed"
                : row->verdict < 0 ? "improved"
                                   : "",
                profdiff_word(row));
    }
    fputs("</table></div>\n", f);
}

/* A pair of a group's figures, base > new, "-" for a NaN. */
static void group_pair(FILE *f, const double *v, int digits)
{
    fputs("<td>", f);
    for (int side = 0; side < 2; side++) {
        if (side)
            fputs(" &gt; ", f);
        if (isfinite(v[side]))
            fprintf(f, "%.*f", digits, v[side]);
        else
            fputs("-", f);
    }
    fputs("</td>", f);
}

/* A group of events' figures per function (profdiff.h): each event's share, IPC, L1i misses. */
static void group_table(FILE *f, const struct profdiff *d)
{
    if (d->nev < 2)
        return;
    fputs("<p>Per event, base &gt; new (% of each event's count, from the runs' top 30 "
          "functions):</p>\n<div class=\"scroll\"><table class=\"profdiff\">\n<tr><th "
          "scope=\"col\">function</th><th scope=\"col\">module</th>",
          f);
    for (int k = 0; k < d->nev; k++) {
        fputs("<th scope=\"col\">", f);
        creport_html_esc(f, d->ev[k]);
        fputs(" %</th>", f);
    }
    fputs("<th scope=\"col\">IPC</th><th scope=\"col\">L1i misses / 1k instr.</th></tr>\n", f);
    for (size_t i = 0; i < d->n; i++) {
        const struct profdiff_group *g = &d->rows[i].g;
        fputs("<tr><td>", f);
        creport_html_esc(f, d->rows[i].symbol);
        fputs("</td><td>", f);
        creport_html_esc(f, d->rows[i].module);
        fputs("</td>", f);
        for (int k = 0; k < d->nev; k++) {
            double v[2] = {g->share[0][k], g->share[1][k]};
            group_pair(f, v, 2);
        }
        group_pair(f, g->ipc, 2);
        group_pair(f, g->l1i_mpki, 2);
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
}

static void spot_cells(FILE *f, const struct creport_spot *s)
{
    if (!s->found) {
        fputs("<td>-</td><td>-</td><td>-</td>", f);
        return;
    }
    fprintf(f, "<td><code>0x%" PRIx64 "</code>%s</td><td>%u</td>", s->addr,
            s->count > 1 ? " (1st of several)" : "", s->offset);
    if (s->lines)
        fprintf(f, "<td>%" PRIu64 "</td>", s->lines);
    else
        fputs("<td>?</td>", f);
}

/* The rows' cache-line placement in the two variants' builds, or why it is not shown. */
static void placement(FILE *f, const struct creport *r, const struct creport_profdiff *p)
{
    if (p->place_error) {
        fputs("<p>Cache-line placement not shown: ", f);
        creport_html_esc(f, p->place_error);
        fputs("</p>\n", f);
        return;
    }
    if (!p->place)
        return;
    fprintf(f, "<p>Placement in %u-byte lines (base: <code>", r->place_line);
    creport_html_esc(f, r->layouts[0]);
    fputs("</code>, new: <code>", f);
    creport_html_esc(f, r->layouts[p->v]);
    fputs("</code>)</p>\n<div class=\"scroll\"><table class=\"placement\">\n<tr><th scope=\"col\">"
          "function</th><th scope=\"col\">base address</th><th scope=\"col\">base offset</th>"
          "<th scope=\"col\">base lines</th><th scope=\"col\">new address</th>"
          "<th scope=\"col\">new offset</th><th scope=\"col\">new lines</th>"
          "<th scope=\"col\">placement</th></tr>\n",
          f);
    for (size_t i = 0; i < p->d.n; i++) {
        const struct creport_placement *x = &p->place[i];
        fputs("<tr><td>", f);
        creport_html_esc(f, p->d.rows[i].symbol);
        fputs("</td>", f);
        spot_cells(f, &x->base);
        spot_cells(f, &x->other);
        /* A change is a reason to rebuild with forced alignment, not a verdict: bold, no colour. */
        bool changed = x->offset_changed || x->lines_changed;
        fprintf(f, "<td>%s%s%s</td></tr>\n", changed ? "<strong>" : "", creport_placement_word(x),
                changed ? "</strong>" : "");
    }
    fputs("</table></div>\n", f);
}

void creport_html_profile(FILE *f, const struct creport *r)
{
    if (!r->nprofdiffs)
        return;
    fputs("<section id=\"profile\">\n<h2>Differential profile</h2>\n<p>Per cell and variant "
          "against the baseline, the functions whose share of the samples changed most; each "
          "run's share is one observation, the interval Welch's. A function missing from a "
          "run's full profile counts 0 there.</p>\n",
          f);
    for (size_t i = 0; i < r->nprofdiffs; i++) {
        const struct creport_profdiff *p = &r->profdiffs[i];
        fputs("<h3>", f);
        creport_html_escf(f, "%s: %s against %s",
                          r->cells[p->c].name[0] ? r->cells[p->c].name : "(all)", r->variants[p->v],
                          r->variants[0]);
        fprintf(f, " (%zu and %zu profiled runs%s%s)</h3>\n", p->d.base_runs, p->d.other_runs,
                p->scope[0] ? ", scope " : "", p->scope);
        bars(f, &p->d);
        table(f, &p->d);
        group_table(f, &p->d);
        placement(f, r, p);
    }
    fputs("</section>\n", f);
}
