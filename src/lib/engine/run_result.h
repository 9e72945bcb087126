/*
 * Everything a finished (or failed) test produced, as the client assembles
 * it from its own measurements and the server's report. The report code
 * reads only this structure.
 */
#ifndef NETAB_ENGINE_RUN_RESULT_H
#define NETAB_ENGINE_RUN_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/params.h"
#include "engine/rrul_result.h"
#include "engine/side_report.h"
#include "util/err.h"

struct histogram;

/* Latency percentiles in microseconds, from a log-linear histogram (<= 1% error). */
struct latency_summary {
    uint64_t count;
    double p50, p90, p99, p999, p9999, max, mean, min;
};

/* Fills s from h (nanoseconds). */
void run_result_latency_summary(struct latency_summary *s, const struct histogram *h);

/*
 * The congestion state of the client's TCP connections over one interval
 * (TCP_INFO read by the control thread at the interval's end; engine/
 * interval_tcp.h): gauges as they were then, counts over the interval.
 * One connection, or the sum over several (docs/json.md says which).
 */
struct interval_tcp {
    int id;                    /* the stream's id; -1 for a sum */
    bool sender;               /* the client sends on it (a sum: over sending connections) */
    uint32_t n;                /* connections read: 1, or how many the sum adds */
    uint64_t cwnd, cwnd_bytes; /* segments, and segments x MSS */
    double srtt_us, rttvar_us; /* a sum: the mean over its connections */
    double srtt_min_us, srtt_max_us;
    uint64_t retransmits, reord_seen; /* during the interval */
    uint64_t lost;                    /* segments held lost at the interval's end */
    uint64_t in_flight_bytes, notsent_bytes;
    uint64_t delivery_rate, pacing_rate; /* bytes per second */
    bool pacing_unlimited;               /* a connection without a pacing rate */
};

/* One interval report, as seen by the client: bytes it sent and received. */
struct interval_report {
    double start, end; /* seconds since the measurement started */
    uint64_t sent, received;
    uint64_t packets;  /* datagrams (UDP) or transactions (rr, crr) in the interval */
    bool transactions; /* packets are transactions (rr, crr), with or without latency */
    bool have_latency;
    struct latency_summary latency;
    /*
     * TCP tests: the congestion state summed over the client's connections,
     * and each connection's (n_tcp; NULL with --flows, where one interval
     * of thousands would be huge). tcp_streams passes to the result with
     * run_result_add_interval().
     */
    bool have_tcp;
    struct interval_tcp tcp;
    struct interval_tcp *tcp_streams;
    int n_tcp;
    /* The latency-under-load test: the interval's probes and load (engine/rrul_result.h). */
    bool have_rrul;
    struct rrul_interval rrul;
};

struct run_result {
    struct test_params params;
    char server[256]; /* host the client connected to */
    uint16_t port;
    bool in_process;             /* loopback test with netab's own in-process server */
    uint16_t cport_lo, cport_hi; /* tcp_crr --cport-range, reported with the result */
    char started[32];            /* ISO 8601 UTC */
    bool have_local, have_remote;
    struct side_report local, remote;
    bool have_latency; /* rr and crr: the client's transaction latencies */
    struct latency_summary latency;
    struct interval_report *intervals; /* owned */
    size_t nintervals, cap_intervals;
    char error[NB_ERRLEN]; /* empty when the test succeeded */
    /*
     * A peer that is not netab (an iperf3 server, docs/iperf3.md): its
     * protocol, version, own result document, process CPU and what it cannot
     * report, as the "peer" member of the JSON document. Owned; NULL for a
     * netab peer.
     */
    json_t *peer;
    /* --per-flow: each flow's figures in the JSON document (a display choice of the client). */
    bool per_flow;
    /*
     * The latency-under-load test (--test rrul): the run is one (set before
     * it runs, with rrul's probe rate and load), and its figures once done.
     */
    bool rrul_test, have_rrul;
    struct rrul_end rrul;
    /* Its load's parameters (the flows, -t, -C): the document's "test", with kind "rrul". */
    struct test_params rrul_load;
};

/* Per-direction totals derived from both sides (exact: the receiver's count is final). */
struct direction_totals {
    uint64_t sender_bytes, receiver_bytes;
    double sender_seconds, receiver_seconds;
    uint32_t retransmits;
    int streams;
    /* UDP: datagrams the senders sent and the receivers got (unique), and what went wrong. */
    uint64_t sender_packets, receiver_packets;
    /* Paced senders: schedule restarts after stalls, and the schedule time given up (summed). */
    uint64_t sender_stalls;
    double sender_stalled_s;
    uint64_t out_of_order, duplicates, malformed, foreign;
    double jitter_ms, jitter_mean_abs_ms, jitter_p99_abs_ms; /* averaged over streams */
    int receiver_streams;
};

/* Request/response and connection-rate totals, from the client's streams. */
struct transaction_totals {
    uint64_t transactions;
    uint64_t lost; /* udp_rr: timed out */
    double seconds;
    struct stream_errors errors;
    uint64_t server_foreign; /* tcp_crr: connections the server refused as foreign */
};

void run_result_init(struct run_result *r);
void run_result_free(struct run_result *r);

/* Appends an interval, taking its tcp_streams (freed on failure too). Returns 0 or -ENOMEM. */
int run_result_add_interval(struct run_result *r, const struct interval_report *iv);

/*
 * Sums the streams of one or both directions: which = 0 client-to-server,
 * 1 server-to-client, -1 both. The sender's bytes come from the side that
 * sent, the receiver's from the side that received.
 */
void run_result_totals(const struct run_result *r, int which, struct direction_totals *out);

/* UDP loss: what the senders sent that the receivers never got (never negative). */
uint64_t run_result_lost(const struct direction_totals *t);

/* Transactions (rr) or connections (crr) counted by the client. */
void run_result_transactions(const struct run_result *r, struct transaction_totals *out);

#endif
