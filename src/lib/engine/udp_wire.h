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

/*
 * The header format of a stream's datagrams. netab's own, or iperf3's
 * (proto/iperf3_*: a netab end talking to an iperf3 peer):
 *
 *   iperf3:        sec u32 | usec u32 | count u32      (12 bytes)
 *   iperf3 64-bit: sec u32 | usec u32 | count u64      (16 bytes, --udp-counters-64bit)
 *
 * big-endian, the count starting at 1, the time the sender's clock in
 * microseconds (iperf3 sends CLOCK_MONOTONIC: only differences mean anything).
 * The stream loops are the same for all formats; only these bytes differ.
 */
enum udp_wire_format {
    UDP_WIRE_NETAB = 0,
    UDP_WIRE_IPERF3_32,
    UDP_WIRE_IPERF3_64,
};

/* The header's length in a format: the smallest datagram a stream of that format accepts. */
size_t udp_wire_header_len(enum udp_wire_format f);

/*
 * Writes a data header in format f. seq counts from 0 in every format (the
 * iperf3 formats put seq + 1 on the wire); stream is netab's only.
 */
void udp_wire_put_as(enum udp_wire_format f, char *buf, uint32_t stream, uint64_t seq,
                     uint64_t send_ns);

/*
 * Parses a data header in format f into the same terms (seq from 0; the
 * iperf3 formats carry no stream number, *stream is left alone). Returns 0,
 * or -EPROTO for a datagram too short, foreign, or numbered 0 (iperf3).
 */
int udp_wire_get_as(enum udp_wire_format f, const char *buf, size_t len, uint32_t *stream,
                    uint64_t *seq, uint64_t *send_ns);

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
