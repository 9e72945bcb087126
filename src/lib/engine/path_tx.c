/* Send path (issue 32): the sending side of -Z, --splice, --msg-zerocopy and TCP pacing. */
#include "engine/path_tx.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine/stream.h"
#include "engine/stream_set.h"
#include "util/clock.h"

/* Older C libraries lack the names; the values are the kernel's ABI. */
#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

struct path_tx {
    struct stream *s;
    const char *buf; /* the stream's block: what a plain send() sends */
    enum path_tx_mode mode;
    int memfd;                     /* sendfile, splice: one block of the pattern */
    int pipe_r, pipe_w;            /* splice */
    size_t pipe_size;              /* splice: bytes one pass through the pipe moves at most */
    char *ring;                    /* msg_zerocopy: PATH_TX_ZC_SLOTS blocks */
    bool busy[PATH_TX_ZC_SLOTS];   /* msg_zerocopy: the slot's send is in flight */
    uint32_t id[PATH_TX_ZC_SLOTS]; /* its zero-copy id (the kernel counts sends from 0) */
    uint32_t next_id;
    int inflight;
    uint64_t pace_bps, first_ns, paced_bytes; /* -b */
    sigset_t old_mask;                        /* the thread's signal mask before SIGPIPE's block */
};

/* A fresh TCP socket for the checks: IPv4, else IPv6 on a host without it. */
static int probe_socket(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    return fd >= 0 ? fd : socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static int refuse(char *err, size_t errlen, const char *opt, const char *what, int e)
{
    return err_set(err, errlen, e, "%s: this kernel lacks %s (%s)", opt, what, strerror(e));
}

int path_tx_check(const struct path_tx_params *t, char *err, size_t errlen)
{
    if (!path_tx_params_used(t))
        return 0;
    int fd = probe_socket(), rc = 0, one = 1;
    if (fd < 0)
        return err_set(err, errlen, errno, "cannot open a TCP socket: %s", strerror(errno));
    uint64_t rate = t->fq_rate_bps / 8;
    int lowat = (int)t->notsent_lowat;
    if (t->mode == PATH_TX_MSG_ZEROCOPY &&
        setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
        rc = refuse(err, errlen, "--msg-zerocopy", "SO_ZEROCOPY (Linux 4.14)", errno);
    else if (t->fq_rate_bps && setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)))
        rc = refuse(err, errlen, "--fq-rate", "a 64-bit SO_MAX_PACING_RATE (Linux 4.20)", errno);
    else if (t->notsent_lowat &&
             setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat)))
        rc = refuse(err, errlen, "--notsent-lowat", "TCP_NOTSENT_LOWAT (Linux 3.12)", errno);
    close(fd);
    if (rc || (t->mode != PATH_TX_SENDFILE && t->mode != PATH_TX_SPLICE))
        return rc;
    const char *opt = path_tx_mode_option(t->mode);
    if ((fd = memfd_create("netab-path", MFD_CLOEXEC)) < 0)
        return refuse(err, errlen, opt, "memfd_create (Linux 3.17)", errno);
    close(fd);
    return 0;
}

size_t path_tx_memory(const struct path_tx_params *t, uint32_t block)
{
    switch (t->mode) {
    case PATH_TX_MSG_ZEROCOPY:
        return (size_t)PATH_TX_ZC_SLOTS * block;
    case PATH_TX_SPLICE:
        return 2 * (size_t)block;
    case PATH_TX_SENDFILE:
        return block;
    case PATH_TX_COPY:
    default:
        return 0;
    }
}

/* A memfd holding the block: what sendfile and splice read from. */
static int open_memfd(struct path_tx *tx, const char *buf)
{
    size_t len = tx->s->block;
    tx->memfd = memfd_create("netab-path", MFD_CLOEXEC);
    if (tx->memfd < 0)
        return -errno;
    for (size_t done = 0; done < len;) {
        ssize_t n = write(tx->memfd, buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        done += (size_t)n;
    }
    return 0;
}

/*
 * The pipe of --splice, sized to the block where the kernel allows it
 * (fs.pipe-max-size, 1 MiB by default, caps unprivileged users); a block
 * larger than the pipe goes through it in parts.
 */
static int open_pipe(struct path_tx *tx)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return -errno;
    tx->pipe_r = p[0];
    tx->pipe_w = p[1];
    (void)fcntl(p[1], F_SETPIPE_SZ, (int)tx->s->block);
    int size = fcntl(p[1], F_GETPIPE_SZ);
    if (size <= 0)
        return -errno;
    tx->pipe_size = (size_t)size;
    return 0;
}

