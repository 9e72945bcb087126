/* Text and JSON output of netab layout (see layout_report.h). */
#include "layout/layout_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Width of the function-name column in tables; longer names get a line of their own. */
#define NAME_W 24

void layout_verdict(const struct layout_diff *d, const struct layout_hot *hot, char *buf,
                    size_t len)
{
    char fix[200];
    if (d->line == 64)
        snprintf(fix, sizeof(fix),
                 "rebuild both with CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y (or "
                 "-falign-functions=64)");
    else
        snprintf(fix, sizeof(fix), "rebuild both with -falign-functions=%u", d->line);
    if (d->hot_common == 0)
        snprintf(buf, len,
                 "None of the hot functions (%s) is in both builds, so the layout under the "
                 "hot path cannot be judged; give --hot the functions of a profile of this "
                 "program.",
                 hot ? layout_hot_kind_name(hot->kind) : "none given");
    else if (d->hot_offset_changed)
        snprintf(buf, len,
                 "%zu of %zu hot functions changed their offset within a %u-byte line: a "
                 "throughput change between these builds may come from layout alone. To rule "
                 "it out, %s and compare again.",
                 d->hot_offset_changed, d->hot_common, d->line, fix);
    else if (d->hot_lines_changed)
        snprintf(buf, len,
                 "None of the %zu hot functions changed its offset within a %u-byte line, but "
                 "%zu of them span a different number of lines because their size changed: "
                 "their code changed, and its layout with it.",
                 d->hot_common, d->line, d->hot_lines_changed);
    else
        snprintf(buf, len,
                 "None of the %zu hot functions changed its offset within a %u-byte line or "
                 "the number of lines it spans: layout alone is an unlikely cause of a "
                 "throughput change between these builds.",
                 d->hot_common, d->line);
}

/*
 * Prints text wrapped at LAYOUT_TEXT_WIDTH, the first line indented by
 * `first`, every line after it by `indent`.
 */
static void print_indented(FILE *f, const char *text, int first, int indent)
{
    fprintf(f, "%*s", first, "");
    int col = first;
    bool started = false; /* a word is on the first line */
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (!w)
            break;
        if (started && col + 1 + (int)w > LAYOUT_TEXT_WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (started) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)w, p);
        started = true;
        col += (int)w;
        p += w;
    }
    fputc('\n', f);
}

/* Prints text wrapped at LAYOUT_TEXT_WIDTH, every line after the first indented by `indent`. */
static void print_wrapped(FILE *f, const char *text, int indent)
{
    print_indented(f, text, 0, indent);
}

/* Prints a table's name column: the name, or for a long one the name alone on its line. */
static void print_name(FILE *f, const char *name)
{
    if (strlen(name) > NAME_W)
        fprintf(f, "%s\n%-*s", name, NAME_W, "");
    else
        fprintf(f, "%-*s", NAME_W, name);
}

static void print_input(FILE *f, const char *which, const char *path, const struct symtab *t)
{
    char line[1024];
    snprintf(line, sizeof(line), "%s: %s (%s, %zu functions%s)", which, path,
             symtab_source_name(t->source), t->n,
             t->relocatable ? "; relocatable: addresses are offsets in sections" : "");
    print_wrapped(f, line, 5);
}

static void print_notes(FILE *f, const struct layout_input *in)
{
    const struct symtab *t[2] = {in->old, in->new};
    const char *p[2] = {in->old_path, in->new_path};
    for (int i = 0; i < 2; i++) {
        char line[1024];
        if (i == 1 && !strcmp(p[0], p[1]))
            break;
        if (t[i]->source == SYMTAB_MAP)
            snprintf(line, sizeof(line),
                     "note: %s has no sizes; a function's size is the distance to the next "
                     "symbol, alignment padding included.",
                     p[i]);
        else if (t[i]->source == SYMTAB_ELF_DYNSYM)
            snprintf(line, sizeof(line),
                     "note: %s is stripped; only its exported functions (.dynsym) are "
                     "compared.",
                     p[i]);
        else
            continue;
        print_wrapped(f, line, 6);
    }
    bool inferred[2] = {t[0]->source == SYMTAB_MAP, t[1]->source == SYMTAB_MAP};
    if (inferred[0] != inferred[1])
        print_wrapped(f,
                      "note: one build's sizes are inferred and the other's exact, so size "
                      "changes and lines spanned compare unlike things; give both builds in "
                      "the same form.",
                      6);
}

