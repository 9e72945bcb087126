/*
 * Text and Markdown of the campaign report's list sections
 * (sections.c): 2x2 effects, every pair, counter
 * differences; and the words the HTML shares with them.
 */
#ifndef NETAB_REPORT_SECTIONS_H
#define NETAB_REPORT_SECTIONS_H

#include <jansson.h>
#include <stdio.h>

#include "report/report.h"

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
struct creport_design;
struct stats_effect;
void creport_effects_heading(const struct creport *r, const struct creport_design *d, char *b,
                             size_t n);
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
void creport_effect_format(const struct stats_effect *e, struct creport_effect_text *t);

/* The words the printers share (a pair's change, the correction's sentence) are in
 * statsreport/pairs.h.
 */

/* The "Every pair" section, text and Markdown; nothing without --pairs all. */
void creport_print_pairs_text(FILE *f, const struct creport *r);
void creport_print_pairs_markdown(FILE *f, const struct creport *r);

/* Prints the section ("Counter differences from BASELINE ...") when there are any. */
void creport_print_counters(FILE *f, const struct creport *r);

/*
 * The same for the n differences in list (some of r->counter_diffs); where
 * qualifies them.
 */
void creport_print_counter_list(FILE *f, const struct creport *r,
                                const struct creport_counter_diff *list, size_t n,
                                const char *where);

#endif
