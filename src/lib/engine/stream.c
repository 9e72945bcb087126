#include "engine/stream.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "engine/sockopt.h"
#include "measure/flowhist.h"
#include "measure/histogram.h"
#include "measure/udp_rx.h"
#include "util/clock.h"
#include "util/evloop.h"
#include "util/sock.h"

/* rr/crr: the most a stream's receive area holds beyond one whole message. */
#define RR_RECV_MAX ((size_t)1024 * 1024)

void stream_notify(struct stream *s)
{
    if (s->notify)
        evloop_wake(s->notify);
}

int stream_wait(int fd, short events, int efd, uint64_t deadline_ns)
{
    struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = efd, .events = POLLIN}};
    struct timespec ts, *tsp = NULL;
    if (deadline_ns) {
        uint64_t now = clock_now_ns();
        uint64_t left = deadline_ns > now ? deadline_ns - now : 0;
        ts.tv_sec = (time_t)(left / 1000000000ull);
        ts.tv_nsec = (long)(left % 1000000000ull);
        tsp = &ts;
    }
    /* ppoll, not poll: the deadline to the nanosecond (UDP pacing), not rounded to a ms. */
    if (ppoll(p, 2, tsp, NULL) <= 0)
        return 0;
    return p[0].revents;
}

void stream_fail(struct stream *s, int err, const char *what)
{
    stream_fail_msg(s, err, "%s: %s", what, strerror(err));
}

void stream_fail_msg(struct stream *s, int err, const char *fmt, ...)
{
    /* Only the first failure is kept; the message is complete before the code is published. */
    if (atomic_load_explicit(&s->error, memory_order_relaxed))
        return;
    int n = snprintf(s->errmsg, sizeof(s->errmsg), "stream %d: ", s->id);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg + n, sizeof(s->errmsg) - (size_t)n, fmt, ap);
    va_end(ap);
    atomic_store_explicit(&s->error, -err, memory_order_release);
    stream_notify(s);
}

bool stream_role_sends(enum stream_role role)
{
    return role == ROLE_TCP_SEND || role == ROLE_UDP_SEND;
}

enum stream_role stream_role_of(enum test_kind kind, bool sender, bool is_server)
{
    switch (kind) {
    case TEST_UDP_STREAM:
        return sender ? ROLE_UDP_SEND : ROLE_UDP_RECV;
    case TEST_TCP_RR:
    case TEST_UDP_RR:
        return is_server ? ROLE_RR_SERVER : ROLE_RR_CLIENT;
    case TEST_TCP_CRR:
        return is_server ? ROLE_CRR_SERVER : ROLE_CRR_CLIENT;
    case TEST_TCP_STREAM:
    default:
        return sender ? ROLE_TCP_SEND : ROLE_TCP_RECV;
    }
}

void stream_counts_take(const struct stream *s, struct stream_counts *out)
{
    /* The counters are atomics that only the stream's thread writes: loads need no lock. */
    struct stream *m = (struct stream *)s;
    out->bytes = atomic_load_explicit(&m->bytes, memory_order_relaxed);
    out->packets = atomic_load_explicit(&m->packets, memory_order_relaxed);
    out->lost = atomic_load_explicit(&m->lost, memory_order_relaxed);
}

void stream_record_buffers(struct stream *s, int fd)
{
    int v;
    socklen_t len = sizeof(v);
    if (!getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &len))
        s->eff_sndbuf = v;
    len = sizeof(v);
    if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len))
        s->eff_rcvbuf = v;
}

size_t stream_buffer_size(const struct stream *s)
{
    const struct test_params *p = s->params;
    switch (s->role) {
    case ROLE_TCP_SEND:
        return s->block;
    case ROLE_TCP_RECV:
        /* A receiver reads what has arrived; more than 1 MiB at once gains nothing. */
        return s->block < STREAM_MAX_RECV ? s->block : STREAM_MAX_RECV;
    case ROLE_UDP_SEND:
    case ROLE_UDP_RECV:
        /* Room for a batch of datagrams, or one GSO/GRO super-packet per slot. */
        return (size_t)64 * (p->gso || p->gro ? 65536 : s->block + 1);
    default: {
        /*
         * A receive area that holds a whole request or response (the client
         * sends its request from it, tcp_crr reads whole messages into it)
         * and up to 64 small ones per recv(), but no more than 1 MiB beyond
         * that: 64 of the largest (1 MiB) messages would make every stream
         * of a peer's test allocate and touch 64 MiB. Then 64 KiB for the
         * responses the server sends in chunks.
         */
        size_t one = p->req_size > p->resp_size ? p->req_size : p->resp_size;
        size_t area = one * 64 < RR_RECV_MAX ? one * 64 : RR_RECV_MAX;
        return (area > one ? area : one) + 65536;
    }
    }
}

size_t stream_memory(const struct stream *s)
{
    size_t m = sizeof(*s) + stream_buffer_size(s) + 64 * 1024;
    if (s->role == ROLE_UDP_RECV)
        m += udp_rx_size();
    if (s->role == ROLE_RR_CLIENT || s->role == ROLE_CRR_CLIENT)
        m += sizeof(struct histogram) + (size_t)s->params->outstanding * 64;
    /* send path (issue 32): the zero-copy ring, or the memfd and pipe, beside the buffer. */
    if (s->role == ROLE_TCP_SEND)
        m += path_tx_memory(&s->params->tx, s->block);
    return m;
}

