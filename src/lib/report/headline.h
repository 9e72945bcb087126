/*
 * The headline table of the campaign report: for each cell with a deciding
 * metric and each variant, that metric's mean, its change against the
 * baseline with the verdict mark, and the cell's CPU cost likewise. Every
 * format (text, Markdown, HTML, JSON) takes its strings from
 * creport_headline_row(), so that they show the same figures.
 */
#ifndef NETAB_REPORT_HEADLINE_H
#define NETAB_REPORT_HEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"

/* One row's figures as shown; "" where there is nothing (the baseline's change, no cost). */
struct creport_hl_row {
    char mean[48], change[40], cost[32], cost_change[40]; /* mean: "(fails: ...)" without runs */
};

/* Variant v in cell c (whose decide is >= 0). */
void creport_headline_row(const struct creport *r, size_t c, size_t v, struct creport_hl_row *o);

/* Whether cells a and b share a headline table: the same deciding and cost metrics. */
bool creport_headline_same(const struct creport *r, size_t a, size_t b);

/*
 * The text headline, within CREPORT_TEXT_WIDTH: one table per set of cells
 * sharing their metrics (in matrix order, adjacent or not), a row per variant, cells headed by
 * their values (shortened, or labels c1, c2 when needed: *legend is then set). Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int creport_print_headline_text(FILE *f, const struct creport *r, bool *legend);

/* The same as a Markdown table. */
void creport_print_headline_markdown(FILE *f, const struct creport *r);

/* The same as JSON: [{"cell", "heading", "metric", "cost_metric", "rows": [...]}], or NULL. */
json_t *creport_headline_json(const struct creport *r);

#endif
