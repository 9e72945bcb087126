/* The figures of a campaign report, built from the report model and drawn by plot/. */
#include "report/plot.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plot/plot_figures.h"
#include "stats/summary.h"

/*
 * A figure's height for h pixels of content, kept within what plot/ draws
 * (PLOT_MIN_SIZE..PLOT_MAX_SIZE): one metric of one comparison makes a
 * forest of one row, 144 high, and a forest of two rows asked for 178; each
 * failed the whole report.
 */
static double fig_height(double h)
{
    return h < PLOT_MIN_SIZE ? PLOT_MIN_SIZE : h > PLOT_MAX_SIZE ? PLOT_MAX_SIZE : h;
}

/* A cell's name for file names and captions: "default" when the plan has none. */
static const char *cell_name(const struct creport *r, size_t c)
{
    return r->cells[c].name[0] ? r->cells[c].name : "default";
}

/* The file stem part of s: letters, digits, '-' and '_' kept, everything else '_'. */
static void stem(char *out, size_t len, const char *a, const char *b, const char *c)
{
    snprintf(out, len, "%s-%s-%s", a, b, c);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_'))
            *p = '_';
}

/* The distribution of metric m in cell c, one set per variant with the model's summary. */
static int figure_dist(const struct creport *r, size_t c, size_t m, creport_figure_fn fn, void *ctx)
{
    const struct creport_metric *md = &creport_report_metrics(r, &(size_t){0})[m];
    size_t nv = r->nvariants;
    struct plot_set *sets = calloc(nv, sizeof(*sets));
    int e = sets ? 0 : -ENOMEM;
    struct creport_figure f = {.kind = "distribution", .width = 800, .height = 480};
    for (size_t v = 0; v < nv && !e; v++) {
        const struct creport_entry *en = creport_at(r, v, c, m);
        /* The box and interval need two runs, as the statistics do. */
        sets[v] = (struct plot_set){r->variants[v], en->values, en->n,
                                    en->has_sum && en->n >= 2 ? &en->sum : NULL};
        f.npoints += en->n;
    }
    char title[200], axis[128];
    snprintf(title, sizeof(title), "%s in %s: runs, quartiles, mean with %g%% interval", md->title,
             cell_name(r, c), 100 * r->opts.confidence);
    snprintf(axis, sizeof(axis), "%s (%s)", md->title, md->unit);
    struct plot_dist d = {title, axis, sets, nv, false};
    stem(f.name, sizeof(f.name), "distribution", cell_name(r, c), md->name);
    snprintf(f.caption, sizeof(f.caption),
             "%s per variant in cell %s (%s is better): every measured run as a point, the "
             "box of the quartiles, the mean with its %g%% interval; n under each variant.",
             md->title, cell_name(r, c), md->lower_is_better ? "lower" : "higher",
             100 * r->opts.confidence);
    if (!e)
        e = fn(ctx, &f, plot_draw_dist, &d);
    free(sets);
    return e;
}

/* The forest of cell c: one row per variant (but the baseline) and metric shown. */
static int figure_forest(const struct creport *r, size_t c, creport_figure_fn fn, void *ctx)
{
    const struct creport_metric *mt = creport_report_metrics(r, &(size_t){0});
    size_t cap = (r->nvariants - 1) * r->norder;
    struct plot_forest_row *rows = calloc(cap ? cap : 1, sizeof(*rows));
    char(*labels)[128] = calloc(cap ? cap : 1, sizeof(*labels));
    size_t n = 0;
    int e = rows && labels ? 0 : -ENOMEM;
    for (size_t v = 1; v < r->nvariants && !e; v++)
        for (size_t i = 0; i < r->norder; i++) {
            size_t m = r->order[i];
            const struct creport_entry *en = creport_at(r, v, c, m);
            if (!en->shown)
                continue;
            snprintf(labels[n], sizeof(labels[n]), "%s: %s%s", r->variants[v], mt[m].label,
                     (int)m == r->cells[c].decide ? " (deciding)" : "");
            const struct stats_verdict *vd = &en->cmp.verdict;
            rows[n] = (struct plot_forest_row){labels[n],   en->has_cmp,  vd->rel,
                                               vd->rel_low, vd->rel_high, vd->kind};
            n++;
        }
    char title[200];
    snprintf(title, sizeof(title), "Changes against %s in %s, %g%% intervals", r->variants[0],
             cell_name(r, c), 100 * r->opts.confidence);
    struct plot_forest fo = {title, rows, n, r->opts.noise};
    struct creport_figure f = {
        .kind = "forest", .width = 800, .height = fig_height(110 + 34 * (double)n)};
    stem(f.name, sizeof(f.name), "forest", cell_name(r, c), "all");
    snprintf(f.caption, sizeof(f.caption),
             "Relative change of each metric's mean against %s in cell %s with its %g%% "
             "interval; the shaded band is the %g%% noise floor; the verdict is written out.",
             r->variants[0], cell_name(r, c), 100 * r->opts.confidence, 100 * r->opts.noise);
    if (!e && n)
        e = fn(ctx, &f, plot_draw_forest, &fo);
    free(rows);
    free(labels);
    return e;
}

