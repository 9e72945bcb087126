#include "engine/side_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/counters.h"
#include "engine/flows.h"
#include "engine/path_rx.h"
#include "engine/side_flows.h"
#include "engine/path_tx.h"
#include "measure/profile.h"

int side_report_collect(struct side_report *r, const struct stream_set *set, uint64_t measure_ns,
                        const struct stream_counts *omit)
{
    memset(r, 0, sizeof(*r));
    r->streams = calloc((size_t)set->n, sizeof(*r->streams));
    if (!r->streams)
        return -ENOMEM;
    r->n = set->n;
    r->pinned_cpu = -1;
    for (int i = 0; i < set->n; i++) {
        const struct stream *s = &set->streams[i];
        struct side_stream *o = &r->streams[i];
        uint64_t total = atomic_load(&((struct stream *)s)->bytes);
        o->id = s->id;
        o->server_sends = s->server_sends;
        o->sender = s->sender;
        o->total_bytes = total;
        struct stream_counts before = {0};
        if (omit)
            before = omit[i];
        o->bytes = total - before.bytes;
        /*
         * A receiver's clock starts with its first byte when that came after
         * the window opened: the server opens its window before the client's
         * first send, and that gap is set-up, not transfer time.
         */
        uint64_t from = measure_ns;
        if (!s->sender && s->first_ns > from)
            from = s->first_ns;
        /*
         * A receiver whose first byte arrived before the window opened, with no
         * warm-up bytes taken off, counts those bytes: its clock starts with them.
         */
        if (!s->sender && s->first_ns && s->first_ns < from && !before.bytes)
            from = s->first_ns;
        o->seconds = s->end_ns > from ? (double)(s->end_ns - from) / 1e9 : 0;
        o->tcpinfo = s->tcpinfo;
        o->packets = atomic_load(&((struct stream *)s)->packets);
        o->lost = atomic_load(&((struct stream *)s)->lost);
        /*
         * Transactions done during the warm-up are not counted against the
         * measured seconds. UDP datagrams are: loss compares the two ends'
         * whole-test counts (see window.h).
         */
        if (s->role != ROLE_UDP_SEND && s->role != ROLE_UDP_RECV) {
            o->packets -= before.packets;
            o->lost -= before.lost;
        }
        o->malformed = atomic_load(&((struct stream *)s)->malformed);
        o->foreign = atomic_load(&((struct stream *)s)->foreign);
        o->stalls = s->stalls;
        o->stalled_us = s->stalled_ns / 1000;
        o->errors = s->errors;
        /* What the kernel granted, not what -w asked for: it caps at [rw]mem_max and doubles. */
        int v;
        socklen_t vl = sizeof(v);
        o->sndbuf =
            s->fd >= 0 && !getsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &v, &vl) ? v : s->eff_sndbuf;
        vl = sizeof(v);
        o->rcvbuf =
            s->fd >= 0 && !getsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &v, &vl) ? v : s->eff_rcvbuf;
        if (s->rx) {
            udp_rx_totals(s->rx, &o->rx);
            o->packets = o->rx.packets;
        }
    }
    r->path = path_tx_report(set); /* send path (issue 32) */
    r->flows = set->params.flows > 0;
    if (r->flows && set->n && set->streams[0].flat) {
        if (!(r->flow_p99_us = malloc((size_t)set->n * sizeof(double))))
            return -ENOMEM;
        flows_p99(set, r->flow_p99_us);
    }
    /* receive and socket paths (issue 32): read back while the sockets are open. */
    r->rx_path = path_rx_side_json(set);
    return 0;
}

json_t *side_report_cpu_to_json(const struct cpu_usage *u)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:i}", "total_pct",
                     u->total_pct, "user_pct", u->user_pct, "system_pct", u->system_pct,
                     "softirq_pct", u->softirq_pct, "irq_pct", u->irq_pct, "steal_pct",
                     u->steal_pct, "process_pct", u->proc_pct, "busy_us", u->busy_us, "process_us",
                     u->proc_us, "seconds", u->seconds, "online_cpus", u->online_cpus);
}

