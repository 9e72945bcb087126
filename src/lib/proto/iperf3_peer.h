/*
 * Between netab's result types and iperf3's results document: what a netab
 * end tells an iperf3 peer at EXCHANGE_RESULTS, and what an iperf3 peer's
 * document becomes in a run_result (its side report, and the "peer" member
 * that keeps its version, its process CPU and its document, and says what
 * it cannot report).
 */
#ifndef NETAB_PROTO_IPERF3_PEER_H
#define NETAB_PROTO_IPERF3_PEER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "engine/params.h"
#include "engine/run_result.h"
#include "engine/side_report.h"
#include "proto/iperf3_doc.h"
#include "util/err.h"

/*
 * This end's results for an iperf3 peer, from a side report: stream ids in
 * iperf3's numbering, bytes after -O, a sender's retransmits, a receiver's
 * UDP jitter (seconds), lost count and highest count, and this process's
 * CPU since ru_start / start_ns. client: this end is the client (which
 * decides sender_has_retransmits as iperf3's client does). Fills *out,
 * whose streams the caller frees (iperf3_results_free). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int iperf3_peer_results(const struct side_report *side, const struct test_params *p,
                                      bool client, const struct rusage *ru_start, uint64_t start_ns,
                                      struct iperf3_results *out);

/* The client's document: iperf3_peer_results of res->local as JSON. New reference or NULL. */
json_t *iperf3_peer_local_results(const struct run_result *res, const struct test_params *p,
                                  const struct rusage *ru_start, uint64_t start_ns);

/*
 * Decodes an iperf3 server's results document (theirs) into res->remote
 * and res->peer. server_sends[i] is stream i's direction. Returns 0 or
 * -EPROTO with a message.
 */
NB_MUST_CHECK int iperf3_peer_remote_side(const json_t *theirs, const struct test_params *p,
                                          const bool *server_sends, struct run_result *res,
                                          char *err, size_t errlen);

#endif
