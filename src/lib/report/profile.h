/*
 * The differential profile of an experiment whose runs were profiled
 * (profile: true, netab run --profile): for each cell and each variant
 * against the baseline, the functions whose share of the samples changed
 * most, with an interval across runs (profdiff/profdiff.h). Computed once
 * when the report is built; the renderers print r->profdiffs.
 */
#ifndef NETAB_REPORT_PROFILE_H
#define NETAB_REPORT_PROFILE_H

#include <jansson.h>
#include <stdio.h>

#include "report/report.h"
#include "report/place.h"

/* Functions listed per comparison. */
#define CREPORT_PROFILE_TOP 10

/*
 * Fills r->profdiffs from the measured runs p[0..np): end.profile.local of
 * each. Nothing when no run carries a profile. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_profiles(struct creport *r, const struct creport_placed *p, size_t np);

void creport_profiles_free(struct creport *r);

/* Text (72 columns) and Markdown sections; nothing without profiles. */
void creport_print_profile_text(FILE *f, const struct creport *r);
void creport_print_profile_markdown(FILE *f, const struct creport *r);

/* [{"cell", "variant", "against", "functions": ..., ...}] for the JSON report. New reference. */
json_t *creport_profile_json(const struct creport *r);

#endif
