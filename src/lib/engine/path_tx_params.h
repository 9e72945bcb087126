/*
 * Send path (issue 32): how a tcp_stream sender hands its data to the
 * kernel (-Z, --splice, --msg-zerocopy) and how it is paced (-b with TCP,
 * --fq-rate, --notsent-lowat). These are test parameters: the end that
 * sends applies them, so with -R or --bidir the server does too, and they
 * travel in the "start" message only when set (docs/protocol.md), so that a
 * plain test still runs against servers that predate them.
 *
 * engine/path_tx.h is the sending side itself; this header is what
 * test_params and the protocol need of it.
 */
#ifndef NETAB_ENGINE_PATH_TX_PARAMS_H
#define NETAB_ENGINE_PATH_TX_PARAMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

enum path_tx_mode {
    PATH_TX_COPY,         /* send() from the stream's buffer: the default */
    PATH_TX_SENDFILE,     /* -Z: sendfile() from a memfd holding the pattern (iperf3 -Z) */
    PATH_TX_SPLICE,       /* --splice: memfd -> pipe -> socket with splice() */
    PATH_TX_MSG_ZEROCOPY, /* --msg-zerocopy: send(MSG_ZEROCOPY), completions from the error queue */
};

/* The most bytes --notsent-lowat takes (the kernel's field is an int). */
#define PATH_TX_MAX_LOWAT (1024u * 1024 * 1024)
/* The highest -b (TCP) and --fq-rate: the UDP -b bound. */
#define PATH_TX_MAX_RATE (400ull * 1000 * 1000 * 1000)

struct path_tx_params {
    enum path_tx_mode mode;
    uint64_t pace_bps;      /* -b with tcp_stream: application pacing per stream, bits/s; 0 none */
    uint64_t fq_rate_bps;   /* --fq-rate: SO_MAX_PACING_RATE per stream, bits/s; 0 none */
    uint32_t notsent_lowat; /* --notsent-lowat: TCP_NOTSENT_LOWAT in bytes; 0 none */
};

/* True when any of the send path's options is set (the test is not a plain copy). */
bool path_tx_params_used(const struct path_tx_params *t);

/* The path's name as the JSON and the protocol spell it: "copy", "sendfile", ... */
const char *path_tx_mode_name(enum path_tx_mode mode);

/* The system call a mode sends with ("send", "sendfile", "splice"), for messages. */
const char *path_tx_mode_call(enum path_tx_mode mode);

/* The option that asks for a mode ("-Z"), for messages; "" for PATH_TX_COPY. */
const char *path_tx_mode_option(enum path_tx_mode mode);

/*
 * Ranges and combinations, for a test of kind (its name) with flows
 * (--flows F, 0 = none): tcp_stream only, and not --flows yet. Returns 0 or
 * -EINVAL with a sentence naming the option.
 */
NB_MUST_CHECK int path_tx_params_validate(const struct path_tx_params *t, const char *kind,
                                          bool tcp_stream, int flows, char *err, size_t errlen);

/* Adds the set options to a "params" object (only those set: see above). */
void path_tx_params_to_json(const struct path_tx_params *t, json_t *obj);

/* True when key is one of the members path_tx_params_to_json() may add. */
bool path_tx_params_key(const char *key);

/*
 * Reads those members (each optional) from a peer's "params". Returns 0 or
 * -EINVAL with a message; ranges are path_tx_params_validate()'s.
 */
NB_MUST_CHECK int path_tx_params_from_json(const json_t *obj, struct path_tx_params *t, char *err,
                                           size_t errlen);

#endif
