/*
 * The short text report's own sections (campaign_report_brief.c); the
 * headline table is campaign_report_headline.h.
 */
#ifndef NETAB_CREPORT_CAMPAIGN_REPORT_BRIEF_H
#define NETAB_CREPORT_CAMPAIGN_REPORT_BRIEF_H

#include <stdio.h>

#include "creport/campaign_report.h"

/* The deciding and cost metrics' changes that are not within noise, others counted. */
void creport_print_changes_brief(FILE *f, const struct creport *r);
/* The warnings, one sentence per kind (r->warning_summary). */
void creport_print_warnings_brief(FILE *f, const struct creport *r);
/* The counter differences where the deciding metric changed (r->counters_notable). */
void creport_print_counters_brief(FILE *f, const struct creport *r);

#endif
