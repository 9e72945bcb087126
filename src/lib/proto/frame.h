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
 * Checks a received length prefix. Returns 0 or -EMSGSIZE (with a message
 * that hints at a peer that does not speak netab).
 */
NB_MUST_CHECK int frame_check_length(uint32_t len, char *err, size_t errlen);

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

/* Sends msg on fd before deadline_ns. Returns 0 or -errno with a message. */
NB_MUST_CHECK int frame_send(int fd, const json_t *msg, uint64_t deadline_ns, char *err,
                             size_t errlen);

/*
 * Receives one message from fd before deadline_ns. Returns 0 with *out set,
 * -ETIMEDOUT, -ECONNRESET (peer closed), -EMSGSIZE, -EPROTO, with a message.
 */
NB_MUST_CHECK int frame_recv(int fd, json_t **out, uint64_t deadline_ns, char *err, size_t errlen);

/* Like frame_recv when the 4-byte length prefix has already been read. */
NB_MUST_CHECK int frame_recv_body(int fd, const uint8_t prefix[FRAME_HEADER], json_t **out,
                                  uint64_t deadline_ns, char *err, size_t errlen);

#endif