json_t *side_report_cpu_json(const struct side_report *r)
{
    if (!r->cpu_valid)
        return json_null();
    json_t *o = side_report_cpu_to_json(&r->cpu);
    if (!r->per_cpu) {
        json_object_set_new(o, "per_cpu", json_null());
        return o;
    }
    json_t *arr = json_array();
    for (int i = 0; i < r->nper_cpu; i++) {
        const struct percpu_usage *u = &r->per_cpu[i];
        json_array_append_new(arr,
                              json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f}", "cpu", u->cpu,
                                        "total_pct", u->total_pct, "user_pct", u->user_pct,
                                        "system_pct", u->system_pct, "softirq_pct", u->softirq_pct,
                                        "irq_pct", u->irq_pct, "busy_us", u->busy_us));
    }
    json_object_set_new(o, "per_cpu", arr);
    return o;
}

const struct percpu_usage *side_report_pinned_usage(const struct side_report *r)
{
    for (int i = 0; r->pinned_cpu >= 0 && i < r->nper_cpu; i++)
        if (r->per_cpu[i].cpu == r->pinned_cpu)
            return &r->per_cpu[i];
    return NULL;
}

bool side_report_pinned_busy_us(const struct side_report *r, double *us)
{
    const struct percpu_usage *u = side_report_pinned_usage(r);
    if (u)
        *us = u->busy_us;
    return u != NULL;
}

bool side_report_kernel_get(const struct side_report *r, const char *group, const char *name,
                            long long *v)
{
    json_t *x = json_object_get(json_object_get(r->kernel, group), name);
    if (json_is_integer(x))
        *v = json_integer_value(x);
    return json_is_integer(x);
}

bool side_report_perf_get(const struct side_report *r, const char *name, double *v)
{
    json_t *x = json_object_get(r->perf, name);
    if (json_is_number(x))
        *v = json_number_value(x);
    return json_is_number(x);
}

json_t *side_report_identity_json(const struct side_report *r)
{
    return r->have_identity ? identity_to_json(&r->identity) : json_null();
}

json_t *side_report_host_to_json(const struct hostinfo *h)
{
    return json_pack("{s:s, s:s, s:s, s:i}", "hostname", h->hostname, "kernel", h->kernel,
                     "cpu_model", h->cpu_model, "online_cpus", h->online_cpus);
}

/* The "streams" member and "host": an object per stream. */
static json_t *streams_json(const struct side_report *r)
{
    json_t *streams = json_array();
    for (int i = 0; i < r->n; i++) {
        const struct side_stream *s = &r->streams[i];
        json_array_append_new(
            streams,
            json_pack("{s:i, s:b, s:b, s:I, s:I, s:f, s:{s:b, s:I, s:I, s:I, s:I, s:I}}", "id",
                      s->id, "server_sends", s->server_sends, "sender", s->sender, "bytes",
                      (json_int_t)s->bytes, "total_bytes", (json_int_t)s->total_bytes, "seconds",
                      s->seconds, "tcpinfo", "valid", s->tcpinfo.valid, "retransmits",
                      (json_int_t)s->tcpinfo.retransmits, "rtt_us", (json_int_t)s->tcpinfo.rtt_us,
                      "rttvar_us", (json_int_t)s->tcpinfo.rttvar_us, "snd_cwnd",
                      (json_int_t)s->tcpinfo.snd_cwnd, "snd_mss", (json_int_t)s->tcpinfo.snd_mss));
    }
    for (int i = 0; i < r->n; i++) {
        const struct side_stream *s = &r->streams[i];
        json_t *c = json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f, s:I, s:I, s:I, s:I}",
            "packets", (json_int_t)s->packets, "lost", (json_int_t)s->lost, "malformed",
            (json_int_t)s->malformed, "foreign", (json_int_t)s->foreign, "stalls",
            (json_int_t)s->stalls, "stalled_us", (json_int_t)s->stalled_us, "duplicates",
            (json_int_t)s->rx.duplicates, "out_of_order", (json_int_t)s->rx.out_of_order,
            "too_late", (json_int_t)s->rx.too_late, "rx_bytes", (json_int_t)s->rx.bytes,
            "jitter_ms", s->rx.jitter_ms, "jitter_mean_abs_ms", s->rx.jitter_mean_abs_ms,
            "jitter_p99_abs_ms", s->rx.jitter_p99_abs_ms, "connect_errors",
            (json_int_t)s->errors.connect, "read_errors", (json_int_t)s->errors.read,
            "write_errors", (json_int_t)s->errors.write, "timeout_errors",
            (json_int_t)s->errors.timeout);
        json_object_set_new(json_array_get(streams, (size_t)i), "counters", c);
        json_object_set_new(json_array_get(streams, (size_t)i), "socket_buffers",
                            json_pack("{s:i, s:i}", "send", s->sndbuf, "receive", s->rcvbuf));
    }
    return json_pack("{s:o, s:o}", "streams", streams, "host", side_report_host_to_json(&r->host));
}

