#include "runout/run_flows.h"
#include "runout/run_rrul.h"
#include "runout/run_text.h"
#include "runout/run_path.h"
#include "runout/run_text_counters.h"
#include "runout/run_text_path_rx.h"

#include <stdlib.h>

#include "engine/interval_tcp.h"

#include "util/printable.h"
#include "util/units.h"

static double bps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes * 8.0 / seconds : 0.0;
}

void run_text_header(FILE *f, const struct run_result *r)
{
    if (r->rrul_test) {
        run_rrul_header(f, r); /* issue 31 */
        return;
    }
    const struct test_params *p = &r->params;
    char block[32];
    units_format_bytes(p->block, block, sizeof(block));
    char port[16] = "";
    if (!r->in_process)
        snprintf(port, sizeof(port), " port %u", r->port);
    fprintf(f, "netab %s: %s %s %s%s%s, %d stream%s%s, ", NETAB_VERSION, params_kind_name(p->kind),
            p->reverse ? "from" : (p->bidir ? "with" : "to"), r->server, port,
            r->in_process ? " (in-process server)" : "", p->streams, p->streams == 1 ? "" : "s",
            p->bidir ? " each way" : "");
    if (p->bytes) {
        char b[32];
        units_format_bytes((double)p->bytes, b, sizeof(b));
        fprintf(f, "%s", b);
    } else {
        fprintf(f, "%g s", p->duration_s);
    }
    if (p->omit_s > 0)
        fprintf(f, " after %g s warm-up", p->omit_s);
    if (params_is_rr(p->kind)) {
        fprintf(f, ", %u-byte requests, %u-byte responses", p->req_size, p->resp_size);
        if (p->kind != TEST_TCP_CRR)
            fprintf(f, ", %d outstanding", p->outstanding);
        fputc('\n', f);
    } else if (p->kind == TEST_UDP_STREAM) {
        char rate[32];
        units_format_rate((double)p->rate_bps, rate, sizeof(rate));
        fprintf(f, ", %u-byte datagrams at %s per stream\n", p->block,
                p->rate_bps ? rate : "full speed");
    } else {
        fprintf(f, ", %s blocks\n", block);
    }
    /* As iperf3's: the sending connections' retransmits in the interval and congestion window. */
    if (p->interval_s > 0 && p->kind == TEST_TCP_STREAM && (!p->reverse || p->bidir) &&
        interval_tcp_wanted(p))
        fprintf(f, "%-17s %12s %14s %6s %10s\n", "Interval", "Transfer", "Bitrate", "Retr", "Cwnd");
    else if (p->interval_s > 0)
        fprintf(f, "%-17s %12s %14s\n", "Interval", "Transfer", "Bitrate");
}

void run_text_interval(FILE *f, const struct interval_report *iv)
{
    double len = iv->end - iv->start;
    double tps = len > 0 ? (double)iv->packets / len : 0.0;
    if (iv->have_latency) {
        fprintf(f, "%6.2f-%-6.2f s   %10.0f trans/s   p50 %8.1f us   p99 %8.1f us   max %8.1f us\n",
                iv->start, iv->end, tps, iv->latency.p50, iv->latency.p99, iv->latency.max);
        fflush(f);
        return;
    }
    /* --flows keep their latencies in their loops until the end: the rate only. */
    if (iv->transactions) {
        fprintf(f, "%6.2f-%-6.2f s   %10.0f trans/s\n", iv->start, iv->end, tps);
        fflush(f);
        return;
    }
    char bytes[32], rate[32];
    uint64_t b = iv->sent + iv->received;
    units_format_bytes((double)b, bytes, sizeof(bytes));
    units_format_rate(bps(b, iv->end - iv->start), rate, sizeof(rate));
    fprintf(f, "%6.2f-%-6.2f s   %12s %14s", iv->start, iv->end, bytes, rate);
    /* The cwnd is the sending connections' sum (with -P, their windows together). */
    if (iv->have_tcp && iv->tcp.sender) {
        char cwnd[32];
        units_format_bytes((double)iv->tcp.cwnd_bytes, cwnd, sizeof(cwnd));
        fprintf(f, " %6llu %10s", (unsigned long long)iv->tcp.retransmits, cwnd);
    }
    fputc('\n', f);
    fflush(f);
}

