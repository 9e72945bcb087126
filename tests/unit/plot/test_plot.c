/*
 * The plot module: formats by extension, PNG decoded back (size, marks in
 * the plot area, the palette's colours), SVG read back (one filled mark per
 * data point, the labels), equal input giving equal bytes in every format,
 * ids prefixed for inlining, and scales with round ticks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cairo.h>
#include <cmocka.h>
#include "netab_assert.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot/plot.h"
#include "plot/plot_axis.h"
#include "plot/plot_figures.h"

static const double a[] = {100, 102, 98, 101, 99, 103, 97, 100};
static const double b[] = {90, 92, 91, 89, 93, 90, 88, 91, 94};
#define N(x) (sizeof(x) / sizeof(x[0]))

static char dir[] = "/tmp/netab-plot-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

static void path_of(char *p, size_t n, const char *name)
{
    snprintf(p, n, "%s/%s", dir, name);
}

/* A distribution of a and b with summaries made by hand (quartiles, mean, interval). */
static struct stats_summary sa = {.n = 8,
                                  .p25 = 98.5,
                                  .median = 100,
                                  .p75 = 101.5,
                                  .mean = 100,
                                  .mean_ci_low = 98.5,
                                  .mean_ci_high = 101.5};
static struct stats_summary sb = {.n = 9,
                                  .p25 = 89.5,
                                  .median = 91,
                                  .p75 = 92,
                                  .mean = 90.9,
                                  .mean_ci_low = 89.5,
                                  .mean_ci_high = 92.2};
static const struct plot_set sets[] = {{"base", a, N(a), &sa}, {"patched", b, N(b), &sb}};
static const struct plot_dist dist = {"title", "throughput (Mbit/s)", sets, 2, false};

