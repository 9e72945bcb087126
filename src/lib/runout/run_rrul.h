/*
 * The latency-under-load test's output (issue 31; docs/rrul.md): `end.rrul`
 * and each interval's `rrul` in the JSON document, and its text: a header,
 * a table per phase and per interval.
 */
#ifndef NETAB_RUNOUT_RUN_RRUL_H
#define NETAB_RUNOUT_RUN_RRUL_H

#include <jansson.h>
#include <stdio.h>

#include "engine/run_result.h"

/* end.rrul (docs/json.md); a figure that cannot exist is null. NULL when out of memory. */
json_t *run_rrul_end_json(const struct rrul_end *e);

/* An interval's "rrul". */
json_t *run_rrul_interval_json(const struct rrul_interval *r);

/* The text header of a --test rrul run (before it runs). */
void run_rrul_header(FILE *f, const struct run_result *r);

/* Its text figures after the run: the phases, the increase, RPM, the intervals. */
void run_rrul_text(FILE *f, const struct run_result *r);

#endif
