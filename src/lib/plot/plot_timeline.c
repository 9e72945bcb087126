/* The interval timeline of one run: one point per interval and series, joined by a line. */
#include <math.h>
#include <stdlib.h>

#include "plot/plot.h"
#include "plot/plot_axis.h"
#include "plot/plot_figures.h"

/* Time and value scales over every interval of every series (and the omitted warm-up). */
static void fit_timeline(struct plot_scale *sx, struct plot_scale *sy,
                         const struct plot_timeline *t)
{
    size_t n = 0;
    for (size_t k = 0; k < t->nseries; k++)
        n += t->series[k].n;
    double *xs = malloc((2 * n + 2) * sizeof(double)), *ys = malloc((n + 1) * sizeof(double));
    size_t mx = 0, my = 0;
    if (xs && ys) {
        xs[mx++] = -t->omit;
        xs[mx++] = 0;
        for (size_t k = 0; k < t->nseries; k++)
            for (size_t i = 0; i < t->series[k].n; i++) {
                xs[mx++] = t->series[k].t0[i];
                xs[mx++] = t->series[k].t1[i];
                ys[my++] = t->series[k].y[i];
            }
    }
    plot_scale_fit(sx, xs, mx, false, true);
    plot_scale_fit(sy, ys, my, false, true);
    free(xs);
    free(ys);
}

void plot_draw_timeline(cairo_t *cr, double w, double h, const void *arg)
{
    const struct plot_timeline *t = arg;
    struct plot_frame f;
    plot_frame_default(&f, w, h);
    struct plot_scale sx = {.p0 = f.x0, .p1 = f.x1}, sy = {.p0 = f.y1, .p1 = f.y0};
    fit_timeline(&sx, &sy, t);
    plot_title(cr, w, t->title);
    if (t->omit > 0) {
        double a = plot_scale_map(&sx, -t->omit), b = plot_scale_map(&sx, 0);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_rectangle(cr, a, f.y0, b - a, f.y1 - f.y0);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        plot_text(cr, (a + b) / 2, f.y1 - 16, "warm-up (omitted)", 10, 0.5, 0, 0);
    }
    if (t->band1 > t->band0) {
        double a = plot_scale_map(&sx, t->band0), b = plot_scale_map(&sx, t->band1);
        cairo_set_source_rgb(cr, 0.93, 0.90, 0.84);
        cairo_rectangle(cr, a, f.y0, b - a, f.y1 - f.y0);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        plot_text(cr, (a + b) / 2, f.y0 + 14, t->band_label ? t->band_label : "", 10, 0.5, 0, 0);
    }
    plot_axis_y(cr, &sy, &f, t->axis);
    plot_axis_x(cr, &sx, &f, "time (s)");
    for (size_t k = 0; k < t->nseries; k++) {
        const struct plot_series *s = &t->series[k];
        double rgb[3];
        plot_colour(k, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_set_line_width(cr, 1.5);
        for (size_t i = 0; i < s->n; i++) {
            double x = plot_scale_map(&sx, (s->t0[i] + s->t1[i]) / 2);
            double y = plot_scale_map(&sy, s->y[i]);
            if (i)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
        }
        cairo_stroke(cr);
        cairo_set_line_width(cr, 1);
        for (size_t i = 0; i < s->n; i++)
            plot_marker(cr, k, plot_scale_map(&sx, (s->t0[i] + s->t1[i]) / 2),
                        plot_scale_map(&sy, s->y[i]), 4);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, f.x1 - 130, f.y0 + 8 + 16 * (double)k, 8, 8);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(cr, f.x1 - 118, f.y0 + 12 + 16 * (double)k, s->name, 11, 0, 0.5, 0);
    }
}