json_t *side_report_to_json(const struct side_report *r)
{
    json_t *obj = r->flows ? json_pack("{s:o, s:o}", "flows", side_flows_to_json(r), "host",
                                       side_report_host_to_json(&r->host))
                           : streams_json(r);
    json_object_set_new(obj, "cpu", side_report_cpu_json(r));
    json_object_set_new(obj, "pinned_cpu", json_integer(r->pinned_cpu));
    if (r->kernel)
        json_object_set_new(obj, "kernel", json_incref(r->kernel));
    if (r->perf)
        json_object_set_new(obj, "perf", json_incref(r->perf));
    if (r->profile)
        json_object_set_new(obj, "profile", json_incref(r->profile));
    if (r->path) /* send path (issue 32) */
        json_object_set_new(obj, "path", json_incref(r->path));
    if (r->rx_path)
        json_object_set_new(obj, "rx_path", json_incref(r->rx_path));
    if (r->have_identity)
        json_object_set_new(obj, "identity", side_report_identity_json(r));
    return obj;
}

static int num(const json_t *o, const char *k, double lo, double hi, double *out)
{
    json_t *v = json_object_get(o, k);
    if (!json_is_number(v))
        return -1;
    double d = json_number_value(v);
    if (!isfinite(d) || d < lo || d > hi)
        return -1;
    *out = d;
    return 0;
}

static int counters_from_json(const json_t *c, struct side_stream *o)
{
    double v[13];
    static const char *const keys[] = {
        "packets",     "lost",         "malformed",     "foreign",  "stalls",
        "duplicates",  "out_of_order", "too_late",      "rx_bytes", "connect_errors",
        "read_errors", "write_errors", "timeout_errors"};
    if (!json_is_object(c))
        return -1;
    for (int i = 0; i < 13; i++)
        if (num(c, keys[i], 0, 9e18, &v[i]))
            return -1;
    o->packets = (uint64_t)v[0];
    o->lost = (uint64_t)v[1];
    o->malformed = (uint64_t)v[2];
    o->foreign = (uint64_t)v[3];
    o->stalls = (uint64_t)v[4];
    o->rx.duplicates = (uint64_t)v[5];
    o->rx.out_of_order = (uint64_t)v[6];
    o->rx.too_late = (uint64_t)v[7];
    o->rx.bytes = (uint64_t)v[8];
    o->rx.packets = o->packets;
    o->errors.connect = (uint64_t)v[9];
    o->errors.read = (uint64_t)v[10];
    o->errors.write = (uint64_t)v[11];
    o->errors.timeout = (uint64_t)v[12];
    if (num(c, "jitter_ms", 0, 1e9, &o->rx.jitter_ms) ||
        num(c, "jitter_mean_abs_ms", 0, 1e9, &o->rx.jitter_mean_abs_ms) ||
        num(c, "jitter_p99_abs_ms", 0, 1e9, &o->rx.jitter_p99_abs_ms))
        return -1;
    /* Optional: peers before protocol addition 4 do not send it. */
    if (json_object_get(c, "stalled_us")) {
        double us;
        if (num(c, "stalled_us", 0, 9e18, &us))
            return -1;
        o->stalled_us = (uint64_t)us;
    }
    return 0;
}

