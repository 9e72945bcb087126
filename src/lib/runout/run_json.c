#include "runout/run_json.h"
#include "runout/run_rrul.h"
#include "runout/run_flows.h"
#include "runout/run_path.h"

#include <string.h>

#include "engine/path_rx.h"

static double bps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes * 8.0 / seconds : 0.0;
}

static json_t *direction_json_tcp(const struct direction_totals *t)
{
    return json_pack("{s:{s:I, s:f, s:f, s:i}, s:{s:I, s:f, s:f}, s:i}", "sender", "bytes",
                     (json_int_t)t->sender_bytes, "seconds", t->sender_seconds, "bits_per_second",
                     bps(t->sender_bytes, t->sender_seconds), "retransmits", (int)t->retransmits,
                     "receiver", "bytes", (json_int_t)t->receiver_bytes, "seconds",
                     t->receiver_seconds, "bits_per_second",
                     bps(t->receiver_bytes, t->receiver_seconds), "streams", t->streams);
}

/* UDP adds datagram counts, loss, reordering and jitter (iperf's columns, and more). */
static void add_udp(json_t *dir, const struct direction_totals *t)
{
    uint64_t lost = run_result_lost(t);
    double pct = t->sender_packets ? 100.0 * (double)lost / (double)t->sender_packets : 0.0;
    json_t *snd = json_object_get(dir, "sender");
    json_object_set_new(snd, "packets", json_integer((json_int_t)t->sender_packets));
    json_object_set_new(snd, "stalls", json_integer((json_int_t)t->sender_stalls));
    json_object_set_new(snd, "stalled_seconds", json_real(t->sender_stalled_s));
    json_t *rcv = json_object_get(dir, "receiver");
    json_t *more =
        json_pack("{s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:f, s:f, s:f}", "packets",
                  (json_int_t)t->receiver_packets, "lost_packets", (json_int_t)lost, "lost_percent",
                  pct, "out_of_order", (json_int_t)t->out_of_order, "duplicates",
                  (json_int_t)t->duplicates, "malformed", (json_int_t)t->malformed, "foreign",
                  (json_int_t)t->foreign, "jitter_ms", t->jitter_ms, "jitter_mean_abs_ms",
                  t->jitter_mean_abs_ms, "jitter_p99_abs_ms", t->jitter_p99_abs_ms);
    json_object_update(rcv, more);
    json_decref(more);
}

static bool is_udp_stream(const struct run_result *r)
{
    return r->params.kind == TEST_UDP_STREAM;
}

/*
 * The receiver's kernel view of UDP loss beside netab's count: datagrams the
 * receiving end's kernel dropped at the socket (Udp.RcvbufErrors; InErrors
 * includes them and checksum errors; Udp6 likewise). In a loopback test
 * both ends read the same counters, so both directions' drops add up there.
 */
static void add_udp_kernel(json_t *end, const struct run_result *r)
{
    const struct side_report *rx = r->params.reverse ? &r->local : &r->remote;
    if (r->params.bidir || !rx->kernel)
        return;
    long long rcvbuf, inerr;
    side_report_udp_drops(rx, &rcvbuf, &inerr);
    json_t *rcv = json_object_get(end, "receiver");
    json_object_set_new(rcv, "kernel_drops",
                        json_pack("{s:I, s:I, s:I}", "rcvbuf_errors", (json_int_t)rcvbuf,
                                  "in_errors", (json_int_t)inerr, "other_in_errors",
                                  (json_int_t)(inerr > rcvbuf ? inerr - rcvbuf : 0)));
}

static json_t *direction_json_for(const struct run_result *r, const struct direction_totals *t)
{
    json_t *d = direction_json_tcp(t);
    if (is_udp_stream(r))
        add_udp(d, t);
    return d;
}

static json_t *latency_json(const struct latency_summary *l)
{
    return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "count", (json_int_t)l->count,
                     "p50", l->p50, "p90", l->p90, "p99", l->p99, "p999", l->p999, "p9999",
                     l->p9999, "max", l->max, "min", l->min, "mean", l->mean);
}

