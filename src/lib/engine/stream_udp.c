/*
 * UDP stream roles. The sender paces against an absolute schedule: datagram
 * k is due at start + k * size / rate, so a late wake-up is made good by the
 * next batch instead of drifting, and after a stall longer than the catch-up
 * limit the rest of the schedule is given up (counted in `stalls` and
 * `stalled_ns`) rather than burst out.
 * Batches go out with sendmmsg, or as one UDP_SEGMENT super-datagram with
 * --gso. The receiver takes batches with recvmmsg (or UDP_GRO), stamps each
 * with the kernel's arrival time, and feeds loss, reordering and jitter
 * accounting; datagrams from another address or without netab's header are
 * counted, never trusted.
 */
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/stream.h"
#include "engine/udp_gro.h"
#include "engine/udp_wire.h"
#include "measure/udp_rx.h"
#include "util/clock.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define UDP_BATCH 64
/*
 * Catch-up limit: the datagrams owed after a stall are sent at once only up
 * to 5 ms worth of the target rate (and at least four batches); what is owed
 * beyond that is given up and the schedule goes on from there. A short
 * preemption costs no rate, a long one no burst larger than the limit.
 */
#define UDP_MIN_BACKLOG (4 * UDP_BATCH)
#define UDP_BACKLOG_NS 5000000.0
/* A receiver gives up waiting for stragglers after this much silence once the test ended. */
#define UDP_DRAIN_NS (250 * 1000000ull)
/* Pacing gaps longer than this wait watching for the stop (see the sender). */
#define UDP_PACE_WATCH_STOP_NS (100 * 1000000ull)

static bool aborted(const struct stream *s)
{
    return atomic_load_explicit(s->abort, memory_order_relaxed);
}

/*
 * A sender's message vector, built once per test: datagram i of every batch
 * is slot i of the buffer, so only the headers change from batch to batch
 * and sendmmsg() gets the same array each time.
 */
struct tx_batch {
    struct mmsghdr msgs[UDP_BATCH];
    struct iovec iov[UDP_BATCH];
};

static void tx_batch_init(struct tx_batch *b, struct stream *s, char *buf)
{
    memset(b, 0, sizeof(*b));
    for (int i = 0; i < UDP_BATCH; i++) {
        b->iov[i].iov_base = buf + (size_t)i * s->block;
        b->iov[i].iov_len = s->block;
        b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
        b->msgs[i].msg_hdr.msg_iovlen = 1;
        if (s->peer_len > 0) {
            b->msgs[i].msg_hdr.msg_name = &s->peer;
            b->msgs[i].msg_hdr.msg_namelen = s->peer_len;
        }
    }
}

/* Sends datagrams seq .. seq+n-1; returns how many went out or -errno. */
static int send_batch(struct stream *s, struct tx_batch *b, char *buf, uint64_t seq, int n)
{
    size_t size = s->block;
    udp_wire_put_batch(s->wire, buf, size, n, (uint32_t)s->id, seq, clock_now_ns());
    if (s->params->gso) {
        struct iovec iov = {.iov_base = buf, .iov_len = (size_t)n * size};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
        if (s->peer_len > 0) {
            mh.msg_name = &s->peer;
            mh.msg_namelen = s->peer_len;
        }
        ssize_t r = sendmsg(s->fd, &mh, MSG_DONTWAIT);
        return r < 0 ? -errno : n;
    }
    int r = sendmmsg(s->fd, b->msgs, (unsigned)n, MSG_DONTWAIT);
    return r < 0 ? -errno : r;
}

