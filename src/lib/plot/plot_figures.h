/*
 * The figures netab draws, each a plot_draw_fn (plot/plot.h) over a struct
 * that the caller fills and owns; nothing here allocates or keeps pointers.
 *
 *   plot_draw_dist      distribution per set: runs, box, mean and interval
 *   plot_draw_runorder  each run's value against its place in the campaign
 *   plot_draw_forest    relative changes with intervals, noise band, verdicts
 *   plot_draw_heatmap   relative change per variant and matrix cell
 *   plot_draw_timeline  per-interval values of one run
 *
 * Every figure labels its axes with the unit the caller gives and puts the
 * number of values under every distribution.
 */
#ifndef NETAB_PLOT_PLOT_FIGURES_H
#define NETAB_PLOT_PLOT_FIGURES_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "stats/summary.h"
#include "stats/verdict.h"

/* One set of a distribution: its values and, when n >= 2, its summary. */
struct plot_set {
    const char *name;
    const double *values;
    size_t n;
    const struct stats_summary *sum; /* box (p25, median, p75), mean and its interval; or NULL */
};

struct plot_dist {
    const char *title;
    const char *axis; /* the value axis' label with its unit, e.g. "throughput (Mbit/s)" */
    const struct plot_set *sets;
    size_t nsets;
    bool log; /* log value axis (else linear from zero) */
};
void plot_draw_dist(cairo_t *cr, double w, double h, const void *dist);

/* One run of a campaign: its place in the order, its value, its set. */
struct plot_run_point {
    double seq;
    double value;
    size_t set;
    bool warmup; /* drawn hollow and marked: not in the statistics */
};

struct plot_runorder {
    const char *title, *axis;
    const char *const *names; /* [nsets]: the legend */
    size_t nsets;
    const struct plot_run_point *points;
    size_t n;
};
void plot_draw_runorder(cairo_t *cr, double w, double h, const void *runorder);

/* One row of a forest: a relative change (fractions, e.g. -0.05) with its interval. */
struct plot_forest_row {
    const char *label; /* e.g. "small: recv Mbit/s" */
    bool has;          /* false: no comparison (the label says so) */
    double rel, low, high;
    enum stats_verdict_kind verdict;
};

struct plot_forest {
    const char *title;
    const struct plot_forest_row *rows;
    size_t n;
    double noise; /* the noise floor as a fraction, shaded as +-noise */
};
void plot_draw_forest(cairo_t *cr, double w, double h, const void *forest);

/*
 * The verdict text the forest draws beside row r, into buf (len bytes):
 * "regressed -9%", "not compared", or where the ratio is undefined (the
 * baseline reaches zero) the verdict and why there is no percentage, never
 * "+nan%". Returns buf or a static string.
 */
const char *plot_forest_row_text(const struct plot_forest_row *r, char *buf, size_t len);

struct plot_heatmap {
    const char *title;
    const char *const *rows, *const *cols; /* variants, matrix cells */
    size_t nrows, ncols;
    const double *rel;       /* [r * ncols + c]: relative change, NaN where none */
    const bool *significant; /* [r * ncols + c]: false cells are grey */
    bool lower_is_better;
};
void plot_draw_heatmap(cairo_t *cr, double w, double h, const void *heatmap);

/* One series of a timeline: intervals [t0, t1) with a value each. */
struct plot_series {
    const char *name;
    const double *t0, *t1, *y;
    size_t n;
};

struct plot_timeline {
    const char *title, *axis;
    const struct plot_series *series;
    size_t nseries;
    double omit; /* seconds of warm-up before 0 that were left out (shaded), or 0 */
    /* A span to shade and label, e.g. the loaded phase of a --test rrul run; 0 to 0 = none. */
    double band0, band1;
    const char *band_label;
};
void plot_draw_timeline(cairo_t *cr, double w, double h, const void *timeline);

#endif
