/*
 * Distribution per set (every run as a point of a jittered strip, the box of
 * the quartiles, the mean with its interval) and the run order figure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "plot/plot.h"
#include "plot/plot_axis.h"
#include "plot/plot_figures.h"

/*
 * The horizontal offset of point i in [-0.5, 0.5): a golden-ratio sequence,
 * spread evenly and the same every time, so equal input gives equal output.
 */
static double jitter(size_t i)
{
    double x = fmod((double)i * 0.6180339887498949, 1.0);
    return x - 0.5;
}

/* The scale over every value of every set, and every interval bound. */
static void fit_dist(struct plot_scale *s, const struct plot_dist *d)
{
    size_t n = 0;
    for (size_t k = 0; k < d->nsets; k++)
        n += d->sets[k].n + 2;
    double *all = malloc((n ? n : 1) * sizeof(double));
    if (!all) {
        plot_scale_fit(s, NULL, 0, d->log, !d->log);
        return;
    }
    size_t m = 0;
    for (size_t k = 0; k < d->nsets; k++) {
        for (size_t i = 0; i < d->sets[k].n; i++)
            all[m++] = d->sets[k].values[i];
        if (d->sets[k].sum) {
            all[m++] = d->sets[k].sum->mean_ci_low;
            all[m++] = d->sets[k].sum->mean_ci_high;
        }
    }
    if (d->log)
        plot_scale_fit(s, all, m, true, false);
    else
        plot_scale_fit_data(s, all, m);
    free(all);
}

/* The box (p25..p75, median line) and the mean with its interval, for one set at x. */
static void draw_summary(cairo_t *cr, const struct plot_scale *s, const struct stats_summary *sum,
                         double x, double half)
{
    double y25 = plot_scale_map(s, sum->p25), y75 = plot_scale_map(s, sum->p75);
    double ym = plot_scale_map(s, sum->median);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.2);
    cairo_rectangle(cr, x - half, y75, 2 * half, y25 - y75);
    cairo_stroke(cr);
    cairo_set_line_width(cr, 2.5);
    cairo_move_to(cr, x - half, ym);
    cairo_line_to(cr, x + half, ym);
    cairo_stroke(cr);
    if (isfinite(sum->mean_ci_low) && isfinite(sum->mean_ci_high)) {
        /* The mean's interval as a thick bar beside the box, the mean as a tick across it. */
        double xb = x + half + 8;
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_line_width(cr, 3);
        cairo_move_to(cr, xb, plot_scale_map(s, sum->mean_ci_low));
        cairo_line_to(cr, xb, plot_scale_map(s, sum->mean_ci_high));
        cairo_stroke(cr);
    }
    double yb = plot_scale_map(s, sum->mean);
    cairo_set_line_width(cr, 2);
    cairo_move_to(cr, x + half + 2, yb);
    cairo_line_to(cr, x + half + 14, yb);
    cairo_stroke(cr);
    cairo_set_line_width(cr, 1);
}

void plot_draw_dist(cairo_t *cr, double w, double h, const void *arg)
{
    const struct plot_dist *d = arg;
    struct plot_frame f;
    plot_frame_default(&f, w, h);
    f.y1 = h - 70; /* two lines under each set: its name and n */
    struct plot_scale s = {.p0 = f.y1, .p1 = f.y0};
    fit_dist(&s, d);
    plot_title(cr, w, d->title);
    plot_axis_y(cr, &s, &f, d->axis);
    double slot = (f.x1 - f.x0) / (double)(d->nsets ? d->nsets : 1);
    double half = fmin(slot * 0.18, 40);
    for (size_t k = 0; k < d->nsets; k++) {
        const struct plot_set *set = &d->sets[k];
        double x = f.x0 + slot * ((double)k + 0.5);
        if (set->sum && set->n >= 2)
            draw_summary(cr, &s, set->sum, x, half);
        for (size_t i = 0; i < set->n; i++) {
            if (!isfinite(set->values[i]) || (d->log && set->values[i] <= 0))
                continue;
            double px = x - half * 2.2 + jitter(i) * half * 1.6;
            plot_marker(cr, k, px, plot_scale_map(&s, set->values[i]), 3.5);
        }
        char buf[64];
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(cr, x, f.y1 + 6, set->name, 12, 0.5, 0, 0);
        snprintf(buf, sizeof(buf), "n = %zu", set->n);
        plot_text(cr, x, f.y1 + 22, buf, 11, 0.5, 0, 0);
    }
    plot_text(cr, f.x1, h - 18,
              "points: runs; box: quartiles and median; bar: mean and its interval", 10, 1, 0, 0);
}

/* The legend along the top right: one marker and name per set. */
static void draw_legend(cairo_t *cr, const struct plot_frame *f, const char *const *names, size_t n,
                        bool warmups)
{
    double x = f->x0, y = f->y0 - 12;
    for (size_t k = 0; k < n; k++) {
        double rgb[3];
        plot_colour(k, rgb);
        /* Legend marks are opaque, so that only data points carry PLOT_POINT_ALPHA. */
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, x, y - 4, 8, 8);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_text(cr, x + 12, y, names[k], 11, 0, 0.5, 0);
        cairo_text_extents_t te;
        cairo_set_font_size(cr, 11);
        cairo_text_extents(cr, names[k], &te);
        x += te.x_advance + 30;
    }
    if (warmups)
        plot_text(cr, x, y, "(ring: warm-up, not counted)", 11, 0, 0.5, 0);
}

void plot_draw_runorder(cairo_t *cr, double w, double h, const void *arg)
{
    const struct plot_runorder *ro = arg;
    struct plot_frame f;
    plot_frame_default(&f, w, h);
    f.y0 += 18; /* the legend's line, between the title and the frame */
    double *xs = malloc((ro->n ? ro->n : 1) * sizeof(double));
    double *ys = malloc((ro->n ? ro->n : 1) * sizeof(double));
    struct plot_scale sx = {.p0 = f.x0 + 10, .p1 = f.x1 - 10}, sy = {.p0 = f.y1, .p1 = f.y0};
    bool warmups = false;
    for (size_t i = 0; xs && ys && i < ro->n; i++) {
        xs[i] = ro->points[i].seq;
        ys[i] = ro->points[i].value;
        warmups |= ro->points[i].warmup;
    }
    plot_scale_fit(&sx, xs, xs && ys ? ro->n : 0, false, false);
    plot_scale_fit_data(&sy, ys, xs && ys ? ro->n : 0);
    free(xs);
    free(ys);
    plot_title(cr, w, ro->title);
    plot_axis_y(cr, &sy, &f, ro->axis);
    plot_axis_x(cr, &sx, &f, "run order (sequence number in the campaign)");
    for (size_t i = 0; i < ro->n; i++) {
        const struct plot_run_point *p = &ro->points[i];
        if (!isfinite(p->value))
            continue;
        double x = plot_scale_map(&sx, p->seq), y = plot_scale_map(&sy, p->value);
        plot_marker(cr, p->set, x, y, 4);
        if (p->warmup) {
            cairo_set_source_rgb(cr, 0, 0, 0);
            cairo_arc(cr, x, y, 7, 0, 2 * M_PI);
            cairo_stroke(cr);
        }
    }
    draw_legend(cr, &f, ro->names, ro->nsets, warmups);
}
