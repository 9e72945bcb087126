/*
 * Connection-rate roles (tcp_crr): the client connects, sends a request,
 * reads the response and closes, over and over; each cycle is one
 * transaction and its latency covers the whole cycle. The server accepts on
 * a listener of the test's own, answers, and waits for the client's close.
 * Failures are counted by kind and the loop goes on, as a load generator
 * should: a refused connect is a measurement, not a reason to stop.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/sockopt.h"
#include "engine/stream.h"
#include "engine/udp_wire.h"
#include "measure/histogram.h"
#include "util/clock.h"
#include "util/io.h"

static bool stopping(const struct stream *s)
{
    return atomic_load_explicit(s->stop, memory_order_relaxed) ||
           atomic_load_explicit(s->abort, memory_order_relaxed);
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
    if (ss->ss_family == AF_INET)
        ((struct sockaddr_in *)ss)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* One connect/request/response/close cycle. Returns 0 or the kind of failure. */
static int one_transaction(struct stream *s, char *buf, uint16_t cport, uint64_t io_ns)
{
    const struct test_params *p = s->params;
    int fd = socket(s->peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        s->errors.connect++;
        return -errno;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, 1 /* TCP_NODELAY */, &one, sizeof(one));
    /* -w applies to every connection of the test, as to the other test kinds. */
    char ignored[8];
    int brc = sockopt_buffers(fd, p->sockbuf, ignored, sizeof(ignored));
    if (brc) {
        s->errors.connect++;
        close(fd);
        return brc;
    }
    if (!s->eff_sndbuf)
        stream_record_buffers(s, fd);
    if (cport) {
        struct sockaddr_storage local;
        memset(&local, 0, sizeof(local));
        local.ss_family = s->peer.ss_family;
        set_port(&local, cport);
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (struct sockaddr *)&local, s->peer_len)) {
            s->errors.connect++;
            close(fd);
            return -errno;
        }
    }
    int rc = 0;
    if (connect(fd, (struct sockaddr *)&s->peer, s->peer_len)) {
        s->errors.connect++;
        rc = -errno;
    } else if ((rc = io_write_full(fd, buf, p->req_size, clock_now_ns() + io_ns))) {
        s->errors.write++;
    } else {
        size_t got = 0;
        rc = io_read_full(fd, buf, p->resp_size, clock_now_ns() + io_ns, &got);
        if (rc == -ETIMEDOUT)
            s->errors.timeout++;
        else if (rc)
            s->errors.read++;
    }
    if (p->linger0) {
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    close(fd);
    return rc;
}

static void client(struct stream *s, char *buf)
{
    uint64_t tx = 0, bytes = 0;
    uint64_t io_ns = (uint64_t)s->idle_timeout_ms * 1000000;
    uint32_t range = s->cport_lo ? (uint32_t)(s->cport_hi - s->cport_lo) + 1 : 0;
    uint32_t next = 0;
    while (!stopping(s)) {
        uint16_t cport = range ? (uint16_t)(s->cport_lo + next++ % range) : 0;
        uint64_t t0 = clock_now_ns();
        if (one_transaction(s, buf, cport, io_ns) == 0) {
            hist_record(s->latency, clock_now_ns() - t0);
            bytes += s->params->req_size + s->params->resp_size;
            atomic_store_explicit(&s->packets, ++tx, memory_order_relaxed);
            atomic_store_explicit(&s->bytes, bytes, memory_order_relaxed);
        } else if (s->errors.connect > 1000 && tx == 0) {
            stream_fail(s, ECONNREFUSED, "connect fails every time");
            break;
        }
    }
    s->end_ns = clock_now_ns();
}

static void serve_one(struct stream *s, int fd, char *buf, uint64_t *tx, uint64_t *bytes)
{
    const struct test_params *p = s->params;
    uint64_t io_ns = (uint64_t)s->idle_timeout_ms * 1000000;
    size_t got = 0;
    if (io_read_full(fd, buf, p->req_size, clock_now_ns() + io_ns, &got)) {
        s->errors.read++;
        return;
    }
    if (io_write_full(fd, buf, p->resp_size, clock_now_ns() + io_ns)) {
        s->errors.write++;
        return;
    }
    /* Wait for the client's close so that TIME_WAIT stays on the client, as in netperf. */
    char c;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, s->idle_timeout_ms) > 0)
        (void)!recv(fd, &c, 1, 0);
    *bytes += p->req_size + p->resp_size;
    atomic_store_explicit(&s->packets, ++*tx, memory_order_relaxed);
    atomic_store_explicit(&s->bytes, *bytes, memory_order_relaxed);
}

static void server(struct stream *s, char *buf)
{
    uint64_t tx = 0, bytes = 0;
    while (!stopping(s)) {
        struct sockaddr_storage from;
        socklen_t flen = sizeof(from);
        int fd = accept4(s->fd, (struct sockaddr *)&from, &flen, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE) {
                s->errors.connect++;
                usleep(1000);
                continue;
            }
            if (!stopping(s))
                stream_fail(s, errno, "accept");
            break;
        }
        if (!udp_wire_same_host(&from, &s->peer)) {
            atomic_fetch_add(&s->foreign, 1);
            close(fd);
            continue;
        }
        serve_one(s, fd, buf, &tx, &bytes);
        close(fd);
    }
    s->end_ns = clock_now_ns();
}

void stream_crr_run(struct stream *s, char *buf)
{
    if (s->role == ROLE_CRR_CLIENT)
        client(s, buf);
    else
        server(s, buf);
}