static void run_sender(struct stream *s, char *buf)
{
    const struct test_params *p = s->params;
    size_t size = s->block;
    int batch_max = UDP_BATCH;
    if (p->gso) {
        int seg = (int)size;
        if (setsockopt(s->fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg))) {
            stream_fail(s, errno, "UDP_SEGMENT (--gso) is not supported here");
            return;
        }
        batch_max = (int)(65000 / size);
        if (batch_max > UDP_BATCH)
            batch_max = UDP_BATCH;
        if (batch_max < 1)
            batch_max = 1;
    }
    uint64_t limit = s->limit ? (s->limit + size - 1) / size : 0; /* datagrams */
    double per_ns = p->rate_bps ? (double)p->rate_bps / (8.0 * (double)size * 1e9) : 0;
    uint64_t t0 = clock_now_ns(), seq = 0;
    uint64_t max_backlog = (uint64_t)(per_ns * UDP_BACKLOG_NS);
    if (max_backlog < UDP_MIN_BACKLOG)
        max_backlog = UDP_MIN_BACKLOG;
    struct tx_batch b;
    tx_batch_init(&b, s, buf);
    while (!atomic_load_explicit(s->stop, memory_order_relaxed) && !aborted(s)) {
        if (limit && seq >= limit)
            break;
        int n = batch_max;
        if (per_ns > 0) {
            uint64_t now = clock_now_ns();
            uint64_t due = (uint64_t)floor((double)(now - t0) * per_ns) + 1;
            if (due <= seq) {
                /*
                 * Gaps up to UDP_PACE_WATCH_STOP_NS: clock_nanosleep to the
                 * exact time (a ppoll() on stop_fd lost datagrams beyond
                 * nft's drops in iperf3_client's netns test, 3 runs of 3,
                 * cause not found). A longer gap waits on stop_fd.
                 */
                uint64_t at = t0 + (uint64_t)ceil((double)seq / per_ns);
                if (at - now <= UDP_PACE_WATCH_STOP_NS)
                    clock_sleep_until(at);
                else
                    stream_wait(-1, 0, s->stop_fd, at);
                continue;
            }
            if (due - seq > max_backlog) {
                /*
                 * A stall (preemption, a full queue): send what the limit
                 * allows at once and give up the rest of the schedule,
                 * counted, rather than burst it all.
                 */
                uint64_t given_up = due - seq - max_backlog;
                s->stalls++;
                s->stalled_ns += (uint64_t)((double)given_up / per_ns);
                t0 = now - (uint64_t)((double)(seq + max_backlog) / per_ns);
                due = seq + max_backlog;
            }
            if (due - seq < (uint64_t)n)
                n = (int)(due - seq);
        }
        if (limit && limit - seq < (uint64_t)n)
            n = (int)(limit - seq);
        int r = send_batch(s, &b, buf, seq, n);
        if (r < 0) {
            /* A full send buffer: wait for room, or the stop. */
            if (r == -EAGAIN)
                stream_wait(s->fd, POLLOUT, s->stop_fd, 0);
            if (r == -EAGAIN || r == -ENOBUFS || r == -EINTR || r == -ECONNREFUSED)
                continue;
            stream_fail(s, -r, "send");
            break;
        }
        seq += (uint64_t)r;
        atomic_store_explicit(&s->packets, seq, memory_order_relaxed);
        atomic_store_explicit(&s->bytes, seq * size, memory_order_relaxed);
    }
    s->end_ns = clock_now_ns();
}

struct rx_batch {
    struct mmsghdr msgs[UDP_BATCH];
    struct iovec iov[UDP_BATCH];
    struct sockaddr_storage from[UDP_BATCH];
    char ctl[UDP_BATCH][CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(int))];
    bool named; /* source addresses asked for (a server's socket, to check them) */
};

/* A stopped receiver's wait (rx_wait()): its socket, edge-triggered, and the abort. */
struct rx_waiter {
    int epfd;
};

static bool rx_waiter_open(struct rx_waiter *w, int fd, int abort_fd)
{
    w->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (w->epfd < 0)
        return false;
    struct epoll_event sock = {.events = EPOLLIN | EPOLLET, .data.fd = fd};
    struct epoll_event abort = {.events = EPOLLIN, .data.fd = abort_fd};
    if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &sock) ||
        (abort_fd >= 0 && epoll_ctl(w->epfd, EPOLL_CTL_ADD, abort_fd, &abort))) {
        close(w->epfd);
        w->epfd = -1;
        return false;
    }
    return true;
}

