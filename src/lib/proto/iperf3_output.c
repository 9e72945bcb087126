#include "proto/iperf3_output.h"

#include <stdio.h>
#include <string.h>

#include "proto/iperf3_wire.h"
#include "proto/server_internal.h"

static double bps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes * 8.0 / seconds : 0.0;
}

static json_t *sum_json(uint64_t bytes, double seconds, bool sender)
{
    return json_pack("{s:f, s:f, s:f, s:I, s:f, s:b}", "start", 0.0, "end", seconds, "seconds",
                     seconds, "bytes", (json_int_t)bytes, "bits_per_second", bps(bytes, seconds),
                     "sender", sender);
}

json_t *iperf3_output_json(const struct side_report *r, const struct test_params *p,
                           const struct iperf3_results *ours, int n)
{
    bool udp = p->kind == TEST_UDP_STREAM;
    json_t *streams = json_array();
    uint64_t sent = 0, received = 0;
    double ssec = 0, rsec = 0;
    for (int i = 0; i < r->n && i < n; i++) {
        const struct side_stream *s = &r->streams[i];
        json_t *o = sum_json(s->bytes, s->seconds, s->sender);
        json_object_set_new(o, "id", json_integer(iperf3_stream_id(s->id)));
        if (s->sender && !udp)
            json_object_set_new(o, "retransmits", json_integer(s->tcpinfo.retransmits));
        if (!s->sender && udp) {
            json_object_set_new(o, "jitter_ms", json_real(s->rx.jitter_ms));
            json_object_set_new(o, "packets", json_integer((json_int_t)s->rx.packets));
            json_object_set_new(o, "out_of_order", json_integer((json_int_t)s->rx.out_of_order));
        }
        json_array_append_new(streams, json_pack("{s:o}", udp ? "udp" : "sender_receiver", o));
        if (s->sender) {
            sent += s->bytes;
            ssec = s->seconds > ssec ? s->seconds : ssec;
        } else {
            received += s->bytes;
            rsec = s->seconds > rsec ? s->seconds : rsec;
        }
    }
    json_t *start = json_pack("{s:s, s:s, s:{s:s, s:i, s:i, s:f, s:f, s:I, s:b, s:b}}", "version",
                              "netab " NETAB_VERSION, "system_info", r->host.kernel, "test_start",
                              "protocol", udp ? "UDP" : "TCP", "num_streams", p->streams, "blksize",
                              (int)p->block, "omit", p->omit_s, "duration", p->duration_s, "bytes",
                              (json_int_t)p->bytes, "reverse", p->reverse, "bidir", p->bidir);
    json_t *cpu = json_pack("{s:f, s:f, s:f}", "host_total", ours->cpu_total, "host_user",
                            ours->cpu_user, "host_system", ours->cpu_system);
    json_t *end =
        json_pack("{s:o, s:o, s:o, s:o, s:o}", "streams", streams, "sum_sent",
                  sum_json(sent, ssec, true), "sum_received", sum_json(received, rsec, false),
                  "cpu_utilization_percent", cpu, "netab", side_report_to_json(r));
    return json_pack("{s:o, s:o}", "start", start, "end", end);
}

/* The client's version for a log line: printable characters only, no spaces. */
static void clean(char *dst, size_t cap, const char *src)
{
    size_t o = 0;
    for (; src && *src && o + 1 < cap; src++)
        dst[o++] = (*src > ' ' && *src < 0x7f && *src != '"') ? *src : '_';
    dst[o] = '\0';
}

void iperf3_server_log(struct server *s, const struct sockaddr_storage *addr, const char *peer,
                       const struct test_params *p, const char *client_version,
                       const struct side_report *r, const struct iperf3_results *theirs,
                       const char *error)
{
    uint64_t sent = 0, received = 0, peer_sent = 0, peer_received = 0;
    double secs = 0;
    for (int i = 0; r && i < r->n; i++) {
        if (r->streams[i].sender)
            sent += r->streams[i].bytes;
        else
            received += r->streams[i].bytes;
        if (r->streams[i].seconds > secs)
            secs = r->streams[i].seconds;
    }
    int n = params_connections(p);
    for (int i = 0; theirs && i < theirs->n; i++) {
        int idx = iperf3_stream_index(theirs->streams[i].id, n);
        bool server_sends = p->reverse || (p->bidir && idx >= p->streams);
        if (server_sends)
            peer_received += theirs->streams[i].bytes;
        else
            peer_sent += theirs->streams[i].bytes;
    }
    char version[IPERF3_VERSION_LEN];
    clean(version, sizeof(version), client_version);
    char line[1024];
    snprintf(line, sizeof(line),
             "peer=%s protocol=iperf3 client=%s test=%s streams=%d reverse=%d bidir=%d "
             "sent=%llu received=%llu peer_sent=%llu peer_received=%llu seconds=%.3f result=%s",
             peer, version[0] ? version : "unknown", params_kind_name(p->kind), p->streams,
             p->reverse, p->bidir, (unsigned long long)sent, (unsigned long long)received,
             (unsigned long long)peer_sent, (unsigned long long)peer_received, secs,
             error ? error : "ok");
    if (error)
        server_log_peer(s, addr, "test failed", "%s", line);
    else
        server_log(s, "%s", line);
}