/* Every ok run of cell c in run order, metric m, warm-ups marked. */
static int figure_runorder(const struct creport *r, size_t c, size_t m, creport_figure_fn fn,
                           void *ctx)
{
    const struct creport_metric *md = &creport_report_metrics(r, &(size_t){0})[m];
    struct plot_run_point *pts = calloc(r->nrunlist ? r->nrunlist : 1, sizeof(*pts));
    if (!pts)
        return -ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < r->nrunlist; i++) {
        const struct creport_run *x = &r->runlist[i];
        if (x->c == c && isfinite(x->values[m]))
            pts[n++] = (struct plot_run_point){x->seq, x->values[m], x->v, x->warmup};
    }
    char title[200], axis[128];
    snprintf(title, sizeof(title), "%s in %s by run order", md->title, cell_name(r, c));
    snprintf(axis, sizeof(axis), "%s (%s)", md->title, md->unit);
    struct plot_runorder ro = {title, axis, (const char *const *)r->variants, r->nvariants, pts, n};
    struct creport_figure f = {.kind = "runorder", .npoints = n, .width = 800, .height = 400};
    stem(f.name, sizeof(f.name), "runorder", cell_name(r, c), md->name);
    snprintf(f.caption, sizeof(f.caption),
             "%s of every run of cell %s against its place in the campaign, by variant; ringed "
             "points are warm-ups, which the statistics leave out. Drift shows as a slope.",
             md->title, cell_name(r, c));
    int e = fn(ctx, &f, plot_draw_runorder, &ro);
    free(pts);
    return e;
}

/* The deciding metric of the first cell that has one, per variant and cell. */
static int figure_heatmap(const struct creport *r, size_t m, creport_figure_fn fn, void *ctx)
{
    const struct creport_metric *md = &creport_report_metrics(r, &(size_t){0})[m];
    size_t n = r->nvariants * r->ncells;
    double *rel = calloc(n, sizeof(double));
    bool *sig = calloc(n, sizeof(bool));
    const char **cols = calloc(r->ncells, sizeof(char *));
    int e = rel && sig && cols ? 0 : -ENOMEM;
    for (size_t c = 0; c < r->ncells && !e; c++) {
        cols[c] = cell_name(r, c);
        for (size_t v = 0; v < r->nvariants; v++) {
            const struct creport_entry *en = creport_at(r, v, c, m);
            rel[v * r->ncells + c] = en->has_cmp ? en->cmp.verdict.rel : NAN;
            sig[v * r->ncells + c] = en->has_cmp && (en->cmp.verdict.kind == STATS_IMPROVED ||
                                                     en->cmp.verdict.kind == STATS_REGRESSED);
        }
    }
    char title[200];
    snprintf(title, sizeof(title), "%s: change against %s per variant and cell", md->title,
             r->variants[0]);
    struct plot_heatmap hm = {title,     (const char *const *)r->variants,
                              cols,      r->nvariants,
                              r->ncells, rel,
                              sig,       md->lower_is_better};
    struct creport_figure f = {
        .kind = "heatmap", .width = 800, .height = fig_height(130 + 40 * (double)r->nvariants)};
    stem(f.name, sizeof(f.name), "heatmap", "all", md->name);
    snprintf(f.caption, sizeof(f.caption),
             "Change of the mean %s against %s in every matrix cell; cells whose verdict is not "
             "improved or regressed are grey.",
             md->label, r->variants[0]);
    if (!e)
        e = fn(ctx, &f, plot_draw_heatmap, &hm);
    free(rel);
    free(sig);
    free(cols);
    return e;
}

int creport_figures(const struct creport *r, creport_figure_fn fn, void *ctx)
{
    int e = 0, heat = -1;
    for (size_t c = 0; c < r->ncells && !e; c++) {
        int m = r->cells[c].decide;
        if (m < 0)
            continue;
        heat = heat < 0 ? m : heat;
        e = figure_dist(r, c, (size_t)m, fn, ctx);
        if (!e && r->nvariants > 1)
            e = figure_forest(r, c, fn, ctx);
        if (!e)
            e = figure_runorder(r, c, (size_t)m, fn, ctx);
    }
    if (!e && heat >= 0 && r->nvariants > 1)
        e = figure_heatmap(r, (size_t)heat, fn, ctx);
    return e;
}

struct dir_ctx {
    const char *dir, *ext;
    double w, h;
    size_t n, failed;
    FILE *warn;
    char *err;
    size_t errlen;
};

static int write_one(void *arg, const struct creport_figure *f, plot_draw_fn draw, const void *data)
{
    struct dir_ctx *d = arg;
    char path[4096];
    if ((size_t)snprintf(path, sizeof(path), "%s/%s.%s", d->dir, f->name, d->ext) >= sizeof(path))
        return err_set(d->err, d->errlen, ENAMETOOLONG, "%s: the directory name is too long",
                       d->dir);
    char why[NB_ERRLEN * 2];
    int e = plot_write_file(path, d->w > 0 ? d->w : f->width, d->h > 0 ? d->h : f->height, draw,
                            data, why, sizeof(why));
    d->n += !e;
    d->failed += e && e != -ENOMEM;
    /* One figure that cannot be drawn or written costs that figure, not the others. */
    if (e && e != -ENOMEM && d->warn)
        fprintf(d->warn, "netab report: %s; figure skipped\n", why);
    return e == -ENOMEM ? e : 0;
}

int creport_plot_dir(const struct creport *r, const char *dir, const char *ext, double w, double h,
                     FILE *warn, size_t *nfiles, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) && errno != EEXIST)
        return err_set(err, errlen, errno, "%s: cannot create the directory: %s", dir,
                       strerror(errno));
    struct dir_ctx d = {dir, ext, w, h, 0, 0, warn, err, errlen};
    int e = creport_figures(r, write_one, &d);
    if (e == -ENOMEM)
        err_set(err, errlen, ENOMEM, "out of memory drawing the figures");
    else if (d.failed)
        e = err_set(err, errlen, EIO, "%zu of %zu figures could not be written to %s", d.failed,
                    d.failed + d.n, dir);
    *nfiles = d.n;
    return e;
}
