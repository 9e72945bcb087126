/*
 * Unit test for measure/tcpinfo on a real TCP connection over 127.0.0.1.
 * Every socket has a receive/send timeout so that the test cannot hang.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>
#include "netab_assert.h"

#include "measure/tcpinfo.h"

static void set_timeouts(int fd)
{
    struct timeval tv = {.tv_sec = 5, .tv_usec = 0};
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)), 0);
}

static void test_loopback(void **state)
{
    (void)state;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = 0};
    socklen_t salen = sizeof(sa);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(lfd, 0);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(lfd, 1), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &salen), 0);

    int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(cfd, 0);
    set_timeouts(cfd);
    /* The connection completes in the listener's backlog, so no thread is needed. */
    assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    int sfd = accept(lfd, NULL, NULL);
    ASSERT_GE(sfd, 0);
    set_timeouts(sfd);

    char buf[65536];
    memset(buf, 'x', sizeof(buf));
    size_t total = 0;
    for (int i = 0; i < 16; i++) {
        ssize_t n = send(cfd, buf, sizeof(buf), 0);
        ASSERT_GT(n, 0);
        /* Drain on the other side so that send() never blocks on a full buffer. */
        size_t got = 0;
        while (got < (size_t)n) {
            ssize_t r = recv(sfd, buf, sizeof(buf), 0);
            ASSERT_GT(r, 0);
            got += (size_t)r;
        }
        total += got;
    }
    assert_int_equal(total, 16 * sizeof(buf));

    struct tcpinfo_stats st;
    memset(&st, 0xff, sizeof(st));
    assert_int_equal(tcpinfo_read(cfd, &st), 0);
    assert_int_equal(st.valid, 1);
    ASSERT_GT(st.snd_mss, 0);
    ASSERT_GT(st.pmtu, 0);
    ASSERT_GT(st.snd_cwnd, 0);
    /* Loopback does not lose packets, so there is nothing to retransmit. */
    assert_int_equal(st.retransmits, 0);

    /* The per-interval sample of the same connection: all acknowledged, nothing in flight. */
    struct tcpinfo_sample sm;
    memset(&sm, 0xff, sizeof(sm));
    assert_int_equal(tcpinfo_sample(cfd, &sm), 0);
    assert_int_equal(sm.snd_cwnd, st.snd_cwnd);
    assert_int_equal(sm.snd_mss, st.snd_mss);
    assert_int_equal(sm.total_retrans, 0);
    assert_int_equal(sm.lost, 0);
    assert_int_equal(sm.notsent_bytes, 0);
    ASSERT_GT(sm.rtt_us, 0);
    ASSERT_GT(sm.pacing_rate, 0);

    close(cfd);
    close(sfd);
    close(lfd);
}

static void test_not_tcp(void **state)
{
    (void)state;
    struct tcpinfo_stats st;

    memset(&st, 0xff, sizeof(st));
    int ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(ufd, 0);
    ASSERT_LT(tcpinfo_read(ufd, &st), 0);
    assert_int_equal(st.valid, 0);
    assert_int_equal(st.snd_mss, 0);
    close(ufd);

    memset(&st, 0xff, sizeof(st));
    assert_int_equal(tcpinfo_read(-1, &st), -EBADF);
    assert_int_equal(st.valid, 0);

    struct tcpinfo_sample sm;
    memset(&sm, 0xff, sizeof(sm));
    assert_int_equal(tcpinfo_sample(-1, &sm), -EBADF);
    assert_int_equal(sm.snd_cwnd, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loopback),
        cmocka_unit_test(test_not_tcp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
