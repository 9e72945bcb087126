/*
 * One test on the server: greeting, parameters, data connections, the
 * measured run, the result. Every wait is bounded by the server's idle
 * timeout or the test's own schedule, and every failure is sent to the
 * client as an error message before the session ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/params.h"
#include "engine/path_rx.h"
#include "engine/side_report.h"
#include "engine/sockopt.h"
#include "engine/stream_set.h"
#include "engine/window.h"
#include "measure/identity.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/heartbeat.h"
#include "proto/msg.h"
#include "proto/path_mptcp.h"
#include "proto/server_session.h"
#include "util/clock.h"
#include "util/evloop.h"
#include "util/sock.h"
#include "util/jsonout.h"

/* Sends an error message. Returns whether it was sent; the peer may be gone, the log says so. */
static bool send_error(struct session *ss, const char *text)
{
    json_t *m = msg_error("%s", text);
    char ignored[NB_ERRLEN];
    bool sent =
        m && !frame_send(ss->fd, m, clock_now_ns() + 2000000000ull, ignored, sizeof(ignored));
    json_decref(m);
    return sent;
}

static int recv_msg(struct session *ss, json_t **msg)
{
    return frame_recv(ss->fd, msg, clock_now_ns() + ss->idle_ns, ss->err, sizeof(ss->err));
}

/*
 * With --auth-key, the message after welcome must be the client's proof. A
 * client that closes instead has refused the server's proof: its key differs.
 */
static int receive_proof(struct session *ss)
{
    json_t *m = NULL;
    int rc = recv_msg(ss, &m);
    if (rc == -ECONNRESET)
        rc = err_set(ss->err, sizeof(ss->err), EACCES,
                     "authentication failed: the client closed the connection instead of proving "
                     "that it holds the key (its key differs from this server's)");
    else if (!rc)
        rc = auth_server_check_proof(&ss->auth, m, ss->err, sizeof(ss->err));
    json_decref(m);
    if (rc)
        ss->phase = "authentication failed";
    return rc;
}

static int greet(struct session *ss, const uint8_t prefix[4])
{
    json_t *hello = NULL, *w = NULL;
    int rc = frame_recv_body(ss->fd, prefix, &hello, clock_now_ns() + ss->idle_ns, ss->err,
                             sizeof(ss->err));
    if (!rc)
        rc = msg_check_hello(hello, ss->err, sizeof(ss->err));
    if (!rc && !(w = msg_welcome()))
        rc = err_set(ss->err, sizeof(ss->err), ENOMEM, "out of memory");
    if (!rc)
        rc = auth_server_welcome(&ss->auth, ss->server->cfg.auth_key, hello, w, ss->err,
                                 sizeof(ss->err));
    json_decref(hello);
    if (rc) {
        json_decref(w);
        ss->phase = strstr(ss->err, "authentication") ? "authentication failed" : "bad greeting";
        return rc;
    }
    rc = frame_send(ss->fd, w, clock_now_ns() + ss->idle_ns, ss->err, sizeof(ss->err));
    json_decref(w);
    if (!rc && ss->server->cfg.auth_key)
        rc = receive_proof(ss);
    return rc;
}

/* The server side's stream memory for test p (stream_set_memory of its streams). */
static uint64_t test_memory(const struct test_params *p)
{
    int n = params_connections(p);
    if (p->flows) /* the flows' cost does not depend on their direction */
        return stream_set_memory(p, NULL, n, true);
    bool sends[2 * PARAMS_MAX_STREAMS];
    if (n > (int)(sizeof(sends) / sizeof(sends[0])))
        return UINT64_MAX;
    for (int i = 0; i < n; i++)
        sends[i] = p->reverse || (p->bidir && i >= p->streams);
    return stream_set_memory(p, sends, n, true);
}

