/*
 * The latency-under-load test (`netab run --test rrul`, issue 31;
 * docs/rrul.md): open-loop UDP probes and a TCP request/response probe
 * through idle, loaded and recovery phases, with bulk TCP load flows during
 * the loaded one. Each part is an ordinary test of the client API
 * (proto/client.h) in a session of its own with one server (the in-process
 * one, or `netab server`), so the server's limits count each of them and a
 * vanished client frees them.
 */
#ifndef NETAB_RRUL_RRUL_H
#define NETAB_RRUL_RRUL_H

#include "engine/params.h"
#include "engine/run_result.h"
#include "proto/client.h"

enum rrul_load { RRUL_LOAD_UP = 1, RRUL_LOAD_DOWN = 2, RRUL_LOAD_BOTH = 3 };

#define RRUL_DEFAULT_FLOWS 4
#define RRUL_DEFAULT_RATE 100.0
#define RRUL_MAX_RATE 10000.0 /* probes per second: above it the prober is the load */
#define RRUL_IDLE_S 2.0
#define RRUL_RECOVERY_S 2.0
/* Probes one run keeps (32 bytes each): rate x (idle + -t + recovery) at most. */
#define RRUL_MAX_PROBES 4000000
/* A probe still unanswered this long after the probes' stop is lost. */
#define RRUL_PROBE_TIMEOUT_MS 1000

struct rrul_opts {
    int load_flows;      /* --load-flows: flows each way */
    enum rrul_load load; /* --load */
    double probe_rate;   /* --probe-rate: probes per second */
    double idle_s, recovery_s;
};

void rrul_opts_defaults(struct rrul_opts *o);

/* --load's word into *load; -EINVAL for another. */
NB_MUST_CHECK int rrul_load_from_name(const char *name, enum rrul_load *load);
const char *rrul_load_name(enum rrul_load load);

/*
 * Runs the test against host's netab server (cfg->host, cfg->port), or an
 * in-process server on loopback when host is NULL. load holds the load
 * flows' parameters (tcp_stream; -t is the loaded phase, -C their
 * congestion control, -i the intervals). res (run_result_init()ed) receives
 * the probes' run with its intervals, and have_rrul with the figures.
 * Returns 0 or a negative errno with res->error naming the part that failed.
 */
NB_MUST_CHECK int rrul_run(const struct client_config *cfg, const char *host,
                           const struct test_params *load, const struct rrul_opts *o,
                           struct run_result *res);

#endif
