/* The figure of a statistics report: distribution per set above the comparison forest. */
#include "statsreport/stats_report_plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/plot.h"
#include "plot/plot_figures.h"

void report_plot_opts_default(struct report_plot_opts *o)
{
    o->width = PLOT_DEFAULT_WIDTH;
    o->height = PLOT_DEFAULT_HEIGHT * 1.4;
    o->title = NULL;
    o->axis = NULL;
    o->log = false;
}

int stats_report_plot(const struct stats_report *r, const struct report_plot_opts *o,
                      const char *path, size_t *npoints, char *err, size_t errlen)
{
    size_t nc = r->nsets ? r->nsets - 1 : 0;
    struct plot_set *sets = calloc(r->nsets ? r->nsets : 1, sizeof(*sets));
    struct plot_forest_row *rows = calloc(nc ? nc : 1, sizeof(*rows));
    char(*labels)[160] = calloc(nc ? nc : 1, sizeof(*labels));
    if (!sets || !rows || !labels) {
        free(sets);
        free(rows);
        free(labels);
        return err_set(err, errlen, ENOMEM, "out of memory drawing %s", path);
    }
    size_t n = 0;
    for (size_t i = 0; i < r->nsets; i++) {
        const struct stats_report_set *s = &r->sets[i];
        sets[i] = (struct plot_set){s->name, s->values, s->n, s->described ? &s->sum : NULL};
        for (size_t k = 0; k < s->n; k++)
            n += isfinite(s->values[k]) && (!o->log || s->values[k] > 0);
    }
    for (size_t i = 0; i < nc; i++) {
        const struct stats_report_cmp *c = &r->cmps[i];
        snprintf(labels[i], sizeof(labels[i]), "%s vs %s", r->sets[c->other].name, r->sets[0].name);
        rows[i] = (struct plot_forest_row){labels[i],
                                           c->compared,
                                           c->c.verdict.rel,
                                           c->c.verdict.rel_low,
                                           c->c.verdict.rel_high,
                                           c->c.verdict.kind};
    }
    char title[160], ftitle[160];
    snprintf(title, sizeof(title), "Distribution per set: runs, quartiles, mean with %g%% interval",
             100 * r->opts.confidence);
    snprintf(ftitle, sizeof(ftitle), "Change of the mean against %s, %g%% interval, %s is better",
             r->sets[0].name, 100 * r->opts.confidence,
             r->opts.lower_is_better ? "lower" : "higher");
    const char *axis = o->axis ? o->axis : r->sets[0].metric[0] ? r->sets[0].metric : "value";
    struct plot_dist d = {o->title ? o->title : title, axis, sets, r->nsets, o->log};
    struct plot_forest fo = {ftitle, rows, nc, r->opts.noise};
    struct plot_stack_part parts[] = {
        {plot_draw_dist, &d, 3},
        {plot_draw_forest, &fo, 0.9 + 0.25 * (double)nc},
    };
    struct plot_stack st = {parts, nc ? 2 : 1};
    int e = plot_write_file(path, o->width, o->height, plot_draw_stack, &st, err, errlen);
    free(sets);
    free(rows);
    free(labels);
    if (!e && npoints)
        *npoints = n;
    return e;
}

void stats_report_input_axis(const struct stats_report *r, char *b, size_t n)
{
    const struct stats_report_set *s = &r->sets[0];
    snprintf(b, n, "%s (%s input%s%s)", strstr(s->metric, "bits_per_second") ? "bit/s" : "value",
             s->format, s->metric[0] ? ": " : "", s->metric);
}

int stats_report_plot_input(const struct stats_report *r, const struct report_plot_opts *want,
                            const char *path, struct report_plot_opts *used, size_t *npoints,
                            char *err, size_t errlen)
{
    report_plot_opts_default(used);
    used->width = want->width ? want->width : used->width;
    used->height = want->height ? want->height : used->height;
    used->log = want->log;
    used->axis = want->axis;
    char axis[200];
    if (!used->axis) {
        stats_report_input_axis(r, axis, sizeof(axis));
        used->axis = axis;
    }
    int rc = stats_report_plot(r, used, path, npoints, err, errlen);
    /* The label lived on this stack: the caller gets the size, not a dangling axis. */
    if (used->axis == axis)
        used->axis = NULL;
    return rc;
}
