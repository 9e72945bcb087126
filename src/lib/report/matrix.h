/*
 * The order of an experiment's report: its matrix axes and cells in the
 * experiment file's order, read back from the spec the store keeps
 * (experiment_to_json()'s "matrix" member), the cells' column headings, and
 * the variant --baseline puts first.
 */
#ifndef NETAB_REPORT_MATRIX_H
#define NETAB_REPORT_MATRIX_H

#include <stddef.h>

#include "report/report.h"
#include "util/err.h"

/*
 * Fills r->axes and r->cells (names and values) with the matrix of
 * spec (the experiment's spec_json parsed, or NULL) in the order experiment_cells() expands it: the
 * first axis varies slowest, each axis's values as the file lists them; the names are the plan's
 * ("streams=4,test=udp_stream"). r->cells must be empty. Without a spec or a matrix nothing is
 * added. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_matrix_cells(struct creport *r, json_t *spec);

/*
 * The report's cells: the matrix's (creport_matrix_cells()), then any cell
 * of the plan that the spec does not have, in plan order; matrix cells the
 * plan never names are dropped. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_collect_cells(struct creport *r, json_t *spec,
                                        const struct store_plan_row *plan, size_t nplan);

/*
 * --baseline: moves variant name to the front of r->variants, the others
 * keeping their order. -EINVAL with a sentence naming the variants in err
 * when none is called name.
 */
NB_MUST_CHECK int creport_move_baseline(struct creport *r, const char *name, char *err,
                                        size_t errlen);

/* Frees what creport_matrix_cells() added to r beyond the cells' names and tests. */
void creport_matrix_free(struct creport *r);

/* How a cell is headed in a table. */
enum creport_heading {
    CREPORT_HEAD_FULL,  /* its values joined by a space: "tcp_stream 4", "udp_stream recv" */
    CREPORT_HEAD_SHORT, /* the same with a suffix every value of an axis shares dropped: "tcp 4" */
    CREPORT_HEAD_LABEL, /* "c1", "c2", ... with a legend */
};

/*
 * Cell c's values on every matrix axis but the axes skip1 and skip2 (-1:
 * none), "k=v,k=v" (a missing value as "?"), into b.
 */
void creport_cell_axes_but(const struct creport *r, size_t c, long skip1, long skip2, char *b,
                           size_t n);

/*
 * Writes cell c's heading in style h into b (n bytes). Boolean values
 * become words: reverse false/true "send"/"recv", another key KEY/"no-KEY".
 * A cell without
 * values (no matrix, or not in the matrix) is headed by its name, "(all)"
 * when the plan has none.
 */
void creport_cell_heading(const struct creport *r, size_t c, enum creport_heading h, char *b,
                          size_t n);

#endif