static void print_shift(FILE *f, const char *what, const struct layout_fn *fn, unsigned line)
{
    if (!fn)
        return;
    char buf[512];
    snprintf(buf, sizeof(buf), "%s %s: %+" PRId64 " bytes (offset %u -> %u)", what, fn->name,
             (int64_t)(fn->new_addr - fn->old_addr), layout_offset(fn->old_addr, line),
             layout_offset(fn->new_addr, line));
    print_wrapped(f, buf, 4);
}

/* Names the hot patterns that matched no function, so an empty result is never silent. */
static void print_unmatched(FILE *f, const struct layout_diff *d)
{
    if (!d->nunmatched)
        return;
    char buf[1024];
    size_t k = (size_t)snprintf(buf, sizeof(buf),
                                "hot patterns that match no function in "
                                "either build:");
    for (size_t i = 0; i < d->nunmatched && k < sizeof(buf); i++)
        k += (size_t)snprintf(buf + k, sizeof(buf) - k, " %s", d->unmatched[i]);
    print_wrapped(f, buf, 4);
}

static void print_summary(FILE *f, const struct layout_diff *d, const struct layout_input *in)
{
    char buf[512];
    fprintf(f, "netab layout: %u-byte lines\n", d->line);
    print_input(f, "old", in->old_path, in->old);
    print_input(f, "new", in->new_path, in->new);
    print_notes(f, in);
    fprintf(f, "\nfunctions: %zu in both, %zu added, %zu removed\n", d->common, d->added,
            d->removed);
    fprintf(f, "offset within the line changed: %zu of %zu\n", d->offset_changed, d->common);
    fprintf(f, "lines spanned changed: %zu of %zu\n", d->lines_changed, d->common);
    print_shift(f, "shift at first function", d->first, d->line);
    print_shift(f, "shift at first hot function", d->first_hot, d->line);
    fprintf(f, "hot set: %s, %zu names, %zu globs\n", layout_hot_kind_name(in->hot->kind),
            in->hot->nexact, in->hot->nglobs);
    snprintf(buf, sizeof(buf),
             "hot: %zu in both (%zu changed offset, %zu line count), %zu added, "
             "%zu removed",
             d->hot_common, d->hot_offset_changed, d->hot_lines_changed, d->hot_added,
             d->hot_removed);
    print_wrapped(f, buf, 4);
    print_unmatched(f, d);
    layout_verdict(d, in->hot, buf, sizeof(buf));
    fputc('\n', f);
    print_wrapped(f, buf, 0);
}

static void print_sizes(FILE *f, const struct layout_diff *d, size_t top)
{
    /* With exact sizes up + down is the totals' difference; with gaps it leaves padding out. */
    if (d->padding_only)
        fprintf(f, "\nsize: %" PRIu64 " -> %" PRIu64 " bytes of gaps (%+" PRId64 " counted)\n",
                d->old_total, d->new_total, d->up + d->down);
    else
        fprintf(f, "\nsize: %" PRIu64 " -> %" PRIu64 " bytes (%+" PRId64 ")\n", d->old_total,
                d->new_total, d->up + d->down);
    fprintf(f,
            "add/remove: %zu/%zu grow/shrink: %zu/%zu up/down: %" PRId64 "/%" PRId64 " (%" PRId64
            ")\n",
            d->added, d->removed, d->grow, d->shrink, d->up, d->down, d->up + d->down);
    if (!d->ndelta)
        return;
    fprintf(f, "%-*s %14s %10s %10s\n", NAME_W, "function", "old", "new", "delta");
    size_t n = top && top < d->ndelta ? top : d->ndelta;
    for (size_t i = 0; i < n; i++) {
        const struct layout_fn *fn = &d->fns[d->by_delta[i]];
        char o[24] = "-", nw[24] = "-";
        if (fn->in_old)
            snprintf(o, sizeof(o), "%" PRIu64, fn->old_size);
        if (fn->in_new)
            snprintf(nw, sizeof(nw), "%" PRIu64, fn->new_size);
        print_name(f, fn->name);
        fprintf(f, " %14s %10s %+10" PRId64 "\n", o, nw, layout_fn_delta(fn));
    }
    if (n < d->ndelta)
        fprintf(f, "(%zu more size changes: --all or --json lists every one)\n", d->ndelta - n);
}

