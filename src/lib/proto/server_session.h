/*
 * One test's control session on the server, shared by its two halves:
 * server_session.c (greeting, parameters, the measured run, the result)
 * and server_gather.c (the data connections of the test).
 */
#ifndef NETAB_PROTO_SERVER_SESSION_H
#define NETAB_PROTO_SERVER_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine/params.h"
#include "proto/auth.h"
#include "proto/registry.h"
#include "proto/server_internal.h"
#include "util/err.h"

struct session {
    struct server *server;
    int fd;
    char peer[80];
    struct sockaddr_storage addr; /* the peer, for the log's rate limits */
    const char *phase;            /* a refusal's kind in the log (server_log_peer) */
    uint64_t idle_ns;
    bool heartbeats;          /* the client asked for them in "start" (docs/protocol.md) */
    size_t result_max;        /* the largest "result" the client accepts ("start") */
    uint64_t reserved;        /* bytes of the server's --max-memory this test holds */
    struct auth_session auth; /* --auth-key: the exchange in greet(), the cookie it derives */
    char err[NB_ERRLEN];
};

/*
 * Sets up the data connections of test p once its parameters are accepted:
 * the cookie, the "accept" message (with the UDP ports or the tcp_crr
 * port), then waits, bounded by the idle timeout, until every connection
 * arrived (TCP: registered by the front door; UDP: each socket's first
 * datagram, peers[i] and peer_lens[i] set; tcp_crr: a listener of its own).
 * Returns 0 or a negative errno with ss->err set.
 */
NB_MUST_CHECK int session_gather(struct session *ss, const struct test_params *p,
                                 struct pending_test *t, struct sockaddr_storage *peers,
                                 socklen_t *peer_lens);

#endif
