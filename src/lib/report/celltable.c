/* The cells the user asks for (celltable.h): the model's part. */
#include "report/celltable.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/tables.h"
#include "report/metric.h"
#include "report/matrix.h"
#include "report/place.h"

void creport_cell_num(char *b, size_t n, double v)
{
    double a = fabs(v);
    /* A mail's table: 94 and 9.4, never 94.13; small figures keep two digits. */
    if (!isfinite(v))
        snprintf(b, n, "-");
    else if (a >= 9.95)
        snprintf(b, n, "%.0f", v);
    else if (a >= 0.995)
        snprintf(b, n, "%.1f", v);
    else
        snprintf(b, n, "%.2g", v);
}

void creport_celltab_free(struct creport_celltab *t)
{
    if (!t)
        return;
    for (size_t g = 0; t->groups && g < t->ngroups; g++) {
        struct creport_cellgroup *grp = &t->groups[g];
        for (size_t i = 0; grp->boxes && i < t->nboxes; i++) {
            free(grp->boxes[i].text);
            free(grp->boxes[i].vals);
        }
        free(grp->boxes);
        free(grp->heading);
    }
    free(t->groups);
    for (size_t i = 0; t->cols && i < t->ncols; i++)
        free(t->cols[i]);
    free(t->cols);
    free(t->axis);
    free(t->ph);
    celltpl_free(&t->tpl);
    free(t->template);
    free(t);
}

int creport_celltab_parse(const char *template, const char *columns, struct creport_celltab **out,
                          char *err, size_t errlen)
{
    *out = NULL;
    if (!template && columns)
        return err_set(err, errlen, EINVAL,
                       "--columns %s: there is no cell template (--cell, or the experiment's "
                       "report: {cell: ...})",
                       columns);
    if (!template)
        return 0;
    struct creport_celltab *t = calloc(1, sizeof(*t));
    if (!t || !(t->template = strdup(template)) || (columns && !(t->axis = strdup(columns)))) {
        creport_celltab_free(t);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    int e = celltpl_parse(template, &t->tpl, err, errlen);
    if (!e && !(t->ph = calloc(t->tpl.nph, sizeof(*t->ph))))
        e = err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; !e && i < t->tpl.nparts; i++) {
        const struct celltpl_part *p = &t->tpl.parts[i];
        if (p->metric)
            t->ph[t->nph++] = (struct creport_cellph){.source = p->source,
                                                      .test = p->test,
                                                      .metric = p->metric->name,
                                                      .unit = p->metric->display};
    }
    if (e) {
        creport_celltab_free(t);
        return e;
    }
    *out = t;
    return 0;
}

/* The index of the axis called name, or -1. */
static long axis_index(const struct creport *r, const char *name)
{
    for (size_t a = 0; name && a < r->naxes; a++)
        if (r->axes[a] && !strcmp(r->axes[a], name))
            return (long)a;
    return -1;
}

/* The test of cell c: its runs', else its value on the axis test; "" when unknown. */
static const char *cell_test(const struct creport *r, size_t c, long ta)
{
    const struct creport_cell *cell = &r->cells[c];
    if (cell->test && cell->test[0])
        return cell->test;
    return ta >= 0 && cell->values && cell->values[ta] ? cell->values[ta] : "";
}

/*
 * The column axis (-1: one column): t->axis as named, else dut, else the
 * one axis besides test. -EINVAL with a sentence when none can be chosen.
 */
static int choose_axis(const struct creport *r, struct creport_celltab *t, long ta, long *ca,
                       char *err, size_t errlen)
{
    char list[256] = "";
    size_t nother = 0, u = 0;
    for (size_t a = 0; a < r->naxes; a++)
        if ((long)a != ta && u < sizeof(list)) {
            u += (size_t)snprintf(list + u, sizeof(list) - u, "%s%s", nother ? ", " : "",
                                  r->axes[a]);
            nother++;
            *ca = (long)a;
        }
    if (t->axis) {
        *ca = axis_index(r, t->axis);
        if (*ca >= 0 && *ca == ta)
            return err_set(err, errlen, EINVAL,
                           "--columns test: the test axis folds into each entry "
                           "({tcp_stream:throughput}); name another axis%s%s",
                           nother ? ": " : "", list);
        if (*ca < 0)
            return err_set(err, errlen, EINVAL, "--columns %s: the matrix has no such axis (%s%s)",
                           t->axis, nother ? "axes besides test: " : "none besides test", list);
        return 0;
    }
    long dut = axis_index(r, "dut");
    if (dut >= 0)
        *ca = dut;
    else if (nother > 1)
        return err_set(err, errlen, EINVAL,
                       "the cell table needs one axis for its columns and the matrix has %zu "
                       "besides test (%s): name it with --columns AXIS (or report: {columns: "
                       "AXIS}); the others then make one table each",
                       nother, list);
    else if (!nother)
        *ca = -1;
    return 0;
}

