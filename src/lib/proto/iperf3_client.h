/*
 * netab as an iperf3 client (`netab run -c HOST --iperf3`, docs/iperf3.md):
 * drives a deployed `iperf3 -s` with netab's own streams and reports in
 * netab's terms, taking the server's byte counts, retransmits and UDP
 * counters from its EXCHANGE_RESULTS document.
 */
#ifndef NETAB_PROTO_IPERF3_CLIENT_H
#define NETAB_PROTO_IPERF3_CLIENT_H

#include <stddef.h>

#include "engine/params.h"
#include "engine/run_result.h"
#include "proto/client.h"

/*
 * Checks that a test can be run against an iperf3 server: TCP or UDP
 * stream, whole seconds of -t and -O (iperf3 counts whole seconds), no
 * server affinity, offloads or --auth-key. Returns 0 or -EINVAL with a
 * sentence naming the option.
 */
NB_MUST_CHECK int iperf3_client_check(const struct client_config *cfg, const struct test_params *p,
                                      char *err, size_t errlen);

/*
 * Runs one test against the iperf3 server at cfg->host:cfg->port, as
 * client_run() does against a netab server: res receives both ends' figures
 * (the server's as iperf3 reports them; what iperf3 cannot report is left
 * out and named in res->peer), res->error the reason on failure. Returns 0
 * or a negative errno.
 */
int iperf3_client_run(const struct client_config *cfg, const struct test_params *p,
                      struct run_result *res);

#endif