/* Optional (peers before protocol addition 1 do not send it): {send, receive} in bytes. */
static int buffers_from_json(const json_t *b, struct side_stream *o)
{
    double snd, rcv;
    if (!b)
        return 0;
    if (!json_is_object(b) || json_object_size(b) != 2 || num(b, "send", 0, 2147483647, &snd) ||
        num(b, "receive", 0, 2147483647, &rcv))
        return -1;
    o->sndbuf = (int)snd;
    o->rcvbuf = (int)rcv;
    return 0;
}

/* Optional: the per_cpu array of a peer's CPU figures. */
static int percpu_from_json(const json_t *a, struct side_report *r)
{
    if (!a || json_is_null(a))
        return 0;
    if (!json_is_array(a) || json_array_size(a) > PERCPU_MAX)
        return -1;
    r->per_cpu = calloc(json_array_size(a) + 1, sizeof(*r->per_cpu));
    if (!r->per_cpu)
        return -1;
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *e = json_array_get(a, i);
        struct percpu_usage *u = &r->per_cpu[i];
        double cpu;
        if (!json_is_object(e) || json_object_size(e) != 7 ||
            num(e, "cpu", 0, PERCPU_MAX - 1, &cpu) || cpu != (int)cpu ||
            num(e, "total_pct", 0, 100.5, &u->total_pct) ||
            num(e, "user_pct", 0, 100.5, &u->user_pct) ||
            num(e, "system_pct", 0, 100.5, &u->system_pct) ||
            num(e, "softirq_pct", 0, 100.5, &u->softirq_pct) ||
            num(e, "irq_pct", 0, 100.5, &u->irq_pct) || num(e, "busy_us", 0, 1e15, &u->busy_us))
            return -1;
        u->cpu = (int)cpu;
        r->nper_cpu = (int)i + 1;
    }
    return 0;
}

/*
 * The members a peer adds since protocol addition 1 (docs/protocol.md):
 * pinned_cpu, kernel and perf. Each is optional, and checked when present.
 */
static int additions_from_json(const json_t *obj, struct side_report *r, char *err, size_t errlen)
{
    json_t *pin = json_object_get(obj, "pinned_cpu");
    r->pinned_cpu = -1;
    if (pin) {
        if (!json_is_integer(pin) || json_integer_value(pin) < -1 ||
            json_integer_value(pin) >= PERCPU_MAX)
            return err_set(err, errlen, EPROTO, "peer's pinned CPU is malformed");
        r->pinned_cpu = (int)json_integer_value(pin);
    }
    json_t *k = json_object_get(obj, "kernel");
    if (k) {
        int rc = counters_kernel_check(k, err, errlen);
        if (rc)
            return rc;
        r->kernel = json_deep_copy(k);
    }
    json_t *p = json_object_get(obj, "perf");
    if (p) {
        int rc = counters_perf_check(p, err, errlen);
        if (rc)
            return rc;
        r->perf = json_deep_copy(p);
    }
    json_t *prof = json_object_get(obj, "profile");
    if (prof) {
        int rc = profile_check(prof, err, errlen);
        if (rc)
            return rc;
        r->profile = json_deep_copy(prof);
    }
    json_t *path = json_object_get(obj, "path"); /* send path (issue 32) */
    if (path) {
        int rc = path_tx_report_check(path, err, errlen);
        if (rc)
            return rc;
        r->path = json_deep_copy(path);
    }
    return 0;
}