int stream_prepare(struct stream *s)
{
    if (s->role == ROLE_UDP_RECV && !(s->rx = udp_rx_new()))
        return -ENOMEM;
    if ((s->role == ROLE_RR_CLIENT || s->role == ROLE_CRR_CLIENT) &&
        !(s->latency = calloc(1, sizeof(*s->latency))))
        return -ENOMEM;
    if (s->latency)
        hist_init(s->latency);
    return 0;
}

void stream_release(struct stream *s)
{
    udp_rx_free(s->rx);
    s->rx = NULL;
    free(s->latency);
    s->latency = NULL;
    if (s->flat)
        flowhist_free(s->flat);
    free(s->flat);
    s->flat = NULL;
}

static void *stream_main(void *arg)
{
    struct stream *s = arg;
    atomic_store(&s->tid, (int)taskstat_gettid());
    sockopt_pin_thread(s->cpu);
    char *buf = malloc(stream_buffer_size(s));
    if (!buf) {
        stream_fail(s, ENOMEM, "buffer");
    } else {
        memset(buf, 0x5a, stream_buffer_size(s));
        s->start_ns = clock_now_ns();
        switch (s->role) {
        case ROLE_TCP_SEND:
        case ROLE_TCP_RECV:
            stream_tcp_run(s, buf);
            break;
        case ROLE_UDP_SEND:
        case ROLE_UDP_RECV:
            stream_udp_run(s, buf);
            break;
        case ROLE_RR_CLIENT:
        case ROLE_RR_SERVER:
            stream_rr_run(s, buf);
            break;
        case ROLE_CRR_CLIENT:
        case ROLE_CRR_SERVER:
            stream_crr_run(s, buf);
            break;
        }
        if (!s->end_ns)
            s->end_ns = clock_now_ns();
        free(buf);
    }
    s->task_end_ok = taskstat_self(&s->task_end) == 0;
    atomic_store(&s->done, true);
    /* After done is set: the woken loop must see it. */
    stream_notify(s);
    return NULL;
}

void stream_tcpinfo_end(struct stream *s)
{
    uint64_t end = clock_now_ns() + STREAM_ACK_WAIT_NS;
    while (!tcpinfo_acked(s->fd) && clock_now_ns() < end &&
           !atomic_load_explicit(s->abort, memory_order_relaxed) &&
           !atomic_load_explicit(&s->error, memory_order_relaxed))
        clock_sleep_until(clock_now_ns() + 1000000);
    tcpinfo_read(s->fd, &s->tcpinfo);
}

int stream_start(struct stream *s, char *err, size_t errlen)
{
    atomic_store(&s->bytes, 0);
    atomic_store(&s->packets, 0);
    atomic_store(&s->done, false);
    atomic_store(&s->error, 0);
    atomic_store(&s->tid, 0);
    s->task_end_ok = false;
    s->errmsg[0] = '\0';
    /*
     * No timeout wakes a blocked call to look at *stop or *abort: the
     * owner wakes it (stream_stop_wake(), stream_interrupt(), the event
     * fds). Only a TCP receiver's idle timeout is a receive timeout, a
     * deadline the kernel keeps from the last data on.
     */
    int rc = s->fd >= 0 ? sock_set_timeouts(s->fd, 0) : 0;
    if (!rc && s->fd >= 0 && s->role == ROLE_TCP_RECV && s->idle_timeout_ms > 0) {
        struct timeval tv = {.tv_sec = s->idle_timeout_ms / 1000,
                             .tv_usec = (s->idle_timeout_ms % 1000) * 1000};
        if (setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
            rc = -errno;
    }
    if (rc)
        return err_set(err, errlen, rc, "stream %d: cannot set its socket timeouts: %s", s->id,
                       strerror(-rc));
    rc = pthread_create(&s->thread, NULL, stream_main, s);
    if (rc)
        return err_set(err, errlen, rc, "stream %d: cannot start its thread: %s", s->id,
                       strerror(rc));
    s->started = true;
    return 0;
}

void stream_join(struct stream *s)
{
    if (s->started) {
        pthread_join(s->thread, NULL);
        s->started = false;
    }
}

void stream_stop_wake(struct stream *s)
{
    if (s->fd < 0)
        return;
    /* What the thread would do itself as it stops: the FIN follows the last byte it sent. */
    if (s->role == ROLE_TCP_SEND)
        shutdown(s->fd, SHUT_WR);
    /*
     * Roles that end at the stop (or start a UDP receiver's drain) and block
     * in accept(), recvfrom() or recvmmsg(): the call returns (EINVAL, or 0
     * on an unconnected UDP socket, which Linux shuts all the same) and the
     * thread sees *stop. Datagrams still arrive into a shut UDP socket.
     */
    else if (s->role == ROLE_CRR_SERVER || s->role == ROLE_UDP_RECV ||
             (s->role == ROLE_RR_SERVER && s->params && s->params->kind == TEST_UDP_RR))
        shutdown(s->fd, SHUT_RD);
}

void stream_interrupt(struct stream *s)
{
    if (s->fd >= 0)
        shutdown(s->fd, SHUT_RDWR);
}

void stream_close(struct stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    stream_release(s);
}