static int open_ring(struct path_tx *tx, const char *buf)
{
    int one = 1;
    if (setsockopt(tx->s->fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
        return -errno;
    tx->ring = malloc((size_t)PATH_TX_ZC_SLOTS * tx->s->block);
    if (!tx->ring)
        return -ENOMEM;
    for (int i = 0; i < PATH_TX_ZC_SLOTS; i++)
        memcpy(tx->ring + (size_t)i * tx->s->block, buf, tx->s->block);
    return 0;
}

/* The pacing options on the sender's socket. Returns 0 or -errno with *what set. */
static int set_pacing(struct path_tx *tx, const char **what)
{
    const struct path_tx_params *t = &tx->s->params->tx;
    if (t->fq_rate_bps) {
        uint64_t rate = t->fq_rate_bps / 8; /* the kernel's unit is bytes/s */
        *what = "SO_MAX_PACING_RATE";
        if (setsockopt(tx->s->fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)))
            return -errno;
    }
    if (t->notsent_lowat) {
        int v = (int)t->notsent_lowat;
        *what = "TCP_NOTSENT_LOWAT";
        if (setsockopt(tx->s->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, sizeof(v)))
            return -errno;
    }
    return 0;
}

struct path_tx *path_tx_open(struct stream *s, const char *buf)
{
    struct path_tx *tx = calloc(1, sizeof(*tx));
    if (!tx) {
        stream_fail(s, ENOMEM, "send path");
        return NULL;
    }
    *tx = (struct path_tx){.s = s,
                           .buf = buf,
                           .mode = s->params->tx.mode,
                           .memfd = -1,
                           .pipe_r = -1,
                           .pipe_w = -1,
                           .pace_bps = s->params->tx.pace_bps};
    s->tx = (struct path_tx_stats){.used = true};
    /*
     * sendfile() and splice() have no MSG_NOSIGNAL: a socket shut at the
     * stop raises SIGPIPE at the calling thread. Blocked here and taken
     * off in path_tx_close(), it is only the EPIPE the loop expects.
     */
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &tx->old_mask);
    const char *what = "the send path";
    int rc = set_pacing(tx, &what);
    if (!rc && (tx->mode == PATH_TX_SENDFILE || tx->mode == PATH_TX_SPLICE)) {
        what = "memfd_create";
        rc = open_memfd(tx, buf);
    }
    if (!rc && tx->mode == PATH_TX_SPLICE) {
        what = "the splice pipe";
        rc = open_pipe(tx);
    }
    if (!rc && tx->mode == PATH_TX_MSG_ZEROCOPY) {
        what = "SO_ZEROCOPY";
        rc = open_ring(tx, buf);
    }
    if (rc) {
        stream_fail_msg(s, -rc, "%s: %s", what, strerror(-rc));
        s->tx.used = false;
        path_tx_close(tx);
        return NULL;
    }
    return tx;
}

/* True when the test stops or aborts: a wait of the sender ends. */
static bool ending(const struct stream *s)
{
    return atomic_load_explicit(s->stop, memory_order_relaxed) ||
           atomic_load_explicit(s->abort, memory_order_relaxed);
}

/* -b: waits until len more bytes keep the sender at or below the rate. False when stopped. */
static bool pace(struct path_tx *tx, size_t len)
{
    uint64_t now = clock_now_ns();
    if (!tx->first_ns)
        tx->first_ns = now;
    /* When the bytes sent so far are due at the rate: the rate is an average since the start. */
    uint64_t due = tx->first_ns + (uint64_t)((double)tx->paced_bytes * 8e9 / (double)tx->pace_bps);
    if (due > now)
        tx->s->tx.pace_waits++;
    while (due > now) {
        stream_wait(-1, 0, tx->s->stop_fd, due);
        if (ending(tx->s))
            return false;
        now = clock_now_ns();
    }
    tx->paced_bytes += len;
    return true;
}