/* The number of non-overlapping occurrences of needle in hay. */
static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
    p[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void test_format_of(void **state)
{
    (void)state;
    enum plot_format f;
    char err[NB_ERRLEN] = "";
    assert_int_equal(plot_format_of("x.png", &f, err, sizeof(err)), 0);
    assert_int_equal(f, PLOT_PNG);
    assert_int_equal(plot_format_of("dir.d/x.SVG", &f, err, sizeof(err)), 0);
    assert_int_equal(f, PLOT_SVG);
    assert_int_equal(plot_format_of("x.pdf", &f, err, sizeof(err)), 0);
    assert_int_equal(f, PLOT_PDF);
    assert_int_equal(plot_format_of("x.gif", &f, err, sizeof(err)), -EINVAL);
    assert_non_null(strstr(err, ".png, .svg or .pdf"));
    assert_int_equal(plot_format_of("dir.png/file", &f, err, sizeof(err)), -EINVAL);
}

/* Decodes the PNG: its size, dark pixels in the plot area, both sets' colours present. */
static void test_png_decoded(void **state)
{
    (void)state;
    char p[256], err[NB_ERRLEN] = "";
    path_of(p, sizeof(p), "d.png");
    assert_int_equal(plot_write_file(p, 640, 400, plot_draw_dist, &dist, err, sizeof(err)), 0);
    cairo_surface_t *s = cairo_image_surface_create_from_png(p);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    assert_int_equal(cairo_image_surface_get_width(s), 640);
    assert_int_equal(cairo_image_surface_get_height(s), 400);
    cairo_surface_flush(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    double c0[3], c1[3];
    plot_colour(0, c0);
    plot_colour(1, c1);
    size_t inked = 0, blue = 0, vermillion = 0;
    /* Inside the frame only: the plot area, not the title or the labels. */
    for (int y = 45; y < 400 - 75; y++)
        for (int x = 85; x < 640 - 25; x++) {
            uint32_t v = *(const uint32_t *)(px + y * stride + x * 4);
            int r = (v >> 16) & 0xff, g = (v >> 8) & 0xff, bl = v & 0xff;
            inked += r < 250 || g < 250 || bl < 250;
            /* Points are drawn at 80% over white: 0.8 * c + 0.2 * 255. */
            blue += abs(r - (int)(0.8 * c0[0] * 255 + 51)) < 12 &&
                    abs(g - (int)(0.8 * c0[1] * 255 + 51)) < 12 &&
                    abs(bl - (int)(0.8 * c0[2] * 255 + 51)) < 12;
            vermillion += abs(r - (int)(0.8 * c1[0] * 255 + 51)) < 12 &&
                          abs(g - (int)(0.8 * c1[1] * 255 + 51)) < 12 &&
                          abs(bl - (int)(0.8 * c1[2] * 255 + 51)) < 12;
        }
    cairo_surface_destroy(s);
    ASSERT_GT(inked, 1000);
    /* Eight and nine marks of radius 3.5: each well over 20 pixels. */
    ASSERT_GT(blue, 8 * 20);
    ASSERT_GT(vermillion, 9 * 20);
}

/* Reads the SVG: one mark at the point opacity per value, the labels with n. */
static void test_svg_points_and_labels(void **state)
{
    (void)state;
    char p[256], err[NB_ERRLEN] = "";
    path_of(p, sizeof(p), "d.svg");
    assert_int_equal(plot_write_file(p, 800, 500, plot_draw_dist, &dist, err, sizeof(err)), 0);
    size_t len;
    char *svg = read_all(p, &len);
    assert_non_null(strstr(svg, "<svg"));
    assert_int_equal(count(svg, "fill-opacity:0.8;"), N(a) + N(b));
    /* Every show_text() is one group of glyphs: title, axis label, ticks, 2 names, 2 n, key. */
    size_t groups = count(svg, "<g style=\"fill:rgb(0%,0%,0%);fill-opacity:1;\">");
    ASSERT_GE(groups, 7 + 5);
    free(svg);

    /* The same figure twice: the same bytes (the tests and users diff figures). */
    char q[256];
    path_of(q, sizeof(q), "d2.svg");
    assert_int_equal(plot_write_file(q, 800, 500, plot_draw_dist, &dist, err, sizeof(err)), 0);
    size_t len2;
    char *s1 = read_all(p, &len), *s2 = read_all(q, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(s1, s2, len);
    free(s1);
    free(s2);
}

/* PNG and PDF are deterministic too (the PDF's date is fixed). */
static void test_deterministic(void **state)
{
    (void)state;
    const char *names[][2] = {{"e1.png", "e2.png"}, {"e1.pdf", "e2.pdf"}};
    for (size_t i = 0; i < 2; i++) {
        char p[256], q[256], err[NB_ERRLEN] = "";
        path_of(p, sizeof(p), names[i][0]);
        path_of(q, sizeof(q), names[i][1]);
        assert_int_equal(plot_write_file(p, 600, 400, plot_draw_dist, &dist, err, sizeof(err)), 0);
        assert_int_equal(plot_write_file(q, 600, 400, plot_draw_dist, &dist, err, sizeof(err)), 0);
        size_t l1, l2;
        char *s1 = read_all(p, &l1), *s2 = read_all(q, &l2);
        ASSERT_GT(l1, 1000);
        assert_int_equal(l1, l2);
        assert_memory_equal(s1, s2, l1);
        if (i == 1)
            assert_memory_equal(s1, "%PDF-", 5);
        free(s1);
        free(s2);
    }
}

/* In memory: no XML declaration, every id and reference carries the prefix. */
static void test_svg_string_prefixed(void **state)
{
    (void)state;
    char *svg;
    size_t len;
    assert_int_equal(plot_svg_string(800, 500, plot_draw_dist, &dist, "f7-", &svg, &len), 0);
    assert_int_equal(strlen(svg), len);
    assert_memory_equal(svg, "<svg", 4);
    assert_null(strstr(svg, "<?xml"));
    size_t ids = count(svg, "id=\""), refs = count(svg, "href=\"#");
    ASSERT_GT(ids, 5);
    ASSERT_GT(refs, 5);
    assert_int_equal(count(svg, "id=\"f7-"), ids);
    assert_int_equal(count(svg, "href=\"#f7-"), refs);
    assert_int_equal(count(svg, "url(#f7-"), count(svg, "url(#"));
    assert_int_equal(count(svg, "fill-opacity:0.8;"), N(a) + N(b));
    free(svg);
    assert_int_equal(plot_svg_string(10, 10, plot_draw_dist, &dist, "x", &svg, &len), -EINVAL);
}

/* Five intervals of two series: ten points; the omitted warm-up shaded with its label. */
static void test_timeline(void **state)
{
    (void)state;
    double t0[] = {0, 1, 2, 3, 4}, t1[] = {1, 2, 3, 4, 5}, y1[] = {10, 12, 11, 13, 12},
           y2[] = {5, 6, 5, 6, 7};
    struct plot_series s[] = {{"client sends", t0, t1, y1, 5}, {"client receives", t0, t1, y2, 5}};
    struct plot_timeline t = {"run", "throughput (Mbit/s)", s, 2, 1, 0, 0, NULL};
    char *svg;
    size_t len;
    assert_int_equal(plot_svg_string(800, 500, plot_draw_timeline, &t, "t-", &svg, &len), 0);
    assert_int_equal(count(svg, "fill-opacity:0.8;"), 10);
    free(svg);
    t.nseries = 1;
    assert_int_equal(plot_svg_string(800, 500, plot_draw_timeline, &t, "t-", &svg, &len), 0);
    assert_int_equal(count(svg, "fill-opacity:0.8;"), 5);
    free(svg);
}

/* The forest and heatmap draw estimates, not runs: no point marks; the stack adds them up. */
static void test_forest_heatmap_stack(void **state)
{
    (void)state;
    struct plot_forest_row rows[] = {{"patched", true, -0.09, -0.11, -0.07, STATS_REGRESSED},
                                     {"other", false, NAN, NAN, NAN, STATS_NO_DIFFERENCE}};
    struct plot_forest fo = {"forest", rows, 2, 0.01};
    const char *rn[] = {"base", "patched"}, *cn[] = {"a", "b"};
    double rel[] = {NAN, NAN, -0.09, 0.002};
    bool sig[] = {false, false, true, false};
    struct plot_heatmap hm = {"heat", rn, cn, 2, 2, rel, sig, false};
    struct plot_stack_part parts[] = {
        {plot_draw_dist, &dist, 2}, {plot_draw_forest, &fo, 1}, {plot_draw_heatmap, &hm, 1}};
    struct plot_stack st = {parts, 3};
    char *svg;
    size_t len;
    assert_int_equal(plot_svg_string(800, 1000, plot_draw_stack, &st, "s-", &svg, &len), 0);
    assert_int_equal(count(svg, "fill-opacity:0.8;"), N(a) + N(b));
    free(svg);
    char p[256], err[NB_ERRLEN] = "";
    path_of(p, sizeof(p), "h.png");
    assert_int_equal(plot_write_file(p, 400, 300, plot_draw_heatmap, &hm, err, sizeof(err)), 0);
    assert_int_equal(plot_write_file(p, 100, 300, plot_draw_heatmap, &hm, err, sizeof(err)),
                     -EINVAL);
    path_of(p, sizeof(p), "missing-dir/h.png");
    assert_int_not_equal(plot_write_file(p, 400, 300, plot_draw_heatmap, &hm, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "missing-dir/h.png"));
}

/* Round ticks: zero included on request, steps of 1, 2 or 5 times a power of ten. */
static void test_scale(void **state)
{
    (void)state;
    double v[] = {88, 103};
    struct plot_scale s = {.p0 = 0, .p1 = 100};
    plot_scale_fit(&s, v, 2, false, true);
    ASSERT_EQ(s.lo, 0);
    ASSERT_EQ(s.hi, 120);
    double t[64];
    size_t n = plot_ticks(&s, t, 64);
    assert_int_equal(n, 7);
    ASSERT_EQ(t[1], 20);
    ASSERT_EQ(t[6], 120);
    ASSERT_LT(fabs(plot_scale_map(&s, 60) - 50), 1e-9);
    plot_scale_fit(&s, v, 2, false, false);
    ASSERT_EQ(s.lo, 88);
    ASSERT_EQ(s.hi, 104);
    plot_scale_fit(&s, v, 2, true, false);
    ASSERT_EQ(s.lo, 10);
    ASSERT_EQ(s.hi, 1000);
    assert_int_equal(plot_ticks(&s, t, 64), 3);
    double flat[] = {5, 5};
    plot_scale_fit(&s, flat, 2, false, false);
    ASSERT_LT(s.lo, 5);
    ASSERT_GT(s.hi, 5);
    char buf[32];
    plot_fmt_num(27057e6, buf, sizeof(buf));
    assert_string_equal(buf, "27.1G");
    plot_fmt_num(0.5, buf, sizeof(buf));
    assert_string_equal(buf, "0.5");
}

/* Value axes scaled to the data: zero only when near, and a break marked when left out. */
static void test_scale_data(void **state)
{
    (void)state;
    struct plot_scale s = {.p0 = 0, .p1 = 100};
    double close[] = {948, 957};
    plot_scale_fit_data(&s, close, 2);
    ASSERT_GE(s.lo, 940);
    ASSERT_LE(s.hi, 960);
    assert_true(s.broken);
    double spread[] = {1.02, 2.05};
    plot_scale_fit_data(&s, spread, 2);
    ASSERT_EQ(s.lo, 0);
    assert_false(s.broken);
    double negative[] = {-957, -948};
    plot_scale_fit_data(&s, negative, 2);
    ASSERT_LE(s.hi, -940);
    assert_true(s.broken);
    plot_scale_fit(&s, close, 2, false, true);
    ASSERT_EQ(s.lo, 0);
    assert_false(s.broken);
}

/* A forest row whose ratio is undefined says why instead of "+nan%". */
static void test_forest_row_text(void **state)
{
    (void)state;
    char buf[96];
    struct plot_forest_row r = {"b: CPU", true, NAN, NAN, NAN, STATS_WITHIN_NOISE};
    assert_string_equal(plot_forest_row_text(&r, buf, sizeof(buf)),
                        "within noise (no ratio: baseline reaches 0)");
    r = (struct plot_forest_row){"b", true, -0.0912, -0.11, -0.07, STATS_REGRESSED};
    assert_string_equal(plot_forest_row_text(&r, buf, sizeof(buf)), "regressed -9.12%");
    r.has = false;
    assert_string_equal(plot_forest_row_text(&r, buf, sizeof(buf)), "not compared");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_of),
        cmocka_unit_test(test_png_decoded),
        cmocka_unit_test(test_svg_points_and_labels),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_svg_string_prefixed),
        cmocka_unit_test(test_timeline),
        cmocka_unit_test(test_forest_heatmap_stack),
        cmocka_unit_test(test_scale),
        cmocka_unit_test(test_scale_data),
        cmocka_unit_test(test_forest_row_text),
    };
    int failed = cmocka_run_group_tests(tests, setup, teardown);
    plot_shutdown(); /* fontconfig's caches, for LeakSanitizer */
    return failed;
}
