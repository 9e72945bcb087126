/*
 * The data connections of one test on the server: the test's cookie, the
 * "accept" message, and the wait for every TCP connection, UDP socket's
 * first datagram or tcp_crr listener, bounded by the idle timeout; a
 * client that closes its control connection meanwhile frees its slot.
 */
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/clocksync.h"
#include "proto/datahdr.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/path_mptcp.h"
#include "proto/server_session.h"
#include "proto/transport.h"
#include "util/clock.h"

/*
 * The test's cookie: derived from the authenticated session with
 * --auth-key (both ends compute it, it is never sent), random otherwise.
 */
static int session_cookie(struct session *ss, uint8_t cookie[TEST_COOKIE_LEN])
{
    if (ss->auth.authenticated) {
        auth_session_cookie(&ss->auth, cookie);
        return 0;
    }
    return datahdr_cookie_new(cookie);
}

/* The "accept" message; it names the cookie only when the client cannot derive it. */
static json_t *accept_message(const struct session *ss, const struct pending_test *t)
{
    json_t *acc = msg_simple("accept");
    if (acc && !ss->auth.authenticated) {
        char hex[33];
        datahdr_cookie_to_hex(t->cookie, hex);
        json_object_set_new(acc, "cookie", json_string(hex));
    }
    return acc;
}

/* True when the peer closed fd (EOF pending) or the connection broke. */
static bool peer_gone(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN | POLLRDHUP};
    if (poll(&pfd, 1, 0) <= 0)
        return false;
    if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR))
        return true;
    char c;
    return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/*
 * Sends "accept" (accept_message()), extra's fields (extra is consumed)
 * and, for a client that asked for heartbeats, the liveness timeout.
 */
static int send_accept(struct session *ss, const struct pending_test *t, json_t *extra)
{
    json_t *acc = accept_message(ss, t);
    if (extra)
        json_object_update(acc, extra);
    json_decref(extra);
    if (ss->heartbeats)
        json_object_set_new(acc, "liveness_ms", json_integer(ss->server->cfg.liveness_timeout_ms));
    int rc = frame_send(ss->fd, acc, clock_now_ns() + ss->idle_ns, ss->err, sizeof(ss->err));
    json_decref(acc);
    return rc;
}

/* Registers the test, sends the cookie and waits for every data connection. */
/*
 * Waits for t's data connections until the idle limit: an attach (t's
 * eventfd) or the client's closing its control connection (which frees its
 * slot at once) wakes it. Returns 0, -ETIMEDOUT, or -ECONNRESET with ss->err.
 */
static int await_connections(struct session *ss, struct pending_test *t)
{
    struct registry *reg = &ss->server->registry;
    uint64_t end = clock_now_ns() + ss->idle_ns;
    if (!t->wake)
        return registry_wait(reg, t, end);
    int rc;
    while ((rc = registry_wait(reg, t, 0)) && clock_now_ns() < end) {
        if (peer_gone(ss->fd))
            return err_set(ss->err, sizeof(ss->err), ECONNRESET,
                           "client closed the control connection before its data connections");
        struct pollfd pfd[2] = {{.fd = ss->fd, .events = POLLRDHUP},
                                {.fd = t->wake_fd, .events = POLLIN}};
        uint64_t now = clock_now_ns(), left = end > now ? end - now : 0;
        struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
        eventfd_t v;
        if (ppoll(pfd, 2, &ts, NULL) > 0 && (pfd[1].revents & POLLIN))
            (void)!eventfd_read(t->wake_fd, &v);
    }
    return rc;
}

