/*
 * iperf2 text reports, read by their structure. One run gives one value:
 * its [SUM] line (with -P) or its one stream's final line, where a final
 * line is an interval from 0.0 that reaches the stream's last reported
 * time. For UDP the server report of a stream ("[  3] Server Report:" and
 * the line after it, with jitter and loss) is preferred over the client's
 * own line because it counts what arrived, however early it ends; with -P
 * the server reports of all streams are summed when every stream has one.
 *
 * A run ends at iperf2's headers ("Client connecting to", "Server listening
 * on"), at a "connected with" line once the run has its value (a server
 * prints one run after the other without headers), or when a stream or the
 * [SUM] starts over from 0.0 after its final line (outputs appended to one
 * file). Notices such as "12 datagrams received out-of-order" are skipped.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_priv.h"

enum iperf2_metric { M_BANDWIDTH, M_JITTER, M_LOSS, M_TRANSFER };

/* Stream ids of one run that the parser keeps apart; iperf2's -P allows up to 128. */
#define MAX_STREAMS 256
#define ID_SUM (-1)

struct interval {
    int id; /* stream id, or ID_SUM */
    bool udp;
    double start, end;
    double bytes, bps;      /* transfer and bandwidth */
    double jitter_ms, loss; /* UDP server reports only; loss in percent */
    double lost, total;     /* datagrams, UDP server reports only */
    size_t line;
};

struct stream {
    int id;
    double max_end;        /* the latest time any interval of the stream reached */
    struct interval final; /* its latest interval from 0.0 */
    bool have_final;
    struct interval server; /* its UDP server report */
    bool have_server;
};

struct run {
    struct stream streams[MAX_STREAMS];
    size_t nstreams;
    struct interval sum; /* the latest [SUM] from 0.0 */
    bool have_sum, any;
    double sum_max_end;
    size_t first_line;
    int server_next; /* id whose next interval line is its server report, or 0 */
};

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Parses a number at *p (bounded by end); advances *p. Returns false if there is none. */
static bool number(const char **p, const char *end, double *v)
{
    const char *s = skip_ws(*p, end);
    char tmp[64];
    size_t n = 0;
    while (s + n < end && n < sizeof(tmp) - 1 && strchr("0123456789.+-eE", s[n]))
        n++;
    /* A '-' right after digits separates an interval ("0.0-30.0"), not an exponent sign. */
    for (size_t i = 1; i < n; i++)
        if (s[i] == '-' && s[i - 1] != 'e' && s[i - 1] != 'E') {
            n = i;
            break;
        }
    if (n == 0)
        return false;
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *e;
    *v = strtod(tmp, &e);
    if (e == tmp || !isfinite(*v))
        return false;
    *p = s + (e - tmp);
    return true;
}

/* Matches a word at *p and advances past it. */
static bool word(const char **p, const char *end, const char **w, size_t *wl)
{
    const char *s = skip_ws(*p, end);
    const char *t = s;
    while (t < end && *t != ' ' && *t != '\t' && *t != '\r')
        t++;
    if (t == s)
        return false;
    *w = s;
    *wl = (size_t)(t - s);
    *p = t;
    return true;
}

static double prefix_scale(char c, double base)
{
    switch (c) {
    case 'K':
    case 'k':
        return base;
    case 'M':
    case 'm':
        return base * base;
    case 'G':
    case 'g':
        return base * base * base;
    case 'T':
    case 't':
        return base * base * base * base;
    }
    return 0;
}

/* "GBytes" (1024-based) -> bytes per unit; 0 if not a byte unit. */
static double byte_unit(const char *w, size_t wl)
{
    if (wl == 5 && !strncmp(w, "Bytes", 5))
        return 1;
    if (wl == 6 && !strncmp(w + 1, "Bytes", 5))
        return prefix_scale(w[0], 1024);
    return 0;
}

/* "Mbits/sec" (1000-based) or "MBytes/sec" (1024-based, times 8) -> bit/s per unit. */
static double rate_unit(const char *w, size_t wl)
{
    if (wl == 8 && !strncmp(w, "bits/sec", 8))
        return 1;
    if (wl == 9 && !strncmp(w + 1, "bits/sec", 8))
        return prefix_scale(w[0], 1000);
    if (wl == 9 && !strncmp(w, "Bytes/sec", 9))
        return 8;
    if (wl == 10 && !strncmp(w + 1, "Bytes/sec", 9))
        return 8 * prefix_scale(w[0], 1024);
    return 0;
}

