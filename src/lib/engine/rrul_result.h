/*
 * What the latency-under-load test (rrul, issue 31; docs/rrul.md) adds to a
 * run's result: typed figures per phase and per interval, which rrul/
 * computes and runout/ writes as `end.rrul` and each interval's `rrul`.
 * A figure that cannot exist (no probe answered in a phase) is NAN here and
 * null in JSON.
 */
#ifndef NETAB_ENGINE_RRUL_RESULT_H
#define NETAB_ENGINE_RRUL_RESULT_H

#include <stdbool.h>
#include <stdint.h>

#define RRUL_PHASES 3 /* idle, loaded, recovery (engine/probe_log.h's order) */

struct rrul_phase {
    uint64_t sent, received, lost, duplicates, reordered;
    double loss_percent;
    double p50_us, p90_us, p99_us, p999_us, max_us, min_us, mean_us;
    double tcp_tps, tcp_p50_us, tcp_p99_us; /* the TCP request/response probe */
    double up_bps, down_bps;                /* the load: 0 outside the loaded phase */
    double load_srtt_us;                    /* the load flows' mean smoothed RTT; loaded only */
};

/* One-way delays of a phase's probes, µs: up (client to server) and down. */
struct rrul_one_way {
    double up_p50_us, up_p99_us, down_p50_us, down_p99_us;
};

struct rrul_end {
    double probe_rate;
    int load_flows;
    const char *load;                            /* "up", "down", "both" (a literal) */
    double start[RRUL_PHASES], end[RRUL_PHASES]; /* seconds since the first probe */
    struct rrul_phase phase[RRUL_PHASES];
    double inc_p50_us, inc_p50_ratio, inc_p99_us, inc_p99_ratio; /* loaded over idle */
    double rpm, rpm_lo, rpm_hi;
    bool one_way;              /* the clocks agree well enough: ow[] holds the delays */
    char one_way_reason[192];  /* why there are (not): measure/clocksync.h */
    const char *one_way_clock; /* the stamps' clock ("CLOCK_MONOTONIC" ...), NULL: none asked */
    double one_way_error_us;   /* the clocks' summed maxerror (CLOCK_REALTIME), else NAN */
    struct rrul_one_way ow[RRUL_PHASES];
};

struct rrul_interval {
    int phase; /* of the interval's middle */
    double p50_us, p99_us;
    uint64_t lost;
    double up_bps, down_bps;
};

/* "idle", "loaded", "recovery". */
const char *rrul_phase_name(int phase);

#endif