static int check_limits(struct session *ss, const struct test_params *p)
{
    const struct server_config *cfg = &ss->server->cfg;
    int rc = session_check_flows(p, cfg, ss->err, sizeof(ss->err));
    if (rc)
        return rc;
    if (!p->flows && params_connections(p) > cfg->max_streams)
        return err_set(ss->err, sizeof(ss->err), EPERM,
                       "test asks for %d data connections, this server allows %d (--max-streams)",
                       params_connections(p), cfg->max_streams);
    /* Every stream's buffers, of every test kind: refused here, before anything is allocated. */
    uint64_t need = test_memory(p);
    if (need > cfg->max_test_memory)
        return err_set(ss->err, sizeof(ss->err), EPERM,
                       "test needs %llu MiB of server memory (%d streams, -l %u); this server "
                       "allows %llu MiB per test (--max-test-memory)",
                       (unsigned long long)((need + (1 << 20) - 1) >> 20), params_connections(p),
                       p->block, (unsigned long long)(cfg->max_test_memory >> 20));
    if (!p->bytes && p->duration_s + p->omit_s > cfg->max_duration)
        return err_set(ss->err, sizeof(ss->err), EPERM,
                       "test asks for %g s, this server allows %g s (--max-duration)",
                       p->duration_s + p->omit_s, cfg->max_duration);
    return 0;
}

/*
 * "result_max" of "start": the largest result frame the client accepts, at
 * least FRAME_MAX; absent (an older client) means FRAME_MAX. The server
 * never sends more than FRAME_RESULT_MAX, whatever a client offers.
 */
static int read_result_max(struct session *ss, const json_t *v)
{
    ss->result_max = FRAME_MAX;
    if (!v)
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < FRAME_MAX)
        return err_set(ss->err, sizeof(ss->err), EPROTO,
                       "\"result_max\" of \"start\" must be an integer of at least %d", FRAME_MAX);
    if (json_integer_value(v) < FRAME_RESULT_MAX)
        ss->result_max = (size_t)json_integer_value(v);
    else
        ss->result_max = FRAME_RESULT_MAX;
    return 0;
}

static int receive_params(struct session *ss, struct test_params *p)
{
    json_t *start = NULL;
    int rc = recv_msg(ss, &start);
    if (!rc)
        rc = msg_expect(start, "start", "client", ss->err, sizeof(ss->err));
    if (!rc)
        rc = params_from_json(json_object_get(start, "params"), p, ss->err, sizeof(ss->err));
    /* send path (issue 32): the server sends with -R and --bidir; refused if its kernel lacks it.
     */
    if (!rc)
        rc = path_tx_check(&p->tx, ss->err, sizeof(ss->err));
    if (!rc)
        ss->heartbeats = json_is_true(json_object_get(start, "heartbeat"));
    if (!rc)
        rc = read_result_max(ss, json_object_get(start, "result_max"));
    json_decref(start);
    if (rc)
        ss->phase = "bad parameters";
    /* receive and socket paths (issue 32): this end's kernel must have them too. */
    else if (path_rx_any(p) && (rc = path_rx_preflight(p, ss->err, sizeof(ss->err))))
        ss->phase = "a path this kernel lacks";
    else if ((rc = check_limits(ss, p)))
        ss->phase = "over a limit";
    return rc;
}

/* Applies the client's final sent counts from "stop" to the UDP receivers. */
static int apply_stop(struct session *ss, const json_t *stop, struct stream_set *set)
{
    json_t *sent = json_object_get(stop, "sent");
    if (!sent)
        return 0;
    if (!json_is_array(sent) || (int)json_array_size(sent) != set->n)
        return err_set(ss->err, sizeof(ss->err), EPROTO, "client's stop message is malformed");
    for (int i = 0; i < set->n; i++) {
        json_t *v = json_array_get(sent, (size_t)i);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return err_set(ss->err, sizeof(ss->err), EPROTO, "client's stop message is malformed");
        if (set->streams[i].role == ROLE_UDP_RECV)
            atomic_store(&set->streams[i].expected, (uint64_t)json_integer_value(v));
    }
    return 0;
}

/*
 * The test's event loop: the control connection, the server's stop and the
 * streams' wakes (stream_set_notify()), so that the session thread sleeps
 * until something happens or a deadline of its own passes, never on a
 * period beside the data threads.
 */
struct session_loop {
    struct evloop loop;
    struct evloop_fd ctl, quit;
    bool ctl_ready;
};

/* The control connection has input (data: ctl_ready); the server's stop only wakes the loop. */
static void on_ready(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop;
    (void)fd;
    (void)events;
    if (data)
        *(bool *)data = true;
}

