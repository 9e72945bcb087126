/* `netab compare --plot FILE`: the deciding metric's distribution per variant and its changes. */
#ifndef NETAB_COMPARE_FIGURE_H
#define NETAB_COMPARE_FIGURE_H

#include <stddef.h>

#include "compare/result.h"

/*
 * Draws the deciding metric of res into cfg->figure (format by extension,
 * cfg's size, log axis and axis label; the label defaults to "NAME
 * (UNIT)"), *points set to the values drawn. Returns 0, -ENOMEM, or
 * -EINVAL with err (no statistics for the metric, or the file could not
 * be drawn).
 */
NB_MUST_CHECK int compare_draw_figure(const struct compare_result *res, size_t *points, char *err,
                                      size_t errlen);

#endif
