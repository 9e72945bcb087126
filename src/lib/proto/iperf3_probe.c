#include "proto/iperf3_probe.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "measure/tcpinfo.h"
#include "proto/iperf3_wire.h"
#include "util/io.h"

/* Four smoothed round trips of the connection, within 20 ms .. 1 s. */
static int wait_ms(int fd)
{
    struct tcpinfo_stats ti = {0};
    int ms = tcpinfo_read(fd, &ti) == 0 && ti.valid ? (int)(4 * ti.rtt_us / 1000) : 200;
    return ms < 20 ? 20 : ms > 1000 ? 1000 : ms;
}

/* True when the peer's first byte is one of the states iperf3 sends after a cookie. */
static bool iperf3_answered(int fd, int ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    uint8_t b;
    if (poll(&pfd, 1, ms) != 1 || recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) != 1)
        return false;
    int8_t st = (int8_t)b;
    return st == IPERF3_PARAM_EXCHANGE || st == IPERF3_ACCESS_DENIED || st == IPERF3_SERVER_ERROR;
}

/*
 * Leaves an iperf3 server that asked for parameters in good order: iperf3
 * 3.12 crashes when the connection closes at PARAM_EXCHANGE, but not after
 * a parameter document and CLIENT_TERMINATE. Best effort, bounded by the
 * deadline.
 */
static void iperf3_part(int fd, uint64_t deadline_ns)
{
    uint8_t b;
    if (io_read_full(fd, &b, 1, deadline_ns, NULL) || (int8_t)b != IPERF3_PARAM_EXCHANGE)
        return;
    json_t *params = json_pack("{s:b, s:i, s:i, s:i, s:i, s:i, s:s}", "tcp", 1, "omit", 0, "time",
                               1, "num", 0, "blockcount", 0, "parallel", 1, "client_version",
                               "netab " NETAB_VERSION " (probe)");
    char ignored[NB_ERRLEN];
    int rc = params ? iperf3_json_send(fd, params, deadline_ns, ignored, sizeof(ignored)) : -ENOMEM;
    json_decref(params);
    if (!rc && !io_read_full(fd, &b, 1, deadline_ns, NULL))
        (void)!iperf3_state_send(fd, IPERF3_CLIENT_TERMINATE, deadline_ns, ignored,
                                 sizeof(ignored));
}

int iperf3_probe_send_hello(int fd, const uint8_t *buf, size_t len, uint64_t deadline_ns,
                            const char *host, uint16_t port, char *err, size_t errlen)
{
    size_t first = len > IPERF3_COOKIE_LEN ? IPERF3_COOKIE_LEN : len;
    int rc = io_write_full(fd, buf, first, deadline_ns);
    if (!rc && iperf3_answered(fd, wait_ms(fd))) {
        iperf3_part(fd, deadline_ns);
        err_set(err, errlen, EPROTO, "%s:%u is an iperf3 server; use --iperf3", host, port);
        return IPERF3_PROBE_FOUND;
    }
    if (!rc && len > first)
        rc = io_write_full(fd, buf + first, len - first, deadline_ns);
    if (rc)
        return err_set(err, errlen, rc, "cannot send hello: %s", strerror(-rc));
    return 0;
}
