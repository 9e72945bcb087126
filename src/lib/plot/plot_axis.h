/*
 * Scales, ticks, axes and text for the figures: the parts every figure
 * draws the same way.
 */
#ifndef NETAB_PLOT_PLOT_AXIS_H
#define NETAB_PLOT_PLOT_AXIS_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

/* A data range [lo, hi] mapped onto pixels [p0, p1] (p1 < p0 for a y axis). */
struct plot_scale {
    double lo, hi;
    bool log; /* log10 mapping; lo > 0 */
    double p0, p1;
    bool broken; /* a value axis that leaves zero out: its axis draws a break mark */
};

/* Where a figure draws its data, inside the margins for title and axes. */
struct plot_frame {
    double x0, y0, x1, y1; /* left, top, right, bottom */
};

/*
 * Fits s to the finite values v[0..n-1] (positive ones for a log scale),
 * rounded out to ticks; zero is included when asked (a linear scale whose
 * bars or ratios would mislead without it). An empty or flat range is
 * widened so that the mapping is always defined.
 */
void plot_scale_fit(struct plot_scale *s, const double *v, size_t n, bool log, bool zero);

/*
 * A linear value axis scaled to the data: zero is included only when it is
 * near, no farther from the data than the data's own spread (1.0 and 2.0
 * start at 0; 948 and 957 do not, or they would look equal). A scale that
 * leaves zero out is marked broken, and plot_axis_y() draws the break.
 */
void plot_scale_fit_data(struct plot_scale *s, const double *v, size_t n);

/* The pixel of value v. */
double plot_scale_map(const struct plot_scale *s, double v);

/* Up to max tick values of s into t; returns how many. */
size_t plot_ticks(const struct plot_scale *s, double *t, size_t max);

/* v with an SI suffix and three significant digits: 1.25G, 980M, 12.5k, 0.52. */
void plot_fmt_num(double v, char *buf, size_t len);

/*
 * Shows s at (x, y) in size pt, anchored by ax, ay in [0, 1] (0, 0: the
 * text's top left; 0.5, 0.5: its centre), rotated by angle radians.
 */
void plot_text(cairo_t *cr, double x, double y, const char *s, double size, double ax, double ay,
               double angle);

/* The figure's title along the top and the frame's outline. */
void plot_title(cairo_t *cr, double w, const char *title);

/* A left value axis on f with ticks, grid lines and the label (with its unit). */
void plot_axis_y(cairo_t *cr, const struct plot_scale *s, const struct plot_frame *f,
                 const char *label);

/* A bottom value axis on f with ticks, grid lines and the label (with its unit). */
void plot_axis_x(cairo_t *cr, const struct plot_scale *s, const struct plot_frame *f,
                 const char *label);

/* The default frame of a w x h figure: room for a title, a y axis and an x axis. */
void plot_frame_default(struct plot_frame *f, double w, double h);

#endif
