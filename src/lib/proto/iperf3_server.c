/*
 * One iperf3 client's test on netab's server (docs/iperf3.md): the server
 * drives the states (PARAM_EXCHANGE, CREATE_STREAMS, TEST_START,
 * TEST_RUNNING, EXCHANGE_RESULTS, DISPLAY_RESULTS), the engine's streams
 * carry the data. Every wait is bounded by the server's idle timeout or the
 * test's own schedule, the parameters are checked member by member, and the
 * server's limits (--max-clients, --max-streams, --max-duration,
 * --max-test-memory, --max-memory) apply as to netab's own clients. A
 * refusal goes to the client as SERVER_ERROR (or ACCESS_DENIED when busy)
 * and to the server's log in words, within the per-host rate limits that
 * netab's own refusals have (server_log_peer, proto/loglimit).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/sockios.h>

#include "engine/path_tx.h"
#include "engine/sockopt.h"
#include "engine/stream_set.h"
#include "engine/window.h"
#include "proto/iperf3_doc.h"
#include "proto/iperf3_door.h"
#include "proto/iperf3_output.h"
#include "proto/iperf3_peer.h"
#include "proto/iperf3_udp.h"
#include "proto/server_internal.h"
#include "util/clock.h"
#include "util/evloop.h"
#include "util/sock.h"

/* iperf3's own error numbers sent with SERVER_ERROR (its client prints its text for them). */
#define I3_IERECVPARAMS 114
#define I3_IESTREAMACCEPT 204
#define I3_IESTREAMREAD 206
#define I3_IERECVRESULTS 117
#define I3_IEAUTHTEST 142 /* "test authorization failed" */
/* The client's results carry no server output: a megabyte is ample. */
#define I3_CLIENT_RESULTS_MAX (1024u * 1024)

/* After TEST_END: the receivers are done once nothing arrived for this long. */
#define I3S_QUIET_NS 50000000ull

struct i3s {
    struct server *server;
    int fd;
    char peer[80];
    struct sockaddr_storage addr; /* the peer, for the log's per-host limits */
    const char *kind;             /* a refusal's kind in the log's summaries */
    uint64_t idle_ns;
    struct test_params p;
    struct iperf3_request req;
    uint64_t reserved;
    int n;
    int *fds;
    bool *server_sends;
    char err[NB_ERRLEN];
    struct rusage ru_start;
    uint64_t start_ns;
    struct iperf3_results theirs; /* the client's results, for the log */
    struct side_report report;    /* this end's figures, for the log */
    bool measured;
};

static uint64_t deadline(const struct i3s *ss)
{
    return clock_now_ns() + ss->idle_ns;
}

/* SERVER_ERROR with iperf3's error number and an errno; best effort, the log has the words. */
static void send_server_error(struct i3s *ss, int i3errno, int errnum)
{
    uint8_t b[9] = {(uint8_t)IPERF3_SERVER_ERROR};
    uint32_t v[2] = {(uint32_t)i3errno, (uint32_t)errnum};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 4; j++)
            b[1 + 4 * k + j] = (uint8_t)(v[k] >> (24 - 8 * j));
    (void)!send(ss->fd, b, sizeof(b), MSG_DONTWAIT | MSG_NOSIGNAL);
}

static int refuse(struct i3s *ss, int i3errno, int rc)
{
    send_server_error(ss, i3errno, -rc);
    return rc;
}

/* The server's stream memory for the test (stream_set_memory), as netab's sessions count it. */
static uint64_t test_memory(const struct i3s *ss)
{
    return stream_set_memory(&ss->p, ss->server_sends, ss->n, true);
}

/*
 * --max-test-memory, then a --max-clients slot, --max-memory and the proof
 * of the connection (server_admit(), as for netab's clients): refused before
 * anything is allocated. Returns 0 (ss->reserved then holds the memory to
 * give back with server_release()) or a negative errno with ss->err set.
 */
