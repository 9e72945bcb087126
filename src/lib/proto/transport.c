#include "proto/transport.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/udp_wire.h"
#include "util/clock.h"

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET)
        ((struct sockaddr_in *)ss)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static uint16_t get_port(const struct sockaddr_storage *ss)
{
    return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
                                          : ((const struct sockaddr_in6 *)ss)->sin6_port);
}

static socklen_t addr_len(const struct sockaddr_storage *ss)
{
    return ss->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
}

/* Opens a socket of type on ctl_fd's local address with an ephemeral port. */
static int open_local(int ctl_fd, int type, uint16_t *port, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(ctl_fd, (struct sockaddr *)&ss, &len))
        return err_set(err, errlen, errno, "getsockname: %s", strerror(errno));
    set_port(&ss, 0);
    int fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_set(err, errlen, errno, "socket: %s", strerror(errno));
    if (bind(fd, (struct sockaddr *)&ss, addr_len(&ss)) ||
        (type == SOCK_STREAM && listen(fd, 1024))) {
        int e = errno;
        close(fd);
        return err_set(err, errlen, e, "cannot open a data socket: %s", strerror(e));
    }
    len = sizeof(ss);
    getsockname(fd, (struct sockaddr *)&ss, &len);
    *port = get_port(&ss);
    return fd;
}

/*
 * Socket buffers: -w when given; else a 4 MiB request (the kernel caps it at
 * rmem_max/wmem_max, then doubles it) so a receiver preempted for a moment
 * keeps up, or with kernel_default the kernel's own default, as iperf2 and
 * iperf3 leave it (docs/udp.md argues the choice).
 */
static void set_buffers(int fd, uint32_t sockbuf, bool kernel_default)
{
    int sz = sockbuf ? (int)sockbuf : 4 * 1024 * 1024;
    if (sockbuf || !kernel_default) {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    }
    /*
     * Kernel receive timestamps from the start: with -R the server sends as
     * soon as the client registered, and a datagram queued before the
     * receiver thread runs must still carry its real arrival time.
     */
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
}

int transport_udp_open(int ctl_fd, int n, int *fds, uint16_t *ports, uint32_t sockbuf,
                       bool kernel_default, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        int fd = open_local(ctl_fd, SOCK_DGRAM, &ports[i], err, errlen);
        if (fd < 0)
            return fd;
        fds[i] = fd;
        set_buffers(fd, sockbuf, kernel_default);
    }
    return 0;
}

