/*
 * A side report's flows (--flows, engine/flows.h) on the wire: one array per
 * figure, a number per flow, instead of an object per stream. 10,000 flows'
 * stream objects would be some 7 MB, past what a result frame may carry
 * (proto/frame.h); these arrays are about 40 bytes a flow. TCP_INFO, UDP
 * and socket-buffer figures are not carried (zero on the receiving end).
 */
#ifndef NETAB_ENGINE_SIDE_FLOWS_H
#define NETAB_ENGINE_SIDE_FLOWS_H

#include <jansson.h>

#include "engine/side_report.h"

/* The "flows" member of a side report's JSON (new reference). */
json_t *side_flows_to_json(const struct side_report *r);

/*
 * Reads the "flows" member into r->streams (r zeroed by the caller) and sets
 * r->flows. Returns 0 or -EPROTO/-ENOMEM with a sentence.
 */
NB_MUST_CHECK int side_flows_from_json(const json_t *flows, int expected, struct side_report *r,
                                       char *err, size_t errlen);

#endif