static int admit(struct i3s *ss)
{
    struct server *s = ss->server;
    uint64_t need = test_memory(ss);
    ss->kind = "over a limit";
    if (need > s->cfg.max_test_memory)
        return err_set(ss->err, sizeof(ss->err), EPERM,
                       "iperf3 test needs %llu MiB of server memory; this server allows %llu MiB "
                       "per test (--max-test-memory)",
                       (unsigned long long)((need + (1 << 20) - 1) >> 20),
                       (unsigned long long)(s->cfg.max_test_memory >> 20));
    int rc = server_admit(s, ss->fd, need, &ss->kind, ss->err, sizeof(ss->err));
    if (!rc)
        ss->reserved = need;
    return rc;
}

/* PARAM_EXCHANGE: the client's document, checked member by member against the limits. */
static int exchange_params(struct i3s *ss)
{
    const struct server_config *cfg = &ss->server->cfg;
    int rc =
        iperf3_state_send(ss->fd, IPERF3_PARAM_EXCHANGE, deadline(ss), ss->err, sizeof(ss->err));
    json_t *doc = NULL;
    if (!rc)
        rc = iperf3_json_recv(ss->fd, IPERF3_PARAMS_MAX, true, &doc, deadline(ss), ss->err,
                              sizeof(ss->err));
    if (!rc) {
        struct iperf3_limits lim = {.max_streams = cfg->max_streams,
                                    .max_duration = cfg->max_duration};
        params_defaults(&ss->p);
        rc = iperf3_params_from_json(doc, &lim, &ss->p, &ss->req, ss->err, sizeof(ss->err));
    }
    /* The send path iperf3 asked for (-Z, --fq-rate, -b): refused here if this kernel lacks it. */
    if (!rc)
        rc = path_tx_check(&ss->p.tx, ss->err, sizeof(ss->err));
    json_decref(doc);
    ss->kind =
        rc == -ECONNRESET || rc == -EPIPE ? "closed before its test started" : "bad parameters";
    if (rc)
        return refuse(ss, I3_IERECVPARAMS, rc);
    ss->n = params_connections(&ss->p);
    ss->fds = malloc((size_t)ss->n * sizeof(int));
    ss->server_sends = calloc((size_t)ss->n, sizeof(bool));
    if (!ss->fds || !ss->server_sends)
        return refuse(ss, I3_IERECVPARAMS,
                      err_set(ss->err, sizeof(ss->err), ENOMEM, "out of memory"));
    /* As iperf3 orders them: with --bidir the client's senders first, then its receivers. */
    for (int i = 0; i < ss->n; i++) {
        ss->fds[i] = -1;
        ss->server_sends[i] = ss->p.reverse || (ss->p.bidir && i >= ss->p.streams);
    }
    return 0;
}

/* CREATE_STREAMS for TCP: the data connections come through the front door with the cookie. */
static int gather_tcp(struct i3s *ss, const uint8_t cookie[IPERF3_COOKIE_LEN])
{
    struct iperf3_pending t = {.expected = ss->n, .fds = ss->fds};
    memcpy(t.cookie, cookie, IPERF3_COOKIE_LEN);
    iperf3_door_register(&t);
    int rc =
        iperf3_state_send(ss->fd, IPERF3_CREATE_STREAMS, deadline(ss), ss->err, sizeof(ss->err));
    uint64_t end = deadline(ss);
    while (!rc && clock_now_ns() < end) {
        uint64_t slice = clock_now_ns() + 100000000ull;
        rc = iperf3_door_wait(&t, slice < end ? slice : end);
        if (!rc)
            break;
        rc = 0;
        struct pollfd pfd = {.fd = ss->fd, .events = POLLIN | POLLRDHUP};
        if (poll(&pfd, 1, 0) > 0) {
            rc = err_set(ss->err, sizeof(ss->err), ECONNRESET,
                         "client spoke or closed before its data connections arrived");
            break;
        }
    }
    if (!rc && t.attached < t.expected)
        rc = err_set(ss->err, sizeof(ss->err), ETIMEDOUT,
                     "only %d of %d data connections arrived in time", t.attached, t.expected);
    iperf3_door_unregister(&t);
    for (int i = 0; !rc && i < ss->n; i++) {
        char e[NB_ERRLEN];
        if (sockopt_apply(ss->fds[i], &ss->p, e, sizeof(e)) ||
            sock_set_liveness(ss->fds[i], ss->server->cfg.liveness_timeout_ms))
            rc = err_set(ss->err, sizeof(ss->err), EINVAL, "%s", e);
    }
    return rc ? refuse(ss, I3_IESTREAMACCEPT, rc) : 0;
}

