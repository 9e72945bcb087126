/*
 * Unit tests for util/sock on loopback: listening reports the port really
 * bound, connecting to a closed port is a real error with a message (never a
 * connection), and socket timeouts report failure on what is not a socket.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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

#include "util/sock.h"

/* A loopback port with nothing listening: bound once by us, then closed. */
static uint16_t closed_port(void)
{
    char err[NB_ERRLEN] = "";
    uint16_t port = 0;
    int fd = sock_listen("127.0.0.1", 0, AF_INET, &port, err, sizeof(err));
    ASSERT_GE(fd, 0);
    assert_int_not_equal(port, 0);
    close(fd);
    return port;
}

static void listen_reports_bound_port(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    uint16_t port = 0;
    int lfd = sock_listen("127.0.0.1", 0, AF_INET, &port, err, sizeof(err));
    ASSERT_GE(lfd, 0);
    assert_int_not_equal(port, 0);
    struct sockaddr_in sin;
    socklen_t sl = sizeof(sin);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &sl), 0);
    assert_int_equal(ntohs(sin.sin_port), port);
    /* The port reported is the one that accepts. */
    int cfd = sock_connect("127.0.0.1", port, AF_INET, NULL, 0, 2000, err, sizeof(err));
    ASSERT_GE(cfd, 0);
    int afd = accept(lfd, NULL, NULL);
    ASSERT_GE(afd, 0);
    close(afd);
    close(cfd);
    close(lfd);
}

static void connect_refused_is_an_error(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    uint16_t port = closed_port();
    int fd = sock_connect("127.0.0.1", port, AF_INET, NULL, 0, 2000, err, sizeof(err));
    assert_int_equal(fd, -ECONNREFUSED);
    assert_non_null(strstr(err, "cannot connect to 127.0.0.1 port"));
    assert_non_null(strstr(err, strerror(ECONNREFUSED)));
}

/* A local bind to an address this host does not have fails before any connect. */
static void bind_failure_is_an_error(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    uint16_t port = closed_port();
    int fd = sock_connect("127.0.0.1", port, AF_INET, "198.18.255.254", 0, 2000, err, sizeof(err));
    assert_int_equal(fd, -EADDRNOTAVAIL);
    assert_non_null(strstr(err, "cannot bind to 198.18.255.254"));
}

static void timeouts(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    assert_int_equal(sock_set_timeouts(fd, 1500), 0);
    struct timeval tv;
    socklen_t sl = sizeof(tv);
    assert_int_equal(getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &sl), 0);
    assert_int_equal(tv.tv_sec, 1);
    assert_int_equal(tv.tv_usec, 500000);
    close(fd);
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(sock_set_timeouts(p[0], 50), -ENOTSOCK);
    close(p[0]);
    close(p[1]);
}

/* Liveness for every allowed timeout, also the longest (the kernel caps keepalive counts). */
static void liveness(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    int lens[] = {500, 5000, 3600000};
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        assert_int_equal(sock_set_liveness(fd, lens[i]), 0);
        unsigned int ut = 0;
        socklen_t sl = sizeof(ut);
        assert_int_equal(getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, &sl), 0);
        assert_int_equal(ut, (unsigned)lens[i]);
    }
    close(fd);
}

/* A control socket has TCP_NODELAY, read back from the kernel on a connected pair's both ends. */
static void control_nodelay(void **state)
{
    (void)state;
    char err[NB_ERRLEN] = "";
    uint16_t port = 0;
    int lfd = sock_listen("127.0.0.1", 0, AF_INET, &port, err, sizeof(err));
    ASSERT_GE(lfd, 0);
    int cfd = sock_connect("127.0.0.1", port, AF_INET, NULL, 0, 2000, err, sizeof(err));
    ASSERT_GE(cfd, 0);
    int afd = accept(lfd, NULL, NULL);
    ASSERT_GE(afd, 0);
    int fds[] = {cfd, afd};
    for (int i = 0; i < 2; i++) {
        int v = -1;
        socklen_t sl = sizeof(v);
        assert_int_equal(getsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &v, &sl), 0);
        ASSERT_EQ(v, 0); /* the kernel's default: the helper is what sets it */
        assert_int_equal(sock_set_control(fds[i]), 0);
        assert_int_equal(getsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &v, &sl), 0);
        ASSERT_EQ(v, 1);
    }
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(sock_set_control(p[0]), -ENOTSOCK);
    close(p[0]);
    close(p[1]);
    close(afd);
    close(cfd);
    close(lfd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(listen_reports_bound_port),
        cmocka_unit_test(connect_refused_is_an_error),
        cmocka_unit_test(bind_failure_is_an_error),
        cmocka_unit_test(timeouts),
        cmocka_unit_test(liveness),
        cmocka_unit_test(control_nodelay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
