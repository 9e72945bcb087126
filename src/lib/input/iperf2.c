/*
 * iperf2 text reports. Each run ends with a line whose interval starts at
 * 0.0 and spans the whole run ("[  3] 0.0-30.0 sec 2.71 GBytes 776 Mbits/sec");
 * with -P it is the [SUM] line, and for UDP the server report, which adds
 * jitter and loss ("... 0.045 ms 37/4838564 (0.00076%)"), is preferred over
 * the client's own line because it counts what arrived. Runs are separated
 * by iperf2's headers ("Client connecting to", "Server listening on", the
 * dashed rule, or a new "connected with" line once intervals were seen), or
 * by time going back to the start of a new run.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input_priv.h"

enum iperf2_metric { M_BANDWIDTH, M_JITTER, M_LOSS, M_TRANSFER };

struct interval {
    bool sum, udp;
    double start, end;
    double bytes, bps;      /* transfer and bandwidth */
    double jitter_ms, loss; /* UDP server reports only; loss in percent */
    size_t line;
};

struct run {
    struct interval best; /* the final line chosen so far */
    bool have_best, any;
    double max_end;
    size_t first_line;
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
 * Parses one line. Returns 1 for an interval line (filled into iv), 0 for any
 * other line, -EINVAL for an interval line that is malformed.
 */
static int parse_line(const char *p, const char *end, struct interval *iv)
{
    p = skip_ws(p, end);
    if (p >= end || *p != '[')
        return 0;
    const char *close = memchr(p, ']', (size_t)(end - p));
    if (!close)
        return 0;
    const char *id = skip_ws(p + 1, close);
    iv->sum = !strncmp(id, "SUM", 3);
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
    if (!number(&q, end, &v) || !word(&q, end, &w, &wl) || !(unit = byte_unit(w, wl)))
        return -EINVAL;
    iv->bytes = v * unit;
    if (!number(&q, end, &v) || !word(&q, end, &w, &wl) || !(unit = rate_unit(w, wl)))
        return -EINVAL;
    iv->bps = v * unit;
    iv->udp = false;
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

/* Ends a run: appends the value of its final line. */
static int finish_run(const char *name, struct run *r, enum iperf2_metric m,
                      struct input_values *out, char *err, size_t errlen)
{
    if (!r->any)
        return 0;
    if (!r->have_best || r->best.end < 0.99 * r->max_end)
        return err_set(err, errlen, EINVAL,
                       "%s:%zu: iperf2 run has no final 0.0-%.1f line (truncated output?)", name,
                       r->first_line, r->max_end);
    const struct interval *b = &r->best;
    double v = b->bps;
    if (m == M_TRANSFER)
        v = b->bytes;
    if (m == M_JITTER || m == M_LOSS) {
        if (!b->udp)
            return err_set(err, errlen, EINVAL,
                           "%s:%zu: metric '%s' needs a UDP server report with jitter and loss",
                           name, b->line, m == M_JITTER ? "jitter" : "loss");
        v = m == M_JITTER ? b->jitter_ms : b->loss;
    }
    memset(r, 0, sizeof(*r));
    int rc = input_push(out, v);
    return rc ? err_set(err, errlen, rc, "%s: out of memory", name) : 0;
}

/* Should iv replace the final line chosen so far? Whole-run spans win; then [SUM]; then UDP. */
static bool better(const struct run *r, const struct interval *iv)
{
    if (!r->have_best)
        return true;
    const struct interval *b = &r->best;
    /* Streams of one run may end a few milliseconds apart: within 1 % is the same span. */
    double tol = 0.01 * fmax(iv->end, b->end);
    if (iv->end > b->end + tol)
        return true;
    if (iv->end < b->end - tol)
        return false;
    if (iv->sum != b->sum)
        return iv->sum;
    if (iv->udp != b->udp)
        return iv->udp;
    return true; /* the later of two equal lines */
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
    struct run r = {0};
    const char *p = buf, *end = buf + len;
    int rc = 0;
    for (size_t line = 1; p < end && !rc; line++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        struct interval iv;
        int k = parse_line(p, eol, &iv);
        if (k < 0) {
            return err_set(err, errlen, EINVAL, "%s:%zu: malformed iperf2 interval line '%.60s'",
                           name, line, skip_ws(p, eol));
        } else if (k == 0) {
            bool header = !strncmp(skip_ws(p, eol), "-----", 5) ||
                          memmem(p, (size_t)(eol - p), "Client connecting to", 20) ||
                          memmem(p, (size_t)(eol - p), "Server listening on", 19) ||
                          memmem(p, (size_t)(eol - p), "connected with", 14);
            if (header)
                rc = finish_run(name, &r, m, out, err, errlen);
        } else {
            iv.line = line;
            /*
             * A run restarting from 0 without a header: the run already has its
             * whole-span line and time went back.
             */
            if (r.any && iv.start == 0 && r.have_best && r.best.end >= 0.99 * r.max_end &&
                iv.end < 0.99 * r.max_end)
                rc = finish_run(name, &r, m, out, err, errlen);
            if (!r.any)
                r.first_line = line;
            r.any = true;
            if (iv.end > r.max_end)
                r.max_end = iv.end;
            if (iv.start == 0 && better(&r, &iv)) {
                r.best = iv;
                r.have_best = true;
            }
        }
        p = eol + 1;
    }
    if (!rc)
        rc = finish_run(name, &r, m, out, err, errlen);
    return rc;
}