static int loop_open(struct session *ss, struct session_loop *lp)
{
    lp->ctl_ready = false;
    int rc = evloop_init(&lp->loop, NULL, NULL, ss->err, sizeof(ss->err));
    if (rc)
        return rc;
    if ((rc = evloop_fd_add(&lp->loop, &lp->ctl, ss->fd, EPOLLIN, on_ready, &lp->ctl_ready)) ||
        (rc = evloop_fd_add(&lp->loop, &lp->quit, ss->server->quit_fd, EPOLLIN, on_ready, NULL))) {
        evloop_free(&lp->loop);
        return err_set(ss->err, sizeof(ss->err), rc, "epoll_ctl: %s", strerror(-rc));
    }
    return 0;
}

static void loop_close(struct session_loop *lp)
{
    evloop_fd_del(&lp->loop, &lp->ctl);
    evloop_fd_del(&lp->loop, &lp->quit);
    evloop_free(&lp->loop);
}

/*
 * When await_stop() next has something to do by itself: a heartbeat falls
 * due, the window opens or a limit passes. The client's messages, a
 * stream's failure and the server's stop wake it before.
 */
static uint64_t await_wake_ns(const struct heartbeat *hb, const struct window *w, uint64_t limit)
{
    uint64_t until = heartbeat_next_ns(hb);
    if (!w->open && w->measure_ns < until)
        until = w->measure_ns;
    return limit < until ? limit : until;
}

/* Waits for "stop", watching the server's limits and the peer's health. */
static int await_stop(struct session *ss, const struct test_params *p, struct stream_set *set,
                      struct window *w, struct session_loop *lp)
{
    const struct server_config *cfg = &ss->server->cfg;
    double limit = p->bytes ? cfg->max_duration : p->duration_s + p->omit_s;
    uint64_t hard_end =
        w->start_ns + (uint64_t)((limit > cfg->max_duration ? cfg->max_duration : limit) * 1e9);
    uint64_t deadline = hard_end + ss->idle_ns;
    struct heartbeat hb;
    heartbeat_init(&hb, ss->heartbeats ? cfg->liveness_timeout_ms : 0, clock_now_ns());
    for (;;) {
        window_tick(w, set, clock_now_ns());
        int hrc = heartbeat_tick(&hb, ss->fd, "client", clock_now_ns(), ss->err, sizeof(ss->err));
        if (hrc)
            return hrc;
        if (atomic_load(&ss->server->quit))
            return err_set(ss->err, sizeof(ss->err), ECANCELED, "the server is shutting down");
        uint64_t now = clock_now_ns();
        if (p->bytes && now > hard_end)
            return err_set(ss->err, sizeof(ss->err), ETIME,
                           "test exceeded the server's limit of %g s (--max-duration)",
                           cfg->max_duration);
        if (now > deadline)
            return err_set(ss->err, sizeof(ss->err), ETIMEDOUT,
                           "client sent no stop within %d ms of the test's end",
                           cfg->idle_timeout_ms);
        const char *serr = stream_set_error(set);
        if (serr)
            return err_set(ss->err, sizeof(ss->err), EIO, "%s", serr);
        if (!lp->ctl_ready) {
            /* The checks above fail once now > their limit: woken just past it. */
            uint64_t until = await_wake_ns(&hb, w, (p->bytes ? hard_end : deadline) + 1);
            int rc = evloop_run_once(&lp->loop, until);
            if (rc)
                return err_set(ss->err, sizeof(ss->err), rc, "epoll_wait: %s", strerror(-rc));
            continue;
        }
        lp->ctl_ready = false; /* level-triggered: a second message waiting sets it again */
        json_t *m = NULL;
        int rc = frame_recv(ss->fd, &m, clock_now_ns() + ss->idle_ns, ss->err, sizeof(ss->err));
        if (!rc && heartbeat_is(m)) {
            heartbeat_seen(&hb, clock_now_ns());
            json_decref(m);
            continue;
        }
        if (!rc)
            rc = msg_expect(m, "stop", "client", ss->err, sizeof(ss->err));
        if (!rc)
            rc = apply_stop(ss, m, set);
        json_decref(m);
        return rc;
    }
}

