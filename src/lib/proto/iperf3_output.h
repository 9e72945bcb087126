/*
 * What netab's server says about an iperf3 client's test: the server
 * output document an iperf3 client gets with --get-server-output, and the
 * server's log line, which carries both ends' byte counts.
 */
#ifndef NETAB_PROTO_IPERF3_OUTPUT_H
#define NETAB_PROTO_IPERF3_OUTPUT_H

#include <jansson.h>
#include <sys/socket.h>

#include "engine/params.h"
#include "engine/side_report.h"
#include "proto/iperf3_doc.h"

struct server;

/*
 * The server's -J output in iperf3's shape (start.version, start.test_start,
 * end.streams, end.sum_sent, end.sum_received, end.cpu_utilization_percent)
 * plus end.netab, the server's whole side report: system-wide CPU, kernel
 * and perf counters. n is the test's stream count. New reference.
 */
json_t *iperf3_output_json(const struct side_report *r, const struct test_params *p,
                           const struct iperf3_results *ours, int n);

/*
 * Logs one line for a finished or failed iperf3 test: this end's sent and
 * received bytes (r, NULL when it failed before measuring), the client's
 * own counts from its results (theirs, may be empty), and the error (NULL
 * on success). A failed test, which a peer can cause at will, is logged
 * within the per-host rate limits of the peer at addr (kind "test failed",
 * as netab's failed tests); a test that succeeded always is.
 */
void iperf3_server_log(struct server *s, const struct sockaddr_storage *addr, const char *peer,
                       const struct test_params *p, const char *client_version,
                       const struct side_report *r, const struct iperf3_results *theirs,
                       const char *error);

#endif
