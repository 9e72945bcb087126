/*
 * The interval timeline of one run (`netab run --plot FILE`): per interval
 * the throughput of each direction that carried data (both with --bidir),
 * or the transaction rate of request/response and connection tests, with
 * the omitted warm-up (-O) shaded before zero; where the intervals carry
 * the client's sending connections' TCP state, their congestion window
 * and smoothed RTT in two panels below.
 */
#ifndef NETAB_RUNOUT_RUN_PLOT_H
#define NETAB_RUNOUT_RUN_PLOT_H

#include <stddef.h>

#include "engine/run_result.h"
#include "util/err.h"

/*
 * Draws r's intervals into path (format by extension) at w x h (0 for the
 * defaults). *npoints receives the number of interval points drawn.
 * Returns 0 or a negative errno with a sentence in err; -ENODATA when the
 * run has no intervals (e.g. -i 0).
 */
NB_MUST_CHECK int run_plot_timeline(const struct run_result *r, const char *path, double w,
                                    double h, size_t *npoints, char *err, size_t errlen);

#endif
