/*
 * The iperf3 client's control exchange (docs/iperf3.md): cookie,
 * parameters, streams, TEST_START/TEST_RUNNING, the measured part with
 * netab's streams, TEST_END, both results documents, IPERF_DONE. The
 * streams are the engine's; only their set-up (the cookie on each TCP
 * connection, the UDP hello) and the UDP header format are iperf3's.
 */
#include "proto/iperf3_client.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/sockios.h>

#include "engine/path_rx.h"
#include "engine/sockopt.h"
#include "engine/stream_set.h"
#include "engine/window.h"
#include "proto/iperf3_doc.h"
#include "proto/iperf3_peer.h"
#include "proto/iperf3_wire.h"
#include "proto/transport.h"
#include "util/clock.h"
#include "util/evloop.h"
#include "util/io.h"
#include "util/sock.h"

/* How long the senders' queues may take to empty before TEST_END goes anyway. */
#define I3C_FLUSH_NS 2000000000ull

struct i3c {
    const struct client_config *cfg;
    const struct test_params *p;
    struct run_result *res;
    int ctl, n;
    uint64_t idle_ns;
    char cookie[IPERF3_COOKIE_LEN];
    struct rusage ru_start;
    uint64_t start_ns; /* when the streams started: the process CPU figures' window */
};

int iperf3_client_check(const struct client_config *cfg, const struct test_params *p, char *err,
                        size_t errlen)
{
    if (p->kind != TEST_TCP_STREAM && p->kind != TEST_UDP_STREAM)
        return err_set(err, errlen, EINVAL, "--iperf3 runs tcp_stream and udp_stream tests, not %s",
                       params_kind_name(p->kind));
    if (!p->bytes && p->duration_s != floor(p->duration_s))
        return err_set(err, errlen, EINVAL, "-t %g: an iperf3 server counts whole seconds",
                       p->duration_s);
    if (p->omit_s != floor(p->omit_s))
        return err_set(err, errlen, EINVAL, "-O %g: an iperf3 server omits whole seconds",
                       p->omit_s);
    if (p->server_cpu >= 0 || p->gso || p->gro)
        return err_set(err, errlen, EINVAL, "-A x,N, --gso and --gro do not apply with --iperf3");
    if (cfg->auth_key)
        return err_set(err, errlen, EINVAL, "--auth-key does not apply with --iperf3");
    if (p->udp_default_buffers)
        return err_set(err, errlen, EINVAL, "--udp-default-buffers does not apply with --iperf3");
    /* send path (issue 32): iperf3 has -Z, --fq-rate and -b for TCP; the rest it lacks. */
    if (p->tx.mode == PATH_TX_SPLICE || p->tx.mode == PATH_TX_MSG_ZEROCOPY || p->tx.notsent_lowat)
        return err_set(err, errlen, EINVAL,
                       "%s does not apply with --iperf3: an iperf3 server has no such option",
                       p->tx.notsent_lowat ? "--notsent-lowat" : path_tx_mode_option(p->tx.mode));
    /* receive and socket paths (issue 32): iperf3 3.12's protocol carries none of them. */
    if (path_rx_any(p))
        return err_set(err, errlen, EINVAL,
                       "%s does not apply with --iperf3 (the iperf3 protocol netab speaks has "
                       "no such option)",
                       path_rx_asked_name(p));
    return 0;
}

static uint64_t deadline(const struct i3c *c)
{
    return clock_now_ns() + c->idle_ns;
}

/* Reads states until want arrives; any other state is a protocol error. */
static int expect_state(struct i3c *c, int want)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    int st = 0;
    int rc = iperf3_state_recv(c->ctl, &st, deadline(c), err, len);
    if (rc)
        return rc;
    if (st == IPERF3_SERVER_TERMINATE)
        return err_set(err, len, ECONNABORTED, "the iperf3 server terminated the test");
    if (st != want)
        return err_set(err, len, EPROTO, "the iperf3 server sent state %d (%s) where %s was due",
                       st, iperf3_state_name(st), iperf3_state_name(want));
    return 0;
}

