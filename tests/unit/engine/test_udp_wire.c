/*
 * Unit tests for engine/udp_wire's per-datagram paths: a sender's batch of
 * headers must be byte for byte what one udp_wire_put_as() per datagram
 * writes, the inline header parser must read back what was written and
 * refuse what is not netab's, and the inline address comparison must agree
 * with a reference written here from the rule (IPv4-mapped IPv6 counts as
 * IPv4; family, address and port must match) on every pair of a set of
 * addresses. The udp_rr server's acceptance of a datagram must answer only
 * its stream's requests from the registered address and count the rest.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "engine/udp_wire.h"

#define SLOT 100

static void put_batch_matches_put_as(void **state)
{
    (void)state;
    static char batch[64 * SLOT], one[64 * SLOT];
    const enum udp_wire_format formats[] = {UDP_WIRE_NETAB, UDP_WIRE_IPERF3_32, UDP_WIRE_IPERF3_64};
    const uint64_t seqs[] = {0, 1, 0xfffffffeull, 0x0123456789abcdefull};
    const int counts[] = {1, 7, 64};
    for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++)
        for (size_t q = 0; q < sizeof(seqs) / sizeof(seqs[0]); q++)
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                int n = counts[c];
                uint64_t ns = 1700000000123456789ull + q;
                memset(batch, 0x5a, sizeof(batch));
                memset(one, 0x5a, sizeof(one));
                udp_wire_put_batch(formats[f], batch, SLOT, n, 0xa1b2c3d4u, seqs[q], ns);
                for (int i = 0; i < n; i++)
                    udp_wire_put_as(formats[f], one + (size_t)i * SLOT, 0xa1b2c3d4u,
                                    seqs[q] + (uint64_t)i, ns);
                /* The whole area, so a write past a header would show too. */
                assert_memory_equal(batch, one, sizeof(batch));
            }
}

static void get_reads_what_put_wrote(void **state)
{
    (void)state;
    char buf[UDP_WIRE_HEADER + 8];
    udp_wire_put_batch(UDP_WIRE_NETAB, buf, sizeof(buf), 1, 77, 0x8000000000000001ull,
                       0xfedcba9876543210ull);
    /* Big-endian on the wire, whatever the host: the header's bytes, written out by hand. */
    const unsigned char want[UDP_WIRE_HEADER] = {'N',  'B',  'U',  '1',  0,    0,    0,    77,
                                                 0x80, 0,    0,    0,    0,    0,    0,    1,
                                                 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
    assert_memory_equal(buf, want, sizeof(want));
    uint32_t stream = 0;
    uint64_t seq = 0, ns = 0;
    assert_int_equal(udp_wire_get(buf, UDP_WIRE_HEADER, &stream, &seq, &ns), 0);
    ASSERT_EQ(stream, 77u);
    ASSERT_EQ(seq, 0x8000000000000001ull);
    ASSERT_EQ(ns, 0xfedcba9876543210ull);

    /* One byte short, or another magic (a registration, iperf3's header): refused. */
    assert_int_equal(udp_wire_get(buf, UDP_WIRE_HEADER - 1, &stream, &seq, &ns), -EPROTO);
    memcpy(buf, "NREG", 4);
    assert_int_equal(udp_wire_get(buf, UDP_WIRE_HEADER, &stream, &seq, &ns), -EPROTO);
    memcpy(buf, "NBU2", 4);
    assert_int_equal(udp_wire_get(buf, UDP_WIRE_HEADER, &stream, &seq, &ns), -EPROTO);
}

static struct sockaddr_storage v4(const char *addr, unsigned port)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    in->sin_family = AF_INET;
    in->sin_port = htons((uint16_t)port);
    assert_int_equal(inet_pton(AF_INET, addr, &in->sin_addr), 1);
    return ss;
}

static struct sockaddr_storage v6(const char *addr, unsigned port, uint32_t scope)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons((uint16_t)port);
    in6->sin6_scope_id = scope;
    assert_int_equal(inet_pton(AF_INET6, addr, &in6->sin6_addr), 1);
    return ss;
}