/* Adds group h with its boxes; its index, or -1 on ENOMEM. */
static long add_group(struct creport_celltab *t, const char *h)
{
    struct creport_cellgroup *g = &t->groups[t->ngroups];
    g->heading = strdup(h);
    g->boxes = calloc(t->nboxes ? t->nboxes : 1, sizeof(*g->boxes));
    if (!g->heading || !g->boxes) {
        free(g->heading);
        free(g->boxes);
        g->heading = NULL;
        g->boxes = NULL;
        return -1;
    }
    return (long)t->ngroups++;
}

/*
 * Places each cell in its column (colof[c]) and group (grpof[c]), -1 for a
 * cell outside the matrix when there is a column axis. 0, -ENOMEM.
 */
static int place_cells(const struct creport *r, struct creport_celltab *t, long ta, long ca,
                       long *colof, long *grpof)
{
    t->cols = calloc(r->ncells ? r->ncells : 1, sizeof(*t->cols));
    t->groups = calloc(r->ncells ? r->ncells : 1, sizeof(*t->groups));
    if (!t->cols || !t->groups)
        return -ENOMEM;
    /* The columns first: every group's boxes have one per variant and column. */
    for (size_t c = 0; c < r->ncells; c++) {
        colof[c] = grpof[c] = -1;
        bool in = ca < 0 || (r->cells[c].values && r->cells[c].values[ca]);
        const char *col = ca >= 0 && in ? r->cells[c].values[ca] : "";
        if (!in)
            continue;
        colof[c] = creport_find_name(t->cols, t->ncols, col);
        if (colof[c] < 0) {
            if (!(t->cols[t->ncols] = strdup(col)))
                return -ENOMEM;
            colof[c] = (long)t->ncols++;
        }
    }
    t->nboxes = r->nvariants * t->ncols;
    for (size_t c = 0; c < r->ncells; c++) {
        char h[256] = "";
        if (colof[c] < 0)
            continue;
        if (r->cells[c].values)
            creport_cell_axes_but(r, c, ta, ca, h, sizeof(h));
        for (size_t g = 0; g < t->ngroups && grpof[c] < 0; g++)
            if (!strcmp(t->groups[g].heading, h))
                grpof[c] = (long)g;
        if (grpof[c] < 0 && (grpof[c] = add_group(t, h)) < 0)
            return -ENOMEM;
    }
    return 0;
}

/*
 * Every entry's cells have different tests (else a placeholder would mix
 * cells the columns do not tell apart), and each placeholder's test is some
 * cell's. -EINVAL with a sentence naming them.
 */
static int check_cells(const struct creport *r, const struct creport_celltab *t, long ta,
                       const long *colof, const long *grpof, char *err, size_t errlen)
{
    for (size_t a = 0; a < r->ncells; a++)
        for (size_t b = a + 1; colof[a] >= 0 && b < r->ncells; b++)
            if (colof[a] == colof[b] && grpof[a] == grpof[b] &&
                !strcmp(cell_test(r, a, ta), cell_test(r, b, ta)))
                return err_set(err, errlen, EINVAL,
                               "the cell table would put cells '%s' and '%s' (both %s) in one "
                               "entry: %s",
                               r->cells[a].name, r->cells[b].name,
                               cell_test(r, a, ta)[0] ? cell_test(r, a, ta) : "of unknown test",
                               r->naxes ? "name the axis that tells them apart with --columns"
                                        : "the report has no matrix axes to tell them apart "
                                          "(--experiments merges cells by name)");
    for (size_t i = 0; i < t->nph; i++) {
        const struct metric *m = metric_find(t->ph[i].metric);
        bool found = false;
        for (size_t c = 0; c < r->ncells && !found; c++) {
            const char *test = cell_test(r, c, ta);
            found = colof[c] >= 0 && (t->ph[i].test ? !strcmp(test, t->ph[i].test)
                                                    : (m->kinds & creport_test_kind(test)) != 0);
        }
        if (!found)
            return err_set(err, errlen, EINVAL,
                           "cell template: %s: no cell of this experiment %s%s", t->ph[i].source,
                           t->ph[i].test ? "is " : "measures ",
                           t->ph[i].test ? t->ph[i].test : t->ph[i].metric);
    }
    return 0;
}

/*
 * The mark of a placeholder over several comparisons: a change found in
 * any of them shows ("!", "*", or "!*" when both), else "=" when all are
 * within noise, else "?"; "" when none was compared (the baseline).
 */
