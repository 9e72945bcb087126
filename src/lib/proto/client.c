#include "proto/client.h"
#include "proto/client_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/interval_tcp.h"
#include "engine/probe_log.h"
#include "engine/stream_set.h"
#include "engine/window.h"
#include "measure/identity.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/heartbeat.h"
#include "proto/msg.h"
#include "proto/transport.h"
#include "measure/histogram.h"
#include "util/clock.h"
#include "util/evloop.h"
#include "util/sock.h"

/*
 * UDP registrations travel as datagrams and may be lost: until the server
 * says "ready", they are sent again after this long (a retransmission
 * deadline; "ready" wakes the loop at once).
 */
#define REGISTER_RETRANSMIT_NS 50000000ull

/*
 * The measured part's loop (util/evloop): it wakes when the control
 * connection has a message, when a stream ends or fails (stream_set_notify),
 * and at its deadlines, never on a tick.
 */
struct ctl_loop {
    struct evloop loop;
    struct evloop_fd ctl, cancel;
    bool ctl_ready; /* the control connection has something to read */
};

void client_config_defaults(struct client_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->host = "127.0.0.1";
    cfg->family = AF_UNSPEC;
    cfg->cpu = -1;
    cfg->connect_timeout_ms = 5000;
    cfg->idle_timeout_ms = 10000;
}

/* Reads an unexpected message that arrived mid-test (normally the server's error). */
static int check_control(struct client *c)
{
    struct pollfd pfd = {.fd = c->ctl, .events = POLLIN};
    if (poll(&pfd, 1, 0) <= 0)
        return 0;
    json_t *m = NULL;
    int rc = frame_recv(c->ctl, &m, client_deadline(c), c->res->error, sizeof(c->res->error));
    if (!rc && heartbeat_is(m)) {
        heartbeat_seen(&c->hb, clock_now_ns());
        json_decref(m);
        return 0;
    }
    if (!rc)
        rc = msg_expect(m, "result", "server", c->res->error, sizeof(c->res->error));
    if (!rc)
        rc = err_set(c->res->error, sizeof(c->res->error), EPROTO,
                     "server sent its result before the test ended");
    json_decref(m);
    return rc;
}

static void emit_interval(struct client *c, struct interval_report *iv)
{
    if (run_result_add_interval(c->res, iv) == 0 && c->cfg->on_interval)
        c->cfg->on_interval(iv, c->cfg->ctx);
}

/* Sums the packet counters (datagrams or transactions) of a set. */
static uint64_t set_packets(struct stream_set *set)
{
    uint64_t n = 0;
    for (int i = 0; i < set->n; i++)
        n += atomic_load_explicit(&set->streams[i].packets, memory_order_relaxed);
    return n;
}

/* Interval bookkeeping: counters at the previous boundary. */
struct interval_state {
    uint64_t sent, received, packets, ns;
    struct histogram *lat_prev, *lat_now, *lat_diff; /* rr/crr only */
    struct interval_tcp_state tcp;                   /* TCP tests: TCP_INFO's counters */
    /* The last interval, kept from the test's end until the senders have stopped. */
    struct interval_report last;
    bool pending;
};

static void interval_snapshot(struct stream_set *set, struct interval_state *st)
{
    stream_set_bytes(set, &st->sent, &st->received);
    st->packets = set_packets(set);
    interval_tcp_begin(&st->tcp, set);
    if (st->lat_prev) {
        hist_init(st->lat_prev);
        for (int i = 0; i < set->n; i++)
            if (set->streams[i].latency)
                hist_merge(st->lat_prev, set->streams[i].latency);
    }
}

