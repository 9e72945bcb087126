/*
 * netab and iperf3 JSON: one document per line, documents concatenated (as
 * `iperf3 -J >> file` leaves them), or a JSON array of documents.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "input/input_priv.h"
#include "input/json_path.h"

#define NETAB_DEFAULT_METRIC "end.receiver.bits_per_second"
#define IPERF3_TCP_METRIC "end.sum_received.bits_per_second"
#define IPERF3_UDP_METRIC "end.sum.bits_per_second"

json_t *input_json_path(json_t *doc, const char *path)
{
    char comp[128];
    const char *p = path;
    json_t *cur = doc;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n == 0 || n >= sizeof(comp))
            return NULL;
        memcpy(comp, p, n);
        comp[n] = '\0';
        if (json_is_object(cur)) {
            cur = json_object_get(cur, comp);
        } else if (json_is_array(cur)) {
            char *e;
            unsigned long i = strtoul(comp, &e, 10);
            cur = *e ? NULL : json_array_get(cur, i);
        } else {
            return NULL;
        }
        p = dot ? dot + 1 : p + n;
    }
    return cur;
}

/* iperf3 documents name themselves in start.version ("iperf 3.12") or have sum_* totals. */
static int is_iperf3(json_t *doc)
{
    const char *v = json_string_value(input_json_path(doc, "start.version"));
    if (v && !strncmp(v, "iperf 3", 7))
        return 1;
    return input_json_path(doc, "end.sum_received") || input_json_path(doc, "end.sum_sent") ||
           input_json_path(doc, "end.sum");
}

static const char *default_metric(json_t *doc, enum input_format f)
{
    if (f == INPUT_NETAB || (f == INPUT_AUTO && !is_iperf3(doc)))
        return NETAB_DEFAULT_METRIC;
    /*
     * sum_received is the receiver's view for TCP and UDP alike (in iperf3
     * 3.12 a UDP end.sum is the sender's); only older UDP documents lack it.
     */
    if (input_json_path(doc, "end.sum_received"))
        return IPERF3_TCP_METRIC;
    if (input_json_path(doc, "end.sum"))
        return IPERF3_UDP_METRIC;
    return IPERF3_TCP_METRIC;
}

static int take_document(const char *name, size_t line, json_t *doc, const struct input_opts *o,
                         struct input_values *out, char *err, size_t errlen)
{
    if (!json_is_object(doc))
        return err_set(err, errlen, EINVAL, "%s:%zu: expected a JSON object (one run), got %s",
                       name, line,
                       json_is_array(doc)    ? "an array"
                       : json_is_string(doc) ? "a string"
                                             : "a scalar");
    const char *run_err = json_string_value(json_object_get(doc, "error"));
    if (run_err)
        return err_set(err, errlen, EINVAL, "%s:%zu: the run reported an error: %.120s", name, line,
                       run_err);
    /* The first document decides the format that later ones are read as. */
    if (out->format == INPUT_NETAB && o->format == INPUT_AUTO && out->n == 0 && is_iperf3(doc))
        out->format = INPUT_IPERF3;
    const char *metric = o->metric ? o->metric : default_metric(doc, out->format);
    /*
     * iperf3's CPU figures (its -J cpu_utilization_percent, or an iperf3
     * peer's in a netab document) are one process's, in percent of one CPU:
     * the label says so, so that they are never read as system-wide CPU.
     */
    bool process_cpu = (out->format == INPUT_IPERF3 && strstr(metric, "cpu_utilization_percent")) ||
                       strstr(metric, "cpu.remote_process") || strstr(metric, "cpu.local_process");
    snprintf(out->metric, sizeof(out->metric), "%.70s%s", metric,
             process_cpu ? " (iperf3: one process's CPU, % of one CPU)" : "");
    json_t *v = input_json_path(doc, metric);
    if (!v)
        return err_set(err, errlen, EINVAL, "%s:%zu: the document has no '%s'", name, line, metric);
    if (!json_is_number(v))
        return err_set(err, errlen, EINVAL, "%s:%zu: '%s' is not a number", name, line, metric);
    double x = json_number_value(v);
    if (!isfinite(x))
        return err_set(err, errlen, EINVAL, "%s:%zu: '%s' is not a finite number", name, line,
                       metric);
    int rc = input_push(out, x);
    return rc ? err_set(err, errlen, rc, "%s:%zu: out of memory", name, line) : 0;
}

int input_json_each(const char *name, const char *buf, size_t len, input_json_take_fn take,
                    void *ctx, char *err, size_t errlen)
{
    size_t pos = 0, line = 1;
    for (;;) {
        while (pos < len && strchr(" \t\r\n", buf[pos])) {
            line += buf[pos] == '\n';
            pos++;
        }
        if (pos >= len)
            return 0;
        json_error_t je;
        json_t *doc = json_loadb(buf + pos, len - pos, JSON_DISABLE_EOF_CHECK, &je);
        if (!doc)
            return err_set(err, errlen, EINVAL, "%s:%zu: invalid JSON: %s", name,
                           line + (size_t)(je.line > 0 ? je.line - 1 : 0), je.text);
        int rc = take(name, line, doc, ctx, err, errlen);
        json_decref(doc);
        if (rc)
            return rc;
        /* je.position is the number of bytes the parser consumed. */
        size_t used = (size_t)je.position;
        if (used == 0)
            return err_set(err, errlen, EINVAL, "%s:%zu: invalid JSON", name, line);
        for (size_t k = pos; k < pos + used && k < len; k++)
            line += buf[k] == '\n';
        pos += used;
    }
}

struct json_values {
    const struct input_opts *o;
    struct input_values *out;
};

/* One document, or each element of an array of documents. */
static int take_values(const char *name, size_t line, json_t *doc, void *ctx, char *err,
                       size_t errlen)
{
    struct json_values *jv = ctx;
    if (!json_is_array(doc))
        return take_document(name, line, doc, jv->o, jv->out, err, errlen);
    size_t i;
    json_t *el;
    json_array_foreach(doc, i, el)
    {
        int rc = take_document(name, line, el, jv->o, jv->out, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int input_parse_json(const char *name, const char *buf, size_t len, const struct input_opts *o,
                     struct input_values *out, char *err, size_t errlen)
{
    struct json_values jv = {o, out};
    return input_json_each(name, buf, len, take_values, &jv, err, errlen);
}
