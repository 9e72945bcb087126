/*
 * Unit tests for engine/udp_gro: splitting what one UDP_GRO receive returns
 * into the datagrams the sender sent, and reading the control messages that
 * say how. The last test sends one UDP_SEGMENT super-datagram on loopback
 * to a UDP_GRO socket, so the split is checked against the kernel's own
 * gluing, not only against our idea of it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "engine/udp_gro.h"
#include "engine/udp_wire.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define SEG 1000

/* Glues n datagrams of SEG bytes and a last one of last bytes, each with netab's header. */
static size_t glue(char *buf, int n, size_t last)
{
    size_t len = 0;
    for (int i = 0; i <= n; i++) {
        size_t size = i < n ? SEG : last;
        if (!size)
            break;
        memset(buf + len, 'a' + i, size);
        udp_wire_put(buf + len, 7, (uint64_t)i, 1000u + (unsigned)i);
        len += size;
    }
    return len;
}

/* Splits buf and checks each piece: its length, and that it is datagram i by its header. */
static int split_and_check(const char *buf, size_t len, int gso, const size_t *want, int nwant)
{
    size_t off = 0, n;
    int k = 0;
    for (; (n = udp_gro_next(len, off, gso)) > 0; off += n, k++) {
        ASSERT_LT(k, nwant);
        assert_int_equal(n, want[k]);
        uint32_t stream;
        uint64_t seq, sent;
        assert_int_equal(udp_wire_get(buf + off, n, &stream, &seq, &sent), 0);
        assert_int_equal(stream, 7);
        assert_int_equal(seq, (uint64_t)k);
        assert_int_equal(sent, 1000u + (unsigned)k);
        assert_int_equal(buf[off + n - 1], 'a' + k);
    }
    assert_int_equal(off, len);
    return k;
}

/* Three whole datagrams and a short last one: four pieces, the last one short. */
static void short_last_segment(void **state)
{
    (void)state;
    static char buf[8 * SEG];
    size_t len = glue(buf, 3, 400);
    const size_t want[] = {SEG, SEG, SEG, 400};
    assert_int_equal(split_and_check(buf, len, SEG, want, 4), 4);
}

/* A multiple of the segment size: no empty piece at the end. */
static void exact_multiple(void **state)
{
    (void)state;
    static char buf[8 * SEG];
    size_t len = glue(buf, 5, 0);
    const size_t want[] = {SEG, SEG, SEG, SEG, SEG};
    assert_int_equal(split_and_check(buf, len, SEG, want, 5), 5);
}

/* Without a UDP_GRO message (gso 0 or nonsense), or a lone datagram, the buffer is one datagram. */
static void one_datagram(void **state)
{
    (void)state;
    static char buf[8 * SEG];
    size_t len = glue(buf, 0, 700);
    const size_t want[] = {700};
    assert_int_equal(split_and_check(buf, len, 0, want, 1), 1);
    assert_int_equal(split_and_check(buf, len, -5, want, 1), 1);
    assert_int_equal(split_and_check(buf, len, SEG, want, 1), 1); /* shorter than gso_size */
    assert_int_equal(udp_gro_next(0, 0, SEG), 0);                 /* an empty datagram: nothing */
    assert_int_equal(udp_gro_next(len, len, SEG), 0);
    assert_int_equal(udp_gro_next(len, len + 1, SEG), 0);
}