static void interval_emit(struct client *c, struct stream_set *set, struct window *w,
                          struct interval_state *st, uint64_t now, bool finished)
{
    uint64_t interval_ns = (uint64_t)(c->p->interval_s * 1e9);
    uint64_t s, r;
    stream_set_bytes(set, &s, &r);
    uint64_t pk = set_packets(set);
    struct interval_report iv = {.start = (double)(st->ns - w->measure_ns) / 1e9,
                                 .end = (double)(now - w->measure_ns) / 1e9,
                                 .sent = s - st->sent,
                                 .received = r - st->received,
                                 .packets = pk - st->packets,
                                 .transactions = params_is_rr(set->params.kind)};
    /* --flows keep their latencies in their loops' histograms, read only at the end. */
    if (st->lat_prev && !set->params.flows) {
        hist_init(st->lat_now);
        for (int i = 0; i < set->n; i++)
            if (set->streams[i].latency)
                hist_merge(st->lat_now, set->streams[i].latency);
        hist_subtract(st->lat_diff, st->lat_now, st->lat_prev);
        run_result_latency_summary(&iv.latency, st->lat_diff);
        iv.have_latency = true;
        /*
         * The histogram and the counters are read a moment apart while the
         * streams run; the histogram's count is the interval's transactions,
         * so the rate and the percentiles describe the same transactions.
         */
        iv.packets = iv.latency.count;
        struct histogram *t = st->lat_prev;
        st->lat_prev = st->lat_now;
        st->lat_now = t;
    }
    /*
     * The control thread's getsockopt per connection, beside the data
     * threads (docs/json.md). The last interval's waits for the senders'
     * stop (interval_last()): their retransmits then end where the end's
     * count does. A sliver at the end (under a tenth of an interval) is
     * not worth a line.
     */
    if (!finished) {
        interval_tcp_take(&st->tcp, set, &iv);
        emit_interval(c, &iv);
    } else if (now - st->ns >= interval_ns / 10) {
        st->last = iv;
        st->pending = true;
    }
    st->ns = now;
    st->sent = s;
    st->received = r;
    st->packets = pk;
}

/*
 * The driving loop's next deadline: the window's opening, the next
 * interval, a timed test's end, the heartbeat's next send or expiry. The
 * rest wakes it as an event: a message from the server, a stream that ends
 * or fails (a -n test ends when all its streams have), so that the window
 * (and its CPU figures) closes at the data's end without a tick beside the
 * data threads.
 */
static uint64_t drive_wake_ns(const struct client *c, const struct window *w, uint64_t next_ns,
                              uint64_t interval_ns)
{
    const struct test_params *p = c->p;
    uint64_t until = heartbeat_next_ns(&c->hb);
    uint64_t end = w->measure_ns + (uint64_t)(p->duration_s * 1e9);
    if (!w->open && w->measure_ns < until)
        until = w->measure_ns;
    if (w->open && interval_ns && next_ns && next_ns < until)
        until = next_ns;
    if (w->open && !p->bytes && end < until)
        until = end;
    return until;
}

/* rr/crr interval lines carry latencies: their histograms (none if memory is short). */
static void interval_state_init(const struct test_params *p, struct interval_state *st)
{
    if (!params_is_rr(p->kind) || !(p->interval_s > 0))
        return;
    st->lat_prev = malloc(sizeof(struct histogram));
    st->lat_now = malloc(sizeof(struct histogram));
    st->lat_diff = malloc(sizeof(struct histogram));
    if (!st->lat_prev || !st->lat_now || !st->lat_diff) {
        free(st->lat_prev);
        free(st->lat_now);
        free(st->lat_diff);
        st->lat_prev = st->lat_now = st->lat_diff = NULL;
    }
}

/* Emits the last interval once the senders have stopped (send_stop()), with their TCP state. */
static void interval_last(struct client *c, struct stream_set *set, struct interval_state *st)
{
    if (!st->pending)
        return;
    st->pending = false;
    interval_tcp_take(&st->tcp, set, &st->last);
    emit_interval(c, &st->last);
}

static void interval_state_free(struct interval_state *st)
{
    free(st->lat_prev);
    free(st->lat_now);
    free(st->lat_diff);
    interval_tcp_free(&st->tcp);
}