static void print_direction(FILE *f, const char *label, const struct direction_totals *t, bool tcp)
{
    char sb[32], sr[32], rb[32], rr[32];
    units_format_bytes((double)t->sender_bytes, sb, sizeof(sb));
    units_format_rate(bps(t->sender_bytes, t->sender_seconds), sr, sizeof(sr));
    units_format_bytes((double)t->receiver_bytes, rb, sizeof(rb));
    units_format_rate(bps(t->receiver_bytes, t->receiver_seconds), rr, sizeof(rr));
    fprintf(f, "%-9s sender   %7.2f s %12s %14s", label, t->sender_seconds, sb, sr);
    if (tcp)
        fprintf(f, "  retransmits %u", t->retransmits);
    fputc('\n', f);
    fprintf(f, "%-9s receiver %7.2f s %12s %14s\n", label, t->receiver_seconds, rb, rr);
}

static void print_udp(FILE *f, const char *label, const struct direction_totals *t)
{
    uint64_t lost = run_result_lost(t);
    fprintf(f,
            "%-9s datagrams sent %llu, received %llu, lost %llu (%.4f%%), out of order %llu, "
            "duplicates %llu, malformed %llu, foreign %llu\n",
            label, (unsigned long long)t->sender_packets, (unsigned long long)t->receiver_packets,
            (unsigned long long)lost,
            t->sender_packets ? 100.0 * (double)lost / (double)t->sender_packets : 0.0,
            (unsigned long long)t->out_of_order, (unsigned long long)t->duplicates,
            (unsigned long long)t->malformed, (unsigned long long)t->foreign);
    fprintf(f, "%-9s jitter %.4f ms (RFC 3550), |D| mean %.4f ms, p99 %.4f ms\n", label,
            t->jitter_ms, t->jitter_mean_abs_ms, t->jitter_p99_abs_ms);
    if (t->sender_stalls)
        fprintf(f,
                "%-9s the sender fell behind its schedule %llu time%s (preempted, or the "
                "hypervisor took its CPU) and gave up %.1f ms of it rather than burst, so it "
                "sent less than -b asked\n",
                label, (unsigned long long)t->sender_stalls, t->sender_stalls == 1 ? "" : "s",
                t->sender_stalled_s * 1e3);
}

static void print_transactions(FILE *f, const struct run_result *r)
{
    struct transaction_totals t;
    run_result_transactions(r, &t);
    bool crr = r->params.kind == TEST_TCP_CRR;
    fprintf(f, "%s %llu in %.2f s: %.0f %s/s", crr ? "connections" : "transactions",
            (unsigned long long)t.transactions, t.seconds,
            t.seconds > 0 ? (double)t.transactions / t.seconds : 0.0,
            crr ? "connections" : "transactions");
    if (r->params.kind == TEST_UDP_RR)
        fprintf(f, ", %llu lost (timed out)", (unsigned long long)t.lost);
    if (crr)
        fprintf(f, ", client ports %s%s", r->cport_lo ? "from --cport-range" : "ephemeral",
                r->params.linger0 ? ", closed with RST (--linger0)" : "");
    fputc('\n', f);
    if (t.errors.connect || t.errors.read || t.errors.write || t.errors.timeout)
        fprintf(f, "errors: connect %llu, read %llu, write %llu, timeout %llu\n",
                (unsigned long long)t.errors.connect, (unsigned long long)t.errors.read,
                (unsigned long long)t.errors.write, (unsigned long long)t.errors.timeout);
    if (r->have_latency) {
        const struct latency_summary *l = &r->latency;
        fprintf(f,
                "latency us: p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  p99.99 %.1f  max %.1f  "
                "mean %.1f\n",
                l->p50, l->p90, l->p99, l->p999, l->p9999, l->max, l->mean);
    }
}

static void print_cpu(FILE *f, const char *label, const struct side_report *s, uint64_t bytes)
{
    if (!s->cpu_valid) {
        fprintf(f, "CPU %-7s unknown\n", label);
        return;
    }
    const struct cpu_usage *u = &s->cpu;
    fprintf(f,
            "CPU %-7s %5.1f%% of %d CPUs (user %.1f%%, system %.1f%%, softirq %.1f%%, irq %.1f%%); "
            "netab process %.0f%% of one CPU; %.3f us/KiB, process %.3f us/KiB\n",
            label, u->total_pct, u->online_cpus, u->user_pct, u->system_pct, u->softirq_pct,
            u->irq_pct, u->proc_pct, cpu_service_demand_us_per_kib(u, bytes),
            bytes ? u->proc_us / ((double)bytes / 1024.0) : 0.0);
}