static void control_messages(void **state)
{
    (void)state;
    union {
        char buf[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    memset(&ctl, 0, sizeof(ctl));
    struct msghdr mh = {.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_TIMESTAMPNS;
    c->cmsg_len = CMSG_LEN(sizeof(struct timespec));
    struct timespec ts = {.tv_sec = 1700000000, .tv_nsec = 123456789};
    memcpy(CMSG_DATA(c), &ts, sizeof(ts));
    c = CMSG_NXTHDR(&mh, c);
    assert_non_null(c);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_GRO;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    int gso = 1472;
    memcpy(CMSG_DATA(c), &gso, sizeof(gso));

    uint64_t t = 1;
    int size = -1;
    udp_gro_read_cmsgs(&mh, &t, &size);
    assert_int_equal(t, 1700000000123456789ull);
    assert_int_equal(size, 1472);

    /* Only the timestamp: no segment size. */
    mh.msg_controllen = CMSG_SPACE(sizeof(struct timespec));
    udp_gro_read_cmsgs(&mh, &t, &size);
    assert_int_equal(t, 1700000000123456789ull);
    assert_int_equal(size, 0);

    /* The timestamp alone in a larger buffer: found by the walk. */
    mh.msg_controllen = sizeof(ctl.buf);
    c = CMSG_NXTHDR(&mh, CMSG_FIRSTHDR(&mh));
    memset(c, 0, sizeof(*c));
    mh.msg_controllen = CMSG_SPACE(sizeof(struct timespec)) + sizeof(*c);
    t = 1;
    size = -1;
    udp_gro_read_cmsgs(&mh, &t, &size);
    assert_int_equal(t, 1700000000123456789ull);
    assert_int_equal(size, 0);

    /* A segment size alone, in as many bytes as a timestamp would take: never a timestamp. */
    c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_GRO;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &gso, sizeof(gso));
    mh.msg_controllen = CMSG_SPACE(sizeof(struct timespec));
    t = 1;
    udp_gro_read_cmsgs(&mh, &t, &size);
    assert_int_equal(t, 0);
    assert_int_equal(size, 1472);

    /* Nothing at all. */
    mh.msg_control = NULL;
    mh.msg_controllen = 0;
    udp_gro_read_cmsgs(&mh, &t, &size);
    assert_int_equal(t, 0);
    assert_int_equal(size, 0);
}

/*
 * One UDP_SEGMENT send of 3 x SEG + 400 bytes on loopback to a UDP_GRO
 * socket. However the kernel hands it over (glued with a UDP_GRO message, as
 * Linux does for a GRO socket, or as separate datagrams), splitting every
 * receive gives back the four datagrams in order.
 */
static void loopback_gso_to_gro(void **state)
{
    (void)state;
    int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
    ASSERT_GE(rx, 0);
    ASSERT_GE(tx, 0);
    int one = 1;
    if (setsockopt(rx, SOL_UDP, UDP_GRO, &one, sizeof(one)))
        fail_msg("UDP_GRO is not supported by this kernel: %s", strerror(errno));
    struct timeval tv = {.tv_sec = 2};
    assert_int_equal(setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sin);
    assert_int_equal(bind(rx, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(getsockname(rx, (struct sockaddr *)&sin, &sl), 0);
    int seg = SEG;
    if (setsockopt(tx, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)))
        fail_msg("UDP_SEGMENT is not supported by this kernel: %s", strerror(errno));
    static char out[8 * SEG], in[65536];
    size_t len = glue(out, 3, 400);
    assert_int_equal(sendto(tx, out, len, 0, (struct sockaddr *)&sin, sizeof(sin)), (ssize_t)len);

    const size_t want[] = {SEG, SEG, SEG, 400};
    int got = 0, receives = 0;
    while (got < 4) {
        union {
            char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {.iov_base = in, .iov_len = sizeof(in)};
        struct msghdr mh = {.msg_iov = &iov,
                            .msg_iovlen = 1,
                            .msg_control = ctl.buf,
                            .msg_controllen = sizeof(ctl)};
        ssize_t n = recvmsg(rx, &mh, 0);
        if (n < 0)
            fail_msg("recvmsg after %d datagrams: %s", got, strerror(errno));
        receives++;
        uint64_t t;
        int gso;
        udp_gro_read_cmsgs(&mh, &t, &gso);
        size_t off = 0, m;
        for (; (m = udp_gro_next((size_t)n, off, gso)) > 0; off += m, got++) {
            ASSERT_LT(got, 4);
            assert_int_equal(m, want[got]);
            uint32_t stream;
            uint64_t seq, sent;
            assert_int_equal(udp_wire_get(in + off, m, &stream, &seq, &sent), 0);
            assert_int_equal(seq, (uint64_t)got);
        }
    }
    print_message("loopback: 4 datagrams in %d receive(s)\n", receives);
    close(rx);
    close(tx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(short_last_segment),  cmocka_unit_test(exact_multiple),
        cmocka_unit_test(one_datagram),        cmocka_unit_test(control_messages),
        cmocka_unit_test(loopback_gso_to_gro),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
