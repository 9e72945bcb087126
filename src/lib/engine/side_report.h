/*
 * What one end of a test measured: its streams' byte counts and TCP_INFO,
 * its CPU utilisation and its host. The server sends its side_report to the
 * client in the "result" message; the client merges both into a run_result.
 */
#ifndef NETAB_ENGINE_SIDE_REPORT_H
#define NETAB_ENGINE_SIDE_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/stream_set.h"
#include "measure/cpu.h"
#include "measure/hostinfo.h"
#include "measure/identity.h"
#include "measure/percpu.h"
#include "measure/tcpinfo.h"
#include "measure/udp_rx.h"
#include "util/err.h"

struct side_stream {
    int id;
    bool server_sends;
    bool sender;          /* this end sent on the connection */
    uint64_t bytes;       /* counted after the omit period */
    uint64_t total_bytes; /* including the omit period */
    double seconds;       /* from the end of the omit period to the stream's end */
    struct tcpinfo_stats tcpinfo;
    /* UDP and request/response figures; zero where they do not apply. */
    /* datagrams sent or unique datagrams received (whole test), or transactions (after omit) */
    uint64_t packets;
    uint64_t lost;           /* udp_rr: requests that timed out (after omit) */
    uint64_t malformed;      /* datagrams without netab's header */
    uint64_t foreign;        /* datagrams or connections from an address not in the test */
    uint64_t stalls;         /* UDP sender: pacing schedule restarts */
    uint64_t stalled_us;     /* UDP sender: schedule time given up at those restarts */
    struct udp_rx_totals rx; /* UDP receiver */
    struct stream_errors errors;
    /* SO_SNDBUF/SO_RCVBUF as the kernel granted them (getsockopt), 0 when unknown. */
    int sndbuf, rcvbuf;
};

struct side_report {
    struct side_stream *streams; /* owned; free with side_report_free() */
    int n;
    bool cpu_valid;
    struct cpu_usage cpu;
    struct hostinfo host;
    int pinned_cpu;               /* the CPU this end's streams ran on (-A), -1 = not pinned */
    struct percpu_usage *per_cpu; /* owned; each CPU's use over the window; NULL = unknown */
    int nper_cpu;
    json_t *kernel;  /* owned; kernel counter deltas (counters.h), NULL = none */
    json_t *perf;    /* owned; perf counters (counters.h), NULL = none */
    json_t *profile; /* owned; the sampled profile (measure/profile.h), NULL = none asked */
    /* send path (issue 32): owned; what this end's senders' path did (path_tx.h), NULL = none */
    json_t *path;
    /* receive and socket paths (issue 32): owned; what they became here (path_rx.h), or NULL. */
    json_t *rx_path;
    /* The end's build identity (measure/identity.h); filled by whoever knows its socket. */
    bool have_identity;
    struct identity identity;
    /*
     * --flows: the streams are flows (engine/flows.h), and travel in the
     * compact form of side_flows.c. flow_p99_us: an rr client's p99 latency
     * of each flow in microseconds (owned, n of them; this end's only, never
     * sent), or NULL.
     */
    bool flows;
    double *flow_p99_us;
};

/*
 * Fills r from a finished stream set. measure_ns is when counting started
 * (after omit); omit[i] (NULL: all zero) is stream i's counters at that
 * moment, taken off its bytes and, for rr/crr streams, off its
 * transactions and lost requests. UDP datagram counts stay whole-test (see
 * window.h). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int side_report_collect(struct side_report *r, const struct stream_set *set,
                                      uint64_t measure_ns, const struct stream_counts *omit);

json_t *side_report_to_json(const struct side_report *r);

/*
 * Decodes a side report received from the network, checking every field.
 * expected_streams is how many connections the test has. Returns 0 or
 * -EPROTO with a message.
 */
NB_MUST_CHECK int side_report_from_json(const json_t *obj, int expected_streams,
                                        struct side_report *r, char *err, size_t errlen);

void side_report_free(struct side_report *r);

/* JSON for a cpu_usage and for host facts, shared with the report code. */
json_t *side_report_cpu_to_json(const struct cpu_usage *u);

/* The side's CPU figures with its per_cpu array (null when not measured). New reference. */
json_t *side_report_cpu_json(const struct side_report *r);

/*
 * CPU microseconds the pinned CPU was busy over the window, into *us.
 * Returns false when the side was not pinned or per-CPU figures are missing.
 */
bool side_report_pinned_busy_us(const struct side_report *r, double *us);

/* The pinned CPU's per-CPU figures, or NULL. */
const struct percpu_usage *side_report_pinned_usage(const struct side_report *r);

/* A kernel counter delta ("Udp", "RcvbufErrors") into *v; false when absent (0 change). */
bool side_report_kernel_get(const struct side_report *r, const char *group, const char *name,
                            long long *v);

/*
 * The UDP receive drops in r's kernel counters, IPv4 and IPv6 added:
 * *rcvbuf the Udp(6).RcvbufErrors deltas, *inerr the Udp(6).InErrors ones
 * (which include the former). Counters that did not change count as 0.
 */
void side_report_udp_drops(const struct side_report *r, long long *rcvbuf, long long *inerr);

/* A perf figure ("instructions") into *v; false when null or absent. */
bool side_report_perf_get(const struct side_report *r, const char *name, double *v);
json_t *side_report_host_to_json(const struct hostinfo *h);

/* The side's build identity as JSON (docs/json.md), or JSON null when it has none. New reference.
 */
json_t *side_report_identity_json(const struct side_report *r);

#endif
