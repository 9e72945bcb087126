/*
 * Runs of iperf3 and iperf2 as run records for `netab import`. The values
 * are taken exactly where `netab stats` takes them (json.c, iperf2.c), so
 * an imported run and the same file given to `netab stats` agree.
 */
#include "input/input_runs.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_priv.h"
#include "input/json_path.h"

/* A growing array of runs. */
struct runs {
    struct input_run *v;
    size_t n, cap;
};

static struct input_run *runs_add(struct runs *rs)
{
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? rs->cap * 2 : 8;
        struct input_run *p = realloc(rs->v, cap * sizeof(*p));
        if (!p)
            return NULL;
        rs->v = p;
        rs->cap = cap;
    }
    struct input_run *r = &rs->v[rs->n++];
    *r = (struct input_run){
        .index = rs->n - 1,
        .receiver_bps = NAN,
        .sender_bps = NAN,
        .lost_percent = NAN,
        .jitter_ms = NAN,
        .cpu_local_pct = NAN,
        .cpu_remote_pct = NAN,
        .timesecs = NAN,
    };
    return r;
}

void input_runs_free(struct input_run *runs, size_t n)
{
    for (size_t i = 0; runs && i < n; i++)
        json_decref(runs[i].original);
    free(runs);
}

/* The finite number at path in doc, or NAN. */
static double number_at(json_t *doc, const char *path)
{
    json_t *v = input_json_path(doc, path);
    double x = json_is_number(v) ? json_number_value(v) : NAN;
    return isfinite(x) ? x : NAN;
}

/* iperf3 documents name themselves in start.version ("iperf 3.12") or have end.sum_* totals. */
static bool is_iperf3(json_t *doc)
{
    const char *v = json_string_value(input_json_path(doc, "start.version"));
    if (v && !strncmp(v, "iperf 3", 7))
        return true;
    return input_json_path(doc, "end.sum_received") || input_json_path(doc, "end.sum_sent") ||
           input_json_path(doc, "end.sum");
}

/*
 * Fills r from iperf3 document doc (found at line of name). The receiver's
 * view is end.sum_received for TCP and UDP alike (a 3.12 UDP end.sum is the
 * sender's, docs/stats.md); only old UDP documents without it fall back to
 * end.sum, as netab stats does.
 */
static int take_iperf3(const char *name, size_t line, json_t *doc, struct input_run *r, char *err,
                       size_t errlen)
{
    if (!json_is_object(doc))
        return err_set(err, errlen, EINVAL, "%s:%zu: expected an iperf3 -J document (an object)",
                       name, line);
    const char *run_err = json_string_value(json_object_get(doc, "error"));
    if (run_err)
        return err_set(err, errlen, EINVAL, "%s:%zu: the iperf3 run reported an error: %.120s",
                       name, line, run_err);
    if (!is_iperf3(doc))
        return err_set(err, errlen, EINVAL, "%s:%zu: not an iperf3 -J document%s", name, line,
                       json_object_get(doc, "netab")
                           ? " (a netab run --json document: use netab runs import)"
                           : " (no start.version \"iperf 3...\", no end.sum_received)");
    const char *proto = json_string_value(input_json_path(doc, "start.test_start.protocol"));
    bool udp = (proto && !strcmp(proto, "UDP")) || input_json_path(doc, "end.sum.jitter_ms");
    r->tool = INPUT_IPERF3;
    r->line = line;
    r->test = udp ? "udp_stream" : "tcp_stream";
    const char *recv = input_json_path(doc, "end.sum_received") ? "end.sum_received" : "end.sum";
    char path[64];
    snprintf(path, sizeof(path), "%s.bits_per_second", recv);
    r->receiver_bps = number_at(doc, path);
    if (!isfinite(r->receiver_bps))
        return err_set(err, errlen, EINVAL, "%s:%zu: the iperf3 document has no finite '%s'", name,
                       line, path);
    r->sender_bps = number_at(doc, "end.sum_sent.bits_per_second");
    if (udp) {
        snprintf(path, sizeof(path), "%s.lost_percent", recv);
        r->lost_percent = number_at(doc, path);
        snprintf(path, sizeof(path), "%s.jitter_ms", recv);
        r->jitter_ms = number_at(doc, path);
    }
    r->cpu_local_pct = number_at(doc, "end.cpu_utilization_percent.host_total");
    r->cpu_remote_pct = number_at(doc, "end.cpu_utilization_percent.remote_total");
    r->timesecs = number_at(doc, "start.timestamp.timesecs");
    /* uname -a as iperf3 records it: the third word is the kernel release. */
    const char *sys = json_string_value(input_json_path(doc, "start.system_info"));
    char os[16], host[256], rel[sizeof(r->kernel)];
    if (sys && sscanf(sys, "%15s %255s %95s", os, host, rel) == 3 && !strcmp(os, "Linux"))
        snprintf(r->kernel, sizeof(r->kernel), "%s", rel);
    r->original = json_incref(doc);
    return 0;
}

