/*
 * The receive and socket paths of a tcp_stream test (issue 32), as test
 * parameters both ends apply: --skip-rx-copy (recv with MSG_TRUNC: bytes
 * counted, not copied), --busy-poll USEC (SO_BUSY_POLL, with
 * SO_PREFER_BUSY_POLL and SO_BUSY_POLL_BUDGET where the kernel has them),
 * --mptcp (IPPROTO_MPTCP data connections; proto/path_mptcp.h), --io-uring
 * (the data path through io_uring; engine/uring.h) and --ktls.
 *
 * A path this end's kernel lacks is refused before the test starts
 * (path_rx_preflight()), never replaced by another: each end checks its own
 * kernel, the client before it connects, the server when it reads the
 * parameters. What each end's kernel then did is its "rx_path" record
 * (path_rx_side_json(); docs/json.md).
 */
#ifndef NETAB_ENGINE_PATH_RX_H
#define NETAB_ENGINE_PATH_RX_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* Kernel constants a libc header older than the kernel lacks (SOL_MPTCP 5.16, the busy
 * poll options 5.11); the values are the kernel's ABI. */
#ifndef SOL_MPTCP
#define SOL_MPTCP 284
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

#include "engine/params.h"
#include "util/err.h"

struct stream_set;

/* --io-uring's modes; test_params.io_uring holds one. */
enum path_uring {
    PATH_URING_OFF,
    PATH_URING_PLAIN, /* IORING_OP_SEND / IORING_OP_RECV */
    PATH_URING_ZC,    /* IORING_OP_SEND_ZC for the sends */
};

/* What one stream's thread saw of its paths: --io-uring's counts (engine/uring.c), MPTCP's. */
struct path_rx_stats {
    uint64_t submitted, completed; /* data operations queued and their results */
    uint64_t zc_notifs, zc_copied; /* zc: buffer notifications, and those the kernel copied */
    bool zc_usage;                 /* the kernel reports copies (Linux 6.2) */
    /* --mptcp: subflows in use as the stream ended (MPTCP_INFO), -1 unknown; fell back to TCP. */
    int mptcp_subflows;
    bool mptcp_fallback;
};

/* Data operations --io-uring keeps in flight per stream. */
#define PATH_URING_DEPTH 4

/* The largest --busy-poll, in µs (SO_BUSY_POLL takes an int; a second is plenty). */
#define PATH_RX_BUSY_POLL_MAX 1000000u
/* The SO_BUSY_POLL_BUDGET netab asks for with --busy-poll: NAPI's usual weight. */
#define PATH_RX_BUSY_POLL_BUDGET 64

/* True when p asks for any of these paths. */
bool path_rx_any(const struct test_params *p);

/* The first path p asks for, as its option is spelled ("--mptcp"). */
const char *path_rx_asked_name(const struct test_params *p);

/* "plain", "zc" or "off" for a mode; the mode of a name (-EINVAL if unknown). */
const char *path_rx_uring_name(int mode);
NB_MUST_CHECK int path_rx_uring_from_name(const char *name, int *mode);

/* params_validate()'s part: the test kinds and engines these paths run on. */
NB_MUST_CHECK int path_rx_validate(const struct test_params *p, char *err, size_t errlen);

/*
 * Checks this end's kernel for every path p asks: 0, or -EOPNOTSUPP (or
 * the failing call's errno) with a sentence naming the option and the
 * missing kernel feature. --ktls is always refused (see the .c).
 */
NB_MUST_CHECK int path_rx_preflight(const struct test_params *p, char *err, size_t errlen);

/* Applies --busy-poll's socket options to a data connection (sockopt_apply()). */
NB_MUST_CHECK int path_rx_sockopts(int fd, const struct test_params *p, char *err, size_t errlen);

/*
 * A TCP stream's thread as its loop ends, before it shuts its socket: the
 * subflows of an MPTCP connection are read while they still carry it.
 */
struct stream;
void path_rx_stream_end(struct stream *s);

/* The flags a TCP receiver passes to recv(): MSG_TRUNC with --skip-rx-copy. */
int path_rx_recv_flags(const struct test_params *p);

/* The protocol keys (docs/protocol.md): added to o only when set; true for a key of theirs. */
void path_rx_params_to_json(const struct test_params *p, json_t *o);
bool path_rx_key_known(const char *key);
NB_MUST_CHECK int path_rx_params_from_json(const json_t *obj, struct test_params *p, char *err,
                                           size_t errlen);

/* What was asked, as "start"."rx_path" shows it; NULL when no path was asked. New reference. */
json_t *path_rx_asked_json(const struct test_params *p);

/*
 * What this end's kernel did for the set's streams (read back from the
 * sockets, which are still open): the end's "rx_path" record, NULL when
 * the test asked for no path. New reference.
 */
json_t *path_rx_side_json(const struct stream_set *set);

/* Checks a peer's record (an object, or absent): 0 or -EPROTO with a message. */
NB_MUST_CHECK int path_rx_side_check(const json_t *v, char *err, size_t errlen);

#endif
