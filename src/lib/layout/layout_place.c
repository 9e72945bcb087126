/* A function's place in one build's symbol table (layout_place.h). */
#include "layout/layout_place.h"

#include <string.h>

#include "layout/layout_diff.h"

/* Length of name's base: the part before its first '.' (all of it when there is none). */
static size_t base_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name);
}

/* Whether sym is the function whose base is name[0..len), or a clone of it. */
static bool same_base(const char *sym, const char *name, size_t len, bool cold)
{
    if (strncmp(sym, name, len) || (sym[len] && sym[len] != '.'))
        return false;
    return cold || !strstr(sym + len, ".cold");
}

/* Records the match s (the table is sorted by address, so the first one is the lowest). */
static void take(const struct symtab_sym *s, unsigned line, struct layout_place *out)
{
    if (!out->count++) {
        out->name = s->name;
        out->addr = s->addr;
        out->size = s->size;
        out->offset = layout_offset(s->addr, line);
        out->lines = layout_lines(s->addr, s->size, line);
    }
}

bool layout_place_find(const struct symtab *t, const char *name, unsigned line,
                       struct layout_place *out)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->syms[i].name, name))
            take(&t->syms[i], line, out);
    if (out->count)
        return true;
    size_t len = base_len(name);
    bool cold = strstr(name, ".cold") != NULL;
    for (size_t i = 0; i < t->n; i++)
        if (same_base(t->syms[i].name, name, len, cold))
            take(&t->syms[i], line, out);
    return out->count > 0;
}
