/* TCP stream roles: a sender that writes blocks, a receiver that counts to EOF. */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>

#include "engine/stream.h"
#include "engine/uring.h"
#include "util/clock.h"

static void run_sender(struct stream *s, char *buf)
{
    uint64_t sent = 0;
    /* send path (issue 32): -Z, --splice, --msg-zerocopy, TCP pacing (engine/path_tx.h). */
    struct path_tx *tx = NULL;
    if (path_tx_params_used(&s->params->tx) && !(tx = path_tx_open(s, buf)))
        goto done;
    while (!atomic_load_explicit(s->stop, memory_order_relaxed) &&
           !atomic_load_explicit(s->abort, memory_order_relaxed)) {
        size_t len = s->block;
        if (s->limit) {
            if (sent >= s->limit)
                break;
            if (s->limit - sent < len)
                len = (size_t)(s->limit - sent);
        }
        ssize_t n = tx ? path_tx_send(tx, len) : send(s->fd, buf, len, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (uint64_t)n;
            atomic_store_explicit(&s->bytes, sent, memory_order_relaxed);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        /* The stop shut the write side under a blocked send (stream_stop_wake()): done. */
        if (n < 0 && errno == EPIPE &&
            (atomic_load_explicit(s->stop, memory_order_relaxed) ||
             atomic_load_explicit(s->abort, memory_order_relaxed)))
            break;
        stream_fail(s, n < 0 ? errno : EPIPE, path_tx_mode_call(s->params->tx.mode));
        break;
    }
done:
    s->end_ns = clock_now_ns();
    path_rx_stream_end(s); /* receive and socket paths (issue 32) */
    /* The FIN tells the receiver that everything it will ever get has been sent. */
    shutdown(s->fd, SHUT_WR);
    /* After the FIN: the last zero-copy completions are awaited off the sender's clock. */
    path_tx_close(tx);
    stream_tcpinfo_end(s);
}

static void run_receiver(struct stream *s, char *buf)
{
    uint64_t got = 0;
    /* --skip-rx-copy: MSG_TRUNC, the bytes counted but not copied (engine/path_rx.h). */
    int flags = path_rx_recv_flags(s->params);
    for (;;) {
        ssize_t n = recv(s->fd, buf, stream_buffer_size(s), flags);
        if (n > 0) {
            if (!got)
                s->first_ns = clock_now_ns();
            got += (uint64_t)n;
            atomic_store_explicit(&s->bytes, got, memory_order_relaxed);
            stream_bytes_mark(s, got);
            continue;
        }
        if (n == 0)
            break;
        /*
         * A signal restarts the wait for its whole idle timeout: only an
         * interrupted test gets one, and it ends with it.
         */
        if (errno == EINTR)
            continue;
        /*
         * The receive timeout is the idle timeout (stream_start()): the
         * kernel saw no data for that long since this recv began, which
         * began at the last data. An abort shuts the socket: recv returns 0.
         */
        if (errno == EAGAIN) {
            if (!atomic_load_explicit(s->abort, memory_order_relaxed))
                stream_fail_msg(s, ETIMEDOUT, "no data for %d ms", s->idle_timeout_ms);
            break;
        }
        stream_fail(s, errno, "recv");
        break;
    }
    s->end_ns = clock_now_ns();
    path_rx_stream_end(s); /* receive and socket paths (issue 32) */
    tcpinfo_read(s->fd, &s->tcpinfo);
}

void stream_tcp_run(struct stream *s, char *buf)
{
    /* receive and socket paths (issue 32): --io-uring's loops. */
    if (s->params->io_uring)
        uring_tcp_run(s, buf);
    else if (s->role == ROLE_TCP_SEND)
        run_sender(s, buf);
    else
        run_receiver(s, buf);
}
