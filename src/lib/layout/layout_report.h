/*
 * Output of `netab layout`: a text report that fits 72 columns (for mail)
 * and a JSON document for scripts (docs/layout.md describes both).
 */
#ifndef NETAB_LAYOUT_LAYOUT_REPORT_H
#define NETAB_LAYOUT_LAYOUT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "layout/layout_diff.h"
#include "layout/layout_hot.h"
#include "symbols/symtab.h"

/* What the report says about its inputs besides the comparison itself. */
struct layout_input {
    const char *old_path, *new_path;
    const struct symtab *old, *new;
    const struct layout_hot *hot;
};

/* Text width the report keeps to. */
#define LAYOUT_TEXT_WIDTH 72

/*
 * The verdict sentence for the user: whether the hot functions changed
 * their offset within a line or the number of lines they span, and what to
 * do about it. Written into buf (truncated to len, always terminated).
 */
void layout_verdict(const struct layout_diff *d, const struct layout_hot *hot, char *buf,
                    size_t len);

/*
 * Writes the text report: summary and verdict first, then the biggest size
 * changes (at most `top`, all when top is 0), then the hot functions, and
 * with `all` every function.
 */
void layout_report_text(FILE *f, const struct layout_diff *d, const struct layout_input *in,
                        size_t top, bool all);

/*
 * The JSON document: inputs, hot set, summary, size changes (all), verdict
 * and every function with both addresses (hex strings, since kernel
 * addresses do not fit JSON's safe integers), sizes, offsets and lines;
 * "error" null. Caller has ownership; NULL when out of memory.
 */
json_t *layout_report_json(const struct layout_diff *d, const struct layout_input *in);

/* A common function's move between the builds: the summary's first_shift, first_hot_shift. */
struct layout_shift {
    char *name; /* owned; NULL when there is no such function (null in the JSON) */
    uint64_t old_addr, new_addr;
    int64_t shift; /* new_addr - old_addr */
    unsigned old_offset, new_offset;
};

/*
 * The summary of a comparison as data, what `netab layout --json` and
 * `netab report` show of it; it owns its strings (layout_summary_free()),
 * so it outlives the diff and the symbol tables it was made from.
 */
struct layout_summary {
    unsigned line;
    size_t common, added, removed, offset_changed, lines_changed;
    struct layout_shift first, first_hot;
    struct {
        const char *source; /* layout_hot_kind_name(), or "none" (static) */
        size_t names, globs, in_both, offset_changed, lines_changed, added, removed;
        char **unmatched; /* the patterns that match no function of either build */
        size_t nunmatched;
    } hot;
    struct {
        uint64_t old_total, new_total;
        int64_t delta; /* up + down */
        size_t grow, shrink;
        int64_t up, down;
        size_t padding_only;
    } size;
    char *verdict; /* layout_verdict()'s sentence */
};

/* The summary of d with the hot set hot (may be NULL) into s. Returns 0 or -ENOMEM. */
NB_MUST_CHECK int layout_summary_of(const struct layout_diff *d, const struct layout_hot *hot,
                                    struct layout_summary *s);

/* s as the JSON summary object; NULL when out of memory. */
json_t *layout_summary_to_json(const struct layout_summary *s);

void layout_summary_free(struct layout_summary *s);

/* The summary part of the JSON document alone: layout_summary_to_json() of layout_summary_of(). */
json_t *layout_summary_json(const struct layout_diff *d, const struct layout_hot *hot);

/*
 * Compares the symbol files old and new with the hot set hot (NULL: the
 * built-in one) and `line`-byte lines into *out (the caller's,
 * layout_summary_free()). Returns 0, or a negative errno with the reason in
 * err (a file that does not load, or out of memory); *out then holds nothing.
 */
NB_MUST_CHECK int layout_compare_files(const char *old, const char *new,
                                       const struct layout_hot *hot, unsigned line,
                                       struct layout_summary *out, char *err, size_t errlen);

#endif
