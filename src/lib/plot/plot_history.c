/* netab history's figure (plot/plot_history.h). */
#include "plot/plot_history.h"

#include <math.h>

#include "plot/plot.h"
#include "plot/plot_axis.h"

/* The mean of y[a..b-1]. */
static double mean(const double *y, size_t a, size_t b)
{
    double s = 0;
    for (size_t i = a; i < b; i++)
        s += y[i];
    return b > a ? s / (double)(b - a) : NAN;
}

/* Each segment's mean as a horizontal line across its points. */
static void draw_segments(cairo_t *cr, const struct plot_history *p, const struct plot_scale *sx,
                          const struct plot_scale *sy)
{
    cairo_set_source_rgb(cr, 0.85, 0.2, 0.1);
    cairo_set_line_width(cr, 2);
    for (size_t k = 0; k <= p->ncuts; k++) {
        size_t a = k ? p->cuts[k - 1] : 0, b = k < p->ncuts ? p->cuts[k] : p->n;
        double m = mean(p->y, a, b);
        if (!isfinite(m))
            continue;
        cairo_move_to(cr, plot_scale_map(sx, (double)a + 0.5), plot_scale_map(sy, m));
        cairo_line_to(cr, plot_scale_map(sx, (double)b + 0.5), plot_scale_map(sy, m));
        cairo_stroke(cr);
    }
}

void plot_draw_history(cairo_t *cr, double w, double h, const void *arg)
{
    const struct plot_history *p = arg;
    struct plot_frame f;
    plot_frame_default(&f, w, h);
    struct plot_scale sx = {.p0 = f.x0, .p1 = f.x1}, sy = {.p0 = f.y1, .p1 = f.y0};
    double xr[2] = {1, (double)(p->n ? p->n : 1)};
    plot_scale_fit(&sx, xr, 2, false, false);
    plot_scale_fit(&sy, p->y, p->n, false, false);
    plot_title(cr, w, p->title);
    plot_axis_y(cr, &sy, &f, p->axis);
    plot_axis_x(cr, &sx, &f, "point (time order)");
    /* Change points: a dashed line between the last point before and the first after. */
    double dash[] = {5, 4};
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_set_dash(cr, dash, 2, 0);
    for (size_t k = 0; k < p->ncuts; k++) {
        double x = plot_scale_map(&sx, (double)p->cuts[k] + 0.5);
        cairo_move_to(cr, x, f.y0);
        cairo_line_to(cr, x, f.y1);
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    draw_segments(cr, p, &sx, &sy);
    for (size_t i = 0; i < p->n; i++)
        plot_marker(cr, 0, plot_scale_map(&sx, (double)i + 1), plot_scale_map(&sy, p->y[i]), 3);
}
