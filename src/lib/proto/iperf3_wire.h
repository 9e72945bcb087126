/*
 * iperf3's control protocol on the wire (docs/iperf3.md): the 37-byte
 * cookie, the one-byte states, and JSON documents framed by a 4-byte
 * big-endian length. Written from iperf3's documented behaviour and its
 * observed traffic; shared by netab's iperf3 client and server.
 */
#ifndef NETAB_PROTO_IPERF3_WIRE_H
#define NETAB_PROTO_IPERF3_WIRE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define IPERF3_DEFAULT_PORT 5201
#define IPERF3_COOKIE_LEN 37 /* 36 characters of [a-z2-7] and a NUL, all sent */
/* iperf3's own server refuses parameter documents above 8 KiB; so does netab's. */
#define IPERF3_PARAMS_MAX 8192
/* A results document may carry the peer's whole -J output (--get-server-output). */
#define IPERF3_RESULTS_MAX (8u * 1024 * 1024)

/* The states the server announces (one signed byte each). */
enum iperf3_state {
    IPERF3_TEST_START = 1,
    IPERF3_TEST_RUNNING = 2,
    IPERF3_TEST_END = 4,
    IPERF3_PARAM_EXCHANGE = 9,
    IPERF3_CREATE_STREAMS = 10,
    IPERF3_SERVER_TERMINATE = 11,
    IPERF3_CLIENT_TERMINATE = 12,
    IPERF3_EXCHANGE_RESULTS = 13,
    IPERF3_DISPLAY_RESULTS = 14,
    IPERF3_IPERF_DONE = 16,
    IPERF3_ACCESS_DENIED = -1,
    IPERF3_SERVER_ERROR = -2,
};

/* The UDP stream handshake: the client's datagram and the server's reply, as bytes. */
extern const uint8_t IPERF3_UDP_HELLO[4];
extern const uint8_t IPERF3_UDP_REPLY[4];

/* A state's name for messages ("CREATE_STREAMS"), "unknown" for others. */
const char *iperf3_state_name(int state);

/* A fresh random cookie (NUL-terminated). Returns 0 or -errno. */
NB_MUST_CHECK int iperf3_cookie_make(char cookie[IPERF3_COOKIE_LEN]);

/* True when b holds a well-formed cookie: 36 characters of [a-z2-7], then NUL. */
bool iperf3_cookie_valid(const uint8_t b[IPERF3_COOKIE_LEN]);

/*
 * True when the first n bytes (n <= 36) could begin a cookie. No netab
 * message can start so: netab's frames begin with a length below 2^24
 * (first byte 0) and its data headers with "NDAT".
 */
bool iperf3_cookie_prefix(const uint8_t *b, size_t n);

/* iperf3's stream ids by creation order i (from 0): 1, 3, 4, 5, ... */
int iperf3_stream_id(int i);

/* The creation index of an id, or -1 when no index below n has it. */
int iperf3_stream_index(int id, int n);

/* Sends one state byte. Returns 0 or -errno with a message. */
NB_MUST_CHECK int iperf3_state_send(int fd, int state, uint64_t deadline_ns, char *err,
                                    size_t errlen);

/*
 * Reads one state byte into *state. ACCESS_DENIED becomes -EBUSY and
 * SERVER_ERROR (with its two numbers) -EREMOTEIO, each with a sentence.
 * Returns 0 or -errno with a message naming who said what.
 */
NB_MUST_CHECK int iperf3_state_recv(int fd, int *state, uint64_t deadline_ns, char *err,
                                    size_t errlen);

/* Sends a JSON document with its 4-byte length. Returns 0 or -errno. */
NB_MUST_CHECK int iperf3_json_send(int fd, const json_t *doc, uint64_t deadline_ns, char *err,
                                   size_t errlen);

/*
 * Reads a length-framed JSON object of at most max bytes into *out (new
 * reference). A longer length is refused before anything is allocated;
 * text that is not one JSON object is refused. strict: refuse duplicate
 * keys too (parameter documents, where a checker and a user must not see
 * different values; iperf3's own -J output repeats "target_bitrate", so
 * results are read with strict false, the last value winning). Returns 0
 * or -errno (-EMSGSIZE, -EPROTO, -ETIMEDOUT, -ECONNRESET) with a message.
 */
NB_MUST_CHECK int iperf3_json_recv(int fd, uint32_t max, bool strict, json_t **out,
                                   uint64_t deadline_ns, char *err, size_t errlen);

/* Parses a document's text (the part after the length), as iperf3_json_recv does. */
NB_MUST_CHECK int iperf3_json_parse(const char *text, size_t len, bool strict, json_t **out,
                                    char *err, size_t errlen);

#endif
