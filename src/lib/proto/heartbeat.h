/*
 * Liveness on the control connection while a test runs: each end sends a
 * {"type":"heartbeat"} every tenth of the liveness timeout and declares the
 * other end gone after eight tenths of it without any message, so a peer
 * that vanished (crash, cable, blackhole) is noticed, and its test stopped,
 * within the liveness timeout of its last sign of life. Both ends must
 * agree to it (docs/protocol.md, "Heartbeats"); with an older peer the
 * state is off and every call is a no-op.
 */
#ifndef NETAB_PROTO_HEARTBEAT_H
#define NETAB_PROTO_HEARTBEAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"

/* The server's default --liveness-timeout, in ms. */
#define HEARTBEAT_DEFAULT_LIVENESS_MS 5000

struct heartbeat {
    bool on;
    int liveness_ms;
    uint64_t every_ns, gone_ns;
    uint64_t last_rx_ns, next_tx_ns;
};

/* Starts the clock at now_ns; liveness_ms <= 0 leaves heartbeats off. */
void heartbeat_init(struct heartbeat *h, int liveness_ms, uint64_t now_ns);

/* Records that a message (any) arrived from the peer. */
void heartbeat_seen(struct heartbeat *h, uint64_t now_ns);

/*
 * Sends a heartbeat on fd when one is due and checks the peer's silence.
 * Returns 0, -ETIMEDOUT (the peer is gone, with a sentence naming peer and
 * timeout in err) or the error of a failed send.
 */
NB_MUST_CHECK int heartbeat_tick(struct heartbeat *h, int fd, const char *peer, uint64_t now_ns,
                                 char *err, size_t errlen);

/*
 * When heartbeat_tick() next has something to do: the next heartbeat to
 * send or the moment the peer's silence becomes too long, whichever is
 * first (UINT64_MAX when off). A loop sleeps until then.
 */
uint64_t heartbeat_next_ns(const struct heartbeat *h);

/* True for a heartbeat message. */
bool heartbeat_is(const json_t *msg);

#endif
