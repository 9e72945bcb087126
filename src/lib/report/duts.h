/*
 * The DUTs as the headline's columns (docs/report.md, "Several DUTs"): when
 * the experiment's matrix has the axis dut, its cells are grouped by their
 * other axes' values, and each group is a table whose columns are the DUTs
 * and whose rows are the variants, as in a mailing-list table of one patch
 * on three machines. Computed once here (the model); the renderers
 * (dutview.c) only walk it.
 */
#ifndef NETAB_REPORT_DUTS_H
#define NETAB_REPORT_DUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "report/report.h"
#include "util/err.h"

/* One table: the cells of one combination of the other axes' values. */
struct creport_dutgroup {
    char *heading; /* "streams=4"; "" when dut is the only axis */
    long *cells;   /* [ncols]: the cell of each DUT column, -1 when the matrix has none */
    long first;    /* the first of cells with a deciding metric, or -1: its metric heads it */
};

struct creport_dutcols {
    char **cols; /* the DUTs in the axis's order (owned) */
    size_t ncols;
    struct creport_dutgroup *groups;
    size_t ngroups;
};

/*
 * Fills r->dutcols from r->axes and the cells' values when an axis is
 * called "dut"; leaves it NULL otherwise. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_dutcols_build(struct creport *r);
void creport_dutcols_free(struct creport *r);

/*
 * The sentence every format shows with named DUTs ("" without): which DUTs,
 * and whether their runs ran concurrently (parallel: duts) or one at a time.
 */
void creport_duts_sentence(const struct creport *r, char *b, size_t n);

/* Renderers (dutview.c): the DUT tables in text, Markdown, HTML and JSON. */
void creport_print_dutcols_text(FILE *f, const struct creport *r);
void creport_print_dutcols_markdown(FILE *f, const struct creport *r);
void creport_print_dutcols_html(FILE *f, const struct creport *r);
/* {"names", "concurrent", "tables": [{"heading", "metric", "columns", "rows": [...]}]}; NULL. */
json_t *creport_duts_json(const struct creport *r);

#endif