static int handshake(struct i3c *c)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    if (sock_set_control(c->ctl))
        return err_set(err, len, EIO, "cannot set TCP_NODELAY on the control connection");
    int rc = iperf3_cookie_make(c->cookie);
    if (rc)
        return err_set(err, len, rc, "cannot make a test cookie");
    rc = io_write_full(c->ctl, c->cookie, IPERF3_COOKIE_LEN, deadline(c));
    if (rc)
        return err_set(err, len, rc, "cannot send the cookie: %s", strerror(-rc));
    if ((rc = expect_state(c, IPERF3_PARAM_EXCHANGE)))
        return rc;
    json_t *params = iperf3_params_to_json(c->p);
    rc = iperf3_json_send(c->ctl, params, deadline(c), err, len);
    json_decref(params);
    return rc ? rc : expect_state(c, IPERF3_CREATE_STREAMS);
}

/* One UDP stream's hello: sent until the reply comes (a datagram may be lost). */
static int udp_hello(struct i3c *c, int fd)
{
    uint64_t end = deadline(c), next = 0;
    for (;;) {
        uint64_t now = clock_now_ns();
        if (now > end)
            return err_set(c->res->error, sizeof(c->res->error), ETIMEDOUT,
                           "the iperf3 server did not answer a UDP stream's hello");
        if (now >= next) {
            (void)!send(fd, IPERF3_UDP_HELLO, sizeof(IPERF3_UDP_HELLO), MSG_NOSIGNAL);
            next = now + 500000000ull;
        }
        /* Asleep until the reply, the next resend or the end, whichever is first. */
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (poll(&pfd, 1, clock_ms_until(next < end ? next : end)) <= 0)
            continue;
        uint8_t b[64];
        ssize_t r = recv(fd, b, sizeof(b), MSG_DONTWAIT);
        /* The reply, or the old one (987654321 in either byte order); early data is skipped. */
        if (r == 4 && (!memcmp(b, IPERF3_UDP_REPLY, 4) || !memcmp(b, "\x3a\xde\x68\xb1", 4) ||
                       !memcmp(b, "\xb1\x68\xde\x3a", 4)))
            return 0;
    }
}

static int open_streams(struct i3c *c, int *fds, const bool *server_sends)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    if (c->p->kind == TEST_UDP_STREAM) {
        uint16_t *ports = malloc((size_t)c->n * sizeof(*ports));
        if (!ports)
            return err_set(err, len, ENOMEM, "out of memory");
        for (int i = 0; i < c->n; i++)
            ports[i] = c->cfg->port;
        int rc = transport_udp_connect(c->ctl, c->n, ports, fds, c->cfg->bind_addr, c->cfg->cport,
                                       c->p->sockbuf, false, err, len);
        free(ports);
        /* One at a time: the server opens its next UDP listener only after answering. */
        for (int i = 0; !rc && i < c->n; i++)
            rc = udp_hello(c, fds[i]);
        return rc;
    }
    (void)server_sends;
    for (int i = 0; i < c->n; i++) {
        uint16_t cport = c->cfg->cport ? (uint16_t)(c->cfg->cport + i) : 0;
        int fd = sock_connect(c->cfg->host, c->cfg->port, c->cfg->family, c->cfg->bind_addr, cport,
                              c->cfg->connect_timeout_ms, err, len);
        if (fd < 0)
            return fd;
        fds[i] = fd;
        int rc = sockopt_apply(fd, c->p, err, len);
        if (rc)
            return rc;
        rc = io_write_full(fd, c->cookie, IPERF3_COOKIE_LEN, deadline(c));
        if (rc)
            return err_set(err, len, rc, "cannot send a stream's cookie: %s", strerror(-rc));
    }
    return 0;
}

