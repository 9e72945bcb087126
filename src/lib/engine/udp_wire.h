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

#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/*
 * A sender's batch: writes the data headers of n datagrams that start
 * stride bytes apart at buf, numbered seq, seq + 1, ..., all stamped
 * send_ns. The bytes are exactly those of n udp_wire_put_as() calls; for
 * netab's format each header is three 8-byte stores instead of a call and
 * a byte loop per field, which is most of a sender's own per-datagram work.
 */
void udp_wire_put_batch(enum udp_wire_format f, char *buf, size_t stride, int n, uint32_t stream,
                        uint64_t seq, uint64_t send_ns);

/*
 * Parses a data header. Returns 0, or -EPROTO for a short or foreign
 * datagram. Inline: a receiver parses every datagram it gets.
 */
static inline int udp_wire_get(const char *buf, size_t len, uint32_t *stream, uint64_t *seq,
                               uint64_t *send_ns)
{
    uint32_t be32;
    uint64_t be64;
    if (len < UDP_WIRE_HEADER || memcmp(buf, "NBU1", 4))
        return -EPROTO;
    memcpy(&be32, buf + 4, 4);
    *stream = be32toh(be32);
    memcpy(&be64, buf + 8, 8);
    *seq = be64toh(be64);
    memcpy(&be64, buf + 16, 8);
    *send_ns = be64toh(be64);
    return 0;
}

/*
 * A udp_rr request that asks for the server's receive time (the
 * latency-under-load test's probes, engine/stream_probe.c) carries "NBTS"
 * after the data header; a server answers a response of at least
 * UDP_WIRE_STAMP_LEN bytes with "NBTR" and its receive time (uint64 ns,
 * CLOCK_MONOTONIC, big-endian) there. "NBTW" asks for the same on
 * CLOCK_REALTIME (probes between hosts whose clocks are synchronised,
 * measure/clocksync.h; a server before it answers without a stamp). A
 * request without either (every udp_rr test's, 24 bytes by default) costs
 * the server nothing more.
 */
#define UDP_WIRE_STAMP_LEN (UDP_WIRE_HEADER + 12)

static inline bool udp_wire_wants_stamp(const char *buf, size_t len)
{
    return len >= UDP_WIRE_STAMP_LEN && !memcmp(buf + UDP_WIRE_HEADER, "NBTS", 4);
}

static inline bool udp_wire_wants_wall(const char *buf, size_t len)
{
    return len >= UDP_WIRE_STAMP_LEN && !memcmp(buf + UDP_WIRE_HEADER, "NBTW", 4);
}

/* Writes the stamp of a response (at least UDP_WIRE_STAMP_LEN bytes). */
static inline void udp_wire_put_stamp(char *buf, uint64_t rx_ns)
{
    uint64_t be = htobe64(rx_ns);
    memcpy(buf + UDP_WIRE_HEADER, "NBTR", 4);
    memcpy(buf + UDP_WIRE_HEADER + 4, &be, 8);
}

/* The server's receive time of a stamped response; false for a response without one. */
static inline bool udp_wire_get_stamp(const char *buf, size_t len, uint64_t *rx_ns)
{
    uint64_t be;
    if (len < UDP_WIRE_STAMP_LEN || memcmp(buf + UDP_WIRE_HEADER, "NBTR", 4))
        return false;
    memcpy(&be, buf + UDP_WIRE_HEADER + 4, 8);
    *rx_ns = be64toh(be);
    return true;
}

void udp_wire_put_reg(char *buf, const uint8_t cookie[TEST_COOKIE_LEN], uint32_t stream);

/* Parses a registration. Returns 0 or -EPROTO. */
int udp_wire_get_reg(const char *buf, size_t len, uint8_t cookie[TEST_COOKIE_LEN],
                     uint32_t *stream);

/* True for a registration datagram (which receivers ignore rather than count as malformed). */
bool udp_wire_is_reg(const char *buf, size_t len);

/* udp_wire_same_addr() for addresses of different families (or neither IPv4 nor IPv6). */
bool udp_wire_same_addr_mixed(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/*
 * True when a and b are the same address and port (IPv4-mapped IPv6 counts
 * as IPv4). Inline for two addresses of one family, which a receiver asks
 * about every datagram: an IPv4-mapped IPv6 address equals another IPv6
 * address exactly when their 16 bytes do, since the mapped prefix is fixed,
 * so only a mixed pair needs unmapping.
 */
static inline bool udp_wire_same_addr(const struct sockaddr_storage *a,
                                      const struct sockaddr_storage *b)
{
    if (a->ss_family == b->ss_family && a->ss_family == AF_INET) {
        const struct sockaddr_in *x = (const struct sockaddr_in *)a;
        const struct sockaddr_in *y = (const struct sockaddr_in *)b;
        return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (a->ss_family == b->ss_family && a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *x = (const struct sockaddr_in6 *)a;
        const struct sockaddr_in6 *y = (const struct sockaddr_in6 *)b;
        return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
    }
    return udp_wire_same_addr_mixed(a, b);
}

/* True when a and b are the same host address, ports ignored. */
bool udp_wire_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/*
 * A udp_rr server's check of a request datagram (buf, len) that came from
 * `from` to the socket of stream, whose client registered from peer. True
 * when it is that stream's data from that client, to be answered. Otherwise
 * it is dropped unanswered: one from another address is counted in
 * *foreign (replies go only to the registered address, never to a forged
 * source), one that is not netab's data or another stream's in *malformed,
 * a registration (resent by a client that has not seen "ready" yet) in
 * neither. The one rule for the thread-per-stream server (stream_rr.c) and
 * the flows' (flows_kinds.c); inline, as it runs on every datagram.
 */
static inline bool udp_wire_accept(const char *buf, size_t len, const struct sockaddr_storage *from,
                                   const struct sockaddr_storage *peer, uint32_t stream,
                                   _Atomic uint64_t *foreign, _Atomic uint64_t *malformed)
{
    uint32_t id;
    uint64_t seq, ns;
    if (!udp_wire_same_addr(from, peer)) {
        atomic_fetch_add(foreign, 1);
        return false;
    }
    if (udp_wire_is_reg(buf, len))
        return false;
    if (udp_wire_get(buf, len, &id, &seq, &ns) || id != stream) {
        atomic_fetch_add(malformed, 1);
        return false;
    }
    return true;
}

#endif
