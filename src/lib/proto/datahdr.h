/*
 * The header a data connection sends first: "NDAT", the test's 16-byte
 * cookie, then the stream index and direction as big-endian 32-bit words.
 * Control messages start with a length below 64 KiB, so the first four bytes
 * tell the server which kind of connection it accepted.
 */
#ifndef NETAB_PROTO_DATAHDR_H
#define NETAB_PROTO_DATAHDR_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/test_cookie.h"

#define DATAHDR_MAGIC "NDAT"
#define DATAHDR_LEN (4 + TEST_COOKIE_LEN + 8)

struct datahdr {
    uint8_t cookie[TEST_COOKIE_LEN];
    uint32_t stream;   /* index among the test's connections */
    bool server_sends; /* direction of the data on this connection */
};

/* True when the first four bytes of a connection are the data magic. */
bool datahdr_is_data(const uint8_t first4[4]);

void datahdr_encode(const struct datahdr *h, uint8_t out[DATAHDR_LEN]);

/* Decodes a whole header; returns 0 or -EPROTO when the magic or direction is wrong. */
int datahdr_decode(const uint8_t in[DATAHDR_LEN], struct datahdr *h);

/* Cookie as 32 lowercase hex characters plus NUL, and back (-EINVAL if malformed). */
void datahdr_cookie_to_hex(const uint8_t cookie[TEST_COOKIE_LEN], char hex[33]);
int datahdr_cookie_from_hex(const char *hex, uint8_t cookie[TEST_COOKIE_LEN]);

/* Fills cookie from getrandom(). Returns 0 or -errno. */
int datahdr_cookie_new(uint8_t cookie[TEST_COOKIE_LEN]);

#endif