static void log_result(struct session *ss, const struct test_params *p, const struct side_report *r,
                       int rc)
{
    uint64_t sent = 0, recvd = 0;
    double secs = 0;
    for (int i = 0; r && i < r->n; i++) {
        if (r->streams[i].sender)
            sent += r->streams[i].bytes;
        else
            recvd += r->streams[i].bytes;
        if (r->streams[i].seconds > secs)
            secs = r->streams[i].seconds;
    }
    char line[1024];
    snprintf(line, sizeof(line),
             "peer=%s test=%s streams=%d reverse=%d bidir=%d duration=%g bytes=%llu "
             "sent=%llu received=%llu seconds=%.3f cpu=%.1f%% result=%s",
             ss->peer, params_kind_name(p->kind), p->streams, p->reverse, p->bidir, p->duration_s,
             (unsigned long long)p->bytes, (unsigned long long)sent, (unsigned long long)recvd,
             secs, r && r->cpu_valid ? r->cpu.total_pct : 0.0, rc ? ss->err : "ok");
    /* Every test that ran is logged; failed ones, which a peer can cause at will, within limits. */
    if (rc)
        server_log_peer(ss->server, &ss->addr, "test failed", "%s", line);
    else
        server_log(ss->server, "%s", line);
}

/* The size of msg as one compact JSON text; 0 when out of memory. */
static size_t encoded_size(const json_t *msg)
{
    char *text = jsonout_compact(msg);
    size_t len = text ? strlen(text) : 0;
    free(text);
    return len;
}

/*
 * A result must fit one frame of the size the client accepts (max). On
 * machines with hundreds of CPUs the per-CPU figures and softirq counts
 * could pass it: they are the first to go, then the kernel counters, so the
 * test's result still arrives. Returns the final size.
 */
static size_t fit_frame(json_t *res, size_t max)
{
    json_t *side = json_object_get(res, "side");
    json_t *drop[3] = {json_object_get(side, "cpu"), json_object_get(side, "kernel"), side};
    const char *key[3] = {"per_cpu", "softirqs", "kernel"};
    size_t len = encoded_size(res);
    for (int i = 0; i < 3 && len > max; i++) {
        if (json_object_get(drop[i], key[i]))
            json_object_set_new(drop[i], key[i], json_null());
        len = encoded_size(res);
    }
    /* The flows' retransmits are optional too (side_flows.c): absent, not null, reads as unknown.
     */
    json_t *flows = json_object_get(side, "flows");
    if (len > max && json_object_get(flows, "retransmits")) {
        json_object_del(flows, "retransmits");
        len = encoded_size(res);
    }
    return len;
}

/*
 * Sends the result, or, when even without the optional figures it is larger
 * than the client accepts (an older client with many streams), an error
 * that says so: the client must never see a connection that just closes.
 */
static int send_result(struct session *ss, const struct test_params *p, json_t *res)
{
    size_t len = fit_frame(res, ss->result_max);
    if (!len)
        return err_set(ss->err, sizeof(ss->err), ENOMEM, "out of memory");
    if (len > ss->result_max) {
        err_set(ss->err, sizeof(ss->err), EMSGSIZE,
                "the result of %d streams is %zu bytes, more than the %zu bytes this client "
                "accepts in one control message; run fewer streams (-P) or a newer client",
                params_connections(p), len, ss->result_max);
        send_error(ss, ss->err);
        return -EMSGSIZE;
    }
    return frame_send_max(ss->fd, res, ss->result_max, clock_now_ns() + ss->idle_ns, ss->err,
                          sizeof(ss->err));
}

/*
 * Stops and joins the running streams of a test that ended with rc: after a
 * normal stop (rc 0) they may drain for an idle timeout, unless the server
 * is stopping; after a failure they are aborted at once. Returns rc, or the
 * drain's or a stream's failure when rc was 0.
 */
static int end_streams(struct session *ss, struct stream_set *set, int rc, struct session_loop *lp)
{
    stream_set_stop(set);
    /* The client's messages (or its close) wait for the result: they must not wake the drain. */
    evloop_fd_del(&lp->loop, &lp->ctl);
    uint64_t drain_end = rc ? clock_now_ns() : clock_now_ns() + ss->idle_ns;
    /* Asleep until a stream ends (stream_set_notify()), the drain's end or the stop. */
    while (!stream_set_all_done(set) && clock_now_ns() < drain_end &&
           !atomic_load(&ss->server->quit))
        if (evloop_run_once(&lp->loop, drain_end))
            break;
    int frc = stream_set_finish(set, atomic_load(&ss->server->quit) ? 0 : drain_end);
    if (!rc && frc)
        rc = err_set(ss->err, sizeof(ss->err), frc,
                     "data did not drain within %d ms after the test ended",
                     ss->server->cfg.idle_timeout_ms);
    const char *serr = stream_set_error(set);
    if (!rc && serr)
        rc = err_set(ss->err, sizeof(ss->err), EIO, "%s", serr);
    return rc;
}

