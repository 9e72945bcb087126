/*
 * Where `netab run` writes as the test goes, in one of its three forms: the
 * text (header, interval lines, summary), the one --json document at the
 * end, or --json-stream's one JSON object per line (docs/json.md):
 *
 *   {"event":"start","data":{"netab_version":..., "test":{...}, "start":{...}}}
 *   {"event":"interval","data":<an element of the document's "intervals">}
 *   {"event":"error","data":"<the run's error>"}      (only when it failed)
 *   {"event":"end","data":<the --json document>}
 *
 * each line written whole and flushed, so a reader sees an event when it
 * happens. The CLI picks the form; the objects are run_json.h's.
 */
#ifndef NETAB_RUNOUT_RUN_OUT_H
#define NETAB_RUNOUT_RUN_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "engine/run_result.h"

enum run_out_form { RUN_OUT_TEXT, RUN_OUT_JSON, RUN_OUT_STREAM };

struct run_out {
    enum run_out_form form;
    FILE *f;
    const struct run_result *res;
    int err; /* 0, or -EIO once a JSON write failed (the stream's lines, the document) */
};

void run_out_init(struct run_out *o, enum run_out_form form, FILE *f, const struct run_result *res);

/* Before the test: the text header, or the stream's start event. */
void run_out_begin(struct run_out *o);

/* An interval as it ends (a client_config on_interval; ctx is the struct run_out). */
void run_out_interval(const struct interval_report *iv, void *ctx);

/*
 * After the test, with its document: the text summary, the document, or the
 * stream's error event (when doc has an error) and end event. Returns 0, or
 * -EIO when some JSON write failed, this one or an earlier line of the stream.
 */
int run_out_end(struct run_out *o, const json_t *doc);

/*
 * A command line refused before anything ran: nothing in the text form,
 * run_json_error()'s document, or the stream's error and end events with
 * that document. Returns 0 or -EIO.
 */
int run_out_refused(FILE *f, enum run_out_form form, const char *msg);

#endif
