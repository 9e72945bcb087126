/*
 * The open-loop UDP prober of the latency-under-load test (rrul, issue 31;
 * engine/probe_log.h): a udp_rr client stream that sends probe k at
 * start + k / rate on an absolute schedule, never waiting for an answer
 * before the next send. A closed loop (udp_rr's) sends less often exactly
 * when round trips grow, under-sampling the latency under load it is meant
 * to show; RPM's probes and irtt's are isochronous for that reason. The
 * server is the ordinary udp_rr server, which echoes each request's header
 * (its sequence number). The thread waits on its socket, the stop and the
 * next probe's time, never on a period.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/probe_log.h"
#include "engine/stream.h"
#include "engine/udp_wire.h"
#include "measure/histogram.h"
#include "util/clock.h"

struct prober {
    struct probe_log *log;
    uint64_t period_ns, sent, answered, highest, bytes;
    bool any;
};

/* Sends every probe due at now. Returns 0 or a hard send failure's errno. */
static int send_due(struct stream *s, struct prober *pr, char *buf, uint64_t now)
{
    struct probe_log *log = pr->log;
    while (pr->sent < log->cap && log->start_ns + pr->sent * pr->period_ns <= now) {
        struct probe_rec *r = &log->rec[pr->sent];
        r->sent_ns = clock_now_ns();
        udp_wire_put(buf, (uint32_t)s->id, pr->sent, r->sent_ns);
        if (send(s->fd, buf, s->params->req_size, 0) < 0 && errno != EAGAIN && errno != ENOBUFS &&
            errno != ECONNREFUSED)
            return errno;
        /* A probe the kernel dropped at once is still sent: it counts lost, not unsent. */
        atomic_store_explicit(&log->sent, ++pr->sent, memory_order_release);
    }
    return 0;
}

/* Reads every answer waiting. Returns 0 or a hard receive failure's errno. */
static int read_answers(struct stream *s, struct prober *pr, char *rbuf)
{
    for (;;) {
        ssize_t n = recv(s->fd, rbuf, 65536, MSG_DONTWAIT);
        uint64_t now = clock_now_ns();
        if (n < 0)
            return errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED ? 0 : errno;
        uint32_t id;
        uint64_t seq, ts;
        if (udp_wire_get(rbuf, (size_t)n, &id, &seq, &ts) || id != (uint32_t)s->id ||
            seq >= pr->sent) {
            s->errors.read++;
            continue;
        }
        struct probe_rec *r = &pr->log->rec[seq];
        if (r->answers++)
            continue; /* a duplicate: counted, its round trip not taken again */
        r->rtt_ns = now - r->sent_ns;
        uint64_t srv;
        if (!udp_wire_get_stamp(rbuf, (size_t)n, &srv) || pr->log->stamp == STAMP_NONE)
            srv = 0;
        /* A CLOCK_REALTIME stamp onto this end's monotonic scale, by the two clocks' offset now. */
        if (srv && pr->log->stamp == STAMP_REALTIME) {
            uint64_t real = clock_real_ns();
            srv = srv + now > real ? srv + now - real : 0;
        }
        r->srv_ns = srv;
        hist_record(s->latency, r->rtt_ns);
        if (pr->any && seq < pr->highest)
            r->reordered = true;
        else
            pr->highest = seq;
        pr->any = true;
        pr->bytes += (uint64_t)n;
        atomic_store_explicit(&s->packets, ++pr->answered, memory_order_relaxed);
        atomic_store_explicit(&s->bytes, pr->bytes, memory_order_relaxed);
    }
}

/*
 * The prober's loop until the stop, then until every probe is answered or
 * rr_timeout_ms passed since the stop: a probe still unanswered then is lost.
 */
void stream_probe_run(struct stream *s, char *buf)
{
    struct prober pr = {.log = s->probe};
    struct probe_log *log = s->probe;
    uint64_t timeout_ns = (uint64_t)s->params->rr_timeout_ms * 1000000, stop_ns = 0;
    pr.period_ns = (uint64_t)(1e9 / log->rate);
    if (!pr.period_ns)
        pr.period_ns = 1;
    /*
     * Every probe asks for the server's receive time on the clock chosen from
     * the server's "accept" (measure/clocksync.h), when it has room for the answer.
     */
    if (s->params->req_size >= UDP_WIRE_STAMP_LEN && log->stamp != STAMP_NONE)
        memcpy(buf + UDP_WIRE_HEADER, log->stamp == STAMP_REALTIME ? "NBTW" : "NBTS", 4);
    log->start_ns = clock_now_ns();
    int err = 0;
    while (!err && !atomic_load_explicit(s->abort, memory_order_relaxed)) {
        uint64_t now = clock_now_ns();
        if (!stop_ns && atomic_load_explicit(s->stop, memory_order_relaxed))
            stop_ns = now;
        if (!stop_ns && (err = send_due(s, &pr, buf, now)))
            break;
        if ((err = read_answers(s, &pr, buf + 65536)))
            break;
        if (stop_ns && (pr.answered == pr.sent || clock_now_ns() >= stop_ns + timeout_ns))
            break;
        uint64_t next = stop_ns              ? stop_ns + timeout_ns
                        : pr.sent < log->cap ? log->start_ns + pr.sent * pr.period_ns
                                             : 0;
        stream_wait(s->fd, POLLIN, stop_ns ? s->abort_fd : s->stop_fd, next);
    }
    if (err)
        stream_fail(s, err, "probe");
    atomic_store_explicit(&s->lost, pr.sent - pr.answered, memory_order_relaxed);
    s->end_ns = stop_ns ? stop_ns : clock_now_ns();
}