/* A state byte or a close on the control connection mid-test ends the test with its reason. */
static int check_control(struct i3c *c)
{
    struct pollfd pfd = {.fd = c->ctl, .events = POLLIN};
    if (poll(&pfd, 1, 0) <= 0)
        return 0;
    int st = 0;
    int rc = iperf3_state_recv(c->ctl, &st, deadline(c), c->res->error, sizeof(c->res->error));
    if (rc)
        return rc;
    if (st == IPERF3_SERVER_TERMINATE)
        return err_set(c->res->error, sizeof(c->res->error), ECONNABORTED,
                       "the iperf3 server terminated the test");
    return err_set(c->res->error, sizeof(c->res->error), EPROTO,
                   "the iperf3 server sent state %d (%s) during the test", st,
                   iperf3_state_name(st));
}

struct i3c_iv {
    uint64_t ns, next_ns, sent, received;
};

static void interval_tick(struct i3c *c, struct stream_set *set, const struct window *w,
                          struct i3c_iv *iv, uint64_t now, bool finished)
{
    uint64_t step = (uint64_t)(c->p->interval_s * 1e9);
    if (!w->open || !step)
        return;
    uint64_t s, r;
    if (!iv->ns) {
        iv->ns = w->measure_ns;
        iv->next_ns = iv->ns + step;
        stream_set_bytes(set, &iv->sent, &iv->received);
        return;
    }
    if (now < iv->next_ns && !finished)
        return;
    stream_set_bytes(set, &s, &r);
    struct interval_report rep = {.start = (double)(iv->ns - w->measure_ns) / 1e9,
                                  .end = (double)(now - w->measure_ns) / 1e9,
                                  .sent = s - iv->sent,
                                  .received = r - iv->received};
    if ((!finished || now - iv->ns >= step / 10) && !run_result_add_interval(c->res, &rep) &&
        c->cfg->on_interval)
        c->cfg->on_interval(&rep, c->cfg->ctx);
    iv->ns = now;
    iv->next_ns += step;
    iv->sent = s;
    iv->received = r;
}

/*
 * True when the test's end condition holds: the time, or -n's bytes sent
 * and received. While -n's bytes are not all in, the receivers' byte marks
 * are armed to wake the loop when they may be (stream_set_received_at_least).
 */
static bool finished(struct i3c *c, struct stream_set *set, const struct window *w, uint64_t now)
{
    if (!c->p->bytes)
        return w->open && now >= w->measure_ns + (uint64_t)(c->p->duration_s * 1e9);
    bool receives = c->p->reverse || c->p->bidir;
    return stream_set_senders_done(set) &&
           (!receives || stream_set_received_at_least(set, c->p->bytes));
}

/*
 * The loop's next deadline: the window's opening, the next interval, a
 * timed test's end. Everything else wakes it as an event: a state byte on
 * the control connection, a stream that ends or fails, -n's byte marks.
 */
static uint64_t next_deadline(const struct i3c *c, const struct window *w, const struct i3c_iv *iv)
{
    if (!w->open)
        return w->measure_ns;
    uint64_t until = UINT64_MAX;
    if (c->p->interval_s > 0 && iv->ns)
        until = iv->next_ns;
    uint64_t end = w->measure_ns + (uint64_t)(c->p->duration_s * 1e9);
    if (!c->p->bytes && end < until)
        until = end;
    return until;
}

static void on_ready(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop;
    (void)fd;
    (void)events;
    *(bool *)data = true;
}

static int drive(struct i3c *c, struct stream_set *set, struct window *w, struct evloop *loop,
                 const bool *ctl_ready)
{
    struct i3c_iv iv = {0};
    for (;;) {
        uint64_t now = clock_now_ns();
        window_tick(w, set, now);
        bool done = finished(c, set, w, now);
        interval_tick(c, set, w, &iv, now, done);
        const char *serr = stream_set_error(set);
        if (serr) {
            int rc = check_control(c);
            return rc ? rc : err_set(c->res->error, sizeof(c->res->error), EIO, "%s", serr);
        }
        if (done)
            return 0;
        int rc = *ctl_ready ? check_control(c) : 0;
        if (rc)
            return rc;
        if ((rc = evloop_run_once(loop, next_deadline(c, w, &iv))))
            return err_set(c->res->error, sizeof(c->res->error), rc, "epoll_wait: %s",
                           strerror(-rc));
    }
}