/* A document at line, or each element of an array of documents. */
static int take_json(const char *name, size_t line, json_t *doc, void *ctx, char *err,
                     size_t errlen)
{
    struct runs *rs = ctx;
    size_t i;
    json_t *el;
    if (!json_is_array(doc)) {
        struct input_run *r = runs_add(rs);
        return r ? take_iperf3(name, line, doc, r, err, errlen)
                 : err_set(err, errlen, ENOMEM, "%s: out of memory", name);
    }
    json_array_foreach(doc, i, el)
    {
        struct input_run *r = runs_add(rs);
        int e = r ? take_iperf3(name, line, el, r, err, errlen)
                  : err_set(err, errlen, ENOMEM, "%s: out of memory", name);
        if (e)
            return e;
    }
    return 0;
}

/* iperf3 -J output: one document, documents concatenated (iperf3 -J >> f), or an array. */
static int parse_iperf3(const char *name, const char *buf, size_t len, struct runs *rs, char *err,
                        size_t errlen)
{
    return input_json_each(name, buf, len, take_json, rs, err, errlen);
}

/* The values of one iperf2 metric, one per run; NULL values when the metric does not apply. */
static void iperf2_metric(const char *name, const char *buf, size_t len, const char *metric,
                          struct input_values *out)
{
    struct input_opts o = {.format = INPUT_IPERF2, .metric = metric};
    char err[NB_ERRLEN];
    if (input_parse_iperf2(name, buf, len, &o, out, err, sizeof(err)))
        input_values_free(out);
}

/*
 * iperf2 text: one run per [SUM] or single stream's final line, the server
 * report preferred for UDP (iperf2.c). Loss and jitter are kept when the
 * parser finds them for every run.
 */
static int parse_iperf2(const char *name, const char *buf, size_t len, struct runs *rs, char *err,
                        size_t errlen)
{
    struct input_opts o = {.format = INPUT_IPERF2};
    struct input_values bw = {0}, loss = {0}, jitter = {0};
    int e = input_parse_iperf2(name, buf, len, &o, &bw, err, errlen);
    if (e) {
        /* The parser may have read some runs before the line it refused. */
        input_values_free(&bw);
        return e;
    }
    if (bw.n == 0) {
        input_values_free(&bw);
        return err_set(err, errlen, EINVAL,
                       "%s: no iperf2 run in it (no [SUM] line and no stream's final 0.0-N line)",
                       name);
    }
    bool udp = memmem(buf, len, "UDP", 3) || memmem(buf, len, "datagrams", 9);
    if (udp) {
        iperf2_metric(name, buf, len, "loss", &loss);
        iperf2_metric(name, buf, len, "jitter", &jitter);
    }
    for (size_t i = 0; i < bw.n && !e; i++) {
        struct input_run *r = runs_add(rs);
        if (!r) {
            e = err_set(err, errlen, ENOMEM, "%s: out of memory", name);
            break;
        }
        r->tool = INPUT_IPERF2;
        r->test = udp ? "udp_stream" : "tcp_stream";
        r->receiver_bps = bw.v[i];
        if (loss.n == bw.n)
            r->lost_percent = loss.v[i];
        if (jitter.n == bw.n)
            r->jitter_ms = jitter.v[i];
    }
    input_values_free(&bw);
    input_values_free(&loss);
    input_values_free(&jitter);
    return e;
}

/*
 * Plain numbers, one run per line as `netab stats` reads them: a number is
 * the run's throughput, a failure word a failed run with that word. The
 * numbers carry no test, so each is taken for a TCP stream's throughput.
 */
static int parse_plain(const char *name, const char *buf, size_t len, struct runs *rs, char *err,
                       size_t errlen)
{
    struct input_values v = {0};
    struct input_opts o = {.format = INPUT_PLAIN};
    input_set_limit(&o, &v);
    const char *p = buf, *end = buf + len;
    int e = 0;
    for (size_t line = 1; !e && p < end; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        eol = eol ? eol : end;
        size_t n = v.n, nfail = v.fails.n;
        e = input_plain_line(name, line, p, eol, 1, &v, err, errlen);
        p = eol + 1;
        if (e || (v.n == n && v.fails.n == nfail))
            continue;
        struct input_run *r = runs_add(rs);
        if (!r) {
            e = err_set(err, errlen, ENOMEM, "%s: out of memory", name);
            break;
        }
        r->tool = INPUT_PLAIN;
        r->line = line;
        r->test = "tcp_stream";
        if (v.n > n)
            r->receiver_bps = v.v[n];
        else
            snprintf(r->failed, sizeof(r->failed), "%s", v.fails.words[v.fails.last].word);
    }
    input_values_free(&v);
    return e;
}

