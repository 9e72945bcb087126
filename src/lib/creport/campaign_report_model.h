/*
 * What the campaign report computes once for every format after the
 * statistics (creport_build() calls it last): how each change is shown
 * (struct creport_change), the headline's CPU cost metric of each cell, the
 * warnings aggregated into one sentence per kind and the counter
 * differences worth showing in the short report. The renderers only walk
 * these; they compute nothing.
 */
#ifndef NETAB_CREPORT_CAMPAIGN_REPORT_MODEL_H
#define NETAB_CREPORT_CAMPAIGN_REPORT_MODEL_H

#include "creport/campaign_report.h"

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

/*
 * The verdict of en in words with its p-value, for a line that shows
 * them: "regressed p=0.0021"; where p is below 1 - confidence but the
 * verdict is "no difference proven" (stats/verdict.h's rule: the interval
 * reaches inside the noise floor), the same line says so: "no difference
 * proven (p = 1e-08, but the interval -0.4% .. +0.9% reaches inside the 1%
 * noise floor)". "not compared" without a comparison.
 */
void creport_verdict_words(const struct creport *r, const struct creport_entry *en, char *b,
                           size_t n);

#endif