/* CREATE_STREAMS for UDP: hellos on the test's port, one stream at a time (iperf3_udp.h). */
static int gather_udp(struct i3s *ss)
{
    int rc = iperf3_udp_turn(deadline(ss));
    if (rc) {
        err_set(ss->err, sizeof(ss->err), rc, "another test's UDP set-up held the port too long");
        return refuse(ss, I3_IESTREAMACCEPT, rc);
    }
    int lfd = iperf3_udp_listen(ss->fd, ss->p.sockbuf, ss->err, sizeof(ss->err));
    rc = lfd < 0 ? lfd
                 : iperf3_state_send(ss->fd, IPERF3_CREATE_STREAMS, deadline(ss), ss->err,
                                     sizeof(ss->err));
    if (!rc)
        rc = iperf3_udp_accept(ss->fd, lfd, ss->n, ss->p.sockbuf, ss->fds, deadline(ss), ss->err,
                               sizeof(ss->err));
    else if (lfd >= 0)
        close(lfd);
    iperf3_udp_turn_end();
    return rc ? refuse(ss, I3_IESTREAMACCEPT, rc) : 0;
}

/* The test's event loop: the control connection, the server's stop, the streams' wakes. */
struct i3s_loop {
    struct evloop loop;
    struct evloop_fd ctl, quit;
    bool ctl_ready;
};

static void on_ctl(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop;
    (void)fd;
    (void)events;
    *(bool *)data = true;
}

/* The server's stop only wakes the loop, which then reads the quit flag. */
static void on_quit(struct evloop *loop, int fd, uint32_t events, void *data)
{
    (void)loop;
    (void)fd;
    (void)events;
    (void)data;
}

static int loop_open(struct i3s *ss, struct i3s_loop *lp)
{
    lp->ctl_ready = false;
    int rc = evloop_init(&lp->loop, NULL, NULL, ss->err, sizeof(ss->err));
    if (rc)
        return rc;
    if ((rc = evloop_fd_add(&lp->loop, &lp->ctl, ss->fd, EPOLLIN, on_ctl, &lp->ctl_ready)) ||
        (rc = evloop_fd_add(&lp->loop, &lp->quit, ss->server->quit_fd, EPOLLIN, on_quit, NULL))) {
        evloop_free(&lp->loop);
        return err_set(ss->err, sizeof(ss->err), rc, "epoll_ctl: %s", strerror(-rc));
    }
    return 0;
}

static void loop_close(struct i3s_loop *lp)
{
    evloop_fd_del(&lp->loop, &lp->ctl);
    evloop_fd_del(&lp->loop, &lp->quit);
    evloop_free(&lp->loop);
}

/*
 * Waits for TEST_END within the test's schedule, watching the limits and the
 * server's stop: asleep until a state byte, the stop, a stream's failure,
 * the window's opening or the schedule's end.
 */