/*
 * Says how many gaps changed within their padding only: those functions'
 * sizes are unknown and are not counted as growth (layout_fn_delta()).
 */
static void print_padding(FILE *f, const struct layout_diff *d)
{
    if (!d->padding_only)
        return;
    char buf[400];
    snprintf(buf, sizeof(buf),
             "not counted: %zu functions whose size is unknown and whose gap to the next "
             "symbol changed only within alignment padding (the hot table shows each hot one)",
             d->padding_only);
    print_wrapped(f, buf, 4);
}

/* Prints one formatted table line without trailing blanks. */
static void print_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void print_line(FILE *f, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    size_t n = strlen(buf);
    while (n && buf[n - 1] == ' ')
        buf[--n] = '\0';
    fprintf(f, "%s\n", buf);
}

static void print_row(FILE *f, const struct layout_fn *fn, unsigned line)
{
    print_name(f, fn->name);
    if (!fn->in_old || !fn->in_new) {
        uint64_t a = fn->in_new ? fn->new_addr : fn->old_addr;
        uint64_t s = fn->in_new ? fn->new_size : fn->old_size;
        print_line(f, " %8s  offset %u, %" PRIu64 " lines, %" PRIu64 " bytes",
                   fn->in_new ? "added" : "removed", layout_offset(a, line),
                   layout_lines(a, s, line), s);
        return;
    }
    char mark[3] = "";
    if (layout_fn_offset_changed(fn, line))
        strcat(mark, "*");
    if (layout_fn_lines_changed(fn, line))
        strcat(mark, "+");
    print_line(f,
               " %+8" PRId64 " %4u>%-4u %3" PRIu64 ">%-3" PRIu64 " %6" PRIu64 ">%-6" PRIu64 " %s",
               (int64_t)(fn->new_addr - fn->old_addr), layout_offset(fn->old_addr, line),
               layout_offset(fn->new_addr, line), layout_lines(fn->old_addr, fn->old_size, line),
               layout_lines(fn->new_addr, fn->new_size, line), fn->old_size, fn->new_size, mark);
    if (layout_fn_padding_only(fn)) {
        char buf[300];
        snprintf(buf, sizeof(buf),
                 "size unknown (gap %" PRIu64 " -> %" PRIu64
                 " bytes, of which padding up to %" PRIu64 " -> %" PRIu64
                 " bytes before the next aligned symbol): not growth",
                 fn->old_size, fn->new_size, fn->old_pad, fn->new_pad);
        print_indented(f, buf, 2, 4);
    }
}

/*
 * Prints a table of functions. The column heads put each "old>new" pair's
 * '>' above the rows' '>' so the numbers read as columns.
 */
static void print_table(FILE *f, const struct layout_diff *d, const char *title, bool hot_only)
{
    fprintf(f, "\n%s:\n", title);
    print_line(f, "%-*s %8s %9s %7s %13s", NAME_W, "", "shift", "offset ", "lines", "size   ");
    print_line(f, "%-*s %8s %9s %7s %13s", NAME_W, "function", "bytes", " old>new ", "old>new",
               "   old>new   ");
    for (size_t i = 0; i < d->n; i++)
        if (!hot_only || d->fns[i].hot)
            print_row(f, &d->fns[i], d->line);
    fprintf(f, "(* offset within the line changed, + lines spanned changed)\n");
}

void layout_report_text(FILE *f, const struct layout_diff *d, const struct layout_input *in,
                        size_t top, bool all)
{
    print_summary(f, d, in);
    print_sizes(f, d, all ? 0 : top);
    print_padding(f, d);
    if (d->hot_common + d->hot_added + d->hot_removed)
        print_table(f, d, "hot functions", true);
    if (all)
        print_table(f, d, "all functions", false);
}

static json_t *hex(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
    return json_string(buf);
}

static json_t *shift_json(const struct layout_shift *sh)
{
    if (!sh->name)
        return json_null();
    return json_pack("{s:s, s:o, s:o, s:I, s:i, s:i}", "name", sh->name, "old_addr",
                     hex(sh->old_addr), "new_addr", hex(sh->new_addr), "shift",
                     (json_int_t)sh->shift, "old_offset", (int)sh->old_offset, "new_offset",
                     (int)sh->new_offset);
}

static json_t *unmatched_json(const struct layout_summary *s)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < s->hot.nunmatched; i++)
        if (json_array_append_new(a, json_string(s->hot.unmatched[i]))) {
            json_decref(a);
            return NULL;
        }
    return a;
}

