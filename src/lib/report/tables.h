/*
 * How the experiment report lays its tables out for people: one table per
 * metric, cells in matrix order headed by their values when the table fits
 * 72 columns, short labels with a legend when only those fit, and
 * --transpose (cells as rows). Shared by the text and Markdown printers.
 */
#ifndef NETAB_REPORT_TABLES_H
#define NETAB_REPORT_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "report/matrix.h"

/* A mean in at most 8 characters, with precision following magnitude. */
void creport_fmt_num(char *b, size_t n, double v);
/* One run's value as the sorted values show it in every format: six significant digits. */
void creport_fmt_value(char *b, size_t n, double v);
/* A signed change with `digits` decimals (fewer when large), '%' appended when pct. */
void creport_fmt_pct(char *b, size_t n, double v, bool pct, int digits);
/*
 * A change as every format shows it: "+0.7%", "+0.9pp" (percentage points),
 * "+60.8" (a difference in the metric's unit), "n/a" when not compared;
 * with _ci its interval "[+0.2, +1.2]" (in the unit of the change). digits as for
 * creport_fmt_pct().
 */
void creport_fmt_change(char *b, size_t n, const struct creport_change *c, int digits);
void creport_fmt_change_ci(char *b, size_t n, const struct creport_change *c, int digits);
/* "+2.53% [+1.20, +3.84]", "+0.93pp [+0.10, +1.70]", "diff -60.8 [...] (baseline reaches 0)". */
void creport_fmt_change_full(char *b, size_t n, const struct creport_change *c);
/* The verdict mark of an entry: * improved, ! regressed, = within noise, ? unproven, ' '. */
char creport_marker(const struct creport_entry *en);

/*
 * A text table of r: metric m (its mean, change and mark per variant and
 * cell) or, when m is CREPORT_TABLE_N, the measured run counts. Rows are
 * variants and columns cells, or the other way round with r->opts.transpose.
 * Headings are the first style of enum creport_heading with which every
 * line fits CREPORT_TEXT_WIDTH; when none does, the columns are split into
 * tables that fit, headed in full. *legend is set when labels were used
 * (creport_print_legend() then explains them). Returns 0 or -ENOMEM.
 */
#define CREPORT_TABLE_N ((size_t)-1)
NB_MUST_CHECK int creport_text_table(FILE *f, const struct creport *r, size_t m, bool *legend);

/* The "Cells:" legend of the labels c1, c2, ...: each label, the cell's name and test. */
void creport_print_legend(FILE *f, const struct creport *r);

/* A Markdown table of metric m (or CREPORT_TABLE_N), transposed as in text. */
void creport_md_table(FILE *f, const struct creport *r, size_t m);

/* Writes s with '|' escaped and newlines as spaces, so that it stays in its table cell. */
void creport_md_text(FILE *f, const char *s);

#endif
