/*
 * The header netab puts at the start of every UDP datagram, and the
 * registration datagram a client sends to tell the server its address.
 *
 *   data:          "NBU1" | stream u32 | sequence u64 | send time u64 (ns)
 *   registration:  "NREG" | cookie[16] | stream u32
 *
 * All integers big-endian. Both are 24 bytes, the smallest datagram netab sends.
 */
#ifndef NETAB_ENGINE_UDP_WIRE_H
#define NETAB_ENGINE_UDP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine/test_cookie.h"

#define UDP_WIRE_HEADER 24
#define UDP_WIRE_REG_LEN 24

void udp_wire_put(char *buf, uint32_t stream, uint64_t seq, uint64_t send_ns);

/* Parses a data header. Returns 0, or -EPROTO for a short or foreign datagram. */
int udp_wire_get(const char *buf, size_t len, uint32_t *stream, uint64_t *seq, uint64_t *send_ns);

void udp_wire_put_reg(char *buf, const uint8_t cookie[TEST_COOKIE_LEN], uint32_t stream);

/* Parses a registration. Returns 0 or -EPROTO. */
int udp_wire_get_reg(const char *buf, size_t len, uint8_t cookie[TEST_COOKIE_LEN],
                     uint32_t *stream);

/* True for a registration datagram (which receivers ignore rather than count as malformed). */
bool udp_wire_is_reg(const char *buf, size_t len);

/* True when a and b are the same address and port (IPv4-mapped IPv6 counts as IPv4). */
bool udp_wire_same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/* True when a and b are the same host address, ports ignored. */
bool udp_wire_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

#endif
