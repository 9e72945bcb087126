/*
 * The figure of netab history: a series in time order, its segments' means
 * and its change points (docs/history.md).
 */
#ifndef NETAB_PLOT_PLOT_HISTORY_H
#define NETAB_PLOT_PLOT_HISTORY_H

#include <cairo.h>
#include <stddef.h>

struct plot_history {
    const char *title;
    const char *axis; /* the value axis' label with its unit */
    const double *y;  /* the points, in order */
    size_t n;
    const size_t *cuts; /* change points: the index of the first point after each */
    size_t ncuts;
};

/* A plot_draw_fn for a struct plot_history: points, segment means, dashed change lines. */
void plot_draw_history(cairo_t *cr, double w, double h, const void *history);

#endif
