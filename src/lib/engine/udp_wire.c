#include "engine/udp_wire.h"

#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

/* "NREG", the cookie and the stream index: the registration's fixed length. */
_Static_assert(UDP_WIRE_REG_LEN == 4 + TEST_COOKIE_LEN + 4, "registration length");

static void put32(char *p, uint32_t v)
{
    for (int i = 3; i >= 0; i--, v >>= 8)
        p[i] = (char)(v & 0xff);
}

static void put64(char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        p[i] = (char)(v & 0xff);
}

static uint32_t get32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static uint64_t get64(const char *p)
{
    return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void udp_wire_put(char *buf, uint32_t stream, uint64_t seq, uint64_t send_ns)
{
    memcpy(buf, "NBU1", 4);
    put32(buf + 4, stream);
    put64(buf + 8, seq);
    put64(buf + 16, send_ns);
}

size_t udp_wire_header_len(enum udp_wire_format f)
{
    return f == UDP_WIRE_IPERF3_32 ? 12 : f == UDP_WIRE_IPERF3_64 ? 16 : UDP_WIRE_HEADER;
}

void udp_wire_put_as(enum udp_wire_format f, char *buf, uint32_t stream, uint64_t seq,
                     uint64_t send_ns)
{
    if (f == UDP_WIRE_NETAB) {
        udp_wire_put(buf, stream, seq, send_ns);
        return;
    }
    put32(buf, (uint32_t)(send_ns / 1000000000ull));
    put32(buf + 4, (uint32_t)(send_ns % 1000000000ull / 1000));
    if (f == UDP_WIRE_IPERF3_64)
        put64(buf + 8, seq + 1);
    else
        put32(buf + 8, (uint32_t)(seq + 1));
}

int udp_wire_get_as(enum udp_wire_format f, const char *buf, size_t len, uint32_t *stream,
                    uint64_t *seq, uint64_t *send_ns)
{
    if (f == UDP_WIRE_NETAB)
        return udp_wire_get(buf, len, stream, seq, send_ns);
    if (len < udp_wire_header_len(f))
        return -EPROTO;
    uint64_t count = f == UDP_WIRE_IPERF3_64 ? get64(buf + 8) : get32(buf + 8);
    uint32_t usec = get32(buf + 4);
    if (count == 0 || usec >= 1000000)
        return -EPROTO;
    *seq = count - 1;
    *send_ns = (uint64_t)get32(buf) * 1000000000ull + (uint64_t)usec * 1000;
    return 0;
}

void udp_wire_put_batch(enum udp_wire_format f, char *buf, size_t stride, int n, uint32_t stream,
                        uint64_t seq, uint64_t send_ns)
{
    if (f != UDP_WIRE_NETAB) {
        for (int i = 0; i < n; i++)
            udp_wire_put_as(f, buf + (size_t)i * stride, stream, seq + (uint64_t)i, send_ns);
        return;
    }
    /* "NBU1" and the stream number are the same 8 bytes in every header of the batch. */
    char prefix[8];
    memcpy(prefix, "NBU1", 4);
    put32(prefix + 4, stream);
    uint64_t be_ns = htobe64(send_ns);
    for (int i = 0; i < n; i++) {
        char *p = buf + (size_t)i * stride;
        uint64_t be_seq = htobe64(seq + (uint64_t)i);
        memcpy(p, prefix, 8);
        memcpy(p + 8, &be_seq, 8);
        memcpy(p + 16, &be_ns, 8);
    }
}

void udp_wire_put_reg(char *buf, const uint8_t cookie[TEST_COOKIE_LEN], uint32_t stream)
{
    memcpy(buf, "NREG", 4);
    memcpy(buf + 4, cookie, TEST_COOKIE_LEN);
    put32(buf + 4 + TEST_COOKIE_LEN, stream);
}

int udp_wire_get_reg(const char *buf, size_t len, uint8_t cookie[TEST_COOKIE_LEN], uint32_t *stream)
{
    if (len != UDP_WIRE_REG_LEN || memcmp(buf, "NREG", 4))
        return -EPROTO;
    memcpy(cookie, buf + 4, TEST_COOKIE_LEN);
    *stream = get32(buf + 4 + TEST_COOKIE_LEN);
    return 0;
}

bool udp_wire_is_reg(const char *buf, size_t len)
{
    return len == UDP_WIRE_REG_LEN && !memcmp(buf, "NREG", 4);
}

/* Reduces an address to family, 16 address bytes and port, unmapping IPv4-in-IPv6. */
static void canon(const struct sockaddr_storage *ss, int *fam, uint8_t addr[16], uint16_t *port)
{
    memset(addr, 0, 16);
    *fam = ss->ss_family;
    *port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
        memcpy(addr, &in->sin_addr, 4);
        *port = in->sin_port;
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
        *port = in6->sin6_port;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            *fam = AF_INET;
            memcpy(addr, (const uint8_t *)&in6->sin6_addr + 12, 4);
        } else {
            memcpy(addr, &in6->sin6_addr, 16);
        }
    }
}

bool udp_wire_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    int fa, fb;
    uint8_t aa[16], ab[16];
    uint16_t pa, pb;
    canon(a, &fa, aa, &pa);
    canon(b, &fb, ab, &pb);
    return fa == fb && !memcmp(aa, ab, 16);
}

bool udp_wire_same_addr_mixed(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    int fa, fb;
    uint8_t aa[16], ab[16];
    uint16_t pa, pb;
    canon(a, &fa, aa, &pa);
    canon(b, &fb, ab, &pb);
    return fa == fb && !memcmp(aa, ab, 16) && pa == pb;
}