static int await_end(struct i3s *ss, struct stream_set *set, struct window *w, struct i3s_loop *lp)
{
    const struct server_config *cfg = &ss->server->cfg;
    double limit = ss->p.bytes ? cfg->max_duration : ss->p.duration_s + ss->p.omit_s;
    uint64_t hard_end = w->start_ns + (uint64_t)(limit * 1e9) + ss->idle_ns;
    for (;;) {
        window_tick(w, set, clock_now_ns());
        if (atomic_load(&ss->server->quit))
            return err_set(ss->err, sizeof(ss->err), ECANCELED, "the server is shutting down");
        if (clock_now_ns() > hard_end)
            return err_set(ss->err, sizeof(ss->err), ETIMEDOUT,
                           "client sent no TEST_END within %d ms of the test's end (limit %g s)",
                           cfg->idle_timeout_ms, limit);
        const char *serr = stream_set_error(set);
        if (serr)
            return err_set(ss->err, sizeof(ss->err), EIO, "%s", serr);
        if (!lp->ctl_ready) {
            uint64_t until = !w->open && w->measure_ns < hard_end ? w->measure_ns : hard_end + 1;
            int rc = evloop_run_once(&lp->loop, until);
            if (rc)
                return err_set(ss->err, sizeof(ss->err), rc, "epoll_wait: %s", strerror(-rc));
            continue;
        }
        int st = 0;
        int rc = iperf3_state_recv(ss->fd, &st, deadline(ss), ss->err, sizeof(ss->err));
        if (rc)
            return rc;
        if (st == IPERF3_TEST_END)
            return 0;
        if (st == IPERF3_CLIENT_TERMINATE)
            return err_set(ss->err, sizeof(ss->err), ECONNABORTED, "the client terminated");
        return err_set(ss->err, sizeof(ss->err), EPROTO,
                       "client sent state %d (%s) during the test", st, iperf3_state_name(st));
    }
}

/* Received bytes and queued input of the receivers, to see when they have drained. */
static uint64_t receiver_backlog(struct stream_set *set, uint64_t *got)
{
    uint64_t queued = 0;
    *got = 0;
    for (int i = 0; i < set->n; i++) {
        struct stream *s = &set->streams[i];
        if (s->sender)
            continue;
        *got += atomic_load_explicit(&s->bytes, memory_order_relaxed);
        int q = 0;
        if (ioctl(s->fd, SIOCINQ, &q) == 0 && q > 0)
            queued += (uint64_t)q;
    }
    return queued;
}

/*
 * Ends the streams after TEST_END. The iperf3 client stops sending then, but
 * keeps its data connections open until the results are exchanged: the
 * receivers count until nothing is queued and nothing arrived for 50 ms
 * (bounded by the idle timeout), then the streams are stopped and joined.
 * A TCP receiver stopped so ends when its last byte arrived, not when it
 * was told to stop: its end time is set back to that moment.
 */
static int end_streams(struct i3s *ss, struct stream_set *set, int rc, struct i3s_loop *lp)
{
    stream_set_stop(set);
    uint64_t end = rc ? 0 : deadline(ss), last = 0, still_since = clock_now_ns();
    while (clock_now_ns() < end && !atomic_load(&ss->server->quit)) {
        uint64_t got;
        uint64_t queued = receiver_backlog(set, &got);
        if (got != last || queued) {
            last = got;
            still_since = clock_now_ns();
        } else if (clock_now_ns() - still_since > I3S_QUIET_NS) {
            break;
        }
        /* Asleep until a receiver counts its next byte, the quiet spell passes or the stop. */
        if (stream_set_received_at_least(set, got + 1))
            continue;
        uint64_t until = still_since + I3S_QUIET_NS + 1;
        if (evloop_run_once(&lp->loop, until < end ? until : end))
            break;
    }
    /* UDP receivers end by themselves after a quiet spell; TCP ones are told to. */
    bool udp = ss->p.kind == TEST_UDP_STREAM;
    (void)stream_set_finish(set, rc || !udp ? 0 : clock_now_ns() + 400000000ull);
    for (int i = 0; !udp && i < set->n; i++)
        if (!set->streams[i].sender && set->streams[i].end_ns > still_since)
            set->streams[i].end_ns = still_since;
    const char *serr = stream_set_error(set);
    if (!rc && serr)
        rc = err_set(ss->err, sizeof(ss->err), EIO, "%s", serr);
    return rc;
}

