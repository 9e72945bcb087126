#include "proto/client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/sockopt.h"
#include "engine/tcp_stream.h"
#include "engine/window.h"
#include "proto/datahdr.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "util/clock.h"
#include "util/io.h"
#include "util/sock.h"

void client_config_defaults(struct client_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->host = "127.0.0.1";
    cfg->family = AF_UNSPEC;
    cfg->cpu = -1;
    cfg->connect_timeout_ms = 5000;
    cfg->idle_timeout_ms = 10000;
}

struct client {
    const struct client_config *cfg;
    const struct test_params *p;
    struct run_result *res;
    int ctl;
    uint64_t idle_ns;
    uint8_t cookie[DATAHDR_COOKIE_LEN];
};

static uint64_t deadline(const struct client *c)
{
    return clock_now_ns() + c->idle_ns;
}

/* Receives a message of the given type; an error message becomes the result's error. */
static int expect(struct client *c, const char *type, json_t **out)
{
    json_t *m = NULL;
    int rc = frame_recv(c->ctl, &m, deadline(c), c->res->error, sizeof(c->res->error));
    if (rc)
        return rc;
    rc = msg_expect(m, type, "server", c->res->error, sizeof(c->res->error));
    if (rc || !out)
        json_decref(m);
    else
        *out = m;
    return rc;
}

static int handshake(struct client *c)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    json_t *m = msg_hello();
    int rc = frame_send(c->ctl, m, deadline(c), err, len);
    json_decref(m);
    if (rc)
        return rc;
    m = NULL;
    rc = frame_recv(c->ctl, &m, deadline(c), err, len);
    if (rc == -EMSGSIZE || rc == -EPROTO || rc == -ECONNRESET)
        err_set(err, len, rc, "%s:%u is not a netab server (%s)", c->cfg->host, c->cfg->port,
                rc == -ECONNRESET ? "it closed the connection" : "it answered something else");
    if (!rc)
        rc = msg_check_welcome(m, err, len);
    json_decref(m);
    if (rc)
        return rc;
    m = json_pack("{s:s, s:o}", "type", "start", "params", params_to_json(c->p));
    rc = frame_send(c->ctl, m, deadline(c), err, len);
    json_decref(m);
    if (rc)
        return rc;
    rc = expect(c, "accept", &m);
    if (rc)
        return rc;
    if (datahdr_cookie_from_hex(json_string_value(json_object_get(m, "cookie")), c->cookie))
        rc = err_set(err, len, EPROTO, "server sent a malformed test cookie");
    json_decref(m);
    return rc;
}

static int open_data(struct client *c, int *fds, bool *server_sends, int n)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    for (int i = 0; i < n; i++) {
        server_sends[i] = c->p->reverse || (c->p->bidir && i >= c->p->streams);
        uint16_t cport = c->cfg->cport ? (uint16_t)(c->cfg->cport + i) : 0;
        int fd = sock_connect(c->cfg->host, c->cfg->port, c->cfg->family, c->cfg->bind_addr, cport,
                              c->cfg->connect_timeout_ms, err, len);
        if (fd < 0)
            return fd;
        fds[i] = fd;
        int rc = sockopt_apply(fd, c->p, err, len);
        if (rc)
            return rc;
        struct datahdr h = {.stream = (uint32_t)i, .server_sends = server_sends[i]};
        memcpy(h.cookie, c->cookie, sizeof(h.cookie));
        uint8_t buf[DATAHDR_LEN];
        datahdr_encode(&h, buf);
        rc = io_write_full(fd, buf, sizeof(buf), deadline(c));
        if (rc)
            return err_set(err, len, rc, "cannot send data connection header: %s", strerror(-rc));
    }
    return 0;
}

