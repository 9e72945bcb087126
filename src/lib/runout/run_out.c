/* `netab run`'s output in its three forms (run_out.h). */
#include <errno.h>
#include <stdlib.h>

#include "engine/path_rx.h"
#include "runout/run_json.h"
#include "runout/run_out.h"
#include "runout/run_text.h"
#include "util/clock.h"
#include "util/jsonout.h"

void run_out_init(struct run_out *o, enum run_out_form form, FILE *f, const struct run_result *res)
{
    *o = (struct run_out){.form = form, .f = f, .res = res};
}

/*
 * One line of the stream: {"event": event, "data": data}, compact (jsonout's
 * precision), flushed. Takes the reference of data. Returns 0 or -EIO.
 */
static int event(FILE *f, const char *name, json_t *data)
{
    json_t *ev = data ? json_pack("{s:s, s:o}", "event", name, "data", data) : NULL;
    char *line = jsonout_compact(ev);
    json_decref(ev);
    int rc = line && fprintf(f, "%s\n", line) >= 0 && !fflush(f) ? 0 : -EIO;
    free(line);
    return rc;
}

static void note(struct run_out *o, int rc)
{
    if (rc && !o->err)
        o->err = rc;
}

/*
 * The start event: the document's "netab_version", "test" and "start" as
 * they are known before the test; start.time is when the stream began, the
 * end document's when the test's connections were set up.
 */
static json_t *start_data(const struct run_result *res)
{
    json_t *doc = run_json_build(res), *data = json_object();
    const char *keys[] = {"netab_version", "test", "start"};
    for (size_t i = 0; doc && data && i < sizeof(keys) / sizeof(*keys); i++)
        json_object_set(data, keys[i], json_object_get(doc, keys[i]));
    json_t *start = json_object_get(data, "start");
    char now[32];
    clock_iso8601(now, sizeof(now));
    if (json_is_object(start) && !res->started[0])
        json_object_set_new(start, "time", json_string(now));
    json_decref(doc);
    return data;
}

/*
 * receive and socket paths (issue 32): a path this kernel lacks is refused
 * before the run (run_spec_execute() says why): no header of a test that
 * never starts. The check is the one the run makes, repeated.
 */
static bool paths_refused(const struct test_params *p)
{
    return path_rx_any(p) && path_rx_preflight(p, NULL, 0);
}

void run_out_begin(struct run_out *o)
{
    if (o->form == RUN_OUT_TEXT && !paths_refused(&o->res->params))
        run_text_header(o->f, o->res);
    else if (o->form == RUN_OUT_STREAM)
        note(o, event(o->f, "start", start_data(o->res)));
}

void run_out_interval(const struct interval_report *iv, void *ctx)
{
    struct run_out *o = ctx;
    if (o->form == RUN_OUT_TEXT)
        run_text_interval(o->f, iv);
    else if (o->form == RUN_OUT_STREAM)
        note(o, event(o->f, "interval", run_json_interval(o->res, iv)));
}

/* The stream's last lines: the error, if any, then the document. */
static int stream_end(FILE *f, const json_t *doc)
{
    const json_t *error = json_object_get(doc, "error");
    int rc = json_is_string(error) ? event(f, "error", json_string(json_string_value(error))) : 0;
    int end = event(f, "end", json_incref((json_t *)doc));
    return rc ? rc : end;
}

int run_out_end(struct run_out *o, const json_t *doc)
{
    if (o->form == RUN_OUT_TEXT)
        run_text_summary(o->f, o->res);
    else if (o->form == RUN_OUT_JSON)
        note(o, jsonout_write(o->f, doc));
    else
        note(o, doc ? stream_end(o->f, doc) : -EIO);
    return o->err;
}

int run_out_refused(FILE *f, enum run_out_form form, const char *msg)
{
    if (form == RUN_OUT_TEXT)
        return 0;
    json_t *doc = run_json_error(msg);
    int rc = form == RUN_OUT_JSON ? jsonout_write(f, doc) : doc ? stream_end(f, doc) : -EIO;
    json_decref(doc);
    return rc;
}
