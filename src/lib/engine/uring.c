/* --io-uring: a TCP stream's send and receive loops over io_uring (uring.h). */
#include "engine/uring.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <liburing.h>

#include "util/clock.h"

/* Linux 6.2's, newer than the liburing netab may build with. */
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE (1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED (1U << 31)
#endif

static bool ending(const struct stream *s)
{
    return atomic_load_explicit(s->stop, memory_order_relaxed) ||
           atomic_load_explicit(s->abort, memory_order_relaxed);
}

/* A sender's state: bytes done, and the sends and notifications still to come. */
struct send_state {
    uint64_t sent, queued; /* queued: bytes asked by the sends in flight */
    int inflight, notifs;
    bool done, zc;
    unsigned zc_flags;
};

/* Queues sends until PATH_URING_DEPTH are in flight or the quota (-n) is all asked for. */
static void queue_sends(struct stream *s, struct io_uring *ring, char *buf, struct send_state *st)
{
    while (st->inflight < PATH_URING_DEPTH && (!s->limit || st->sent + st->queued < s->limit)) {
        size_t len = s->block;
        if (s->limit && s->limit - st->sent - st->queued < len)
            len = (size_t)(s->limit - st->sent - st->queued);
        struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
        if (!sqe)
            break;
        /* Every send is of the same buffer: its bytes are never looked at, only counted. */
        if (st->zc)
            io_uring_prep_send_zc(sqe, s->fd, buf, len, MSG_NOSIGNAL, st->zc_flags);
        else
            io_uring_prep_send(sqe, s->fd, buf, len, MSG_NOSIGNAL);
        io_uring_sqe_set_data64(sqe, len);
        st->inflight++;
        st->queued += len;
        s->rxp.submitted++;
    }
}

/* One completion of a send: its bytes, a zero-copy notification, or the end. */
static void send_done(struct stream *s, const struct io_uring_cqe *cqe, struct send_state *st)
{
    if (cqe->flags & IORING_CQE_F_NOTIF) {
        st->notifs--;
        s->rxp.zc_notifs++;
        if (st->zc_flags & IORING_SEND_ZC_REPORT_USAGE)
            s->rxp.zc_copied += (cqe->res & IORING_NOTIF_USAGE_ZC_COPIED) != 0;
        return;
    }
    /* A zero-copy send's buffer is the kernel's until its notification: one more to wait for. */
    if (cqe->flags & IORING_CQE_F_MORE)
        st->notifs++;
    st->inflight--;
    st->queued -= io_uring_cqe_get_data64(cqe);
    s->rxp.completed++;
    if (cqe->res > 0) {
        st->sent += (uint64_t)cqe->res;
        atomic_store_explicit(&s->bytes, st->sent, memory_order_relaxed);
    } else if (cqe->res == -EINVAL && (st->zc_flags & IORING_SEND_ZC_REPORT_USAGE)) {
        /* A kernel before 6.2 refuses the report flag: zero-copy sends without it. */
        st->zc_flags &= ~IORING_SEND_ZC_REPORT_USAGE;
        s->rxp.zc_usage = false;
    } else if (cqe->res == -EINTR || cqe->res == -EAGAIN) {
        /* Asked again by the next queue_sends(). */
    } else if (!(cqe->res == -EPIPE && ending(s)) && !st->done) {
        /* EPIPE after the stop: it shut the write side under the sends in flight. */
        stream_fail(s, cqe->res < 0 ? -cqe->res : EPIPE, "io_uring send");
        st->done = true;
    } else {
        st->done = true;
    }
}

/*
 * Waits for the next completion: a receiver, and a sender once it stops,
 * no longer than the idle timeout (io_uring's receives do not keep
 * SO_RCVTIMEO; a zero-copy send's notification comes only when the peer
 * acknowledged its bytes, which a vanished peer never does). 0, -ETIME or
 * an error.
 */
static int wait_one(struct stream *s, struct io_uring *ring)
{
    struct io_uring_cqe *cqe;
    int rc = io_uring_submit(ring);
    if (rc < 0)
        return rc;
    if (s->idle_timeout_ms <= 0)
        return io_uring_wait_cqe(ring, &cqe);
    struct __kernel_timespec ts = {.tv_sec = s->idle_timeout_ms / 1000,
                                   .tv_nsec = (long long)(s->idle_timeout_ms % 1000) * 1000000};
    return io_uring_wait_cqe_timeout(ring, &cqe, &ts);
}

static void uring_send(struct stream *s, struct io_uring *ring, char *buf)
{
    struct send_state st = {.zc = s->params->io_uring == PATH_URING_ZC};
    if (st.zc) {
        st.zc_flags = IORING_SEND_ZC_REPORT_USAGE;
        s->rxp.zc_usage = true;
    }
    for (;;) {
        if (!st.done && !ending(s))
            queue_sends(s, ring, buf, &st);
        if (!st.inflight && !st.notifs)
            break;
        /* Nothing more to queue (the stop, an error, -n's quota asked for): only completions. */
        bool last = ending(s) || st.done || (s->limit && st.sent + st.queued >= s->limit);
        int rc = last ? wait_one(s, ring) : io_uring_submit_and_wait(ring, 1);
        if (rc == -ETIME) {
            stream_fail_msg(s, ETIMEDOUT,
                            "%d sends and %d zero-copy notifications still pending: none "
                            "completed in %d ms after the last send",
                            st.inflight, st.notifs, s->idle_timeout_ms);
            break;
        }
        if (rc < 0 && rc != -EINTR) {
            stream_fail(s, -rc, "io_uring_submit");
            break;
        }
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(ring, head, cqe)
        {
            seen++;
            send_done(s, cqe, &st);
        }
        io_uring_cq_advance(ring, seen);
    }
}

static void uring_recv(struct stream *s, struct io_uring *ring, char *buf)
{
    size_t len = stream_buffer_size(s);
    int flags = path_rx_recv_flags(s->params);
    uint64_t got = 0;
    int inflight = 0;
    bool eof = false;
    for (;;) {
        struct io_uring_sqe *sqe;
        /* Receives share one buffer: what they read is discarded, only counted. */
        while (!eof && inflight < PATH_URING_DEPTH && (sqe = io_uring_get_sqe(ring))) {
            io_uring_prep_recv(sqe, s->fd, buf, len, flags);
            inflight++;
            s->rxp.submitted++;
        }
        if (!inflight)
            break;
        int rc = wait_one(s, ring);
        if (rc == -ETIME) {
            if (!atomic_load_explicit(s->abort, memory_order_relaxed))
                stream_fail_msg(s, ETIMEDOUT, "no data for %d ms", s->idle_timeout_ms);
            break;
        }
        if (rc < 0 && rc != -EINTR) {
            stream_fail(s, -rc, "io_uring wait");
            break;
        }
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(ring, head, cqe)
        {
            seen++;
            inflight--;
            s->rxp.completed++;
            if (cqe->res > 0) {
                if (!got)
                    s->first_ns = clock_now_ns();
                got += (uint64_t)cqe->res;
                atomic_store_explicit(&s->bytes, got, memory_order_relaxed);
                stream_bytes_mark(s, got);
            } else if (cqe->res == 0) {
                eof = true; /* the FIN (or an abort's shutdown): the others end the same */
            } else if (cqe->res != -EINTR && cqe->res != -EAGAIN && !eof) {
                stream_fail(s, -cqe->res, "io_uring recv");
                eof = true;
            }
        }
        io_uring_cq_advance(ring, seen);
    }
}

void uring_tcp_run(struct stream *s, char *buf)
{
    struct io_uring ring;
    /* Room for every operation in flight and, with zc, their notifications. */
    int rc = io_uring_queue_init(4 * PATH_URING_DEPTH, &ring, 0);
    if (rc < 0) {
        stream_fail(s, -rc, "io_uring_setup");
    } else {
        if (s->role == ROLE_TCP_SEND)
            uring_send(s, &ring, buf);
        else
            uring_recv(s, &ring, buf);
        /* Cancels what is left in flight (an error or a timeout ended the loop). */
        io_uring_queue_exit(&ring);
    }
    s->end_ns = clock_now_ns();
    path_rx_stream_end(s);
    if (s->role == ROLE_TCP_SEND) {
        /* The FIN tells the receiver that everything it will ever get has been sent. */
        shutdown(s->fd, SHUT_WR);
        stream_tcpinfo_end(s);
    } else {
        tcpinfo_read(s->fd, &s->tcpinfo);
    }
}
