/*
 * The parameters of one test: what the client asks for and the server checks
 * before it agrees. They travel in the "start" message as a JSON object (see
 * docs/protocol.md) and are echoed in the result document's "test" field.
 */
#ifndef NETAB_ENGINE_PARAMS_H
#define NETAB_ENGINE_PARAMS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine/path_tx_params.h"
#include "util/err.h"

enum test_kind {
    TEST_TCP_STREAM,
    TEST_UDP_STREAM,
    TEST_TCP_RR,
    TEST_UDP_RR,
    TEST_TCP_CRR,
    TEST_RRUL,
};

/* Which transport and pattern a test kind uses. */
bool params_is_udp(enum test_kind kind);
bool params_is_rr(enum test_kind kind); /* request/response, including crr */

#define PARAMS_MAX_STREAMS 128
/* --flows: connections over a few event-loop threads (engine/flows.h), not a thread each. */
#define PARAMS_MAX_FLOWS 100000
#define PARAMS_MAX_THREADS 1024
#define PARAMS_MAX_BLOCK (16u * 1024 * 1024)
#define PARAMS_MAX_DURATION (7 * 24 * 3600.0)
#define PARAMS_CC_LEN 16
#define PARAMS_PROFILE_LEN 96 /* a list of events: cycles,instructions,... */
#define PARAMS_UDP_HEADER 24  /* bytes of netab's header in every UDP datagram */
#define PARAMS_UDP_MAX 65507
#define PARAMS_MAX_OUTSTANDING 1024
#define PARAMS_MAX_RR_SIZE (1024u * 1024)

struct test_params {
    enum test_kind kind;
    double duration_s; /* -t: measured seconds; ignored when bytes > 0 */
    uint64_t bytes;    /* -n: bytes to send per direction in total, 0 = by time */
    int streams;       /* -P: streams per direction (= flows with --flows) */
    /*
     * --flows F: the test's F streams are flows spread over event-loop
     * threads (engine/flows.h) instead of a thread each; 0 = -P's threads.
     * threads: --threads T, event-loop threads per end, 0 = one per CPU of
     * that end's affinity.
     */
    int flows, threads;
    bool reverse;                 /* -R: the server sends */
    bool bidir;                   /* --bidir: both send at once */
    uint32_t block;               /* -l: bytes per send() */
    uint32_t sockbuf;             /* -w: SO_SNDBUF/SO_RCVBUF, 0 = kernel default */
    uint32_t mss;                 /* -M: TCP_MAXSEG, 0 = default */
    bool nodelay;                 /* -N */
    char cc[PARAMS_CC_LEN];       /* -C: congestion control, "" = default */
    double omit_s;                /* -O: warm-up seconds not counted */
    double interval_s;            /* -i: interval reports, 0 = none */
    int server_cpu;               /* -A x,N: server streams' CPU, -1 = none */
    uint64_t rate_bps;            /* -b: UDP target rate in bits/s, 0 = as fast as possible */
    bool gso, gro;                /* --gso / --gro: UDP segmentation offloads */
    uint32_t req_size, resp_size; /* rr/crr: bytes per request and response */
    int outstanding;              /* rr: transactions in flight per stream */
    uint32_t rr_timeout_ms;       /* udp_rr: a response later than this counts as lost */
    bool linger0;                 /* crr: close with RST (SO_LINGER 0), no TIME_WAIT */
    /* UDP without -w: keep the kernel's default buffers, not netab's 4 MiB request. */
    bool udp_default_buffers;
    /* --perf: both ends attach perf events (engine/counters.h says what they cost). */
    bool perf;
    /* --profile[=EVENT]: both ends sample their CPUs (measure/profile.h); "" = no profile. */
    char profile[PARAMS_PROFILE_LEN];
    /* --profile-scope system: every task on the CPUs, not only the test's (the default). */
    bool profile_system;
    /*
     * send path (issue 32): how tcp_stream senders hand data to the kernel
     * and pace it (-Z, --splice, --msg-zerocopy, -b, --fq-rate,
     * --notsent-lowat; engine/path_tx_params.h). All zero: plain send().
     */
    struct path_tx_params tx;
    /*
     * receive and socket paths (issue 32; engine/path_rx.h): --skip-rx-copy
     * (MSG_TRUNC), --busy-poll USEC (SO_BUSY_POLL, 0 = none), --mptcp
     * (IPPROTO_MPTCP data connections), --io-uring[=zc] (enum path_uring,
     * 0 = off) and --ktls. Sent only when set (docs/protocol.md).
     */
    bool skip_rx_copy;
    uint32_t busy_poll_us;
    bool mptcp;
    int io_uring;
    bool ktls;
};

/*
 * Fills p with netab's defaults (TCP stream, 10 s, 1 stream, 128 KiB blocks,
 * UDP at 1 Mbit/s, 1-byte requests and responses as in netperf).
 */
void params_defaults(struct test_params *p);

/* Name of a test kind ("tcp_stream"); kind from a name, -EINVAL if unknown. */
const char *params_kind_name(enum test_kind kind);
NB_MUST_CHECK int params_kind_from_name(const char *name, enum test_kind *kind);

/*
 * Checks ranges and combinations. Returns 0 or -EINVAL with a sentence that
 * names the offending parameter.
 */
NB_MUST_CHECK int params_validate(const struct test_params *p, char *err, size_t errlen);

/*
 * The same with udp_stream datagrams of at least udp_min bytes instead of
 * netab's header (PARAMS_UDP_HEADER): an iperf3 peer's datagrams carry
 * iperf3's shorter header (proto/iperf3_doc: 16 bytes, iperf3's own minimum).
 */
NB_MUST_CHECK int params_validate_udp_min(const struct test_params *p, uint32_t udp_min, char *err,
                                          size_t errlen);

/* Encodes p as a JSON object (new reference, caller owns it). */
json_t *params_to_json(const struct test_params *p);

/*
 * Decodes and validates a JSON object from the network. Every field is
 * required and type-checked; unknown fields are refused. Returns 0 or
 * -EINVAL with a message.
 */
NB_MUST_CHECK int params_from_json(const json_t *obj, struct test_params *p, char *err,
                                   size_t errlen);

/* The default block for a kind: 128 KiB for TCP streams, 1460 bytes for UDP. */
uint32_t params_default_block(enum test_kind kind);

/* True when name is an event --profile samples ("cpu-clock", "cycles", ...). */
bool params_profile_event_known(const char *name);

/* --profile-scope's word: "test" (*system false) or "system"; -EINVAL for another. */
NB_MUST_CHECK int params_profile_scope(const char *name, bool *system);

/* Total data connections a test opens: streams, doubled for --bidir. */
int params_connections(const struct test_params *p);

#endif
