/* The client side of a test: talks to a netab server and runs the local streams. */
#ifndef NETAB_PROTO_CLIENT_H
#define NETAB_PROTO_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/params.h"
#include "engine/run_result.h"

struct auth_key;
struct probe_log;

struct client_config {
    const char *host;
    uint16_t port;
    int family;            /* AF_UNSPEC, AF_INET, AF_INET6 */
    const char *bind_addr; /* -B, may be NULL */
    uint16_t cport;        /* --cport: data connection i binds cport + i; 0 = kernel's choice */
    int cpu;               /* -A: CPU for the client's stream threads, -1 = none */
    uint16_t cport_lo, cport_hi; /* tcp_crr --cport-range, 0 = kernel's choice */
    bool iperf3; /* --iperf3: the server is an iperf3 server (proto/iperf3_client.h) */
    int connect_timeout_ms;
    int idle_timeout_ms; /* longest wait for the server's next message */
    /* Collect no per-CPU, kernel or perf counters (NETAB_NO_COUNTERS; the cost benchmark). */
    bool no_counters;
    /* The in-process server of a zero set-up run: its profile is this end's (counters.h). */
    bool in_process;
    /* --auth-key: prove it to the server and require its proof; NULL = none (auth.h). */
    const struct auth_key *auth_key;
    /* Called from the client's thread at each interval; may be NULL. */
    void (*on_interval)(const struct interval_report *iv, void *ctx);
    void *ctx;
    /*
     * The latency-under-load test (engine/probe_log.h): probe goes to the
     * run's first stream (the open-loop UDP prober, the TCP probe); mark
     * receives this run's window opening and close (the load's). NULL: none.
     */
    struct probe_log *probe, *mark;
    /*
     * Several clients run as one test (rrul): an event fd that turns
     * readable, for good, when another of them failed; this run then stops
     * at once with an error instead of running its full length. NULL: none.
     */
    const int *cancel_fd;
};

void client_config_defaults(struct client_config *cfg);

/*
 * Runs one test. res receives everything measured; on failure res->error
 * holds the reason (the server's own words where it sent an error) and the
 * return value is a negative errno. res must be initialised with
 * run_result_init(); the caller frees it with run_result_free().
 */
int client_run(const struct client_config *cfg, const struct test_params *p,
               struct run_result *res);

#endif
