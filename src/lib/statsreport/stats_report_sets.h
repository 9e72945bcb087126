/*
 * The sets of `netab stats` read into its statistics report: each set's
 * file (input/input_sets.h) read and given to the report under the name it
 * is shown as. Conventions as in util/err.h: 0 or a negative errno with a
 * sentence in err.
 */
#ifndef NETAB_STATSREPORT_STATS_REPORT_SETS_H
#define NETAB_STATSREPORT_STATS_REPORT_SETS_H

#include <stddef.h>

#include "input/input.h"
#include "input/input_sets.h"
#include "statsreport/stats_report.h"
#include "util/err.h"

/*
 * Reads sets s->v[0..s->n-1] (resolved, input_sets_resolve()) in order into
 * r, which stats_report_init() made with s->n sets: set i gets the name
 * input_sets_shown() gives, the format the values were read as and their
 * metric. All sets together are held to the cap on all inputs
 * (input_sets_read()). More than STATS_REPORT_MAX_SETS sets are refused
 * (-E2BIG) before any is read. Stops at the first set that cannot be read: its
 * reader's sentence, or "SHOWN: ..." where the report cannot take its
 * values (-ENOMEM).
 */
NB_MUST_CHECK int stats_report_read_sets(struct stats_report *r, const struct input_sets *s,
                                         const struct input_opts *o, char *err, size_t errlen);

#endif