/* The socket's smoothed round trip (TCP_INFO), 1 ms when it has none, at most 100 ms. */
static uint64_t rtt_ns(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    uint64_t ns = 1000000;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 && ti.tcpi_rtt)
        ns = (uint64_t)ti.tcpi_rtt * 1000;
    return ns > 100000000 ? 100000000 : ns;
}

/*
 * Waits (bounded) until the senders' sockets have nothing left to send, so
 * that the server, which stops counting at TEST_END, sees what was sent.
 * The senders' ends wake the loop. A send queue that empties wakes nobody
 * (the kernel has no such event), so that part looks once per round trip
 * (the socket's smoothed RTT, which is what the queue waits on), not on a
 * fixed tick.
 */
static void flush_senders(struct stream_set *set, struct evloop *loop)
{
    uint64_t end = clock_now_ns() + I3C_FLUSH_NS;
    while (!stream_set_senders_done(set) && clock_now_ns() < end)
        if (evloop_run_once(loop, end))
            return;
    for (int i = 0; i < set->n; i++) {
        const struct stream *s = &set->streams[i];
        int q = 0;
        while (stream_role_sends(s->role) && clock_now_ns() < end &&
               ioctl(s->fd, SIOCOUTQ, &q) == 0 && q > 0) {
            uint64_t at = clock_now_ns() + rtt_ns(s->fd);
            if (evloop_run_once(loop, at < end ? at : end))
                return;
        }
    }
}

/* The results exchange: ours first, then the server's, then DISPLAY_RESULTS and IPERF_DONE. */
static int exchange(struct i3c *c, const bool *server_sends, json_t **theirs)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    json_t *ours = iperf3_peer_local_results(c->res, c->p, &c->ru_start, c->start_ns);
    int rc = ours ? iperf3_json_send(c->ctl, ours, deadline(c), err, len)
                  : err_set(err, len, ENOMEM, "out of memory");
    json_decref(ours);
    if (!rc)
        rc = iperf3_json_recv(c->ctl, IPERF3_RESULTS_MAX, false, theirs, deadline(c), err, len);
    if (!rc)
        rc = iperf3_peer_remote_side(*theirs, c->p, server_sends, c->res, err, len);
    if (!rc)
        rc = expect_state(c, IPERF3_DISPLAY_RESULTS);
    if (!rc)
        rc = iperf3_state_send(c->ctl, IPERF3_IPERF_DONE, deadline(c), err, len);
    return rc;
}

static int run_streams(struct i3c *c, int *fds, const bool *server_sends, struct evloop *loop,
                       const bool *ctl_ready)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    struct stream_set set;
    struct window w = {0};
    int rc = stream_set_init(&set, c->p, fds, server_sends, c->n, false, c->cfg->cpu,
                             c->cfg->idle_timeout_ms);
    if (rc)
        return err_set(err, len, rc, "out of memory");
    for (int i = 0; i < c->n; i++) {
        fds[i] = -1;
        set.streams[i].wire = UDP_WIRE_IPERF3_64; /* udp_counters_64bit was asked for */
    }
    stream_set_notify(&set, loop);
    getrusage(RUSAGE_SELF, &c->ru_start);
    c->start_ns = clock_now_ns();
    struct counters_opts co = {counters_mode_of(c->cfg->no_counters, c->p->perf), -1};
    if ((rc = window_begin(&w, &set, c->p->omit_s, clock_now_ns(), &co)))
        err_set(err, len, rc, "out of memory");
    if (!rc)
        rc = stream_set_start(&set, err, len);
    if (rc) {
        window_free(&w);
        stream_set_free(&set);
        return rc;
    }
    rc = drive(c, &set, &w, loop, ctl_ready);
    stream_set_stop(&set);
    if (!rc) {
        flush_senders(&set, loop);
        rc = iperf3_state_send(c->ctl, IPERF3_TEST_END, deadline(c), err, len);
    }
    if (!rc)
        rc = expect_state(c, IPERF3_EXCHANGE_RESULTS);
    /* The server closed its streams at TEST_END: our receivers read to their end. */
    int frc = stream_set_finish(&set, rc ? clock_now_ns() : deadline(c));
    if (!rc && frc)
        rc = err_set(err, len, frc, "data did not drain within the idle timeout");
    const char *serr = stream_set_error(&set);
    if (!rc && serr)
        rc = err_set(err, len, EIO, "%s", serr);
    if (window_close(&w, &set, &c->res->local, clock_now_ns()) == 0)
        c->res->have_local = true;
    window_free(&w);
    stream_set_free(&set);
    return rc;
}