/* Request/response and connection-rate figures at the top of "end". */
static void add_transactions(json_t *end, const struct run_result *r)
{
    struct transaction_totals t;
    run_result_transactions(r, &t);
    double rate = t.seconds > 0 ? (double)t.transactions / t.seconds : 0;
    json_object_set_new(end, "transactions", json_integer((json_int_t)t.transactions));
    json_object_set_new(
        end, r->params.kind == TEST_TCP_CRR ? "connections_per_second" : "transactions_per_second",
        json_real(rate));
    if (r->params.kind == TEST_TCP_CRR)
        json_object_set_new(end, "transactions_per_second", json_real(rate));
    if (r->params.kind == TEST_UDP_RR)
        json_object_set_new(end, "lost_transactions", json_integer((json_int_t)t.lost));
    json_object_set_new(end, "errors",
                        json_pack("{s:I, s:I, s:I, s:I, s:I}", "connect",
                                  (json_int_t)t.errors.connect, "read", (json_int_t)t.errors.read,
                                  "write", (json_int_t)t.errors.write, "timeout",
                                  (json_int_t)t.errors.timeout, "server_refused_foreign",
                                  (json_int_t)t.server_foreign));
    json_object_set_new(end, "latency_us",
                        r->have_latency ? latency_json(&r->latency) : json_null());
    if (r->params.kind == TEST_TCP_CRR)
        json_object_set_new(
            end, "client_ports",
            json_string(r->cport_lo ? "fixed range (--cport-range)" : "kernel ephemeral"));
}

static const struct side_stream *find_stream(const struct side_report *side, int id, bool sender)
{
    for (int i = 0; i < side->n; i++)
        if (side->streams[i].id == id && side->streams[i].sender == sender)
            return &side->streams[i];
    return NULL;
}

static json_t *stream_half_json(const struct side_stream *s)
{
    if (!s)
        return json_null();
    json_t *o = json_pack("{s:I, s:f, s:f}", "bytes", (json_int_t)s->bytes, "seconds", s->seconds,
                          "bits_per_second", bps(s->bytes, s->seconds));
    /* As the kernel granted them on this end's socket; null from a peer that does not say. */
    json_object_set_new(o, "socket_buffers",
                        s->sndbuf || s->rcvbuf
                            ? json_pack("{s:i, s:i}", "send", s->sndbuf, "receive", s->rcvbuf)
                            : json_null());
    if (s->sender && s->tcpinfo.valid)
        json_object_set_new(
            o, "tcp_info",
            json_pack("{s:I, s:I, s:I, s:I, s:I}", "retransmits",
                      (json_int_t)s->tcpinfo.retransmits, "rtt_us", (json_int_t)s->tcpinfo.rtt_us,
                      "rttvar_us", (json_int_t)s->tcpinfo.rttvar_us, "snd_cwnd",
                      (json_int_t)s->tcpinfo.snd_cwnd, "snd_mss", (json_int_t)s->tcpinfo.snd_mss));
    return o;
}

static json_t *streams_json(const struct run_result *r)
{
    json_t *arr = json_array();
    /* Flows are summed up in "end"."flows"; each one's detail only with --per-flow. */
    int n = r->params.flows && !r->per_flow ? 0 : params_connections(&r->params);
    for (int id = 0; id < n && (r->have_local || r->have_remote); id++) {
        const struct side_stream *snd = NULL, *rcv = NULL;
        bool server_sends = r->params.reverse || (r->params.bidir && id >= r->params.streams);
        if (r->have_local) {
            snd = find_stream(&r->local, id, true);
            rcv = find_stream(&r->local, id, false);
        }
        if (r->have_remote) {
            if (!snd)
                snd = find_stream(&r->remote, id, true);
            if (!rcv)
                rcv = find_stream(&r->remote, id, false);
        }
        json_array_append_new(arr, json_pack("{s:i, s:s, s:o, s:o}", "id", id, "direction",
                                             server_sends ? "server_to_client" : "client_to_server",
                                             "sender", stream_half_json(snd), "receiver",
                                             stream_half_json(rcv)));
    }
    return arr;
}