int input_runs_parse(const char *name, const char *buf, size_t len, enum input_format f,
                     struct input_run **out, size_t *n, char *err, size_t errlen)
{
    struct runs rs = {0};
    *out = NULL;
    *n = 0;
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", buf[i]))
        i++;
    if (i == len)
        return err_set(err, errlen, EINVAL, "%s: the file is empty; there is no run to import",
                       name);
    if (memchr(buf, '\0', len))
        return err_set(err, errlen, EINVAL, "%s: contains NUL bytes; not a text file", name);
    if (f == INPUT_AUTO) {
        /* JSON starts with '{', or '[' and then '{', '[' or ']'; iperf2 lines with "[  3]". */
        size_t j = i + 1;
        while (j < len && strchr(" \t\r\n", buf[j]))
            j++;
        bool json = buf[i] == '{' || (buf[i] == '[' && (j >= len || strchr("{[]", buf[j])));
        f = json ? INPUT_IPERF3 : INPUT_IPERF2;
    }
    int e;
    if (f == INPUT_IPERF3)
        e = parse_iperf3(name, buf, len, &rs, err, errlen);
    else if (f == INPUT_IPERF2)
        e = parse_iperf2(name, buf, len, &rs, err, errlen);
    else if (f == INPUT_PLAIN)
        e = parse_plain(name, buf, len, &rs, err, errlen);
    else
        e = err_set(err, errlen, EINVAL,
                    "%s: only iperf3 and iperf2 output and plain numbers can be imported", name);
    if (!e && rs.n == 0)
        e = err_set(err, errlen, EINVAL, "%s: no run in it", name);
    if (e) {
        input_runs_free(rs.v, rs.n);
        return e;
    }
    *out = rs.v;
    *n = rs.n;
    return 0;
}

/* The length of the valid UTF-8 sequence at p[0..n-1], or 0 if it is not one (RFC 3629). */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
    unsigned c = p[0], min;
    size_t len;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) {
        len = 2, min = 0x80, c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3, min = 0x800, c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4, min = 0x10000, c &= 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (p[i] & 0x3F);
    }
    return c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) ? 0 : len;
}

/*
 * s as a JSON string. A log or file name in another encoding (Latin-1
 * host names) is not valid UTF-8, which JSON strings must be: each byte
 * that does not start a valid sequence becomes '?', the rest is kept.
 */
static json_t *text_string(const char *s)
{
    size_t n = strlen(s);
    char *t = malloc(n + 1);
    if (!t)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(p + i, n - i);
        if (!k) {
            t[i++] = '?';
            continue;
        }
        memcpy(t + i, p + i, k);
        i += k;
    }
    t[n] = 0;
    json_t *j = json_string(t);
    free(t);
    return j;
}

/* Sets key of o to x when x is finite (a figure the tool did not give is absent, not 0). */
static int set_number(json_t *o, const char *key, double x)
{
    return isfinite(x) ? json_object_set_new(o, key, json_real(x)) : 0;
}

json_t *input_run_document(const struct input_run *r, const char *file, const char *text)
{
    const char *tool = input_format_name(r->tool);
    json_t *recv = json_object(), *send = json_object(), *cpu = json_object();
    json_t *doc =
        json_pack("{s:{s:s, s:o, s:I, s:I, s:s}, s:{s:s}, s:{s:o, s:o, s:o}, s:o}", "import",
                  "tool", tool, "file", text_string(file), "index", (json_int_t)r->index, "line",
                  (json_int_t)r->line, "order", r->order_unknown ? "unknown" : "run", "test",
                  "test", r->test, "end", "receiver", recv, "sender", send, "cpu", cpu, "error",
                  r->failed[0] ? json_string(r->failed) : json_null());
    if (!doc)
        return NULL;
    int e = set_number(recv, "bits_per_second", r->receiver_bps) ||
            set_number(recv, "lost_percent", r->lost_percent) ||
            set_number(recv, "jitter_ms", r->jitter_ms) ||
            set_number(send, "bits_per_second", r->sender_bps);
    /*
     * iperf3's cpu_utilization_percent is each end's process CPU (percent of
     * one CPU), not netab's system-wide figure: it goes where netab keeps a
     * peer's process CPU (end.cpu.*_process, docs/iperf3.md), so reports
     * show it under its own heading and never beside the system-wide one.
     */
    static const char basis[] = "iperf3's cpu_utilization_percent: the process's own CPU time, "
                                "percent of one CPU; not system-wide";
    if (!e && isfinite(r->cpu_local_pct))
        e = json_object_set_new(
            cpu, "local_process",
            json_pack("{s:f, s:s}", "total_pct", r->cpu_local_pct, "basis", basis));
    if (!e && isfinite(r->cpu_remote_pct))
        e = json_object_set_new(
            cpu, "remote_process",
            json_pack("{s:f, s:s}", "total_pct", r->cpu_remote_pct, "basis", basis));
    if (!e && r->kernel[0])
        e = json_object_set_new(doc, "host", json_pack("{s:{s:s}}", "local", "kernel", r->kernel));
    if (!e && r->original)
        e = json_object_set(doc, "iperf3", r->original);
    else if (!e && r->tool == INPUT_IPERF2 && text)
        e = json_object_set_new(doc, "iperf2_text", text_string(text));
    else if (!e && r->tool == INPUT_IPERF2)
        e = json_object_set_new(doc, "iperf2_text_in_index", json_integer(0));
    if (e) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}
