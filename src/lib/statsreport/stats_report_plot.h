/*
 * Figures of a statistics report (`netab stats --plot`, `netab compare
 * --plot`): the distribution of every set above the forest of every
 * comparison with the baseline, in one file.
 */
#ifndef NETAB_STATSREPORT_STATS_REPORT_PLOT_H
#define NETAB_STATSREPORT_STATS_REPORT_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "statsreport/stats_report.h"
#include "util/err.h"

struct report_plot_opts {
    double width, height; /* PNG pixels, SVG/PDF points */
    const char *title;    /* NULL: a default naming the confidence level */
    const char *axis;     /* the value axis with its unit; NULL: the sets' metric or "value" */
    bool log;             /* log value axis */
};

/* Defaults: PLOT_DEFAULT_WIDTH x 1.4 * PLOT_DEFAULT_HEIGHT, linear from zero. */
void report_plot_opts_default(struct report_plot_opts *o);

/*
 * Draws r (analysed: every set described, comparisons made) into path, in
 * the format of its extension. *npoints receives the number of run points
 * drawn (every finite value), which the CLI reports. Returns 0 or a negative
 * errno with a sentence in err.
 */
NB_MUST_CHECK int stats_report_plot(const struct stats_report *r, const struct report_plot_opts *o,
                                    const char *path, size_t *npoints, char *err, size_t errlen);

/*
 * The value axis' label of sets read from files (`netab stats --plot`), at
 * most n bytes to b: the input knows no unit but where its values came
 * from, "bit/s (iperf3 input: end.receiver.bits_per_second)" or "value
 * (plain input)".
 */
void stats_report_input_axis(const struct stats_report *r, char *b, size_t n);

/*
 * `netab stats --plot`: r drawn into path with want's size (0: the
 * default), log axis and value axis label (NULL: stats_report_input_axis()'s).
 * *used receives the options drawn with (the size the CLI reports),
 * *npoints as stats_report_plot(). Returns 0 or a negative errno with a
 * sentence in err.
 */
NB_MUST_CHECK int stats_report_plot_input(const struct stats_report *r,
                                          const struct report_plot_opts *want, const char *path,
                                          struct report_plot_opts *used, size_t *npoints, char *err,
                                          size_t errlen);

#endif