static int gather_tcp(struct session *ss, const struct test_params *p, struct pending_test *t)
{
    int n = params_connections(p);
    bool *want = calloc((size_t)n, sizeof(bool));
    t->fds = malloc((size_t)n * sizeof(int));
    t->server_sends = calloc((size_t)n, sizeof(bool));
    if (!want || !t->fds || !t->server_sends) {
        free(want);
        return err_set(ss->err, sizeof(ss->err), ENOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        t->fds[i] = -1;
        want[i] = p->reverse || (p->bidir && i >= p->streams);
    }
    t->expected = n;
    t->want_server_sends = want;
    int rc = session_cookie(ss, t->cookie);
    if (rc) {
        free(want);
        return err_set(ss->err, sizeof(ss->err), rc, "cannot create a test cookie");
    }
    /* Each attach writes the eventfd: the wait wakes for it or the client's close, no slices. */
    t->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    t->wake = t->wake_fd >= 0;
    registry_add(&ss->server->registry, t);
    /* receive and socket paths (issue 32): --mptcp's connections come to their own listener. */
    uint16_t mport = 0;
    int lfd = p->mptcp ? path_mptcp_listen(ss->fd, &mport, ss->err, sizeof(ss->err)) : -1;
    rc = p->mptcp && lfd < 0
             ? lfd
             : send_accept(ss, t, lfd >= 0 ? json_pack("{s:i}", "mptcp_port", mport) : NULL);
    if (!rc)
        rc = lfd >= 0 ? path_mptcp_gather(&ss->server->registry, t, lfd, ss->fd,
                                          clock_now_ns() + ss->idle_ns, ss->err, sizeof(ss->err))
                      : await_connections(ss, t);
    if (lfd >= 0)
        close(lfd);
    if (rc == -ETIMEDOUT)
        err_set(ss->err, sizeof(ss->err), rc, "only %d of %d data connections arrived in time",
                t->attached, n);
    registry_remove(&ss->server->registry, t);
    if (t->wake)
        close(t->wake_fd);
    t->wake = false;
    t->want_server_sends = NULL;
    free(want);
    return rc;
}

/* UDP tests: one socket per stream, each announced by port and registered by the client. */
static int gather_udp(struct session *ss, const struct test_params *p, struct pending_test *t,
                      struct sockaddr_storage *peers, socklen_t *peer_lens)
{
    int n = params_connections(p);
    uint16_t *ports = calloc((size_t)n, sizeof(uint16_t));
    if (!ports)
        return err_set(ss->err, sizeof(ss->err), ENOMEM, "out of memory");
    int rc = transport_udp_open(ss->fd, n, t->fds, ports, p->sockbuf, p->udp_default_buffers,
                                ss->err, sizeof(ss->err));
    if (!rc) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(arr, json_integer(ports[i]));
        json_t *extra = json_pack("{s:o}", "udp_ports", arr);
        /* udp_rr: the clock of the receive times it stamps into probes (addition 6). */
        if (extra && p->kind == TEST_UDP_RR) {
            struct clock_info ci;
            clock_info_capture(&ci);
            json_object_set_new(extra, "clock", clock_info_to_json(&ci));
        }
        rc = send_accept(ss, t, extra);
    }
    if (!rc)
        rc = transport_udp_await(ss->fd, t->fds, n, t->cookie, peers, peer_lens,
                                 clock_now_ns() + ss->idle_ns, ss->err, sizeof(ss->err));
    free(ports);
    return rc;
}

/* tcp_crr: a listener of the test's own, shared by the server's streams. */
static int gather_crr(struct session *ss, const struct test_params *p, struct pending_test *t)
{
    uint16_t port;
    int lfd = transport_crr_listen(ss->fd, &port, ss->err, sizeof(ss->err));
    if (lfd < 0)
        return lfd;
    for (int i = 0; i < params_connections(p); i++)
        if ((t->fds[i] = dup(lfd)) < 0) {
            close(lfd);
            return err_set(ss->err, sizeof(ss->err), errno, "dup: %s", strerror(errno));
        }
    close(lfd);
    return send_accept(ss, t, json_pack("{s:i}", "crr_port", port));
}

int session_gather(struct session *ss, const struct test_params *p, struct pending_test *t,
                   struct sockaddr_storage *peers, socklen_t *peer_lens)
{
    if (p->kind == TEST_TCP_STREAM || p->kind == TEST_TCP_RR)
        return gather_tcp(ss, p, t);
    int n = params_connections(p);
    t->expected = n;
    t->fds = malloc((size_t)n * sizeof(int));
    t->server_sends = calloc((size_t)n, sizeof(bool));
    if (!t->fds || !t->server_sends)
        return err_set(ss->err, sizeof(ss->err), ENOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        t->fds[i] = -1;
        t->server_sends[i] = p->reverse || (p->bidir && i >= p->streams);
    }
    if (session_cookie(ss, t->cookie))
        return err_set(ss->err, sizeof(ss->err), EIO, "cannot create a test cookie");
    if (params_is_udp(p->kind))
        return gather_udp(ss, p, t, peers, peer_lens);
    struct sockaddr_storage ctl_peer;
    socklen_t cl = sizeof(ctl_peer);
    getpeername(ss->fd, (struct sockaddr *)&ctl_peer, &cl);
    for (int i = 0; i < n; i++) {
        peers[i] = ctl_peer;
        peer_lens[i] = cl;
    }
    return gather_crr(ss, p, t);
}