static void combine_marks(char *out, const char *marks)
{
    bool reg = strchr(marks, '!'), imp = strchr(marks, '*'), unp = strchr(marks, '?');
    if (reg || imp)
        snprintf(out, 4, "%s%s", reg ? "!" : "", imp ? "*" : "");
    else if (unp)
        snprintf(out, 4, "?");
    else
        snprintf(out, 4, "%s", *marks ? "=" : "");
}

/* Placeholder i of variant v over the cells of one entry (colof, grpof == col, g). */
static void fill_val(const struct creport *r, const struct creport_celltab *t, size_t i, size_t v,
                     long ta, const long *colof, const long *grpof, long col, long g,
                     struct creport_cellval *o)
{
    size_t m = creport_metric_index(r->metrics, r->nmetrics, t->ph[i].metric);
    char marks[64] = "";
    size_t nm = 0;
    double sum = 0;
    for (size_t c = 0; c < r->ncells && m < r->nmetrics; c++) {
        const char *test = cell_test(r, c, ta);
        if (colof[c] != col || grpof[c] != g ||
            (t->ph[i].test ? strcmp(test, t->ph[i].test)
                           : !(r->metrics[m].tests & creport_test_kind(test))))
            continue;
        const struct creport_entry *en = creport_at(r, v, c, m);
        for (size_t k = 0; k < en->n; k++)
            sum += en->values[k];
        o->n += en->n;
        o->failed += creport_fail_at(r, v, c)->failed;
        char mk = v ? creport_marker(en) : ' ';
        if (mk != ' ' && nm + 1 < sizeof(marks))
            marks[nm++] = mk;
    }
    o->value = o->n ? sum / (double)o->n : NAN;
    combine_marks(o->mark, marks);
    if (!o->n) {
        snprintf(o->text, sizeof(o->text), "%s", o->failed ? "(fails)" : "-");
        return;
    }
    char num[32];
    creport_cell_num(num, sizeof(num), o->value);
    snprintf(o->text, sizeof(o->text), "%s%s%s", num, strcmp(t->ph[i].unit, "%") ? "" : "%",
             o->mark);
}

/* The box's text: the template's literal parts and its values in order. 0 or -ENOMEM. */
static int fill_text(const struct creport_celltab *t, struct creport_cellbox *b)
{
    size_t len = 1, k = 0;
    for (size_t i = 0; i < t->tpl.nparts; i++)
        len += t->tpl.parts[i].text ? strlen(t->tpl.parts[i].text) : sizeof(b->vals[0].text);
    if (!(b->text = malloc(len)))
        return -ENOMEM;
    b->text[0] = '\0';
    b->fails = true;
    for (size_t i = 0; i < t->nph; i++)
        b->fails &= !b->vals[i].n && b->vals[i].failed;
    if (b->fails) {
        snprintf(b->text, len, "(fails)");
        return 0;
    }
    for (size_t i = 0, u = 0; i < t->tpl.nparts && u < len; i++)
        u += (size_t)snprintf(b->text + u, len - u, "%s",
                              t->tpl.parts[i].text ? t->tpl.parts[i].text : b->vals[k++].text);
    return 0;
}

/* Every box of every group from the model. 0 or -ENOMEM. */
static int fill_boxes(const struct creport *r, struct creport_celltab *t, long ta,
                      const long *colof, const long *grpof)
{
    for (size_t g = 0; g < t->ngroups; g++)
        for (size_t v = 0; v < r->nvariants; v++)
            for (size_t col = 0; col < t->ncols; col++) {
                struct creport_cellbox *b = &t->groups[g].boxes[v * t->ncols + col];
                if (!(b->vals = calloc(t->nph, sizeof(*b->vals))))
                    return -ENOMEM;
                for (size_t i = 0; i < t->nph; i++)
                    fill_val(r, t, i, v, ta, colof, grpof, (long)col, (long)g, &b->vals[i]);
                if (fill_text(t, b))
                    return -ENOMEM;
            }
    return 0;
}

int creport_celltab_build(struct creport *r, char *err, size_t errlen)
{
    struct creport_celltab *t = r->celltab;
    if (!t)
        return 0;
    long ta = axis_index(r, "test"), ca = -1;
    long *colof = calloc(r->ncells ? r->ncells : 1, sizeof(long));
    long *grpof = calloc(r->ncells ? r->ncells : 1, sizeof(long));
    int e = colof && grpof ? choose_axis(r, t, ta, &ca, err, errlen) : -ENOMEM;
    if (!e && ca >= 0 && !t->axis && !(t->axis = strdup(r->axes[ca])))
        e = -ENOMEM;
    if (!e)
        e = place_cells(r, t, ta, ca, colof, grpof);
    if (!e)
        e = check_cells(r, t, ta, colof, grpof, err, errlen);
    if (!e)
        e = fill_boxes(r, t, ta, colof, grpof);
    free(colof);
    free(grpof);
    return e;
}