/* One connection's or a sum's congestion state over an interval (docs/json.md, intervals[].tcp). */
static json_t *interval_tcp_json(const struct interval_tcp *t, bool sum)
{
    json_t *o = sum ? json_pack("{s:i, s:b}", "connections", (int)t->n, "senders", t->sender)
                    : json_pack("{s:i, s:b}", "id", t->id, "sender", t->sender);
    json_object_update_new(
        o, json_pack("{s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:f, s:o}", "cwnd",
                     (json_int_t)t->cwnd, "cwnd_bytes", (json_int_t)t->cwnd_bytes, "srtt_us",
                     t->srtt_us, "rttvar_us", t->rttvar_us, "retransmits",
                     (json_int_t)t->retransmits, "lost", (json_int_t)t->lost, "reordering_seen",
                     (json_int_t)t->reord_seen, "bytes_in_flight", (json_int_t)t->in_flight_bytes,
                     "notsent_bytes", (json_int_t)t->notsent_bytes, "delivery_bits_per_second",
                     (double)t->delivery_rate * 8, "pacing_bits_per_second",
                     t->pacing_unlimited ? json_null() : json_real((double)t->pacing_rate * 8)));
    if (sum) {
        json_object_set_new(o, "srtt_min_us", json_real(t->srtt_min_us));
        json_object_set_new(o, "srtt_max_us", json_real(t->srtt_max_us));
    }
    return o;
}

/* intervals[].tcp: the sum, and each connection's state unless the test has --flows. */
static json_t *interval_tcp_all_json(const struct run_result *r, const struct interval_report *iv)
{
    json_t *o = json_pack("{s:o}", "sum", interval_tcp_json(&iv->tcp, true));
    if (!r->params.flows) {
        json_t *arr = json_array();
        for (int i = 0; i < iv->n_tcp; i++)
            json_array_append_new(arr, interval_tcp_json(&iv->tcp_streams[i], false));
        json_object_set_new(o, "streams", arr);
    }
    return o;
}

json_t *run_json_interval(const struct run_result *r, const struct interval_report *iv)
{
    double len = iv->end - iv->start;
    json_t *o =
        json_pack("{s:f, s:f, s:I, s:f, s:I, s:I, s:I}", "start", iv->start, "end", iv->end,
                  "bytes", (json_int_t)(iv->sent + iv->received), "bits_per_second",
                  bps(iv->sent + iv->received, len), "sent_bytes", (json_int_t)iv->sent,
                  "received_bytes", (json_int_t)iv->received, "packets", (json_int_t)iv->packets);
    if (o && params_is_rr(r->params.kind)) {
        json_object_set_new(o, "transactions_per_second",
                            json_real(len > 0 ? (double)iv->packets / len : 0));
        json_object_set_new(o, "latency_us",
                            iv->have_latency ? latency_json(&iv->latency) : json_null());
    }
    if (o && iv->have_tcp)
        json_object_set_new(o, "tcp", interval_tcp_all_json(r, iv));
    if (o && iv->have_rrul)
        json_object_set_new(o, "rrul", run_rrul_interval_json(&iv->rrul));
    return o;
}

static json_t *intervals_json(const struct run_result *r)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < r->nintervals; i++)
        json_array_append_new(arr, run_json_interval(r, &r->intervals[i]));
    return arr;
}

static json_t *cpu_json(bool have, const struct side_report *side)
{
    return have ? side_report_cpu_json(side) : json_null();
}

static json_t *demand_json(bool have, const struct side_report *side, uint64_t bytes)
{
    if (!have || !side->cpu_valid || !bytes)
        return json_null();
    return json_real(cpu_service_demand_us_per_kib(&side->cpu, bytes));
}

/* Service demand over the pinned CPU alone (-A): busy time of that CPU per KiB. */
static json_t *demand_pinned_json(const struct side_report *side, uint64_t bytes)
{
    double us;
    if (!bytes || !side_report_pinned_busy_us(side, &us))
        return json_null();
    return json_real(us / ((double)bytes / 1024.0));
}

/* A side's kernel or perf member: a copy, or null when the side collected none. */
static json_t *copy_or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

static json_t *demand_tran_json(const struct side_report *side, uint64_t transactions)
{
    if (!side->cpu_valid || !transactions)
        return json_null();
    return json_real(cpu_service_demand_us_per_tran(&side->cpu, transactions));
}