json_t *layout_summary_to_json(const struct layout_summary *s)
{
    return json_pack(
        "{s:i, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o},"
        " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:s}",
        "line", (int)s->line, "common", (json_int_t)s->common, "added", (json_int_t)s->added,
        "removed", (json_int_t)s->removed, "offset_changed", (json_int_t)s->offset_changed,
        "lines_changed", (json_int_t)s->lines_changed, "first_shift", shift_json(&s->first),
        "first_hot_shift", shift_json(&s->first_hot), "hot", "source", s->hot.source, "names",
        (json_int_t)s->hot.names, "globs", (json_int_t)s->hot.globs, "in_both",
        (json_int_t)s->hot.in_both, "offset_changed", (json_int_t)s->hot.offset_changed,
        "lines_changed", (json_int_t)s->hot.lines_changed, "added", (json_int_t)s->hot.added,
        "removed", (json_int_t)s->hot.removed, "unmatched", unmatched_json(s), "size", "old_total",
        (json_int_t)s->size.old_total, "new_total", (json_int_t)s->size.new_total, "delta",
        (json_int_t)s->size.delta, "grow", (json_int_t)s->size.grow, "shrink",
        (json_int_t)s->size.shrink, "up", (json_int_t)s->size.up, "down", (json_int_t)s->size.down,
        "padding_only", (json_int_t)s->size.padding_only, "verdict", s->verdict);
}

/* fn's move into sh; sh->name stays NULL without fn. 0 or -ENOMEM. */
static int shift_of(const struct layout_fn *fn, unsigned line, struct layout_shift *sh)
{
    if (!fn)
        return 0;
    *sh = (struct layout_shift){strdup(fn->name),
                                fn->old_addr,
                                fn->new_addr,
                                (int64_t)(fn->new_addr - fn->old_addr),
                                layout_offset(fn->old_addr, line),
                                layout_offset(fn->new_addr, line)};
    return sh->name ? 0 : -ENOMEM;
}

int layout_summary_of(const struct layout_diff *d, const struct layout_hot *hot,
                      struct layout_summary *s)
{
    char verdict[1024];
    layout_verdict(d, hot, verdict, sizeof(verdict));
    *s = (struct layout_summary){.line = d->line,
                                 .common = d->common,
                                 .added = d->added,
                                 .removed = d->removed,
                                 .offset_changed = d->offset_changed,
                                 .lines_changed = d->lines_changed};
    s->hot.source = hot ? layout_hot_kind_name(hot->kind) : "none";
    s->hot.names = hot ? hot->nexact : 0;
    s->hot.globs = hot ? hot->nglobs : 0;
    s->hot.in_both = d->hot_common;
    s->hot.offset_changed = d->hot_offset_changed;
    s->hot.lines_changed = d->hot_lines_changed;
    s->hot.added = d->hot_added;
    s->hot.removed = d->hot_removed;
    s->size.old_total = d->old_total;
    s->size.new_total = d->new_total;
    s->size.delta = d->up + d->down;
    s->size.grow = d->grow;
    s->size.shrink = d->shrink;
    s->size.up = d->up;
    s->size.down = d->down;
    s->size.padding_only = d->padding_only;
    int e = shift_of(d->first, d->line, &s->first) || shift_of(d->first_hot, d->line, &s->first_hot)
                ? -ENOMEM
                : 0;
    if (!e && !(s->verdict = strdup(verdict)))
        e = -ENOMEM;
    if (!e && d->nunmatched && !(s->hot.unmatched = calloc(d->nunmatched, sizeof(char *))))
        e = -ENOMEM;
    for (size_t i = 0; !e && i < d->nunmatched; i++)
        if ((s->hot.unmatched[s->hot.nunmatched++] = strdup(d->unmatched[i])) == NULL)
            e = -ENOMEM;
    if (e)
        layout_summary_free(s);
    return e;
}

void layout_summary_free(struct layout_summary *s)
{
    free(s->first.name);
    free(s->first_hot.name);
    for (size_t i = 0; i < s->hot.nunmatched; i++)
        free(s->hot.unmatched[i]);
    free(s->hot.unmatched);
    free(s->verdict);
    *s = (struct layout_summary){0};
}

json_t *layout_summary_json(const struct layout_diff *d, const struct layout_hot *hot)
{
    struct layout_summary s;
    if (layout_summary_of(d, hot, &s))
        return NULL;
    json_t *o = layout_summary_to_json(&s);
    layout_summary_free(&s);
    return o;
}

