/*
 * The cache-line placement of a differential profile's functions in text,
 * Markdown and JSON (hotplace.h). Printing only: the
 * places are hotplace.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/hotplace.h"

const char *creport_placement_word(const struct creport_placement *p)
{
    if (p->unrelated)
        return "other module";
    if (!p->base.found && !p->other.found)
        return "in neither file";
    if (!p->base.found)
        return "not in base file";
    if (!p->other.found)
        return "not in new file";
    if (p->offset_changed && p->lines_changed)
        return "moved, lines changed";
    if (p->offset_changed)
        return "moved";
    return p->lines_changed ? "lines changed" : "same";
}

/* "40>16", with "-" for a side without the function and "?" for an unknown line count. */
static void pair_text(char *out, size_t len, const struct creport_placement *p, bool lines)
{
    char a[24] = "-", b[24] = "-";
    if (p->base.found && (!lines || p->base.lines))
        snprintf(a, sizeof(a), "%" PRIu64, lines ? p->base.lines : p->base.offset);
    else if (p->base.found)
        snprintf(a, sizeof(a), "?");
    if (p->other.found && (!lines || p->other.lines))
        snprintf(b, sizeof(b), "%" PRIu64, lines ? p->other.lines : p->other.offset);
    else if (p->other.found)
        snprintf(b, sizeof(b), "?");
    snprintf(out, len, "%s>%s", a, b);
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "";
}

/*
 * Text: a row per function found in either build (those in neither, such
 * as kernel functions against a program's files, are only counted), its
 * offset within the line and lines spanned as base>new, and a word.
 */
void creport_placement_text(FILE *f, const struct creport *r, const struct creport_profdiff *d)
{
    if (d->place_error) {
        char line[2048];
        snprintf(line, sizeof(line), "cache-line placement not shown: %s", d->place_error);
        creport_wrap(f, "  ", "    ", line);
        return;
    }
    if (!d->place)
        return;
    size_t neither = d->place_neither;
    if (neither == d->d.n) {
        fprintf(f, "  Placement: none of these functions is in %.20s or %.20s\n",
                base_name(r->layouts[0]), base_name(r->layouts[d->v]));
        return;
    }
    fprintf(f, "  Placement in %u-byte lines, %.16s > %.16s:\n", r->place_line,
            base_name(r->layouts[0]), base_name(r->layouts[d->v]));
    fprintf(f, "  %-23s %9s %7s\n", "function", "offset", "lines");
    for (size_t i = 0; i < d->d.n; i++) {
        const struct creport_placement *p = &d->place[i];
        if (!p->base.found && !p->other.found)
            continue;
        char off[56], lines[56];
        pair_text(off, sizeof(off), p, false);
        pair_text(lines, sizeof(lines), p, true);
        fprintf(f, "  %-23.23s %9.9s %7.7s  %s%s\n", d->d.rows[i].symbol, off, lines,
                creport_placement_word(p), p->base.count > 1 || p->other.count > 1 ? " *" : "");
    }
    fprintf(f, "  (%zu of %zu moved within a line or span other lines", d->place_changed,
            d->d.n - neither);
    if (neither)
        fprintf(f, ";\n   %zu more not in these builds", neither);
    fprintf(f, "%s)\n",
            d->place_several ? ";\n   * several functions of that name: the first shown" : "");
}

static void md_spot(FILE *f, const struct creport_spot *s)
{
    if (!s->found) {
        fputs(" - | - | - |", f);
        return;
    }
    fprintf(f, " `0x%" PRIx64 "`%s | %u | ", s->addr, s->count > 1 ? " (1st of several)" : "",
            s->offset);
    if (s->lines)
        fprintf(f, "%" PRIu64 " |", s->lines);
    else
        fputs("? |", f);
}

void creport_placement_markdown(FILE *f, const struct creport *r, const struct creport_profdiff *d)
{
    if (d->place_error) {
        fprintf(f, "Cache-line placement not shown: %s\n\n", d->place_error);
        return;
    }
    if (!d->place)
        return;
    fprintf(f,
            "Placement in %u-byte lines (base: `%s`, new: `%s`):\n\n"
            "| function | base address | base offset | base lines | new address | new offset "
            "| new lines | placement |\n|---|---|---:|---:|---|---:|---:|---|\n",
            r->place_line, r->layouts[0], r->layouts[d->v]);
    for (size_t i = 0; i < d->d.n; i++) {
        const struct creport_placement *p = &d->place[i];
        fprintf(f, "| `%s` |", d->d.rows[i].symbol);
        md_spot(f, &p->base);
        md_spot(f, &p->other);
        fprintf(f, " %s |\n", creport_placement_word(p));
    }
    fputc('\n', f);
}

static json_t *spot_json(const struct creport_spot *s)
{
    if (!s->found)
        return json_null();
    char addr[24];
    snprintf(addr, sizeof(addr), "0x%" PRIx64, s->addr);
    return json_pack("{s:s, s:s, s:I, s:i, s:I, s:I}", "name", s->name, "addr", addr, "size",
                     (json_int_t)s->size, "offset", (int)s->offset, "lines", (json_int_t)s->lines,
                     "count", (json_int_t)s->count);
}

json_t *creport_placement_row_json(const struct creport_placement *p)
{
    return json_pack("{s:o, s:o, s:b, s:b, s:b, s:s}", "base", spot_json(&p->base), "other",
                     spot_json(&p->other), "looked_up", !p->unrelated, "offset_changed",
                     p->offset_changed, "lines_changed", p->lines_changed, "placement",
                     creport_placement_word(p));
}

json_t *creport_placement_files_json(const struct creport *r, const struct creport_profdiff *d)
{
    if (!d->place && !d->place_error)
        return json_null();
    return json_pack("{s:i, s:s?, s:s?, s:s?}", "line", (int)r->place_line, "base_file",
                     r->layouts[0], "file", r->layouts[d->v], "error", d->place_error);
}
