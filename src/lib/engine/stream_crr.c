/*
 * Connection-rate roles (tcp_crr): the client connects, sends a request,
 * reads the response and closes, over and over; each cycle is one
 * transaction and its latency covers the whole cycle. The server accepts on
 * a listener of the test's own, answers, and waits for the client's close.
 * Failures are counted by kind and the loop goes on, as a load generator
 * should: a refused connect is a measurement, not a reason to stop.
 */
#include <errno.h>
#include <fcntl.h>
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

/*
 * Waits for events on fd until deadline_ns, or the abort (a test aborted
 * because its peer vanished or the server stops ends its streams at once,
 * not after an idle timeout or a connect's SYN retries; the stop lets the
 * transaction finish). The connection is the transaction's own, which no
 * abort shuts: the abort's event fd wakes the wait. Returns 1 (ready),
 * -ETIMEDOUT or -ECANCELED.
 */
static int crr_wait(const struct stream *s, int fd, short events, uint64_t deadline_ns)
{
    for (;;) {
        if (atomic_load_explicit(s->abort, memory_order_relaxed))
            return -ECANCELED;
        if (clock_now_ns() >= deadline_ns)
            return -ETIMEDOUT;
        if (stream_wait(fd, events, s->abort_fd, deadline_ns) > 0)
            return 1;
    }
}

/*
 * Moves len bytes to (out) or from fd before deadline_ns, trying first and
 * waiting only when the socket is not ready (a transaction costs no extra
 * system call on a fast path). Returns 0 or a negative errno.
 */
static int crr_xfer(const struct stream *s, int fd, char *buf, size_t len, bool out,
                    uint64_t deadline_ns)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = out ? send(fd, buf + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT)
                        : recv(fd, buf + done, len - done, MSG_DONTWAIT);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n == 0 && !out)
            return -ECONNRESET;
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        int rc = crr_wait(s, fd, out ? POLLOUT : POLLIN, deadline_ns);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* A non-blocking connect, waited for with crr_wait(). Returns 0 or a negative errno. */
static int crr_connect(const struct stream *s, int fd, uint64_t deadline_ns)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
        return -errno;
    if (connect(fd, (const struct sockaddr *)&s->peer, s->peer_len) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return -errno;
    int rc = crr_wait(s, fd, POLLOUT, deadline_ns);
    if (rc < 0)
        return rc;
    int soerr = 0;
    socklen_t sl = sizeof(soerr);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl))
        return -errno;
    return soerr ? -soerr : 0;
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
    int rc = crr_connect(s, fd, clock_now_ns() + io_ns);
    if (rc == -ECANCELED) {
        /* The test was aborted: nothing to count. */
    } else if (rc) {
        s->errors.connect++;
    } else if ((rc = crr_xfer(s, fd, buf, p->req_size, true, clock_now_ns() + io_ns))) {
        if (rc != -ECANCELED)
            s->errors.write++;
    } else {
        rc = crr_xfer(s, fd, buf, p->resp_size, false, clock_now_ns() + io_ns);
        if (rc == -ETIMEDOUT)
            s->errors.timeout++;
        else if (rc && rc != -ECANCELED)
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
    int rc = crr_xfer(s, fd, buf, p->req_size, false, clock_now_ns() + io_ns);
    if (rc) {
        s->errors.read += rc != -ECANCELED;
        return;
    }
    if ((rc = crr_xfer(s, fd, buf, p->resp_size, true, clock_now_ns() + io_ns))) {
        s->errors.write += rc != -ECANCELED;
        return;
    }
    /* Wait for the client's close so that TIME_WAIT stays on the client, as in netperf. */
    char c;
    if (crr_wait(s, fd, POLLIN, clock_now_ns() + io_ns) > 0)
        (void)!recv(fd, &c, 1, MSG_DONTWAIT);
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
        /* Blocks until a client connects; the stop shuts the listener (stream_stop_wake()). */
        int fd = accept4(s->fd, (struct sockaddr *)&from, &flen, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE) {
                /* No event says a descriptor was freed: back off 1 ms, or until the stop. */
                s->errors.connect++;
                stream_wait(-1, 0, s->stop_fd, clock_now_ns() + 1000000);
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
