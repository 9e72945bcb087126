/*
 * Failed runs as data: the section listing each variant and cell whose
 * measured runs failed, with the count and the reason (text, Markdown,
 * JSON). The strings of a cell are creport_fail_cell() and _text()
 * (report.h). Renderers: they compute nothing.
 */
#ifndef NETAB_CREPORT_FAILS_H
#define NETAB_CREPORT_FAILS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

/* True when some variant has a failed measured run in some cell. */
bool creport_any_fails(const struct creport *r);

/* "Failed runs" and a line per variant and cell with failures; nothing when none. */
void creport_print_fails_text(FILE *f, const struct creport *r);
void creport_print_fails_markdown(FILE *f, const struct creport *r);

/* [{"variant", "cell", "failed", "runs", "reason", "short_reason"}]; NULL out of memory. */
json_t *creport_fails_json(const struct creport *r);

#endif