/*
 * Applies the test's socket options to the data connections of set (TCP
 * tests; tcp_crr's listener only gets the buffers its accepted connections
 * inherit) and the liveness timeout that shows a vanished client. Returns 0,
 * or a negative errno with ss->err saying what could not be set.
 */
static int apply_data_sockopts(struct session *ss, const struct test_params *p,
                               struct stream_set *set)
{
    char sockerr[NB_ERRLEN];
    int rc = 0;
    for (int i = 0; i < set->n && !rc && !params_is_udp(p->kind) && p->kind != TEST_TCP_CRR; i++) {
        rc = sockopt_apply(set->streams[i].fd, p, sockerr, sizeof(sockerr));
        /* A vanished client also shows on its data connections: unacknowledged data times out. */
        if (!rc &&
            (rc = path_mptcp_liveness(set->streams[i].fd, p, ss->server->cfg.liveness_timeout_ms)))
            snprintf(sockerr, sizeof(sockerr), "cannot set the data connections' liveness: %s",
                     strerror(-rc));
    }
    /* tcp_crr: accepted connections inherit the listener's buffers (-w). */
    if (!rc && p->kind == TEST_TCP_CRR && set->n > 0)
        rc = sockopt_buffers(set->streams[0].fd, p->sockbuf, sockerr, sizeof(sockerr));
    if (rc)
        err_set(ss->err, sizeof(ss->err), rc, "%s", sockerr);
    return rc;
}

/*
 * Sends this end's report of a test that ran to the client as its
 * "result", with the build identity of the interface that carries the
 * control connection. Returns 0, or a negative errno with ss->err set (an
 * oversized result has been told to the client by send_result()).
 */
static int send_side_report(struct session *ss, const struct test_params *p,
                            struct side_report *report)
{
    identity_capture_socket(&report->identity, ss->fd);
    report->have_identity = true;
    json_t *res = json_pack("{s:s, s:o}", "type", "result", "side", side_report_to_json(report));
    int rc =
        res ? send_result(ss, p, res) : err_set(ss->err, sizeof(ss->err), ENOMEM, "out of memory");
    json_decref(res);
    return rc;
}

/*
 * Runs the test once all data connections are attached: takes over t's
 * data connections, applies their options, starts the streams and the
 * window, says "ready", waits for the stop, then sends this end's result or
 * the error. Returns 0 or a negative errno (ss->err says why; the client
 * has been told).
 */