/* The measured part: intervals until the end condition, then stop. */
static int drive(struct client *c, struct stream_set *set, struct window *w, struct ctl_loop *cl,
                 struct interval_state *st)
{
    const struct test_params *p = c->p;
    uint64_t interval_ns = (uint64_t)(p->interval_s * 1e9);
    uint64_t next_ns = 0;
    int rc = 0;
    for (;;) {
        if (c->cancelled)
            return err_set(c->res->error, sizeof(c->res->error), ECANCELED,
                           "stopped: another part of the test failed");
        uint64_t now = clock_now_ns();
        window_tick(w, set, now);
        bool finished = p->bytes
                            ? stream_set_all_done(set)
                            : w->open && now >= w->measure_ns + (uint64_t)(p->duration_s * 1e9);
        if (w->open && !st->ns) {
            st->ns = w->measure_ns;
            next_ns = st->ns + interval_ns;
            interval_snapshot(set, st);
        }
        if (w->open && interval_ns && (now >= next_ns || finished)) {
            interval_emit(c, set, w, st, now, finished);
            next_ns += interval_ns;
        }
        const char *serr = stream_set_error(set);
        if (finished && !serr)
            break;
        if (serr) {
            /* The server may have ended the test on purpose: its reason beats our broken pipe. */
            struct pollfd pfd = {.fd = c->ctl, .events = POLLIN};
            if (poll(&pfd, 1, 500) > 0 &&
                (rc = client_control_lost(c, check_control(c), "while the test ran")))
                break;
            rc = err_set(c->res->error, sizeof(c->res->error), EIO, "%s", serr);
            break;
        }
        if (cl->ctl_ready) {
            /* Level-triggered: a second message waiting wakes the next wait at once. */
            cl->ctl_ready = false;
            if ((rc = client_control_lost(c, check_control(c), "while the test ran")))
                break;
        }
        if ((rc = client_control_lost(c,
                                      heartbeat_tick(&c->hb, c->ctl, "server", clock_now_ns(),
                                                     c->res->error, sizeof(c->res->error)),
                                      "while the test ran")))
            break;
        if ((rc = evloop_run_once(&cl->loop, drive_wake_ns(c, w, next_ns, interval_ns)))) {
            rc =
                err_set(c->res->error, sizeof(c->res->error), -rc, "epoll_wait: %s", strerror(-rc));
            break;
        }
    }
    return rc;
}

/* The client streams' latencies since the window opened, into the result's summary. */
static void collect_latency(struct client *c, struct stream_set *set, const struct window *w)
{
    if (!params_is_rr(c->p->kind))
        return;
    struct histogram *lat = calloc(1, sizeof(*lat));
    if (!lat)
        return;
    if (window_latency(w, set, lat) == 0) {
        run_result_latency_summary(&c->res->latency, lat);
        c->res->have_latency = true;
    }
    free(lat);
}

/* The UDP sockets of a set, for re-sending registrations; NULL for other tests. */
static int *fds_udp_of(struct stream_set *set)
{
    if (!params_is_udp(set->params.kind))
        return NULL;
    int *fds = malloc((size_t)set->n * sizeof(int));
    for (int i = 0; fds && i < set->n; i++)
        fds[i] = set->streams[i].fd;
    return fds;
}

/*
 * Waits for "ready". UDP registrations are sent again each
 * REGISTER_RETRANSMIT_NS until the control connection has a message (the
 * server is ready, or says why not). Frees udp_fds.
 */
static int await_ready(struct client *c, struct ctl_loop *cl, int *udp_fds)
{
    if (udp_fds) {
        uint64_t end = client_deadline(c), next = 0;
        cl->ctl_ready = false;
        for (;;) {
            uint64_t now = clock_now_ns();
            if (cl->ctl_ready || c->cancelled || now > end)
                break;
            if (now >= next) {
                transport_udp_register(udp_fds, params_connections(c->p), c->cookie);
                next = now + REGISTER_RETRANSMIT_NS;
            }
            /* A failed wait leaves the rest to client_expect() and its deadline. */
            if (evloop_run_once(&cl->loop, next < end ? next : end))
                break;
        }
        free(udp_fds);
    }
    return client_control_lost(c, client_expect(c, "ready", NULL), "while it prepared the test");
}

/* The "stop" message; UDP tests add each stream's sent count so the server knows what is lost. */
static json_t *stop_message(struct stream_set *set)
{
    json_t *stop = msg_simple("stop");
    if (params_is_udp(set->params.kind) && set->params.kind == TEST_UDP_STREAM) {
        json_t *sent = json_array();
        for (int i = 0; i < set->n; i++) {
            const struct stream *s = &set->streams[i];
            uint64_t v = s->role == ROLE_UDP_SEND ? atomic_load(&((struct stream *)s)->packets) : 0;
            json_array_append_new(sent, json_integer((json_int_t)v));
        }
        json_object_set_new(stop, "sent", sent);
    }
    return stop;
}

