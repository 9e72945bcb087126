/*
 * What the campaign report computes once for every format after the
 * statistics (creport_build() calls it last): how each change is shown
 * (struct creport_change) and its verdict in words, the CPU cost decision
 * and the headline's CPU cost metric of each cell, the verdict counts, the
 * warnings aggregated into one sentence per kind and the counter
 * differences worth showing in the short report. The renderers only walk
 * these; they compute nothing.
 */
#ifndef NETAB_REPORT_MODEL_H
#define NETAB_REPORT_MODEL_H

#include "report/report.h"

/* Fills the members above from the built report. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int creport_model_finish(struct creport *r);

/*
 * Appends the statistics warning of variant v, cell c, metric m to
 * r->stats_warnings, which creport_model_finish() aggregates. Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int creport_stats_warning_add(struct creport *r, size_t v, size_t c, size_t m,
                                            const char *kind, const char *message);

/* Releases r->stats_warnings and what creport_model_finish() filled of the members above. */
void creport_model_free(struct creport *r);

/* Whether a change was found: the comparison improved or regressed. */
bool creport_entry_changed(const struct creport_entry *en);

/* Frees what creport_model_finish() added (creport_free() calls it). */
void creport_model_free(struct creport *r);

#endif
