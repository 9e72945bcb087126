#include "util/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int resolve(const char *host, uint16_t port, int family, int passive, struct addrinfo **res,
                   char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = family, .ai_socktype = SOCK_STREAM};
    if (passive)
        hints.ai_flags = AI_PASSIVE;
    char portstr[8];
    snprintf(portstr, sizeof(portstr), "%u", port);
    int rc = getaddrinfo(host && *host ? host : NULL, portstr, &hints, res);
    if (rc)
        return err_set(err, errlen, EHOSTUNREACH, "cannot resolve '%s': %s",
                       host && *host ? host : "(any)", gai_strerror(rc));
    return 0;
}

int sock_listen(const char *addr, uint16_t port, int family, uint16_t *bound_port, char *err,
                size_t errlen)
{
    struct addrinfo *res = NULL;
    /* Only -6 asks for IPv6 alone; by default one IPv6 socket serves both families. */
    int v6only = family == AF_INET6;
    if (family == AF_UNSPEC && !(addr && *addr))
        family = AF_INET6;
    int rc = resolve(addr, port, family, 1, &res, err, errlen);
    if (rc)
        return rc;
    int fd = -1;
    int saved = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        int one = 1;
        /* -6 must not quietly serve IPv4 too: a failed IPV6_V6ONLY fails this address. */
        if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0 &&
            (ai->ai_family != AF_INET6 ||
             setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only)) == 0) &&
            /*
             * The kernel's cap (net.core.somaxconn), not 128: a --flows
             * client opens thousands of data connections back to back, and
             * a SYN the full queue drops costs it a 1 s retransmission.
             */
            bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
            break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return err_set(err, errlen, saved ? saved : EADDRNOTAVAIL,
                       "cannot listen on %s port %u: %s", addr && *addr ? addr : "any address",
                       port, strerror(saved));
    if (bound_port) {
        /* The caller asked for the port (port 0 picks one): a guess is no answer. */
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
            int e = errno;
            close(fd);
            return err_set(err, errlen, e, "cannot read the port bound on %s: %s",
                           addr && *addr ? addr : "any address", strerror(e));
        }
        *bound_port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                                    : ((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    return fd;
}

static int bind_local(int fd, int family, const char *bind_addr, uint16_t bind_port, char *err,
                      size_t errlen)
{
    struct addrinfo *res = NULL;
    int rc = resolve(bind_addr, bind_port, family, 1, &res, err, errlen);
    if (rc)
        return rc;
    int one = 1;
    rc = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (!rc)
        rc = bind(fd, res->ai_addr, res->ai_addrlen);
    if (rc)
        rc = err_set(err, errlen, errno, "cannot bind to %s port %u: %s",
                     bind_addr && *bind_addr ? bind_addr : "any address", bind_port,
                     strerror(errno));
    freeaddrinfo(res);
    return rc;
}

/*
 * connect() that gives up after timeout_ms. Returns 0 when connected, or -1
 * with errno set: the connection's own error (SO_ERROR), ETIMEDOUT, or the
 * error of poll() or getsockopt() themselves, which never count as connected.
 * The socket's file status flags are put back as they were.
 */
static int connect_timeout(int fd, const struct sockaddr *sa, socklen_t len, int timeout_ms)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return -1;
    int rc = connect(fd, sa, len);
    if (rc && errno == EINPROGRESS) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int n;
        do {
            n = poll(&p, 1, timeout_ms);
        } while (n < 0 && errno == EINTR);
        int soerr = 0;
        socklen_t sl = sizeof(soerr);
        if (n < 0) {
            soerr = errno;
        } else if (n == 0) {
            soerr = ETIMEDOUT;
        } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0) {
            soerr = errno;
        }
        errno = soerr;
        rc = soerr ? -1 : 0;
    }
    int saved = errno;
    if (fcntl(fd, F_SETFL, flags) < 0 && !rc) {
        saved = errno;
        rc = -1;
    }
    errno = saved;
    return rc;
}

int sock_connect(const char *host, uint16_t port, int family, const char *bind_addr,
                 uint16_t bind_port, int timeout_ms, char *err, size_t errlen)
{
    struct addrinfo *res = NULL;
    int rc = resolve(host, port, family, 0, &res, err, errlen);
    if (rc)
        return rc;
    int fd = -1;
    int saved = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            saved = errno;
            continue;
        }
        if ((bind_addr && *bind_addr) || bind_port) {
            rc = bind_local(fd, ai->ai_family, bind_addr, bind_port, err, errlen);
            if (rc) {
                close(fd);
                freeaddrinfo(res);
                return rc;
            }
        }
        if (connect_timeout(fd, ai->ai_addr, ai->ai_addrlen, timeout_ms) == 0)
            break;
        saved = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        return err_set(err, errlen, saved ? saved : EHOSTUNREACH,
                       "cannot connect to %s port %u: %s", host, port, strerror(saved));
    return fd;
}

void sock_addr_name(const struct sockaddr *sa, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
        snprintf(buf, len, "%s:%u", host, port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        port = ntohs(in6->sin6_port);
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
            snprintf(buf, len, "%s:%u", host + 7, port);
        else
            snprintf(buf, len, "[%s]:%u", host, port);
    } else {
        snprintf(buf, len, "?");
    }
}

void sock_peer_name(int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getpeername(fd, (struct sockaddr *)&ss, &sl)) {
        snprintf(buf, len, "?");
        return;
    }
    sock_addr_name((struct sockaddr *)&ss, buf, len);
}

int sock_set_timeouts(int fd, int ms)
{
    struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
        return -errno;
    return 0;
}

int sock_set_liveness(int fd, int timeout_ms)
{
    /* Probes every second, or sparser for long timeouts: the kernel allows at most 127. */
    int secs = timeout_ms / 1000 > 1 ? timeout_ms / 1000 : 1;
    int cnt = secs < 120 ? secs : 120;
    int one = 1, idle = 1, intvl = secs / cnt;
    unsigned int ut = (unsigned int)timeout_ms;
    if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) ||
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) ||
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl)) ||
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) ||
        setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ut, sizeof(ut)))
        return -errno;
    return 0;
}

int sock_set_control(int fd)
{
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ? -errno : 0;
}