/*
 * The id between '[' and ']': a stream number, ID_SUM for "SUM" (and
 * "SUM-2"), 0 for anything else ("ID", "SUM-cnt"?). *close receives the ']'.
 */
static int line_id(const char *p, const char *end, const char **close)
{
    p = skip_ws(p, end);
    if (p >= end || *p != '[')
        return 0;
    const char *c = memchr(p, ']', (size_t)(end - p));
    if (!c)
        return 0;
    *close = c;
    const char *id = skip_ws(p + 1, c);
    if (c - id >= 3 && !strncmp(id, "SUM", 3))
        return ID_SUM;
    char *e;
    long v = strtol(id, &e, 10);
    return e != id && skip_ws(e, c) == c && v > 0 && v < 1000000 ? (int)v : 0;
}

/*
 * Parses one line. Returns 1 for an interval line (filled into iv), 0 for any
 * other line (headers, notices such as "0.0-10.0 sec 12 datagrams received
 * out-of-order"), -EINVAL for an interval line that is malformed.
 */
static int parse_line(const char *p, const char *end, struct interval *iv)
{
    const char *close = NULL;
    int id = line_id(p, end, &close);
    if (!id)
        return 0;
    iv->id = id;
    const char *q = close + 1, *w;
    size_t wl;
    double s, e;
    /* Only "N-M sec" makes an interval line; headers and notices are skipped. */
    if (!number(&q, end, &s) || q >= end || *q != '-')
        return 0;
    q++;
    if (!number(&q, end, &e) || !word(&q, end, &w, &wl) || wl != 3 || strncmp(w, "sec", 3))
        return 0;
    iv->start = s;
    iv->end = e;
    double v, unit;
    const char *t = q;
    /* "12 datagrams received out-of-order": a count of a kind, not a transfer. */
    if (number(&t, end, &v) && word(&t, end, &w, &wl) && wl == 9 && !strncmp(w, "datagrams", 9))
        return 0;
    if (!number(&q, end, &v) || !word(&q, end, &w, &wl) || !(unit = byte_unit(w, wl)))
        return -EINVAL;
    iv->bytes = v * unit;
    if (!number(&q, end, &v) || !word(&q, end, &w, &wl) || !(unit = rate_unit(w, wl)))
        return -EINVAL;
    iv->bps = v * unit;
    iv->udp = false;
    iv->jitter_ms = iv->loss = iv->lost = iv->total = 0;
    /* UDP server report: "0.045 ms 37/4838564 (0.00076%)". */
    const char *r = q;
    double jit, lost, total;
    if (number(&r, end, &jit) && word(&r, end, &w, &wl) && wl == 2 && !strncmp(w, "ms", 2) &&
        number(&r, end, &lost)) {
        r = skip_ws(r, end);
        if (r < end && *r == '/') {
            r++;
            if (!number(&r, end, &total))
                return -EINVAL;
            iv->udp = true;
            iv->jitter_ms = jit;
            iv->lost = lost;
            iv->total = total;
            iv->loss = total > 0 ? 100 * lost / total : 0;
        }
    }
    return 1;
}

static int parse_metric(const char *m, enum iperf2_metric *out)
{
    if (!m || !strcmp(m, "bandwidth"))
        *out = M_BANDWIDTH;
    else if (!strcmp(m, "jitter"))
        *out = M_JITTER;
    else if (!strcmp(m, "loss"))
        *out = M_LOSS;
    else if (!strcmp(m, "transfer"))
        *out = M_TRANSFER;
    else
        return -EINVAL;
    return 0;
}

/* The stream of r with this id, added if new; NULL when there are too many. */
static struct stream *run_stream(struct run *r, int id)
{
    for (size_t i = 0; i < r->nstreams; i++)
        if (r->streams[i].id == id)
            return &r->streams[i];
    if (r->nstreams >= MAX_STREAMS)
        return NULL;
    struct stream *st = &r->streams[r->nstreams++];
    memset(st, 0, sizeof(*st));
    st->id = id;
    return st;
}

/* True once the run has what makes its value: a [SUM] or a stream's final line. */
static bool run_has_value(const struct run *r)
{
    if (r->have_sum)
        return true;
    for (size_t i = 0; i < r->nstreams; i++)
        if (r->streams[i].have_final || r->streams[i].have_server)
            return true;
    return false;
}

