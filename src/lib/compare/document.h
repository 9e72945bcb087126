/* The JSON document of `netab compare --json` (docs/compare.md), from an analysed result. */
#ifndef NETAB_COMPARE_DOCUMENT_H
#define NETAB_COMPARE_DOCUMENT_H

#include <jansson.h>

#include "compare/result.h"

/*
 * The document of res: version, seed, variants, schedule, every run, every
 * metric's statistics, verdicts, CPU cost, profile differences, and with
 * --pairs all the pairs and their correction. The caller owns it; NULL when
 * out of memory.
 */
json_t *compare_document(const struct compare_result *res);

#endif