/* The kernel's arrival time of a message, or now when it gave none; *gro_size as udp_gro. */
static uint64_t arrival_of(struct msghdr *mh, int *gro_size)
{
    uint64_t t;
    udp_gro_read_cmsgs(mh, &t, gro_size);
    if (!t) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    }
    return t;
}

/*
 * Accounts one datagram (or GRO segment) of len bytes at buf. Returns false
 * for a registration, which is control traffic, not data: it counts nowhere.
 * A registration never parses as data (its magic differs), so it is looked
 * for only among the datagrams that do not: one check per data datagram.
 */
static bool take(struct stream *s, const char *buf, size_t len, uint64_t arrival)
{
    uint64_t seq, sent;
    uint32_t id = (uint32_t)s->id; /* the iperf3 formats carry no stream number */
    int rc = s->wire == UDP_WIRE_NETAB ? udp_wire_get(buf, len, &id, &seq, &sent)
                                       : udp_wire_get_as(s->wire, buf, len, &id, &seq, &sent);
    if (rc || id != (uint32_t)s->id) {
        if (s->wire == UDP_WIRE_NETAB && udp_wire_is_reg(buf, len))
            return false; /* a client's registration resent before it saw "ready" */
        atomic_fetch_add(&s->malformed, 1);
        return true;
    }
    udp_rx_record(s->rx, seq, sent, arrival, len);
    return true;
}

/*
 * Points message i of b at its slot of buf, its control buffer and, when
 * named, its address once per test; rx_batch_rearm() then restores only
 * what the kernel overwrote. Source addresses are asked for only where
 * they are checked (a server's unconnected socket, named by peer_len): the
 * kernel's copy of each is part of the per-datagram cost.
 */
static void rx_batch_init(struct rx_batch *b, char *buf, size_t slot, bool named)
{
    memset(b, 0, sizeof(*b));
    b->named = named;
    for (int i = 0; i < UDP_BATCH; i++) {
        b->iov[i].iov_base = buf + (size_t)i * slot;
        b->iov[i].iov_len = slot;
        b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
        b->msgs[i].msg_hdr.msg_iovlen = 1;
        if (named) {
            b->msgs[i].msg_hdr.msg_name = &b->from[i];
            b->msgs[i].msg_hdr.msg_namelen = sizeof(b->from[i]);
        }
        b->msgs[i].msg_hdr.msg_control = b->ctl[i];
        b->msgs[i].msg_hdr.msg_controllen = sizeof(b->ctl[i]);
    }
}

/* recvmmsg() wrote the address and control lengths (and msg_len) of the first n messages. */
static void rx_batch_rearm(struct rx_batch *b, int n)
{
    for (int i = 0; i < n; i++) {
        b->msgs[i].msg_hdr.msg_namelen = b->named ? sizeof(b->from[i]) : 0;
        b->msgs[i].msg_hdr.msg_controllen = sizeof(b->ctl[i]);
    }
}

/*
 * Accounts message i of a received batch (one datagram, or several glued by
 * GRO) and returns the data bytes it counted. now is the monotonic time the
 * batch was taken; the first counted datagram sets s->first_ns and *got_any.
 */
