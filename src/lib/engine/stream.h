/*
 * One stream of a test (a TCP connection, a UDP socket, or a connection-rate
 * worker), driven by its own thread. What the thread does depends on its
 * role; the loops live in stream_tcp.c, stream_udp.c, stream_rr.c and
 * stream_crr.c.
 *
 * A TCP sender writes blocks until told to stop (or until its byte quota is
 * sent), then shuts down its write side. A receiver reads until it sees the
 * end of the stream, so everything in flight when the sender stopped is
 * counted: sender and receiver totals agree exactly.
 */
#ifndef NETAB_ENGINE_STREAM_H
#define NETAB_ENGINE_STREAM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <sys/socket.h>

#include "engine/params.h"
#include "engine/path_tx.h"
#include "engine/path_rx.h"
#include "engine/udp_wire.h"
#include "measure/taskstat.h"
#include "measure/tcpinfo.h"
#include "util/err.h"

struct histogram;
struct flowhist;
struct udp_rx;
struct evloop;
struct probe_log;

enum stream_role {
    ROLE_TCP_SEND,
    ROLE_TCP_RECV,
    ROLE_UDP_SEND,
    ROLE_UDP_RECV,
    ROLE_RR_CLIENT, /* tcp_rr or udp_rr, by params->kind */
    ROLE_RR_SERVER,
    ROLE_CRR_CLIENT,
    ROLE_CRR_SERVER,
};

/* Errors counted by kind during a test: data, not aborts (as wrk does). */
struct stream_errors {
    uint64_t connect, read, write, timeout;
};

struct stream {
    /* Set by the owner before stream_start(). */
    int id;
    int fd; /* owned by the stream from stream_start() until stream_close() */
    bool sender;
    bool server_sends; /* the direction, as the protocol names it */
    uint32_t block;
    uint64_t limit; /* sender: bytes to send, 0 = until *stop */
    int cpu;        /* CPU to pin the thread to, -1 for none */
    int idle_timeout_ms;
    const atomic_bool *stop;  /* senders stop when set */
    const atomic_bool *abort; /* every stream ends when set */
    /*
     * Event fds (eventfd) that turn readable, for good, once *stop or
     * *abort is set (stop_fd also on abort), or -1: a wait that cannot be
     * woken by shutting its socket polls one beside it (stream_wait()).
     * Owned by the stream set.
     */
    int stop_fd, abort_fd;
    enum stream_role role;
    enum udp_wire_format wire; /* UDP: the datagram header's format (netab's unless set) */
    const struct test_params *params;
    /*
     * UDP server streams: the client's address, the only one served.
     * tcp_crr clients: the server's listening address. tcp_crr servers: the
     * client's address (port ignored), the only one accepted.
     */
    struct sockaddr_storage peer;
    socklen_t peer_len;
    uint16_t cport_lo, cport_hi; /* tcp_crr client: fixed local ports to cycle, 0 = kernel's */
    /*
     * The control loop to wake (evloop_wake()) when this stream fails or
     * ends, or NULL: the control thread waits on events, never polls the
     * streams on a tick (docs/architecture.md).
     */
    struct evloop *notify;
    /*
     * rr clients of the latency-under-load test (engine/probe_log.h): the
     * open-loop UDP prober's schedule and records, or the TCP probe's phase
     * histograms; NULL for every other stream.
     */
    struct probe_log *probe;
    /*
     * Receiver: wake notify once bytes reach this (0 = never; cleared when
     * it fires). Armed by stream_set_received_at_least(), whose end
     * condition is a byte count no thread's end marks.
     */
    _Atomic uint64_t wake_bytes;
    uint64_t mark_base; /* the count the mark was laid on (the control thread's) */

    /* Written by the stream's thread. */
    _Atomic uint64_t bytes;
    _Atomic uint64_t packets;   /* datagrams sent, unique datagrams received, or transactions */
    _Atomic uint64_t expected;  /* UDP receiver: the sender's final count once known, else 0 */
    struct udp_rx *rx;          /* UDP receiver accounting (owned) */
    struct histogram *latency;  /* rr/crr client: transaction latency in ns (owned) */
    struct flowhist *flat;      /* --flows rr client: the same, sparse (engine/flows.h; owned) */
    _Atomic uint64_t lost;      /* udp_rr: requests whose response timed out */
    _Atomic uint64_t malformed; /* UDP: datagrams too short or without netab's header */
    _Atomic uint64_t foreign;   /* UDP/crr: datagrams or connections from another address */
    uint64_t stalls;            /* UDP sender: times the pacing schedule was reset after a stall */
    uint64_t stalled_ns;        /* UDP sender: schedule time given up at those resets */
    struct stream_errors errors;
    uint64_t start_ns, end_ns;
    uint64_t first_ns; /* receiver: when the first byte arrived, 0 before */
    struct tcpinfo_stats tcpinfo;
    /*
     * The thread's kernel id (0 until it runs), and its task figures
     * (measure/taskstat.h) taken by the thread itself as it ends, before
     * done is set: the thread is gone from /proc by the time the window closes.
     */
    _Atomic int tid;
    struct taskstat task_end;
    bool task_end_ok;
    /* tcp_crr client: the first connection's granted SO_SNDBUF/SO_RCVBUF (its fd is -1). */
    int eff_sndbuf, eff_rcvbuf;
    /* send path (issue 32): what a tcp_stream sender's path did (engine/path_tx.h). */
    struct path_tx_stats tx;
    /* receive and socket paths (issue 32): what the stream saw of them (engine/path_rx.h). */
    struct path_rx_stats rxp;
    /* 0 or a negative errno; published (release) after errmsg is written, read with acquire. */
    atomic_int error;
    char errmsg[160];
    atomic_bool done;

