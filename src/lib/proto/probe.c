#include "proto/probe.h"

#include <errno.h>
#include <stdlib.h>
#include <jansson.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/frame.h"
#include "proto/iperf3_probe.h"
#include "proto/msg.h"
#include "util/clock.h"
#include "util/sock.h"

int probe_server(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen)
{
    uint64_t deadline = clock_now_ns() + (uint64_t)timeout_ms * 1000000u;
    int fd = sock_connect(host, port, AF_UNSPEC, NULL, 0, timeout_ms, err, errlen);
    if (fd < 0)
        return fd;
    json_t *m = msg_hello();
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = m && !frame_encode(m, &buf, &len) ? 0 : err_set(err, errlen, ENOMEM, "out of memory");
    /* Sent so that an iperf3 server is recognised, and left unharmed (iperf3_probe.h). */
    if (!rc)
        rc = iperf3_probe_send_hello(fd, buf, len, deadline, host, port, err, errlen);
    free(buf);
    json_decref(m);
    m = NULL;
    if (rc == IPERF3_PROBE_FOUND) {
        close(fd); /* an iperf3 server answers: up, for runs that speak --iperf3 */
        return 0;
    }
    if (!rc)
        rc = frame_recv(fd, &m, deadline, err, errlen);
    if (rc == -EMSGSIZE || rc == -EPROTO || rc == -ECONNRESET)
        rc = err_set(err, errlen, EPROTO, "%s:%u is not a netab server (%s)", host, port,
                     rc == -ECONNRESET ? "it closed the connection" : "it answered something else");
    if (!rc)
        rc = msg_check_welcome(m, err, errlen);
    json_decref(m);
    close(fd);
    return rc;
}