/* EXCHANGE_RESULTS: the client's document first, then ours; DISPLAY_RESULTS; IPERF_DONE. */
static int exchange_results(struct i3s *ss, const struct side_report *report)
{
    char *err = ss->err;
    size_t len = sizeof(ss->err);
    int rc = iperf3_state_send(ss->fd, IPERF3_EXCHANGE_RESULTS, deadline(ss), err, len);
    json_t *theirs = NULL;
    if (!rc)
        rc = iperf3_json_recv(ss->fd, I3_CLIENT_RESULTS_MAX, true, &theirs, deadline(ss), err, len);
    if (!rc)
        rc = iperf3_results_from_json(theirs, ss->n, &ss->theirs, err, len);
    json_decref(theirs);
    if (rc)
        return refuse(ss, I3_IERECVRESULTS, rc);
    struct iperf3_results ours;
    if (iperf3_peer_results(report, &ss->p, false, &ss->ru_start, ss->start_ns, &ours))
        return err_set(err, len, ENOMEM, "out of memory");
    json_t *doc = iperf3_results_to_json(&ours);
    if (doc && ss->req.get_server_output)
        json_object_set_new(doc, "server_output_json",
                            iperf3_output_json(report, &ss->p, &ours, ss->n));
    iperf3_results_free(&ours);
    rc = doc ? iperf3_json_send(ss->fd, doc, deadline(ss), err, len)
             : err_set(err, len, ENOMEM, "out of memory");
    json_decref(doc);
    if (!rc)
        rc = iperf3_state_send(ss->fd, IPERF3_DISPLAY_RESULTS, deadline(ss), err, len);
    /* The client answers IPERF_DONE and closes; its absence changes nothing measured. */
    int st = 0;
    char ignored[NB_ERRLEN];
    if (!rc)
        (void)!iperf3_state_recv(ss->fd, &st, deadline(ss), ignored, sizeof(ignored));
    return rc;
}

/* The streams from TEST_START to the end of the result exchange. */
static int run_test(struct i3s *ss)
{
    struct stream_set set;
    struct window w = {0};
    struct side_report *report = &ss->report;
    struct i3s_loop lp;
    int rc = loop_open(ss, &lp);
    if (rc)
        return refuse(ss, I3_IESTREAMACCEPT, rc);
    rc = stream_set_init(&set, &ss->p, ss->fds, ss->server_sends, ss->n, true, -1,
                         ss->server->cfg.idle_timeout_ms);
    if (rc) {
        loop_close(&lp);
        return refuse(ss, I3_IESTREAMACCEPT,
                      err_set(ss->err, sizeof(ss->err), rc, "out of memory"));
    }
    stream_set_notify(&set, &lp.loop);
    for (int i = 0; i < ss->n; i++) {
        ss->fds[i] = -1; /* the set owns them now */
        set.streams[i].wire = ss->req.udp64 ? UDP_WIRE_IPERF3_64 : UDP_WIRE_IPERF3_32;
    }
    getrusage(RUSAGE_SELF, &ss->ru_start);
    ss->start_ns = clock_now_ns();
    struct counters_opts co = {counters_mode_of(ss->server->cfg.no_counters, false), -1};
    rc = window_begin(&w, &set, ss->p.omit_s, clock_now_ns(), &co);
    /* As iperf3's server: both states first, then data (its client counts only once running). */
    if (!rc)
        rc = iperf3_state_send(ss->fd, IPERF3_TEST_START, deadline(ss), ss->err, sizeof(ss->err));
    if (!rc)
        rc = iperf3_state_send(ss->fd, IPERF3_TEST_RUNNING, deadline(ss), ss->err, sizeof(ss->err));
    if (!rc)
        rc = stream_set_start(&set, ss->err, sizeof(ss->err));
    bool running = rc == 0;
    if (!rc && (rc = await_end(ss, &set, &w, &lp)))
        send_server_error(ss, rc == -ECANCELED ? 120 : I3_IESTREAMREAD, -rc);
    if (running)
        rc = end_streams(ss, &set, rc, &lp);
    if (!rc && (rc = window_close(&w, &set, report, clock_now_ns())))
        err_set(ss->err, sizeof(ss->err), rc, "out of memory");
    ss->measured = rc == 0;
    if (!rc)
        rc = exchange_results(ss, report);
    window_free(&w);
    stream_set_free(&set);
    loop_close(&lp);
    return rc;
}