/*
 * Reads the zero-copy completions on the error queue without waiting:
 * each message names a range of send ids, copied or not. Returns 0 or
 * -errno of a failed read.
 */
static int reap(struct path_tx *tx)
{
    struct stream *s = tx->s;
    for (;;) {
        union {
            char buf[128];
            struct cmsghdr align; /* CMSG_FIRSTHDR needs a cmsghdr-aligned buffer */
        } control;
        struct msghdr msg = {.msg_control = control.buf, .msg_controllen = sizeof(control.buf)};
        if (recvmsg(s->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (!((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                  (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)))
                continue;
            const struct sock_extended_err *e = (const void *)CMSG_DATA(c);
            if (e->ee_errno != 0 || e->ee_origin != SO_EE_ORIGIN_ZEROCOPY)
                continue;
            uint32_t lo = e->ee_info, hi = e->ee_data, n = hi - lo + 1;
            s->tx.zc_notifications++;
            s->tx.zc_completions += n;
            if (e->ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
                s->tx.zc_copied += n;
            for (int i = 0; i < PATH_TX_ZC_SLOTS; i++)
                if (tx->busy[i] && tx->id[i] - lo <= hi - lo) {
                    tx->busy[i] = false;
                    tx->inflight--;
                }
        }
    }
}

/*
 * Waits for completions to arrive (POLLERR: the error queue has some) and
 * reads them. Returns 0, -EINTR when the test aborts (or, with at_stop,
 * stops) meanwhile, -ETIMEDOUT after the idle timeout, or -errno.
 */
static int await_completion(struct path_tx *tx, bool at_stop)
{
    struct stream *s = tx->s;
    uint64_t limit =
        clock_now_ns() + (uint64_t)(s->idle_timeout_ms > 0 ? s->idle_timeout_ms : 10000) * 1000000;
    int before = tx->inflight, rc;
    while (tx->inflight == before) {
        if (atomic_load_explicit(s->abort, memory_order_relaxed) || (at_stop && ending(s)))
            return -EINTR;
        if (clock_now_ns() >= limit)
            return -ETIMEDOUT;
        int ev = stream_wait(s->fd, POLLERR, at_stop ? s->stop_fd : s->abort_fd, limit);
        if ((rc = reap(tx)))
            return rc;
        /* POLLERR without a notification is the connection's own error: no completion comes. */
        int soerr = 0;
        socklen_t len = sizeof(soerr);
        if (tx->inflight == before && (ev & POLLERR) &&
            !getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) && soerr)
            return -soerr;
        /* Hung up both ways: poll would return at once again, a spin until the limit. */
        if (tx->inflight == before && (ev & POLLHUP))
            return -EPIPE;
    }
    return 0;
}

static ssize_t send_zerocopy(struct path_tx *tx, size_t len)
{
    struct stream *s = tx->s;
    int slot = (int)(tx->next_id % PATH_TX_ZC_SLOTS), rc = reap(tx);
    /* The block is reused only once the kernel is done with its last send: never in flight. */
    if (!rc && tx->busy[slot]) {
        s->tx.zc_waits++;
        while (!rc && tx->busy[slot])
            rc = await_completion(tx, true);
    }
    if (rc) {
        errno = rc == -ETIMEDOUT ? EIO : -rc;
        return -1;
    }
    ssize_t n = send(s->fd, tx->ring + (size_t)slot * s->block, len, MSG_NOSIGNAL | MSG_ZEROCOPY);
    if (n > 0) {
        tx->busy[slot] = true;
        tx->id[slot] = tx->next_id++;
        tx->inflight++;
        s->tx.zc_sends++;
    } else if (n < 0 && errno == ENOBUFS && tx->inflight > 0) {
        /* The socket's option memory (optmem_max) holds the notifications: wait for one. */
        rc = await_completion(tx, true);
        errno = rc ? (rc == -ETIMEDOUT ? EIO : -rc) : EINTR;
    }
    return n;
}

/* --splice: the block into the pipe, then all of that into the socket. */
static ssize_t send_splice(struct path_tx *tx, size_t len)
{
    size_t want = len < tx->pipe_size ? len : tx->pipe_size;
    loff_t off = 0;
    ssize_t in = splice(tx->memfd, &off, tx->pipe_w, NULL, want, SPLICE_F_MOVE);
    if (in <= 0)
        return in < 0 ? -1 : (errno = EIO, -1);
    ssize_t moved = 0;
    while (moved < in) {
        ssize_t n = splice(tx->pipe_r, NULL, tx->s->fd, NULL, (size_t)(in - moved), SPLICE_F_MOVE);
        if (n > 0) {
            moved += n;
            continue;
        }
        if (n < 0 && errno == EINTR && !ending(tx->s))
            continue;
        /* What reached the socket counts; the rest of the pipe is dropped with the test. */
        if (moved)
            break;
        return n < 0 ? -1 : (errno = EIO, -1);
    }
    /* A part left in the pipe would go out ahead of the next block: empty it. */
    for (size_t left = (size_t)(in - moved); left;) {
        char sink[4096];
        ssize_t n = read(tx->pipe_r, sink, left < sizeof(sink) ? left : sizeof(sink));
        if (n <= 0)
            break;
        left -= (size_t)n;
    }
    return moved;
}

ssize_t path_tx_send(struct path_tx *tx, size_t len)
{
    if (tx->pace_bps && !pace(tx, len)) {
        errno = EINTR;
        return -1;
    }
    ssize_t n;
    off_t off = 0;
    switch (tx->mode) {
    case PATH_TX_SENDFILE:
        n = sendfile(tx->s->fd, tx->memfd, &off, len);
        break;
    case PATH_TX_SPLICE:
        n = send_splice(tx, len);
        break;
    case PATH_TX_MSG_ZEROCOPY:
        n = send_zerocopy(tx, len);
        break;
    case PATH_TX_COPY:
    default:
        n = send(tx->s->fd, tx->buf, len, MSG_NOSIGNAL);
        break;
    }
    if (n > 0)
        tx->s->tx.calls++;
    /* A pacing credit taken for bytes the kernel did not take is given back. */
    if (tx->pace_bps)
        tx->paced_bytes -= len - (size_t)(n > 0 ? n : 0);
    return n;
}

/* What the kernel kept of the socket options, for the report. */
static void read_back(struct path_tx *tx)
{
    struct stream *s = tx->s;
    const struct path_tx_params *t = &s->params->tx;
    if (t->fq_rate_bps) {
        uint64_t v = 0;
        socklen_t len = sizeof(v);
        if (!getsockopt(s->fd, SOL_SOCKET, SO_MAX_PACING_RATE, &v, &len))
            s->tx.max_pacing_rate = len == sizeof(uint32_t) ? (uint32_t)v : v;
    }
    if (t->notsent_lowat) {
        int v = 0;
        socklen_t len = sizeof(v);
        if (!getsockopt(s->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &v, &len))
            s->tx.notsent_lowat = (uint32_t)v;
    }
    struct tcp_info ti;
    socklen_t len = sizeof(ti);
    memset(&ti, 0, sizeof(ti));
    if (!getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) &&
        len >= offsetof(struct tcp_info, tcpi_max_pacing_rate))
        s->tx.tcpi_pacing_rate = ti.tcpi_pacing_rate;
}

void path_tx_close(struct path_tx *tx)
{
    if (!tx)
        return;
    struct stream *s = tx->s;
    /* Every send's completion is counted before the figures are final (unless aborted). */
    while (tx->mode == PATH_TX_MSG_ZEROCOPY && tx->inflight > 0 && s->fd >= 0)
        if (await_completion(tx, false))
            break;
    if (s->tx.used && s->fd >= 0)
        read_back(tx);
    /* A SIGPIPE of this thread's sends, pending while blocked, is consumed before the unblock. */
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
        ;
    pthread_sigmask(SIG_SETMASK, &tx->old_mask, NULL);
    if (tx->memfd >= 0)
        close(tx->memfd);
    if (tx->pipe_r >= 0)
        close(tx->pipe_r);
    if (tx->pipe_w >= 0)
        close(tx->pipe_w);
    free(tx->ring);
    free(tx);
}

/* The least of the streams' read-back values, as bits/s where scale is 8. */
static json_t *least(const struct stream_set *set, size_t field, uint64_t scale)
{
    uint64_t lo = UINT64_MAX;
    for (int i = 0; i < set->n; i++) {
        const struct path_tx_stats *t = &set->streams[i].tx;
        uint64_t v = *(const uint64_t *)((const char *)t + field);
        if (t->used && v < lo)
            lo = v;
    }
    return lo == UINT64_MAX ? json_null() : json_integer((json_int_t)(lo * scale));
}

static json_t *zerocopy_json(const struct path_tx_stats *sum)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:i, s:b}", "sends", (json_int_t)sum->zc_sends,
                     "completions", (json_int_t)sum->zc_completions, "copied",
                     (json_int_t)sum->zc_copied, "notifications", (json_int_t)sum->zc_notifications,
                     "waits", (json_int_t)sum->zc_waits, "max_in_flight", PATH_TX_ZC_SLOTS,
                     "all_copied",
                     sum->zc_completions > 0 && sum->zc_copied == sum->zc_completions);
}

