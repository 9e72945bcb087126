/*
 * Output of `netab layout`: a text report that fits 72 columns (for mail)
 * and a JSON document for scripts (docs/layout.md describes both).
 */
#ifndef NETAB_LAYOUT_LAYOUT_REPORT_H
#define NETAB_LAYOUT_LAYOUT_REPORT_H

#include <stdbool.h>
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

/* The summary part of the JSON document alone (also used by netab report). */
json_t *layout_summary_json(const struct layout_diff *d, const struct layout_hot *hot);

/*
 * Compares the symbol files old and new with the hot set hot (NULL: the
 * built-in one) and `line`-byte lines, and returns the summary object of layout_summary_json()
 * (caller has ownership), or NULL with the reason in err (a file that does
 * not load, or out of memory).
 */
json_t *layout_compare_files(const char *old, const char *new, const struct layout_hot *hot,
                             unsigned line, char *err, size_t errlen);

#endif