/*
 * After drive(): the senders' end, then "stop". Senders must have stopped
 * before their counts go into "stop", and rr/crr clients must have their
 * last transactions answered: the server stops serving on "stop", and a
 * request it never answers would count as lost (udp_rr) or as a read error
 * (tcp_crr). The streams' ends wake the loop; heartbeats are its deadlines.
 */
static int send_stop(struct client *c, struct stream_set *set, struct ctl_loop *cl)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    /* The server's messages wait for client_expect() from here: they must not wake this wait. */
    evloop_fd_del(&cl->loop, &cl->ctl);
    uint64_t end = client_deadline(c);
    int rc = 0;
    while (!rc && !stream_set_senders_done(set) && clock_now_ns() < end) {
        uint64_t hb = heartbeat_next_ns(&c->hb);
        if ((rc = evloop_run_once(&cl->loop, hb < end ? hb : end)))
            return err_set(err, len, -rc, "epoll_wait: %s", strerror(-rc));
        rc = client_control_lost(c,
                                 heartbeat_tick(&c->hb, c->ctl, "server", clock_now_ns(), err, len),
                                 "as the test ended");
    }
    if (!rc) {
        json_t *stop = stop_message(set);
        rc = client_control_lost(c, frame_send(c->ctl, stop, client_deadline(c), err, len),
                                 "as the test ended");
        json_decref(stop);
    }
    return rc;
}

static int run_streams(struct client *c, int *fds, bool *server_sends, int n, struct ctl_loop *cl)
{
    struct stream_set set;
    struct window w = {0};
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    int rc = stream_set_init(&set, c->p, fds, server_sends, n, false, c->cfg->cpu,
                             c->cfg->idle_timeout_ms);
    if (rc)
        return err_set(err, len, rc, "out of memory");
    for (int i = 0; i < n; i++)
        fds[i] = -1;
    stream_set_notify(&set, &cl->loop);
    if (n > 0)
        set.streams[0].probe = c->cfg->probe;
    if (c->p->kind == TEST_TCP_CRR) {
        for (int i = 0; i < n; i++) {
            struct stream *s = &set.streams[i];
            transport_peer_with_port(c->ctl, c->crr_port, &s->peer, &s->peer_len);
            if (c->cfg->cport_lo) {
                /* Each stream cycles through its own slice of the range, so they never collide. */
                uint32_t span = (uint32_t)(c->cfg->cport_hi - c->cfg->cport_lo + 1) / (uint32_t)n;
                s->cport_lo = (uint16_t)(c->cfg->cport_lo + (uint32_t)i * span);
                s->cport_hi = (uint16_t)(s->cport_lo + (span ? span : 1) - 1);
            }
        }
    }
    rc = await_ready(c, cl, fds_udp_of(&set));
    struct counters_opts co = {counters_mode_of(c->cfg->no_counters, c->p->perf),
                               c->cfg->in_process ? c->p->server_cpu : -1};
    if (!rc && (rc = window_begin(&w, &set, c->p->omit_s, clock_now_ns(), &co)))
        err_set(err, len, rc, "out of memory");
    if (!rc)
        rc = stream_set_start(&set, err, len);
    if (!rc && c->cfg->mark)
        probe_log_mark_open(c->cfg->mark, clock_now_ns());
    if (rc) {
        window_free(&w);
        stream_set_free(&set);
        return rc;
    }
    heartbeat_init(&c->hb, c->liveness_ms, clock_now_ns());
    struct interval_state st = {0};
    interval_state_init(c->p, &st);
    rc = drive(c, &set, &w, cl, &st);
    /* A run that ended in full ends as usual; a cancel from now on would only spin send_stop's
     * waits. */
    evloop_fd_del(&cl->loop, &cl->cancel);
    if (c->cfg->mark)
        probe_log_mark_close(c->cfg->mark, clock_now_ns());
    stream_set_stop(&set);
    if (!rc)
        rc = send_stop(c, &set, cl);
    interval_last(c, &set, &st);
    interval_state_free(&st);
    int frc = stream_set_finish(&set, rc ? clock_now_ns() : client_deadline(c));
    if (!rc && frc)
        rc = err_set(err, len, frc, "data did not drain within the idle timeout");
    const char *serr = stream_set_error(&set);
    if (!rc && serr)
        rc = err_set(err, len, EIO, "%s", serr);
    if (window_close(&w, &set, &c->res->local, clock_now_ns()) == 0) {
        c->res->have_local = true;
        identity_capture_socket(&c->res->local.identity, c->ctl);
        c->res->local.have_identity = true;
    }
    collect_latency(c, &set, &w);
    window_free(&w);
    stream_set_free(&set);
    return rc;
}

