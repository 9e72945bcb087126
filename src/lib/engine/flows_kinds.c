/*
 * udp_rr and tcp_crr over the flow engine's event loops (engine/flows.h).
 *
 * udp_rr: each client flow keeps one request in flight on its own socket;
 * a response that does not come within rr_timeout_ms is counted lost and as
 * a timeout error (a flow timer, so a lost datagram never hangs the flow),
 * and the flow sends its next request. The server flow answers each of its
 * client's requests until the stop.
 *
 * tcp_crr: each client flow connects, sends its request, reads the whole
 * response and closes, over and over; each cycle is a transaction and its
 * latency covers the whole cycle. A cycle that fails is counted by kind
 * (refused, reset, timeout after the idle timeout) and the flow goes on. The
 * server's flows share the test's listener: a group accepts while one of
 * its flows is free, and a flow answers its connection then waits for the
 * client's close, so TIME_WAIT stays on the client as with -P.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/flows_priv.h"
#include "engine/sockopt.h"
#include "engine/udp_wire.h"
#include "measure/flowhist.h"
#include "util/clock.h"

enum crr_phase { CRR_CONNECT, CRR_SEND, CRR_RECV, CRR_CLOSE_WAIT };

static bool stopping(const struct flow *f)
{
    return atomic_load_explicit(f->s->stop, memory_order_relaxed);
}

/* A transaction of f's ended at now: its latency from start (after -O) and its count. */
static void count_tx(struct flow *f, uint64_t start, uint64_t now, uint64_t bytes)
{
    struct stream *s = f->s;
    if (start && now >= f->g->measure_ns)
        flowhist_record(s->flat, now - start);
    f->bytes += bytes;
    atomic_store_explicit(&s->bytes, f->bytes, memory_order_relaxed);
    atomic_store_explicit(&s->packets, ++f->tx, memory_order_relaxed);
}

/* ---- udp_rr ---- */

static void udp_timeout(struct evloop *loop, void *data);

/* Sends the flow's next request and arms its response timeout. */
static void udp_request(struct flow *f)
{
    struct stream *s = f->s;
    struct flow_group *g = f->g;
    if (stopping(f)) {
        flow_end(f, 0);
        return;
    }
    f->sent_at = clock_now_ns();
    udp_wire_put(g->resp, (uint32_t)s->id, ++f->seq, f->sent_at);
    /* A full or refusing socket loses the request: its timeout counts it, as with -P. */
    if (send(s->fd, g->resp, s->params->req_size, MSG_DONTWAIT) < 0 && errno != EAGAIN &&
        errno != ENOBUFS && errno != ECONNREFUSED && errno != EINTR) {
        flow_end(f, errno);
        return;
    }
    f->waiting = true;
    uint64_t timeout_ns = (uint64_t)s->params->rr_timeout_ms * 1000000;
    if (evloop_timer_set(&g->loop, &f->timer, f->sent_at + timeout_ns, udp_timeout, f))
        flow_end(f, ENOMEM);
}

static void udp_timeout(struct evloop *loop, void *data)
{
    (void)loop;
    struct flow *f = data;
    atomic_fetch_add(&f->s->lost, 1);
    f->s->errors.timeout++;
    f->waiting = false;
    udp_request(f);
}

/* The client's datagrams in: the response to the request in flight ends its transaction. */
static void on_udp_client(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)events;
    struct flow *f = data;
    struct stream *s = f->s;
    for (int k = 0; k < 16 && !f->ended; k++) {
        ssize_t n = recv(fd, f->g->buf, f->g->cap, MSG_DONTWAIT);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED)
                flow_end(f, errno);
            return;
        }
        uint32_t id;
        uint64_t seq, ts;
        if (udp_wire_get(f->g->buf, (size_t)n, &id, &seq, &ts) || id != (uint32_t)s->id) {
            s->errors.read++;
            continue;
        }
        if (!f->waiting || seq != f->seq)
            continue; /* a response that came after its timeout: already counted lost */
        f->waiting = false;
        evloop_timer_cancel(loop, &f->timer);
        count_tx(f, f->sent_at, clock_now_ns(), (uint64_t)n);
        udp_request(f);
    }
}

