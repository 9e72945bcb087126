/*
 * Setting up one test on the client: the greeting (an iperf3 server told
 * apart before it is harmed), "start" and "accept", the data connections.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sockopt.h"
#include "proto/client_internal.h"
#include "proto/datahdr.h"
#include "proto/frame.h"
#include "proto/iperf3_probe.h"
#include "engine/probe_log.h"
#include "proto/msg.h"
#include "proto/path_mptcp.h"
#include "proto/transport.h"
#include "util/io.h"
#include "util/sock.h"

int client_control_lost(struct client *c, int rc, const char *doing)
{
    if (rc != -ECONNRESET && rc != -EPIPE)
        return rc;
    const char *h = c->cfg->host;
    bool v6 = strchr(h, ':') != NULL;
    return err_set(c->res->error, sizeof(c->res->error), -rc,
                   "the server %s%s%s:%u closed the control connection %s (it stopped, crashed "
                   "or dropped this test)",
                   v6 ? "[" : "", h, v6 ? "]" : "", c->cfg->port, doing);
}

int client_expect(struct client *c, const char *type, json_t **out)
{
    json_t *m = NULL;
    int rc;
    /* Only "result" may pass FRAME_MAX: the client offered that in "start". */
    uint32_t max = strcmp(type, "result") ? FRAME_MAX : FRAME_RESULT_MAX;
    while (!(rc = frame_recv_max(c->ctl, &m, max, client_deadline(c), c->res->error,
                                 sizeof(c->res->error))) &&
           heartbeat_is(m))
        json_decref(m);
    if (rc)
        return rc;
    rc = msg_expect(m, type, "server", c->res->error, sizeof(c->res->error));
    if (rc || !out)
        json_decref(m);
    else
        *out = m;
    return rc;
}

/* Takes the UDP ports or the tcp_crr port from the server's "accept". */
static int read_ports(struct client *c, const json_t *accept)
{
    int n = params_connections(c->p);
    if (params_is_udp(c->p->kind)) {
        json_t *arr = json_object_get(accept, "udp_ports");
        if (!json_is_array(arr) || (int)json_array_size(arr) != n)
            return err_set(c->res->error, sizeof(c->res->error), EPROTO,
                           "server's accept lacks the UDP ports");
        c->udp_ports = calloc((size_t)n, sizeof(uint16_t));
        if (!c->udp_ports)
            return -ENOMEM;
        for (int i = 0; i < n; i++) {
            json_t *v = json_array_get(arr, (size_t)i);
            if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535)
                return err_set(c->res->error, sizeof(c->res->error), EPROTO,
                               "server sent an invalid UDP port");
            c->udp_ports[i] = (uint16_t)json_integer_value(v);
        }
    } else if (c->p->kind == TEST_TCP_CRR) {
        json_t *v = json_object_get(accept, "crr_port");
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535)
            return err_set(c->res->error, sizeof(c->res->error), EPROTO,
                           "server's accept lacks a valid connection-rate port");
        c->crr_port = (uint16_t)json_integer_value(v);
    } else if (c->p->mptcp) {
        /* receive and socket paths (issue 32): --mptcp's listener (proto/path_mptcp.h). */
        json_t *v = json_object_get(accept, "mptcp_port");
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535)
            return err_set(c->res->error, sizeof(c->res->error), EPROTO,
                           "server's accept lacks a valid MPTCP port");
        c->mptcp_port = (uint16_t)json_integer_value(v);
    }
    return 0;
}

/*
 * hello and welcome; with --auth-key also the server's proof, checked here,
 * and ours, sent back (auth.h).
 */
static int greet(struct client *c)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    json_t *m = msg_hello();
    int rc = m ? auth_client_hello(&c->auth, c->cfg->auth_key, m, err, len)
               : err_set(err, len, ENOMEM, "out of memory");
    uint8_t *buf = NULL;
    size_t blen = 0;
    if (!rc && frame_encode(m, &buf, &blen))
        rc = err_set(err, len, ENOMEM, "out of memory");
    /* In two parts, so that an iperf3 server is recognised before it is harmed. */
    if (!rc)
        rc = iperf3_probe_send_hello(c->ctl, buf, blen, client_deadline(c), c->cfg->host,
                                     c->cfg->port, err, len);
    free(buf);
    json_decref(m);
    m = NULL;
    /*
     * A server that refused or shed this connection while the hello was on
     * its way has closed it after saying why: read that before the send error.
     */
    char ignored[NB_ERRLEN];
    if ((rc == -EPIPE || rc == -ECONNRESET) &&
        frame_recv(c->ctl, &m, client_deadline(c), ignored, sizeof(ignored)) == 0 && m) {
        rc = msg_check_welcome(m, err, len);
        json_decref(m);
        return rc ? rc
                  : err_set(err, len, EPROTO, "%s:%u closed the connection after a welcome",
                            c->cfg->host, c->cfg->port);
    }
    if (rc)
        return rc;
    rc = frame_recv(c->ctl, &m, client_deadline(c), err, len);
    if (rc == -EMSGSIZE || rc == -EPROTO || rc == -ECONNRESET)
        err_set(err, len, rc, "%s:%u is not a netab server (%s)", c->cfg->host, c->cfg->port,
                rc == -ECONNRESET ? "it closed the connection" : "it answered something else");
    if (!rc)
        rc = msg_check_welcome(m, err, len);
    json_t *proof = NULL;
    if (!rc)
        rc = auth_client_check_welcome(&c->auth, m, &proof, err, len);
    json_decref(m);
    if (!rc && proof)
        rc = frame_send(c->ctl, proof, client_deadline(c), err, len);
    json_decref(proof);
    return rc;
}

