/* Pairing and comparing two function tables (see layout_diff.h). */
#include "layout/layout_diff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int64_t layout_fn_gap_delta(const struct layout_fn *f)
{
    int64_t n = f->in_new ? (int64_t)f->new_size : 0;
    int64_t o = f->in_old ? (int64_t)f->old_size : 0;
    return n - o;
}

int64_t layout_fn_delta(const struct layout_fn *f)
{
    if (f->in_old && f->in_new) {
        /* Sizes are ranges [size - pad, size]; overlapping ranges prove no change. */
        uint64_t olo = f->old_size - f->old_pad, nlo = f->new_size - f->new_pad;
        if (nlo <= f->old_size && olo <= f->new_size)
            return 0;
    }
    return layout_fn_gap_delta(f);
}

bool layout_fn_padding_only(const struct layout_fn *f)
{
    return f->in_old && f->in_new && layout_fn_gap_delta(f) && !layout_fn_delta(f);
}

/* The most padding s's size may hold for `line`-byte lines (layout_fn's old_pad). */
static uint64_t pad_of(const struct symtab_sym *s, unsigned line)
{
    if (!s->next_align || !s->size)
        return 0;
    uint64_t a = s->next_align < line ? s->next_align : line;
    return a - 1 < s->size - 1 ? a - 1 : s->size - 1;
}

bool layout_fn_offset_changed(const struct layout_fn *f, unsigned line)
{
    return f->in_old && f->in_new &&
           layout_offset(f->old_addr, line) != layout_offset(f->new_addr, line);
}

bool layout_fn_lines_changed(const struct layout_fn *f, unsigned line)
{
    return f->in_old && f->in_new &&
           layout_lines(f->old_addr, f->old_size, line) !=
               layout_lines(f->new_addr, f->new_size, line);
}