/* The server's datagrams in: each request from the registered client is answered. */
static void on_udp_server(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop, (void)events;
    struct flow *f = data;
    struct stream *s = f->s;
    char *buf = f->g->buf, *resp = f->g->resp;
    for (int k = 0; k < 16 && !f->ended; k++) {
        struct sockaddr_storage from;
        socklen_t flen = sizeof(from);
        ssize_t n = recvfrom(fd, buf, f->g->cap, MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR)
                flow_end(f, errno);
            return;
        }
        if (!udp_wire_accept(buf, (size_t)n, &from, &s->peer, (uint32_t)s->id, &s->foreign,
                             &s->malformed))
            continue;
        memcpy(resp, buf, UDP_WIRE_HEADER);
        if (sendto(fd, resp, s->params->resp_size, MSG_DONTWAIT, (struct sockaddr *)&s->peer,
                   s->peer_len) < 0 &&
            errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED) {
            flow_end(f, errno);
            return;
        }
        count_tx(f, 0, 0, (uint64_t)n);
    }
}

/* ---- tcp_crr client ---- */

static void crr_client_start(struct flow *f);

/* Ends the cycle's connection (the flow's own watcher and deadline go with it). */
static void crr_close(struct flow *f)
{
    evloop_timer_cancel(&f->g->loop, &f->timer);
    if (f->cfd < 0)
        return;
    evloop_fd_del(&f->g->loop, &f->w);
    if (f->s->params->linger0) {
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(f->cfd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    }
    close(f->cfd);
    f->cfd = -1;
}

/* A cycle failed with err: counted by kind, and the next cycle begins. */
static void crr_client_fail(struct flow *f, int err)
{
    struct stream *s = f->s;
    if (err == ETIMEDOUT)
        s->errors.timeout++;
    else if (f->phase == CRR_CONNECT)
        s->errors.connect++;
    else if (f->phase == CRR_SEND)
        s->errors.write++;
    else
        s->errors.read++;
    crr_close(f);
    if (s->errors.connect > 1000 && f->tx == 0) {
        stream_fail(s, ECONNREFUSED, "connect fails every time");
        flow_end(f, 0);
        return;
    }
    crr_client_start(f);
}

static void crr_client_timeout(struct evloop *loop, void *data)
{
    (void)loop;
    crr_client_fail(data, ETIMEDOUT);
}

/*
 * Writes what is left of f's message without blocking: 0 when all is out,
 * EAGAIN when the socket is full (the flow waits for EPOLLOUT), else the
 * error (EPIPE for a send that wrote nothing).
 */
static int send_pending(struct flow *f)
{
    while (f->unsent) {
        size_t len = f->unsent < f->g->chunk ? (size_t)f->unsent : f->g->chunk;
        ssize_t w = send(f->cfd, f->g->resp, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0)
            f->unsent -= (uint64_t)w;
        else if (w < 0 && errno == EAGAIN)
            return EAGAIN;
        else if (!(w < 0 && errno == EINTR))
            return w < 0 ? errno : EPIPE;
    }
    return 0;
}

/* The request written: the response is awaited. */
static void crr_client_send(struct flow *f)
{
    int e = send_pending(f);
    if (e) {
        if (e != EAGAIN)
            crr_client_fail(f, e);
        return;
    }
    f->phase = CRR_RECV;
    f->left = f->s->params->resp_size;
    if (evloop_fd_mod(&f->g->loop, &f->w, EPOLLIN))
        crr_client_fail(f, EIO);
}

static void on_crr_client(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop, (void)events;
    struct flow *f = data;
    const struct test_params *p = f->s->params;
    if (f->phase == CRR_CONNECT) {
        int soerr = 0;
        socklen_t sl = sizeof(soerr);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
            crr_client_fail(f, soerr ? soerr : errno);
            return;
        }
        f->phase = CRR_SEND;
        f->unsent = p->req_size;
    }
    if (f->phase == CRR_SEND) {
        crr_client_send(f);
        return;
    }
    ssize_t n = recv(fd, f->g->buf, f->g->cap, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        crr_client_fail(f, n < 0 ? errno : ECONNRESET);
        return;
    }
    f->left = (uint64_t)n < f->left ? f->left - (uint64_t)n : 0;
    if (f->left)
        return;
    crr_close(f);
    count_tx(f, f->sent_at, clock_now_ns(), (uint64_t)p->req_size + p->resp_size);
    crr_client_start(f);
}

