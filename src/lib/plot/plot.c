/*
 * Surfaces for the figures: files by extension, SVG in memory; the palette
 * and the markers every figure shares.
 */
#include "plot/plot.h"
#include "util/outfile.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct opt_choice plot_format_choices[] = {
    {"png", PLOT_PNG},
    {"svg", PLOT_SVG},
    {"pdf", PLOT_PDF},
    {NULL, 0},
};

int plot_format_of(const char *path, enum plot_format *out, char *err, size_t errlen)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    for (const struct opt_choice *c = plot_format_choices;
         dot && (!slash || dot > slash) && c->word; c++)
        if (!strcasecmp(dot + 1, c->word))
            return *out = (enum plot_format)c->value, 0;
    return err_set(err, errlen, EINVAL,
                   "%s: the figure's format follows the file name, which must "
                   "end in .png, .svg or .pdf",
                   path);
}

/* Set by the first figure: plot_shutdown() has caches to release. */
static bool drawn;

void plot_shutdown(void)
{
    if (!drawn)
        return;
    cairo_debug_reset_static_data();
    FcFini();
    drawn = false;
}

/* White background, then the figure, with the fonts and line style every figure shares. */
static void draw_page(cairo_surface_t *s, double w, double h, plot_draw_fn draw, const void *fig)
{
    cairo_t *cr = cairo_create(s);
    drawn = true;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_line_width(cr, 1);
    draw(cr, w, h, fig);
    cairo_destroy(cr);
}

static int size_ok(double w, double h)
{
    return isfinite(w) && isfinite(h) && w >= PLOT_MIN_SIZE && h >= PLOT_MIN_SIZE &&
           w <= PLOT_MAX_SIZE && h <= PLOT_MAX_SIZE;
}

static int svg_file(struct outfile *o, double w, double h, plot_draw_fn draw, const void *fig,
                    char *err, size_t errlen);

/* cairo's writer into the figure's temporary file: a short write is cairo's write error. */
static cairo_status_t file_write(void *closure, const unsigned char *data, unsigned int n)
{
    return fwrite(data, 1, n, closure) == n ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* A PNG or PDF figure drawn by cairo into o's file. */
static int cairo_file(struct outfile *o, enum plot_format f, double w, double h, plot_draw_fn draw,
                      const void *fig, char *err, size_t errlen)
{
    cairo_surface_t *s;
    if (f == PLOT_PNG) {
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)w, (int)h);
    } else {
        s = cairo_pdf_surface_create_for_stream(file_write, o->f, w, h);
        /* A fixed date keeps equal figures byte-for-byte equal. */
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, "2000-01-01T00:00:00Z");
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "netab");
    }
    if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
        draw_page(s, w, h, draw, fig);
    cairo_status_t st = cairo_surface_status(s);
    if (st == CAIRO_STATUS_SUCCESS && f == PLOT_PNG)
        st = cairo_surface_write_to_png_stream(s, file_write, o->f);
    cairo_surface_finish(s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (st == CAIRO_STATUS_SUCCESS)
        return 0;
    /* A write error is the file's (errno still says why); anything else is cairo's. */
    int e = st == CAIRO_STATUS_NO_MEMORY ? ENOMEM : EIO;
    if (st == CAIRO_STATUS_WRITE_ERROR && errno)
        e = errno;
    return err_set(err, errlen, e, "%s: cannot write the figure: %s", o->path,
                   st == CAIRO_STATUS_WRITE_ERROR ? strerror(e) : cairo_status_to_string(st));
}

int plot_write_file(const char *path, double w, double h, plot_draw_fn draw, const void *fig,
                    char *err, size_t errlen)
{
    enum plot_format f;
    int e = plot_format_of(path, &f, err, errlen);
    if (e)
        return e;
    if (!size_ok(w, h))
        return err_set(err, errlen, EINVAL, "%s: a figure is %d to %d wide and high, not %gx%g",
                       path, PLOT_MIN_SIZE, PLOT_MAX_SIZE, w, h);
    /* Written under a temporary name: a failed figure leaves no partial file. */
    struct outfile o;
    e = outfile_open(&o, path, err, errlen);
    if (e)
        return e;
    errno = 0;
    e = f == PLOT_SVG ? svg_file(&o, w, h, draw, fig, err, errlen)
                      : cairo_file(&o, f, w, h, draw, fig, err, errlen);
    if (e) {
        outfile_abort(&o);
        return e;
    }
    return outfile_commit(&o, err, errlen);
}