int client_handshake(struct client *c)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    int rc = greet(c);
    if (rc)
        return rc;
    /*
     * "heartbeat": older servers ignore it and announce no liveness_ms in
     * "accept"; "result_max": older servers ignore it and keep to FRAME_MAX.
     */
    json_t *m = json_pack("{s:s, s:o, s:b, s:i}", "type", "start", "params", params_to_json(c->p),
                          "heartbeat", 1, "result_max", FRAME_RESULT_MAX);
    rc = client_control_lost(c, frame_send(c->ctl, m, client_deadline(c), err, len),
                             "before it accepted the test");
    json_decref(m);
    if (rc)
        return rc;
    rc = client_control_lost(c, client_expect(c, "accept", &m), "before it accepted the test");
    if (rc)
        return rc;
    /* An authenticated session's cookie is derived by both ends; it is not sent. */
    if (c->auth.authenticated)
        auth_session_cookie(&c->auth, c->cookie);
    else if (datahdr_cookie_from_hex(json_string_value(json_object_get(m, "cookie")), c->cookie))
        rc = err_set(err, len, EPROTO, "server sent a malformed test cookie");
    if (!rc)
        rc = read_ports(c, m);
    /* The latency-under-load prober's stamps: their clock is known before the first probe. */
    struct probe_log *log = c->cfg->probe;
    if (!rc && log && c->p->kind == TEST_UDP_RR) {
        clock_info_capture(&log->local);
        rc = clock_from_accept(m, &log->local, &log->peer, &log->have_peer, &log->stamp, log->why,
                               sizeof(log->why), err, len);
    }
    json_t *lv = json_object_get(m, "liveness_ms");
    if (!rc && lv) {
        if (!json_is_integer(lv) || json_integer_value(lv) < 100 ||
            json_integer_value(lv) > 3600000)
            rc = err_set(err, len, EPROTO, "server sent an invalid liveness timeout");
        else
            c->liveness_ms = (int)json_integer_value(lv);
    }
    json_decref(m);
    /* A vanished server also shows as unacknowledged data or keepalives on the control socket. */
    if (!rc && c->liveness_ms && sock_set_liveness(c->ctl, c->liveness_ms))
        rc = err_set(err, len, EIO, "cannot set the control connection's liveness");
    return rc;
}

int client_open_data(struct client *c, int *fds, bool *server_sends, int n)
{
    char *err = c->res->error;
    size_t len = sizeof(c->res->error);
    for (int i = 0; i < n; i++)
        server_sends[i] = c->p->reverse || (c->p->bidir && i >= c->p->streams);
    if (params_is_udp(c->p->kind))
        return transport_udp_connect(c->ctl, n, c->udp_ports, fds, c->cfg->bind_addr, c->cfg->cport,
                                     c->p->sockbuf, c->p->udp_default_buffers, err, len);
    if (c->p->kind == TEST_TCP_CRR)
        return 0;
    for (int i = 0; i < n; i++) {
        uint16_t cport = c->cfg->cport ? (uint16_t)(c->cfg->cport + i) : 0;
        int fd =
            c->p->mptcp
                ? path_mptcp_connect(c->ctl, c->mptcp_port, c->cfg->connect_timeout_ms, err, len)
                : sock_connect(c->cfg->host, c->cfg->port, c->cfg->family, c->cfg->bind_addr, cport,
                               c->cfg->connect_timeout_ms, err, len);
        if (fd < 0)
            return fd;
        fds[i] = fd;
        int rc = sockopt_apply(fd, c->p, err, len);
        if (!rc && c->liveness_ms && (rc = path_mptcp_liveness(fd, c->p, c->liveness_ms)))
            err_set(err, len, rc, "cannot set a data connection's liveness");
        if (rc)
            return rc;
        struct datahdr h = {.stream = (uint32_t)i, .server_sends = server_sends[i]};
        memcpy(h.cookie, c->cookie, sizeof(h.cookie));
        uint8_t buf[DATAHDR_LEN];
        datahdr_encode(&h, buf);
        rc = io_write_full(fd, buf, sizeof(buf), client_deadline(c));
        if (rc)
            return err_set(err, len, rc, "cannot send data connection header: %s", strerror(-rc));
    }
    return 0;
}