/* A new socket, bound to the next of --cport's ports if given. Returns it or -errno. */
static int crr_socket(struct flow *f)
{
    struct stream *s = f->s;
    int fd = socket(s->peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char ignored[8];
    int rc = sockopt_buffers(fd, s->params->sockbuf, ignored, sizeof(ignored));
    if (!rc && !s->eff_sndbuf)
        stream_record_buffers(s, fd);
    uint32_t range = s->cport_lo ? (uint32_t)(s->cport_hi - s->cport_lo) + 1 : 0;
    if (!rc && range) {
        struct sockaddr_storage local;
        memset(&local, 0, sizeof(local));
        local.ss_family = s->peer.ss_family;
        in_port_t port = htons((uint16_t)(s->cport_lo + f->next_port++ % range));
        if (local.ss_family == AF_INET)
            ((struct sockaddr_in *)&local)->sin_port = port;
        else
            ((struct sockaddr_in6 *)&local)->sin6_port = port;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        rc = bind(fd, (struct sockaddr *)&local, s->peer_len) ? -errno : 0;
    }
    if (rc) {
        close(fd);
        return rc;
    }
    return fd;
}

static void crr_retry(struct evloop *loop, void *data)
{
    (void)loop;
    crr_client_start(data);
}

/* The next cycle: a non-blocking connect, bounded by the idle timeout. */
static void crr_client_start(struct flow *f)
{
    struct stream *s = f->s;
    struct flow_group *g = f->g;
    if (stopping(f)) {
        flow_end(f, 0);
        return;
    }
    f->sent_at = clock_now_ns();
    f->phase = CRR_CONNECT;
    int fd = crr_socket(f);
    int rc = fd < 0 ? fd : 0;
    if (!rc && connect(fd, (const struct sockaddr *)&s->peer, s->peer_len) && errno != EINPROGRESS)
        rc = -errno;
    if (rc) {
        if (fd >= 0)
            close(fd);
        s->errors.connect++;
        /* Tried again from the loop, not from here: a refusing peer must not recurse. */
        if (s->errors.connect > 1000 && f->tx == 0) {
            stream_fail(s, -rc, "connect fails every time");
            flow_end(f, 0);
        } else if (evloop_timer_set(&g->loop, &f->timer, f->sent_at, crr_retry, f)) {
            flow_end(f, ENOMEM);
        }
        return;
    }
    f->cfd = fd;
    uint64_t io_ns = (uint64_t)s->idle_timeout_ms * 1000000;
    if (evloop_fd_add(&g->loop, &f->w, fd, EPOLLOUT, on_crr_client, f) ||
        evloop_timer_set(&g->loop, &f->timer, f->sent_at + io_ns, crr_client_timeout, f)) {
        crr_close(f);
        flow_end(f, ENOMEM);
    }
}

/* ---- tcp_crr server ---- */

static void on_crr_accept(struct evloop *loop, int fd, uint32_t events, void *data);

/* Takes connections again (a flow became free); stops when none is free. */
static void crr_listen(struct flow_group *g, bool on)
{
    if (on && !g->lw.added && !atomic_load_explicit(&g->set->stop, memory_order_relaxed)) {
        if (evloop_fd_add(&g->loop, &g->lw, g->flows[0].s->fd, EPOLLIN, on_crr_accept, g))
            g->flows[0].s->errors.connect++;
    } else if (!on) {
        evloop_fd_del(&g->loop, &g->lw);
    }
}

/* The flow's connection is done with: the flow is free for the next. */
static void crr_server_release(struct flow *f)
{
    crr_close(f);
    f->g->idle[f->g->nidle++] = (int)(f - f->g->flows);
    crr_listen(f->g, true);
}

static void crr_server_timeout(struct evloop *loop, void *data)
{
    (void)loop;
    struct flow *f = data;
    /* Waiting for the client's close after the response is no failure, as with -P. */
    if (f->phase != CRR_CLOSE_WAIT)
        f->s->errors.timeout++;
    crr_server_release(f);
}

static void crr_server_send(struct flow *f)
{
    int e = send_pending(f);
    if (e) {
        if (e != EAGAIN) {
            f->s->errors.write++;
            crr_server_release(f);
        }
        return;
    }
    /* The response is out: the transaction is the client's once it reads it. */
    const struct test_params *p = f->s->params;
    count_tx(f, 0, 0, (uint64_t)p->req_size + p->resp_size);
    f->phase = CRR_CLOSE_WAIT;
    if (evloop_fd_mod(&f->g->loop, &f->w, EPOLLIN))
        crr_server_release(f);
}

static void on_crr_server(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop, (void)events;
    struct flow *f = data;
    if (f->phase == CRR_SEND) {
        crr_server_send(f);
        return;
    }
    ssize_t n = recv(fd, f->g->buf, f->g->cap, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (f->phase == CRR_CLOSE_WAIT || n <= 0) {
        f->s->errors.read += f->phase != CRR_CLOSE_WAIT;
        crr_server_release(f);
        return;
    }
    f->left = (uint64_t)n < f->left ? f->left - (uint64_t)n : 0;
    if (f->left)
        return;
    f->phase = CRR_SEND;
    f->unsent = f->s->params->resp_size;
    if (evloop_fd_mod(&f->g->loop, &f->w, EPOLLOUT))
        crr_server_release(f);
    else
        crr_server_send(f);
}

/* Gives each new connection to a free flow of the group. */
static void on_crr_accept(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)events;
    struct flow_group *g = data;
    struct stream *first = g->flows[0].s;
    uint64_t io_ns = (uint64_t)first->idle_timeout_ms * 1000000;
    while (g->nidle > 0) {
        struct sockaddr_storage from;
        socklen_t flen = sizeof(from);
        int c = accept4(fd, (struct sockaddr *)&from, &flen, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN)
                first->errors.connect++;
            return;
        }
        if (!udp_wire_same_host(&from, &first->peer)) {
            atomic_fetch_add(&first->foreign, 1);
            close(c);
            continue;
        }
        struct flow *f = &g->flows[g->idle[--g->nidle]];
        f->cfd = c;
        f->phase = CRR_RECV;
        f->left = f->s->params->req_size;
        if (evloop_fd_add(loop, &f->w, c, EPOLLIN, on_crr_server, f) ||
            evloop_timer_set(loop, &f->timer, clock_now_ns() + io_ns, crr_server_timeout, f)) {
            f->s->errors.connect++;
            crr_server_release(f);
        }
    }
    crr_listen(g, false);
}

