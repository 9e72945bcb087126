/*
 * The hot functions of each differential profile placed in the variants'
 * builds (hotplace.h): the computation; the renderers are
 * in hotplace_render.c and html_profile.c.
 */
#include "report/hotplace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_place.h"
#include "symbols/symtab.h"

/* Each variant's layout file, loaded the first time a comparison needs it. */
struct tables {
    struct symtab *t; /* [nvariants] */
    bool *tried, *ok;
    char **why; /* [nvariants]: why the file did not load */
    size_t n;
};

static int tables_init(struct tables *tb, size_t n)
{
    tb->n = n;
    tb->t = calloc(n ? n : 1, sizeof(*tb->t));
    tb->tried = calloc(n ? n : 1, sizeof(*tb->tried));
    tb->ok = calloc(n ? n : 1, sizeof(*tb->ok));
    tb->why = calloc(n ? n : 1, sizeof(*tb->why));
    return tb->t && tb->tried && tb->ok && tb->why ? 0 : -ENOMEM;
}

static void tables_free(struct tables *tb)
{
    for (size_t v = 0; v < tb->n; v++) {
        if (tb->t)
            symtab_free(&tb->t[v]);
        if (tb->why)
            free(tb->why[v]);
    }
    free(tb->t);
    free(tb->tried);
    free(tb->ok);
    free(tb->why);
}

/* Loads variant v's file once; a file that does not load keeps its reason. 0 or -ENOMEM. */
static int tables_load(struct tables *tb, const struct creport *r, size_t v)
{
    if (tb->tried[v])
        return 0;
    tb->tried[v] = true;
    char err[NB_ERRLEN * 2];
    int e = symtab_load(r->layouts[v], &tb->t[v], err, sizeof(err));
    if (e == -ENOMEM)
        return e;
    if (e)
        return (tb->why[v] = strdup(err)) ? 0 : -ENOMEM;
    tb->ok[v] = true;
    return 0;
}

/* Where name lies in t, into s (s->found false when t has no such function). 0 or -ENOMEM. */
static int spot_of(const struct symtab *t, const char *name, unsigned line, struct creport_spot *s)
{
    struct layout_place p;
    if (!layout_place_find(t, name, line, &p))
        return 0;
    *s = (struct creport_spot){true, strdup(p.name), p.addr, p.size, p.offset, p.lines, p.count};
    return s->name ? 0 : -ENOMEM;
}

/*
 * Whether t is a kernel's symbols: a module (relocatable), or a kernel
 * image or map (start_kernel is in every one; on 64-bit machines the
 * addresses are also in the upper half).
 */
static bool is_kernel(const struct symtab *t)
{
    if (t->relocatable || (t->n && t->syms[t->n - 1].addr >> 63))
        return true;
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->syms[i].name, "start_kernel"))
            return true;
    return false;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/*
 * Whether a row of module mod belongs in a file (kernel: a kernel's): a
 * kernel function ("[kernel]") in a kernel's file; a program's or
 * library's function in a file that is not a kernel's, when mod (the
 * mapped file's base name) is the base name of either variant's file.
 * Names alone would also find another program's _init or main.
 */
static bool belongs(const char *mod, bool kernel, const char *b_path, const char *o_path)
{
    if (!strcmp(mod, "[kernel]"))
        return kernel;
    return mod[0] != '[' && !kernel &&
           (!strcmp(mod, base_name(b_path)) || !strcmp(mod, base_name(o_path)));
}

/* Places every row of d in the baseline's table b and the variant's table o (files bp, op). */
static int place_rows(struct creport_profdiff *d, const struct symtab *b, const struct symtab *o,
                      const char *bp, const char *op, unsigned line)
{
    d->place = calloc(d->d.n ? d->d.n : 1, sizeof(*d->place));
    if (!d->place)
        return -ENOMEM;
    bool kb = is_kernel(b), ko = is_kernel(o);
    for (size_t i = 0; i < d->d.n; i++) {
        struct creport_placement *p = &d->place[i];
        const char *sym = d->d.rows[i].symbol, *mod = d->d.rows[i].module;
        bool in_b = belongs(mod, kb, bp, op), in_o = belongs(mod, ko, bp, op);
        p->unrelated = !in_b && !in_o;
        int e = in_b ? spot_of(b, sym, line, &p->base) : 0;
        if (!e && in_o)
            e = spot_of(o, sym, line, &p->other);
        if (e)
            return e;
        bool both = p->base.found && p->other.found;
        p->offset_changed = both && p->base.offset != p->other.offset;
        p->lines_changed = both && p->base.lines != p->other.lines;
        d->place_changed += p->offset_changed || p->lines_changed;
        d->place_neither += !p->base.found && !p->other.found;
        d->place_several |= p->base.count > 1 || p->other.count > 1;
    }
    return 0;
}

static int why_not(struct creport_profdiff *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int why_not(struct creport_profdiff *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&d->place_error, fmt, ap);
    va_end(ap);
    if (n < 0) {
        d->place_error = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* One comparison: its rows placed, or the reason they cannot be. */
static int place_one(struct creport *r, struct tables *tb, struct creport_profdiff *d,
                     unsigned line)
{
    size_t v = d->v;
    if (!r->layouts[0])
        return why_not(d, "the baseline %s names no layout file", r->variants[0]);
    if (!r->layouts[v])
        return why_not(d, "%s names no layout file", r->variants[v]);
    int e = tables_load(tb, r, 0);
    if (!e)
        e = tables_load(tb, r, v);
    if (e)
        return e;
    if (!tb->ok[0] || !tb->ok[v])
        return why_not(d, "%s", tb->ok[0] ? tb->why[v] : tb->why[0]);
    return place_rows(d, &tb->t[0], &tb->t[v], r->layouts[0], r->layouts[v], line);
}

int creport_placement(struct creport *r, unsigned line)
{
    if (!line || (line & (line - 1)))
        return -EINVAL;
    if (!r->layouts || !r->nprofdiffs)
        return 0;
    struct tables tb = {0};
    int e = tables_init(&tb, r->nvariants);
    for (size_t i = 0; !e && i < r->nprofdiffs; i++) {
        struct creport_profdiff *d = &r->profdiffs[i];
        creport_placement_clear(d);
        if (!r->layouts[0] && !r->layouts[d->v])
            continue;
        e = place_one(r, &tb, d, line);
        if (!e)
            r->place_line = line;
    }
    tables_free(&tb);
    return e;
}

void creport_placement_clear(struct creport_profdiff *d)
{
    for (size_t i = 0; d->place && i < d->d.n; i++) {
        free(d->place[i].base.name);
        free(d->place[i].other.name);
    }
    free(d->place);
    free(d->place_error);
    d->place = NULL;
    d->place_error = NULL;
    d->place_changed = d->place_neither = 0;
    d->place_several = false;
}