static int cpu_from_json(const json_t *o, struct cpu_usage *u)
{
    double cpus;
    if (!json_is_object(o) || num(o, "total_pct", 0, 100.5, &u->total_pct) ||
        num(o, "user_pct", 0, 100.5, &u->user_pct) ||
        num(o, "system_pct", 0, 100.5, &u->system_pct) ||
        num(o, "softirq_pct", 0, 100.5, &u->softirq_pct) ||
        num(o, "irq_pct", 0, 100.5, &u->irq_pct) || num(o, "steal_pct", 0, 100.5, &u->steal_pct) ||
        num(o, "process_pct", 0, 1e6, &u->proc_pct) || num(o, "busy_us", 0, 1e15, &u->busy_us) ||
        num(o, "process_us", 0, 1e15, &u->proc_us) || num(o, "seconds", 0, 1e7, &u->seconds) ||
        num(o, "online_cpus", 1, 1e6, &cpus))
        return -1;
    u->online_cpus = (int)cpus;
    return 0;
}

static void copy_str(char *dst, size_t len, const json_t *v)
{
    const char *s = json_string_value(v);
    snprintf(dst, len, "%s", s ? s : "unknown");
}

/* The optional "identity" member (servers before it send none). Returns 0 or -EPROTO. */
static int identity_member_from_json(const json_t *obj, struct side_report *r, char *err,
                                     size_t errlen)
{
    json_t *v = json_object_get(obj, "identity");
    char why[NB_ERRLEN];
    if (!v || json_is_null(v))
        return 0;
    if (identity_from_json(v, &r->identity, why, sizeof(why)))
        return err_set(err, errlen, EPROTO, "peer's build identity is malformed: %s", why);
    r->have_identity = true;
    return 0;
}

/* The "streams" member: an object per stream. */
static int streams_from_json(const json_t *obj, int expected_streams, struct side_report *r,
                             char *err, size_t errlen)
{
    json_t *streams = json_object_get(obj, "streams");
    if (!json_is_array(streams) || (int)json_array_size(streams) != expected_streams)
        return err_set(err, errlen, EPROTO, "peer's result has %s streams (expected %d)",
                       json_is_array(streams) ? "the wrong number of" : "no", expected_streams);
    r->streams = calloc((size_t)expected_streams, sizeof(*r->streams));
    if (!r->streams)
        return err_set(err, errlen, ENOMEM, "out of memory");
    r->n = expected_streams;
    for (int i = 0; i < expected_streams; i++) {
        json_t *s = json_array_get(streams, (size_t)i);
        json_t *ti = json_object_get(s, "tcpinfo");
        struct side_stream *o = &r->streams[i];
        double id, bytes, total, retr, rtt, rttvar, cwnd, mss;
        if (!json_is_object(s) || num(s, "id", 0, expected_streams - 1, &id) ||
            num(s, "bytes", 0, 9e18, &bytes) || num(s, "total_bytes", 0, 9e18, &total) ||
            num(s, "seconds", 0, 1e7, &o->seconds) ||
            !json_is_boolean(json_object_get(s, "server_sends")) ||
            !json_is_boolean(json_object_get(s, "sender")) || !json_is_object(ti) ||
            num(ti, "retransmits", 0, 4e9, &retr) || num(ti, "rtt_us", 0, 4e9, &rtt) ||
            num(ti, "rttvar_us", 0, 4e9, &rttvar) || num(ti, "snd_cwnd", 0, 4e9, &cwnd) ||
            num(ti, "snd_mss", 0, 4e9, &mss)) {
            side_report_free(r);
            return err_set(err, errlen, EPROTO, "peer's result for stream %d is malformed", i);
        }
        o->id = (int)id;
        o->bytes = (uint64_t)bytes;
        o->total_bytes = (uint64_t)total;
        o->server_sends = json_is_true(json_object_get(s, "server_sends"));
        o->sender = json_is_true(json_object_get(s, "sender"));
        o->tcpinfo.valid = json_is_true(json_object_get(ti, "valid"));
        o->tcpinfo.retransmits = (uint32_t)retr;
        o->tcpinfo.rtt_us = (uint32_t)rtt;
        o->tcpinfo.rttvar_us = (uint32_t)rttvar;
        o->tcpinfo.snd_cwnd = (uint32_t)cwnd;
        o->tcpinfo.snd_mss = (uint32_t)mss;
        if (counters_from_json(json_object_get(s, "counters"), o) ||
            buffers_from_json(json_object_get(s, "socket_buffers"), o)) {
            side_report_free(r);
            return err_set(err, errlen, EPROTO, "peer's counters for stream %d are malformed", i);
        }
    }
    return 0;
}

