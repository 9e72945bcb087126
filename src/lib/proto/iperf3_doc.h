/*
 * iperf3's two JSON documents (docs/iperf3.md): the parameters a client
 * sends at PARAM_EXCHANGE and the results each end sends at
 * EXCHANGE_RESULTS. Encoding for netab's own side, and decoding of the
 * peer's with every member checked for type and range: the peer is not
 * trusted (iperf3's own server had CVE-2024-53580 and CVE-2025-54349/50/51
 * in this code).
 */
#ifndef NETAB_PROTO_IPERF3_DOC_H
#define NETAB_PROTO_IPERF3_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/params.h"
#include "util/err.h"

#define IPERF3_VERSION_LEN 64
/*
 * iperf3's smallest UDP datagram (its -l minimum): seconds, microseconds and
 * a 64-bit count. An iperf3 peer's datagrams carry that header, not netab's
 * 24 bytes, so a server in iperf3 mode takes them from 16 bytes on.
 */
#define IPERF3_UDP_MIN_LEN 16

/* What a server learns from a parameter document besides the test itself. */
struct iperf3_request {
    bool get_server_output; /* --get-server-output: our -J output goes back in the results */
    bool udp64;             /* --udp-counters-64bit */
    char version[IPERF3_VERSION_LEN]; /* client_version, "" when absent */
};

/* The server's limits a parameter document is checked against. */
struct iperf3_limits {
    int max_streams;     /* data connections per test (bidir counts twice) */
    double max_duration; /* seconds, omit included */
};

/*
 * The parameter document for test p (a netab client asking an iperf3
 * server): TCP or UDP stream tests only, whole seconds of -t and -O, 64-bit
 * UDP counters and the server's output always requested. New reference.
 */
json_t *iperf3_params_to_json(const struct test_params *p);

/*
 * Decodes a client's parameter document into p (from params_defaults())
 * and req, member by member: each known member must have iperf3's type and
 * a value in range; features netab does not serve (SCTP, authentication,
 * server affinity, paced TCP) are refused by name; members that only tune
 * iperf3's own sender are ignored (docs/iperf3.md lists them). Returns 0,
 * or -EINVAL with a sentence naming the member.
 */
NB_MUST_CHECK int iperf3_params_from_json(const json_t *doc, const struct iperf3_limits *lim,
                                          struct test_params *p, struct iperf3_request *req,
                                          char *err, size_t errlen);

/* One stream's line of a results document. */
struct iperf3_stream_result {
    int id;
    uint64_t bytes;
    int64_t retransmits; /* -1 when the end did not send or has none */
    double jitter_s;     /* receiver: RFC 1889 jitter in seconds */
    int64_t errors;      /* receiver: datagrams counted lost */
    int64_t packets;     /* sender: datagrams sent; receiver: highest count seen */
    double start_time, end_time;
};

struct iperf3_results {
    double cpu_total, cpu_user, cpu_system; /* the process's CPU, percent of one CPU */
    int sender_has_retransmits;             /* 1, 0, or -1 (this end only received) */
    int n;
    struct iperf3_stream_result *streams; /* owned */
};

/* The document for r (without server output; the caller adds it). New reference. */
json_t *iperf3_results_to_json(const struct iperf3_results *r);

/*
 * Decodes a peer's results document for a test of n streams: every stream
 * id must be one of the test's and appear once, every number finite and in
 * range. Returns 0 or -EPROTO with a message; *out is then owned by the
 * caller (iperf3_results_free).
 */
NB_MUST_CHECK int iperf3_results_from_json(const json_t *doc, int n, struct iperf3_results *out,
                                           char *err, size_t errlen);

void iperf3_results_free(struct iperf3_results *r);

/* The stream of r with id, or NULL. */
const struct iperf3_stream_result *iperf3_results_find(const struct iperf3_results *r, int id);

#endif