/* The rule, spelled out: the IPv4 address and port each names, or IPv6's 16 bytes and port. */
static bool reference_same(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    char ta[64], tb[64];
    unsigned pa = 0, pb = 0;
    const struct sockaddr_storage *x[2] = {a, b};
    char *t[2] = {ta, tb};
    unsigned *p[2] = {&pa, &pb};
    for (int k = 0; k < 2; k++) {
        if (x[k]->ss_family == AF_INET) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)x[k];
            strcpy(t[k], "4:");
            inet_ntop(AF_INET, &in->sin_addr, t[k] + 2, 40);
            *p[k] = ntohs(in->sin_port);
        } else if (x[k]->ss_family == AF_INET6) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)x[k];
            const uint8_t *u = in6->sin6_addr.s6_addr;
            static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
            if (!memcmp(u, mapped, 12)) {
                strcpy(t[k], "4:");
                inet_ntop(AF_INET, u + 12, t[k] + 2, 40);
            } else {
                strcpy(t[k], "6:");
                inet_ntop(AF_INET6, u, t[k] + 2, 60);
            }
            *p[k] = ntohs(in6->sin6_port);
        } else {
            snprintf(t[k], 64, "family %d", x[k]->ss_family);
        }
    }
    return !strcmp(ta, tb) && pa == pb;
}

static void same_addr_agrees_with_the_rule(void **state)
{
    (void)state;
    struct sockaddr_storage unspec;
    memset(&unspec, 0, sizeof(unspec));
    struct sockaddr_storage set[] = {
        v4("127.0.0.1", 5301),
        v4("127.0.0.1", 5302),
        v4("127.0.0.2", 5301),
        v4("198.18.0.1", 5301),
        v6("::1", 5301, 0),
        v6("::1", 5302, 0),
        v6("::1", 5301, 3),
        v6("::2", 5301, 0),
        v6("::ffff:127.0.0.1", 5301, 0),
        v6("::ffff:127.0.0.1", 5302, 0),
        v6("::ffff:127.0.0.2", 5301, 0),
        v6("::ffff:198.18.0.1", 5301, 0),
        v6("fe80::1", 5301, 2),
        unspec,
    };
    size_t n = sizeof(set) / sizeof(set[0]), agreed_true = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            bool want = reference_same(&set[i], &set[j]);
            if (udp_wire_same_addr(&set[i], &set[j]) != want)
                fail_msg("pair %zu, %zu: udp_wire_same_addr says %d, the rule %d", i, j, !want,
                         want);
            agreed_true += want;
        }
    /*
     * Each address equals itself; the four IPv4 ones (127.0.0.1:5301 and
     * :5302, 127.0.0.2:5301, 198.18.0.1:5301) also equal their mapped forms
     * both ways, and ::1:5301 its scope-3 copy both ways: n + 10 equal
     * pairs, so both answers were exercised.
     */
    ASSERT_EQ(agreed_true, n + 10);
}

/*
 * The udp_rr server's acceptance (udp_wire_accept): each datagram of a set
 * from the registered client (127.0.0.1:5301, stream 7) and from other
 * addresses, with the verdict and the counter it must move. The address is
 * judged first: a registration or junk from elsewhere is foreign.
 */