/* Reads an unexpected message that arrived mid-test (normally the server's error). */
static int check_control(struct client *c)
{
    struct pollfd pfd = {.fd = c->ctl, .events = POLLIN};
    if (poll(&pfd, 1, 0) <= 0)
        return 0;
    json_t *m = NULL;
    int rc = frame_recv(c->ctl, &m, deadline(c), c->res->error, sizeof(c->res->error));
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

/* The measured part: intervals until the end condition, then stop. */
static int drive(struct client *c, struct tcp_stream_set *set, struct window *w)
{
    const struct test_params *p = c->p;
    uint64_t interval_ns = (uint64_t)(p->interval_s * 1e9);
    uint64_t last_sent = 0, last_recv = 0, last_ns = 0, next_ns = 0;
    int rc = 0;
    for (;;) {
        usleep(5000);
        window_tick(w, set);
        uint64_t now = clock_now_ns();
        bool finished = p->bytes
                            ? tcp_stream_set_all_done(set)
                            : w->open && now >= w->measure_ns + (uint64_t)(p->duration_s * 1e9);
        if (w->open && !last_ns) {
            last_ns = w->measure_ns;
            next_ns = last_ns + interval_ns;
            tcp_stream_set_bytes(set, &last_sent, &last_recv);
        }
        if (w->open && interval_ns && (now >= next_ns || finished)) {
            uint64_t s, r;
            tcp_stream_set_bytes(set, &s, &r);
            struct interval_report iv = {.start = (double)(last_ns - w->measure_ns) / 1e9,
                                         .end = (double)(now - w->measure_ns) / 1e9,
                                         .sent = s - last_sent,
                                         .received = r - last_recv};
            /* A sliver at the end (under a tenth of an interval) is not worth a line. */
            if (!finished || now - last_ns >= interval_ns / 10)
                emit_interval(c, &iv);
            last_ns = now;
            next_ns += interval_ns;
            last_sent = s;
            last_recv = r;
        }
        if (finished)
            break;
        const char *serr = tcp_stream_set_error(set);
        if (serr) {
            rc = err_set(c->res->error, sizeof(c->res->error), EIO, "%s", serr);
            break;
        }
        if ((rc = check_control(c)))
            break;
    }
    return rc;
}

static int run_streams(struct client *c, int *fds, bool *server_sends, int n)
{
    struct tcp_stream_set set;
    struct window w = {0};
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    int rc = tcp_stream_set_init(&set, c->p, fds, server_sends, n, false, c->cfg->cpu,
                                 c->cfg->idle_timeout_ms);
    if (rc)
        return err_set(err, len, rc, "out of memory");
    for (int i = 0; i < n; i++)
        fds[i] = -1;
    rc = expect(c, "ready", NULL);
    if (!rc && (rc = window_begin(&w, &set, c->p->omit_s)))
        err_set(err, len, rc, "out of memory");
    if (!rc && (rc = tcp_stream_set_start(&set)))
        err_set(err, len, rc, "cannot start stream threads");
    if (rc) {
        window_free(&w);
        tcp_stream_set_free(&set);
        return rc;
    }
    rc = drive(c, &set, &w);
    tcp_stream_set_stop(&set);
    if (!rc) {
        json_t *stop = msg_simple("stop");
        rc = frame_send(c->ctl, stop, deadline(c), err, len);
        json_decref(stop);
    }
    int frc = tcp_stream_set_finish(&set, rc ? clock_now_ns() : deadline(c));
    if (!rc && frc)
        rc = err_set(err, len, frc, "data did not drain within the idle timeout");
    const char *serr = tcp_stream_set_error(&set);
    if (!rc && serr)
        rc = err_set(err, len, EIO, "%s", serr);
    if (window_close(&w, &set, &c->res->local) == 0)
        c->res->have_local = true;
    window_free(&w);
    tcp_stream_set_free(&set);
    return rc;
}

static int receive_result(struct client *c, int n)
{
    json_t *m = NULL;
    int rc = expect(c, "result", &m);
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
    res->error[0] = '\0';
    snprintf(res->server, sizeof(res->server), "%s", cfg->host);
    res->port = cfg->port;
    clock_iso8601(res->started, sizeof(res->started));
    int rc = params_validate(p, res->error, sizeof(res->error));
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
    if (!rc)
        rc = handshake(&c);
    if (!rc)
        rc = open_data(&c, fds, server_sends, n);
    if (!rc)
        rc = run_streams(&c, fds, server_sends, n);
    if (!rc)
        rc = receive_result(&c, n);
    for (int i = 0; i < n; i++)
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
