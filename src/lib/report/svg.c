/* Lighter inline SVG for the HTML report (svg.h). */
#include "report/svg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a of s[0..n-1]. */
static uint64_t hash_of(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The id a glyph of this outline was defined under, or NULL. */
static const char *glyph_find(const struct creport_svg_glyphs *g, uint64_t h, const char *body,
                              size_t n)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->g[i].hash == h && strlen(g->g[i].body) == n && !memcmp(g->g[i].body, body, n))
            return g->g[i].id;
    return NULL;
}

static int glyph_add(struct creport_svg_glyphs *g, uint64_t h, const char *body, size_t n,
                     const char *id, size_t idn)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        struct creport_svg_glyph *p = realloc(g->g, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        g->g = p;
        g->cap = cap;
    }
    char *b = strndup(body, n), *i = strndup(id, idn);
    if (!b || !i) {
        free(b);
        free(i);
        return -ENOMEM;
    }
    g->g[g->n++] = (struct creport_svg_glyph){h, b, i};
    return 0;
}

void creport_svg_glyphs_free(struct creport_svg_glyphs *seen)
{
    for (size_t i = 0; i < seen->n; i++) {
        free(seen->g[i].body);
        free(seen->g[i].id);
    }
    free(seen->g);
    *seen = (struct creport_svg_glyphs){0};
}

/* One figure's glyphs that an earlier figure defined: this figure's id -> that id. */
struct alias {
    char *from;
    const char *to;
};

/* Writes s[0..n-1] with every number cut to two decimals (digits after a '.' that follows one). */
static void write_compact(FILE *f, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && !(s[run] == '.' && run > 0 && s[run - 1] >= '0' && s[run - 1] <= '9' &&
                            run + 1 < n && s[run + 1] >= '0' && s[run + 1] <= '9'))
            run++;
        fwrite(s + i, 1, run - i, f);
        if (run >= n)
            break;
        size_t d = run + 1;
        while (d < n && s[d] >= '0' && s[d] <= '9')
            d++;
        fwrite(s + run, 1, d - run - 1 > 2 ? 3 : d - run, f);
        i = d;
    }
}

/*
 * Writes text with each href="#ID" whose ID is aliased pointing at the
 * earlier definition instead, numbers compacted.
 */
static void write_refs(FILE *f, const char *s, size_t n, const struct alias *a, size_t na)
{
    static const char key[] = "href=\"#";
    size_t i = 0;
    while (i < n) {
        const char *at = memmem(s + i, n - i, key, sizeof(key) - 1);
        if (!at) {
            write_compact(f, s + i, n - i);
            return;
        }
        size_t idp = (size_t)(at - s) + sizeof(key) - 1;
        size_t end = idp;
        while (end < n && s[end] != '"')
            end++;
        write_compact(f, s + i, idp - i);
        const char *to = NULL;
        for (size_t k = 0; k < na && !to; k++)
            if (strlen(a[k].from) == end - idp && !memcmp(a[k].from, s + idp, end - idp))
                to = a[k].to;
        if (to)
            fputs(to, f);
        else
            fwrite(s + idp, 1, end - idp, f);
        i = end;
    }
}

/*
 * Finds the next glyph symbol in s[from..n): sets its extent [*a, *b) (with
 * the line's end), its id and its content. Returns false when there is none.
 */
static bool next_symbol(const char *s, size_t n, size_t from, size_t *a, size_t *b, const char **id,
                        size_t *idn, const char **body, size_t *bodyn)
{
    const char *p = memmem(s + from, n - from, "<symbol ", 8);
    if (!p)
        return false;
    const char *tag_end = memchr(p, '>', n - (size_t)(p - s));
    const char *close = tag_end ? memmem(tag_end, n - (size_t)(tag_end - s), "</symbol>", 9) : NULL;
    const char *idp = tag_end ? memmem(p, (size_t)(tag_end - p), "id=\"", 4) : NULL;
    if (!close || !idp)
        return false;
    *id = idp + 4;
    *idn = strcspn(*id, "\"");
    *body = tag_end + 1;
    *bodyn = (size_t)(close - *body);
    *a = (size_t)(p - s);
    *b = (size_t)(close - s) + 9;
    if (*b < n && s[*b] == '\n')
        (*b)++;
    return true;
}

int creport_svg_write(FILE *f, const char *svg, size_t len, struct creport_svg_glyphs *seen)
{
    struct alias *al = NULL;
    size_t nal = 0, i = 0, a, b, idn, bodyn;
    const char *id, *body;
    int e = 0;
    /* The symbols first: which are new, which alias an earlier figure's. */
    for (size_t from = 0; !e && next_symbol(svg, len, from, &a, &b, &id, &idn, &body, &bodyn);
         from = b) {
        uint64_t h = hash_of(body, bodyn);
        const char *to = glyph_find(seen, h, body, bodyn);
        if (!to) {
            e = glyph_add(seen, h, body, bodyn, id, idn);
            continue;
        }
        struct alias *p = realloc(al, (nal + 1) * sizeof(*al));
        if (!p || !(p[nal].from = strndup(id, idn))) {
            al = p ? p : al;
            e = -ENOMEM;
            break;
        }
        al = p;
        al[nal++].to = to;
    }
    /* Then the text, without the aliased symbols, references redirected. */
    for (size_t from = 0; !e && next_symbol(svg, len, from, &a, &b, &id, &idn, &body, &bodyn);
         from = b) {
        bool aliased = false;
        for (size_t k = 0; k < nal && !aliased; k++)
            aliased = strlen(al[k].from) == idn && !memcmp(al[k].from, id, idn);
        if (!aliased)
            continue;
        write_refs(f, svg + i, a - i, al, nal);
        i = b;
    }
    if (!e)
        write_refs(f, svg + i, len - i, al, nal);
    for (size_t k = 0; k < nal; k++)
        free(al[k].from);
    free(al);
    return e;
}
