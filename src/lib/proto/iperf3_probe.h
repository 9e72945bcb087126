/*
 * Recognising an iperf3 server behind a port that a netab client was
 * pointed at without --iperf3, before doing it harm.
 */
#ifndef NETAB_PROTO_IPERF3_PROBE_H
#define NETAB_PROTO_IPERF3_PROBE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* What iperf3_probe_send_hello() returns when an iperf3 server answered. */
#define IPERF3_PROBE_FOUND (-EPROTONOSUPPORT)

/*
 * Sends a netab client's first frame (buf, len) on fd in two parts: the
 * first 37 bytes, which an iperf3 server takes for its cookie and answers
 * at once with one state byte (PARAM_EXCHANGE, or ACCESS_DENIED when
 * busy), then, after a wait of four round trips (20 ms to 1 s), the rest.
 * A netab server answers nothing before the whole frame. When that byte
 * came, the rest is not sent: the server gets a minimal parameter document
 * and CLIENT_TERMINATE instead (iperf3 3.12 crashes when a client leaves at
 * PARAM_EXCHANGE or sends a malformed document, CVE-2024-53580), and the
 * call fails with IPERF3_PROBE_FOUND and "HOST:PORT is an iperf3 server;
 * use --iperf3". Returns 0 or -errno with a message.
 */
NB_MUST_CHECK int iperf3_probe_send_hello(int fd, const uint8_t *buf, size_t len,
                                          uint64_t deadline_ns, const char *host, uint16_t port,
                                          char *err, size_t errlen);

#endif
