#include "proto/iperf3_peer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto/iperf3_wire.h"
#include "util/clock.h"

static double tv_us(const struct timeval *tv)
{
    return (double)tv->tv_sec * 1e6 + (double)tv->tv_usec;
}

/* This process's CPU since ru_start as iperf3 counts it: percent of one CPU, wall-clock based. */
static void process_cpu(const struct rusage *ru_start, uint64_t start_ns, struct iperf3_results *r)
{
    struct rusage now;
    getrusage(RUSAGE_SELF, &now);
    double wall_us = (double)(clock_now_ns() - start_ns) / 1e3;
    if (wall_us <= 0)
        return;
    double user = tv_us(&now.ru_utime) - tv_us(&ru_start->ru_utime);
    double sys = tv_us(&now.ru_stime) - tv_us(&ru_start->ru_stime);
    r->cpu_user = 100.0 * user / wall_us;
    r->cpu_system = 100.0 * sys / wall_us;
    r->cpu_total = r->cpu_user + r->cpu_system;
}

int iperf3_peer_results(const struct side_report *side, const struct test_params *p, bool client,
                        const struct rusage *ru_start, uint64_t start_ns,
                        struct iperf3_results *out)
{
    memset(out, 0, sizeof(*out));
    bool tcp = p->kind == TEST_TCP_STREAM;
    bool sends = false;
    out->streams = calloc((size_t)(side->n ? side->n : 1), sizeof(*out->streams));
    if (!out->streams)
        return -ENOMEM;
    out->n = side->n;
    for (int i = 0; i < side->n; i++) {
        const struct side_stream *s = &side->streams[i];
        struct iperf3_stream_result *o = &out->streams[i];
        sends |= s->sender;
        o->id = iperf3_stream_id(s->id);
        o->bytes = s->bytes;
        o->retransmits =
            s->sender && tcp && s->tcpinfo.valid ? (int64_t)s->tcpinfo.retransmits : -1;
        o->end_time = s->seconds;
        if (!tcp && s->sender)
            o->packets = (int64_t)s->packets;
        if (!tcp && !s->sender) {
            /* iperf3's receiver terms: the highest count seen, and the counts below it missing. */
            o->packets = (int64_t)s->rx.next;
            o->errors = (int64_t)(s->rx.next > s->rx.packets ? s->rx.next - s->rx.packets : 0);
            o->jitter_s = s->rx.jitter_ms / 1000.0;
        }
    }
    /* iperf3 says -1 when this end only received, else whether its senders have retransmits. */
    (void)client;
    out->sender_has_retransmits = !sends ? -1 : tcp ? 1 : 0;
    process_cpu(ru_start, start_ns, out);
    return 0;
}

json_t *iperf3_peer_local_results(const struct run_result *res, const struct test_params *p,
                                  const struct rusage *ru_start, uint64_t start_ns)
{
    struct iperf3_results r;
    struct side_report empty = {0};
    if (iperf3_peer_results(res->have_local ? &res->local : &empty, p, true, ru_start, start_ns,
                            &r))
        return NULL;
    json_t *doc = iperf3_results_to_json(&r);
    iperf3_results_free(&r);
    return doc;
}

/* The server's -J output, when it sent it: its "end.streams[i].udp.out_of_order". */
static uint64_t out_of_order_of(const json_t *theirs, int i)
{
    json_t *streams = json_object_get(
        json_object_get(json_object_get(theirs, "server_output_json"), "end"), "streams");
    json_t *v =
        json_object_get(json_object_get(json_array_get(streams, (size_t)i), "udp"), "out_of_order");
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* One stream of the remote side from the server's line for it (NULL: it sent none). */
static void remote_stream(const struct iperf3_stream_result *r, const struct test_params *p, int i,
                          bool server_sends, const json_t *theirs, struct side_stream *o)
{
    o->id = i;
    o->server_sends = server_sends;
    o->sender = server_sends;
    if (!r)
        return;
    o->bytes = o->total_bytes = r->bytes;
    o->seconds = r->end_time - r->start_time > 0 ? r->end_time - r->start_time : p->duration_s;
    if (p->kind == TEST_TCP_STREAM && o->sender && r->retransmits >= 0) {
        o->tcpinfo.valid = 1;
        o->tcpinfo.retransmits = (uint32_t)r->retransmits;
    }
    if (p->kind != TEST_UDP_STREAM)
        return;
    if (o->sender) {
        o->packets = (uint64_t)r->packets;
        return;
    }
    /* iperf3 counts the highest number seen and the gaps below it; unique = highest - gaps. */
    uint64_t errors = r->errors > 0 ? (uint64_t)r->errors : 0;
    o->packets = (uint64_t)r->packets > errors ? (uint64_t)r->packets - errors : 0;
    o->rx.packets = o->packets;
    o->rx.bytes = r->bytes;
    o->rx.next = (uint64_t)r->packets;
    o->rx.jitter_ms = r->jitter_s * 1000.0;
    o->rx.out_of_order = out_of_order_of(theirs, i);
}

/* The "peer" member: who the peer is, its process CPU, its document, what it cannot give. */
static json_t *peer_json(const json_t *theirs, const struct iperf3_results *r)
{
    json_t *version = json_object_get(
        json_object_get(json_object_get(theirs, "server_output_json"), "start"), "version");
    json_t *cpu =
        json_pack("{s:f, s:f, s:f, s:s}", "total_pct", r->cpu_total, "user_pct", r->cpu_user,
                  "system_pct", r->cpu_system, "basis",
                  "the iperf3 server process's own CPU time over the test, percent of one CPU "
                  "(iperf3's cpu_util_total); not system-wide, no softirq");
    json_t *missing =
        json_pack("{s:s, s:s, s:s, s:s, s:s}", "cpu.remote",
                  "an iperf3 server reports only its process's CPU (peer.cpu_process)",
                  "kernel.remote", "an iperf3 server reports no kernel counters", "perf.remote",
                  "an iperf3 server reports no perf counters", "host.remote",
                  "an iperf3 server reports no host facts or build identity", "one_way_delay",
                  "iperf3's UDP timestamps are CLOCK_MONOTONIC: no one-way delay");
    if (!json_is_string(version))
        json_object_set_new(missing, "version",
                            json_string("the iperf3 server sent no -J output with its version"));
    return json_pack("{s:s, s:O, s:o, s:o, s:O}", "protocol", "iperf3", "version",
                     json_is_string(version) ? version : json_null(), "cpu_process", cpu,
                     "unavailable", missing, "result", theirs);
}

int iperf3_peer_remote_side(const json_t *theirs, const struct test_params *p,
                            const bool *server_sends, struct run_result *res, char *err,
                            size_t errlen)
{
    int n = params_connections(p);
    struct iperf3_results r;
    int rc = iperf3_results_from_json(theirs, n, &r, err, errlen);
    if (rc)
        return rc;
    struct side_report *side = &res->remote;
    side_report_free(side);
    memset(side, 0, sizeof(*side));
    side->pinned_cpu = -1;
    side->streams = calloc((size_t)n, sizeof(*side->streams));
    if (!side->streams) {
        iperf3_results_free(&r);
        return err_set(err, errlen, ENOMEM, "out of memory");
    }
    side->n = n;
    for (int i = 0; i < n; i++)
        remote_stream(iperf3_results_find(&r, iperf3_stream_id(i)), p, i, server_sends[i], theirs,
                      &side->streams[i]);
    res->have_remote = true;
    json_decref(res->peer);
    res->peer = peer_json(theirs, &r);
    iperf3_results_free(&r);
    return 0;
}
