/*
 * 2x2 designs in an experiment report: where two factors of two levels
 * each meet (the baseline and another variant against a matrix axis of two
 * values; with one variant, two such axes), the main effect of each factor
 * and their interaction on the deciding metric, with intervals
 * (stats/factorial.h), in every slice of the remaining axes.
 */
#ifndef NETAB_CREPORT_CAMPAIGN_REPORT_EFFECTS_H
#define NETAB_CREPORT_CAMPAIGN_REPORT_EFFECTS_H

#include <stdio.h>

#include "creport/campaign_report.h"

/*
 * Sets r->effects to the JSON array of every 2x2 design of r (docs/report.md,
 * "Effects"), [] when there is none. Call after the means are computed.
 * Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_effects(struct creport *r);

/*
 * Text, Markdown and HTML show this many designs, JSON all: a 3-variant
 * matrix of three two-valued axes has 24, and a mail needs the first few.
 */
#define CREPORT_EFFECTS_SHOWN 8

/*
 * The words the printers share, at most n bytes to b: design d's heading
 * ("variant (big, small) x streams (1, 2), test=udp_stream, loss") and the
 * sentence that says what the effects are.
 */
void creport_effects_heading(const struct creport *r, const json_t *d, char *b, size_t n);
void creport_effects_intro(const struct creport *r, char *b, size_t n);

/* The "Effects" section, text (72 columns) and Markdown; nothing without a design. */
void creport_print_effects_text(FILE *f, const struct creport *r);
void creport_print_effects_markdown(FILE *f, const struct creport *r);

/* One effect's numbers as the Markdown and HTML tables print them. */
struct creport_effect_text {
    char estimate[96]; /* "+1.234e+06 [+1.0e+06, +1.5e+06]" */
    char pct[64];      /* "+5.1% [+2.0, +8.2]", or "-" without a percentage */
    char p[32];
};
void creport_effect_format(const json_t *e, struct creport_effect_text *t);

#endif
