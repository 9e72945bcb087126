/*
 * 2x2 designs in an experiment report: where two factors of two levels
 * each meet (the baseline and another variant against a matrix axis of two
 * values; with one variant, two such axes), the main effect of each factor
 * and their interaction on the deciding metric, with intervals
 * (stats/factorial.h), in every slice of the remaining axes; and the
 * design the variants' factors: declare (docs/experiment.md).
 */
#ifndef NETAB_CREPORT_CAMPAIGN_REPORT_EFFECTS_H
#define NETAB_CREPORT_CAMPAIGN_REPORT_EFFECTS_H

#include <stdio.h>

#include "creport/campaign_report.h"

/*
 * Sets r->effects to the JSON array of every 2x2 design of r (docs/report.md,
 * "2×2 effects"), [] when there is none: first the one the variants'
 * factors: declare in the experiment's spec (may be NULL), in each cell,
 * then those found between the variant and the matrix axes. Call after the
 * means are computed. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_effects(struct creport *r, const json_t *spec);

#endif
