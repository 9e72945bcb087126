/*
 * Inline SVG for the HTML report, made light (svg.c): cairo
 * draws every figure's text as glyph symbols of its own, so a page of 13
 * figures held the same glyph outlines 13 times (1.2 MB for 48 runs). A
 * glyph already defined by an earlier figure of the page is referred to
 * instead of defined again, and numbers are cut to two decimals.
 */
#ifndef NETAB_REPORT_SVG_H
#define NETAB_REPORT_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

/* The glyphs the page has defined so far; zero-initialised before the first figure. */
struct creport_svg_glyphs {
    struct creport_svg_glyph {
        uint64_t hash;
        char *body; /* the symbol's content */
        char *id;   /* the id it was defined under */
    } * g;
    size_t n, cap;
};

/*
 * Writes svg (len bytes, one figure's document as cairo writes it, ids
 * prefixed per figure) to f: glyph symbols whose outline seen already holds
 * are left out and their uses point at the earlier id; the new ones are
 * added to seen; every number keeps at most two decimals. Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int creport_svg_write(FILE *f, const char *svg, size_t len,
                                    struct creport_svg_glyphs *seen);

void creport_svg_glyphs_free(struct creport_svg_glyphs *seen);

#endif