/*
 * CPU time of the netab processes on side's host over its window, µs: its own
 * process, plus the other end's when that is another process on the same
 * host (a server in a network namespace of this machine: same host name and
 * CPU count). The in-process server shares the process, counted once.
 */
static double own_us(const struct run_result *r, const struct side_report *side)
{
    const struct side_report *other = side == &r->local ? &r->remote : &r->local;
    double us = side->cpu.proc_us;
    if (!r->in_process && other->cpu_valid && !strcmp(side->host.hostname, other->host.hostname) &&
        side->host.online_cpus == other->host.online_cpus)
        us += other->cpu.proc_us;
    return us;
}

/*
 * Adds to the side's cpu object o the process CPU cost (process_us per KiB
 * received, per transaction for rr/crr) and others_pct: the share of the
 * host's busy time (user + system, where processes run) that no netab
 * process of this test accounts for, in percent of busy_us (docs/json.md).
 */
static void add_process_cost(const struct run_result *r, json_t *o, const struct side_report *side,
                             uint64_t bytes)
{
    if (!json_is_object(o) || !side->cpu_valid)
        return;
    const struct cpu_usage *u = &side->cpu;
    json_object_set_new(o, "process_us_per_kib",
                        bytes ? json_real(u->proc_us / ((double)bytes / 1024.0)) : json_null());
    if (params_is_rr(r->params.kind)) {
        struct transaction_totals t;
        run_result_transactions(r, &t);
        json_object_set_new(o, "process_us_per_tran",
                            t.transactions ? json_real(u->proc_us / (double)t.transactions)
                                           : json_null());
    }
    double window_us = u->seconds * u->online_cpus * 1e6;
    double procs_us = (u->user_pct + u->system_pct) / 100.0 * window_us;
    double others = procs_us - own_us(r, side);
    json_object_set_new(o, "others_pct",
                        u->busy_us > 0 ? json_real(100.0 * (others > 0 ? others : 0) / u->busy_us)
                                       : json_null());
}

static json_t *end_json(const struct run_result *r)
{
    if (!r->have_local || !r->have_remote)
        return json_null();
    struct direction_totals all, up, down;
    run_result_totals(r, -1, &all);
    run_result_totals(r, 0, &up);
    run_result_totals(r, 1, &down);
    json_t *end = direction_json_for(r, &all);
    json_t *dirs = json_object();
    if (up.streams)
        json_object_set_new(dirs, "client_to_server", direction_json_for(r, &up));
    if (down.streams)
        json_object_set_new(dirs, "server_to_client", direction_json_for(r, &down));
    json_object_set_new(end, "directions", dirs);
    json_t *cpu = json_pack("{s:o, s:o}", "local", cpu_json(true, &r->local), "remote",
                            cpu_json(true, &r->remote));
    add_process_cost(r, json_object_get(cpu, "local"), &r->local, all.receiver_bytes);
    add_process_cost(r, json_object_get(cpu, "remote"), &r->remote, all.receiver_bytes);
    json_object_set_new(end, "cpu", cpu);
    /* An iperf3 peer's CPU is its process's alone: kept apart from the system-wide figures. */
    json_t *pcpu = json_object_get(r->peer, "cpu_process");
    if (pcpu)
        json_object_set(cpu, "remote_process", pcpu);
    json_t *sd = json_pack("{s:o, s:o}", "local_us_per_kib",
                           demand_json(true, &r->local, all.receiver_bytes), "remote_us_per_kib",
                           demand_json(true, &r->remote, all.receiver_bytes));
    json_object_set_new(sd, "local_us_per_kib_pinned",
                        demand_pinned_json(&r->local, all.receiver_bytes));
    json_object_set_new(sd, "remote_us_per_kib_pinned",
                        demand_pinned_json(&r->remote, all.receiver_bytes));
    if (params_is_rr(r->params.kind)) {
        struct transaction_totals t;
        run_result_transactions(r, &t);
        json_object_set_new(sd, "local_us_per_tran", demand_tran_json(&r->local, t.transactions));
        json_object_set_new(sd, "remote_us_per_tran", demand_tran_json(&r->remote, t.transactions));
        add_transactions(end, r);
    }
    json_t *flows = run_flows_json(r);
    if (flows)
        json_object_set_new(end, "flows", flows);
    json_object_set_new(end, "service_demand", sd);
    json_object_set_new(end, "kernel",
                        json_pack("{s:o, s:o}", "local", copy_or_null(r->local.kernel), "remote",
                                  copy_or_null(r->remote.kernel)));
    json_object_set_new(end, "perf",
                        json_pack("{s:o, s:o}", "local", copy_or_null(r->local.perf), "remote",
                                  copy_or_null(r->remote.perf)));
    if (r->local.profile || r->remote.profile)
        json_object_set_new(end, "profile",
                            json_pack("{s:o, s:o}", "local", copy_or_null(r->local.profile),
                                      "remote", copy_or_null(r->remote.profile)));
    json_t *path = run_path_json(r); /* send path (issue 32) */
    if (path)
        json_object_set_new(end, "path", path);
    if (is_udp_stream(r))
        add_udp_kernel(end, r);
    /* receive and socket paths (issue 32): what each end's kernel did (docs/json.md). */
    if (r->local.rx_path || r->remote.rx_path)
        json_object_set_new(end, "rx_path",
                            json_pack("{s:o, s:o}", "local", copy_or_null(r->local.rx_path),
                                      "remote", copy_or_null(r->remote.rx_path)));
    return end;
}

