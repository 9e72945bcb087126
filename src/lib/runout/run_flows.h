/*
 * Results across flows (`netab run --flows`, issue 30): the spread of each
 * end's transactions over the flows, Jain's fairness index, the flows that
 * got nothing, the spread of each flow's p99 latency and the connection
 * errors by kind, in the JSON document ("end"."flows") and the text summary.
 * The merged latency percentiles are the document's "latency_us": every
 * flow's histogram merged bucket for bucket (engine/flows.h).
 */
#ifndef NETAB_RUNOUT_RUN_FLOWS_H
#define NETAB_RUNOUT_RUN_FLOWS_H

#include <jansson.h>
#include <stdio.h>

#include "engine/run_result.h"

/* The "flows" member of "end" (new reference), or NULL when the run had no --flows. */
json_t *run_flows_json(const struct run_result *r);

/* The text summary's lines about the flows (nothing without --flows). */
void run_flows_text(FILE *f, const struct run_result *r);

#endif
