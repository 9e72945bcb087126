/*
 * The figures of a campaign report, shared by `netab report --plot DIR`
 * (one file per figure) and the HTML report (inline SVG). For every cell
 * with a deciding metric: the distribution per variant, the comparison
 * forest of every metric shown, the run order (warm-ups marked), and over
 * all cells the heatmap of the deciding metric's changes.
 */
#ifndef NETAB_REPORT_PLOT_H
#define NETAB_REPORT_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "plot/plot.h"
#include "report/report.h"
#include "util/err.h"

/* What a figure is, for file names, captions and the HTML's attributes. */
struct creport_figure {
    char name[128];    /* file stem, e.g. "distribution-default-throughput" */
    const char *kind;  /* "distribution", "forest", "runorder" or "heatmap" */
    char caption[320]; /* one sentence saying what it shows */
    size_t npoints;    /* runs drawn as points (distribution, run order); else 0 */
    double width, height;
};

/*
 * Called once per figure with its description and the function and data
 * that draw it (valid during the call only). Returns 0 to go on or a
 * negative errno to stop.
 */
typedef int (*creport_figure_fn)(void *ctx, const struct creport_figure *fig, plot_draw_fn draw,
                                 const void *data);

/*
 * Builds every figure of r in order and hands each to fn. Returns 0, the
 * first non-zero result of fn, or -ENOMEM.
 */
NB_MUST_CHECK int creport_figures(const struct creport *r, creport_figure_fn fn, void *ctx);

/*
 * Writes every figure of r into directory dir (created if missing) as
 * NAME.ext, ext being "png", "svg" or "pdf"; w, h override the figures'
 * sizes when > 0. Each file is written whole or not at all (plot/,
 * util/outfile). A figure that cannot be drawn or written is skipped with
 * a line on warn (NULL: none) and the others are still written. *nfiles
 * receives the count written. Returns 0, or a negative errno with a
 * sentence in err when the directory cannot be made, memory ran out or
 * any figure was skipped (-EIO: "N of M figures could not be written").
 */
NB_MUST_CHECK int creport_plot_dir(const struct creport *r, const char *dir, const char *ext,
                                   double w, double h, FILE *warn, size_t *nfiles, char *err,
                                   size_t errlen);

#endif