/* One end's host facts with its build identity (null when that end sent none). */
static json_t *host_json(const struct side_report *side)
{
    json_t *h = side_report_host_to_json(&side->host);
    if (h)
        json_object_set_new(h, "identity", side_report_identity_json(side));
    return h;
}

json_t *run_json_error(const char *msg)
{
    return json_pack("{s:s, s:n, s:s}", "netab_version", NETAB_VERSION, "end", "error", msg);
}

json_t *run_json_build(const struct run_result *r)
{
    json_t *doc = json_object();
    json_object_set_new(doc, "netab_version", json_string(NETAB_VERSION));
    /* --test rrul (issue 31; docs/rrul.md): the test is its load's, the figures in end.rrul. */
    const struct test_params *tp = r->rrul_test ? &r->rrul_load : &r->params;
    json_t *test = params_to_json(tp);
    json_object_set_new(test, "udp_default_buffers", json_boolean(tp->udp_default_buffers));
    json_object_set_new(doc, "test", test);
    /*
     * The kind where every reader looks for it ("test", report/rundoc.c's),
     * and as "kind", the name the rrul interface gives it (docs/rrul.md).
     */
    if (r->rrul_test) {
        json_object_set_new(test, "test", json_string("rrul"));
        json_object_set_new(test, "kind", json_string("rrul"));
    }
    json_object_set_new(doc, "start",
                        json_pack("{s:s, s:s, s:i, s:b}", "time", r->started, "server", r->server,
                                  "port", r->port, "in_process_server", r->in_process));
    json_t *host = json_object();
    json_object_set_new(host, "local", r->have_local ? host_json(&r->local) : json_null());
    json_object_set_new(host, "remote",
                        r->have_remote && !r->peer ? host_json(&r->remote) : json_null());
    /* receive and socket paths (issue 32): what was asked, only when something was. */
    json_t *asked = path_rx_asked_json(&r->params);
    if (asked)
        json_object_set_new(json_object_get(doc, "start"), "rx_path", asked);
    json_object_set_new(doc, "host", host);
    json_object_set_new(doc, "intervals", intervals_json(r));
    json_object_set_new(doc, "streams", streams_json(r));
    json_object_set_new(doc, "end", end_json(r));
    if (r->have_rrul && json_is_object(json_object_get(doc, "end")))
        json_object_set_new(json_object_get(doc, "end"), "rrul", run_rrul_end_json(&r->rrul));
    json_object_set_new(doc, "error", r->error[0] ? json_string(r->error) : json_null());
    /* A peer that is not netab (docs/iperf3.md): its version, document and what it cannot give. */
    if (r->peer)
        json_object_set(doc, "peer", r->peer);
    return doc;
}
