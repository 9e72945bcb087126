/*
 * One test on the client, shared by its two halves: client_setup.c (the
 * greeting, "start" and "accept", the data connections) and client.c (the
 * measured run, the stop, the result).
 */
#ifndef NETAB_PROTO_CLIENT_INTERNAL_H
#define NETAB_PROTO_CLIENT_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/test_cookie.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/heartbeat.h"
#include "util/clock.h"

struct client {
    const struct client_config *cfg;
    const struct test_params *p;
    struct run_result *res;
    int ctl;
    uint64_t idle_ns;
    uint8_t cookie[TEST_COOKIE_LEN];
    uint16_t *udp_ports; /* from "accept", UDP tests */
    uint16_t crr_port;   /* from "accept", tcp_crr */
    uint16_t mptcp_port; /* receive and socket paths (issue 32): from "accept", --mptcp */
    int liveness_ms;     /* from "accept": the server takes heartbeats; 0 = an older server */
    struct heartbeat hb; /* while the test runs */
    /* --auth-key: the exchange, and the cookie it derives. */
    struct auth_session auth;
    bool cancelled; /* cfg->cancel_fd turned readable (the measured part's loop saw it) */
};

/* The end of the next wait on the control connection: the idle timeout from now. */
static inline uint64_t client_deadline(const struct client *c)
{
    return clock_now_ns() + c->idle_ns;
}

/*
 * rc of a control message sent or received while the client did `doing`:
 * a connection the server closed or reset (-ECONNRESET, -EPIPE) is
 * reported naming the server and the phase, not as a bare "peer closed the
 * control connection (0 of 4 bytes ...)". Returns rc.
 */
int client_control_lost(struct client *c, int rc, const char *doing);

/*
 * Receives a message of the given type into *out (NULL: dropped); an error
 * message becomes the result's error. Heartbeats still in flight from the
 * server are skipped. Returns 0 or a negative errno with c->res->error.
 */
int client_expect(struct client *c, const char *type, json_t **out);

/*
 * hello, welcome (and with --auth-key both proofs), "start" with the
 * parameters, "accept" with the cookie, ports and liveness timeout.
 * Returns 0 or a negative errno with c->res->error.
 */
int client_handshake(struct client *c);

/*
 * The n data connections of the test into fds (server_sends[i]: the server
 * sends on stream i): UDP sockets connected to the accepted ports, TCP
 * connections each with its header; nothing for tcp_crr (its streams
 * connect themselves). Returns 0 or a negative errno with c->res->error.
 */
int client_open_data(struct client *c, int *fds, bool *server_sends, int n);

#endif
