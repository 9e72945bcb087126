/*
 * Control messages: constructors and checks. The conversation is
 *   client: hello            server: welcome | error
 *   client: start {params}   server: accept {cookie} | error
 *   (client opens the data connections)
 *                            server: ready | error
 *   (both, if agreed in start/accept: heartbeat, every liveness/10)
 *   client: stop             server: result {side report} | error
 * and is described in docs/protocol.md.
 */
#ifndef NETAB_PROTO_MSG_H
#define NETAB_PROTO_MSG_H

#include <jansson.h>
#include <stddef.h>

#include "util/err.h"

#define PROTO_MAGIC "netab"
#define PROTO_VERSION 1

/* New references; the caller owns them. */
json_t *msg_hello(void);
json_t *msg_welcome(void);
json_t *msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
json_t *msg_simple(const char *type);

/*
 * Checks a hello: magic and version. On a mismatch returns -EPROTO with a
 * message suitable for sending back to the peer.
 */
NB_MUST_CHECK int msg_check_hello(const json_t *msg, char *err, size_t errlen);

/* Checks a welcome (same rules). */
NB_MUST_CHECK int msg_check_welcome(const json_t *msg, char *err, size_t errlen);

/*
 * Checks that msg has the expected type. An "error" message from the peer
 * becomes -ECONNABORTED with "server: <its message>" in err; any other type
 * is -EPROTO.
 */
NB_MUST_CHECK int msg_expect(const json_t *msg, const char *type, const char *peer, char *err,
                             size_t errlen);

/* The "type" string of a framed message (frames always have one). */
const char *msg_type(const json_t *msg);

#endif
