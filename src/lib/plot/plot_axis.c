/* Scales, ticks, axes and text shared by every figure. */
#include "plot/plot_axis.h"

#include <math.h>
#include <stdio.h>

/* The tick step for a range: 1, 2 or 5 times a power of ten, about five ticks. */
static double nice_step(double range)
{
    double raw = range / 5;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

void plot_scale_fit(struct plot_scale *s, const double *v, size_t n, bool log, bool zero)
{
    double lo = INFINITY, hi = -INFINITY;
    s->broken = false;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i]) || (log && v[i] <= 0))
            continue;
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
    }
    s->log = log;
    if (log) {
        if (!(lo <= hi)) {
            lo = 1;
            hi = 10;
        }
        s->lo = pow(10, floor(log10(lo)));
        s->hi = pow(10, ceil(log10(hi)));
        if (s->hi <= s->lo)
            s->hi = s->lo * 10;
        return;
    }
    if (!(lo <= hi))
        lo = hi = 0;
    if (zero) {
        lo = fmin(lo, 0);
        hi = fmax(hi, 0);
    }
    if (hi - lo < 1e-12 * fmax(fabs(lo), fabs(hi)) || hi == lo) {
        double pad = lo == 0 ? 1 : fabs(lo) * 0.1;
        lo -= pad;
        hi += pad;
        if (zero && lo < 0 && hi - pad >= 0)
            lo = 0;
    }
    double step = nice_step(hi - lo);
    s->lo = floor(lo / step) * step;
    s->hi = ceil(hi / step) * step;
}

void plot_scale_fit_data(struct plot_scale *s, const double *v, size_t n)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    bool near = !(lo <= hi) || (lo <= 0 && hi >= 0) || fmin(fabs(lo), fabs(hi)) <= hi - lo;
    plot_scale_fit(s, v, n, false, near);
    s->broken = !near && (s->lo > 0 || s->hi < 0);
}

double plot_scale_map(const struct plot_scale *s, double v)
{
    double a, b, x;
    if (s->log) {
        a = log10(s->lo);
        b = log10(s->hi);
        x = v > 0 ? log10(v) : a;
    } else {
        a = s->lo;
        b = s->hi;
        x = v;
    }
    return s->p0 + (x - a) / (b - a) * (s->p1 - s->p0);
}

size_t plot_ticks(const struct plot_scale *s, double *t, size_t max)
{
    size_t n = 0;
    if (s->log) {
        for (double d = s->lo; d <= s->hi * 1.0001 && n < max; d *= 10)
            t[n++] = d;
        return n;
    }
    double step = nice_step(s->hi - s->lo);
    for (double k = ceil(s->lo / step - 1e-9); k * step <= s->hi + step * 1e-9 && n < max; k++)
        t[n++] = fabs(k * step) < step * 1e-9 ? 0 : k * step;
    return n;
}

void plot_fmt_num(double v, char *buf, size_t len)
{
    static const char *const up[] = {"", "k", "M", "G", "T", "P"};
    double a = fabs(v);
    if (!isfinite(v)) {
        snprintf(buf, len, "%s", "?");
        return;
    }
    if (a < 1e3) {
        snprintf(buf, len, "%.3g", v);
        return;
    }
    size_t k = 0;
    while (a >= 1000 && k + 1 < sizeof(up) / sizeof(*up)) {
        a /= 1000;
        v /= 1000;
        k++;
    }
    snprintf(buf, len, "%.3g%s", v, up[k]);
}

void plot_text(cairo_t *cr, double x, double y, const char *s, double size, double ax, double ay,
               double angle)
{
    cairo_text_extents_t te;
    cairo_font_extents_t fe;
    cairo_save(cr);
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, s, &te);
    cairo_font_extents(cr, &fe);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    /* Vertical anchoring by the font's ascent, so that labels of one row line up. */
    cairo_move_to(cr, -te.x_advance * ax, fe.ascent - (fe.ascent + fe.descent) * ay);
    cairo_show_text(cr, s);
    cairo_restore(cr);
}

void plot_frame_default(struct plot_frame *f, double w, double h)
{
    f->x0 = 80;
    f->y0 = 40;
    f->x1 = w - 20;
    f->y1 = h - 60;
}

void plot_title(cairo_t *cr, double w, const char *title)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_text(cr, w / 2, 10, title, 15, 0.5, 0, 0);
}

/* The break mark of an axis that leaves zero out: a gap in the axis line crossed by two slashes. */
static void axis_break(cairo_t *cr, double x, double y)
{
    cairo_save(cr);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, x - 6, y - 3, 12, 6);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1.2);
    for (int k = -1; k <= 1; k += 2) {
        cairo_move_to(cr, x - 6, y + 3 * k + 2);
        cairo_line_to(cr, x + 6, y + 3 * k - 2);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

void plot_axis_y(cairo_t *cr, const struct plot_scale *s, const struct plot_frame *f,
                 const char *label)
{
    double t[64];
    char buf[32];
    size_t n = plot_ticks(s, t, 64);
    for (size_t i = 0; i < n; i++) {
        double y = plot_scale_map(s, t[i]);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, f->x0, y);
        cairo_line_to(cr, f->x1, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_fmt_num(t[i], buf, sizeof(buf));
        plot_text(cr, f->x0 - 6, y, buf, 11, 1, 0.5, 0);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, f->x0, f->y0, f->x1 - f->x0, f->y1 - f->y0);
    cairo_stroke(cr);
    if (s->broken)
        axis_break(cr, f->x0, s->p0 < s->p1 ? f->y0 + 12 : f->y1 - 12);
    plot_text(cr, 16, (f->y0 + f->y1) / 2, label, 12, 0.5, 0.5, -M_PI / 2);
}

void plot_axis_x(cairo_t *cr, const struct plot_scale *s, const struct plot_frame *f,
                 const char *label)
{
    double t[64];
    char buf[32];
    size_t n = plot_ticks(s, t, 64);
    for (size_t i = 0; i < n; i++) {
        double x = plot_scale_map(s, t[i]);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x, f->y0);
        cairo_line_to(cr, x, f->y1);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_fmt_num(t[i], buf, sizeof(buf));
        plot_text(cr, x, f->y1 + 5, buf, 11, 0.5, 0, 0);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_rectangle(cr, f->x0, f->y0, f->x1 - f->x0, f->y1 - f->y0);
    cairo_stroke(cr);
    plot_text(cr, (f->x0 + f->x1) / 2, f->y1 + 24, label, 12, 0.5, 0, 0);
}
