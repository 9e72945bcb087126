/* --mptcp's data connections: the test's own MPTCP listener and the client's connects. */
#include "proto/path_mptcp.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "proto/datahdr.h"
#include "proto/transport.h"
#include "util/clock.h"
#include "util/io.h"
#include "util/sock.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* A sockaddr's port set, and its length by family. */
static socklen_t with_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET) {
        ((struct sockaddr_in *)ss)->sin_port = htons(port);
        return sizeof(struct sockaddr_in);
    }
    ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
    return sizeof(struct sockaddr_in6);
}

int path_mptcp_listen(int ctl_fd, uint16_t *port, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(ctl_fd, (struct sockaddr *)&ss, &len))
        return err_set(err, errlen, errno, "getsockname: %s", strerror(errno));
    len = with_port(&ss, 0);
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
    if (fd < 0)
        return err_set(err, errlen, errno, "--mptcp: socket(IPPROTO_MPTCP): %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, SOMAXCONN)) {
        int e = errno;
        close(fd);
        return err_set(err, errlen, e, "--mptcp: cannot open the MPTCP listener: %s", strerror(e));
    }
    len = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &len)) {
        int e = errno;
        close(fd);
        return err_set(err, errlen, e, "--mptcp: getsockname: %s", strerror(e));
    }
    *port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                          : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

/* One connection from lfd: its header read (by deadline_ns) and attached, or closed. */
static void accept_one(struct registry *reg, int lfd, uint64_t deadline_ns)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    uint8_t buf[DATAHDR_LEN];
    struct datahdr h;
    if (io_read_full(fd, buf, sizeof(buf), deadline_ns, NULL) || datahdr_decode(buf, &h) ||
        registry_attach(reg, &h, fd))
        close(fd);
}

int path_mptcp_gather(struct registry *reg, struct pending_test *t, int lfd, int ctl_fd,
                      uint64_t deadline_ns, char *err, size_t errlen)
{
    int rc;
    while ((rc = registry_wait(reg, t, 0))) {
        uint64_t now = clock_now_ns();
        if (now >= deadline_ns)
            return -ETIMEDOUT;
        uint64_t left = deadline_ns - now;
        struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
        struct pollfd pfd[2] = {{.fd = ctl_fd, .events = POLLRDHUP}, {.fd = lfd, .events = POLLIN}};
        if (ppoll(pfd, 2, &ts, NULL) <= 0)
            continue;
        if (pfd[0].revents & (POLLRDHUP | POLLHUP | POLLERR))
            return err_set(err, errlen, ECONNRESET,
                           "client closed the control connection before its data connections");
        if (pfd[1].revents & POLLIN)
            accept_one(reg, lfd, deadline_ns);
    }
    return 0;
}

int path_mptcp_connect(int ctl_fd, uint16_t port, int timeout_ms, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (transport_peer_with_port(ctl_fd, port, &ss, &len))
        return err_set(err, errlen, errno, "getpeername: %s", strerror(errno));
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
    if (fd < 0)
        return err_set(err, errlen, errno, "--mptcp: socket(IPPROTO_MPTCP): %s", strerror(errno));
    /* Linux bounds a blocking connect() by the send timeout; stream_start() clears it after. */
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
        connect(fd, (struct sockaddr *)&ss, len)) {
        int e = errno == EINPROGRESS ? ETIMEDOUT : errno;
        close(fd);
        return err_set(err, errlen, e, "--mptcp: cannot connect to the server's MPTCP port %u: %s",
                       port, strerror(e));
    }
    return fd;
}

int path_mptcp_liveness(int fd, const struct test_params *p, int timeout_ms)
{
    int rc = sock_set_liveness(fd, timeout_ms);
    return p->mptcp && rc == -ENOPROTOOPT ? 0 : rc;
}