static int run_test(struct session *ss, const struct test_params *p, struct pending_test *t,
                    const struct sockaddr_storage *peers, const socklen_t *peer_lens)
{
    struct stream_set set;
    struct window w = {0};
    struct side_report report = {0};
    struct session_loop lp;
    int rc = loop_open(ss, &lp);
    if (rc) {
        send_error(ss, ss->err);
        return rc;
    }
    rc = stream_set_init(&set, p, t->fds, t->server_sends, t->expected, true, p->server_cpu,
                         ss->server->cfg.idle_timeout_ms);
    if (rc) {
        loop_close(&lp);
        err_set(ss->err, sizeof(ss->err), rc, "out of memory");
        send_error(ss, ss->err);
        return rc;
    }
    stream_set_notify(&set, &lp.loop);
    for (int i = 0; i < t->expected; i++) {
        t->fds[i] = -1; /* the set owns them now */
        if (peer_lens[i]) {
            set.streams[i].peer = peers[i];
            set.streams[i].peer_len = peer_lens[i];
        }
    }
    rc = apply_data_sockopts(ss, p, &set);
    /* In-process, the client's profile samples this end's CPUs too (counters.h). */
    if (ss->server->cfg.in_process)
        set.params.profile[0] = '\0';
    struct counters_opts co = {counters_mode_of(ss->server->cfg.no_counters, p->perf), -1};
    if (!rc && (rc = window_begin(&w, &set, p->omit_s, clock_now_ns(), &co)))
        err_set(ss->err, sizeof(ss->err), rc, "out of memory");
    if (!rc)
        rc = stream_set_start(&set, ss->err, sizeof(ss->err));
    /*
     * From here on this function is the one owner of the streams' lifetime:
     * once they run, every path below stops and joins them, whatever failed
     * (a "ready" that could not be sent to a client that reset its control
     * connection, a broken stop, a timeout or a shutdown).
     */
    bool running = rc == 0;
    if (!rc) {
        json_t *ready = msg_simple("ready");
        rc = frame_send(ss->fd, ready, clock_now_ns() + ss->idle_ns, ss->err, sizeof(ss->err));
        json_decref(ready);
    }
    bool told = false;
    if (!rc && (rc = await_stop(ss, p, &set, &w, &lp))) {
        /*
         * The server ends the test (a limit, a shutdown, a broken stream):
         * tell the client why before tearing the streams down, so it reads
         * the reason rather than a broken pipe.
         */
        send_error(ss, ss->err);
        told = true;
    }
    if (running)
        rc = end_streams(ss, &set, rc, &lp);
    if (!rc && (rc = window_close(&w, &set, &report, clock_now_ns())))
        err_set(ss->err, sizeof(ss->err), rc, "out of memory");
    if (!rc)
        rc = send_side_report(ss, p, &report);
    else if (!told)
        send_error(ss, ss->err);
    log_result(ss, p, rc ? NULL : &report, rc);
    side_report_free(&report);
    window_free(&w);
    stream_set_free(&set);
    loop_close(&lp);
    return rc;
}

static void free_pending(struct pending_test *t)
{
    for (int i = 0; t->fds && i < t->expected; i++)
        if (t->fds[i] >= 0)
            close(t->fds[i]);
    free(t->fds);
    free(t->server_sends);
}

void server_session_run(struct server *s, int fd, const uint8_t prefix[4])
{
    struct session ss = {.server = s, .fd = fd};
    ss.idle_ns = (uint64_t)s->cfg.idle_timeout_ms * 1000000;
    if (conntab_addr(&s->conns, fd, &ss.addr))
        ss.addr.ss_family = AF_UNSPEC;
    sock_addr_name((const struct sockaddr *)&ss.addr, ss.peer, sizeof(ss.peer));
    /* Control messages leave at once (sock_set_control); without it they only come later. */
    if (sock_set_control(fd))
        server_log(s, "peer=%s: cannot set TCP_NODELAY on the control connection", ss.peer);
    struct test_params p;
    int rc = greet(&ss, prefix);
    if (!rc)
        rc = receive_params(&ss, &p);
    /* A slot is taken only once a client asked for a test: silent ones lock no one out. */
    if (!rc)
        rc = server_admit(s, fd, test_memory(&p), &ss.phase, ss.err, sizeof(ss.err));
    if (rc) {
        server_refuse(s, fd, &ss.addr, rc, ss.phase, ss.err, sizeof(ss.err));
        return;
    }
    ss.reserved = test_memory(&p);
    /* Without it the heartbeats still notice a vanished client; it only adds a second way. */
    if (sock_set_liveness(fd, s->cfg.liveness_timeout_ms))
        server_log(s, "peer=%s: cannot set the control connection's TCP liveness", ss.peer);
    struct pending_test t = {0};
    int n = params_connections(&p);
    struct sockaddr_storage *peers = calloc((size_t)n, sizeof(*peers));
    socklen_t *peer_lens = calloc((size_t)n, sizeof(*peer_lens));
    rc = peers && peer_lens ? session_gather(&ss, &p, &t, peers, peer_lens)
                            : err_set(ss.err, sizeof(ss.err), ENOMEM, "out of memory");
    if (rc) {
        send_error(&ss, ss.err);
        log_result(&ss, &p, NULL, rc);
    } else {
        rc = run_test(&ss, &p, &t, peers, peer_lens);
    }
    free(peers);
    free(peer_lens);
    free_pending(&t);
    server_test_finished(s, rc);
    server_release(s, ss.reserved);
    server_conn_close(s, fd);
}