int side_report_from_json(const json_t *obj, int expected_streams, struct side_report *r, char *err,
                          size_t errlen)
{
    memset(r, 0, sizeof(*r));
    const json_t *flows = json_object_get(obj, "flows");
    int frc = flows ? side_flows_from_json(flows, expected_streams, r, err, errlen)
                    : streams_from_json(obj, expected_streams, r, err, errlen);
    if (frc) {
        side_report_free(r);
        return frc;
    }
    json_t *cpu = json_object_get(obj, "cpu");
    if (json_is_object(cpu)) {
        if (cpu_from_json(cpu, &r->cpu) || percpu_from_json(json_object_get(cpu, "per_cpu"), r)) {
            side_report_free(r);
            return err_set(err, errlen, EPROTO, "peer's CPU figures are malformed");
        }
        r->cpu_valid = true;
    }
    int rc = additions_from_json(obj, r, err, errlen);
    /* receive and socket paths (issue 32): optional, sent by a peer that ran one. */
    json_t *rxp = json_object_get(obj, "rx_path");
    if (!rc && !(rc = path_rx_side_check(rxp, err, errlen)) && rxp)
        r->rx_path = json_incref(rxp);
    if (!rc)
        rc = identity_member_from_json(obj, r, err, errlen);
    if (rc) {
        side_report_free(r);
        return rc;
    }
    json_t *host = json_object_get(obj, "host");
    copy_str(r->host.hostname, sizeof(r->host.hostname), json_object_get(host, "hostname"));
    copy_str(r->host.kernel, sizeof(r->host.kernel), json_object_get(host, "kernel"));
    copy_str(r->host.cpu_model, sizeof(r->host.cpu_model), json_object_get(host, "cpu_model"));
    json_t *cpus = json_object_get(host, "online_cpus");
    r->host.online_cpus = json_is_integer(cpus) ? (int)json_integer_value(cpus) : 0;
    return 0;
}

void side_report_free(struct side_report *r)
{
    free(r->flow_p99_us);
    r->flow_p99_us = NULL;
    free(r->streams);
    r->streams = NULL;
    r->n = 0;
    free(r->per_cpu);
    r->per_cpu = NULL;
    r->nper_cpu = 0;
    json_decref(r->kernel);
    r->kernel = NULL;
    json_decref(r->perf);
    r->perf = NULL;
    json_decref(r->profile);
    r->profile = NULL;
    json_decref(r->path);
    r->path = NULL;
    json_decref(r->rx_path);
    r->rx_path = NULL;
}

void side_report_udp_drops(const struct side_report *r, long long *rcvbuf, long long *inerr)
{
    static const char *const groups[] = {"Udp", "Udp6"};
    long long v;
    *rcvbuf = *inerr = 0;
    for (size_t i = 0; i < 2; i++) {
        if (side_report_kernel_get(r, groups[i], "RcvbufErrors", &v))
            *rcvbuf += v;
        if (side_report_kernel_get(r, groups[i], "InErrors", &v))
            *inerr += v;
    }
}