/* One side of a function; a size that is a gap says so and how much of it may be padding. */
static json_t *side_json(bool present, uint64_t addr, uint64_t size, uint64_t pad, bool exact,
                         unsigned line)
{
    if (!present)
        return json_null();
    return json_pack("{s:o, s:I, s:b, s:I, s:i, s:I}", "addr", hex(addr), "size", (json_int_t)size,
                     "size_known", exact, "padding_max", (json_int_t)pad, "offset",
                     (int)layout_offset(addr, line), "lines",
                     (json_int_t)layout_lines(addr, size, line));
}

static json_t *fn_json(const struct layout_fn *fn, unsigned line, bool old_exact, bool new_exact)
{
    const char *state = fn->in_old && fn->in_new ? "common" : fn->in_new ? "added" : "removed";
    return json_pack(
        "{s:s, s:s?, s:s, s:b, s:o, s:o, s:b, s:b, s:I, s:b}", "name", fn->name, "section",
        fn->section, "state", state, "hot", fn->hot, "old",
        side_json(fn->in_old, fn->old_addr, fn->old_size, fn->old_pad, old_exact, line), "new",
        side_json(fn->in_new, fn->new_addr, fn->new_size, fn->new_pad, new_exact, line),
        "offset_changed", layout_fn_offset_changed(fn, line), "lines_changed",
        layout_fn_lines_changed(fn, line), "size_delta", (json_int_t)layout_fn_delta(fn),
        "padding_only", layout_fn_padding_only(fn));
}

static json_t *input_json(const char *path, const struct symtab *t)
{
    return json_pack("{s:s, s:s, s:I, s:b}", "path", path, "source", symtab_source_name(t->source),
                     "functions", (json_int_t)t->n, "relocatable", t->relocatable);
}

json_t *layout_report_json(const struct layout_diff *d, const struct layout_input *in)
{
    json_t *fns = json_array(), *sizes = json_array();
    for (size_t i = 0; fns && i < d->n; i++)
        if (json_array_append_new(fns, fn_json(&d->fns[i], d->line, in->old->source != SYMTAB_MAP,
                                               in->new->source != SYMTAB_MAP))) {
            json_decref(fns);
            fns = NULL;
        }
    for (size_t i = 0; sizes && i < d->ndelta; i++) {
        const struct layout_fn *fn = &d->fns[d->by_delta[i]];
        json_t *o = fn->in_old ? json_integer((json_int_t)fn->old_size) : json_null();
        json_t *n = fn->in_new ? json_integer((json_int_t)fn->new_size) : json_null();
        if (json_array_append_new(sizes,
                                  json_pack("{s:s, s:o, s:o, s:I}", "name", fn->name, "old", o,
                                            "new", n, "delta", (json_int_t)layout_fn_delta(fn)))) {
            json_decref(sizes);
            sizes = NULL;
        }
    }
    if (!fns || !sizes) {
        json_decref(fns);
        json_decref(sizes);
        return NULL;
    }
    /* "error" is null here; `netab layout --json` prints {"error": "..."} for a bad input. */
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:n}", "old", input_json(in->old_path, in->old),
                     "new", input_json(in->new_path, in->new), "summary",
                     layout_summary_json(d, in->hot), "size_changes", sizes, "functions", fns,
                     "error");
}

int layout_compare_files(const char *old, const char *new, const struct layout_hot *user,
                         unsigned line, struct layout_summary *out, char *err, size_t errlen)
{
    struct symtab a = {0}, b = {0};
    struct layout_hot hot = {0};
    struct layout_diff d = {0};
    int e = 0;
    *out = (struct layout_summary){0};
    if (!user && layout_hot_builtin(&hot)) {
        e = err_set(err, errlen, ENOMEM, "out of memory");
        goto out;
    }
    if ((e = symtab_load(old, &a, err, errlen)) || (e = symtab_load(new, &b, err, errlen)))
        goto out;
    if (layout_diff_build(&a, &b, user ? user : &hot, line, &d) ||
        layout_summary_of(&d, user ? user : &hot, out))
        e = err_set(err, errlen, ENOMEM, "out of memory");
out:
    layout_diff_free(&d);
    layout_hot_free(&hot);
    symtab_free(&a);
    symtab_free(&b);
    return e;
}