/* Everything after the cookie, with the test's slot held. */
static int serve(struct i3s *ss, const uint8_t cookie[IPERF3_COOKIE_LEN])
{
    int rc;
    if (sock_set_liveness(ss->fd, ss->server->cfg.liveness_timeout_ms))
        server_log(ss->server, "peer=%s: cannot set the control connection's TCP liveness",
                   ss->peer);
    rc = ss->p.kind == TEST_UDP_STREAM ? gather_udp(ss) : gather_tcp(ss, cookie);
    return rc ? rc : run_test(ss);
}

/*
 * A refusal before the test, already told to the client: its line goes
 * through the per-host rate limits (server_log_peer), as netab's refusals
 * do, so a flood of iperf3 clients folds into a summary line per host.
 */
static void log_refused(struct i3s *ss)
{
    server_log_peer(ss->server, &ss->addr, ss->kind ? ss->kind : "bad parameters",
                    "peer=%s protocol=iperf3 refused: %s", ss->peer, ss->err);
}

void iperf3_server_session(struct server *s, int fd, const uint8_t cookie[IPERF3_COOKIE_LEN])
{
    struct i3s ss = {.server = s, .fd = fd};
    ss.idle_ns = (uint64_t)s->cfg.idle_timeout_ms * 1000000;
    if (conntab_addr(&s->conns, fd, &ss.addr))
        ss.addr.ss_family = AF_UNSPEC;
    sock_peer_name(fd, ss.peer, sizeof(ss.peer));
    /* TEST_START and TEST_RUNNING must not wait behind Nagle while UDP data already flows. */
    if (sock_set_control(fd))
        server_log(s, "peer=%s: cannot set TCP_NODELAY on the control connection", ss.peer);
    int rc;
    /* iperf3 clients cannot prove --auth-key: with a key, none of them may test. */
    if (s->cfg.auth_key) {
        send_server_error(&ss, I3_IEAUTHTEST, EACCES);
        ss.kind = "authentication failed";
        snprintf(ss.err, sizeof(ss.err), "iperf3 clients cannot prove the --auth-key");
        log_refused(&ss);
        goto out;
    }
    rc = exchange_params(&ss);
    if (rc) {
        log_refused(&ss);
        goto out;
    }
    /* A test slot is taken only once a test was asked for, as for netab's clients. */
    rc = admit(&ss);
    if (rc == -EBUSY || rc == -ECONNABORTED) {
        int8_t denied = IPERF3_ACCESS_DENIED;
        (void)!send(fd, &denied, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        log_refused(&ss);
        goto out;
    }
    if (rc) {
        refuse(&ss, I3_IERECVPARAMS, rc);
        log_refused(&ss);
        goto out;
    }
    rc = serve(&ss, cookie);
    /* The slot is free before the log says the test ended: a client that read it may test. */
    server_release(s, ss.reserved);
    iperf3_server_log(s, &ss.addr, ss.peer, &ss.p, ss.req.version, ss.measured ? &ss.report : NULL,
                      &ss.theirs, rc ? ss.err : NULL);
    server_test_finished(s, rc);
out:
    for (int i = 0; ss.fds && i < ss.n; i++)
        if (ss.fds[i] >= 0)
            close(ss.fds[i]);
    free(ss.fds);
    free(ss.server_sends);
    iperf3_results_free(&ss.theirs);
    side_report_free(&ss.report);
    server_conn_close(s, fd);
}