/* A growing buffer that cairo's SVG surface writes into. */
struct membuf {
    char *p;
    size_t len, cap;
    bool failed;
};

static bool membuf_add(struct membuf *b, const char *data, size_t n)
{
    if (b->failed)
        return false;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 8192;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return false;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = 0;
    return true;
}

static cairo_status_t membuf_write(void *closure, const unsigned char *data, unsigned int n)
{
    return membuf_add(closure, (const char *)data, n) ? CAIRO_STATUS_SUCCESS
                                                      : CAIRO_STATUS_NO_MEMORY;
}

/*
 * cairo numbers its surfaces per process ("surface75" for the 75th), which
 * would make the same figure differ by when it was drawn: renumber them from
 * the first one the document names, which becomes "surface1".
 */
static bool renumber_surfaces(const char *src, struct membuf *dst)
{
    const char *first = strstr(src, "id=\"surface");
    long base = first ? strtol(first + 11, NULL, 10) : 1;
    for (const char *p; (p = strstr(src, "surface"));) {
        char *end;
        long k = strtol(p + 7, &end, 10);
        if (!membuf_add(dst, src, (size_t)(p - src) + 7))
            return false;
        if (end != p + 7) {
            char num[24];
            int len = snprintf(num, sizeof(num), "%ld", k - base + 1);
            if (!membuf_add(dst, num, (size_t)len))
                return false;
        }
        src = end;
    }
    return membuf_add(dst, src, strlen(src));
}

/*
 * Copies the SVG in src into dst without the XML declaration, with idp put
 * before every id and every reference to one (id="x", href="#x", url(#x)).
 */
static bool prefix_ids(const char *src, const char *idp, struct membuf *dst)
{
    static const char *const keys[] = {"id=\"", "href=\"#", "url(#"};
    if (!strncmp(src, "<?xml", 5)) {
        const char *end = strstr(src, "?>");
        src = end ? end + 2 : src;
        while (*src == '\n')
            src++;
    }
    size_t plen = strlen(idp);
    while (*src) {
        const char *best = NULL;
        size_t klen = 0;
        for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
            const char *hit = strstr(src, keys[k]);
            if (hit && (!best || hit < best)) {
                best = hit;
                klen = strlen(keys[k]);
            }
        }
        if (!best)
            return membuf_add(dst, src, strlen(src));
        if (!membuf_add(dst, src, (size_t)(best - src) + klen) || !membuf_add(dst, idp, plen))
            return false;
        src = best + klen;
    }
    return !dst->failed;
}

/*
 * The SVG document of fig in *out (renumbered, see above), NUL-terminated.
 * Returns 0, -ENOMEM or -EIO.
 */
static int svg_render(double w, double h, plot_draw_fn draw, const void *fig, struct membuf *out)
{
    struct membuf raw = {0};
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(membuf_write, &raw, w, h);
    if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
        draw_page(s, w, h, draw, fig);
    cairo_surface_finish(s);
    cairo_status_t st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    int e = 0;
    if (st != CAIRO_STATUS_SUCCESS || raw.failed || !raw.p)
        e = st == CAIRO_STATUS_NO_MEMORY || raw.failed ? -ENOMEM : -EIO;
    else if (!renumber_surfaces(raw.p, out))
        e = -ENOMEM;
    free(raw.p);
    return e;
}

