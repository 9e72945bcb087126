#include "engine/stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/sockopt.h"
#include "util/clock.h"
#include "util/sock.h"

/* How often a blocked send/recv wakes up to look at the stop and abort flags. */
#define STREAM_WAKE_MS 200

static void stream_fail(struct stream *s, int err, const char *what)
{
    s->error = -err;
    snprintf(s->errmsg, sizeof(s->errmsg), "stream %d: %s: %s", s->id, what, strerror(err));
}

static void run_sender(struct stream *s, char *buf)
{
    uint64_t sent = 0;
    while (!atomic_load_explicit(s->stop, memory_order_relaxed) &&
           !atomic_load_explicit(s->abort, memory_order_relaxed)) {
        size_t len = s->block;
        if (s->limit) {
            if (sent >= s->limit)
                break;
            if (s->limit - sent < len)
                len = (size_t)(s->limit - sent);
        }
        ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (uint64_t)n;
            atomic_store_explicit(&s->bytes, sent, memory_order_relaxed);
            continue;
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        stream_fail(s, n < 0 ? errno : EPIPE, "send");
        break;
    }
    s->end_ns = clock_now_ns();
    tcpinfo_read(s->fd, &s->tcpinfo);
    /* The FIN tells the receiver that everything it will ever get has been sent. */
    shutdown(s->fd, SHUT_WR);
}

static void run_receiver(struct stream *s, char *buf)
{
    uint64_t got = 0, seen = 0;
    uint64_t last_data = clock_now_ns();
    for (;;) {
        ssize_t n = recv(s->fd, buf, s->block, 0);
        if (n > 0) {
            if (!got)
                s->first_ns = clock_now_ns();
            got += (uint64_t)n;
            atomic_store_explicit(&s->bytes, got, memory_order_relaxed);
            continue;
        }
        if (n == 0)
            break;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN) {
            if (atomic_load_explicit(s->abort, memory_order_relaxed))
                break;
            uint64_t now = clock_now_ns();
            if (got != seen) {
                seen = got;
                last_data = now;
            }
            if (s->idle_timeout_ms > 0 &&
                now - last_data > (uint64_t)s->idle_timeout_ms * 1000000) {
                s->error = -ETIMEDOUT;
                snprintf(s->errmsg, sizeof(s->errmsg), "stream %d: no data for %d ms", s->id,
                         s->idle_timeout_ms);
                break;
            }
            continue;
        }
        stream_fail(s, errno, "recv");
        break;
    }
    s->end_ns = clock_now_ns();
    tcpinfo_read(s->fd, &s->tcpinfo);
}

static void *stream_main(void *arg)
{
    struct stream *s = arg;
    sockopt_pin_thread(s->cpu);
    char *buf = malloc(s->block);
    if (!buf) {
        stream_fail(s, ENOMEM, "buffer");
    } else {
        memset(buf, 0x5a, s->block);
        s->start_ns = clock_now_ns();
        if (s->sender)
            run_sender(s, buf);
        else
            run_receiver(s, buf);
        free(buf);
    }
    atomic_store(&s->done, true);
    return NULL;
}

int stream_start(struct stream *s)
{
    atomic_store(&s->bytes, 0);
    atomic_store(&s->done, false);
    s->error = 0;
    s->errmsg[0] = '\0';
    sock_set_timeouts(s->fd, STREAM_WAKE_MS);
    int rc = pthread_create(&s->thread, NULL, stream_main, s);
    if (rc)
        return -rc;
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
}