static size_t take_message(struct stream *s, struct rx_batch *b, int i, uint64_t now, bool *got_any)
{
    struct msghdr *mh = &b->msgs[i].msg_hdr;
    size_t len = b->msgs[i].msg_len;
    /* A server's socket is unconnected: only the registered client counts. */
    if (s->peer_len && !udp_wire_same_addr(&b->from[i], &s->peer)) {
        atomic_fetch_add(&s->foreign, 1);
        return 0;
    }
    int gro = 0;
    uint64_t arrival = arrival_of(mh, &gro);
    const char *d = b->iov[i].iov_base;
    size_t seg, counted = 0;
    for (size_t off = 0; (seg = udp_gro_next(len, off, gro)) > 0; off += seg)
        if (take(s, d + off, seg, arrival))
            counted += seg;
    if (counted && !*got_any) {
        /*
         * The first datagram may have waited in the socket since before this
         * thread started (with -R the server sends as soon as it is ready):
         * the receiver's clock starts at its kernel arrival time, moved onto
         * the monotonic clock, so those bytes are not counted in no time.
         */
        struct timespec rt;
        clock_gettime(CLOCK_REALTIME, &rt);
        uint64_t rt_now = (uint64_t)rt.tv_sec * 1000000000ull + (uint64_t)rt.tv_nsec;
        uint64_t waited = rt_now > arrival ? rt_now - arrival : 0;
        *got_any = true;
        s->first_ns = now > waited ? now - waited : now;
    }
    return counted;
}

/*
 * The receiver's next deadline, as run_receiver() checks them (0: none):
 * the end of the drain after the stop, the silence that ends an -n test,
 * the idle timeout of an -n test that never got a datagram.
 */
static uint64_t rx_deadline(const struct stream *s, bool stopped, uint64_t quiet_since,
                            bool got_any, uint64_t last_rx)
{
    uint64_t at = 0;
    if (stopped)
        at = quiet_since + UDP_DRAIN_NS + 1;
    if (s->limit && got_any && (!at || last_rx + 4 * UDP_DRAIN_NS + 1 < at))
        at = last_rx + 4 * UDP_DRAIN_NS + 1;
    if (s->limit && !got_any && s->idle_timeout_ms > 0) {
        uint64_t idle = s->start_ns + (uint64_t)s->idle_timeout_ms * 1000000 + 1;
        at = !at || idle < at ? idle : at;
    }
    return at;
}

/*
 * One batch. A timed test's receiver blocks in recvmmsg() until a datagram
 * comes (one system call a wake-up: a poll beside it doubled them and cost
 * unpinned udp_stream 4 %, bench/RESULTS.md); the stop shuts the socket's
 * receive side (stream_stop_wake()), which ends that wait. Once stopped, and
 * in an -n test whose silences are deadlines, the call does not block and
 * rx_wait() waits. Returns recvmmsg()'s count, or -1 with errno.
 */
static int rx_take(struct stream *s, struct rx_batch *b, int *first)
{
    bool block = !s->limit && !atomic_load_explicit(s->stop, memory_order_relaxed);
    int n = recvmmsg(s->fd, b->msgs, UDP_BATCH, block ? MSG_WAITFORONE : MSG_DONTWAIT, NULL);
    /*
     * The shut receive side with nothing queued: Linux returns an empty first
     * message without an address or a timestamp (every datagram has one:
     * SO_TIMESTAMPNS), not a datagram; datagrams that came in the meantime
     * may follow it in the batch.
     */
    *first = 0;
    if (block && n >= 1 && b->msgs[0].msg_len == 0 && b->msgs[0].msg_hdr.msg_controllen == 0 &&
        atomic_load_explicit(s->stop, memory_order_relaxed)) {
        *first = 1;
        if (n == 1) {
            rx_batch_rearm(b, 1);
            errno = EAGAIN;
            return -1;
        }
    }
    return n;
}

/*
 * Waits for a datagram, the deadline (0: none), the stop (which starts the
 * drain) or, once stopped, the abort. A stopped receiver's socket is shut
 * for reading, so poll() would always call it readable: it waits for new
 * datagrams with an edge-triggered epoll, which wakes on each arrival.
 */
