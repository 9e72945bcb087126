/*
 * Figures drawn with cairo: one drawing code for PNG, SVG and PDF files and
 * for SVG in memory (the HTML report inlines it). A figure is a function
 * that draws onto a cairo context of a given size; this file opens the
 * surface that the output asks for, runs the function, and finishes the
 * surface.
 *
 * Output is deterministic: the same figure and size give the same bytes
 * (fixed fonts, no time stamps; the PDF's creation date is fixed), which
 * the tests rely on.
 *
 * Conventions every figure keeps, so that tools and tests can read them
 * back: each data point (one run, one interval) is one filled mark drawn
 * at PLOT_POINT_ALPHA opacity and nothing else uses that opacity; the
 * palette is Okabe and Ito's, safe for the common colour blindness, and
 * each set also has its own marker shape so that the figure survives
 * greyscale printing.
 */
#ifndef NETAB_PLOT_PLOT_H
#define NETAB_PLOT_PLOT_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"
#include "util/opttable.h"

/* The opacity of data points, and only of data points (see above). */
#define PLOT_POINT_ALPHA 0.8

/* Default figure size: pixels for PNG, points (1/72 in) for SVG and PDF. */
#define PLOT_DEFAULT_WIDTH 800
#define PLOT_DEFAULT_HEIGHT 500
#define PLOT_MIN_SIZE 200
#define PLOT_MAX_SIZE 8000

enum plot_format { PLOT_PNG, PLOT_SVG, PLOT_PDF };

/* Draws a figure into the rectangle (0, 0, w, h) of cr. */
typedef void (*plot_draw_fn)(cairo_t *cr, double w, double h, const void *fig);

/* The formats' words, "png", "svg", "pdf": --plot-format, and the extensions. */
extern const struct opt_choice plot_format_choices[];

/*
 * The format named by path's extension (.png, .svg, .pdf, any case).
 * Returns 0 or -EINVAL with a sentence in err.
 */
NB_MUST_CHECK int plot_format_of(const char *path, enum plot_format *out, char *err, size_t errlen);

/*
 * Draws fig with draw at w x h into the file path, in the format of its
 * extension. Returns 0, -EINVAL (extension, size) or the error of writing,
 * with a sentence in err naming path.
 */
NB_MUST_CHECK int plot_write_file(const char *path, double w, double h, plot_draw_fn draw,
                                  const void *fig, char *err, size_t errlen);

/*
 * Draws fig as an SVG document in memory, for inlining into HTML: the XML
 * declaration is left out and every id (and every reference to one) gets
 * the prefix idp, so that several figures can share one page. *out is a
 * NUL-terminated string of *len bytes; caller has ownership (free()).
 * Returns 0, -ENOMEM or -EIO.
 */
NB_MUST_CHECK int plot_svg_string(double w, double h, plot_draw_fn draw, const void *fig,
                                  const char *idp, char **out, size_t *len);

/* Several figures stacked vertically, each taking its share of the height. */
struct plot_stack_part {
    plot_draw_fn draw;
    const void *fig;
    double weight; /* relative height */
};
struct plot_stack {
    const struct plot_stack_part *parts;
    size_t n;
};
/* A plot_draw_fn for a struct plot_stack. */
void plot_draw_stack(cairo_t *cr, double w, double h, const void *stack);

/*
 * Releases the process-wide caches that drawing text leaves behind (cairo's
 * font maps, fontconfig's configuration), so that a leak checker sees a
 * clean exit. Call once, after the last figure, from one thread; a no-op
 * when no figure was drawn.
 */
void plot_shutdown(void);

/* Colour i of the palette (cycled), as r, g, b in [0, 1]. */
void plot_colour(size_t i, double rgb[3]);

/*
 * Adds the path of marker i (circle, square, triangle, diamond, ... cycled)
 * of radius r at (x, y) to cr and fills it at PLOT_POINT_ALPHA in colour i.
 */
void plot_marker(cairo_t *cr, size_t i, double x, double y, double r);

#endif
