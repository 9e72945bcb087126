/*
 * The JSON document of one test (`netab run --json`). Its field names are a
 * contract described in docs/json.md; other tools and netab's own stats and
 * campaign code read them.
 */
#ifndef NETAB_RUNOUT_RUN_JSON_H
#define NETAB_RUNOUT_RUN_JSON_H

#include <jansson.h>

#include "engine/run_result.h"

/* Builds the document (new reference, caller owns it). Works for failed runs too. */
json_t *run_json_build(const struct run_result *r);

/*
 * One element of the document's "intervals" (r gives the test kind), also
 * each interval event of --json-stream (run_out.h). NULL when out of memory.
 */
json_t *run_json_interval(const struct run_result *r, const struct interval_report *iv);

/*
 * The document of a test that never started (a bad command line):
 * {"netab_version", "end": null, "error": msg}. NULL when out of memory.
 */
json_t *run_json_error(const char *msg);

#endif