/* The server reports of every stream of r summed into *out; false unless every stream has one. */
static bool sum_server_reports(const struct run *r, struct interval *out)
{
    size_t n = 0;
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < r->nstreams; i++) {
        const struct stream *st = &r->streams[i];
        if (!st->have_final && !st->have_server)
            continue; /* a stream that only connected */
        if (!st->have_server)
            return false;
        const struct interval *v = &st->server;
        out->bytes += v->bytes;
        out->bps += v->bps;
        out->lost += v->lost;
        out->total += v->total;
        /* The worst stream's jitter: an average would hide the one that suffers. */
        out->jitter_ms = fmax(out->jitter_ms, v->jitter_ms);
        out->end = fmax(out->end, v->end);
        out->line = v->line;
        n++;
    }
    out->udp = true;
    out->loss = out->total > 0 ? 100 * out->lost / out->total : 0;
    return n > 0;
}

/*
 * The line that gives run r its value, into *out: the summed server reports,
 * else the [SUM], else the one stream's server report or final line. Returns
 * 0 or -EINVAL with a sentence (truncated run, streams without a [SUM]).
 */
static int run_value_line(const char *name, const struct run *r, struct interval *out, char *err,
                          size_t errlen)
{
    size_t nfinal = 0;
    const struct stream *one = NULL;
    for (size_t i = 0; i < r->nstreams; i++) {
        const struct stream *st = &r->streams[i];
        /* Rounding of printed times may put the last interval a little past the total. */
        if (st->max_end > 0 && !st->have_server &&
            (!st->have_final || st->final.end < 0.99 * st->max_end))
            return err_set(err, errlen, EINVAL,
                           "%s:%zu: iperf2 run has no final 0.0-%.1f line (truncated output?)",
                           name, r->first_line, st->max_end);
        if (st->have_final || st->have_server) {
            nfinal++;
            one = st;
        }
    }
    if (r->sum_max_end > 0 && (!r->have_sum || r->sum.end < 0.99 * r->sum_max_end))
        return err_set(err, errlen, EINVAL,
                       "%s:%zu: iperf2 run has no final [SUM] 0.0-%.1f line (truncated output?)",
                       name, r->first_line, r->sum_max_end);
    if (nfinal > 1 && sum_server_reports(r, out))
        return 0;
    if (r->have_sum) {
        *out = r->sum;
        return 0;
    }
    if (nfinal == 1) {
        *out = one->have_server ? one->server : one->final;
        return 0;
    }
    if (nfinal > 1)
        return err_set(err, errlen, EINVAL,
                       "%s:%zu: iperf2 run has %zu streams but no [SUM] line (truncated output?)",
                       name, r->first_line, nfinal);
    return err_set(err, errlen, EINVAL,
                   "%s:%zu: iperf2 run has no final 0.0-N line (truncated output?)", name,
                   r->first_line);
}

/* Ends a run: appends the value of its final line. A run without interval lines adds nothing. */
static int finish_run(const char *name, struct run *r, enum iperf2_metric m,
                      struct input_values *out, char *err, size_t errlen)
{
    if (!r->any) {
        r->nstreams = 0;
        r->server_next = 0;
        return 0;
    }
    struct interval b;
    int rc = run_value_line(name, r, &b, err, errlen);
    if (rc)
        return rc;
    double v = b.bps;
    if (m == M_TRANSFER)
        v = b.bytes;
    if (m == M_JITTER || m == M_LOSS) {
        if (!b.udp)
            return err_set(err, errlen, EINVAL,
                           "%s:%zu: metric '%s' needs a UDP server report with jitter and loss",
                           name, b.line, m == M_JITTER ? "jitter" : "loss");
        v = m == M_JITTER ? b.jitter_ms : b.loss;
    }
    memset(r, 0, sizeof(*r));
    rc = input_push(out, v);
    return rc ? input_push_error(name, b.line, out, rc, err, errlen) : 0;
}

/*
 * True if iv, an interval from 0.0 of a stream (or the [SUM]) that already
 * has its final line, starts a new run: outputs appended without headers.
 */
