/*
 * Control-connection framing: every message is a 4-byte big-endian length
 * followed by that many bytes of one JSON object with a string "type".
 * Lengths of 0 or above FRAME_MAX are refused before anything is allocated.
 * See docs/protocol.md.
 */
#ifndef NETAB_PROTO_FRAME_H
#define NETAB_PROTO_FRAME_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define FRAME_MAX (64 * 1024)
#define FRAME_HEADER 4
/*
 * A server's "result" may be larger than FRAME_MAX when the client says in
 * "start" that it accepts up to this much ("result_max", docs/protocol.md):
 * 128 UDP streams' counters alone pass 64 KiB. Only a client, after the
 * handshake, ever reads a frame this large.
 */
#define FRAME_RESULT_MAX (1024 * 1024)

/*
 * Checks a received length prefix. Returns 0 or -EMSGSIZE (with a message
 * that hints at a peer that does not speak netab).
 */
NB_MUST_CHECK int frame_check_length(uint32_t len, char *err, size_t errlen);
/* The same against a limit of max bytes (FRAME_MAX .. FRAME_RESULT_MAX). */
NB_MUST_CHECK int frame_check_length_max(uint32_t len, uint32_t max, char *err, size_t errlen);

/*
 * Parses one frame body (len bytes of JSON). On success *out holds a new
 * reference to an object with a string "type" (caller owns it). Returns 0 or
 * -EPROTO with a message.
 */
NB_MUST_CHECK int frame_parse_body(const char *body, size_t len, json_t **out, char *err,
                                   size_t errlen);

/*
 * Decodes one whole frame from a buffer: *consumed receives the frame's size.
 * Returns 0, -EAGAIN when the buffer holds less than a whole frame, or the
 * errors of frame_check_length and frame_parse_body.
 */
NB_MUST_CHECK int frame_decode(const uint8_t *buf, size_t len, json_t **out, size_t *consumed,
                               char *err, size_t errlen);

/*
 * Encodes msg into a freshly malloc'd buffer (caller frees *out). Returns 0,
 * -EMSGSIZE when the message is larger than FRAME_MAX, or -ENOMEM.
 */
NB_MUST_CHECK int frame_encode(const json_t *msg, uint8_t **out, size_t *outlen);
/* The same with a limit of max bytes instead of FRAME_MAX. */
NB_MUST_CHECK int frame_encode_max(const json_t *msg, size_t max, uint8_t **out, size_t *outlen);

/* Sends msg on fd before deadline_ns. Returns 0 or -errno with a message. */
NB_MUST_CHECK int frame_send(int fd, const json_t *msg, uint64_t deadline_ns, char *err,
                             size_t errlen);
/* frame_send() with a limit of max bytes instead of FRAME_MAX. */
NB_MUST_CHECK int frame_send_max(int fd, const json_t *msg, size_t max, uint64_t deadline_ns,
                                 char *err, size_t errlen);

/*
 * Receives one message from fd before deadline_ns. Returns 0 with *out set,
 * -ETIMEDOUT, -ECONNRESET (peer closed), -EMSGSIZE, -EPROTO, with a message.
 */
NB_MUST_CHECK int frame_recv(int fd, json_t **out, uint64_t deadline_ns, char *err, size_t errlen);
/* frame_recv() accepting frames of up to max bytes (FRAME_MAX .. FRAME_RESULT_MAX). */
NB_MUST_CHECK int frame_recv_max(int fd, json_t **out, uint32_t max, uint64_t deadline_ns,
                                 char *err, size_t errlen);

/* Like frame_recv when the 4-byte length prefix has already been read. */
NB_MUST_CHECK int frame_recv_body(int fd, const uint8_t prefix[FRAME_HEADER], json_t **out,
                                  uint64_t deadline_ns, char *err, size_t errlen);

#endif
