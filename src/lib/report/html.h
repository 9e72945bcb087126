/*
 * What the HTML report's files share (html.c, the page;
 * html_sections.c, its pairs, effects and headline).
 */
#ifndef NETAB_REPORT_HTML_H
#define NETAB_REPORT_HTML_H

#include <stdio.h>

#include "report/report.h"

/* s with &, <, >, " escaped. */
void creport_html_esc(FILE *f, const char *s);
/* printf, escaped. */
void creport_html_escf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --pairs all: every pair of each cell on its deciding metric (a section, or nothing). */
void creport_html_pairs(FILE *f, const struct creport *r);
/* The 2x2 designs' main effects and interactions (a section, or nothing). */
void creport_html_effects(FILE *f, const struct creport *r);

/* The differential profiles (html_profile.c): a bar figure and a table each. */
void creport_html_profile(FILE *f, const struct creport *r);
/* The headline table (headline.h) as a section. */
void creport_html_headline(FILE *f, const struct creport *r);

#endif
