/*
 * The cells the user asks for (docs/report.md, "The cells you ask for"):
 * `netab report --cell TEMPLATE` or the experiment's `report: {cell: ...}`
 * fills a table whose rows are the variants and whose columns are the
 * values of one matrix axis (the DUTs, or --columns AXIS), each entry the
 * template with its placeholders replaced by means and change marks, as in
 * a driver developer's mail: "tcp 94/94 udp 96/96 cpu 15%". The test axis
 * folds into the entry ({tcp_stream:throughput} takes the tcp_stream
 * cell's runs); any other axis makes one table per combination of its
 * values. Built once here into plain structs from the model's means,
 * comparisons and failures; the renderers (cellview.c)
 * print those strings and compute nothing.
 */
#ifndef NETAB_REPORT_CELLTABLE_H
#define NETAB_REPORT_CELLTABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/report.h"
#include "metric/celltpl.h"
#include "util/err.h"

/* One placeholder's figure for one variant in one column. */
struct creport_cellval {
    double value;  /* the mean over its runs' values, display units; NaN without values */
    size_t n;      /* the values it is the mean of */
    size_t failed; /* failed measured runs of the variant in its cells */
    char mark[4];  /* against the baseline: "*", "!", "=", "?", "!*"; "" for none */
    char text[48]; /* as shown: "94*", "15%", "9.4", "(fails)", "-" */
};

/* One entry of the table: a variant in a column. */
struct creport_cellbox {
    char *text;                   /* the template filled in, or "(fails)" */
    bool fails;                   /* every placeholder's runs failed */
    struct creport_cellval *vals; /* [nph], in template order */
};

/* One table: the cells of one combination of the axes besides the columns and test. */
struct creport_cellgroup {
    char *heading;                 /* "length=8K"; "" when no other axis */
    struct creport_cellbox *boxes; /* [v * ncols + col] */
};

/* A placeholder as the table describes it. */
struct creport_cellph {
    const char *source; /* "{tcp_stream:throughput}" (points into tpl) */
    const char *test;   /* "tcp_stream", or NULL: every test */
    const char *metric; /* "throughput" */
    const char *unit;   /* its display unit, "Mbit/s" */
};

struct creport_celltab {
    char *template;            /* as given */
    struct celltpl tpl;        /* parsed */
    struct creport_cellph *ph; /* [nph] */
    size_t nph;
    char *axis;  /* the column axis; NULL: one column holding every cell */
    char **cols; /* its values in matrix order; one "" without an axis */
    size_t ncols;
    struct creport_cellgroup *groups;
    size_t ngroups;
    size_t nboxes; /* in each group: variants x columns */
};

/*
 * Parses template (with columns, the axis named for the columns, or NULL)
 * before the report is built: *out holds the template, from which
 * creport_celltab_metrics() tells the metrics the report must compare.
 * -EINVAL with a sentence naming the placeholder (celltpl_parse()),
 * -ENOMEM. *out is NULL when template is NULL.
 */
NB_MUST_CHECK int creport_celltab_parse(const char *template, const char *columns,
                                        struct creport_celltab **out, char *err, size_t errlen);

/*
 * Fills r->celltab's tables from the built report (its means, comparisons
 * and failures), column axis as above: --columns AXIS, else the axis dut,
 * else the one axis besides test; several axes besides test without a
 * choice, an axis the matrix has not, the test axis as columns, a
 * placeholder whose test no cell has, or two cells of one entry with the
 * same test are -EINVAL with a sentence. 0 or -ENOMEM otherwise.
 */
NB_MUST_CHECK int creport_celltab_build(struct creport *r, char *err, size_t errlen);

void creport_celltab_free(struct creport_celltab *t);

/* The text as a table's entry shows a mean: 94, 9.4, 0.94 (two digits at least). */
void creport_cell_num(char *b, size_t n, double v);

/* Renderers (cellview.c): nothing without a template. */
NB_MUST_CHECK int creport_print_celltable_text(FILE *f, const struct creport *r);
void creport_print_celltable_markdown(FILE *f, const struct creport *r);
void creport_print_celltable_html(FILE *f, const struct creport *r);
/* The "cell_table" member: the strings and every placeholder's figure; NULL (no member). */
json_t *creport_celltable_json(const struct creport *r);

#endif