    pthread_t thread;
    bool started;
};

/* Wakes the stream's control loop, if it has one (any thread may). */
void stream_notify(struct stream *s);

/* The receiver's loop, after counting: wakes the control loop once its byte mark is reached. */
static inline void stream_bytes_mark(struct stream *s, uint64_t bytes)
{
    /*
     * The count's store is ordered before the mark's load, as the control
     * thread's mark store is before its count load: a mark set just as the
     * count passed it is seen by one side or the other, never missed by
     * both while the receiver blocks with no data to come (no receive
     * timeout wakes it to look again). One fence per receive call.
     */
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t mark = atomic_load_explicit(&s->wake_bytes, memory_order_relaxed);
    /* The exchange loses to a new mark set meanwhile, which the next count then meets. */
    if (mark && bytes >= mark && atomic_compare_exchange_strong(&s->wake_bytes, &mark, 0))
        stream_notify(s);
}

/* A stream's running counters at one moment (the opening of the measurement window). */
struct stream_counts {
    uint64_t bytes, packets, lost;
};

/* Reads s's counters while its thread runs (each one whole; not all at one instant). */
void stream_counts_take(const struct stream *s, struct stream_counts *out);

/* The largest buffer a TCP receiver reads into, whatever -l is. */
#define STREAM_MAX_RECV (1024u * 1024)

/* The loops, one per family of roles; each runs on the stream's thread. */
void stream_tcp_run(struct stream *s, char *buf);
void stream_udp_run(struct stream *s, char *buf);
void stream_rr_run(struct stream *s, char *buf);
void stream_crr_run(struct stream *s, char *buf);
/* The open-loop UDP prober: a udp_rr client stream with a probe log (stream_probe.c). */
void stream_probe_run(struct stream *s, char *buf);

/*
 * Waits until fd (if >= 0) has one of events, the event fd efd (s->stop_fd
 * or s->abort_fd; -1 for none) is readable, or deadline_ns passes (0: no
 * deadline): no period, the real deadline. Returns fd's revents when it is
 * ready, else 0 (the event, the deadline or a signal: the caller looks at
 * its flags and clock again).
 */
int stream_wait(int fd, short events, int efd, uint64_t deadline_ns);

/*
 * A TCP sender's end figures (TCP_INFO), read once its peer acknowledged
 * everything, the FIN included (after shutdown(SHUT_WR)), looked at every
 * millisecond for at most STREAM_ACK_WAIT_NS, not at all once aborted or
 * failed: what the kernel resends of the last round trip after the stop is
 * the sender's, and its count would miss it if read as it stopped.
 */
#define STREAM_ACK_WAIT_NS (1000 * 1000000ull)
void stream_tcpinfo_end(struct stream *s);

/* Records a failure: error code and a message naming the stream and the call. */
void stream_fail(struct stream *s, int err, const char *what);

/* Same with a formatted message ("stream N: " is prefixed). Thread-safe against readers. */
void stream_fail_msg(struct stream *s, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records fd's granted socket buffer sizes as the stream's (getsockopt). */
void stream_record_buffers(struct stream *s, int fd);

/* The size of the buffer a role needs. */
size_t stream_buffer_size(const struct stream *s);

/*
 * The memory a stream costs its process while it runs: its buffer, its
 * accounting and a share for its thread's touched stack. Kernel socket
 * buffers are not included (the kernel bounds them: net.core.rmem_max,
 * wmem_max, tcp_mem).
 */
size_t stream_memory(const struct stream *s);

/* Allocates the role's accounting (rx, latency). Returns 0 or -ENOMEM. */
int stream_prepare(struct stream *s);

/* Frees what stream_prepare() allocated. */
void stream_release(struct stream *s);

/*
 * Clears the socket's send timeout and sets its receive timeout (a TCP
 * receiver's idle timeout, else none), then starts the stream's thread. Returns
 * 0, or -errno with a sentence naming the stream in err (then no thread runs).
 */
NB_MUST_CHECK int stream_start(struct stream *s, char *err, size_t errlen);

/* Joins the stream's thread (it must be done or about to end). */
void stream_join(struct stream *s);

/*
 * Wakes a stream's thread blocked on its socket once *stop is set (shuts
 * the side of its socket that the role is done with: a sender's write
 * side, the listener of a tcp_crr server, a udp_rr server's or a UDP
 * receiver's receive side);
 * other roles go on after the stop or wait on stop_fd.
 */
void stream_stop_wake(struct stream *s);

/* Wakes a stream blocked in send/recv so that it notices *abort. */
void stream_interrupt(struct stream *s);

/* Closes the fd and frees the role's accounting. */
void stream_close(struct stream *s);

/* The role a stream plays for a test kind, direction and end. */
enum stream_role stream_role_of(enum test_kind kind, bool sender, bool is_server);

/* True for roles that send data (TCP/UDP senders). */
bool stream_role_sends(enum stream_role role);

#endif
