/*
 * Send path (issue 32): a tcp_stream sender's way of handing data to the
 * kernel, and its pacing, as the test's parameters ask (path_tx_params.h).
 * stream_tcp.c's sender calls path_tx_send() where it would call send():
 *
 *  - sendfile (-Z): sendfile() from a memfd that holds one block of the
 *    send pattern, as iperf3 -Z does;
 *  - splice (--splice): splice() of that memfd into a pipe, then of the
 *    pipe into the socket (two splices per block; the pipe is sized to the
 *    block where the kernel lets it, else a block goes in pipe-sized parts);
 *  - msg_zerocopy (--msg-zerocopy): SO_ZEROCOPY and send(MSG_ZEROCOPY) from
 *    a ring of PATH_TX_ZC_SLOTS blocks. The kernel reports each send's
 *    completion on the socket's error queue (SO_EE_ORIGIN_ZEROCOPY); a
 *    block is sent again only once its previous send completed, so at most
 *    PATH_TX_ZC_SLOTS sends are in flight and no data in flight is ever
 *    overwritten. SO_EE_CODE_ZEROCOPY_COPIED marks sends the kernel copied
 *    after all (always on loopback: the receiver gets the pages);
 *  - -b with TCP: the sender waits so that its bytes never run ahead of
 *    the rate since its first send (iperf3's application pacing);
 *  - --fq-rate: SO_MAX_PACING_RATE on the sender's socket (the fq qdisc
 *    enforces it, else TCP's own pacing does), read back with getsockopt;
 *  - --notsent-lowat: TCP_NOTSENT_LOWAT on the sender's socket, read back.
 *
 * What the kernel did is counted per stream (struct path_tx_stats) and
 * reported per end as the side report's "path" object (path_tx_report()).
 */
#ifndef NETAB_ENGINE_PATH_TX_H
#define NETAB_ENGINE_PATH_TX_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/path_tx_params.h"
#include "util/err.h"

struct stream;
struct stream_set;

/* MSG_ZEROCOPY sends in flight per stream at most (each holds one block). */
#define PATH_TX_ZC_SLOTS 16

/* One sending stream's figures, written by its thread. */
struct path_tx_stats {
    bool used;                 /* the stream sent on a path (the test asked for one) */
    uint64_t calls;            /* sending calls that moved bytes */
    uint64_t zc_sends;         /* MSG_ZEROCOPY sends the kernel accepted */
    uint64_t zc_completions;   /* of those, completed (error-queue notifications' ranges) */
    uint64_t zc_copied;        /* completed with SO_EE_CODE_ZEROCOPY_COPIED: copied after all */
    uint64_t zc_notifications; /* error-queue messages read */
    uint64_t zc_waits;         /* sends that waited for a completion to free a block */
    uint64_t pace_waits;       /* -b: sends that waited for the rate */
    uint64_t max_pacing_rate;  /* SO_MAX_PACING_RATE read back, bytes/s (0: not asked) */
    uint64_t tcpi_pacing_rate; /* tcp_info's pacing rate at the end, bytes/s */
    uint32_t notsent_lowat;    /* TCP_NOTSENT_LOWAT read back (0: not asked) */
};

/*
 * Refuses a test whose send path this kernel lacks, before anything runs:
 * tries each asked option on a throwaway TCP socket (SO_ZEROCOPY,
 * SO_MAX_PACING_RATE, TCP_NOTSENT_LOWAT) and memfd_create() and pipe
 * sizing for -Z and --splice. Returns 0 or a negative errno with a
 * sentence naming the option and what is missing. Both ends call it.
 */
NB_MUST_CHECK int path_tx_check(const struct path_tx_params *t, char *err, size_t errlen);

/*
 * The memory a sender's path costs beside its buffer, for a block of
 * block bytes: the zero-copy ring, or the memfd (and the pipe, up to a
 * block) of sendfile and splice. A server counts it against its limits.
 */
size_t path_tx_memory(const struct path_tx_params *t, uint32_t block);

/* A sender's state on its path (opaque; path_tx.c). */
struct path_tx;

/*
 * Sets up s's sending on the path its test parameters ask for, from the
 * block in buf (s->block bytes of the pattern): the socket options, the
 * memfd, pipe or zero-copy ring. Returns NULL with s failed
 * (stream_fail()) when that is impossible; never called for a plain test.
 */
struct path_tx *path_tx_open(struct stream *s, const char *buf);

/*
 * Sends up to len bytes of the pattern on the path, after the pacing wait.
 * Returns what send() would: bytes moved (> 0), or -1 with errno (EINTR when
 * a stop or abort ended a wait: the caller looks at its flags).
 */
ssize_t path_tx_send(struct path_tx *tx, size_t len);

/*
 * Ends the path: waits for the zero-copy sends still in flight to complete
 * (unless the test aborts; bounded by the stream's idle timeout), reads back
 * the socket options into s->tx, frees everything.
 */
void path_tx_close(struct path_tx *tx);

/*
 * The "path" object of one end's side report: what its sending streams
 * did (docs/json.md), or NULL when the test asked for no send path or this
 * end sent nothing. New reference.
 */
json_t *path_tx_report(const struct stream_set *set);

/* Checks a peer's "path" object before it is kept. Returns 0 or -EPROTO with a message. */
NB_MUST_CHECK int path_tx_report_check(const json_t *v, char *err, size_t errlen);

#endif
