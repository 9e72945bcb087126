/*
 * netab server: accepts control and data connections on one port and runs
 * each test in its own session thread, so that no peer, however slow or
 * hostile, holds up another. Limits are enforced here, not trusted to the
 * client.
 */
#ifndef NETAB_PROTO_SERVER_H
#define NETAB_PROTO_SERVER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

#define SERVER_DEFAULT_PORT 5301

struct auth_key;

struct server_config {
    const char *bind_addr;    /* NULL = any address */
    uint16_t port;            /* 0 = ephemeral */
    bool iperf3_port_on;      /* --iperf3-port: also listen on iperf3_port (docs/iperf3.md) */
    uint16_t iperf3_port;     /* 5201 by default; 0 = ephemeral */
    int family;               /* AF_UNSPEC, AF_INET or AF_INET6 */
    int max_clients;          /* concurrent tests; beyond that "busy" */
    double max_duration;      /* seconds a test may last, warm-up included */
    int max_streams;          /* data connections per test */
    int max_flows;            /* --flows tests: connections per test (engine/flows.h) */
    int idle_timeout_ms;      /* longest silence tolerated from a peer, per phase */
    int liveness_timeout_ms;  /* a running test's client silent this long is gone */
    int max_conn_per_addr;    /* unproven connections from one host; more shed the oldest */
    int max_pending;          /* unproven connections in all; more shed the oldest */
    int log_burst;            /* lines one host may cause per 10 s before summaries (loglimit.h) */
    uint64_t max_test_memory; /* bytes of stream buffers one test may cost */
    uint64_t max_memory;      /* bytes of stream buffers all running tests may cost */
    bool one_off;             /* exit after one test */
    bool no_counters;         /* collect no per-CPU, kernel or perf counters */
    bool in_process; /* the loopback server of a zero set-up run: shares the client's host */
    FILE *log;       /* one line per test and per rejected peer; NULL = silent */

    /* --auth-key: clients must prove they hold it (auth.h); NULL = anyone may test. */
    const struct auth_key *auth_key;
};

void server_config_defaults(struct server_config *cfg);

struct server;

/* Binds the listening socket. Returns 0 with *out set, or -errno with a message. */
NB_MUST_CHECK int server_open(struct server **out, const struct server_config *cfg, char *err,
                              size_t errlen);

/* The port actually bound (useful with port 0). */
uint16_t server_port(const struct server *s);

/* The --iperf3-port actually bound, 0 when there is none. */
uint16_t server_iperf3_port(const struct server *s);

/*
 * The line a server writes when it starts listening, without a newline:
 * "netab server VERSION listening on port P[ and iperf3 port Q][ (clients
 * must prove the --auth-key)]".
 */
void server_listening_text(const struct server *s, const struct server_config *cfg, char *buf,
                           size_t len);

/*
 * Serves until server_stop() is called or, with one_off, one test has
 * ended; then waits for running sessions to finish. Returns 0, or the
 * negative errno of a failed one-off test.
 */
int server_run(struct server *s);

/* Asks server_run() to return; safe from a signal handler. */
void server_stop(struct server *s);

/* Closes the socket and frees s (after server_run returned). */
void server_free(struct server *s);

#endif