json_t *path_tx_report(const struct stream_set *set)
{
    const struct path_tx_params *t = &set->params.tx;
    struct path_tx_stats sum = {0};
    int senders = 0;
    for (int i = 0; i < set->n; i++) {
        const struct path_tx_stats *x = &set->streams[i].tx;
        if (!x->used)
            continue;
        senders++;
        sum.calls += x->calls;
        sum.zc_sends += x->zc_sends;
        sum.zc_completions += x->zc_completions;
        sum.zc_copied += x->zc_copied;
        sum.zc_notifications += x->zc_notifications;
        sum.zc_waits += x->zc_waits;
        sum.pace_waits += x->pace_waits;
    }
    if (!path_tx_params_used(t) || !senders)
        return NULL;
    json_t *o = json_pack("{s:s, s:i, s:I}", "send_path", path_tx_mode_name(t->mode), "senders",
                          senders, "calls", (json_int_t)sum.calls);
    if (t->mode == PATH_TX_MSG_ZEROCOPY)
        json_object_set_new(o, "msg_zerocopy", zerocopy_json(&sum));
    if (t->pace_bps)
        json_object_set_new(o, "tcp_rate",
                            json_pack("{s:I, s:I}", "asked_bps", (json_int_t)t->pace_bps, "waits",
                                      (json_int_t)sum.pace_waits));
    if (t->fq_rate_bps)
        json_object_set_new(
            o, "fq_rate",
            json_pack(
                "{s:I, s:o, s:o}", "asked_bps", (json_int_t)t->fq_rate_bps, "max_pacing_rate_bps",
                least(set, offsetof(struct path_tx_stats, max_pacing_rate), 8), "pacing_rate_bps",
                least(set, offsetof(struct path_tx_stats, tcpi_pacing_rate), 8)));
    if (t->notsent_lowat) {
        uint32_t lo = UINT32_MAX;
        for (int i = 0; i < set->n; i++)
            if (set->streams[i].tx.used && set->streams[i].tx.notsent_lowat < lo)
                lo = set->streams[i].tx.notsent_lowat;
        json_object_set_new(
            o, "notsent_lowat",
            json_pack("{s:i, s:I}", "asked", (int)t->notsent_lowat, "read_back", (json_int_t)lo));
    }
    return o;
}

int path_tx_report_check(const json_t *v, char *err, size_t errlen)
{
    if (!json_is_object(v) || json_object_size(v) > 16 ||
        !json_is_string(json_object_get(v, "send_path")) ||
        !json_is_integer(json_object_get(v, "senders")))
        return err_set(err, errlen, EPROTO, "peer's send path report is malformed");
    return 0;
}