/* ---- the group ---- */

int flows_kinds_begin(struct flow_group *g)
{
    uint64_t now = clock_now_ns();
    bool crr = g->set->params.kind == TEST_TCP_CRR;
    if (crr && !(g->idle = malloc((size_t)g->n * sizeof(int))))
        return stream_fail(g->flows[0].s, ENOMEM, "event loop"), -EIO;
    for (int i = 0; i < g->n; i++) {
        struct flow *f = &g->flows[i];
        f->s->start_ns = now;
        if (crr && f->s->role == ROLE_CRR_SERVER) {
            g->idle[g->nidle++] = g->n - 1 - i; /* the first flows are taken first */
        } else if (!crr) {
            evloop_fd_fn fn = f->s->role == ROLE_RR_CLIENT ? on_udp_client : on_udp_server;
            if (evloop_fd_add(&g->loop, &f->w, f->s->fd, EPOLLIN, fn, f)) {
                stream_fail(f->s, errno ? errno : EIO, "event loop");
                return -EIO;
            }
        }
    }
    if (crr && g->flows[0].s->role == ROLE_CRR_SERVER) {
        /* Non-blocking (the listener is shared): another loop may take the connection first. */
        int lfd = g->flows[0].s->fd, fl = fcntl(lfd, F_GETFL);
        if (fl < 0 || fcntl(lfd, F_SETFL, fl | O_NONBLOCK) < 0)
            return stream_fail(g->flows[0].s, errno, "event loop"), -EIO;
        crr_listen(g, true);
    }
    for (int i = 0; i < g->n; i++) {
        struct flow *f = &g->flows[i];
        if (f->s->role == ROLE_CRR_CLIENT)
            crr_client_start(f);
        else if (f->s->role == ROLE_RR_CLIENT)
            udp_request(f);
    }
    return 0;
}

void flows_kinds_stop(struct flow_group *g)
{
    crr_listen(g, false);
    for (int i = 0; i < g->n; i++) {
        struct flow *f = &g->flows[i];
        if (f->ended || (f->s->role != ROLE_RR_SERVER && f->s->role != ROLE_CRR_SERVER))
            continue;
        crr_close(f);
        flow_end(f, 0);
    }
}

void flows_kinds_cleanup(struct flow_group *g)
{
    if (!flows_kind_own(g->set->params.kind))
        return;
    crr_listen(g, false);
    for (int i = 0; i < g->n; i++)
        crr_close(&g->flows[i]);
}