int transport_udp_await(int ctl_fd, const int *fds, int n, const uint8_t cookie[TEST_COOKIE_LEN],
                        struct sockaddr_storage *peers, socklen_t *peer_lens, uint64_t deadline_ns,
                        char *err, size_t errlen)
{
    struct sockaddr_storage ctl_peer;
    socklen_t cl = sizeof(ctl_peer);
    if (getpeername(ctl_fd, (struct sockaddr *)&ctl_peer, &cl))
        return err_set(err, errlen, errno, "getpeername: %s", strerror(errno));
    /* One more slot watches the control connection: a client that leaves ends the wait. */
    struct pollfd *pfd = calloc((size_t)n + 1, sizeof(*pfd));
    if (!pfd)
        return err_set(err, errlen, ENOMEM, "out of memory");
    int registered = 0;
    for (int i = 0; i < n; i++) {
        pfd[i].fd = fds[i];
        pfd[i].events = POLLIN;
        peer_lens[i] = 0;
    }
    pfd[n].fd = ctl_fd;
    pfd[n].events = POLLRDHUP;
    while (registered < n) {
        int ms = clock_ms_until(deadline_ns);
        if (ms == 0)
            break;
        if (poll(pfd, (nfds_t)n + 1, ms) <= 0)
            continue;
        if (pfd[n].revents & (POLLRDHUP | POLLHUP | POLLERR)) {
            free(pfd);
            return err_set(err, errlen, ECONNRESET,
                           "client closed the control connection before its UDP streams "
                           "registered");
        }
        for (int i = 0; i < n; i++) {
            if (!(pfd[i].revents & POLLIN))
                continue;
            char buf[64];
            struct sockaddr_storage from;
            socklen_t fl = sizeof(from);
            ssize_t len =
                recvfrom(fds[i], buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
            uint8_t ck[TEST_COOKIE_LEN];
            uint32_t stream;
            if (len < 0 || udp_wire_get_reg(buf, (size_t)len, ck, &stream) ||
                memcmp(ck, cookie, sizeof(ck)) || stream != (uint32_t)i ||
                !udp_wire_same_host(&from, &ctl_peer) || peer_lens[i])
                continue;
            peers[i] = from;
            peer_lens[i] = fl;
            registered++;
        }
    }
    free(pfd);
    if (registered < n)
        return err_set(err, errlen, ETIMEDOUT, "only %d of %d UDP streams registered in time",
                       registered, n);
    return 0;
}

int transport_peer_with_port(int ctl_fd, uint16_t port, struct sockaddr_storage *out,
                             socklen_t *len)
{
    *len = sizeof(*out);
    if (getpeername(ctl_fd, (struct sockaddr *)out, len))
        return -errno;
    set_port(out, port);
    *len = addr_len(out);
    return 0;
}

/* Binds fd to bind_addr (may be NULL: any) and port, in fd's family. */
static int bind_udp(int fd, int family, const char *bind_addr, uint16_t port, char *err,
                    size_t errlen)
{
    struct addrinfo hints = {
        .ai_family = family, .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL;
    char portstr[8];
    snprintf(portstr, sizeof(portstr), "%u", port);
    int rc = getaddrinfo(bind_addr && *bind_addr ? bind_addr : NULL, portstr, &hints, &res);
    if (rc)
        return err_set(err, errlen, EINVAL, "cannot use local address '%s': %s",
                       bind_addr ? bind_addr : "", gai_strerror(rc));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    rc = bind(fd, res->ai_addr, res->ai_addrlen) ? -errno : 0;
    freeaddrinfo(res);
    if (rc)
        return err_set(err, errlen, -rc, "cannot bind a UDP socket to %s port %u: %s",
                       bind_addr && *bind_addr ? bind_addr : "any address", port, strerror(-rc));
    return 0;
}

int transport_udp_connect(int ctl_fd, int n, const uint16_t *ports, int *fds, const char *bind_addr,
                          uint16_t cport, uint32_t sockbuf, bool kernel_default, char *err,
                          size_t errlen)
{
    for (int i = 0; i < n; i++) {
        struct sockaddr_storage ss;
        socklen_t len;
        if (transport_peer_with_port(ctl_fd, ports[i], &ss, &len))
            return err_set(err, errlen, errno, "getpeername: %s", strerror(errno));
        int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return err_set(err, errlen, errno, "socket: %s", strerror(errno));
        fds[i] = fd;
        set_buffers(fd, sockbuf, kernel_default);
        if ((bind_addr && *bind_addr) || cport) {
            int rc = bind_udp(fd, ss.ss_family, bind_addr, cport ? (uint16_t)(cport + i) : 0, err,
                              errlen);
            if (rc)
                return rc;
        }
        if (connect(fd, (struct sockaddr *)&ss, len))
            return err_set(err, errlen, errno, "cannot connect UDP stream %d: %s", i,
                           strerror(errno));
    }
    return 0;
}

void transport_udp_register(const int *fds, int n, const uint8_t cookie[TEST_COOKIE_LEN])
{
    char buf[UDP_WIRE_REG_LEN];
    for (int i = 0; i < n; i++) {
        udp_wire_put_reg(buf, cookie, (uint32_t)i);
        (void)!send(fds[i], buf, sizeof(buf), MSG_DONTWAIT);
    }
}

int transport_crr_listen(int ctl_fd, uint16_t *port, char *err, size_t errlen)
{
    return open_local(ctl_fd, SOCK_STREAM, port, err, errlen);
}