int plot_svg_string(double w, double h, plot_draw_fn draw, const void *fig, const char *idp,
                    char **out, size_t *len)
{
    struct membuf doc = {0}, done = {0};
    *out = NULL;
    *len = 0;
    if (!size_ok(w, h))
        return -EINVAL;
    int e = svg_render(w, h, draw, fig, &doc);
    if (!e && !prefix_ids(doc.p, idp, &done))
        e = -ENOMEM;
    free(doc.p);
    if (e) {
        free(done.p);
        return e;
    }
    *out = done.p;
    *len = done.len;
    return 0;
}

/* An SVG figure: rendered in memory (renumbered), then written into o's file. */
static int svg_file(struct outfile *o, double w, double h, plot_draw_fn draw, const void *fig,
                    char *err, size_t errlen)
{
    struct membuf doc = {0};
    int e = svg_render(w, h, draw, fig, &doc);
    if (e) {
        free(doc.p);
        return err_set(err, errlen, -e, "%s: cannot draw the figure: %s", o->path, strerror(-e));
    }
    bool ok = fwrite(doc.p, 1, doc.len, o->f) == doc.len;
    int saved = errno ? errno : EIO;
    free(doc.p);
    if (!ok)
        return err_set(err, errlen, saved, "%s: cannot write the figure: %s", o->path,
                       strerror(saved));
    return 0;
}

void plot_draw_stack(cairo_t *cr, double w, double h, const void *arg)
{
    const struct plot_stack *st = arg;
    double total = 0, y = 0;
    for (size_t i = 0; i < st->n; i++)
        total += st->parts[i].weight;
    for (size_t i = 0; i < st->n && total > 0; i++) {
        double ph = h * st->parts[i].weight / total;
        cairo_save(cr);
        cairo_translate(cr, 0, y);
        cairo_rectangle(cr, 0, 0, w, ph);
        cairo_clip(cr);
        st->parts[i].draw(cr, w, ph, st->parts[i].fig);
        cairo_restore(cr);
        y += ph;
    }
}

/* Okabe and Ito's palette (2008): distinct under protanopia, deuteranopia and tritanopia. */
static const unsigned char palette[][3] = {
    {0x00, 0x72, 0xB2}, /* blue */
    {0xD5, 0x5E, 0x00}, /* vermillion */
    {0x00, 0x9E, 0x73}, /* bluish green */
    {0xCC, 0x79, 0xA7}, /* reddish purple */
    {0xE6, 0x9F, 0x00}, /* orange */
    {0x56, 0xB4, 0xE9}, /* sky blue */
    {0x00, 0x00, 0x00}, /* black */
};
#define NPALETTE (sizeof(palette) / sizeof(*palette))

void plot_colour(size_t i, double rgb[3])
{
    for (int k = 0; k < 3; k++)
        rgb[k] = palette[i % NPALETTE][k] / 255.0;
}

void plot_marker(cairo_t *cr, size_t i, double x, double y, double r)
{
    double rgb[3];
    plot_colour(i, rgb);
    cairo_new_path(cr);
    switch (i % 5) {
    case 0:
        cairo_arc(cr, x, y, r, 0, 2 * M_PI);
        break;
    case 1:
        cairo_rectangle(cr, x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
        break;
    case 2:
        cairo_move_to(cr, x, y - r * 1.15);
        cairo_line_to(cr, x + r, y + r * 0.75);
        cairo_line_to(cr, x - r, y + r * 0.75);
        cairo_close_path(cr);
        break;
    case 3:
        cairo_move_to(cr, x, y - r * 1.2);
        cairo_line_to(cr, x + r, y);
        cairo_line_to(cr, x, y + r * 1.2);
        cairo_line_to(cr, x - r, y);
        cairo_close_path(cr);
        break;
    default: /* a plus sign, filled */
        cairo_rectangle(cr, x - r, y - r * 0.35, 2 * r, r * 0.7);
        cairo_rectangle(cr, x - r * 0.35, y - r, r * 0.7, r * 0.35 * 2 - r * 0.7 + r * 0.65);
        cairo_rectangle(cr, x - r * 0.35, y + r * 0.35, r * 0.7, r * 0.65);
        break;
    }
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], PLOT_POINT_ALPHA);
    cairo_fill(cr);
}
