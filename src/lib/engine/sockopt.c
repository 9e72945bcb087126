#include "engine/sockopt.h"
#include "engine/path_rx.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>

int sockopt_buffers(int fd, uint32_t sockbuf, char *err, size_t errlen)
{
    if (sockbuf) {
        int v = (int)sockbuf;
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) ||
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
            return err_set(err, errlen, errno, "cannot set socket buffer to %u: %s", sockbuf,
                           strerror(errno));
    }
    return 0;
}

int sockopt_apply(int fd, const struct test_params *p, char *err, size_t errlen)
{
    int rc = sockopt_buffers(fd, p->sockbuf, err, errlen);
    if (rc)
        return rc;
    if (p->mss) {
        int v = (int)p->mss;
        if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, sizeof(v)))
            return err_set(err, errlen, errno, "cannot set MSS to %u: %s", p->mss, strerror(errno));
    }
    /* Request/response tests measure latency: Nagle's algorithm must not hold requests back. */
    if (p->nodelay || params_is_rr(p->kind)) {
        int one = 1;
        if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
            return err_set(err, errlen, errno, "cannot set TCP_NODELAY: %s", strerror(errno));
    }
    if (p->cc[0]) {
        if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->cc, (socklen_t)strlen(p->cc)))
            return err_set(err, errlen, errno,
                           "congestion control '%s' is not available: %s (see "
                           "/proc/sys/net/ipv4/tcp_allowed_congestion_control)",
                           p->cc, strerror(errno));
    }
    /* receive and socket paths (issue 32): --busy-poll. */
    return path_rx_sockopts(fd, p, err, errlen);
}

int sockopt_pin_thread(int cpu)
{
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}
