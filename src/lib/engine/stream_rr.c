/*
 * Request/response roles (tcp_rr, udp_rr). The client keeps `outstanding`
 * requests in flight and records each transaction's latency, from sending
 * the request to receiving the whole response, in a log-linear histogram.
 *
 * TCP keeps order, so the client matches responses to requests first in,
 * first out and keeps the send times in a ring. UDP does not: each request
 * carries a sequence number that the server echoes, a response that does
 * not arrive within rr_timeout_ms counts as lost, and its slot is reused.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/probe_log.h"
#include "engine/stream.h"
#include "engine/udp_wire.h"
#include "measure/histogram.h"
#include "util/clock.h"

static bool stopping(const struct stream *s)
{
    return atomic_load_explicit(s->stop, memory_order_relaxed) ||
           atomic_load_explicit(s->abort, memory_order_relaxed);
}

static bool aborted(const struct stream *s)
{
    return atomic_load_explicit(s->abort, memory_order_relaxed);
}

/* Sends len bytes on a blocking TCP socket (an abort shuts it: EPIPE). */
static int send_all(struct stream *s, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN) && !aborted(s))
            continue;
        return n < 0 ? -errno : -EPIPE;
    }
    return 0;
}

/*
 * A tcp_rr transaction's latency; the latency-under-load test's TCP probe
 * (engine/probe_log.h) records it also in the histogram of its phase.
 */
static inline void tcp_record(struct stream *s, uint64_t now, uint64_t latency)
{
    hist_record(s->latency, latency);
    if (s->probe && s->probe->hist[0])
        hist_record(s->probe->hist[probe_log_phase(s->probe, now)], latency);
}

/*
 * Whether to queue the next request: not once stopping. The latency-under-load
 * test's TCP probe (s->probe) sends request tx no earlier than its start +
 * tx / rate: only after the answer, as an application would, and never faster
 * than the probes' rate, so that an idle path is measured rather than filled
 * (unpaced, it carried 63,000 transactions a second through a 50 Mbit/s tbf and
 * queued the idle phase's UDP probes behind them). *now becomes the request's time.
 */
static bool tcp_next_request(struct stream *s, uint64_t tx, uint64_t *now)
{
    if (stopping(s))
        return false;
    if (!s->probe || s->probe->rate <= 0)
        return true;
    uint64_t slot = s->start_ns + (uint64_t)((double)tx * 1e9 / s->probe->rate);
    if (*now >= slot)
        return true;
    stream_wait(-1, 0, s->stop_fd, slot);
    *now = clock_now_ns();
    return !stopping(s);
}

/*
 * The tcp_rr client. Requests are queued (their latency clock starts then)
 * and written without blocking while responses are read, so large messages
 * with several outstanding cannot deadlock against a server that is itself
 * blocked writing responses. With everything written, it waits in a plain
 * blocking recv(), the fast path for small messages.
 */
