/*
 * netab and iperf3 JSON: one document per line, documents concatenated (as
 * `iperf3 -J >> file` leaves them), or a JSON array of documents.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
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
    return rc ? input_push_error(name, line, out, rc, err, errlen) : 0;
}

/* Skips blanks from *pos, counting lines. */
static void skip_blanks(const char *buf, size_t len, size_t *pos, size_t *line)
{
    while (*pos < len && strchr(" \t\r\n", buf[*pos])) {
        *line += buf[*pos] == '\n';
        (*pos)++;
    }
}

/*
 * The cost of the JSON value that starts buf (INPUT_JSON_COST_MAX's rule:
 * an object or array 6, any other value 1), counted to its end or until it
 * passes max, without parsing it: jansson takes about 40 bytes per value
 * and 230 per object, so a document is weighed before it is loaded.
 */
static size_t json_cost(const char *buf, size_t len, size_t max)
{
    size_t cost = 1, depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < len && cost <= max; i++) {
        char c = buf[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = false;
            continue;
        }
        if (c == '"') {
            in_str = true;
        } else if (c == '{' || c == '[') {
            depth++;
            cost += 5;
        } else if (c == '}' || c == ']') {
            if (depth <= 1)
                return cost;
            depth--;
        } else if (c == ',') {
            if (depth == 0)
                return cost;
            cost++;
        } else if (depth == 0 && strchr(" \t\r\n", c)) {
            return cost;
        }
    }
    return cost;
}

/*
 * Loads the one JSON value at buf[*pos] and hands it to take: as it is, or
 * (element: an element of a top-level array) wrapped in an array of one, so
 * that take treats it as it always treated an array's elements. Advances
 * *pos and *line past it. Returns 0, take's error or -EINVAL/-E2BIG.
 */
static int one_value(const char *name, const char *buf, size_t len, size_t *pos, size_t *line,
                     bool element, input_json_take_fn take, void *ctx, char *err, size_t errlen)
{
    if (json_cost(buf + *pos, len - *pos, INPUT_JSON_COST_MAX) > INPUT_JSON_COST_MAX)
        return err_set(err, errlen, E2BIG,
                       "%s:%zu: the JSON document holds more than %zu values (an object or "
                       "array counts 6), the most netab reads in one",
                       name, *line, INPUT_JSON_COST_MAX);
    json_error_t je;
    size_t flags = JSON_DISABLE_EOF_CHECK | (element ? JSON_DECODE_ANY : 0);
    json_t *doc = json_loadb(buf + *pos, len - *pos, flags, &je);
    if (!doc)
        return err_set(err, errlen, EINVAL, "%s:%zu: invalid JSON: %s", name,
                       *line + (size_t)(je.line > 0 ? je.line - 1 : 0), je.text);
    json_t *arg = doc;
    if (element) {
        arg = json_array();
        if (!arg || json_array_append_new(arg, doc)) {
            json_decref(arg);
            return err_set(err, errlen, ENOMEM, "%s:%zu: out of memory", name, *line);
        }
    }
    int rc = take(name, *line, arg, ctx, err, errlen);
    json_decref(arg);
    if (rc)
        return rc;
    /* je.position is the number of bytes the parser consumed. */
    size_t used = (size_t)je.position;
    if (used == 0)
        return err_set(err, errlen, EINVAL, "%s:%zu: invalid JSON", name, *line);
    for (size_t k = *pos; k < *pos + used && k < len; k++)
        *line += buf[k] == '\n';
    *pos += used;
    return 0;
}

/*
 * A top-level array at buf[*pos] == '[', element by element: an array of a
 * million documents is never held whole, only one document at a time.
 */
static int each_element(const char *name, const char *buf, size_t len, size_t *pos, size_t *line,
                        input_json_take_fn take, void *ctx, char *err, size_t errlen)
{
    (*pos)++;
    skip_blanks(buf, len, pos, line);
    if (*pos < len && buf[*pos] == ']') {
        (*pos)++;
        return 0;
    }
    for (;;) {
        int rc = one_value(name, buf, len, pos, line, true, take, ctx, err, errlen);
        if (rc)
            return rc;
        skip_blanks(buf, len, pos, line);
        if (*pos < len && buf[*pos] == ']') {
            (*pos)++;
            return 0;
        }
        if (*pos >= len || buf[*pos] != ',')
            return err_set(err, errlen, EINVAL,
                           "%s:%zu: invalid JSON: ',' or ']' expected after an array element", name,
                           *line);
        (*pos)++;
        skip_blanks(buf, len, pos, line);
    }
}

int input_json_each(const char *name, const char *buf, size_t len, input_json_take_fn take,
                    void *ctx, char *err, size_t errlen)
{
    size_t pos = 0, line = 1;
    for (;;) {
        skip_blanks(buf, len, &pos, &line);
        if (pos >= len)
            return 0;
        int rc = buf[pos] == '['
                     ? each_element(name, buf, len, &pos, &line, take, ctx, err, errlen)
                     : one_value(name, buf, len, &pos, &line, false, take, ctx, err, errlen);
        if (rc)
            return rc;
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
