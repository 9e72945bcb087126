/*
 * The comparison forest (each change against the baseline with its
 * interval, the noise floor shaded, the verdict written out) and the matrix
 * heatmap of changes per variant and cell.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot.h"
#include "plot/plot_axis.h"
#include "plot/plot_figures.h"

/* Verdict colours from the palette; the verdict is also written out, for greyscale. */
static void verdict_colour(cairo_t *cr, enum stats_verdict_kind k)
{
    double rgb[3] = {0.45, 0.45, 0.45};
    if (k == STATS_REGRESSED)
        plot_colour(1, rgb);
    else if (k == STATS_IMPROVED)
        plot_colour(2, rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
}

const char *plot_forest_row_text(const struct plot_forest_row *r, char *buf, size_t len)
{
    if (!r->has)
        return "not compared";
    if (!isfinite(r->rel))
        snprintf(buf, len, "%s (no ratio: baseline reaches 0)", stats_verdict_name(r->verdict));
    else
        snprintf(buf, len, "%s %+.3g%%", stats_verdict_name(r->verdict), 100 * r->rel);
    return buf;
}

/* The widest of the rows' labels at size pt. */
static double widest(cairo_t *cr, const struct plot_forest *fo, double size, bool verdicts)
{
    double wmax = 0;
    cairo_set_font_size(cr, size);
    for (size_t i = 0; i < fo->n; i++) {
        cairo_text_extents_t te;
        char buf[96];
        const char *s = fo->rows[i].label;
        if (verdicts)
            s = plot_forest_row_text(&fo->rows[i], buf, sizeof(buf));
        cairo_text_extents(cr, s, &te);
        wmax = fmax(wmax, te.x_advance);
    }
    return wmax;
}

/* The x scale in percent: zero, the noise band and every interval. */
static void fit_forest(struct plot_scale *s, const struct plot_forest *fo)
{
    double *v = malloc((3 * fo->n + 2) * sizeof(double));
    size_t m = 0;
    if (v) {
        v[m++] = -100 * fo->noise;
        v[m++] = 100 * fo->noise;
        for (size_t i = 0; i < fo->n; i++)
            if (fo->rows[i].has) {
                v[m++] = 100 * fo->rows[i].rel;
                v[m++] = 100 * fo->rows[i].low;
                v[m++] = 100 * fo->rows[i].high;
            }
    }
    plot_scale_fit(s, v, m, false, true);
    free(v);
}

/* Row i's interval, estimate and verdict at height y. */
static void draw_row(cairo_t *cr, const struct plot_scale *s, const struct plot_forest_row *r,
                     double y, double xv)
{
    char buf[96];
    if (!r->has || !isfinite(r->rel)) {
        if (r->has)
            verdict_colour(cr, r->verdict);
        else
            cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        plot_text(cr, xv, y, plot_forest_row_text(r, buf, sizeof(buf)), 11, 0, 0.5, 0);
        return;
    }
    verdict_colour(cr, r->verdict);
    cairo_set_line_width(cr, 2.5);
    double lo = isfinite(r->low) ? r->low : r->rel, hi = isfinite(r->high) ? r->high : r->rel;
    cairo_move_to(cr, plot_scale_map(s, 100 * lo), y);
    cairo_line_to(cr, plot_scale_map(s, 100 * hi), y);
    cairo_stroke(cr);
    cairo_set_line_width(cr, 1);
    double x = plot_scale_map(s, 100 * r->rel);
    cairo_move_to(cr, x, y - 6);
    cairo_line_to(cr, x + 6, y);
    cairo_line_to(cr, x, y + 6);
    cairo_line_to(cr, x - 6, y);
    cairo_close_path(cr);
    cairo_fill(cr);
    plot_text(cr, xv, y, plot_forest_row_text(r, buf, sizeof(buf)), 11, 0, 0.5, 0);
}

void plot_draw_forest(cairo_t *cr, double w, double h, const void *arg)
{
    const struct plot_forest *fo = arg;
    struct plot_frame f;
    plot_frame_default(&f, w, h);
    /* Labels that would not fit in 40% of the width get a smaller font, down to 7 pt. */
    double lw = widest(cr, fo, 11, false), lsize = 11;
    if (lw > w * 0.4 - 30)
        lsize = fmax(7, 11 * (w * 0.4 - 30) / lw);
    f.x0 = fmin(20 + lw * lsize / 11 + 10, w * 0.4);
    f.x1 = fmax(w - widest(cr, fo, 11, true) - 70, f.x0 + 100);
    struct plot_scale s = {.p0 = f.x0, .p1 = f.x1};
    fit_forest(&s, fo);
    plot_title(cr, w, fo->title);
    /* The noise floor: changes inside this band are too small to act on. */
    double b0 = plot_scale_map(&s, -100 * fo->noise), b1 = plot_scale_map(&s, 100 * fo->noise);
    cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
    cairo_rectangle(cr, b0, f.y0, fmax(b1 - b0, 1), f.y1 - f.y0);
    cairo_fill(cr);
    char axis[96];
    snprintf(axis, sizeof(axis), "change against the baseline (%%); shaded: noise floor +-%g%%",
             100 * fo->noise);
    plot_axis_x(cr, &s, &f, axis);
    cairo_set_source_rgb(cr, 0, 0, 0);
    double x0 = plot_scale_map(&s, 0);
    cairo_move_to(cr, x0, f.y0);
    cairo_line_to(cr, x0, f.y1);
    cairo_stroke(cr);
    double step = (f.y1 - f.y0) / (double)(fo->n ? fo->n : 1);
    for (size_t i = 0; i < fo->n; i++) {
        double y = f.y0 + step * ((double)i + 0.5);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(cr, f.x0 - 8, y, fo->rows[i].label, lsize, 1, 0.5, 0);
        draw_row(cr, &s, &fo->rows[i], y, f.x1 + 8);
    }
}

/*
 * A diverging colour for a change of rel (fraction), better or worse by the
 * metric's direction: blue for better, vermillion for worse, paler when
 * small; saturated at 25 %.
 */
static void change_colour(double rel, bool lower_is_better, double rgb[3])
{
    double t = fmin(fabs(rel) / 0.25, 1);
    bool better = lower_is_better ? rel < 0 : rel > 0;
    double c[3];
    plot_colour(better ? 0 : 1, c);
    for (int k = 0; k < 3; k++)
        rgb[k] = 1 - t * (1 - c[k]) * 0.85;
}

void plot_draw_heatmap(cairo_t *cr, double w, double h, const void *arg)
{
    const struct plot_heatmap *hm = arg;
    struct plot_frame f;
    plot_frame_default(&f, w, h);
    f.x0 = 140;
    plot_title(cr, w, hm->title);
    double cw = (f.x1 - f.x0) / (double)(hm->ncols ? hm->ncols : 1);
    double ch = (f.y1 - f.y0) / (double)(hm->nrows ? hm->nrows : 1);
    char buf[64];
    for (size_t r = 0; r < hm->nrows; r++) {
        double y = f.y0 + ch * (double)r;
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(cr, f.x0 - 8, y + ch / 2, hm->rows[r], 11, 1, 0.5, 0);
        for (size_t c = 0; c < hm->ncols; c++) {
            double x = f.x0 + cw * (double)c, rel = hm->rel[r * hm->ncols + c];
            bool sig = hm->significant[r * hm->ncols + c];
            double rgb[3] = {0.85, 0.85, 0.85};
            if (isfinite(rel) && sig)
                change_colour(rel, hm->lower_is_better, rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, x + 1, y + 1, cw - 2, ch - 2);
            cairo_fill(cr);
            if (isfinite(rel))
                snprintf(buf, sizeof(buf), "%+.3g%%%s", 100 * rel, sig ? "" : " (n.s.)");
            else
                snprintf(buf, sizeof(buf), "%s", r ? "none" : "baseline");
            cairo_set_source_rgb(cr, 0, 0, 0);
            plot_text(cr, x + cw / 2, y + ch / 2, buf, 11, 0.5, 0.5, 0);
        }
    }
    for (size_t c = 0; c < hm->ncols; c++)
        plot_text(cr, f.x0 + cw * ((double)c + 0.5), f.y1 + 6, hm->cols[c][0] ? hm->cols[c] : "-",
                  11, 0.5, 0, 0);
    plot_text(cr, (f.x0 + f.x1) / 2, f.y1 + 26,
              "change against the baseline; grey: not significant (n.s.) or none", 11, 0.5, 0, 0);
}