static void tcp_client(struct stream *s, char *buf)
{
    const struct test_params *p = s->params;
    int k = p->outstanding;
    uint64_t *sent_at = calloc((size_t)k, sizeof(uint64_t));
    if (!sent_at) {
        stream_fail(s, ENOMEM, "ring");
        return;
    }
    int head = 0, inflight = 0;
    uint64_t tx = 0, bytes = 0, resp_left = p->resp_size, unsent = 0;
    size_t cap = stream_buffer_size(s);
    int rc = 0;
    for (; inflight < k; inflight++) {
        sent_at[(head + inflight) % k] = clock_now_ns();
        unsent += p->req_size;
    }
    while (!rc && inflight > 0) {
        if (unsent) {
            size_t len = unsent < cap ? (size_t)unsent : cap;
            ssize_t w = send(s->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (w > 0) {
                unsent -= (uint64_t)w;
            } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
                rc = -errno;
                s->errors.write++;
                break;
            }
        }
        ssize_t n;
        if (unsent) {
            /* Room to send or a response to read, or the abort (the stop changes nothing here). */
            if (!(stream_wait(s->fd, POLLIN | POLLOUT, s->abort_fd, 0) &
                  (POLLIN | POLLERR | POLLHUP))) {
                if (aborted(s))
                    break;
                continue;
            }
            n = recv(s->fd, buf, cap, MSG_DONTWAIT);
        } else {
            n = recv(s->fd, buf, cap, 0);
        }
        if (n <= 0) {
            if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
                if (aborted(s))
                    break;
                continue;
            }
            rc = n < 0 ? -errno : -ECONNRESET;
            s->errors.read++;
            break;
        }
        bytes += (uint64_t)n;
        uint64_t now = clock_now_ns();
        size_t left = (size_t)n;
        while (left && inflight > 0) {
            size_t take = left < resp_left ? left : (size_t)resp_left;
            left -= take;
            resp_left -= take;
            if (resp_left)
                break;
            tcp_record(s, now, now - sent_at[head]);
            atomic_store_explicit(&s->packets, ++tx, memory_order_relaxed);
            head = (head + 1) % k;
            inflight--;
            resp_left = p->resp_size;
            if (tcp_next_request(s, tx, &now)) {
                sent_at[(head + inflight) % k] = now;
                unsent += p->req_size;
                inflight++;
            }
        }
        atomic_store_explicit(&s->bytes, bytes, memory_order_relaxed);
    }
    if (rc && !aborted(s))
        stream_fail(s, -rc, "request/response");
    s->end_ns = clock_now_ns();
    shutdown(s->fd, SHUT_WR);
    free(sent_at);
}

static void tcp_server(struct stream *s, char *buf)
{
    const struct test_params *p = s->params;
    size_t cap = stream_buffer_size(s) - 65536;
    uint64_t req_left = p->req_size, tx = 0, bytes = 0;
    char *resp = buf + cap;
    for (;;) {
        ssize_t n = recv(s->fd, buf, cap, 0);
        if (n == 0)
            break;
        if (n < 0) {
            if ((errno == EINTR || errno == EAGAIN) && !aborted(s))
                continue;
            if (!aborted(s))
                stream_fail(s, errno, "recv");
            break;
        }
        bytes += (uint64_t)n;
        uint64_t complete = 0;
        size_t left = (size_t)n;
        while (left) {
            size_t take = left < req_left ? left : req_left;
            left -= take;
            req_left -= take;
            if (!req_left) {
                complete++;
                req_left = p->req_size;
            }
        }
        int rc = 0;
        for (uint64_t i = 0; i < complete && !rc; i++) {
            size_t rlen = p->resp_size;
            while (rlen && !rc) {
                size_t chunk = rlen < 65536 ? rlen : 65536;
                rc = send_all(s, resp, chunk);
                rlen -= chunk;
            }
        }
        tx += complete;
        atomic_store_explicit(&s->packets, tx, memory_order_relaxed);
        atomic_store_explicit(&s->bytes, bytes, memory_order_relaxed);
        if (rc) {
            if (!aborted(s))
                stream_fail(s, -rc, "send");
            break;
        }
    }
    s->end_ns = clock_now_ns();
}

struct udp_slot {
    uint64_t seq;
    uint64_t sent_ns;
};

/*
 * Sends request seq in slot. Returns whether it went; a hard failure's
 * errno is kept in *send_err, so that a stream whose every request fails
 * says why as udp_stream does ("send: Operation not permitted").
 */
static bool udp_send_request(struct stream *s, char *buf, struct udp_slot *slot, uint64_t seq,
                             int *send_err)
{
    slot->seq = seq;
    slot->sent_ns = clock_now_ns();
    udp_wire_put(buf, (uint32_t)s->id, seq, slot->sent_ns);
    ssize_t n = send(s->fd, buf, s->params->req_size, 0);
    if (n < 0 && errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED) {
        *send_err = errno;
        return false;
    }
    return true;
}