static void on_ready(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop;
    (void)fd;
    (void)events;
    *(bool *)data = true;
}

/* The streams with their control loop: the control connection, the streams' wakes, deadlines. */
static int run_measured(struct client *c, int *fds, bool *server_sends, int n)
{
    struct ctl_loop cl = {0};
    int rc = evloop_init(&cl.loop, NULL, NULL, c->res->error, sizeof(c->res->error));
    if (rc)
        return rc;
    rc = evloop_fd_add(&cl.loop, &cl.ctl, c->ctl, EPOLLIN, on_ready, &cl.ctl_ready);
    if (!rc && c->cfg->cancel_fd)
        rc = evloop_fd_add(&cl.loop, &cl.cancel, *c->cfg->cancel_fd, EPOLLIN, on_ready,
                           &c->cancelled);
    if (rc)
        err_set(c->res->error, sizeof(c->res->error), -rc, "epoll_ctl: %s", strerror(-rc));
    else
        rc = run_streams(c, fds, server_sends, n, &cl);
    evloop_fd_del(&cl.loop, &cl.ctl);
    evloop_fd_del(&cl.loop, &cl.cancel);
    evloop_free(&cl.loop);
    return rc;
}

static int receive_result(struct client *c, int n)
{
    json_t *m = NULL;
    int rc =
        client_control_lost(c, client_expect(c, "result", &m), "before it sent the test's result");
    if (rc)
        return rc;
    rc = side_report_from_json(json_object_get(m, "side"), n, &c->res->remote, c->res->error,
                               sizeof(c->res->error));
    json_decref(m);
    if (!rc)
        c->res->have_remote = true;
    return rc;
}

int client_run(const struct client_config *cfg, const struct test_params *p, struct run_result *res)
{
    struct client c = {.cfg = cfg, .p = p, .res = res, .ctl = -1};
    c.idle_ns = (uint64_t)cfg->idle_timeout_ms * 1000000;
    res->params = *p;
    res->cport_lo = cfg->cport_lo;
    res->cport_hi = cfg->cport_hi;
    res->error[0] = '\0';
    snprintf(res->server, sizeof(res->server), "%s", cfg->host);
    res->port = cfg->port;
    clock_iso8601(res->started, sizeof(res->started));
    int rc = params_validate(p, res->error, sizeof(res->error));
    /* send path (issue 32): what this kernel lacks refuses the test before it starts. */
    if (!rc)
        rc = path_tx_check(&p->tx, res->error, sizeof(res->error));
    if (rc)
        return rc;
    int n = params_connections(p);
    int *fds = malloc((size_t)n * sizeof(int));
    bool *server_sends = calloc((size_t)n, sizeof(bool));
    if (!fds || !server_sends) {
        free(fds);
        free(server_sends);
        return err_set(res->error, sizeof(res->error), ENOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++)
        fds[i] = -1;
    c.ctl = sock_connect(cfg->host, cfg->port, cfg->family, cfg->bind_addr, 0,
                         cfg->connect_timeout_ms, res->error, sizeof(res->error));
    if (c.ctl < 0)
        rc = c.ctl;
    /* The control messages (start, heartbeats, stop) must not wait behind Nagle's algorithm. */
    if (!rc && sock_set_control(c.ctl))
        rc = err_set(res->error, sizeof(res->error), EIO,
                     "cannot set TCP_NODELAY on the control connection");
    if (!rc)
        rc = client_handshake(&c);
    if (!rc)
        rc = client_open_data(&c, fds, server_sends, n);
    if (!rc)
        rc = run_measured(&c, fds, server_sends, n);
    if (!rc)
        rc = receive_result(&c, n);
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
    free(server_sends);
    free(c.udp_ports);
    if (c.ctl >= 0)
        close(c.ctl);
    if (rc && !res->error[0])
        err_set(res->error, sizeof(res->error), rc, "test failed: %s", strerror(-rc));
    return rc;
}