static bool starts_over(const struct run *r, const struct interval *iv)
{
    if (iv->id == ID_SUM)
        return r->have_sum && iv->end <= r->sum.end;
    for (size_t i = 0; i < r->nstreams; i++)
        if (r->streams[i].id == iv->id)
            return r->streams[i].have_final && iv->end <= r->streams[i].final.end &&
                   r->streams[i].final.end >= 0.99 * r->streams[i].max_end;
    return false;
}

/* Adds interval line iv to run r. Returns 0 or -EINVAL (too many streams). */
static int run_add(const char *name, struct run *r, const struct interval *iv, char *err,
                   size_t errlen)
{
    if (!r->any)
        r->first_line = iv->line;
    r->any = true;
    if (iv->id == ID_SUM) {
        r->sum_max_end = fmax(r->sum_max_end, iv->end);
        if (iv->start == 0 && (!r->have_sum || iv->end >= r->sum.end)) {
            r->sum = *iv;
            r->have_sum = true;
        }
        return 0;
    }
    struct stream *st = run_stream(r, iv->id);
    if (!st)
        return err_set(err, errlen, EINVAL, "%s:%zu: more than %d iperf2 streams in one run", name,
                       iv->line, MAX_STREAMS);
    if (r->server_next == iv->id) {
        /* The server's view of the stream; its end may well precede the client's. */
        r->server_next = 0;
        st->server = *iv;
        st->have_server = true;
        return 0;
    }
    st->max_end = fmax(st->max_end, iv->end);
    if (iv->start == 0 && (!st->have_final || iv->end >= st->final.end)) {
        st->final = *iv;
        st->have_final = true;
    }
    return 0;
}

/* What a line that is not an interval means for the run structure. */
static int other_line(const char *name, struct run *r, const char *p, const char *eol,
                      enum iperf2_metric m, struct input_values *out, char *err, size_t errlen)
{
    size_t n = (size_t)(eol - p);
    if (memmem(p, n, "Client connecting to", 20) || memmem(p, n, "Server listening on", 19))
        return finish_run(name, r, m, out, err, errlen);
    const char *close = NULL;
    int id = line_id(p, eol, &close);
    if (id > 0 && memmem(p, n, "Server Report:", 14)) {
        r->server_next = id;
        return 0;
    }
    /* A new connection after the run has its value: a server's next run, without headers. */
    if (id > 0 && memmem(p, n, "connected with", 14) && run_has_value(r)) {
        int rc = finish_run(name, r, m, out, err, errlen);
        if (!rc)
            (void)run_stream(r, id);
        return rc;
    }
    return 0;
}

int input_parse_iperf2(const char *name, const char *buf, size_t len, const struct input_opts *o,
                       struct input_values *out, char *err, size_t errlen)
{
    enum iperf2_metric m;
    if (parse_metric(o->metric, &m))
        return err_set(err, errlen, EINVAL,
                       "%s: unknown iperf2 metric '%s' (bandwidth, jitter, loss, transfer)", name,
                       o->metric);
    snprintf(out->metric, sizeof(out->metric), "%s", o->metric ? o->metric : "bandwidth");
    struct run *r = calloc(1, sizeof(*r));
    if (!r)
        return err_set(err, errlen, ENOMEM, "%s: out of memory", name);
    const char *p = buf, *end = buf + len;
    int rc = 0;
    for (size_t line = 1; p < end && !rc; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        struct interval iv;
        int k = parse_line(p, eol, &iv);
        if (k < 0) {
            /* Quote the line itself, at most 60 characters, never what follows it. */
            const char *s = skip_ws(p, eol), *e = eol;
            while (e > s && (e[-1] == '\r' || e[-1] == ' '))
                e--;
            int ql = (int)(e - s) < 60 ? (int)(e - s) : 60;
            rc = err_set(err, errlen, EINVAL, "%s:%zu: malformed iperf2 interval line '%.*s'", name,
                         line, ql, s);
        } else if (k == 0) {
            rc = other_line(name, r, p, eol, m, out, err, errlen);
        } else {
            iv.line = line;
            if (r->server_next != iv.id && iv.start == 0 && starts_over(r, &iv))
                rc = finish_run(name, r, m, out, err, errlen);
            if (!rc)
                rc = run_add(name, r, &iv, err, errlen);
        }
        p = eol + 1;
    }
    if (!rc)
        rc = finish_run(name, r, m, out, err, errlen);
    free(r);
    return rc;
}