/*
 * Sends the first request of each of the k slots: slot i carries sequence
 * numbers i, i+k, i+2k..., so seq % k finds the slot. Marks in active[] the
 * slots whose request went and returns how many did; a hard failure's errno
 * is kept in *send_err.
 */
static int udp_send_first(struct stream *s, char *buf, struct udp_slot *slots, bool *active, int k,
                          int *send_err)
{
    int inflight = 0;
    for (int i = 0; i < k; i++) {
        active[i] = udp_send_request(s, buf, &slots[i], (uint64_t)i, send_err);
        inflight += active[i];
    }
    return inflight;
}

/*
 * With nothing to read at `now`: counts as lost each active request older
 * than timeout_ns and, unless the stream is stopping, reuses its slot for
 * the slot's next sequence number (*inflight follows). Returns the earliest
 * time a request still in flight runs out, at most now + timeout_ns, for the
 * caller's wait. Inline: it runs in udp_client()'s loop, off the path of a
 * response that arrived.
 */
static inline uint64_t udp_expire_overdue(struct stream *s, char *buf, struct udp_slot *slots,
                                          bool *active, int k, int *inflight, uint64_t now,
                                          uint64_t timeout_ns, int *send_err)
{
    uint64_t soonest = now + timeout_ns;
    for (int i = 0; i < k; i++) {
        if (!active[i])
            continue;
        if (now - slots[i].sent_ns >= timeout_ns) {
            atomic_fetch_add(&s->lost, 1);
            active[i] = false;
            (*inflight)--;
            if (!stopping(s)) {
                uint64_t seq = slots[i].seq + (uint64_t)k;
                active[i] = udp_send_request(s, buf, &slots[i], seq, send_err);
                *inflight += active[i];
            }
        } else if (slots[i].sent_ns + timeout_ns < soonest) {
            soonest = slots[i].sent_ns + timeout_ns;
        }
    }
    return soonest;
}

/*
 * The udp_rr client: `outstanding` slots, each with one request in flight;
 * a response is matched to its slot by sequence number and its latency
 * recorded, then the slot sends its next request until the stop. Requests
 * unanswered within rr_timeout_ms count as lost. Failures are reported with
 * stream_fail(); s->end_ns is set on every path.
 */
static void udp_client(struct stream *s, char *buf)
{
    const struct test_params *p = s->params;
    int k = p->outstanding;
    uint64_t timeout_ns = (uint64_t)p->rr_timeout_ms * 1000000;
    struct udp_slot *slots = calloc((size_t)k, sizeof(*slots));
    bool *active = calloc((size_t)k, sizeof(bool));
    char *rbuf = buf + 65536;
    uint64_t tx = 0, bytes = 0, stop_ns = 0, last_ns = 0;
    int send_err = EIO;
    int inflight = 0;
    if (!slots || !active) {
        stream_fail(s, ENOMEM, "slots");
        goto out;
    }
    inflight = udp_send_first(s, buf, slots, active, k, &send_err);
    if (!inflight) {
        stream_fail(s, send_err, "send");
        goto out;
    }
    while (inflight > 0 && !aborted(s)) {
        ssize_t n = recv(s->fd, rbuf, 65536, MSG_DONTWAIT);
        uint64_t now = clock_now_ns();
        if (!stop_ns && stopping(s))
            stop_ns = now;
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
                stream_fail(s, errno, "recv");
                break;
            }
            /*
             * Expire requests whose response is overdue, then wait until the
             * next one is, or the stop (its time ends the stream's, see below).
             */
            uint64_t soonest =
                udp_expire_overdue(s, buf, slots, active, k, &inflight, now, timeout_ns, &send_err);
            if (inflight > 0)
                stream_wait(s->fd, POLLIN, stop_ns ? s->abort_fd : s->stop_fd, soonest);
            continue;
        }
        uint32_t id;
        uint64_t seq, ts;
        if (udp_wire_get(rbuf, (size_t)n, &id, &seq, &ts) || id != (uint32_t)s->id) {
            s->errors.read++;
            continue;
        }
        int i = (int)(seq % (uint64_t)k);
        if (!active[i] || slots[i].seq != seq)
            continue; /* a response that arrived after its timeout: already counted lost */
        bytes += (uint64_t)n;
        hist_record(s->latency, now - slots[i].sent_ns);
        atomic_store_explicit(&s->packets, ++tx, memory_order_relaxed);
        atomic_store_explicit(&s->bytes, bytes, memory_order_relaxed);
        last_ns = now;
        active[i] = false;
        inflight--;
        if (!stopping(s)) {
            active[i] = udp_send_request(s, buf, &slots[i], seq + (uint64_t)k, &send_err);
            inflight += active[i];
        }
    }
    /* Every slot fell silent before the stop: sends failed for good, say so. */
    if (!inflight && !stopping(s) && !aborted(s))
        stream_fail(s, send_err, "send");
