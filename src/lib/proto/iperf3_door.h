/*
 * iperf3 at netab's front door (docs/iperf3.md): a connection whose first
 * bytes are an iperf3 cookie is either a data connection of a running
 * iperf3 test, handed to it, or the control connection of a new one, which
 * gets a session thread (iperf3_server.c). server.c calls
 * iperf3_door_take() from its event loop; nothing else of the loop changes.
 */
#ifndef NETAB_PROTO_IPERF3_DOOR_H
#define NETAB_PROTO_IPERF3_DOOR_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/iperf3_wire.h"
#include "util/err.h"

struct server;

/*
 * Takes a loop-owned connection whose whole 37-byte cookie has arrived:
 * reads it, then attaches the connection to the waiting test with that
 * cookie, or starts a session thread for it. A malformed cookie is logged
 * and the connection closed.
 */
void iperf3_door_take(struct server *s, int fd);

/* An iperf3 test waiting for its TCP data connections, keyed by its cookie. */
struct iperf3_pending {
    uint8_t cookie[IPERF3_COOKIE_LEN];
    int expected, attached;
    int *fds; /* expected entries, in the order the connections arrived */
    struct iperf3_pending *next;
};

/* Adds t (fds allocated by the caller) to the table of waiting tests. */
void iperf3_door_register(struct iperf3_pending *t);

/* Removes t; the connections already attached stay in t->fds for the caller. */
void iperf3_door_unregister(struct iperf3_pending *t);

/* Waits until every connection of t arrived or deadline_ns. Returns 0 or -ETIMEDOUT. */
NB_MUST_CHECK int iperf3_door_wait(struct iperf3_pending *t, uint64_t deadline_ns);

/* The session of one iperf3 control connection (iperf3_server.c); owns and closes fd. */
void iperf3_server_session(struct server *s, int fd, const uint8_t cookie[IPERF3_COOKIE_LEN]);

#endif