/* Index order of a table by name, then address, so equal names pair in address order. */
static int by_name(const void *a, const void *b, void *arg)
{
    const struct symtab *t = arg;
    const struct symtab_sym *x = &t->syms[*(const size_t *)a];
    const struct symtab_sym *y = &t->syms[*(const size_t *)b];
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static size_t *name_order(const struct symtab *t)
{
    size_t *idx = malloc((t->n ? t->n : 1) * sizeof(*idx));
    if (!idx)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        idx[i] = i;
    qsort_r(idx, t->n, sizeof(*idx), by_name, (void *)t);
    return idx;
}

/* 0 for common, 1 for added, 2 for removed: the order of fns. */
static int fn_group(const struct layout_fn *f)
{
    return f->in_old && f->in_new ? 0 : f->in_new ? 1 : 2;
}

static uint64_t fn_key(const struct layout_fn *f)
{
    return f->in_old ? f->old_addr : f->new_addr;
}

static int fn_cmp(const void *a, const void *b)
{
    const struct layout_fn *x = a, *y = b;
    int gx = fn_group(x), gy = fn_group(y);
    if (gx != gy)
        return gx - gy;
    if (fn_key(x) != fn_key(y))
        return fn_key(x) < fn_key(y) ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int delta_cmp(const void *a, const void *b, void *arg)
{
    const struct layout_fn *fns = arg;
    const struct layout_fn *x = &fns[*(const size_t *)a];
    const struct layout_fn *y = &fns[*(const size_t *)b];
    int64_t dx = llabs(layout_fn_delta(x)), dy = llabs(layout_fn_delta(y));
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Merges the two name orders into d->fns. */
static void pair(const struct symtab *old, const size_t *oi, const struct symtab *new,
                 const size_t *ni, struct layout_diff *d)
{
    size_t i = 0, j = 0;
    while (i < old->n || j < new->n) {
        const struct symtab_sym *o = i < old->n ? &old->syms[oi[i]] : NULL;
        const struct symtab_sym *n = j < new->n ? &new->syms[ni[j]] : NULL;
        int c = !o ? 1 : !n ? -1 : strcmp(o->name, n->name);
        struct layout_fn *f = &d->fns[d->n++];
        memset(f, 0, sizeof(*f));
        if (c <= 0) {
            f->in_old = true;
            f->name = o->name;
            f->section = o->section;
            f->old_addr = o->addr;
            f->old_size = o->size;
            f->old_pad = pad_of(o, d->line);
            i++;
        }
        if (c >= 0) {
            f->in_new = true;
            f->name = n->name;
            f->section = n->section;
            f->new_addr = n->addr;
            f->new_size = n->size;
            f->new_pad = pad_of(n, d->line);
            j++;
        }
    }
}

/* Counts, first functions and size totals over d->fns. */
static void summarise(const struct symtab *old, const struct symtab *new, struct layout_diff *d)
{
    for (size_t i = 0; i < old->n; i++)
        d->old_total += old->syms[i].size;
    for (size_t i = 0; i < new->n; i++)
        d->new_total += new->syms[i].size;
    for (size_t i = 0; i < d->n; i++) {
        const struct layout_fn *f = &d->fns[i];
        int64_t delta = layout_fn_delta(f);
        if (delta > 0)
            d->up += delta;
        else
            d->down += delta;
        if (delta)
            d->by_delta[d->ndelta++] = i;
        if (!f->in_old || !f->in_new) {
            d->added += f->in_new;
            d->removed += f->in_old;
            d->hot_added += f->hot && f->in_new;
            d->hot_removed += f->hot && f->in_old;
            continue;
        }
        d->common++;
        d->padding_only += layout_fn_padding_only(f);
        d->grow += delta > 0;
        d->shrink += delta < 0;
        bool moved = layout_fn_offset_changed(f, d->line);
        bool lines = layout_fn_lines_changed(f, d->line);
        d->offset_changed += moved;
        d->lines_changed += lines;
        if (!d->first)
            d->first = f;
        if (f->hot) {
            d->hot_common++;
            d->hot_offset_changed += moved;
            d->hot_lines_changed += lines;
            if (!d->first_hot)
                d->first_hot = f;
        }
    }
}

/*
 * Collects the patterns of a user's hot set that match no function of
 * either build, so the report can name them rather than stay silent; the
 * built-in set is a catalogue, most of which any one build lacks.
 */
static int find_unmatched(const struct layout_hot *hot, struct layout_diff *d)
{
    size_t np = hot ? hot->nexact + hot->nglobs : 0;
    if (!np || hot->kind == LAYOUT_HOT_BUILTIN)
        return 0;
    bool *hits = calloc(np, sizeof(*hits));
    d->unmatched = malloc(np * sizeof(*d->unmatched));
    if (!hits || !d->unmatched) {
        free(hits);
        return -ENOMEM;
    }
    for (size_t i = 0; i < d->n; i++)
        layout_hot_mark(hot, d->fns[i].name, hits);
    for (size_t i = 0; i < np; i++)
        if (!hits[i])
            d->unmatched[d->nunmatched++] = layout_hot_pattern(hot, i);
    free(hits);
    return 0;
}

int layout_diff_build(const struct symtab *old, const struct symtab *new,
                      const struct layout_hot *hot, unsigned line, struct layout_diff *out)
{
    memset(out, 0, sizeof(*out));
    if (line == 0 || (line & (line - 1)))
        return -EINVAL;
    out->line = line;
    size_t *oi = name_order(old), *ni = name_order(new);
    size_t cap = old->n + new->n;
    out->fns = malloc((cap ? cap : 1) * sizeof(*out->fns));
    out->by_delta = malloc((cap ? cap : 1) * sizeof(*out->by_delta));
    if (!oi || !ni || !out->fns || !out->by_delta) {
        free(oi);
        free(ni);
        layout_diff_free(out);
        return -ENOMEM;
    }
    pair(old, oi, new, ni, out);
    free(oi);
    free(ni);
    for (size_t i = 0; i < out->n && hot; i++)
        out->fns[i].hot = layout_hot_match(hot, out->fns[i].name);
    if (find_unmatched(hot, out)) {
        layout_diff_free(out);
        return -ENOMEM;
    }
    qsort(out->fns, out->n, sizeof(*out->fns), fn_cmp);
    summarise(old, new, out);
    qsort_r(out->by_delta, out->ndelta, sizeof(*out->by_delta), delta_cmp, out->fns);
    return 0;
}

void layout_diff_free(struct layout_diff *d)
{
    free(d->fns);
    free(d->by_delta);
    free(d->unmatched);
    memset(d, 0, sizeof(*d));
}