out:
    /*
     * After the stop, waiting out the timeout of a request whose response
     * was lost is not transaction time: the stream ends with its last
     * response or the stop, whichever came later.
     */
    s->end_ns = stop_ns ? (last_ns > stop_ns ? last_ns : stop_ns) : clock_now_ns();
    free(slots);
    free(active);
}

static void udp_server(struct stream *s, char *buf)
{
    const struct test_params *p = s->params;
    uint64_t tx = 0, bytes = 0;
    char *resp = buf + 65536;
    bool stamped = false; /* the last response carried a receive time (udp_wire.h) */
    memset(resp, 0x5a, p->resp_size);
    while (!stopping(s)) {
        struct sockaddr_storage from;
        socklen_t flen = sizeof(from);
        ssize_t n = recvfrom(s->fd, buf, 65536, 0, (struct sockaddr *)&from, &flen);
        /* The stop shut the receive side (stream_stop_wake()): no datagram, the end. */
        if (n == 0 && stopping(s))
            break;
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            stream_fail(s, errno, "recvfrom");
            break;
        }
        if (!udp_wire_accept(buf, (size_t)n, &from, &s->peer, (uint32_t)s->id, &s->foreign,
                             &s->malformed))
            continue;
        bytes += (uint64_t)n;
        memcpy(resp, buf, UDP_WIRE_HEADER);
        /* A probe asking for the receive time gets it; a response after it is padding again. */
        bool mono = udp_wire_wants_stamp(buf, (size_t)n),
             stamp = p->resp_size >= UDP_WIRE_STAMP_LEN &&
                     (mono || udp_wire_wants_wall(buf, (size_t)n));
        if (stamp)
            udp_wire_put_stamp(resp, mono ? clock_now_ns() : clock_real_ns());
        else if (stamped)
            memset(resp + UDP_WIRE_HEADER, 0x5a, UDP_WIRE_STAMP_LEN - UDP_WIRE_HEADER);
        stamped = stamp;
        /* Replies go only to the client's registered address, never to a forged source. */
        if (sendto(s->fd, resp, p->resp_size, 0, (struct sockaddr *)&s->peer, s->peer_len) < 0 &&
            errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED) {
            stream_fail(s, errno, "sendto");
            break;
        }
        atomic_store_explicit(&s->packets, ++tx, memory_order_relaxed);
        atomic_store_explicit(&s->bytes, bytes, memory_order_relaxed);
    }
    s->end_ns = clock_now_ns();
}

void stream_rr_run(struct stream *s, char *buf)
{
    bool udp = s->params->kind == TEST_UDP_RR;
    if (s->role == ROLE_RR_CLIENT && udp && s->probe)
        stream_probe_run(s, buf);
    else if (s->role == ROLE_RR_CLIENT)
        udp ? udp_client(s, buf) : tcp_client(s, buf);
    else
        udp ? udp_server(s, buf) : tcp_server(s, buf);
}