static void accept_sorts_datagrams(void **state)
{
    (void)state;
    char data[64], other[64], reg[UDP_WIRE_REG_LEN];
    memset(data, 0x5a, sizeof(data));
    memcpy(other, data, sizeof(other));
    udp_wire_put(data, 7, 1, 2);
    udp_wire_put(other, 8, 1, 2);
    const uint8_t cookie[TEST_COOKIE_LEN] = {1, 2, 3};
    udp_wire_put_reg(reg, cookie, 7);
    struct sockaddr_storage peer = v4("127.0.0.1", 5301), mapped = v6("::ffff:127.0.0.1", 5301, 0),
                            port = v4("127.0.0.1", 5302), host = v4("127.0.0.2", 5301);
    const struct {
        const char *what, *buf;
        size_t len;
        const struct sockaddr_storage *from;
        bool want;
        uint64_t foreign, malformed; /* what it adds to each counter */
    } cases[] = {
        {"a request", data, UDP_WIRE_HEADER, &peer, true, 0, 0},
        {"a request with a payload", data, sizeof(data), &peer, true, 0, 0},
        {"a request from the mapped address", data, sizeof(data), &mapped, true, 0, 0},
        {"a request from another port", data, sizeof(data), &port, false, 1, 0},
        {"a request from another host", data, sizeof(data), &host, false, 1, 0},
        {"a registration resent", reg, sizeof(reg), &peer, false, 0, 0},
        {"a registration from elsewhere", reg, sizeof(reg), &host, false, 1, 0},
        {"another stream's request", other, sizeof(other), &peer, false, 0, 1},
        {"a header one byte short", data, UDP_WIRE_HEADER - 1, &peer, false, 0, 1},
        {"an empty datagram", data, 0, &peer, false, 0, 1},
        {"junk from elsewhere", "junk", 4, &port, false, 1, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        _Atomic uint64_t foreign = 10, malformed = 20;
        bool got = udp_wire_accept(cases[i].buf, cases[i].len, cases[i].from, &peer, 7, &foreign,
                                   &malformed);
        if (got != cases[i].want || foreign != 10 + cases[i].foreign ||
            malformed != 20 + cases[i].malformed)
            fail_msg("%s: accepted %d (want %d), foreign +%llu (want +%llu), malformed +%llu "
                     "(want +%llu)",
                     cases[i].what, got, cases[i].want, (unsigned long long)(foreign - 10),
                     (unsigned long long)cases[i].foreign, (unsigned long long)(malformed - 20),
                     (unsigned long long)cases[i].malformed);
    }
}

/*
 * The receive-time stamp of the latency-under-load probes (issue 31): asked
 * for only by a request of 36 bytes with "NBTS" (or "NBTW") after the header, answered
 * with "NBTR" and the time, which reads back; padding is no stamp.
 */
static void stamp_round_trip(void **state)
{
    (void)state;
    char req[UDP_WIRE_STAMP_LEN], resp[UDP_WIRE_STAMP_LEN];
    udp_wire_put(req, 3, 7, 11);
    memcpy(req + UDP_WIRE_HEADER, "NBTS", 4);
    assert_true(udp_wire_wants_stamp(req, sizeof(req)));
    assert_false(udp_wire_wants_stamp(req, sizeof(req) - 1));
    assert_false(udp_wire_wants_stamp(req, UDP_WIRE_HEADER));
    assert_false(udp_wire_wants_wall(req, sizeof(req)));
    /* "NBTW": the same on CLOCK_REALTIME (between hosts, measure/clocksync.h). */
    memcpy(req + UDP_WIRE_HEADER, "NBTW", 4);
    assert_true(udp_wire_wants_wall(req, sizeof(req)));
    assert_false(udp_wire_wants_wall(req, sizeof(req) - 1));
    assert_false(udp_wire_wants_stamp(req, sizeof(req)));
    memset(resp, 0x5a, sizeof(resp));
    uint64_t t = 0;
    assert_false(udp_wire_get_stamp(resp, sizeof(resp), &t));
    memcpy(resp, req, UDP_WIRE_HEADER);
    udp_wire_put_stamp(resp, 0x0102030405060708ull);
    assert_true(udp_wire_get_stamp(resp, sizeof(resp), &t));
    ASSERT_EQ(t, 0x0102030405060708ull);
    assert_false(udp_wire_get_stamp(resp, sizeof(resp) - 1, &t));
    uint32_t id = 0;
    uint64_t seq = 0, ns = 0;
    ASSERT_EQ(udp_wire_get(resp, sizeof(resp), &id, &seq, &ns), 0);
    ASSERT_EQ(seq, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_batch_matches_put_as),
        cmocka_unit_test(get_reads_what_put_wrote),
        cmocka_unit_test(same_addr_agrees_with_the_rule),
        cmocka_unit_test(accept_sorts_datagrams),
        cmocka_unit_test(stamp_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
