/*
 * Is a netab server answering? A control-protocol hello and its welcome,
 * nothing more: no test is started, so probing costs the server nothing but
 * one short connection. Campaigns use it to tell "the device under test is
 * up and its server answers" from "its port is open".
 */
#ifndef NETAB_PROTO_PROBE_H
#define NETAB_PROTO_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Connects to host:port, sends hello and reads the welcome, all within
 * timeout_ms. Returns 0 when a netab server answered, or an iperf3 server
 * (recognised by its answer to the hello's first 37 bytes and left in good
 * order, iperf3_probe.h: a device under test may run only `iperf3 -s`, for
 * runs with --iperf3), else a negative errno with the reason in err
 * ("connection refused", "... is not a netab server").
 */
NB_MUST_CHECK int probe_server(const char *host, uint16_t port, int timeout_ms, char *err,
                               size_t errlen);

#endif
