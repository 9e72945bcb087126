/*
 * The experiment's own `report:` section: the cell table `netab report`
 * prints (docs/report.md, "The cells you ask for"), checked here with the
 * report's own template parser (metric/celltpl.h) so that a bad template is
 * found by validate, not hours later by the report.
 */
#include <stdlib.h>
#include <string.h>

#include "experiment/exp_priv.h"
#include "metric/celltpl.h"

/* The index of the matrix axis called name, or -1. */
static long axis_of(const struct experiment *e, const char *name)
{
    for (size_t a = 0; a < e->naxes; a++)
        if (!strcmp(e->axes[a].key->name, name))
            return (long)a;
    return -1;
}

/*
 * The columns must be an axis besides test; without columns: at most one
 * axis besides test, or the axis dut, as the report chooses them.
 */
static void check_columns(struct exp_ctx *c, yaml_node_t *cell, yaml_node_t *cols,
                          const struct experiment *e)
{
    size_t others = e->naxes - (axis_of(e, "test") >= 0);
    if (cols && e->report_columns && !strcmp(e->report_columns, "test"))
        exp_err(c, cols,
                "report: columns: test: the test axis folds into each entry; name "
                "another axis");
    else if (cols && e->report_columns && axis_of(e, e->report_columns) < 0)
        exp_err(c, cols, "report: columns: '%.64s' is no axis of the matrix", e->report_columns);
    else if (!cols && cell && others > 1 && axis_of(e, "dut") < 0)
        exp_err(c, cell,
                "report: the matrix has %zu axes besides test: name the columns' one with "
                "'columns: AXIS' (the others make one table each)",
                others);
}

void exp_parse_report(struct exp_ctx *c, yaml_node_t *n, struct experiment *e)
{
    static const char *const keys[] = {"cell", "columns"};
    yaml_node_t *v[2];
    if (!exp_map_fields(c, n, "report", keys, 2, v))
        return;
    if (v[0] && exp_get_string(c, v[0], "report.cell", &e->report_cell)) {
        struct celltpl t;
        char err[NB_ERRLEN];
        if (celltpl_parse(e->report_cell, &t, err, sizeof(err)))
            exp_err(c, v[0], "report: %s", err);
        else
            celltpl_free(&t);
    }
    if (v[1])
        exp_get_string(c, v[1], "report.columns", &e->report_columns);
    if (v[1] && !v[0])
        exp_err(c, v[1], "report: 'columns' goes with 'cell' (the cell template)");
    check_columns(c, v[0], v[1], e);
}
