/*
 * The cache-line placement of a differential profile's hot functions: when
 * the baseline and a variant name `layout:` files (their builds' symbol
 * tables), each function of that variant's differential profile is looked
 * up in both, so the report shows, next to how its share of the samples
 * changed, whether it moved within its cache line or spans another number
 * of lines (the NAT thread's question, docs/profile.md). Unlike
 * creport_build(), this reads files: the caller asks for it.
 */
#ifndef NETAB_REPORT_HOTPLACE_H
#define NETAB_REPORT_HOTPLACE_H

#include <jansson.h>
#include <stdio.h>

#include "report/report.h"

/*
 * Fills place (or place_error) of every differential profile of r whose
 * baseline or variant names a layout file, for `line`-byte lines (a power
 * of two), loading each file once. A file that does not load, or a
 * variant without one, is that comparison's place_error, not a failure:
 * the verdicts stand on their own. Returns 0, -EINVAL for a bad line
 * size, or -ENOMEM.
 */
NB_MUST_CHECK int creport_placement(struct creport *r, unsigned line);

/* Frees what creport_placement() attached to d. */
void creport_placement_clear(struct creport_profdiff *d);

/*
 * Renderers (hotplace_render.c), printing the model only:
 * the placement block under a comparison's profile table in text (72
 * columns) and Markdown, and a row's placement for the JSON report ({"base",
 * "other", "offset_changed", "lines_changed"}; new reference) and the
 * comparison's files ({"line", "base_file", "file", "error"}; new reference,
 * JSON null when the comparison has no placement).
 */
void creport_placement_text(FILE *f, const struct creport *r, const struct creport_profdiff *d);
void creport_placement_markdown(FILE *f, const struct creport *r, const struct creport_profdiff *d);
/*
 * What changed for one function, in a few words: "moved" (offset within
 * the line), "lines changed", "moved, lines changed", "same", "not in base
 * file", "not in new file", "in neither file".
 */
const char *creport_placement_word(const struct creport_placement *p);
json_t *creport_placement_row_json(const struct creport_placement *p);
json_t *creport_placement_files_json(const struct creport *r, const struct creport_profdiff *d);

#endif