/* The measured part on an event loop: the control connection, the streams' wakes, deadlines. */
static int run_measured(struct i3c *c, int *fds, const bool *server_sends)
{
    struct evloop loop;
    struct evloop_fd ctl;
    bool ctl_ready = false;
    int rc = evloop_init(&loop, NULL, NULL, c->res->error, sizeof(c->res->error));
    if (rc)
        return rc;
    rc = evloop_fd_add(&loop, &ctl, c->ctl, EPOLLIN, on_ready, &ctl_ready);
    if (rc)
        err_set(c->res->error, sizeof(c->res->error), rc, "epoll_ctl: %s", strerror(-rc));
    else
        rc = run_streams(c, fds, server_sends, &loop, &ctl_ready);
    evloop_fd_del(&loop, &ctl);
    evloop_free(&loop);
    return rc;
}

static int run_test(struct i3c *c, int *fds, bool *server_sends)
{
    json_t *theirs = NULL;
    int rc = handshake(c);
    if (!rc)
        rc = open_streams(c, fds, server_sends);
    if (!rc)
        rc = expect_state(c, IPERF3_TEST_START);
    if (!rc)
        rc = expect_state(c, IPERF3_TEST_RUNNING);
    if (!rc)
        rc = run_measured(c, fds, server_sends);
    if (!rc)
        rc = exchange(c, server_sends, &theirs);
    json_decref(theirs);
    return rc;
}

int iperf3_client_run(const struct client_config *cfg, const struct test_params *p,
                      struct run_result *res)
{
    struct i3c c = {.cfg = cfg, .p = p, .res = res, .ctl = -1, .n = params_connections(p)};
    c.idle_ns = (uint64_t)cfg->idle_timeout_ms * 1000000;
    res->params = *p;
    res->error[0] = '\0';
    snprintf(res->server, sizeof(res->server), "%s", cfg->host);
    res->port = cfg->port;
    clock_iso8601(res->started, sizeof(res->started));
    int rc = params_validate(p, res->error, sizeof(res->error));
    if (!rc)
        rc = iperf3_client_check(cfg, p, res->error, sizeof(res->error));
    if (rc)
        return rc;
    int *fds = malloc((size_t)c.n * sizeof(int));
    bool *server_sends = calloc((size_t)c.n, sizeof(bool));
    if (!fds || !server_sends) {
        free(fds);
        free(server_sends);
        return err_set(res->error, sizeof(res->error), ENOMEM, "out of memory");
    }
    /* As iperf3 orders them: with --bidir the client's senders first, then its receivers. */
    for (int i = 0; i < c.n; i++) {
        fds[i] = -1;
        server_sends[i] = p->reverse || (p->bidir && i >= p->streams);
    }
    c.ctl = sock_connect(cfg->host, cfg->port, cfg->family, cfg->bind_addr, 0,
                         cfg->connect_timeout_ms, res->error, sizeof(res->error));
    rc = c.ctl < 0 ? c.ctl : run_test(&c, fds, server_sends);
    for (int i = 0; i < c.n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
    free(server_sends);
    if (c.ctl >= 0)
        close(c.ctl);
    if (rc && !res->error[0])
        err_set(res->error, sizeof(res->error), rc, "test failed: %s", strerror(-rc));
    return rc;
}
