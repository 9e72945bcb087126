/*
 * What the latency-under-load test (rrul, issue 31; docs/rrul.md) needs from
 * the streams of its sub-runs, kept outside the protocol: the run that owns
 * it hands it to client_run() (proto/client.h), which attaches it to the
 * run's first stream.
 *
 * - An open-loop UDP prober (a udp_rr client stream with a log) sends probe
 *   k at start + k / rate whatever the answers do, and records per probe its
 *   send time and its round trip or that none came (stream_probe.c).
 * - A tcp_rr client stream with a log records each transaction also into the
 *   histogram of the phase it ended in (idle, loaded, recovery), the phase
 *   read from the marks the load's run sets as its window opens and closes.
 */
#ifndef NETAB_ENGINE_PROBE_LOG_H
#define NETAB_ENGINE_PROBE_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "measure/clocksync.h"
#include "util/err.h"

struct histogram;

enum probe_phase { PROBE_IDLE, PROBE_LOADED, PROBE_RECOVERY, PROBE_PHASES };

/* One probe: rtt_ns 0 and answers 0 while unanswered (lost at the end). */
struct probe_rec {
    uint64_t sent_ns;
    uint64_t rtt_ns;  /* the first answer's */
    uint64_t srv_ns;  /* the server's receive time on this end's CLOCK_MONOTONIC, 0 = none */
    uint32_t answers; /* more than 1: duplicates */
    bool reordered;   /* answered after a later probe's answer */
};

struct probe_log {
    /* The UDP prober: the schedule and one record per probe sent (the prober's thread writes). */
    double rate;  /* probes per second */
    uint64_t cap; /* records allocated: no probe beyond it is sent */
    struct probe_rec *rec;
    _Atomic uint64_t sent;
    uint64_t start_ns; /* probe k's schedule is start_ns + k / rate */
    /*
     * The stamps' clock (measure/clocksync.h): the UDP prober's client sets
     * it from the server's "accept" before the prober starts; why is the
     * reason to show, peer the server's clock (have_peer: it sent one).
     */
    enum stamp_clock stamp;
    struct clock_info local, peer;
    bool have_peer;
    char why[192];
    /* The TCP request/response probe: transactions per phase (its thread writes). */
    struct histogram *hist[PROBE_PHASES];
    /*
     * The load's window: opened (the earliest opening) and closed (the latest
     * close, once all `loads` runs closed) by the load runs' clients.
     */
    int loads;
    _Atomic uint64_t load_open_ns, load_close_ns;
    _Atomic int closed;
};

/*
 * A log for seconds of probes at rate per second (with a margin), with or
 * without the TCP phase histograms. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int probe_log_init(struct probe_log *log, double rate, double seconds, bool tcp,
                                 int loads);
void probe_log_free(struct probe_log *log);

/* The phase of a moment, from the load's marks. */
enum probe_phase probe_log_phase(struct probe_log *log, uint64_t now_ns);

/* A load run's window opened (closed) at now_ns (its client's control thread). */
void probe_log_mark_open(struct probe_log *log, uint64_t now_ns);
void probe_log_mark_close(struct probe_log *log, uint64_t now_ns);

#endif