/* An iperf3 peer reports its process's CPU only: said so, never shown as system-wide. */
static void print_peer_cpu(FILE *f, const json_t *peer)
{
    json_t *c = json_object_get(peer, "cpu_process");
    json_t *v = json_object_get(peer, "version");
    fprintf(f,
            "CPU remote  not reported by iperf3 system-wide; %s server process %.0f%% of one "
            "CPU (user %.0f%%, system %.0f%%)\n",
            json_is_string(v) ? json_string_value(v) : "iperf3",
            json_number_value(json_object_get(c, "total_pct")),
            json_number_value(json_object_get(c, "user_pct")),
            json_number_value(json_object_get(c, "system_pct")));
}

static void summary(FILE *f, const struct run_result *r)
{
    if (!r->have_local || !r->have_remote)
        return;
    fprintf(f, "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n");
    int n = params_connections(&r->params);
    /* Flows are summed up in their own lines (run_flows.h), not one line each. */
    if (n > 1 && !r->params.flows) {
        for (int id = 0; id < n; id++) {
            const struct side_report *sides[2] = {&r->local, &r->remote};
            for (int k = 0; k < 2; k++)
                for (int i = 0; i < sides[k]->n; i++) {
                    const struct side_stream *s = &sides[k]->streams[i];
                    if (s->id != id || s->sender)
                        continue;
                    char b[32], rate[32];
                    units_format_bytes((double)s->bytes, b, sizeof(b));
                    units_format_rate(bps(s->bytes, s->seconds), rate, sizeof(rate));
                    fprintf(f, "stream %-3d %s  received %12s %14s\n", id,
                            s->server_sends ? "server->client" : "client->server", b, rate);
                }
        }
    }
    struct direction_totals all;
    if (params_is_rr(r->params.kind)) {
        print_transactions(f, r);
        struct transaction_totals t;
        run_result_transactions(r, &t);
        const struct side_report *sides[2] = {&r->local, &r->remote};
        for (int k = 0; k < 2; k++) {
            const struct cpu_usage *u = &sides[k]->cpu;
            if (sides[k]->cpu_valid)
                fprintf(f,
                        "CPU %-7s %5.1f%% of %d CPUs (softirq %.1f%%); %.2f us/transaction, "
                        "process %.2f us/transaction\n",
                        k ? "remote" : "local", u->total_pct, u->online_cpus, u->softirq_pct,
                        cpu_service_demand_us_per_tran(u, t.transactions),
                        t.transactions ? u->proc_us / (double)t.transactions : 0.0);
        }
        run_text_counters(f, r);
        return;
    }
    if (r->params.bidir) {
        struct direction_totals d;
        run_result_totals(r, 0, &d);
        print_direction(f, "upload", &d, !params_is_udp(r->params.kind));
        if (r->params.kind == TEST_UDP_STREAM)
            print_udp(f, "upload", &d);
        run_result_totals(r, 1, &d);
        print_direction(f, "download", &d, !params_is_udp(r->params.kind));
        if (r->params.kind == TEST_UDP_STREAM)
            print_udp(f, "download", &d);
    } else {
        run_result_totals(r, -1, &all);
        print_direction(f, "total", &all, !params_is_udp(r->params.kind));
        if (r->params.kind == TEST_UDP_STREAM)
            print_udp(f, "total", &all);
    }
    run_result_totals(r, -1, &all);
    run_text_pinned(f, r, all.receiver_bytes);
    print_cpu(f, "local", &r->local, all.receiver_bytes);
    if (r->peer)
        print_peer_cpu(f, r->peer);
    else
        print_cpu(f, "remote", &r->remote, all.receiver_bytes);
    run_text_counters(f, r);
}

void run_text_summary(FILE *f, const struct run_result *r)
{
    /*
     * The summary quotes the peer (an iperf3 server's version, the remote
     * side's reasons): rendered into memory, then written with control
     * bytes as \xNN (util/printable), so a hostile server cannot write
     * escape sequences to the terminal. Without memory, nothing is shown.
     */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return;
    if (r->rrul_test)
        run_rrul_text(m, r); /* issue 31: its own tables, not the probes' run's summary */
    else
        summary(m, r);
    run_path_text(m, r); /* send path (issue 32) */
    run_flows_text(m, r);
    run_text_path_rx(m, r); /* receive and socket paths (issue 32) */
    if (!fclose(m))
        (void)printable_write(f, buf, len, true);
    free(buf);
}