static void rx_wait(struct stream *s, struct rx_waiter *w, bool stopped, uint64_t deadline_ns)
{
    if (!stopped) {
        stream_wait(s->fd, POLLIN, s->stop_fd, deadline_ns);
        return;
    }
    if (w->epfd < 0 && !rx_waiter_open(w, s->fd, s->abort_fd)) {
        stream_wait(-1, 0, s->abort_fd, deadline_ns); /* no epoll: drain at the deadline */
        return;
    }
    int ms = -1;
    if (deadline_ns) {
        uint64_t now = clock_now_ns();
        ms = deadline_ns > now ? (int)((deadline_ns - now + 999999) / 1000000) : 0;
    }
    struct epoll_event ev[2];
    epoll_wait(w->epfd, ev, 2, ms);
}

static void run_receiver(struct stream *s, char *buf)
{
    const struct test_params *p = s->params;
    int one = 1;
    setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    if (p->gro && setsockopt(s->fd, SOL_UDP, UDP_GRO, &one, sizeof(one))) {
        stream_fail(s, errno, "UDP_GRO (--gro) is not supported here");
        return;
    }
    static __thread struct rx_batch b;
    rx_batch_init(&b, buf, p->gro ? 65536 : s->block + 1, s->peer_len > 0);
    uint64_t last_rx = clock_now_ns(), stop_seen = 0, bytes = 0;
    bool got_any = false;
    struct rx_waiter w = {.epfd = -1};
    for (;;) {
        int first;
        int n = rx_take(s, &b, &first);
        int rx_err = n < 0 ? errno : 0;
        uint64_t now = clock_now_ns();
        if (n < 0 && rx_err != EAGAIN && rx_err != EINTR && rx_err != ECONNREFUSED) {
            stream_fail(s, rx_err, "recvmmsg");
            break;
        }
        for (int i = first; i < n; i++)
            bytes += take_message(s, &b, i, now, &got_any);
        if (n > 0) {
            rx_batch_rearm(&b, n);
            last_rx = now;
            atomic_store_explicit(&s->packets, udp_rx_unique(s->rx), memory_order_relaxed);
            atomic_store_explicit(&s->bytes, bytes, memory_order_relaxed);
        }
        stream_bytes_mark(s, bytes);
        if (aborted(s))
            break;
        uint64_t expected = atomic_load_explicit(&s->expected, memory_order_relaxed);
        if (expected && udp_rx_unique(s->rx) >= expected)
            break;
        bool stopped = atomic_load_explicit(s->stop, memory_order_relaxed);
        if (stopped && !stop_seen)
            stop_seen = now;
        uint64_t quiet_since = last_rx > stop_seen ? last_rx : stop_seen;
        if (stopped && now - quiet_since > UDP_DRAIN_NS)
            break;
        /* With -n the sender's count is known up front; silence after data means the rest is lost.
         */
        if (s->limit && got_any && now - last_rx > 4 * UDP_DRAIN_NS)
            break;
        /*
         * With -n nothing else ends the test: a receiver that never gets a
         * datagram (a firewall, a route) would wait for the server's
         * --max-duration. Silence from the start for the idle timeout is an error.
         */
        if (s->limit && !got_any && s->idle_timeout_ms > 0 &&
            now - s->start_ns > (uint64_t)s->idle_timeout_ms * 1000000) {
            stream_fail_msg(s, ETIMEDOUT, "no datagram arrived in %d ms", s->idle_timeout_ms);
            break;
        }
        /* Nothing queued (a batch short of full took it all), and rx_take() did not block. */
        if (n < UDP_BATCH && (n > 0 || rx_err == EAGAIN) && (stopped || s->limit))
            rx_wait(s, &w, stopped, rx_deadline(s, stopped, quiet_since, got_any, last_rx));
    }
    if (w.epfd >= 0)
        close(w.epfd);
    s->end_ns = last_rx;
}

void stream_udp_run(struct stream *s, char *buf)
{
    if (s->role == ROLE_UDP_SEND)
        run_sender(s, buf);
    else
        run_receiver(s, buf);
}
