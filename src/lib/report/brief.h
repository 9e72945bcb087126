/*
 * The short text report's own sections (brief.c); the
 * headline table is headline.h.
 */
#ifndef NETAB_REPORT_BRIEF_H
#define NETAB_REPORT_BRIEF_H

#include <stdio.h>

#include "report/report.h"

/* The deciding and cost metrics' changes that are not within noise, others counted. */
void creport_print_changes_brief(FILE *f, const struct creport *r);
/*
 * The short report's one statement of the verdicts: the comparisons of the
 * headline's figures (deciding and CPU cost) counted by verdict, those of
 * every other metric likewise, both adding up to every comparison shown;
 * and how many of the headline's "no difference proven" have a small p
 * but an interval reaching inside the noise floor.
 */
void creport_print_verdicts_brief(FILE *f, const struct creport *r);
/* The warnings, one sentence per kind (r->warning_summary). */
void creport_print_warnings_brief(FILE *f, const struct creport *r);
/* How many facts differ from the baseline's first run (r->env_diffs), in one line. */
void creport_print_environment_brief(FILE *f, const struct creport *r);
/* How many counter differences where the deciding metric changed (r->counters_notable). */
void creport_print_counters_brief(FILE *f, const struct creport *r);

#endif
