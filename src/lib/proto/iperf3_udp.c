#include "proto/iperf3_udp.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/udp_wire.h"
#include "proto/iperf3_wire.h"
#include "util/clock.h"

static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;

int iperf3_udp_turn(uint64_t deadline_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now = clock_now_ns();
    uint64_t wait = deadline_ns > now ? deadline_ns - now : 0;
    ts.tv_sec += (time_t)(wait / 1000000000ull);
    ts.tv_nsec += (long)(wait % 1000000000ull);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return pthread_mutex_timedlock(&turn, &ts) ? -ETIMEDOUT : 0;
}

void iperf3_udp_turn_end(void)
{
    pthread_mutex_unlock(&turn);
}

int iperf3_udp_listen(int ctl_fd, uint32_t sockbuf, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(ctl_fd, (struct sockaddr *)&ss, &len))
        return err_set(err, errlen, errno, "getsockname: %s", strerror(errno));
    int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return err_set(err, errlen, errno, "socket: %s", strerror(errno));
    int one = 1;
    /* Every socket of the port has it, so that the connected ones and the next listener coexist. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    /*
     * -w when the client gave one, else netab's 4 MiB request (docs/udp.md):
     * iperf3's kernel default holds six of its 32 KiB loopback datagrams.
     */
    int sz = sockbuf ? (int)sockbuf : 4 * 1024 * 1024;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    if (bind(fd, (struct sockaddr *)&ss, len)) {
        int e = errno;
        close(fd);
        return err_set(err, errlen, e, "cannot bind the UDP port of the iperf3 test: %s",
                       strerror(e));
    }
    return fd;
}

/* Waits for a datagram from the control peer's host on fd; *from gets its address. */
static int take_hello(int fd, const struct sockaddr_storage *ctl_peer, uint64_t deadline_ns,
                      struct sockaddr_storage *from, socklen_t *from_len)
{
    for (;;) {
        uint64_t now = clock_now_ns();
        if (now >= deadline_ns)
            return -ETIMEDOUT;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, clock_ms_until(deadline_ns)) <= 0)
            continue;
        uint8_t b[64];
        *from_len = sizeof(*from);
        ssize_t r = recvfrom(fd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)from, from_len);
        /* Any datagram from the client's host counts, as iperf3's own server takes any. */
        if (r >= 0 && udp_wire_same_host(from, ctl_peer))
            return 0;
    }
}

int iperf3_udp_accept(int ctl_fd, int listener, int n, uint32_t sockbuf, int *fds,
                      uint64_t deadline_ns, char *err, size_t errlen)
{
    struct sockaddr_storage ctl_peer;
    socklen_t cl = sizeof(ctl_peer);
    if (getpeername(ctl_fd, (struct sockaddr *)&ctl_peer, &cl))
        return err_set(err, errlen, errno, "getpeername: %s", strerror(errno));
    fds[0] = listener;
    /* The turn is the whole server's: a client that never says hello holds it this long at most. */
    uint64_t now = clock_now_ns(), end = now + IPERF3_UDP_HELLO_MS * 1000000ull;
    if (end > deadline_ns)
        end = deadline_ns;
    for (int i = 0; i < n; i++) {
        struct sockaddr_storage from;
        socklen_t flen;
        if (take_hello(fds[i], &ctl_peer, end, &from, &flen))
            return err_set(err, errlen, ETIMEDOUT,
                           "only %d of %d UDP streams said hello within %llu ms (the server's "
                           "UDP hello limit); the UDP set-up turn is released for other tests",
                           i, n, (unsigned long long)((end - now) / 1000000));
        if (connect(fds[i], (struct sockaddr *)&from, flen))
            return err_set(err, errlen, errno, "connect: %s", strerror(errno));
        if (i + 1 < n) {
            int next = iperf3_udp_listen(ctl_fd, sockbuf, err, errlen);
            if (next < 0)
                return next;
            fds[i + 1] = next;
        }
        if (send(fds[i], IPERF3_UDP_REPLY, sizeof(IPERF3_UDP_REPLY), MSG_NOSIGNAL) < 0)
            return err_set(err, errlen, errno, "cannot answer a UDP stream's hello: %s",
                           strerror(errno));
    }
    return 0;
}
